/*
 * topk.cu -- top-k on the GPU by radix select: gpusort__cuda_topk.
 *
 * The same three steps as the CPU backend's src/cpu/topk.c, each a few kernels on the
 * context's stream with no host round trip:
 *
 *   1. SELECT the k-th radix key T (keys.h: the gpusort order as unsigned integers, descending
 *      = the complement), 11 bits per pass from the top: tk_histogram counts the next digit of
 *      the keys whose resolved high bits equal the prefix so far (a shared-memory histogram per
 *      block, added to a global one); tk_choose (one block) scans the 2048 bins, extends the
 *      prefix by the digit where the count reaches `need`, takes the keys below it off `need`,
 *      zeroes the histogram, and marks the selection done when every key with the prefix is
 *      needed. Later passes of a done selection return at once. This is the selection of AIR
 *      top-k (Zhang et al., SC'23) and of CUB's DeviceTopK.
 *   2. COLLECT in input order: tk_count gives each tile of TILE keys its numbers of keys below
 *      T's prefix and equal to it, tk_scan (one block) turns them into the tile's first output
 *      position and its first rank among the equal keys, and tk_collect writes each tile's
 *      keys below the prefix and those equal keys whose rank is below `need` (the lowest
 *      indices), in order, with their indices.
 *   3. SORT the k collected (key, index) pairs with the backend's stable sort (AUTO), so ties
 *      stay lowest index first; u32 indices are narrowed last.
 *
 * CANDIDATES. After the first pass the chosen bucket usually holds a small share of the row
 * (1/2048 of uniform keys). When it holds at most 1/16 (mode 0, rows of 2^18 keys and more),
 * one count + collect over the row with the 11-bit prefix writes the keys below the bucket (all
 * taken) and the bucket's keys with their positions (the candidates), and the remaining passes,
 * the count and the collect read only the candidates: 3 reads of the row instead of one per
 * digit + 2 (5 for 32-bit keys, 8 for 64-bit). A skewed row (few distinct values, all equal)
 * takes mode 1: every pass on the whole row. Both paths are enqueued; tk_mode picks on the
 * device and the other path's kernels return at once.
 *
 * Batches of rows shorter than SELECT_MIN_ROW are sorted whole instead (the segmented sort,
 * keys with indices) and each row's first k gathered: a select per row would cost ~10 launches
 * a row. Longer rows run the select one row after another. Host data is copied to the device
 * and the results back; below HOST_MIN_KEYS keys, or with more rows than
 * HOST_MAX_ROWS, host data goes to the CPU backend's top-k instead (launches would dominate).
 */
#include "cuda_internal.h"
#include "cpu/cpu.h"
#include "keys.h"

#include <cuda_runtime.h>

