/*
 * backend.cu -- the CUDA backend's table: context state, devices, pointer detection, and
 * dispatch of each call to host.cu (host data) or to the algorithm files (device data; see
 * cuda_internal.h for the list).
 *
 * Exports: gpusort__cuda_ops (the backend table of src/backend.h); the helpers every CUDA file
 * uses: gpusort__cuda_stream, gpusort__cuda_check, gpusort__cuda_props; for host.cu:
 * gpusort__cuda_dispatch; for scratch.cu: gpusort__cuda_query_on_host.
 *
 * Order of calls (made by the core, src/gpusort.c):
 *   device_count -> init (cudaSetDevice, can the build run here (tuning.cu), the tuning row,
 *   own stream, two copy streams, props) -> [set_allocator / set_scratch]
 *   -> sort / reduce / segmented_sort / batch_sort ... (any number, any order)
 *   -> [set_stream(caller's stream) ... set_stream(NULL)] -> synchronize -> destroy.
 *
 * Where the data lives decides the path (cudaPointerGetAttributes on every pointer):
 *   device or managed memory  the algorithm runs on the caller's buffers, enqueued on the
 *                             context's stream (AUTO resolved by auto.cu). With a caller's
 *                             stream (set_stream) the call is asynchronous; on the context's
 *                             own stream it waits for the result.
 *   host memory               host.cu: the data goes to device scratch (IO slots), is sorted
 *                             there and comes back (or the CPU sorts it); the call completes
 *                             before returning.
 *   mixed kinds               invalid argument (gpusort.h: all pointers of one call alike).
 *
 * Scratch: eight slots (cuda_internal.h), from the context's own allocation, the caller's
 * allocator or the caller's workspace (scratch.cu). Each entry point on device or host data
 * first fits the call into the workspace when one is set (gpusort__cuda_workspace_enter).
 * A failed allocation gives OUT_OF_DEVICE_MEMORY, never a crash.
 */
#include "cuda_internal.h"

#include <cuda_runtime.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- helpers shared with the algorithm files ---- */

extern "C" cudaStream_t gpusort__cuda_stream(gpusort_ctx *ctx)
{
    return gpusort__cuda_impl_of(ctx)->stream;
}

extern "C" const struct cudaDeviceProp *gpusort__cuda_props(gpusort_ctx *ctx)
{
    return &gpusort__cuda_impl_of(ctx)->props;
}

extern "C" gpusort_status gpusort__cuda_check(gpusort_ctx *ctx, cudaError_t err, const char *what)
{
    if (err == cudaSuccess) return GPUSORT_STATUS_SUCCESS;
    (void)cudaGetLastError(); /* clear a non-sticky error so the context stays usable */
    gpusort_status s = err == cudaErrorMemoryAllocation ? GPUSORT_STATUS_OUT_OF_DEVICE_MEMORY
                                                        : GPUSORT_STATUS_DEVICE_ERROR;
    return gpusort__set_error(ctx, s, "%s: %s", what, cudaGetErrorString(err));
}

/* ---- devices ---- */

/* The driver's CUDA version as cudaDriverGetVersion gives it (0: no driver), or the test
 * knob GPUSORT_TEST_CUDA_DRIVER_VERSION (e.g. 12000: behave as under a CUDA 12.0 driver, too
 * old for this runtime). */
static int driver_version(void)
{
    const char *knob = getenv("GPUSORT_TEST_CUDA_DRIVER_VERSION");
    if (knob && *knob) return atoi(knob);
    int v = 0;
    if (cudaDriverGetVersion(&v) != cudaSuccess) v = 0;
    return v;
}

static gpusort_status cuda_device_count(int *count)
{
    int c = 0;
    cudaError_t e = driver_version() < CUDART_VERSION ? cudaErrorInsufficientDriver
                                                      : cudaGetDeviceCount(&c);
    if (e != cudaSuccess) { /* no driver, no device, driver too old: "no device", not an error;
                               gpusort__cuda_no_device_reason says which */
        (void)cudaGetLastError();
        c = 0;
    }
    *count = c;
    return GPUSORT_STATUS_SUCCESS;
}

