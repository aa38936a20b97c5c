/*
 * topk.cu -- top-k on the GPU by radix select: gpusort__cuda_topk.
 *
 * The same three steps as the CPU backend's src/cpu/topk.c, on the context's stream with no
 * host round trip:
 *
 *   1. SELECT the k-th radix key T (keys.h: the gpusort order as unsigned integers, descending
 *      = the complement), 11 bits per pass from the top. tk_histogram counts the next digit of
 *      the keys whose resolved high bits equal the prefix so far (a shared-memory histogram per
 *      block, added to a global one); the last of its blocks to finish scans the 2048 bins,
 *      extends the prefix by the digit where the count reaches `need`, takes the keys below it
 *      off `need`, zeroes the histogram, and marks the selection done when every key with the
 *      prefix is needed (later passes then return at once). This is the selection of AIR top-k
 *      (Zhang et al., SC'23) and of CUB's DeviceTopK.
 *   2. COLLECT in input order: tk_collect, one pass, takes the keys below T's prefix and those
 *      equal to it whose rank among the equal ones is below `need` (the lowest indices). Each
 *      tile of TILE keys counts both kinds, learns how many came before it from its
 *      predecessors' counts (decoupled look-back, Merrill & Garland 2016; tiles are handed out
 *      in order by an atomic counter, so a tile only waits for tiles that are running), and
 *      writes its keys with their indices: a key with L keys below and E equal keys before it
 *      goes to L + min(E, need).
 *   3. SORT the k collected keys with their ids (of the indices' type) by the backend's
 *      stable sort (AUTO), so ties stay lowest index first and the sort writes the indices.
 *      Without indices, the keys alone.
 *
 * CANDIDATES. On a row of 2^18 keys and more, tk_sample reads a sample (1/64 of the row, at least
 * 2^16 keys, in runs spread over it) and guesses, from two histograms of it, a range of the top 22
 * bits that holds T with a wide margin; one pass over the row (tk_collect with split = 1) then
 * writes the keys below the range (all taken) and those in it with their positions (the
 * candidates), and its last tile checks the guess exactly (and resolves the first digit when both
 * ends of the range share it). With a right guess (mode 0) every digit's pass and the collect read
 * only the candidates: the row is read once, whatever the key width. Shorter rows, and rows where
 * the guess was wrong or the candidates would exceed 1/16 of the row (few distinct values,
 * adversarial order), take mode 1: every pass reads the whole row. The kernels read the mode from
 * the state, so one sequence of launches serves both: init, two sample levels, split, one
 * histogram per digit, collect (8 launches for 32-bit keys, 11 for 64-bit), then the final sort.
 * Every launch after the first may start while the previous finishes (pdl.cuh). Choosing the range
 * from a sample is sample sort's splitter choice (Blelloch et al. 1991) applied to one rank; AIR
 * top-k instead histograms the whole row.
 *
 * Batches of rows shorter than SELECT_MIN_ROW are sorted whole instead (the segmented sort,
 * keys with indices) and each row's first k gathered. Longer rows run the select one row
 * after another. Host data is copied to the device and the results back; below HOST_MIN_KEYS
 * keys, or with more rows than HOST_MAX_ROWS, host data goes to the CPU backend's top-k
 * instead (launches would dominate).
 */
#include "cuda_internal.h"
#include "cpu/cpu.h"
#include "keys.h"
#include "pdl.cuh"
#include "warp_radix_rank.cuh"

#include <cuda_runtime.h>
#include <math.h>

