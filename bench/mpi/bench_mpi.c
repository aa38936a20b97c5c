/*
 * bench_mpi.c -- the distributed sort (gpusort_mpi.h) against one process sorting the same
 * keys alone, in the same run, with the phase split:
 *
 *   mpirun -np P bench_mpi [--n N] [--type T] [--backend cpu|cuda] [--threads T]
 *                          [--single-threads T] [--device-data] [--runs R] [--csv FILE]
 *
 * The N keys (uniform random, seed 1) are the same bytes for every P: global key i comes from
 * datagen's generator at index i, and rank r holds [N*r/P, N*(r+1)/P). Two contenders, timed
 * in alternation by bench/timing.h (1 warm-up, median of R = 7 rounds):
 *   mpi     every rank calls gpusort_mpi_sort on its share (its context: --backend, with
 *           --threads each on the CPU; CUDA ranks share the GPUs round-robin);
 *   single  rank 0 sorts all N keys with gpusort_sort on one context (--single-threads,
 *           default all cores; the same backend), while the other ranks wait without spinning.
 * Before each call an untimed step copies the input back and waits at a barrier (MPI_Ibarrier
 * polled with sleeps, so waiting ranks leave the cores to the one that sorts). A rank's time is
 * its own wall clock around the call; a round's time is the slowest rank's (the call ends on
 * every rank at its last agreement, so they differ by microseconds). Phases are each rank's
 * gpusort_mpi_times, slowest rank per round, median over rounds.
 * --device-data: keys in CUDA device memory (cudaMalloc) for both contenders.
 * Output: one CSV row per contender (stdout and --csv FILE) from rank 0.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE      /* nanosleep */
#endif
#include "gpusort_mpi.h"

#include "datagen.h"
#include "timing.h"
#include "verify.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#ifdef GPUSORT_HAVE_CUDA
#include <cuda_runtime_api.h>
#endif

#define MAX_RUNS 64

typedef struct bench {
    int rank, P, device_data;
    gpusort_type type;
    size_t N, first, n, ks;
    gpusort_ctx *ctx, *single_ctx;
    void *src, *work;                 /* this rank's share (host), the buffer sorted */
    void *all_src, *all_work;         /* rank 0: all N keys, for single */
    double phase[MAX_RUNS][4];        /* slowest rank's phases, per timed round */
    int round;
} bench;

static void calm_barrier(void)
{
    MPI_Request r;
    int done = 0;
    MPI_Ibarrier(MPI_COMM_WORLD, &r);
    while (MPI_Test(&r, &done, MPI_STATUS_IGNORE), !done) {
        struct timespec ts = {0, 50000};
        nanosleep(&ts, NULL);
    }
}

static void copy_in(void *dst, const void *src, size_t bytes, int device)
{
#ifdef GPUSORT_HAVE_CUDA
    if (device) { cudaMemcpy(dst, src, bytes, cudaMemcpyHostToDevice); return; }
#endif
    memcpy(dst, src, bytes);
}

static void *buffer(size_t bytes, int device)
{
#ifdef GPUSORT_HAVE_CUDA
    if (device) {
        void *p = NULL;
        return cudaMalloc(&p, bytes ? bytes : 1) == cudaSuccess ? p : NULL;
    }
#endif
    return malloc(bytes ? bytes : 1);
}

static void prep_mpi(void *arg, int run)
{
    bench *b = (bench *)arg;
    copy_in(b->work, b->src, b->n * b->ks, b->device_data);
    calm_barrier();
}