extern "C" const char *gpusort__cuda_no_device_reason(char *buf, size_t size)
{
    int v = driver_version(), c = 0;
    if (v == 0)
        snprintf(buf, size, "no CUDA driver is installed (libcuda.so.1 was not found)");
    else if (v < CUDART_VERSION)
        snprintf(buf, size, "the CUDA driver supports CUDA %d.%d; this gpusort was built with "
                 "CUDA %d.%d and needs a driver at least that new (update the NVIDIA driver)",
                 v / 1000, v % 1000 / 10, CUDART_VERSION / 1000, CUDART_VERSION % 1000 / 10);
    else {
        cudaError_t e = cudaGetDeviceCount(&c);
        if (e != cudaSuccess) {
            (void)cudaGetLastError();
            snprintf(buf, size, "the CUDA driver (CUDA %d.%d) found no usable GPU: %s",
                     v / 1000, v % 1000 / 10, cudaGetErrorString(e));
        } else {
            snprintf(buf, size, "the CUDA driver (CUDA %d.%d) reports %d GPU%s", v / 1000,
                     v % 1000 / 10, c, c == 1 ? "" : "s");
        }
    }
    return buf;
}

static gpusort_status cuda_device_info(int device, gpusort_device_info *info)
{
    struct cudaDeviceProp p;
    cudaError_t e = cudaGetDeviceProperties(&p, device);
    if (e != cudaSuccess) {
        (void)cudaGetLastError();
        return GPUSORT_STATUS_DEVICE_ERROR;
    }
    int drv = 0, rt = 0;
    cudaDriverGetVersion(&drv);
    cudaRuntimeGetVersion(&rt);
    snprintf(info->name, sizeof info->name, "%s", p.name);
    snprintf(info->platform, sizeof info->platform, "CUDA driver %d.%d, runtime %d.%d",
             drv / 1000, (drv % 1000) / 10, rt / 1000, (rt % 1000) / 10);
    info->memory_bytes = p.totalGlobalMem;
    info->compute_units = p.multiProcessorCount;
    info->capability_major = p.major;
    info->capability_minor = p.minor;
    info->is_gpu = 1;
    info->supports_f64 = 1;
    info->usable = gpusort__cuda_device_usable(device, NULL, info->unusable_reason,
                                               sizeof info->unusable_reason);
    return GPUSORT_STATUS_SUCCESS;
}

/* ---- context ---- */

static void cuda_destroy(gpusort_ctx *ctx);

