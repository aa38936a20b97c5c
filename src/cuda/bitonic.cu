/*
 * bitonic.cu -- bitonic sorting network on the device: any n, all six key types, ascending and
 * descending, keys / pairs / argsort, stable.
 *
 * Exports: gpusort__cuda_bitonic_sort (cuda_internal.h).
 *
 * WHAT IT GUARANTEES. A bitonic network is not stable by itself. Here every comparator compares
 * items (radix key, input position) wherever equal radix keys could be told apart afterwards
 * (float keys: -0.0 == +0.0 and NaN payloads; pairs; argsort): all items are distinct, so the
 * network produces exactly the stable order, the same one as the radix and merge sorts, in
 * both directions (descending folds into the radix key, see src/keys.h). Integer keys without
 * values are sorted as radix keys alone: equal keys are identical bits, so there is nothing for
 * stability to preserve, and the output keys are rebuilt exactly from the radix keys. Float
 * keys without values above one block sort as a bijective key of their bits (-0.0 below +0.0,
 * NaNs by payload, all after +inf) and a last kernel puts the zeros and the NaNs back in input
 * order when both zeros, or any NaN, occur (see float_bits). With indices, n must be below 2^32
 * (32-bit positions; UNSUPPORTED above, with a message).
 *
 * ANY n. The network is the "flip" form of thread_sort.cuh (all comparators ascending), of size
 * 2^ceil(log2 n). Positions >= n hold a virtual sentinel greater than every item; such
 * comparators are no-ops, so nothing is padded, allocated or moved for them (loads beyond n
 * read the sentinel, stores beyond n are skipped, threads whose positions all lie beyond n
 * return at once).
 *
 * LEVELS. T = 32 KiB of items per tile: 8192 items of 4 bytes (32-bit keys without values),
 * 4096 of 8 (64-bit keys, or 32-bit keys + index), 2048 of 16 (64-bit keys + index); T/16
 * threads of 16 items each. 4-byte items up to 2^21 use 16 KiB tiles (more blocks per kernel,
 * see SMALL_TILE_N).
 *   n <= 2T     one block (or one warp for n <= 32) sorts everything on chip and writes the
 *               output: one kernel (block_sort.cu's launcher).
 *   n >  2T     1. k_tile_sort: every T-tile sorted on chip, items (radix key, global index)
 *                  written to scratch. Register ROUNDS (see the comment above k_tile_merge):
 *                  a thread holds 16 items whose positions differ in 4 consecutive stride bits
 *                  and runs those 4 strides in registers; rounds regroup through shared memory.
 *               2. for each span 2^k > T: the strides >= T run in device memory, several
 *                  strides per launch: a thread holds the items that those strides connect and
 *                  runs the comparators in registers (k_flip: the flip plus RF-1 half-cleaner
 *                  strides over 2 x 2^RF items; k_half: RH half-cleaner strides over 2^RH items;
 *                  RF = 4, RH = 5 for items of up to 8 bytes, 3 and 4 for 16-byte items),
 *                  then ONE on-chip kernel (k_tile_merge, two rounds + registers) runs strides
 *                  T/2 .. 1 on each T-tile. The last one gathers the output keys/values.
 *               3. float keys without values: k_float_fix (exits at once without -0.0 and +0.0
 *                  together and without NaN).
 *   Device-memory passes per span 2^k: 1 + ceil((k - log2 T - RF) / RH), plus the on-chip
 *   pass: 32 passes in all for 2^24 u32 keys, where the seed's naive version (one launch per
 *   (span, stride), seed 001) makes 300. The kernels after the first are launched with
 *   programmatic dependent launch (sm_90), so each one's launch overlaps the previous one's end.
 *   A span whose last device pass would be stride T alone instead merges 2T-tiles on chip
 *   (k_tile_merge at twice the threads), when there is at least one 2T-tile per SM.
 *   Measured (H200, u32 2^24, ncu): tile sort 220 us, device passes ~33 us each (~3.9 TB/s),
 *   tile merges ~45 us each (bench/results/bitonic-rank-2026-11-22b.md). Whole sorts (CUDA
 *   events, bench/results/seeds-2026-11-24.md): u32 0.092 ms at 2^20, 1.38 ms at 2^24.
 *
 * Scratch: KEYS n * item (item = 4, 8 or 16 bytes: radix key [+ index]); AUX a copy of the
 * input keys when sorting in place with indices or float keys (the final gather and the float
 * fix-up read the input), AUX2 a copy of the input values (in place with values) or the float
 * tile statistics (FS_WORDS words per tile).
 */
#include "block_sort.h"
#include "block_sort.cuh"
#include "pdl.cuh"

#include <stdlib.h>
#include <string.h>

using namespace gpusort_bs;

#define B_ITEMS 16  /* items per thread on chip */

/* 4-byte items up to this n sort in 16 KiB tiles (256 threads): twice the blocks per kernel
 * where 32 KiB tiles leave one block per SM, for one span more; 4% faster at 2^20, level at
 * 2^24 (bench/results/seeds-2026-11-24.md). */
#define SMALL_TILE_N ((size_t)1 << 21)

