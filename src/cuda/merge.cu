/*
 * merge.cu -- stable merge sort on the device (any key type, keys / pairs / argsort), the
 * segment-aware form that the segmented sort uses for its large segments, and seed 000's
 * one-block multi-way merge variants.
 *
 * Exports:
 *   gpusort__cuda_merge_sort       (cuda_internal.h) the whole array = one segment
 *   gpusort__cuda_merge_segments   (block_sort.h) a list of segments in the same launches
 *   gpusort__cuda_merge_multiway   (block_sort.h) seed 000's variants (benchmark table)
 *
 * ALGORITHM (merge_segments), T = 4096 keys per tile:
 *   1. tile phase: every T-key tile of every segment is sorted on chip by one block
 *      (block_sort.cuh: bitonic network over (radix key, index in tile) -- the index makes the
 *      tile sort stable), keys and values gathered to the first buffer. Argsort values become
 *      explicit global positions here.
 *   2. passes with run width w = T, 2T, 4T, ... while w < the longest segment: runs 2k and 2k+1
 *      of each segment are merged. Merge path (Odeh, Green, Mwassi, Shmueli, Birk 2012; Green,
 *      McColl, Bader 2012 "GPU merge path"): a partition kernel binary-searches, for the first
 *      output position of every T-key output tile, how many of its keys come from run A; the
 *      merge kernel loads exactly the tile's A and B slices into shared memory (as radix keys),
 *      each of 256 threads finds its own 16-output split by a second merge-path search in shared
 *      memory and merges serially. Every thread produces 16 outputs to the last pass: no
 *      thread idles as the runs grow (the "few big runs" problem of naive merge sort). Ties take
 *      A first, so the sort is stable. Outputs are staged in shared memory and written
 *      coalesced; keys of integer types are rebuilt from their radix keys, float keys and values
 *      are gathered from the source position (the bits are preserved: -0.0, NaN payloads).
 *   Float keys without values that hold no NaN and no -0.0 (a check pass, for n >= 2^17) sort
 *   as bare radix keys like integers: no index in the tile phase, no gather in the passes.
 *   Segments shorter than w are copied through a pass (their B run is empty), so all segments
 *   end in the same buffer; the tile phase writes to the output or to scratch, chosen by the
 *   parity of the pass count, so that the last pass lands in the output.
 * Passes read and write every key once: ceil(log2(n / 4096)) passes after the tile phase.
 *
 * Scratch: KEYS n*K and VALUES n*V (ping-pong), AUX2 the segment tables and partitions
 * (24 bytes per segment + 8 per tile); the multi-way variants AUX/AUX2 (in-place copies) and
 * KEYS/VALUES.
 */
#include "block_sort.h"
#include "block_sort.cuh"

#include <stdlib.h>
#include <string.h>

using namespace gpusort_bs;

#define MT GPUSORT_CUDA_BLOCK_TILE  /* output tile of a merge block */
#define M_THREADS 256
#define M_ITEMS (MT / M_THREADS)    /* 16 outputs per thread */
#define MPAD(p) ((p) + ((p) >> 3))

struct merge_pass {
    const void *kin;
    void *kout;
    const void *vin;   /* NULL: keys only */
    void *vout;
    int type, desc, vbytes;
    int gather_keys;   /* float keys: copy original bits from the source position */
    int is_float;      /* else the radix key is bits ^ xmask (src/keys.h for integers) */
    uint64_t xmask;
    const uint64_t *t_lo, *t_hi, *t_start;
    uint32_t t_count;
    uint64_t w;
    uint64_t *part;
};

/* Radix key and back: one XOR for the integer types, the full transform for floats. */
template <typename K> __device__ __forceinline__ K mp_to_rk(const merge_pass &p, K bits)
{
    return p.is_float ? to_rk(bits, p.type, p.desc) : (K)(bits ^ (K)p.xmask);
}
template <typename K> __device__ __forceinline__ K mp_from_rk(const merge_pass &p, K rk)
{
    return p.is_float ? from_rk(rk, p.type, p.desc) : (K)(rk ^ (K)p.xmask);
}

