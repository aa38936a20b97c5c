/*
 * hostdata.h -- INTERNAL: the one host-data path of the device backends: sort elements that
 * live on the host (arrays, or the caller's read/write callbacks of hoststream.h) on a device,
 * through pinned staging buffers, with the copies in both directions overlapping the host's
 * work and the device's sort. hostdata.c says how; this header is the contract between it and
 * a backend.
 *
 * A backend (CUDA: src/cuda/host.cu; OpenCL: src/opencl/backend.c) fills a
 * gpusort__hostdev_ops table with its device operations and calls gpusort__hostdata_sort for
 * host arrays; hoststream.c calls it with callbacks when ctx->ops->hostdev is set. Order of
 * the callbacks within one call (each run of a larger-than-device sort repeats 2-6):
 *   1. capacity                       (once: how many elements one device run may hold)
 *   2. chunk, begin, iota             (per run: its chunking; device buffers for the run;
 *                                      argsort's indices)
 *   3. h2d ... / sort per chunk       (several host threads call h2d at once; sort is called
 *                                      by one thread at a time, chunks in order, once every
 *                                      h2d of the chunk has been called)
 *   4. finish                         (once the last chunk's sort is called)
 *   5. d2h ..., wait ...              (several host threads)
 *   6. drain                          (always, also after a failure; its status is the run's)
 * Event indices name the staging buffers: host thread w uses 2w and 2w + 1; `wait(ev)` waits
 * for the last h2d or d2h that named ev. -1: no event (the source or target is the caller's
 * DMA-able memory, the final drain waits for it).
 */
#ifndef GPUSORT_HOSTDATA_H
#define GPUSORT_HOSTDATA_H

#include "backend.h"
#include "hoststream.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Staging threads at most (2 events each): hostdata.c says why. */
#define GPUSORT__HOSTDATA_MAX_THREADS 16
/* Ranges of the final merge pass the copy-out may be gated on, at most. */
#define GPUSORT__HOSTDATA_MAX_RANGES 8

typedef struct gpusort__hostdev_ops {
    /* At least `bytes` of page-locked host memory owned by the context (kept between calls:
     * allocating pinned memory costs milliseconds), or NULL when none is to be had. */
    void *(*staging)(gpusort_ctx *ctx, size_t bytes);
    /* The most elements of d one device run holds (keys, values and the sort's scratch). */
    size_t (*capacity)(gpusort_ctx *ctx, const gpusort__sort_args *d);
    /* The chunk length for a run of n elements of d (chunks sorted as they arrive, then
     * merged on the device: finish), or 0 for one chunk; direct: every array of the run is
     * the device's to copy itself (no staging). (optional: NULL = one chunk) */
    size_t (*chunk)(gpusort_ctx *ctx, const gpusort__sort_args *d, size_t n, int direct);
    /* Device buffers for a run of n elements of d, sorted in chunks of `chunk` (n: one). */
    gpusort_status (*begin)(gpusort_ctx *ctx, const gpusort__sort_args *d, size_t n,
                            size_t chunk);
    /* (optional) Argsort: make the run's values base + i (i < n) on the device, ordered before
     * the sorts. NULL: hostdata.c makes them on the host and copies them like data. */
    gpusort_status (*iota)(gpusort_ctx *ctx, size_t base, size_t n);
    /* Enqueue the copy of elements [first, first + count) of array `slot` (0 keys, 1 values)
     * from host `src` to the run's device buffer; then mark event ev (-1: none). */
    gpusort_status (*h2d)(gpusort_ctx *ctx, int slot, size_t first, size_t count,
                          const void *src, int ev);
    /* Enqueue the sort of elements [first, first + count) of the run, after their copies. */
    gpusort_status (*sort)(gpusort_ctx *ctx, const gpusort__sort_args *d, size_t first,
                           size_t count);
    /* After the last chunk's sort: merge the chunks if there are several, and say where the
     * sorted run may be copied out from: range_end[j] (j < return value, at most `ranges`)
     * ends the j-th range of elements; d2h's gate j waits for range j. Returns the number of
     * ranges (>= 1) or 0 on failure (the context's error is set). */
    int (*finish)(gpusort_ctx *ctx, const gpusort__sort_args *d, size_t n, size_t chunk,
                  uint64_t *range_end, int ranges, gpusort_status *status);
    /* Enqueue the copy of elements [first, first + count) of the sorted run's array `slot`
     * to host `dst` once range `gate` is ready; then mark event ev (-1: none). */
    gpusort_status (*d2h)(gpusort_ctx *ctx, int slot, size_t first, size_t count, void *dst,
                          int gate, int ev);
    /* The host waits for event ev. */
    gpusort_status (*wait)(gpusort_ctx *ctx, int ev);
    /* Wait for everything enqueued (copies and sorts); SUCCESS or the device's error. */
    gpusort_status (*drain)(gpusort_ctx *ctx);
} gpusort__hostdev_ops;

/* Sort d's host arrays on the device. direct[i]: array i of (keys_in, keys_out, values_in,
 * values_out) can be the source or target of a device copy itself (CUDA: page-locked); the
 * others go through the staging buffers. values_in == NULL with a value type: argsort (the
 * indices are made on the host as the staging buffers fill). Arrays larger than one device run
 * are sorted in runs and merged on the host (gpusort__cpu_merge_runs). Completes before
 * returning. */
gpusort_status gpusort__hostdata_sort(gpusort_ctx *ctx, const gpusort__hostdev_ops *ops,
                                      const gpusort__sort_args *d, const int direct[4]);

/* The same for elements read and written through s (hoststream.h's contract: s->seconds and
 * s->io_errno are set here). Only for n <= ops->capacity (hoststream.c checks: larger inputs
 * take its host-memory path, whose sort is gpusort__hostdata_sort's runs). */
gpusort_status gpusort__hostdata_stream(gpusort_ctx *ctx, const gpusort__hostdev_ops *ops,
                                        const gpusort__sort_args *d, gpusort__stream *s);

#ifdef __cplusplus
}
#endif
#endif /* GPUSORT_HOSTDATA_H */
