/*
 * reduce.cu -- sum / min / max of device data, all six types: gpusort__cuda_reduce.
 *
 * ONE launch on the context's stream, then a copy of the result to the host. reduce_kernel runs
 * a FIXED grid (min(work, 4 blocks per SM)) of 512 threads; each thread walks the array
 * grid-stride in 16-byte vectors (4 of them in flight), then the block combines its threads with
 * warp shuffles and one shared-memory step and writes one partial. Bandwidth-bound: every byte is
 * read once, 16 bytes per load. The LAST block to finish combines the partials: each block's
 * thread 0 stores its partial, fences (__threadfence: the store is visible device-wide before
 * the ticket) and takes a ticket (atomicAdd on a counter); the block that draws grid - 1 fences
 * again, reads every partial from L2 (__ldcg: never a stale L1 line) in a fixed order, writes
 * the result and sets the counter back to 0 for the next call (the counter lives in its own
 * scratch slot, zero-filled when allocated). Combining in the kernel instead of a second
 * launch saves a few us per call at small n (bench/results/device-final-2026-11-24.md).
 * The assignment of elements to threads and the order of every combination depend only on n and
 * the device's SM count, so a float sum is the same on every run (gpusort.h: deterministic).
 *
 * Accumulators (gpusort.h CONTRACT, "Reduce"):
 *   u32/i32/u64/i64 sums  in 64-bit unsigned arithmetic (i32 sign-extended): exact mod 2^64;
 *   f32/f64 sums          in double. Each thread sums its ~n/(grid*512) elements in sequence,
 *                         then a tree of depth ~20 combines them: the error is at most
 *                         (n/(grid*512) + 20) * eps(double) * sum(|x|), well inside the
 *                         2 * n * eps(double) * sum(|x|) that gpusort.h promises.
 *   min/max of integers   plain.
 *   min/max of floats     NaN if any input is NaN; otherwise each partial carries the index of
 *                         its value so that ties (only -0.0 vs +0.0 can tie with different bits)
 *                         resolve to the element that comes first, as numpy does.
 */
#include "cuda_internal.h"

#include <cuda_runtime.h>
#include <math.h>

