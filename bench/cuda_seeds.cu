/*
 * cuda_seeds.cu -- the "seeds" suite of bench_cuda: gpusort's bitonic, merge, rank and segmented
 * sorts against their baselines (the seeds' naive kernels, kept HERE only) and CUB, plus the seed
 * 000 table and the AUTO crossover measurements.
 *
 *   bench_cuda --suite seeds [--only bitonic,merge,rank,segmented,table,cross] [--runs N]
 *                            [--quick] [--csv FILE] [--json FILE]
 *
 * Method: data generated on the device (hash of the position and a seed); every timed call
 * sorts out of place from one of several rotating input buffers (together >= 256 MiB or 2
 * copies for huge n, so the 50 MB L2 never holds the input); one warm-up; the median of --runs
 * (default 7) timings, each taken with CUDA events around the call alone (bench/timing.h).
 * In-place baselines (the naive kernels) get their input copied before the start event. Peers
 * run in the same program on the same input. ratio = peer time / our time (> 1: we are
 * faster). Each of our results is checked once (order within segments + a multiset
 * fingerprint); a failed check is printed and makes the exit code 1.
 *
 * Rows:
 *   bitonic    u32 and f32 keys, 2^20 and 2^24, vs the seed 001 kernel (one launch per
 *              (stage, stride), float compare, power-of-two n);
 *   merge      u32 keys and u32/u32 pairs at 2^24 and 2^28 vs cub::DeviceMergeSort with a
 *              comparator (SortKeysCopy / SortPairsCopy);
 *   rank       u32 keys 2^12 and 2^16 (plus 2^5, the floor of one call, and 2^13) vs the seed 003
 *              kernel (one thread per key, each scanning all keys in device memory; ties broken
 *              by index so that it is a correct sort); first an empty kernel timed the same way
 *              (the floor of any timed launch: events around a call include its host time);
 *   segmented  2^26 u32 keys in segments of 32, 1024, 65536 and of mixed lengths (log-uniform in
 *              [1, 2^17]) vs cub::DeviceSegmentedSort::SortKeys;
 *   table      seed 000: 4096 unique u32 keys, 8..128 lists: the four multi-way merge variants,
 *              our merge sort and CPU std::sort; and the same at 2^20 (variants 0 and 2 only up to
 *              32 lists there: a single thread / a log-depth tree per output is seconds per run);
 *   cross      rank / bitonic / merge / radix / AUTO at n = 2^5 .. 2^22, u32, f32, u64 and f64
 *              keys alone and with u32 values, each output checked against the CPU backend:
 *              the crossover table of src/cuda/auto.cu.
 */
#include "bench_cuda.h"
#include "timing.h"
#include "gpusort.h"
#include "internal.h"
#include "seed_multiway.h"

#include <cub/cub.cuh>

#include <algorithm>
#include <cmath>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <string>
#include <vector>




namespace {

gpusort_ctx *ctx;
int runs = BENCH_RUNS_DEFAULT;
bool quick = false;
int failures = 0;
FILE *csv = NULL;
bench_json json;
cudaStream_t stream;
bench_clock clock_; /* CUDA events on `stream` */

/* ---- data ---- */

__host__ __device__ inline uint64_t mix(uint64_t x)
{
    x ^= x >> 30;
    x *= 0xbf58476d1ce4e5b9ull;
    x ^= x >> 27;
    x *= 0x94d049bb133111ebull;
    x ^= x >> 31;
    return x;
}

/* kind 0: random u32 bits; 1: f32 uniform in [0, 1) (the seed's float data, no NaN). */
__global__ void gen(uint32_t *out, size_t n, uint64_t seed, int kind)
{
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n;
         i += (size_t)gridDim.x * blockDim.x) {
        uint64_t x = mix(seed * 0x9e3779b97f4a7c15ull + i);
        if (kind == 1) {
            float f = (float)(x >> 40) * (1.0f / 16777216.0f);
            out[i] = __float_as_uint(f);
        } else {
            out[i] = (uint32_t)x;
        }
    }
}

unsigned grid(size_t n) { return (unsigned)std::min<size_t>((n + 255) / 256, 65536); }

