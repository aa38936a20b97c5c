/*
 * merge.cu -- stable merge sort on the device (any key type, keys / pairs / argsort), and the
 * segment-aware form that the segmented sort uses for its large segments.
 *
 * Exports (cuda_internal.h):
 *   gpusort__cuda_merge_sort       the whole array = one segment
 *   gpusort__cuda_merge_segments   a list of segments in the same launches
 *   gpusort__cuda_merge_runs       passes only, from sorted runs of width w0, the last pass in
 *                                  ranges of output tiles (host.cu's pipeline copies range j
 *                                  out while range j + 1 merges)
 *   gpusort__cuda_merge_pair       one pass over two runs of any lengths (multi.cu)
 *
 * ALGORITHM (merge_segments). MT = 4096 = the output tile of a merge block.
 *   1. tile phase (k_tile_merge): every W0-key tile of every segment is sorted on chip by one
 *      block, a stable block merge sort: each thread sorts E consecutive radix keys in registers
 *      (a min/max network for bare keys, where stability cannot be observed; odd-even
 *      transposition, which only swaps adjacent keys that are strictly out of order, when a
 *      source slot travels with the key), then log2(threads) rounds merge sorted lists in
 *      shared memory by merge path (ties take the left list). Keys and values go to the first
 *      buffer; argsort values become explicit global positions here.
 *        bare 32-bit keys   1024 threads x 32 = 32768 keys (135 KiB of shared memory)
 *        everything else     512 threads x 16 =  8192 keys (source slots / 8-byte keys)
 *      An on-chip round costs about a third of a device pass (H200, 2^24 u32), so large tiles
 *      pay: 32768-key tiles leave 9 device passes at 2^24 where 4096-key tiles would leave 12.
 *   2. passes with run width w = W0, 2W0, ... while w < the longest segment: runs 2k and 2k+1
 *      of each segment are merged. Merge path (Odeh, Green, Mwassi, Shmueli, Birk 2012; Green,
 *      McColl, Bader 2012 "GPU merge path"): a partition kernel searches, for the first output
 *      of every MT-key output tile, how many of its keys come from run A (a 32-ary warp search
 *      up to 8192 tiles, a one-thread binary search above: see k_merge_partition1); the merge
 *      kernel loads exactly the tile's A and B slices into shared memory (as radix keys), each
 *      of 256 threads finds its own 16-output split by a second merge-path search in shared
 *      memory and merges serially. Every thread produces 16 outputs to the last pass: no thread
 *      idles as the runs grow (the "few big runs" problem of naive merge sort). Ties take A
 *      first, so the sort is stable. Outputs are staged in shared memory and written coalesced;
 *      keys of integer types are rebuilt from their radix keys, float keys and values are
 *      gathered from the source position (the bits are preserved: -0.0, NaN payloads).
 *   Float keys without values that hold no NaN and no -0.0 (float_exact, a check pass for
 *   n >= 2^17) sort as bare radix keys like integers: no source slot in the tile phase, no gather in the passes.
 *   Segments shorter than w are copied through a pass (their B run is empty), so all segments
 *   end in the same buffer; the tile phase writes to the output or to scratch, chosen by the
 *   parity of the pass count, so that the last pass lands in the output.
 * Passes read and write every key once: ceil(log2(n / W0)) passes after the tile phase.
 * Every kernel is templated on what its inner loops test (key and value width, float or integer
 * transform, gather): run-time type switches per key had cost as much as the merge itself.
 * The segment table goes to the device (and the call waits for that copy) only for several
 * segments; one segment (the merge sort) travels in the kernel arguments. Up to 8192 tiles the
 * passes use programmatic dependent launch (pdl.cuh).
 * Measured (H200, bench/results/merge-2026-11-24.md): 2^24 u32 keys 0.72 ms (1.08-1.09x
 * cub::DeviceMergeSort), pairs 1.27-1.28 ms (1.14-1.15x); 2^28 keys 11.92-11.95 ms (1.05x),
 * pairs 22.10-22.13 ms (1.17x).
 *
 * Scratch: KEYS n*K and VALUES n*V (ping-pong), AUX2 the segment tables (several segments) and
 * the partitions (24 bytes per segment + 8 per tile).
 */
#include "block_sort.h"
#include "pdl.cuh"
#include "thread_radix_key.cuh"
#include "thread_sort.cuh"

#include <stdlib.h>
#include <string.h>

using namespace gpusort_bs;

#define MT GPUSORT_CUDA_BLOCK_TILE  /* output tile of a merge block */
#define M_THREADS 256
#define M_ITEMS (MT / M_THREADS)    /* 16 outputs per thread */
#define MPAD(p) ((p) + ((p) >> 3))

#define MT_LOG 12                   /* MT = 1 << MT_LOG */
static_assert(MT == 1 << MT_LOG, "merge tile");
static_assert(MT == 4096, "GPUSORT_CUDA_MERGE_PAIR_PART (cuda_internal.h) counts 4096-key tiles");

struct merge_pass {
    const void *kin;
    void *kout;
    const void *vin;   /* NULL: keys only */
    void *vout;
    uint64_t mask;     /* radix key = transform(bits) ^ mask (thread_radix_key.cuh) */
    const uint64_t *t_lo, *t_hi, *t_start;  /* segment table (device), t_count > 1 */
    uint32_t t_count;
    uint64_t lo0, hi0; /* t_count == 1: the one segment (no table, no host copy to wait for) */
    int plog;          /* a run pair spans 1 << plog output tiles: run width w = MT << (plog-1);
                          0: one pair of runs of any lengths, A = [lo0, lo0 + na0), B the rest */
    uint64_t na0;      /* plog == 0: the length of A */
    uint64_t *part;
    uint64_t tile0;    /* k_merge: block i merges output tile tile0 + i (a range of the pass) */
};

/* Radix key (src/keys.h, compile-time type class) and back. The inverse is exact for integers
 * and for floats other than NaN and -0.0 (float keys that may hold those are gathered from their
 * source position instead: GATHER). */
template <bool FLOAT, typename K> __device__ __forceinline__ K rk_of(K bits, K mask)
{
    return gpusort_cuda::radix_key<FLOAT>(bits, mask);
}
template <bool FLOAT, typename K> __device__ __forceinline__ K bits_of(K rk, K mask)
{
    K r = rk ^ mask;
    if (FLOAT) {
        const K top = (K)1 << (sizeof(K) * 8 - 1);
        r = (r & top) ? r ^ top : (K)0 - r;
    }
    return r;
}

