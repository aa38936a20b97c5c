/*
 * rank.cu -- rank sort (seed 003) for tiny n: every key's output position is counted directly.
 *
 * Exports: gpusort__cuda_rank_sort (cuda_internal.h).
 *
 * ALGORITHM. position(i) = #{j : key_j < key_i} + #{j < i : key_j == key_i}, keys compared as
 * radix keys (src/keys.h, so the float order with NaN and -0.0 == +0.0 and descending come for
 * free). The second term makes the positions a permutation when keys repeat (the seed assumed
 * unique keys) and makes the sort stable. Written as one test per pair: j < i counts
 * key_j <= key_i, j > i counts key_j < key_i.
 *
 * WORK LAYOUT. O(n^2) comparisons, so it is all about feeding the ALUs:
 *   - block (x, y): 1024 keys i (256 threads x 4 keys in registers) against the y-th chunk of
 *     the j range; the chunk streams through shared memory 1024 keys at a time, every shared
 *     load broadcast to all threads and used for 4 comparisons;
 *   - tiles that lie wholly before (or after) this block's i's use the "<=" (or "<") loop
 *     without any index test; only the diagonal tile tests j < i per pair;
 *   - the j range is split into chunks so that small n still fills the GPU; each block adds
 *     its partial counts with atomicAdd, and the LAST block to finish for a group of i's
 *     (a per-group ticket, after __threadfence) scatters that group's keys and values. One
 *     memset and one kernel per sort.
 * The cap: n <= GPUSORT_CUDA_RANK_MAX_N (65536): 2^32 comparisons, under a millisecond on an
 * H100; above it the call answers UNSUPPORTED (the work grows as n^2; radix or merge instead).
 *
 * Scratch: AUX (n + groups) * 4 bytes of counters; in place, AUX2/KEYS copies of the input.
 */
#include "cuda_internal.h"
#include "block_sort.cuh"

using namespace gpusort_bs;

#define RK_THREADS 256
#define RK_PER 4                         /* keys i per thread */
#define RK_GROUP (RK_THREADS * RK_PER)   /* keys i per block */
#define RK_TILE 1024                     /* keys j per shared-memory tile */

template <typename K>
__global__ void __launch_bounds__(RK_THREADS)
    k_rank(const K *keys, uint32_t n, int type, int desc, uint32_t jchunk, uint32_t *rank,
           uint32_t *ticket, K *kout, const void *vin, void *vout, int vbytes)
{
    __shared__ K sj[RK_TILE];
    __shared__ int s_last;
    const int tid = threadIdx.x;
    const uint32_t ib = blockIdx.x * RK_GROUP;
    K x[RK_PER];
    uint32_t c[RK_PER];
#pragma unroll
    for (int q = 0; q < RK_PER; q++) {
        uint32_t i = ib + q * RK_THREADS + tid;
        x[q] = i < n ? to_rk(keys[i], type, desc) : (K)0;
        c[q] = 0;
    }
    const uint32_t jlo = blockIdx.y * jchunk;
    const uint32_t jhi = jlo + jchunk < n ? jlo + jchunk : n;
    for (uint32_t jt = jlo; jt < jhi; jt += RK_TILE) {
        const uint32_t m = jhi - jt < RK_TILE ? jhi - jt : RK_TILE;
        __syncthreads();
        for (uint32_t p = tid; p < m; p += RK_THREADS) sj[p] = to_rk(keys[jt + p], type, desc);
        __syncthreads();
        if (jt + m <= ib) {  /* every j < every i */
#pragma unroll 8
            for (uint32_t p = 0; p < m; p++) {
                K v = sj[p];
#pragma unroll
                for (int q = 0; q < RK_PER; q++) c[q] += v <= x[q];
            }
        } else if (jt >= ib + RK_GROUP) {  /* every j > every i */
#pragma unroll 8
            for (uint32_t p = 0; p < m; p++) {
                K v = sj[p];
#pragma unroll
                for (int q = 0; q < RK_PER; q++) c[q] += v < x[q];
            }
        } else {
            for (uint32_t p = 0; p < m; p++) {
                K v = sj[p];
                uint32_t j = jt + p;
#pragma unroll
                for (int q = 0; q < RK_PER; q++) {
                    uint32_t i = ib + q * RK_THREADS + tid;
                    c[q] += j < i ? v <= x[q] : v < x[q];
                }
            }
        }
    }
    const bool alone = gridDim.y == 1;
#pragma unroll
    for (int q = 0; q < RK_PER; q++) {
        uint32_t i = ib + q * RK_THREADS + tid;
        if (i < n && c[q]) {
            if (alone) rank[i] = c[q];
            else atomicAdd(&rank[i], c[q]);
        } else if (i < n && alone) {
            rank[i] = 0;
        }
    }
    if (!alone) {
        __threadfence();
        __syncthreads();
        if (tid == 0) s_last = atomicAdd(&ticket[blockIdx.x], 1u) == gridDim.y - 1;
        __syncthreads();
        if (!s_last) return;
        __threadfence();
    }
    /* This block holds the final counts of its i's (its own writes, or the last ticket). */
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
        void *c = gpusort__cuda_scratch(ctx, GPUSORT_CUDA_SCRATCH_KEYS, n * vs);
        if (!c) return GPUSORT_STATUS_OUT_OF_DEVICE_MEMORY;
        if ((s = gpusort__cuda_check(ctx, cudaMemcpyAsync(c, vin, n * vs, cudaMemcpyDeviceToDevice, st),
                                     "cudaMemcpyAsync (rank value copy)")))
            return s;
        vin = c;
    }
    const uint32_t groups = (n + RK_GROUP - 1) / RK_GROUP;
    /* Enough blocks for two per SM, chunks of at least one tile. */
    uint32_t want = 2 * (uint32_t)gpusort__cuda_props(ctx)->multiProcessorCount;
    uint32_t chunks = (want + groups - 1) / groups;
    uint32_t max_chunks = (n + RK_TILE - 1) / RK_TILE;
    if (chunks > max_chunks) chunks = max_chunks;
    if (chunks < 1) chunks = 1;
    uint32_t jchunk = (n + chunks - 1) / chunks;
    chunks = (n + jchunk - 1) / jchunk;
    uint32_t *cnt = (uint32_t *)gpusort__cuda_scratch(ctx, GPUSORT_CUDA_SCRATCH_AUX,
                                                      ((size_t)n + groups) * 4);
    if (!cnt) return GPUSORT_STATUS_OUT_OF_DEVICE_MEMORY;
    if (chunks > 1 &&
        (s = gpusort__cuda_check(ctx, cudaMemsetAsync(cnt, 0, ((size_t)n + groups) * 4, st),
                                 "cudaMemsetAsync (rank counters)")))
        return s;
    dim3 grid(groups, chunks);
    if (ks == 8)
        k_rank<uint64_t><<<grid, RK_THREADS, 0, st>>>((const uint64_t *)kin, n, d->key_type,
                                                      d->order == GPUSORT_ORDER_DESC, jchunk, cnt,
                                                      cnt + n, (uint64_t *)d->keys_out, vin,
                                                      vs ? d->values_out : NULL, (int)vs);
    else
        k_rank<uint32_t><<<grid, RK_THREADS, 0, st>>>((const uint32_t *)kin, n, d->key_type,
                                                      d->order == GPUSORT_ORDER_DESC, jchunk, cnt,
                                                      cnt + n, (uint32_t *)d->keys_out, vin,
                                                      vs ? d->values_out : NULL, (int)vs);
    return gpusort__cuda_check(ctx, cudaGetLastError(), "rank kernel");
}
