/*
 * bench_multi.cu -- gpusort_multi_sort on 1, 2, 4, ... GPUs of one host, data resident on the
 * GPUs (issue #20's benchmark), with the phase split:
 *
 *   bench_multi [--n N] [--type u32|u64] [--gpus 1,2,4] [--runs R] [--share]
 *
 * For each G: G CUDA contexts (GPU g, or all on GPU 0 with --share: the code paths without
 * the speed), N keys cut evenly over them, made on each GPU by a hash of the global index
 * (uniform), with an untimed copy per GPU restored before every run. G = 1 is gpusort_sort on
 * one GPU: the baseline. One warm-up (it also makes NCCL's communicators), then R timed runs
 * (wall clock around the call, which completes before it returns); the median, the phases of
 * the median run (gpusort_multi_get_last_times), the bytes that changed GPU and the exchange
 * bandwidth. After the last run the result is checked on the GPUs: every piece sorted, piece
 * boundaries in order, and the sum and xor of all keys unchanged (a permutation check).
 * A G whose buffers (3 x its share per GPU: pieces, copies, the sort's scratch, which also
 * receives the exchange) do not fit is skipped with a note. Prints CSV rows (bench/timing.h) on stdout.
 * GPUSORT_MULTI_EXCHANGE=peer|nccl forces the exchange (gpusort.h).
 */
#include "gpusort.h"
#include "timing.h"

#include <cuda_runtime.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define CK(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { \
    fprintf(stderr, "bench_multi: %s: %s\n", #x, cudaGetErrorString(e_)); exit(2); } } while (0)
#define MAXG 16

__device__ __forceinline__ unsigned long long mix64(unsigned long long x)
{
    x += 0x9e3779b97f4a7c15ull;
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
    return x ^ (x >> 31);
}

template <typename K>
__global__ void k_fill(K *k, size_t n, size_t first)
{
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n;
         i += (size_t)gridDim.x * blockDim.x)
        k[i] = (K)mix64(first + i);
}

/* out[0] += keys out of order; out[1] += sum; out[2] ^= xor. */
template <typename K>
__global__ void k_check(const K *k, size_t n, unsigned long long *out)
{
    unsigned long long bad = 0, sum = 0, x = 0;
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n;
         i += (size_t)gridDim.x * blockDim.x) {
        sum += k[i];
        x ^= k[i];
        if (i + 1 < n && k[i] > k[i + 1]) bad++;
    }
    atomicAdd(&out[0], bad);
    atomicAdd(&out[1], sum);
    atomicXor(&out[2], x);
}

typedef struct job {
    int G, share;
    gpusort_ctx *ctx[MAXG];
    void *piece[MAXG], *orig[MAXG];
    size_t n[MAXG], first[MAXG], ks;
    gpusort_type type;
    gpusort_multi_times times[64];
} job;

static int dev_of(const job *j, int g) { return j->share ? 0 : g; }

static void restore(void *arg, int run)
{
    job *j = (job *)arg;
    for (int g = 0; g < j->G; g++) {
        CK(cudaSetDevice(dev_of(j, g)));
        CK(cudaMemcpy(j->piece[g], j->orig[g], j->n[g] * j->ks, cudaMemcpyDeviceToDevice));
    }
    for (int g = 0; g < j->G; g++) {
        CK(cudaSetDevice(dev_of(j, g)));
        CK(cudaDeviceSynchronize());
    }
}

static int sort_once(void *arg, int run)
{
    job *j = (job *)arg;
    gpusort_status s = gpusort_multi_sort(j->ctx, j->G, j->type, j->piece, j->n,
                                          GPUSORT_ORDER_ASC, 0);
    if (s) {
        fprintf(stderr, "bench_multi: G=%d: %s: %s\n", j->G, gpusort_status_string(s),
                gpusort_ctx_get_last_error(j->ctx[0]));
        return 1;
    }
    if (run >= 0 && run < 64) gpusort_multi_get_last_times(&j->times[run]);
    return 0;
}

/* h[0] = keys of buffer k (n keys, GPU dev) out of order, h[1] = their sum, h[2] = their xor. */
static void stats_of(const job *j, int dev, const void *k, size_t n, unsigned long long h[3])
{
    CK(cudaSetDevice(dev));
    unsigned long long *d;
    CK(cudaMalloc(&d, 3 * sizeof *h));
    CK(cudaMemset(d, 0, 3 * sizeof *h));
    if (j->ks == 4) k_check<unsigned><<<1024, 256>>>((const unsigned *)k, n, d);
    else k_check<unsigned long long><<<1024, 256>>>((const unsigned long long *)k, n, d);
    CK(cudaMemcpy(h, d, 3 * sizeof *h, cudaMemcpyDeviceToHost));
    CK(cudaFree(d));
}

