/*
 * cuda_internal.h -- INTERNAL: what the CUDA backend's files share.
 *
 * backend.cu owns the context state (device, stream, scratch buffers, pinned staging), pointer
 * detection and the host-data pipeline; it dispatches each call to one algorithm file:
 *   radix.cu      LSD radix sort (Onesweep class)         gpusort__cuda_radix_sort
 *   bitonic.cu    bitonic network                         gpusort__cuda_bitonic_sort
 *   merge.cu      block sort + merge-path merge           gpusort__cuda_merge_sort
 *   rank.cu       O(n^2) rank sort for tiny n             gpusort__cuda_rank_sort
 *   segmented.cu  segmented / batched sort                gpusort__cuda_segmented_sort
 *   reduce.cu     sum / min / max                         gpusort__cuda_reduce
 *   strings.cu    byte strings and records (host data)    gpusort__cuda_sort_strings/_records
 *
 * Contract of every algorithm entry:
 *   - every pointer in the desc is DEVICE memory; n > 0; types valid (the core checked);
 *   - keys_out is never NULL (backend.cu gives scratch when the caller passed NULL, as argsort
 *     does); keys_out == keys_in means in place; likewise for values;
 *   - values_in == NULL with value_type U32/U64 means argsort: values are 0..n-1;
 *   - the work is enqueued on gpusort__cuda_stream(ctx); the entry need not synchronise;
 *   - temporary device memory comes from gpusort__cuda_scratch() (owned by the context, grown
 *     on demand, reused across calls; slot numbers let one call hold several buffers at once);
 *   - on failure, return a status with gpusort__set_error() detail (gpusort__cuda_check helps).
 */
#ifndef GPUSORT_CUDA_INTERNAL_H
#define GPUSORT_CUDA_INTERNAL_H

#include "backend.h"

#include <cuda_runtime_api.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Scratch slots: a call may hold one buffer per slot at the same time. */
enum {
    GPUSORT_CUDA_SCRATCH_KEYS = 0,    /* alternate key buffer (n keys) */
    GPUSORT_CUDA_SCRATCH_VALUES = 1,  /* alternate value buffer (n values) */
    GPUSORT_CUDA_SCRATCH_AUX = 2,     /* histograms, look-back state, partitions */
    GPUSORT_CUDA_SCRATCH_AUX2 = 3,
    GPUSORT_CUDA_SCRATCH_IO_KEYS = 4, /* backend.cu: device copies of host data */
    GPUSORT_CUDA_SCRATCH_IO_VALUES = 5,
    GPUSORT_CUDA_SCRATCH_IO_OFFSETS = 6, /* backend.cu: device copy of segment offsets */
    GPUSORT_CUDA_SCRATCH_REDUCE = 7,  /* reduce.cu: ticket counter + partials (zeroed when made) */
    GPUSORT_CUDA_SCRATCH_COUNT = 8
};

cudaStream_t gpusort__cuda_stream(gpusort_ctx *ctx);
/* Device buffer of at least `bytes` for `slot`; NULL (with OUT_OF_DEVICE_MEMORY in the context's
 * error) if it cannot be had. The contents are undefined. */
void *gpusort__cuda_scratch(gpusort_ctx *ctx, int slot, size_t bytes);
/* The same, but a buffer that this call (re)allocates is zero-filled on the context's stream;
 * one that is kept keeps its contents. For state that kernels leave zeroed themselves. */
void *gpusort__cuda_scratch_zeroed(gpusort_ctx *ctx, int slot, size_t bytes);
/* SUCCESS for cudaSuccess; else DEVICE_ERROR (or OUT_OF_DEVICE_MEMORY) with
 * "what: <CUDA error string>" in the context's error. */
gpusort_status gpusort__cuda_check(gpusort_ctx *ctx, cudaError_t err, const char *what);
/* Properties of the context's device, read once at init. */
const struct cudaDeviceProp *gpusort__cuda_props(gpusort_ctx *ctx);

gpusort_status gpusort__cuda_radix_sort(gpusort_ctx *ctx, const gpusort__sort_args *d);
gpusort_status gpusort__cuda_bitonic_sort(gpusort_ctx *ctx, const gpusort__sort_args *d);
gpusort_status gpusort__cuda_merge_sort(gpusort_ctx *ctx, const gpusort__sort_args *d);
gpusort_status gpusort__cuda_rank_sort(gpusort_ctx *ctx, const gpusort__sort_args *d);
/* d_offsets: device memory, num_segments + 1 entries. */
gpusort_status gpusort__cuda_segmented_sort(gpusort_ctx *ctx, const gpusort__sort_args *d,
                                            const uint64_t *d_offsets, size_t num_segments);
/* result is host memory; the call completes before returning. */
gpusort_status gpusort__cuda_reduce(gpusort_ctx *ctx, gpusort_type type, const void *d_data,
                                    size_t n, gpusort_op op, gpusort_value *result);

/* Host pointers in, host pointers out (the ops-table signatures of backend.h). */
gpusort_status gpusort__cuda_sort_strings(gpusort_ctx *ctx, const uint8_t *bytes,
                                          const uint64_t *offsets, size_t n, gpusort_order order,
                                          uint64_t *perm_out);
gpusort_status gpusort__cuda_sort_records(gpusort_ctx *ctx, const void *records_in,
                                          void *records_out, size_t n, size_t record_size,
                                          size_t key_offset, size_t key_size, gpusort_order order,
                                          uint64_t *perm_out);

/* The largest n the rank sort accepts (O(n^2) work); above it it answers UNSUPPORTED. */
#define GPUSORT_CUDA_RANK_MAX_N ((size_t)1 << 16)

#ifdef __cplusplus
}
#endif
#endif /* GPUSORT_CUDA_INTERNAL_H */
