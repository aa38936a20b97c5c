/*
 * test_strings.c -- the library's string and record sort against a reference, on every backend
 * that is built and has a device (the CPU backend always).
 *
 * Reference: a stable merge sort of indices comparing with memcmp (proper prefix first) in
 * ascending or descending order. Checked: perm equals the reference exactly (which proves order,
 * permutation and stability at once, since the stable order is unique); records_out equals the
 * records gathered by the reference permutation, in place and out of place.
 * Inputs: alphabets of 2, 3 and 62 symbols (with NUL bytes), lengths 0..40, long shared
 * prefixes, all-equal, sorted and reversed sets, at sizes around the sort's thresholds.
 * Usage: test_strings [seed]   (the seed is printed; pass it to replay a failure)
 */
#include "gpusort.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static uint64_t rng_state;
static uint64_t rnd(void)
{
    rng_state ^= rng_state << 13;
    rng_state ^= rng_state >> 7;
    rng_state ^= rng_state << 17;
    return rng_state;
}

static int failures, checks;
#define CHECK(cond, ...) do { checks++; if (!(cond)) { failures++; \
    fprintf(stderr, "FAIL %s:%d: ", __FILE__, __LINE__); fprintf(stderr, __VA_ARGS__); \
    fprintf(stderr, "\n"); } } while (0)

/* ---- reference ---- */
static const uint8_t *g_bytes;
static const uint64_t *g_off;
static int g_desc;
static const uint8_t *g_rec;
static size_t g_rs, g_ko, g_ks;

static int ref_cmp(uint64_t a, uint64_t b)
{
    const uint8_t *pa, *pb;
    size_t la, lb;
    if (g_rec) {
        pa = g_rec + a * g_rs + g_ko; pb = g_rec + b * g_rs + g_ko; la = lb = g_ks;
    } else {
        pa = g_bytes + g_off[a]; pb = g_bytes + g_off[b];
        la = g_off[a + 1] - g_off[a]; lb = g_off[b + 1] - g_off[b];
    }
    int c = memcmp(pa, pb, la < lb ? la : lb);
    if (!c) c = (la > lb) - (la < lb);
    return g_desc ? -c : c;
}

static void ref_sort(uint64_t *v, uint64_t *tmp, size_t n)
{
    if (n < 2) return;
    size_t h = n / 2;
    ref_sort(v, tmp, h);
    ref_sort(v + h, tmp, n - h);
    memcpy(tmp, v, h * sizeof *v);
    size_t i = 0, j = h, k = 0;
    while (i < h && j < n) v[k++] = ref_cmp(v[j], tmp[i]) < 0 ? v[j++] : tmp[i++];
    while (i < h) v[k++] = tmp[i++];
}

static uint64_t *reference(size_t n)
{
    uint64_t *p = malloc((n + 1) * sizeof *p), *t = malloc((n + 1) * sizeof *t);
    for (size_t i = 0; i < n; i++) p[i] = i;
    ref_sort(p, t, n);
    free(t);
    return p;
}

/* ---- generators ---- */
enum { GEN_BINARY, GEN_TERNARY_NUL, GEN_ALNUM, GEN_PREFIX, GEN_EQUAL, GEN_SORTED, GEN_COUNT };
static const char *gen_names[] = {"binary", "ternary+NUL", "alnum", "long-prefix", "all-equal",
                                  "sorted"};

static uint8_t *gen_strings(int kind, size_t n, uint64_t *off)
{
    size_t cap = n * 48 + 1024, pos = 0;
    uint8_t *b = malloc(cap);
    static const char alnum[] = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";
    for (size_t i = 0; i < n; i++) {
        off[i] = pos;
        size_t len = rnd() % 41;
        if (kind == GEN_EQUAL) len = 20;
        if (kind == GEN_PREFIX) len = 30 + rnd() % 10;
        for (size_t j = 0; j < len; j++) {
            uint8_t c;
            switch (kind) {
            case GEN_BINARY: c = (uint8_t)("ab"[rnd() & 1]); if (len > 6) len = 6; break;
            case GEN_TERNARY_NUL: c = (uint8_t)(rnd() % 3); break;
            case GEN_PREFIX: c = j < 28 ? (uint8_t)'x' : (uint8_t)(rnd() % 4); break;
            case GEN_EQUAL: c = 'q'; break;
            default: c = (uint8_t)alnum[rnd() % 62];
            }
            b[pos++] = c;
        }
    }
    off[n] = pos;
    if (kind == GEN_SORTED && n) {          /* make it sorted by sorting it with the reference */
        g_bytes = b; g_off = off; g_desc = 0; g_rec = NULL;
        uint64_t *p = reference(n);
        uint8_t *b2 = malloc(cap);
        uint64_t *o2 = malloc((n + 1) * sizeof *o2);
        size_t q = 0;
        for (size_t i = 0; i < n; i++) {
            o2[i] = q;
            memcpy(b2 + q, b + off[p[i]], off[p[i] + 1] - off[p[i]]);
            q += off[p[i] + 1] - off[p[i]];
        }
        o2[n] = q;
        memcpy(off, o2, (n + 1) * sizeof *o2);
        free(b); free(o2); free(p);
        b = b2;
    }
    return b;
}