static gpusort_status cuda_init(gpusort_ctx *ctx, int device)
{
    gpusort__cuda_impl *im = (gpusort__cuda_impl *)calloc(1, sizeof *im);
    if (!im) return gpusort__set_error(ctx, GPUSORT_STATUS_OUT_OF_HOST_MEMORY, "CUDA context");
    ctx->impl = im;
    im->device = device;
    gpusort_status s;
    if ((s = gpusort__cuda_check(ctx, cudaSetDevice(device), "cudaSetDevice"))) goto fail;
    if ((s = gpusort__cuda_check(ctx, cudaGetDeviceProperties(&im->props, device),
                                 "cudaGetDeviceProperties")))
        goto fail;
    {
        char why[160];
        int ptx = 0;
        if (!gpusort__cuda_device_usable(device, &ptx, why, sizeof why)) {
            s = gpusort__set_error(ctx, GPUSORT_STATUS_UNSUPPORTED, "CUDA device %d (%s): %s",
                                   device, im->props.name, why);
            goto fail;
        }
        /* Test knobs, read once per context (gpusort.h, tuning.cu). */
        im->tune = gpusort__cuda_tuning_select(im->props.major, im->props.minor,
                                               getenv("GPUSORT_CUDA_TUNING"));
        im->pdl = im->tune->pdl && im->props.major >= 9 && ptx >= 90;
        const char *fail = getenv("GPUSORT_TEST_FAIL_DEVICE_ALLOC");
        im->fail_alloc_at = fail ? atol(fail) : 0;
        const char *hybrid = getenv("GPUSORT_TEST_RADIX_HYBRID");
        im->radix_hybrid = hybrid && *hybrid ? atoi(hybrid) : -1;
        const char *hist = getenv("GPUSORT_TEST_RADIX_HIST");
        im->radix_hist = hist && *hist ? atoi(hist) != 0 : -1;
        const char *pack = getenv("GPUSORT_TEST_RADIX_PACK");
        im->radix_pack = !(pack && *pack && atoi(pack) == 0);
        const char *form = getenv("GPUSORT_TEST_RADIX_FLOAT_FORM");
        im->radix_float_form = !(form && *form && atoi(form) == 0);
    }
    /* A BLOCKING stream: it is ordered after the caller's work on the legacy default stream
     * (cudaMemcpy from pageable memory returns before its DMA is done, cudaMemset is
     * asynchronous), as the caller of a synchronous library call expects. */
    if ((s = gpusort__cuda_check(ctx, cudaStreamCreateWithFlags(&im->own_stream,
                                                                cudaStreamDefault),
                                 "cudaStreamCreate")))
        goto fail;
    im->stream = im->own_stream;
    for (int i = 0; i < 2; i++) {
        if ((s = gpusort__cuda_check(ctx, cudaStreamCreateWithFlags(&im->copy_stream[i],
                                                                    cudaStreamNonBlocking),
                                     "cudaStreamCreate")))
            goto fail;
        if ((s = gpusort__cuda_check(ctx, cudaEventCreateWithFlags(&im->copy_done[i],
                                                                   cudaEventDisableTiming),
                                     "cudaEventCreate")))
            goto fail;
    }
    if ((s = gpusort__cuda_check(ctx, cudaEventCreateWithFlags(&im->ready, cudaEventDisableTiming),
                                 "cudaEventCreate")))
        goto fail;
    for (int j = 0; j < GPUSORT_CUDA_HOST_PIPE_RANGES; j++)
        if ((s = gpusort__cuda_check(ctx, cudaEventCreateWithFlags(&im->range_done[j],
                                                                   cudaEventDisableTiming),
                                     "cudaEventCreate")))
            goto fail;
    return GPUSORT_STATUS_SUCCESS;
fail:
    cuda_destroy(ctx);
    return s;
}

static void cuda_destroy(gpusort_ctx *ctx)
{
    gpusort__cuda_impl *im = gpusort__cuda_impl_of(ctx);
    if (!im) return;
    cudaSetDevice(im->device);
    if (im->own_stream) cudaStreamSynchronize(im->own_stream);
    gpusort__cuda_scratch_release(im);
    for (int i = 0; i < 2; i++) {
        gpusort__cuda_pinned_put(&im->stage[i]);
        if (im->copy_done[i]) cudaEventDestroy(im->copy_done[i]);
        if (im->copy_stream[i]) cudaStreamDestroy(im->copy_stream[i]);
    }
    gpusort__cuda_pinned_put(&im->hd_stage);
    for (int i = 0; i < 2 * GPUSORT__HOSTDATA_MAX_THREADS; i++)
        if (im->hd_ev[i]) cudaEventDestroy(im->hd_ev[i]);
    if (im->hd_chunk_ready) cudaEventDestroy(im->hd_chunk_ready);
    if (im->ready) cudaEventDestroy(im->ready);
    for (int j = 0; j < GPUSORT_CUDA_HOST_PIPE_RANGES; j++)
        if (im->range_done[j]) cudaEventDestroy(im->range_done[j]);
    if (im->own_stream) cudaStreamDestroy(im->own_stream);
    (void)cudaGetLastError();
    free(im);
    ctx->impl = NULL;
}

