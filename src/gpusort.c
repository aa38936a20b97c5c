/*
 * gpusort.c -- the core: names, argument checks, context life cycle and dispatch to backends.
 *
 * Every public call lands here first. The core validates the arguments once (so backends need
 * not), picks the backend from the context, and forwards the call through the backend's table
 * (src/backend.h). Errors come back as gpusort_status with a detail in ctx->last_error; the
 * library never prints, aborts or exits.
 *
 * Exports: everything in include/gpusort.h, plus gpusort__set_error() and gpusort__threads()
 * for the backends.
 */
#include "backend.h"
#include "internal.h"

#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* ---- names ---- */

const char *gpusort_status_string(gpusort_status status)
{
    switch (status) {
#define GPUSORT_X_(name, code, msg) case GPUSORT_STATUS_##name: return msg;
        GPUSORT_STATUS_LIST(GPUSORT_X_)
#undef GPUSORT_X_
    default: return "unknown status";
    }
}

const char *gpusort_version(void) { return GPUSORT_VERSION_STRING; }

unsigned gpusort_version_number(void) { return GPUSORT_VERSION_NUMBER; }

static const char *const type_names[GPUSORT_TYPE_COUNT_] = {"u32", "i32", "f32",
                                                            "u64", "i64", "f64"};
static const size_t type_sizes[GPUSORT_TYPE_COUNT_] = {4, 4, 4, 8, 8, 8};
static const char *const backend_names[GPUSORT_BACKEND_COUNT_] = {"auto", "cpu", "cuda",
                                                                  "opencl"};
static const char *const algorithm_names[GPUSORT_ALGORITHM_COUNT_] = {"auto", "radix", "merge",
                                                                      "bitonic", "rank"};

static int type_valid(gpusort_type t) { return (int)t >= 0 && t < GPUSORT_TYPE_COUNT_; }

size_t gpusort_type_size(gpusort_type type) { return type_valid(type) ? type_sizes[type] : 0; }

static gpusort_status parse_name(const char *name, const char *const *names, int count, int *out)
{
    if (!name || !out) return GPUSORT_STATUS_INVALID_ARGUMENT;
    for (int i = 0; i < count; i++)
        if (strcmp(name, names[i]) == 0) { *out = i; return GPUSORT_STATUS_SUCCESS; }
    return GPUSORT_STATUS_INVALID_ARGUMENT;
}

/* gpusort_<what>_name and gpusort_<what>_parse of an enumeration with a table of names:
 * NULL for a value outside the table; INVALID_ARGUMENT (and *out untouched) for an unknown name. */
#define NAMED_ENUM(what, enum_type, names, count)                                  \
    const char *gpusort_##what##_name(enum_type v)                                 \
    {                                                                              \
        return ((int)v >= 0 && (int)v < (count)) ? names[v] : NULL;                \
    }                                                                              \
    gpusort_status gpusort_##what##_parse(const char *name, enum_type *out)        \
    {                                                                              \
        int v = 0;                                                                 \
        gpusort_status s = parse_name(name, names, (count), out ? &v : NULL);      \
        if (s == GPUSORT_STATUS_SUCCESS) *out = (enum_type)v;                      \
        return s;                                                                  \
    }

NAMED_ENUM(type, gpusort_type, type_names, GPUSORT_TYPE_COUNT_)
NAMED_ENUM(backend, gpusort_backend, backend_names, GPUSORT_BACKEND_COUNT_)
NAMED_ENUM(algorithm, gpusort_algorithm, algorithm_names, GPUSORT_ALGORITHM_COUNT_)

char gpusort_value_field(gpusort_type type)
{
    switch (type) {
    case GPUSORT_TYPE_U32: case GPUSORT_TYPE_U64: return 'u';
    case GPUSORT_TYPE_I32: case GPUSORT_TYPE_I64: return 'i';
    case GPUSORT_TYPE_F32: case GPUSORT_TYPE_F64: return 'f';
    default: return 0;
    }
}

/* ---- errors ---- */

/* A call's worker threads (hostdata.c's staging threads, gpusort_multi_sort's contexts) may
 * fail at once and write the same context's message: the lock keeps each message whole (the
 * last one written stays). Failures are rare, so one lock for all contexts is enough. */
static pthread_mutex_t error_lock = PTHREAD_MUTEX_INITIALIZER;

gpusort_status gpusort__set_error(gpusort_ctx *ctx, gpusort_status status, const char *fmt, ...)
{
    if (ctx) {
        va_list ap;
        va_start(ap, fmt);
        pthread_mutex_lock(&error_lock);
        vsnprintf(ctx->last_error, sizeof ctx->last_error, fmt, ap);
        pthread_mutex_unlock(&error_lock);
        va_end(ap);
    }
    return status;
}

int gpusort__threads(const gpusort_ctx *ctx)
{
    if (ctx && ctx->threads > 0) return ctx->threads;
    long n = sysconf(_SC_NPROCESSORS_ONLN);
    return n > 0 ? (int)(n > 1024 ? 1024 : n) : 1;
}

/* ---- backends and devices ---- */