/* Where output tile b of a pass lies. */
struct merge_tile {
    uint64_t lo;      /* segment start */
    uint64_t base;    /* start of the run pair, relative to lo */
    uint64_t na, nb;  /* run lengths */
    uint64_t d;       /* first output of the tile, relative to base */
};

/* Shifts only (run widths are MT times powers of two; a 64-bit division cost ~8 instructions
 * per key in the merge kernel). merge_pair's one pair of any lengths is a branch of its own. */
__device__ __forceinline__ merge_tile find_tile(const merge_pass &p, uint64_t b)
{
    merge_tile t;
    if (p.plog == 0) { /* merge_pair: one segment, one pair */
        t.lo = p.lo0;
        t.base = 0;
        t.na = p.na0;
        t.nb = p.hi0 - p.lo0 - p.na0;
        t.d = b << MT_LOG;
        return t;
    }
    uint64_t len, bl;
    if (p.t_count == 1) {
        t.lo = p.lo0;
        len = p.hi0 - p.lo0;
        bl = b;
    } else {
        uint32_t l = 0, h = p.t_count;
        while (h - l > 1) {
            uint32_t m = (l + h) / 2;
            if (p.t_start[m] <= b) l = m;
            else h = m;
        }
        t.lo = p.t_lo[l];
        len = p.t_hi[l] - t.lo;
        bl = b - p.t_start[l];
    }
    t.base = (bl >> p.plog) << (p.plog + MT_LOG);
    t.d = (bl & ((1ull << p.plog) - 1)) << MT_LOG;
    const uint64_t w = (uint64_t)MT << (p.plog - 1);
    uint64_t rest = len - t.base;
    t.na = rest < w ? rest : w;
    rest -= t.na;
    t.nb = rest < w ? rest : w;
    return t;
}

/* What both partition kernels search for output tile b: runs a and bb, the tile's first output
 * d, and the bounds [lo, hi] of the answer x (the A keys among the first d outputs): for
 * lo <= y < hi, "a[y] <= bb[d-1-y]" (ties take A: stable) holds exactly for y < x. */
template <typename K> struct split_search {
    const K *a, *bb;
    uint64_t d, lo, hi;
};
template <typename K>
__device__ __forceinline__ split_search<K> split_setup(const merge_pass &p, uint64_t b)
{
    const merge_tile t = find_tile(p, b);
    split_search<K> s;
    s.a = (const K *)p.kin + t.lo + t.base;
    s.bb = s.a + t.na;
    s.d = t.d;
    s.lo = t.d > t.nb ? t.d - t.nb : 0;
    s.hi = t.d < t.na ? t.d : t.na;
    return s;
}

/* One warp per output tile: the merge-path split of the tile's first output, found by a 32-ary
 * search (each round the 32 lanes test 32 evenly spaced candidates, one ballot narrows the range
 * 32-fold): about 5 rounds of dependent loads for runs of 2^23 keys instead of 23 for a binary
 * search by one thread. */
template <typename K, bool FLOAT>
__global__ void k_merge_partition(merge_pass p, uint64_t tiles)
{
    const uint64_t b = (blockIdx.x * (uint64_t)blockDim.x + threadIdx.x) >> 5;
    const int lane = threadIdx.x & 31;
    pdl_wait_and_release();
    if (b >= tiles) return;  /* whole warps leave together */
    const split_search<K> sp = split_setup<K>(p, b);
    const K *a = sp.a, *bb = sp.bb;
    const uint64_t d = sp.d;
    const K mask = (K)p.mask;
    uint64_t lo = sp.lo, hi = sp.hi;
    while (lo < hi) {
        const uint64_t s = (hi - lo + 31) / 32;
        const uint64_t y = lo + (lane + 1) * s - 1;
        const bool pr = y < hi && rk_of<FLOAT>(a[y], mask) <= rk_of<FLOAT>(bb[d - 1 - y], mask);
        const uint64_t c = __popc(__ballot_sync(0xffffffffu, pr));
        const uint64_t nlo = lo + c * s, nhi = lo + (c + 1) * s - 1;
        lo = nlo;
        if (nhi < hi) hi = nhi;
    }
    if (lane == 0) p.part[b] = lo;
}

/* The same split by one thread per tile (binary search). Used for many tiles (n > 2^25): the
 * warp search touches 64 sectors per round against 2 here, and with 2^16 tiles (2^28 keys) its
 * DRAM traffic costs more than the latency of 23 dependent rounds, which the number of threads
 * hides (bench/results/merge-2026-11-22b.md). */
template <typename K, bool FLOAT>
__global__ void k_merge_partition1(merge_pass p, uint64_t tiles)
{
    const uint64_t b = blockIdx.x * (uint64_t)blockDim.x + threadIdx.x;
    pdl_wait_and_release();
    if (b >= tiles) return;
    const split_search<K> sp = split_setup<K>(p, b);
    const K *a = sp.a, *bb = sp.bb;
    const uint64_t d = sp.d;
    const K mask = (K)p.mask;
    uint64_t lo = sp.lo, hi = sp.hi;
    while (lo < hi) {
        const uint64_t mid = (lo + hi) / 2;
        if (rk_of<FLOAT>(a[mid], mask) <= rk_of<FLOAT>(bb[d - 1 - mid], mask)) lo = mid + 1;
        else hi = mid;
    }
    p.part[b] = lo;
}

template <int VB> struct tr_val { typedef uint32_t T; };
template <> struct tr_val<8> { typedef uint64_t T; };

