/*
 * test_big.c -- the opt-in test above 2^32 elements: sizes that overflow 32-bit counters and
 * indices. Too big for CI (16 GiB of keys, up to ~100 GiB with the argsort); meant to run once on
 * the GPU machine (128 GiB of host memory) and be recorded.
 *
 *   GPUSORT_BIG_TESTS=1 test_big [--backend cpu|cuda|opencl] [--n N] [--seed S]
 *                                [--no-argsort] [--no-device]
 *
 * Without GPUSORT_BIG_TESTS=1 it prints why and exits 77 (skipped). Default n = 2^32 + 1234.
 *
 * WHAT IS CHECKED (a full reference sort of 2^32 keys would take longer than the sort itself,
 * so the checks are linear passes):
 *   1. keys, in place, ascending, u32 uniform random: the output is sorted, and it is the same
 *      multiset as the input by four fingerprints taken before and after: the wrapping sum, the
 *      xor, the wrapping sum of squares, and a histogram of the top 16 bits (65536 counters). A
 *      lost or duplicated key changes at least the histogram or the sum unless another key
 *      changes to compensate exactly in all four at once.
 *      On CUDA this runs twice if the GPU has the memory: with DEVICE memory, then host memory.
 *   2. argsort with u64 indices, descending, on the same (regenerated) keys, host memory, if the
 *      machine has the memory (about 25 bytes per key with the CPU backend's scratch): EXACT
 *      checks, on all cores: the indices are a permutation of 0..n-1 (a bitmap), keys[idx[i]]
 *      are in descending order, and equal keys have increasing indices (stability).
 * Each sort's time is reported. Exit 0 passed, 1 failed, 2 setup error, 77 skipped.
 */
#define _GNU_SOURCE /* sysconf(_SC_AVPHYS_PAGES), clock_gettime */

#include "datagen.h"
#include "gpusort.h"

#ifdef GPUSORT_HAVE_CUDA
#include "cuda_mem.h"
#endif

#include <inttypes.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define SKIP_EXIT 77
#define HIST_BITS 16

typedef struct fingerprint {
    uint64_t sum, xor_, sq;
    uint64_t *hist;    /* 2^HIST_BITS counters of the top bits */
} fingerprint;

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static void take_fingerprint(const uint32_t *k, size_t n, fingerprint *f)
{
    memset(f->hist, 0, sizeof(uint64_t) << HIST_BITS);
    uint64_t sum = 0, x = 0, sq = 0;
    for (size_t i = 0; i < n; i++) {
        uint64_t v = k[i];
        sum += v;
        x ^= v * 0x9e3779b97f4a7c15ull;   /* spread the xor over 64 bits */
        sq += v * v;
        f->hist[v >> (32 - HIST_BITS)]++;
    }
    f->sum = sum;
    f->xor_ = x;
    f->sq = sq;
}

static int same_fingerprint(const fingerprint *a, const fingerprint *b)
{
    if (a->sum != b->sum || a->xor_ != b->xor_ || a->sq != b->sq) {
        printf("FAIL: the output is not a permutation of the input: sum %" PRIx64 "/%" PRIx64
               ", xor %" PRIx64 "/%" PRIx64 ", squares %" PRIx64 "/%" PRIx64 "\n",
               a->sum, b->sum, a->xor_, b->xor_, a->sq, b->sq);
        return 0;
    }
    for (size_t i = 0; i < ((size_t)1 << HIST_BITS); i++)
        if (a->hist[i] != b->hist[i]) {
            printf("FAIL: the output is not a permutation of the input: %" PRIu64
                   " keys with top bits 0x%zx before, %" PRIu64 " after\n",
                   a->hist[i], i, b->hist[i]);
            return 0;
        }
    return 1;
}

static size_t first_unsorted_asc(const uint32_t *k, size_t n)
{
    for (size_t i = 1; i < n; i++)
        if (k[i] < k[i - 1]) return i;
    return n;
}

static uint64_t available_memory(void)
{
    long pages = sysconf(_SC_AVPHYS_PAGES), size = sysconf(_SC_PAGESIZE);
    return pages > 0 && size > 0 ? (uint64_t)pages * (uint64_t)size : 0;
}

static void *big_alloc(size_t bytes, const char *what)
{
    void *p = malloc(bytes);
    if (!p) printf("cannot allocate %zu bytes for %s\n", bytes, what);
    return p;
}

