/*
 * radix.cu -- LSD radix sort of device data, Onesweep class: gpusort__cuda_radix_sort.
 *
 * Keys of all six types (moved as their original bits; the digit is computed on the fly from the
 * order-preserving radix key, thread_radix_key.cuh), ascending or descending, keys only, pairs
 * with u32/u64 values, argsort (values generated as indices on the first pass). Stable.
 * An argsort with u64 indices of n < 2^32 keys (torch.sort's int64 indices) sorts u32 indices
 * and widens them where it writes them last ("Narrow indices" below); for 32-bit keys above
 * 2^21 it sorts each key and its index as one 64-bit word ("Packed argsort").
 *
 * Algorithm (Adinets & Merrill 2022, "Onesweep: A Faster Least Significant Digit Radix Sort for
 * GPUs"; decoupled look-back from Merrill & Garland 2016, "Single-pass Parallel Prefix Scan with
 * Decoupled Look-back"). 8-bit digits, so 4 passes for 32-bit keys and 8 for 64-bit keys.
 *   1. hist_kernel: ONE read of the keys builds the 256-bucket histogram of every digit position
 *      at once.
 *   2. scan_kernel (one block): for each digit position the exclusive scan of its histogram gives
 *      each bucket's first output index ("bin base"); a position where one bucket holds all n
 *      keys is trivial (e.g. the high bytes of small integers) and is skipped: a skipped pass
 *      saves 2n(K+V) bytes of traffic. The same kernel writes the PLAN: which passes run and
 *      which buffers each reads and writes. So the host never waits for the histograms: every
 *      launch is enqueued at once, a skipped pass's blocks exit at once, and the call stays
 *      asynchronous on the caller's stream. For float keys it also picks the digit's form from
 *      the top digit's histogram: without NaN, and without negative numbers, the passes compute
 *      the digit by fewer steps (thread_radix_key.cuh, FORM_*).
 *   3. onesweep_kernel, once per (non-trivial) digit position: each block takes the next tile
 *      (an atomic ticket, so tiles start in order and the look-back cannot deadlock), loads
 *      THREADS*KPT keys (and computes their digits once), counts the digits per warp and
 *      PUBLISHES the tile's per-digit counts to the look-back state at once, before ranking
 *      ("early counts", block_radix_rank.cuh); then ranks the keys stably (8 ballots find the
 *      lanes sharing a digit; the highest such lane takes the slots with one atomicAdd) straight
 *      into their sorted place in shared memory; then finds the count of each digit in all
 *      earlier tiles by decoupled look-back (thread d walks back over tile t-1, t-2, ... adding
 *      their counts until it meets an inclusive prefix; a few predecessors' words are loaded at
 *      once, lookback_window), and writes the tile, sorted by digit, so that consecutive
 *      threads write consecutive addresses of one bucket. Values are loaded
 *      right after ranking (their latency hides behind the look-back), placed in shared memory
 *      with the same ranks and written in the same loop as the keys. 5 __syncthreads per tile.
 *   One read of the keys plus one read and one write of keys (and values) per pass: ~2(K+V)n
 *   bytes per pass, the minimum for LSD radix.
 *
 * Look-back state: one 32-bit word per (tile, digit): 2 flag bits (AGGREGATE = this tile's count,
 * INCLUSIVE = count of this tile and all before it), a 3-bit EPOCH (the launch's number mod 8)
 * and a 27-bit count. A word whose epoch is not the reader's is "not ready", so the launches of
 * one sort share one state buffer that is zeroed ONCE per sort (with the histograms), not
 * before every pass; only a sort of more than 8 launches (more than 2 portions of 32-bit keys,
 * more than 1 of 64-bit keys) zeroes it again before launches 8, 16, ... The counts of a launch
 * must stay below 2^27, so the input is processed in PORTIONS of < 2^27 keys: each (pass,
 * portion) is one launch whose tiles look back only within the portion; the last tile of
 * portion q writes the bin bases of portion q + 1 (its inclusive counts: the keys of portions
 * 0..q of each bucket in this pass's order), and bases are 64-bit. So n may exceed 2^32.
 * Worked example, one digit d, tiles 0 1 2 holding 5, 2 and 4 keys with digit d: tile 0 writes
 * INCLUSIVE|5; tile 1 writes AGGREGATE|2 at once, reads tile 0's INCLUSIVE|5, writes
 * INCLUSIVE|7 and places its d-keys at base[d] + 5, + 6; tile 2 reads tile 1: INCLUSIVE|7 (done:
 * before = 7) or, if tile 1 is still looking back, AGGREGATE|2, then tile 0's INCLUSIVE|5
 * (before = 2 + 5 = 7). Either way its d-keys go to base[d] + 7 .. + 10.
 *
 * Measured against CUB (same run, same data, H200, 2^28 keys, uniform bits;
 * bench/results/radix-msd-2026-11-29.md, floats radix-2026-11-29c.md and -29e.md): u32 1.190x,
 * f32 1.18x (1.235x without NaN), u64 1.315x, f64 1.31x (1.34-1.38x without NaN), u32/u32 pairs
 * 1.223x, u64/u32 pairs 1.199x and u64/u64 pairs (2^27) 1.229x (MSD first), argsort f32 1.267x.
 *
 * Small inputs (n <= one tile) take tile_sort_kernel: one block ranks and permutes the tile in
 * shared memory for every digit position (skipping positions where the tile's keys agree) and
 * writes it once: one launch instead of 2 + passes.
 *
 * Buffers: the passes ping-pong between the output and an alternate buffer (scratch slot KEYS /
 * VALUES, n*K and n*V bytes) so that the last pass lands in the output; an in-place sort with an
 * odd number of executed passes ends with one device copy (finish_kernel, which also handles
 * "no pass at all": copy, or indices for argsort). Aux memory (slot AUX): histograms and bin
 * bases (8 KiB per pass and portion), plus the look-back state, 1 KiB per tile of the largest
 * portion (n/TILE KiB up to 2^27 keys: 12 MiB for 32-bit keys in the Hopper shape).
 *
 * Narrow indices. An argsort with u64 indices and n <= UINT32_MAX keys above one tile of the
 * u32-value shape runs the u32-value kernels (WIDEN): 4 bytes less read and 4 less written per
 * key and pass (32-bit keys: 16 instead of 24 bytes per key and pass). The plan is the same as
 * for any argsort: pass e of E executed ones writes the output if E-1-e is even, else the
 * alternate buffer. Here the output is the caller's u64 array: the passes before the last use
 * its first n*4 bytes as a u32 buffer, the alternate buffer is n*4 bytes of slot VALUES, and
 * the last pass (Plan::wide_pass) stores each index as u64 into the whole array. Its source is
 * the alternate buffer (E-1-e is odd for e = E-2), or with E = 1 the indices it makes itself,
 * so no pass reads what it overwrites:
 *     E = 3:  indices -> out[u32] -> alt[u32] -> out[u64]
 * With no pass at all, finish_kernel writes the u64 indices. Other modes never take this path:
 * their kernels are compiled without it (the WIDEN template flag). Narrow indices of u64/i64
 * keys also take MSD first where u32 values do (below): its values' buffers are then chosen so
 * that the u64 stores never overwrite u32 indices still to be read.
 *
 * Packed argsort. An argsort of 32-bit keys with u64 indices above SMALL_N (torch.sort's
 * shape; not in place, n <= UINT32_MAX; pack_applies) sorts 64-bit WORDS, the key's bits above
 * its u32 index, with the 64-bit keys-only kernels (MODE_PACK): the same 16 bytes per key and
 * pass as narrow indices, but one array of 8-byte items instead of two of 4-byte ones, and a
 * 64-bit keys-only pass runs faster than a u32/u32 pairs pass of the same bytes (one load, one
 * exchange through shared memory and one store per item instead of two each; measured in
 * bench/results/radix-2026-11-29g.md). The digit is the 32-bit key's (radix_digit_form of the
 * high half), so floats keep their forms and their bits (NaN payloads, -0.0); the histograms
 * are the 32-bit keys'. The first executed
 * pass (vsrc NULL in the plan) reads the 32-bit keys and makes the words, the last
 * (Plan::wide_pass) stores the key halves to the output keys and the indices as u64. The words
 * ping-pong between n*8 bytes of slot VALUES and the caller's u64 index array, the last pass
 * reading slot VALUES (make_plan's packed branch):
 *     E = 4:  keys -> alt -> out_idx -> alt -> (out_keys, out_idx)
 * With no pass at all, finish_kernel writes the keys and the u64 indices, as for narrow
 * indices. Test knob GPUSORT_TEST_RADIX_PACK=0: narrow indices instead.
 *
 * MSD first (u64/i64 keys with values or narrow indices, 2^23 .. 2^24.58 and from 2^27 keys;
 * hybrid_kind says where it pays). The passes are bound by ranking as much as by memory (a pass
 * of 32-bit keys moves 2 GiB in about the time of 4 GiB of 64-bit ones), so fewer passes pay
 * where a pass moves many bytes per key.
 * After the histograms, scan_kernel decides on the device, from the top two digits' histograms,
 * whether the keys look uniform enough; if so:
 *   A  the pass on the top digit, keys_in -> alternate buffer;
 *   seg_hist_kernel, sub_rows_kernel, sub_cols_kernel: the size of every (top, second)
 *      sub-bucket, the offsets of pass B and where each sub-bucket starts; a sub-bucket above
 *      the bucket kernel's capacity sets the fallback (hybrid_fallback_kernel): the LSD
 *      passes then sort pass B's output in place, so the result is the same, 2 passes and 2
 *      counting reads later;
 *   B  the pass on the second digit within each top bucket (MODE_SEGMENTED), -> output;
 *   bucket_sort_kernel (one block per sub-bucket) or bucket_warp_kernel (one warp, for small
 *      sorts): each of the 65536 sub-buckets sorted in shared memory on its remaining digits,
 *      in place.
 * 2 passes, one more counting read and one on-chip sort instead of 8 passes (Stehle & Jacobsen
 * 2017, "A Memory Bandwidth-Efficient Hybrid Radix Sort on GPUs", with one on-chip level).
 * Every launch of both ways is enqueued; the ones not taken exit at once (the LSD plan says
 * `done`), so the call stays asynchronous. Launch numbers: A, B, then the LSD passes; pass B's
 * bin bases are zero (its offsets carry the positions) in slot P of the bin-base table.
 * With narrow indices the keys move as above, the values differently. The bucket sort stores
 * u64 indices into the whole output (8n bytes), so it reads its u32 indices from the alternate
 * buffer (n*4 bytes): B writes there, and A writes the output's low half (its first n*4 bytes,
 * as u32). The fallback's LSD passes follow make_plan's narrow plan (pass e of E writes the low
 * half if E-1-e is even, else the alternate buffer; the last stores u64, reading the alternate
 * buffer) from B's output; with E even their first pass writes the alternate buffer, so B's
 * output must not be there: hybrid_fallback_kernel, which runs before B, sends it to the
 * output's HIGH half (bytes 4n..8n), which only the last pass writes. E >= 2, as the top two
 * digit positions are not trivial when MSD first runs (with E = 1 the one pass would read the
 * high half and store u64 over it):
 *                 keys                         values
 *   A            in -> alt                    indices -> out[lo, u32]
 *   B            alt -> out                   out[lo] -> alt[u32]     (fallback: -> out[hi, u32])
 *   bucket sort  out, in place                alt[u32] -> out[u64]
 *   fallback     out -> ... -> out            E = 2:  out[hi] -> alt -> out[u64]
 *                (LSD plan in place)          E = 3:  out[hi] -> out[lo] -> alt -> out[u64]
 */
#include "cuda_internal.h"
#include "block_radix_rank.cuh"
#include "pdl.cuh"

#include <cuda_runtime.h>