/*
 * One block merges one output tile (MT outputs) of a run pair. The A and B slices the partition
 * gave it are loaded coalesced into shared memory as radix keys (padded slots MPAD(p): thread
 * t's merge starts near p = 8t in A and in B on random data; one spare slot per 8 makes that
 * stride 9, prime to the 32 banks); each thread finds its own 16-output split by a merge-path
 * search in shared memory and merges serially with the two heads in registers (one shared load
 * per output: the next key of the side just taken); the outputs (and their source slots, for
 * values and gathered float keys) are staged in shared memory and written coalesced.
 * Templated on everything the inner loops test (key width, value width, float or integer
 * transform, gather): a run-time type switch per key cost about as much as the merge itself.
 * Instruction counts matter here (the pass is issue-bound as much as DRAM-bound): a full tile
 * loads through two per-thread pointers with the A/B choice as a predicate and shared slots as
 * a constant stride from a per-thread base (~10 instructions per key, where a per-key
 * "o < ca ? ka[o] : kb[o - ca]" with MPAD(o) takes ~17); bare keys leave through 16-byte shared
 * and global accesses when the output is 16-byte aligned. Launch bounds: bare 4-byte keys
 * without a gather fit 40 registers, 6 blocks per SM, the fastest shape at 2^28
 * (bench/results/merge-2026-11-24.md).
 */
template <typename K, int VB, bool FLOAT, bool GATHER>
__global__ void __launch_bounds__(M_THREADS, sizeof(K) == 4
                                                 ? (VB == 0 ? (GATHER ? 5 : 6) : VB == 4 ? 4 : 3)
                                                 : (VB == 0 ? 3 : 2))
    k_merge(merge_pass p)
{
    typedef typename tr_val<VB>::T V;
    constexpr bool SRC = VB != 0 || GATHER;
    __shared__ __align__(16) K s_key[MPAD(MT) + 1];  /* + 1: the look-ahead load past the end */
    __shared__ uint16_t s_src[SRC ? MT + MT / 32 : 1];
    pdl_wait_and_release();
    const int tid = threadIdx.x;
    const uint64_t b = p.tile0 + blockIdx.x;
    const merge_tile t = find_tile(p, b);
    const uint64_t tot = t.na + t.nb;
    const uint64_t dend = t.d + MT < tot ? t.d + MT : tot;
    const uint64_t i0 = p.part[b];
    const uint64_t i1 = dend == tot ? t.na : p.part[b + 1];
    const int ca = (int)(i1 - i0), total = (int)(dend - t.d), cb = total - ca;
    const K mask = (K)p.mask;
    const uint64_t ga = t.lo + t.base + i0;                 /* first A key of the tile */
    const uint64_t gb = t.lo + t.base + t.na + (t.d - i0);  /* first B key */
    const K *ka = (const K *)p.kin + ga, *kb = (const K *)p.kin + gb;
    const bool full = total == MT;
    {
        /* All 16 loads in flight before the first use. */
        K kv[M_ITEMS];
        if (full) {
            /* Output slot o = q * M_THREADS + tid is A key o (o < ca) or B key o - ca. */
            const K *pa = ka + tid, *pb = kb - ca + tid;
#pragma unroll
            for (int q = 0; q < M_ITEMS; q++) {
                if (q * M_THREADS + tid < ca) kv[q] = pa[q * M_THREADS];
                else kv[q] = pb[q * M_THREADS];
            }
            const int sb = tid + (tid >> 3);  /* MPAD(o) = sb + q * MPAD(M_THREADS) */
#pragma unroll
            for (int q = 0; q < M_ITEMS; q++)
                s_key[sb + q * MPAD(M_THREADS)] = rk_of<FLOAT>(kv[q], mask);
        } else {
#pragma unroll
            for (int q = 0; q < M_ITEMS; q++) {
                const int o = q * M_THREADS + tid;
                if (o < total) kv[q] = o < ca ? ka[o] : kb[o - ca];
            }
#pragma unroll
            for (int q = 0; q < M_ITEMS; q++) {
                const int o = q * M_THREADS + tid;
                if (o < total) s_key[MPAD(o)] = rk_of<FLOAT>(kv[q], mask);
            }
        }
    }
    __syncthreads();
    /* This thread's outputs: [diag, diag + M_ITEMS) of the tile; A at slots [0, ca), B at
     * [ca, total). */
    const int diag = tid * M_ITEMS < total ? tid * M_ITEMS : total;
    int lo = diag > cb ? diag - cb : 0, hi = diag < ca ? diag : ca;
    while (lo < hi) {
        const int mid = (lo + hi) >> 1;
        if (s_key[MPAD(mid)] <= s_key[MPAD(ca + diag - 1 - mid)]) lo = mid + 1;
        else hi = mid;
    }
    int i = lo, j = ca + diag - lo;
    K av = s_key[MPAD(i)], bv = s_key[MPAD(j)];  /* past-the-end reads are never taken */
    K ok[M_ITEMS];
    uint16_t os[SRC ? M_ITEMS : 1];
#pragma unroll
    for (int q = 0; q < M_ITEMS; q++) {
        const bool take_a = j >= total || (i < ca && av <= bv);
        ok[q] = take_a ? av : bv;
        if constexpr (SRC) os[q] = (uint16_t)(take_a ? i : j);
        const int nx = (take_a ? i : j) + 1;
        const K v = s_key[MPAD(nx)];
        if (take_a) {
            i = nx;
            av = v;
        } else {
            j = nx;
            bv = v;
        }
    }
    __syncthreads();
    const uint64_t out = t.lo + t.base + t.d;
    K *kout = (K *)p.kout + out;
    if constexpr (!SRC) {
        if (full && ((uintptr_t)kout & 15) == 0) {
            /* 16-byte chunks: thread t stages its chunks NC t .. NC t + NC-1 and writes chunks
             * c M_THREADS + t. Chunk ch sits at slot ch + ch / 8: 8 threads (one phase of a
             * 16-byte access) then hit 8 different 16-byte bank groups both ways. */
            constexpr int KPC = 16 / sizeof(K), NC = M_ITEMS / KPC;
            uint4 *s4 = (uint4 *)s_key;
#pragma unroll
            for (int c = 0; c < NC; c++) {
                uint4 v;
                memcpy(&v, &ok[c * KPC], 16);
                const unsigned ch = (unsigned)tid * NC + c;
                s4[ch + (ch >> 3)] = v;
            }
            __syncthreads();
            const int sb = tid + (tid >> 3);
#pragma unroll
            for (int c = 0; c < NC; c++) {
                uint4 v = s4[sb + c * MPAD(M_THREADS)];
                K e[KPC];
                memcpy(e, &v, 16);
#pragma unroll
                for (int x = 0; x < KPC; x++) e[x] = bits_of<FLOAT>(e[x], mask);
                memcpy(&v, e, 16);
                ((uint4 *)kout)[c * M_THREADS + tid] = v;
            }
            return;
        }
    }
#pragma unroll
    for (int q = 0; q < M_ITEMS; q++) {
        const int o = tid * M_ITEMS + q;
        if (full || o < total) {
            s_key[o + (o >> 5)] = ok[q];
            if constexpr (SRC) s_src[o + (o >> 5)] = os[q];
        }
    }
    __syncthreads();
    const V *va = (const V *)p.vin + ga, *vb = (const V *)p.vin + gb;
    K okey[M_ITEMS];
    V oval[VB ? M_ITEMS : 1];
    const int rb = tid + (tid >> 5);  /* o + (o >> 5) = rb + q * (M_THREADS + M_THREADS / 32) */
#pragma unroll
    for (int q = 0; q < M_ITEMS; q++) {
        const int o = q * M_THREADS + tid;
        const int so = rb + q * (M_THREADS + M_THREADS / 32);
        if (full || o < total) {
            int src = 0;
            if constexpr (SRC) src = s_src[so];
            if constexpr (GATHER) okey[q] = src < ca ? ka[src] : kb[src - ca];
            else okey[q] = bits_of<FLOAT>(s_key[so], mask);
            if constexpr (VB != 0) oval[q] = src < ca ? va[src] : vb[src - ca];
        }
    }
#pragma unroll
    for (int q = 0; q < M_ITEMS; q++) {
        const int o = q * M_THREADS + tid;
        if (full || o < total) {
            kout[o] = okey[q];
            if constexpr (VB != 0) ((V *)p.vout)[out + o] = oval[q];
        }
    }
}