/* Test 1: in-place ascending keys sort through `ctx`, data in host memory or (CUDA) device. */
static int test_keys(gpusort_ctx *ctx, uint32_t *keys, size_t n, uint64_t seed, int device)
{
    int ok = 1;
    fingerprint before, after;
    before.hist = calloc((size_t)1 << HIST_BITS, sizeof(uint64_t));
    after.hist = calloc((size_t)1 << HIST_BITS, sizeof(uint64_t));
    if (!before.hist || !after.hist) return 0;
    double t = now();
    datagen_fill(keys, GPUSORT_TYPE_U32, n, DATAGEN_UNIFORM, seed);
    take_fingerprint(keys, n, &before);
    printf("keys: generated and fingerprinted %zu keys in %.1f s\n", n, now() - t);
    fflush(stdout);

    void *p = keys;
#ifdef GPUSORT_HAVE_CUDA
    if (device) {
        p = test_cuda_alloc(n * 4);
        if (!p || test_cuda_upload(p, keys, n * 4)) {
            printf("keys (device memory): cannot allocate/upload: %s\n", test_cuda_error());
            test_cuda_free(p);
            free(before.hist);
            free(after.hist);
            return 0;
        }
    }
#endif
    t = now();
    gpusort_status s = gpusort_sort(ctx, GPUSORT_TYPE_U32, p, n, p, GPUSORT_ORDER_ASC,
                                    GPUSORT_ALGORITHM_AUTO, 0);
    double secs = now() - t;
#ifdef GPUSORT_HAVE_CUDA
    if (device) {
        if (test_cuda_download(keys, p, n * 4)) {
            printf("keys (device memory): download failed: %s\n", test_cuda_error());
            ok = 0;
        }
        test_cuda_free(p);
    }
#endif
    const char *mem = device ? "device" : "host";
    if (s != GPUSORT_STATUS_SUCCESS) {
        printf("FAIL: keys (%s memory): %s: %s\n", mem, gpusort_status_string(s),
               gpusort_ctx_get_last_error(ctx));
        ok = 0;
    } else {
        printf("keys (%s memory): sorted %zu u32 keys in %.2f s (%.1f Mkeys/s)\n", mem, n, secs,
               (double)n / secs * 1e-6);
        size_t bad = first_unsorted_asc(keys, n);
        if (bad != n) {
            printf("FAIL: keys (%s memory): not sorted at index %zu: %" PRIu32 " after %" PRIu32
                   "\n", mem, bad, keys[bad], keys[bad - 1]);
            ok = 0;
        }
        take_fingerprint(keys, n, &after);
        if (!same_fingerprint(&before, &after)) ok = 0;
        if (ok) printf("keys (%s memory): ok (sorted, same multiset)\n", mem);
    }
    free(before.hist);
    free(after.hist);
    fflush(stdout);
    return ok;
}

/* The exact argsort check, split over threads: at 2^32 keys it makes two random accesses per
 * element (the key of each index, a bit of the "seen" bitmap), which single-threaded took more
 * than 5 minutes on the GPU machine. Each thread checks positions [lo, hi) against the position
 * before it, prefetching keys a little ahead, and marks indices in the shared bitmap with an
 * atomic OR, so a duplicate index is caught by whichever thread marks it second. */
typedef struct check_arg {
    const uint32_t *keys;
    const uint64_t *idx;
    _Atomic uint64_t *seen;
    size_t n, lo, hi;
    size_t bad;      /* first failing position in [lo, hi), or SIZE_MAX */
    int why;         /* 1 out of range, 2 duplicate, 3 not descending, 4 not stable */
} check_arg;

#define PREFETCH_AHEAD 64 /* elements: enough outstanding misses to cover DRAM latency */

