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
 * stability to preserve, and the output keys are rebuilt exactly from the radix keys. The same
 * holds for float keys without values when a check pass (n >= 2^17) finds no NaN and no -0.0. With
 * indices, n must be below 2^32 (32-bit positions; UNSUPPORTED above, with a message).
 *
 * ANY n. The network is the "flip" form of block_sort.cuh (all comparators ascending), of size
 * 2^ceil(log2 n). Positions >= n hold a virtual sentinel greater than every item; such
 * comparators are no-ops, so nothing is padded, allocated or moved for them (loads beyond n
 * read the sentinel, stores beyond n are skipped, threads whose positions all lie beyond n
 * return at once).
 *
 * LEVELS. T = 32 KiB of items per tile: 8192 items of 4 bytes (u32/i32 keys, floats without
 * NaN/-0.0), 4096 of 8 (u64/i64 keys, or 32-bit keys + index), 2048 of 16 (64-bit keys +
 * index); T/16 threads of 16 items each (two blocks per SM; inside a block, strides below 16
 * run in registers, 16..256 as warp shuffles, larger ones in shared memory: block_sort.cuh).
 *   n <= 2T     one block (or one warp for n <= 32) sorts everything on chip and writes the
 *               output: one kernel.
 *   n >  T      1. tile phase: every T-tile sorted on chip (block_sort, segmented.cu's kernel),
 *                  items (radix key, global index) written to scratch.
 *               2. for each span 2^k > T: the strides >= T run in device memory, several
 *                  strides per launch: a thread holds the items that those strides connect and
 *                  runs the comparators in registers (k_flip: the flip plus RF-1 half-cleaner
 *                  strides over 2 x 2^RF items; k_half: RH half-cleaner strides over 2^RH items;
 *                  RF = 4, RH = 5 for items of up to 8 bytes, 3 and 4 for 16-byte items),
 *                  then ONE shared-memory kernel (k_smem_merge) runs strides T/2 .. 1 on each
 *                  T-tile. The last one gathers the output keys/values.
 *   Device-memory passes per span 2^k: 1 + ceil((k - log2 T - RF) / RH), plus the on-chip
 *   pass: 32 passes in all for 2^24 u32 keys, where the seed's naive version (one launch per
 *   (span, stride), seed 001) makes 300.
 *
 * Scratch: KEYS n * item (item = 4, 8 or 16 bytes: radix key [+ index]); AUX/AUX2 copies of the
 * input keys/values when sorting in place with indices (the final gather reads the input).
 */
#include "block_sort.h"
#include "block_sort.cuh"

#include <string.h>

using namespace gpusort_bs;

#define B_ITEMS 16  /* items per thread on chip */

/* Tile and pass widths per item type (see LEVELS above). */
template <typename It> struct bitonic_cfg {
    static constexpr int T = 32768 / (int)sizeof(It);
    static constexpr int LOG_T = T == 8192 ? 13 : T == 4096 ? 12 : 11;
    static constexpr int THREADS = T / B_ITEMS;
    static constexpr int RF = sizeof(It) <= 8 ? 4 : 3;
    static constexpr int RH = sizeof(It) <= 8 ? 5 : 4;
};

/* Strides 2^j .. 2^(j-R+1): thread t holds the 2^R positions that differ in those bits. */
template <typename It, int R>
__global__ void __launch_bounds__(256, 2) k_half(It *a, uint64_t n, int j, uint64_t nthreads)
{
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

/* Strides T/2 .. 1 of one T-tile on chip; the last span writes the output (gather by index
 * from a.keys_in / a.values_in, or keys rebuilt from radix keys). */
template <typename K, bool IDX, int B_THREADS>
__global__ void __launch_bounds__(B_THREADS) k_smem_merge(Item<K, IDX> *items, gpusort_bs_args a,
                                                          int final_span)
{
    typedef Item<K, IDX> It;
    constexpr int BT = B_THREADS * B_ITEMS;
    extern __shared__ uint4 bm_smem[];
    It *sm = (It *)bm_smem;
    const int tid = threadIdx.x;
    const uint64_t lo = (uint64_t)blockIdx.x * BT;
    const uint64_t cnt = a.n - lo < BT ? a.n - lo : BT;
#pragma unroll
    for (int q = 0; q < B_ITEMS; q++) {
        int p = q * B_THREADS + tid;
        sm[padi<It>(p)] = (uint64_t)p < cnt ? items[lo + p] : It::sentinel();
    }
    __syncthreads();
    It r[B_ITEMS];
    block_merge_smem<It, B_THREADS, B_ITEMS>(r, sm);
#pragma unroll
    for (int q = 0; q < B_ITEMS; q++) sm[padi<It>(tid * B_ITEMS + q)] = r[q];
    __syncthreads();
#pragma unroll
    for (int q = 0; q < B_ITEMS; q++) {
        int p = q * B_THREADS + tid;
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
            ((K *)a.keys_out)[lo + p] = from_rk(it.k, a.type, a.desc);
        }
    }
}

static unsigned grid_of(uint64_t threads) { return (unsigned)((threads + 255) / 256); }

