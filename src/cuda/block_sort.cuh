/*
 * block_sort.cuh -- INTERNAL (CUDA): the block level of the bitonic networks (thread_sort.cuh
 * states the network and the items): a sort of THREADS*E items by one block, registers + warp
 * shuffles + shared memory. Used by block_sort.cu (tiles and segments of up to 16384 keys) and
 * bitonic.cu (its tile kernels).
 *
 * VIRTUAL PADDING. All comparators point the same way, so a sentinel (maximal) item at a
 * position >= count never moves: comparators that touch such a position are no-ops. So any
 * count <= N is sorted by the N-network with sentinels, with no caller-side padding and no data
 * movement for the padding.
 *
 * LEVELS. block_sort() keeps E consecutive positions per thread in registers ("blocked"):
 * spans up to E and the strides below E run in registers without any synchronisation
 * (thread_sort.cuh); strides from E to 16E connect lanes of one warp and run as warp shuffles
 * (warp_sort.cuh, no barrier) for bare keys; only strides >= 32E go through shared memory, one
 * __syncthreads per step. Items with an index take shared memory for every stride >= E (one
 * 8/16-byte access beats two shuffles). Shared memory is padded (one slot per 128 bytes) so
 * that the blocked accesses tid*E + q hit distinct banks.
 *
 * Exports (device, namespace gpusort_bs): padi, smem_bytes (also host), cmpx_smem,
 * smem_half_cleaners, block_sort, block_merge_smem.
 */
#ifndef GPUSORT_CUDA_BLOCK_SORT_CUH
#define GPUSORT_CUDA_BLOCK_SORT_CUH

#include "warp_sort.cuh"

namespace gpusort_bs {

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

/* One shared-memory comparator between positions lo < hi. */
template <typename It> __device__ __forceinline__ void cmpx_smem(It *sm, int lo, int hi)
{
    It a = sm[padi<It>(lo)], b = sm[padi<It>(hi)];
    if (b.lt(a)) {
        sm[padi<It>(lo)] = b;
        sm[padi<It>(hi)] = a;
    }
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

}  // namespace gpusort_bs

#endif /* GPUSORT_CUDA_BLOCK_SORT_CUH */
