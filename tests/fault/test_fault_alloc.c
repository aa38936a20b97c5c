/*
 * test_fault_alloc.c -- every host allocation of a library call fails in turn.
 *
 *   test_fault_alloc [--backend cpu|opencl] [--seed S]
 *
 * For each call below (every data call of gpusort.h, at sizes that take the small and the
 * large, multithreaded code paths, and gpusort_ctx_create itself) and for k = 1, 2, 3, ...:
 * arm src/alloc.c's hook so that the k-th host allocation of the call fails (and every later
 * one), make the call, disarm. Until k passes the number of allocations the call makes, the
 * call must
 *   - return GPUSORT_STATUS_OUT_OF_HOST_MEMORY, or succeed with the right result (a fallback
 *     that needs no memory, e.g. an in-place record sort that follows the permutation's cycles);
 *   - leave its const inputs as they were, and an in-place buffer holding the same keys;
 *   - leave the context usable: the same call, disarmed, then gives the right result.
 * Leaks are LeakSanitizer's to find: the ASan build runs this test with detect_leaks=1.
 * Results are judged by an independent check (sorted under the header's order and a
 * permutation of the input), not by another run of the library.
 * Exits 0, 1 on a failure, 77 when the backend has no device here.
 */
#include "datagen.h"
#include "gpusort.h"
#include "internal.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int failures;
#define CHECK(cond, ...)                                                         \
    do {                                                                         \
        if (!(cond)) {                                                           \
            fprintf(stderr, "FAIL %s:%d: %s: ", __FILE__, __LINE__, #cond);      \
            fprintf(stderr, __VA_ARGS__);                                        \
            fprintf(stderr, "\n");                                               \
            failures++;                                                          \
        }                                                                        \
    } while (0)

static datagen_rng rng;
static uint64_t next_rand(void) { return datagen_rng_next(&rng); }

/* One call under test: run it on fresh copies of the inputs and judge the outputs. */
typedef struct call {
    const char *name;
    gpusort_type type;          /* key type */
    size_t n;
    int inplace;
    gpusort_status (*run)(gpusort_ctx *ctx, const struct call *c, void *in, void *out, void *aux);
    int (*ok)(const struct call *c, const void *orig, const void *in, const void *out, const void *aux);
} call;

static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return (x > y) - (x < y);
}

/* Keys are u64 (or u32) values below 2^40 (u32: below 2^31): their order is the numeric one. */
static uint64_t key_at(const struct call *c, const void *p, size_t i)
{
    if (gpusort_type_size(c->type) == 4) return ((const uint32_t *)p)[i];
    return ((const uint64_t *)p)[i];
}

/* out (n keys) is the sorted orig. */
static int sorted_perm(const struct call *c, const void *orig, const void *out)
{
    uint64_t *a = (uint64_t *)malloc(c->n * 8), *b = (uint64_t *)malloc(c->n * 8);
    for (size_t i = 0; i < c->n; i++) a[i] = key_at(c, orig, i), b[i] = key_at(c, out, i);
    qsort(a, c->n, 8, cmp_u64);
    int ok = memcmp(a, b, c->n * 8) == 0;
    free(a);
    free(b);
    return ok;
}

static gpusort_status run_sort(gpusort_ctx *ctx, const call *c, void *in, void *out, void *aux)
{
    return gpusort_sort(ctx, c->type, in, c->n, c->inplace ? in : out, GPUSORT_ORDER_ASC,
                        (gpusort_algorithm)(uintptr_t)aux, 0);
}
static int ok_sort(const call *c, const void *orig, const void *in, const void *out, const void *aux)
{
    return sorted_perm(c, orig, c->inplace ? in : out);
}

static gpusort_status run_argsort(gpusort_ctx *ctx, const call *c, void *in, void *out, void *aux)
{
    return gpusort_argsort(ctx, c->type, GPUSORT_TYPE_U64, in, c->n, out, GPUSORT_ORDER_DESC,
                           GPUSORT_ALGORITHM_AUTO, 0);
}
static int ok_argsort(const call *c, const void *orig, const void *in, const void *out, const void *aux)
{
    const uint64_t *idx = (const uint64_t *)out;
    for (size_t i = 0; i < c->n; i++)
        if (idx[i] >= c->n) return 0;
    for (size_t i = 0; i + 1 < c->n; i++) {
        uint64_t a = key_at(c, orig, idx[i]), b = key_at(c, orig, idx[i + 1]);
        if (a < b || (a == b && idx[i] > idx[i + 1])) return 0;   /* descending, stable */
    }
    return 1;
}