namespace gpusort_cuda {
namespace {

using gpusort_bs::launch_pdl;
using gpusort_bs::pdl_wait_and_release;

/* Tile shape for sm_90, the fastest measured on an H200 against CUB in the same run
 * (bench/results/cuda-2026-11-22b.md; 64-bit pairs bench/results/cuda-2026-11-24.md).
 * 384 threads = 12 warps (>= 256 so that one thread owns each digit in the look-back). */
constexpr int THREADS = 384;
constexpr int WARPS = THREADS / 32;
/* Keys per thread (KPT) and resident blocks per SM (launch bounds) by key width, float keys
 * and value bytes:
 *   keys only        3 blocks per SM (56 registers: 36 warps hide the ranking's latency);
 *                    28 32-bit keys (76-96 bytes spill, still faster), 16 64-bit keys
 *                    (doubles too: see keep_digit);
 *   pairs, argsort   2 blocks per SM (keys, ranks and values live at once: 80 registers; 3
 *                    blocks ran 14% slower); 24 32-bit keys with 32-bit values, 20 with 64-bit
 *                    values (two such tiles fill the SM's shared memory), 16 64-bit keys.
 * Larger tiles mean fewer look-backs per key and longer runs per bucket in the scatter; past
 * these the spills win (bench/results/radix-tiles-2026-11-28.md: 32 u32 / 18 u64 keys and 28
 * pairs were slower).
 * Three shapes (SHAPE):
 *   HOPPER   the above, for n > SMALL_N where they fit;
 *   SMALL    n <= SMALL_N: 20 32-bit keys, 12 64-bit keys, 20 / 16 with values: with fewer
 *            tiles than resident blocks the larger tiles leave SMs idle
 *            (bench/results/radix-tiles-2026-11-28.md, the 2^20 rows);
 *   COMPACT  tuning.cu's radix_compact, or a device whose shared memory per block is below the
 *            Hopper shape's need: 64 KiB at most: 20 32-bit and 12 64-bit keys alone; pairs cut
 *            until both kernels fit (the tile kernel's TILE * (K + V) + 25 KiB is the larger):
 *            12 for 4+4 bytes, 8 for 4+8 and 8+4, 6 for 8+8. Derived, not measured. */
enum { HOPPER = 0, SMALL = 1, COMPACT = 2 };
template <typename K, bool FLOAT, int VB, int SHAPE = HOPPER> struct Tune {
    static constexpr int KPT =
        SHAPE == COMPACT ? (VB == 0 ? (sizeof(K) == 4 ? 20 : 12)
                                    : sizeof(K) + VB == 8 ? 12 : sizeof(K) + VB == 12 ? 8 : 6)
        : SHAPE == SMALL ? (sizeof(K) == 4 ? 20 : VB ? 16 : 12)
        : VB == 0 ? (sizeof(K) == 4 ? 28 : 16)
        : sizeof(K) == 4 ? (VB == 4 ? 24 : 20) : 16;
};
template <int VB> constexpr int min_blocks() { return VB ? 2 : 3; }
/* Float sweeps with KEEP_DIGIT keep each key's digit in shared memory (a byte at the key's rank)
 * for the write loop instead of computing it again from the key. Computed again where that is
 * faster (bench/results/radix-2026-11-29b.md for doubles, radix-2026-11-29c.md for floats):
 * doubles alone (16 of them then fit the registers, and the byte stores at random ranks cost
 * shared-store bank conflicts) and floats with 4-byte values or indices. Kept for floats alone
 * (computing again spills at 28 keys a thread), floats with 8-byte values (it spills more there)
 * and doubles with values. */
template <typename K, bool FLOAT> constexpr bool keep_digit(int vb)
{
    return FLOAT && (sizeof(K) == 8 ? vb != 0 : vb != 4);
}

/* Predecessor words the look-back loads at once (onesweep_kernel): 4 for keys, 2 for pairs,
 * whose kernels have fewer registers to spare (bench/results/radix-lookback-2026-11-28.md).
 * -DGPUSORT_RADIX_LOOKBACK_WINDOW=W sets every shape's (A/B builds). */
template <int VB> constexpr int lookback_window()
{
#ifdef GPUSORT_RADIX_LOOKBACK_WINDOW
    return GPUSORT_RADIX_LOOKBACK_WINDOW;
#else
    return VB ? 2 : 4;
#endif
}

/* Histogram blocks: 256 threads. Portions are multiples of PORTION_TILES tiles. */
constexpr int HIST_THREADS = 256;
constexpr int PORTION_TILES = 4;
/* Keys per portion: below 2^27, the look-back count field. (A test build with
 * -DGPUSORT_RADIX_PORTION_LOG2=15 runs the multi-portion path at small n.) */
#ifndef GPUSORT_RADIX_PORTION_LOG2
#define GPUSORT_RADIX_PORTION_LOG2 27
#endif
constexpr size_t PORTION_LIMIT = (size_t)1 << GPUSORT_RADIX_PORTION_LOG2;

constexpr uint32_t FLAG_AGGREGATE = 1u << 30;
constexpr uint32_t FLAG_INCLUSIVE = 2u << 30;
constexpr int EPOCH_SHIFT = 27;
constexpr uint32_t EPOCHS = 8;
constexpr uint32_t COUNT_MASK = (1u << EPOCH_SHIFT) - 1;

template <bool B> struct BoolC { static constexpr bool value = B; };
template <int I> struct IntC { static constexpr int value = I; };

template <int VB> struct ValueOf { typedef uint32_t T; };
template <> struct ValueOf<8> { typedef uint64_t T; };

/* The buffers scan_kernel plans with. */
struct PlanInput {
    const void *keys_in;
    void *keys_out, *keys_alt;
    const void *vals_in;             /* NULL for argsort */
    void *vals_out, *vals_alt;       /* narrow indices: vals_out is the caller's u64 array */
    int has_vals;
    int widen;                       /* narrow indices (see the top of the file) */
    int pack;                        /* packed argsort: keys_alt holds n words (MODE_PACK) */
};

/* What the passes do, decided on the device by scan_kernel (see the top of the file). */
constexpr int MAX_PASSES = 8;
struct Plan {
    int active[MAX_PASSES];          /* pass p runs */
    const void *ksrc[MAX_PASSES];    /* buffers of pass p */
    void *kdst[MAX_PASSES];
    const void *vsrc[MAX_PASSES];    /* NULL on the first pass of an argsort: indices */
    void *vdst[MAX_PASSES];
    int executed;                    /* number of active passes */
    int copy_keys, copy_vals;        /* finish: alternate buffer -> output */
    int wide_pass;                   /* narrow indices: the last executed pass (stores u64); -1 */
    int done;                        /* the MSD-first sort ran instead: finish does nothing */
    int float_form;                  /* float keys: the digit's form (FORM_*, thread_radix_key.cuh) */
    PlanInput in;                    /* the buffers planned with (finish copies between them) */
};

struct SweepArgs {
    const Plan *plan;
    int pass;
    uint64_t mask;
    size_t portion_start;     /* first key of this launch */
    size_t portion_n;         /* keys in this launch */
    const uint64_t *bin_base; /* [256] for this (portion, pass) */
    uint64_t *bin_base_next;  /* [256] for the next portion of this pass, or NULL */
    uint32_t *ticket;         /* this launch's tile ticket counter, zeroed with the histograms */
    uint32_t *state;          /* [tiles][256], shared by the launches (see the epochs above) */
    uint32_t epoch;           /* launch number mod EPOCHS, pre-shifted to EPOCH_SHIFT */
};

/* Passes of the sort over several GPUs (see "Several GPUs" below). MODE_SCATTER: the pass's
 * output positions are global (bin bases of the whole sequence) and each key is stored in the
 * receive buffer of the GPU whose slice holds its position. MODE_SEGMENTED: the input is
 * grouped by the digit at seg_shift ("buckets"), and the pass sorts within each bucket: key j
 * of digit d and bucket t goes to seg_off[t][d] + (digit-d keys before it in the input). */
constexpr int MODE_PLAIN = 0, MODE_SCATTER = 1, MODE_SEGMENTED = 2;
/* MODE_PACK: an argsort of 32-bit keys with u64 indices as 64-bit keys alone (K = u64, "Packed
 * argsort" at the top of the file): a word holds the key's bits above its index; the digit
 * comes from the key half. */
constexpr int MODE_PACK = 3;
constexpr int MULTI_MAX_DST = 8;
struct MultiArgs {
    int ndst;                                   /* SCATTER: receive buffers */
    unsigned long long start[MULTI_MAX_DST];    /* first global position of each */
    void *k[MULTI_MAX_DST], *v[MULTI_MAX_DST];
    const long long *seg_off;                   /* SEGMENTED: [256 buckets][256 digits] */
    int seg_shift;
};

/* The MSD-first sort's state in slot AUX ("MSD first" at the top of the file). */
struct Hybrid {
    Plan plan;                  /* passes A (digit P-1) and B (digit P-2), active when run */
    int run;                    /* scan_kernel chose the MSD-first sort */
    int local;                  /* the bucket sort runs: run, and no bucket above its capacity */
    int overflow;               /* sub_rows_kernel: a sub-bucket exceeds the capacity */
    int trivial[MAX_PASSES];    /* scan_kernel's trivial digit positions (for the fallback plan) */
};

/* Shared memory of onesweep_kernel: the tile's keys (and values) in sorted order, the per-warp
 * digit counters, excl[256], the 64-bit output delta per digit, 64 words for the scan and ticket. */
template <typename K, bool FLOAT>
constexpr size_t sweep_smem(int kpt, int vb)
{
    return (size_t)THREADS * kpt * (sizeof(K) + (size_t)vb + (keep_digit<K, FLOAT>(vb) ? 1 : 0)) +
           (size_t)WARPS * RADIX_DIGITS * 4 + RADIX_DIGITS * 4 + RADIX_DIGITS * 8 + 64 * 4;
}

/* The pass buffers come from the plan (pointers read from memory), so the compiler cannot tell
 * they are global memory and would emit generic LD/ST: say so (LDG through the read-only path:
 * a pass never writes its input; STG). */
__device__ __forceinline__ uint32_t ld_global(const uint32_t *p) { return __ldg((const unsigned int *)p); }
__device__ __forceinline__ uint64_t ld_global(const uint64_t *p)
{
    return __ldg((const unsigned long long *)p);
}
__device__ __forceinline__ void st_global(uint32_t *p, uint32_t v) { __stcg((unsigned int *)p, v); }
__device__ __forceinline__ void st_global(uint64_t *p, uint64_t v)
{
    __stcg((unsigned long long *)p, (unsigned long long)v);
}

/* Look-back state words: relaxed loads and stores at GPU scope. Each word carries a flag and a
 * count together, and a reader uses nothing else that another block wrote, so no ordering is
 * needed beyond the word itself. A volatile access would be system scope (STRONG.SYS); GPU
 * scope is what the blocks share, and is faster: bench/results/radix-hints-2026-11-28.md. */
__device__ __forceinline__ uint32_t load_state(const uint32_t *p)
{
    uint32_t v;
    asm volatile("ld.relaxed.gpu.global.u32 %0, [%1];" : "=r"(v) : "l"(p) : "memory");
    return v;
}
__device__ __forceinline__ void store_state(uint32_t *p, uint32_t v)
{
    asm volatile("st.relaxed.gpu.global.u32 [%0], %1;" ::"l"(p), "r"(v) : "memory");
}

template <typename K, bool FLOAT, int VB, int KPT, bool WIDEN, int MODE = MODE_PLAIN>
__global__ void __launch_bounds__(THREADS, (min_blocks<VB>())) onesweep_kernel(SweepArgs a,
                                                                            MultiArgs mu)
{
    pdl_wait_and_release();
    typedef typename ValueOf<VB>::T V;
    constexpr int TILE = THREADS * KPT;
    extern __shared__ __align__(16) unsigned char smem[];
    K *s_keys = (K *)smem;
    V *s_vals = (V *)(smem + (size_t)TILE * sizeof(K));
    uint32_t *s_count = (uint32_t *)(smem + (size_t)TILE * (sizeof(K) + VB));
    uint32_t *s_excl = s_count + WARPS * RADIX_DIGITS;
    long long *s_delta = (long long *)(s_excl + RADIX_DIGITS);
    uint32_t *s_misc = (uint32_t *)(s_delta + RADIX_DIGITS);
    uint8_t *s_digit = (uint8_t *)(s_misc + 64); /* keep_digit: digit of sorted item j */
    constexpr bool KEEP_DIGIT = keep_digit<K, FLOAT>(VB);

    const Plan *plan = a.plan;
    const int tid = threadIdx.x, lane = tid & 31, warp = tid >> 5;
    const K mask = (K)a.mask;
    const int shift = a.pass * RADIX_BITS;
    uint32_t *warp_count = s_count + warp * RADIX_DIGITS;
    /* The ticket, the plan and this thread's bin base are independent loads: issue them all
     * before waiting (each is a round trip to L2 that every tile pays). Each warp zeroes its own
     * counter row meanwhile. */
    if (tid == 0) s_misc[40] = atomicAdd(a.ticket, 1u);
    const int active = plan->active[a.pass];
    const int form = plan->float_form;
    const K *ksrc = (const K *)plan->ksrc[a.pass];
    const unsigned long long base = tid < RADIX_DIGITS ? a.bin_base[tid] : 0;
#pragma unroll
    for (int i = lane; i < RADIX_DIGITS; i += 32) warp_count[i] = 0;
    __syncthreads();
    if (!active) return; /* a trivial digit position: nothing to do (uniform over the grid) */
    const uint32_t tile = s_misc[40];
    const size_t tile_first = a.portion_start + (size_t)tile * TILE;
    const size_t left = a.portion_n - (size_t)tile * TILE;
    const int tile_n = left < (size_t)TILE ? (int)left : TILE;
    /* Full tiles (all but the last of a portion) compile without bounds checks and take the
     * float digit in the form the plan chose (FORM). The last tile takes FORM_ANY: every form
     * gives the same digits on the keys it is chosen for. */
    auto sweep = [&](auto full, auto form_c) {
        constexpr bool FULL = decltype(full)::value;
        constexpr int FORM = decltype(form_c)::value;
        /* The integer-cost form recomputes the digit at the write, as integers do. */
        constexpr bool KEEP = KEEP_DIGIT && FORM != FORM_NO_NEG;
        const int nv = FULL ? TILE : tile_n;
        auto digit_at = [&](K k) -> uint32_t {
            if constexpr (MODE == MODE_PACK)
                return radix_digit_form<FLOAT, FORM>((uint32_t)(k >> 32), (uint32_t)(mask >> 32),
                                                     shift);
            else
                return radix_digit_form<FLOAT, FORM>(k, mask, shift);
        };

        /* Load (warp-striped: warp w holds keys [w*32*KPT, (w+1)*32*KPT), lane l of item i key
         * w*32*KPT + 32i + l, so (warp, item, lane) order is input order: stable ranks). */
        const int warp_first = warp * 32 * KPT;
        const K *kin = ksrc + tile_first;
        K keys[KPT];
        auto load = [&]() {
    #pragma unroll
            for (int i = 0; i < KPT; i++) {
                const int idx = warp_first + i * 32 + lane;
                keys[i] = (FULL || idx < nv) ? ld_global(kin + idx) : (K)0;
            }
        };
        if constexpr (MODE == MODE_PACK) {
            if (!plan->vsrc[a.pass]) { /* the first pass (uniform): make the words */
                const uint32_t *kin32 = (const uint32_t *)ksrc + tile_first;
    #pragma unroll
                for (int i = 0; i < KPT; i++) {
                    const int idx = warp_first + i * 32 + lane;
                    keys[i] = (FULL || idx < nv) ? (uint64_t)ld_global(kin32 + idx) << 32 |
                                                       (uint32_t)(tile_first + idx)
                                                 : (K)0;
                }
            } else {
                load();
            }
        } else {
            load();
        }
        auto valid = [&](int i) -> bool { return FULL || warp_first + i * 32 + lane < nv; };
        /* Digits are computed once and kept 4 to a register (the float transform and 64-bit
         * shifts are not free). The counting loop extracts them with PTX bfe, which the
         * compiler cannot share with the ranking loop's shifts: otherwise it keeps all KPT
         * digits live across the block scan and spills the keys instead. */
        uint32_t dpk[(KPT + 3) / 4];
    #pragma unroll
        for (int i = 0; i < KPT; i++) {
            const uint32_t d = digit_at(keys[i]);
            dpk[i / 4] = (i % 4) ? dpk[i / 4] | d << (8 * (i % 4)) : d;
        }
        auto digit_of = [&](int i) -> uint32_t { return (dpk[i / 4] >> (8 * (i % 4))) & 0xffu; };
        /* SEGMENTED: the input is grouped by bucket, so the tile lies in one bucket when its
         * first and last keys do (s_misc[41] = that bucket, else RADIX_DIGITS). */
        if (MODE == MODE_SEGMENTED && tid == 0) {
            const uint32_t t0 = radix_digit<FLOAT>(keys[0], mask, mu.seg_shift);
            const uint32_t t1 = radix_digit<FLOAT>(ld_global(kin + nv - 1), mask, mu.seg_shift);
            s_misc[41] = t0 == t1 ? t0 : RADIX_DIGITS;
        }

        /* 1. Per-warp digit counts. */
    #pragma unroll
        for (int i = 0; i < KPT; i++) {
            uint32_t d;
            asm("bfe.u32 %0, %1, %2, 8;" : "=r"(d) : "r"(dpk[i / 4]), "r"(8 * (i % 4)));
            if (valid(i)) atomicAdd(&warp_count[d], 1u);
        }
        __syncthreads();

        /* 2. Thread d: counts over warps -> exclusive prefixes; publish the tile's count of d at
         * once (successors may be waiting), then the block scan over digits. */
        uint32_t *state = a.state + (size_t)tile * RADIX_DIGITS;
        uint32_t total = 0, incl = 0;
        if (tid < RADIX_DIGITS) {
    #pragma unroll
            for (int w = 0; w < WARPS; w++) {
                const uint32_t c = s_count[w * RADIX_DIGITS + tid];
                s_count[w * RADIX_DIGITS + tid] = total;
                total += c;
            }
            store_state(state + tid, (tile == 0 ? FLAG_INCLUSIVE : FLAG_AGGREGATE) | a.epoch | total);
            incl = warp_inclusive_scan(total);
            if (lane == 31) s_misc[warp] = incl;
        }
        __syncthreads();
        uint32_t excl = 0;
        if (tid < RADIX_DIGITS) {
            for (int w = 0; w < warp; w++) excl += s_misc[w];
            excl += incl - total;
            s_excl[tid] = excl;
    #pragma unroll
            for (int w = 0; w < WARPS; w++) s_count[w * RADIX_DIGITS + tid] += excl;
        }
        __syncthreads();

        /* 3. Final tile ranks; keys go straight to their sorted place in shared memory. */
        uint32_t rank[VB ? KPT : 1];
    #pragma unroll
        for (int i = 0; i < KPT; i++) {
            const bool ok = valid(i);
            const uint32_t d = digit_of(i);
            const uint32_t r = warp_rank_item<FULL>(d, ok, warp_count);
            if (ok) {
                s_keys[r] = keys[i];
                if (KEEP) s_digit[r] = (uint8_t)d;
            }
            if (VB) rank[VB ? i : 0] = r;
        }
        /* Values: issue the loads now, their latency hides behind the look-back. */
        V vals[VB ? KPT : 1];
        if (VB) {
            const V *vin = (const V *)plan->vsrc[a.pass];
    #pragma unroll
            for (int i = 0; i < KPT; i++) {
                const int idx = warp_first + i * 32 + lane;
                const size_t g = tile_first + idx;
                if (FULL || idx < nv) vals[VB ? i : 0] = vin ? ld_global(vin + g) : (V)g;
            }
        }

        /* SEGMENTED: the bucket's offset of this thread's digit (one-bucket tiles; others add
         * it per key when writing). Loaded before the look-back, whose latency hides it. */
        const uint32_t seg_tile = MODE == MODE_SEGMENTED ? s_misc[41] : 0;
        long long seg_base = 0;
        if (MODE == MODE_SEGMENTED && tid < RADIX_DIGITS && seg_tile < RADIX_DIGITS)
            seg_base = mu.seg_off[seg_tile * RADIX_DIGITS + tid];

        /* Decoupled look-back: the count of digit d in all earlier tiles of the portion. */
        if (tid < RADIX_DIGITS) {
            uint32_t before = 0;
            if (tile > 0) {
                /* LOOKBACK_WINDOW predecessors' words are loaded at once (their latencies
                 * overlap), then used in order: a word not yet ready is polled alone; an
                 * AGGREGATE adds its count and the walk goes on; an INCLUSIVE ends it. Tile 0 is
                 * always INCLUSIVE, so no word before the portion's first tile is used. */
                auto ready = [&](uint32_t v) {
                    return (v & (7u << EPOCH_SHIFT)) == a.epoch && (v >> 30) != 0;
                };
                int t = (int)tile - 1; /* the newest predecessor not yet used */
                constexpr int LOOKBACK_WINDOW = lookback_window<VB>();
                for (bool done = false; !done; t -= LOOKBACK_WINDOW) {
                    uint32_t v[LOOKBACK_WINDOW];
    #pragma unroll
                    for (int w = 0; w < LOOKBACK_WINDOW; w++)
                        v[w] = t - w >= 0 ? load_state(a.state + (size_t)(t - w) * RADIX_DIGITS + tid)
                                          : 0;
    #pragma unroll
                    for (int w = 0; w < LOOKBACK_WINDOW && !done; w++) {
                        const uint32_t *p = a.state + (size_t)(t - w) * RADIX_DIGITS + tid;
                        while (!ready(v[w])) v[w] = load_state(p);
                        before += v[w] & COUNT_MASK;
                        done = (v[w] & FLAG_INCLUSIVE) != 0;
                    }
                }
                store_state(state + tid, FLAG_INCLUSIVE | a.epoch | (before + total));
            }
            s_delta[tid] = (long long)base + before - excl + seg_base;
            /* The last tile knows the portion's count of each digit: the next portion of this
             * pass starts there (its keys are not the next portion of the ORIGINAL input, so
             * bases cannot come from the upfront histograms). */
            if (a.bin_base_next && tile == gridDim.x - 1)
                a.bin_base_next[tid] = base + before + total;
        }
        if (VB) {
    #pragma unroll
            for (int i = 0; i < KPT; i++)
                if (valid(i)) s_vals[rank[VB ? i : 0]] = vals[VB ? i : 0];
        }
        __syncthreads();

        /* Write the tile: item j of the sorted tile goes to delta[digit] + j (consecutive threads,
         * consecutive addresses within a bucket). WIDE: the values are stored as u64 (narrow
         * indices, the last pass). */
        K *kout = (K *)plan->kdst[a.pass];
        void *vout = plan->vdst[a.pass];
        auto write = [&](auto wide) {
            constexpr bool WIDE = decltype(wide)::value;
            typedef typename ValueOf<WIDE ? 8 : VB>::T W;
    #pragma unroll
            for (int i = 0; i < KPT; i++) {
                const int j = tid + i * THREADS;
                if (FULL || j < nv) {
                    const K k = s_keys[j];
                    const uint32_t d = KEEP ? s_digit[j] : digit_at(k);
                    long long o = s_delta[d] + j;
                    if (MODE == MODE_SEGMENTED && seg_tile >= RADIX_DIGITS) /* uniform branch */
                        o += __ldg(mu.seg_off + radix_digit<FLOAT>(k, mask, mu.seg_shift) * RADIX_DIGITS + d);
                    if (MODE == MODE_SCATTER) {
                        /* The GPU whose slice holds position o; its buffer picked by constant
                         * indices (no copy of the table to local memory). */
                        int h = 0;
    #pragma unroll
                        for (int q = 1; q < MULTI_MAX_DST; q++)
                            h += q < mu.ndst && (unsigned long long)o >= mu.start[q];
                        K *kd = (K *)mu.k[0];
                        W *vd = (W *)mu.v[0];
                        unsigned long long at = mu.start[0];
    #pragma unroll
                        for (int q = 1; q < MULTI_MAX_DST; q++)
                            if (h == q) {
                                kd = (K *)mu.k[q];
                                vd = (W *)mu.v[q];
                                at = mu.start[q];
                            }
                        st_global(kd + (o - (long long)at), k);
                        if (VB) st_global(vd + (o - (long long)at), (W)s_vals[j]);
                    } else if (MODE == MODE_PACK && WIDE) { /* the key half; the index, widened */
                        st_global((uint32_t *)kout + o, (uint32_t)((uint64_t)k >> 32));
                        st_global((uint64_t *)vout + o, (uint64_t)(uint32_t)k);
                    } else {
                        st_global(kout + o, k);
                        if (VB) st_global((W *)vout + o, (W)s_vals[j]);
                    }
                }
            }
        };
        if constexpr (WIDEN || MODE == MODE_PACK) {
            if (plan->wide_pass == a.pass) write(BoolC<true>()); /* uniform over the grid */
            else write(BoolC<false>());
        } else {
            write(BoolC<false>());
        }
    };
    if (tile_n != TILE) {
        sweep(BoolC<false>(), IntC<FORM_ANY>());
    } else if constexpr (FLOAT && (MODE == MODE_PLAIN || MODE == MODE_PACK)) {
        /* The form without the NaN test: doubles and floats alone (floats with values spill
         * with its body: bench/results/radix-2026-11-29e.md). */
        constexpr bool NO_NAN_FORM = sizeof(K) == 8 || VB == 0;
        if (form == FORM_NO_NEG) sweep(BoolC<true>(), IntC<FORM_NO_NEG>()); /* uniform */
        else if (NO_NAN_FORM && form == FORM_NO_NAN) sweep(BoolC<true>(), IntC<FORM_NO_NAN>());
        else sweep(BoolC<true>(), IntC<FORM_ANY>());
    } else {
        sweep(BoolC<true>(), IntC<FORM_ANY>());
    }
}

/* Histograms of every digit position of all keys: a grid-stride loop (few blocks per SM, so few
 * global atomics at the end), 16-byte loads with 4 in flight per thread (when keys is 16-byte
 * aligned; else plain loads), one shared atomic per key and digit position. The shared atomics
 * are the kernel's cost, and their bank conflicts most of it, so the counters have a COLUMN per
 * lane (COLS = 32, 4-byte keys) or per pair of lanes (COLS = 16, 8-byte keys): counter
 * (p, d, c) at word (p * 256 + d) * COLS + c, lane l adding to column l % COLS, so the lanes of
 * one atomic hit distinct banks whatever their digits (128 KiB: one block of 1024 threads per
 * SM). COLS = 0: HIST_COPIES block histograms, warps alternating between them (devices whose
 * blocks have less shared memory). The columns are summed at the end, each thread starting at
 * its own lane's column (no bank conflicts). */
constexpr int HIST_COPIES = 2;
constexpr int HIST_COLS_THREADS = 1024;
template <typename K> constexpr int hist_cols() { return sizeof(K) == 4 ? 32 : 16; }
template <typename K, int COLS> constexpr size_t hist_smem()
{
    return (size_t)sizeof(K) * RADIX_DIGITS * (COLS ? COLS : HIST_COPIES) * 4;
}

template <typename K, bool FLOAT, int COLS>
__global__ void __launch_bounds__(COLS ? HIST_COLS_THREADS : HIST_THREADS)
    hist_kernel(const K *keys, size_t n, K mask, unsigned long long *hist)
{
    pdl_wait_and_release();
    constexpr int P = sizeof(K);
    constexpr int VEC = 16 / sizeof(K);
    constexpr int U = 4; /* vectors in flight per thread */
    constexpr int T = COLS ? HIST_COLS_THREADS : HIST_THREADS;
    constexpr int WORDS = P * RADIX_DIGITS * (COLS ? COLS : HIST_COPIES);
    extern __shared__ uint32_t s_hist[];
    for (int i = threadIdx.x; i < WORDS; i += T) s_hist[i] = 0;
    __syncthreads();
    const int lane = threadIdx.x & 31;
    uint32_t *h = COLS ? s_hist + lane % (COLS ? COLS : 1)
                       : s_hist + ((threadIdx.x >> 5) % HIST_COPIES) * P * RADIX_DIGITS;
    auto count = [&](K k) {
        const K r = radix_key<FLOAT>(k, mask);
#pragma unroll
        for (int p = 0; p < P; p++) {
            const uint32_t d = (uint32_t)(r >> (p * RADIX_BITS)) & (RADIX_DIGITS - 1);
            atomicAdd(&h[(p * RADIX_DIGITS + d) * (COLS ? COLS : 1)], 1u);
        }
    };
    size_t scalar_from = 0;
    if (((uintptr_t)keys & 15) == 0) {
        const uint4 *v = (const uint4 *)keys;
        const size_t nvec = n / VEC;
        const size_t step = (size_t)gridDim.x * U * T;
        for (size_t b = (size_t)blockIdx.x * U * T + threadIdx.x; b < nvec; b += step) {
            uint4 r[U];
#pragma unroll
            for (int u = 0; u < U; u++)
                if (b + (size_t)u * T < nvec) r[u] = __ldg(v + b + (size_t)u * T);
#pragma unroll
            for (int u = 0; u < U; u++) {
                if (b + (size_t)u * T >= nvec) break;
                const K *k = (const K *)&r[u];
#pragma unroll
                for (int c = 0; c < VEC; c++) count(k[c]);
            }
        }
        scalar_from = nvec * VEC;
    }
    for (size_t i = scalar_from + (size_t)blockIdx.x * T + threadIdx.x; i < n;
         i += (size_t)gridDim.x * T)
        count(keys[i]);
    __syncthreads();
    for (int i = threadIdx.x; i < P * RADIX_DIGITS; i += T) {
        uint32_t c = 0;
        if (COLS) {
#pragma unroll 8
            for (int j = 0; j < COLS; j++) c += s_hist[i * COLS + (j + lane) % (COLS ? COLS : 1)];
        } else {
#pragma unroll
            for (int q = 0; q < HIST_COPIES; q++) c += s_hist[q * P * RADIX_DIGITS + i];
        }
        if (c) atomicAdd(&hist[i], (unsigned long long)c);
    }
}

/* The plan of the passes 0 .. passes-1 whose digit position is not trivial (thread 0 of
 * scan_kernel; seg_plan_kernel; hybrid_fallback_kernel). */
__device__ void make_plan(const int *trivial, int passes, const PlanInput &in, Plan *plan)
{
    /* Pass e of E executed ones writes dst(e); the last must be the output. In place with E odd,
     * the first pass cannot write the output (it is its input): start in the alternate buffer
     * and copy at the end. */
    int E = 0;
    for (int p = 0; p < passes; p++) E += !trivial[p];
    /* Packed argsort (never in place): executed pass e < E-1 writes words to keys_alt or to
     * vals_out (the caller's u64 indices, as large), alternating so that the last reads
     * keys_alt; the last writes keys_out and vals_out. vsrc marks the first (NULL: it reads the
     * 32-bit keys). */
    if (in.pack) {
        const void *src = in.keys_in;
        int e = 0;
        for (int p = 0; p < passes; p++) {
            plan->active[p] = !trivial[p];
            if (trivial[p]) continue;
            void *dst = e == E - 1 ? in.keys_out : ((E - 2 - e) & 1) ? in.vals_out : in.keys_alt;
            plan->ksrc[p] = src;
            plan->kdst[p] = dst;
            plan->vsrc[p] = e == 0 ? NULL : src;
            plan->vdst[p] = in.vals_out;
            plan->wide_pass = p; /* the last executed, when the loop ends */
            src = dst;
            e++;
        }
        if (!E) plan->wide_pass = -1;
        plan->executed = E;
        plan->done = 0;
        plan->float_form = FORM_ANY;
        plan->in = in;
        plan->copy_keys = plan->copy_vals = 0;
        return;
    }
    const bool kin_place = in.keys_in == in.keys_out;
    const bool vin_place = in.has_vals && in.vals_in == in.vals_out;
    const bool odd = E & 1;
    const void *ks = in.keys_in, *vs = in.vals_in;
    int e = 0;
    for (int p = 0; p < passes; p++) {
        plan->active[p] = !trivial[p];
        if (trivial[p]) continue;
        void *kd = (kin_place && odd) ? ((e & 1) ? in.keys_out : in.keys_alt)
                                      : (((E - 1 - e) & 1) ? in.keys_alt : in.keys_out);
        void *vd = (vin_place && odd) ? ((e & 1) ? in.vals_out : in.vals_alt)
                                      : (((E - 1 - e) & 1) ? in.vals_alt : in.vals_out);
        plan->ksrc[p] = ks;
        plan->kdst[p] = kd;
        plan->vsrc[p] = vs;
        plan->vdst[p] = vd;
        ks = kd;
        vs = vd;
        e++;
    }
    plan->executed = E;
    plan->done = 0;
    plan->float_form = FORM_ANY;
    plan->in = in;
    plan->copy_keys = kin_place && odd;
    plan->copy_vals = vin_place && odd;
    plan->wide_pass = -1;
    for (int p = passes - 1; in.widen && p >= 0; p--)
        if (!trivial[p]) { plan->wide_pass = p; break; }
}

/* One block of 256 threads: the bin bases of portion 0 of every pass, then the plan (thread 0).
 * hy (the MSD-first layout, else NULL): also whether the MSD-first sort runs. It runs when the
 * top two digit positions are not trivial and the product of their largest buckets over n -
 * the largest (top, second) bucket if the two digits were independent - is at most 17/20 of
 * cap, the bucket sort's capacity; then the LSD plan runs no pass (done), and hy->plan holds
 * passes A (keys_in -> alt) and B (alt -> out); narrow indices' values go the other way round
 * (A -> out, B -> alt: "MSD first" at the top of the file).
 * float_top (float keys; -1 for integers): the top byte of the order's mask. The top digit's
 * histogram then chooses the digit's form (thread_radix_key.cuh): its bucket 255 of the
 * ascending radix order empty: no NaN; buckets 0..127 empty too: no negative number. */
__global__ void __launch_bounds__(RADIX_DIGITS) scan_kernel(const unsigned long long *hist,
                                                            int passes, size_t n,
                                                            uint64_t *bin_base, PlanInput in,
                                                            Plan *plan, Hybrid *hy, uint32_t cap,
                                                            int float_top)
{
    pdl_wait_and_release();
    __shared__ unsigned long long s_scan[MAX_PASSES][RADIX_DIGITS / 32];
    __shared__ unsigned long long s_max[2][RADIX_DIGITS / 32];
    __shared__ int s_trivial[MAX_PASSES];
    const int d = threadIdx.x, lane = d & 31, warp = d >> 5;
    if (d < MAX_PASSES) s_trivial[d] = 0;
    /* All passes at once: their loads in flight together, one barrier (latency of small sorts). */
    unsigned long long total[MAX_PASSES], incl[MAX_PASSES], top[2] = {0, 0};
#pragma unroll
    for (int p = 0; p < MAX_PASSES; p++) {
        total[p] = p < passes ? hist[p * RADIX_DIGITS + d] : 0;
        if (p == passes - 1) top[0] = total[p];
        if (p == passes - 2) top[1] = total[p];
    }
    const unsigned long long top_count = top[0]; /* this thread's count of the top digit */
#pragma unroll
    for (int j = 0; j < 2; j++) {
#pragma unroll
        for (int o = 16; o; o >>= 1) {
            const unsigned long long y = __shfl_xor_sync(0xffffffffu, top[j], o);
            top[j] = y > top[j] ? y : top[j];
        }
        if (lane == 0) s_max[j][warp] = top[j];
    }
    const int asc = d ^ float_top; /* this thread's top digit in the ascending order */
    const int nan_seen = __syncthreads_or(float_top >= 0 && top_count && asc == RADIX_DIGITS - 1);
    const int neg_seen = __syncthreads_or(float_top >= 0 && top_count && asc < RADIX_DIGITS / 2);
#pragma unroll
    for (int p = 0; p < MAX_PASSES; p++) {
        if (p >= passes) break;
        if (total[p] == n) s_trivial[p] = 1;
        incl[p] = warp_inclusive_scan(total[p]);
        if (lane == 31) s_scan[p][warp] = incl[p];
    }
    __syncthreads();
#pragma unroll
    for (int p = 0; p < MAX_PASSES; p++) {
        if (p >= passes) break;
        unsigned long long run = incl[p] - total[p];
        for (int w = 0; w < warp; w++) run += s_scan[p][w];
        bin_base[p * RADIX_DIGITS + d] = run; /* portion 0; the sweeps give the others */
    }
    if (hy) bin_base[passes * RADIX_DIGITS + d] = 0; /* pass B's slot: its offsets say all */
    if (d != 0) return;
    if (hy) {
        unsigned long long m0 = 0, m1 = 0;
        for (int w = 0; w < RADIX_DIGITS / 32; w++) {
            m0 = s_max[0][w] > m0 ? s_max[0][w] : m0;
            m1 = s_max[1][w] > m1 ? s_max[1][w] : m1;
        }
        const int run = !s_trivial[passes - 1] && !s_trivial[passes - 2] &&
                        m0 <= 3 * n / RADIX_DIGITS + 64 && m1 <= 3 * n / RADIX_DIGITS + 64 &&
                        (double)m0 * (double)m1 * 20.0 <= 17.0 * cap * (double)n;
        for (int p = 0; p < MAX_PASSES; p++) hy->trivial[p] = s_trivial[p];
        hy->run = hy->local = run;
        hy->overflow = 0;
        Plan &h = hy->plan;
        for (int p = 0; p < MAX_PASSES; p++) h.active[p] = 0;
        h.active[passes - 1] = h.active[passes - 2] = run;
        h.ksrc[passes - 1] = in.keys_in;
        h.kdst[passes - 1] = in.keys_alt;
        h.ksrc[passes - 2] = in.keys_alt;
        h.kdst[passes - 2] = in.keys_out;
        void *va = in.widen ? in.vals_out : in.vals_alt; /* A's values, B's input */
        void *vb = in.widen ? in.vals_alt : in.vals_out; /* B's values */
        h.vsrc[passes - 1] = in.vals_in;
        h.vdst[passes - 1] = va;
        h.vsrc[passes - 2] = va;
        h.vdst[passes - 2] = vb;
        h.executed = 2 * run;
        h.copy_keys = h.copy_vals = 0;
        h.wide_pass = -1;
        h.done = 0;
        h.float_form = FORM_ANY;
        h.in = in;
        if (run) {
            for (int p = 0; p < MAX_PASSES; p++) plan->active[p] = 0;
            plan->executed = 0;
            plan->wide_pass = -1;
            plan->done = 1;
            plan->float_form = FORM_ANY;
            plan->in = in;
            return;
        }
    }
    make_plan(s_trivial, passes, in, plan);
    if (float_top >= 0) plan->float_form = nan_seen ? FORM_ANY : neg_seen ? FORM_NO_NAN : FORM_NO_NEG;
}

/* After the passes: an odd in-place sequence ends in the alternate buffer; with no pass at all
 * the output is a copy of the input (and argsort's indices are 0..n-1, as u64 for narrow
 * indices: an argsort's values are never in place, so that is their only copy here). */
template <typename K, int VB>
__global__ void finish_kernel(const Plan *plan, size_t n)
{
    pdl_wait_and_release();
    typedef typename ValueOf<VB>::T V;
    if (plan->done) return;
    const PlanInput in = plan->in;
    const int E = plan->executed;
    const bool keys_copy = E ? plan->copy_keys : in.keys_in != in.keys_out;
    const K *ks = E ? (const K *)in.keys_alt : (const K *)in.keys_in;
    const bool argsort = VB && !in.vals_in;
    const bool vals_copy = VB && (E ? plan->copy_vals : (argsort || in.vals_in != in.vals_out));
    const V *vs = E ? (const V *)in.vals_alt : (const V *)in.vals_in;
    if (!keys_copy && !vals_copy) return;
    K *kd = (K *)in.keys_out;
    V *vd = (V *)in.vals_out;
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n;
         i += (size_t)gridDim.x * blockDim.x) {
        if (keys_copy) kd[i] = ks[i];
        if (vals_copy) {
            if (VB == 4 && in.widen) ((unsigned long long *)in.vals_out)[i] = i;
            else vd[i] = (!E && argsort) ? (V)i : vs[i];
        }
    }
}

/* finish_kernel's grid: one wave of 256-thread blocks at most (8 per SM; its loop strides, and
 * no more blocks than that are resident at once anyway). Most sorts leave it nothing to do, and
 * its blocks then only read the plan, so extra waves are pure launch cost
 * (bench/results/radix-2026-11-29d.md). */
static unsigned finish_blocks(gpusort_ctx *ctx, size_t n)
{
    const size_t want = (n + 4095) / 4096;
    const size_t cap = (size_t)8 * gpusort__cuda_props(ctx)->multiProcessorCount;
    return (unsigned)(want < cap ? want : cap);
}

/* ---- Segmented passes: their counts (several GPUs; the MSD-first sort) ----
 *
 * seg_hist_kernel: cnt[p - p0][t][d] = the keys of bucket t (digit m) whose digit p (p0 <= p <
 * m) is d, for keys grouped by bucket. Each block takes one contiguous range, so it sees few
 * buckets: those of its first and last key count in shared memory, any between them (buckets
 * shorter than a range) straight into cnt. gate: NULL, or the kernel does nothing unless *gate. */
template <typename K, bool FLOAT>
__global__ void __launch_bounds__(HIST_THREADS) seg_hist_kernel(const K *keys, size_t n, K mask,
                                                                int m, int p0, size_t range,
                                                                uint32_t *cnt, const int *gate)
{
    pdl_wait_and_release();
    __shared__ uint32_t s_h[2][MAX_PASSES - 1][RADIX_DIGITS];
    if (gate && !*gate) return;
    const size_t lo = (size_t)blockIdx.x * range;
    if (lo >= n) return;
    const size_t hi = n - lo < range ? n : lo + range;
    for (int i = threadIdx.x; i < 2 * (MAX_PASSES - 1) * RADIX_DIGITS; i += HIST_THREADS)
        (&s_h[0][0][0])[i] = 0;
    const int shift = m * RADIX_BITS;
    const uint32_t t_lo = radix_digit<FLOAT>(keys[lo], mask, shift);
    const uint32_t t_hi = radix_digit<FLOAT>(keys[hi - 1], mask, shift);
    __syncthreads();
#pragma unroll 4
    for (size_t i = lo + threadIdx.x; i < hi; i += HIST_THREADS) {
        const K r = radix_key<FLOAT>(ld_global(keys + i), mask);
        const uint32_t t = (uint32_t)(r >> shift) & (RADIX_DIGITS - 1);
        const int slot = t == t_lo ? 0 : t == t_hi ? 1 : -1;
#pragma unroll
        for (int p = 0; p < (int)sizeof(K) - 1; p++) {
            if (p < p0) continue;
            if (p >= m) break;
            const uint32_t d = (uint32_t)(r >> (p * RADIX_BITS)) & (RADIX_DIGITS - 1);
            if (slot >= 0) atomicAdd(&s_h[slot][p - p0][d], 1u);
            else atomicAdd(&cnt[((size_t)(p - p0) * RADIX_DIGITS + t) * RADIX_DIGITS + d], 1u);
        }
    }
    __syncthreads();
    const int np = m - p0;
    for (int i = threadIdx.x; i < 2 * np * RADIX_DIGITS; i += HIST_THREADS) {
        const int slot = i / (np * RADIX_DIGITS), p = i / RADIX_DIGITS % np, d = i % RADIX_DIGITS;
        const uint32_t c = s_h[slot][p][d];
        if (c) atomicAdd(&cnt[((size_t)p * RADIX_DIGITS + (slot ? t_hi : t_lo)) * RADIX_DIGITS + d], c);
    }
}

/* seg_scan_kernel, block p: seg_off[p][t][d] = start of bucket t + its keys of digit (pass p)
 * below d - the keys of digit d in buckets before t (what MODE_SEGMENTED adds to the count of
 * digit-d keys before a key); trivial[p] = 1 when one digit holds all n keys. */
__global__ void __launch_bounds__(RADIX_DIGITS) seg_scan_kernel(const uint32_t *cnt, size_t n,
                                                                long long *seg_off, int *trivial)
{
    __shared__ unsigned long long s_w[RADIX_DIGITS / 32];
    const int i = threadIdx.x, lane = i & 31, warp = i >> 5;
    const uint32_t *c = cnt + (size_t)blockIdx.x * RADIX_DIGITS * RADIX_DIGITS;
    long long *o = seg_off + (size_t)blockIdx.x * RADIX_DIGITS * RADIX_DIGITS;
    /* Thread i as bucket t: its start (a scan of the bucket sizes), then its row. */
    unsigned long long size = 0;
    for (int d = 0; d < RADIX_DIGITS; d++) size += c[i * RADIX_DIGITS + d];
    const unsigned long long incl = warp_inclusive_scan(size);
    if (lane == 31) s_w[warp] = incl;
    __syncthreads();
    long long run = (long long)(incl - size);
    for (int w = 0; w < warp; w++) run += (long long)s_w[w];
    for (int d = 0; d < RADIX_DIGITS; d++) {
        o[i * RADIX_DIGITS + d] = run;
        run += c[i * RADIX_DIGITS + d];
    }
    __syncthreads();
    /* Thread i as digit d: minus the digit's keys in the buckets before. */
    long long col = 0;
    for (int t = 0; t < RADIX_DIGITS; t++) {
        o[t * RADIX_DIGITS + i] -= col;
        col += c[t * RADIX_DIGITS + i];
    }
    if ((size_t)col == n) trivial[blockIdx.x] = 1;
}

/* The plan of the segmented passes 0 .. m-1 (one thread). */
__global__ void seg_plan_kernel(const int *trivial, int m, PlanInput in, Plan *plan)
{
    pdl_wait_and_release();
    make_plan(trivial, m, in, plan);
}

/* The exclusive prefix sum of c over the RADIX_DIGITS threads of a block (one barrier). */
__device__ __forceinline__ uint32_t block_exclusive_scan(uint32_t c)
{
    __shared__ uint32_t s_w[RADIX_DIGITS / 32];
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    const uint32_t incl = warp_inclusive_scan(c);
    if (lane == 31) s_w[warp] = incl;
    __syncthreads();
    uint32_t excl = incl - c;
    for (int w = 0; w < warp; w++) excl += s_w[w];
    return excl;
}

/* MSD first's sub-bucket table, cnt[t][d] = the keys of top bucket t and second digit d, in two
 * launches of 256 blocks (one block, as seg_scan_kernel, would walk 256 entries a thread:
 * bench/results/radix-msd-2026-11-29.md). sub_rows_kernel, block t, thread d: start[t][d] = where sub-bucket (t, d) begins
 * (top_base[t], pass A's bin base, + the sub-buckets of t below d); *overflow = 1 when one
 * holds more than cap keys. sub_cols_kernel, block d, thread t: seg_off[t][d] = start[t][d] -
 * the digit-d keys of the top buckets before t (seg_scan_kernel's table for pass B). A top
 * bucket holds fewer than 2^32 keys (MSD first runs below 2^29). */
__global__ void __launch_bounds__(RADIX_DIGITS) sub_rows_kernel(const uint32_t *cnt,
                                                                const uint64_t *top_base,
                                                                long long *start, uint32_t cap,
                                                                int *overflow, const int *gate)
{
    pdl_wait_and_release();
    if (!*gate) return;
    const int t = blockIdx.x, d = threadIdx.x;
    const uint32_t c = cnt[t * RADIX_DIGITS + d];
    start[t * RADIX_DIGITS + d] = (long long)top_base[t] + block_exclusive_scan(c);
    if (c > cap) *overflow = 1;
}

__global__ void __launch_bounds__(RADIX_DIGITS) sub_cols_kernel(const uint32_t *cnt,
                                                                const long long *start,
                                                                long long *seg_off, const int *gate)
{
    pdl_wait_and_release();
    if (!*gate) return;
    const int d = blockIdx.x, t = threadIdx.x;
    const uint32_t c = cnt[t * RADIX_DIGITS + d];
    seg_off[t * RADIX_DIGITS + d] = start[t * RADIX_DIGITS + d] - (long long)block_exclusive_scan(c);
}

/* Single-block sort of n <= THREADS*KPT keys entirely in shared memory. */
template <typename K, bool FLOAT, int VB, int KPT>
__global__ void __launch_bounds__(THREADS) tile_sort_kernel(const K *kin, K *kout, const void *vin_,
                                                            void *vout_, int n, K mask)
{
    typedef typename ValueOf<VB>::T V;
    constexpr int TILE = THREADS * KPT;
    extern __shared__ __align__(16) unsigned char smem[];
    K *s_keys = (K *)smem;
    V *s_vals = (V *)(smem + (size_t)TILE * sizeof(K));
    uint32_t *s_counter = (uint32_t *)(smem + (size_t)TILE * (sizeof(K) + VB));
    uint32_t *s_match = s_counter + WARPS * RADIX_DIGITS;
    uint32_t *s_excl = s_match + WARPS * RADIX_DIGITS;
    uint32_t *s_misc = s_excl + RADIX_DIGITS;
    const int tid = threadIdx.x, lane = tid & 31, warp = tid >> 5;
    const int warp_first = warp * 32 * KPT;
    const V *vin = (const V *)vin_;
    for (int i = tid; i < WARPS * RADIX_DIGITS; i += THREADS) s_match[i] = 0;
    K keys[KPT];
    V vals[VB ? KPT : 1];
#pragma unroll
    for (int i = 0; i < KPT; i++) {
        const int idx = warp_first + i * 32 + lane;
        keys[i] = idx < n ? kin[idx] : (K)0;
        if (VB) vals[VB ? i : 0] = idx < n ? (vin ? vin[idx] : (V)idx) : (V)0;
    }
    for (int shift = 0; shift < (int)sizeof(K) * 8; shift += RADIX_BITS) {
        uint32_t local[KPT];
        __syncthreads(); /* the previous pass is done with s_counter and s_misc */
        for (int i = tid; i < WARPS * RADIX_DIGITS; i += THREADS) s_counter[i] = 0;
        if (tid == 0) s_misc[40] = 0;
        __syncthreads();
        auto digit_of = [&](int i) -> uint32_t {
            return warp_first + i * 32 + lane < n ? radix_digit<FLOAT>(keys[i], mask, shift)
                                                  : (uint32_t)RADIX_DIGITS;
        };
        warp_match_rank<KPT>(digit_of, local, s_counter + warp * RADIX_DIGITS,
                             s_match + warp * RADIX_DIGITS);
        __syncthreads();
        const uint32_t total = block_digit_scan<WARPS>(s_counter, s_excl, s_misc);
        if (tid < RADIX_DIGITS && total == (uint32_t)n) s_misc[40] = 1;
        __syncthreads();
        if (s_misc[40]) continue; /* every key has the same digit here: order unchanged */
#pragma unroll
        for (int i = 0; i < KPT; i++) {
            const uint32_t dg = digit_of(i);
            if (dg < RADIX_DIGITS) {
                const uint32_t r = local[i] + s_excl[dg] + s_counter[warp * RADIX_DIGITS + dg];
                s_keys[r] = keys[i];
                if (VB) s_vals[r] = vals[VB ? i : 0];
            }
        }
        __syncthreads();
#pragma unroll
        for (int i = 0; i < KPT; i++) {
            const int idx = warp_first + i * 32 + lane;
            if (idx < n) {
                keys[i] = s_keys[idx];
                if (VB) vals[VB ? i : 0] = s_vals[idx];
            }
        }
        __syncthreads();
    }
    V *vout = (V *)vout_;
#pragma unroll
    for (int i = 0; i < KPT; i++) {
        const int idx = warp_first + i * 32 + lane;
        if (idx < n) {
            kout[idx] = keys[i];
            if (VB) vout[idx] = vals[VB ? i : 0];
        }
    }
}

/* ---- MSD first (the top of the file): the bucket sort and the fallback ----
 *
 * bucket_sort_kernel: block b sorts sub-bucket b (its keys share the top two digits) in place,
 * on its low `digits` digit positions, in shared memory: per position the early-counts ranking
 * of the onesweep pass (per-warp counts, a scan over warps and digits, warp_rank_item), the keys
 * (and values) permuted through shared memory; a position where the sub-bucket's keys agree is
 * skipped. Warp-striped items as in the onesweep pass, so stable; warps past the sub-bucket's
 * end do no work. BUCKET_THREADS * KPT keys at most (the capacity; sub_rows_kernel reports
 * larger sub-buckets, and then the gate is 0). WIDE (narrow indices): the u32 values are read
 * from vals_ and stored as u64 into wide, the output, instead of back in place (a sub-bucket of
 * one key too); no block reads what another writes, as vals_ is the alternate buffer. */
constexpr int BUCKET_THREADS = 512;
constexpr int BUCKET_WARPS = BUCKET_THREADS / 32;
/* Keys per thread of the bucket sort: 8192-key sub-buckets of keys alone, 6144 with 32-bit and
 * 4096 with 64-bit values (two blocks per SM in Hopper's shared memory). */
template <int VB> constexpr int bucket_kpt() { return VB == 8 ? 8 : VB == 4 ? 12 : 16; }
template <int VB> constexpr uint32_t bucket_cap() { return BUCKET_THREADS * bucket_kpt<VB>(); }
template <typename K, int VB> constexpr size_t bucket_smem()
{
    return (size_t)BUCKET_THREADS * bucket_kpt<VB>() * (sizeof(K) + VB) +
           (size_t)BUCKET_WARPS * RADIX_DIGITS * 4 + RADIX_DIGITS * 4 + 64 * 4;
}

template <typename K, bool FLOAT, int VB, bool WIDE>
__global__ void __launch_bounds__(BUCKET_THREADS, 2) bucket_sort_kernel(K *keys, void *vals_,
                                                                     const uint32_t *cnt,
                                                                     const long long *start,
                                                                     const int *gate, K mask,
                                                                     int digits,
                                                                     unsigned long long *wide)
{
    pdl_wait_and_release();
    typedef typename ValueOf<VB>::T V;
    constexpr int KPT = bucket_kpt<VB>();
    constexpr int CAP = (int)bucket_cap<VB>();
    extern __shared__ __align__(16) unsigned char smem[];
    K *s_keys = (K *)smem;
    V *s_vals = (V *)(smem + (size_t)CAP * sizeof(K));
    uint32_t *s_count = (uint32_t *)(smem + (size_t)CAP * (sizeof(K) + VB));
    uint32_t *s_misc = s_count + BUCKET_WARPS * RADIX_DIGITS + RADIX_DIGITS;
    if (!*gate) return;
    const int nb = (int)cnt[blockIdx.x];
    if (nb <= (WIDE ? 0 : 1)) return;
    const long long first = start[blockIdx.x];
    keys += first;
    V *vals = (V *)vals_ + (VB ? first : 0);
    if (WIDE) wide += first;
    const int tid = threadIdx.x, lane = tid & 31, warp = tid >> 5;
    const int warp_first = warp * 32 * KPT;
    uint32_t *warp_count = s_count + warp * RADIX_DIGITS;
    K k[KPT];
    V v[VB ? KPT : 1];
    auto valid = [&](int i) { return warp_first + i * 32 + lane < nb; };
    auto row = [&](int i) { return warp_first + i * 32 < nb; }; /* uniform over the warp */
#pragma unroll
    for (int i = 0; i < KPT; i++) {
        const int idx = warp_first + i * 32 + lane;
        if (valid(i)) {
            k[i] = keys[idx];
            if (VB) v[VB ? i : 0] = vals[idx];
        }
    }
    if (tid < 8) s_misc[tid] = 0;
    for (int p = 0; p < digits; p++) {
        const int shift = p * RADIX_BITS;
        /* 1. Per-warp digit counts. */
        for (int i = lane; i < RADIX_DIGITS; i += 32) warp_count[i] = 0;
        __syncwarp();
#pragma unroll
        for (int i = 0; i < KPT; i++)
            if (valid(i)) atomicAdd(&warp_count[radix_digit<FLOAT>(k[i], mask, shift)], 1u);
        __syncthreads();
        /* 2. Thread d: exclusive prefixes over warps, then over digits. */
        uint32_t total = 0, incl = 0;
        if (tid < RADIX_DIGITS) {
#pragma unroll
            for (int w = 0; w < BUCKET_WARPS; w++) {
                const uint32_t c = s_count[w * RADIX_DIGITS + tid];
                s_count[w * RADIX_DIGITS + tid] = total;
                total += c;
            }
            if (total == (uint32_t)nb) s_misc[p] = 1; /* every key has digit tid here */
            incl = warp_inclusive_scan(total);
            if (lane == 31) s_misc[8 + warp] = incl;
        }
        __syncthreads();
        if (s_misc[p]) continue; /* uniform: the order stays */
        if (tid < RADIX_DIGITS) {
            uint32_t excl = incl - total;
            for (int w = 0; w < warp; w++) excl += s_misc[8 + w];
#pragma unroll
            for (int w = 0; w < BUCKET_WARPS; w++) s_count[w * RADIX_DIGITS + tid] += excl;
        }
        __syncthreads();
        /* 3. Ranks; keys and values to their place in shared memory, then back in order. */
#pragma unroll
        for (int i = 0; i < KPT; i++) {
            if (!row(i)) continue;
            const bool ok = valid(i);
            const uint32_t d = ok ? radix_digit<FLOAT>(k[i], mask, shift) : 0;
            const uint32_t r = warp_rank_item<false>(d, ok, warp_count);
            if (ok) {
                s_keys[r] = k[i];
                if (VB) s_vals[r] = v[VB ? i : 0];
            }
        }
        __syncthreads();
#pragma unroll
        for (int i = 0; i < KPT; i++) {
            const int idx = warp_first + i * 32 + lane;
            if (valid(i)) {
                k[i] = s_keys[idx];
                if (VB) v[VB ? i : 0] = s_vals[idx];
            }
        }
        __syncthreads();
    }
#pragma unroll
    for (int i = 0; i < KPT; i++) {
        const int idx = warp_first + i * 32 + lane;
        if (valid(i)) {
            keys[idx] = k[i];
            if (WIDE) wide[idx] = v[VB ? i : 0];
            else if (VB) vals[idx] = v[VB ? i : 0];
        }
    }
}

/* bucket_warp_kernel: the same sort with one WARP per sub-bucket, for small sub-buckets (up to
 * WARP_CAP keys: the expected sub-bucket below 2^24.6 keys in all). A block sort of a few
 * hundred keys is latency-bound on its barriers (65536 blocks took ~4 ms at 2^22 keys: bench/
 * results/radix-msd-2026-11-29.md); a warp needs only __syncwarp, and 24 warps share an SM.
 * Per digit position: counts in the warp's 256 counters, their exclusive scan (8 per lane, then
 * across lanes), warp_rank_item against the scanned counters, the permutation through shared
 * memory. Items lane-striped (item i of lane l is key 32i + l), so stable. WIDE: as in
 * bucket_sort_kernel. */
constexpr int WARP_KPT = 16;
constexpr int WARP_CAP = 32 * WARP_KPT;
constexpr int WARP_BLOCK = 256;
template <typename K, int VB> constexpr size_t warp_bucket_bytes()
{
    return (size_t)WARP_CAP * (sizeof(K) + VB) + RADIX_DIGITS * 4;
}

template <typename K, bool FLOAT, int VB, bool WIDE>
__global__ void __launch_bounds__(WARP_BLOCK) bucket_warp_kernel(K *keys, void *vals_,
                                                                 const uint32_t *cnt,
                                                                 const long long *start,
                                                                 const int *gate, K mask,
                                                                 int digits,
                                                                 unsigned long long *wide)
{
    pdl_wait_and_release();
    typedef typename ValueOf<VB>::T V;
    extern __shared__ __align__(16) unsigned char smem[];
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    unsigned char *mine = smem + (size_t)warp * warp_bucket_bytes<K, VB>();
    K *s_keys = (K *)mine;
    V *s_vals = (V *)(mine + (size_t)WARP_CAP * sizeof(K));
    uint32_t *count = (uint32_t *)(mine + (size_t)WARP_CAP * (sizeof(K) + VB));
    if (!*gate) return;
    const int b = blockIdx.x * (WARP_BLOCK / 32) + warp;
    const int nb = (int)cnt[b];
    if (nb <= (WIDE ? 0 : 1)) return; /* uniform over the warp */
    const long long first = start[b];
    keys += first;
    V *vals = (V *)vals_ + (VB ? first : 0);
    if (WIDE) wide += first;
    K k[WARP_KPT];
    V v[VB ? WARP_KPT : 1];
    auto valid = [&](int i) { return i * 32 + lane < nb; };
#pragma unroll
    for (int i = 0; i < WARP_KPT; i++)
        if (valid(i)) {
            k[i] = keys[i * 32 + lane];
            if (VB) v[VB ? i : 0] = vals[i * 32 + lane];
        }
    for (int p = 0; p < digits; p++) {
        const int shift = p * RADIX_BITS;
        for (int j = lane; j < RADIX_DIGITS; j += 32) count[j] = 0;
        __syncwarp();
#pragma unroll
        for (int i = 0; i < WARP_KPT; i++)
            if (valid(i)) atomicAdd(&count[radix_digit<FLOAT>(k[i], mask, shift)], 1u);
        __syncwarp();
        /* Lane l scans counters 8l .. 8l+7, then the lanes' totals. */
        uint32_t c[RADIX_DIGITS / 32], total = 0;
        bool all = false;
#pragma unroll
        for (int j = 0; j < RADIX_DIGITS / 32; j++) {
            c[j] = count[lane * (RADIX_DIGITS / 32) + j];
            all |= c[j] == (uint32_t)nb;
            total += c[j];
        }
        if (__any_sync(0xffffffffu, all)) { /* every key has one digit here: the order stays */
            __syncwarp();
            continue;
        }
        uint32_t run = warp_inclusive_scan(total) - total;
#pragma unroll
        for (int j = 0; j < RADIX_DIGITS / 32; j++) {
            count[lane * (RADIX_DIGITS / 32) + j] = run;
            run += c[j];
        }
        __syncwarp();
#pragma unroll
        for (int i = 0; i < WARP_KPT; i++) {
            if (i * 32 >= nb) break; /* uniform over the warp */
            const bool ok = valid(i);
            const uint32_t d = ok ? radix_digit<FLOAT>(k[i], mask, shift) : 0;
            const uint32_t r = warp_rank_item<false>(d, ok, count);
            if (ok) {
                s_keys[r] = k[i];
                if (VB) s_vals[r] = v[VB ? i : 0];
            }
        }
        __syncwarp();
#pragma unroll
        for (int i = 0; i < WARP_KPT; i++)
            if (valid(i)) {
                k[i] = s_keys[i * 32 + lane];
                if (VB) v[VB ? i : 0] = s_vals[i * 32 + lane];
            }
        __syncwarp();
    }
#pragma unroll
    for (int i = 0; i < WARP_KPT; i++)
        if (valid(i)) {
            keys[i * 32 + lane] = k[i];
            if (WIDE) wide[i * 32 + lane] = v[VB ? i : 0];
            else if (VB) vals[i * 32 + lane] = v[VB ? i : 0];
        }
}

/* After the counts of pass B (and before B): a sub-bucket above the bucket sort's capacity
 * turns the MSD-first sort into an LSD sort of B's output (every digit position; B's grouping
 * is undone, the result is the same stable order), and the bucket sort off. B writes its values
 * where that sort reads them, in_place.vals_in: the output (in place, as B's keys), or for
 * narrow indices the output's high half (the top of the file). */
__global__ void hybrid_fallback_kernel(Hybrid *hy, int passes, PlanInput in_place, Plan *plan)
{
    pdl_wait_and_release();
    if (!hy->run || !hy->overflow) return;
    hy->local = 0;
    hy->plan.vdst[passes - 2] = (void *)in_place.vals_in;
    make_plan(hy->trivial, passes, in_place, plan);
}

static size_t align_up(size_t x, size_t a) { return (x + a - 1) / a * a; }

/* Kernels above 48 KiB of dynamic shared memory must say so once per device: a bit per device
 * (the first 64) records that it was done, so the call costs nothing on later sorts. WHICH:
 * 0/1 sweep/tile kernel, + 2 x SHAPE, + 8 for the WIDEN sweep kernel; 16 / 17 the sweeps of
 * the several-GPU sort (MODE_SCATTER / MODE_SEGMENTED, the latter also the MSD-first pass B);
 * 18 / 21 the bucket sort (21: WIDE), 19 the histogram's column layout, 20 / 22 the warp bucket
 * sort (22: WIDE), 24 the packed argsort's sweeps. */
template <typename K, bool FLOAT, int VB, int WHICH> struct SmemOnce {
    static unsigned long long devices;
};
template <typename K, bool FLOAT, int VB, int WHICH> unsigned long long SmemOnce<K, FLOAT, VB, WHICH>::devices = 0;

static gpusort_status allow_smem(gpusort_ctx *ctx, const void *kern, size_t smem,
                                 unsigned long long *devices)
{
    gpusort_status s0 = gpusort__cuda_smem_check(ctx, smem, "the radix sort");
    if (s0) return s0;
    const unsigned long long bit = ctx->device < 64 ? 1ull << ctx->device : 0;
    if (bit && (__atomic_load_n(devices, __ATOMIC_RELAXED) & bit)) return GPUSORT_STATUS_SUCCESS;
    gpusort_status s = gpusort__cuda_check(
        ctx, cudaFuncSetAttribute(kern, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)smem),
        "cudaFuncSetAttribute");
    if (!s && bit) __atomic_fetch_or(devices, bit, __ATOMIC_RELAXED);
    return s;
}