static int run_mpi(void *arg, int run)
{
    bench *b = (bench *)arg;
    gpusort_status s = gpusort_mpi_sort(b->ctx, MPI_COMM_WORLD, b->type, b->work, b->n, b->work,
                                        GPUSORT_ORDER_ASC, 0);
    if (s) {
        fprintf(stderr, "rank %d: %s: %s\n", b->rank, gpusort_status_string(s),
                gpusort_mpi_get_last_error());
        return 1;
    }
    gpusort_mpi_times t;
    gpusort_mpi_get_last_times(&t);
    double mine[4] = {t.local_sort_s, t.split_s, t.exchange_s, t.merge_s}, worst[4];
    /* Inside the timed call: one allreduce of 4 doubles, a few microseconds. */
    MPI_Allreduce(mine, worst, 4, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    if (run >= 0 && run < MAX_RUNS) memcpy(b->phase[run], worst, sizeof worst);
    return 0;
}

static void prep_single(void *arg, int run)
{
    bench *b = (bench *)arg;
    if (b->rank == 0) copy_in(b->all_work, b->all_src, b->N * b->ks, b->device_data);
    calm_barrier();
}

static int run_single(void *arg, int run)
{
    bench *b = (bench *)arg;
    if (b->rank != 0) return 0;
    gpusort_status s = gpusort_sort(b->single_ctx, b->type, b->all_work, b->N, b->all_work,
                                    GPUSORT_ORDER_ASC, GPUSORT_ALGORITHM_AUTO, 0);
#ifdef GPUSORT_HAVE_CUDA
    if (b->device_data) cudaDeviceSynchronize();
#endif
    return s != GPUSORT_STATUS_SUCCESS;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    bench b = {0};
    MPI_Comm_rank(MPI_COMM_WORLD, &b.rank);
    MPI_Comm_size(MPI_COMM_WORLD, &b.P);
    b.N = (size_t)1 << 28;
    b.type = GPUSORT_TYPE_U32;
    gpusort_backend backend = GPUSORT_BACKEND_CPU;
    int threads = 0, single_threads = 0, runs = BENCH_RUNS_DEFAULT;
    const char *csv = NULL;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : "";
        if (!strcmp(a, "--n")) { b.N = (size_t)strtoull(v, NULL, 0); i++; }
        else if (!strcmp(a, "--type")) { gpusort_type_parse(v, &b.type); i++; }
        else if (!strcmp(a, "--backend")) { gpusort_backend_parse(v, &backend); i++; }
        else if (!strcmp(a, "--threads")) { threads = atoi(v); i++; }
        else if (!strcmp(a, "--single-threads")) { single_threads = atoi(v); i++; }
        else if (!strcmp(a, "--runs")) { runs = atoi(v); i++; }
        else if (!strcmp(a, "--csv")) { csv = v; i++; }
        else if (!strcmp(a, "--device-data")) b.device_data = 1;
        else { if (!b.rank) fprintf(stderr, "bench_mpi: unknown option %s\n", a); MPI_Abort(MPI_COMM_WORLD, 2); }
    }
    if (runs < 1 || runs > MAX_RUNS) runs = BENCH_RUNS_DEFAULT;
    b.ks = gpusort_type_size(b.type);
    b.first = b.N * (size_t)b.rank / (size_t)b.P;
    b.n = b.N * (size_t)(b.rank + 1) / (size_t)b.P - b.first;

    /* Contexts: CUDA ranks round-robin over the GPUs of their host. */
    int device = -1;
    if (backend == GPUSORT_BACKEND_CUDA) {
        int count = 0;
        gpusort_device_get_count(backend, &count);
        device = count ? b.rank % count : -1;
#ifdef GPUSORT_HAVE_CUDA
        if (device >= 0) cudaSetDevice(device);
#endif
    }
    if (gpusort_ctx_create(&b.ctx, backend, device) ||
        (threads && gpusort_ctx_set_threads(b.ctx, threads))) {
        fprintf(stderr, "rank %d: cannot create the %s context\n", b.rank, gpusort_backend_name(backend));
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    /* The same global keys for every P: generate all N on rank 0 for single, each share here
     * (datagen is deterministic per (n, seed); a share is the slice of the global array). */
    void *all = malloc(b.N * b.ks);
    if (!all) MPI_Abort(MPI_COMM_WORLD, 2);
    datagen_fill(all, b.type, b.N, DATAGEN_UNIFORM, 1);
    b.src = malloc(b.n * b.ks + 1);
    memcpy(b.src, (char *)all + b.first * b.ks, b.n * b.ks);
    b.work = buffer(b.n * b.ks, b.device_data);
    if (b.rank == 0) {
        b.all_src = all;
        b.all_work = buffer(b.N * b.ks, b.device_data);
        if (gpusort_ctx_create(&b.single_ctx, backend, device) ||
            (single_threads && gpusort_ctx_set_threads(b.single_ctx, single_threads)))
            MPI_Abort(MPI_COMM_WORLD, 2);
    } else {
        free(all);
    }
    if (!b.src || !b.work || (b.rank == 0 && !b.all_work)) MPI_Abort(MPI_COMM_WORLD, 2);

    bench_plan plan = bench_plan_default(runs);
    bench_contender c[2] = {{run_mpi, &b, prep_mpi, &b}, {run_single, &b, prep_single, &b}};
    bench_stats st[2];
    int failed = bench_time(&plan, c, 2, st);

    /* The round time is the slowest rank's: reduce each contender's per-rank median. */
    double med[2] = {st[0].median_ms, st[1].median_ms}, worst[2];
    MPI_Reduce(med, worst, 2, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);

    /* Check the distributed result once more: sorted here and in order across ranks. */
    void *chk = malloc(b.n * b.ks + 1);
    copy_in(b.work, b.src, b.n * b.ks, b.device_data);
    int bad = failed || gpusort_mpi_sort(b.ctx, MPI_COMM_WORLD, b.type, b.work, b.n, b.work,
                                         GPUSORT_ORDER_ASC, 0) != GPUSORT_STATUS_SUCCESS;
#ifdef GPUSORT_HAVE_CUDA
    if (b.device_data) cudaMemcpy(chk, b.work, b.n * b.ks, cudaMemcpyDeviceToHost);
    else
#endif
        memcpy(chk, b.work, b.n * b.ks);
    if (!bad && verify_first_unsorted(b.type, chk, b.n, GPUSORT_ORDER_ASC) < b.n) bad = 1;
    int anybad;
    MPI_Reduce(&bad, &anybad, 1, MPI_INT, MPI_MAX, 0, MPI_COMM_WORLD);
    gpusort_mpi_times lt;
    gpusort_mpi_get_last_times(&lt);
    if (b.rank == 0)
        printf("# the exchange: %s\n", lt.nccl ? "NCCL, GPU to GPU"
                                      : lt.cuda_aware ? "MPI, device pointers"
                                                      : "MPI, through host memory");

    if (b.rank == 0) {
        double ph[4];
        for (int k = 0; k < 4; k++) {
            double s[MAX_RUNS];
            for (int r = 0; r < runs; r++) s[r] = b.phase[r][k] * 1e3;
            ph[k] = bench_median(s, runs);
        }
        static const bench_column cols[] = {
            {"contender", "%s"}, {"ranks", "%d"}, {"threads_per_rank", "%d"}, {"backend", "%s"},
            {"data", "%s"}, {"type", "%s"}, {"n", "%zu"}, {"median_ms", "%.2f"},
            {"min_ms", "%.2f"}, {"max_ms", "%.2f"}, {"local_sort_ms", "%.2f"},
            {"split_ms", "%.3f"}, {"exchange_ms", "%.2f"}, {"merge_ms", "%.2f"},
            {"mkeys_s", "%.1f"}, {"check", "%s"}};
        int nc = (int)(sizeof cols / sizeof *cols);
        FILE *f = csv ? fopen(csv, "a") : NULL;
        bench_csv_header(stdout, NULL, cols, nc);
        if (f && ftell(f) == 0) bench_csv_header(f, NULL, cols, nc);
        bench_row row;
        const char *data = b.device_data ? "device" : "host";
        bench_row_make(&row, cols, nc, "mpi", b.P, gpusort_ctx_get_threads(b.ctx),
                       gpusort_backend_name(backend), data, gpusort_type_name(b.type), b.N,
                       worst[0], st[0].min_ms, st[0].max_ms, ph[0], ph[1], ph[2], ph[3],
                       worst[0] > 0 ? b.N / worst[0] / 1e3 : 0.0, anybad ? "FAILED" : "sorted");
        bench_csv_row(stdout, NULL, &row);
        bench_csv_row(f, NULL, &row);
        bench_row_make(&row, cols, nc, "single", 1, gpusort_ctx_get_threads(b.single_ctx),
                       gpusort_backend_name(backend), data, gpusort_type_name(b.type), b.N,
                       worst[1], st[1].min_ms, st[1].max_ms, 0.0, 0.0, 0.0, 0.0,
                       worst[1] > 0 ? b.N / worst[1] / 1e3 : 0.0, failed ? "FAILED" : "-");
        bench_csv_row(stdout, NULL, &row);
        bench_csv_row(f, NULL, &row);
        if (f) fclose(f);
    }
    MPI_Finalize();
    return anybad ? 1 : 0;
}