static gpusort_status run_pairs(gpusort_ctx *ctx, const call *c, void *in, void *out, void *aux)
{
    /* values = the keys' own bits: each value must travel with its key */
    return gpusort_sort_pairs(ctx, c->type, GPUSORT_TYPE_U64, in, in, c->n,
                              out, (uint64_t *)out + c->n, GPUSORT_ORDER_ASC,
                              GPUSORT_ALGORITHM_AUTO, 0);
}
static int ok_pairs(const call *c, const void *orig, const void *in, const void *out, const void *aux)
{
    const uint64_t *v = (const uint64_t *)out + c->n;
    for (size_t i = 0; i < c->n; i++)
        if (v[i] != key_at(c, out, i)) return 0;
    return sorted_perm(c, orig, out);
}

static gpusort_status run_segmented(gpusort_ctx *ctx, const call *c, void *in, void *out, void *aux)
{
    const uint64_t offs[4] = {0, c->n / 3, c->n / 3, c->n};
    return gpusort_sort_segmented(ctx, c->type, GPUSORT_TYPE_U32, in, NULL, c->n, offs, 3, out,
                                  (uint64_t *)out + c->n, GPUSORT_ORDER_ASC,
                                  GPUSORT_ALGORITHM_AUTO, 0);
}
static int ok_segmented(const call *c, const void *orig, const void *in, const void *out, const void *aux)
{
    const uint32_t *idx = (const uint32_t *)((const uint64_t *)out + c->n);
    size_t cut = c->n / 3;
    for (size_t i = 0; i < c->n; i++) {
        if (idx[i] >= c->n || (i < cut) != (idx[i] < cut)) return 0;
        if (key_at(c, orig, idx[i]) != key_at(c, out, i)) return 0;
        if (i + 1 < c->n && i + 1 != cut && key_at(c, out, i) > key_at(c, out, i + 1)) return 0;
    }
    return 1;
}

static gpusort_status run_batch(gpusort_ctx *ctx, const call *c, void *in, void *out, void *aux)
{
    return gpusort_sort_batch(ctx, c->type, GPUSORT_TYPE_NONE, in, NULL, c->n, c->n / 8, in,
                              NULL, GPUSORT_ORDER_ASC, GPUSORT_ALGORITHM_AUTO, 0);
}
static int ok_batch(const call *c, const void *orig, const void *in, const void *out, const void *aux)
{
    size_t row = c->n / 8;
    for (size_t i = 0; i + 1 < c->n; i++)
        if ((i + 1) % row && key_at(c, in, i) > key_at(c, in, i + 1)) return 0;
    return 1;
}

/* Strings: the keys' bytes cut into strings of 0-15 bytes. */
static gpusort_status run_strings(gpusort_ctx *ctx, const call *c, void *in, void *out, void *aux)
{
    uint64_t *offs = (uint64_t *)aux;
    return gpusort_sort_strings(ctx, GPUSORT_TYPE_U32, (const uint8_t *)in, offs, c->n / 8, out,
                                GPUSORT_ORDER_ASC, 0);
}
static int ok_strings(const call *c, const void *orig, const void *in, const void *out, const void *aux)
{
    const uint64_t *o = (const uint64_t *)aux;
    const uint32_t *idx = (const uint32_t *)out;
    const uint8_t *b = (const uint8_t *)orig;
    size_t ns = c->n / 8;
    for (size_t k = 0; k + 1 < ns; k++) {
        uint32_t x = idx[k], y = idx[k + 1];
        if (x >= ns || y >= ns) return 0;
        size_t lx = o[x + 1] - o[x], ly = o[y + 1] - o[y];
        int r = memcmp(b + o[x], b + o[y], lx < ly ? lx : ly);
        if (r > 0 || (r == 0 && (lx > ly || (lx == ly && x > y)))) return 0;
    }
    return 1;
}

/* Records of 24 bytes keyed by bytes [4, 14), in place, with u32 indices. */
static gpusort_status run_records(gpusort_ctx *ctx, const call *c, void *in, void *out, void *aux)
{
    return gpusort_sort_records(ctx, GPUSORT_TYPE_U32, in, c->n / 3, 24, 4, 10, in, out,
                                GPUSORT_ORDER_ASC, 0);
}
static int ok_records(const call *c, const void *orig, const void *in, const void *out, const void *aux)
{
    const uint8_t *r = (const uint8_t *)in, *o = (const uint8_t *)orig;
    const uint32_t *idx = (const uint32_t *)out;
    size_t nr = c->n / 3;
    for (size_t i = 0; i < nr; i++) {
        if (idx[i] >= nr || memcmp(r + 24 * i, o + 24 * (size_t)idx[i], 24) != 0) return 0;
        if (i + 1 < nr) {
            int x = memcmp(r + 24 * i + 4, r + 24 * (i + 1) + 4, 10);
            if (x > 0 || (x == 0 && idx[i] > idx[i + 1])) return 0;
        }
    }
    return 1;
}