static void test_strings(gpusort_ctx *ctx, const char *bname, size_t n, int kind)
{
    uint64_t *off = malloc((n + 1) * sizeof *off);
    uint8_t *b = gen_strings(kind, n, off);
    for (int desc = 0; desc < 2; desc++) {
        g_bytes = b; g_off = off; g_desc = desc; g_rec = NULL;
        uint64_t *ref = reference(n);
        uint64_t *p64 = malloc((n + 1) * sizeof *p64);
        uint32_t *p32 = malloc((n + 1) * sizeof *p32);
        gpusort_status s = gpusort_sort_strings(ctx, GPUSORT_TYPE_U64, b, off, n, p64, desc, 0);
        CHECK(s == 0, "%s strings n=%zu %s desc=%d: %s (%s)", bname, n, gen_names[kind], desc,
              gpusort_status_string(s), gpusort_ctx_get_last_error(ctx));
        size_t bad = n;
        for (size_t i = 0; i < n && bad == n; i++) if (p64[i] != ref[i]) bad = i;
        CHECK(s || bad == n, "%s strings n=%zu %s desc=%d: u64 perm differs at %zu", bname, n,
              gen_names[kind], desc, bad);
        s = gpusort_sort_strings(ctx, GPUSORT_TYPE_U32, b, off, n, p32, desc, 0);
        bad = n;
        for (size_t i = 0; i < n && bad == n; i++) if (p32[i] != ref[i]) bad = i;
        CHECK(s == 0 && bad == n, "%s strings n=%zu %s desc=%d: u32 perm differs at %zu", bname,
              n, gen_names[kind], desc, bad);
        free(ref); free(p64); free(p32);
    }
    free(b); free(off);
}

static void test_records(gpusort_ctx *ctx, const char *bname, size_t n, size_t rs, size_t ko,
                         size_t ks, int alphabet)
{
    uint8_t *in = malloc(n * rs + 1), *out = malloc(n * rs + 1), *io = malloc(n * rs + 1);
    for (size_t i = 0; i < n * rs; i++) in[i] = (uint8_t)(rnd() % (uint64_t)alphabet);
    memcpy(io, in, n * rs);
    for (int desc = 0; desc < 2; desc++) {
        g_rec = in; g_rs = rs; g_ko = ko; g_ks = ks; g_desc = desc;
        uint64_t *ref = reference(n), *perm = malloc((n + 1) * sizeof *perm);
        gpusort_status s = gpusort_sort_records(ctx, GPUSORT_TYPE_U64, in, n, rs, ko, ks, out, perm, desc, 0);
        int ok = s == 0;
        for (size_t i = 0; ok && i < n; i++)
            ok = perm[i] == ref[i] && memcmp(out + i * rs, in + ref[i] * rs, rs) == 0;
        CHECK(ok, "%s records n=%zu rs=%zu ko=%zu ks=%zu desc=%d: %s", bname, n, rs, ko, ks, desc,
              s ? gpusort_ctx_get_last_error(ctx) : "wrong order");
        memcpy(io, in, n * rs);
        s = gpusort_sort_records(ctx, GPUSORT_TYPE_U64, io, n, rs, ko, ks, io, NULL, desc, 0);
        CHECK(s == 0 && (n == 0 || memcmp(io, out, n * rs) == 0),
              "%s records in place n=%zu rs=%zu ks=%zu desc=%d", bname, n, rs, ks, desc);
        free(ref); free(perm);
    }
    g_rec = NULL;
    free(in); free(out); free(io);
}

int main(int argc, char **argv)
{
    uint64_t seed = argc > 1 ? strtoull(argv[1], NULL, 0) : (uint64_t)time(NULL);
    printf("test_strings seed %llu (replay: test_strings %llu)\n", (unsigned long long)seed,
           (unsigned long long)seed);
    rng_state = seed * 2654435761u + 1;
    static const size_t sizes[] = {0, 1, 2, 3, 17, 255, 256, 257, 1000, 4097, 70000, 140000};
    for (int b = GPUSORT_BACKEND_CPU; b < GPUSORT_BACKEND_COUNT_; b++) {
        gpusort_ctx *ctx = NULL;
        if (gpusort_ctx_create(&ctx, (gpusort_backend)b, -1) != GPUSORT_STATUS_SUCCESS) {
            printf("skipped backend %s: not built or no device\n", gpusort_backend_name(b));
            continue;
        }
        const char *bname = gpusort_backend_name((gpusort_backend)b);
        for (size_t si = 0; si < sizeof sizes / sizeof sizes[0]; si++)
            for (int kind = 0; kind < GEN_COUNT; kind++) {
                if (sizes[si] > 5000 && kind == GEN_EQUAL) continue;
                test_strings(ctx, bname, sizes[si], kind);
            }
        /* Past the CPU sort's 16-bit top digit (2^20 strings, strings.c WIDE_TOP_MIN): bytes
         * with NULs (few values per byte) and words. */
        test_strings(ctx, bname, ((size_t)1 << 20) + 5, GEN_TERNARY_NUL);
        test_strings(ctx, bname, ((size_t)1 << 20) + 5, GEN_ALNUM);
        /* Records: gensort shape, short keys, offsets, key longer than 8, tiny alphabet. */
        test_records(ctx, bname, 0, 100, 0, 10, 256);
        test_records(ctx, bname, 1000, 100, 0, 10, 256);
        test_records(ctx, bname, 140000, 100, 0, 10, 256);
        test_records(ctx, bname, 5000, 16, 4, 3, 4);
        test_records(ctx, bname, 5000, 24, 3, 17, 2);
        test_records(ctx, bname, 3000, 8, 8, 0, 2);
        test_records(ctx, bname, 70000, 12, 0, 12, 3);
        gpusort_ctx_free(ctx);
    }
    printf("%d passed, %d failed\n", checks - failures, failures);
    return failures ? 1 : 0;
}