/* What the tile phase sorts (tile table t_*) and where it writes. */
struct tile_args {
    const void *kin;
    void *kout;
    const void *vin;  /* NULL with VB != 0: argsort, value = global position */
    void *vout;
    uint64_t mask;    /* thread_radix_key.cuh: sign bit for signed types, ~ for descending */
    const uint64_t *t_lo, *t_hi, *t_start;  /* segment table (device), t_count > 1 */
    uint32_t t_count;
    uint64_t lo0, hi0;  /* t_count == 1: the one segment */
};

/* ---- tile phase: stable block merge sort of W0-key tiles ----
 * Each thread sorts its E consecutive keys in registers (a min/max network for bare keys, where
 * stability is unobservable; stable odd-even transposition when a source slot travels), then
 * log2(threads) rounds merge pairs of sorted lists in shared memory with the same per-thread
 * merge path as k_merge (ties take the left list: stable). Positions past the end of a short
 * tile hold the largest radix key and come after every real key with that key (stability), so
 * the first cnt outputs are the tile. The source slot (position in the tile) travels with the
 * key when values or original float bits must be gathered at the end. Faster at 2^24 u32 than a
 * bitonic block sort or a block LSD radix sort of 4096-key tiles, keys and pairs, with one device
 * pass fewer (bench/results/merge-2026-11-22b.md). */
/* Shape: bare 32-bit keys 1024 threads x 32 keys (32768-key tiles, 135 KiB of shared memory,
 * 64 registers, one block per SM: three device passes fewer than MT tiles, each on-chip round
 * costing ~1/3 of a device pass); otherwise 512 x 16 (8192-key tiles; the source slots and 8-byte
 * keys need the registers and the shared memory). */
template <typename K, bool SLOT> struct tm_e {
    static constexpr bool BIG = sizeof(K) == 4 && !SLOT;
    static constexpr int E = BIG ? 32 : 16;
    static constexpr int THREADS = BIG ? 1024 : 512;
};
#define SPAD(p) ((p) + (int)((unsigned)(p) / E))  /* thread t's E keys at (E+1)t ..: no bank conflicts */

template <typename K, bool SLOT> static size_t tm_smem()
{
    constexpr int E = tm_e<K, SLOT>::E, T = tm_e<K, SLOT>::THREADS * E;
    return (size_t)(SPAD(T) + 1) * sizeof(K) + (SLOT ? (size_t)(SPAD(T) + 1) * 2 : 0);
}