int gpusort_backend_built(gpusort_backend backend)
{
    if (backend == GPUSORT_BACKEND_AUTO) return 1;
    return gpusort__backend_ops(backend) != NULL;
}

gpusort_status gpusort_device_get_count(gpusort_backend backend, int *count)
{
    if (!count) return GPUSORT_STATUS_INVALID_ARGUMENT;
    *count = 0;
    if (backend == GPUSORT_BACKEND_AUTO || (int)backend < 0 || backend >= GPUSORT_BACKEND_COUNT_)
        return GPUSORT_STATUS_INVALID_ARGUMENT;
    const gpusort_backend_ops *ops = gpusort__backend_ops(backend);
    if (!ops) return GPUSORT_STATUS_BACKEND_NOT_BUILT;
    return ops->device_count(count);
}

gpusort_status gpusort_device_get_info(gpusort_backend backend, int device,
                                       gpusort_device_info *info)
{
    if (!info || device < 0) return GPUSORT_STATUS_INVALID_ARGUMENT;
    int count = 0;
    gpusort_status s = gpusort_device_get_count(backend, &count);
    if (s != GPUSORT_STATUS_SUCCESS) return s;
    if (device >= count) return count ? GPUSORT_STATUS_INVALID_ARGUMENT : GPUSORT_STATUS_NO_DEVICE;
    memset(info, 0, sizeof *info);
    info->usable = 1; /* a backend that can find a device it cannot run on says so */
    return gpusort__backend_ops(backend)->device_info(device, info);
}

/* ---- context ---- */

static gpusort_status ctx_try(gpusort_ctx **out, gpusort_backend backend, int device)
{
    const gpusort_backend_ops *ops = gpusort__backend_ops(backend);
    if (!ops) return GPUSORT_STATUS_BACKEND_NOT_BUILT;
    int count = 0;
    gpusort_status s = ops->device_count(&count);
    if (s != GPUSORT_STATUS_SUCCESS) return s;
    if (count == 0) return GPUSORT_STATUS_NO_DEVICE;
    if (device < 0) device = 0;
    if (device >= count) return GPUSORT_STATUS_INVALID_ARGUMENT;
    gpusort_ctx *ctx = (gpusort_ctx *)gpusort__calloc(1, sizeof *ctx);
    if (!ctx) return GPUSORT_STATUS_OUT_OF_HOST_MEMORY;
    ctx->ops = ops;
    ctx->device = device;
    s = ops->init(ctx, device);
    if (s != GPUSORT_STATUS_SUCCESS) { free(ctx); return s; }
    *out = ctx;
    return GPUSORT_STATUS_SUCCESS;
}

gpusort_status gpusort_ctx_create(gpusort_ctx **ctx, gpusort_backend backend, int device)
{
    if (!ctx) return GPUSORT_STATUS_INVALID_ARGUMENT;
    *ctx = NULL;
    if ((int)backend < 0 || backend >= GPUSORT_BACKEND_COUNT_ || device < -1)
        return GPUSORT_STATUS_INVALID_ARGUMENT;
    if (backend != GPUSORT_BACKEND_AUTO) return ctx_try(ctx, backend, device);
    /* AUTO: CUDA, then OpenCL, then the CPU: the first with a usable device. The device index
     * applies to the GPU backends; the CPU fallback always takes its single device. A CUDA GPU
     * the build has no code for fails its init (UNSUPPORTED) and is passed by, like one whose
     * init fails otherwise. OpenCL is taken only for a GPU (or accelerator): an OpenCL CPU
     * device such as PoCL runs the same cores as the native CPU backend, only slower, so AUTO
     * prefers the CPU backend then. */
    const gpusort_backend_ops *cu = gpusort__backend_ops(GPUSORT_BACKEND_CUDA);
    int count = 0;
    if (cu && cu->device_count(&count) == GPUSORT_STATUS_SUCCESS) {
        for (int d = device < 0 ? 0 : device; d < count; d++) {
            if (ctx_try(ctx, GPUSORT_BACKEND_CUDA, d) == GPUSORT_STATUS_SUCCESS)
                return GPUSORT_STATUS_SUCCESS;
            if (device >= 0) break;   /* an explicit index: that device or none */
        }
    }
    const gpusort_backend_ops *cl = gpusort__backend_ops(GPUSORT_BACKEND_OPENCL);
    count = 0;
    if (cl && cl->device_count(&count) == GPUSORT_STATUS_SUCCESS) {
        for (int d = device < 0 ? 0 : device; d < count; d++) {
            gpusort_device_info info;
            memset(&info, 0, sizeof info);
            if (cl->device_info(d, &info) == GPUSORT_STATUS_SUCCESS && info.is_gpu &&
                ctx_try(ctx, GPUSORT_BACKEND_OPENCL, d) == GPUSORT_STATUS_SUCCESS)
                return GPUSORT_STATUS_SUCCESS;
            if (device >= 0) break;   /* an explicit index: that device or none */
        }
    }
    return ctx_try(ctx, GPUSORT_BACKEND_CPU, 0);
}

