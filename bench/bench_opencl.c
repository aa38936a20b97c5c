/*
 * bench_opencl.c -- the OpenCL backend's benchmark: radix, bitonic and reduce against their peers,
 * timed in the same run on the same data.
 *
 *   bench_opencl [--sizes 20,24] [--type u32] [--runs 7] [--reduce-runs 51] [--device D]
 *                [--no-bitonic] [--no-radix] [--no-cpu] [--no-qsort] [--no-cuda]
 *                [--device-only] [--host-only] [--csv] [--json FILE] [--breakdown]
 *                [--dump-reduce FILE]
 *
 * WORKLOADS, for each size 2^k (uniform random keys of --type, a fixed seed):
 *   opencl radix  host      gpusort_sort on host arrays: copy in, sort, copy out
 *   opencl radix  device    the same on cl_mem buffers (GPUSORT_FLAG_CL_MEM, our own queue and
 *                           context through gpusort_ctx_set_stream): the device's sorting speed
 *   opencl bitonic host / device   likewise with GPUSORT_ALGORITHM_BITONIC
 *   opencl reduce sum device       gpusort_reduce(..., GPUSORT_FLAG_CL_MEM) on a cl_mem: the
 *                                  sum read back to the host, as the CUDA row does
 *   cuda radix / reduce host, device   our CUDA backend, when it is built and has a device
 *   cpu radix     host      our CPU backend, all cores
 *   introsort     host      a typed introsort (quicksort + heapsort + insertion sort, the
 *                           std::sort algorithm; this file is C, so it is written out below)
 *   qsort         host      C's qsort with a comparison function
 * Each workload (bench/timing.h, wall clock): one untimed warm-up (kernel compilation,
 * allocation), then --runs timed runs (default 7); the median is reported, with keys/s
 * (n / median). Every run is timed on the host clock around the whole call, the result on the
 * host (a reduce) or the sort finished (gpusort_ctx_synchronize), the same way for every
 * backend. The reduce rows take --reduce-runs runs (default 51) after 5 warm-ups: a reduce at
 * 2^24 lasts ~40 us and its launch and read-back latencies move by a few us from call to call,
 * which a median of 7 does not smooth (2^24 ratios from 0.79x to 0.92x:
 * bench/results/device-final-2026-11-22b.md). Sorts are out of place from two input buffers
 * used in turn (rotation), so every run sorts unsorted data and the input is never a cache-warm
 * copy of the last output. After the timed runs the output is checked (sorted ascending, same
 * sum of keys as the input): a wrong result is reported as FAILED.
 *
 * --breakdown adds, per size, the three kernels of one radix pass (pass 0 of a keys-only sort:
 * radix_upsweep, radix_scan, radix_downsweep) timed one by one: after one warm-up launch, the
 * median of 5 batches of 20 back-to-back launches, reported per launch. (The grid repeats
 * radix.c's choice: 8 work-groups per compute unit or GPUSORT_OPENCL_RADIX_GROUPS_PER_CU, at most
 * 1024 and one per 4096-key tile.)
 *
 * --dump-reduce FILE writes the OpenCL reduce program's binary as the driver gives it (PTX on
 * NVIDIA's OpenCL: to check the memory fence before the last-work-group ticket).
 *
 * Output: a Markdown table (or CSV with --csv) on stdout, with the device and the command;
 * --json FILE also writes the rows (the CSV columns) to FILE.
 */
#define _POSIX_C_SOURCE 200809L   /* clock_gettime under -std=c11 */
#ifndef CL_TARGET_OPENCL_VERSION
#define CL_TARGET_OPENCL_VERSION 120
#endif
#include <CL/cl.h>

#include "gpusort.h"
#include "internal.h"
#include "timing.h"

#if defined(__has_include)
#if __has_include(<cuda_runtime_api.h>)
#include <cuda_runtime_api.h>
#define BENCH_HAVE_CUDA_RT 1
/* This target does not say whether the library was built with CUDA. Weak references link
 * either way: with the CUDA backend the CUDA runtime is in the link (the backend calls these),
 * without it they stay NULL and the CUDA peers are skipped. */
#pragma weak cudaMalloc
#pragma weak cudaMemcpy
#pragma weak cudaFree
#endif
#endif

#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define MAX_RUNS 101    /* --runs and --reduce-runs at most */
#define MAX_SIZES 16

static struct {
    int sizes[MAX_SIZES];
    int nsizes;
    gpusort_type type;
    int runs, reduce_runs;
    int device;
    int bitonic, radix, cpu, qsort_peer, csv, device_only, host_only, cuda, breakdown;
    const char *dump_reduce, *json;
} opt = {{20, 24}, 2, GPUSORT_TYPE_U32, BENCH_RUNS_DEFAULT, 51, -1, 1, 1, 1, 1, 0, 0, 0, 1, 0,
         NULL, NULL};

/* The CSV columns (--csv, --json): scripts and committed results read them. */
static const bench_column columns[] = {
    {"workload", "%s"},    {"memory", "%s"},      {"type", "%s"},
    {"n", "%zu"},          {"median_ms", "%.6f"}, {"best_ms", "%.6f"},
    {"mkeys_per_s", "%.1f"}, {"vs", "%s"},        {"status", "%s"},
};
#define NCOLUMNS ((int)(sizeof columns / sizeof columns[0]))
static bench_json json;

