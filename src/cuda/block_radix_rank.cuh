/*
 * block_radix_rank.cuh -- INTERNAL (CUDA): stable ranking of a tile of keys by one 8-bit digit,
 * the block level (the warp level is warp_radix_rank.cuh).
 *
 * The tile is "warp-striped": warp w owns the keys [w*32*KPT, (w+1)*32*KPT) of the tile and its
 * lane l holds item i = key w*32*KPT + i*32 + l. So (warp, i, lane) in lexicographic order IS
 * input order, and ranking items in that order keeps the sort stable.
 *
 * Two schemes. radix.cu's single-block tile sort (small inputs) uses MATCH RANKING:
 *   1. warp_match_rank: for i = 0..KPT-1 every lane computes its digit d; a shared bit mask per
 *      digit gives the lanes of the warp with the same digit (the "peers"); the item's rank
 *      among equal digits of its warp is counter[w][d] + (peers below this lane); the lowest
 *      peer adds the peer count to counter[w][d]. No atomics: within a warp one leader writes
 *      each counter. Afterwards counter[w][d] = how many items of warp w have digit d.
 *   2. block_digit_scan (threads 0..255, one per digit): counter[w][d] becomes the exclusive
 *      prefix over warps, total[d] the tile's count of digit d, and excl[d] the exclusive prefix
 *      of the totals over digits (a block scan of 256 values).
 *   3. rank of an item = excl[d] + counter[w][d] + its rank within the warp: its position in the
 *      tile sorted stably by d.
 * Worked example (1 warp of 4 lanes, KPT 1, digits 2 0 2 1): peers of lane 0 = {0,2}; rank in
 * warp: 0 0 1 0; totals d0=1 d1=1 d2=2; excl 0 1 2; ranks 2+0=2, 0, 2+1=3, 1 -> 0(d0) 1(d1) 2 2.
 * Shared memory (the caller provides): counter[WARPS][256] u32, match[WARPS][256] u32 (zeroed
 * once; the ranking leaves it zeroed), excl[256] u32, scan[32] u32.
 * Invalid items (past the end of the input) carry digit RADIX_DIGITS: they match only each other
 * and touch no counter.
 *
 * The onesweep pass of radix.cu uses EARLY-COUNTS RANKING (its steps are written out in the
 * kernel): the tile's counts are known BEFORE any rank is computed, so the kernel publishes
 * them to the look-back at once, and ranking then yields final tile ranks in a single pass:
 *   1. every warp counts its items' digits into its own row count[w][256] (shared atomics that
 *      return nothing: no dependency chain between items);
 *   2. threads 0..255 (digit d): count[w][d] becomes the exclusive prefix over warps, the tile's
 *      total of d is published, a block scan over digits gives excl[d], and excl[d] is added to
 *      every count[w][d]: count[w][d] = first tile position of warp w's d-items;
 *   3. every warp ranks its items again in (item, lane) order (warp_rank_item): the peers of a
 *      lane come from 8 ballots; the highest peer adds the peer count to count[w][d] with one
 *      atomicAdd that returns the old value, which a shuffle hands to the peers; rank = old +
 *      (peers at or below this lane) - 1.
 * Worked example (1 warp of 4 lanes, 1 item, digits 2 0 2 1): counts d0=1 d1=1 d2=2, excl 0 1 2;
 * lane 0's peers {0,2}, leader lane 2 adds 2 to count[2] (old 2): ranks 2+1-1=2, 0, 2+2-1=3, 1.
 * The ballot match is the faster of the two in the onesweep pass
 * (bench/results/cuda-2026-11-22b.md).
 *
 * Exports (device, namespace gpusort_cuda): block_digit_scan.
 */
#ifndef GPUSORT_CUDA_BLOCK_RADIX_RANK_CUH
#define GPUSORT_CUDA_BLOCK_RADIX_RANK_CUH

#include "warp_radix_rank.cuh"

namespace gpusort_cuda {

/* Match ranking, step 2. Call after a __syncthreads() that follows warp_match_rank in every
 * warp. Threads 0..255 return total[d = threadIdx.x]; others return 0. Ends with
 * __syncthreads(), after which excl[] and the (now exclusive) counters are valid. Needs
 * blockDim.x >= 256. */
template <int WARPS>
__device__ __forceinline__ uint32_t block_digit_scan(uint32_t *counter, uint32_t *excl,
                                                     uint32_t *scan)
{
    const int tid = threadIdx.x, lane = tid & 31, warp = tid >> 5;
    uint32_t total = 0, incl = 0;
    if (tid < RADIX_DIGITS) {
#pragma unroll
        for (int w = 0; w < WARPS; w++) {
            uint32_t c = counter[w * RADIX_DIGITS + tid];
            counter[w * RADIX_DIGITS + tid] = total;
            total += c;
        }
        incl = warp_inclusive_scan(total);
        if (lane == 31) scan[warp] = incl;
    }
    __syncthreads();
    if (tid < RADIX_DIGITS) {
        uint32_t prefix = 0;
        for (int w = 0; w < warp; w++) prefix += scan[w];
        excl[tid] = prefix + incl - total;
    }
    __syncthreads();
    return total;
}

} // namespace gpusort_cuda

#endif /* GPUSORT_CUDA_BLOCK_RADIX_RANK_CUH */
