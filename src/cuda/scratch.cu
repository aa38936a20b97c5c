/*
 * scratch.cu -- where the CUDA backend's device memory comes from: the context's own allocation
 * (cudaMalloc, kept between calls), the caller's allocator, or the caller's workspace; and the
 * bytes each call needs from a workspace (GPUSORT_FLAG_QUERY_SCRATCH).
 *
 * Exports (cuda_internal.h): gpusort__cuda_scratch, gpusort__cuda_scratch_zeroed,
 * gpusort__cuda_scratch_release, gpusort__cuda_dev_alloc / _dev_free (strings.cu's buffers),
 * gpusort__cuda_workspace_enter (backend.cu, at the start of each call on a workspace), and the
 * three methods of the backend table: gpusort__cuda_set_allocator, gpusort__cuda_set_scratch,
 * gpusort__cuda_scratch_size.
 *
 * Slots. A call holds up to GPUSORT_CUDA_SCRATCH_COUNT buffers at once, one per slot
 * (cuda_internal.h names them). Without a workspace each slot is one allocation grown on
 * demand to exactly the size asked, never shrunk, given back by trim and free; allocations go
 * to the caller's allocator when one is set (with the context's stream: stream-ordered, as
 * cudaMallocAsync), else to cudaMalloc.
 *
 * Workspace. With one set, the call first computes an upper bound of what each slot will be
 * asked for (scratch_bounds below: the same function answers the query), checks that their sum
 * fits, and cuts the workspace into one region per slot:
 *     workspace: [KEYS bound][VALUES bound][AUX bound] ... each rounded up to 256 bytes
 * A slot request is then served from its region; one beyond its bound would be a bug in the
 * bounds, reported as INVALID_ARGUMENT ("internal"), never an overflow. The bounds follow each
 * algorithm's own requests (the file and line of each are named below); tests run every call
 * with a workspace of exactly the queried size (tests/cuda_alloc.c).
 *
 * Test knob: GPUSORT_TEST_FAIL_DEVICE_ALLOC=k (read at context creation) fails the k-th
 * cudaMalloc of the context (k from 1), as if the device were full.
 */
#include "block_sort.h"

#include <cuda_runtime.h>
#include <stdlib.h>

/* ---- allocation ---- */

extern "C" void *gpusort__cuda_dev_alloc(gpusort_ctx *ctx, size_t bytes, const char *what)
{
    gpusort__cuda_impl *im = gpusort__cuda_impl_of(ctx);
    if (bytes == 0) bytes = 1;
    void *p = NULL;
    if (im->allocator.alloc) {
        p = im->allocator.alloc(im->allocator.user, bytes, (void *)im->stream);
        if (!p)
            gpusort__set_error(ctx, GPUSORT_STATUS_OUT_OF_DEVICE_MEMORY,
                               "the caller's allocator gave no %zu bytes (%s)", bytes, what);
        return p;
    }
    im->alloc_count++;
    if (im->fail_alloc_at && im->alloc_count == im->fail_alloc_at) {
        gpusort__set_error(ctx, GPUSORT_STATUS_OUT_OF_DEVICE_MEMORY,
                           "cudaMalloc of %zu bytes (%s): failed by GPUSORT_TEST_FAIL_DEVICE_ALLOC=%ld",
                           bytes, what, im->fail_alloc_at);
        return NULL;
    }
    cudaError_t e = cudaMalloc(&p, bytes);
    if (e != cudaSuccess) {
        (void)cudaGetLastError();
        gpusort__set_error(ctx, GPUSORT_STATUS_OUT_OF_DEVICE_MEMORY, "cudaMalloc of %zu bytes (%s): %s",
                           bytes, what, cudaGetErrorString(e));
        return NULL;
    }
    return p;
}

/* Give p back to whoever allocated it. cudaFree waits for the device (work still enqueued may
 * use p); the caller's free gets the stream and orders itself after that work. */
static void dev_free(gpusort__cuda_impl *im, void *p, size_t bytes)
{
    if (!p) return;
    if (im->allocator.free) im->allocator.free(im->allocator.user, p, bytes ? bytes : 1, (void *)im->stream);
    else cudaFree(p);
}

extern "C" void gpusort__cuda_dev_free(gpusort_ctx *ctx, void *p, size_t bytes)
{
    dev_free(gpusort__cuda_impl_of(ctx), p, bytes);
}

