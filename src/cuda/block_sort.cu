/*
 * block_sort.cu -- the block-sort launcher: one block (or one warp) sorts each of many tiles or
 * segments of up to 4096 keys (16384 for small items) on chip, and writes the sorted keys and
 * values, or the sorted items.
 *
 * Exports: gpusort__cuda_block_sort_launch (block_sort.h). Callers: segmented.cu (one size class
 * of segments per launch), bitonic.cu (n that fits one block), rank.cu (its sorted tiles).
 *
 * What a block does (k_block_sort): load its tile as items (radix key, local index) into shared
 * memory (block_sort.cuh pads the network virtually past the tile's end), block_sort, then
 * either store the items (item mode, indices made global) or gather the original keys and
 * values by index (or rebuild integer keys from their radix keys). Tiles of at most 32 keys
 * take k_warp_sort: one warp each, one key per lane, shuffles only (warp_sort.cuh).
 *
 * Network sizes (launch_typed): the smallest of 32 x 4, 64 x 8, 128 x 8, 256 x 8, 256 x 16
 * threads x items that holds the largest tile, then 512 x 16 for items of up to 8 bytes and
 * 1024 x 16 for 4-byte items (64 KiB of items per block). Items carry an index for float keys
 * and whenever values travel (pairs, argsort, item mode); thread_sort.cuh says why.
 */
#include "block_sort.h"
#include "block_sort.cuh"

using namespace gpusort_bs;

/* ---- tiles ---- */

/* Block b sorts [lo, lo + cnt): a uniform tile, or one segment of the list (tiling,
 * block_sort.h). */
__device__ __forceinline__ void get_tile(const gpusort_bs_args &a, uint64_t b, uint64_t &lo,
                                         uint64_t &cnt)
{
    if (a.tiling == 0) {
        lo = b * a.tile;
        uint64_t e = lo + a.tile;
        if (e > a.n) e = a.n;
        cnt = e - lo;
    } else {
        uint32_t s = a.list[b];
        lo = a.offsets[s];
        cnt = a.offsets[s + 1] - lo;
    }
}

__device__ __forceinline__ uint64_t load_value(const gpusort_bs_args &a, uint64_t g)
{
    if (!a.values_in) return g;
    return a.vbytes == 4 ? (uint64_t)((const uint32_t *)a.values_in)[g]
                         : ((const uint64_t *)a.values_in)[g];
}

__device__ __forceinline__ void store_value(const gpusort_bs_args &a, uint64_t p, uint64_t v)
{
    if (a.vbytes == 4) ((uint32_t *)a.values_out)[p] = (uint32_t)v;
    else if (a.vbytes == 8) ((uint64_t *)a.values_out)[p] = v;
}

/* ---- kernels ---- */

/* One block sorts [lo, lo + cnt): load (radix key, local index), block_sort, then either
 * items (global indices) to items_out or keys/values gathered to the outputs. The gather is
 * from this block's own range and all of it is read before any of it is written (barrier), so
 * keys_out == keys_in is safe. */
template <typename K, bool IDX, int THREADS, int E>
__global__ void __launch_bounds__(THREADS) k_block_sort(gpusort_bs_args a)
{
    typedef Item<K, IDX> It;
    extern __shared__ uint4 bs_smem[];
    It *sm = (It *)bs_smem;
    const int tid = threadIdx.x;
    uint64_t lo, cnt;
    get_tile(a, blockIdx.x, lo, cnt);
    const K *kin = (const K *)a.keys_in;
#pragma unroll
    for (int q = 0; q < E; q++) {
        int p = q * THREADS + tid;
        sm[padi<It>(p)] = (uint64_t)p < cnt ? It::make(to_rk(kin[lo + p], a.type, a.desc), p)
                                            : It::sentinel();
    }
    __syncthreads();
    It r[E];
#pragma unroll
    for (int q = 0; q < E; q++) r[q] = sm[padi<It>(tid * E + q)];
    block_sort<It, THREADS, E>(r, sm);
#pragma unroll
    for (int q = 0; q < E; q++) sm[padi<It>(tid * E + q)] = r[q];
    __syncthreads();
    if (a.items_out) {
        It *out = (It *)a.items_out;
#pragma unroll
        for (int q = 0; q < E; q++) {
            int p = q * THREADS + tid;
            if ((uint64_t)p < cnt) {
                It it = sm[padi<It>(p)];
                if constexpr (IDX) it.i += (uint32_t)lo;
                out[lo + p] = it;
            }
        }
        return;
    }
    K kk[E];
    uint64_t vv[E];
#pragma unroll
    for (int q = 0; q < E; q++) {
        int p = q * THREADS + tid;
        vv[q] = 0;
        if ((uint64_t)p < cnt) {
            It it = sm[padi<It>(p)];
            if constexpr (IDX) {
                uint64_t g = lo + it.i;
                kk[q] = kin[g];
                if (a.vbytes) vv[q] = load_value(a, g);
            } else {
                kk[q] = from_rk(it.k, a.type, a.desc);
            }
        }
    }
    __syncthreads();
    K *kout = (K *)a.keys_out;
#pragma unroll
    for (int q = 0; q < E; q++) {
        int p = q * THREADS + tid;
        if ((uint64_t)p < cnt) {
            kout[lo + p] = kk[q];
            store_value(a, lo + p, vv[q]);
        }
    }
}