void gpusort_ctx_free(gpusort_ctx *ctx)
{
    if (!ctx) return;
    if (ctx->ops->synchronize) (void)ctx->ops->synchronize(ctx);
    ctx->ops->destroy(ctx);
    gpusort__host_scratch_release(ctx);
    free(ctx);
}

gpusort_status gpusort_ctx_trim(gpusort_ctx *ctx)
{
    if (!ctx) return GPUSORT_STATUS_INVALID_ARGUMENT;
    gpusort_status s = GPUSORT_STATUS_SUCCESS;
    if (ctx->ops->synchronize && (s = ctx->ops->synchronize(ctx))) return s;
    gpusort__host_scratch_release(ctx);
    return ctx->ops->trim ? ctx->ops->trim(ctx) : GPUSORT_STATUS_SUCCESS;
}

gpusort_backend gpusort_ctx_get_backend(const gpusort_ctx *ctx)
{
    return ctx ? ctx->ops->id : GPUSORT_BACKEND_AUTO;
}

int gpusort_ctx_get_device(const gpusort_ctx *ctx) { return ctx ? ctx->device : -1; }

const char *gpusort_ctx_get_last_error(const gpusort_ctx *ctx)
{
    return ctx ? ctx->last_error : "";
}

gpusort_algorithm gpusort_ctx_get_last_algorithm(const gpusort_ctx *ctx)
{
    return ctx ? ctx->last_algorithm : GPUSORT_ALGORITHM_AUTO;
}

gpusort_status gpusort_ctx_set_threads(gpusort_ctx *ctx, int threads)
{
    if (!ctx || threads < 0) return GPUSORT_STATUS_INVALID_ARGUMENT;
    ctx->threads = threads;
    return GPUSORT_STATUS_SUCCESS;
}

int gpusort_ctx_get_threads(const gpusort_ctx *ctx) { return gpusort__threads(ctx); }

gpusort_status gpusort_ctx_set_stream(gpusort_ctx *ctx, void *stream)
{
    if (!ctx) return GPUSORT_STATUS_INVALID_ARGUMENT;
    ctx->last_error[0] = 0;
    if (!ctx->ops->set_stream)
        return stream ? gpusort__set_error(ctx, GPUSORT_STATUS_UNSUPPORTED,
                                           "the %s backend has no streams", ctx->ops->name)
                      : GPUSORT_STATUS_SUCCESS;
    return ctx->ops->set_stream(ctx, stream);
}

gpusort_status gpusort_ctx_synchronize(gpusort_ctx *ctx)
{
    if (!ctx) return GPUSORT_STATUS_INVALID_ARGUMENT;
    ctx->last_error[0] = 0;
    return ctx->ops->synchronize ? ctx->ops->synchronize(ctx) : GPUSORT_STATUS_SUCCESS;
}

/* ---- device memory from the caller ---- */

/* The answer of a backend without the method: the CPU backend has no device memory; the
 * others (OpenCL) allocate theirs from their own API. */
static gpusort_status no_device_memory(gpusort_ctx *ctx, const char *what)
{
    if (ctx->ops->id == GPUSORT_BACKEND_CPU)
        return gpusort__set_error(ctx, GPUSORT_STATUS_INVALID_ARGUMENT,
                                  "the CPU backend has no device memory (%s)", what);
    return gpusort__set_error(ctx, GPUSORT_STATUS_UNSUPPORTED,
                              "the %s backend allocates its device buffers itself (%s)",
                              ctx->ops->name, what);
}

gpusort_status gpusort_ctx_set_allocator(gpusort_ctx *ctx, const gpusort_allocator *allocator)
{
    if (!ctx) return GPUSORT_STATUS_INVALID_ARGUMENT;
    ctx->last_error[0] = 0;
    if (allocator && (!allocator->alloc || !allocator->free))
        return gpusort__set_error(ctx, GPUSORT_STATUS_INVALID_ARGUMENT,
                                  "an allocator needs both alloc and free");
    if (!ctx->ops->set_allocator)
        return allocator ? no_device_memory(ctx, "allocator") : GPUSORT_STATUS_SUCCESS;
    gpusort_status s;
    if (ctx->ops->synchronize && (s = ctx->ops->synchronize(ctx))) return s;
    return ctx->ops->set_allocator(ctx, allocator);
}

/* gpusort_ctx_set_scratch (wait = 1) and _async (0). */
static gpusort_status set_scratch(gpusort_ctx *ctx, void *scratch, size_t bytes, int wait)
{
    if (!ctx) return GPUSORT_STATUS_INVALID_ARGUMENT;
    ctx->last_error[0] = 0;
    if (!scratch != !bytes)
        return gpusort__set_error(ctx, GPUSORT_STATUS_INVALID_ARGUMENT,
                                  "a workspace is (pointer, bytes > 0) or (NULL, 0), not (%p, %zu)",
                                  scratch, bytes);
    if (!ctx->ops->set_scratch)
        return scratch ? no_device_memory(ctx, "workspace") : GPUSORT_STATUS_SUCCESS;
    gpusort_status s;
    if (wait && ctx->ops->synchronize && (s = ctx->ops->synchronize(ctx))) return s;
    return ctx->ops->set_scratch(ctx, scratch, bytes);
}