/* hist_kernel over n keys on the stream: the column layout from 2^20 keys (the sizes where it
 * was measured faster: bench/results/radix-msd-2026-11-29.md) where a block may have its shared
 * memory, else the copies (test knob GPUSORT_TEST_RADIX_HIST: 0 the copies, 1 the columns at
 * every n); enough blocks to fill the device, fewer for small n. */
template <typename K, bool FLOAT>
static gpusort_status launch_hist(gpusort_ctx *ctx, cudaStream_t st, const K *keys, size_t n,
                                  K mask, unsigned long long *hist)
{
    const int sms = gpusort__cuda_props(ctx)->multiProcessorCount;
    constexpr int COLS = hist_cols<K>();
    const int knob = gpusort__cuda_impl_of(ctx)->radix_hist;
    if (knob != 0 && (knob == 1 || n >= ((size_t)1 << 20)) &&
        hist_smem<K, COLS>() <= gpusort__cuda_smem_limit(ctx)) {
        gpusort_status s = allow_smem(ctx, (const void *)hist_kernel<K, FLOAT, COLS>,
                                      hist_smem<K, COLS>(), &SmemOnce<K, FLOAT, 0, 19>::devices);
        if (s) return s;
        const size_t per_block = (size_t)4 * HIST_COLS_THREADS * (16 / sizeof(K));
        const size_t want = (n + per_block - 1) / per_block;
        hist_kernel<K, FLOAT, COLS><<<(unsigned)(want < (size_t)sms ? want : sms), HIST_COLS_THREADS,
                                      hist_smem<K, COLS>(), st>>>(keys, n, mask, hist);
    } else {
        const size_t per_block = (size_t)4 * HIST_THREADS * (16 / sizeof(K));
        const size_t want = (n + per_block - 1) / per_block;
        const size_t cap = (size_t)8 * sms;
        hist_kernel<K, FLOAT, 0><<<(unsigned)(want < cap ? want : cap), HIST_THREADS,
                                   hist_smem<K, 0>(), st>>>(keys, n, mask, hist);
    }
    return gpusort__cuda_check(ctx, cudaGetLastError(), "radix hist_kernel");
}