template <typename K, int VB, bool FLOAT, bool GATHER>
__global__ void __launch_bounds__(tm_e<K, VB != 0 || GATHER>::THREADS,
                                  sizeof(K) == 4 && (VB != 0 || GATHER) ? 2 : 1)
    k_tile_merge(tile_args a)
{
    typedef typename tr_val<VB>::T V;
    constexpr bool SLOT = VB != 0 || GATHER;
    constexpr int TM_E = tm_e<K, SLOT>::E, TM_THREADS = tm_e<K, SLOT>::THREADS;
    constexpr int TM_T = TM_THREADS * TM_E, E = TM_E;
    extern __shared__ __align__(16) unsigned char tm_sm[];
    K *s_key = (K *)tm_sm;
    uint16_t *s_slot = (uint16_t *)(tm_sm + (size_t)(SPAD(TM_T) + 1) * sizeof(K));
    pdl_wait_and_release();  /* lets the first pass's partition kernel be scheduled early */
    const int tid = threadIdx.x;
    uint64_t lo;
    int cnt;
    {
        /* Blocks are launched per MT tile; every (TM_T/MT)-th sorts TM_T keys, the others leave. */
        const uint64_t b = blockIdx.x;
        uint64_t bl, slo, shi;
        if (a.t_count == 1) {
            bl = b;
            slo = a.lo0;
            shi = a.hi0;
        } else {
            uint32_t l = 0, h = a.t_count;
            while (h - l > 1) {
                uint32_t m = (l + h) / 2;
                if (a.t_start[m] <= b) l = m;
                else h = m;
            }
            bl = b - a.t_start[l];
            slo = a.t_lo[l];
            shi = a.t_hi[l];
        }
        if (bl & (TM_T / MT - 1)) return;
        lo = slo + bl * (uint64_t)MT;
        const uint64_t e = shi - lo;
        cnt = e < (uint64_t)TM_T ? (int)e : TM_T;
    }
    const K mask = (K)a.mask;
    const K *kin = (const K *)a.kin + lo;
    K r[TM_E];
    uint16_t sl[SLOT ? TM_E : 1];
#pragma unroll
    for (int q = 0; q < TM_E; q++) {
        const int o = q * TM_THREADS + tid;
        r[q] = o < cnt ? kin[o] : (K)0;
    }
#pragma unroll
    for (int q = 0; q < TM_E; q++) {
        const int o = q * TM_THREADS + tid;
        s_key[SPAD(o)] = o < cnt ? rk_of<FLOAT>(r[q], mask) : ~(K)0;
        if constexpr (SLOT) s_slot[SPAD(o)] = (uint16_t)o;
    }
    __syncthreads();
#pragma unroll
    for (int q = 0; q < TM_E; q++) {
        r[q] = s_key[SPAD(tid * TM_E + q)];
        if constexpr (SLOT) sl[q] = s_slot[SPAD(tid * TM_E + q)];
    }
    if constexpr (!SLOT) {
        Item<K, false> it[TM_E];
#pragma unroll
        for (int q = 0; q < TM_E; q++) it[q].k = r[q];
        thread_sort<Item<K, false>, TM_E>(it);
#pragma unroll
        for (int q = 0; q < TM_E; q++) r[q] = it[q].k;
    } else {
        /* Odd-even transposition: only adjacent keys swap, and only when strictly out of order. */
#pragma unroll
        for (int round = 0; round < TM_E; round++)
#pragma unroll
            for (int q = round & 1; q + 1 < TM_E; q += 2) {
                const bool sw = r[q + 1] < r[q];
                const K k0 = r[q], k1 = r[q + 1];
                const uint16_t s0 = sl[q], s1 = sl[q + 1];
                r[q] = sw ? k1 : k0;
                r[q + 1] = sw ? k0 : k1;
                sl[q] = sw ? s1 : s0;
                sl[q + 1] = sw ? s0 : s1;
            }
    }
#pragma unroll
    for (int q = 0; q < TM_E; q++) {
        s_key[SPAD(tid * TM_E + q)] = r[q];
        if constexpr (SLOT) s_slot[SPAD(tid * TM_E + q)] = sl[q];
    }
    __syncthreads();
#pragma unroll 1
    for (int L = TM_E; L < TM_T; L *= 2) {
        const int d0 = tid * TM_E;
        const int A = d0 & ~(2 * L - 1), B = A + L, diag = d0 - A;
        int l0 = diag > L ? diag - L : 0, h0 = diag < L ? diag : L;
        while (l0 < h0) {
            const int mid = (l0 + h0) >> 1;
            if (s_key[SPAD(A + mid)] <= s_key[SPAD(B + diag - 1 - mid)]) l0 = mid + 1;
            else h0 = mid;
        }
        int i = A + l0, j = B + diag - l0;
        const int jend = B + L;
        K av = s_key[SPAD(i)], bv = s_key[SPAD(j)];
#pragma unroll
        for (int q = 0; q < TM_E; q++) {
            const bool take_a = j >= jend || (i < B && av <= bv);
            r[q] = take_a ? av : bv;
            const int src = take_a ? i : j;
            if constexpr (SLOT) sl[q] = s_slot[SPAD(src)];
            const K v = s_key[SPAD(src + 1)];
            if (take_a) {
                i = src + 1;
                av = v;
            } else {
                j = src + 1;
                bv = v;
            }
        }
        __syncthreads();
#pragma unroll
        for (int q = 0; q < TM_E; q++) {
            s_key[SPAD(d0 + q)] = r[q];
            if constexpr (SLOT) s_slot[SPAD(d0 + q)] = sl[q];
        }
        __syncthreads();
    }
    K *okey = r; /* the registers are free again */
    V oval[VB ? TM_E : 1];
    const V *vin = (const V *)a.vin;
#pragma unroll
    for (int q = 0; q < TM_E; q++) {
        const int o = q * TM_THREADS + tid;
        if (o < cnt) {
            int src = 0;
            if constexpr (SLOT) src = s_slot[SPAD(o)];
            if constexpr (GATHER) okey[q] = kin[src];
            else okey[q] = bits_of<FLOAT>(s_key[SPAD(o)], mask);
            if constexpr (VB != 0) oval[q] = vin ? vin[lo + src] : (V)(lo + src);
        }
    }
    if constexpr (SLOT) __syncthreads(); /* in place: every gather is done before any store */
    K *kout = (K *)a.kout + lo;
#pragma unroll
    for (int q = 0; q < TM_E; q++) {
        const int o = q * TM_THREADS + tid;
        if (o < cnt) {
            kout[o] = okey[q];
            if constexpr (VB != 0) ((V *)a.vout)[lo + o] = oval[q];
        }
    }
}

template <typename K, int VB, bool FLOAT, bool GATHER>
static gpusort_status tm_launch(gpusort_ctx *ctx, const tile_args &a, uint64_t tiles)
{
    const size_t sm = tm_smem<K, VB != 0 || GATHER>();
    void (*kern)(tile_args) = k_tile_merge<K, VB, FLOAT, GATHER>;
    if (sm > 48 * 1024) {
        gpusort_status s = gpusort__cuda_smem_check(ctx, sm, "the merge sort's tile");
        if (s) return s;
        s = gpusort__cuda_check(
            ctx, cudaFuncSetAttribute(kern, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)sm),
            "cudaFuncSetAttribute (merge tiles)");
        if (s) return s;
    }
    kern<<<(unsigned)tiles, tm_e<K, VB != 0 || GATHER>::THREADS, sm, gpusort__cuda_stream(ctx)>>>(a);
    return gpusort__cuda_check(ctx, cudaGetLastError(), "merge tile kernel");
}

template <typename K, int VB>
static gpusort_status tm_launch_f(gpusort_ctx *ctx, const tile_args &a, uint64_t tiles, bool flt,
                                  bool gather)
{
    if (!flt) return tm_launch<K, VB, false, false>(ctx, a, tiles);
    return gather ? tm_launch<K, VB, true, true>(ctx, a, tiles)
                  : tm_launch<K, VB, true, false>(ctx, a, tiles);
}

/* Sort every W0-key tile (tiles = the count of MT tiles in the table), original keys and values
 * to kout/vout. */