/* gpusort_ctx_trim (the core synchronised): device scratch and pinned staging go back. */
static gpusort_status cuda_trim(gpusort_ctx *ctx)
{
    gpusort__cuda_impl *im = gpusort__cuda_impl_of(ctx);
    gpusort_status s = gpusort__cuda_check(ctx, cudaSetDevice(im->device), "cudaSetDevice");
    if (s) return s;
    gpusort__cuda_scratch_release(im);
    for (int i = 0; i < 2; i++) gpusort__cuda_pinned_put(&im->stage[i]);
    gpusort__cuda_pinned_put(&im->hd_stage);
    return gpusort__cuda_check(ctx, cudaGetLastError(), "cudaFree");
}

static gpusort_status cuda_set_stream(gpusort_ctx *ctx, void *stream)
{
    gpusort__cuda_impl *im = gpusort__cuda_impl_of(ctx);
    im->stream = stream ? (cudaStream_t)stream : im->own_stream;
    return GPUSORT_STATUS_SUCCESS;
}

static gpusort_status cuda_synchronize(gpusort_ctx *ctx)
{
    gpusort__cuda_impl *im = gpusort__cuda_impl_of(ctx);
    cudaSetDevice(im->device);
    return gpusort__cuda_check(ctx, cudaStreamSynchronize(im->stream), "cudaStreamSynchronize");
}

/* ---- pointer kinds ---- */

enum mem_kind { MEM_NONE = 0, MEM_PAGEABLE, MEM_PINNED, MEM_DEVICE };

static enum mem_kind mem_kind_of(const void *p)
{
    if (!p) return MEM_NONE;
    struct cudaPointerAttributes a;
    cudaError_t e = cudaPointerGetAttributes(&a, p);
    if (e != cudaSuccess) { /* older runtimes answer "invalid value" for plain host memory */
        (void)cudaGetLastError();
        return MEM_PAGEABLE;
    }
    switch (a.type) {
    case cudaMemoryTypeDevice:
    case cudaMemoryTypeManaged: return MEM_DEVICE;
    case cudaMemoryTypeHost: return MEM_PINNED;
    default: return MEM_PAGEABLE;
    }
}

extern "C" int gpusort__cuda_is_device(const void *p, int *pinned)
{
    enum mem_kind k = mem_kind_of(p);
    *pinned = k == MEM_PINNED;
    return k == MEM_DEVICE;
}

/* The common kind of up to four pointers (NULLs ignored): MEM_DEVICE, MEM_PINNED (all host and
 * all pinned), MEM_PAGEABLE (all host, at least one pageable), or MEM_NONE if device and host
 * pointers are mixed. `pinned` receives, per pointer, whether it can be DMA'd directly. */
static enum mem_kind common_kind(const void *const *ptrs, int count, int *pinned)
{
    int dev = 0, host = 0, pageable = 0;
    for (int i = 0; i < count; i++) {
        enum mem_kind k = mem_kind_of(ptrs[i]);
        pinned[i] = k == MEM_PINNED;
        if (k == MEM_DEVICE) dev++;
        else if (k != MEM_NONE) host++;
        if (k == MEM_PAGEABLE) pageable++;
    }
    if (dev && host) return MEM_NONE;
    if (dev) return MEM_DEVICE;
    return pageable ? MEM_PAGEABLE : MEM_PINNED;
}

/* ---- dispatch ---- */

extern "C" int gpusort__cuda_query_on_host(const gpusort__scratch_query *q)
{
    int pinned[4];
    if (q->call == GPUSORT__CALL_REDUCE) return q->data && mem_kind_of(q->data) != MEM_DEVICE;
    const gpusort__sort_args *d = q->sort;
    const void *ptrs[4] = {d->keys_in, d->keys_out, d->values_in, d->values_out};
    if (!ptrs[0] && !ptrs[1] && !ptrs[2] && !ptrs[3]) return 0;
    enum mem_kind k = common_kind(ptrs, 4, pinned);
    return k == MEM_PAGEABLE || k == MEM_PINNED;
}