/* Tile threads (32 KiB of items) and pass widths per item type (see LEVELS above). */
template <typename It> struct bitonic_cfg {
    static constexpr int THREADS = 32768 / (int)sizeof(It) / B_ITEMS;  /* tile: 32 KiB */
    static constexpr int RF = sizeof(It) <= 8 ? 4 : 3;
    static constexpr int RH = sizeof(It) <= 8 ? 5 : 4;
};

constexpr int log2_of(int x) { return x <= 1 ? 0 : 1 + log2_of(x / 2); }

/* ---- float keys without values: a bijective key and a fix-up of the tie classes ----
 * gpusort's float order (src/keys.h) ties -0.0 with +0.0 and every NaN with every other NaN;
 * a stable sort keeps each such class in input order. Sorting bare radix keys would lose the
 * bits (the transform is not injective there), and items with an index cost twice the bytes.
 * So float keys without values sort as the BIJECTIVE key
 *     t = sign ? ~bits : bits | sign,   key = t - (2^23 - 1)   (f32; 2^52 - 1 for f64)
 * which orders -inf < ... < -0.0 < +0.0 < ... < +inf < +NaNs < -NaNs (t alone puts the negative
 * NaNs first; the rotation moves them after +inf), complemented for descending. Every key that
 * is not in a tie class has its own key, so the result is the stable sort except inside the two
 * classes, which come out ordered by bit pattern: -0.0 before +0.0 (ascending), NaNs by payload.
 * The tile sort finds, in each sorted tile, how many keys are negative, -0.0, +0.0 and NaN
 * (four binary searches by four threads, nothing per key: FS_WORDS). A last kernel
 * (k_float_fix) sums them: unless there are both -0.0 and +0.0, or some NaN, it exits at
 * once (the usual case); otherwise it rewrites each affected class's run of the output with
 * that class's keys in input order (a stable compaction of the input, placed by the per-tile
 * counts). No host synchronisation (a check pass whose answer the host waits for costs more
 * than the whole fix-up). */
template <typename K> struct float_bits;
template <> struct float_bits<uint32_t> {
    static constexpr uint32_t SIGN = 0x80000000u, INF = 0x7f800000u, ROT = (1u << 23) - 1;
};
template <> struct float_bits<uint64_t> {
    static constexpr uint64_t SIGN = 0x8000000000000000ull, INF = 0x7ff0000000000000ull,
                              ROT = (1ull << 52) - 1;
};
template <typename K> __device__ __forceinline__ K total_key(K bits, int desc)
{
    typedef float_bits<K> F;
    K t = (bits & F::SIGN) ? ~bits : (bits | F::SIGN);
    t -= F::ROT;
    return desc ? ~t : t;
}
template <typename K> __device__ __forceinline__ K total_bits(K key, int desc)
{
    typedef float_bits<K> F;
    K t = (desc ? ~key : key) + F::ROT;
    return (t & F::SIGN) ? (t ^ F::SIGN) : ~t;
}
/* Sort key and its inverse for the tile kernels (total: float keys as total_key). */
template <typename K> __device__ __forceinline__ K bt_key(K bits, const gpusort_bs_args &a, int total)
{
    return total ? total_key(bits, a.desc) : to_rk(bits, a.type, a.desc);
}
template <typename K> __device__ __forceinline__ K bt_bits(K key, const gpusort_bs_args &a, int total)
{
    return total ? total_bits(key, a.desc) : from_rk(key, a.type, a.desc);
}
/* Class of a float key: 0 below zero (negative), 1 zero, 2 above (positive), 3 NaN. */
template <typename K> __device__ __forceinline__ int float_class(K bits)
{
    typedef float_bits<K> F;
    const K mag = bits & ~F::SIGN;
    if (mag > F::INF) return 3;
    if (mag == 0) return 1;
    return (bits & F::SIGN) ? 0 : 2;
}
/* Per-tile statistics (scratch, FS_WORDS per tile): in the sorted tile, the number of keys
 * below four thresholds. Ascending: key(-0.0), key(+0.0), key(+0.0) + 1, key(+inf) + 1;
 * descending: key(+inf), key(+0.0), key(-0.0), key(-0.0) + 1. tile_counts turns them into the
 * counts of negative keys, -0.0, +0.0 and NaN. */
enum { FS_WORDS = 4 };
struct tile_counts {
    uint32_t neg, nz, pz, nan;
};
__device__ __forceinline__ tile_counts tile_counts_of(uint4 st, uint32_t cnt, int desc)
{
    tile_counts c;
    if (desc) {
        c.nan = st.x;
        c.pz = st.z - st.y;
        c.nz = st.w - st.z;
        c.neg = cnt - st.w;
    } else {
        c.neg = st.x;
        c.nz = st.y - st.x;
        c.pz = st.z - st.y;
        c.nan = cnt - st.w;
    }
    return c;
}

