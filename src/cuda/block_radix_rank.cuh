/*
 * block_radix_rank.cuh -- INTERNAL (CUDA): stable ranking of a tile of keys by one 8-bit digit.
 *
 * The tile is "warp-striped": warp w owns the keys [w*32*KPT, (w+1)*32*KPT) of the tile and its
 * lane l holds item i = key w*32*KPT + i*32 + l. So (warp, i, lane) in lexicographic order IS
 * input order, and ranking items in that order keeps the sort stable.
 *
 * Two schemes. The onesweep pass (radix.cu) uses the EARLY-COUNTS ranking further below
 * (warp_match_digit, warp_rank_item): counts first, then final ranks in one pass, peers from 8
 * ballots. The single-block tile sort (small inputs) still uses the first scheme:
 *
 * Ranking (warp-level multisplit; Adinets & Merrill 2022, section 4, "match" ranking):
 *   1. warp_match_rank: for i = 0..KPT-1 every lane computes its digit d; a shared bit mask per
 *      digit gives the lanes of the warp with the same digit (the "peers"); the item's rank among equal
 *      digits of its warp is counter[w][d] + (peers below this lane); the lowest peer adds the
 *      peer count to counter[w][d]. No atomics: within a warp one leader writes each counter.
 *      Afterwards counter[w][d] = how many items of warp w have digit d.
 *   2. block_digit_scan (threads 0..255, one per digit): counter[w][d] becomes the exclusive
 *      prefix over warps, total[d] the tile's count of digit d, and excl[d] the exclusive prefix
 *      of the totals over digits (a block scan of 256 values).
 *   3. rank of an item = excl[d] + counter[w][d] + its rank within the warp: its position in the
 *      tile sorted stably by d.
 * Worked example (1 warp of 4 lanes, KPT 1, digits 2 0 2 1): peers of lane 0 = {0,2}; rank in
 * warp: 0 0 1 0; totals d0=1 d1=1 d2=2; excl 0 1 2; ranks 2+0=2, 0, 2+1=3, 1 -> 0(d0) 1(d1) 2 2.
 *
 * Shared memory (the caller provides): counter[WARPS][256] u32, match[WARPS][256] u32 (zeroed
 * once; the ranking leaves it zeroed), excl[256] u32, scan[32] u32.
 * Invalid items (past the end of the input) carry digit RADIX_DIGITS: they match only each other
 * and touch no counter.
 */
#ifndef GPUSORT_CUDA_BLOCK_RADIX_RANK_CUH
#define GPUSORT_CUDA_BLOCK_RADIX_RANK_CUH

#include "thread_radix_key.cuh"