/* Dynamic shared memory of the tile kernel (n <= one tile). */
template <typename K, int VB> constexpr size_t tile_smem(int kpt)
{
    return (size_t)THREADS * kpt * (sizeof(K) + VB) + 2 * WARPS * RADIX_DIGITS * 4 +
           RADIX_DIGITS * 4 + 64 * 4;
}

/* The look-back geometry of a sort of n keys with tiles of `tile` keys; aux_bytes is the size
 * of slot AUX (scratch.cu's bound asks the same function). */
struct AuxLayout {
    size_t portion, portions, max_tiles, launches, slots;
    size_t off_cnt, off_ticket, off_state, state_bytes, off_plan, off_base;
    size_t off_hybrid, off_seg, off_start, aux_bytes;
};

/* hybrid: the MSD-first sort's layout (its two passes' launches, pass B's bin-base slot P, its
 * counts, offsets and sub-bucket starts), else only the LSD sort's. */
static AuxLayout aux_layout(size_t n, size_t tile, int P, bool hybrid = false)
{
    AuxLayout L;
    /* Portions: a multiple of PORTION_TILES tiles, below 2^27 keys. */
    const size_t chunk = tile * PORTION_TILES;
    L.portion = PORTION_LIMIT / chunk * chunk;
    L.portions = (n + L.portion - 1) / L.portion;
    L.max_tiles = ((n < L.portion ? n : L.portion) + tile - 1) / tile;
    /* Aux layout: hist u64 | (hybrid) counts u32 [256][256] | tickets u32 | state | plan |
     * bin_base u64 [portion][slot][256] | (hybrid) Hybrid | seg_off, start i64 [256][256].
     * The part up to the state's end is zeroed by one memset per sort. */
    L.launches = L.portions * (P + (hybrid ? 2 : 0));
    L.slots = P + (hybrid ? 1 : 0);
    const size_t hist_bytes = P * RADIX_DIGITS * 8;
    const size_t seg_entries = (size_t)RADIX_DIGITS * RADIX_DIGITS;
    L.off_cnt = align_up(hist_bytes, 256);
    L.off_ticket = align_up(L.off_cnt + (hybrid ? seg_entries * 4 : 0), 256);
    L.off_state = align_up(L.off_ticket + L.launches * 4, 256);
    L.state_bytes = L.max_tiles * RADIX_DIGITS * 4;
    L.off_plan = align_up(L.off_state + L.state_bytes, 256);
    L.off_base = align_up(L.off_plan + sizeof(Plan), 256);
    L.aux_bytes = L.off_base + L.portions * L.slots * RADIX_DIGITS * 8;
    L.off_hybrid = L.off_seg = L.off_start = 0;
    if (hybrid) {
        L.off_hybrid = align_up(L.aux_bytes, 256);
        L.off_seg = align_up(L.off_hybrid + sizeof(Hybrid), 256);
        L.off_start = L.off_seg + seg_entries * 8;
        L.aux_bytes = L.off_start + seg_entries * 8;
    }
    return L;
}