template <typename It, int R>
static void launch_half(cudaStream_t st, It *a, uint64_t n, int K, int j)
{
    uint64_t nt = 1ull << (K - R);
    k_half<It, R><<<grid_of(nt), 256, 0, st>>>(a, n, j, nt);
}

template <typename It, int R>
static void launch_flip(cudaStream_t st, It *a, uint64_t n, int LOG, int k)
{
    uint64_t nt = 1ull << (LOG - R - 1);
    k_flip<It, R><<<grid_of(nt), 256, 0, st>>>(a, n, k, nt);
}

template <typename K, bool IDX>
static gpusort_status bitonic_large(gpusort_ctx *ctx, gpusort_bs_args a)
{
    typedef Item<K, IDX> It;
    typedef bitonic_cfg<It> C;
    constexpr int BT = C::T;
    cudaStream_t st = gpusort__cuda_stream(ctx);
    const uint64_t n = a.n;
    int LOG = 0;
    while ((1ull << LOG) < n) LOG++;
    It *items = (It *)gpusort__cuda_scratch(ctx, GPUSORT_CUDA_SCRATCH_KEYS, n * sizeof(It));
    if (!items) return GPUSORT_STATUS_OUT_OF_DEVICE_MEMORY;
    gpusort_status s;
    /* 1. tiles sorted on chip, items to scratch */
    gpusort_bs_args t = a;
    t.items_out = items;
    t.tiling = 0;
    t.tile = BT;
    if ((s = gpusort__cuda_block_sort_launch(ctx, &t, BT, (n + BT - 1) / BT))) return s;
    size_t sm = smem_bytes<It>(BT);
    void (*merge_kernel)(It *, gpusort_bs_args, int) = k_smem_merge<K, IDX, C::THREADS>;
    if (sm > 48 * 1024 &&
        (s = gpusort__cuda_check(ctx, cudaFuncSetAttribute(merge_kernel,
                                                           cudaFuncAttributeMaxDynamicSharedMemorySize,
                                                           (int)sm),
                                 "cudaFuncSetAttribute (bitonic)")))
        return s;
    /* 2. spans 2T .. 2^LOG */
    for (int k = C::LOG_T + 1; k <= LOG; k++) {
        int g = k - C::LOG_T;  /* strides in device memory: 2^(k-1) .. T */
        int r = g < C::RF ? g : C::RF;
        switch (r) {
        case 1: launch_flip<It, 1>(st, items, n, LOG, k); break;
        case 2: launch_flip<It, 2>(st, items, n, LOG, k); break;
        case 3: launch_flip<It, 3>(st, items, n, LOG, k); break;
        default: launch_flip<It, C::RF>(st, items, n, LOG, k); break;
        }
        int j = k - 1 - r, rem = g - r;
        while (rem > 0) {
            int r2 = rem < C::RH ? rem : C::RH;
            switch (r2) {
            case 1: launch_half<It, 1>(st, items, n, LOG, j); break;
            case 2: launch_half<It, 2>(st, items, n, LOG, j); break;
            case 3: launch_half<It, 3>(st, items, n, LOG, j); break;
            case 4: launch_half<It, 4>(st, items, n, LOG, j); break;
            default: launch_half<It, C::RH>(st, items, n, LOG, j); break;
            }
            j -= r2;
            rem -= r2;
        }
        merge_kernel<<<(unsigned)((n + BT - 1) / BT), C::THREADS, sm, st>>>(items, a, k == LOG);
        if ((s = gpusort__cuda_check(ctx, cudaGetLastError(), "bitonic kernels"))) return s;
    }
    return GPUSORT_STATUS_SUCCESS;
}

extern "C" gpusort_status gpusort__cuda_bitonic_sort(gpusort_ctx *ctx, const gpusort_sort_desc *d)
{
    cudaStream_t st = gpusort__cuda_stream(ctx);
    /* Float keys with no NaN and no -0.0 sort like integers (checked on large inputs). */
    const int exact = d->n > 16384 ? gpusort__cuda_float_exact(ctx, d) : 0;
    const int idx = gpusort__cuda_needs_idx(d) && !exact;
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
    a.float_exact = exact;
    a.tiling = 0;
    a.n = d->n;
    a.tile = d->n;
    /* One block when the whole input fits on chip in 64 KiB (2T of bitonic_cfg). */
    const size_t item = ks == 8 ? (idx ? 16 : 8) : (idx ? 8 : 4);
    if (d->n <= 65536 / item) return gpusort__cuda_block_sort_launch(ctx, &a, d->n, 1);
    if (idx && d->n > 0xfffffffeull)
        return gpusort__set_error(ctx, GPUSORT_STATUS_UNSUPPORTED,
                                  "the bitonic sort numbers its items with 32 bits: n = %zu is too "
                                  "large for float keys, pairs or argsort (use radix or merge)",
                                  d->n);
    gpusort_status s;
    /* The final gather reads the input after earlier kernels may have written the output. */
    if (idx && d->keys_out == d->keys_in) {
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
    if (ks == 8) return idx ? bitonic_large<uint64_t, true>(ctx, a)
                            : bitonic_large<uint64_t, false>(ctx, a);
    return idx ? bitonic_large<uint32_t, true>(ctx, a) : bitonic_large<uint32_t, false>(ctx, a);
}
