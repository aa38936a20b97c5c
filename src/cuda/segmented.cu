/*
 * segmented.cu -- segmented (batched) sort on the device.
 *
 * Exports (cuda_internal.h):
 *   gpusort__cuda_segmented_sort        segments [offsets[s], offsets[s+1])
 *   gpusort__cuda_segmented_sort_masked the same for a subset of the segments (the string sort
 *                                       re-sorts only its unresolved runs)
 *
 * ORDER OF WORK (gpusort__cuda_segmented_sort):
 *   1. count kernel: validates the offsets (non-decreasing, <= n), counts the segments of each
 *      size class, writes the (lo, hi) of every "large" segment (> 4096 keys) to a list.
 *   2. the counts come back to the host (one small synchronous copy: the launch shapes below
 *      depend on them). Invalid offsets -> INVALID_ARGUMENT before anything is written.
 *   3. keys before offsets[0] and after offsets[num_segments] are copied unchanged (argsort:
 *      their own positions).
 *   4. segments of >= 2^20 keys: the radix sort, one call per segment (if the radix sort is
 *      available; else they join step 6).
 *   5. fill kernel: segment ids into one list per size class; then one launch per class:
 *        len <= 32     one warp per segment, one key per lane, shuffles only
 *        len <= 128    32 threads x 4 keys    (block_sort.cu: registers + shared memory)
 *        len <= 512    64 x 8
 *        len <= 1024   128 x 8
 *        len <= 2048   256 x 8
 *        len <= 4096   256 x 16
 *      Each class sorts with the smallest bitonic network that holds its segments, padded
 *      virtually (no work for absent keys beyond the rounding to a power of two).
 *   6. large segments: the segment-aware merge sort of merge.cu (4096-key tiles sorted on chip,
 *      then merge-path passes), all segments in the same launches.
 *
 * Why size classes: CUB's DeviceSegmentedSort does the same (warp / block / device passes);
 * sorting a segment entirely on chip reads and writes each key once, where a device-wide sort
 * of the concatenation would make several passes over all keys.
 *
 * Stability: items carry their index within the segment where stability is observable (floats,
 * pairs, argsort; thread_sort.cuh), so the result is THE stable order. Argsort values are global
 * positions, as the CPU backend gives them.
 *
 * Measured (H200, 2^26 u32 keys, bench/results/device-final-2026-11-24.md): 0.60 / 0.72 /
 * 1.36 ms for segments of 32 / 1024 / 65536 keys, 1.69x / 7.22x / 1.93x CUB's
 * DeviceSegmentedSort; mixed lengths (1 .. 2^17) 1.38x. The fixed-size batch form arrives here
 * with offsets built by backend.cu and takes the same path (the size classes make a separate
 * path unnecessary).
 */
#include "block_sort.h"

#include <stdlib.h>
#include <string.h>

/* Segments at least this long go to the radix sort, one call each: from about this size the
 * whole-array radix sort beats the merge sort by 1.6x and more (bench/results/seeds-2026-11-22.md,
 * crossovers), and its per-call launches are amortised. Not tuned separately for segments. */
#define SEG_RADIX_MIN ((uint64_t)1 << 20)

/* Size classes: network sizes of classes 0..5; class 6 = large. */
#define SEG_CLASSES 6
static const uint64_t seg_class_max[SEG_CLASSES] = {32, 128, 512, 1024, 2048, 4096};

__device__ __forceinline__ int seg_class(uint64_t len)
{
    return len <= 32 ? 0 : len <= 128 ? 1 : len <= 512 ? 2 : len <= 1024 ? 3 : len <= 2048 ? 4
           : len <= 4096 ? 5 : 6;
}

/* ---- segmented sort ---- */

/* info[] layout (u64 words in scratch AUX). */
enum {
    INFO_COUNT = 0,          /* [0, 6): segments per class 0..5 */
    INFO_LARGE = 6,          /* number of large segments */
    INFO_BAD = 7,            /* nonzero: offsets invalid */
    INFO_FIRST = 8,          /* offsets[0] */
    INFO_LAST = 9,           /* offsets[num_segments] */
    INFO_CURSOR = 16,        /* [16, 22): fill cursors per class */
    INFO_WORDS = 32
};