/* Where output tile b of a pass lies. */
struct merge_tile {
    uint64_t lo;      /* segment start */
    uint64_t base;    /* start of the run pair, relative to lo */
    uint64_t na, nb;  /* run lengths */
    uint64_t d;       /* first output of the tile, relative to base */
};

__device__ __forceinline__ merge_tile find_tile(const merge_pass &p, uint64_t b)
{
    uint32_t l = 0, h = p.t_count;
    while (h - l > 1) {
        uint32_t m = (l + h) / 2;
        if (p.t_start[m] <= b) l = m;
        else h = m;
    }
    merge_tile t;
    t.lo = p.t_lo[l];
    uint64_t len = p.t_hi[l] - t.lo;
    uint64_t d0 = (b - p.t_start[l]) * (uint64_t)MT;
    t.base = d0 / (2 * p.w) * (2 * p.w);
    uint64_t rest = len - t.base;
    t.na = rest < p.w ? rest : p.w;
    rest -= t.na;
    t.nb = rest < p.w ? rest : p.w;
    t.d = d0 - t.base;
    return t;
}

/* Number of A keys among the first d outputs of merging A and B stably (ties: A first). */
template <typename K>
__device__ __forceinline__ uint64_t merge_path_global(const merge_pass &p, const K *a, uint64_t na,
                                                      const K *b, uint64_t nb, uint64_t d)
{
    uint64_t lo = d > nb ? d - nb : 0, hi = d < na ? d : na;
    while (lo < hi) {
        uint64_t mid = (lo + hi) / 2;
        if (mp_to_rk(p, a[mid]) <= mp_to_rk(p, b[d - 1 - mid])) lo = mid + 1;
        else hi = mid;
    }
    return lo;
}

template <typename K>
__global__ void k_merge_partition(merge_pass p, uint64_t tiles)
{
    uint64_t b = blockIdx.x * (uint64_t)blockDim.x + threadIdx.x;
    if (b >= tiles) return;
    merge_tile t = find_tile(p, b);
    const K *src = (const K *)p.kin + t.lo + t.base;
    p.part[b] = merge_path_global<K>(p, src, t.na, src + t.na, t.nb, t.d);
}