/* The sweeps of digit positions p0 .. p1-1 over every portion of n keys, launch numbers k0,
 * k0 + 1, ... (tickets, epochs and the state's zeroing as at the top of the file), pass p's bin
 * bases in slot slot0 + p - p0. pdl_first: whether the first launch may overlap the stream's
 * previous kernel. */
template <typename Kern>
static gpusort_status launch_sweeps(gpusort_ctx *ctx, Kern kern, size_t smem, cudaStream_t st,
                                    int pdl, int pdl_first, const AuxLayout &L, char *aux,
                                    const Plan *plan, uint64_t mask, size_t n, size_t tile,
                                    int p0, int p1, size_t k0, int slot0, const MultiArgs &mu)
{
    uint32_t *ticket = (uint32_t *)(aux + L.off_ticket);
    uint32_t *state = (uint32_t *)(aux + L.off_state);
    uint64_t *bin_base = (uint64_t *)(aux + L.off_base);
    const size_t S = L.slots;
    SweepArgs a;
    a.plan = plan;
    a.mask = mask;
    a.state = state;
    for (int p = p0; p < p1; p++) {
        a.pass = p;
        for (size_t q = 0; q < L.portions; q++) {
            const size_t k = k0 + (size_t)(p - p0) * L.portions + q; /* launch number */
            a.ticket = ticket + k;
            a.epoch = (uint32_t)(k % EPOCHS) << EPOCH_SHIFT;
            a.portion_start = q * L.portion;
            a.portion_n = n - a.portion_start < L.portion ? n - a.portion_start : L.portion;
            const size_t slot = (size_t)(slot0 + p - p0);
            a.bin_base = bin_base + (q * S + slot) * RADIX_DIGITS;
            a.bin_base_next = q + 1 < L.portions ? bin_base + ((q + 1) * S + slot) * RADIX_DIGITS
                                                 : NULL;
            const size_t tiles = (a.portion_n + tile - 1) / tile;
            const bool zero = k >= EPOCHS && k % EPOCHS == 0;
            gpusort_status s;
            if (zero &&
                (s = gpusort__cuda_check(ctx, cudaMemsetAsync(state, 0, L.state_bytes, st),
                                         "cudaMemsetAsync (look-back state)")))
                return s;
            const bool first = p == p0 && q == 0;
            MultiArgs mp = mu; /* SEGMENTED: this pass's table */
            if (mu.seg_off) mp.seg_off = mu.seg_off + (size_t)(p - p0) * RADIX_DIGITS * RADIX_DIGITS;
            launch_pdl(kern, (unsigned)tiles, THREADS, smem, st, (first ? pdl_first : pdl) && !zero,
                       a, mp);
            if ((s = gpusort__cuda_check(ctx, cudaGetLastError(), "radix onesweep_kernel")))
                return s;
        }
    }
    return GPUSORT_STATUS_SUCCESS;
}