/* Rotating inputs: several device copies of random data (different seeds). */
struct Inputs {
    std::vector<uint32_t *> bufs;
    size_t n;
    Inputs(size_t n_, int kind, uint64_t seed) : n(n_)
    {
        size_t bytes = n * 4;
        int count = (int)std::max<size_t>(2, std::min<size_t>(8, ((size_t)256 << 20) / bytes));
        if (bytes >= ((size_t)512 << 20)) count = 2;
        for (int i = 0; i < count; i++) {
            uint32_t *p;
            CK(cudaMalloc(&p, bytes));
            gen<<<grid(n), 256>>>(p, n, seed + i, kind);
            bufs.push_back(p);
        }
        CK(cudaDeviceSynchronize());
    }
    ~Inputs()
    {
        for (auto p : bufs) cudaFree(p);
    }
    uint32_t *operator[](int r) const { return bufs[r % bufs.size()]; }
};

/* ---- timing (bench/timing.h) ---- */

/* prep(r) runs before the start event (e.g. copy the input of an in-place sort), body(r) is
 * timed. One warm-up (r = 0), then `nruns` timings (r = 1 .. nruns); the median. */
template <typename P, typename B> double time_ms(int nruns, P prep, B body)
{
    const bench_contender c = bench_call(body, prep);
    const bench_plan plan = {&clock_, 1, nruns, 1, NULL};
    return bench_time_one(&plan, &c);
}
auto noprep = [](int) {};

void gk(gpusort_status s, const char *what)
{
    if (s != GPUSORT_STATUS_SUCCESS) {
        fprintf(stderr, "%s: %s (%s)\n", what, gpusort_status_string(s), gpusort_ctx_get_last_error(ctx));
        exit(2);
    }
}

/* ---- checks ---- */

/* Order violations inside segments (seg_len 0 = one segment) under the radix-key order of
 * `type` (u32 or f32), and an order-independent fingerprint of in and out. */
__global__ void check_kernel(const uint32_t *in, const uint32_t *out, size_t n,
                             const uint64_t *off, size_t nseg, int type, unsigned long long *st)
{
    unsigned long long bad = 0, fi = 0, fo = 0;
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n;
         i += (size_t)gridDim.x * blockDim.x) {
        fi += mix(in[i] + 77);
        fo += mix(out[i] + 77);
        if (i == 0) continue;
        bool boundary = false;
        if (off) {  /* is i the first element of a segment? */
            size_t lo = 0, hi = nseg;
            while (lo < hi) {
                size_t m = (lo + hi) / 2;
                if (off[m] <= i) lo = m + 1;
                else hi = m;
            }
            boundary = lo > 0 && off[lo - 1] == i;
        }
        if (!boundary && gpusort__radix32(out[i - 1], type, 0) > gpusort__radix32(out[i], type, 0))
            bad++;
    }
    atomicAdd(&st[0], bad);
    atomicAdd(&st[1], fi);
    atomicAdd(&st[2], fo);
}

bool check(const char *what, const uint32_t *in, const uint32_t *out, size_t n,
           const uint64_t *off = NULL, size_t nseg = 0, int type = GPUSORT_TYPE_U32)
{
    unsigned long long *st, h[3];
    CK(cudaMalloc(&st, 24));
    CK(cudaMemset(st, 0, 24));
    CK(cudaDeviceSynchronize());
    check_kernel<<<grid(n), 256>>>(in, out, n, off, nseg, type, st);
    CK(cudaMemcpy(h, st, 24, cudaMemcpyDeviceToHost));
    cudaFree(st);
    bool ok = h[0] == 0 && h[1] == h[2];
    if (!ok) {
        printf("CHECK FAILED: %s: %llu order violations, fingerprint %s\n", what, h[0],
               h[1] == h[2] ? "ok" : "differs");
        failures++;
    }
    return ok;
}

/* ---- output ---- */

/* The CSV columns (--csv, and the keys of --json): scripts and committed results read them. */
const bench_column columns[] = {
    {"suite", "%s"},        {"case", "%s"}, {"n", "%zu"},       {"ours_ms", "%.6f"},
    {"ours_gkeys_s", "%.4f"}, {"peer", "%s"}, {"peer_ms", "%.6f"}, {"ratio", "%.3f"},
};
const int ncolumns = (int)(sizeof columns / sizeof columns[0]);