namespace {

constexpr int THREADS = 512;
constexpr int UNROLL = 4;          /* 16-byte loads in flight per thread per iteration */
constexpr int BLOCKS_PER_SM = 4;   /* 2048 threads per SM: the sm_90 maximum; Op::BLOCKS <= this */

/* ---- operations: identity, fold one element, combine two partials, shuffle ---- */

/* BLOCKS: resident blocks per SM that the kernel is compiled for (launch bounds) and launched
 * with (grid = SMs * BLOCKS, one wave): 4 (32 registers) where that costs no spill; the float
 * min/max fold (value + index) needs more registers and gets 3. */
template <typename T, typename A> struct SumOp {
    typedef A Acc;
    static constexpr int BLOCKS = 4;
    static __device__ Acc identity() { return (Acc)0; }
    static __device__ Acc fold(Acc a, T x, size_t) { return a + (Acc)x; }
    static __device__ Acc combine(Acc a, Acc b) { return a + b; }
    static __device__ Acc shfl_down(Acc a, int o) { return __shfl_down_sync(0xffffffffu, a, o); }
    static __device__ Acc load_cg(const Acc *p) { return __ldcg(p); }
};
/* i32 sums: sign-extend into the 64-bit unsigned accumulator. */
template <> __device__ unsigned long long
SumOp<int32_t, unsigned long long>::fold(unsigned long long a, int32_t x, size_t)
{
    return a + (unsigned long long)(long long)x;
}

template <typename T, bool MAX> struct IntMinMax {
    typedef T Acc;
    static constexpr int BLOCKS = 4;
    static __device__ Acc identity()
    {
        if (MAX) return (T)(((T)-1 < (T)0) ? ((T)1 << (sizeof(T) * 8 - 1)) : (T)0);
        return (T)(((T)-1 < (T)0) ? ~((T)1 << (sizeof(T) * 8 - 1)) : ~(T)0);
    }
    static __device__ Acc combine(Acc a, Acc b) { return MAX ? (b > a ? b : a) : (b < a ? b : a); }
    static __device__ Acc fold(Acc a, T x, size_t) { return combine(a, x); }
    static __device__ Acc shfl_down(Acc a, int o) { return __shfl_down_sync(0xffffffffu, a, o); }
    static __device__ Acc load_cg(const Acc *p) { return __ldcg(p); }
};

template <typename T> struct FloatAcc {
    T v;                  /* NaN once any NaN was seen */
    unsigned long long i; /* index of v (ties: the smaller index wins); ~0 = empty */
};

template <typename T, bool MAX> struct FloatMinMax {
    typedef FloatAcc<T> Acc;
    static constexpr int BLOCKS = 3;
    static __device__ Acc identity() { return Acc{(T)0, ~0ull}; }
    static __device__ Acc combine(Acc a, Acc b)
    {
        if (b.i == ~0ull) return a;
        if (a.i == ~0ull) return b;
        if (a.v != a.v) return (b.v != b.v && b.i < a.i) ? b : a;
        if (b.v != b.v) return b;
        if (MAX ? b.v > a.v : b.v < a.v) return b;
        if (b.v == a.v && b.i < a.i) return b;
        return a;
    }
    static __device__ Acc fold(Acc a, T x, size_t i) { return combine(a, Acc{x, i}); }
    static __device__ Acc shfl_down(Acc a, int o)
    {
        Acc r;
        r.v = __shfl_down_sync(0xffffffffu, a.v, o);
        r.i = __shfl_down_sync(0xffffffffu, a.i, o);
        return r;
    }
    static __device__ Acc load_cg(const Acc *p)
    {
        Acc r;
        r.v = __ldcg(&p->v);
        r.i = __ldcg(&p->i);
        return r;
    }
};

/* Fixed-order block reduction: a shuffle tree per warp, then warp 0 over the warp results. */
template <class Op>
__device__ typename Op::Acc block_reduce(typename Op::Acc a)
{
    typedef typename Op::Acc Acc;
    __shared__ Acc s_warp[THREADS / 32];
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
#pragma unroll
    for (int o = 16; o > 0; o >>= 1) a = Op::combine(a, Op::shfl_down(a, o));
    if (lane == 0) s_warp[warp] = a;
    __syncthreads();
    if (warp == 0) {
        a = lane < THREADS / 32 ? s_warp[lane] : Op::identity();
#pragma unroll
        for (int o = 16; o > 0; o >>= 1) a = Op::combine(a, Op::shfl_down(a, o));
    }
    return a;
}

/* Elements [0, head) and [head + nvec*VEC, n) are scalars (alignment); the rest 16-byte vectors.
 * Each thread folds its elements in increasing index order. */
template <typename T, class Op>
__global__ void __launch_bounds__(THREADS, Op::BLOCKS) reduce_kernel(const T *data, size_t n, size_t head,
                                                         size_t nvec, typename Op::Acc *partials,
                                                         unsigned *ticket, typename Op::Acc *result)
{
    constexpr int VEC = 16 / sizeof(T);
    typedef typename Op::Acc Acc;
    const size_t g = blockIdx.x * (size_t)THREADS + threadIdx.x;
    const size_t stride = (size_t)gridDim.x * THREADS;
    Acc a = Op::identity();
    if (g < head) a = Op::fold(a, data[g], g);
    const uint4 *vec = (const uint4 *)(data + head);
    size_t v = g;
    for (; v + (UNROLL - 1) * stride < nvec; v += UNROLL * stride) {
        uint4 r[UNROLL];
#pragma unroll
        for (int u = 0; u < UNROLL; u++) r[u] = __ldg(vec + v + u * stride);
#pragma unroll
        for (int u = 0; u < UNROLL; u++) {
            const T *x = (const T *)&r[u];
            const size_t base = head + (v + u * stride) * VEC;
#pragma unroll
            for (int c = 0; c < VEC; c++) a = Op::fold(a, x[c], base + c);
        }
    }
    for (; v < nvec; v += stride) {
        uint4 r = __ldg(vec + v);
        const T *x = (const T *)&r;
#pragma unroll
        for (int c = 0; c < VEC; c++) a = Op::fold(a, x[c], head + v * VEC + c);
    }
    const size_t tail = head + nvec * VEC;
    if (tail + g < n) a = Op::fold(a, data[tail + g], tail + g);
    a = block_reduce<Op>(a);
    __shared__ bool s_last;
    if (threadIdx.x == 0) {
        partials[blockIdx.x] = a;
        __threadfence();
        s_last = atomicAdd(ticket, 1u) == gridDim.x - 1;
    }
    __syncthreads();
    if (!s_last) return;
    /* The last block: every other partial is stored and fenced before its ticket. */
    __threadfence();
    a = Op::identity();
    for (unsigned i = threadIdx.x; i < gridDim.x; i += THREADS)
        a = Op::combine(a, Op::load_cg(partials + i));
    a = block_reduce<Op>(a);
    if (threadIdx.x == 0) {
        *result = a;
        *ticket = 0;
    }
}

template <typename T, class Op>
gpusort_status run(gpusort_ctx *ctx, const T *data, size_t n, typename Op::Acc *out)
{
    typedef typename Op::Acc Acc;
    constexpr int VEC = 16 / sizeof(T);
    cudaStream_t st = gpusort__cuda_stream(ctx);
    const uintptr_t addr = (uintptr_t)data;
    size_t head = addr % sizeof(T) ? n : ((16 - addr % 16) % 16) / sizeof(T);
    if (head > n) head = n;
    const size_t nvec = (n - head) / VEC;
    /* Head and tail are handled by threads 0..VEC-1 at most: the grid always has them. */
    size_t want = (nvec + (size_t)THREADS * UNROLL - 1) / ((size_t)THREADS * UNROLL);
    const size_t sms = (size_t)gpusort__cuda_props(ctx)->multiProcessorCount;
    const size_t cap = sms * Op::BLOCKS;
    int grid = (int)(want < 1 ? 1 : want > cap ? cap : want);
    /* [ticket, padded to 16 bytes][result][partials of the largest grid, 16 bytes each]: sized
     * for any type and grid on this device, so it is allocated (and zeroed) once. */
    char *slot = (char *)gpusort__cuda_scratch_zeroed(ctx, GPUSORT_CUDA_SCRATCH_REDUCE,
                                                      gpusort__cuda_reduce_scratch_bytes(ctx));
    if (!slot) return GPUSORT_STATUS_OUT_OF_DEVICE_MEMORY;
    static_assert(sizeof(Acc) <= 16, "reduce accumulator fits its scratch entry");
    unsigned *ticket = (unsigned *)slot;
    Acc *result = (Acc *)(slot + 16);
    Acc *partials = (Acc *)(slot + 32);
    reduce_kernel<T, Op><<<grid, THREADS, 0, st>>>(data, n, head, nvec, partials, ticket, result);
    gpusort_status s;
    if ((s = gpusort__cuda_check(ctx, cudaGetLastError(), "reduce kernel"))) return s;
    if ((s = gpusort__cuda_check(ctx, cudaMemcpyAsync(out, result, sizeof(Acc),
                                                      cudaMemcpyDeviceToHost, st),
                                 "cudaMemcpyAsync (reduce result)")))
        return s;
    return gpusort__cuda_check(ctx, cudaStreamSynchronize(st), "cudaStreamSynchronize (reduce)");
}

template <typename T, typename SumAcc>
gpusort_status reduce_int(gpusort_ctx *ctx, const T *data, size_t n, gpusort_op op,
                          gpusort_value *r, bool is_signed)
{
    gpusort_status s;
    if (op == GPUSORT_OP_SUM) {
        SumAcc acc = 0;
        if ((s = run<T, SumOp<T, SumAcc>>(ctx, data, n, &acc))) return s;
        r->u = (uint64_t)acc;
        return s;
    }
    T v = 0;
    s = op == GPUSORT_OP_MAX ? run<T, IntMinMax<T, true>>(ctx, data, n, &v)
                             : run<T, IntMinMax<T, false>>(ctx, data, n, &v);
    if (s) return s;
    if (is_signed) r->i = (int64_t)v;
    else r->u = (uint64_t)v;
    return s;
}

template <typename T>
gpusort_status reduce_float(gpusort_ctx *ctx, const T *data, size_t n, gpusort_op op,
                            gpusort_value *r)
{
    gpusort_status s;
    if (op == GPUSORT_OP_SUM) {
        double acc = 0;
        if ((s = run<T, SumOp<T, double>>(ctx, data, n, &acc))) return s;
        r->f = acc;
        return s;
    }
    FloatAcc<T> v;
    s = op == GPUSORT_OP_MAX ? run<T, FloatMinMax<T, true>>(ctx, data, n, &v)
                             : run<T, FloatMinMax<T, false>>(ctx, data, n, &v);
    if (s) return s;
    r->f = (double)v.v;
    return s;
}

} // namespace