static void *check_worker(void *p)
{
    check_arg *a = (check_arg *)p;
    const uint32_t *keys = a->keys;
    const uint64_t *idx = a->idx;
    size_t n = a->n;
    a->bad = SIZE_MAX;
    for (size_t i = a->lo; i < a->hi; i++) {
#if defined(__GNUC__)
        if (i + PREFETCH_AHEAD < a->hi) {
            uint64_t ahead = idx[i + PREFETCH_AHEAD];
            __builtin_prefetch(&keys[ahead < n ? ahead : 0]);
            __builtin_prefetch(&a->seen[(ahead < n ? ahead : 0) / 64]);
        }
#endif
        uint64_t j = idx[i];
        if (j >= n) { a->bad = i; a->why = 1; break; }
        uint64_t bit = 1ull << (j % 64);
        if (atomic_fetch_or_explicit(&a->seen[j / 64], bit, memory_order_relaxed) & bit) {
            a->bad = i; a->why = 2; break;
        }
        if (i > 0) {
            uint64_t pj = idx[i - 1];
            if (pj >= n) continue; /* reported by the thread that owns i - 1 */
            uint32_t prev = keys[pj], cur = keys[j];
            if (cur > prev) { a->bad = i; a->why = 3; break; }
            if (cur == prev && j < pj) { a->bad = i; a->why = 4; break; }
        }
    }
    return NULL;
}

/* Test 2: descending argsort with u64 indices, checked exactly. */
static int test_argsort(gpusort_ctx *ctx, uint32_t *keys, size_t n, uint64_t seed)
{
    uint64_t *idx = big_alloc(n * 8, "the indices");
    _Atomic uint64_t *seen = calloc(n / 64 + 1, sizeof *seen);
    if (!idx || !seen) { free(idx); free((void *)seen); return 0; }
    datagen_fill(keys, GPUSORT_TYPE_U32, n, DATAGEN_UNIFORM, seed);
    double t = now();
    gpusort_status s = gpusort_argsort(ctx, GPUSORT_TYPE_U32, GPUSORT_TYPE_U64, keys, n, idx,
                                       GPUSORT_ORDER_DESC, GPUSORT_ALGORITHM_AUTO, 0);
    double secs = now() - t;
    int ok = 1;
    if (s != GPUSORT_STATUS_SUCCESS) {
        printf("FAIL: argsort: %s: %s\n", gpusort_status_string(s), gpusort_ctx_get_last_error(ctx));
        ok = 0;
    } else {
        printf("argsort: %zu u32 keys, u64 indices, descending, in %.2f s (%.1f Mkeys/s)\n", n,
               secs, (double)n / secs * 1e-6);
        fflush(stdout);
        long cores = sysconf(_SC_NPROCESSORS_ONLN);
        int T = cores < 1 ? 1 : cores > 64 ? 64 : (int)cores;
        if (n < ((size_t)1 << 20)) T = 1;
        check_arg args[64];
        pthread_t th[64];
        int started[64] = {0};
        t = now();
        for (int k = 0; k < T; k++) {
            args[k] = (check_arg){keys, idx, seen, n, n / T * k, k == T - 1 ? n : n / T * (k + 1),
                                  SIZE_MAX, 0};
            started[k] = k > 0 && pthread_create(&th[k], NULL, check_worker, &args[k]) == 0;
            if (k > 0 && !started[k]) check_worker(&args[k]);
        }
        check_worker(&args[0]);
        for (int k = 1; k < T; k++)
            if (started[k]) pthread_join(th[k], NULL);
        static const char *const why[] = {"", "an index out of range", "a duplicate index",
                                          "keys not in descending order",
                                          "equal keys out of input order (not stable)"};
        for (int k = 0; k < T && ok; k++) {
            if (args[k].bad == SIZE_MAX) continue;
            size_t i = args[k].bad;
            printf("FAIL: argsort: at position %zu (index %" PRIu64 "): %s\n", i, idx[i],
                   why[args[k].why]);
            ok = 0;
        }
        if (ok) printf("argsort: ok (a permutation, descending, stable; checked in %.1f s on %d "
                       "threads)\n", now() - t, T);
    }
    free(idx);
    free((void *)seen);
    fflush(stdout);
    return ok;
}