extern "C" gpusort_status gpusort__cuda_dispatch(gpusort_ctx *ctx, const gpusort__sort_args *d)
{
    gpusort_algorithm a = d->algorithm == GPUSORT_ALGORITHM_AUTO
                              ? gpusort__cuda_auto_algorithm(ctx, d)
                              : d->algorithm;
    ctx->last_algorithm = a;
    switch (a) {
    case GPUSORT_ALGORITHM_RADIX: return gpusort__cuda_radix_sort(ctx, d);
    case GPUSORT_ALGORITHM_BITONIC: return gpusort__cuda_bitonic_sort(ctx, d);
    case GPUSORT_ALGORITHM_MERGE: return gpusort__cuda_merge_sort(ctx, d);
    case GPUSORT_ALGORITHM_RANK: return gpusort__cuda_rank_sort(ctx, d);
    default:
        return gpusort__set_error(ctx, GPUSORT_STATUS_UNSUPPORTED, "algorithm %d",
                                  (int)d->algorithm);
    }
}

/* Device data on the context's own stream: the call completes before it returns (gpusort.h:
 * asynchronous only with a caller's stream). */
static gpusort_status finish_device_call(gpusort_ctx *ctx, gpusort_status s)
{
    gpusort__cuda_impl *im = gpusort__cuda_impl_of(ctx);
    if (s == GPUSORT_STATUS_SUCCESS && im->stream == im->own_stream)
        s = gpusort__cuda_check(ctx, cudaStreamSynchronize(im->stream), "cudaStreamSynchronize");
    return s;
}

/* Sort device data: give argsort (keys_out == NULL) a scratch key buffer. */
static gpusort_status sort_device(gpusort_ctx *ctx, const gpusort__sort_args *d)
{
    gpusort__sort_args dd = *d;
    if (!dd.keys_out) {
        dd.keys_out = gpusort__cuda_scratch(ctx, GPUSORT_CUDA_SCRATCH_IO_KEYS,
                                            d->n * gpusort_type_size(d->key_type));
        if (!dd.keys_out) return GPUSORT_STATUS_OUT_OF_DEVICE_MEMORY;
    }
    return finish_device_call(ctx, gpusort__cuda_dispatch(ctx, &dd));
}

/* The start of every sort entry point: the context's device, where the four arrays of d live
 * (one kind for all, *k; pinned[i] for each host array), and the workspace when one is set. */
static gpusort_status enter_sort(gpusort_ctx *ctx, const gpusort__sort_args *d, enum mem_kind *k,
                                 int pinned[4], const gpusort__scratch_query *q)
{
    gpusort_status s = gpusort__cuda_check(ctx, cudaSetDevice(gpusort__cuda_impl_of(ctx)->device),
                                           "cudaSetDevice");
    if (s) return s;
    const void *ptrs[4] = {d->keys_in, d->keys_out, d->values_in, d->values_out};
    *k = common_kind(ptrs, 4, pinned);
    if (*k == MEM_NONE)
        return gpusort__set_error(ctx, GPUSORT_STATUS_INVALID_ARGUMENT,
                                  "device and host pointers mixed in one call");
    return gpusort__cuda_workspace_enter(ctx, q, *k != MEM_DEVICE);
}

static gpusort_status cuda_sort(gpusort_ctx *ctx, const gpusort__sort_args *d)
{
    int pinned[4];
    enum mem_kind k;
    gpusort__scratch_query q = gpusort__sort_query(GPUSORT__CALL_SORT, d, 0, 0);
    gpusort_status s = enter_sort(ctx, d, &k, pinned, &q);
    if (s) return s;
    if (k == MEM_DEVICE) return sort_device(ctx, d);
    return gpusort__cuda_sort_host(ctx, d, pinned);
}

