/*
 * block_sort.h -- INTERNAL: host-side interface between the comparison sorts of the CUDA backend
 * (segmented.cu defines the block-sort kernels and their launcher; merge.cu the segment-aware
 * merge sort; bitonic.cu and the benchmark use both).
 *
 *   gpusort__cuda_block_sort_launch   sort tiles/segments of up to 4096 keys, one block each
 *   gpusort__cuda_merge_segments      stable merge sort of a list of (large) segments
 *   gpusort__cuda_merge_runs          the merge passes alone, from sorted runs (host pipeline)
 *   gpusort__cuda_merge_multiway      seed 000's one-block column sort + multi-way merge variants
 *
 * C++ linkage (every caller is a .cu file of this backend).
 */
#ifndef GPUSORT_CUDA_BLOCK_SORT_H
#define GPUSORT_CUDA_BLOCK_SORT_H

#include "cuda_internal.h"

/* The largest segment/tile one block sorts on chip; also the tile of the merge sort and the
 * shared-memory part of the bitonic sort. 4096 = 256 threads x 16 items: 16 items per thread
 * keep most network steps in registers, and 4096 items of 16 bytes (u64 key + index) plus
 * padding fit twice in an SM's 228 KiB of shared memory. */
#define GPUSORT_CUDA_BLOCK_TILE 4096

/* What one block-sort launch sorts and where the result goes. */
typedef struct gpusort_bs_args {
    const void *keys_in;     /* original keys (radix keys are computed on load) */
    void *keys_out;          /* gather mode: sorted original keys */
    const void *values_in;   /* gather mode: NULL = argsort (value = global position) */
    void *values_out;        /* gather mode: NULL = keys only */
    void *items_out;         /* item mode (bitonic): Item array indexed by global position,
                              * indices global; keys_out/values_out unused */
    int type;                /* gpusort_type of the keys */
    int desc;                /* 1 = descending */
    int vbytes;              /* 0, 4 or 8: value/index bytes */
    int float_exact;         /* float keys known free of NaN and -0.0: no index needed */
    /* Tiling: which [lo, lo + count) block b sorts. */
    int tiling;              /* 0 uniform tiles, 1 segment list, 2 tile table */
    uint64_t n;              /* tiling 0: total length */
    uint64_t tile;           /* tiling 0: tile length (<= network size) */
    const uint64_t *offsets; /* tiling 1: CSR offsets (device) */
    const uint32_t *list;    /* tiling 1: segment ids, one per block */
    const uint64_t *t_lo;    /* tiling 2: segment starts (device) */
    const uint64_t *t_hi;    /* tiling 2: segment ends */
    const uint64_t *t_start; /* tiling 2: first tile of each segment; t_count + 1 entries */
    uint32_t t_count;        /* tiling 2: number of segments */
} gpusort_bs_args;

/* Sort `blocks` tiles with the smallest network that holds max_count items: up to 4096 for any
 * item, 8192 for items of 8 bytes or less, 16384 for 4-byte items (u32/i32 keys without values);
 * 32 and below: one warp per tile. Items carry an index when gpusort__cuda_needs_idx says so
 * (block_sort.cuh). Enqueued on the context's stream. */
gpusort_status gpusort__cuda_block_sort_launch(gpusort_ctx *ctx, const gpusort_bs_args *a,
                                               uint64_t max_count, uint64_t blocks);

/* 1 when items need an index: floats, or values/argsort. */
static inline int gpusort__cuda_needs_idx(const gpusort__sort_args *d)
{
    return d->key_type == GPUSORT_TYPE_F32 || d->key_type == GPUSORT_TYPE_F64 ||
           d->value_type != GPUSORT_TYPE_NONE;
}

/* The segmented sort restricted to the segments s with d_active[s] != 0 (device bytes; NULL =
 * all). Inactive segments and keys outside every segment are left as they are: use it in place
 * (keys_out == keys_in, values_out == values_in). */
gpusort_status gpusort__cuda_segmented_sort_masked(gpusort_ctx *ctx, const gpusort__sort_args *d,
                                                  const uint64_t *d_offsets, size_t num_segments,
                                                  const uint8_t *d_active);

/* 1 when d is a keys-only float sort of at least GPUSORT_CUDA_FLOAT_CHECK_MIN keys that holds
 * no NaN and no -0.0 (checked on the device; the call waits for the answer). Such keys sort as
 * bare radix keys, without the index that stability otherwise needs. 0 otherwise (also on any
 * error, which then just costs the faster path). */
#define GPUSORT_CUDA_FLOAT_CHECK_MIN ((size_t)1 << 17)
int gpusort__cuda_float_exact(gpusort_ctx *ctx, const gpusort__sort_args *d);

/* Stable merge sort of segments [lo[s], hi[s]) (host arrays, count entries) of d (device data;
 * keys_out never NULL; other elements untouched). float_exact: see above. Uses scratch KEYS,
 * VALUES and AUX2. */
gpusort_status gpusort__cuda_merge_segments(gpusort_ctx *ctx, const gpusort__sort_args *d,
                                            const uint64_t *lo, const uint64_t *hi,
                                            size_t count, int float_exact);

/* Merge sorted runs into one sorted array (stable: ties take the earlier run), the merge passes
 * of merge_segments without its tile phase. d (device data): n, key/value types and order;
 * d->keys_out (and d->values_out when value_type is set; argsort callers pass the indices as
 * values) hold the runs [k*w0, (k+1)*w0), the last one shorter; keys_in/values_in are ignored.
 * w0 = 4096 * 2^k < n. keys_alt/values_alt: n-element ping-pong buffers (values_alt unused for
 * keys only). The last pass is enqueued in `ranges` ranges of output tiles; after range j the
 * call records range_done[j] on the context's stream and sets range_end[j], the end of range j
 * in keys (range j = [range_end[j-1], range_end[j]), range_end[-1] = 0; the last = n).
 * *result_alt: 0 = the sorted data is in keys_out/values_out, 1 = in keys_alt/values_alt
 * (ceil(log2(runs)) passes ping-pong). Uses scratch AUX2 ((n / 4096 + 2) * 8 bytes). */
gpusort_status gpusort__cuda_merge_runs(gpusort_ctx *ctx, const gpusort__sort_args *d, uint64_t w0,
                                        void *keys_alt, void *values_alt,
                                        const cudaEvent_t *range_done, uint64_t *range_end,
                                        int ranges, int *result_alt);

/* Seed 000, generalised: one block of `lists` threads (1..1024) radix-sorts `lists` columns
 * (element i belongs to column i % lists) by 1-bit LSD passes, then merges the columns:
 *   variant 0  one thread picks the minimum head each step
 *   variant 1  every thread atomicMin()s its head into one shared word
 *   variant 2  pairwise tree reduction in shared memory
 *   variant 3  blocked reduction: atomicMin within groups of 8, then across groups
 * Stable (heads are compared as (radix key, index)); 32-bit key types only; keys, pairs and
 * argsort. Shared memory for n <= 4096, else global scratch (slow: a one-block algorithm). */
gpusort_status gpusort__cuda_merge_multiway(gpusort_ctx *ctx, const gpusort__sort_args *d,
                                            int variant, int lists);

#endif /* GPUSORT_CUDA_BLOCK_SORT_H */
