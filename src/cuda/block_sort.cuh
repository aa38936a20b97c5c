/*
 * block_sort.cuh -- INTERNAL device building blocks of the comparison sorts (bitonic.cu,
 * merge.cu, segmented.cu): the element ("item") they sort, the key transforms, and bitonic
 * networks at thread, warp and block level.
 *
 * ITEMS. Every comparison sort here orders "radix keys" (src/keys.h: an unsigned integer whose
 * unsigned order is the gpusort order, descending already folded in by complementing). An item
 * is a radix key plus, where needed, a 32-bit index:
 *   Item<K, true>   (k, i), compared as the pair (k, i). Indices are distinct, so no two items
 *                   are equal and ANY correct sorting network gives the one stable order.
 *                   Used when the sort must be stable and keys can differ while their radix keys
 *                   tie: float keys (-0.0 == +0.0, NaN payloads), pairs and argsort.
 *   Item<K, false>  k only: integer keys without values, where equal radix keys are identical
 *                   keys, so stability cannot be observed and the key is recovered exactly
 *                   from the radix key (from_rk). Also float keys without values when a check
 *                   pass found no NaN and no -0.0 (then the transform is a bijection, too).
 * The sentinel (all ones, index 0xffffffff) is greater than every real item: it pads a network
 * virtually (positions >= count hold it and never move; see below).
 *
 * NETWORK. The bitonic sorter in its "flip" form (all comparators ascending):
 *   for span k = 2, 4, ..., N:                      (sort blocks of k from blocks of k/2)
 *     flip:   compare p with p ^ (k - 1)            (p in the lower half of its block of k)
 *     for s = k/4, ..., 1: compare p with p + s     (half-cleaners, p with bit s clear)
 * Every comparator puts the smaller item at the lower position. Because all comparators point
 * the same way, a sentinel (maximal) at a position >= count never moves: comparators that touch
 * such a position are no-ops. So any count <= N is sorted by the N-network with sentinels, with
 * no caller-side padding and no data movement for the padding (Batcher 1968; the flip form is
 * the one of e.g. the CUDA samples' sortingNetworks and Peters et al. 2011).
 *
 * LEVELS. block_sort() keeps E consecutive positions per thread in registers ("blocked"):
 * spans up to E and the strides below E run in registers without any synchronisation; strides
 * from E to 16E connect lanes of one warp and run as warp shuffles (no barrier) for bare keys;
 * only strides >= 32E go through shared memory, one __syncthreads per step. Items with an index
 * take shared memory for every stride >= E (one 8/16-byte access beats two shuffles). Shared memory is padded (one slot
 * per 128 bytes) so that the blocked accesses tid*E + q hit distinct banks.
 * warp_sort() sorts up to 32 items, one per lane, with shuffles only.
 *
 * Exports (device): Item, cmpx, to_rk, from_rk, padi, thread_sort, thread_merge,
 * block_sort, block_merge_smem, warp_sort, pdl_wait_and_release; (host) launch_pdl.
 */
#ifndef GPUSORT_CUDA_BLOCK_SORT_CUH
#define GPUSORT_CUDA_BLOCK_SORT_CUH

#include <stdint.h>

#include <cuda_runtime.h>

#include "keys.h"