gpusort_status gpusort_ctx_set_scratch(gpusort_ctx *ctx, void *scratch, size_t bytes)
{
    return set_scratch(ctx, scratch, bytes, 1);
}

gpusort_status gpusort_ctx_set_scratch_async(gpusort_ctx *ctx, void *scratch, size_t bytes)
{
    return set_scratch(ctx, scratch, bytes, 0);
}

size_t gpusort_ctx_get_scratch_size(const gpusort_ctx *ctx) { return ctx ? ctx->scratch_query : 0; }

/* A GPUSORT_FLAG_QUERY_SCRATCH call, its arguments checked: ask the backend, record. */
static gpusort_status scratch_query(gpusort_ctx *ctx, const gpusort__scratch_query *q)
{
    size_t bytes = 0;
    gpusort_status s = GPUSORT_STATUS_SUCCESS;
    if (ctx->ops->scratch_size) s = ctx->ops->scratch_size(ctx, q, &bytes);
    ctx->scratch_query = s ? 0 : bytes;
    return s;
}

/* ---- argument checks ---- */

#define FAIL(ctx, ...) gpusort__set_error((ctx), GPUSORT_STATUS_INVALID_ARGUMENT, __VA_ARGS__)

/* 1 if [a, a+na) and [b, b+nb) overlap (NULL, as in a scratch query, overlaps nothing). */
static int overlaps(const void *a, size_t na, const void *b, size_t nb)
{
    uintptr_t x = (uintptr_t)a, y = (uintptr_t)b;
    return a && b && na && nb && x < y + nb && y < x + na;
}

/* Check the arguments of a sort (keys, pairs, argsort; the common part of segmented and batch). */
static gpusort_status check_sort_args(gpusort_ctx *ctx, const gpusort__sort_args *d)
{
    if (!type_valid(d->key_type)) return FAIL(ctx, "invalid key type %d", (int)d->key_type);
    if (d->order != GPUSORT_ORDER_ASC && d->order != GPUSORT_ORDER_DESC)
        return FAIL(ctx, "invalid order %d", (int)d->order);
    if ((int)d->algorithm < 0 || d->algorithm >= GPUSORT_ALGORITHM_COUNT_)
        return FAIL(ctx, "invalid algorithm %d", (int)d->algorithm);
    if (d->flags & ~(GPUSORT_FLAG_CL_MEM | GPUSORT_FLAG_QUERY_SCRATCH))
        return FAIL(ctx, "unknown flags 0x%x", d->flags);
    if ((d->flags & GPUSORT_FLAG_CL_MEM) && ctx->ops->id != GPUSORT_BACKEND_OPENCL)
        return gpusort__set_error(ctx, GPUSORT_STATUS_UNSUPPORTED,
                                  "GPUSORT_FLAG_CL_MEM needs the OpenCL backend, not %s",
                                  ctx->ops->name);
    int has_values = d->value_type != GPUSORT_TYPE_NONE;
    if (has_values && d->value_type != GPUSORT_TYPE_U32 && d->value_type != GPUSORT_TYPE_U64)
        return FAIL(ctx, "value/index type must be u32 or u64, not %d", (int)d->value_type);
    if (d->n == 0) return GPUSORT_STATUS_SUCCESS;
    size_t ks = type_sizes[d->key_type];
    if (d->n > SIZE_MAX / 16) return FAIL(ctx, "n = %zu is too large", d->n);
    const int query = (d->flags & GPUSORT_FLAG_QUERY_SCRATCH) != 0; /* NULL data allowed */
    if (!d->keys_in && !query) return FAIL(ctx, "keys_in is NULL");
    if (!has_values) {
        if (!d->keys_out && !query) return FAIL(ctx, "keys_out is NULL");
        if (d->values_in || d->values_out)
            return FAIL(ctx, "values given without a value type (use GPUSORT_TYPE_U32/U64)");
    } else {
        if (!d->values_out && !query) return FAIL(ctx, "values_out is NULL");
        if (!d->values_in && d->value_type == GPUSORT_TYPE_U32 && d->n > UINT32_MAX)
            return FAIL(ctx, "u32 indices cannot number %zu keys: use u64", d->n);
    }
    if (d->flags & GPUSORT_FLAG_CL_MEM) return GPUSORT_STATUS_SUCCESS; /* handles, not addresses */
    size_t vs = has_values ? type_sizes[d->value_type] : 0;
    size_t kb = d->n * ks, vb = d->n * vs;
    if (d->keys_out && d->keys_out != d->keys_in && overlaps(d->keys_in, kb, d->keys_out, kb))
        return FAIL(ctx, "keys_out overlaps keys_in without being equal to it");
    if (has_values) {
        if (d->values_in && d->values_out != d->values_in &&
            overlaps(d->values_in, vb, d->values_out, vb))
            return FAIL(ctx, "values_out overlaps values_in without being equal to it");
        if (overlaps(d->values_out, vb, d->keys_in, kb) ||
            (d->keys_out && overlaps(d->values_out, vb, d->keys_out, kb)))
            return FAIL(ctx, "values_out overlaps the keys");
        if (d->values_in && d->keys_out && overlaps(d->values_in, vb, d->keys_out, kb))
            return FAIL(ctx, "keys_out overlaps values_in");
    }
    return GPUSORT_STATUS_SUCCESS;
}