__global__ void k_seg_count(const uint64_t *off, uint64_t nseg, uint64_t n,
                            unsigned long long *info, uint64_t *large, uint64_t max_large,
                            const uint8_t *active)
{
    __shared__ unsigned long long cnt[SEG_CLASSES];
    if (threadIdx.x < SEG_CLASSES) cnt[threadIdx.x] = 0;
    if (blockIdx.x == 0 && threadIdx.x == 0) {
        info[INFO_FIRST] = off[0];
        info[INFO_LAST] = off[nseg];
        if (off[nseg] > n) atomicOr(&info[INFO_BAD], 1ull);
    }
    __syncthreads();
    const int lane = threadIdx.x & 31;
    uint64_t warp = (blockIdx.x * (uint64_t)blockDim.x + threadIdx.x) >> 5;
    uint64_t warps = (gridDim.x * (uint64_t)blockDim.x) >> 5;
    for (uint64_t base = warp * 32; base < nseg; base += warps * 32) {
        uint64_t s = base + lane;
        int c = -1;
        if (s < nseg) {
            uint64_t lo = off[s], hi = off[s + 1];
            if (hi < lo || hi > n) {
                atomicOr(&info[INFO_BAD], 1ull);
            } else if (hi > lo && (!active || active[s])) {
                c = seg_class(hi - lo);
                if (c == SEG_CLASSES) {
                    unsigned long long k = atomicAdd(&info[INFO_LARGE], 1ull);
                    if (k < max_large) {
                        large[2 * k] = lo;
                        large[2 * k + 1] = hi;
                    }
                }
            }
        }
#pragma unroll
        for (int cc = 0; cc < SEG_CLASSES; cc++) {
            unsigned m = __ballot_sync(0xffffffffu, c == cc);
            if (m && lane == 0) atomicAdd(&cnt[cc], (unsigned long long)__popc(m));
        }
    }
    __syncthreads();
    if (threadIdx.x < SEG_CLASSES && cnt[threadIdx.x])
        atomicAdd(&info[INFO_COUNT + threadIdx.x], cnt[threadIdx.x]);
}

struct seg_bases {
    uint64_t base[SEG_CLASSES];
};

__global__ void k_seg_fill(const uint64_t *off, uint64_t nseg, unsigned long long *info,
                           uint32_t *lists, seg_bases b, const uint8_t *active)
{
    const int lane = threadIdx.x & 31;
    uint64_t warp = (blockIdx.x * (uint64_t)blockDim.x + threadIdx.x) >> 5;
    uint64_t warps = (gridDim.x * (uint64_t)blockDim.x) >> 5;
    for (uint64_t base = warp * 32; base < nseg; base += warps * 32) {
        uint64_t s = base + lane;
        int c = -1;
        if (s < nseg) {
            uint64_t lo = off[s], hi = off[s + 1];
            if (hi > lo && (!active || active[s])) c = seg_class(hi - lo);
        }
#pragma unroll
        for (int cc = 0; cc < SEG_CLASSES; cc++) {
            unsigned m = __ballot_sync(0xffffffffu, c == cc);
            if (!m) continue;
            unsigned long long first = 0;
            int leader = __ffs(m) - 1;
            if (lane == leader) first = atomicAdd(&info[INFO_CURSOR + cc], (unsigned long long)__popc(m));
            first = __shfl_sync(0xffffffffu, first, leader);
            if (c == cc) lists[b.base[cc] + first + __popc(m & ((1u << lane) - 1))] = (uint32_t)s;
        }
    }
}

__global__ void k_iota_add(void *vals, int vbytes, uint64_t count, uint64_t base, int add)
{
    for (uint64_t i = blockIdx.x * (uint64_t)blockDim.x + threadIdx.x; i < count;
         i += (uint64_t)gridDim.x * blockDim.x) {
        if (vbytes == 4) {
            uint32_t *v = (uint32_t *)vals;
            v[i] = add ? v[i] + (uint32_t)base : (uint32_t)(base + i);
        } else {
            uint64_t *v = (uint64_t *)vals;
            v[i] = add ? v[i] + base : base + i;
        }
    }
}

static unsigned grid_for(uint64_t work, unsigned threads)
{
    uint64_t g = (work + threads - 1) / threads;
    if (g > 65536) g = 65536;
    return g ? (unsigned)g : 1;
}

