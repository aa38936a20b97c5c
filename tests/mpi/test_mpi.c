/*
 * test_mpi.c -- the distributed sort (gpusort_mpi.h) against the single-process reference, run
 * under mpirun with any number of ranks (tests/mpi/tests.cmake runs P = 1, 2, 3, 4, 7):
 *
 *   mpirun -np P test_mpi [--seed S] [--quick]
 *
 * Every rank makes the same global input from the seed and takes its slice (layouts: even,
 * uneven with empty ranks, all keys on the last rank, fewer keys than ranks); the expected
 * result is the stable reference sort of the whole input (common/verify.c, a merge sort that
 * shares no code with the library), and each rank compares its slice of it bit for bit: keys,
 * pair values, global argsort indices. Equality with a stable reference checks order,
 * permutation, stability by (rank, position) and the output layout at once.
 * Distributions: uniform, all equal, few unique, sorted, reversed, floats with NaN/-0.0
 * (special), Zipf; all six key types, ascending and descending; keys, u32/u64 pairs, argsort,
 * pairs with global indices as values.
 * Faults: one rank with an invalid argument, one rank out of memory, ranks that disagree on
 * the order: every rank must return the error (no hang: ctest's timeout would catch one).
 * With GPUSORT_MPI_CHUNK_BYTES set (the test knob) the exchange runs point to point in pieces.
 * --backend cuda: each rank sorts on a GPU (rank % device count); --device-data: the inputs
 * and outputs are CUDA device buffers (copied from and to the host arrays around the call).
 * Rank 0 prints the seed, each failure, and "N checks passed"; exit 1 if any rank failed.
 */
#include "gpusort_mpi.h"
#include "internal.h"

#include "datagen.h"
#include "verify.h"
#ifdef GPUSORT_HAVE_CUDA
#include "cuda_mem.h"
#endif

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int rank, P, failures, checks;
static int device_data;     /* --device-data: inputs and outputs in CUDA device memory */

#define FAILF(...) do { failures++; fprintf(stderr, "rank %d: FAIL ", rank); \
                        fprintf(stderr, __VA_ARGS__); fputc('\n', stderr); } while (0)

typedef enum { LAYOUT_EVEN, LAYOUT_UNEVEN, LAYOUT_LAST, LAYOUT_COUNT } layout;
typedef enum { KIND_KEYS, KIND_PAIRS32, KIND_PAIRS64, KIND_ARGSORT, KIND_GLOBAL, KIND_COUNT } kind;
static const char *const kind_name[] = {"keys", "pairs-u32", "pairs-u64", "argsort",
                                        "pairs-global"};
static const char *const layout_name[] = {"even", "uneven", "last"};

/* Rank r's share of N under a layout: first index and count (the same on every rank). */
static void share(layout l, size_t N, uint64_t seed, int r, size_t *first, size_t *count)
{
    size_t start = 0;
    for (int p = 0; p <= r; p++) {
        size_t c;
        if (l == LAYOUT_EVEN) c = N * (size_t)(p + 1) / (size_t)P - N * (size_t)p / (size_t)P;
        else if (l == LAYOUT_LAST) c = p == P - 1 ? N : 0;
        else {   /* uneven: random weights 0..3 (0 = an empty rank), the last takes the rest */
            uint64_t w = datagen_mix64(seed + (uint64_t)p) % 4, left = N - start;
            c = p == P - 1 ? left : (size_t)(left * w / 8);
        }
        if (p == r) { *first = start; *count = c; return; }
        start += c;
    }
}