void row(const char *suite, const char *cas, size_t n, double ours, const char *peer, double peer_ms)
{
    double ratio = ours > 0 && peer_ms > 0 ? peer_ms / ours : 0;
    printf("%-10s %-30s %11zu %10.4f %8.3f  %-22s %10.4f %8.2fx\n", suite, cas, n, ours,
           ours > 0 ? n / ours / 1e6 : 0.0, peer, peer_ms, ratio);
    fflush(stdout);
    bench_row r;
    bench_row_make(&r, columns, ncolumns, suite, cas, n, ours, ours > 0 ? n / ours / 1e6 : 0.0,
                   peer, peer_ms, ratio);
    bench_csv_row(csv, NULL, &r);
    bench_json_row(&json, &r);
}

void header(const char *title)
{
    printf("\n== %s\n%-10s %-30s %11s %10s %8s  %-22s %10s %9s\n", title, "suite", "case", "n",
           "ours_ms", "Gkeys/s", "peer", "peer_ms", "ratio");
}

/* ---- bitonic vs the seed's naive kernel ---- */

__global__ void seed_bitonic_step(float *d, unsigned stride, unsigned inner)
{
    unsigned flipper = inner >> 1;
    unsigned tid = blockIdx.x * blockDim.x + threadIdx.x;
    unsigned other = tid ^ flipper;
    if (tid < other) {
        float a = d[tid], b = d[other];
        bool up = (tid & stride) == 0;
        if (up ? a > b : a < b) {
            d[tid] = b;
            d[other] = a;
        }
    }
}

void seed_bitonic(float *d, size_t n)
{
    unsigned blocks = (unsigned)(n / 256 ? n / 256 : 1), threads = n < 256 ? (unsigned)n : 256;
    for (unsigned stride = 2; stride <= n; stride <<= 1)
        for (unsigned inner = stride; inner >= 2; inner >>= 1)
            seed_bitonic_step<<<blocks, threads, 0, stream>>>(d, stride, inner);
}

void bench_bitonic()
{
    header("bitonic: gpusort (any n, stable) vs the seed's one-launch-per-step kernel");
    for (int lg : {20, 24}) {
        size_t n = (size_t)1 << lg;
        for (int kind : {0, 1}) {
            Inputs in(n, kind, 100 + lg);
            uint32_t *out, *work;
            CK(cudaMalloc(&out, n * 4));
            CK(cudaMalloc(&work, n * 4));
            gpusort_type ty = kind ? GPUSORT_TYPE_F32 : GPUSORT_TYPE_U32;
            double ours = time_ms(runs, noprep, [&](int r) {
                gk(gpusort_sort(ctx, ty, in[r], n, out, GPUSORT_ORDER_ASC, GPUSORT_ALGORITHM_BITONIC, 0),
                   "bitonic");
            });
            CK(cudaDeviceSynchronize());
            check("bitonic", in[(runs) % in.bufs.size()], out, n, NULL, 0, ty);
            /* The seed's kernel compares floats; on u32 data it does the same work. */
            double naive = time_ms(
                runs,
                [&](int r) { CK(cudaMemcpyAsync(work, in[r], n * 4, cudaMemcpyDeviceToDevice, stream)); },
                [&](int) { seed_bitonic((float *)work, n); });
            char cas[64];
            snprintf(cas, sizeof cas, "%s keys 2^%d", kind ? "f32" : "u32", lg);
            row("bitonic", cas, n, ours, "seed001-naive", naive);
            cudaFree(out);
            cudaFree(work);
        }
    }
}

/* ---- merge vs cub::DeviceMergeSort ---- */

struct LessU32 {
    __device__ bool operator()(const uint32_t &a, const uint32_t &b) const { return a < b; }
};

