/*
 * warp_sort.cuh -- INTERNAL (CUDA): the warp level of the bitonic networks (thread_sort.cuh
 * states the network): comparators between lanes of one warp, by shuffles, with no shared
 * memory and no barrier.
 *
 *   warp_sort       up to 32 items, one per lane (lane l holds position l): the whole network
 *   warp_half       one half-cleaner stride E <= s < 32E over the blocked layout of block_sort
 *                   (lane l holds positions l*E .. l*E + E-1): register q of lane l pairs with
 *                   register q of lane l ^ s/E
 *   warp_flip       the flip of span 2E <= k <= 32E over the same layout: register q of lane l
 *                   pairs with register E-1-q of lane l ^ (k/E - 1)
 * Bare 32-bit keys exchange one word per comparator; items with an index two (warp_cmpx).
 *
 * Exports (device, namespace gpusort_bs): shfl_xor, warp_cmpx, warp_sort, warp_half,
 * warp_flip.
 */
#ifndef GPUSORT_CUDA_WARP_SORT_CUH
#define GPUSORT_CUDA_WARP_SORT_CUH

#include "thread_sort.cuh"

namespace gpusort_bs {

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

}  // namespace gpusort_bs

#endif /* GPUSORT_CUDA_WARP_SORT_CUH */