namespace {

using gpusort_bs::launch_pdl;
using gpusort_bs::pdl_wait_and_release;
using gpusort_cuda::lanemask_lt;
using gpusort_cuda::warp_inclusive_scan;
typedef unsigned long long ull;

constexpr int DIGIT = 11;
constexpr int BINS = 1 << DIGIT;
constexpr int THREADS = 256;
constexpr int WARPS = THREADS / 32;
constexpr int BLOCKS_PER_SM = 4;            /* both kernels: __launch_bounds__ and the grid */
constexpr int HIST_UNROLL = 8;              /* keys in flight per thread in tk_histogram */
constexpr size_t HOST_MIN_KEYS = (size_t)1 << 20;
constexpr size_t HOST_MAX_ROWS = 64;

/* tk_collect's tiles: CHUNKS loads of 64 bytes of keys per thread (16 u32 or 8 u64 keys),
 * 64 KiB of keys per tile. Large tiles keep the look-back short: a tile's look-back reads 128
 * predecessors per round trip to L2, and it must outpace the tiles being started. */
constexpr int CHUNKS = 4;
template <typename U> constexpr int items_of() { return 64 / (int)sizeof(U); }
template <typename U> constexpr int rows_of() { return CHUNKS * items_of<U>(); }
template <typename U> constexpr int tile_of() { return THREADS * rows_of<U>(); }

/* The selection's state on the device. */
struct tk_state {
    ull prefix;            /* the resolved high bits of T */
    ull need;              /* keys still wanted among those with this prefix */
    ull cand_n;            /* mode 0: candidates (keys in the guessed range) */
    ull sure;              /* mode 0: keys below the guessed range (all taken) */
    ull glo, ghi;          /* the guess: T's top GUESS_BITS bits in [glo, ghi] */
    ull rlo, rhi;          /* tk_sample: the ranks of the guess's ends within their digits */
    int open_lo, open_hi;  /* tk_sample: the range reaches the lowest / highest keys */
    int bits;              /* how many high bits are resolved */
    int done;              /* resolved, or every key with the prefix is needed */
    int mode;              /* 0 candidates, 1 the whole row (no guess, or a wrong one) */
    int guess;             /* tk_sample made a guess: tk_split runs */
    unsigned int arrived;  /* blocks of the running tk_histogram / tk_sample that finished */
};

/* The look-back of one tk_collect pass: per tile, its count of keys below the prefix and of
 * keys equal to it, each a word of FLAG_* | count; and the counter that hands out tiles. All
 * zero before the pass (tk_init). */
struct tk_look {
    ull *less, *eq;
    unsigned int *next;
};
constexpr ull FLAG_INCLUSIVE = 1ull << 63;   /* count of this tile and all before it */
constexpr ull FLAG_AGGREGATE = 1ull << 62;   /* count of this tile alone */
constexpr ull COUNT_MASK = FLAG_AGGREGATE - 1;

/* What a pass reads: the row (ids NULL: a key's id is its position), or the candidates (ids:
 * their positions in the row; their number is the state's cand_n). Ids are u32 for rows of up
 * to 2^32 keys (I), else u64. */
template <typename U, typename I> struct tk_src {
    const U *keys;
    const I *ids;
    size_t n;
};

template <typename U> struct tk_key;
template <> struct tk_key<uint32_t> {
    static constexpr int W = 32;
    static __device__ __forceinline__ uint64_t radix(uint32_t b, int type, int desc)
    {
        return gpusort__radix32(b, type, desc);
    }
};
template <> struct tk_key<ull> {
    static constexpr int W = 64;
    static __device__ __forceinline__ uint64_t radix(ull b, int type, int desc)
    {
        return gpusort__radix64(b, type, desc);
    }
};

/* The resolved high bits of radix key r (all of r once every bit is resolved). */
template <int W> __device__ __forceinline__ uint64_t high_bits(uint64_t r, int bits)
{
    return bits >= W ? r : (bits == 0 ? 0 : r >> (W - bits));
}

/* The source of a pass after the first: the candidates in mode 0, else the row. */
template <typename U, typename I>
__device__ __forceinline__ tk_src<U, I> source(const tk_state *st, const tk_src<U, I> &row,
                                               const tk_src<U, I> &cand)
{
    return st->mode == 0 ? tk_src<U, I>{cand.keys, cand.ids, (size_t)st->cand_n} : row;
}

__device__ __forceinline__ ull load_word(const ull *p) { return *(const volatile ull *)p; }
__device__ __forceinline__ void store_word(ull *p, ull v) { *(volatile ull *)p = v; }

/* Exclusive scan of one 64-bit value per thread over the block; *total gets the sum. */
__device__ __forceinline__ ull block_scan64(ull v, ull *total)
{
    __shared__ ull warp_sums[WARPS];
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    const ull x = warp_inclusive_scan(v);
    if (lane == 31) warp_sums[warp] = x;
    __syncthreads();
    ull before = 0, all = 0;
    for (int w = 0; w < WARPS; w++) {
        before += w < warp ? warp_sums[w] : 0;
        all += warp_sums[w];
    }
    *total = all;
    __syncthreads();
    return before + x - v;
}

/* A fresh selection: nothing resolved, k keys needed; the histogram and the look-back words
 * of both collect passes zero. */
__global__ void tk_init(tk_state *st, size_t k, ull *zero, size_t words)
{
    pdl_wait_and_release();
    if (blockIdx.x == 0 && threadIdx.x == 0) {
        tk_state fresh = {};
        fresh.need = k;
        fresh.mode = 1;
        *st = fresh;
    }
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < words;
         i += (size_t)gridDim.x * blockDim.x)
        zero[i] = 0;
}

/* Each thread's BINS_PER_THREAD bins of a histogram, from bin threadIdx.x * BINS_PER_THREAD: read
 * into h and zeroed for the next pass. Returns their sum. */
constexpr int BINS_PER_THREAD = BINS / THREADS;
__device__ __forceinline__ ull take_bins(ull *hist, ull (&h)[BINS_PER_THREAD])
{
    ull sum = 0;
#pragma unroll
    for (int j = 0; j < BINS_PER_THREAD; j++) {
        h[j] = load_word(hist + threadIdx.x * BINS_PER_THREAD + j);
        sum += h[j];
        hist[threadIdx.x * BINS_PER_THREAD + j] = 0;
    }
    return sum;
}

/* The bin of rank r (0-based) in the histogram whose bins this thread holds in h (the bins
 * before them count `below`), if it is one of them: the bin, and *within = r minus the count
 * of the bins before it. -1 when not this thread's. */
__device__ int bin_of_rank(const ull (&h)[BINS_PER_THREAD], ull below, ull r, ull *within)
{
    ull sum = 0;
    for (int j = 0; j < BINS_PER_THREAD; j++) sum += h[j];
    if (r < below || r >= below + sum) return -1;
    int d = 0;
    while (below + h[d] <= r) below += h[d++];
    *within = r - below;
    return (int)threadIdx.x * BINS_PER_THREAD + d;
}

/* The choice at the end of a histogram pass, by its last block: find the digit where the
 * running count reaches need (the bin of rank need - 1), resolve it, zero the histogram for
 * the next pass. */
template <int W>
__device__ void choose(ull *hist, tk_state *st)
{
    ull h[BINS_PER_THREAD], total, within;
    const ull sum = take_bins(hist, h);
    const ull below = block_scan64(sum, &total);
    const ull need = st->need;
    const int bits = st->bits, db = W - bits < DIGIT ? W - bits : DIGIT;
    __syncthreads();   /* every thread has read st before one of them writes it */
    const int d = bin_of_rank(h, below, need - 1, &within);
    if (d >= 0) {
        const ull left = within + 1;
        st->need = left;
        st->prefix = st->prefix << db | (ull)d;
        st->bits = bits + db;
        st->done = h[d - threadIdx.x * BINS_PER_THREAD] == left || bits + db >= W;
    }
    if (threadIdx.x == 0) st->arrived = 0;
}