static gpusort_status tile_sort(gpusort_ctx *ctx, const tile_args &a, uint64_t tiles, int ks,
                                int vs, bool flt, bool gather)
{
    if (tiles == 0) return GPUSORT_STATUS_SUCCESS;
    if (ks == 8) {
        if (vs == 8) return tm_launch_f<uint64_t, 8>(ctx, a, tiles, flt, gather);
        if (vs == 4) return tm_launch_f<uint64_t, 4>(ctx, a, tiles, flt, gather);
        return tm_launch_f<uint64_t, 0>(ctx, a, tiles, flt, gather);
    }
    if (vs == 8) return tm_launch_f<uint32_t, 8>(ctx, a, tiles, flt, gather);
    if (vs == 4) return tm_launch_f<uint32_t, 4>(ctx, a, tiles, flt, gather);
    return tm_launch_f<uint32_t, 0>(ctx, a, tiles, flt, gather);
}

static unsigned blocks_for(uint64_t work, unsigned threads)
{
    return (unsigned)((work + threads - 1) / threads);
}

/* One pass: the partition of all `tiles` output tiles (when part), then the merge of output
 * tiles [t0, t1). A whole pass is (part, 0, tiles); merge_runs' last pass runs in ranges. */
template <typename K, int VB, bool FLOAT, bool GATHER>
static gpusort_status run_pass_t(gpusort_ctx *ctx, merge_pass p, uint64_t tiles, bool part,
                                 uint64_t t0, uint64_t t1)
{
    cudaStream_t st = gpusort__cuda_stream(ctx);
    /* Up to 8192 tiles (2^25 keys) the warp partition search is the faster one; above, the
     * thread search (see k_merge_partition1; bench/results/merge-2026-11-22b.md). */
    /* Programmatic dependent launch (pdl.cuh) up to 8192 tiles: it gains ~1.5% at 2^24 and
     * costs 1% at 2^28, where the next kernel's blocks wait on the SMs during a long tail
     * (bench/results/seeds-2026-11-22c.md). Not for a range of a pass: an event recorded
     * between two kernels must see the first one complete (merge_runs), so ranges keep plain
     * stream order. */
    const int pdl = tiles <= 8192 && t0 == 0 && t1 == tiles;
    if (part && tiles <= 8192)
        launch_pdl(k_merge_partition<K, FLOAT>, blocks_for(tiles * 32, 256), 256, 0, st, pdl, p,
                   tiles);
    else if (part)
        launch_pdl(k_merge_partition1<K, FLOAT>, blocks_for(tiles, 256), 256, 0, st, pdl, p,
                   tiles);
    p.tile0 = t0;
    if (t1 > t0)
        launch_pdl(k_merge<K, VB, FLOAT, GATHER>, (unsigned)(t1 - t0), M_THREADS, 0, st, pdl, p);
    return gpusort__cuda_check(ctx, cudaGetLastError(), "merge kernels");
}

template <typename K, int VB>
static gpusort_status run_pass_v(gpusort_ctx *ctx, const merge_pass &p, uint64_t tiles,
                                 bool flt, bool gather, bool part, uint64_t t0, uint64_t t1)
{
    if (!flt) return run_pass_t<K, VB, false, false>(ctx, p, tiles, part, t0, t1);
    return gather ? run_pass_t<K, VB, true, true>(ctx, p, tiles, part, t0, t1)
                  : run_pass_t<K, VB, true, false>(ctx, p, tiles, part, t0, t1);
}

static gpusort_status run_pass(gpusort_ctx *ctx, const merge_pass &p, uint64_t tiles, int ks,
                               int vs, bool flt, bool gather, bool part = true, uint64_t t0 = 0,
                               uint64_t t1 = ~0ull)
{
    if (t1 > tiles) t1 = tiles;
    if (ks == 8) {
        if (vs == 8) return run_pass_v<uint64_t, 8>(ctx, p, tiles, flt, gather, part, t0, t1);
        if (vs == 4) return run_pass_v<uint64_t, 4>(ctx, p, tiles, flt, gather, part, t0, t1);
        return run_pass_v<uint64_t, 0>(ctx, p, tiles, flt, gather, part, t0, t1);
    }
    if (vs == 8) return run_pass_v<uint32_t, 8>(ctx, p, tiles, flt, gather, part, t0, t1);
    if (vs == 4) return run_pass_v<uint32_t, 4>(ctx, p, tiles, flt, gather, part, t0, t1);
    return run_pass_v<uint32_t, 0>(ctx, p, tiles, flt, gather, part, t0, t1);
}

