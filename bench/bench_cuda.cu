/*
 * bench_cuda.cu -- the CUDA benchmark: gpusort's radix sort, reduce and host-data path against
 * NVIDIA's CUB and Thrust (peers only: the library never uses them), in one run, on the same data.
 *
 *   bench_cuda [--suite radix|reduce|host|seeds|all] [--quick] [--csv FILE] [--json FILE]
 *              [--runs N] [--max-log2 K] [--seed S] [--only OP:TYPE:LOG2N] [--sweep SIZES]
 *              [--floats bits|unit|signed]
 *
 * --sweep SIZES (e.g. 2^16..2^28, 16..28:2,30): instead of the headline and size rows, the radix
 * suite times every headline variant on uniform keys at each size and the reduce suite every
 * type: one CSV row per (variant, n), the data of a throughput-vs-n plot against CUB and Thrust.
 *
 * Method (bench/results/cuda-*.md hold the results):
 *   - data is generated on the device (a counter-based hash, seed printed); distributions
 *     uniform (random bits) and bit-entropy 0.544 / 0.201 (the AND of 3 / 5 random words);
 *   - every peer sorts the same input buffers; input buffers rotate (R copies, together >= 256 MiB
 *     where n is small) so that no run finds its input in the 50 MB L2;
 *   - one warm-up, then the median of --runs (default 7) runs, each timed with CUDA events
 *     around the call alone (bench/timing.h); contenders of one row in alternation where the
 *     order mattered (reduce, host);
 *   - our output is checked on the device: ordered in gpusort's order (src/keys.h) and a
 *     permutation of the input (keys: order + a multiset fingerprint; pairs/argsort with values
 *     0..n-1: keys_out[i] == keys_in[values_out[i]], ties in increasing index order (stability),
 *     and the sum and sum of squares of the indices);
 *   - keys/s = n / time; effective GB/s = n * (K + V) * 2 / time (one read and one write);
 *     ratio = CUB's time / ours (> 1: we are faster);
 *   - scratch: device memory our fresh context allocated for the call (cudaMemGetInfo before and
 *     after) against CUB's temp_storage_bytes.
 * Reduce: ours returns the result to the host, so CUB is timed as DeviceReduce::Sum plus the copy
 * of its result to the host (column cub_ms); CUB's kernel alone is column cub_kernel_ms.
 * Host: 1 GiB of u32 keys, and 1 GiB of u64 keys + u32 values, in pinned and in pageable
 * memory and through gpusort__sort_stream's callbacks, sorted end to end (src/hostdata.c)
 * against a pinned copy in plus copy out of the same bytes (same process, alternated); the
 * parts (copies alone, device sort); and the CPU/GPU crossover for host data.
 */
#include "bench_cuda.h"
#include "gpusort.h"
#include "internal.h"
#include "hoststream.h"
#include "timing.h"

#include <cub/cub.cuh>
#include <thrust/device_ptr.h>
#include <thrust/execution_policy.h>
#include <thrust/gather.h>
#include <thrust/sort.h>

#include <algorithm>
#include <math.h>
#include <functional>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <string>
#include <vector>

#define GK(x)                                                                                    \
    do {                                                                                         \
        gpusort_status s_ = (x);                                                                 \
        if (s_ != GPUSORT_STATUS_SUCCESS) {                                                      \
            fprintf(stderr, "%s:%d: %s: %s (%s)\n", __FILE__, __LINE__, #x,                      \
                    gpusort_status_string(s_), gpusort_ctx_get_last_error(g_ctx));                   \
            exit(2);                                                                             \
        }                                                                                        \
    } while (0)

static gpusort_ctx *g_ctx;
static cudaStream_t g_stream; /* every peer runs on it; our contexts get it with set_stream */
static std::string g_only;    /* --only OP:TYPE:LOG2: one radix configuration (for ncu) */
static int g_runs = 7;
static bool g_quick = false;
static int g_max_log2 = 30;
static uint64_t g_seed = 0x9e3779b97f4a7c15ull;
static std::vector<int> g_sweep; /* --sweep: log2 of the sizes of the radix and reduce suites */
static int g_floats = 0;         /* --floats: radix suite float keys 0 bits, 1 unit, 2 signed */
static int g_failures = 0;
static bench_clock g_clock;   /* CUDA events on g_stream: every GPU timing */

/* ---- results ---- */

struct Row {
    std::string suite, op, type, dist;
    size_t n;
    double ours_ms, cub_ms, thrust_ms, cub_kernel_ms;
    double gkeys, gbps, ratio_cub, ratio_thrust;
    long long ours_scratch, cub_scratch;
    std::string check;
    std::string algorithm = "-";  /* what gpusort's AUTO ran (gpusort_ctx_last_algorithm) */
};
static std::vector<Row> g_rows;

/* ---- data on the device ---- */

__device__ __host__ inline uint64_t mix64(uint64_t x)
{
    x ^= x >> 30; x *= 0xbf58476d1ce4e5b9ull;
    x ^= x >> 27; x *= 0x94d049bb133111ebull;
    x ^= x >> 31;
    return x;
}

/* and_k = 1: uniform bits; 3: entropy 0.544; 5: entropy 0.201. floats (float T, --floats):
 * 0 the bits as they come (1 in 256 a NaN); 1 uniform in [0, 1) from the top 24 / 53 bits, as
 * torch.rand makes them; 2 the same with a random sign (no NaN, no infinity). */
template <typename T>
__global__ void gen_kernel(T *out, size_t n, uint64_t seed, int and_k, int floats)
{
    const bool is_float = (T)0.5 != (T)0;
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n;
         i += (size_t)gridDim.x * blockDim.x) {
        uint64_t x = ~0ull;
        for (int k = 0; k < and_k; k++) x &= mix64(seed + i * 0x632be59bd9b4e019ull + k * 0x9e3779b97f4a7c15ull);
        if (is_float && floats) {
            const T sign = floats == 2 && (x & 1) ? (T)-1 : (T)1;
            out[i] = sizeof(T) == 4 ? sign * (T)((float)(x >> 40) * 0x1.0p-24f)
                                    : sign * (T)((double)(x >> 11) * 0x1.0p-53);
        } else if (sizeof(T) == 4) {
            uint32_t y = (uint32_t)x;
            memcpy(&out[i], &y, 4);
        } else {
            memcpy(&out[i], &x, 8);
        }
    }
}