void bench_merge()
{
    header("merge: gpusort merge sort vs cub::DeviceMergeSort (comparator)");
    std::vector<int> sizes = {24, 28};
    if (quick) sizes = {24};
    for (int lg : sizes) {
        size_t n = (size_t)1 << lg;
        Inputs in(n, 0, 200 + lg);
        uint32_t *out, *vin, *vout, *cout_, *cvout;
        CK(cudaMalloc(&out, n * 4));
        CK(cudaMalloc(&vin, n * 4));
        CK(cudaMalloc(&vout, n * 4));
        CK(cudaMalloc(&cout_, n * 4));
        CK(cudaMalloc(&cvout, n * 4));
        gen<<<grid(n), 256>>>(vin, n, 999, 0);
        /* keys */
        double ours = time_ms(runs, noprep, [&](int r) {
            gk(gpusort_sort(ctx, GPUSORT_TYPE_U32, in[r], n, out, GPUSORT_ORDER_ASC, GPUSORT_ALGORITHM_MERGE, 0),
               "merge");
        });
        CK(cudaDeviceSynchronize());
        check("merge keys", in[runs % in.bufs.size()], out, n);
        size_t tb = 0, tb2 = 0;
        CK(cub::DeviceMergeSort::SortKeysCopy(NULL, tb, in[0], cout_, (int64_t)n, LessU32(), stream));
        CK(cub::DeviceMergeSort::SortPairsCopy(NULL, tb2, in[0], vin, cout_, cvout, (int64_t)n, LessU32(), stream));
        tb = std::max(tb, tb2);
        void *temp;
        CK(cudaMalloc(&temp, tb));
        double cub = time_ms(runs, noprep, [&](int r) {
            CK(cub::DeviceMergeSort::SortKeysCopy(temp, tb, in[r], cout_, (int64_t)n, LessU32(), stream));
        });
        char cas[64];
        snprintf(cas, sizeof cas, "u32 keys 2^%d", lg);
        row("merge", cas, n, ours, "cub::DeviceMergeSort", cub);
        /* pairs */
        ours = time_ms(runs, noprep, [&](int r) {
            gk(gpusort_sort_pairs(ctx, GPUSORT_TYPE_U32, GPUSORT_TYPE_U32, in[r], vin, n, out, vout,
                                  GPUSORT_ORDER_ASC, GPUSORT_ALGORITHM_MERGE, 0),
               "merge pairs");
        });
        cub = time_ms(runs, noprep, [&](int r) {
            CK(cub::DeviceMergeSort::SortPairsCopy(temp, tb, in[r], vin, cout_, cvout, (int64_t)n,
                                                    LessU32(), stream));
        });
        snprintf(cas, sizeof cas, "u32/u32 pairs 2^%d", lg);
        row("merge", cas, n, ours, "cub::DeviceMergeSort", cub);
        cudaFree(temp);
        cudaFree(out);
        cudaFree(vin);
        cudaFree(vout);
        cudaFree(cout_);
        cudaFree(cvout);
    }
}

/* ---- rank vs the seed's one-thread-per-key kernel ---- */

__global__ void seed_rank(const uint32_t *in, uint32_t *out, unsigned n)
{
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    uint32_t x = in[i];
    unsigned r = 0;
    for (unsigned j = 0; j < n; j++) {
        uint32_t y = in[j];
        r += y < x || (y == x && j < i);
    }
    out[r] = x;
}

__global__ void empty_kernel() {}
__global__ void copy_kernel(const uint32_t *in, uint32_t *out) { out[threadIdx.x] = in[threadIdx.x] + 1; }

/* The SM clock right after an idle gap (as in the timed calls): 20000 cycles of clock64
 * against the global timer. */
__global__ void clock_probe(unsigned long long *out)
{
    unsigned long long t0, t1;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t0));
    const long long c0 = clock64();
    long long c1 = c0;
    while (c1 - c0 < 20000) c1 = clock64();
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t1));
    out[0] = (unsigned long long)(c1 - c0);
    out[1] = t1 - t0;
}