static gpusort_status check_ctx(gpusort_ctx *ctx)
{
    if (!ctx) return GPUSORT_STATUS_INVALID_ARGUMENT;
    ctx->last_error[0] = 0;
    return GPUSORT_STATUS_SUCCESS;
}

/* The query of a sort-like call whose arguments passed their checks. */
static gpusort_status sort_query(gpusort_ctx *ctx, gpusort__call call, const gpusort__sort_args *d,
                                 size_t num_segments, size_t row_length)
{
    gpusort__scratch_query q = gpusort__sort_query(call, d, num_segments, row_length);
    if (d->n == 0 && num_segments == 0) { ctx->scratch_query = 0; return GPUSORT_STATUS_SUCCESS; }
    return scratch_query(ctx, &q);
}

/* ---- sorting ---- */

/* The checked entry of gpusort_sort, _sort_pairs and _argsort. */
static gpusort_status sort_args(gpusort_ctx *ctx, const gpusort__sort_args *d)
{
    gpusort_status s = check_ctx(ctx);
    if (s) return s;
    ctx->last_algorithm = GPUSORT_ALGORITHM_AUTO;
    if ((s = check_sort_args(ctx, d))) return s;
    if (d->flags & GPUSORT_FLAG_QUERY_SCRATCH) return sort_query(ctx, GPUSORT__CALL_SORT, d, 0, 0);
    if (d->n == 0) return GPUSORT_STATUS_SUCCESS;
    ctx->last_algorithm = d->algorithm; /* a backend resolving AUTO overwrites it */
    s = ctx->ops->sort(ctx, d);
    if (s) ctx->last_algorithm = GPUSORT_ALGORITHM_AUTO;
    return s;
}

/* sort_args for the calls that must have a value (or index) type. */
static gpusort_status sort_with_values(gpusort_ctx *ctx, const gpusort__sort_args *d,
                                       const char *call)
{
    if (ctx && d->value_type == GPUSORT_TYPE_NONE) {
        ctx->last_error[0] = 0;
        return FAIL(ctx, "%s needs a value or index type (u32 or u64)", call);
    }
    return sort_args(ctx, d);
}

gpusort_status gpusort_sort(gpusort_ctx *ctx, gpusort_type type, const void *keys_in, size_t n,
                            void *keys_out, gpusort_order order, gpusort_algorithm algorithm,
                            unsigned flags)
{
    gpusort__sort_args d = {type, keys_in, keys_out, GPUSORT_TYPE_NONE, NULL, NULL,
                            n, order, algorithm, flags};
    return sort_args(ctx, &d);
}

gpusort_status gpusort_sort_pairs(gpusort_ctx *ctx, gpusort_type key_type,
                                  gpusort_type value_type, const void *keys_in,
                                  const void *values_in, size_t n, void *keys_out,
                                  void *values_out, gpusort_order order,
                                  gpusort_algorithm algorithm, unsigned flags)
{
    gpusort__sort_args d = {key_type, keys_in, keys_out, value_type, values_in, values_out,
                            n, order, algorithm, flags};
    return sort_with_values(ctx, &d, "sort_pairs");
}

gpusort_status gpusort_argsort(gpusort_ctx *ctx, gpusort_type key_type, gpusort_type index_type,
                               const void *keys_in, size_t n, void *indices_out,
                               gpusort_order order, gpusort_algorithm algorithm, unsigned flags)
{
    gpusort__sort_args d = {key_type, keys_in, NULL, index_type, NULL, indices_out,
                            n, order, algorithm, flags};
    return sort_with_values(ctx, &d, "argsort");
}

/* A CPU context for the core's fallbacks (backends without an optional method). */
static gpusort_status cpu_fallback(gpusort_ctx *ctx, gpusort_ctx **cpu)
{
    gpusort_status s = ctx_try(cpu, GPUSORT_BACKEND_CPU, 0);
    if (s) return gpusort__set_error(ctx, s, "cannot create the CPU fallback context");
    (*cpu)->threads = ctx->threads;
    return GPUSORT_STATUS_SUCCESS;
}

static void copy_error(gpusort_ctx *to, const gpusort_ctx *from)
{
    memcpy(to->last_error, from->last_error, sizeof to->last_error);
}