gpusort_status gpusort__cuda_merge_segments(gpusort_ctx *ctx, const gpusort__sort_args *d,
                                            const uint64_t *lo, const uint64_t *hi, size_t count,
                                            int float_exact)
{
    if (count == 0) return GPUSORT_STATUS_SUCCESS;
    if (count >= 0xffffffffull)
        return gpusort__set_error(ctx, GPUSORT_STATUS_UNSUPPORTED, "too many segments");
    cudaStream_t st = gpusort__cuda_stream(ctx);
    gpusort_status s;
    const size_t ks = gpusort_type_size(d->key_type);
    const size_t vs = d->value_type == GPUSORT_TYPE_NONE ? 0 : gpusort_type_size(d->value_type);
    /* Host tables: segment bounds and first tile of each. */
    uint64_t *tab = (uint64_t *)malloc(3 * (count + 1) * sizeof(uint64_t));
    if (!tab) return gpusort__set_error(ctx, GPUSORT_STATUS_OUT_OF_HOST_MEMORY, "merge tables");
    uint64_t tiles = 0, maxlen = 0;
    for (size_t i = 0; i < count; i++) {
        uint64_t len = hi[i] - lo[i];
        tab[i] = lo[i];
        tab[count + 1 + i] = hi[i];
        tab[2 * (count + 1) + i] = tiles;
        tiles += (len + MT - 1) / MT;
        if (len > maxlen) maxlen = len;
    }
    tab[count] = tab[count + 1 + count] = 0;
    tab[2 * (count + 1) + count] = tiles;
    /* Runs after the tile phase (k_tile_merge's shapes). */
    const bool is_float = d->key_type == GPUSORT_TYPE_F32 || d->key_type == GPUSORT_TYPE_F64;
    const bool gather = is_float && !float_exact;  /* keys rebuilt from source slots */
    const bool slot = vs != 0 || gather;
    const uint64_t w0 = ks == 4 && !slot ? 32768 : 8192;
    static_assert(tm_e<uint32_t, false>::E * tm_e<uint32_t, false>::THREADS == 32768 &&
                      tm_e<uint32_t, true>::E * tm_e<uint32_t, true>::THREADS == 8192 &&
                      tm_e<uint64_t, false>::E * tm_e<uint64_t, false>::THREADS == 8192,
                  "w0 above follows tm_e");
    int passes = 0;
    for (uint64_t w = w0; w < maxlen; w *= 2) passes++;

    size_t tab_bytes = 3 * (count + 1) * sizeof(uint64_t);
    char *aux = (char *)gpusort__cuda_scratch(ctx, GPUSORT_CUDA_SCRATCH_AUX2,
                                              tab_bytes + (tiles + 1) * sizeof(uint64_t));
    void *sk = passes ? gpusort__cuda_scratch(ctx, GPUSORT_CUDA_SCRATCH_KEYS, d->n * ks) : NULL;
    void *sv = passes && vs ? gpusort__cuda_scratch(ctx, GPUSORT_CUDA_SCRATCH_VALUES, d->n * vs)
                            : NULL;
    if (!aux || (passes && !sk) || (passes && vs && !sv)) {
        free(tab);
        return GPUSORT_STATUS_OUT_OF_DEVICE_MEMORY;
    }
    /* One segment (the merge sort) travels in the kernel arguments: no table copy and no wait
     * for it. */
    s = GPUSORT_STATUS_SUCCESS;
    if (count > 1) {
        s = gpusort__cuda_check(ctx, cudaMemcpyAsync(aux, tab, tab_bytes, cudaMemcpyHostToDevice, st),
                                "cudaMemcpyAsync (merge tables)");
        /* A pageable source is staged before cudaMemcpyAsync returns; still, wait before
         * freeing it so that a pinned-looking allocation can never be read late. */
        if (!s) s = gpusort__cuda_check(ctx, cudaStreamSynchronize(st), "cudaStreamSynchronize");
    }
    free(tab);
    if (s) return s;
    const uint64_t *t_lo = (const uint64_t *)aux;
    const uint64_t *t_hi = t_lo + count + 1;
    const uint64_t *t_start = t_hi + count + 1;
    uint64_t *part = (uint64_t *)(aux + tab_bytes);

    /* Buffers: X[0] = output, X[1] = scratch; the tile phase writes X[passes & 1]. */
    void *bk[2] = {d->keys_out, sk};
    void *bv[2] = {vs ? d->values_out : NULL, sv};
    int cur = passes & 1;

    {
        tile_args a;
        a.kin = d->keys_in;
        a.kout = bk[cur];
        a.vin = d->values_in;
        a.vout = bv[cur];
        a.mask = gpusort_cuda::radix_mask(d->key_type, d->order);
        a.t_lo = t_lo;
        a.t_hi = t_hi;
        a.t_start = t_start;
        a.t_count = (uint32_t)count;
        a.lo0 = lo[0];
        a.hi0 = hi[0];
        if ((s = tile_sort(ctx, a, tiles, (int)ks, (int)vs, is_float, gather))) return s;
    }

    merge_pass p;
    memset(&p, 0, sizeof p);
    p.mask = gpusort_cuda::radix_mask(d->key_type, d->order);
    p.t_lo = t_lo;
    p.t_hi = t_hi;
    p.t_start = t_start;
    p.t_count = (uint32_t)count;
    p.lo0 = lo[0];
    p.hi0 = hi[0];
    p.part = part;
    if (tiles > 0x7fffffffull)
        return gpusort__set_error(ctx, GPUSORT_STATUS_UNSUPPORTED, "too many merge tiles");
    p.plog = 1;
    for (uint64_t w = MT; w < w0; w *= 2) p.plog++;
    for (uint64_t w = w0; w < maxlen; w *= 2, p.plog++) {
        p.kin = bk[cur];
        p.vin = bv[cur];
        p.kout = bk[cur ^ 1];
        p.vout = bv[cur ^ 1];
        if ((s = run_pass(ctx, p, tiles, (int)ks, (int)vs, is_float, gather))) return s;
        cur ^= 1;
    }
    return GPUSORT_STATUS_SUCCESS;
}

/* ---- float keys without NaN and -0.0 ----
 * 1 when d is a keys-only float sort of at least FLOAT_CHECK_MIN keys that holds no NaN and no
 * -0.0 (checked on the device; the call waits for the answer). Such keys sort as bare radix
 * keys, without the source slot that stability otherwise needs. 0 otherwise (also on any error,
 * which then just costs the faster path). Below FLOAT_CHECK_MIN keys the check's launch and
 * wait cost more than the slots. */
#define FLOAT_CHECK_MIN ((size_t)1 << 17)

__global__ void k_float_special(const void *keys, uint64_t n, int wide, unsigned *flag)
{
    bool found = false;
    for (uint64_t i = blockIdx.x * (uint64_t)blockDim.x + threadIdx.x; i < n;
         i += (uint64_t)gridDim.x * blockDim.x) {
        if (wide) {
            uint64_t b = ((const uint64_t *)keys)[i];
            found |= b == 0x8000000000000000ull || (b & 0x7fffffffffffffffull) > 0x7ff0000000000000ull;
        } else {
            uint32_t b = ((const uint32_t *)keys)[i];
            found |= b == 0x80000000u || (b & 0x7fffffffu) > 0x7f800000u;
        }
    }
    if (__syncthreads_or(found) && threadIdx.x == 0) atomicOr(flag, 1u);
}

static int float_exact(gpusort_ctx *ctx, const gpusort__sort_args *d)
{
    if ((d->key_type != GPUSORT_TYPE_F32 && d->key_type != GPUSORT_TYPE_F64) ||
        d->value_type != GPUSORT_TYPE_NONE || d->n < FLOAT_CHECK_MIN)
        return 0;
    cudaStream_t st = gpusort__cuda_stream(ctx);
    unsigned *flag = (unsigned *)gpusort__cuda_scratch(ctx, GPUSORT_CUDA_SCRATCH_AUX2, 4);
    unsigned h = 1;
    if (!flag || cudaMemsetAsync(flag, 0, 4, st) != cudaSuccess) return 0;
    unsigned blocks = (unsigned)(2 * gpusort__cuda_props(ctx)->multiProcessorCount * 4);
    k_float_special<<<blocks, 256, 0, st>>>(d->keys_in, d->n, d->key_type == GPUSORT_TYPE_F64,
                                            flag);
    if (cudaMemcpyAsync(&h, flag, 4, cudaMemcpyDeviceToHost, st) != cudaSuccess ||
        cudaStreamSynchronize(st) != cudaSuccess) {
        (void)cudaGetLastError();
        ctx->last_error[0] = 0;
        return 0;
    }
    return h == 0;
}