/* ---- the introsort peer (std::sort's algorithm: Musser 1997), for u32/u64 keys ---- */

#define INTRO_SMALL 16   /* below this, insertion sort (as libstdc++'s _S_threshold) */

#define DEFINE_INTROSORT(T)                                                                   \
static void insertion_##T(T *a, size_t n)                                                     \
{                                                                                             \
    for (size_t i = 1; i < n; i++) {                                                          \
        T v = a[i];                                                                           \
        size_t j = i;                                                                         \
        while (j > 0 && a[j - 1] > v) { a[j] = a[j - 1]; j--; }                               \
        a[j] = v;                                                                             \
    }                                                                                         \
}                                                                                             \
static void sift_##T(T *a, size_t root, size_t n)                                             \
{                                                                                             \
    T v = a[root];                                                                            \
    for (size_t c; (c = 2 * root + 1) < n; root = c) {                                        \
        if (c + 1 < n && a[c + 1] > a[c]) c++;                                                \
        if (a[c] <= v) break;                                                                 \
        a[root] = a[c];                                                                       \
    }                                                                                         \
    a[root] = v;                                                                              \
}                                                                                             \
static void heapsort_##T(T *a, size_t n)                                                      \
{                                                                                             \
    for (size_t i = n / 2; i-- > 0;) sift_##T(a, i, n);                                       \
    for (size_t i = n; i-- > 1;) {                                                            \
        T t = a[0]; a[0] = a[i]; a[i] = t;                                                    \
        sift_##T(a, 0, i);                                                                    \
    }                                                                                         \
}                                                                                             \
static void intro_##T(T *a, size_t n, int depth)                                              \
{                                                                                             \
    while (n > INTRO_SMALL) {                                                                 \
        if (depth-- == 0) { heapsort_##T(a, n); return; }                                     \
        T x = a[0], y = a[n / 2], z = a[n - 1];          /* median of three */                \
        T p = x < y ? (y < z ? y : (x < z ? z : x)) : (x < z ? x : (y < z ? z : y));          \
        size_t i = 0, j = n - 1;                                                              \
        for (;;) {                                       /* Hoare partition */                \
            while (a[i] < p) i++;                                                             \
            while (a[j] > p) j--;                                                             \
            if (i >= j) break;                                                                \
            T t = a[i]; a[i] = a[j]; a[j] = t;                                                \
            i++; j--;                                                                         \
        }                                                                                     \
        intro_##T(a + j + 1, n - j - 1, depth);                                               \
        n = j + 1;                                                                            \
    }                                                                                         \
    insertion_##T(a, n);                                                                      \
}
DEFINE_INTROSORT(uint32_t)
DEFINE_INTROSORT(uint64_t)

static void introsort(void *a, size_t n, size_t ks)
{
    int depth = 0;
    for (size_t m = n; m > 1; m >>= 1) depth += 2;
    if (ks == 4) intro_uint32_t((uint32_t *)a, n, depth);
    else intro_uint64_t((uint64_t *)a, n, depth);
}

static int cmp_u32(const void *a, const void *b)
{
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    return x < y ? -1 : x > y;
}

static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

/* ---- data ---- */

static uint64_t rng_state = 0x9E3779B97F4A7C15ull;
static uint64_t rng_next(void)   /* xorshift64*: plenty for benchmark keys */
{
    rng_state ^= rng_state >> 12;
    rng_state ^= rng_state << 25;
    rng_state ^= rng_state >> 27;
    return rng_state * 0x2545F4914F6CDD1Dull;
}

/* Uniform random keys: random bits for ints; random finite floats in [-1e6, 1e6) for floats. */
static void fill(void *buf, size_t n, gpusort_type t)
{
    for (size_t i = 0; i < n; i++) {
        uint64_t r = rng_next();
        switch (t) {
        case GPUSORT_TYPE_F32: ((float *)buf)[i] = (float)((double)(r >> 11) * 0x1p-53 * 2e6 - 1e6); break;
        case GPUSORT_TYPE_F64: ((double *)buf)[i] = (double)(r >> 11) * 0x1p-53 * 2e6 - 1e6; break;
        case GPUSORT_TYPE_U32: case GPUSORT_TYPE_I32: ((uint32_t *)buf)[i] = (uint32_t)(r >> 32); break;
        default: ((uint64_t *)buf)[i] = r;
        }
    }
}

/* Sorted ascending in the type's order (ints and finite floats here), and the same multiset
 * checksum (sum of the raw words) as the input. */
static int check_sorted(const void *in, const void *out, size_t n, gpusort_type t)
{
    size_t ks = gpusort_type_size(t);
    uint64_t si = 0, so = 0;
    for (size_t i = 0; i < n; i++) {
        if (ks == 4) { si += ((const uint32_t *)in)[i]; so += ((const uint32_t *)out)[i]; }
        else { si += ((const uint64_t *)in)[i]; so += ((const uint64_t *)out)[i]; }
    }
    if (si != so) return 0;
    for (size_t i = 1; i < n; i++) {
        int bad;
        switch (t) {
        case GPUSORT_TYPE_U32: bad = ((const uint32_t *)out)[i - 1] > ((const uint32_t *)out)[i]; break;
        case GPUSORT_TYPE_I32: bad = ((const int32_t *)out)[i - 1] > ((const int32_t *)out)[i]; break;
        case GPUSORT_TYPE_F32: bad = ((const float *)out)[i - 1] > ((const float *)out)[i]; break;
        case GPUSORT_TYPE_U64: bad = ((const uint64_t *)out)[i - 1] > ((const uint64_t *)out)[i]; break;
        case GPUSORT_TYPE_I64: bad = ((const int64_t *)out)[i - 1] > ((const int64_t *)out)[i]; break;
        default: bad = ((const double *)out)[i - 1] > ((const double *)out)[i];
        }
        if (bad) return 0;
    }
    return 1;
}

/* sum |x| of float keys (the reduce check's error scale). */
static double abs_sum(const void *in, size_t n, gpusort_type t)
{
    double s = 0;
    for (size_t i = 0; i < n; i++)
        s += t == GPUSORT_TYPE_F32 ? fabs((double)((const float *)in)[i])
                                   : fabs(((const double *)in)[i]);
    return s;
}

/* ---- reporting ---- */

static void report(const char *what, const char *mem, size_t n, double med, double best,
                   const char *status, double ratio_to)
{
    char ratio[32] = "";
    if (ratio_to > 0 && med > 0) snprintf(ratio, sizeof ratio, "%.2fx", ratio_to / med);
    bench_row row;
    bench_row_make(&row, columns, NCOLUMNS, what, mem, gpusort_type_name(opt.type), n, med * 1e3,
                   best * 1e3, med > 0 ? n / med / 1e6 : 0.0, ratio, status);
    bench_json_row(&json, &row);
    if (opt.csv)
        bench_csv_row(stdout, NULL, &row);
    else
        printf("| %-16s | %-6s | %s | 2^%-2d | %10.3f | %10.3f | %9.1f | %7s | %s |\n", what, mem,
               gpusort_type_name(opt.type), (int)(63 - __builtin_clzll((unsigned long long)n)),
               med * 1e3, best * 1e3, med > 0 ? n / med / 1e6 : 0.0, ratio, status);
    fflush(stdout);
}

/* Times fn(arg, run) over `warm` warm-ups + `runs` runs; returns the median (s), *best the
 * minimum. A failing call (nonzero return) stops and returns -1. Input buffers rotate by run
 * (run & 1), and the last run has an even or odd index as opt.runs says, for the checks. */
typedef int (*bench_fn)(void *arg, int run);
static double timed(bench_fn fn, void *arg, int warm, int runs, double *best)
{
    bench_plan plan = bench_plan_default(runs);
    plan.warmup = warm;
    plan.first_run = ((opt.runs - runs) % 2 + 2) % 2;   /* ends on run opt.runs - 1 modulo 2 */
    bench_contender c = {fn, arg, NULL, NULL};
    bench_stats st;
    if (bench_time(&plan, &c, 1, &st)) return -1;
    *best = st.min_ms * 1e-3;
    return st.median_ms * 1e-3;
}

/* ---- workloads ---- */

typedef struct job {
    gpusort_ctx *ctx;
    gpusort_algorithm alg;
    size_t n, ks;
    void *in[2];          /* host inputs (rotated) */
    void *out;            /* host output */
    cl_mem din[2], dout;  /* device buffers (OpenCL) */
    void *cin[2], *cout;  /* device buffers (CUDA) */
    gpusort_value value;
} job;

static int run_host_sort(void *arg, int run)
{
    job *j = (job *)arg;
    gpusort_status s = gpusort_sort(j->ctx, opt.type, j->in[run & 1], j->n, j->out,
                                    GPUSORT_ORDER_ASC, j->alg, 0);
    if (s) fprintf(stderr, "bench_opencl: %s\n", gpusort_ctx_get_last_error(j->ctx));
    return s != GPUSORT_STATUS_SUCCESS;
}

static int run_cl_sort(void *arg, int run)
{
    job *j = (job *)arg;
    gpusort_status s = gpusort_sort(j->ctx, opt.type, (const void *)j->din[run & 1], j->n,
                                    (void *)j->dout, GPUSORT_ORDER_ASC, j->alg,
                                    GPUSORT_FLAG_CL_MEM);
    if (!s) s = gpusort_ctx_synchronize(j->ctx);
    if (s) fprintf(stderr, "bench_opencl: %s\n", gpusort_ctx_get_last_error(j->ctx));
    return s != GPUSORT_STATUS_SUCCESS;
}

static int run_cl_reduce(void *arg, int run)
{
    job *j = (job *)arg;
    gpusort_status s = gpusort_reduce(j->ctx, opt.type, (const void *)j->din[run & 1], j->n,
                                         &j->value, GPUSORT_OP_SUM, GPUSORT_FLAG_CL_MEM);
    if (s) fprintf(stderr, "bench_opencl: %s\n", gpusort_ctx_get_last_error(j->ctx));
    return s != GPUSORT_STATUS_SUCCESS;
}

static int run_host_reduce(void *arg, int run)
{
    job *j = (job *)arg;
    gpusort_status s = gpusort_reduce(j->ctx, opt.type, j->in[run & 1], j->n, &j->value,
                                      GPUSORT_OP_SUM, 0);
    if (s) fprintf(stderr, "bench_opencl: %s\n", gpusort_ctx_get_last_error(j->ctx));
    return s != GPUSORT_STATUS_SUCCESS;
}

#ifdef BENCH_HAVE_CUDA_RT
static int run_cuda_sort(void *arg, int run)
{
    job *j = (job *)arg;
    gpusort_status s = gpusort_sort(j->ctx, opt.type, j->cin[run & 1], j->n, j->cout,
                                    GPUSORT_ORDER_ASC, j->alg, 0);
    if (!s) s = gpusort_ctx_synchronize(j->ctx);
    if (s) fprintf(stderr, "bench_opencl: %s\n", gpusort_ctx_get_last_error(j->ctx));
    return s != GPUSORT_STATUS_SUCCESS;
}

static int run_cuda_reduce(void *arg, int run)
{
    job *j = (job *)arg;
    gpusort_status s = gpusort_reduce(j->ctx, opt.type, j->cin[run & 1], j->n, &j->value,
                                      GPUSORT_OP_SUM, 0);
    if (s) fprintf(stderr, "bench_opencl: %s\n", gpusort_ctx_get_last_error(j->ctx));
    return s != GPUSORT_STATUS_SUCCESS;
}
#endif

static int run_introsort(void *arg, int run)
{
    job *j = (job *)arg;
    memcpy(j->out, j->in[run & 1], j->n * j->ks);   /* in-place peers sort a fresh copy */
    introsort(j->out, j->n, j->ks);
    return 0;
}

static int run_qsort(void *arg, int run)
{
    job *j = (job *)arg;
    memcpy(j->out, j->in[run & 1], j->n * j->ks);
    qsort(j->out, j->n, j->ks, j->ks == 4 ? cmp_u32 : cmp_u64);
    return 0;
}

/* Time one workload and report it; `check` compares j->out with the input of the last run.
 * Reduce rows ("reduce" in the name) take opt.reduce_runs runs after 5 warm-ups. */
static double bench(const char *what, const char *mem, bench_fn fn, job *j, int check,
                    double ratio_to)
{
    int red = strstr(what, "reduce") != NULL;
    double best = 0, med = timed(fn, j, red ? 5 : 1, red ? opt.reduce_runs : opt.runs, &best);
    const char *status = "ok";
    if (med < 0) status = "FAILED (error)";
    else if (check && !check_sorted(j->in[(opt.runs - 1) & 1], j->out, j->n, opt.type))
        status = "FAILED (wrong result)";
    report(what, mem, j->n, med, best, status, ratio_to);
    return med;
}

static int opencl_device_buffers(job *j, cl_context c, cl_command_queue q)
{
    cl_int err = CL_SUCCESS;
    for (int k = 0; k < 2 && err == CL_SUCCESS; k++) {
        j->din[k] = clCreateBuffer(c, CL_MEM_READ_WRITE, j->n * j->ks, NULL, &err);
        if (err == CL_SUCCESS)
            err = clEnqueueWriteBuffer(q, j->din[k], CL_TRUE, 0, j->n * j->ks, j->in[k], 0, NULL,
                                       NULL);
    }
    if (err == CL_SUCCESS) j->dout = clCreateBuffer(c, CL_MEM_READ_WRITE, j->n * j->ks, NULL, &err);
    if (err != CL_SUCCESS) fprintf(stderr, "bench_opencl: device buffers: %d\n", (int)err);
    return err != CL_SUCCESS;
}

/* --breakdown: a batch of launches of one kernel, then clFinish. BATCH launches per timed
 * batch make a ~10 us kernel long enough for the host clock. */
#define BATCH 20
typedef struct launch_batch {
    cl_command_queue q;
    cl_kernel k;
    size_t global, local;
    cl_int err;
} launch_batch;

static int run_batch(void *arg, int run)
{
    launch_batch *b = (launch_batch *)arg;
    for (int r = 0; r < (run < 0 ? 1 : BATCH) && b->err == CL_SUCCESS; r++)
        b->err = clEnqueueNDRangeKernel(b->q, b->k, 1, NULL, &b->global, &b->local, 0, NULL, NULL);
    if (b->err == CL_SUCCESS) b->err = clFinish(b->q);
    return b->err != CL_SUCCESS;
}

/* --breakdown: pass 0 of a keys-only radix sort of din[0] into dout, kernel by kernel. */
static int radix_breakdown(job *j, cl_context c, cl_command_queue q, int compute_units)
{
    const size_t tile = 256 * 16;                 /* radix.c: WG * ITEMS for keys only */
    size_t tiles = (j->n + tile - 1) / tile;
    const char *e = getenv("GPUSORT_OPENCL_RADIX_GROUPS_PER_CU");
    size_t per_cu = e && atoi(e) >= 1 && atoi(e) <= 32 ? (size_t)atoi(e) : 8;
    size_t groups = (size_t)compute_units * per_cu;
    if (groups > 1024) groups = 1024;
    if (groups > tiles) groups = tiles;
    cl_uint tpg = (cl_uint)((tiles + groups - 1) / groups);
    groups = (tiles + tpg - 1) / tpg;
    cl_uint n = (cl_uint)j->n, num_tiles = (cl_uint)tiles, G = (cl_uint)groups, shift = 0;
    cl_int type = (cl_int)opt.type, desc = 0, err = CL_SUCCESS;
    cl_mem counts = clCreateBuffer(c, CL_MEM_READ_WRITE, groups * 256 * 4, NULL, &err);
    cl_mem prefix = clCreateBuffer(c, CL_MEM_READ_WRITE, groups * 256 * 4, NULL, &err);
    cl_mem totals = clCreateBuffer(c, CL_MEM_READ_WRITE, 256 * 4, NULL, &err);
    gpusort__cl_program_id prog = j->ks == 8 ? GPUSORT_CL_PROG_RADIX_K32_V0 + 3
                                             : GPUSORT_CL_PROG_RADIX_K32_V0;
    cl_kernel k[3];
    const char *names[3] = {"radix_upsweep", "radix_scan", "radix_downsweep"};
    size_t grid[3] = {groups, 256, groups};
    for (int i = 0; i < 3; i++)
        if (!counts || !prefix || !totals || gpusort__cl_kernel(j->ctx, prog, names[i], &k[i])) {
            fprintf(stderr, "bench_opencl: breakdown setup failed: %s\n",
                    gpusort_ctx_get_last_error(j->ctx));
            return 1;
        }
    /* Arguments as radix.c sets them (keys only). */
    clSetKernelArg(k[0], 0, sizeof(cl_mem), &j->din[0]);
    clSetKernelArg(k[0], 1, sizeof n, &n);
    clSetKernelArg(k[0], 2, sizeof type, &type);
    clSetKernelArg(k[0], 3, sizeof desc, &desc);
    clSetKernelArg(k[0], 4, sizeof shift, &shift);
    clSetKernelArg(k[0], 5, sizeof num_tiles, &num_tiles);
    clSetKernelArg(k[0], 6, sizeof tpg, &tpg);
    clSetKernelArg(k[0], 7, sizeof(cl_mem), &counts);
    clSetKernelArg(k[1], 0, sizeof(cl_mem), &counts);
    clSetKernelArg(k[1], 1, sizeof G, &G);
    clSetKernelArg(k[1], 2, sizeof(cl_mem), &prefix);
    clSetKernelArg(k[1], 3, sizeof(cl_mem), &totals);
    cl_mem dargs[2] = {j->din[0], j->dout};
    for (int a = 0; a < 2; a++) clSetKernelArg(k[2], (cl_uint)a, sizeof(cl_mem), &dargs[a]);
    clSetKernelArg(k[2], 2, sizeof n, &n);
    clSetKernelArg(k[2], 3, sizeof type, &type);
    clSetKernelArg(k[2], 4, sizeof desc, &desc);
    clSetKernelArg(k[2], 5, sizeof shift, &shift);
    clSetKernelArg(k[2], 6, sizeof num_tiles, &num_tiles);
    clSetKernelArg(k[2], 7, sizeof tpg, &tpg);
    clSetKernelArg(k[2], 8, sizeof(cl_mem), &prefix);
    clSetKernelArg(k[2], 9, sizeof(cl_mem), &totals);
    for (int i = 0; i < 3; i++) {
        /* A warm-up batch of one launch (run -1), then 5 batches of BATCH launches. */
        launch_batch lb = {q, k[i], grid[i] * 256, 256, CL_SUCCESS};
        bench_plan plan = bench_plan_default(5);
        bench_contender c = {run_batch, &lb, NULL, NULL};
        bench_stats st;
        if (bench_time(&plan, &c, 1, &st)) {
            err = lb.err;
            fprintf(stderr, "bench_opencl: breakdown %s: %d\n", names[i], (int)err);
            break;
        }
        char what[40];
        snprintf(what, sizeof what, "  %s", names[i] + 6);   /* "  upsweep" ... */
        report(what, "device", j->n, st.median_ms * 1e-3 / BATCH, st.min_ms * 1e-3 / BATCH,
               "1 pass", 0);
    }
    clReleaseMemObject(counts);
    clReleaseMemObject(prefix);
    clReleaseMemObject(totals);
    return err != CL_SUCCESS;
}

/* --dump-reduce: the binary of the program holding reduce_sum_uint (built by now). */
static int dump_reduce_program(gpusort_ctx *ctx, const char *path)
{
    cl_kernel k;
    cl_program p = NULL;
    size_t size = 0;
    if (gpusort__cl_kernel(ctx, GPUSORT_CL_PROG_REDUCE, "reduce_sum_uint", &k) ||
        clGetKernelInfo(k, CL_KERNEL_PROGRAM, sizeof p, &p, NULL) != CL_SUCCESS ||
        clGetProgramInfo(p, CL_PROGRAM_BINARY_SIZES, sizeof size, &size, NULL) != CL_SUCCESS ||
        size == 0) {
        fprintf(stderr, "bench_opencl: no reduce program binary\n");
        return 1;
    }
    unsigned char *bin = malloc(size);
    FILE *f = bin ? fopen(path, "wb") : NULL;
    int bad = !f || clGetProgramInfo(p, CL_PROGRAM_BINARIES, sizeof bin, &bin, NULL) != CL_SUCCESS ||
              fwrite(bin, 1, size, f) != size;
    if (f && fclose(f)) bad = 1;
    free(bin);
    if (bad) fprintf(stderr, "bench_opencl: cannot write %s\n", path);
    return bad;
}

static void usage(FILE *f)
{
    fprintf(f,
            "usage: bench_opencl [--sizes 20,24] [--type u32|i32|f32|u64|i64|f64] [--runs 7]\n"
            "                    [--reduce-runs 51] [--device D] [--no-bitonic] [--no-radix]\n"
            "                    [--no-cpu] [--no-qsort] [--no-cuda] [--device-only] [--host-only]\n"
            "                    [--csv] [--json FILE] [--breakdown] [--dump-reduce FILE]\n"
            "  --sizes    log2 of the sizes, comma-separated (default 20,24)\n"
            "  --device   OpenCL device index (default: the backend's default, a GPU if any)\n"
            "  --runs     timed runs per workload after one warm-up; the median is reported\n"
            "  --reduce-runs  timed runs of the reduce rows, after 5 warm-ups (default 51)\n"
            "  --no-radix no radix rows (OpenCL and CUDA): reduce (and bitonic) only\n"
            "  --no-cuda  no CUDA peer rows (e.g. when only OpenCL settings are compared)\n"
            "  --csv      CSV rows on stdout instead of a Markdown table\n"
            "  --json FILE  also write the rows (the CSV columns) to FILE as JSON\n"
            "  --breakdown  also time the kernels of one radix pass one by one\n"
            "  --dump-reduce FILE  write the OpenCL reduce program's binary (PTX on NVIDIA)\n"
            "  --device-only  only the data-on-the-device workloads (OpenCL cl_mem, CUDA device\n"
            "             pointers): no host peers, no host round trips (for large sizes on a GPU)\n"
            "  --host-only    only host-array workloads (on a CPU device such as PoCL the cl_mem\n"
            "             rows time the same work without the memcpy; this halves the run)\n");
}

int main(int argc, char **argv)
{
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (!strcmp(a, "--sizes") && v) {
            opt.nsizes = 0;
            for (char *p = argv[++i]; *p && opt.nsizes < MAX_SIZES;) {
                opt.sizes[opt.nsizes++] = (int)strtol(p, &p, 10);
                if (*p == ',') p++;
                else if (*p) { usage(stderr); return 2; }
            }
        } else if (!strcmp(a, "--type") && v) {
            if (gpusort_type_parse(argv[++i], &opt.type)) { usage(stderr); return 2; }
        } else if (!strcmp(a, "--runs") && v) {
            opt.runs = atoi(argv[++i]);
            if (opt.runs < 1 || opt.runs > MAX_RUNS) { usage(stderr); return 2; }
        } else if (!strcmp(a, "--reduce-runs") && v) {
            opt.reduce_runs = atoi(argv[++i]);
            if (opt.reduce_runs < 1 || opt.reduce_runs > MAX_RUNS) { usage(stderr); return 2; }
        } else if (!strcmp(a, "--dump-reduce") && v) {
            opt.dump_reduce = argv[++i];
        } else if (!strcmp(a, "--json") && v) {
            opt.json = argv[++i];
        } else if (!strcmp(a, "--device") && v) {
            opt.device = atoi(argv[++i]);
        } else if (!strcmp(a, "--no-bitonic")) opt.bitonic = 0;
        else if (!strcmp(a, "--no-radix")) opt.radix = 0;
        else if (!strcmp(a, "--no-cpu")) opt.cpu = 0;
        else if (!strcmp(a, "--no-qsort")) opt.qsort_peer = 0;
        else if (!strcmp(a, "--no-cuda")) opt.cuda = 0;
        else if (!strcmp(a, "--breakdown")) opt.breakdown = 1;
        else if (!strcmp(a, "--csv")) opt.csv = 1;
        else if (!strcmp(a, "--device-only")) opt.device_only = 1;
        else if (!strcmp(a, "--host-only")) opt.host_only = 1;
        else if (!strcmp(a, "--help") || !strcmp(a, "-h")) { usage(stdout); return 0; }
        else { usage(stderr); return 2; }
    }

    gpusort_ctx *ocl = NULL, *cpu = NULL, *cuda = NULL;
    gpusort_status s = gpusort_ctx_create(&ocl, GPUSORT_BACKEND_OPENCL, opt.device);
    if (s) {
        printf("skipped: no OpenCL context (%s)\n", gpusort_status_string(s));
        return 77;
    }
    gpusort_device_info info;
    gpusort_device_get_info(GPUSORT_BACKEND_OPENCL, gpusort_ctx_get_device(ocl), &info);
    /* Our own context and queue on the same device, handed to gpusort: the documented way to
     * sort cl_mem buffers the caller owns. */
    cl_platform_id plat;
    cl_device_id dev;
    {
        /* The device the backend picked: its context's device. */
        cl_context bc = gpusort__cl_context(ocl);
        clGetContextInfo(bc, CL_CONTEXT_DEVICES, sizeof dev, &dev, NULL);
        clGetDeviceInfo(dev, CL_DEVICE_PLATFORM, sizeof plat, &plat, NULL);
    }
    cl_int err = CL_SUCCESS;
    cl_context my_ctx = clCreateContext(NULL, 1, &dev, NULL, NULL, &err);
    cl_command_queue my_q = err == CL_SUCCESS ? clCreateCommandQueue(my_ctx, dev, 0, &err) : NULL;
    if (err != CL_SUCCESS || gpusort_ctx_set_stream(ocl, my_q)) {
        fprintf(stderr, "bench_opencl: cannot set up an OpenCL queue (%d): %s\n", (int)err,
                gpusort_ctx_get_last_error(ocl));
        return 1;
    }
    if (opt.cpu) gpusort_ctx_create(&cpu, GPUSORT_BACKEND_CPU, 0);
    int cuda_devices = 0;
    if (opt.cuda &&
        gpusort_device_get_count(GPUSORT_BACKEND_CUDA, &cuda_devices) == GPUSORT_STATUS_SUCCESS &&
        cuda_devices > 0)
        gpusort_ctx_create(&cuda, GPUSORT_BACKEND_CUDA, 0);

    time_t tnow = time(NULL);
    char date[32];
    strftime(date, sizeof date, "%Y-%m-%d %H:%M UTC", gmtime(&tnow));
    printf("# bench_opencl, %s\n\nOpenCL device: %s (%s), %d compute units, %.1f GiB%s\n", date,
           info.name, info.platform, info.compute_units, info.memory_bytes / 1073741824.0,
           info.is_gpu ? ", GPU" : "");
    if (cuda) {
        gpusort_device_info ci;
        gpusort_device_get_info(GPUSORT_BACKEND_CUDA, 0, &ci);
        printf("CUDA device: %s\n", ci.name);
    }
    printf("Command:");
    for (int i = 0; i < argc; i++) printf(" %s", argv[i]);
    printf("\nMedian of %d runs after one warm-up (reduce rows: %d runs after 5); keys/s = n / "
           "median. \"vs\" = time of the row's peer / time of this row (>1: faster than the "
           "peer).\n\n", opt.runs, opt.reduce_runs);
    FILE *json_file = opt.json ? fopen(opt.json, "w") : NULL;
    if (opt.json && !json_file) {
        perror(opt.json);
        return 1;
    }
    char meta[600];
    snprintf(meta, sizeof meta, "\"device\": \"%s\", \"runs\": %d, \"reduce_runs\": %d",
             info.name, opt.runs, opt.reduce_runs);
    bench_json_begin(&json, json_file, meta);
    if (opt.csv)
        bench_csv_header(stdout, NULL, columns, NCOLUMNS);
    else
        printf("| workload         | memory | type | n    |  median ms |    best ms |  Mkeys/s |"
               "      vs | status |\n|---|---|---|---|---:|---:|---:|---:|---|\n");

    int failed = 0;
    for (int si = 0; si < opt.nsizes; si++) {
        job j;
        memset(&j, 0, sizeof j);
        j.n = (size_t)1 << opt.sizes[si];
        j.ks = gpusort_type_size(opt.type);
        j.in[0] = malloc(j.n * j.ks);
        j.in[1] = malloc(j.n * j.ks);
        j.out = malloc(j.n * j.ks);
        if (!j.in[0] || !j.in[1] || !j.out) { fprintf(stderr, "bench_opencl: out of memory\n"); return 1; }
        fill(j.in[0], j.n, opt.type);
        fill(j.in[1], j.n, opt.type);
        if (opencl_device_buffers(&j, my_ctx, my_q)) return 1;

        /* Peers first: their times are the ratios' reference. */
        double t_intro = -1, t_cpu = -1, t_cuda_dev = -1, t_cuda_red = -1;
        int int_type = opt.type == GPUSORT_TYPE_U32 || opt.type == GPUSORT_TYPE_U64;
        if (int_type && !opt.device_only)
            t_intro = bench("introsort", "host", run_introsort, &j, 1, 0);
        if (opt.qsort_peer && int_type && !opt.device_only)
            bench("qsort", "host", run_qsort, &j, 1, t_intro);
        if (cpu && !opt.device_only) {
            j.ctx = cpu; j.alg = GPUSORT_ALGORITHM_RADIX;
            t_cpu = bench("cpu radix", "host", run_host_sort, &j, 1, t_intro);
        }
#ifdef BENCH_HAVE_CUDA_RT
        if (cuda && cudaMalloc && cudaMemcpy && cudaFree) {
            int ok = 1;
            for (int k = 0; k < 2; k++)
                ok &= cudaMalloc(&j.cin[k], j.n * j.ks) == cudaSuccess &&
                      cudaMemcpy(j.cin[k], j.in[k], j.n * j.ks, cudaMemcpyHostToDevice) == cudaSuccess;
            ok &= cudaMalloc(&j.cout, j.n * j.ks) == cudaSuccess;
            if (ok) {
                j.ctx = cuda; j.alg = GPUSORT_ALGORITHM_RADIX;
                if (opt.radix) {
                    t_cuda_dev = bench("cuda radix", "device", run_cuda_sort, &j, 0, 0);
                    if (cudaMemcpy(j.out, j.cout, j.n * j.ks, cudaMemcpyDeviceToHost) ==
                            cudaSuccess &&
                        !check_sorted(j.in[(opt.runs - 1) & 1], j.out, j.n, opt.type))
                        printf("| (cuda radix result is WRONG) |\n");
                }
                j.alg = GPUSORT_ALGORITHM_BITONIC;
                if (opt.bitonic) bench("cuda bitonic", "device", run_cuda_sort, &j, 0, 0);
                j.alg = GPUSORT_ALGORITHM_RADIX;
                if (opt.radix && !opt.device_only)
                    bench("cuda radix", "host", run_host_sort, &j, 1, t_intro);
                t_cuda_red = bench("cuda reduce sum", "device", run_cuda_reduce, &j, 0, 0);
            } else {
                printf("| cuda: cudaMalloc failed for n = %zu |\n", j.n);
            }
            for (int k = 0; k < 2; k++) if (j.cin[k]) cudaFree(j.cin[k]);
            if (j.cout) cudaFree(j.cout);
            j.cin[0] = j.cin[1] = j.cout = NULL;
        }
#endif
        /* OpenCL. */
        j.ctx = ocl;
        j.alg = GPUSORT_ALGORITHM_RADIX;
        double peer = t_cuda_dev > 0 ? t_cuda_dev : t_cpu;
        int rdev = opt.radix && !opt.host_only, rhost = opt.radix && !opt.device_only;
        if (rdev && bench("opencl radix", "device", run_cl_sort, &j, 0, peer) < 0)
            failed = 1;
        if (rdev &&
            (clEnqueueReadBuffer(my_q, j.dout, CL_TRUE, 0, j.n * j.ks, j.out, 0, NULL, NULL) ||
             !check_sorted(j.in[(opt.runs - 1) & 1], j.out, j.n, opt.type))) {
            printf("| opencl radix device result is WRONG |\n");
            failed = 1;
        }
        if (rhost &&
            bench("opencl radix", "host", run_host_sort, &j, 1, t_cpu > 0 ? t_cpu : t_intro) < 0)
            failed = 1;
        if (opt.breakdown && rdev) {
            j.ctx = ocl;
            if (radix_breakdown(&j, my_ctx, my_q, info.compute_units)) failed = 1;
        }
        if (opt.bitonic) {
            j.alg = GPUSORT_ALGORITHM_BITONIC;
            if (!opt.host_only && bench("opencl bitonic", "device", run_cl_sort, &j, 0, peer) < 0)
                failed = 1;
            if (!opt.host_only &&
                (clEnqueueReadBuffer(my_q, j.dout, CL_TRUE, 0, j.n * j.ks, j.out, 0, NULL, NULL) ||
                 !check_sorted(j.in[(opt.runs - 1) & 1], j.out, j.n, opt.type))) {
                printf("| opencl bitonic device result is WRONG |\n");
                failed = 1;
            }
            if (!opt.device_only && bench("opencl bitonic", "host", run_host_sort, &j, 1,
                                          t_cpu > 0 ? t_cpu : t_intro) < 0)
                failed = 1;
        }
        if (opt.type != GPUSORT_TYPE_F64 || info.supports_f64) {
            if (opt.host_only) {
                double t_cpu_red = 0;
                if (cpu) {
                    j.ctx = cpu;
                    t_cpu_red = bench("cpu reduce sum", "host", run_host_reduce, &j, 0, 0);
                }
                j.ctx = ocl;
                if (bench("opencl reduce sum", "host", run_host_reduce, &j, 0, t_cpu_red) < 0)
                    failed = 1;
            } else if (bench("opencl reduce sum", "device", run_cl_reduce, &j, 0, t_cuda_red) < 0)
                failed = 1;
            gpusort_value dev_sum = j.value;
            if (opt.dump_reduce && si == 0 && dump_reduce_program(ocl, opt.dump_reduce))
                failed = 1;
            /* The same input again: the same bits (deterministic float sums). */
            j.ctx = ocl;
            if ((opt.host_only ? run_host_reduce : run_cl_reduce)(&j, opt.runs - 1) ||
                memcmp(&j.value, &dev_sum, sizeof dev_sum) != 0) {
                printf("| opencl reduce sum differs between two runs |\n");
                failed = 1;
            }
            if (cpu) {
                /* Integer sums exact; float sums within 1e-12 * sum |x| of the CPU's. */
                gpusort_value ref;
                const void *in = j.in[(opt.runs - 1) & 1];
                int is_f = gpusort_value_field(opt.type) == 'f';
                if (gpusort_reduce(cpu, opt.type, in, j.n, &ref, GPUSORT_OP_SUM, 0) ==
                        GPUSORT_STATUS_SUCCESS &&
                    (is_f ? !(fabs(ref.f - dev_sum.f) <= 1e-12 * abs_sum(in, j.n, opt.type))
                          : ref.u != dev_sum.u)) {
                    printf("| opencl reduce sum is WRONG |\n");
                    failed = 1;
                }
            }
        }
        for (int k = 0; k < 2; k++) clReleaseMemObject(j.din[k]);
        clReleaseMemObject(j.dout);
        free(j.in[0]); free(j.in[1]); free(j.out);
    }
    bench_json_end(&json);
    if (json_file) fclose(json_file);
    gpusort_ctx_free(cuda);
    gpusort_ctx_free(cpu);
    gpusort_ctx_free(ocl);
    clReleaseCommandQueue(my_q);
    clReleaseContext(my_ctx);
    return failed;
}