namespace {

constexpr int DIGIT = 11;
constexpr int BINS = 1 << DIGIT;
constexpr int THREADS = 256;
constexpr int ITEMS = 16;
constexpr int TILE = THREADS * ITEMS;
constexpr size_t HOST_MIN_KEYS = (size_t)1 << 20;
constexpr size_t HOST_MAX_ROWS = 64;

/* The selection's state on the device. */
struct tk_state {
    unsigned long long prefix;   /* the resolved high bits of T */
    unsigned long long need;     /* keys still wanted among those with this prefix */
    unsigned long long bucket;   /* keys in the bucket the last choice took */
    unsigned long long cand_n;   /* mode 0: candidates (the first pass's bucket) */
    unsigned long long sure;     /* mode 0: keys below the first pass's bucket (all taken) */
    int bits;                    /* how many high bits are resolved */
    int done;                    /* resolved, or every key with the prefix is needed */
    int mode;                    /* after the first pass: 0 candidates, 1 the whole row */
};

/* What a kernel reads: the row (ids NULL: a key's id is its position, n given), or the
 * candidates (ids: their positions in the row, n = st->cand_n). */
template <typename U> struct tk_src {
    const U *keys;
    const unsigned long long *ids;
    size_t n;
    int cand;
};

/* Kernels of one path return at once when the state chose the other (gate: the mode they
 * serve, -1 both), so both paths are enqueued and the device picks, with no host round trip. */
__device__ __forceinline__ bool gated_off(const tk_state *st, int gate)
{
    return gate >= 0 && st->mode != gate;
}

template <typename U>
__device__ __forceinline__ size_t src_n(const tk_src<U> &src, const tk_state *st)
{
    return src.cand ? (size_t)st->cand_n : src.n;
}

template <typename U> struct tk_key;
template <> struct tk_key<uint32_t> {
    static constexpr int W = 32;
    static __device__ __forceinline__ uint64_t radix(uint32_t b, int type, int desc)
    {
        return gpusort__radix32(b, type, desc);
    }
};
template <> struct tk_key<unsigned long long> {
    static constexpr int W = 64;
    static __device__ __forceinline__ uint64_t radix(unsigned long long b, int type, int desc)
    {
        return gpusort__radix64(b, type, desc);
    }
};

/* The resolved high bits of radix key r (all of r once every bit is resolved). */
template <int W> __device__ __forceinline__ uint64_t high_bits(uint64_t r, int bits)
{
    return bits >= W ? r : (bits == 0 ? 0 : r >> (W - bits));
}

template <typename U>
__global__ void tk_histogram(tk_src<U> src, int type, int desc, const tk_state *st, int gate,
                             unsigned long long *hist)
{
    constexpr int W = tk_key<U>::W;
    __shared__ unsigned int sh[BINS];
    if (st->done || gated_off(st, gate)) return;
    const size_t n = src_n(src, st);
    const int bits = st->bits;
    const uint64_t prefix = st->prefix;
    const int db = W - bits < DIGIT ? W - bits : DIGIT, shift = W - bits - db;
    const uint64_t mask = ((uint64_t)1 << db) - 1;
    for (int b = threadIdx.x; b < BINS; b += blockDim.x) sh[b] = 0;
    __syncthreads();
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n;
         i += (size_t)gridDim.x * blockDim.x) {
        uint64_t r = tk_key<U>::radix(src.keys[i], type, desc);
        if (high_bits<W>(r, bits) == prefix) atomicAdd(&sh[(r >> shift) & mask], 1u);
    }
    __syncthreads();
    for (int b = threadIdx.x; b < BINS; b += blockDim.x)
        if (sh[b]) atomicAdd(&hist[b], (unsigned long long)sh[b]);
}

/* A fresh selection: nothing resolved, k keys needed, the histogram zero. */
__global__ void tk_init(tk_state *st, size_t k, unsigned long long *hist)
{
    if (threadIdx.x == 0) *st = tk_state{0, (unsigned long long)k, 0, 0, 0, 0, 0, 0};
    for (int b = threadIdx.x; b < BINS; b += blockDim.x) hist[b] = 0;
}

/* One block of BINS / 2 threads: find the digit where the running count reaches need. */
template <int W> __global__ void tk_choose(unsigned long long *hist, tk_state *st, int gate)
{
    __shared__ unsigned long long scan[BINS / 2];
    if (st->done || gated_off(st, gate)) return;
    const int t = threadIdx.x;
    const unsigned long long h0 = hist[2 * t], h1 = hist[2 * t + 1];
    scan[t] = h0 + h1;
    __syncthreads();
    for (int off = 1; off < BINS / 2; off *= 2) {   /* inclusive scan (Hillis-Steele) */
        unsigned long long v = t >= off ? scan[t - off] : 0;
        __syncthreads();
        scan[t] += v;
        __syncthreads();
    }
    const unsigned long long incl = scan[t], excl = incl - h0 - h1, need = st->need;
    __syncthreads();
    if (excl < need && need <= incl) {
        const int bits = st->bits, db = W - bits < DIGIT ? W - bits : DIGIT;
        const int d = need <= excl + h0 ? 2 * t : 2 * t + 1;
        const unsigned long long below = d == 2 * t ? excl : excl + h0, count = d == 2 * t ? h0 : h1;
        st->need = need - below;
        st->bucket = count;
        st->prefix = st->prefix << db | (unsigned long long)d;
        st->bits = bits + db;
        st->done = count == need - below || bits + db >= W;
    }
    hist[2 * t] = 0;
    hist[2 * t + 1] = 0;
}