/* Reduce data: finite values (floats in [0, 1)). */
template <typename T>
__global__ void gen_reduce_kernel(T *out, size_t n, uint64_t seed)
{
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n;
         i += (size_t)gridDim.x * blockDim.x) {
        uint64_t x = mix64(seed + i * 0x632be59bd9b4e019ull);
        out[i] = (T)x;
    }
}
template <>
__global__ void gen_reduce_kernel<float>(float *out, size_t n, uint64_t seed)
{
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n;
         i += (size_t)gridDim.x * blockDim.x)
        out[i] = (float)((mix64(seed + i * 0x632be59bd9b4e019ull) >> 40) * (1.0 / 16777216.0));
}
template <>
__global__ void gen_reduce_kernel<double>(double *out, size_t n, uint64_t seed)
{
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n;
         i += (size_t)gridDim.x * blockDim.x)
        out[i] = (double)(mix64(seed + i * 0x632be59bd9b4e019ull) >> 11) * (1.0 / 9007199254740992.0);
}

template <typename V>
__global__ void iota_kernel(V *out, size_t n)
{
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n;
         i += (size_t)gridDim.x * blockDim.x)
        out[i] = (V)i;
}

static unsigned grid_for(size_t n) { return (unsigned)std::min<size_t>((n + 255) / 256, 65536); }

/* ---- checks on the device ---- */

template <typename T> struct Radix;
template <> struct Radix<uint32_t> { static __device__ uint32_t f(uint32_t b) { return b; } };
template <> struct Radix<int32_t> { static __device__ uint32_t f(int32_t b) { return gpusort__radix_i32((uint32_t)b); } };
template <> struct Radix<float> { static __device__ uint32_t f(float b) { return gpusort__radix_f32(__float_as_uint(b)); } };
template <> struct Radix<uint64_t> { static __device__ uint64_t f(uint64_t b) { return b; } };
template <> struct Radix<int64_t> { static __device__ uint64_t f(int64_t b) { return gpusort__radix_i64((uint64_t)b); } };
template <> struct Radix<double> { static __device__ uint64_t f(double b) { return gpusort__radix_f64((uint64_t)__double_as_longlong(b)); } };

template <typename T> __device__ uint64_t bits_of(T x)
{
    uint64_t b = 0;
    memcpy(&b, &x, sizeof(T));
    return b;
}

/* stats[0] += order violations, stats[1] += fingerprint of keys_in, stats[2] += of keys_out. */
template <typename T>
__global__ void check_keys_kernel(const T *in, const T *out, size_t n, unsigned long long *stats)
{
    unsigned long long bad = 0, fin = 0, fout = 0;
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n;
         i += (size_t)gridDim.x * blockDim.x) {
        if (i > 0 && Radix<T>::f(out[i - 1]) > Radix<T>::f(out[i])) bad++;
        fin += mix64(bits_of(in[i]) + 12345);
        fout += mix64(bits_of(out[i]) + 12345);
    }
    atomicAdd(&stats[0], bad);
    atomicAdd(&stats[1], fin);
    atomicAdd(&stats[2], fout);
}

/* Values are indices. stats[0] += violations; stats[1] += sum of idx; stats[2] += sum of idx^2. */
template <typename T, typename V>
__global__ void check_pairs_kernel(const T *in, const T *out, const V *idx, size_t n,
                                   unsigned long long *stats)
{
    unsigned long long bad = 0, s1 = 0, s2 = 0;
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n;
         i += (size_t)gridDim.x * blockDim.x) {
        const size_t j = (size_t)idx[i];
        if (j >= n || bits_of(in[j]) != bits_of(out[i])) { bad++; continue; }
        if (i > 0) {
            const auto a = Radix<T>::f(out[i - 1]), b = Radix<T>::f(out[i]);
            if (a > b || (a == b && idx[i - 1] >= idx[i])) bad++;
        }
        s1 += j;
        s2 += (unsigned long long)j * j;
    }
    atomicAdd(&stats[0], bad);
    atomicAdd(&stats[1], s1);
    atomicAdd(&stats[2], s2);
}

/* ---- timing (bench/timing.h) ---- */

/* One warm-up, then the median of g_runs, CUDA events around each call; f(run) runs on rotating
 * input run % R: run 0 is the warm-up, the timed runs are 1..g_runs. */
template <class F> static double time_median(F f)
{
    auto run = [&](int r) { f((size_t)r); };
    const bench_contender c = bench_call(run);
    const bench_plan plan = {&g_clock, 1, g_runs, 1, NULL};
    return bench_time_one(&plan, &c);
}

/* Several contenders timed in alternation: one warm-up of each, then run r of every contender
 * before run r + 1 of any, each on rotating input r % R; the median of each. Whatever drifts while
 * a row is measured (clocks, the state the memory was left in by the generator or by the buffers
 * just freed) then weighs on every contender alike. GPUSORT_BENCH_TRACE=1 prints every run. */
template <class F> static std::vector<double> time_interleaved(std::vector<F> &fs, const char *what)
{
    std::vector<bench_contender> cs;
    for (F &f : fs) cs.push_back(bench_call(f));
    std::vector<bench_stats> st(fs.size());
    const bench_plan plan = {&g_clock, 1, g_runs, 1, what};
    bench_time(&plan, cs.data(), (int)cs.size(), st.data());
    std::vector<double> out;
    for (const bench_stats &x : st) out.push_back(x.median_ms);
    return out;
}

static size_t rotations(size_t bytes)
{
    size_t r = ((size_t)256 << 20) / (bytes ? bytes : 1);
    return std::max<size_t>(1, std::min<size_t>(r, 64));
}

static size_t device_used()
{
    size_t f = 0, t = 0;
    CK(cudaMemGetInfo(&f, &t));
    return t - f;
}

template <typename T> struct TypeOf;
template <> struct TypeOf<uint32_t> { static constexpr gpusort_type t = GPUSORT_TYPE_U32; };
template <> struct TypeOf<int32_t> { static constexpr gpusort_type t = GPUSORT_TYPE_I32; };
template <> struct TypeOf<float> { static constexpr gpusort_type t = GPUSORT_TYPE_F32; };
template <> struct TypeOf<uint64_t> { static constexpr gpusort_type t = GPUSORT_TYPE_U64; };
template <> struct TypeOf<int64_t> { static constexpr gpusort_type t = GPUSORT_TYPE_I64; };
template <> struct TypeOf<double> { static constexpr gpusort_type t = GPUSORT_TYPE_F64; };

static const char *dist_name(int and_k)
{
    return and_k == 1 ? "uniform" : and_k == 3 ? "entropy0.544" : "entropy0.201";
}

/* ---- radix suite ---- */

enum Mode { KEYS, PAIRS, ARGSORT };