/* Strides 2^j .. 2^(j-R+1): thread t holds the 2^R positions that differ in those bits. */
template <typename It, int R>
__global__ void __launch_bounds__(256, 2) k_half(It *a, uint64_t n, int j, uint64_t nthreads)
{
    pdl_wait_and_release();
    uint64_t t = blockIdx.x * (uint64_t)blockDim.x + threadIdx.x;
    if (t >= nthreads) return;
    const int low = j - R + 1;
    const uint64_t s = 1ull << low;
    const uint64_t pos0 = ((t >> low) << (j + 1)) | (t & (s - 1));
    if (pos0 >= n) return;
    constexpr int M = 1 << R;
    It x[M];
#pragma unroll
    for (int m = 0; m < M; m++) {
        uint64_t p = pos0 + m * s;
        x[m] = p < n ? a[p] : It::sentinel();
    }
#pragma unroll
    for (int b = M / 2; b >= 1; b /= 2)
#pragma unroll
        for (int m = 0; m < M; m++)
            if ((m & b) == 0) cmpx(x[m], x[m + b]);
#pragma unroll
    for (int m = 0; m < M; m++) {
        uint64_t p = pos0 + m * s;
        if (p < n) a[p] = x[m];
    }
}

/* Flip of span 2^k plus half-cleaners down to stride 2^(k-R). With s = 2^(k-R), thread t holds
 * group A = {o + m*s} and its mirror group B = {s-1-o + m*s} (o < s/2) of one block of 2^k:
 * the flip pairs A[m] with B[2^R-1-m], the half-cleaners stay inside A and inside B. */
template <typename It, int R>
__global__ void __launch_bounds__(256, 2) k_flip(It *a, uint64_t n, int k, uint64_t nthreads)
{
    pdl_wait_and_release();
    uint64_t t = blockIdx.x * (uint64_t)blockDim.x + threadIdx.x;
    if (t >= nthreads) return;
    const uint64_t s = 1ull << (k - R);
    const uint64_t o = t & (s / 2 - 1);
    const uint64_t base = (t >> (k - R - 1)) << k;
    if (base + o >= n) return;
    constexpr int M = 1 << R;
    It x[M], y[M];
#pragma unroll
    for (int m = 0; m < M; m++) {
        uint64_t p = base + o + m * s, q = base + (s - 1 - o) + m * s;
        x[m] = p < n ? a[p] : It::sentinel();
        y[m] = q < n ? a[q] : It::sentinel();
    }
#pragma unroll
    for (int m = 0; m < M / 2; m++) {
        cmpx(x[m], y[M - 1 - m]);
        cmpx(y[m], x[M - 1 - m]);
    }
#pragma unroll
    for (int b = M / 4; b >= 1; b /= 2)
#pragma unroll
        for (int m = 0; m < M; m++)
            if ((m & b) == 0) {
                cmpx(x[m], x[m + b]);
                cmpx(y[m], y[m + b]);
            }
#pragma unroll
    for (int m = 0; m < M; m++) {
        uint64_t p = base + o + m * s, q = base + (s - 1 - o) + m * s;
        if (p < n) a[p] = x[m];
        if (q < n) a[q] = y[m];
    }
}

/* ---- on-chip merge by register rounds ----
 * The half-cleaners with strides T/2 .. 1 of one T-tile (T = THREADS * E), in few rounds: in a
 * round with row stride S a thread holds the E positions g*S*E + o + m*S (m < E; o = tid % S,
 * g = tid / S) in registers and runs the log2(E) strides S*E/2 .. S among them without any
 * exchange; the next round regroups through shared memory (one barrier). Round 1 (S = THREADS:
 * strides T/2 .. T/E) loads its positions straight from device memory (consecutive threads,
 * consecutive positions), round 2 has S = THREADS/E; what is left (strides below S2) runs in
 * the blocked layout (position tid*E + q): warp shuffles for strides E .. S2/2, registers for
 * the strides below E. For 8192 u32 keys: 4 + 4 strides in two rounds, one shuffle stride and 4
 * register strides, i.e. 2 barriers, where one shared-memory step per stride took 5. */

/* Register strides TOP .. 1 of E blocked/strided registers (TOP < E, a power of two, or 0). */
template <typename It, int E, int TOP> __device__ __forceinline__ void reg_merge(It (&r)[E])
{
#pragma unroll
    for (int b = TOP; b >= 1; b /= 2)
#pragma unroll
        for (int m = 0; m < E; m++)
            if ((m & b) == 0) cmpx(r[m], r[m + b]);
}

template <typename It, int E, int S> __device__ __forceinline__ int round_pos(int tid, int m)
{
    return (tid / S) * (S * E) + (tid % S) + m * S;
}

/* One round: strides S*E/2 .. S of the positions round_pos<S> (data in sm, synced before). */
template <typename It, int E, int S> __device__ __forceinline__ void smem_round(It (&r)[E], It *sm)
{
    const int tid = threadIdx.x;
#pragma unroll
    for (int m = 0; m < E; m++) r[m] = sm[padi<It>(round_pos<It, E, S>(tid, m))];
    reg_merge<It, E, E / 2>(r);
#pragma unroll
    for (int m = 0; m < E; m++) sm[padi<It>(round_pos<It, E, S>(tid, m))] = r[m];
    __syncthreads();
}

