/*
 * test_multi.c -- gpusort_multi_sort / _sort_pairs (gpusort.h, "Several devices of one host")
 * against the single-sequence reference:
 *
 *   test_multi [--backend cpu|opencl|cuda] [--contexts G] [--device-data] [--seed S] [--quick]
 *              [--type T]      (one key type only: the sanitizer runs)
 *
 * One global input made from the seed is cut into G pieces (layouts: even, uneven with empty
 * pieces, all on the last piece, all on the first); the expected result is the stable
 * reference sort of the whole input (common/verify.c, sharing no code with the library), and
 * piece g must equal positions [n_0 + ... + n_{g-1}, ... + n_g) of it bit for bit: keys and
 * pair values. That checks order, permutation, stability by (piece, position) and the layout.
 * Distributions: uniform, all equal, few unique, sorted, reversed, floats with NaN/-0.0, Zipf;
 * all six key types, both orders; keys, u32 and u64 pairs. Sizes around the boundaries: empty,
 * fewer keys than pieces, one per piece, and larger (with CUDA, past the merge's 1024-key tiles
 * and the count kernel's 128-thread blocks).
 * --device-data (CUDA): piece g lives in device memory of GPU g % (GPUs present); with one GPU
 * the contexts share it (peer copies), with several each has its own (NCCL when it loads).
 * Bad calls: mixed host and device pieces, a context named twice, flags, a NULL piece, unknown
 * types; host allocation failures at every k (CPU backend): each must return its status and
 * leave the next call working. Prints the seed and "N passed, N failed".
 */
#include "gpusort.h"
#include "internal.h"

#include "datagen.h"
#include "verify.h"
#ifdef GPUSORT_HAVE_CUDA
#include "cuda_mem.h"
#endif

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAXG 16

static int G = 3, device_data, passed, failed;
static int devices = 1;
static gpusort_ctx *ctxs[MAXG];

#define FAILF(...) do { failed++; fprintf(stderr, "FAIL "); fprintf(stderr, __VA_ARGS__); \
                        fputc('\n', stderr); } while (0)

typedef enum { LAYOUT_EVEN, LAYOUT_UNEVEN, LAYOUT_LAST, LAYOUT_FIRST, LAYOUT_COUNT } layout;
typedef enum { KIND_KEYS, KIND_PAIRS32, KIND_PAIRS64, KIND_COUNT } kind;
static const char *const kind_name[] = {"keys", "pairs-u32", "pairs-u64"};
static const char *const layout_name[] = {"even", "uneven", "last", "first"};

/* The pieces' counts under a layout. */
static void cut(layout l, size_t N, uint64_t seed, size_t *n)
{
    size_t start = 0;
    for (int p = 0; p < G; p++) {
        size_t c;
        if (l == LAYOUT_EVEN) c = N * (size_t)(p + 1) / (size_t)G - N * (size_t)p / (size_t)G;
        else if (l == LAYOUT_LAST) c = p == G - 1 ? N : 0;
        else if (l == LAYOUT_FIRST) c = p == 0 ? N : 0;
        else {   /* random weights 0..3 (0 = an empty piece), the last takes the rest */
            uint64_t w = datagen_mix64(seed + (uint64_t)p) % 4, left = N - start;
            c = p == G - 1 ? left : (size_t)(left * w / 8);
        }
        n[p] = c;
        start += c;
    }
}

#ifdef GPUSORT_HAVE_CUDA
static void *dev_copy(int g, const void *host, size_t bytes)
{
    test_cuda_set_device(g % devices);
    void *d = test_cuda_alloc(bytes);
    if (d && bytes) test_cuda_upload(d, host, bytes);
    return d;
}
#endif