gpusort_status gpusort_sort_segmented(gpusort_ctx *ctx, gpusort_type key_type,
                                      gpusort_type value_type, const void *keys_in,
                                      const void *values_in, size_t n, const uint64_t *offsets,
                                      size_t num_segments, void *keys_out, void *values_out,
                                      gpusort_order order, gpusort_algorithm algorithm,
                                      unsigned flags)
{
    gpusort__sort_args args = {key_type, keys_in, keys_out, value_type, values_in, values_out,
                               n, order, algorithm, flags};
    gpusort_status s = check_ctx(ctx);
    if (s) return s;
    if ((s = check_sort_args(ctx, &args))) return s;
    if (flags & GPUSORT_FLAG_CL_MEM)
        return gpusort__set_error(ctx, GPUSORT_STATUS_UNSUPPORTED,
                                  "segmented sort of cl_mem buffers is not supported");
    if (flags & GPUSORT_FLAG_QUERY_SCRATCH)
        return sort_query(ctx, GPUSORT__CALL_SEGMENTED, &args, num_segments, 0);
    if (num_segments && !offsets) return FAIL(ctx, "offsets is NULL");
    if (n == 0 && num_segments == 0) return GPUSORT_STATUS_SUCCESS;
    if (ctx->ops->segmented_sort) return ctx->ops->segmented_sort(ctx, &args, offsets, num_segments);
    gpusort_ctx *cpu = NULL;
    if ((s = cpu_fallback(ctx, &cpu))) return s;
    s = cpu->ops->segmented_sort(cpu, &args, offsets, num_segments);
    copy_error(ctx, cpu);
    gpusort_ctx_free(cpu);
    return s;
}

gpusort_status gpusort_sort_batch(gpusort_ctx *ctx, gpusort_type key_type,
                                  gpusort_type value_type, const void *keys_in,
                                  const void *values_in, size_t n, size_t row_length,
                                  void *keys_out, void *values_out, gpusort_order order,
                                  gpusort_algorithm algorithm, unsigned flags)
{
    gpusort__sort_args args = {key_type, keys_in, keys_out, value_type, values_in, values_out,
                               n, order, algorithm, flags};
    gpusort_status s = check_ctx(ctx);
    if (s) return s;
    if ((s = check_sort_args(ctx, &args))) return s;
    if (row_length == 0 || n % row_length)
        return FAIL(ctx, "n = %zu is not a multiple of row_length = %zu", n, row_length);
    if (flags & GPUSORT_FLAG_CL_MEM)
        return gpusort__set_error(ctx, GPUSORT_STATUS_UNSUPPORTED,
                                  "batch sort of cl_mem buffers is not supported");
    if (flags & GPUSORT_FLAG_QUERY_SCRATCH)
        return sort_query(ctx, GPUSORT__CALL_BATCH, &args, 0, row_length);
    if (n == 0) return GPUSORT_STATUS_SUCCESS;
    if (ctx->ops->batch_sort) return ctx->ops->batch_sort(ctx, &args, row_length);
    gpusort_ctx *cpu = NULL;
    if ((s = cpu_fallback(ctx, &cpu))) return s;
    s = cpu->ops->batch_sort(cpu, &args, row_length);
    copy_error(ctx, cpu);
    gpusort_ctx_free(cpu);
    return s;
}

/* ---- top-k ---- */

/* The checked entry of gpusort_topk and gpusort_topk_batch (batch = 1). */
static gpusort_status topk_args(gpusort_ctx *ctx, const gpusort__topk_args *a, int batch)
{
    gpusort_status s = check_ctx(ctx);
    if (s) return s;
    if (!type_valid(a->key_type)) return FAIL(ctx, "invalid key type %d", (int)a->key_type);
    if (a->order != GPUSORT_ORDER_ASC && a->order != GPUSORT_ORDER_DESC)
        return FAIL(ctx, "invalid order %d", (int)a->order);
    if (a->flags & ~GPUSORT_FLAG_CL_MEM) return FAIL(ctx, "unknown flags 0x%x", a->flags);
    if ((a->flags & GPUSORT_FLAG_CL_MEM) && ctx->ops->id != GPUSORT_BACKEND_OPENCL)
        return gpusort__set_error(ctx, GPUSORT_STATUS_UNSUPPORTED,
                                  "GPUSORT_FLAG_CL_MEM needs the OpenCL backend, not %s",
                                  ctx->ops->name);
    if (batch && (a->flags & GPUSORT_FLAG_CL_MEM))
        return gpusort__set_error(ctx, GPUSORT_STATUS_UNSUPPORTED,
                                  "batched top-k of cl_mem buffers is not supported");
    if (!a->keys_out && !a->indices_out)
        return FAIL(ctx, "top-k needs keys_out, indices_out or both");
    if (a->indices_out && a->index_type != GPUSORT_TYPE_U32 && a->index_type != GPUSORT_TYPE_U64)
        return FAIL(ctx, "index type must be u32 or u64, not %d", (int)a->index_type);
    if (a->n && (a->row_length == 0 || a->n % a->row_length))
        return FAIL(ctx, "n = %zu is not a multiple of row_length = %zu", a->n, a->row_length);
    if (a->k > a->row_length)
        return FAIL(ctx, "k = %zu is larger than the %zu keys of a row", a->k, a->row_length);
    if (a->n == 0 || a->k == 0) return GPUSORT_STATUS_SUCCESS;
    if (a->n > SIZE_MAX / 16) return FAIL(ctx, "n = %zu is too large", a->n);
    if (!a->keys_in) return FAIL(ctx, "keys_in is NULL");
    if (a->indices_out && a->index_type == GPUSORT_TYPE_U32 && a->row_length - 1 > UINT32_MAX)
        return FAIL(ctx, "u32 indices cannot number %zu keys: use u64", a->row_length);
    if (!(a->flags & GPUSORT_FLAG_CL_MEM)) {
        size_t ks = type_sizes[a->key_type], out = a->n / a->row_length * a->k;
        size_t is = a->indices_out ? type_sizes[a->index_type] : 0;
        if (overlaps(a->keys_out, out * ks, a->keys_in, a->n * ks) ||
            overlaps(a->indices_out, out * is, a->keys_in, a->n * ks))
            return FAIL(ctx, "a top-k output overlaps keys_in");
        if (overlaps(a->keys_out, out * ks, a->indices_out, out * is))
            return FAIL(ctx, "keys_out overlaps indices_out");
    }
    if (!ctx->ops->topk)
        return gpusort__set_error(ctx, GPUSORT_STATUS_UNSUPPORTED,
                                  "top-k is not implemented by the %s backend", ctx->ops->name);
    return ctx->ops->topk(ctx, a);
}