template <typename T, typename V>
static void bench_sort(Mode mode, int and_k, size_t n, bool with_thrust)
{
    if (!g_only.empty()) {
        const char *op = mode == KEYS ? "keys" : mode == PAIRS ? (sizeof(V) == 4 ? "pairs32" : "pairs64")
                                               : "argsort";
        char tag[64];
        snprintf(tag, sizeof tag, "%s:%s:%d", op, gpusort_type_name(TypeOf<T>::t),
                 (int)__builtin_ctzll(n));
        if (g_only != tag || and_k != 1) return;
    }
    const size_t kb = n * sizeof(T), vb = mode == KEYS ? 0 : n * sizeof(V);
    const size_t R = rotations(kb);
    std::vector<T *> kin(R);
    for (size_t r = 0; r < R; r++) {
        CK(cudaMalloc(&kin[r], kb));
        gen_kernel<T><<<grid_for(n), 256>>>(kin[r], n, g_seed + r * 0x1000 + and_k, and_k, g_floats);
    }
    T *kout = NULL;
    V *vin = NULL, *vout = NULL;
    CK(cudaMalloc(&kout, kb));
    if (mode != KEYS) {
        CK(cudaMalloc(&vin, vb));
        CK(cudaMalloc(&vout, vb));
        iota_kernel<V><<<grid_for(n), 256>>>(vin, n);
    }
    CK(cudaDeviceSynchronize());
    const gpusort_type kt = TypeOf<T>::t;
    const gpusort_type vt = sizeof(V) == 4 ? GPUSORT_TYPE_U32 : GPUSORT_TYPE_U64;

    /* Ours, on a fresh context so that its scratch can be measured. */
    gpusort_ctx *ctx = NULL;
    GK(gpusort_ctx_create(&ctx, GPUSORT_BACKEND_CUDA, 0));
    GK(gpusort_ctx_set_stream(ctx, g_stream));
    gpusort_ctx *saved = g_ctx;
    g_ctx = ctx;
    auto ours = [&](size_t r) {
        const T *in = kin[r % R];
        if (mode == KEYS) GK(gpusort_sort(ctx, kt, in, n, kout, GPUSORT_ORDER_ASC, GPUSORT_ALGORITHM_AUTO, 0));
        else if (mode == PAIRS)
            GK(gpusort_sort_pairs(ctx, kt, vt, in, vin, n, kout, vout, GPUSORT_ORDER_ASC,
                                  GPUSORT_ALGORITHM_AUTO, 0));
        else GK(gpusort_argsort(ctx, kt, vt, in, n, vout, GPUSORT_ORDER_ASC, GPUSORT_ALGORITHM_AUTO, 0));
    };
    const size_t used0 = device_used();
    ours(0);
    CK(cudaDeviceSynchronize());
    const long long our_scratch = (long long)(device_used() - used0);
    const char *algorithm = gpusort_algorithm_name(gpusort_ctx_get_last_algorithm(ctx));
    const double t_ours = time_median(ours);

    /* Check our output of input 0. */
    ours(0);
    CK(cudaDeviceSynchronize());
    unsigned long long *st = NULL, hs[3] = {0, 0, 0};
    CK(cudaMalloc(&st, 3 * sizeof(unsigned long long)));
    CK(cudaMemset(st, 0, 3 * sizeof(unsigned long long)));
    bool ok;
    if (mode == KEYS) {
        check_keys_kernel<T><<<grid_for(n), 256>>>(kin[0], kout, n, st);
        CK(cudaMemcpy(hs, st, sizeof hs, cudaMemcpyDeviceToHost));
        ok = hs[0] == 0 && hs[1] == hs[2];
    } else {
        if (mode == ARGSORT) /* argsort leaves keys_out alone: gather the keys for the check */
            CK(cudaMemset(kout, 0, kb));
        if (mode == ARGSORT) {
            /* keys_out[i] = keys_in[idx[i]] is what argsort promises; rebuild it with thrust */
            thrust::gather(thrust::device, thrust::device_pointer_cast(vout),
                           thrust::device_pointer_cast(vout + n),
                           thrust::device_pointer_cast(kin[0]), thrust::device_pointer_cast(kout));
        }
        check_pairs_kernel<T, V><<<grid_for(n), 256>>>(kin[0], kout, vout, n, st);
        CK(cudaMemcpy(hs, st, sizeof hs, cudaMemcpyDeviceToHost));
        unsigned long long s1 = 0, s2 = 0;
        for (unsigned long long j = 0; j < n; j++) { s1 += j; s2 += j * j; }
        ok = hs[0] == 0 && hs[1] == s1 && hs[2] == s2;
    }
    cudaFree(st);
    g_ctx = saved;
    gpusort_ctx_free(ctx);
    if (!ok) g_failures++;

    /* CUB: SortKeys / SortPairs (argsort: SortPairs with the values 0..n-1). */
    size_t cub_bytes = 0;
    if (mode == KEYS) CK(cub::DeviceRadixSort::SortKeys(NULL, cub_bytes, kin[0], kout, (int64_t)n));
    else CK(cub::DeviceRadixSort::SortPairs(NULL, cub_bytes, kin[0], kout, vin, vout, (int64_t)n));
    void *cub_tmp = NULL;
    CK(cudaMalloc(&cub_tmp, cub_bytes));
    const double t_cub = time_median([&](size_t r) {
        size_t b = cub_bytes;
        if (mode == KEYS) CK(cub::DeviceRadixSort::SortKeys(cub_tmp, b, kin[r % R], kout, (int64_t)n, 0, (int)sizeof(T) * 8, g_stream));
        else CK(cub::DeviceRadixSort::SortPairs(cub_tmp, b, kin[r % R], kout, vin, vout, (int64_t)n, 0, (int)sizeof(T) * 8, g_stream));
    });
    cudaFree(cub_tmp);

    /* Thrust: sorts in place; the copy of the input is outside the timed region. */
    double t_thrust = 0;
    if (with_thrust) {
        auto copy_in = [&](int r) {
            CK(cudaMemcpy(kout, kin[r % R], kb, cudaMemcpyDeviceToDevice));
            if (mode != KEYS) CK(cudaMemcpy(vout, vin, vb, cudaMemcpyDeviceToDevice));
        };
        auto sort = [&](int) {
            if (mode == KEYS) thrust::sort(thrust::cuda::par.on(g_stream), kout, kout + n);
            else thrust::sort_by_key(thrust::cuda::par.on(g_stream), kout, kout + n, vout);
        };
        const bench_contender c = bench_call(sort, copy_in);
        const bench_plan plan = {&g_clock, 1, g_runs, 1, NULL};
        t_thrust = bench_time_one(&plan, &c);
    }

    for (size_t r = 0; r < R; r++) cudaFree(kin[r]);
    cudaFree(kout);
    cudaFree(vin);
    cudaFree(vout);

    Row row;
    row.suite = "radix";
    row.op = mode == KEYS ? "keys" : mode == PAIRS ? (sizeof(V) == 4 ? "pairs/u32" : "pairs/u64")
                                                   : (sizeof(V) == 4 ? "argsort/u32" : "argsort/u64");
    row.type = gpusort_type_name(kt);
    row.dist = dist_name(and_k);
    if (g_floats && (T)0.5 != (T)0) row.dist = g_floats == 1 ? "unit" : "signed unit";
    row.n = n;
    row.ours_ms = t_ours;
    row.cub_ms = t_cub;
    row.thrust_ms = t_thrust;
    row.cub_kernel_ms = 0;
    row.gkeys = n / (t_ours * 1e-3) / 1e9;
    row.gbps = (double)(kb + vb) * 2 / (t_ours * 1e-3) / 1e9;
    row.ratio_cub = t_cub / t_ours;
    row.ratio_thrust = t_thrust > 0 ? t_thrust / t_ours : 0;
    row.ours_scratch = our_scratch;
    row.cub_scratch = (long long)cub_bytes;
    row.check = ok ? "ok" : "FAIL";
    row.algorithm = algorithm;
    g_rows.push_back(row);
    printf("%-6s %-12s %-4s %-13s 2^%-3d ours %9.3f ms %7.2f Gkeys/s %7.1f GB/s | cub %9.3f ms "
           "x%5.2f | thrust %9.3f ms | scratch %lld vs cub %lld MiB | %s | %s\n",
           row.suite.c_str(), row.op.c_str(), row.type.c_str(), row.dist.c_str(),
           (int)__builtin_ctzll(n), t_ours, row.gkeys, row.gbps, t_cub, row.ratio_cub, t_thrust,
           our_scratch >> 20, (long long)cub_bytes >> 20, row.check.c_str(), algorithm);
    fflush(stdout);
}