void bench_rank()
{
    header("rank: gpusort rank sort vs the seed's one-thread-per-key kernel");
    {
        /* The floor of any timed call: one empty kernel launched and timed the same way (the
         * "ours" column; peer = the same, for the format). */
        double e = time_ms(runs, noprep, [&](int) { empty_kernel<<<1, 32, 0, stream>>>(); });
        row("rank", "floor: empty kernel", 0, e, "empty kernel", e);
        double e2 = time_ms(runs, noprep, [&](int) { empty_kernel<<<128, 1024, 0, stream>>>(); });
        row("rank", "floor: empty kernel 128x1024", 0, e2, "empty kernel", e);
        uint32_t *cb;
        CK(cudaMalloc(&cb, 256));
        CK(cudaMemset(cb, 0, 256));
        double e3 = time_ms(runs, noprep, [&](int) { copy_kernel<<<1, 32, 0, stream>>>(cb, cb + 32); });
        row("rank", "floor: load+store kernel", 0, e3, "empty kernel", e);
        cudaFree(cb);
        unsigned long long *dp, h[2];
        CK(cudaMalloc(&dp, 16));
        std::vector<double> mhz;
        double pt = time_ms(runs, noprep, [&](int) { clock_probe<<<1, 32, 0, stream>>>(dp); });
        for (int r = 0; r < runs; r++) {
            clock_probe<<<1, 32, 0, stream>>>(dp);
            CK(cudaMemcpyAsync(h, dp, 16, cudaMemcpyDeviceToHost, stream));
            CK(cudaStreamSynchronize(stream));
            mhz.push_back(h[1] ? 1e3 * (double)h[0] / (double)h[1] : 0);
        }
        cudaFree(dp);
        char cas[64];
        snprintf(cas, sizeof cas, "floor: SM clock %.0f MHz",
                 bench_median(mhz.data(), (int)mhz.size()));
        row("rank", cas, 0, pt, "20000-cycle kernel", pt);
    }
    /* 2^12 and 2^16 are the issue's rows; 2^5 shows the floor of one call (launch and API),
     * 2^13 the largest n of the one-launch path (rank.cu). */
    for (int lg : {5, 12, 13, 16}) {
        size_t n = (size_t)1 << lg;
        Inputs in(n, 0, 300 + lg);
        uint32_t *out, *out2;
        CK(cudaMalloc(&out, n * 4));
        CK(cudaMalloc(&out2, n * 4));
        double ours = time_ms(runs, noprep, [&](int r) {
            gk(gpusort_sort(ctx, GPUSORT_TYPE_U32, in[r], n, out, GPUSORT_ORDER_ASC, GPUSORT_ALGORITHM_RANK, 0),
               "rank");
        });
        CK(cudaDeviceSynchronize());
        check("rank", in[runs % in.bufs.size()], out, n);
        double naive = time_ms(runs, noprep, [&](int r) {
            seed_rank<<<(unsigned)((n + 255) / 256), 256, 0, stream>>>(in[r], out2, (unsigned)n);
        });
        char cas[64];
        snprintf(cas, sizeof cas, "u32 keys 2^%d", lg);
        row("rank", cas, n, ours, "seed003-naive", naive);
        cudaFree(out);
        cudaFree(out2);
    }
}

/* ---- segmented vs cub::DeviceSegmentedSort ---- */

void bench_segmented()
{
    header("segmented: gpusort_segmented_sort vs cub::DeviceSegmentedSort::SortKeys, 2^26 u32 keys");
    const size_t n = (size_t)1 << (quick ? 24 : 26);
    Inputs in(n, 0, 400);
    uint32_t *out, *cout_;
    CK(cudaMalloc(&out, n * 4));
    CK(cudaMalloc(&cout_, n * 4));
    for (int mode : {32, 1024, 65536, 0}) {
        std::vector<uint64_t> off;
        off.push_back(0);
        if (mode) {
            for (size_t p = mode; p <= n; p += mode) off.push_back(p);
        } else {
            uint64_t x = 12345, p = 0;
            while (p < n) {
                x = mix(x);
                double u = (double)(x >> 11) / 9007199254740992.0;
                uint64_t len = (uint64_t)(1.0 * std::pow(2.0, 17.0 * u));  /* log-uniform [1, 2^17] */
                p = std::min<uint64_t>(n, p + len);
                off.push_back(p);
            }
        }
        size_t nseg = off.size() - 1;
        std::vector<int> ioff(off.begin(), off.end());
        uint64_t *doff;
        int *dioff;
        CK(cudaMalloc(&doff, off.size() * 8));
        CK(cudaMalloc(&dioff, off.size() * 4));
        CK(cudaMemcpy(doff, off.data(), off.size() * 8, cudaMemcpyHostToDevice));
        CK(cudaMemcpy(dioff, ioff.data(), off.size() * 4, cudaMemcpyHostToDevice));
        double ours = time_ms(runs, noprep, [&](int r) {
            gk(gpusort_sort_segmented(ctx, GPUSORT_TYPE_U32, GPUSORT_TYPE_NONE, in[r], NULL, n,
                                      doff, nseg, out, NULL, GPUSORT_ORDER_ASC,
                                      GPUSORT_ALGORITHM_AUTO, 0), "segmented");
        });
        CK(cudaDeviceSynchronize());
        check("segmented", in[runs % in.bufs.size()], out, n, doff, nseg);
        size_t tb = 0;
        CK(cub::DeviceSegmentedSort::SortKeys(NULL, tb, in[0], cout_, (int)n, (int)nseg, dioff,
                                               dioff + 1, stream));
        void *temp;
        CK(cudaMalloc(&temp, tb));
        double cub = time_ms(runs, noprep, [&](int r) {
            CK(cub::DeviceSegmentedSort::SortKeys(temp, tb, in[r], cout_, (int)n, (int)nseg, dioff,
                                                   dioff + 1, stream));
        });
        char cas[64];
        if (mode) snprintf(cas, sizeof cas, "segments of %d (%zu)", mode, nseg);
        else snprintf(cas, sizeof cas, "mixed 1..2^17 (%zu segs)", nseg);
        row("segmented", cas, n, ours, "cub::DeviceSegmentedSort", cub);
        cudaFree(temp);
        cudaFree(doff);
        cudaFree(dioff);
    }
    cudaFree(out);
    cudaFree(cout_);
}