/* The guess, by tk_sample's last blocks. The sample holds s keys of the row's n; T is near its
 * key of rank k s / n. The guess is the range between the sample's keys of ranks
 * k s / n -+ margin, 4 standard deviations of that rank plus 32, to GUESS_BITS bits (two
 * digits): level 0 finds the first digits of both ends from the histogram of first digits,
 * level 1 the second digits from the histograms of the second digits of the sample keys in
 * those two first digits. A range that reaches past the sample's ends is open there: the row
 * may hold keys beyond the sample's extremes. tk_split checks the guess exactly; a wrong one
 * costs the whole-row passes (mode 1). */
constexpr int GUESS_BITS = 2 * DIGIT;

__device__ void guess_level0(ull *hist, tk_state *st, ull s, ull n, ull k)
{
    ull h[BINS_PER_THREAD], total;
    const ull below = block_scan64(take_bins(hist, h), &total);
    const double at = (double)k * (double)s / (double)n, p = (double)k / (double)n;
    const double margin = 4.0 * sqrt(at * (1.0 - p)) + 32.0;
    const int open_lo = at - margin <= 0.0, open_hi = at + margin >= (double)(total - 1);
    ull within;
    int d;
    if (!open_lo && (d = bin_of_rank(h, below, (ull)(at - margin), &within)) >= 0) {
        st->glo = (ull)d;
        st->rlo = within;
    }
    if (!open_hi && (d = bin_of_rank(h, below, (ull)(at + margin), &within)) >= 0) {
        st->ghi = (ull)d;
        st->rhi = within;
    }
    if (threadIdx.x == 0) {
        st->open_lo = open_lo;
        st->open_hi = open_hi;
        st->arrived = 0;
    }
}

__device__ void guess_level1(ull *hist, tk_state *st)
{
    const int open_lo = st->open_lo, open_hi = st->open_hi;
    const ull glo = st->glo, ghi = st->ghi, rlo = st->rlo, rhi = st->rhi;
    for (int e = 0; e < 2; e++) {   /* e = 0: the low end (hist), 1: the high end (hist + BINS) */
        ull h[BINS_PER_THREAD], total, within;
        const ull below = block_scan64(take_bins(hist + e * BINS, h), &total);
        const int d = bin_of_rank(h, below, e ? rhi : rlo, &within);
        if (d >= 0 && !(e ? open_hi : open_lo)) {
            if (e) st->ghi = ghi << DIGIT | (ull)d;
            else st->glo = glo << DIGIT | (ull)d;
        }
    }
    __syncthreads();   /* every thread has read the level-0 ends */
    if (threadIdx.x == 0) {
        if (open_lo) st->glo = 0;
        if (open_hi) st->ghi = ((ull)1 << GUESS_BITS) - 1;
        st->guess = 1;
        st->arrived = 0;
    }
}

/* The sample: s keys of the row in runs of 32 (one warp's load), spread evenly over it.
 * level 0 counts their first digits; level 1 the second digits of those whose first digit is
 * one of the level-0 ends (two histograms); the last block makes that level's guess. */
template <typename U>
__global__ void __launch_bounds__(THREADS, BLOCKS_PER_SM)
tk_sample(const U *keys, size_t n, int type, int desc, tk_state *st, ull s, ull k, ull *hist,
          int level)
{
    constexpr int W = tk_key<U>::W;
    __shared__ unsigned int sh[2][BINS];
    __shared__ int last;
    pdl_wait_and_release();
    const int lane = threadIdx.x & 31;
    const size_t runs = s / 32, gap = n / runs;
    const unsigned int glo = level ? (unsigned int)st->glo : 0, ghi = level ? (unsigned int)st->ghi : 0;
    for (int b = threadIdx.x; b < 2 * BINS; b += THREADS) sh[b / BINS][b % BINS] = 0;
    __syncthreads();
    for (size_t r = (blockIdx.x * (size_t)THREADS + threadIdx.x) / 32; r < runs;
         r += (size_t)gridDim.x * THREADS / 32) {
        const uint64_t x = tk_key<U>::radix(keys[r * gap + lane], type, desc);
        const unsigned int d1 = (unsigned int)(x >> (W - DIGIT));
        const unsigned int d2 = (unsigned int)(x >> (W - 2 * DIGIT)) & (BINS - 1);
        if (!level) atomicAdd(&sh[0][d1], 1u);
        else {
            if (d1 == glo) atomicAdd(&sh[0][d2], 1u);
            if (d1 == ghi) atomicAdd(&sh[1][d2], 1u);
        }
    }
    __syncthreads();
    for (int b = threadIdx.x; b < (level ? 2 : 1) * BINS; b += THREADS)
        if (sh[b / BINS][b % BINS]) atomicAdd(&hist[b], (ull)sh[b / BINS][b % BINS]);
    __threadfence();
    __syncthreads();
    if (threadIdx.x == 0) last = atomicAdd(&st->arrived, 1u) == gridDim.x - 1;
    __syncthreads();
    if (!last) return;
    __threadfence();
    if (level) guess_level1(hist, st);
    else guess_level0(hist, st, s, n, k);
}

/* One digit: the histogram of the next DIGIT bits of the keys of the source (the mode's) that
 * carry the prefix, then the choice (last block). */