/* One warp per tile/segment of at most 32 keys. */
template <typename K, bool IDX>
__global__ void __launch_bounds__(256) k_warp_sort(gpusort_bs_args a, uint64_t count)
{
    typedef Item<K, IDX> It;
    uint64_t w = (blockIdx.x * 256ull + threadIdx.x) >> 5;
    if (w >= count) return;  /* whole warps leave together */
    const int l = threadIdx.x & 31;
    uint64_t lo, cnt;
    get_tile(a, w, lo, cnt);
    const K *kin = (const K *)a.keys_in;
    It x = (uint64_t)l < cnt ? It::make(to_rk(kin[lo + l], a.type, a.desc), l) : It::sentinel();
    x = warp_sort(x);
    if (a.items_out) {
        if constexpr (IDX) x.i += (uint32_t)lo;
        if ((uint64_t)l < cnt) ((It *)a.items_out)[lo + l] = x;
        return;
    }
    K kk = 0;
    uint64_t vv = 0;
    if ((uint64_t)l < cnt) {
        if constexpr (IDX) {
            uint64_t g = lo + x.i;
            kk = kin[g];
            if (a.vbytes) vv = load_value(a, g);
        } else {
            kk = from_rk(x.k, a.type, a.desc);
        }
    }
    __syncwarp();
    if ((uint64_t)l < cnt) {
        ((K *)a.keys_out)[lo + l] = kk;
        store_value(a, lo + l, vv);
    }
}

/* ---- launcher ---- */

template <typename K, bool IDX, int THREADS, int E>
static gpusort_status launch_block(gpusort_ctx *ctx, const gpusort_bs_args *a, uint64_t blocks)
{
    size_t sm = smem_bytes<Item<K, IDX>>(THREADS * E);
    void (*kern)(gpusort_bs_args) = k_block_sort<K, IDX, THREADS, E>;
    if (sm > 48 * 1024) {
        gpusort_status s = gpusort__cuda_smem_check(ctx, sm, "the block sort");
        if (s) return s;
        s = gpusort__cuda_check(
            ctx, cudaFuncSetAttribute(kern, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)sm),
            "cudaFuncSetAttribute (block sort)");
        if (s) return s;
    }
    kern<<<(unsigned)blocks, THREADS, sm, gpusort__cuda_stream(ctx)>>>(*a);
    return gpusort__cuda_check(ctx, cudaGetLastError(), "block sort kernel");
}

template <typename K, bool IDX>
static gpusort_status launch_typed(gpusort_ctx *ctx, const gpusort_bs_args *a,
                                   uint64_t max_count, uint64_t blocks)
{
    constexpr size_t IS = sizeof(Item<K, IDX>);
    if (max_count <= 32) {
        k_warp_sort<K, IDX><<<(unsigned)((blocks + 7) / 8), 256, 0, gpusort__cuda_stream(ctx)>>>(
            *a, blocks);
        return gpusort__cuda_check(ctx, cudaGetLastError(), "warp sort kernel");
    }
    if (max_count <= 128) return launch_block<K, IDX, 32, 4>(ctx, a, blocks);
    if (max_count <= 512) return launch_block<K, IDX, 64, 8>(ctx, a, blocks);
    if (max_count <= 1024) return launch_block<K, IDX, 128, 8>(ctx, a, blocks);
    if (max_count <= 2048) return launch_block<K, IDX, 256, 8>(ctx, a, blocks);
    if (max_count <= 4096) return launch_block<K, IDX, 256, 16>(ctx, a, blocks);
    /* Larger networks for small items: 64 KiB of items (+ padding) per block. */
    if constexpr (IS <= 8)
        if (max_count <= 8192) return launch_block<K, IDX, 512, 16>(ctx, a, blocks);
    if constexpr (IS <= 4)
        if (max_count <= 16384) return launch_block<K, IDX, 1024, 16>(ctx, a, blocks);
    return gpusort__set_error(ctx, GPUSORT_STATUS_INVALID_ARGUMENT,
                              "internal: block sort of %llu items of %zu bytes",
                              (unsigned long long)max_count, IS);
}

gpusort_status gpusort__cuda_block_sort_launch(gpusort_ctx *ctx, const gpusort_bs_args *a,
                                               uint64_t max_count, uint64_t blocks)
{
    if (blocks == 0) return GPUSORT_STATUS_SUCCESS;
    if (blocks > 0x7fffffffull)
        return gpusort__set_error(ctx, GPUSORT_STATUS_UNSUPPORTED,
                                  "%llu tiles exceed one launch's grid", (unsigned long long)blocks);
    int wide = gpusort_type_size((gpusort_type)a->type) == 8;
    int idx = a->type == GPUSORT_TYPE_F32 || a->type == GPUSORT_TYPE_F64 || a->vbytes != 0;
    if (wide) return idx ? launch_typed<uint64_t, true>(ctx, a, max_count, blocks)
                         : launch_typed<uint64_t, false>(ctx, a, max_count, blocks);
    return idx ? launch_typed<uint32_t, true>(ctx, a, max_count, blocks)
               : launch_typed<uint32_t, false>(ctx, a, max_count, blocks);
}