/* ---- seed 000 table ---- */

void bench_table()
{
    static const char *names[4] = {"single-thread", "atomicMin", "pairwise-reduction",
                                   "blocked-reduction"};
    for (int lg : {12, 20}) {
        size_t n = (size_t)1 << lg;
        int nruns = lg == 12 ? runs : 3;
        char title[160];
        snprintf(title, sizeof title,
                 "seed 000 table: %zu unique u32 keys, one block of L threads (ms, median of %d)", n,
                 nruns);
        header(title);
        /* unique keys 0..n-1, shuffled (as the seed) */
        std::vector<uint32_t> h(n);
        for (size_t i = 0; i < n; i++) h[i] = (uint32_t)i;
        uint64_t x = 42;
        for (size_t i = 0; i < n; i++) {
            x = mix(x);
            std::swap(h[i], h[x % n]);
        }
        uint32_t *din, *dout;
        void *mw_scratch;
        CK(cudaMalloc(&din, n * 4));
        CK(cudaMalloc(&dout, n * 4));
        CK(cudaMalloc(&mw_scratch, seed_multiway_scratch_bytes(n)));
        CK(cudaMemcpy(din, h.data(), n * 4, cudaMemcpyHostToDevice));
        /* CPU std::sort: wall clock, a fresh copy before each run, no warm-up */
        std::vector<uint32_t> c;
        auto copy = [&](int) { c = h; };
        auto cpu_sort = [&](int) { std::sort(c.begin(), c.end()); };
        const bench_contender cc = bench_call(cpu_sort, copy);
        bench_plan cplan = bench_plan_default(nruns);
        cplan.warmup = 0;
        double cpu = bench_time_one(&cplan, &cc);
        double ours = time_ms(nruns, noprep, [&](int) {
            gk(gpusort_sort(ctx, GPUSORT_TYPE_U32, din, n, dout, GPUSORT_ORDER_ASC, GPUSORT_ALGORITHM_MERGE, 0),
               "merge");
        });
        row("table", "gpusort merge (any L)", n, ours, "cpu std::sort", cpu);
        for (int L : {8, 16, 32, 64, 128})
            for (int v = 0; v < 4; v++) {
                if (lg > 12 && (v == 0 || v == 2) && L > 32) continue;
                double ms = time_ms(nruns, noprep, [&](int) {
                    CK(seed_multiway_sort((const uint32_t *)din, (uint32_t *)dout, n,
                                           GPUSORT_TYPE_U32, v, L, mw_scratch, 0));
                });
                CK(cudaDeviceSynchronize());
                check(names[v], din, dout, n);
                char cas[64];
                snprintf(cas, sizeof cas, "L=%d %s", L, names[v]);
                row("table", cas, n, ms, "cpu std::sort", cpu);
            }
        cudaFree(din);
        cudaFree(dout);
        cudaFree(mw_scratch);
    }
}

/* ---- crossovers for AUTO ---- */

/* Random keys of `type` in a device buffer of n * size bytes: u32/u64 random bits, f32/f64
 * uniform in [-1, 1) (no NaN: the bench times the common case). */
__global__ void gen_typed(void *out, size_t n, uint64_t seed, int type)
{
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n;
         i += (size_t)gridDim.x * blockDim.x) {
        uint64_t x = mix(seed * 0x9e3779b97f4a7c15ull + i);
        switch (type) {
        case GPUSORT_TYPE_F32: ((float *)out)[i] = (float)(x >> 40) * (1.0f / 8388608.0f) - 1.0f; break;
        case GPUSORT_TYPE_F64: ((double *)out)[i] = (double)(x >> 11) * (1.0 / 4503599627370496.0) - 1.0; break;
        case GPUSORT_TYPE_U64: ((uint64_t *)out)[i] = x; break;
        default: ((uint32_t *)out)[i] = (uint32_t)x; break;
        }
    }
}

