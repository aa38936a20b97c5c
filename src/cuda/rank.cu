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
 * SMALL n (<= RK_SMALL_MAX = 8192): ONE launch, no scratch, no memset, nothing to synchronise.
 * There the call's cost is launch latency, not counting (2^12 keys: 16.7M comparisons, ~1 us of
 * the GPU's issue rate), so the seed's direct count is kept, only spread so that every block
 * finishes its keys alone: block b owns RK_SW = 32 keys i (one per lane) and ALL keys j; its 32
 * warps each count one slice of the j range (radix keys staged in shared memory, read as
 * broadcasts), the 32 partial counts of each key are added in shared memory, and the block
 * scatters its own keys. No block waits for another, so no counter needs zeroing (the large
 * path's atomics need a memset and a second launch for the tile sort). Per comparison: the
 * j-slices that lie wholly below (above) the block's 32 keys count rk_j <= rk_i (rk_j < rk_i);
 * only the slice that holds them compares indices.
 *
 * Scratch: KEYS (sorted tiles, n items); AUX (n + groups) * 4 bytes of counters; in place,
 * AUX2/VALUES copies of the input (both paths: other blocks still read the input while one
 * scatters). The small path needs no scratch out of place.
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

#define RK_SMALL_MAX 8192   /* one-launch direct count up to here (2^13: ~5 us of compares) */
#define RK_SW 32            /* small path: keys i per block (one per lane) */
#define RK_SWARPS 32        /* small path: warps per block, each one slice of the keys j */
#define RK_SCHUNK 4096      /* small path: keys j staged in shared memory at a time (32 KiB
                             * of 64-bit radix keys, within the 48 KiB default) */

/* Count the staged radix keys sk[from .. to) below ri (LE: at or below), 16 bytes per shared-memory
 * read (from, to: multiples of 4). */
template <bool LE>
__device__ __forceinline__ uint32_t count_vec(const uint32_t *sk, uint32_t from, uint32_t to,
                                              uint32_t ri)
{
    uint32_t c = 0;
    const uint4 *v = (const uint4 *)(sk + from);
#pragma unroll 4
    for (uint32_t q = 0; q < (to - from) / 4; q++) {
        const uint4 y = v[q];
        if (LE) c += (y.x <= ri) + (y.y <= ri) + (y.z <= ri) + (y.w <= ri);
        else c += (y.x < ri) + (y.y < ri) + (y.z < ri) + (y.w < ri);
    }
    return c;
}
template <bool LE>
__device__ __forceinline__ uint32_t count_vec(const uint64_t *sk, uint32_t from, uint32_t to,
                                              uint64_t ri)
{
    uint32_t c = 0;
    const ulonglong2 *v = (const ulonglong2 *)(sk + from);
#pragma unroll 4
    for (uint32_t q = 0; q < (to - from) / 2; q++) {
        const ulonglong2 y = v[q];
        if (LE) c += (y.x <= ri) + (y.y <= ri);
        else c += (y.x < ri) + (y.y < ri);
    }
    return c;
}

/* Small-n rank sort, one launch: see SMALL n in the header. Block b: keys i = b*32 + lane. */
template <typename K>
__global__ void __launch_bounds__(RK_SW * RK_SWARPS)
    k_rank_small(const K *keys, uint32_t n, int type, int desc, K *kout, const void *vin,
                 void *vout, int vbytes)
{
    /* + 128: the slices are rounded up to multiples of 4 keys, padded with the largest key
     * (beyond n: counted as "above every i", where it never counts) */
    __shared__ __align__(16) K sk[RK_SCHUNK + 128];
    __shared__ uint32_t part[RK_SWARPS][RK_SW + 1];
    const int lane = threadIdx.x & 31, w = threadIdx.x >> 5;
    const uint32_t ib = blockIdx.x * RK_SW, i = ib + lane;
    const K ki = i < n ? keys[i] : (K)0;
    const K ri = to_rk(ki, type, desc);
    uint64_t vi = i;  /* the value goes with the key: loaded now, stored at the end */
    if (vin && i < n) vi = vbytes == 4 ? ((const uint32_t *)vin)[i] : ((const uint64_t *)vin)[i];
    uint32_t c = 0;
    for (uint32_t j0 = 0; j0 < n; j0 += RK_SCHUNK) {
        const uint32_t m = n - j0 < RK_SCHUNK ? n - j0 : RK_SCHUNK;
        /* this warp's slice [a, a + per) of the chunk (chunk positions; global j0 + ...) */
        const uint32_t per = ((m + RK_SWARPS - 1) / RK_SWARPS + 3) & ~3u;
        if (j0) __syncthreads();
        /* all loads first, then the stores: one memory latency, not one per key */
        constexpr int LOADS = (RK_SCHUNK + 128 + RK_SW * RK_SWARPS - 1) / (RK_SW * RK_SWARPS);
        K v[LOADS];
#pragma unroll
        for (int q = 0; q < LOADS; q++) {
            const uint32_t p = threadIdx.x + q * RK_SW * RK_SWARPS;
            v[q] = p < m ? keys[j0 + p] : (K)0;
        }
#pragma unroll
        for (int q = 0; q < LOADS; q++) {
            const uint32_t p = threadIdx.x + q * RK_SW * RK_SWARPS;
            if (p < per * RK_SWARPS) sk[p] = p < m ? to_rk(v[q], type, desc) : ~(K)0;
        }
        __syncthreads();
        const uint32_t a = w * per, e = a + per;
        /* [a, b1): every j below every i of this block, count rk_j <= rk_i; [b1, b2): the
         * block's own 32 positions, compare (rk, index); [b2, e): every j above, rk_j < rk_i */
        const int64_t own = (int64_t)ib - j0;
        const uint32_t b1 = own <= a ? a : own >= e ? e : (uint32_t)own;
        const uint32_t b2 = own + RK_SW <= a ? a : own + RK_SW >= e ? e : (uint32_t)(own + RK_SW);
        c += count_vec<true>(sk, a, b1, ri);
        for (uint32_t p = b1; p < b2; p++) {
            const K y = sk[p];
            c += y < ri || (y == ri && j0 + p < i);
        }
        c += count_vec<false>(sk, b2, e, ri);
    }
    part[w][lane] = c;
    __syncthreads();
    if (w != 0 || i >= n) return;
    uint32_t r = 0;
#pragma unroll
    for (int q = 0; q < RK_SWARPS; q++) r += part[q][lane];
    kout[r] = ki;
    if (vbytes == 4) ((uint32_t *)vout)[r] = (uint32_t)vi;
    else if (vbytes == 8) ((uint64_t *)vout)[r] = vi;
}

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
    if (n <= RK_SMALL_MAX) {
        const unsigned blocks = (n + RK_SW - 1) / RK_SW;
        const int desc = d->order == GPUSORT_ORDER_DESC;
        void *vout = vs ? d->values_out : NULL;
        if (ks == 8)
            k_rank_small<uint64_t><<<blocks, RK_SW * RK_SWARPS, 0, st>>>(
                (const uint64_t *)kin, n, d->key_type, desc, (uint64_t *)d->keys_out, vin, vout,
                (int)vs);
        else
            k_rank_small<uint32_t><<<blocks, RK_SW * RK_SWARPS, 0, st>>>(
                (const uint32_t *)kin, n, d->key_type, desc, (uint32_t *)d->keys_out, vin, vout,
                (int)vs);
        return gpusort__cuda_check(ctx, cudaGetLastError(), "rank kernel (small n)");
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