static void run_case(gpusort_type t, gpusort_order order, kind k, layout l, datagen_dist d,
                     size_t N, uint64_t seed)
{
    size_t ks = gpusort_type_size(t), vs = k == KIND_PAIRS32 ? 4 : 8;
    gpusort_type vt = k == KIND_KEYS ? GPUSORT_TYPE_NONE
                      : k == KIND_PAIRS32 ? GPUSORT_TYPE_U32 : GPUSORT_TYPE_U64;
    uint8_t *keys = malloc(N * ks + 1), *values = malloc(N * vs + 1);
    uint8_t *ek = malloc(N * ks + 1), *ev = malloc(N * vs + 1);
    uint64_t *perm = malloc(N * 8 + 1);
    datagen_fill(keys, t, N, d, seed);
    datagen_fill(values, vs == 4 ? GPUSORT_TYPE_U32 : GPUSORT_TYPE_U64, N, DATAGEN_UNIFORM,
                 seed ^ 0x5eed);
    if (verify_ref_argsort(t, keys, N, order, perm)) { FAILF("reference out of memory"); return; }
    verify_gather(ek, keys, perm, N, ks);
    verify_gather(ev, values, perm, N, vs);
    size_t n[MAXG], first[MAXG] = {0}, at = 0;
    (void)first;   /* device pieces only */
    cut(l, N, seed, n);
    void *pk[MAXG], *pv[MAXG];
    /* Host pieces are cut out of copies (the input arrays stay for the message). */
    uint8_t *hk = malloc(N * ks + 1), *hv = malloc(N * vs + 1);
    memcpy(hk, keys, N * ks);
    memcpy(hv, values, N * vs);
    for (int g = 0; g < G; g++) {
        first[g] = at;
        pk[g] = hk + at * ks;
        pv[g] = hv + at * vs;
#ifdef GPUSORT_HAVE_CUDA
        if (device_data) {
            pk[g] = dev_copy(g, hk + at * ks, n[g] * ks);
            pv[g] = dev_copy(g, hv + at * vs, n[g] * vs);
        }
#endif
        at += n[g];
    }
    gpusort_status s = k == KIND_KEYS
                           ? gpusort_multi_sort(ctxs, G, t, pk, n, order, 0)
                           : gpusort_multi_sort_pairs(ctxs, G, t, vt, pk, pv, n, order, 0);
#ifdef GPUSORT_HAVE_CUDA
    if (device_data)
        for (int g = 0; g < G; g++) {
            test_cuda_set_device(g % devices);
            test_cuda_download(hk + first[g] * ks, pk[g], n[g] * ks);
            test_cuda_download(hv + first[g] * vs, pv[g], n[g] * vs);
            test_cuda_free(pk[g]);
            test_cuda_free(pv[g]);
        }
#endif
    char what[200];
    snprintf(what, sizeof what, "%s %s %s layout=%s dist=%s N=%zu G=%d seed=%llu",
             gpusort_type_name(t), order ? "desc" : "asc", kind_name[k], layout_name[l],
             datagen_dist_name(d), N, G, (unsigned long long)seed);
    size_t i;
    if (s) {
        FAILF("%s: %s: %s", what, gpusort_status_string(s), gpusort_ctx_get_last_error(ctxs[0]));
    } else if ((i = verify_first_diff(hk, ek, N, ks)) < N) {
        char a[64], b[64];
        verify_format(t, hk + i * ks, a, sizeof a);
        verify_format(t, ek + i * ks, b, sizeof b);
        FAILF("%s: key %zu of %zu is %s, expected %s", what, i, N, a, b);
    } else if (k != KIND_KEYS && (i = verify_first_diff(hv, ev, N, vs)) < N) {
        FAILF("%s: value %zu of %zu differs", what, i, N);
    } else {
        passed++;
    }
    free(keys); free(values); free(ek); free(ev); free(perm); free(hk); free(hv);
}

static void expect(gpusort_status got, gpusort_status want, const char *what)
{
    if (got == want) passed++;
    else FAILF("%s: got %s, expected %s (%s)", what, gpusort_status_string(got),
               gpusort_status_string(want), gpusort_ctx_get_last_error(ctxs[0]));
}