/* ---- reduce ---- */

static gpusort_status cuda_reduce(gpusort_ctx *ctx, gpusort_type type, const void *data, size_t n,
                                  gpusort_op op, gpusort_value *result)
{
    gpusort__cuda_impl *im = gpusort__cuda_impl_of(ctx);
    gpusort_status s;
    if ((s = gpusort__cuda_check(ctx, cudaSetDevice(im->device), "cudaSetDevice"))) return s;
    enum mem_kind k = mem_kind_of(data);
    gpusort__scratch_query q;
    memset(&q, 0, sizeof q);
    q.call = GPUSORT__CALL_REDUCE;
    q.type = type;
    q.data = data;
    q.n = n;
    if ((s = gpusort__cuda_workspace_enter(ctx, &q, k != MEM_DEVICE))) return s;
    if (k == MEM_DEVICE) return gpusort__cuda_reduce(ctx, type, data, n, op, result);
    return gpusort__cuda_reduce_host(ctx, type, data, n, op, result, k == MEM_PINNED);
}

/* ---- segmented and batch sort ---- */

/* Copy a host array to a device scratch slot (or use it in place if it is device memory). */
static gpusort_status to_device(gpusort_ctx *ctx, const void *p, size_t bytes, int slot,
                                const void **out)
{
    enum mem_kind k = mem_kind_of(p);
    if (k == MEM_DEVICE || !p) { *out = p; return GPUSORT_STATUS_SUCCESS; }
    void *dp = gpusort__cuda_scratch(ctx, slot, bytes);
    if (!dp) return GPUSORT_STATUS_OUT_OF_DEVICE_MEMORY;
    *out = dp;
    return gpusort__cuda_copy_h2d(ctx, dp, p, bytes, k == MEM_PINNED);
}

/* Segmented sort: device data runs in place; host data goes through host.cu. Offsets in host
 * memory go to IO_OFFSETS first. */
static gpusort_status segmented_common(gpusort_ctx *ctx, const gpusort__sort_args *d,
                                       const uint64_t *offsets, size_t num_segments,
                                       int offsets_on_device)
{
    int pinned[4];
    enum mem_kind k;
    gpusort__scratch_query q = gpusort__sort_query(GPUSORT__CALL_SEGMENTED, d, num_segments, 0);
    gpusort_status s = enter_sort(ctx, d, &k, pinned, &q);
    if (s) return s;
    const uint64_t *doffs = offsets;
    if (!offsets_on_device &&
        (s = to_device(ctx, offsets, (num_segments + 1) * sizeof *offsets,
                       GPUSORT_CUDA_SCRATCH_IO_OFFSETS, (const void **)&doffs)))
        return s;
    if (k == MEM_DEVICE) {
        gpusort__sort_args dd = *d;
        if (!dd.keys_out) {
            size_t ks = gpusort_type_size(d->key_type);
            dd.keys_out = gpusort__cuda_scratch(ctx, GPUSORT_CUDA_SCRATCH_IO_KEYS, d->n * ks);
            if (!dd.keys_out) return GPUSORT_STATUS_OUT_OF_DEVICE_MEMORY;
        }
        return finish_device_call(ctx, gpusort__cuda_segmented_sort(ctx, &dd, doffs, num_segments));
    }
    return gpusort__cuda_segmented_host(ctx, d, doffs, num_segments, pinned);
}

static gpusort_status cuda_segmented_sort(gpusort_ctx *ctx, const gpusort__sort_args *d,
                                          const uint64_t *offsets, size_t num_segments)
{
    return segmented_common(ctx, d, offsets, num_segments, 0);
}

static __global__ void fill_row_offsets(uint64_t *offs, size_t count, uint64_t row_length)
{
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < count;
         i += (size_t)gridDim.x * blockDim.x)
        offs[i] = i * row_length;
}