gpusort_status gpusort_topk(gpusort_ctx *ctx, gpusort_type key_type, gpusort_type index_type,
                            const void *keys_in, size_t n, size_t k, void *keys_out,
                            void *indices_out, gpusort_order order, unsigned flags)
{
    gpusort__topk_args a = {key_type, indices_out ? index_type : GPUSORT_TYPE_NONE, keys_in, n,
                            n, k, keys_out, indices_out, order, flags};
    return topk_args(ctx, &a, 0);
}

gpusort_status gpusort_topk_batch(gpusort_ctx *ctx, gpusort_type key_type,
                                  gpusort_type index_type, const void *keys_in, size_t n,
                                  size_t row_length, size_t k, void *keys_out, void *indices_out,
                                  gpusort_order order, unsigned flags)
{
    gpusort__topk_args a = {key_type, indices_out ? index_type : GPUSORT_TYPE_NONE, keys_in, n,
                            row_length, k, keys_out, indices_out, order, flags};
    return topk_args(ctx, &a, 1);
}

/* ---- strings and records ---- */

/* The checks strings and records share: the context, the order, the flags (none, or a query),
 * and the index output (U32 or U64; the backends write U64). */
static gpusort_status check_index_output(gpusort_ctx *ctx, gpusort_type index_type, size_t n,
                                         gpusort_order order, unsigned flags)
{
    gpusort_status s = check_ctx(ctx);
    if (s) return s;
    if (order != GPUSORT_ORDER_ASC && order != GPUSORT_ORDER_DESC)
        return FAIL(ctx, "invalid order %d", (int)order);
    if (flags & ~GPUSORT_FLAG_QUERY_SCRATCH)
        return FAIL(ctx, "unknown flags 0x%x (strings and records take only "
                         "GPUSORT_FLAG_QUERY_SCRATCH)", flags);
    if (index_type != GPUSORT_TYPE_U32 && index_type != GPUSORT_TYPE_U64)
        return FAIL(ctx, "index type must be u32 or u64, not %d", (int)index_type);
    if (index_type == GPUSORT_TYPE_U32 && n > UINT32_MAX)
        return FAIL(ctx, "u32 indices cannot number %zu items: use u64", n);
    return GPUSORT_STATUS_SUCCESS;
}

/* The U64 permutation a backend writes: the caller's own output when it is U64, else scratch
 * (NULL and OUT_OF_HOST_MEMORY set on ctx when it cannot be had). */
static uint64_t *perm_begin(gpusort_ctx *ctx, gpusort_type index_type, void *indices_out,
                            size_t n)
{
    if (indices_out && index_type == GPUSORT_TYPE_U64) return (uint64_t *)indices_out;
    uint64_t *perm = (uint64_t *)gpusort__malloc(n * sizeof *perm);
    if (!perm)
        gpusort__set_error(ctx, GPUSORT_STATUS_OUT_OF_HOST_MEMORY,
                           "%zu bytes for the permutation", n * sizeof *perm);
    return perm;
}

/* Narrow the permutation into a U32 output if one was asked for, and free the scratch. */
static void perm_end(gpusort_status s, uint64_t *perm, gpusort_type index_type,
                     void *indices_out, size_t n)
{
    if (s == GPUSORT_STATUS_SUCCESS && indices_out && index_type == GPUSORT_TYPE_U32)
        for (size_t i = 0; i < n; i++) ((uint32_t *)indices_out)[i] = (uint32_t)perm[i];
    if ((void *)perm != indices_out) free(perm);
}