template <typename U, typename I>
__global__ void __launch_bounds__(THREADS, BLOCKS_PER_SM)
tk_histogram(tk_src<U, I> row, tk_src<U, I> cand, int type, int desc, tk_state *st, ull *hist)
{
    constexpr int W = tk_key<U>::W;
    __shared__ unsigned int sh[BINS];
    __shared__ int last;
    pdl_wait_and_release();
    if (st->done) return;   /* the same for every block: none counts arrival */
    const tk_src<U, I> src = source(st, row, cand);
    const int bits = st->bits, lane = threadIdx.x & 31;
    const uint64_t prefix = st->prefix;
    const int db = W - bits < DIGIT ? W - bits : DIGIT, shift = W - bits - db;
    const uint64_t mask = ((uint64_t)1 << db) - 1;
    const size_t step = (size_t)THREADS * HIST_UNROLL, stride = (size_t)gridDim.x * step;
    /* The grid is sized for the row; over the candidates most blocks have no keys and only
     * count their arrival. */
    const bool idle = blockIdx.x * step >= src.n;
    if (!idle) for (int b = threadIdx.x; b < BINS; b += THREADS) sh[b] = 0;
    __syncthreads();
    /* HIST_UNROLL coalesced loads per thread and step, the next step's issued before this
     * step's keys are counted. The loop bound is the block's, so every lane of a warp takes
     * the same trips. A warp whose 32 keys share a bin (sorted or constant data) adds 32 once
     * instead of contending 32 times on one word. */
    auto load = [&](size_t b, U (&k)[HIST_UNROLL]) {
#pragma unroll
        for (int u = 0; u < HIST_UNROLL; u++) {
            const size_t i = b + (size_t)u * THREADS + threadIdx.x;
            k[u] = i < src.n ? src.keys[i] : (U)0;
        }
    };
    U next[HIST_UNROLL];
    size_t b = blockIdx.x * step;
    if (b < src.n) load(b, next);
    for (; b < src.n; b += stride) {
        U k[HIST_UNROLL];
#pragma unroll
        for (int u = 0; u < HIST_UNROLL; u++) k[u] = next[u];
        if (b + stride < src.n) load(b + stride, next);
#pragma unroll
        for (int u = 0; u < HIST_UNROLL; u++) {
            const size_t i = b + (size_t)u * THREADS + threadIdx.x;
            const uint64_t r = tk_key<U>::radix(k[u], type, desc);
            const unsigned int bin = i < src.n && high_bits<W>(r, bits) == prefix
                                         ? (unsigned int)((r >> shift) & mask) : BINS;
            const unsigned int b0 = __shfl_sync(0xffffffffu, bin, 0);
            if (__all_sync(0xffffffffu, bin == b0)) {
                if (lane == 0 && b0 < BINS) atomicAdd(&sh[b0], 32u);
            } else if (bin < BINS) {
                atomicAdd(&sh[bin], 1u);
            }
        }
    }
    __syncthreads();
    if (!idle)
        for (int b = threadIdx.x; b < BINS; b += THREADS)
            if (sh[b]) atomicAdd(&hist[b], (ull)sh[b]);
    __threadfence();
    __syncthreads();
    if (threadIdx.x == 0) last = atomicAdd(&st->arrived, 1u) == gridDim.x - 1;
    __syncthreads();
    if (!last) return;
    __threadfence();
    choose<W>(hist, st);
}

/* The count of the tiles before this one (called by one whole warp; every lane gets it), and
 * this tile's inclusive count published. agg: this tile's own count. Each round reads 128
 * predecessors, 4 per lane, nearest first in (lane, q) order, and stops at the nearest
 * inclusive word; tiles before tile 0 read as an inclusive 0 (tile 0 is always inclusive). */
__device__ ull look_back(ull *words, size_t tile, ull agg)
{
    const int lane = threadIdx.x & 31;
    if (tile == 0) {
        if (lane == 0) store_word(words, FLAG_INCLUSIVE | agg);
        return 0;
    }
    if (lane == 0) store_word(words + tile, FLAG_AGGREGATE | agg);
    ull before = 0;
    for (long long p = (long long)tile - 1;; p -= 128) {
        ull v[4];
        bool wait = false;
#pragma unroll
        for (int q = 0; q < 4; q++) {
            const long long at = p - 4 * lane - q;
            v[q] = at >= 0 ? load_word(words + at) : FLAG_INCLUSIVE;
            wait |= v[q] == 0;
        }
        while (__any_sync(0xffffffffu, wait)) {
            wait = false;
#pragma unroll
            for (int q = 0; q < 4; q++) {
                if (v[q] == 0) v[q] = load_word(words + (p - 4 * lane - q));
                wait |= v[q] == 0;
            }
        }
        int first = 4;   /* this lane's nearest inclusive word */
#pragma unroll
        for (int q = 3; q >= 0; q--)
            if (v[q] & FLAG_INCLUSIVE) first = q;
        const unsigned int inc = __ballot_sync(0xffffffffu, first < 4);
        const int stop = inc ? __ffs(inc) - 1 : 32;
        ull c = 0;
#pragma unroll
        for (int q = 0; q < 4; q++)
            if (lane < stop || (lane == stop && q <= first)) c += v[q] & COUNT_MASK;
#pragma unroll
        for (int o = 16; o; o >>= 1) c += __shfl_xor_sync(0xffffffffu, c, o);
        before += c;
        if (inc) break;
    }
    if (lane == 0) store_word(words + tile, FLAG_INCLUSIVE | (before + agg));
    return before;
}

/* The order-keeping pass over tiles of the source. A tile is ROWS rows of THREADS keys, key
 * (r, t) at r * THREADS + t: coalesced loads, and (row, warp, lane) order is input order.
 * First every key is classed (below the range, in it, above) and each warp's row keeps two
 * ballots in shared memory; the keys themselves are not kept. After the look-back, the lanes
 * whose key is to be written load it again (L2 still holds the tile) and write it: few keys
 * are written, so holding none keeps registers and the tile large.
 *   split = 1 (tk_sample guessed; the row; the range: the guess, GUESS_BITS bits): the keys
 *             below go to (out_keys, out_ids) from 0, at most k of them, the keys in the range
 *             (the candidates) to (eq_keys, eq_ids), at most cap. The last tile checks the
 *             guess with the totals (k - (keys below) of the candidates are the top k's, and
 *             all of them fit) and sets the mode: 0 (candidates) or 1 (whole row).
 *   split = 0 (the collect, T resolved; the source the mode names; the range: T's prefix):
 *             the keys below and the equal ones of rank < need go to (out_keys, out_ids)
 *             from st->sure in mode 0, else from 0. */