/* Bad calls are refused with INVALID_ARGUMENT; a later good call works. */
static void bad_calls(void)
{
    uint32_t a[8] = {5, 3, 1, 7, 2, 8, 6, 4}, b[8] = {9, 0, 9, 0, 9, 0, 9, 0};
    void *pk[MAXG];
    size_t n[MAXG];
    for (int g = 0; g < G; g++) { pk[g] = g % 2 ? b : a; n[g] = 8; }
    const gpusort_status INV = GPUSORT_STATUS_INVALID_ARGUMENT;
    expect(gpusort_multi_sort(NULL, G, GPUSORT_TYPE_U32, pk, n, GPUSORT_ORDER_ASC, 0), INV,
           "NULL ctxs");
    expect(gpusort_multi_sort(ctxs, 0, GPUSORT_TYPE_U32, pk, n, GPUSORT_ORDER_ASC, 0), INV,
           "count 0");
    expect(gpusort_multi_sort(ctxs, G, GPUSORT_TYPE_U32, pk, n, GPUSORT_ORDER_ASC, 4), INV,
           "unknown flag");
    expect(gpusort_multi_sort(ctxs, G, (gpusort_type)99, pk, n, GPUSORT_ORDER_ASC, 0), INV,
           "unknown type");
    expect(gpusort_multi_sort(ctxs, G, GPUSORT_TYPE_U32, pk, n, (gpusort_order)7, 0), INV,
           "unknown order");
    expect(gpusort_multi_sort(ctxs, G, GPUSORT_TYPE_U32, NULL, n, GPUSORT_ORDER_ASC, 0), INV,
           "NULL keys");
    expect(gpusort_multi_sort_pairs(ctxs, G, GPUSORT_TYPE_U32, GPUSORT_TYPE_F32, pk, pk, n,
                                    GPUSORT_ORDER_ASC, 0), INV, "value type f32");
    expect(gpusort_multi_sort_pairs(ctxs, G, GPUSORT_TYPE_U32, GPUSORT_TYPE_U32, pk, NULL, n,
                                    GPUSORT_ORDER_ASC, 0), INV, "NULL values");
    if (G > 1) {
        gpusort_ctx *twice[MAXG];
        for (int g = 0; g < G; g++) twice[g] = ctxs[g];
        twice[1] = twice[0];
        expect(gpusort_multi_sort(twice, G, GPUSORT_TYPE_U32, pk, n, GPUSORT_ORDER_ASC, 0), INV,
               "a context twice");
        void *saved = pk[1];
        pk[1] = NULL;
        expect(gpusort_multi_sort(ctxs, G, GPUSORT_TYPE_U32, pk, n, GPUSORT_ORDER_ASC, 0), INV,
               "NULL piece with n > 0");
        pk[1] = saved;
#ifdef GPUSORT_HAVE_CUDA
        if (device_data) {   /* piece 0 on the device, the others on the host */
            void *d0 = dev_copy(0, a, sizeof a);
            void *mixed[MAXG];
            for (int g = 0; g < G; g++) mixed[g] = g ? pk[g] : d0;
            expect(gpusort_multi_sort(ctxs, G, GPUSORT_TYPE_U32, mixed, n, GPUSORT_ORDER_ASC, 0),
                   INV, "host and device pieces mixed");
            test_cuda_set_device(0);
            test_cuda_free(d0);
        }
#endif
    }
    /* Nothing was touched, and a good call works. */
    static const uint32_t a0[8] = {5, 3, 1, 7, 2, 8, 6, 4}, b0[8] = {9, 0, 9, 0, 9, 0, 9, 0};
    if (memcmp(a, a0, sizeof a) || memcmp(b, b0, sizeof b)) FAILF("a refused call wrote its piece");
    else passed++;
    uint32_t all[MAXG * 8];
    for (int g = 0; g < G; g++) memcpy(all + g * 8, g % 2 ? b : a, sizeof a);
    for (int g = 0; g < G; g++) { pk[g] = all + g * 8; }
    if (!device_data) {
        gpusort_status s = gpusort_multi_sort(ctxs, G, GPUSORT_TYPE_U32, pk, n, GPUSORT_ORDER_ASC, 0);
        int ok = s == GPUSORT_STATUS_SUCCESS;
        for (int i = 1; ok && i < G * 8; i++) ok = all[i - 1] <= all[i];
        if (ok) passed++;
        else FAILF("good call after the bad ones: %s", gpusort_status_string(s));
    }
}