namespace gpusort_bs {

/* ---- keys ---- */

__device__ __forceinline__ uint32_t to_rk(uint32_t bits, int type, int desc)
{
    return gpusort__radix32(bits, type, desc);
}
__device__ __forceinline__ uint64_t to_rk(uint64_t bits, int type, int desc)
{
    return gpusort__radix64(bits, type, desc);
}
/* Inverse of to_rk: exact for the integer types; for floats only on keys that are neither NaN
 * nor -0.0 (the transform merges those with other keys; callers check, see float_exact). */
__device__ __forceinline__ uint32_t from_rk(uint32_t rk, int type, int desc)
{
    uint32_t r = desc ? ~rk : rk;
    if (type == 1 /* I32 */) return r ^ 0x80000000u;
    if (type == 2 /* F32 */) return (r & 0x80000000u) ? r ^ 0x80000000u : ~r;
    return r;
}
__device__ __forceinline__ uint64_t from_rk(uint64_t rk, int type, int desc)
{
    const uint64_t top = 0x8000000000000000ull;
    uint64_t r = desc ? ~rk : rk;
    if (type == 4 /* I64 */) return r ^ top;
    if (type == 5 /* F64 */) return (r & top) ? r ^ top : ~r;
    return r;
}

/* ---- items ---- */

template <typename K, bool IDX> struct Item;

template <typename K> struct Item<K, true> {
    static constexpr bool bare = false;
    K k;
    uint32_t i;
    static __device__ __forceinline__ Item sentinel()
    {
        Item t;
        t.k = ~(K)0;
        t.i = 0xffffffffu;
        return t;
    }
    static __device__ __forceinline__ Item make(K k, uint32_t i)
    {
        Item t;
        t.k = k;
        t.i = i;
        return t;
    }
    __device__ __forceinline__ bool lt(const Item &o) const
    {
        return k < o.k || (k == o.k && i < o.i);
    }
};

template <typename K> struct Item<K, false> {
    static constexpr bool bare = true;
    K k;
    static __device__ __forceinline__ Item sentinel()
    {
        Item t;
        t.k = ~(K)0;
        return t;
    }
    static __device__ __forceinline__ Item make(K k, uint32_t)
    {
        Item t;
        t.k = k;
        return t;
    }
    __device__ __forceinline__ bool lt(const Item &o) const { return k < o.k; }
};

/* Compare-exchange: a <= b afterwards. Bare keys: one min and one max, no branch. */
template <typename It> __device__ __forceinline__ void cmpx(It &a, It &b)
{
    if (b.lt(a)) {
        It t = a;
        a = b;
        b = t;
    }
}
template <> __device__ __forceinline__ void cmpx(Item<uint32_t, false> &a, Item<uint32_t, false> &b)
{
    uint32_t lo = min(a.k, b.k), hi = max(a.k, b.k);
    a.k = lo;
    b.k = hi;
}
template <> __device__ __forceinline__ void cmpx(Item<uint64_t, false> &a, Item<uint64_t, false> &b)
{
    uint64_t lo = min(a.k, b.k), hi = max(a.k, b.k);
    a.k = lo;
    b.k = hi;
}

/* Padded shared-memory slot of position p: one spare slot per 128 bytes of items, so that
 * threads reading E consecutive items each (p = tid*E + q) spread over the banks. */
template <typename It> __device__ __forceinline__ int padi(int p)
{
    return p + p / (int)(128 / sizeof(It) ? 128 / sizeof(It) : 1);
}
/* Shared memory (bytes) for a network of n items. */
template <typename It> __host__ __device__ constexpr size_t smem_bytes(int n)
{
    return (size_t)(n + n / (int)(128 / sizeof(It))) * sizeof(It);
}

/* ---- thread level: E items in registers (E a power of two, indices compile-time) ---- */

template <typename It, int E> __device__ __forceinline__ void thread_merge(It (&r)[E])
{
#pragma unroll
    for (int s = E / 2; s >= 1; s /= 2)
#pragma unroll
        for (int i = 0; i < E; i++)
            if ((i & s) == 0) cmpx(r[i], r[i + s]);
}

template <typename It, int E> __device__ __forceinline__ void thread_sort(It (&r)[E])
{
#pragma unroll
    for (int k = 2; k <= E; k *= 2) {
#pragma unroll
        for (int i = 0; i < E; i++) {
            int j = i ^ (k - 1);
            if (j > i) cmpx(r[i], r[j]);
        }
#pragma unroll
        for (int s = k / 4; s >= 1; s /= 2)
#pragma unroll
            for (int i = 0; i < E; i++)
                if ((i & s) == 0) cmpx(r[i], r[i + s]);
    }
}

/* One shared-memory comparator between positions lo < hi. */
template <typename It> __device__ __forceinline__ void cmpx_smem(It *sm, int lo, int hi)
{
    It a = sm[padi<It>(lo)], b = sm[padi<It>(hi)];
    if (b.lt(a)) {
        sm[padi<It>(lo)] = b;
        sm[padi<It>(hi)] = a;
    }
}

/* ---- warp level: up to 32 items, lane l holds position l ---- */

template <typename K> __device__ __forceinline__ Item<K, true> shfl_xor(Item<K, true> x, int m)
{
    x.k = __shfl_xor_sync(0xffffffffu, x.k, m);
    x.i = __shfl_xor_sync(0xffffffffu, x.i, m);
    return x;
}
template <typename K> __device__ __forceinline__ Item<K, false> shfl_xor(Item<K, false> x, int m)
{
    x.k = __shfl_xor_sync(0xffffffffu, x.k, m);
    return x;
}

/* Keep the smaller of (x, partner) on the lower lane of the pair, the larger on the upper. */
template <typename It> __device__ __forceinline__ It warp_cmpx(It x, int m, bool lower)
{
    It y = shfl_xor(x, m);
    bool take = lower ? y.lt(x) : x.lt(y);
    return take ? y : x;
}
template <> __device__ __forceinline__ Item<uint32_t, false> warp_cmpx(Item<uint32_t, false> x, int m,
                                                                    bool lower)
{
    uint32_t y = __shfl_xor_sync(0xffffffffu, x.k, m);
    x.k = lower ? min(x.k, y) : max(x.k, y);
    return x;
}

template <typename It> __device__ __forceinline__ It warp_sort(It x)
{
    const int l = threadIdx.x & 31;
#pragma unroll
    for (int k = 2; k <= 32; k *= 2) {
        x = warp_cmpx(x, k - 1, (l & (k / 2)) == 0);
#pragma unroll
        for (int s = k / 4; s >= 1; s /= 2) x = warp_cmpx(x, s, (l & s) == 0);
    }
    return x;
}

/* Half-cleaner steps with strides from `top` down to `bottom` (>= E) in shared memory, one
 * barrier each. Thread tid handles comparators c = tid + q*THREADS (consecutive threads touch
 * consecutive positions: no bank conflicts). */
template <typename It, int THREADS, int E>
__device__ __forceinline__ void smem_half_cleaners(It *sm, int top, int bottom)
{
    const int tid = threadIdx.x;
    for (int s = top; s >= bottom; s /= 2) {
#pragma unroll
        for (int q = 0; q < E / 2; q++) {
            int c = tid + q * THREADS;
            int lo = ((c & ~(s - 1)) << 1) | (c & (s - 1));
            cmpx_smem(sm, lo, lo + s);
        }
        __syncthreads();
    }
}

/* Strides E <= s < 32E connect positions tid*E + q of lanes of ONE warp (same q, lane ^ s/E):
 * shuffles, no barrier. */
template <typename It, int E> __device__ __forceinline__ void warp_half(It (&r)[E], int s)
{
    const int lane = threadIdx.x & 31, m = s / E;
    const bool lower = (lane & m) == 0;
#pragma unroll
    for (int q = 0; q < E; q++) r[q] = warp_cmpx(r[q], m, lower);
}

/* The flip of span k (2E <= k <= 32E): position p pairs with p ^ (k-1), i.e. lane ^ (k/E - 1)
 * and register E-1-q. */
template <typename It, int E> __device__ __forceinline__ void warp_flip(It (&r)[E], int k)
{
    const int lane = threadIdx.x & 31, m = k / E - 1;
    const bool lower = (lane & (k / (2 * E))) == 0;
    It y[E];
#pragma unroll
    for (int q = 0; q < E; q++) y[q] = shfl_xor(r[E - 1 - q], m);
#pragma unroll
    for (int q = 0; q < E; q++) {
        bool take = lower ? y[q].lt(r[q]) : r[q].lt(y[q]);
        if (take) r[q] = y[q];
    }
}

/*
 * block_sort: THREADS threads sort N = THREADS*E items. On entry r[] holds this thread's
 * positions tid*E .. tid*E+E-1 (blocked); on return the same positions, sorted. sm holds
 * smem_bytes<It>(N) bytes. Strides < E: registers; E .. 16E: warp shuffles; >= 32E: shared
 * memory. Ends without a barrier: the caller syncs before reusing sm.
 */
template <typename It, int THREADS, int E>
__device__ __forceinline__ void block_sort(It (&r)[E], It *sm)
{
    constexpr int N = THREADS * E;
    /* Positions held by one warp. Items with an index need two shuffles and a two-part compare
     * per item, where a shared-memory step moves them as one 8/16-byte word: they keep the
     * shared-memory path for every stride >= E (WN = E). */
    constexpr int WN = It::bare ? 32 * E : E;
    const int tid = threadIdx.x;
    thread_sort<It, E>(r);
#pragma unroll 1
    for (int k = 2 * E; k <= N; k *= 2) {
        if (k <= WN) {
            warp_flip<It, E>(r, k);
            for (int s = k / 4; s >= E; s /= 2) warp_half<It, E>(r, s);
        } else {
#pragma unroll
            for (int q = 0; q < E; q++) sm[padi<It>(tid * E + q)] = r[q];
            __syncthreads();
            const int h = k / 2;
#pragma unroll
            for (int q = 0; q < E / 2; q++) {  /* flip: p <-> p ^ (k-1) */
                int c = tid + q * THREADS;
                int lo = ((c & ~(h - 1)) << 1) | (c & (h - 1));
                cmpx_smem(sm, lo, lo ^ (k - 1));
            }
            __syncthreads();
            smem_half_cleaners<It, THREADS, E>(sm, k / 4, WN);
#pragma unroll
            for (int q = 0; q < E; q++) r[q] = sm[padi<It>(tid * E + q)];
            for (int s = k / 4 < WN / 2 ? k / 4 : WN / 2; s >= E; s /= 2) warp_half<It, E>(r, s);
        }
        thread_merge<It, E>(r);
    }
}

/*
 * block_merge_smem: the last steps of a larger network: half-cleaners with strides N/2 .. 1 on
 * N = THREADS*E items that the caller stored in sm (padded positions) and synced. On return r[]
 * holds this thread's blocked positions, merged.
 */
template <typename It, int THREADS, int E>
__device__ __forceinline__ void block_merge_smem(It (&r)[E], It *sm)
{
    constexpr int N = THREADS * E;
    constexpr int WN = It::bare ? 32 * E : E;  /* see block_sort */
    const int tid = threadIdx.x;
    smem_half_cleaners<It, THREADS, E>(sm, N / 2, WN);
#pragma unroll
    for (int q = 0; q < E; q++) r[q] = sm[padi<It>(tid * E + q)];
    for (int s = N / 2 < WN / 2 ? N / 2 : WN / 2; s >= E; s /= 2) warp_half<It, E>(r, s);
    thread_merge<It, E>(r);
}

/* ---- programmatic dependent launch (sm_90), used by the multi-kernel sorts ----
 * A kernel launched by launch_pdl(..., pdl = 1, ...) may be scheduled while the previous kernel
 * of the stream finishes; it calls pdl_wait_and_release() FIRST, which waits until that kernel
 * has completed and its memory is visible (a no-op when launched without the attribute), then
 * lets its own successor be scheduled. Everything else keeps plain stream order, so only the
 * launch gap between dependent kernels is hidden (bitonic.cu: 97.4 -> 94.6 us at 2^20). */
__device__ __forceinline__ void pdl_wait_and_release()
{
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
    asm volatile("griddepcontrol.wait;" ::: "memory");
    asm volatile("griddepcontrol.launch_dependents;" :::);
#endif
}

/* Launch kern<<<grid, block, smem, st>>>(args...) with the PDL attribute when pdl. Errors are
 * left for the caller's cudaGetLastError. */
template <typename... P, typename... A>
static void launch_pdl(void (*kern)(P...), unsigned grid, unsigned block, size_t smem,
                       cudaStream_t st, int pdl, A... args)
{
    cudaLaunchConfig_t cfg = {};
    cfg.gridDim = dim3(grid);
    cfg.blockDim = dim3(block);
    cfg.dynamicSmemBytes = smem;
    cfg.stream = st;
    cudaLaunchAttribute at[1];
    at[0].id = cudaLaunchAttributeProgrammaticStreamSerialization;
    at[0].val.programmaticStreamSerializationAllowed = 1;
    cfg.attrs = at;
    cfg.numAttrs = pdl ? 1 : 0;
    (void)cudaLaunchKernelEx(&cfg, kern, args...);
}

}  // namespace gpusort_bs

#endif /* GPUSORT_CUDA_BLOCK_SORT_CUH */
