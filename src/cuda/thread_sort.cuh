/*
 * thread_sort.cuh -- INTERNAL (CUDA): the thread level of the comparison sorts (bitonic.cu,
 * merge.cu, rank.cu, block_sort.cu): the element ("item") they sort, the key transforms, the
 * compare-exchange, and bitonic networks over one thread's registers.
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
 * virtually (block_sort.cuh says how).
 *
 * NETWORK. The bitonic sorter in its "flip" form (all comparators ascending):
 *   for span k = 2, 4, ..., N:                      (sort blocks of k from blocks of k/2)
 *     flip:   compare p with p ^ (k - 1)            (p in the lower half of its block of k)
 *     for s = k/4, ..., 1: compare p with p + s     (half-cleaners, p with bit s clear)
 * Every comparator puts the smaller item at the lower position (Batcher 1968; the flip form is
 * the one of e.g. the CUDA samples' sortingNetworks and Peters et al. 2011). thread_sort runs
 * the whole network on E registers, thread_merge the half-cleaners of its last span; the warp
 * and block levels (warp_sort.cuh, block_sort.cuh) run the larger strides.
 *
 * Exports (device, namespace gpusort_bs): to_rk, from_rk, Item, cmpx, thread_sort,
 * thread_merge.
 */
#ifndef GPUSORT_CUDA_THREAD_SORT_CUH
#define GPUSORT_CUDA_THREAD_SORT_CUH

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
    if (type == 2 /* F32 */) return (r & 0x80000000u) ? r ^ 0x80000000u : 0u - r;
    return r;
}
__device__ __forceinline__ uint64_t from_rk(uint64_t rk, int type, int desc)
{
    const uint64_t top = 0x8000000000000000ull;
    uint64_t r = desc ? ~rk : rk;
    if (type == 4 /* I64 */) return r ^ top;
    if (type == 5 /* F64 */) return (r & top) ? r ^ top : 0ull - r;
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

}  // namespace gpusort_bs

#endif /* GPUSORT_CUDA_THREAD_SORT_CUH */