template <typename U, typename I>
__global__ void __launch_bounds__(THREADS, BLOCKS_PER_SM)
tk_collect(tk_src<U, I> row, tk_src<U, I> cand, int type, int desc, tk_state *st, int split, ull k,
           ull cap, tk_look look, U *out_keys, I *out_ids, U *eq_keys, I *eq_ids)
{
    constexpr int W = tk_key<U>::W, ITEMS = items_of<U>(), ROWS = rows_of<U>();
    constexpr int TILE = tile_of<U>(), WROWS = ROWS * WARPS;   /* warp rows per tile */
    __shared__ unsigned int s_mask[2][WROWS];   /* ballots of the keys below / in the range */
    __shared__ unsigned int s_off[2][WROWS];    /* their counts before the warp row, in tile */
    __shared__ ull s_before[2], s_total[2];
    __shared__ unsigned int s_tile[2];          /* this tile; the next, fetched meanwhile */
    pdl_wait_and_release();
    if (split && !st->guess) return;
    const tk_src<U, I> src = split ? row : source(st, row, cand);
    const int bits = split ? GUESS_BITS : st->bits, lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    const uint64_t lo = split ? st->glo : st->prefix, hi = split ? st->ghi : st->prefix;
    const ull need = split ? ~0ull : st->need;
    const ull base = !split && st->mode == 0 ? st->sure : 0;
    const size_t tiles = (src.n + TILE - 1) / TILE;
    const unsigned int lt = lanemask_lt();
    if (threadIdx.x == 0) s_tile[0] = atomicAdd(look.next, 1u);
    for (int cur = 0;; cur ^= 1) {
        __syncthreads();
        const size_t tile = s_tile[cur];
        if (tile >= tiles) return;
        const size_t first = tile * TILE + threadIdx.x;
        /* 1. Class every key; ballots per warp row. The next chunk's loads are issued before
         * this chunk is classed. */
        U key[ITEMS], nxt[ITEMS];
        auto load = [&](int c, U (&k)[ITEMS]) {
#pragma unroll
            for (int j = 0; j < ITEMS; j++) {
                const size_t i = first + (size_t)(c * ITEMS + j) * THREADS;
                k[j] = i < src.n ? src.keys[i] : (U)0;
            }
        };
        load(0, nxt);
#pragma unroll 1
        for (int c = 0; c < CHUNKS; c++) {
#pragma unroll
            for (int j = 0; j < ITEMS; j++) key[j] = nxt[j];
            if (c + 1 < CHUNKS) load(c + 1, nxt);
#pragma unroll
            for (int j = 0; j < ITEMS; j++) {
                const size_t i = first + (size_t)(c * ITEMS + j) * THREADS;
                unsigned int cls = 2;   /* 0 below, 1 equal, 2 above or past the end */
                if (i < src.n) {
                    const uint64_t p = high_bits<W>(tk_key<U>::radix(key[j], type, desc), bits);
                    cls = p < lo ? 0 : p <= hi ? 1 : 2;
                }
                const unsigned int bl = __ballot_sync(0xffffffffu, cls == 0);
                const unsigned int be = __ballot_sync(0xffffffffu, cls == 1);
                if (lane == 0) {
                    s_mask[0][(c * ITEMS + j) * WARPS + warp] = bl;
                    s_mask[1][(c * ITEMS + j) * WARPS + warp] = be;
                }
            }
        }
        __syncthreads();
        /* 2. Warp 0 the keys below, warp 1 the equal ones: counts before each warp row, then
         * the tiles before this one. Warp 2 fetches the next tile meanwhile. */
        if (warp < 2) {
            constexpr int PER = WROWS / 32;
            const unsigned int *m = s_mask[warp] + lane * PER;
            unsigned int *o = s_off[warp] + lane * PER, v[PER], sum = 0;
#pragma unroll
            for (int q = 0; q < PER; q++) { v[q] = __popc(m[q]); sum += v[q]; }
            const unsigned int incl = warp_inclusive_scan(sum);
            unsigned int run = incl - sum;
#pragma unroll
            for (int q = 0; q < PER; q++) { o[q] = run; run += v[q]; }
            const unsigned int total = __shfl_sync(0xffffffffu, incl, 31);
            const ull before = look_back(warp ? look.eq : look.less, tile, total);
            if (lane == 0) {
                s_before[warp] = before;
                s_total[warp] = before + total;
            }
        } else if (threadIdx.x == 64) {
            s_tile[cur ^ 1] = atomicAdd(look.next, 1u);
        }
        __syncthreads();
        if (split && tile == tiles - 1 && threadIdx.x == 0) {
            /* The last tile: every key is counted. The other blocks read nothing it writes. */
            const ull below = s_total[0], in = s_total[1];
            const int ok = below < k && below + in >= k && in <= cap;
            st->mode = ok ? 0 : 1;
            if (ok) {
                st->need = k - below;
                st->sure = below;
                st->cand_n = in;
                /* Both ends of the guess in one first digit: every candidate has it, so it is
                 * resolved here and the digit passes start at the second. */
                if (lo >> DIGIT == hi >> DIGIT) {
                    st->prefix = lo >> DIGIT;
                    st->bits = DIGIT;
                    st->done = in == k - below;
                }
            }
        }
        /* 3. Each warp writes the keys of its rows that are taken, GROUP rows at a time: the
         * loads of a group are issued together (a sparse tile costs one round trip, a dense
         * one ROWS / GROUP). */
        constexpr int GROUP = sizeof(U) == 4 ? 8 : 4;
        const ull less0 = s_before[0], eq0 = s_before[1];
        const size_t wfirst = tile * TILE + (size_t)warp * 32 + lane;
#pragma unroll 1
        for (int r0 = 0; r0 < ROWS; r0 += GROUP) {
            unsigned int bl[GROUP], be[GROUP], any = 0;
#pragma unroll
            for (int u = 0; u < GROUP; u++) {
                bl[u] = s_mask[0][(r0 + u) * WARPS + warp];
                be[u] = s_mask[1][(r0 + u) * WARPS + warp];
                any |= bl[u] | be[u];
            }
            if (!any) continue;   /* the same for the whole warp */
            U key[GROUP];
            I id[GROUP];
#pragma unroll
            for (int u = 0; u < GROUP; u++) {
                const size_t i = wfirst + (size_t)(r0 + u) * THREADS;
                if ((bl[u] | be[u]) >> lane & 1) {
                    key[u] = src.keys[i];
                    id[u] = src.ids ? src.ids[i] : (I)i;
                }
            }
#pragma unroll
            for (int u = 0; u < GROUP; u++) {
                if (!((bl[u] | be[u]) >> lane & 1)) continue;
                const int w = (r0 + u) * WARPS + warp;
                const ull L = less0 + s_off[0][w] + __popc(bl[u] & lt);
                const ull E = eq0 + s_off[1][w] + __popc(be[u] & lt);
                if (split) {   /* a wrong guess may find more: counted, not written */
                    if (bl[u] >> lane & 1) {
                        if (L < k) { out_keys[L] = key[u]; out_ids[L] = id[u]; }
                    } else if (E < cap) {
                        eq_keys[E] = key[u];
                        eq_ids[E] = id[u];
                    }
                } else if ((bl[u] >> lane & 1) || E < need) {
                    const ull at = base + L + (E < need ? E : need);
                    out_keys[at] = key[u];
                    out_ids[at] = id[u];
                }
            }
        }
    }
}