/* Every headline variant at n on distribution and_k; u64/u64 pairs at n_pairs64. thrust: time
 * Thrust too where the headline does. */
static void radix_variants(int and_k, size_t n, size_t n_pairs64, bool thrust)
{
    bench_sort<uint32_t, uint32_t>(KEYS, and_k, n, thrust);
    bench_sort<int32_t, uint32_t>(KEYS, and_k, n, thrust);
    bench_sort<float, uint32_t>(KEYS, and_k, n, thrust);
    bench_sort<uint64_t, uint64_t>(KEYS, and_k, n, thrust);
    bench_sort<int64_t, uint64_t>(KEYS, and_k, n, thrust);
    bench_sort<double, uint64_t>(KEYS, and_k, n, thrust);
    bench_sort<uint32_t, uint32_t>(PAIRS, and_k, n, thrust);
    bench_sort<uint64_t, uint64_t>(PAIRS, and_k, n_pairs64, thrust);
    bench_sort<float, uint32_t>(ARGSORT, and_k, n, false);
    /* 64-bit keys with 4-byte values: the pairs kernels of 64-bit keys serve them too */
    bench_sort<uint64_t, uint32_t>(PAIRS, and_k, n, false);
    bench_sort<double, uint32_t>(ARGSORT, and_k, n, false);
    /* u64 indices of 32-bit keys (torch.sort's int64): sorted as u32 indices, widened by the
     * last pass (radix.cu, narrow indices); CUB sorts the u64 values */
    bench_sort<int32_t, uint64_t>(ARGSORT, and_k, n, false);
    bench_sort<float, uint64_t>(ARGSORT, and_k, n, false);
    /* u64 indices of 64-bit integer keys (torch.sort of int64): narrow indices too, MSD first
     * from 3 * 2^26 keys as for u64/u32 pairs */
    bench_sort<int64_t, uint64_t>(ARGSORT, and_k, n, false);
}

static void suite_radix()
{
    if (!g_sweep.empty()) {
        /* --sweep: every headline variant, uniform keys, at each n (Thrust up to 2^28). */
        for (int lg : g_sweep) radix_variants(1, (size_t)1 << lg, (size_t)1 << lg, lg <= 28);
        return;
    }
    const size_t head = g_quick ? (size_t)1 << 24 : (size_t)1 << 28;
    const int dists[3] = {1, 3, 5};
    /* Headline: every variant and distribution at 2^28 (2^24 with --quick). */
    for (int di = 0; di < 3; di++) {
        const int k = dists[di];
        if (g_quick && k != 1) continue;
        radix_variants(k, head, g_quick ? head : head / 2, true);
    }
    /* Sizes: 2^16 .. 2^30 in powers of 4, uniform. */
    for (int lg = 16; lg <= g_max_log2; lg += 2) {
        if (g_quick && lg > 24) break;
        if ((size_t)1 << lg == head) continue;
        const size_t n = (size_t)1 << lg;
        bench_sort<uint32_t, uint32_t>(KEYS, 1, n, lg <= 28);
        if (lg <= 28) {
            bench_sort<uint64_t, uint64_t>(KEYS, 1, n, lg <= 26);
            bench_sort<uint32_t, uint32_t>(PAIRS, 1, n, lg <= 26);
        }
        if (lg <= 26) bench_sort<uint64_t, uint64_t>(PAIRS, 1, n, false);
    }
}

/* ---- reduce suite ---- */