template <typename K, int VB, bool GATHER>
__global__ void __launch_bounds__(M_THREADS, sizeof(K) == 4 ? 4 : 2) k_merge(merge_pass p, uint64_t tiles)
{
    /* Radix keys of the tile's A and B slices at padded slots MPAD(p): thread t's merge starts
     * near p = 8t in A and in B (random data), and one spare slot per 8 makes that stride 9,
     * prime to the 32 banks (the bank conflicts of a 16-item merge otherwise cost ~8x). */
    __shared__ K s_key[MT + MT / 8];
    __shared__ uint16_t s_src[MT + MT / 32];
    const int tid = threadIdx.x;
    const uint64_t b = blockIdx.x;
    merge_tile t = find_tile(p, b);
    uint64_t dend = t.d + MT < t.na + t.nb ? t.d + MT : t.na + t.nb;
    uint64_t i0 = p.part[b];
    uint64_t i1 = dend == t.na + t.nb ? t.na : p.part[b + 1];
    uint64_t j0 = t.d - i0, j1 = dend - i1;
    const int ca = (int)(i1 - i0), cb = (int)(j1 - j0), total = ca + cb;
    const uint64_t ga = t.lo + t.base + i0;          /* first A key of the tile */
    const uint64_t gb = t.lo + t.base + t.na + j0;   /* first B key */
    const K *kin = (const K *)p.kin;
    {
        /* All 16 loads in flight before the first use (a rolled loop waits for each). */
        K kv[M_ITEMS];
#pragma unroll
        for (int q = 0; q < M_ITEMS; q++) {
            int o = q * M_THREADS + tid;
            if (o < total) kv[q] = kin[o < ca ? ga + o : gb + (o - ca)];
        }
#pragma unroll
        for (int q = 0; q < M_ITEMS; q++) {
            int o = q * M_THREADS + tid;
            if (o < total) s_key[MPAD(o)] = mp_to_rk(p, kv[q]);
        }
    }
    __syncthreads();
    /* This thread's outputs: [diag, diag + M_ITEMS) of the tile. */
    int diag = tid * M_ITEMS < total ? tid * M_ITEMS : total;
    int lo = diag > cb ? diag - cb : 0, hi = diag < ca ? diag : ca;
    while (lo < hi) {
        int mid = (lo + hi) / 2;
        if (s_key[MPAD(mid)] <= s_key[MPAD(ca + diag - 1 - mid)]) lo = mid + 1;
        else hi = mid;
    }
    int i = lo, j = diag - lo;
    K ok[M_ITEMS];
    uint16_t os[M_ITEMS];
    /* The two heads stay in registers: one shared load per output. */
    K av = i < ca ? s_key[MPAD(i)] : (K)0, bv = j < cb ? s_key[MPAD(ca + j)] : (K)0;
#pragma unroll
    for (int q = 0; q < M_ITEMS; q++) {
        bool take_a = j >= cb || (i < ca && av <= bv);
        ok[q] = take_a ? av : bv;
        os[q] = (uint16_t)(take_a ? i : ca + j);
        if (take_a) {
            i++;
            if (i < ca) av = s_key[MPAD(i)];
        } else {
            j++;
            if (j < cb) bv = s_key[MPAD(ca + j)];
        }
    }
    __syncthreads();
#pragma unroll
    for (int q = 0; q < M_ITEMS; q++) {
        int o = tid * M_ITEMS + q;
        if (o < total) {
            s_key[o + o / 32] = ok[q];
            s_src[o + o / 32] = os[q];
        }
    }
    __syncthreads();
    K *kout = (K *)p.kout + (t.lo + t.base + t.d);
    const K *ka = kin + ga, *kb = kin + gb;
    K okey[M_ITEMS];
    uint64_t oval[M_ITEMS];
#pragma unroll
    for (int q = 0; q < M_ITEMS; q++) {
        int o = q * M_THREADS + tid;
        oval[q] = 0;
        if (o < total) {
            int src = s_src[o + o / 32];
            if constexpr (GATHER) okey[q] = src < ca ? ka[src] : kb[src - ca];
            else okey[q] = mp_from_rk(p, s_key[o + o / 32]);
            if constexpr (VB == 4)
                oval[q] = src < ca ? ((const uint32_t *)p.vin)[ga + src]
                                   : ((const uint32_t *)p.vin)[gb + (src - ca)];
            if constexpr (VB == 8)
                oval[q] = src < ca ? ((const uint64_t *)p.vin)[ga + src]
                                   : ((const uint64_t *)p.vin)[gb + (src - ca)];
        }
    }
    const uint64_t out = t.lo + t.base + t.d;
#pragma unroll
    for (int q = 0; q < M_ITEMS; q++) {
        int o = q * M_THREADS + tid;
        if (o < total) {
            kout[o] = okey[q];
            if constexpr (VB == 4) ((uint32_t *)p.vout)[out + o] = (uint32_t)oval[q];
            if constexpr (VB == 8) ((uint64_t *)p.vout)[out + o] = oval[q];
        }
    }
}

static unsigned blocks_for(uint64_t work, unsigned threads)
{
    return (unsigned)((work + threads - 1) / threads);
}

template <typename K>
static gpusort_status run_pass(gpusort_ctx *ctx, const merge_pass &p, uint64_t tiles)
{
    cudaStream_t st = gpusort__cuda_stream(ctx);
    k_merge_partition<K><<<blocks_for(tiles, 256), 256, 0, st>>>(p, tiles);
    const unsigned g = (unsigned)tiles;
    if (p.gather_keys) {
        if (p.vbytes == 4) k_merge<K, 4, true><<<g, M_THREADS, 0, st>>>(p, tiles);
        else if (p.vbytes == 8) k_merge<K, 8, true><<<g, M_THREADS, 0, st>>>(p, tiles);
        else k_merge<K, 0, true><<<g, M_THREADS, 0, st>>>(p, tiles);
    } else {
        if (p.vbytes == 4) k_merge<K, 4, false><<<g, M_THREADS, 0, st>>>(p, tiles);
        else if (p.vbytes == 8) k_merge<K, 8, false><<<g, M_THREADS, 0, st>>>(p, tiles);
        else k_merge<K, 0, false><<<g, M_THREADS, 0, st>>>(p, tiles);
    }
    return gpusort__cuda_check(ctx, cudaGetLastError(), "merge kernels");
}