/* Below this many keys the SMALL shapes run (Tune). */
#ifndef GPUSORT_RADIX_SMALL_LOG2
#define GPUSORT_RADIX_SMALL_LOG2 21
#endif
constexpr size_t SMALL_N = (size_t)1 << GPUSORT_RADIX_SMALL_LOG2;

/* The compact shapes run when the row asks for them or the Hopper shape does not fit. */
template <typename K, bool FLOAT, int VB> static bool use_compact(gpusort_ctx *ctx)
{
    constexpr int KPT = Tune<K, FLOAT, VB>::KPT;
    const size_t need = sweep_smem<K, FLOAT>(KPT, VB) > tile_smem<K, VB>(KPT)
                            ? sweep_smem<K, FLOAT>(KPT, VB) : tile_smem<K, VB>(KPT);
    return gpusort__cuda_tuning_of(ctx)->radix_compact || need > gpusort__cuda_smem_limit(ctx);
}

/* The shape that sorts n keys on ctx. */
template <typename K, bool FLOAT, int VB> static int shape_of(gpusort_ctx *ctx, size_t n)
{
    return use_compact<K, FLOAT, VB>(ctx) ? COMPACT : n <= SMALL_N ? SMALL : HOPPER;
}

/* MSD first runs for 64-bit integer keys with values where uniform keys make sub-buckets that one
 * of its two bucket kernels sorts on chip (n / 2^16 keys expected, at most 3/4 of its capacity):
 *   WARP   one warp per sub-bucket (bucket_warp_kernel), from 2^23 keys up to n / 2^16 <= 384
 *          (2^24.58 keys);
 *   BLOCK  one block per sub-bucket (bucket_sort_kernel), from 2^27 keys with 64-bit values and
 *          3 * 2^26 with 32-bit ones, up to 3/4 of its capacity. Below those sizes its 65536
 *          latency-bound blocks cost more than the passes saved.
 * Between the two ranges (and below 2^23) the LSD passes are faster. Keys alone and 32-bit keys
 * stay LSD: the bucket sort ranks a digit no faster than a pass does, so MSD first pays only
 * where a pass moves many bytes per key (the warp kernel too, for 32-bit keys:
 * bench/results/radix-2026-11-29f.md). Doubles stay LSD too: their top digits are the
 * exponent's, rarely uniform, and every NaN has one radix key, so random bits overflow a
 * sub-bucket and take the fallback. The measurements: bench/results/radix-msd-2026-11-29.md
 * (BLOCK), radix-2026-11-29b.md (WARP).
 * Test knob GPUSORT_TEST_RADIX_HYBRID: 0 never; 1 from one tile on, WARP where its range
 * allows, else BLOCK; 2 BLOCK from one tile on. */
template <typename K, bool FLOAT, int VB> constexpr bool hybrid_kernels()
{
    return sizeof(K) == 8 && !FLOAT && VB != 0;
}
enum { HYBRID_NONE = 0, HYBRID_WARP = 1, HYBRID_BLOCK = 2 };
constexpr size_t HYBRID_WARP_FROM = (size_t)1 << 23;
template <typename K, bool FLOAT, int VB> static int hybrid_kind(gpusort_ctx *ctx, size_t n)
{
    const int knob = gpusort__cuda_impl_of(ctx)->radix_hybrid;
    if (!hybrid_kernels<K, FLOAT, VB>() || knob == 0 || use_compact<K, FLOAT, VB>(ctx) ||
        n <= (size_t)THREADS * Tune<K, FLOAT, VB>::KPT)
        return HYBRID_NONE;
    const size_t per_bucket = n / (RADIX_DIGITS * RADIX_DIGITS);
    const bool warp_fits = (WARP_BLOCK / 32) * warp_bucket_bytes<K, VB>() <= gpusort__cuda_smem_limit(ctx);
    if (knob != 2 && warp_fits && per_bucket <= (size_t)WARP_CAP / 4 * 3 &&
        (knob == 1 || n >= HYBRID_WARP_FROM))
        return HYBRID_WARP;
    const size_t block_from = knob >= 1 ? 0 : VB == 8 ? (size_t)1 << 27 : (size_t)3 << 26;
    if (bucket_smem<K, VB>() <= gpusort__cuda_smem_limit(ctx) && n >= block_from &&
        per_bucket <= (size_t)bucket_cap<VB>() / 4 * 3)
        return HYBRID_BLOCK;
    return HYBRID_NONE;
}
template <typename K, bool FLOAT, int VB> static bool hybrid_applies(gpusort_ctx *ctx, size_t n)
{
    return hybrid_kind<K, FLOAT, VB>(ctx, n) != HYBRID_NONE;
}
/* The least n from which MSD first may run on ctx (SIZE_MAX: never); the scratch bound. */
template <typename K, bool FLOAT, int VB> static size_t hybrid_from(gpusort_ctx *ctx)
{
    const int knob = gpusort__cuda_impl_of(ctx)->radix_hybrid;
    if (!hybrid_kernels<K, FLOAT, VB>() || knob == 0 || use_compact<K, FLOAT, VB>(ctx))
        return SIZE_MAX;
    return knob >= 1 ? (size_t)THREADS * Tune<K, FLOAT, VB>::KPT + 1 : HYBRID_WARP_FROM;
}
/* The largest sub-bucket the chosen bucket kernel sorts. */
template <typename K, bool FLOAT, int VB> static uint32_t hybrid_cap(gpusort_ctx *ctx, size_t n)
{
    return hybrid_kind<K, FLOAT, VB>(ctx, n) == HYBRID_WARP ? (uint32_t)WARP_CAP : bucket_cap<VB>();
}

/* MSD first: the launches between scan_kernel and the LSD passes (the top of the file). All
 * run on the device's choice: when scan_kernel does not choose this sort they exit at once, and
 * the LSD passes run; when it does, the LSD passes exit at once unless a sub-bucket overflows.
 * WIDEN: narrow indices (in.widen); passes A and B are the same kernels, the bucket sort stores
 * u64 values. */
template <typename K, bool FLOAT, int VB, bool WIDEN>
static gpusort_status hybrid_sort(gpusort_ctx *ctx, const gpusort__sort_args *d, const AuxLayout &L,
                                  char *aux, const PlanInput &in, K mask)
{
    constexpr int KPT = Tune<K, FLOAT, VB>::KPT;
    constexpr int TILE = THREADS * KPT;
    constexpr int P = sizeof(K);
    cudaStream_t st = gpusort__cuda_stream(ctx);
    const int pdl = gpusort__cuda_pdl(ctx);
    const size_t n = d->n;
    const uint32_t cap = hybrid_cap<K, FLOAT, VB>(ctx, n);
    Hybrid *hy = (Hybrid *)(aux + L.off_hybrid);
    uint32_t *cnt = (uint32_t *)(aux + L.off_cnt);
    long long *seg = (long long *)(aux + L.off_seg);
    long long *start = (long long *)(aux + L.off_start);
    gpusort_status s;
    MultiArgs mu;
    memset(&mu, 0, sizeof mu);

    /* A: the top digit, keys_in -> alt. radix_sort readied the WIDEN kernel for its passes, not
     * this one. */
    const size_t smem = sweep_smem<K, FLOAT>(KPT, VB);
    auto a_kern = onesweep_kernel<K, FLOAT, VB, KPT, false>;
    if (WIDEN && (s = allow_smem(ctx, (const void *)a_kern, smem,
                                 &SmemOnce<K, FLOAT, VB, 2 * HOPPER>::devices)))
        return s;
    if ((s = launch_sweeps(ctx, a_kern, smem, st, pdl, pdl, L, aux, &hy->plan, mask, n, TILE,
                           P - 1, P, 0, P - 1, mu)))
        return s;
    /* The (top, second) counts of A's output, their offsets and sub-bucket starts; the fallback. */
    const size_t blocks = (size_t)8 * gpusort__cuda_props(ctx)->multiProcessorCount;
    size_t range = (n + blocks - 1) / blocks;
    range = range < 4096 ? 4096 : range;
    launch_pdl(seg_hist_kernel<K, FLOAT>, (unsigned)((n + range - 1) / range), HIST_THREADS, 0, st,
               pdl, (const K *)in.keys_alt, n, mask, P - 1, P - 2, range, cnt,
               (const int *)&hy->run);
    const uint64_t *top_base = (const uint64_t *)(aux + L.off_base) + (size_t)(P - 1) * RADIX_DIGITS;
    launch_pdl(sub_rows_kernel, RADIX_DIGITS, RADIX_DIGITS, 0, st, pdl, (const uint32_t *)cnt,
               top_base, start, cap, &hy->overflow, (const int *)&hy->run);
    launch_pdl(sub_cols_kernel, RADIX_DIGITS, RADIX_DIGITS, 0, st, pdl, (const uint32_t *)cnt,
               (const long long *)start, seg, (const int *)&hy->run);
    PlanInput out_in_place = in; /* the fallback's input: B's output */
    out_in_place.keys_in = in.keys_out;
    out_in_place.vals_in = WIDEN ? (void *)((uint32_t *)in.vals_out + n) : in.vals_out;
    launch_pdl(hybrid_fallback_kernel, 1, 1, 0, st, pdl, hy, P, out_in_place,
               (Plan *)(aux + L.off_plan));
    if ((s = gpusort__cuda_check(ctx, cudaGetLastError(), "radix MSD-first counts"))) return s;
    /* B: the second digit within each top bucket, alt -> out (narrow indices' values: the
     * other way round, or to the output's high half for the fallback). */
    auto seg_kern = onesweep_kernel<K, FLOAT, VB, KPT, false, MODE_SEGMENTED>;
    if ((s = allow_smem(ctx, (const void *)seg_kern, smem, &SmemOnce<K, FLOAT, VB, 17>::devices)))
        return s;
    mu.seg_off = seg;
    mu.seg_shift = (P - 1) * RADIX_BITS;
    if ((s = launch_sweeps(ctx, seg_kern, smem, st, pdl, pdl, L, aux, &hy->plan, mask, n, TILE,
                           P - 2, P - 1, L.portions, P, mu)))
        return s;
    /* The sub-buckets in place in out (narrow indices' values: alt[u32] -> out[u64]). */
    if (hybrid_kind<K, FLOAT, VB>(ctx, n) == HYBRID_WARP) {
        const size_t wsmem = (WARP_BLOCK / 32) * warp_bucket_bytes<K, VB>();
        auto wkern = bucket_warp_kernel<K, FLOAT, VB, WIDEN>;
        if ((s = allow_smem(ctx, (const void *)wkern, wsmem,
                            &SmemOnce<K, FLOAT, VB, 20 + 2 * WIDEN>::devices)))
            return s;
        launch_pdl(wkern, RADIX_DIGITS * RADIX_DIGITS / (WARP_BLOCK / 32), WARP_BLOCK, wsmem, st,
                   pdl, (K *)in.keys_out, WIDEN ? in.vals_alt : in.vals_out, (const uint32_t *)cnt,
                   (const long long *)start, (const int *)&hy->local, mask, P - 2,
                   WIDEN ? (unsigned long long *)in.vals_out : (unsigned long long *)NULL);
        return gpusort__cuda_check(ctx, cudaGetLastError(), "radix bucket_warp_kernel");
    }
    const size_t bsmem = bucket_smem<K, VB>();
    auto bkern = bucket_sort_kernel<K, FLOAT, VB, WIDEN>;
    if ((s = allow_smem(ctx, (const void *)bkern, bsmem,
                        &SmemOnce<K, FLOAT, VB, 18 + 3 * WIDEN>::devices)))
        return s;
    launch_pdl(bkern, RADIX_DIGITS * RADIX_DIGITS, BUCKET_THREADS, bsmem, st, pdl, (K *)in.keys_out,
               WIDEN ? in.vals_alt : in.vals_out, (const uint32_t *)cnt, (const long long *)start,
               (const int *)&hy->local, mask, P - 2,
               WIDEN ? (unsigned long long *)in.vals_out : (unsigned long long *)NULL);
    return gpusort__cuda_check(ctx, cudaGetLastError(), "radix bucket_sort_kernel");
}