static void run_case(gpusort_ctx *ctx, gpusort_type t, gpusort_order order, kind k, layout l,
                     datagen_dist d, size_t N, uint64_t seed)
{
    size_t ks = gpusort_type_size(t), vs = k == KIND_PAIRS32 ? 4 : 8;
    int vals = k != KIND_KEYS;
    uint8_t *keys = malloc(N * ks + 1), *values = malloc(N * 8 + 1);
    uint64_t *perm = malloc(N * 8 + 1);
    datagen_fill(keys, t, N, d, seed);
    datagen_fill(values, vs == 4 ? GPUSORT_TYPE_U32 : GPUSORT_TYPE_U64, N, DATAGEN_UNIFORM,
                 seed ^ 0x5eed);
    if (verify_ref_argsort(t, keys, N, order, perm)) { FAILF("reference out of memory"); return; }
    size_t first = 0, n = 0;
    share(l, N, seed, rank, &first, &n);
    uint8_t *kin = keys + first * ks, *vin = values + first * vs;
    uint8_t *kout = malloc(n * ks + 1), *vout = malloc(n * 8 + 1);
#ifdef GPUSORT_HAVE_CUDA
    uint8_t *hk = kout, *hv = vout;     /* the host arrays the checks read */
    if (device_data) {
        uint8_t *dki = test_cuda_alloc(n * ks), *dvi = test_cuda_alloc(n * 8);
        test_cuda_upload(dki, kin, n * ks);
        test_cuda_upload(dvi, vin, n * vs);
        kin = dki;
        vin = dvi;
        kout = test_cuda_alloc(n * ks);
        vout = test_cuda_alloc(n * 8);
    }
#endif
    gpusort_status s;
    gpusort_type vt = k == KIND_PAIRS32 ? GPUSORT_TYPE_U32 : GPUSORT_TYPE_U64;
    switch (k) {
    case KIND_KEYS: s = gpusort_mpi_sort(ctx, MPI_COMM_WORLD, t, kin, n, kout, order, 0); break;
    case KIND_ARGSORT:
        s = gpusort_mpi_argsort(ctx, MPI_COMM_WORLD, t, kin, n, (uint64_t *)vout, order, 0);
        break;
    case KIND_GLOBAL:
        s = gpusort_mpi_sort_pairs(ctx, MPI_COMM_WORLD, t, vt, kin, NULL, n, kout, vout, order, 0);
        break;
    default:
        s = gpusort_mpi_sort_pairs(ctx, MPI_COMM_WORLD, t, vt, kin, vin, n, kout, vout, order, 0);
    }
#ifdef GPUSORT_HAVE_CUDA
    if (device_data) {
        test_cuda_download(hk, kout, n * ks);
        test_cuda_download(hv, vout, n * (k == KIND_PAIRS32 ? 4 : 8));
        test_cuda_free(kin);
        test_cuda_free(vin);
        test_cuda_free(kout);
        test_cuda_free(vout);
        kout = hk;
        vout = hv;
    }
#endif
    checks++;
    char what[160];
    snprintf(what, sizeof what, "%s %s %s layout=%s dist=%s N=%zu seed=%llu",
             gpusort_type_name(t), order ? "desc" : "asc", kind_name[k], layout_name[l],
             datagen_dist_name(d), N, (unsigned long long)seed);
    if (s) {
        FAILF("%s: %s: %s", what, gpusort_status_string(s), gpusort_mpi_get_last_error());
    } else {
        /* The expected slice: positions [first, first + n) of the stable sorted sequence. */
        uint8_t *ek = malloc(n * ks + 1), *ev = malloc(n * 8 + 1);
        const uint64_t *pr = perm + first;
        verify_gather(ek, keys, pr, n, ks);
        if (k == KIND_ARGSORT || k == KIND_GLOBAL) memcpy(ev, pr, n * 8);
        else verify_gather(ev, values, pr, n, vs);
        size_t i;
        if (k != KIND_ARGSORT && (i = verify_first_diff(kout, ek, n, ks)) < n) {
            char a[64], b[64];
            verify_format(t, kout + i * ks, a, sizeof a);
            verify_format(t, ek + i * ks, b, sizeof b);
            FAILF("%s: key %zu of %zu is %s, expected %s", what, i, n, a, b);
        } else if (vals && (i = verify_first_diff(vout, ev, n, vs)) < n) {
            FAILF("%s: value %zu of %zu differs", what, i, n);
        }
        free(ek);
        free(ev);
    }
    free(keys); free(values); free(perm); free(kout); free(vout);
}

/* Every rank must see the error of one rank's bad call. */
static void fault_case(gpusort_ctx *ctx, int which, uint64_t seed)
{
    int bad = (int)(datagen_mix64(seed + (uint64_t)which) % (uint64_t)P);
    uint32_t keys[64], out[64];
    for (int i = 0; i < 64; i++) keys[i] = (uint32_t)datagen_mix64((uint64_t)i);
    gpusort_status s, want;
    const char *name;
    if (which == 0) {           /* one rank: an unknown flag bit */
        name = "a bad flag on one rank";
        want = GPUSORT_STATUS_INVALID_ARGUMENT;
        s = gpusort_mpi_sort(ctx, MPI_COMM_WORLD, GPUSORT_TYPE_U32, keys, 64, out,
                             GPUSORT_ORDER_ASC, rank == bad ? 0x80u : 0);
    } else if (which == 1) {    /* one rank: its first host allocation fails (src/alloc.c's
                                   test hook; a huge n is no test: where memory is overcommitted
                                   the allocation succeeds) */
        name = "out of memory on one rank";
        want = GPUSORT_STATUS_OUT_OF_HOST_MEMORY;
        if (rank == bad) gpusort__alloc_fail_at(1);
        s = gpusort_mpi_sort(ctx, MPI_COMM_WORLD, GPUSORT_TYPE_U32, keys, 64, out,
                             GPUSORT_ORDER_ASC, 0);
        gpusort__alloc_fail_at(0);
    } else if (which == 2) {    /* the ranks disagree on the order (needs two ranks) */
        name = "ranks disagreeing on the order";
        want = P > 1 ? GPUSORT_STATUS_INVALID_ARGUMENT : GPUSORT_STATUS_SUCCESS;
        s = gpusort_mpi_sort(ctx, MPI_COMM_WORLD, GPUSORT_TYPE_U32, keys, 64, out,
                             rank == bad ? GPUSORT_ORDER_DESC : GPUSORT_ORDER_ASC, 0);
    } else {                    /* one rank: NULL keys with n > 0 */
        name = "NULL keys on one rank";
        want = GPUSORT_STATUS_INVALID_ARGUMENT;
        s = gpusort_mpi_sort(ctx, MPI_COMM_WORLD, GPUSORT_TYPE_F64, rank == bad ? NULL : keys,
                             8, out, GPUSORT_ORDER_ASC, 0);
    }
    checks++;
    if (s != want)
        FAILF("%s (rank %d): got %s, expected %s (%s)", name, bad, gpusort_status_string(s),
              gpusort_status_string(want), gpusort_mpi_get_last_error());
    else if (s && !*gpusort_mpi_get_last_error())
        FAILF("%s: no error message", name);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &P);
    uint64_t seed = 1;
    int quick = 0;
    gpusort_backend backend = GPUSORT_BACKEND_CPU;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--seed") && i + 1 < argc) seed = strtoull(argv[++i], NULL, 0);
        else if (!strcmp(argv[i], "--quick")) quick = 1;
        else if (!strcmp(argv[i], "--backend") && i + 1 < argc)
            gpusort_backend_parse(argv[++i], &backend);
        else if (!strcmp(argv[i], "--device-data")) device_data = 1;
    }
