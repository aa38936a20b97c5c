/*
 * fuzz.h -- what the fuzz targets of tests/fuzz/ share.
 *
 * Each fuzz_<name>.c defines LLVMFuzzerTestOneInput (libFuzzer's entry point). Built with
 * clang and -DGPUSORT_FUZZ=ON, libFuzzer drives it; otherwise (gcc, CI) replay.c's main() feeds
 * it the committed corpus tests/fuzz/corpus/<name>/ and a few thousand random inputs.
 *
 *   fz                  a cursor over the input's bytes: fz_u8, fz_u32, fz_below, fz_bytes
 *   fz_argv             the rest of the input as an argv (arguments separated by NUL bytes)
 *   fz_key_spec         a valid -k key spec from 3 bytes
 *   fuzz_cli_run        run CLI code that may cli_fail(): it comes back with the exit code
 *   FUZZ_ASSERT         a property that must hold: print it and abort (a crash libFuzzer keeps)
 *
 * A target asserts properties (order, permutation, stability, statuses the contract names); it
 * never compares against a copy of the code under test.
 */
#ifndef GPUSORT_FUZZ_H
#define GPUSORT_FUZZ_H

#include <setjmp.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define FUZZ_ASSERT(cond)                                                                   \
    do {                                                                                    \
        if (!(cond)) {                                                                      \
            fprintf(stderr, "%s:%d: property failed: %s\n", __FILE__, __LINE__, #cond);    \
            abort();                                                                        \
        }                                                                                   \
    } while (0)

typedef struct fz {
    const uint8_t *p;
    size_t n;
} fz;

/* The next byte, or 0 once the input is used up (so every input is a valid one). */
static inline unsigned fz_u8(fz *f)
{
    if (!f->n) return 0;
    f->n--;
    return *f->p++;
}

static inline uint32_t fz_u32(fz *f)
{
    uint32_t v = 0;
    for (int i = 0; i < 4; i++) v |= (uint32_t)fz_u8(f) << (8 * i);
    return v;
}

/* A number in [0, n) (n >= 1) from one or two bytes. */
static inline unsigned fz_below(fz *f, unsigned n)
{
    unsigned v = n <= 256 ? fz_u8(f) : fz_u8(f) | fz_u8(f) << 8;
    return v % n;
}

/* Copy n bytes (zeros past the end of the input). */
static inline void fz_bytes(fz *f, void *dst, size_t n)
{
    size_t k = n < f->n ? n : f->n;
    memcpy(dst, f->p, k);
    memset((uint8_t *)dst + k, 0, n - k);
    f->p += k;
    f->n -= k;
}

/* The rest of the input as arguments separated by NUL bytes, after argv[0] = "gpusort": at most
 * max - 1 of them, argv[argc] = NULL. *store is malloc'd (free it). */
static inline int fz_argv(fz *f, char **argv, int max, char **store)
{
    char *s = (char *)malloc(f->n + 1);
    memcpy(s, f->p, f->n);
    s[f->n] = 0;
    int argc = 0;
    argv[argc++] = (char *)"gpusort";
    for (size_t i = 0; i < f->n && argc < max - 1;) {
        argv[argc++] = s + i;
        i += strlen(s + i) + 1;
    }
    argv[argc] = NULL;
    f->p += f->n;
    f->n = 0;
    *store = s;
    return argc;
}

/* A valid -k spec from 3 bytes: fields 1-4, an optional .char, modifiers b d f g n r, and
 * an optional end field (.char, b). */
static inline void fz_key_spec(fz *f, char *out, size_t size)
{
    unsigned s = fz_u8(f), e = fz_u8(f), m = fz_u8(f);
    int n = snprintf(out, size, "%u", 1 + (s & 3));
    if (s & 4) n += snprintf(out + n, size - n, ".%u", 1 + ((s >> 3) & 3));
    static const char mods[] = "bdfgnr";
    for (int i = 0; i < 6; i++)
        if (m & (1u << i)) out[n++] = mods[i];
    if (!(e & 1)) {
        n += snprintf(out + n, size - n, ",%u", 1 + (s & 3) + ((e >> 1) & 3));
        if (e & 8) n += snprintf(out + n, size - n, ".%u", (e >> 4) & 3);
        if (e & 64) out[n++] = 'b';
    }
    out[n] = 0;
}

/* CLI code ends a refused command line with cli_fail(), which calls exit(2). fuzz_cli_run
 * sets tools/util.c's cli_exit_hook to fuzz_cli_exit, which longjmps back into fuzz_cli_run:
 * fuzz_cli_run(fn, arg) runs fn(arg) and returns -1, or the exit code fn's cli_fail asked for.
 * (The setjmp is in this small function so that no caller's local variable can be clobbered.)
 * Memory the code had allocated before it failed is lost: those targets run with leak checks
 * off (tests/fuzz/README.md). */
extern void (*cli_exit_hook)(int code) __attribute__((weak));   /* weak: fuzz_api has no CLI */
static jmp_buf fuzz_jmp __attribute__((unused));
static volatile int fuzz_exit_code __attribute__((unused));
__attribute__((unused)) static void fuzz_cli_exit(int code)
{
    fuzz_exit_code = code;
    longjmp(fuzz_jmp, 1);
}
__attribute__((unused, noinline)) static int fuzz_cli_run(void (*fn)(void *), void *arg)
{
    cli_exit_hook = fuzz_cli_exit;
    if (setjmp(fuzz_jmp)) return fuzz_exit_code;
    fn(arg);
    return -1;
}

#endif