gpusort_status gpusort__cuda_merge_segments(gpusort_ctx *ctx, const gpusort_sort_desc *d,
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
    int passes = 0;
    for (uint64_t w = MT; w < maxlen; w *= 2) passes++;

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
    s = gpusort__cuda_check(ctx, cudaMemcpyAsync(aux, tab, tab_bytes, cudaMemcpyHostToDevice, st),
                            "cudaMemcpyAsync (merge tables)");
    /* A pageable source is staged before cudaMemcpyAsync returns; still, wait before freeing
     * it so that a pinned-looking allocation can never be read late. */
    if (!s) s = gpusort__cuda_check(ctx, cudaStreamSynchronize(st), "cudaStreamSynchronize");
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

    gpusort_bs_args a;
    memset(&a, 0, sizeof a);
    a.keys_in = d->keys_in;
    a.keys_out = bk[cur];
    a.values_in = d->values_in;
    a.values_out = bv[cur];
    a.type = d->key_type;
    a.desc = d->order == GPUSORT_ORDER_DESC;
    a.vbytes = (int)vs;
    a.float_exact = float_exact;
    a.tiling = 2;
    a.t_lo = t_lo;
    a.t_hi = t_hi;
    a.t_start = t_start;
    a.t_count = (uint32_t)count;
    if ((s = gpusort__cuda_block_sort_launch(ctx, &a, maxlen < MT ? maxlen : MT, tiles))) return s;

    merge_pass p;
    memset(&p, 0, sizeof p);
    p.type = d->key_type;
    p.desc = a.desc;
    p.vbytes = (int)vs;
    p.is_float = d->key_type == GPUSORT_TYPE_F32 || d->key_type == GPUSORT_TYPE_F64;
    p.gather_keys = p.is_float && !float_exact;
    {
        uint64_t top = ks == 8 ? 0x8000000000000000ull : 0x80000000ull;
        uint64_t all = ks == 8 ? ~0ull : 0xffffffffull;
        p.xmask = (d->key_type == GPUSORT_TYPE_I32 || d->key_type == GPUSORT_TYPE_I64 ? top : 0) ^
                  (a.desc ? all : 0);
    }
    p.t_lo = t_lo;
    p.t_hi = t_hi;
    p.t_start = t_start;
    p.t_count = (uint32_t)count;
    p.part = part;
    if (tiles > 0x7fffffffull)
        return gpusort__set_error(ctx, GPUSORT_STATUS_UNSUPPORTED, "too many merge tiles");
    for (uint64_t w = MT; w < maxlen; w *= 2) {
        p.w = w;
        p.kin = bk[cur];
        p.vin = bv[cur];
        p.kout = bk[cur ^ 1];
        p.vout = bv[cur ^ 1];
        s = ks == 8 ? run_pass<uint64_t>(ctx, p, tiles) : run_pass<uint32_t>(ctx, p, tiles);
        if (s) return s;
        cur ^= 1;
    }
    return GPUSORT_STATUS_SUCCESS;
}

extern "C" gpusort_status gpusort__cuda_merge_sort(gpusort_ctx *ctx, const gpusort_sort_desc *d)
{
    uint64_t lo = 0, hi = d->n;
    return gpusort__cuda_merge_segments(ctx, d, &lo, &hi, 1, gpusort__cuda_float_exact(ctx, d));
}

/* ---- seed 000: one block, column radix sort + multi-way merge ---- */

#define MW_SMEM_MAX 4096  /* n up to this sorts in shared memory (2 x 32 KiB) */