extern "C" gpusort_status gpusort__cuda_reduce(gpusort_ctx *ctx, gpusort_type type,
                                               const void *d_data, size_t n, gpusort_op op,
                                               gpusort_value *result)
{
    switch (type) {
    case GPUSORT_TYPE_U32:
        return reduce_int<uint32_t, unsigned long long>(ctx, (const uint32_t *)d_data, n, op,
                                                        result, false);
    case GPUSORT_TYPE_I32:
        return reduce_int<int32_t, unsigned long long>(ctx, (const int32_t *)d_data, n, op,
                                                       result, true);
    case GPUSORT_TYPE_U64:
        return reduce_int<uint64_t, unsigned long long>(ctx, (const uint64_t *)d_data, n, op,
                                                        result, false);
    case GPUSORT_TYPE_I64:
        /* two's complement wraps like unsigned: sum the bits as u64 */
        if (op == GPUSORT_OP_SUM)
            return reduce_int<uint64_t, unsigned long long>(ctx, (const uint64_t *)d_data, n, op,
                                                            result, false);
        return reduce_int<int64_t, unsigned long long>(ctx, (const int64_t *)d_data, n, op,
                                                       result, true);
    case GPUSORT_TYPE_F32: return reduce_float<float>(ctx, (const float *)d_data, n, op, result);
    case GPUSORT_TYPE_F64: return reduce_float<double>(ctx, (const double *)d_data, n, op, result);
    default:
        return gpusort__set_error(ctx, GPUSORT_STATUS_INVALID_ARGUMENT, "reduce type %d",
                                  (int)type);
    }
}

extern "C" size_t gpusort__cuda_reduce_scratch_bytes(gpusort_ctx *ctx)
{
    return 32 + (size_t)gpusort__cuda_props(ctx)->multiProcessorCount *
                    BLOCKS_PER_SM * 16;
}