template <typename K, bool IDX, int THREADS, bool TOTAL>
__global__ void __launch_bounds__(THREADS) k_tile_merge(Item<K, IDX> *items, gpusort_bs_args a,
                                                        int final_span)
{
    pdl_wait_and_release();
    typedef Item<K, IDX> It;
    constexpr int E = B_ITEMS, T = THREADS * E;
    constexpr int S1 = THREADS, S2 = THREADS / E;
    static_assert(S2 >= 1 && S2 <= 32 * E, "tile shape");
    extern __shared__ uint4 bm_smem[];
    It *sm = (It *)bm_smem;
    const int tid = threadIdx.x;
    const uint64_t lo = (uint64_t)blockIdx.x * T;
    const uint64_t cnt = a.n - lo < T ? a.n - lo : T;
    It r[E];
    /* round 1: strides T/2 .. S1, positions tid + m*S1 */
#pragma unroll
    for (int m = 0; m < E; m++) {
        int p = tid + m * S1;
        r[m] = (uint64_t)p < cnt ? items[lo + p] : It::sentinel();
    }
    reg_merge<It, E, E / 2>(r);
#pragma unroll
    for (int m = 0; m < E; m++) sm[padi<It>(tid + m * S1)] = r[m];
    __syncthreads();
    /* round 2: strides S1/2 .. S2 */
    smem_round<It, E, S2>(r, sm);
    /* blocked: shuffles for strides S2/2 .. E, registers below */
#pragma unroll
    for (int q = 0; q < E; q++) r[q] = sm[padi<It>(tid * E + q)];
#pragma unroll
    for (int st = S2 / 2; st >= E; st /= 2) warp_half<It, E>(r, st);
    reg_merge<It, E, (S2 / 2 < E / 2 ? S2 / 2 : E / 2)>(r);
    /* back to the same (own) positions, then out in the coalesced order */
#pragma unroll
    for (int q = 0; q < E; q++) sm[padi<It>(tid * E + q)] = r[q];
    __syncthreads();
#pragma unroll
    for (int q = 0; q < E; q++) {
        int p = q * THREADS + tid;
        if ((uint64_t)p >= cnt) continue;
        It it = sm[padi<It>(p)];
        if (!final_span) {
            items[lo + p] = it;
            continue;
        }
        if constexpr (IDX) {
            ((K *)a.keys_out)[lo + p] = ((const K *)a.keys_in)[it.i];
            if (a.vbytes == 4)
                ((uint32_t *)a.values_out)[lo + p] =
                    a.values_in ? ((const uint32_t *)a.values_in)[it.i] : it.i;
            else if (a.vbytes == 8)
                ((uint64_t *)a.values_out)[lo + p] =
                    a.values_in ? ((const uint64_t *)a.values_in)[it.i] : (uint64_t)it.i;
        } else {
            ((K *)a.keys_out)[lo + p] = bt_bits(it.k, a, TOTAL);
        }
    }
}

/* ---- on-chip tile sort by register rounds ----
 * Sorts each T-tile (T = THREADS * E) into items with global indices. The tile is loaded whole
 * (positions >= count hold real sentinels), so the standard bitonic network with directions is
 * used here (stage K: compare p, p + j, ascending where bit K of p is 0): then every step is a
 * plain half-cleaner and any 4 consecutive strides can run in registers in one round. The
 * direction is folded into the data: during stage K a thread complements ("negates") the items
 * whose positions have bit K set, so that every comparator is ascending; a position's state
 * depends on the position only, so it does not matter which layout or thread holds it.
 *   stages 2 .. E      thread_sort in registers (blocked: position tid*E + q)
 *   stage K > E        strides K/2 .. E: warp shuffles (lane ^ j/E) when there are few of them,
 *                      else rounds through shared memory (round_pos: S = K/E, then K/E^2: 4
 *                      strides each), the rest by shuffles; then strides E/2 .. 1 in registers.
 * Per 8192 u32 keys: 16 shared-memory round trips and 30 shuffle strides, where block_sort's
 * one-step-per-stride path made 35 shuffle strides and 10 two-item shared-memory steps. */

template <typename K> __device__ __forceinline__ void negate(Item<K, false> &x) { x.k = ~x.k; }
template <typename K> __device__ __forceinline__ void negate(Item<K, true> &x)
{
    x.k = ~x.k;
    x.i = ~x.i;
}

/* Stage K = 2^P (P > log2 E) on blocked registers r (entry and exit), sm free. */
template <typename It, int E, int P> __device__ __forceinline__ void sort_stage(It (&r)[E], It *sm, int &neg)
{
    constexpr int KK = 1 << P;
    constexpr int LOG_E = E == 16 ? 4 : E == 8 ? 3 : 2;
    constexpr int Q = P - LOG_E;                   /* strides KK/2 .. E */
    constexpr int MIN_ROUNDS_Q = It::bare ? 6 : 3; /* idx items: a shuffle moves 2-3 words */
    constexpr int NR = Q >= MIN_ROUNDS_Q ? (Q / 4 < 2 ? Q / 4 : 2) : 0;
    const int tid = threadIdx.x;
    const int want = ((tid * E) & KK) ? 1 : 0;
    if (want != neg) {
#pragma unroll
        for (int q = 0; q < E; q++) negate(r[q]);
        neg = want;
    }
    int top = KK / 2;  /* largest stride still to run */
    if constexpr (NR > 0) {
#pragma unroll
        for (int q = 0; q < E; q++) sm[padi<It>(tid * E + q)] = r[q];
        __syncthreads();
        smem_round<It, E, KK / E>(r, sm);
        if constexpr (NR > 1) smem_round<It, E, KK / (E * E)>(r, sm);
#pragma unroll
        for (int q = 0; q < E; q++) r[q] = sm[padi<It>(tid * E + q)];
        top = NR > 1 ? KK / (E * E) / 2 : KK / E / 2;
    }
    for (int st = top; st >= E; st /= 2) warp_half<It, E>(r, st);
    reg_merge<It, E, E / 2>(r);
}