/* Host allocation k fails, for every k of a call (CPU contexts, host pieces): the status is
 * OUT_OF_HOST_MEMORY (nothing leaks: LeakSanitizer in the ASan build), and the call then works. */
static void alloc_faults(uint64_t seed)
{
    enum { N = 3000 };
    uint32_t *keys = malloc(N * 4), *ref = malloc(N * 4);
    datagen_fill(ref, GPUSORT_TYPE_U32, N, DATAGEN_UNIFORM, seed);
    size_t n[MAXG];
    void *pk[MAXG];
    cut(LAYOUT_EVEN, N, seed, n);
    int faults = 0;
    for (long k = 1; k < 1000; k++) {
        memcpy(keys, ref, N * 4);
        size_t at = 0;
        for (int g = 0; g < G; g++) { pk[g] = keys + at; at += n[g]; }
        gpusort__alloc_fail_at(k);
        gpusort_status s = gpusort_multi_sort(ctxs, G, GPUSORT_TYPE_U32, pk, n,
                                              GPUSORT_ORDER_ASC, 0);
        long made = gpusort__alloc_count();
        gpusort__alloc_fail_at(0);
        if (s == GPUSORT_STATUS_SUCCESS && made < k) break;   /* k is past the call's last */
        if (s != GPUSORT_STATUS_OUT_OF_HOST_MEMORY)
            FAILF("allocation %ld failed: got %s (%s)", k, gpusort_status_string(s),
                  gpusort_ctx_get_last_error(ctxs[0]));
        else
            faults++;
    }
    memcpy(keys, ref, N * 4);
    size_t at = 0;
    for (int g = 0; g < G; g++) { pk[g] = keys + at; at += n[g]; }
    gpusort_status s = gpusort_multi_sort(ctxs, G, GPUSORT_TYPE_U32, pk, n, GPUSORT_ORDER_ASC, 0);
    int ok = s == GPUSORT_STATUS_SUCCESS && faults > 0;
    for (int i = 1; ok && i < N; i++) ok = keys[i - 1] <= keys[i];
    if (ok) passed++;
    else FAILF("after %d allocation faults: %s", faults, gpusort_status_string(s));
    printf("allocation faults survived: %d\n", faults);
    free(keys);
    free(ref);
}

int main(int argc, char **argv)
{
    uint64_t seed = 1;
    int quick = 0, g_given = 0, only_type = -1;
    gpusort_backend backend = GPUSORT_BACKEND_CPU;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--seed") && i + 1 < argc) seed = strtoull(argv[++i], NULL, 0);
        else if (!strcmp(argv[i], "--quick")) quick = 1;
        else if (!strcmp(argv[i], "--contexts") && i + 1 < argc) { G = atoi(argv[++i]); g_given = 1; }
        else if (!strcmp(argv[i], "--backend") && i + 1 < argc)
            gpusort_backend_parse(argv[++i], &backend);
        else if (!strcmp(argv[i], "--device-data")) device_data = 1;
        else if (!strcmp(argv[i], "--type") && i + 1 < argc) {
            gpusort_type t;
            if (gpusort_type_parse(argv[++i], &t)) { fprintf(stderr, "test_multi: bad --type\n"); return 2; }
            only_type = (int)t;
        } else { fprintf(stderr, "test_multi: unknown argument %s\n", argv[i]); return 2; }
    }