template <typename T, typename A>
static void bench_reduce(size_t n)
{
    const size_t bytes = n * sizeof(T);
    const size_t R = rotations(bytes);
    std::vector<T *> in(R);
    for (size_t r = 0; r < R; r++) {
        CK(cudaMalloc(&in[r], bytes));
        gen_reduce_kernel<T><<<grid_for(n), 256>>>(in[r], n, g_seed + r);
    }
    CK(cudaDeviceSynchronize());
    const gpusort_type t = TypeOf<T>::t;
    gpusort_value v;
    A *d_out = NULL, *h_out = NULL;
    CK(cudaMalloc(&d_out, sizeof(A)));
    CK(cudaMallocHost(&h_out, sizeof(A)));
    size_t cub_bytes = 0;
    CK(cub::DeviceReduce::Sum(NULL, cub_bytes, in[0], d_out, (int64_t)n, g_stream));
    void *tmp = NULL;
    CK(cudaMalloc(&tmp, cub_bytes));
    /* ours / CUB's kernel / CUB + the copy of its result, in alternation (time_interleaved):
     * timed one after the other, ours first, i64 sums (the u64 kernel on the same bits) measured
     * 14% slower than u64 (bench/results/cuda-2026-11-24.md). With GPUSORT_BENCH_TRACE=1 ours is
     * also timed first and alone, for comparison. */
    typedef std::function<void(size_t)> Fn;
    std::vector<Fn> fs;
    fs.push_back([&](size_t r) { GK(gpusort_reduce(g_ctx, t, in[r % R], n, &v, GPUSORT_OP_SUM, 0)); });
    const char *trace = getenv("GPUSORT_BENCH_TRACE");
    if (trace && *trace == '1')
        printf("  trace reduce %s 2^%d ours timed first and alone: %.4f ms\n", gpusort_type_name(t),
               (int)__builtin_ctzll(n), time_median(fs[0]));
    fs.push_back([&](size_t r) {
        size_t b = cub_bytes;
        CK(cub::DeviceReduce::Sum(tmp, b, in[r % R], d_out, (int64_t)n, g_stream));
    });
    fs.push_back([&](size_t r) {
        size_t b = cub_bytes;
        CK(cub::DeviceReduce::Sum(tmp, b, in[r % R], d_out, (int64_t)n, g_stream));
        CK(cudaMemcpyAsync(h_out, d_out, sizeof(A), cudaMemcpyDeviceToHost, g_stream));
        CK(cudaStreamSynchronize(g_stream));
    });
    const std::vector<double> tm = time_interleaved(fs, "reduce");
    const double t_ours = tm[0], t_cub_kernel = tm[1], t_cub = tm[2];
    /* Check: ours on input 0 against CUB on input 0. */
    GK(gpusort_reduce(g_ctx, t, in[0], n, &v, GPUSORT_OP_SUM, 0));
    size_t b = cub_bytes;
    CK(cub::DeviceReduce::Sum(tmp, b, in[0], d_out, (int64_t)n, g_stream));
    CK(cudaMemcpy(h_out, d_out, sizeof(A), cudaMemcpyDeviceToHost));
    bool ok;
    if (gpusort_value_field(t) == 'f') {
        const double ref = (double)*h_out;
        ok = fabs(v.f - ref) <= 1e-9 * fabs(ref) + 1e-300;
    } else {
        ok = v.u == (uint64_t)*h_out;
    }
    /* Determinism: the same result twice. */
    gpusort_value v2;
    GK(gpusort_reduce(g_ctx, t, in[0], n, &v2, GPUSORT_OP_SUM, 0));
    ok = ok && v2.u == v.u;
    if (!ok) g_failures++;
    cudaFree(tmp);
    cudaFree(d_out);
    cudaFreeHost(h_out);
    for (size_t r = 0; r < R; r++) cudaFree(in[r]);
    Row row;
    row.suite = "reduce";
    row.op = "sum";
    row.type = gpusort_type_name(t);
    row.dist = "uniform";
    row.n = n;
    row.ours_ms = t_ours;
    row.cub_ms = t_cub;
    row.cub_kernel_ms = t_cub_kernel;
    row.thrust_ms = 0;
    row.gkeys = n / (t_ours * 1e-3) / 1e9;
    row.gbps = bytes / (t_ours * 1e-3) / 1e9;
    row.ratio_cub = t_cub / t_ours;
    row.ratio_thrust = 0;
    row.ours_scratch = -1;
    row.cub_scratch = (long long)cub_bytes;
    row.check = ok ? "ok" : "FAIL";
    g_rows.push_back(row);
    printf("reduce sum %-4s 2^%-3d ours %8.3f ms %7.1f GB/s | cub+copy %8.3f ms x%5.3f | cub kernel "
           "%8.3f ms (%7.1f GB/s) x%5.3f | %s\n",
           row.type.c_str(), (int)__builtin_ctzll(n), t_ours, row.gbps, t_cub, row.ratio_cub,
           t_cub_kernel, bytes / (t_cub_kernel * 1e-3) / 1e9, t_cub_kernel / t_ours,
           row.check.c_str());
    fflush(stdout);
}

static void suite_reduce()
{
    std::vector<int> sizes = g_sweep;
    if (sizes.empty())
        for (int lg = 16; lg <= g_max_log2; lg += 2)
            if (!g_quick || lg == 16 || lg == 24) sizes.push_back(lg);
    for (int lg : sizes) {
        const size_t n = (size_t)1 << lg;
        bench_reduce<uint32_t, unsigned long long>(n);
        bench_reduce<int32_t, long long>(n);
        bench_reduce<float, double>(n);
        bench_reduce<uint64_t, unsigned long long>(n);
        bench_reduce<int64_t, long long>(n);
        bench_reduce<double, double>(n);
    }
}

/* ---- host suite ---- */

/* Host-clock median of `runs` calls after one warm-up (calls that finish before returning). */
template <class F> static double wall_median(F f, int runs)
{
    auto run = [&](int) { f(); };
    const bench_contender c = bench_call(run);
    const bench_plan plan = bench_plan_default(runs);
    return bench_time_one(&plan, &c);
}

static void host_fill(uint32_t *p, size_t n, uint64_t seed)
{
    for (size_t i = 0; i < n; i++) p[i] = (uint32_t)mix64(seed + i * 0x632be59bd9b4e019ull);
}

static bool host_sorted(const uint32_t *p, size_t n)
{
    for (size_t i = 1; i < n; i++)
        if (p[i - 1] > p[i]) return false;
    return true;
}

static void host_row(const char *op, const char *type, size_t n, double bytes, double ours,
                     double peer, bool ok)
{
    Row row;
    row.suite = "host";
    row.op = op;
    row.type = type;
    row.dist = "uniform";
    row.n = n;
    row.ours_ms = ours;
    row.cub_ms = peer;
    row.cub_kernel_ms = 0;
    row.thrust_ms = 0;
    row.gkeys = n / (ours * 1e-3) / 1e9;
    row.gbps = bytes * 2 / (ours * 1e-3) / 1e9;
    row.ratio_cub = peer / ours;
    row.ratio_thrust = 0;
    row.ours_scratch = -1;
    row.cub_scratch = -1;
    row.check = ok ? "ok" : "FAIL";
    if (!ok) g_failures++;
    g_rows.push_back(row);
    printf("host %-34s %-7s 2^%-3d ours %9.3f ms %7.2f Gkeys/s | peer %9.3f ms x%5.3f | %s\n", op,
           type, (int)__builtin_ctzll(n), ours, row.gkeys, peer, row.ratio_cub, row.check.c_str());
    fflush(stdout);
}

/* gpusort__sort_stream's callbacks over two host arrays per direction (keys, values). */
struct mem_streams {
    const char *in[2];
    char *out[2];
};
static int mem_read(void *user, int stream, void *buf, uint64_t offset, size_t bytes)
{
    memcpy(buf, ((mem_streams *)user)->in[stream] + offset, bytes);
    return 0;
}
static int mem_write(void *user, int stream, const void *buf, uint64_t offset, size_t bytes)
{
    memcpy(((mem_streams *)user)->out[stream] + offset, buf, bytes);
    return 0;
}

/* Keys ascending (unsigned, ks bytes) and, with values (each the key's input position), every
 * value naming an input key equal to its own key. */
static bool host_check(const char *kin, const char *k, const char *v, size_t n, size_t ks,
                       size_t vs)
{
    auto key = [&](const char *p, size_t i) {
        return ks == 4 ? (uint64_t)((const uint32_t *)p)[i] : ((const uint64_t *)p)[i];
    };
    for (size_t i = 1; i < n; i++)
        if (key(k, i - 1) > key(k, i)) return false;
    for (size_t i = 0; vs && i < n; i++) {
        const uint64_t j = vs == 4 ? ((const uint32_t *)v)[i] : ((const uint64_t *)v)[i];
        if (j >= n || key(kin, j) != key(k, i)) return false;
    }
    return true;
}