template <typename It, int E, int P, int LOG_T>
__device__ __forceinline__ void sort_stages(It (&r)[E], It *sm, int &neg)
{
    sort_stage<It, E, P>(r, sm, neg);
    if constexpr (P < LOG_T) sort_stages<It, E, P + 1, LOG_T>(r, sm, neg);
}

template <typename K, bool IDX, int THREADS, int MINB, bool TOTAL>
__global__ void __launch_bounds__(THREADS, MINB) k_tile_sort(Item<K, IDX> *items, gpusort_bs_args a, uint32_t *stats)
{
    pdl_wait_and_release();
    typedef Item<K, IDX> It;
    constexpr int E = B_ITEMS, T = THREADS * E;
    constexpr int LOG_T = log2_of(T);
    static_assert((1 << LOG_T) == T, "tile size");
    extern __shared__ uint4 ts_smem[];
    It *sm = (It *)ts_smem;
    const int tid = threadIdx.x;
    const uint64_t lo = (uint64_t)blockIdx.x * T;
    const uint64_t cnt = a.n - lo < T ? a.n - lo : T;
    const K *kin = (const K *)a.keys_in;
    /* TOTAL (a template parameter: a run-time test makes the u32 kernel spill): float keys as
     * total_key, and this tile's statistics (see float_bits). */
#pragma unroll
    for (int q = 0; q < E; q++) {
        int p = q * THREADS + tid;
        sm[padi<It>(p)] = (uint64_t)p < cnt ? It::make(bt_key(kin[lo + p], a, TOTAL),
                                                       (uint32_t)(lo + p))
                                            : It::sentinel();
    }
    __syncthreads();
    It r[E];
#pragma unroll
    for (int q = 0; q < E; q++) r[q] = sm[padi<It>(tid * E + q)];
    /* stages 2 .. E: blocks of E sorted ascending where bit E of the position is 0 */
    int neg = tid & 1;
    if (neg) {
#pragma unroll
        for (int q = 0; q < E; q++) negate(r[q]);
    }
    thread_sort<It, E>(r);
    __syncthreads();  /* every blocked read done before stage rounds store */
    sort_stages<It, E, 5, LOG_T>(r, sm, neg);
    /* neg == 0 now (bit T of every position is 0); out in the coalesced order */
    __syncthreads();
#pragma unroll
    for (int q = 0; q < E; q++) sm[padi<It>(tid * E + q)] = r[q];
    __syncthreads();
    if (TOTAL && tid < FS_WORDS) {
        /* The tile is sorted: four lower bounds give its class counts (float_bits), at no
         * cost per key. */
        const K z = bt_key((K)float_bits<K>::SIGN, a, 1), pz = bt_key((K)0, a, 1);
        const K inf = bt_key((K)float_bits<K>::INF, a, 1);
        const K thr = a.desc ? (tid == 0 ? inf : tid == 1 ? pz : tid == 2 ? z : z + 1)
                             : (tid == 0 ? z : tid == 1 ? pz : tid == 2 ? pz + 1 : inf + 1);
        int l = 0, len = (int)cnt;
        while (len > 0) {
            const int half = len >> 1;
            if (sm[padi<It>(l + half)].k < thr) {
                l += half + 1;
                len -= half + 1;
            } else {
                len = half;
            }
        }
        stats[(uint64_t)blockIdx.x * FS_WORDS + tid] = (uint32_t)l;
    }
#pragma unroll
    for (int q = 0; q < E; q++) {
        int p = q * THREADS + tid;
        if ((uint64_t)p < cnt) items[lo + p] = sm[padi<It>(p)];
    }
}

/* The tie classes' fix-up (see float_bits): exits at once unless some tile holds -0.0 and some
 * +0.0, or some tile holds a NaN; then block g rewrites, for its input tiles [g*per, g*per +
 * per), each affected class's keys in input order into that class's run of the output:
 * run start (ascending: zero class after the negative keys, NaNs last; descending: NaNs
 * first, zero class before the negative keys) + the class's keys in earlier tiles (counts of
 * k_tile_sort) + their rank within the tile (a block scan). */