__global__ void k_multiway(const uint32_t *keys, uint32_t n, int type, int desc, int variant,
                           uint64_t *gcol, uint64_t *gtmp, uint64_t *res, int use_smem)
{
    extern __shared__ unsigned long long mw_smem[];
    __shared__ unsigned long long s_min;
    __shared__ unsigned long long s_red[1024];
    __shared__ uint32_t s_head[1024];
    const uint32_t L = blockDim.x, tid = threadIdx.x;
    uint64_t *col = use_smem ? (uint64_t *)mw_smem : gcol;
    uint64_t *tmp = use_smem ? (uint64_t *)mw_smem + n : gtmp;
    const uint64_t MAXV = ~0ull;
    /* Composite (radix key, index): unique, so every minimum has exactly one owner. */
    for (uint32_t i = tid; i < n; i += L)
        col[i] = ((uint64_t)gpusort__radix32(keys[i], type, desc) << 32) | i;
    /* Column tid = positions tid, tid + L, ...: 1-bit LSD radix sort (stable) on the key bits;
     * the column starts in index order, so it ends sorted by (key, index). */
    for (int bit = 32; bit < 64; bit++) {
        uint32_t c0 = 0, c1 = 0;
        for (uint32_t i = tid; i < n; i += L) {
            uint64_t v = col[i];
            if ((v >> bit) & 1) tmp[(c1++) * L + tid] = v;
            else col[(c0++) * L + tid] = v;
        }
        for (uint32_t q = 0; q < c1; q++) col[(c0 + q) * L + tid] = tmp[q * L + tid];
    }
    __syncthreads();
    uint32_t h = tid;
    uint64_t head = h < n ? col[h] : MAXV;
    if (variant == 0) {  /* one thread scans the L heads */
        s_head[tid] = tid;
        __syncthreads();
        if (tid == 0)
            for (uint32_t i = 0; i < n; i++) {
                uint64_t best = MAXV;
                uint32_t who = 0;
                for (uint32_t j = 0; j < L; j++) {
                    uint32_t hj = s_head[j];
                    if (hj < n && col[hj] < best) {
                        best = col[hj];
                        who = j;
                    }
                }
                s_head[who] += L;
                res[i] = best;
            }
        return;
    }
    for (uint32_t i = 0; i < n; i++) {
        uint64_t m;
        if (variant == 1) {  /* everybody atomicMin()s into one word */
            if (tid == 0) s_min = MAXV;
            __syncthreads();
            atomicMin(&s_min, (unsigned long long)head);
            __syncthreads();
            m = s_min;
        } else if (variant == 2) {  /* pairwise tree in shared memory */
            s_red[tid] = head;
            __syncthreads();
            uint32_t p2 = 1;
            while (p2 < L) p2 *= 2;
            for (uint32_t s = p2 / 2; s > 0; s /= 2) {
                if (tid < s && tid + s < L && s_red[tid + s] < s_red[tid]) s_red[tid] = s_red[tid + s];
                __syncthreads();
            }
            m = s_red[0];
        } else {  /* blocked: groups of 8 atomicMin, then the group minima */
            if (tid < (L + 7) / 8) s_red[tid] = MAXV;
            if (tid == 0) s_min = MAXV;
            __syncthreads();
            atomicMin(&s_red[tid / 8], (unsigned long long)head);
            __syncthreads();
            if (tid < (L + 7) / 8) atomicMin(&s_min, s_red[tid]);
            __syncthreads();
            m = s_min;
        }
        if (head == m) {
            res[i] = m;
            h += L;
            head = h < n ? col[h] : MAXV;
        }
        __syncthreads();  /* everyone has read m before it is reset */
    }
}

__global__ void k_multiway_gather(const uint64_t *res, uint64_t n, const uint32_t *kin,
                                  uint32_t *kout, const void *vin, void *vout, int vbytes)
{
    for (uint64_t i = blockIdx.x * (uint64_t)blockDim.x + threadIdx.x; i < n;
         i += (uint64_t)gridDim.x * blockDim.x) {
        uint32_t g = (uint32_t)res[i];
        kout[i] = kin[g];
        if (vbytes == 4) ((uint32_t *)vout)[i] = vin ? ((const uint32_t *)vin)[g] : g;
        else if (vbytes == 8) ((uint64_t *)vout)[i] = vin ? ((const uint64_t *)vin)[g] : g;
    }
}