#ifndef GPUSORT_HAVE_CUDA
    if (device_data || backend == GPUSORT_BACKEND_CUDA) {
        if (rank == 0) printf("skipped: built without CUDA\n");
        MPI_Finalize();
        return 77;
    }
#endif
    if (rank == 0)
        printf("test_mpi: %d ranks, %s backend%s, seed %llu%s (replay: --seed %llu)\n", P,
               gpusort_backend_name(backend), device_data ? ", device data" : "",
               (unsigned long long)seed, getenv("GPUSORT_MPI_CHUNK_BYTES") ?
               ", chunked exchange" : "", (unsigned long long)seed);
    int devices = 0;
    if (backend != GPUSORT_BACKEND_CPU) gpusort_device_get_count(backend, &devices);
    gpusort_ctx *ctx;
    if (gpusort_ctx_create(&ctx, backend, devices ? rank % devices : -1) != GPUSORT_STATUS_SUCCESS) {
        printf("skipped: rank %d: no %s device\n", rank, gpusort_backend_name(backend));
        MPI_Finalize();
        return 77;
    }
    gpusort_ctx_set_threads(ctx, 1);        /* P ranks share the cores */

    /* Sizes around the boundaries: empty, fewer keys than ranks, one per rank, and larger. */
    size_t sizes[] = {0, 1, (size_t)P - 1 + 2 * (P == 1), (size_t)P, (size_t)P + 1, 1000, 20011};
    size_t nsizes = sizeof sizes / sizeof *sizes;
    const datagen_dist dists[] = {DATAGEN_UNIFORM, DATAGEN_EQUAL, DATAGEN_FEW, DATAGEN_SORTED,
                                  DATAGEN_REVERSED, DATAGEN_SPECIAL, DATAGEN_ZIPF};
    uint64_t c = 0;
    for (int t = 0; t < GPUSORT_TYPE_COUNT_; t++)
        for (int k = 0; k < KIND_COUNT; k++)
            for (size_t di = 0; di < sizeof dists / sizeof *dists; di++)
                for (size_t si = 0; si < nsizes; si++) {
                    c++;
                    /* The full cross product is large: each case takes one layout and order
                     * from its number; --quick keeps the larger sizes for a subset. */
                    layout l = (layout)((c + (uint64_t)t) % LAYOUT_COUNT);
                    gpusort_order o = (gpusort_order)((c / 3 + (uint64_t)k) % 2);
                    if (quick && sizes[si] > 1000 && (c % 4)) continue;
                    run_case(ctx, (gpusort_type)t, o, (kind)k, l, dists[di], sizes[si],
                             datagen_mix64(seed * 1000003 + c));
                }
    for (int f = 0; f < 4; f++) fault_case(ctx, f, seed);
    /* After the faults, a plain call still works (nothing was left half-done). */
    run_case(ctx, GPUSORT_TYPE_U64, GPUSORT_ORDER_ASC, KIND_PAIRS64, LAYOUT_UNEVEN,
             DATAGEN_UNIFORM, 5000, seed);

    gpusort_mpi_times lt;
    gpusort_mpi_get_last_times(&lt);
    int all[2] = {failures, checks}, sum[2];
    MPI_Allreduce(all, sum, 2, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (rank == 0)
        printf("%d checks on %d ranks: %d passed, %d failed (last exchange: %s)\n", sum[1] / P,
               P, (sum[1] - sum[0]) / P, sum[0],
               lt.nccl ? "nccl" : lt.cuda_aware ? "mpi, device pointers" : "mpi");
    gpusort_ctx_free(ctx);
    MPI_Finalize();
    return sum[0] ? 1 : 0;
}
