/*
 * rank.cu -- rank sort (seed 003) for small n: every key's output position is counted directly.
 *
 * Exports: gpusort__cuda_rank_sort (cuda_internal.h).
 *
 * ALGORITHM. position(i) = #{j : key_j < key_i} + #{j < i : key_j == key_i}, keys compared as
 * radix keys (src/keys.h: the float order with NaN and -0.0 == +0.0, and descending, come for
 * free). The second term makes the positions a permutation when keys repeat (the seed assumed
 * unique keys) and makes the sort stable. Both terms together are one count: the number of
 * pairs (rk_j, j) lexicographically below (rk_i, i).
 *
 * TILED COUNTING. The j range is cut into tiles of 1024 keys. Each tile is first sorted on chip
 * as (radix key, index) pairs (block_sort.cuh, one block per tile, written to scratch). Then a
 * block of the counting kernel takes 1024 keys i (256 threads x 4) and a run of tiles: it loads
 * each sorted tile into shared memory and counts the pairs below (rk_i, i) by a binary search
 * (10 probes) instead of 1024 comparisons -- the same count, 100x fewer operations than the
 * seed's scan, so the O(n^2 / 1024 * log 1024) work stays far below the O(n^2) compare-and-add
 * of the seed. Blocks that share keys i add their partial counts with atomicAdd; the LAST block
 * to finish for a group of keys (a per-group ticket after __threadfence) scatters that group's
 * keys and values to their positions. One memset, the tile sort and one counting kernel.
 * The cap: n <= GPUSORT_CUDA_RANK_MAX_N (65536); above it the call answers UNSUPPORTED (the work
 * still grows as n^2: radix or merge instead).
 *
 * Scratch: KEYS (sorted tiles, n items); AUX (n + groups) * 4 bytes of counters; in place,
 * AUX2/VALUES copies of the input.
 */
#include "cuda_internal.h"
#include "block_sort.cuh"
#include "block_sort.h"

#include <string.h>

using namespace gpusort_bs;

#define RK_THREADS 256
#define RK_PER 4                         /* keys i per thread */
#define RK_GROUP (RK_THREADS * RK_PER)   /* keys i per block */
#define RK_TILE 1024                     /* keys j per sorted tile */

template <typename K>
__global__ void __launch_bounds__(RK_THREADS)
    k_rank(const K *keys, const Item<K, true> *tiles, uint32_t n, int type, int desc,
           uint32_t tiles_per_block, uint32_t *rank, uint32_t *ticket, K *kout, const void *vin,
           void *vout, int vbytes)
{
    typedef Item<K, true> It;
    __shared__ It st[RK_TILE];
    __shared__ int s_last;
    const int tid = threadIdx.x;
    const uint32_t ib = blockIdx.x * RK_GROUP;
    It x[RK_PER];
    uint32_t c[RK_PER];
#pragma unroll
    for (int q = 0; q < RK_PER; q++) {
        uint32_t i = ib + q * RK_THREADS + tid;
        x[q] = It::make(i < n ? to_rk(keys[i], type, desc) : (K)0, i);
        c[q] = 0;
    }
    const uint32_t ntiles = (n + RK_TILE - 1) / RK_TILE;
    const uint32_t t0 = blockIdx.y * tiles_per_block;
    const uint32_t t1 = t0 + tiles_per_block < ntiles ? t0 + tiles_per_block : ntiles;
    for (uint32_t t = t0; t < t1; t++) {
        const uint32_t jt = t * RK_TILE;
        const int m = n - jt < RK_TILE ? (int)(n - jt) : RK_TILE;
        __syncthreads();
#pragma unroll
        for (int q = 0; q < RK_TILE / RK_THREADS; q++) {
            int p = q * RK_THREADS + tid;
            if (p < m) st[p] = tiles[jt + p];
        }
        __syncthreads();
        /* count of tile items below x: branch-free lower bound, 10 probes */
#pragma unroll
        for (int q = 0; q < RK_PER; q++) {
            int lo = 0;
#pragma unroll
            for (int step = RK_TILE / 2; step > 0; step /= 2)
                if (lo + step <= m && st[lo + step - 1].lt(x[q])) lo += step;
            if (lo < m && st[lo].lt(x[q])) lo++;  /* m may not be a power of two */
            c[q] += lo;
        }
    }
    const bool alone = gridDim.y == 1;
    if (!alone) {
#pragma unroll
        for (int q = 0; q < RK_PER; q++) {
            uint32_t i = ib + q * RK_THREADS + tid;
            if (i < n && c[q]) atomicAdd(&rank[i], c[q]);
        }
        __threadfence();
        __syncthreads();
        if (tid == 0) s_last = atomicAdd(&ticket[blockIdx.x], 1u) == gridDim.y - 1;
        __syncthreads();
        if (!s_last) return;
        __threadfence();
    }
    /* This block holds the final counts of its keys (its own, or the last ticket's). */
#pragma unroll
    for (int q = 0; q < RK_PER; q++) {
        uint32_t i = ib + q * RK_THREADS + tid;
        if (i >= n) continue;
        uint32_t r = alone ? c[q] : __ldcg(&rank[i]);
        kout[r] = keys[i];
        if (vbytes == 4) ((uint32_t *)vout)[r] = vin ? ((const uint32_t *)vin)[i] : i;
        else if (vbytes == 8) ((uint64_t *)vout)[r] = vin ? ((const uint64_t *)vin)[i] : (uint64_t)i;
    }
}