/* Every algorithm (rank, bitonic, merge, radix) and AUTO on device data of one key type, keys
 * alone and with u32 values, n = 2^5 .. 2^22: the table of src/cuda/auto.cu is built
 * from. Each algorithm's output is compared once, byte for byte, with the CPU backend's
 * stable sort of the same input (keys and values). peer = radix; ratio > 1: faster than radix. */
void bench_cross()
{
    static const gpusort_algorithm algs[] = {GPUSORT_ALGORITHM_RANK, GPUSORT_ALGORITHM_BITONIC,
                                             GPUSORT_ALGORITHM_MERGE, GPUSORT_ALGORITHM_RADIX,
                                             GPUSORT_ALGORITHM_AUTO};
    static const gpusort_type types[] = {GPUSORT_TYPE_U32, GPUSORT_TYPE_F32, GPUSORT_TYPE_U64,
                                         GPUSORT_TYPE_F64};
    gpusort_ctx *cpu;
    gk(gpusort_ctx_create(&cpu, GPUSORT_BACKEND_CPU, -1), "cpu context");
    header("crossovers (keys; pairs = keys + u32 values), device pointers; peer = radix");
    for (gpusort_type t : types)
    for (int pairs = 0; pairs < 2; pairs++)
        for (int lg = 5; lg <= 22; lg += (lg < 12 ? 1 : 2)) {
            const size_t n = (size_t)1 << lg, ks = gpusort_type_size(t);
            const int R = (int)std::max<size_t>(2, std::min<size_t>(8, ((size_t)256 << 20) / (n * ks)));
            std::vector<void *> in(R);
            for (int r = 0; r < R; r++) {
                CK(cudaMalloc(&in[r], n * ks));
                gen_typed<<<grid(n), 256>>>(in[r], n, 500 + lg * 16 + r, (int)t);
            }
            void *out;
            uint32_t *vin, *vout;
            CK(cudaMalloc(&out, n * ks));
            CK(cudaMalloc(&vin, n * 4));
            CK(cudaMalloc(&vout, n * 4));
            gen_typed<<<grid(n), 256>>>(vin, n, 99, GPUSORT_TYPE_U32);
            CK(cudaDeviceSynchronize());
            /* the reference: the CPU backend's stable sort of input 0 */
            std::vector<char> hk(n * ks), hko(n * ks), rk(n * ks);
            std::vector<uint32_t> hv(n), hvo(n), rv(n);
            CK(cudaMemcpy(hk.data(), in[0], n * ks, cudaMemcpyDeviceToHost));
            CK(cudaMemcpy(hv.data(), vin, n * 4, cudaMemcpyDeviceToHost));
            if (pairs)
                gk(gpusort_sort_pairs(cpu, t, GPUSORT_TYPE_U32, hk.data(), hv.data(), n, rk.data(), rv.data(),
                                      GPUSORT_ORDER_ASC, GPUSORT_ALGORITHM_AUTO, 0), "cpu reference");
            else
                gk(gpusort_sort(cpu, t, hk.data(), n, rk.data(), GPUSORT_ORDER_ASC, GPUSORT_ALGORITHM_AUTO, 0),
                   "cpu reference");
            auto call = [&](gpusort_algorithm a, int r) {
                return pairs ? gpusort_sort_pairs(ctx, t, GPUSORT_TYPE_U32, in[r % R], vin, n, out, vout,
                                                  GPUSORT_ORDER_ASC, a, 0)
                             : gpusort_sort(ctx, t, in[r % R], n, out, GPUSORT_ORDER_ASC, a, 0);
            };
            double ms[5];
            for (int a = 0; a < 5; a++) {
                ms[a] = -1;
                /* an algorithm may answer UNSUPPORTED (rank above its n limit) */
                gpusort_status s = call(algs[a], 0);
                CK(cudaDeviceSynchronize());
                if (s != GPUSORT_STATUS_SUCCESS) continue;
                CK(cudaMemcpy(hko.data(), out, n * ks, cudaMemcpyDeviceToHost));
                bool ok = memcmp(hko.data(), rk.data(), n * ks) == 0;
                if (pairs) {
                    CK(cudaMemcpy(hvo.data(), vout, n * 4, cudaMemcpyDeviceToHost));
                    ok = ok && memcmp(hvo.data(), rv.data(), n * 4) == 0;
                }
                if (!ok) {
                    printf("CHECK FAILED: cross %s %s %s n=%zu differs from the CPU backend\n",
                           gpusort_type_name(t), pairs ? "pairs" : "keys", gpusort_algorithm_name(algs[a]), n);
                    failures++;
                }
                ms[a] = time_ms(runs, noprep, [&](int r) { call(algs[a], r); });
            }
            for (int a = 0; a < 5; a++) {
                char cas[64];
                snprintf(cas, sizeof cas, "%s %s %s 2^%d", gpusort_type_name(t), pairs ? "pairs" : "keys",
                         gpusort_algorithm_name(algs[a]), lg);
                if (ms[a] >= 0) row("cross", cas, n, ms[a], "radix", ms[3]);
            }
            for (int r = 0; r < R; r++) cudaFree(in[r]);
            cudaFree(out);
            cudaFree(vin);
            cudaFree(vout);
        }
    gpusort_ctx_free(cpu);
}

}  // namespace