/* After the first pass: candidates (mode 0) when the chosen bucket fits the candidate buffer,
 * else the whole row again for every digit (mode 1). */
__global__ void tk_mode(tk_state *st, unsigned long long k, unsigned long long cap)
{
    st->mode = st->bucket <= cap ? 0 : 1;
    st->cand_n = st->bucket;
    st->sure = k - st->need;
}

/* Exclusive block scan of one value per thread (THREADS threads); *total gets the sum. */
__device__ __forceinline__ unsigned int block_scan(unsigned int v, unsigned int *total)
{
    __shared__ unsigned int warp_sums[THREADS / 32];
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    unsigned int x = v;
    for (int off = 1; off < 32; off *= 2) {
        unsigned int y = __shfl_up_sync(0xffffffffu, x, off);
        if (lane >= off) x += y;
    }
    if (lane == 31) warp_sums[warp] = x;
    __syncthreads();
    if (warp == 0) {
        unsigned int w = lane < THREADS / 32 ? warp_sums[lane] : 0;
        for (int off = 1; off < 32; off *= 2) {
            unsigned int y = __shfl_up_sync(0xffffffffu, w, off);
            if (lane >= off) w += y;
        }
        if (lane < THREADS / 32) warp_sums[lane] = w;
    }
    __syncthreads();
    unsigned int before = (warp ? warp_sums[warp - 1] : 0) + x - v;
    *total = warp_sums[THREADS / 32 - 1];
    __syncthreads();
    return before;
}

/* Per tile: keys whose resolved prefix is below T's (less) and equal to it (eq). */
template <typename U>
__global__ void tk_count(tk_src<U> src, int type, int desc, const tk_state *st, int gate,
                         unsigned int *tile_less, unsigned int *tile_eq)
{
    constexpr int W = tk_key<U>::W;
    if (gated_off(st, gate)) return;
    const size_t n = src_n(src, st);
    const int bits = st->bits;
    const uint64_t prefix = st->prefix;
    const size_t base = (size_t)blockIdx.x * TILE;
    unsigned int less = 0, eq = 0, total;
    for (int j = 0; j < ITEMS; j++) {
        size_t i = base + (size_t)j * THREADS + threadIdx.x;
        if (i >= n) break;
        uint64_t p = high_bits<W>(tk_key<U>::radix(src.keys[i], type, desc), bits);
        less += p < prefix;
        eq += p == prefix;
    }
    block_scan(less, &total);
    if (threadIdx.x == 0) tile_less[blockIdx.x] = total;
    block_scan(eq, &total);
    if (threadIdx.x == 0) tile_eq[blockIdx.x] = total;
}

/* One block: exclusive prefix sums of the tiles' counts, as 64-bit sums. */
__global__ void tk_scan(const unsigned int *tile_less, const unsigned int *tile_eq, size_t tiles,
                        const tk_state *st, int gate, unsigned long long *less_before,
                        unsigned long long *eq_before)
{
    __shared__ unsigned long long sl[1024], se[1024];
    if (gated_off(st, gate)) return;
    const size_t per = (tiles + blockDim.x - 1) / blockDim.x;
    const size_t lo = threadIdx.x * per, hi = lo + per < tiles ? lo + per : tiles;
    unsigned long long l = 0, e = 0;
    for (size_t i = lo; i < hi; i++) { l += tile_less[i]; e += tile_eq[i]; }
    sl[threadIdx.x] = l;
    se[threadIdx.x] = e;
    __syncthreads();
    for (unsigned off = 1; off < blockDim.x; off *= 2) {
        unsigned long long vl = threadIdx.x >= off ? sl[threadIdx.x - off] : 0;
        unsigned long long ve = threadIdx.x >= off ? se[threadIdx.x - off] : 0;
        __syncthreads();
        sl[threadIdx.x] += vl;
        se[threadIdx.x] += ve;
        __syncthreads();
    }
    unsigned long long rl = sl[threadIdx.x] - l, re = se[threadIdx.x] - e;
    for (size_t i = lo; i < hi; i++) {
        less_before[i] = rl;
        eq_before[i] = re;
        rl += tile_less[i];
        re += tile_eq[i];
    }
}