gpusort_status gpusort_sort_strings(gpusort_ctx *ctx, gpusort_type index_type,
                                    const uint8_t *bytes, const uint64_t *offsets, size_t n,
                                    void *indices_out, gpusort_order order, unsigned flags)
{
    gpusort_status s = check_index_output(ctx, index_type, n, order, flags);
    if (s) return s;
    if (flags & GPUSORT_FLAG_QUERY_SCRATCH) { /* host data: never from a workspace (gpusort.h) */
        ctx->scratch_query = 0;
        return GPUSORT_STATUS_SUCCESS;
    }
    if (n == 0) return GPUSORT_STATUS_SUCCESS;
    if (!offsets || !indices_out || (!bytes && offsets[n] > offsets[0]))
        return FAIL(ctx, "NULL bytes, offsets or indices_out");
    for (size_t i = 0; i < n; i++)
        if (offsets[i] > offsets[i + 1]) return FAIL(ctx, "offsets decrease at %zu", i);

    uint64_t *perm = perm_begin(ctx, index_type, indices_out, n);
    if (!perm) return GPUSORT_STATUS_OUT_OF_HOST_MEMORY;
    gpusort_ctx *run = ctx, *cpu = NULL;
    if (!ctx->ops->sort_strings && (s = cpu_fallback(ctx, &cpu))) goto done;
    if (cpu) run = cpu;
    s = run->ops->sort_strings(run, bytes, offsets, n, order, perm);
    if (cpu) { copy_error(ctx, cpu); gpusort_ctx_free(cpu); }
done:
    perm_end(s, perm, index_type, indices_out, n);
    return s;
}

gpusort_status gpusort_sort_records(gpusort_ctx *ctx, gpusort_type index_type,
                                    const void *records_in, size_t n, size_t record_size,
                                    size_t key_offset, size_t key_size, void *records_out,
                                    void *indices_out, gpusort_order order, unsigned flags)
{
    gpusort_status s = check_index_output(ctx, index_type, n, order, flags);
    if (s) return s;
    if (record_size == 0 || key_offset > record_size || key_size > record_size - key_offset)
        return FAIL(ctx, "key [%zu, +%zu) does not fit in a record of %zu bytes", key_offset,
                    key_size, record_size);
    if (n > 0 && n > SIZE_MAX / record_size) return FAIL(ctx, "n * record_size overflows");
    if (flags & GPUSORT_FLAG_QUERY_SCRATCH) { /* host data: never from a workspace (gpusort.h) */
        ctx->scratch_query = 0;
        return GPUSORT_STATUS_SUCCESS;
    }
    if (n == 0) return GPUSORT_STATUS_SUCCESS;
    if (!records_in || !records_out) return FAIL(ctx, "NULL records");
    if (records_in != records_out &&
        overlaps(records_in, n * record_size, records_out, n * record_size))
        return FAIL(ctx, "records_out overlaps records_in without being equal to it");
    if (indices_out && overlaps(indices_out, n * gpusort_type_size(index_type), records_out,
                                n * record_size))
        return FAIL(ctx, "indices_out overlaps the records");
    uint64_t *perm = perm_begin(ctx, index_type, indices_out, n);
    if (!perm) return GPUSORT_STATUS_OUT_OF_HOST_MEMORY;
    gpusort_ctx *run = ctx, *cpu = NULL;
    if (!ctx->ops->sort_records && (s = cpu_fallback(ctx, &cpu))) goto done;
    if (cpu) run = cpu;
    s = run->ops->sort_records(run, records_in, records_out, n, record_size, key_offset,
                               key_size, order, perm);
    if (cpu) { copy_error(ctx, cpu); gpusort_ctx_free(cpu); }
done:
    perm_end(s, perm, index_type, indices_out, n);
    return s;
}

/* ---- reduction ---- */

gpusort_status gpusort_reduce(gpusort_ctx *ctx, gpusort_type type, const void *data, size_t n,
                              gpusort_value *result, gpusort_op op, unsigned flags)
{
    gpusort_status s = check_ctx(ctx);
    if (s) return s;
    if (!type_valid(type)) return FAIL(ctx, "invalid type %d", (int)type);
    if (op != GPUSORT_OP_SUM && op != GPUSORT_OP_MIN && op != GPUSORT_OP_MAX)
        return FAIL(ctx, "invalid reduce op %d", (int)op);
    if (flags & ~(GPUSORT_FLAG_CL_MEM | GPUSORT_FLAG_QUERY_SCRATCH))
        return FAIL(ctx, "unknown flags 0x%x", flags);
    if (flags & GPUSORT_FLAG_QUERY_SCRATCH) {
        if (n == 0 || (flags & GPUSORT_FLAG_CL_MEM)) { ctx->scratch_query = 0; return s; }
        gpusort__scratch_query q;
        memset(&q, 0, sizeof q);
        q.call = GPUSORT__CALL_REDUCE;
        q.type = type;
        q.data = data;
        q.n = n;
        return scratch_query(ctx, &q);
    }
    if (!result) return FAIL(ctx, "result is NULL");
    if (n == 0) {
        if (op != GPUSORT_OP_SUM) return FAIL(ctx, "min/max of an empty array");
        memset(result, 0, sizeof *result);
        return GPUSORT_STATUS_SUCCESS;
    }
    if (!data) return FAIL(ctx, "data is NULL");
    if (flags & GPUSORT_FLAG_CL_MEM) {
        if (!ctx->ops->reduce_cl_mem)
            return gpusort__set_error(ctx, GPUSORT_STATUS_UNSUPPORTED,
                                      "GPUSORT_FLAG_CL_MEM needs the OpenCL backend, not %s",
                                      ctx->ops->name);
        return ctx->ops->reduce_cl_mem(ctx, type, data, n, op, result);
    }
    return ctx->ops->reduce(ctx, type, data, n, op, result);
}