/* One group of host-data contenders on n keys of kt (+ values of vt: the input positions),
 * timed in alternation (time_interleaved: CUDA events on g_stream around each call, which
 * completes before returning; one warm-up each, median of --runs):
 *   copies      the peer: a bare pinned copy in + copy out of the same bytes (g_stream)
 *   pinned      gpusort_sort(_pairs) on cudaMallocHost arrays (hostdata.c, chunks + merge)
 *   pinned 1ch  the same with GPUSORT_CUDA_HOST_PIPELINE=0 (one chunk: copy, sort, copy)
 *   pageable    malloc'd arrays, staged (default threads), and with 8 staging threads
 *   stream      gpusort__sort_stream with memcpy callbacks from/to malloc'd arrays
 * Each output is checked once after the timing; the stream's phase split is printed. */
static void host_group(gpusort_type kt, gpusort_type vt, size_t n)
{
    const size_t ks = gpusort_type_size(kt), vs = vt == GPUSORT_TYPE_NONE ? 0 : gpusort_type_size(vt);
    const size_t kb = n * ks, vb = n * vs, bytes = kb + vb;
    char label[64];
    snprintf(label, sizeof label, "%s%s%s", gpusort_type_name(kt), vs ? "+" : "",
             vs ? gpusort_type_name(vt) : "");
    char *pin_in[2] = {NULL, NULL}, *pin_out[2] = {NULL, NULL}, *dev = NULL;
    char *pg_in[2] = {NULL, NULL}, *pg_out[2] = {NULL, NULL};
    for (int a = 0; a < 2; a++) {
        const size_t b = a ? vb : kb;
        if (!b) continue;
        CK(cudaMallocHost(&pin_in[a], b));
        CK(cudaMallocHost(&pin_out[a], b));
        pg_in[a] = (char *)malloc(b);
        pg_out[a] = (char *)malloc(b);
        if (!pg_in[a] || !pg_out[a]) {
            fprintf(stderr, "bench_cuda: out of host memory\n");
            exit(2);
        }
        memset(pg_out[a], 0, b);
    }
    CK(cudaMalloc(&dev, bytes));
    for (size_t i = 0; i < n; i++) {
        const uint64_t x = mix64(g_seed + i * 0x632be59bd9b4e019ull);
        if (ks == 4) ((uint32_t *)pin_in[0])[i] = (uint32_t)x;
        else ((uint64_t *)pin_in[0])[i] = x;
        if (vs == 4) ((uint32_t *)pin_in[1])[i] = (uint32_t)i;
        else if (vs == 8) ((uint64_t *)pin_in[1])[i] = i;
    }
    for (int a = 0; a < 2; a++) if (pg_in[a]) memcpy(pg_in[a], pin_in[a], a ? vb : kb);
    typedef std::function<void(int)> Fn;
    const Fn copy = [&](int) {
        CK(cudaMemcpyAsync(dev, pin_in[0], kb, cudaMemcpyHostToDevice, g_stream));
        if (vb) CK(cudaMemcpyAsync(dev + kb, pin_in[1], vb, cudaMemcpyHostToDevice, g_stream));
        CK(cudaMemcpyAsync(pin_out[0], dev, kb, cudaMemcpyDeviceToHost, g_stream));
        if (vb) CK(cudaMemcpyAsync(pin_out[1], dev + kb, vb, cudaMemcpyDeviceToHost, g_stream));
    };
    auto knobs = [](const char *pipe, const char *threads) {
        if (pipe) setenv("GPUSORT_CUDA_HOST_PIPELINE", pipe, 1);
        else unsetenv("GPUSORT_CUDA_HOST_PIPELINE");
        if (threads) setenv("GPUSORT_HOSTDATA_THREADS", threads, 1);
        else unsetenv("GPUSORT_HOSTDATA_THREADS");
    };
    auto sort_fn = [&](char **in, char **out, const char *pipe, const char *threads) {
        return Fn([=](int) {
            knobs(pipe, threads);
            if (vs)
                GK(gpusort_sort_pairs(g_ctx, kt, vt, in[0], in[1], n, out[0], out[1],
                                      GPUSORT_ORDER_ASC, GPUSORT_ALGORITHM_AUTO, 0));
            else
                GK(gpusort_sort(g_ctx, kt, in[0], n, out[0], GPUSORT_ORDER_ASC,
                                GPUSORT_ALGORITHM_AUTO, 0));
        });
    };
    mem_streams ms = {{pg_in[0], pg_in[1]}, {pg_out[0], pg_out[1]}};
    gpusort__stream last;
    const Fn stream = [&](int) {
        knobs(NULL, NULL);
        gpusort__stream s;
        memset(&s, 0, sizeof s);
        s.read = mem_read;
        s.write = mem_write;
        s.user = &ms;
        GK(gpusort__sort_stream(g_ctx, kt, vt, n, &s, GPUSORT_ORDER_ASC, GPUSORT_ALGORITHM_AUTO, 0));
        last = s;
    };
    const char *names[] = {"copies", "pinned vs copies", "pinned 1 chunk vs copies",
                           "pageable vs copies", "pageable 8 thr vs copies",
                           "stream (memcpy cb) vs copies"};
    std::vector<Fn> fs = {copy, sort_fn(pin_in, pin_out, NULL, NULL),
                          sort_fn(pin_in, pin_out, "0", NULL), sort_fn(pg_in, pg_out, NULL, NULL),
                          sort_fn(pg_in, pg_out, NULL, "8"), stream};
    const std::vector<double> t = time_interleaved(fs, label);
    printf("host %s: bare pinned copy in + out %.3f ms\n", label, t[0]);
    for (size_t c = 1; c < fs.size(); c++) {
        char **out = c <= 2 ? pin_out : pg_out;
        for (int a = 0; a < 2; a++) if (out[a]) memset(out[a], 0, a ? vb : kb);
        fs[c](0);
        host_row(names[c], label, n, (double)bytes, t[c], t[0],
                 host_check(pin_in[0], out[0], out[1], n, ks, vs));
    }
    knobs(NULL, NULL);
    printf("host %s stream phases (last call, s; they overlap): read %.4f to_device %.4f sort "
           "%.4f from_device %.4f write %.4f\n",
           label, last.seconds[GPUSORT__PHASE_READ], last.seconds[GPUSORT__PHASE_TO_DEVICE],
           last.seconds[GPUSORT__PHASE_SORT], last.seconds[GPUSORT__PHASE_FROM_DEVICE],
           last.seconds[GPUSORT__PHASE_WRITE]);
    for (int a = 0; a < 2; a++) {
        cudaFreeHost(pin_in[a]);
        cudaFreeHost(pin_out[a]);
        free(pg_in[a]);
        free(pg_out[a]);
    }
    cudaFree(dev);
}