/* 0 if the pieces hold a sorted permutation of what k_fill made. */
static int check(job *j, unsigned long long want_sum, unsigned long long want_xor)
{
    unsigned long long sum = 0, x = 0, bad = 0, prev_last = 0;
    for (int g = 0; g < j->G; g++) {
        if (!j->n[g]) continue;
        unsigned long long h[3];
        stats_of(j, dev_of(j, g), j->piece[g], j->n[g], h);
        bad += h[0];
        sum += h[1];
        x ^= h[2];
        unsigned long long first = 0, last = 0;
        CK(cudaMemcpy(&first, j->piece[g], j->ks, cudaMemcpyDeviceToHost));
        CK(cudaMemcpy(&last, (char *)j->piece[g] + (j->n[g] - 1) * j->ks, j->ks,
                      cudaMemcpyDeviceToHost));
        if (g > 0 && first < prev_last) bad++;
        prev_last = last;
    }
    if (bad || sum != want_sum || x != want_xor) {
        fprintf(stderr, "bench_multi: G=%d: WRONG RESULT (%llu out of order, sum %s, xor %s)\n",
                j->G, bad, sum == want_sum ? "ok" : "differs", x == want_xor ? "ok" : "differs");
        return 1;
    }
    return 0;
}

static double median_of(double *v, int n) { return bench_median(v, n); }