static gpusort_status cuda_batch_sort(gpusort_ctx *ctx, const gpusort__sort_args *d,
                                      size_t row_length)
{
    gpusort__cuda_impl *im = gpusort__cuda_impl_of(ctx);
    gpusort_status s;
    if ((s = gpusort__cuda_check(ctx, cudaSetDevice(im->device), "cudaSetDevice"))) return s;
    size_t rows = d->n / row_length;
    /* The rows' offsets take slot IO_OFFSETS before segmented_common enters the workspace
     * (with the same bounds: a segmented sort of `rows` segments). */
    gpusort__scratch_query q = gpusort__sort_query(GPUSORT__CALL_BATCH, d, 0, row_length);
    int pinned[4];
    const void *ptrs[4] = {d->keys_in, d->keys_out, d->values_in, d->values_out};
    if ((s = gpusort__cuda_workspace_enter(ctx, &q, common_kind(ptrs, 4, pinned) != MEM_DEVICE)))
        return s;
    uint64_t *offs = (uint64_t *)gpusort__cuda_scratch(ctx, GPUSORT_CUDA_SCRATCH_IO_OFFSETS,
                                                       (rows + 1) * sizeof(uint64_t));
    if (!offs) return GPUSORT_STATUS_OUT_OF_DEVICE_MEMORY;
    unsigned blocks = (unsigned)((rows + 1 + 255) / 256 < 4096 ? (rows + 1 + 255) / 256 : 4096);
    fill_row_offsets<<<blocks, 256, 0, im->stream>>>(offs, rows + 1, row_length);
    if ((s = gpusort__cuda_check(ctx, cudaGetLastError(), "fill_row_offsets"))) return s;
    return segmented_common(ctx, d, offs, rows, 1);
}

/* Strings and records: host data whose device buffers never come from the workspace
 * (gpusort.h); the call runs as if none were set. */
static gpusort_status cuda_sort_strings(gpusort_ctx *ctx, const uint8_t *bytes,
                                        const uint64_t *offsets, size_t n, gpusort_order order,
                                        uint64_t *perm_out)
{
    gpusort__cuda_impl *im = gpusort__cuda_impl_of(ctx);
    void *ws = im->ws;
    im->ws = NULL;
    gpusort_status s = gpusort__cuda_sort_strings(ctx, bytes, offsets, n, order, perm_out);
    im->ws = ws;
    return s;
}

static gpusort_status cuda_sort_records(gpusort_ctx *ctx, const void *records_in,
                                        void *records_out, size_t n, size_t record_size,
                                        size_t key_offset, size_t key_size, gpusort_order order,
                                        uint64_t *perm_out)
{
    gpusort__cuda_impl *im = gpusort__cuda_impl_of(ctx);
    void *ws = im->ws;
    im->ws = NULL;
    gpusort_status s = gpusort__cuda_sort_records(ctx, records_in, records_out, n, record_size,
                                                  key_offset, key_size, order, perm_out);
    im->ws = ws;
    return s;
}

extern "C" const gpusort_backend_ops gpusort__cuda_ops = {
    GPUSORT_BACKEND_OPS_VERSION,
    GPUSORT_BACKEND_CUDA,
    "cuda",
    cuda_device_count,
    cuda_device_info,
    cuda_init,
    cuda_destroy,
    cuda_sort,
    cuda_reduce,
    cuda_segmented_sort,
    cuda_batch_sort,
    cuda_sort_strings,
    cuda_sort_records,
    cuda_set_stream,
    cuda_synchronize,
    NULL, /* reduce_cl_mem */
    cuda_trim,
    gpusort__cuda_set_allocator,
    gpusort__cuda_set_scratch,
    gpusort__cuda_scratch_size,
    gpusort__cuda_topk,
    &gpusort__cuda_hostdev,
    &gpusort__cuda_multi,
};