extern "C" gpusort_status gpusort__cuda_merge_sort(gpusort_ctx *ctx, const gpusort__sort_args *d)
{
    uint64_t lo = 0, hi = d->n;
    return gpusort__cuda_merge_segments(ctx, d, &lo, &hi, 1, float_exact(ctx, d));
}

/* A pass over the one segment [0, d->n) (the table travels in the kernel arguments), with the
 * partition table part; buffers and run widths are the caller's. */
static merge_pass one_segment(const gpusort__sort_args *d, uint64_t *part)
{
    merge_pass p;
    memset(&p, 0, sizeof p);
    p.mask = gpusort_cuda::radix_mask(d->key_type, d->order);
    p.t_count = 1;
    p.lo0 = 0;
    p.hi0 = d->n;
    p.part = part;
    return p;
}

/* Merge sorted runs of w0 keys (the host pipeline of host.cu: chunks sorted one by one).
 * The passes of merge_segments without its tile phase, for one segment [0, n); the last pass
 * is launched in `ranges` ranges of output tiles, each followed by an event. */
gpusort_status gpusort__cuda_merge_runs(gpusort_ctx *ctx, const gpusort__sort_args *d, uint64_t w0,
                                        void *keys_alt, void *values_alt,
                                        const cudaEvent_t *range_done, uint64_t *range_end,
                                        int ranges, int *result_alt)
{
    const uint64_t n = d->n;
    const size_t ks = gpusort_type_size(d->key_type);
    const size_t vs = d->value_type == GPUSORT_TYPE_NONE ? 0 : gpusort_type_size(d->value_type);
    if (w0 < MT || (w0 & (w0 - 1)) || n <= w0 || ranges < 1)
        return gpusort__set_error(ctx, GPUSORT_STATUS_INVALID_ARGUMENT,
                                  "merge_runs: w0 = 4096 * 2^k < n, ranges >= 1");
    const uint64_t tiles = (n + MT - 1) / MT;
    if (tiles > 0x7fffffffull)
        return gpusort__set_error(ctx, GPUSORT_STATUS_UNSUPPORTED, "too many merge tiles");
    uint64_t *part = (uint64_t *)gpusort__cuda_scratch(ctx, GPUSORT_CUDA_SCRATCH_AUX2,
                                                       (tiles + 1) * sizeof(uint64_t));
    if (!part) return GPUSORT_STATUS_OUT_OF_DEVICE_MEMORY;
    const bool is_float = d->key_type == GPUSORT_TYPE_F32 || d->key_type == GPUSORT_TYPE_F64;
    cudaStream_t st = gpusort__cuda_stream(ctx);
    merge_pass p = one_segment(d, part);
    p.plog = 1;
    for (uint64_t w = MT; w < w0; w *= 2) p.plog++;
    void *bk[2] = {d->keys_out, keys_alt};
    void *bv[2] = {vs ? d->values_out : NULL, vs ? values_alt : NULL};
    int cur = 0;
    gpusort_status s;
    for (uint64_t w = w0; w < n; w *= 2, p.plog++) {
        p.kin = bk[cur];
        p.vin = bv[cur];
        p.kout = bk[cur ^ 1];
        p.vout = bv[cur ^ 1];
        if (w * 2 < n) { /* not the last pass */
            if ((s = run_pass(ctx, p, tiles, (int)ks, (int)vs, is_float, is_float))) return s;
        } else {
            for (int j = 0; j < ranges; j++) {
                const uint64_t t0 = tiles * j / ranges, t1 = tiles * (j + 1) / ranges;
                if ((s = run_pass(ctx, p, tiles, (int)ks, (int)vs, is_float, is_float, j == 0, t0,
                                  t1)))
                    return s;
                range_end[j] = t1 * MT < n ? t1 * MT : n;
                if ((s = gpusort__cuda_check(ctx, cudaEventRecord(range_done[j], st),
                                             "cudaEventRecord (merge range)")))
                    return s;
            }
        }
        cur ^= 1;
    }
    *result_alt = cur;
    return GPUSORT_STATUS_SUCCESS;
}

/* Merge two sorted runs of any lengths (gpusort_multi_sort's received slices, multi.cu): one
 * pass of the kernels above with the pair given by its lengths instead of a power-of-two width
 * (merge_pass.plog = 0). Float keys are gathered from their source slots (the runs may hold NaN
 * and -0.0, and a check pass would cost as much as the merge). */
gpusort_status gpusort__cuda_merge_pair(gpusort_ctx *ctx, const gpusort__sort_args *d, uint64_t na,
                                        uint64_t *part)
{
    const uint64_t n = d->n;
    const size_t ks = gpusort_type_size(d->key_type);
    const size_t vs = d->value_type == GPUSORT_TYPE_NONE ? 0 : gpusort_type_size(d->value_type);
    if (na > n)
        return gpusort__set_error(ctx, GPUSORT_STATUS_INVALID_ARGUMENT,
                                  "merge_pair: run A longer than the whole");
    if (n == 0) return GPUSORT_STATUS_SUCCESS;
    const uint64_t tiles = (n + MT - 1) / MT;
    if (tiles > 0x7fffffffull)
        return gpusort__set_error(ctx, GPUSORT_STATUS_UNSUPPORTED, "too many merge tiles");
    const bool is_float = d->key_type == GPUSORT_TYPE_F32 || d->key_type == GPUSORT_TYPE_F64;
    merge_pass p = one_segment(d, part);
    p.kin = d->keys_in;
    p.kout = d->keys_out;
    p.vin = vs ? d->values_in : NULL;
    p.vout = vs ? d->values_out : NULL;
    p.na0 = na;
    p.plog = 0;
    return run_pass(ctx, p, tiles, (int)ks, (int)vs, is_float, is_float);
}