/* ---- slots ---- */

extern "C" void *gpusort__cuda_scratch(gpusort_ctx *ctx, int slot, size_t bytes)
{
    gpusort__cuda_impl *im = gpusort__cuda_impl_of(ctx);
    if (slot < 0 || slot >= GPUSORT_CUDA_SCRATCH_COUNT) return NULL;
    if (bytes == 0) bytes = 1;
    if (im->ws) {
        if (bytes > im->ws_size[slot]) {
            gpusort__set_error(ctx, GPUSORT_STATUS_INVALID_ARGUMENT,
                               "internal: scratch slot %d asked for %zu bytes, its bound is %zu",
                               slot, bytes, im->ws_size[slot]);
            return NULL;
        }
        return (char *)im->ws + im->ws_off[slot];
    }
    if (im->scratch[slot] && im->scratch_bytes[slot] >= bytes) return im->scratch[slot];
    if (im->scratch[slot]) {
        dev_free(im, im->scratch[slot], im->scratch_bytes[slot]);
        im->scratch[slot] = NULL;
        im->scratch_bytes[slot] = 0;
    }
    /* Exactly what is asked (the scratch figures of README.md are exact). */
    void *p = gpusort__cuda_dev_alloc(ctx, bytes, "scratch");
    if (!p) return NULL;
    im->scratch[slot] = p;
    im->scratch_bytes[slot] = bytes;
    return p;
}

extern "C" void *gpusort__cuda_scratch_zeroed(gpusort_ctx *ctx, int slot, size_t bytes)
{
    gpusort__cuda_impl *im = gpusort__cuda_impl_of(ctx);
    if (slot < 0 || slot >= GPUSORT_CUDA_SCRATCH_COUNT) return NULL;
    /* gpusort__cuda_scratch reallocates exactly when the slot is empty or too small (and a new
     * buffer may reuse the old address, so the pointer cannot tell). A workspace region is
     * shared with other slots' earlier calls: zeroed every time. */
    const int fresh = im->ws || !im->scratch[slot] || im->scratch_bytes[slot] < (bytes ? bytes : 1);
    void *p = gpusort__cuda_scratch(ctx, slot, bytes);
    if (p && fresh &&
        gpusort__cuda_check(ctx, cudaMemsetAsync(p, 0, im->ws ? bytes : im->scratch_bytes[slot],
                                                 im->stream),
                            "cudaMemsetAsync (scratch)"))
        return NULL;
    return p;
}

extern "C" void gpusort__cuda_scratch_release(gpusort__cuda_impl *im)
{
    for (int i = 0; i < GPUSORT_CUDA_SCRATCH_COUNT; i++) {
        dev_free(im, im->scratch[i], im->scratch_bytes[i]);
        im->scratch[i] = NULL;
        im->scratch_bytes[i] = 0;
    }
}

/* ---- bounds ---- */

static size_t up256(size_t x) { return (x + 255) / 256 * 256; }
static void at_least(size_t *b, size_t x) { if (*b < x) *b = x; }