/* Host data end to end: 1 GiB of u32 keys, then 1 GiB of u64 keys with u32 values (host_group);
 * then the parts of the u32 case, for explaining the ratio: copy in alone, copy out alone, the
 * device sort; then the CPU/GPU crossover for host data. */
static void suite_host()
{
    const size_t n = g_quick ? (size_t)1 << 26 : (size_t)1 << 28; /* 1 GiB of u32 */
    const size_t bytes = n * 4;
    host_group(GPUSORT_TYPE_U32, GPUSORT_TYPE_NONE, n);
    host_group(GPUSORT_TYPE_U64, GPUSORT_TYPE_U32, n / 2);
    uint32_t *pin_in = NULL, *pin_out = NULL, *d = NULL, *d2 = NULL;
    CK(cudaMallocHost(&pin_in, bytes));
    CK(cudaMallocHost(&pin_out, bytes));
    CK(cudaMalloc(&d, bytes));
    CK(cudaMalloc(&d2, bytes));
    host_fill(pin_in, n, g_seed);
    typedef std::function<void(int)> Fn;
    {
        /* The parts: copy in alone, copy out alone, the device sort alone (device pointers,
         * out of place from an unsorted buffer). */
        CK(cudaMemcpy(d2, pin_in, bytes, cudaMemcpyHostToDevice));
        std::vector<Fn> fs = {
            [&](int) { CK(cudaMemcpyAsync(d, pin_in, bytes, cudaMemcpyHostToDevice, g_stream)); },
            [&](int) { CK(cudaMemcpyAsync(pin_out, d, bytes, cudaMemcpyDeviceToHost, g_stream)); },
            [&](int) {
                GK(gpusort_sort(g_ctx, GPUSORT_TYPE_U32, d2, n, d, GPUSORT_ORDER_ASC,
                                GPUSORT_ALGORITHM_AUTO, 0));
            }};
        const std::vector<double> t = time_interleaved(fs, "parts");
        printf("host parts (2^%d u32, medians): pinned copy in %.3f ms, copy out %.3f ms, device "
               "sort %.3f ms\n",
               (int)__builtin_ctzll(n), t[0], t[1], t[2]);
    }
    cudaFree(d);
    cudaFree(d2);
    cudaFreeHost(pin_in);
    cudaFreeHost(pin_out);
    const int runs = g_quick ? 3 : g_runs;

    /* Crossover: CPU backend vs the GPU round trip (algorithm RADIX forces the GPU). */
    gpusort_ctx *cpu = NULL;
    GK(gpusort_ctx_create(&cpu, GPUSORT_BACKEND_CPU, 0));
    size_t crossover = 0;
    for (int lg = 10; lg <= 22; lg += 2) {
        const size_t m = (size_t)1 << lg;
        uint32_t *a = (uint32_t *)malloc(m * 4), *b = (uint32_t *)malloc(m * 4);
        host_fill(a, m, g_seed + lg);
        const double t_cpu = wall_median([&] {
            GK(gpusort_sort(cpu, GPUSORT_TYPE_U32, a, m, b, GPUSORT_ORDER_ASC,
                            GPUSORT_ALGORITHM_AUTO, 0));
        }, runs);
        const double t_gpu = wall_median([&] {
            GK(gpusort_sort(g_ctx, GPUSORT_TYPE_U32, a, m, b, GPUSORT_ORDER_ASC,
                            GPUSORT_ALGORITHM_RADIX, 0));
        }, runs);
        const bool ok = host_sorted(b, m);
        host_row("pageable gpu vs cpu backend", "u32", m, m * 4.0, t_gpu, t_cpu, ok);
        if (!crossover && t_gpu < t_cpu) crossover = m;
        free(a);
        free(b);
    }
    gpusort_ctx_free(cpu);
    printf("host crossover (first size where the GPU round trip beats the CPU backend): %zu\n",
           crossover);
}

/* ---- output ---- */

/* The CSV columns (--csv, and the keys of --json): scripts and committed results read them. */
static const bench_column kColumns[] = {
    {"suite", "%s"},          {"op", "%s"},                 {"type", "%s"},
    {"dist", "%s"},           {"n", "%zu"},                 {"ours_ms", "%.4f"},
    {"cub_ms", "%.4f"},       {"cub_kernel_ms", "%.4f"},    {"thrust_ms", "%.4f"},
    {"gkeys_per_s", "%.3f"},  {"gbps", "%.1f"},             {"ratio_cub", "%.4f"},
    {"ratio_thrust", "%.4f"}, {"ours_scratch_bytes", "%lld"}, {"cub_scratch_bytes", "%lld"},
    {"check", "%s"},          {"algorithm", "%s"},
};
static const int kNumColumns = (int)(sizeof kColumns / sizeof kColumns[0]);

static void make_row(bench_row *out, const Row &r)
{
    bench_row_make(out, kColumns, kNumColumns, r.suite.c_str(), r.op.c_str(), r.type.c_str(),
                   r.dist.c_str(), r.n, r.ours_ms, r.cub_ms, r.cub_kernel_ms, r.thrust_ms, r.gkeys,
                   r.gbps, r.ratio_cub, r.ratio_thrust, r.ours_scratch, r.cub_scratch,
                   r.check.c_str(), r.algorithm.c_str());
}

static void write_csv(const char *path)
{
    FILE *f = fopen(path, "w");
    if (!f) { perror(path); return; }
    bench_csv_header(f, NULL, kColumns, kNumColumns);
    for (const Row &r : g_rows) {
        bench_row row;
        make_row(&row, r);
        bench_csv_row(f, NULL, &row);
    }
    fclose(f);
}

static void write_json(const char *path, const char *device)
{
    FILE *f = fopen(path, "w");
    if (!f) { perror(path); return; }
    char meta[400];
    snprintf(meta, sizeof meta, "\"device\": \"%s\", \"runs\": %d", device, g_runs);
    bench_json j;
    bench_json_begin(&j, f, meta);
    for (const Row &r : g_rows) {
        bench_row row;
        make_row(&row, r);
        bench_json_row(&j, &row);
    }
    bench_json_end(&j);
    fclose(f);
}