/* Elements [lo, hi) outside every segment: copied unchanged; argsort: their positions. */
static gpusort_status copy_gap(gpusort_ctx *ctx, const gpusort__sort_args *d, uint64_t lo,
                               uint64_t hi)
{
    if (hi <= lo) return GPUSORT_STATUS_SUCCESS;
    cudaStream_t st = gpusort__cuda_stream(ctx);
    size_t ks = gpusort_type_size(d->key_type);
    gpusort_status s;
    if (d->keys_out != d->keys_in &&
        (s = gpusort__cuda_check(ctx, cudaMemcpyAsync((char *)d->keys_out + lo * ks,
                                                      (const char *)d->keys_in + lo * ks,
                                                      (hi - lo) * ks, cudaMemcpyDeviceToDevice, st),
                                 "cudaMemcpyAsync (segment gap)")))
        return s;
    if (d->value_type == GPUSORT_TYPE_NONE) return GPUSORT_STATUS_SUCCESS;
    size_t vs = gpusort_type_size(d->value_type);
    if (d->values_in) {
        if (d->values_out == d->values_in) return GPUSORT_STATUS_SUCCESS;
        return gpusort__cuda_check(ctx, cudaMemcpyAsync((char *)d->values_out + lo * vs,
                                                        (const char *)d->values_in + lo * vs,
                                                        (hi - lo) * vs, cudaMemcpyDeviceToDevice, st),
                                   "cudaMemcpyAsync (segment gap)");
    }
    k_iota_add<<<grid_for(hi - lo, 256), 256, 0, st>>>((char *)d->values_out + lo * vs, (int)vs,
                                                        hi - lo, lo, 0);
    return gpusort__cuda_check(ctx, cudaGetLastError(), "iota kernel");
}

/* One segment through the radix sort (argsort indices shifted to global positions). */
static gpusort_status radix_segment(gpusort_ctx *ctx, const gpusort__sort_args *d, uint64_t lo,
                                    uint64_t hi)
{
    size_t ks = gpusort_type_size(d->key_type);
    size_t vs = d->value_type == GPUSORT_TYPE_NONE ? 0 : gpusort_type_size(d->value_type);
    gpusort__sort_args sd = *d;
    sd.n = hi - lo;
    sd.keys_in = (const char *)d->keys_in + lo * ks;
    sd.keys_out = (char *)d->keys_out + lo * ks;
    if (vs) {
        if (d->values_in) sd.values_in = (const char *)d->values_in + lo * vs;
        sd.values_out = (char *)d->values_out + lo * vs;
    }
    sd.algorithm = GPUSORT_ALGORITHM_RADIX;
    gpusort_status s = gpusort__cuda_radix_sort(ctx, &sd);
    if (s || !vs || d->values_in || lo == 0) return s;
    k_iota_add<<<grid_for(hi - lo, 256), 256, 0, gpusort__cuda_stream(ctx)>>>(
        sd.values_out, (int)vs, hi - lo, lo, 1);
    return gpusort__cuda_check(ctx, cudaGetLastError(), "index shift kernel");
}