extern "C" gpusort_status gpusort__cuda_rank_sort(gpusort_ctx *ctx, const gpusort_sort_desc *d)
{
    if (d->n > GPUSORT_CUDA_RANK_MAX_N)
        return gpusort__set_error(ctx, GPUSORT_STATUS_UNSUPPORTED,
                                  "rank sort takes n <= %zu (O(n^2) work); n = %zu: use radix or "
                                  "merge", (size_t)GPUSORT_CUDA_RANK_MAX_N, d->n);
    cudaStream_t st = gpusort__cuda_stream(ctx);
    const uint32_t n = (uint32_t)d->n;
    const size_t ks = gpusort_type_size(d->key_type);
    const size_t vs = d->value_type == GPUSORT_TYPE_NONE ? 0 : gpusort_type_size(d->value_type);
    gpusort_status s;
    const void *kin = d->keys_in, *vin = d->values_in;
    /* In place: other blocks still read the keys while the scatter writes. */
    if (d->keys_out == d->keys_in) {
        void *c = gpusort__cuda_scratch(ctx, GPUSORT_CUDA_SCRATCH_AUX2, n * ks);
        if (!c) return GPUSORT_STATUS_OUT_OF_DEVICE_MEMORY;
        if ((s = gpusort__cuda_check(ctx, cudaMemcpyAsync(c, kin, n * ks, cudaMemcpyDeviceToDevice, st),
                                     "cudaMemcpyAsync (rank input copy)")))
            return s;
        kin = c;
    }
    if (vs && vin && d->values_out == d->values_in) {
        void *c = gpusort__cuda_scratch(ctx, GPUSORT_CUDA_SCRATCH_VALUES, n * vs);
        if (!c) return GPUSORT_STATUS_OUT_OF_DEVICE_MEMORY;
        if ((s = gpusort__cuda_check(ctx, cudaMemcpyAsync(c, vin, n * vs, cudaMemcpyDeviceToDevice, st),
                                     "cudaMemcpyAsync (rank value copy)")))
            return s;
        vin = c;
    }
    const uint32_t groups = (n + RK_GROUP - 1) / RK_GROUP;
    const uint32_t ntiles = (n + RK_TILE - 1) / RK_TILE;
    /* About 4 blocks per SM: the tiles of one group of keys are split over `chunks` blocks. */
    uint32_t want = 4 * (uint32_t)gpusort__cuda_props(ctx)->multiProcessorCount;
    uint32_t chunks = (want + groups - 1) / groups;
    if (chunks > ntiles) chunks = ntiles;
    if (chunks < 1) chunks = 1;
    uint32_t per = (ntiles + chunks - 1) / chunks;
    chunks = (ntiles + per - 1) / per;
    const size_t isz = ks == 8 ? 16 : 8;  /* Item<K, true> */
    void *tiles = gpusort__cuda_scratch(ctx, GPUSORT_CUDA_SCRATCH_KEYS, (size_t)n * isz);
    uint32_t *cnt = (uint32_t *)gpusort__cuda_scratch(ctx, GPUSORT_CUDA_SCRATCH_AUX,
                                                      ((size_t)n + groups) * 4);
    if (!tiles || !cnt) return GPUSORT_STATUS_OUT_OF_DEVICE_MEMORY;
    if (chunks > 1 &&
        (s = gpusort__cuda_check(ctx, cudaMemsetAsync(cnt, 0, ((size_t)n + groups) * 4, st),
                                 "cudaMemsetAsync (rank counters)")))
        return s;
    /* Sorted tiles of (radix key, index): the block sort in item mode (indices always). */
    gpusort_bs_args a;
    memset(&a, 0, sizeof a);
    a.keys_in = kin;
    a.items_out = tiles;
    a.type = d->key_type;
    a.desc = d->order == GPUSORT_ORDER_DESC;
    a.vbytes = ks == 8 ? 8 : 4;  /* > 0: items carry their index (see block_sort_launch) */
    a.tiling = 0;
    a.n = n;
    a.tile = RK_TILE;
    if ((s = gpusort__cuda_block_sort_launch(ctx, &a, n < RK_TILE ? n : RK_TILE, ntiles))) return s;
    dim3 grid(groups, chunks);
    if (ks == 8)
        k_rank<uint64_t><<<grid, RK_THREADS, 0, st>>>(
            (const uint64_t *)kin, (const Item<uint64_t, true> *)tiles, n, d->key_type,
            d->order == GPUSORT_ORDER_DESC, per, cnt, cnt + n, (uint64_t *)d->keys_out, vin,
            vs ? d->values_out : NULL, (int)vs);
    else
        k_rank<uint32_t><<<grid, RK_THREADS, 0, st>>>(
            (const uint32_t *)kin, (const Item<uint32_t, true> *)tiles, n, d->key_type,
            d->order == GPUSORT_ORDER_DESC, per, cnt, cnt + n, (uint32_t *)d->keys_out, vin,
            vs ? d->values_out : NULL, (int)vs);
    return gpusort__cuda_check(ctx, cudaGetLastError(), "rank kernel");
}
