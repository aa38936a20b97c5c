/*
 * cpu.h -- INTERNAL: the CPU backend's functions, shared by its files and usable by the other
 * backends (the GPU backends merge host-side runs with them) and by the CLI's text mode.
 *
 *   backend.c   the ops table, device info, dispatch by algorithm     (gpusort__cpu_ops)
 *   parallel.c  a tiny pthread fork-join helper                        gpusort__cpu_parallel_for
 *   radix.c     multithreaded LSD radix sort, keys/pairs/argsort       gpusort__cpu_radix_sort
 *   merge.c     stable parallel merge sort; k-way merge of sorted runs gpusort__cpu_merge_sort,
 *                                                                      gpusort__cpu_merge_runs
 *   reduce.c    parallel sum/min/max                                   gpusort__cpu_reduce
 *   segmented.c segmented and fixed-row batch sort                     gpusort__cpu_segmented_sort
 *   strings.c   byte-string sort (MSD radix + multikey quicksort)       gpusort__cpu_sort_strings
 *   records.c   fixed-size record sort by a byte key                   gpusort__cpu_sort_records
 *   topk.c      top-k by radix select, one row or rows                 gpusort__cpu_topk
 *
 * All take arguments already checked by the core (see backend.h), host memory only.
 */
#ifndef GPUSORT_CPU_H
#define GPUSORT_CPU_H

#include "backend.h"
#include "internal.h"

#ifdef __cplusplus
extern "C" {
#endif

/* gpusort__cpu_parallel_for (parallel.c) is declared in internal.h, which the programs use too. */
/* dst[0..n) = src[0..n) (elements of es bytes), or the indices base, base + 1, ... (es 4 or 8)
 * when src is NULL, on up to `threads` threads. */
void gpusort__cpu_parallel_copy(int threads, void *dst, const void *src, size_t n, size_t es,
                                uint64_t base);

gpusort_status gpusort__cpu_sort(gpusort_ctx *ctx, const gpusort__sort_args *d);
gpusort_status gpusort__cpu_radix_sort(gpusort_ctx *ctx, const gpusort__sort_args *d);
gpusort_status gpusort__cpu_merge_sort(gpusort_ctx *ctx, const gpusort__sort_args *d);

/* Stable k-way merge of sorted runs. Run r is elements [run_offsets[r], run_offsets[r+1]) of
 * d->keys_in (and d->values_in if d has values), each sorted in d->order by the gpusort order.
 * The merged result goes to d->keys_out / d->values_out (must not alias the inputs). Ties go to
 * the lower run, so merging runs cut from one array in order is stable. */
gpusort_status gpusort__cpu_merge_runs(gpusort_ctx *ctx, const gpusort__sort_args *d,
                                       const uint64_t *run_offsets, size_t num_runs);

gpusort_status gpusort__cpu_reduce(gpusort_ctx *ctx, gpusort_type type, const void *data,
                                   size_t n, gpusort_op op, gpusort_value *result);
gpusort_status gpusort__cpu_segmented_sort(gpusort_ctx *ctx, const gpusort__sort_args *d,
                                           const uint64_t *offsets, size_t num_segments);
gpusort_status gpusort__cpu_batch_sort(gpusort_ctx *ctx, const gpusort__sort_args *d,
                                       size_t row_length);
gpusort_status gpusort__cpu_sort_strings(gpusort_ctx *ctx, const uint8_t *bytes,
                                         const uint64_t *offsets, size_t n, gpusort_order order,
                                         uint64_t *perm_out);
gpusort_status gpusort__cpu_sort_records(gpusort_ctx *ctx, const void *records_in,
                                         void *records_out, size_t n, size_t record_size,
                                         size_t key_offset, size_t key_size, gpusort_order order,
                                         uint64_t *perm_out);

gpusort_status gpusort__cpu_topk(gpusort_ctx *ctx, const gpusort__topk_args *args);

#ifdef __cplusplus
}
#endif
#endif /* GPUSORT_CPU_H */