namespace gpusort_cuda {

__device__ __forceinline__ uint32_t lanemask_lt()
{
    uint32_t m;
    asm("mov.u32 %0, %%lanemask_lt;" : "=r"(m));
    return m;
}

/* Inclusive scan over a warp (Kogge-Stone with shuffles). */
template <typename T>
__device__ __forceinline__ T warp_inclusive_scan(T x)
{
    const int lane = threadIdx.x & 31;
#pragma unroll
    for (int o = 1; o < 32; o <<= 1) {
        T y = __shfl_up_sync(0xffffffffu, x, o);
        if (lane >= o) x += y;
    }
    return x;
}

/* Step 1. digit_of(i) gives item i's digit in [0, 256] (256 = invalid); it is evaluated on the
 * fly so that no array of digits occupies registers. local[i] receives the rank within the warp.
 * Peers are found through shared memory (each lane ORs its bit into match[d], then reads it
 * back) rather than with __match_any_sync, whose throughput on sm_90 is far lower when the 32
 * lanes hold many distinct values. (The 8-ballot match of the early-counts scheme below beat
 * this in the onesweep pass: bench/results/cuda-2026-11-22b.md.)
 * match[] must be zero on entry and is zero again on exit. */
template <int KPT, class DigitOf>
__device__ __forceinline__ void warp_match_rank(DigitOf digit_of, uint32_t (&local)[KPT],
                                                uint32_t *warp_counter /* this warp's [256] */,
                                                uint32_t *warp_match /* this warp's [256] */)
{
    const uint32_t lt = lanemask_lt();
    const uint32_t bit = 1u << (threadIdx.x & 31);
#pragma unroll
    for (int i = 0; i < KPT; i++) {
        const uint32_t d = digit_of(i);
        const bool valid = d < RADIX_DIGITS;
        if (valid) atomicOr(&warp_match[d], bit);
        __syncwarp();
        uint32_t peers = 0, c = 0;
        if (valid) {
            peers = warp_match[d];
            c = warp_counter[d];
        }
        local[i] = c + __popc(peers & lt);
        __syncwarp();
        if (valid && (peers & lt) == 0) { /* the lowest peer leads */
            warp_counter[d] = c + __popc(peers);
            warp_match[d] = 0;
        }
        __syncwarp();
    }
}

/* ---- Early-counts ranking (the onesweep kernel; Adinets & Merrill 2022 section 4, and CUB's
 * RADIX_RANK_MATCH_EARLY_COUNTS_ANY, read for the idea, not copied). The tile's counts are known
 * BEFORE any rank is computed, so the onesweep kernel publishes them to the look-back at once,
 * and ranking then yields final tile ranks in a single pass:
 *   1. every warp counts its items' digits into its own row count[w][256] (shared atomics that
 *      return nothing: no dependency chain between items);
 *   2. threads 0..255 (digit d): count[w][d] becomes the exclusive prefix over warps, the tile's
 *      total of d is published, a block scan over digits gives excl[d], and excl[d] is added to
 *      every count[w][d]: count[w][d] = first tile position of warp w's d-items;
 *   3. every warp ranks its items again in (item, lane) order: the peers of a lane (lanes of
 *      this item with the same digit) come from 8 ballots, one per digit bit (no shared memory,
 *      no __syncwarp); the highest peer adds the peer count to count[w][d] with one atomicAdd
 *      that returns the old value, which a shuffle hands to the peers; rank = old + (peers at or
 *      below this lane) - 1.
 * Worked example (1 warp of 4 lanes, 1 item, digits 2 0 2 1): counts d0=1 d1=1 d2=2, excl 0 1 2;
 * lane 0's peers {0,2}, leader lane 2 adds 2 to count[2] (old 2): ranks 2+1-1=2, 0, 2+2-1=3, 1. */

/* Lanes of the warp whose digit equals mine (8-bit digits): AND over the digit bits of the
 * ballot of lanes that share that bit's value. Written in PTX so that each bit costs a vote, a
 * conditional NOT and an AND (ptxas turns the 8 "bit set?" tests into predicates at once; the
 * C++ form compiled to 5-6 instructions per bit). */
__device__ __forceinline__ uint32_t warp_match_digit(uint32_t d)
{
    uint32_t peers = 0xffffffffu;
#pragma unroll
    for (int b = 0; b < RADIX_BITS; b++) {
        uint32_t m;
        asm("{\n\t.reg .pred q;\n\t"
            "setp.ne.u32 q, %1, 0;\n\t"
            "vote.sync.ballot.b32 %0, q, 0xffffffff;\n\t"
            "@!q not.b32 %0, %0;\n\t}"
            : "=r"(m)
            : "r"(d & (1u << b)));
        peers &= m;
    }
    return peers;
}

__device__ __forceinline__ uint32_t lanemask_le()
{
    uint32_t m;
    asm("mov.u32 %0, %%lanemask_le;" : "=r"(m));
    return m;
}

/* Step 3 for one item: rank of this lane's item among the tile, given warp_count = this warp's
 * row after step 2. All 32 lanes must call it; lanes with valid == false get garbage and leave
 * the counters alone (FULL: every lane is valid, no extra ballot). */
template <bool FULL>
__device__ __forceinline__ uint32_t warp_rank_item(uint32_t d, bool valid, uint32_t *warp_count)
{
    uint32_t peers = warp_match_digit(d);
    if (!FULL) {
        const uint32_t v = __ballot_sync(0xffffffffu, valid);
        peers &= valid ? v : ~v;
    }
    const int lane = threadIdx.x & 31;
    const int leader = 31 - __clz(peers);
    const uint32_t below = __popc(peers & lanemask_le()); /* the leader's is the peer count */
    uint32_t old = 0;
    if (lane == leader && (FULL || valid)) old = atomicAdd(&warp_count[d], below);
    old = __shfl_sync(0xffffffffu, old, leader);
    return old + below - 1;
}

/* Step 2. Call after a __syncthreads() that follows warp_match_rank in every warp. Threads
 * 0..255 return total[d = threadIdx.x]; others return 0. Ends with __syncthreads(), after which
 * excl[] and the (now exclusive) counters are valid. Needs blockDim.x >= 256. */
struct NoTotals {
    __device__ void operator()(uint32_t) const {}
};

/* on_total(total) runs on threads 0..255 as soon as the tile's count of digit threadIdx.x is
 * known, before the scan (a hook for publishing counts; the tile sort passes none). */
template <int WARPS, class OnTotal = NoTotals>
__device__ __forceinline__ uint32_t block_digit_scan(uint32_t *counter, uint32_t *excl,
                                                     uint32_t *scan, OnTotal on_total = OnTotal())
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
        on_total(total);
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

#endif
