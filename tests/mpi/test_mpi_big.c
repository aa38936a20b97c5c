/*
 * test_mpi_big.c -- opt-in (GPUSORT_BIG_TESTS=1): the exchange beyond MPI-3's int counts.
 *
 *   GPUSORT_BIG_TESTS=1 mpirun -np 2 test_mpi_big [--n N]
 *
 * Each rank holds N u64 keys (default 2^28 + 12345: 2.1 GB, over 2^31 bytes) and every key
 * belongs to the other rank (rank 0 has the upper half of the key range, the last rank the
 * lower), so each rank sends all of its N * 8 bytes to one peer: the chunked point-to-point
 * exchange with the default 2^30-byte pieces. About 4 * N * 8 bytes per rank.
 * Checks: each rank's output sorted, in order across ranks, and the same multiset (count, sum
 * and xor of the keys over all ranks) as the input. Without GPUSORT_BIG_TESTS=1: exit 77.
 */
#include "gpusort_mpi.h"

#include "datagen.h"
#include "verify.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int main(int argc, char **argv)
{
    const char *env = getenv("GPUSORT_BIG_TESTS");
    if (!env || strcmp(env, "1") != 0) {
        printf("skipped: set GPUSORT_BIG_TESTS=1 to run (2 ranks exchanging 2.1 GB each way, "
               "about 18 GB of memory)\n");
        return 77;
    }
    MPI_Init(&argc, &argv);
    int rank, P;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &P);
    size_t n = ((size_t)1 << 28) + 12345;
    for (int i = 1; i + 1 < argc; i++)
        if (!strcmp(argv[i], "--n")) n = (size_t)strtoull(argv[i + 1], NULL, 0);
    uint64_t *keys = malloc(n * 8), *out = malloc(n * 8);
    if (!keys || !out) { fprintf(stderr, "rank %d: out of memory\n", rank); MPI_Abort(MPI_COMM_WORLD, 2); }
    uint64_t in_sum[3] = {n, 0, 0};
    for (size_t i = 0; i < n; i++) {
        uint64_t k = datagen_mix64((uint64_t)rank << 40 | i);
        keys[i] = rank < P / 2 ? k | (1ull << 63) : k & ~(1ull << 63);
        in_sum[1] += keys[i];
        in_sum[2] ^= keys[i];
    }
    gpusort_ctx *ctx;
    if (gpusort_ctx_create(&ctx, GPUSORT_BACKEND_AUTO, -1)) MPI_Abort(MPI_COMM_WORLD, 2);
    double t0 = MPI_Wtime();
    gpusort_status s = gpusort_mpi_sort(ctx, MPI_COMM_WORLD, GPUSORT_TYPE_U64, keys, n, out,
                                        GPUSORT_ORDER_ASC, 0);
    double t1 = MPI_Wtime();
    gpusort_mpi_times tm;
    gpusort_mpi_get_last_times(&tm);
    int bad = 0;
    if (s) { fprintf(stderr, "rank %d: %s: %s\n", rank, gpusort_status_string(s), gpusort_mpi_get_last_error()); bad = 1; }
    uint64_t out_sum[3] = {n, 0, 0}, a[3], b[3];
    if (!bad) {
        size_t i = verify_first_unsorted(GPUSORT_TYPE_U64, out, n, GPUSORT_ORDER_ASC);
        if (i < n) { fprintf(stderr, "rank %d: unsorted at %zu\n", rank, i); bad = 1; }
        for (size_t k = 0; k < n; k++) { out_sum[1] += out[k]; out_sum[2] ^= out[k]; }
        /* in order across ranks: my last key <= the next rank's first */
        uint64_t first = n ? out[0] : 0, prev_last = 0;
        uint64_t last = n ? out[n - 1] : 0;
        MPI_Sendrecv(&last, 1, MPI_UINT64_T, rank + 1 < P ? rank + 1 : MPI_PROC_NULL, 1,
                     &prev_last, 1, MPI_UINT64_T, rank > 0 ? rank - 1 : MPI_PROC_NULL, 1,
                     MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        if (rank > 0 && prev_last > first) { fprintf(stderr, "rank %d: out of order with rank %d\n", rank, rank - 1); bad = 1; }
    }
    MPI_Allreduce(in_sum, a, 2, MPI_UINT64_T, MPI_SUM, MPI_COMM_WORLD);
    MPI_Allreduce(in_sum + 2, a + 2, 1, MPI_UINT64_T, MPI_BXOR, MPI_COMM_WORLD);
    MPI_Allreduce(out_sum, b, 2, MPI_UINT64_T, MPI_SUM, MPI_COMM_WORLD);
    MPI_Allreduce(out_sum + 2, b + 2, 1, MPI_UINT64_T, MPI_BXOR, MPI_COMM_WORLD);
    if (rank == 0 && memcmp(a, b, sizeof a)) { fprintf(stderr, "the keys changed (count, sum or xor)\n"); bad = 1; }
    int any;
    MPI_Allreduce(&bad, &any, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    if (rank == 0)
        printf("test_mpi_big: %d ranks x %zu u64 keys, sent %.2f GB per rank, chunked %d: "
               "%.2f s (local sort %.2f, split %.4f, exchange %.2f, merge %.2f): %s\n", P, n,
               tm.sent_bytes / 1e9, tm.chunked, t1 - t0, tm.local_sort_s, tm.split_s,
               tm.exchange_s, tm.merge_s, any ? "FAILED" : "passed");
    gpusort_ctx_free(ctx);
    free(keys);
    free(out);
    MPI_Finalize();
    return any ? 1 : 0;
}