/* The slots of a device-data sort of d with algorithm a (resolved), keys_out set. */
static void sort_bounds(gpusort_ctx *ctx, const gpusort__sort_args *d, gpusort_algorithm a,
                        size_t *b)
{
    const size_t n = d->n, ks = gpusort_type_size(d->key_type);
    const size_t vs = d->value_type == GPUSORT_TYPE_NONE ? 0 : gpusort_type_size(d->value_type);
    const size_t tiles = n / GPUSORT_CUDA_BLOCK_TILE + 2;
    switch (a) {
    case GPUSORT_ALGORITHM_RADIX: /* radix.cu, radix_sort: aux, alternate keys and values (an
                                     argsort with u64 indices may take n*4: narrow indices) */
        at_least(&b[GPUSORT_CUDA_SCRATCH_AUX], gpusort__cuda_radix_aux_bytes(ctx, d));
        at_least(&b[GPUSORT_CUDA_SCRATCH_KEYS], n * ks);
        at_least(&b[GPUSORT_CUDA_SCRATCH_VALUES], n * vs);
        break;
    case GPUSORT_ALGORITHM_MERGE: /* merge.cu, merge_segments (one segment) and float_exact */
        at_least(&b[GPUSORT_CUDA_SCRATCH_AUX2], 3 * 2 * 8 + (tiles + 1) * 8);
        at_least(&b[GPUSORT_CUDA_SCRATCH_KEYS], n * ks);
        at_least(&b[GPUSORT_CUDA_SCRATCH_VALUES], n * vs);
        break;
    case GPUSORT_ALGORITHM_BITONIC: /* bitonic.cu: items (key + index), input copies, stats */
        at_least(&b[GPUSORT_CUDA_SCRATCH_KEYS], n * 2 * ks);
        at_least(&b[GPUSORT_CUDA_SCRATCH_AUX], n * ks);
        at_least(&b[GPUSORT_CUDA_SCRATCH_AUX2], n * vs > (n / 256 + 2) * 16 ? n * vs
                                                                           : (n / 256 + 2) * 16);
        break;
    case GPUSORT_ALGORITHM_RANK: /* rank.cu: input copies, sorted tiles, counters */
        at_least(&b[GPUSORT_CUDA_SCRATCH_AUX2], n * ks);
        at_least(&b[GPUSORT_CUDA_SCRATCH_VALUES], n * vs);
        at_least(&b[GPUSORT_CUDA_SCRATCH_KEYS], n * 2 * ks);
        at_least(&b[GPUSORT_CUDA_SCRATCH_AUX], (2 * n + 1) * 4);
        break;
    default: break;
    }
}

/* The slots of a segmented sort of device data (segmented.cu: the segment table, radix for
 * the longest segments, merge_segments for the other large ones). */
static void segmented_bounds(gpusort_ctx *ctx, const gpusort__sort_args *d, size_t segs, size_t *b)
{
    const size_t n = d->n, ks = gpusort_type_size(d->key_type);
    b[GPUSORT_CUDA_SCRATCH_IO_OFFSETS] += (segs + 1) * 8; /* host offsets; batch: its rows */
    size_t info = (32 + 2 * (n / (GPUSORT_CUDA_BLOCK_TILE + 1) + 1)) * 8 + segs * 4;
    at_least(&b[GPUSORT_CUDA_SCRATCH_AUX], info);
    sort_bounds(ctx, d, GPUSORT_ALGORITHM_RADIX, b);
    sort_bounds(ctx, d, GPUSORT_ALGORITHM_MERGE, b);
    at_least(&b[GPUSORT_CUDA_SCRATCH_AUX2],
             3 * (segs + 1) * 8 + (n / GPUSORT_CUDA_BLOCK_TILE + segs + 2) * 8);
    if (!d->keys_out) at_least(&b[GPUSORT_CUDA_SCRATCH_IO_KEYS], n * ks);
}

/* Per-slot bounds of the call q (0 for a slot it does not use); host: the data is in host
 * memory. Returns the total of the slots, each rounded up to 256 bytes. */
static size_t scratch_bounds(gpusort_ctx *ctx, const gpusort__scratch_query *q, int host,
                             size_t *b)
{
    for (int i = 0; i < GPUSORT_CUDA_SCRATCH_COUNT; i++) b[i] = 0;
    if (q->call == GPUSORT__CALL_REDUCE) {
        at_least(&b[GPUSORT_CUDA_SCRATCH_REDUCE], gpusort__cuda_reduce_scratch_bytes(ctx));
        if (host) at_least(&b[GPUSORT_CUDA_SCRATCH_IO_KEYS], q->n * gpusort_type_size(q->type));
    } else {
        gpusort__sort_args d = *q->sort;
        const size_t ks = gpusort_type_size(d.key_type);
        const size_t vs = d.value_type == GPUSORT_TYPE_NONE ? 0 : gpusort_type_size(d.value_type);
        if (host) { /* the host data's device copies (src/hostdata.c through host.cu's hd_*
                       operations, one chunk with a workspace; host.cu's segmented_host) */
            if (q->call == GPUSORT__CALL_SORT && d.algorithm == GPUSORT_ALGORITHM_AUTO &&
                gpusort__cuda_auto_on_cpu(ctx, &d))
                return 0;
            at_least(&b[GPUSORT_CUDA_SCRATCH_IO_KEYS], d.n * ks);
            at_least(&b[GPUSORT_CUDA_SCRATCH_IO_VALUES], d.n * vs);
            d.keys_out = (void *)1; /* sorted in place on the device */
            /* argsort: hostdata.c makes the indices on the host; the device sorts pairs */
            if (q->call == GPUSORT__CALL_SORT && vs && !d.values_in) d.values_in = (void *)1;
        }
        if (q->call == GPUSORT__CALL_SORT) {
            if (!d.keys_out) at_least(&b[GPUSORT_CUDA_SCRATCH_IO_KEYS], d.n * ks);
            gpusort_algorithm a = d.algorithm == GPUSORT_ALGORITHM_AUTO
                                      ? gpusort__cuda_auto_algorithm(ctx, &d)
                                      : d.algorithm;
            sort_bounds(ctx, &d, a, b);
        } else {
            size_t segs = q->call == GPUSORT__CALL_BATCH ? d.n / q->row_length : q->num_segments;
            segmented_bounds(ctx, &d, segs, b);
        }
    }
    size_t total = 0;
    for (int i = 0; i < GPUSORT_CUDA_SCRATCH_COUNT; i++) total += b[i] ? up256(b[i]) : 0;
    return total;
}