int bench_cuda_seeds(int argc, char **argv)
{
    std::string only = "bitonic,merge,rank,segmented,table,cross";
    const char *csv_path = NULL, *json_path = NULL;
    for (int i = 0; i < argc; i++) {
        std::string a = argv[i];
        if (a == "--only" && i + 1 < argc) only = argv[++i];
        else if (a == "--runs" && i + 1 < argc) runs = atoi(argv[++i]);
        else if (a == "--quick") quick = true;
        else if (a == "--csv" && i + 1 < argc) csv_path = argv[++i];
        else if (a == "--json" && i + 1 < argc) json_path = argv[++i];
        else if (a == "-h" || a == "--help") {
            printf("bench_cuda --suite seeds [--only bitonic,merge,rank,segmented,table,cross]\n"
                   "                        [--runs N (default 7)] [--quick] [--csv FILE]\n"
                   "                        [--json FILE]\n");
            return 0;
        } else {
            fprintf(stderr, "bench_cuda --suite seeds: unknown option %s\n", a.c_str());
            return 2;
        }
    }
    if (runs < 1) runs = 1;
    gpusort_status s = gpusort_ctx_create(&ctx, GPUSORT_BACKEND_CUDA, 0);
    if (s != GPUSORT_STATUS_SUCCESS) {
        fprintf(stderr, "bench_cuda --suite seeds: no CUDA context: %s\n", gpusort_status_string(s));
        return 77;
    }
    CK(cudaStreamCreate(&stream));
    bench_clock_cuda_init(&clock_, stream);
    gk(gpusort_ctx_set_stream(ctx, stream), "set_stream");
    gpusort_device_info info;
    gpusort_device_get_info(GPUSORT_BACKEND_CUDA, 0, &info);
    printf("seeds suite on %s, runs %d (median), %s\n", info.name, runs, quick ? "quick" : "full");
    if (csv_path) {
        csv = fopen(csv_path, "w");
        if (!csv) {
            perror(csv_path);
            return 2;
        }
        bench_csv_header(csv, NULL, columns, ncolumns);
    }
    FILE *json_file = json_path ? fopen(json_path, "w") : NULL;
    if (json_path && !json_file) {
        perror(json_path);
        return 2;
    }
    char meta[400];
    snprintf(meta, sizeof meta, "\"device\": \"%s\", \"runs\": %d", info.name, runs);
    bench_json_begin(&json, json_file, meta);
    auto want = [&](const char *w) { return ("," + only + ",").find("," + std::string(w) + ",") != std::string::npos; };
    if (want("bitonic")) bench_bitonic();
    if (want("merge")) bench_merge();
    if (want("rank")) bench_rank();
    if (want("segmented")) bench_segmented();
    if (want("table")) bench_table();
    if (want("cross")) bench_cross();
    if (csv) fclose(csv);
    bench_json_end(&json);
    if (json_file) fclose(json_file);
    gpusort_ctx_set_stream(ctx, NULL);
    gpusort_ctx_free(ctx);
    bench_clock_cuda_free(&clock_);
    cudaStreamDestroy(stream);
    printf("\nseeds suite: %s\n", failures ? "CHECK FAILURES" : "all checks passed");
    return failures ? 1 : 0;
}