/* The batch path's offsets: row r starts at r * L. */
__global__ void tk_row_offsets(uint64_t *offs, size_t count, uint64_t L)
{
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < count;
         i += (size_t)gridDim.x * blockDim.x)
        offs[i] = i * L;
}

/* The batch path's outputs: the first k of each sorted row, indices made row-local. */
template <typename U>
__global__ void tk_gather(const U *sorted, const unsigned long long *sorted_idx, size_t rows,
                          size_t L, size_t k, U *keys_out, void *idx_out, int idx32)
{
    for (size_t j = blockIdx.x * (size_t)blockDim.x + threadIdx.x; j < rows * k;
         j += (size_t)gridDim.x * blockDim.x) {
        size_t r = j / k, src = r * L + j % k;
        if (keys_out) keys_out[j] = sorted[src];
        if (idx_out) {
            unsigned long long v = sorted_idx[src] - r * L;
            if (idx32) ((uint32_t *)idx_out)[j] = (uint32_t)v;
            else ((unsigned long long *)idx_out)[j] = v;
        }
    }
}

unsigned grid_for(size_t n)
{
    size_t g = (n + 255) / 256;
    return (unsigned)(g < 1 ? 1 : g > 4096 ? 4096 : g);
}

/* The scratch of one row's select (reused for every row of a call). */
struct tk_mem {
    tk_state *st;
    ull *zero;                       /* tk_init zeroes `words` words from here: */
    size_t words;
    ull *hist;                       /*   the histogram (BINS) */
    tk_look split, collect;          /*   the two passes' look-back words and tile counters */
    void *fin_keys;                  /* the k selected keys, in input order per group */
    void *fin_ids;                   /* their ids (the row's I) */
    void *cand_keys;                 /* mode 0: the keys in the guessed range */
    void *cand_ids;
    size_t cand_cap;
};

size_t round8(size_t b) { return (b + 7) / 8 * 8; }

/* Rows of CAND_MIN_ROW keys and more guess T's top bits from a sample and split the row
 * once (mode 0); shorter rows, or a wrong guess, read the whole row for every digit. The
 * candidates are at most 1/16 of the row. The sample: 1/64 of the row, at least 2^16 keys
 * (ample for the margins of the guess, guess_level0). */
constexpr size_t CAND_MIN_ROW = (size_t)1 << 18;
size_t cand_cap(size_t n) { return n < CAND_MIN_ROW ? 0 : n / 16; }
size_t sample_of(size_t n)
{
    const size_t s = n / 64 > ((size_t)1 << 16) ? n / 64 : (size_t)1 << 16;
    return s / 32 * 32;
}

/* Top-k of one row of device data into device outputs: keys_out never NULL, idx_out NULL when
 * no indices are wanted. I: the ids' type, the indices' type when they are wanted. */