/* Per tile, each thread owning ITEMS consecutive keys: write keys in input order.
 *   split = 0 (collect): the keys below the prefix and the equal ones of rank < need go to
 *             (out_keys, out_ids) from position base (st->sure for candidates, else 0);
 *   split = 1 (mode 0's first pass): the keys below go to (out_keys, out_ids) from 0, the
 *             equal ones, all of them, to (eq_keys, eq_ids): the candidates. */
template <typename U>
__global__ void tk_collect(tk_src<U> src, int type, int desc, const tk_state *st, int gate,
                           int split, const unsigned long long *less_before,
                           const unsigned long long *eq_before, U *out_keys,
                           unsigned long long *out_ids, U *eq_keys, unsigned long long *eq_ids)
{
    constexpr int W = tk_key<U>::W;
    if (gated_off(st, gate)) return;
    const size_t n = src_n(src, st);
    const int bits = st->bits;
    const uint64_t prefix = st->prefix;
    const unsigned long long need = split ? ~0ull : st->need;
    const unsigned long long base = !split && src.cand ? st->sure : 0;
    const size_t first = (size_t)blockIdx.x * TILE + (size_t)threadIdx.x * ITEMS;
    U k[ITEMS];
    int cls[ITEMS];   /* -1 below, 0 equal, 1 above or past the end */
    unsigned int less = 0, eq = 0, total;
#pragma unroll
    for (int j = 0; j < ITEMS; j++) {
        size_t i = first + j;
        cls[j] = 1;
        if (i < n) {
            k[j] = src.keys[i];
            uint64_t p = high_bits<W>(tk_key<U>::radix(k[j], type, desc), bits);
            cls[j] = p < prefix ? -1 : p == prefix ? 0 : 1;
        }
        less += cls[j] == -1;
        eq += cls[j] == 0;
    }
    const unsigned long long eq0 = eq_before[blockIdx.x] + block_scan(eq, &total);
    unsigned long long take = need > eq0 ? need - eq0 : 0;
    if (take > eq) take = eq;
    unsigned long long at, eq_at = eq0;
    if (split) {
        at = less_before[blockIdx.x] + block_scan(less, &total);
    } else {
        const unsigned long long eb = eq_before[blockIdx.x];
        at = base + less_before[blockIdx.x] + (eb < need ? eb : need) +
             block_scan(less + (unsigned int)take, &total);
    }
#pragma unroll
    for (int j = 0; j < ITEMS; j++) {
        const unsigned long long id = src.ids ? src.ids[first + j < n ? first + j : 0] : first + j;
        if (cls[j] == -1 || (!split && cls[j] == 0 && take)) {
            if (cls[j] == 0) take--;
            out_keys[at] = k[j];
            out_ids[at] = id;
            at++;
        } else if (split && cls[j] == 0) {
            eq_keys[eq_at] = k[j];
            eq_ids[eq_at] = id;
            eq_at++;
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

__global__ void tk_narrow(const unsigned long long *in, uint32_t *out, size_t n)
{
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n;
         i += (size_t)gridDim.x * blockDim.x)
        out[i] = (uint32_t)in[i];
}

/* The scratch of one row's select (reused for every row of a call). */
struct tk_mem {
    tk_state *st;
    unsigned long long *hist, *less_before, *eq_before;
    unsigned int *tile_less, *tile_eq;
    void *fin_keys;                  /* the k selected keys, in input order per group */
    unsigned long long *fin_ids;
    void *cand_keys;                 /* mode 0: the first pass's bucket */
    unsigned long long *cand_ids;
    size_t cand_cap;
};

size_t round8(size_t b) { return (b + 7) / 8 * 8; }

/* Candidates are kept when the first pass's bucket holds at most this share of the row (and
 * the row is long enough for the extra launches to pay). */
constexpr size_t CAND_MIN_ROW = (size_t)1 << 18;
size_t cand_cap(size_t n) { return n < CAND_MIN_ROW ? 0 : n / 16; }

/* Top-k of one row of device data into device outputs (keys_out, idx_out: never NULL).
 * The first 11-bit pass runs on the whole row; then, if its bucket is small (mode 0), one
 * pass over the row writes the keys below the bucket (all taken) and the bucket's keys (the
 * candidates), and the remaining digits, the count and the collect run on the candidates
 * only; otherwise (mode 1) every pass reads the whole row. */
template <typename U>
gpusort_status row_topk(gpusort_ctx *ctx, const gpusort__topk_args *a, const U *keys,
                        size_t n, void *keys_out, unsigned long long *idx_out, const tk_mem &m)
{
    constexpr int W = tk_key<U>::W;
    cudaStream_t s = gpusort__cuda_stream(ctx);
    const int type = (int)a->key_type, desc = a->order == GPUSORT_ORDER_DESC;
    const size_t tiles = (n + TILE - 1) / TILE, cap = m.cand_cap;
    const size_t ctiles = (cap + TILE - 1) / TILE;
    const tk_src<U> row = {keys, NULL, n, 0};
    const tk_src<U> cand = {(const U *)m.cand_keys, m.cand_ids, cap, 1};
    U *fk = (U *)m.fin_keys, *ck = (U *)m.cand_keys;
    const struct cudaDeviceProp *p = gpusort__cuda_props(ctx);
    auto grid_of = [&](size_t len) {
        size_t want = (len + THREADS * 8 - 1) / (THREADS * 8), most = (size_t)p->multiProcessorCount * 8;
        return (unsigned)(want < most ? (want ? want : 1) : most);
    };
    tk_init<<<1, 32, 0, s>>>(m.st, a->k, m.hist);
    tk_histogram<U><<<grid_of(n), THREADS, 0, s>>>(row, type, desc, m.st, -1, m.hist);
    tk_choose<W><<<1, BINS / 2, 0, s>>>(m.hist, m.st, -1);
    tk_mode<<<1, 1, 0, s>>>(m.st, a->k, cap);
    if (cap) {   /* mode 0: split the row, then the candidates */
        tk_count<U><<<(unsigned)tiles, THREADS, 0, s>>>(row, type, desc, m.st, 0, m.tile_less,
                                                       m.tile_eq);
        tk_scan<<<1, 1024, 0, s>>>(m.tile_less, m.tile_eq, tiles, m.st, 0, m.less_before,
                                   m.eq_before);
        tk_collect<U><<<(unsigned)tiles, THREADS, 0, s>>>(row, type, desc, m.st, 0, 1,
                                                         m.less_before, m.eq_before, fk,
                                                         m.fin_ids, ck, m.cand_ids);
        for (int bits = DIGIT; bits < W; bits += DIGIT) {
            tk_histogram<U><<<grid_of(cap), THREADS, 0, s>>>(cand, type, desc, m.st, 0, m.hist);
            tk_choose<W><<<1, BINS / 2, 0, s>>>(m.hist, m.st, 0);
        }
        tk_count<U><<<(unsigned)ctiles, THREADS, 0, s>>>(cand, type, desc, m.st, 0, m.tile_less,
                                                        m.tile_eq);
        tk_scan<<<1, 1024, 0, s>>>(m.tile_less, m.tile_eq, ctiles, m.st, 0, m.less_before,
                                   m.eq_before);
        tk_collect<U><<<(unsigned)ctiles, THREADS, 0, s>>>(cand, type, desc, m.st, 0, 0,
                                                          m.less_before, m.eq_before, fk,
                                                          m.fin_ids, NULL, NULL);
    }
    /* mode 1: every digit on the whole row */
    for (int bits = DIGIT; bits < W; bits += DIGIT) {
        tk_histogram<U><<<grid_of(n), THREADS, 0, s>>>(row, type, desc, m.st, 1, m.hist);
        tk_choose<W><<<1, BINS / 2, 0, s>>>(m.hist, m.st, 1);
    }
    tk_count<U><<<(unsigned)tiles, THREADS, 0, s>>>(row, type, desc, m.st, 1, m.tile_less,
                                                   m.tile_eq);
    tk_scan<<<1, 1024, 0, s>>>(m.tile_less, m.tile_eq, tiles, m.st, 1, m.less_before,
                               m.eq_before);
    tk_collect<U><<<(unsigned)tiles, THREADS, 0, s>>>(row, type, desc, m.st, 1, 0, m.less_before,
                                                     m.eq_before, fk, m.fin_ids, NULL, NULL);
    gpusort_status st;
    if ((st = gpusort__cuda_check(ctx, cudaGetLastError(), "top-k kernels"))) return st;
    /* The k keys are in input order within each group (below the first bucket; the rest), and
     * every key of the first group is below every key of the second: the stable sort puts
     * ties in input order. */
    gpusort__sort_args d = {a->key_type, m.fin_keys, keys_out, GPUSORT_TYPE_U64, m.fin_ids,
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
    const size_t rows = a->n / L, tiles = (L + TILE - 1) / TILE;
    if (rows > 1 && L < SELECT_MIN_ROW) return batch_by_sort(ctx, a, keys_in, keys_out, indices_out);
    const size_t cap = cand_cap(L), ctiles = (cap + TILE - 1) / TILE;
    const size_t t = tiles > ctiles ? tiles : ctiles;
    size_t bytes = round8(sizeof(tk_state)) + BINS * 8 + t * 2 * 8 + t * 2 * 4 +
                   k * 8 + cap * 8 + round8(k * ks) + round8(cap * ks);
    char *p = (char *)gpusort__cuda_scratch(ctx, GPUSORT_CUDA_SCRATCH_TOPK, bytes);
    if (!p) return GPUSORT_STATUS_OUT_OF_DEVICE_MEMORY;
    tk_mem m;
    m.st = (tk_state *)p;                    p += round8(sizeof(tk_state));
    m.hist = (unsigned long long *)p;        p += BINS * 8;   /* tk_init zeroes it */
    m.less_before = (unsigned long long *)p; p += t * 8;
    m.eq_before = (unsigned long long *)p;   p += t * 8;
    m.fin_ids = (unsigned long long *)p;     p += k * 8;
    m.cand_ids = (unsigned long long *)p;    p += cap * 8;
    m.tile_less = (unsigned int *)p;         p += t * 4;
    m.tile_eq = (unsigned int *)p;           p += t * 4;
    p = (char *)round8((size_t)p);
    m.fin_keys = p;                          p += round8(k * ks);
    m.cand_keys = p;
    m.cand_cap = cap;
    /* Outputs the sort cannot write directly: keys not wanted, indices not wanted or u32. */
    int own_keys = !keys_out, own_idx = !(indices_out && a->index_type == GPUSORT_TYPE_U64);
    void *kbuf = own_keys ? gpusort__cuda_scratch(ctx, GPUSORT_CUDA_SCRATCH_IO_KEYS, k * ks) : NULL;
    unsigned long long *ibuf = own_idx ? (unsigned long long *)gpusort__cuda_scratch(
                                             ctx, GPUSORT_CUDA_SCRATCH_IO_VALUES, k * 8)
                                       : NULL;
    if ((own_keys && !kbuf) || (own_idx && !ibuf)) return GPUSORT_STATUS_OUT_OF_DEVICE_MEMORY;
    cudaStream_t s = gpusort__cuda_stream(ctx);
    for (size_t r = 0; r < rows; r++) {
        const char *in = (const char *)keys_in + r * L * ks;
        void *ko = own_keys ? kbuf : (char *)keys_out + r * k * ks;
        unsigned long long *io = own_idx ? ibuf : (unsigned long long *)indices_out + r * k;
        gpusort_status st =
            ks == 4 ? row_topk<uint32_t>(ctx, a, (const uint32_t *)in, L, ko, io, m)
                    : row_topk<unsigned long long>(ctx, a, (const unsigned long long *)in, L, ko,
                                                   io, m);
        if (st) return st;
        if (indices_out && a->index_type == GPUSORT_TYPE_U32) {
            tk_narrow<<<grid_for(k), 256, 0, s>>>(io, (uint32_t *)indices_out + r * k, k);
            if ((st = gpusort__cuda_check(ctx, cudaGetLastError(), "top-k: narrow"))) return st;
        }
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