#define FIX_THREADS 256
template <typename K, int PER>
__global__ void __launch_bounds__(FIX_THREADS)
    k_float_fix(const K *kin, K *kout, uint64_t n, int desc, const uint32_t *stats,
                uint32_t tiles, uint32_t per)
{
    pdl_wait_and_release();
    constexpr uint64_t T = (uint64_t)FIX_THREADS * PER;
    __shared__ unsigned long long s_acc[5];
    __shared__ uint32_t s_warp[FIX_THREADS / 32];
    const int tid = threadIdx.x, lane = tid & 31, w = tid >> 5;
    /* flags over all tiles: some -0.0, some +0.0, some NaN. One 16-byte load per tile, the
     * loop unrolled so that a thread's loads are in flight together (2048 tiles at 2^24: 8 per
     * thread, one memory latency instead of 8). */
    static_assert(FS_WORDS == 4, "one uint4 per tile");
    const uint4 *st4 = (const uint4 *)stats;
    uint32_t f = 0;
#pragma unroll 8
    for (uint32_t t = tid; t < tiles; t += FIX_THREADS) {
        const uint64_t lo = (uint64_t)t * T;
        const tile_counts c = tile_counts_of(st4[t], (uint32_t)(n - lo < T ? n - lo : T), desc);
        f |= (c.nz ? 1u : 0u) | (c.pz ? 2u : 0u) | (c.nan ? 4u : 0u);
    }
    const int neg0 = __syncthreads_or(f & 1), pos0 = __syncthreads_or(f & 2);
    const int fix_nan = __syncthreads_or(f & 4);
    const int fix_zero = neg0 && pos0;
    if (!fix_zero && !fix_nan) return;  /* the usual case */
    const uint32_t t0 = blockIdx.x * per;
    if (t0 >= tiles) return;
    const uint32_t t1 = t0 + per < tiles ? t0 + per : tiles;
    /* totals (negative, zero, NaN keys) and the zero / NaN keys of the tiles before t0 */
    if (tid < 5) s_acc[tid] = 0;
    __syncthreads();
    unsigned long long acc[5] = {0, 0, 0, 0, 0};
#pragma unroll 8
    for (uint32_t t = tid; t < tiles; t += FIX_THREADS) {
        const uint64_t lo = (uint64_t)t * T;
        const tile_counts c = tile_counts_of(st4[t], (uint32_t)(n - lo < T ? n - lo : T), desc);
        acc[0] += c.neg;
        acc[1] += c.nz + c.pz;
        acc[2] += c.nan;
        if (t < t0) {
            acc[3] += c.nz + c.pz;
            acc[4] += c.nan;
        }
    }
#pragma unroll
    for (int k = 0; k < 5; k++)
        if (acc[k]) atomicAdd(&s_acc[k], acc[k]);
    __syncthreads();
    const unsigned long long nneg = s_acc[0], nz = s_acc[1], nn = s_acc[2];
    unsigned long long pz = s_acc[3], pn = s_acc[4];
    const unsigned long long zstart = desc ? n - nneg - nz : nneg;
    const unsigned long long nstart = desc ? 0 : n - nn;
    for (uint32_t t = t0; t < t1; t++) {
        /* thread tid: keys [tid*PER, tid*PER + PER) of tile t, in input order */
        const uint64_t base = t * T + (uint64_t)tid * PER;
        K v[PER];
        uint32_t cz = 0, cx = 0;
#pragma unroll
        for (int q = 0; q < PER; q++) {
            v[q] = base + q < n ? kin[base + q] : (K)0;
            const int c = base + q < n ? float_class(v[q]) : 0;
            cz += c == 1;
            cx += c == 3;
        }
        /* exclusive block scan of (zero count | NaN count << 16): a tile has <= 8192 keys */
        const uint32_t x = cz | (cx << 16);
        uint32_t incl = x;
#pragma unroll
        for (int d = 1; d < 32; d *= 2) {
            const uint32_t y = __shfl_up_sync(0xffffffffu, incl, d);
            if (lane >= d) incl += y;
        }
        if (lane == 31) s_warp[w] = incl;
        __syncthreads();
        uint32_t wpre = 0, tot = 0;
#pragma unroll
        for (int k = 0; k < FIX_THREADS / 32; k++) {
            wpre += k < w ? s_warp[k] : 0;
            tot += s_warp[k];
        }
        __syncthreads();  /* s_warp is rewritten for the next tile */
        const uint32_t ex = wpre + incl - x;
        unsigned long long oz = zstart + pz + (ex & 0xffffu), on = nstart + pn + (ex >> 16);
#pragma unroll
        for (int q = 0; q < PER; q++) {
            if (base + q >= n) break;
            const int c = float_class(v[q]);
            if (c == 1 && fix_zero) kout[oz] = v[q];
            if (c == 3 && fix_nan) kout[on] = v[q];
            oz += c == 1;
            on += c == 3;
        }
        pz += tot & 0xffffu;
        pn += tot >> 16;
    }
}

static unsigned grid_of(uint64_t threads) { return (unsigned)((threads + 255) / 256); }

template <typename It, int R>
static void launch_half(cudaStream_t st, int pdl, It *a, uint64_t n, int K, int j)
{
    uint64_t nt = 1ull << (K - R);
    launch_pdl(k_half<It, R>, grid_of(nt), 256, 0, st, pdl, a, n, j, nt);
}

template <typename It, int R>
static void launch_flip(cudaStream_t st, int pdl, It *a, uint64_t n, int LOG, int k)
{
    uint64_t nt = 1ull << (LOG - R - 1);
    launch_pdl(k_flip<It, R>, grid_of(nt), 256, 0, st, pdl, a, n, k, nt);
}

template <typename Kern>
static gpusort_status allow_smem(gpusort_ctx *ctx, Kern kern, size_t sm)
{
    if (sm <= 48 * 1024) return GPUSORT_STATUS_SUCCESS;
    gpusort_status s = gpusort__cuda_smem_check(ctx, sm, "the bitonic sort");
    if (s) return s;
    return gpusort__cuda_check(ctx, cudaFuncSetAttribute(kern, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                                         (int)sm),
                               "cudaFuncSetAttribute (bitonic)");
}