gpusort_status gpusort__cuda_segmented_sort_masked(gpusort_ctx *ctx, const gpusort__sort_args *d,
                                                  const uint64_t *d_offsets, size_t num_segments,
                                                  const uint8_t *d_active)
{
    cudaStream_t st = gpusort__cuda_stream(ctx);
    const uint64_t n = d->n;
    gpusort_status s;
    if (num_segments == 0) return n ? copy_gap(ctx, d, 0, n) : GPUSORT_STATUS_SUCCESS;
    if (num_segments >= 0xffffffffull)
        return gpusort__set_error(ctx, GPUSORT_STATUS_UNSUPPORTED,
                                  "%zu segments: the CUDA segmented sort takes fewer than 2^32",
                                  num_segments);
    const uint64_t max_large = n / (GPUSORT_CUDA_BLOCK_TILE + 1) + 1;
    size_t aux_bytes = (INFO_WORDS + 2 * max_large) * sizeof(uint64_t);
    unsigned long long *info =
        (unsigned long long *)gpusort__cuda_scratch(ctx, GPUSORT_CUDA_SCRATCH_AUX, aux_bytes);
    if (!info) return GPUSORT_STATUS_OUT_OF_DEVICE_MEMORY;
    uint64_t *large = (uint64_t *)(info + INFO_WORDS);
    if ((s = gpusort__cuda_check(ctx, cudaMemsetAsync(info, 0, INFO_WORDS * 8, st), "cudaMemsetAsync")))
        return s;
    k_seg_count<<<grid_for(num_segments, 256), 256, 0, st>>>(d_offsets, num_segments, n, info,
                                                            large, max_large, d_active);
    unsigned long long h_info[INFO_WORDS];
    if ((s = gpusort__cuda_check(ctx, cudaGetLastError(), "segment count kernel")) ||
        (s = gpusort__cuda_check(ctx, cudaMemcpyAsync(h_info, info, sizeof h_info,
                                                      cudaMemcpyDeviceToHost, st),
                                 "cudaMemcpyAsync (segment counts)")) ||
        (s = gpusort__cuda_check(ctx, cudaStreamSynchronize(st), "cudaStreamSynchronize")))
        return s;
    if (h_info[INFO_BAD] || h_info[INFO_LARGE] > max_large)
        return gpusort__set_error(ctx, GPUSORT_STATUS_INVALID_ARGUMENT,
                                  "segment offsets must be non-decreasing and at most n = %llu",
                                  (unsigned long long)n);
    if (!d_active && ((s = copy_gap(ctx, d, 0, h_info[INFO_FIRST])) ||
                      (s = copy_gap(ctx, d, h_info[INFO_LAST], n))))
        return s;

    /* Large segments: to the host, the longest ones to the radix sort. */
    uint64_t nlarge = h_info[INFO_LARGE];
    uint64_t *h_large = NULL, *m_lo = NULL, *m_hi = NULL;
    size_t nmerge = 0;
    if (nlarge) {
        h_large = (uint64_t *)malloc(nlarge * 4 * sizeof(uint64_t));
        if (!h_large) return gpusort__set_error(ctx, GPUSORT_STATUS_OUT_OF_HOST_MEMORY,
                                                "segment list of %llu entries",
                                                (unsigned long long)nlarge);
        m_lo = h_large + 2 * nlarge;
        m_hi = m_lo + nlarge;
        if ((s = gpusort__cuda_check(ctx, cudaMemcpyAsync(h_large, large, nlarge * 16,
                                                          cudaMemcpyDeviceToHost, st),
                                     "cudaMemcpyAsync (large segments)")) ||
            (s = gpusort__cuda_check(ctx, cudaStreamSynchronize(st), "cudaStreamSynchronize")))
            goto done;
        int radix_ok = 1;
        for (uint64_t i = 0; i < nlarge; i++) {
            uint64_t lo = h_large[2 * i], hi = h_large[2 * i + 1];
            if (radix_ok && hi - lo >= SEG_RADIX_MIN) {
                s = radix_segment(ctx, d, lo, hi);
                if (s == GPUSORT_STATUS_SUCCESS) continue;
                if (s != GPUSORT_STATUS_UNSUPPORTED) goto done;
                radix_ok = 0;  /* radix sort not available: merge instead */
                ctx->last_error[0] = 0;
            }
            m_lo[nmerge] = lo;
            m_hi[nmerge] = hi;
            nmerge++;
        }
    }
    {
        /* Small segments: lists per class (the radix calls may have moved AUX: ask again). */
        size_t lists_off = (INFO_WORDS + 2 * max_large) * sizeof(uint64_t);
        info = (unsigned long long *)gpusort__cuda_scratch(ctx, GPUSORT_CUDA_SCRATCH_AUX,
                                                           lists_off + num_segments * 4);
        if (!info) { s = GPUSORT_STATUS_OUT_OF_DEVICE_MEMORY; goto done; }
        uint32_t *lists = (uint32_t *)((char *)info + lists_off);
        seg_bases b;
        uint64_t total = 0;
        for (int c = 0; c < SEG_CLASSES; c++) {
            b.base[c] = total;
            total += h_info[INFO_COUNT + c];
        }
        if (total) {
            if ((s = gpusort__cuda_check(ctx, cudaMemsetAsync(info + INFO_CURSOR, 0, 8 * SEG_CLASSES, st),
                                         "cudaMemsetAsync")))
                goto done;
            k_seg_fill<<<grid_for(num_segments, 256), 256, 0, st>>>(d_offsets, num_segments, info,
                                                                   lists, b, d_active);
            if ((s = gpusort__cuda_check(ctx, cudaGetLastError(), "segment fill kernel"))) goto done;
        }
        gpusort_bs_args a;
        memset(&a, 0, sizeof a);
        a.keys_in = d->keys_in;
        a.keys_out = d->keys_out;
        a.values_in = d->values_in;
        a.values_out = d->value_type == GPUSORT_TYPE_NONE ? NULL : d->values_out;
        a.type = d->key_type;
        a.desc = d->order == GPUSORT_ORDER_DESC;
        a.vbytes = d->value_type == GPUSORT_TYPE_NONE ? 0 : (int)gpusort_type_size(d->value_type);
        a.tiling = 1;
        a.offsets = d_offsets;
        for (int c = 0; c < SEG_CLASSES; c++) {
            uint64_t cnt = h_info[INFO_COUNT + c];
            if (!cnt) continue;
            a.list = lists + b.base[c];
            if ((s = gpusort__cuda_block_sort_launch(ctx, &a, seg_class_max[c], cnt))) goto done;
        }
    }
    if (nmerge) s = gpusort__cuda_merge_segments(ctx, d, m_lo, m_hi, nmerge, 0);
done:
    free(h_large);
    return s;
}

extern "C" gpusort_status gpusort__cuda_segmented_sort(gpusort_ctx *ctx,
                                                       const gpusort__sort_args *d,
                                                       const uint64_t *d_offsets,
                                                       size_t num_segments)
{
    return gpusort__cuda_segmented_sort_masked(ctx, d, d_offsets, num_segments, NULL);
}