/* The host side for one (key width, float flag, value width, shape). WIDEN: an argsort with u64
 * indices sorted with VB = 4 (narrow indices, see the top of the file; only above one tile). */
template <typename K, bool FLOAT, int VB, int SHAPE, bool WIDEN = false>
gpusort_status radix_sort(gpusort_ctx *ctx, const gpusort__sort_args *d)
{
    static_assert(!WIDEN || VB == 4, "narrow indices are sorted as u32 values");
    typedef typename ValueOf<VB>::T V;
    constexpr int KPT = Tune<K, FLOAT, VB, SHAPE>::KPT;
    constexpr int TILE = THREADS * KPT;
    constexpr int P = sizeof(K);
    cudaStream_t st = gpusort__cuda_stream(ctx);
    const size_t n = d->n;
    const K mask = (K)radix_mask(d->key_type, d->order);
    gpusort_status s;

    if (!WIDEN && n <= (size_t)TILE) {
        const size_t smem = tile_smem<K, VB>(KPT);
        auto kern = tile_sort_kernel<K, FLOAT, VB, KPT>;
        if ((s = allow_smem(ctx, (const void *)kern, smem,
                            &SmemOnce<K, FLOAT, VB, 1 + 2 * SHAPE>::devices)))
            return s;
        kern<<<1, THREADS, smem, st>>>((const K *)d->keys_in, (K *)d->keys_out, d->values_in,
                                       d->values_out, (int)n, mask);
        return gpusort__cuda_check(ctx, cudaGetLastError(), "radix tile_sort_kernel");
    }

    constexpr bool CAN_HYBRID = hybrid_kernels<K, FLOAT, VB>() && SHAPE == HOPPER;
    const bool hybrid = CAN_HYBRID && hybrid_applies<K, FLOAT, VB>(ctx, n);
    const AuxLayout L = aux_layout(n, TILE, P, hybrid);
    char *aux = (char *)gpusort__cuda_scratch(ctx, GPUSORT_CUDA_SCRATCH_AUX, L.aux_bytes);
    if (!aux) return GPUSORT_STATUS_OUT_OF_DEVICE_MEMORY;
    unsigned long long *hist = (unsigned long long *)aux;
    Plan *plan = (Plan *)(aux + L.off_plan);
    uint64_t *bin_base = (uint64_t *)(aux + L.off_base);
    Hybrid *hy = hybrid ? (Hybrid *)(aux + L.off_hybrid) : NULL;

    PlanInput in;
    in.keys_in = d->keys_in;
    in.keys_out = d->keys_out;
    in.vals_in = VB ? d->values_in : NULL;
    in.vals_out = VB ? d->values_out : NULL;
    in.has_vals = VB != 0;
    in.widen = WIDEN;
    in.pack = 0;
    in.keys_alt = gpusort__cuda_scratch(ctx, GPUSORT_CUDA_SCRATCH_KEYS, n * sizeof(K));
    if (!in.keys_alt) return GPUSORT_STATUS_OUT_OF_DEVICE_MEMORY;
    in.vals_alt = NULL;
    if (VB) { /* WIDEN: n*4 bytes, the u32 indices */
        in.vals_alt = gpusort__cuda_scratch(ctx, GPUSORT_CUDA_SCRATCH_VALUES, n * sizeof(V));
        if (!in.vals_alt) return GPUSORT_STATUS_OUT_OF_DEVICE_MEMORY;
    }

    if ((s = gpusort__cuda_check(ctx, cudaMemsetAsync(aux, 0, L.off_state + L.state_bytes, st),
                                 "cudaMemsetAsync")))
        return s;
    if ((s = launch_hist<K, FLOAT>(ctx, st, (const K *)d->keys_in, n, mask, hist))) return s;
    const int pdl = gpusort__cuda_pdl(ctx);
    launch_pdl(scan_kernel, 1, RADIX_DIGITS, 0, st, pdl, (const unsigned long long *)hist, P, n,
               bin_base, in, plan, hy, hybrid ? hybrid_cap<K, FLOAT, VB>(ctx, n) : 0u,
               FLOAT && gpusort__cuda_impl_of(ctx)->radix_float_form
                   ? (int)((uint64_t)mask >> (8 * (P - 1))) & 0xff : -1);
    if ((s = gpusort__cuda_check(ctx, cudaGetLastError(), "radix histogram"))) return s;

    const size_t smem = sweep_smem<K, FLOAT>(KPT, VB);
    auto kern = onesweep_kernel<K, FLOAT, VB, KPT, WIDEN>;
    if ((s = allow_smem(ctx, (const void *)kern, smem,
                        &SmemOnce<K, FLOAT, VB, 2 * SHAPE + 8 * WIDEN>::devices)))
        return s;
    MultiArgs mu;
    memset(&mu, 0, sizeof mu);
    size_t k0 = 0; /* launch number of the LSD passes */
    if constexpr (CAN_HYBRID) {
        if (hybrid) {
            if ((s = hybrid_sort<K, FLOAT, VB, WIDEN>(ctx, d, L, aux, in, mask)))
                return s;
            k0 = 2 * L.portions;
        }
    }
    if ((s = launch_sweeps(ctx, kern, smem, st, pdl, pdl, L, aux, plan, mask, n, TILE, 0, P, k0,
                           0, mu)))
        return s;
    launch_pdl(finish_kernel<K, VB>, finish_blocks(ctx, n), 256, 0, st, pdl,
               (const Plan *)plan, n);
    return gpusort__cuda_check(ctx, cudaGetLastError(), "radix finish_kernel");
}

template <typename K, bool FLOAT, int VB, bool WIDEN = false>
gpusort_status radix_sort_shape(gpusort_ctx *ctx, const gpusort__sort_args *d)
{
    constexpr int small = Tune<K, FLOAT, VB, SMALL>::KPT;
    if (hybrid_applies<K, FLOAT, VB>(ctx, d->n))
        return radix_sort<K, FLOAT, VB, HOPPER, WIDEN>(ctx, d);
    switch (shape_of<K, FLOAT, VB>(ctx, d->n)) {
    case COMPACT: return radix_sort<K, FLOAT, VB, COMPACT, WIDEN>(ctx, d);
    case SMALL: /* the kernels of a shape with the same tile where there is one (compile time) */
        if constexpr (small == Tune<K, FLOAT, VB, HOPPER>::KPT)
            return radix_sort<K, FLOAT, VB, HOPPER, WIDEN>(ctx, d);
        else if constexpr (small == Tune<K, FLOAT, VB, COMPACT>::KPT)
            return radix_sort<K, FLOAT, VB, COMPACT, WIDEN>(ctx, d);
        else
            return radix_sort<K, FLOAT, VB, SMALL, WIDEN>(ctx, d);
    default: return radix_sort<K, FLOAT, VB, HOPPER, WIDEN>(ctx, d);
    }
}

/* The tile of the shape that sorts K keys with VB-byte values on ctx. */
template <typename K, bool FLOAT, int VB> static size_t tile_of(gpusort_ctx *ctx, size_t n)
{
    const int shape = hybrid_applies<K, FLOAT, VB>(ctx, n) ? HOPPER : shape_of<K, FLOAT, VB>(ctx, n);
    return (size_t)THREADS * (shape == COMPACT ? Tune<K, FLOAT, VB, COMPACT>::KPT
                              : shape == SMALL ? Tune<K, FLOAT, VB, SMALL>::KPT
                                               : Tune<K, FLOAT, VB>::KPT);
}

/* Narrow indices (see the top of the file): an argsort with u64 indices whose indices fit u32
 * and that is longer than one tile of the u32-value shape (that shape's tile is never smaller
 * than the u64 one's, so every shorter sort keeps the single-tile kernel or the u64 shape).
 * It then sorts as pairs with u32 values do: MSD first where that applies to u32 values
 * (radix_sort_shape asks hybrid_applies with VB = 4), else the LSD passes, the last step storing
 * the u64 indices either way. */
template <typename K, bool FLOAT> static bool narrow_indices(gpusort_ctx *ctx, const gpusort__sort_args *d)
{
    return d->value_type == GPUSORT_TYPE_U64 && !d->values_in && d->n <= UINT32_MAX &&
           d->n > tile_of<K, FLOAT, 4>(ctx, d->n);
}

/* Packed argsort (the top of the file): the tile of its 64-bit words, and whether d takes it:
 * an argsort of 32-bit keys with u64 indices past the small sizes (n <= 2^32), not in place,
 * where the Hopper shape of 64-bit keys fits (test knob GPUSORT_TEST_RADIX_PACK=0: never). */
constexpr int PACK_TILE = THREADS * Tune<uint64_t, false, 0, HOPPER>::KPT;
template <typename K, bool FLOAT>
static bool pack_applies(gpusort_ctx *ctx, const gpusort__sort_args *d)
{
    return sizeof(K) == 4 && gpusort__cuda_impl_of(ctx)->radix_pack &&
           d->value_type == GPUSORT_TYPE_U64 && !d->values_in && d->n > SMALL_N &&
           d->n <= UINT32_MAX && d->keys_in != d->keys_out && !use_compact<uint64_t, FLOAT, 0>(ctx);
}

/* The packed argsort's host side: the histograms of the 32-bit keys, the plan (make_plan's
 * packed branch), the passes as 64-bit keys alone (MODE_PACK, the key's mask in the high half),
 * finish_kernel for a sort with no pass (the narrow indices' one: u64 indices). Its words live
 * in the values slot (n u64, the bound of any argsort with u64 indices). */
template <typename K, bool FLOAT>
gpusort_status radix_sort_packed(gpusort_ctx *ctx, const gpusort__sort_args *d)
{
    typedef uint64_t W;
    constexpr int KPT = Tune<W, FLOAT, 0, HOPPER>::KPT;
    static_assert(THREADS * KPT == PACK_TILE, "one tile for every key type");
    constexpr int P = sizeof(K);
    cudaStream_t st = gpusort__cuda_stream(ctx);
    const size_t n = d->n;
    const K mask = (K)radix_mask(d->key_type, d->order);
    gpusort_status s;
    const AuxLayout L = aux_layout(n, PACK_TILE, P);
    char *aux = (char *)gpusort__cuda_scratch(ctx, GPUSORT_CUDA_SCRATCH_AUX, L.aux_bytes);
    if (!aux) return GPUSORT_STATUS_OUT_OF_DEVICE_MEMORY;
    unsigned long long *hist = (unsigned long long *)aux;
    Plan *plan = (Plan *)(aux + L.off_plan);
    uint64_t *bin_base = (uint64_t *)(aux + L.off_base);
    PlanInput in;
    in.keys_in = d->keys_in;
    in.keys_out = d->keys_out;
    in.vals_in = NULL;
    in.vals_out = d->values_out;
    in.vals_alt = NULL;
    in.has_vals = 1;
    in.widen = 1;
    in.pack = 1;
    in.keys_alt = gpusort__cuda_scratch(ctx, GPUSORT_CUDA_SCRATCH_VALUES, n * sizeof(W));
    if (!in.keys_alt) return GPUSORT_STATUS_OUT_OF_DEVICE_MEMORY;
    if ((s = gpusort__cuda_check(ctx, cudaMemsetAsync(aux, 0, L.off_state + L.state_bytes, st),
                                 "cudaMemsetAsync")) ||
        (s = launch_hist<K, FLOAT>(ctx, st, (const K *)d->keys_in, n, mask, hist)))
        return s;
    const int pdl = gpusort__cuda_pdl(ctx);
    launch_pdl(scan_kernel, 1, RADIX_DIGITS, 0, st, pdl, (const unsigned long long *)hist, P, n,
               bin_base, in, plan, (Hybrid *)NULL, 0u,
               FLOAT && gpusort__cuda_impl_of(ctx)->radix_float_form
                   ? (int)((uint64_t)mask >> (8 * (P - 1))) & 0xff : -1);
    if ((s = gpusort__cuda_check(ctx, cudaGetLastError(), "radix histogram"))) return s;
    const size_t smem = sweep_smem<W, FLOAT>(KPT, 0);
    auto kern = onesweep_kernel<W, FLOAT, 0, KPT, false, MODE_PACK>;
    if ((s = allow_smem(ctx, (const void *)kern, smem, &SmemOnce<K, FLOAT, 0, 24>::devices)))
        return s;
    MultiArgs mu;
    memset(&mu, 0, sizeof mu);
    if ((s = launch_sweeps(ctx, kern, smem, st, pdl, pdl, L, aux, plan, (uint64_t)mask << 32, n,
                           PACK_TILE, 0, P, 0, 0, mu)))
        return s;
    launch_pdl(finish_kernel<K, 4>, finish_blocks(ctx, n), 256, 0, st, pdl, (const Plan *)plan, n);
    return gpusort__cuda_check(ctx, cudaGetLastError(), "radix finish_kernel");
}

template <typename K, bool FLOAT>
gpusort_status radix_sort_values(gpusort_ctx *ctx, const gpusort__sort_args *d)
{
    switch (d->value_type) {
    case GPUSORT_TYPE_U32: return radix_sort_shape<K, FLOAT, 4>(ctx, d);
    case GPUSORT_TYPE_U64:
        if constexpr (sizeof(K) == 4)
            if (pack_applies<K, FLOAT>(ctx, d)) return radix_sort_packed<K, FLOAT>(ctx, d);
        if (narrow_indices<K, FLOAT>(ctx, d)) return radix_sort_shape<K, FLOAT, 4, true>(ctx, d);
        return radix_sort_shape<K, FLOAT, 8>(ctx, d);
    default: return radix_sort_shape<K, FLOAT, 0>(ctx, d);
    }
}

/* Slot AUX of a sort of n keys with VB-byte values: the tile of its shape decides (0 below one
 * tile). */
template <typename K, bool FLOAT, int VB> static size_t aux_bytes_of(gpusort_ctx *ctx, size_t n)
{
    /* From hybrid_from on, the MSD-first layout: it bounds the sorts of up to n keys that take
     * MSD first, though n itself may be above its range (a segmented sort's segments). */
    const size_t tile = tile_of<K, FLOAT, VB>(ctx, n);
    const bool hybrid = n >= hybrid_from<K, FLOAT, VB>(ctx);
    return n <= tile ? 0 : aux_layout(n, tile, sizeof(K), hybrid).aux_bytes;
}

/* Slot AUX of the sort of d. An argsort with u64 indices (values_in NULL, as in every scratch
 * query of a pair sort) may run either shape (narrow_indices): the larger of the two layouts
 * bounds it, and also every shorter radix sort of the same call (segmented.cu sorts its long
 * segments one by one, each deciding for itself); both layouts grow with n. Each is the
 * MSD-first layout from its own value width's hybrid_from on, the width narrow indices decide
 * MSD first with (u32). In the Hopper shapes the two tiles are equal, and so are the layouts
 * below both thresholds. */