template <typename U, typename I>
gpusort_status row_topk(gpusort_ctx *ctx, const gpusort__topk_args *a, const U *keys,
                        size_t n, void *keys_out, void *idx_out, const tk_mem &m)
{
    constexpr int W = tk_key<U>::W;
    cudaStream_t s = gpusort__cuda_stream(ctx);
    const int pdl = gpusort__cuda_pdl(ctx);
    const int type = (int)a->key_type, desc = a->order == GPUSORT_ORDER_DESC;
    const tk_src<U, I> row = {keys, NULL, n};
    const tk_src<U, I> cand = {(const U *)m.cand_keys, (const I *)m.cand_ids, 0};
    U *fk = (U *)m.fin_keys, *ck = (U *)m.cand_keys;
    I *fi = (I *)m.fin_ids, *ci = (I *)m.cand_ids;
    const ull cap = m.cand_cap, k = a->k;
    /* The kernels loop over their work: at most BLOCKS_PER_SM blocks per SM, fewer for a short
     * row. */
    const size_t most = (size_t)gpusort__cuda_props(ctx)->multiProcessorCount * BLOCKS_PER_SM;
    auto grid = [&](size_t units) { return (unsigned)(units < 1 ? 1 : units < most ? units : most); };
    const unsigned hist_grid = grid((n + THREADS * HIST_UNROLL - 1) / (THREADS * HIST_UNROLL));
    const unsigned tile_grid = grid((n + tile_of<U>() - 1) / tile_of<U>());
    const unsigned zero_grid = grid((m.words + THREADS - 1) / THREADS);

    launch_pdl(tk_init, zero_grid, THREADS, 0, s, 0, m.st, (size_t)k, m.zero, m.words);
    if (cap) {
        const size_t smp = sample_of(n);
        for (int level = 0; level < 2; level++)
            launch_pdl(tk_sample<U>, grid(smp / (THREADS * 4)), THREADS, 0, s, pdl, keys, n,
                       type, desc, m.st, (ull)smp, k, m.hist, level);
        launch_pdl(tk_collect<U, I>, tile_grid, THREADS, 0, s, pdl, row, cand, type, desc, m.st,
                   1, k, cap, m.split, fk, fi, ck, ci);
    }
    for (int bits = 0; bits < W; bits += DIGIT)
        launch_pdl(tk_histogram<U, I>, hist_grid, THREADS, 0, s, pdl, row, cand, type, desc, m.st,
                   m.hist);
    launch_pdl(tk_collect<U, I>, tile_grid, THREADS, 0, s, pdl, row, cand, type, desc, m.st, 0,
               k, cap, m.collect, fk, fi, (U *)NULL, (I *)NULL);
    gpusort_status st;
    if ((st = gpusort__cuda_check(ctx, cudaGetLastError(), "top-k kernels"))) return st;
    /* The k keys are in input order within each group (below the guessed range; the rest),
     * and every key of the first group is below every key of the second: a stable sort of
     * (key, id) pairs puts ties in input order, and writes the indices. Without indices, the
     * keys alone (equal keys are the same bits). */
    const gpusort_type vt = !idx_out ? GPUSORT_TYPE_NONE
                                     : sizeof(I) == 4 ? GPUSORT_TYPE_U32 : GPUSORT_TYPE_U64;
    gpusort__sort_args d = {a->key_type, m.fin_keys, keys_out, vt, idx_out ? m.fin_ids : NULL,
                            idx_out, a->k, a->order, GPUSORT_ALGORITHM_AUTO, 0};
    return gpusort__cuda_dispatch(ctx, &d);
}

/* Many short rows: the segmented sort of every row (keys + global indices), then the first k
 * of each. Below SELECT_MIN_ROW keys a row's select costs more in launches than its sort. */
constexpr size_t SELECT_MIN_ROW = (size_t)1 << 16;

gpusort_status batch_by_sort(gpusort_ctx *ctx, const gpusort__topk_args *a, const void *keys_in,
                             void *keys_out, void *indices_out)
{
    const size_t ks = gpusort_type_size(a->key_type), L = a->row_length, rows = a->n / L;
    uint64_t *offs = (uint64_t *)gpusort__cuda_scratch(ctx, GPUSORT_CUDA_SCRATCH_TOPK,
                                                       (rows + 1) * 8);
    void *sk = gpusort__cuda_scratch(ctx, GPUSORT_CUDA_SCRATCH_TOPK_SORT_KEYS, a->n * ks);
    unsigned long long *si = (unsigned long long *)gpusort__cuda_scratch(
        ctx, GPUSORT_CUDA_SCRATCH_TOPK_SORT_IDX, a->n * 8);
    if (!offs || !sk || !si) return GPUSORT_STATUS_OUT_OF_DEVICE_MEMORY;
    cudaStream_t s = gpusort__cuda_stream(ctx);
    tk_row_offsets<<<grid_for(rows + 1), 256, 0, s>>>(offs, rows + 1, L);
    gpusort__sort_args d = {a->key_type, keys_in, sk, GPUSORT_TYPE_U64, NULL, si, a->n,
                            a->order, GPUSORT_ALGORITHM_AUTO, 0};
    gpusort_status st = gpusort__cuda_segmented_sort(ctx, &d, offs, rows);
    if (st) return st;
    int idx32 = indices_out && a->index_type == GPUSORT_TYPE_U32;
    if (ks == 4)
        tk_gather<uint32_t><<<grid_for(rows * a->k), 256, 0, s>>>(
            (const uint32_t *)sk, si, rows, L, a->k, (uint32_t *)keys_out, indices_out, idx32);
    else
        tk_gather<unsigned long long><<<grid_for(rows * a->k), 256, 0, s>>>(
            (const unsigned long long *)sk, si, rows, L, a->k, (unsigned long long *)keys_out,
            indices_out, idx32);
    return gpusort__cuda_check(ctx, cudaGetLastError(), "top-k: gather");
}