/* ---- the table's methods and the workspace ---- */

extern "C" gpusort_status gpusort__cuda_scratch_size(gpusort_ctx *ctx, const gpusort__scratch_query *q,
                                                     size_t *bytes)
{
    int host = gpusort__cuda_query_on_host(q);
    size_t b[GPUSORT_CUDA_SCRATCH_COUNT];
    *bytes = scratch_bounds(ctx, q, host, b);
    return GPUSORT_STATUS_SUCCESS;
}

extern "C" gpusort_status gpusort__cuda_workspace_enter(gpusort_ctx *ctx, const gpusort__scratch_query *q,
                                                        int host)
{
    gpusort__cuda_impl *im = gpusort__cuda_impl_of(ctx);
    if (!im->ws) return GPUSORT_STATUS_SUCCESS;
    size_t b[GPUSORT_CUDA_SCRATCH_COUNT];
    size_t total = scratch_bounds(ctx, q, host, b);
    if (total > im->ws_bytes)
        return gpusort__set_error(ctx, GPUSORT_STATUS_INVALID_ARGUMENT,
                                  "the call needs %zu bytes of scratch; the workspace has %zu "
                                  "(GPUSORT_FLAG_QUERY_SCRATCH gives the size)",
                                  total, im->ws_bytes);
    size_t off = 0;
    for (int i = 0; i < GPUSORT_CUDA_SCRATCH_COUNT; i++) {
        im->ws_off[i] = off;
        im->ws_size[i] = b[i] ? up256(b[i]) : 0;
        off += im->ws_size[i];
    }
    return GPUSORT_STATUS_SUCCESS;
}

extern "C" gpusort_status gpusort__cuda_set_allocator(gpusort_ctx *ctx, const gpusort_allocator *a)
{
    gpusort__cuda_impl *im = gpusort__cuda_impl_of(ctx);
    gpusort_status s = gpusort__cuda_check(ctx, cudaSetDevice(im->device), "cudaSetDevice");
    if (s) return s;
    gpusort__cuda_scratch_release(im); /* back to whoever gave them */
    if (a) im->allocator = *a;
    else im->allocator = gpusort_allocator();
    return GPUSORT_STATUS_SUCCESS;
}

extern "C" gpusort_status gpusort__cuda_set_scratch(gpusort_ctx *ctx, void *scratch, size_t bytes)
{
    gpusort__cuda_impl *im = gpusort__cuda_impl_of(ctx);
    if (scratch) {
        struct cudaPointerAttributes pa;
        cudaError_t e = cudaPointerGetAttributes(&pa, scratch);
        if (e != cudaSuccess || (pa.type != cudaMemoryTypeDevice && pa.type != cudaMemoryTypeManaged)) {
            (void)cudaGetLastError();
            return gpusort__set_error(ctx, GPUSORT_STATUS_INVALID_ARGUMENT,
                                      "the workspace %p is not device memory", scratch);
        }
    }
    im->ws = scratch;
    im->ws_bytes = bytes;
    for (int i = 0; i < GPUSORT_CUDA_SCRATCH_COUNT; i++) im->ws_off[i] = im->ws_size[i] = 0;
    return GPUSORT_STATUS_SUCCESS;
}
