/*
 * block_sort.h -- INTERNAL: the host side of block_sort.cu, the launcher that sorts many tiles
 * or segments of up to 4096 keys (16384 for small items) on chip, one block (or warp) each.
 * Used by segmented.cu, bitonic.cu and rank.cu; GPUSORT_CUDA_BLOCK_TILE is also the tile of the
 * merge sort (merge.cu) and so the unit of the host pipeline's chunks (host.cu).
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
    /* Tiling: which [lo, lo + count) block b sorts. */
    int tiling;              /* 0 uniform tiles, 1 segment list */
    uint64_t n;              /* tiling 0: total length */
    uint64_t tile;           /* tiling 0: tile length (<= network size) */
    const uint64_t *offsets; /* tiling 1: CSR offsets (device) */
    const uint32_t *list;    /* tiling 1: segment ids, one per block */
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

#endif /* GPUSORT_CUDA_BLOCK_SORT_H */