#ifndef GPUSORT_HAVE_CUDA
    if (device_data || backend == GPUSORT_BACKEND_CUDA) {
        printf("skipped: built without CUDA\n");
        return 77;
    }
#endif
    if (backend != GPUSORT_BACKEND_CPU) {
        if (gpusort_device_get_count(backend, &devices) || devices == 0) {
            printf("skipped: no %s device\n", gpusort_backend_name(backend));
            return 77;
        }
        if (!g_given) G = devices > 1 ? devices : 2;
    }
    if (G < 1 || G > MAXG) { fprintf(stderr, "test_multi: --contexts 1..%d\n", MAXG); return 2; }
    for (int g = 0; g < G; g++) {
        gpusort_status s = gpusort_ctx_create(&ctxs[g], backend,
                                              backend == GPUSORT_BACKEND_CPU ? -1 : g % devices);
        if (s) {
            printf("skipped: context %d on %s: %s\n", g, gpusort_backend_name(backend),
                   gpusort_status_string(s));
            return 77;
        }
        if (backend == GPUSORT_BACKEND_CPU) gpusort_ctx_set_threads(ctxs[g], 2);
    }
    printf("test_multi: %d contexts, %s backend%s, %d device(s), seed %llu (replay: --seed %llu)\n",
           G, gpusort_backend_name(backend), device_data ? ", device data" : ", host data",
           devices, (unsigned long long)seed, (unsigned long long)seed);

    size_t sizes[] = {0, 1, (size_t)G - 1 + 2 * (G == 1), (size_t)G, (size_t)G + 1, 129, 1000,
                      4097, 20011, 300007};
    size_t nsizes = sizeof sizes / sizeof *sizes;
    if (!device_data || quick) nsizes--;   /* 300007: past the merge's tiles on the GPU */
    const datagen_dist dists[] = {DATAGEN_UNIFORM, DATAGEN_EQUAL, DATAGEN_FEW, DATAGEN_SORTED,
                                  DATAGEN_REVERSED, DATAGEN_SPECIAL, DATAGEN_ZIPF};
    uint64_t c = 0;
    for (int t = 0; t < GPUSORT_TYPE_COUNT_; t++)
        for (int k = 0; k < KIND_COUNT && (only_type < 0 || t == only_type); k++)
            for (size_t di = 0; di < sizeof dists / sizeof *dists; di++)
                for (size_t si = 0; si < nsizes; si++) {
                    c++;
                    /* Each case takes one layout and order from its number; --quick keeps the
                     * larger sizes for a subset. */
                    layout l = (layout)((c + (uint64_t)t) % LAYOUT_COUNT);
                    gpusort_order o = (gpusort_order)((c / 3 + (uint64_t)k) % 2);
                    if (quick && sizes[si] > 1000 && (c % 4)) continue;
                    run_case((gpusort_type)t, o, (kind)k, l, dists[di], sizes[si],
                             datagen_mix64(seed * 1000003 + c));
                }
    bad_calls();
    if (backend == GPUSORT_BACKEND_CPU) alloc_faults(seed);
    /* After everything, a plain call still works. */
    run_case(GPUSORT_TYPE_U64, GPUSORT_ORDER_ASC, KIND_PAIRS64, LAYOUT_UNEVEN, DATAGEN_UNIFORM,
             5000, seed);
    if (device_data) {
        gpusort_multi_times tm;
        gpusort_multi_get_last_times(&tm);
        printf("last call's exchange: %s\n", tm.exchange ? tm.exchange : "?");
    }
    for (int g = 0; g < G; g++) gpusort_ctx_free(ctxs[g]);
    printf("%d passed, %d failed\n", passed, failed);
    return failed ? 1 : 0;
}
