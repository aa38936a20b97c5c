/*
 * warp_radix_rank.cuh -- INTERNAL (CUDA): the warp level of the radix ranking (block_radix_rank.cuh
 * and radix.cu's onesweep kernel): which lanes of a warp share a digit ("peers"), and each
 * item's rank among the equal digits of its warp, in (item, lane) order, which is input order
 * in the warp-striped layout (block_radix_rank.cuh), so ranks are stable.
 *
 *   warp_match_rank    KPT items per lane, peers through a shared bit mask per digit, ranks
 *                      kept in per-warp counters (the tile sort of radix.cu);
 *   warp_match_digit   peers from 8 ballots, one per digit bit: no shared memory, no __syncwarp;
 *   warp_rank_item     one item's final tile rank from its peers and the warp's row of early
 *                      counts, one atomicAdd by the highest peer (the onesweep kernel);
 *   warp_inclusive_scan, lanemask_lt, lanemask_le   the shuffle and lane-mask helpers.
 * The method: Adinets & Merrill 2022, section 4 ("match" ranking), and CUB's
 * RADIX_RANK_MATCH_EARLY_COUNTS_ANY, read for the idea, not copied.
 *
 * Exports (device, namespace gpusort_cuda): the functions above.
 */
#ifndef GPUSORT_CUDA_WARP_RADIX_RANK_CUH
#define GPUSORT_CUDA_WARP_RADIX_RANK_CUH

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

/* Match ranking, step 1 of block_radix_rank.cuh's first scheme. digit_of(i) gives item i's
 * digit in [0, 256] (256 = invalid); it is evaluated on the fly so that no array of digits
 * occupies registers. local[i] receives the rank within the warp. Peers are found through
 * shared memory (each lane ORs its bit into match[d], then reads it back) rather than with
 * __match_any_sync, whose throughput on sm_90 is far lower when the 32 lanes hold many distinct
 * values. match[] must be zero on entry and is zero again on exit. */
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

/* Early-counts ranking, step 3 (block_radix_rank.cuh), for one item: the rank of this lane's
 * item in the tile, given warp_count = this warp's row after step 2. All 32 lanes must call it;
 * lanes with valid == false get garbage and leave the counters alone (FULL: every lane is
 * valid, no extra ballot). */
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

} // namespace gpusort_cuda

#endif /* GPUSORT_CUDA_WARP_RADIX_RANK_CUH */