static void print_table()
{
    printf("\n| suite | op | type | dist | n | ours ms | Gkeys/s | GB/s | CUB ms | ratio vs CUB | "
           "thrust ms | our scratch MiB | CUB temp MiB | check | AUTO ran |\n");
    printf("|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|\n");
    for (const Row &r : g_rows)
        printf("| %s | %s | %s | %s | 2^%d | %.3f | %.2f | %.1f | %.3f | %.3f | %.3f | %s | %s | %s | %s |\n",
               r.suite.c_str(), r.op.c_str(), r.type.c_str(), r.dist.c_str(),
               (int)__builtin_ctzll(r.n), r.ours_ms, r.gkeys, r.gbps, r.cub_ms, r.ratio_cub,
               r.thrust_ms, r.ours_scratch >= 0 ? std::to_string(r.ours_scratch >> 20).c_str() : "-",
               r.cub_scratch >= 0 ? std::to_string(r.cub_scratch >> 20).c_str() : "-",
               r.check.c_str(), r.algorithm.c_str());
}

static void usage(void)
{
    printf("usage: bench_cuda [--suite radix|reduce|host|seeds|all] [--quick] [--csv FILE]\n"
           "                  [--json FILE] [--runs N] [--max-log2 K] [--seed S]\n"
           "                  [--floats bits|unit|signed]\n"
           "                  [--only keys|pairs32|pairs64|argsort:TYPE:LOG2N] [--sweep SIZES]\n"
           "Times gpusort's CUDA radix sort, reduce and host-data path against CUB and Thrust\n"
           "on the same data (median of N runs after a warm-up; CUDA events).\n"
           "--suite seeds passes the remaining options to the seeds suite (cuda_seeds.cu).\n"
           "--sweep SIZES: the radix suite times every headline variant (uniform keys) and the\n"
           "  reduce suite every type at each size, one CSV row per (variant, n), for a\n"
           "  throughput-vs-n plot; SIZES is a comma-separated list of powers of two K or 2^K\n"
           "  and ranges A..B[:STEP] of them, e.g. 2^16..2^28 or 16..28:2,30.\n"
           "--floats: the radix suite's float keys: random bits (default; 1 in 256 is a NaN),\n"
           "  uniform in [0, 1) (as torch.rand) or in (-1, 1) (signed).\n");
}

/* --sweep: "16..28:2,30", "2^16..2^28" -> the log2 sizes, in order. False on a malformed list
 * or a size outside 2^0 .. 2^34. */
static bool parse_sweep(const char *text, std::vector<int> &out)
{
    const char *p = text;
    auto log2_at = [&](int *k) {
        if (p[0] == '2' && p[1] == '^') p += 2;
        char *end;
        const long v = strtol(p, &end, 10);
        if (end == p || v < 0 || v > 34) return false;
        *k = (int)v;
        p = end;
        return true;
    };
    out.clear();
    while (*p) {
        int a, b, step = 1;
        if (!log2_at(&a)) return false;
        b = a;
        if (p[0] == '.' && p[1] == '.') {
            p += 2;
            if (!log2_at(&b) || b < a) return false;
            if (*p == ':') {
                char *end;
                step = (int)strtol(p + 1, &end, 10);
                if (end == p + 1 || step < 1) return false;
                p = end;
            }
        }
        for (int k = a; k <= b; k += step) out.push_back(k);
        if (*p == ',') p++;
        else if (*p) return false;
    }
    return !out.empty();
}

int main(int argc, char **argv)
{
    std::string suite = "all";
    const char *csv = NULL, *json = NULL;
    int i = 1;
    for (; i < argc; i++) {
        std::string a = argv[i];
        if (a == "--suite" && i + 1 < argc) {
            suite = argv[++i];
            if (suite == "seeds") { i++; break; }
        } else if (a == "--quick") g_quick = true;
        else if (a == "--csv" && i + 1 < argc) csv = argv[++i];
        else if (a == "--json" && i + 1 < argc) json = argv[++i];
        else if (a == "--runs" && i + 1 < argc) g_runs = std::max(1, atoi(argv[++i]));
        else if (a == "--max-log2" && i + 1 < argc) g_max_log2 = atoi(argv[++i]);
        else if (a == "--seed" && i + 1 < argc) g_seed = strtoull(argv[++i], NULL, 0);
        else if (a == "--only" && i + 1 < argc) { g_only = argv[++i]; suite = "radix"; }
        else if (a == "--sweep" && i + 1 < argc) {
            if (!parse_sweep(argv[++i], g_sweep)) {
                fprintf(stderr, "bench_cuda: bad --sweep %s\n", argv[i]);
                usage();
                return 2;
            }
        }
        else if (a == "--floats" && i + 1 < argc) {
            const std::string f = argv[++i];
            g_floats = f == "bits" ? 0 : f == "unit" ? 1 : f == "signed" ? 2 : -1;
            if (g_floats < 0) {
                fprintf(stderr, "bench_cuda: bad --floats %s (bits, unit or signed)\n", f.c_str());
                usage();
                return 2;
            }
        }
        else if (a == "--help" || a == "-h") { usage(); return 0; }
        else { fprintf(stderr, "bench_cuda: unknown option %s\n", argv[i]); usage(); return 2; }
    }
    if (suite == "seeds") return bench_cuda_seeds(argc - i, argv + i);
    int count = 0;
    if (gpusort_device_get_count(GPUSORT_BACKEND_CUDA, &count) != GPUSORT_STATUS_SUCCESS || !count) {
        printf("bench_cuda: no CUDA device: skipped\n");
        return 77;
    }
    gpusort_device_info info;
    gpusort_device_get_info(GPUSORT_BACKEND_CUDA, 0, &info);
    printf("device: %s (%s), %d SMs; runs %d (median), seed 0x%llx%s\n", info.name, info.platform,
           info.compute_units, g_runs, (unsigned long long)g_seed, g_quick ? ", quick" : "");
    if (!g_sweep.empty()) {
        printf("sweep: n = 2^%d", g_sweep[0]);
        for (size_t k = 1; k < g_sweep.size(); k++) printf(", 2^%d", g_sweep[k]);
        printf("\n");
    }
    CK(cudaStreamCreate(&g_stream));
    bench_clock_cuda_init(&g_clock, g_stream);
    GK(gpusort_ctx_create(&g_ctx, GPUSORT_BACKEND_CUDA, 0));
    GK(gpusort_ctx_set_stream(g_ctx, g_stream));
    if (suite == "radix" || suite == "all") suite_radix();
    if (suite == "reduce" || suite == "all") suite_reduce();
    if (suite == "host" || suite == "all") suite_host();
    gpusort_ctx_free(g_ctx);
    bench_clock_cuda_free(&g_clock);
    print_table();
    if (csv) write_csv(csv);
    if (json) write_json(json, info.name);
    int rc = 0;
    if (suite == "all" && !g_quick) {
        char *args[1] = {NULL};
        rc = bench_cuda_seeds(0, args);
        if (rc == 2) rc = 0; /* the seeds suite is a placeholder until it lands */
    }
    if (g_failures) printf("bench_cuda: %d checks FAILED\n", g_failures);
    return g_failures ? 1 : rc;
}