/* Every row of device data: outputs on the device (either may be NULL). */
gpusort_status device_topk(gpusort_ctx *ctx, const gpusort__topk_args *a, const void *keys_in,
                           void *keys_out, void *indices_out)
{
    const size_t ks = gpusort_type_size(a->key_type), k = a->k, L = a->row_length;
    const size_t rows = a->n / L;
    if (rows > 1 && L < SELECT_MIN_ROW) return batch_by_sort(ctx, a, keys_in, keys_out, indices_out);
    /* Ids of the indices' type, so that the final sort writes the indices themselves: u64
     * when they are wanted as u64, else u32 while the row's positions fit (the choice of id
     * type: bench/results/topk-2026-11-28b.md). */
    const size_t isz = indices_out ? gpusort_type_size(a->index_type) : 0;
    const size_t is = isz == 8 || L > ((size_t)1 << 32) ? 8 : 4;
    if (indices_out && isz < is)
        return gpusort__set_error(ctx, GPUSORT_STATUS_INVALID_ARGUMENT,
                                  "u32 indices of a row of more than 2^32 keys");
    const size_t tile = ks == 4 ? tile_of<uint32_t>() : tile_of<ull>();
    const size_t tiles = (L + tile - 1) / tile, cap = cand_cap(L);
    /* Zeroed by tk_init: the histograms (two for tk_sample's level 1), 4 look-back words per
     * tile, the 2 tile counters. */
    const size_t words = 2 * BINS + 4 * tiles + 1;
    size_t bytes = round8(sizeof(tk_state)) + words * 8 + round8(k * is) + round8(cap * is) +
                   round8(k * ks) + round8(cap * ks);
    char *p = (char *)gpusort__cuda_scratch(ctx, GPUSORT_CUDA_SCRATCH_TOPK, bytes);
    if (!p) return GPUSORT_STATUS_OUT_OF_DEVICE_MEMORY;
    tk_mem m;
    m.st = (tk_state *)p;                    p += round8(sizeof(tk_state));
    m.zero = (ull *)p;
    m.words = words;
    m.hist = (ull *)p;                       p += 2 * BINS * 8;
    m.split.less = (ull *)p;                 p += tiles * 8;
    m.split.eq = (ull *)p;                   p += tiles * 8;
    m.collect.less = (ull *)p;               p += tiles * 8;
    m.collect.eq = (ull *)p;                 p += tiles * 8;
    m.split.next = (unsigned int *)p;
    m.collect.next = (unsigned int *)p + 1;  p += 8;
    m.fin_ids = p;                           p += round8(k * is);
    m.cand_ids = p;                          p += round8(cap * is);
    m.fin_keys = p;                          p += round8(k * ks);
    m.cand_keys = p;
    m.cand_cap = cap;
    /* The final sort needs somewhere to write keys the caller does not want. */
    void *kbuf =
        !keys_out ? gpusort__cuda_scratch(ctx, GPUSORT_CUDA_SCRATCH_IO_KEYS, k * ks) : NULL;
    if (!keys_out && !kbuf) return GPUSORT_STATUS_OUT_OF_DEVICE_MEMORY;
    for (size_t r = 0; r < rows; r++) {
        const char *in = (const char *)keys_in + r * L * ks;
        void *ko = keys_out ? (char *)keys_out + r * k * ks : kbuf;
        void *io = indices_out ? (char *)indices_out + r * k * isz : NULL;
        gpusort_status st;
        if (ks == 4)
            st = is == 4 ? row_topk<uint32_t, uint32_t>(ctx, a, (const uint32_t *)in, L, ko, io, m)
                         : row_topk<uint32_t, ull>(ctx, a, (const uint32_t *)in, L, ko, io, m);
        else
            st = is == 4 ? row_topk<ull, uint32_t>(ctx, a, (const ull *)in, L, ko, io, m)
                         : row_topk<ull, ull>(ctx, a, (const ull *)in, L, ko, io, m);
        if (st) return st;
    }
    return GPUSORT_STATUS_SUCCESS;
}

} // namespace

extern "C" gpusort_status gpusort__cuda_topk(gpusort_ctx *ctx, const gpusort__topk_args *a)
{
    gpusort__cuda_impl *im = gpusort__cuda_impl_of(ctx);
    gpusort_status s;
    if ((s = gpusort__cuda_check(ctx, cudaSetDevice(im->device), "cudaSetDevice"))) return s;
    if (im->ws)
        return gpusort__set_error(ctx, GPUSORT_STATUS_UNSUPPORTED,
                                  "top-k takes no caller workspace yet (gpusort_ctx_set_scratch): "
                                  "unset it, or give an allocator");
    int pin_in = 0, pin_k = 0, pin_i = 0;
    int dev_in = gpusort__cuda_is_device(a->keys_in, &pin_in);
    int dev_k = a->keys_out ? gpusort__cuda_is_device(a->keys_out, &pin_k) : dev_in;
    int dev_i = a->indices_out ? gpusort__cuda_is_device(a->indices_out, &pin_i) : dev_in;
    if (dev_in != dev_k || dev_in != dev_i)
        return gpusort__set_error(ctx, GPUSORT_STATUS_INVALID_ARGUMENT,
                                  "device and host pointers mixed in one call");
    if (dev_in) {
        s = device_topk(ctx, a, a->keys_in, a->keys_out, a->indices_out);
        if (s == GPUSORT_STATUS_SUCCESS && im->stream == im->own_stream)
            s = gpusort__cuda_check(ctx, cudaStreamSynchronize(im->stream), "cudaStreamSynchronize");
        return s;
    }
    const size_t rows = a->n / a->row_length;
    if (a->n < HOST_MIN_KEYS || rows > HOST_MAX_ROWS) return gpusort__cpu_topk(ctx, a);
    /* Host data: in to the device, the rows' top-k there, the k results back. */
    const size_t ks = gpusort_type_size(a->key_type), out = rows * a->k;
    const size_t is = a->indices_out ? gpusort_type_size(a->index_type) : 0;
    void *din = gpusort__cuda_scratch(ctx, GPUSORT_CUDA_SCRATCH_TOPK_IN, a->n * ks);
    void *dout = gpusort__cuda_scratch(ctx, GPUSORT_CUDA_SCRATCH_TOPK_OUT, round8(out * ks) + out * is);
    if (!din || !dout) return GPUSORT_STATUS_OUT_OF_DEVICE_MEMORY;
    if ((s = gpusort__cuda_copy_h2d(ctx, din, a->keys_in, a->n * ks, pin_in))) return s;
    void *dkeys = a->keys_out ? dout : NULL;
    void *didx = a->indices_out ? (char *)dout + round8(out * ks) : NULL;
    if ((s = device_topk(ctx, a, din, dkeys, didx))) return s;
    cudaStream_t st = im->stream;
    if (a->keys_out &&
        (s = gpusort__cuda_check(ctx, cudaMemcpyAsync(a->keys_out, dkeys, out * ks,
                                                      cudaMemcpyDeviceToHost, st),
                                 "top-k: copy the keys out")))
        return s;
    if (a->indices_out &&
        (s = gpusort__cuda_check(ctx, cudaMemcpyAsync(a->indices_out, didx, out * is,
                                                      cudaMemcpyDeviceToHost, st),
                                 "top-k: copy the indices out")))
        return s;
    return gpusort__cuda_check(ctx, cudaStreamSynchronize(st), "cudaStreamSynchronize");
}