int main(int argc, char **argv)
{
    setvbuf(stdout, NULL, _IOLBF, 0); /* keep the log of a run killed by a timeout */
    gpusort_backend backend = GPUSORT_BACKEND_CPU;
    size_t n = ((size_t)1 << 32) + 1234;
    uint64_t seed = (uint64_t)time(NULL);
    int do_argsort = 1, do_device = 1;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (!strcmp(a, "--no-argsort")) { do_argsort = 0; continue; }
        if (!strcmp(a, "--no-device")) { do_device = 0; continue; }
        if (!v) {
            fprintf(stderr, "usage: test_big [--backend B] [--n N] [--seed S] [--no-argsort] "
                            "[--no-device]\n");
            return 2;
        }
        i++;
        if (!strcmp(a, "--backend")) {
            if (gpusort_backend_parse(v, &backend) || backend == GPUSORT_BACKEND_AUTO) {
                fprintf(stderr, "test_big: unknown backend %s\n", v);
                return 2;
            }
        } else if (!strcmp(a, "--n")) {
            n = (size_t)strtoull(v, NULL, 0);
        } else if (!strcmp(a, "--seed")) {
            seed = (uint64_t)strtoull(v, NULL, 0);
        } else {
            fprintf(stderr, "test_big: unknown option %s\n", a);
            return 2;
        }
    }
    const char *env = getenv("GPUSORT_BIG_TESTS");
    if (!env || strcmp(env, "1") != 0) {
        printf("skipped: set GPUSORT_BIG_TESTS=1 to run (2^32 + 1234 keys: 16 GiB, up to "
               "~100 GiB of RAM with the argsort)\n");
        return SKIP_EXIT;
    }
    const char *name = gpusort_backend_name(backend);
    printf("seed: %" PRIu64 "\nbackend: %s, n = %zu\n", seed, name, n);
    if (!gpusort_backend_built(backend)) {
        printf("skipped: %s backend not built\n", name);
        return SKIP_EXIT;
    }
    int devices = 0;
    if (gpusort_device_get_count(backend, &devices) != GPUSORT_STATUS_SUCCESS || devices == 0) {
        printf("skipped: no %s device\n", backend == GPUSORT_BACKEND_CUDA ? "CUDA" : "OpenCL");
        return SKIP_EXIT;
    }
    gpusort_device_info info;
    memset(&info, 0, sizeof info);
    gpusort_device_get_info(backend, 0, &info);
    printf("device: %s, %.1f GiB; host memory available: %.1f GiB\n", info.name,
           (double)info.memory_bytes / (1 << 30), (double)available_memory() / (1 << 30));

    /* keys in place: 4 bytes per key plus the backend's scratch of about as much */
    if (available_memory() && available_memory() < (uint64_t)n * 9) {
        printf("skipped: not enough memory for %zu keys (%.1f GiB needed)\n", n,
               (double)n * 9 / (1 << 30));
        return SKIP_EXIT;
    }
    gpusort_ctx *ctx = NULL;
    gpusort_status s = gpusort_ctx_create(&ctx, backend, 0);
    if (s != GPUSORT_STATUS_SUCCESS) {
        printf("FAIL: cannot create a %s context: %s\n", name, gpusort_status_string(s));
        return 1;
    }
    uint32_t *keys = big_alloc(n * 4, "the keys");
    if (!keys) { gpusort_ctx_free(ctx); return 2; }
    int passed = 0, failed = 0, skipped = 0;
    double t0 = now();

#ifdef GPUSORT_HAVE_CUDA
    /* device memory first: the GPU radix sort itself above 2^32 (needs keys + scratch) */
    if (backend == GPUSORT_BACKEND_CUDA && do_device) {
        if (info.memory_bytes > (uint64_t)n * 4 * 2 + ((uint64_t)1 << 30)) {
            if (test_keys(ctx, keys, n, seed, 1)) passed++;
            else failed++;
        } else {
            printf("keys (device memory): skipped, the GPU has too little memory\n");
            skipped++;
        }
    }
#else
    (void)do_device;
#endif
    if (test_keys(ctx, keys, n, seed, 0)) passed++;
    else failed++;

    if (do_argsort) {
        /* beyond the keys already held: indices 8 + the backend's scratch up to 4 + 8 per key,
         * plus the check's bitmap */
        if (!available_memory() || available_memory() >= (uint64_t)n * 21) {
            if (test_argsort(ctx, keys, n, seed + 1)) passed++;
            else failed++;
        } else {
            printf("argsort: skipped, %.1f GiB more host memory needed\n",
                   (double)n * 21 / (1 << 30));
            skipped++;
        }
    }
    free(keys);
    gpusort_ctx_free(ctx);
    printf("%d passed, %d failed, %d skipped (%.0f s)\n", passed, failed, skipped, now() - t0);
    return failed ? 1 : 0;
}