/* Tiles of THREADS * B_ITEMS items (32 KiB; 64 KiB tiles would save a span but make the tile
 * sort spill and run one block per SM). */
template <typename K, bool IDX, int THREADS = bitonic_cfg<Item<K, IDX>>::THREADS>
static gpusort_status bitonic_large(gpusort_ctx *ctx, gpusort_bs_args a, int total)
{
    typedef Item<K, IDX> It;
    typedef bitonic_cfg<It> C;
    constexpr int BT = THREADS * B_ITEMS, LOG_T = log2_of(BT);
    cudaStream_t st = gpusort__cuda_stream(ctx);
    const int pdl = gpusort__cuda_pdl(ctx);  /* every kernel after the first (pdl.cuh) */
    const uint64_t n = a.n;
    const unsigned tiles = (unsigned)((n + BT - 1) / BT);
    int LOG = 0;
    while ((1ull << LOG) < n) LOG++;
    It *items = (It *)gpusort__cuda_scratch(ctx, GPUSORT_CUDA_SCRATCH_KEYS, n * sizeof(It));
    if (!items) return GPUSORT_STATUS_OUT_OF_DEVICE_MEMORY;
    uint32_t *stats = NULL;  /* total: per-tile statistics (see float_bits) */
    if (total && !IDX) {
        stats = (uint32_t *)gpusort__cuda_scratch(ctx, GPUSORT_CUDA_SCRATCH_AUX2,
                                                  (size_t)tiles * FS_WORDS * sizeof(uint32_t));
        if (!stats) return GPUSORT_STATUS_OUT_OF_DEVICE_MEMORY;
    }
    gpusort_status s;
    /* 1. tiles sorted on chip, items to scratch: several blocks per SM for 4-byte items (64
     * registers: 2 of 512 threads, 4 of 256), one for larger items. */
    gpusort_bs_args t = a;
    t.items_out = items;
    const size_t sm = smem_bytes<It>(BT);
    constexpr int MINB = sizeof(It) != 4 ? 1 : THREADS == 512 ? 2 : THREADS == 256 ? 4 : 1;
    void (*sort_kernel)(It *, gpusort_bs_args, uint32_t *) =
        stats ? k_tile_sort<K, IDX, THREADS, MINB, !IDX> : k_tile_sort<K, IDX, THREADS, MINB, false>;
    /* (No minimum of blocks per SM for the merge: a minimum of 1 makes ptxas take 80 registers
     * instead of 63 for u32 keys, one block per SM instead of two; a minimum of 3 spills.) */
    void (*merge_kernel)(It *, gpusort_bs_args, int) =
        stats ? k_tile_merge<K, IDX, THREADS, !IDX> : k_tile_merge<K, IDX, THREADS, false>;
    /* The same merge on 2T-tiles (twice the threads): it also runs stride T, so a span whose
     * last device pass would be that one stride alone (a half-cleaner of width 1) saves the
     * pass. Only with at least one 2T-tile per SM: 4% at 2^24 u32, but slower at 2^20 with 64
     * 2T-tiles for 132 SMs (bench/results/seeds-2026-11-24.md). */
    const size_t sm2 = smem_bytes<It>(2 * BT);
    void (*merge2_kernel)(It *, gpusort_bs_args, int) =
        stats ? k_tile_merge<K, IDX, 2 * THREADS, !IDX> : k_tile_merge<K, IDX, 2 * THREADS, false>;
    const unsigned tiles2 = (unsigned)((n + 2 * BT - 1) / (2 * BT));
    const unsigned sms = (unsigned)gpusort__cuda_props(ctx)->multiProcessorCount;
    if ((s = allow_smem(ctx, sort_kernel, sm)) || (s = allow_smem(ctx, merge_kernel, sm))) return s;
    if ((s = allow_smem(ctx, merge2_kernel, sm2))) return s;
    launch_pdl(sort_kernel, tiles, THREADS, sm, st, 0, items, t, stats);
    /* 2. spans 2T .. 2^LOG */
    constexpr int RF = C::RF, RH = C::RH;
    for (int k = LOG_T + 1; k <= LOG; k++) {
        int g = k - LOG_T;  /* strides in device memory: 2^(k-1) .. T */
        int r = g < RF ? g : RF;
        switch (r) {
        case 1: launch_flip<It, 1>(st, pdl, items, n, LOG, k); break;
        case 2: launch_flip<It, 2>(st, pdl, items, n, LOG, k); break;
        case 3: launch_flip<It, 3>(st, pdl, items, n, LOG, k); break;
        default: launch_flip<It, RF>(st, pdl, items, n, LOG, k); break;
        }
        int j = k - 1 - r, rem = g - r;
        /* the 2T merge takes stride T (j == LOG_T when rem == 1 is all that is left) */
        const bool merge2 = rem % RH == 1 && tiles2 >= sms;
        if (merge2) rem--;
        while (rem > 0) {
            int r2 = rem < RH ? rem : RH;
            switch (r2) {
            case 1: launch_half<It, 1>(st, pdl, items, n, LOG, j); break;
            case 2: launch_half<It, 2>(st, pdl, items, n, LOG, j); break;
            case 3: launch_half<It, 3>(st, pdl, items, n, LOG, j); break;
            case 4: launch_half<It, 4>(st, pdl, items, n, LOG, j); break;
            default: launch_half<It, RH>(st, pdl, items, n, LOG, j); break;
            }
            j -= r2;
            rem -= r2;
        }
        if (merge2)
            launch_pdl(merge2_kernel, tiles2, 2 * THREADS, sm2, st, pdl, items, a, (int)(k == LOG));
        else
            launch_pdl(merge_kernel, tiles, THREADS, sm, st, pdl, items, a, (int)(k == LOG));
        if ((s = gpusort__cuda_check(ctx, cudaGetLastError(), "bitonic kernels"))) return s;
    }
    if (stats) {  /* 3. the tie classes (exits at once when there is nothing to fix) */
        if constexpr (!IDX) {
            /* One block per SM at most: every block reads all the tile statistics before it can
             * exit, so one wave keeps the usual case short. */
            unsigned fb = (unsigned)gpusort__cuda_props(ctx)->multiProcessorCount;
            if (fb > tiles) fb = tiles;
            const uint32_t per = (tiles + fb - 1) / fb;
            fb = (tiles + per - 1) / per;
            launch_pdl(k_float_fix<K, BT / FIX_THREADS>, fb, FIX_THREADS, 0, st, pdl,
                   (const K *)a.keys_in, (K *)a.keys_out, n, a.desc, (const uint32_t *)stats,
                   (uint32_t)tiles, per);
        }
    }
    return gpusort__cuda_check(ctx, cudaGetLastError(), "bitonic kernels");
}