int main(int argc, char **argv)
{
    size_t N = (size_t)1 << 28;
    gpusort_type type = GPUSORT_TYPE_U32;
    int gl[MAXG] = {1, 2, 4}, ng = 3, runs = BENCH_RUNS_DEFAULT, share = 0;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--n") && i + 1 < argc) N = (size_t)strtod(argv[++i], NULL);
        else if (!strcmp(argv[i], "--type") && i + 1 < argc) gpusort_type_parse(argv[++i], &type);
        else if (!strcmp(argv[i], "--runs") && i + 1 < argc) runs = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--share")) share = 1;
        else if (!strcmp(argv[i], "--gpus") && i + 1 < argc) {
            ng = 0;
            for (char *p = strtok(argv[++i], ","); p && ng < MAXG; p = strtok(NULL, ","))
                gl[ng++] = atoi(p);
        } else { fprintf(stderr, "bench_multi: unknown argument %s\n", argv[i]); return 2; }
    }
    if (runs < 1 || runs > 64) runs = BENCH_RUNS_DEFAULT;
    if (type != GPUSORT_TYPE_U32 && type != GPUSORT_TYPE_U64) {
        fprintf(stderr, "bench_multi: --type u32 or u64\n");
        return 2;
    }
    int devices = 0;
    CK(cudaGetDeviceCount(&devices));
    cudaDeviceProp prop;
    CK(cudaGetDeviceProperties(&prop, 0));
    const char *knob = getenv("GPUSORT_MULTI_EXCHANGE");
    const char *chunks = getenv("GPUSORT_MULTI_CHUNKS");
    printf("# bench_multi: %s x %d, N = %zu %s keys, %d runs (median), %s, exchange %s, chunks %s\n",
           prop.name, devices, N, gpusort_type_name(type), runs,
           share ? "all contexts on GPU 0 (--share)" : "one context per GPU",
           knob ? knob : "auto", chunks ? chunks : "auto");
    /* How the GPUs reach each other: peer access and, where they can, the NVLink rank. */
    for (int a = 0; a < devices && !share; a++)
        for (int b = a + 1; b < devices; b++) {
            int can = 0, rank = 0;
            cudaDeviceCanAccessPeer(&can, a, b);
            if (can) cudaDeviceGetP2PAttribute(&rank, cudaDevP2PAttrPerformanceRank, a, b);
            printf("# GPU %d <-> GPU %d: peer access %s (performance rank %d)\n", a, b,
                   can ? "yes" : "no", rank);
        }
    static const bench_column cols[] = {
        {"gpus", "%d"}, {"type", "%s"}, {"n", "%zu"}, {"exchange", "%s"},
        {"median_ms", "%.3f"}, {"min_ms", "%.3f"}, {"gkeys_s", "%.2f"}, {"speedup", "%.3f"},
        {"local_sort_ms", "%.3f"}, {"split_ms", "%.3f"}, {"exchange_ms", "%.3f"},
        {"merge_ms", "%.3f"}, {"moved_gb", "%.3f"}, {"exchange_gb_s", "%.1f"}, {"ok", "%s"}};
    const int ncols = (int)(sizeof cols / sizeof *cols);
    bench_csv_header(stdout, NULL, cols, ncols);
    double base_ms = 0;
    const size_t ks = gpusort_type_size(type);
    for (int gi = 0; gi < ng; gi++) {
        int G = gl[gi];
        if (G < 1 || G > MAXG || (!share && G > devices)) {
            printf("# G = %d: skipped (%d GPUs here)\n", G, devices);
            continue;
        }
        static job j;
        memset(&j, 0, sizeof j);
        j.G = G;
        j.share = share;
        j.type = type;
        j.ks = ks;
        size_t per_gpu_max = 0;
        for (int g = 0; g < G; g++) {
            j.first[g] = N * (size_t)g / (size_t)G;
            j.n[g] = N * (size_t)(g + 1) / (size_t)G - j.first[g];
            per_gpu_max = j.n[g] > per_gpu_max ? j.n[g] : per_gpu_max;
        }
        size_t need = (share ? N : per_gpu_max) * ks * 3 + ((size_t)1 << 30), fr = 0, tot = 0;
        CK(cudaSetDevice(0));
        CK(cudaMemGetInfo(&fr, &tot));
        if (need > fr) {
            printf("# G = %d: skipped (needs about %.1f GB per GPU, %.1f GB free)\n", G,
                   need / 1e9, fr / 1e9);
            continue;
        }
        unsigned long long want_sum = 0, want_xor = 0;
        for (int g = 0; g < G; g++) {
            CK(cudaSetDevice(dev_of(&j, g)));
            if (gpusort_ctx_create(&j.ctx[g], GPUSORT_BACKEND_CUDA, dev_of(&j, g))) {
                fprintf(stderr, "bench_multi: no context on GPU %d\n", dev_of(&j, g));
                return 2;
            }
            CK(cudaMalloc(&j.piece[g], j.n[g] * ks + 1));
            CK(cudaMalloc(&j.orig[g], j.n[g] * ks + 1));
            if (ks == 4) k_fill<unsigned><<<4096, 256>>>((unsigned *)j.orig[g], j.n[g], j.first[g]);
            else k_fill<unsigned long long><<<4096, 256>>>((unsigned long long *)j.orig[g],
                                                           j.n[g], j.first[g]);
            CK(cudaDeviceSynchronize());
        }
        /* The expected sum and xor: of the unsorted input. */
        restore(&j, 0);
        for (int g = 0; g < G; g++) {
            if (!j.n[g]) continue;
            unsigned long long h[3];
            stats_of(&j, dev_of(&j, g), j.orig[g], j.n[g], h);
            want_sum += h[1];
            want_xor ^= h[2];
        }
        bench_plan plan = bench_plan_default(runs);
        bench_contender c = {sort_once, &j, restore, &j};
        bench_stats st;
        if (bench_time(&plan, &c, 1, &st)) return 1;
        int ok = check(&j, want_sum, want_xor) == 0;
        /* The phases: each phase's median over the timed runs. */
        double ph[5][64];
        for (int r = 0; r < runs; r++) {
            ph[0][r] = j.times[r].local_sort_s * 1e3;
            ph[1][r] = j.times[r].split_s * 1e3;
            ph[2][r] = j.times[r].exchange_s * 1e3;
            ph[3][r] = j.times[r].merge_s * 1e3;
            ph[4][r] = (double)j.times[r].moved_bytes / 1e9;
        }
        double loc = median_of(ph[0], runs), spl = median_of(ph[1], runs),
               exc = median_of(ph[2], runs), mer = median_of(ph[3], runs),
               gb = median_of(ph[4], runs);
        if (G == 1 || base_ms == 0) base_ms = G == 1 ? st.median_ms : base_ms;
        bench_row row;
        bench_row_make(&row, cols, ncols, G, gpusort_type_name(type), N,
                       G == 1 ? "none" : (j.times[0].exchange ? j.times[0].exchange : "?"),
                       st.median_ms, st.min_ms, N / (st.median_ms * 1e-3) / 1e9,
                       base_ms > 0 ? base_ms / st.median_ms : 0.0, loc, spl, exc, mer, gb,
                       exc > 0 ? gb / (exc * 1e-3) : 0.0, ok ? "yes" : "NO");
        bench_csv_row(stdout, NULL, &row);
        fflush(stdout);
        for (int g = 0; g < G; g++) {
            gpusort_ctx_free(j.ctx[g]);
            CK(cudaSetDevice(dev_of(&j, g)));
            CK(cudaFree(j.piece[g]));
            CK(cudaFree(j.orig[g]));
        }
        if (!ok) return 1;
    }
    return 0;
}
