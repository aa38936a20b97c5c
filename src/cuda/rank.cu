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
 * SMALL n (<= RK_SMALL_MAX = 8192): ONE launch, no scratch, no memset, nothing to synchronise
 * (the large path's atomics need a memset, and its sorted tiles a second launch). Every block
 * finishes its own keys alone: block b owns RK_SW = 32 keys i, ranked among themselves (warp
 * w counts the keys below key w: one shuffle, one ballot), which cut the key space into 33
 * intervals; each of the 1024 threads takes up to 8 keys j of the whole input and finds the
 * interval of (rk_j, j) by a 6-probe binary search of the block's sorted radix keys (keys j
 * before the block count the keys i below rk_j, keys j after it those at or below: the index
 * tie-break without comparing indices), counted in per-warp bins; then rank(s-th smallest key
 * of the block) = #{j in bins 0..s} - 1 (the key itself lies in bin s), a prefix sum over the
 * bins. That is the same count as above with 6 probes per key j instead of 32 comparisons.
 * Measured on the H200, 2^12 keys: the kernel takes 3.7-3.8 us (ncu, warm caches) where an
 * empty kernel takes 1.3-1.6 us (bench/results/seeds-2026-11-22c.md); a call timed with events
 * around it 7.8 us, 10.7x the seed's kernel (bench/results/device-final-2026-11-24.md).
 *
 * Scratch: KEYS (sorted tiles, n items); AUX (n + groups) * 4 bytes of counters; in place,
 * AUX2/VALUES copies of the input (both paths: other blocks still read the input while one
 * scatters). The small path needs no scratch out of place.
 */
#include "block_sort.h"
#include "thread_radix_key.cuh"
#include "thread_sort.cuh"

#include <string.h>

using namespace gpusort_bs;

#define RK_THREADS 256
#define RK_PER 4                         /* keys i per thread */
#define RK_GROUP (RK_THREADS * RK_PER)   /* keys i per block */
#define RK_TILE 1024                     /* keys j per sorted tile */

#define RK_SMALL_MAX 8192  /* one-launch path up to here (see SMALL n) */
#define RK_SW 32           /* small path: keys i per block (one warp ranks them) */
/* Small path: threads per block, RK_SMALL_MAX / 1024 = 8 keys j each at most. 1024 is faster
 * than 512 (bench/results/seeds-2026-11-22c.md); at most 32 registers, so two blocks fit an SM
 * at 2^13. */
#define RK_SMALL_THREADS 1024

/* Small path (see SMALL n above). Block b: keys i in [ib, ib + 32).
 *   1. the 32 items (radix key, index) are ranked among themselves: warp w compares key w with
 *      all 32 (one shuffle, one ballot; a bitonic warp sort is 15 dependent steps); the sorted
 *      keys go to sk[], the ranks to srank[].
 *   2. every thread takes keys j of the whole input (LOADS = 1, 2, 4 or 8 of them by n,
 *      loaded first) and finds bin(j) = #{block items below (rk_j, j)}: for j before the
 *      block every block index is larger, so that is #{sk < rk_j}; for j after it
 *      #{sk <= rk_j}; both are one 5+1-probe search of 32-bit (or 64-bit) keys, without the
 *      index; for j in the block, its rank. bins: one row per warp, shared atomics (no
 *      exchange between rounds: the LOADS searches of a thread overlap).
 *   3. warp 0: c_s = #{j : bin(j) <= s} (a prefix sum over the rows), and the block item of
 *      rank s lands at c_s - 1; lane l writes its own key i and value at c_{srank[l]} - 1.
 * Lanes past n (last block) hold the largest key and rank last; they are never counted below a
 * real key j: for j before the block "sk < rk_j" fails for the largest key, and no j lies after
 * the last block. */