gpusort_status gpusort__cuda_merge_multiway(gpusort_ctx *ctx, const gpusort_sort_desc *d,
                                            int variant, int lists)
{
    if (gpusort_type_size(d->key_type) != 4)
        return gpusort__set_error(ctx, GPUSORT_STATUS_UNSUPPORTED,
                                  "the multi-way merge variants take 32-bit keys only");
    if (d->n >= 0xffffffffull || variant < 0 || variant > 3 || lists < 1 || lists > 1024)
        return gpusort__set_error(ctx, GPUSORT_STATUS_INVALID_ARGUMENT,
                                  "multi-way merge: n < 2^32, variant 0..3, 1..1024 lists");
    cudaStream_t st = gpusort__cuda_stream(ctx);
    const uint64_t n = d->n;
    const size_t vs = d->value_type == GPUSORT_TYPE_NONE ? 0 : gpusort_type_size(d->value_type);
    gpusort_status s;
    const void *kin = d->keys_in, *vin = d->values_in;
    if (d->keys_out == d->keys_in) {  /* the gather reads the input after the sort */
        void *c = gpusort__cuda_scratch(ctx, GPUSORT_CUDA_SCRATCH_AUX, n * 4);
        if (!c) return GPUSORT_STATUS_OUT_OF_DEVICE_MEMORY;
        if ((s = gpusort__cuda_check(ctx, cudaMemcpyAsync(c, kin, n * 4, cudaMemcpyDeviceToDevice, st),
                                     "cudaMemcpyAsync")))
            return s;
        kin = c;
    }
    if (vs && vin && d->values_out == d->values_in) {
        void *c = gpusort__cuda_scratch(ctx, GPUSORT_CUDA_SCRATCH_AUX2, n * vs);
        if (!c) return GPUSORT_STATUS_OUT_OF_DEVICE_MEMORY;
        if ((s = gpusort__cuda_check(ctx, cudaMemcpyAsync(c, vin, n * vs, cudaMemcpyDeviceToDevice, st),
                                     "cudaMemcpyAsync")))
            return s;
        vin = c;
    }
    int use_smem = n <= MW_SMEM_MAX;
    uint64_t *res = (uint64_t *)gpusort__cuda_scratch(ctx, GPUSORT_CUDA_SCRATCH_VALUES, n * 8);
    uint64_t *gcol = use_smem ? NULL
                              : (uint64_t *)gpusort__cuda_scratch(ctx, GPUSORT_CUDA_SCRATCH_KEYS, n * 16);
    if (!res || (!use_smem && !gcol)) return GPUSORT_STATUS_OUT_OF_DEVICE_MEMORY;
    size_t sm = use_smem ? (size_t)n * 16 : 0;
    if (sm > 48 * 1024 - 12 * 1024 &&
        (s = gpusort__cuda_check(ctx, cudaFuncSetAttribute(k_multiway,
                                                           cudaFuncAttributeMaxDynamicSharedMemorySize,
                                                           (int)sm),
                                 "cudaFuncSetAttribute (multiway)")))
        return s;
    k_multiway<<<1, lists, sm, st>>>((const uint32_t *)d->keys_in, (uint32_t)n, d->key_type,
                                     d->order == GPUSORT_ORDER_DESC, variant, gcol,
                                     gcol ? gcol + n : NULL, res, use_smem);
    if ((s = gpusort__cuda_check(ctx, cudaGetLastError(), "multiway kernel"))) return s;
    unsigned g = (unsigned)((n + 255) / 256 < 4096 ? (n + 255) / 256 : 4096);
    k_multiway_gather<<<g, 256, 0, st>>>(res, n, (const uint32_t *)kin, (uint32_t *)d->keys_out,
                                         vin, vs ? d->values_out : NULL, (int)vs);
    return gpusort__cuda_check(ctx, cudaGetLastError(), "multiway gather kernel");
}