template <typename K, bool FLOAT> static size_t aux_bytes_of_sort(gpusort_ctx *ctx, const gpusort__sort_args *d)
{
    switch (d->value_type) {
    case GPUSORT_TYPE_U32: return aux_bytes_of<K, FLOAT, 4>(ctx, d->n);
    case GPUSORT_TYPE_U64: {
        const size_t wide = aux_bytes_of<K, FLOAT, 8>(ctx, d->n);
        const size_t narrow = d->values_in ? 0 : aux_bytes_of<K, FLOAT, 4>(ctx, d->n);
        /* packed argsort: its own tile (any n past one tile bounds it, as above) */
        const size_t packed = d->values_in || sizeof(K) != 4 || d->n <= (size_t)PACK_TILE
                                  ? 0 : aux_layout(d->n, PACK_TILE, sizeof(K)).aux_bytes;
        const size_t m = wide > narrow ? wide : narrow;
        return m > packed ? m : packed;
    }
    default: return aux_bytes_of<K, FLOAT, 0>(ctx, d->n);
    }
}

/* ---- Several GPUs (src/cuda/multi.cu drives these steps; gpusort.h, "Several devices") ----
 *
 * One sequence in pieces on G GPUs, sorted so that piece h ends holding the global positions
 * [start_h, start_h + n_h) of the stable sorted whole. With m the highest digit position where
 * the keys differ:
 *   hist     every GPU: the histograms of its piece (hist_kernel); the driver adds them up
 *            (global bin bases, m, the buckets of digit m and where they cross a GPU boundary).
 *   scatter  every GPU: ONE pass on digit m over its piece with global bin bases: each key goes
 *            to the receive buffer of the GPU whose slice holds its position, stored straight
 *            over NVLink (MODE_SCATTER). This pass is the exchange: ~(G-1)/G of the keys move,
 *            while the pass reads and ranks as any other. In (source GPU, position) order, so
 *            stable.
 *   local    every GPU: its receive buffer is grouped by bucket (digit m); passes 0 .. m-1 sort
 *            each bucket (MODE_SEGMENTED, offsets from seg_hist_kernel / seg_scan_kernel) into
 *            the piece. m + 1 passes in all, as for one GPU, but each over n / G keys.
 * A bucket that crosses a GPU boundary is then sorted on each GPU only in part; the driver
 * merges its parts (multi.cu). Memory per GPU: the receive buffer (n_h keys and values), the
 * alternate buffers of the passes, and AUX: the layout of one sort plus the counts and the
 * offsets of the segmented passes (768 KiB per pass). */
template <typename K, bool FLOAT, int VB> struct Multi {
    typedef typename ValueOf<VB>::T V;
    static constexpr int KPT = Tune<K, FLOAT, VB>::KPT;
    static constexpr int TILE = THREADS * KPT;
    static constexpr int P = sizeof(K);
    static constexpr size_t SEG = (size_t)RADIX_DIGITS * RADIX_DIGITS; /* entries per pass */
    struct Lay {
        AuxLayout L;
        size_t off_cnt, off_seg, off_triv, bytes;
    };
    static Lay lay(size_t n)
    {
        Lay y;
        y.L = aux_layout(n ? n : 1, TILE, P);
        y.off_cnt = align_up(y.L.aux_bytes, 256);
        y.off_seg = align_up(y.off_cnt + (P - 1) * SEG * 4, 256);
        y.off_triv = align_up(y.off_seg + (P - 1) * SEG * 8, 256);
        y.bytes = y.off_triv + MAX_PASSES * sizeof(int);
        return y;
    }
    /* The Hopper shape runs on ctx (the several-GPU passes have no compact form). */
    static int ok(gpusort_ctx *ctx) { return !use_compact<K, FLOAT, VB>(ctx); }
    static char *aux_of(gpusort_ctx *ctx, const Lay &y)
    {
        return (char *)gpusort__cuda_scratch(ctx, GPUSORT_CUDA_SCRATCH_AUX, y.bytes);
    }

    static gpusort_status hist(gpusort_ctx *ctx, const gpusort__sort_args *d)
    {
        cudaStream_t st = gpusort__cuda_stream(ctx);
        const Lay y = lay(d->n);
        char *aux = aux_of(ctx, y);
        if (!aux) return GPUSORT_STATUS_OUT_OF_DEVICE_MEMORY;
        gpusort_status s = gpusort__cuda_check(
            ctx, cudaMemsetAsync(aux, 0, y.L.off_state + y.L.state_bytes, st), "cudaMemsetAsync");
        if (s) return s;
        return launch_hist<K, FLOAT>(ctx, st, (const K *)d->keys_in, d->n,
                                     (K)radix_mask(d->key_type, d->order), (unsigned long long *)aux);
    }

    static gpusort_status hist_fetch(gpusort_ctx *ctx, const gpusort__sort_args *d, uint64_t *out)
    {
        cudaStream_t st = gpusort__cuda_stream(ctx);
        char *aux = aux_of(ctx, lay(d->n));
        if (!aux) return GPUSORT_STATUS_OUT_OF_DEVICE_MEMORY;
        gpusort_status s = gpusort__cuda_check(
            ctx, cudaMemcpyAsync(out, aux, (size_t)P * RADIX_DIGITS * 8, cudaMemcpyDeviceToHost, st),
            "radix multi histogram copy");
        if (!s) s = gpusort__cuda_check(ctx, cudaStreamSynchronize(st), "radix multi histogram");
        return s;
    }

    static gpusort_status scatter(gpusort_ctx *ctx, const gpusort__sort_args *d, int m,
                                  const uint64_t *bases, const gpusort__cuda_multi_dst *dst)
    {
        cudaStream_t st = gpusort__cuda_stream(ctx);
        const Lay y = lay(d->n);
        char *aux = aux_of(ctx, y);
        if (!aux) return GPUSORT_STATUS_OUT_OF_DEVICE_MEMORY;
        Plan plan;
        memset(&plan, 0, sizeof plan);
        plan.active[m] = 1;
        plan.ksrc[m] = d->keys_in;
        plan.vsrc[m] = VB ? d->values_in : NULL;
        plan.executed = 1;
        plan.wide_pass = -1;
        /* Pageable sources: both copies are staged before the calls return. */
        gpusort_status s = gpusort__cuda_check(
            ctx, cudaMemcpyAsync(aux + y.L.off_plan, &plan, sizeof plan, cudaMemcpyHostToDevice, st),
            "radix multi plan");
        if (!s)
            s = gpusort__cuda_check(ctx, cudaMemcpyAsync(aux + y.L.off_base + (size_t)m * RADIX_DIGITS * 8,
                                                         bases, RADIX_DIGITS * 8,
                                                         cudaMemcpyHostToDevice, st),
                                    "radix multi bases");
        if (s) return s;
        MultiArgs mu;
        memset(&mu, 0, sizeof mu);
        mu.ndst = dst->count;
        for (int h = 0; h < dst->count && h < MULTI_MAX_DST; h++) {
            mu.start[h] = dst->start[h];
            mu.k[h] = dst->keys[h];
            mu.v[h] = dst->values[h];
        }
        const size_t smem = sweep_smem<K, FLOAT>(KPT, VB);
        auto kern = onesweep_kernel<K, FLOAT, VB, KPT, false, MODE_SCATTER>;
        if ((s = allow_smem(ctx, (const void *)kern, smem, &SmemOnce<K, FLOAT, VB, 16>::devices)))
            return s;
        return launch_sweeps(ctx, kern, smem, st, gpusort__cuda_pdl(ctx), 0, y.L, aux,
                             (const Plan *)(aux + y.L.off_plan), radix_mask(d->key_type, d->order),
                             d->n, TILE, m, m + 1, 0, m, mu);
    }

    static gpusort_status local(gpusort_ctx *ctx, const gpusort__sort_args *d, int m)
    {
        cudaStream_t st = gpusort__cuda_stream(ctx);
        const size_t n = d->n;
        gpusort_status s;
        if (m == 0) { /* the scatter sorted on the only digit that differs */
            s = gpusort__cuda_check(ctx, cudaMemcpyAsync(d->keys_out, d->keys_in, n * sizeof(K),
                                                         cudaMemcpyDeviceToDevice, st),
                                    "radix multi copy");
            if (!s && VB)
                s = gpusort__cuda_check(ctx, cudaMemcpyAsync(d->values_out, d->values_in,
                                                             n * sizeof(V),
                                                             cudaMemcpyDeviceToDevice, st),
                                        "radix multi copy");
            return s;
        }
        /* One tile: the whole-piece sort, which keeps the buckets in order too. */
        if (n <= (size_t)TILE) return radix_sort<K, FLOAT, VB, HOPPER>(ctx, d);
        const Lay y = lay(n);
        char *aux = aux_of(ctx, y);
        if (!aux) return GPUSORT_STATUS_OUT_OF_DEVICE_MEMORY;
        const K mask = (K)radix_mask(d->key_type, d->order);
        uint32_t *cnt = (uint32_t *)(aux + y.off_cnt);
        long long *seg = (long long *)(aux + y.off_seg);
        int *triv = (int *)(aux + y.off_triv);
        Plan *plan = (Plan *)(aux + y.L.off_plan);
        PlanInput in;
        in.keys_in = d->keys_in;
        in.keys_out = d->keys_out;
        in.vals_in = VB ? d->values_in : NULL;
        in.vals_out = VB ? d->values_out : NULL;
        in.has_vals = VB != 0;
        in.widen = 0;
        in.pack = 0;
        in.keys_alt = gpusort__cuda_scratch(ctx, GPUSORT_CUDA_SCRATCH_KEYS, n * sizeof(K));
        in.vals_alt = VB ? gpusort__cuda_scratch(ctx, GPUSORT_CUDA_SCRATCH_VALUES, n * sizeof(V))
                         : NULL;
        if (!in.keys_alt || (VB && !in.vals_alt)) return GPUSORT_STATUS_OUT_OF_DEVICE_MEMORY;
        if ((s = gpusort__cuda_check(ctx, cudaMemsetAsync(cnt, 0, (size_t)m * SEG * 4, st),
                                     "cudaMemsetAsync")) ||
            (s = gpusort__cuda_check(ctx, cudaMemsetAsync(triv, 0, MAX_PASSES * sizeof(int), st),
                                     "cudaMemsetAsync")) ||
            (s = gpusort__cuda_check(ctx, cudaMemsetAsync(aux + y.L.off_base, 0,
                                                          (size_t)m * RADIX_DIGITS * 8, st),
                                     "cudaMemsetAsync")))
            return s;
        const size_t blocks = (size_t)8 * gpusort__cuda_props(ctx)->multiProcessorCount;
        size_t range = (n + blocks - 1) / blocks;
        range = range < 4096 ? 4096 : range;
        seg_hist_kernel<K, FLOAT><<<(unsigned)((n + range - 1) / range), HIST_THREADS, 0, st>>>(
            (const K *)d->keys_in, n, mask, m, 0, range, cnt, (const int *)NULL);
        seg_scan_kernel<<<m, RADIX_DIGITS, 0, st>>>(cnt, n, seg, triv);
        seg_plan_kernel<<<1, 1, 0, st>>>(triv, m, in, plan);
        if ((s = gpusort__cuda_check(ctx, cudaGetLastError(), "radix multi segment counts")))
            return s;
        MultiArgs mu;
        memset(&mu, 0, sizeof mu);
        mu.seg_off = seg;
        mu.seg_shift = m * RADIX_BITS;
        const size_t smem = sweep_smem<K, FLOAT>(KPT, VB);
        auto kern = onesweep_kernel<K, FLOAT, VB, KPT, false, MODE_SEGMENTED>;
        if ((s = allow_smem(ctx, (const void *)kern, smem, &SmemOnce<K, FLOAT, VB, 17>::devices)))
            return s;
        const int pdl = gpusort__cuda_pdl(ctx);
        if ((s = launch_sweeps(ctx, kern, smem, st, pdl, pdl, y.L, aux, plan, mask, n, TILE, 0, m,
                               y.L.portions, 0, mu)))
            return s;
        launch_pdl(finish_kernel<K, VB>, finish_blocks(ctx, n), 256, 0, st,
                   pdl, (const Plan *)plan, n);
        return gpusort__cuda_check(ctx, cudaGetLastError(), "radix finish_kernel");
    }
};

/* f(Multi<K, FLOAT, VB>()) for the key and value types of d (multi.c checked them). */
template <typename K, bool FLOAT, typename F> static auto multi_by_values(const gpusort__sort_args *d, F f)
{
    switch (d->value_type) {
    case GPUSORT_TYPE_U32: return f(Multi<K, FLOAT, 4>());
    case GPUSORT_TYPE_U64: return f(Multi<K, FLOAT, 8>());
    default: return f(Multi<K, FLOAT, 0>());
    }
}

template <typename F> static auto multi_by_types(const gpusort__sort_args *d, F f)
{
    switch (d->key_type) {
    case GPUSORT_TYPE_F32: return multi_by_values<uint32_t, true>(d, f);
    case GPUSORT_TYPE_U64:
    case GPUSORT_TYPE_I64: return multi_by_values<uint64_t, false>(d, f);
    case GPUSORT_TYPE_F64: return multi_by_values<uint64_t, true>(d, f);
    default: return multi_by_values<uint32_t, false>(d, f); /* U32, I32 */
    }
}

} // namespace
} // namespace gpusort_cuda

extern "C" gpusort_status gpusort__cuda_radix_sort(gpusort_ctx *ctx, const gpusort__sort_args *d)
{
    using namespace gpusort_cuda;
    switch (d->key_type) {
    case GPUSORT_TYPE_U32:
    case GPUSORT_TYPE_I32: return radix_sort_values<uint32_t, false>(ctx, d);
    case GPUSORT_TYPE_F32: return radix_sort_values<uint32_t, true>(ctx, d);
    case GPUSORT_TYPE_U64:
    case GPUSORT_TYPE_I64: return radix_sort_values<uint64_t, false>(ctx, d);
    case GPUSORT_TYPE_F64: return radix_sort_values<uint64_t, true>(ctx, d);
    default:
        return gpusort__set_error(ctx, GPUSORT_STATUS_INVALID_ARGUMENT, "key type %d",
                                  (int)d->key_type);
    }
}

extern "C" size_t gpusort__cuda_radix_aux_bytes(gpusort_ctx *ctx, const gpusort__sort_args *d)
{
    using namespace gpusort_cuda;
    switch (d->key_type) {
    case GPUSORT_TYPE_U32:
    case GPUSORT_TYPE_I32: return aux_bytes_of_sort<uint32_t, false>(ctx, d);
    case GPUSORT_TYPE_F32: return aux_bytes_of_sort<uint32_t, true>(ctx, d);
    case GPUSORT_TYPE_U64:
    case GPUSORT_TYPE_I64: return aux_bytes_of_sort<uint64_t, false>(ctx, d);
    case GPUSORT_TYPE_F64: return aux_bytes_of_sort<uint64_t, true>(ctx, d);
    default: return 0;
    }
}

extern "C" int gpusort__cuda_radix_multi_ok(gpusort_ctx *ctx, const gpusort__sort_args *d)
{
    return gpusort_cuda::multi_by_types(d, [&](auto m) { return decltype(m)::ok(ctx); });
}

extern "C" gpusort_status gpusort__cuda_radix_multi_hist(gpusort_ctx *ctx, const gpusort__sort_args *d)
{
    return gpusort_cuda::multi_by_types(d, [&](auto m) { return decltype(m)::hist(ctx, d); });
}

extern "C" gpusort_status gpusort__cuda_radix_multi_hist_fetch(gpusort_ctx *ctx,
                                                              const gpusort__sort_args *d,
                                                              uint64_t *hist)
{
    return gpusort_cuda::multi_by_types(d, [&](auto m) { return decltype(m)::hist_fetch(ctx, d, hist); });
}

extern "C" gpusort_status gpusort__cuda_radix_multi_scatter(gpusort_ctx *ctx,
                                                           const gpusort__sort_args *d, int m,
                                                           const uint64_t *bases,
                                                           const gpusort__cuda_multi_dst *dst)
{
    return gpusort_cuda::multi_by_types(
        d, [&](auto mt) { return decltype(mt)::scatter(ctx, d, m, bases, dst); });
}

extern "C" gpusort_status gpusort__cuda_radix_multi_local(gpusort_ctx *ctx,
                                                         const gpusort__sort_args *d, int m)
{
    return gpusort_cuda::multi_by_types(d, [&](auto mt) { return decltype(mt)::local(ctx, d, m); });
}