template <typename K, bool FLOAT, int LOADS /* keys j per thread: n <= LOADS * THREADS */>
__global__ void __launch_bounds__(RK_SMALL_THREADS)
    k_rank_small(const K *keys, uint32_t n, K mask, K *kout, const void *vin, void *vout,
                 int vbytes)
{
    constexpr int THREADS = RK_SMALL_THREADS;
    constexpr int WARPS = THREADS / 32;
    __shared__ K sk[RK_SW];
    __shared__ int srank[RK_SW];
    __shared__ uint32_t bins[WARPS][RK_SW + 1];
    const int lane = threadIdx.x & 31, w = threadIdx.x >> 5;
    const uint32_t ib = blockIdx.x * RK_SW;
    K v[LOADS];  /* all loads first: one memory latency */
#pragma unroll
    for (int q = 0; q < LOADS; q++) {
        const uint32_t j = threadIdx.x + q * THREADS;
        v[q] = j < n ? keys[j] : (K)0;
    }
    bins[w][lane] = 0;
    if (lane == 0) bins[w][RK_SW] = 0;
    /* Every warp loads the block's keys i, one per lane; warp w ranks key w among them with
     * one shuffle and one ballot (lane order = index order breaks ties). */
    static_assert(WARPS >= RK_SW, "one warp per key i");
    const uint32_t i = ib + lane;
    const K own = i < n ? keys[i] : (K)0;
    const K x = i < n ? gpusort_cuda::radix_key<FLOAT>(own, mask) : ~(K)0;
    uint64_t own_v = i;  /* warp 0: the value of key i (argsort: its index) */
    if (w == 0 && vin && i < n)
        own_v = vbytes == 4 ? ((const uint32_t *)vin)[i] : ((const uint64_t *)vin)[i];
    if (w < RK_SW) {
        const K xw = __shfl_sync(0xffffffffu, x, w);
        const int rw = __popc(__ballot_sync(0xffffffffu, x < xw || (x == xw && lane < w)));
        if (lane == 0) {
            sk[rw] = xw;
            srank[w] = rw;
        }
    }
    __syncthreads();
    /* Straight-line code for every key j (no branch around the search, no early exit: LOADS is
     * a template parameter), so that the LOADS searches of a thread overlap. */
#pragma unroll
    for (int q = 0; q < LOADS; q++) {
        const uint32_t j = threadIdx.x + q * THREADS;
        const K y = gpusort_cuda::radix_key<FLOAT>(v[q], mask);
        /* #{sk <= t}: t = rk_j after the block, rk_j - 1 before it (none when rk_j = 0) */
        const bool before = j < ib;
        const K t = before ? y - 1 : y;
        int lo = 0;
#pragma unroll
        for (int step = RK_SW / 2; step >= 1; step /= 2)
            if (sk[lo + step - 1] <= t) lo += step;
        lo += sk[lo] <= t;
        if (before && y == 0) lo = 0;
        if (j - ib < (uint32_t)RK_SW) lo = srank[j - ib];  /* j in the block: its rank */
        if (j < n) atomicAdd(&bins[w][lo], 1u);
    }
    __syncthreads();
    if (w != 0) return;
    uint32_t c0 = 0, c1 = 0;  /* two chains of adds, not one of WARPS */
#pragma unroll
    for (int q = 0; q < WARPS; q += 2) {
        c0 += bins[q][lane];
        c1 += bins[q + 1][lane];
    }
    uint32_t c = c0 + c1;
#pragma unroll
    for (int d = 1; d < 32; d *= 2) {
        const uint32_t t = __shfl_up_sync(0xffffffffu, c, d);
        if (lane >= d) c += t;
    }
    const uint32_t r = __shfl_sync(0xffffffffu, c, srank[lane]) - 1;
    if (ib + lane >= n) return;
    kout[r] = own;
    if (vbytes == 4) ((uint32_t *)vout)[r] = (uint32_t)own_v;
    else if (vbytes == 8) ((uint64_t *)vout)[r] = own_v;
}

template <typename K>
static void rank_small_launch(const gpusort__sort_args *d, const void *kin, const void *vin,
                              cudaStream_t st)
{
    const uint32_t n = (uint32_t)d->n;
    const unsigned blocks = (n + RK_SW - 1) / RK_SW;
    const K mask = (K)gpusort_cuda::radix_mask(d->key_type, d->order);
    const bool flt = d->key_type == GPUSORT_TYPE_F32 || d->key_type == GPUSORT_TYPE_F64;
    const size_t vs = d->value_type == GPUSORT_TYPE_NONE ? 0 : gpusort_type_size(d->value_type);
    void *vout = vs ? d->values_out : NULL;
    void (*kern)(const K *, uint32_t, K, K *, const void *, void *, int);
    if (n <= RK_SMALL_THREADS) kern = flt ? k_rank_small<K, true, 1> : k_rank_small<K, false, 1>;
    else if (n <= 2 * RK_SMALL_THREADS) kern = flt ? k_rank_small<K, true, 2> : k_rank_small<K, false, 2>;
    else if (n <= 4 * RK_SMALL_THREADS) kern = flt ? k_rank_small<K, true, 4> : k_rank_small<K, false, 4>;
    else kern = flt ? k_rank_small<K, true, 8> : k_rank_small<K, false, 8>;
    static_assert(8 * RK_SMALL_THREADS == RK_SMALL_MAX, "keys j per thread");
    kern<<<blocks, RK_SMALL_THREADS, 0, st>>>((const K *)kin, n, mask, (K *)d->keys_out, vin, vout,
                                              (int)vs);
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

extern "C" gpusort_status gpusort__cuda_rank_sort(gpusort_ctx *ctx, const gpusort__sort_args *d)
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
        if (ks == 8) rank_small_launch<uint64_t>(d, kin, vin, st);
        else rank_small_launch<uint32_t>(d, kin, vin, st);
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