extern "C" gpusort_status gpusort__cuda_bitonic_sort(gpusort_ctx *ctx, const gpusort__sort_args *d)
{
    cudaStream_t st = gpusort__cuda_stream(ctx);
    const size_t ks = gpusort_type_size(d->key_type);
    const size_t vs = d->value_type == GPUSORT_TYPE_NONE ? 0 : gpusort_type_size(d->value_type);
    gpusort_bs_args a;
    memset(&a, 0, sizeof a);
    a.keys_in = d->keys_in;
    a.keys_out = d->keys_out;
    a.values_in = d->values_in;
    a.values_out = vs ? d->values_out : NULL;
    a.type = d->key_type;
    a.desc = d->order == GPUSORT_ORDER_DESC;
    a.vbytes = (int)vs;
    a.tiling = 0;
    a.n = d->n;
    a.tile = d->n;
    /* One block when the whole input fits on chip in 64 KiB (2T of bitonic_cfg); float keys
     * carry their index there. */
    int idx = gpusort__cuda_needs_idx(d);
    const size_t item = ks == 8 ? (idx ? 16 : 8) : (idx ? 8 : 4);
    if (d->n <= 65536 / item) return gpusort__cuda_block_sort_launch(ctx, &a, d->n, 1);
    /* Larger float keys without values: bare total_key items and the fix-up (float_bits). */
    const int total = (d->key_type == GPUSORT_TYPE_F32 || d->key_type == GPUSORT_TYPE_F64) && !vs;
    if (total) idx = 0;
    if (idx && d->n > 0xfffffffeull)
        return gpusort__set_error(ctx, GPUSORT_STATUS_UNSUPPORTED,
                                  "the bitonic sort numbers its items with 32 bits: n = %zu is too "
                                  "large for pairs or argsort (use radix or merge)",
                                  d->n);
    gpusort_status s;
    /* The final gather (indices) and the float fix-up read the input after earlier kernels may
     * have written the output. */
    if ((idx || total) && d->keys_out == d->keys_in) {
        void *c = gpusort__cuda_scratch(ctx, GPUSORT_CUDA_SCRATCH_AUX, d->n * ks);
        if (!c) return GPUSORT_STATUS_OUT_OF_DEVICE_MEMORY;
        if ((s = gpusort__cuda_check(ctx, cudaMemcpyAsync(c, d->keys_in, d->n * ks,
                                                          cudaMemcpyDeviceToDevice, st),
                                     "cudaMemcpyAsync (bitonic input copy)")))
            return s;
        a.keys_in = c;
    }
    if (vs && d->values_in && d->values_out == d->values_in) {
        void *c = gpusort__cuda_scratch(ctx, GPUSORT_CUDA_SCRATCH_AUX2, d->n * vs);
        if (!c) return GPUSORT_STATUS_OUT_OF_DEVICE_MEMORY;
        if ((s = gpusort__cuda_check(ctx, cudaMemcpyAsync(c, d->values_in, d->n * vs,
                                                          cudaMemcpyDeviceToDevice, st),
                                     "cudaMemcpyAsync (bitonic value copy)")))
            return s;
        a.values_in = c;
    }
    if (ks == 8) return idx ? bitonic_large<uint64_t, true>(ctx, a, 0)
                            : bitonic_large<uint64_t, false>(ctx, a, total);
    if (idx) return bitonic_large<uint32_t, true>(ctx, a, 0);
    /* 4-byte items up to SMALL_TILE_N: half-size tiles (16 KiB, 256 threads), twice the blocks
     * per kernel where 32 KiB tiles leave one block per SM. */
    if (d->n <= SMALL_TILE_N)
        return bitonic_large<uint32_t, false, bitonic_cfg<Item<uint32_t, false>>::THREADS / 2>(ctx, a, total);
    return bitonic_large<uint32_t, false>(ctx, a, total);
}