static gpusort_status run_reduce(gpusort_ctx *ctx, const call *c, void *in, void *out, void *aux)
{
    return gpusort_reduce(ctx, c->type, in, c->n, (gpusort_value *)out, GPUSORT_OP_SUM, 0);
}
static int ok_reduce(const call *c, const void *orig, const void *in, const void *out, const void *aux)
{
    uint64_t s = 0;
    for (size_t i = 0; i < c->n; i++) s += key_at(c, orig, i);
    return ((const gpusort_value *)out)->u == s;
}

/* One call, for k = 1, 2, ... until it makes fewer than k allocations. */
static void sweep(gpusort_ctx *ctx, const char *backend, call c, uintptr_t alg)
{
    size_t ks = gpusort_type_size(c.type), bytes = c.n * 8 + 64;
    uint8_t *orig = (uint8_t *)malloc(bytes), *in = (uint8_t *)malloc(bytes);
    uint8_t *out = (uint8_t *)malloc(2 * bytes);
    for (size_t i = 0; i < c.n; i++) {
        uint64_t v = next_rand() % (ks == 4 ? 1u << 31 : (uint64_t)1 << 40);
        if (i % 7 == 3 && i) v = key_at(&c, orig, i - 1);   /* some ties */
        if (ks == 4) ((uint32_t *)orig)[i] = (uint32_t)v; else ((uint64_t *)orig)[i] = v;
    }
    /* strings: offsets of n / 8 strings of 0-15 bytes within the first n bytes */
    uint64_t *offs = (uint64_t *)malloc((c.n / 8 + 1) * 8);
    offs[0] = 0;
    for (size_t i = 0; i < c.n / 8; i++) offs[i + 1] = offs[i] + next_rand() % 16 % 9;
    void *aux = c.run == run_strings ? (void *)offs : (void *)alg;

    long k, made = 0, oom = 0, fallback = 0;
    for (k = 1;; k++) {
        memcpy(in, orig, bytes);
        gpusort__alloc_fail_at(k);
        gpusort_status s = c.run(ctx, &c, in, out, aux);
        made = gpusort__alloc_count();
        gpusort__alloc_fail_at(0);
        if (made < k) {   /* nothing failed: the call ran whole */
            CHECK(s == GPUSORT_STATUS_SUCCESS, "%s %s n=%zu k=%ld: %s", backend, c.name, c.n, k,
                  gpusort_status_string(s));
            CHECK(c.ok(&c, orig, in, out, aux), "%s %s n=%zu: wrong result", backend, c.name, c.n);
            break;
        }
        if (s == GPUSORT_STATUS_SUCCESS) {
            fallback++;
            CHECK(c.ok(&c, orig, in, out, aux), "%s %s n=%zu k=%ld: success with a wrong result",
                  backend, c.name, c.n, k);
        } else {
            oom++;
            CHECK(s == GPUSORT_STATUS_OUT_OF_HOST_MEMORY, "%s %s n=%zu k=%ld: %s (%s)", backend,
                  c.name, c.n, k, gpusort_status_string(s), gpusort_ctx_get_last_error(ctx));
            if (!c.inplace && c.run != run_batch && c.run != run_records)
                CHECK(memcmp(in, orig, bytes) == 0, "%s %s k=%ld: the input was written", backend,
                      c.name, k);
        }
        /* the context still works */
        memcpy(in, orig, bytes);
        s = c.run(ctx, &c, in, out, aux);
        CHECK(s == GPUSORT_STATUS_SUCCESS && c.ok(&c, orig, in, out, aux),
              "%s %s n=%zu: the call after a failure at k=%ld: %s", backend, c.name, c.n, k,
              gpusort_status_string(s));
        if (k > 10000) { CHECK(0, "%s: more than 10000 allocations", c.name); break; }
    }
    printf("%-7s %-10s %-4s n=%-8zu %3ld allocations in a whole call; failing the k-th: %ld "
           "OUT_OF_HOST_MEMORY, %ld survived by a fallback\n", backend, c.name,
           gpusort_type_name(c.type), c.n, made, oom, fallback);
    free(orig);
    free(in);
    free(out);
    free(offs);
}

int main(int argc, char **argv)
{
    gpusort_backend backend = GPUSORT_BACKEND_CPU;
    uint64_t seed = 20261124;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--backend") == 0 && i + 1 < argc) {
            if (gpusort_backend_parse(argv[++i], &backend) != GPUSORT_STATUS_SUCCESS) return 2;
        } else if (strcmp(argv[i], "--seed") == 0 && i + 1 < argc) {
            seed = strtoull(argv[++i], NULL, 0);
        } else {
            fprintf(stderr, "usage: %s [--backend cpu|opencl] [--seed S]\n", argv[0]);
            return 2;
        }
    }
    printf("seed %llu\n", (unsigned long long)seed);
    datagen_rng_seed(&rng, seed);
    const char *bname = gpusort_backend_name(backend);
    int count = 0;
    if (gpusort_device_get_count(backend, &count) != GPUSORT_STATUS_SUCCESS || count == 0) {
        printf("skipped: no %s device\n", bname);
        return 77;
    }

    /* gpusort_ctx_create itself */
    long k, oom = 0;
    for (k = 1;; k++) {
        gpusort_ctx *c = NULL;
        gpusort__alloc_fail_at(k);
        gpusort_status s = gpusort_ctx_create(&c, backend, -1);
        long made = gpusort__alloc_count();
        gpusort__alloc_fail_at(0);
        if (made < k) {
            CHECK(s == GPUSORT_STATUS_SUCCESS, "ctx_create: %s", gpusort_status_string(s));
            gpusort_ctx_free(c);
            printf("%-7s ctx_create %ld allocations: %ld failed with OUT_OF_HOST_MEMORY\n", bname,
                   made, oom);
            break;
        }
        if (s) {
            oom++;
            CHECK(s == GPUSORT_STATUS_OUT_OF_HOST_MEMORY, "ctx_create k=%ld: %s", k,
                  gpusort_status_string(s));
            CHECK(c == NULL, "ctx_create k=%ld: failed but *ctx is set", k);
        }
        gpusort_ctx_free(c);
    }

    gpusort_ctx *ctx = NULL;
    if (gpusort_ctx_create(&ctx, backend, -1) != GPUSORT_STATUS_SUCCESS) return 1;
    gpusort_ctx_set_threads(ctx, 4);   /* worker threads allocate too */
    /* Sizes: below and above the small-input paths, and 2^20 + 3 keys (multithreaded radix,
     * scratch of 4 MiB and more: the mmap'd path of src/cpu/memory.c). */
    size_t sizes[] = {5, 3001, ((size_t)1 << 20) + 3};
    int nsizes = backend == GPUSORT_BACKEND_CPU ? 3 : 2;
    for (int si = 0; si < nsizes; si++) {
        size_t n = sizes[si];
        sweep(ctx, bname, (call){"sort", GPUSORT_TYPE_U32, n, 0, run_sort, ok_sort}, GPUSORT_ALGORITHM_AUTO);
        sweep(ctx, bname, (call){"sort", GPUSORT_TYPE_U64, n, 1, run_sort, ok_sort}, GPUSORT_ALGORITHM_RADIX);
        if (backend == GPUSORT_BACKEND_CPU)
            sweep(ctx, bname, (call){"merge", GPUSORT_TYPE_U64, n, 0, run_sort, ok_sort}, GPUSORT_ALGORITHM_MERGE);
        else
            sweep(ctx, bname, (call){"bitonic", GPUSORT_TYPE_U32, n, 0, run_sort, ok_sort}, GPUSORT_ALGORITHM_BITONIC);
        sweep(ctx, bname, (call){"pairs", GPUSORT_TYPE_U64, n, 0, run_pairs, ok_pairs}, 0);
        sweep(ctx, bname, (call){"argsort", GPUSORT_TYPE_U32, n, 0, run_argsort, ok_argsort}, 0);
        if (n < 8) continue;
        sweep(ctx, bname, (call){"segmented", GPUSORT_TYPE_U64, n, 0, run_segmented, ok_segmented}, 0);
        sweep(ctx, bname, (call){"batch", GPUSORT_TYPE_U32, n - n % 8, 1, run_batch, ok_batch}, 0);
        sweep(ctx, bname, (call){"strings", GPUSORT_TYPE_U64, n, 0, run_strings, ok_strings}, 0);
        sweep(ctx, bname, (call){"records", GPUSORT_TYPE_U64, n, 1, run_records, ok_records}, 0);
        sweep(ctx, bname, (call){"reduce", GPUSORT_TYPE_U64, n, 0, run_reduce, ok_reduce}, 0);
    }
    gpusort_ctx_free(ctx);
    if (failures) {
        printf("%d failures\n", failures);
        return 1;
    }
    printf("ok\n");
    return 0;
}
