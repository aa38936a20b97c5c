/*
 * backend.c -- the OpenCL backend: devices, contexts, queues, programs, scratch, dispatch.
 *
 * Exports gpusort__opencl_ops (the backend table of src/backend.h) and the helpers declared in
 * opencl_internal.h for the algorithm files (radix.c, bitonic.c, reduce.c).
 *
 * DEVICES. Every device of every platform the ICD loader reports, as one flat list. GPUs come
 * first (then accelerators, then CPUs and the rest, each group in platform order), so device 0
 * -- what gpusort_ctx_create(..., -1) and AUTO take -- is a GPU whenever there is one. With no
 * platform at all (no ICD file, CL_PLATFORM_NOT_FOUND_KHR) the backend has 0 devices.
 *
 * ORDER OF CALLS (per gpusort context)
 *   init        clCreateContext on the device + an in-order queue of our own
 *   set_stream  optional: the caller's cl_command_queue. If it belongs to another cl_context,
 *               the backend adopts that context (so the caller's cl_mem buffers can be used):
 *               programs, kernels and scratch of the previous context are released and rebuilt
 *               on demand. NULL returns to the backend's own context and queue.
 *   sort / reduce   programs are built on first use, once per context, from the embedded .cl
 *               sources, specialised with -D options; the kernels are cached too.
 *   destroy     releases everything.
 *
 * MEMORY. Host pointers are the normal case: the data is copied into device buffers owned by
 * the context (grown on demand, reused), sorted there in place and copied back; such calls
 * complete before they return. Host arrays larger than one device sort (the kernels' 32-bit
 * limit, or the device's memory) are sorted in runs on the device and merged stably on the
 * host, so any n works on host data: src/hostdata.c drives both through the hostdev_ops below.
 * With gpusort__sort_args.flags = GPUSORT_FLAG_CL_MEM, keys_in, keys_out, values_in and values_out
 * are cl_mem handles cast to pointers, e.g.
 *     desc.keys_in = (const void *)my_cl_mem;
 * they must belong to the context's cl_context (set the caller's queue first with
 * gpusort_ctx_set_stream) and hold at least n elements; keys_out == keys_in sorts in place. On
 * the caller's queue such a call is only enqueued (gpusort_ctx_synchronize or the caller's own
 * clFinish waits for it); on the backend's own queue it completes before returning.
 * Such a call is limited to the kernels' 32-bit sizes (radix n <= 0xFFFF0000, bitonic
 * n <= 2^31; above: UNSUPPORTED). gpusort_reduce takes host pointers only (the public call has
 * no flag to say "cl_mem").
 *
 * ERRORS. Every cl_int is mapped: CL_MEM_OBJECT_ALLOCATION_FAILURE anywhere, and
 * CL_OUT_OF_RESOURCES / CL_INVALID_BUFFER_SIZE when allocating, give OUT_OF_DEVICE_MEMORY;
 * CL_OUT_OF_HOST_MEMORY gives OUT_OF_HOST_MEMORY; the rest DEVICE_ERROR. The message names the
 * call and the CL error ("clEnqueueNDRangeKernel(radix_scatter): CL_OUT_OF_RESOURCES (-5)"); a
 * kernel that fails to compile puts its build log in the message.
 *
 * ALGORITHMS. AUTO and RADIX -> radix.c; BITONIC -> bitonic.c; MERGE and RANK are CUDA/CPU
 * algorithms and answer UNSUPPORTED here.
 */
#include "opencl_internal.h"

#include "cpu/cpu.h"
#include "hostdata.h"
#include "opencl_kernels.h"

#include <stdarg.h>
#include <stdio.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#ifndef CL_PLATFORM_NOT_FOUND_KHR
#define CL_PLATFORM_NOT_FOUND_KHR -1001
#endif

/* More devices than any machine has; the flat list is truncated beyond it. */
#define MAX_DEVICES 64
/* Distinct (program, kernel) pairs the algorithm files ask for, with room to spare. */
#define MAX_KERNELS 64
/* The part of a build log that fits in the error text (GPUSORT_ERROR_MAX is 1024). */
#define BUILD_LOG_CHARS 800

typedef struct cached_kernel {
    int prog;
    const char *name;      /* a string literal of the algorithm file */
    cl_kernel kernel;
} cached_kernel;

typedef struct cl_state {
    cl_platform_id platform;
    cl_device_id device;
    cl_context own_context;
    cl_command_queue own_queue;
    cl_context context;            /* current: own_context or the caller's queue's */
    cl_command_queue queue;        /* current: own_queue or the caller's */
    int user_queue;                /* 1 while the caller's queue is set */
    int has_fp64;
    int compute_units;
    cl_ulong max_alloc;
    cl_ulong global_mem;
    cl_program programs[GPUSORT_CL_PROG_COUNT];
    cached_kernel kernels[MAX_KERNELS];
    int kernel_count;
    cl_mem scratch[GPUSORT_CL_SCRATCH_COUNT];
    size_t scratch_bytes[GPUSORT_CL_SCRATCH_COUNT];
    /* host data (hostdata.c drives them through hostdev_ops below) */
    cl_mem hd_buf[2];              /* the run's keys, values: IO scratch slots */
    size_t hd_es[2];               /* their element bytes */
    cl_event hd_ev[2 * GPUSORT__HOSTDATA_MAX_THREADS]; /* staging buffer i's last copy */
    void *hd_stage;                /* staging: plain host memory (no pinned API in CL 1.2) */
    size_t hd_stage_bytes;
} cl_state;

static cl_state *state(gpusort_ctx *ctx) { return (cl_state *)ctx->impl; }

/* ---- errors ---- */

const char *gpusort__cl_error_name(cl_int err)
{
    switch (err) {
#define E(x) case x: return #x;
    E(CL_SUCCESS) E(CL_DEVICE_NOT_FOUND) E(CL_DEVICE_NOT_AVAILABLE) E(CL_COMPILER_NOT_AVAILABLE)
    E(CL_MEM_OBJECT_ALLOCATION_FAILURE) E(CL_OUT_OF_RESOURCES) E(CL_OUT_OF_HOST_MEMORY)
    E(CL_PROFILING_INFO_NOT_AVAILABLE) E(CL_MEM_COPY_OVERLAP) E(CL_IMAGE_FORMAT_MISMATCH)
    E(CL_IMAGE_FORMAT_NOT_SUPPORTED) E(CL_BUILD_PROGRAM_FAILURE) E(CL_MAP_FAILURE)
    E(CL_MISALIGNED_SUB_BUFFER_OFFSET) E(CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST)
    E(CL_COMPILE_PROGRAM_FAILURE) E(CL_LINKER_NOT_AVAILABLE) E(CL_LINK_PROGRAM_FAILURE)
    E(CL_DEVICE_PARTITION_FAILED) E(CL_KERNEL_ARG_INFO_NOT_AVAILABLE)
    E(CL_INVALID_VALUE) E(CL_INVALID_DEVICE_TYPE) E(CL_INVALID_PLATFORM) E(CL_INVALID_DEVICE)
    E(CL_INVALID_CONTEXT) E(CL_INVALID_QUEUE_PROPERTIES) E(CL_INVALID_COMMAND_QUEUE)
    E(CL_INVALID_HOST_PTR) E(CL_INVALID_MEM_OBJECT) E(CL_INVALID_IMAGE_FORMAT_DESCRIPTOR)
    E(CL_INVALID_IMAGE_SIZE) E(CL_INVALID_SAMPLER) E(CL_INVALID_BINARY)
    E(CL_INVALID_BUILD_OPTIONS) E(CL_INVALID_PROGRAM) E(CL_INVALID_PROGRAM_EXECUTABLE)
    E(CL_INVALID_KERNEL_NAME) E(CL_INVALID_KERNEL_DEFINITION) E(CL_INVALID_KERNEL)
    E(CL_INVALID_ARG_INDEX) E(CL_INVALID_ARG_VALUE) E(CL_INVALID_ARG_SIZE)
    E(CL_INVALID_KERNEL_ARGS) E(CL_INVALID_WORK_DIMENSION) E(CL_INVALID_WORK_GROUP_SIZE)
    E(CL_INVALID_WORK_ITEM_SIZE) E(CL_INVALID_GLOBAL_OFFSET) E(CL_INVALID_EVENT_WAIT_LIST)
    E(CL_INVALID_EVENT) E(CL_INVALID_OPERATION) E(CL_INVALID_GL_OBJECT)
    E(CL_INVALID_BUFFER_SIZE) E(CL_INVALID_MIP_LEVEL) E(CL_INVALID_GLOBAL_WORK_SIZE)
    E(CL_INVALID_PROPERTY) E(CL_INVALID_IMAGE_DESCRIPTOR) E(CL_INVALID_COMPILER_OPTIONS)
    E(CL_INVALID_LINKER_OPTIONS) E(CL_INVALID_DEVICE_PARTITION_COUNT)
    E(CL_PLATFORM_NOT_FOUND_KHR)
#undef E
    default: return "CL_UNKNOWN_ERROR";
    }
}

gpusort_status gpusort__cl_fail(gpusort_ctx *ctx, cl_int err, const char *what)
{
    gpusort_status s = GPUSORT_STATUS_DEVICE_ERROR;
    if (err == CL_MEM_OBJECT_ALLOCATION_FAILURE) s = GPUSORT_STATUS_OUT_OF_DEVICE_MEMORY;
    else if (err == CL_OUT_OF_HOST_MEMORY) s = GPUSORT_STATUS_OUT_OF_HOST_MEMORY;
    return gpusort__set_error(ctx, s, "%s: %s (%d)", what, gpusort__cl_error_name(err), (int)err);
}

/* ---- device enumeration ---- */

typedef struct device_ref {
    cl_platform_id platform;
    cl_device_id device;
} device_ref;

/* Rank for the flat order: GPUs first, then accelerators, then the rest. */
static int device_rank(cl_device_id d)
{
    cl_device_type t = 0;
    if (clGetDeviceInfo(d, CL_DEVICE_TYPE, sizeof t, &t, NULL) != CL_SUCCESS) return 3;
    if (t & CL_DEVICE_TYPE_GPU) return 0;
    if (t & CL_DEVICE_TYPE_ACCELERATOR) return 1;
    return 2;
}

/* The first enumeration of the process runs once, alone: the ICD loader and PoCL 3.1 set
 * their platforms up on the first clGetPlatformIDs / clGetDeviceIDs, and two threads doing that
 * at once crash inside PoCL (strlen in clGetDeviceInfo; tests/fault/test_threads.c, whose query
 * threads are the first OpenCL callers of their process, found it). Later calls only read. */
static pthread_once_t first_enumeration = PTHREAD_ONCE_INIT;

static void enumerate_first(void)
{
    cl_uint np = 0;
    cl_platform_id plats[16];
    if (clGetPlatformIDs(0, NULL, &np) != CL_SUCCESS || np == 0) return;
    if (np > 16) np = 16;
    if (clGetPlatformIDs(np, plats, NULL) != CL_SUCCESS) return;
    for (cl_uint p = 0; p < np; p++) {
        cl_device_id devs[MAX_DEVICES];
        cl_uint nd = 0;
        char name[256];
        if (clGetDeviceIDs(plats[p], CL_DEVICE_TYPE_ALL, MAX_DEVICES, devs, &nd) != CL_SUCCESS)
            continue;
        if (nd > MAX_DEVICES) nd = MAX_DEVICES;
        for (cl_uint d = 0; d < nd; d++)
            clGetDeviceInfo(devs[d], CL_DEVICE_NAME, sizeof name, name, NULL);
    }
}

/* Fill refs (up to MAX_DEVICES) in the flat order; *count = 0 when there is no platform.
 * No static state beyond the one-time first enumeration: enumeration is cheap and this keeps
 * the queries thread-safe. */
static cl_int enumerate(device_ref *refs, int *count)
{
    pthread_once(&first_enumeration, enumerate_first);
    *count = 0;
    cl_uint np = 0;
    cl_int err = clGetPlatformIDs(0, NULL, &np);
    if (err == CL_PLATFORM_NOT_FOUND_KHR || (err == CL_SUCCESS && np == 0)) return CL_SUCCESS;
    if (err != CL_SUCCESS) return err;
    cl_platform_id plats[16];
    if (np > 16) np = 16;
    if ((err = clGetPlatformIDs(np, plats, NULL)) != CL_SUCCESS) return err;
    device_ref all[MAX_DEVICES];
    int ranks[MAX_DEVICES], total = 0;
    for (cl_uint p = 0; p < np && total < MAX_DEVICES; p++) {
        cl_device_id devs[MAX_DEVICES];
        cl_uint nd = 0;
        err = clGetDeviceIDs(plats[p], CL_DEVICE_TYPE_ALL, MAX_DEVICES, devs, &nd);
        if (err == CL_DEVICE_NOT_FOUND) continue;
        if (err != CL_SUCCESS) continue;   /* a broken platform must not hide the others */
        if (nd > MAX_DEVICES) nd = MAX_DEVICES;
        for (cl_uint d = 0; d < nd && total < MAX_DEVICES; d++) {
            all[total].platform = plats[p];
            all[total].device = devs[d];
            ranks[total++] = device_rank(devs[d]);
        }
    }
    for (int r = 0; r <= 3; r++)           /* stable: by rank, then platform/device order */
        for (int i = 0; i < total; i++)
            if (ranks[i] == r) refs[(*count)++] = all[i];
    return CL_SUCCESS;
}

static gpusort_status ocl_device_count(int *count)
{
    device_ref refs[MAX_DEVICES];
    /* A loader that fails to enumerate is "no device", not an error: CI must skip. */
    if (enumerate(refs, count) != CL_SUCCESS) *count = 0;
    return GPUSORT_STATUS_SUCCESS;
}

static gpusort_status find_device(int device, device_ref *ref)
{
    device_ref refs[MAX_DEVICES];
    int count = 0;
    if (enumerate(refs, &count) != CL_SUCCESS || count == 0) return GPUSORT_STATUS_NO_DEVICE;
    if (device < 0 || device >= count) return GPUSORT_STATUS_INVALID_ARGUMENT;
    *ref = refs[device];
    return GPUSORT_STATUS_SUCCESS;
}

static int device_has_fp64(cl_device_id d)
{
    char ext[8192] = "";
    size_t got = 0;
    if (clGetDeviceInfo(d, CL_DEVICE_EXTENSIONS, sizeof ext - 1, ext, &got) != CL_SUCCESS) {
        /* The list is longer than our buffer: ask for it whole. */
        if (clGetDeviceInfo(d, CL_DEVICE_EXTENSIONS, 0, NULL, &got) != CL_SUCCESS) return 0;
        char *big = (char *)gpusort__malloc(got + 1);
        if (!big) return 0;
        int has = clGetDeviceInfo(d, CL_DEVICE_EXTENSIONS, got, big, NULL) == CL_SUCCESS &&
                  (big[got] = 0, strstr(big, "cl_khr_fp64") != NULL);
        free(big);
        return has;
    }
    ext[sizeof ext - 1] = 0;
    return strstr(ext, "cl_khr_fp64") != NULL;
}

/* fp64 as the backend uses it: the device's cl_khr_fp64, unless the testing knob
 * GPUSORT_OPENCL_NO_FP64=1 hides it (to exercise the float-float f32 sum and the UNSUPPORTED
 * answer for f64 reduce on devices that have fp64). */
static int fp64_enabled(cl_device_id d)
{
    const char *no64 = getenv("GPUSORT_OPENCL_NO_FP64");
    return device_has_fp64(d) && !(no64 && no64[0] == '1');
}

static gpusort_status ocl_device_info(int device, gpusort_device_info *info)
{
    device_ref ref;
    gpusort_status s = find_device(device, &ref);
    if (s) return s;
    cl_device_id d = ref.device;
    char version[128] = "";
    cl_ulong mem = 0;
    cl_uint cus = 0;
    cl_device_type type = 0;
    clGetDeviceInfo(d, CL_DEVICE_NAME, sizeof info->name - 1, info->name, NULL);
    clGetPlatformInfo(ref.platform, CL_PLATFORM_NAME, sizeof info->platform - 1, info->platform,
                      NULL);
    clGetDeviceInfo(d, CL_DEVICE_GLOBAL_MEM_SIZE, sizeof mem, &mem, NULL);
    clGetDeviceInfo(d, CL_DEVICE_MAX_COMPUTE_UNITS, sizeof cus, &cus, NULL);
    clGetDeviceInfo(d, CL_DEVICE_TYPE, sizeof type, &type, NULL);
    clGetDeviceInfo(d, CL_DEVICE_VERSION, sizeof version - 1, version, NULL);
    info->name[sizeof info->name - 1] = 0;
    info->platform[sizeof info->platform - 1] = 0;
    info->memory_bytes = mem;
    info->compute_units = (int)cus;
    /* CL_DEVICE_VERSION reads "OpenCL <major>.<minor> <vendor text>". */
    if (sscanf(version, "OpenCL %d.%d", &info->capability_major, &info->capability_minor) != 2)
        info->capability_major = info->capability_minor = 0;
    info->is_gpu = (type & CL_DEVICE_TYPE_GPU) != 0;
    info->supports_f64 = fp64_enabled(d);
    return GPUSORT_STATUS_SUCCESS;
}

/* ---- context life cycle ---- */

static void release_caches(cl_state *st)
{
    for (int i = 0; i < st->kernel_count; i++) clReleaseKernel(st->kernels[i].kernel);
    st->kernel_count = 0;
    for (int i = 0; i < GPUSORT_CL_PROG_COUNT; i++)
        if (st->programs[i]) { clReleaseProgram(st->programs[i]); st->programs[i] = NULL; }
}

/* gpusort_ctx_trim (the core has synchronised): the scratch buffers go back; the compiled
 * programs stay (they are small and costly to build again). */
static gpusort_status ocl_trim(gpusort_ctx *ctx)
{
    cl_state *st = state(ctx);
    for (int i = 0; i < GPUSORT_CL_SCRATCH_COUNT; i++)
        if (st->scratch[i]) {
            clReleaseMemObject(st->scratch[i]);
            st->scratch[i] = NULL;
            st->scratch_bytes[i] = 0;
        }
    free(st->hd_stage);
    st->hd_stage = NULL;
    st->hd_stage_bytes = 0;
    return GPUSORT_STATUS_SUCCESS;
}

static void ocl_destroy(gpusort_ctx *ctx)
{
    cl_state *st = state(ctx);
    if (!st) return;
    if (st->queue) clFinish(st->queue);
    (void)ocl_trim(ctx);
    release_caches(st);
    if (st->user_queue) {
        clReleaseCommandQueue(st->queue);
        clReleaseContext(st->context);
    }
    if (st->own_queue) clReleaseCommandQueue(st->own_queue);
    if (st->own_context) clReleaseContext(st->own_context);
    free(st);
    ctx->impl = NULL;
}

static gpusort_status ocl_init(gpusort_ctx *ctx, int device)
{
    device_ref ref;
    gpusort_status s = find_device(device, &ref);
    if (s) return gpusort__set_error(ctx, s, "OpenCL device %d not found", device);
    cl_state *st = (cl_state *)gpusort__calloc(1, sizeof *st);
    if (!st)
        return gpusort__set_error(ctx, GPUSORT_STATUS_OUT_OF_HOST_MEMORY, "OpenCL context state");
    ctx->impl = st;
    st->platform = ref.platform;
    st->device = ref.device;
    cl_int err = CL_SUCCESS;
    cl_context_properties props[] = {CL_CONTEXT_PLATFORM, (cl_context_properties)ref.platform, 0};
    st->own_context = clCreateContext(props, 1, &ref.device, NULL, NULL, &err);
    if (err != CL_SUCCESS) { s = gpusort__cl_fail(ctx, err, "clCreateContext"); goto fail; }
    st->own_queue = clCreateCommandQueue(st->own_context, ref.device, 0, &err);
    if (err != CL_SUCCESS) { s = gpusort__cl_fail(ctx, err, "clCreateCommandQueue"); goto fail; }
    st->context = st->own_context;
    st->queue = st->own_queue;
    cl_uint cus = 1;
    clGetDeviceInfo(ref.device, CL_DEVICE_MAX_COMPUTE_UNITS, sizeof cus, &cus, NULL);
    st->compute_units = cus ? (int)cus : 1;
    clGetDeviceInfo(ref.device, CL_DEVICE_MAX_MEM_ALLOC_SIZE, sizeof st->max_alloc,
                    &st->max_alloc, NULL);
    clGetDeviceInfo(ref.device, CL_DEVICE_GLOBAL_MEM_SIZE, sizeof st->global_mem,
                    &st->global_mem, NULL);
    st->has_fp64 = fp64_enabled(ref.device);
    return GPUSORT_STATUS_SUCCESS;
fail:
    ocl_destroy(ctx);
    return s;
}

static gpusort_status ocl_synchronize(gpusort_ctx *ctx)
{
    cl_int err = clFinish(state(ctx)->queue);
    return err == CL_SUCCESS ? GPUSORT_STATUS_SUCCESS : gpusort__cl_fail(ctx, err, "clFinish");
}

static gpusort_status ocl_set_stream(gpusort_ctx *ctx, void *stream)
{
    cl_state *st = state(ctx);
    cl_command_queue q = (cl_command_queue)stream;
    if (q == st->queue) return GPUSORT_STATUS_SUCCESS;
    cl_context qctx = NULL;
    cl_device_id qdev = NULL;
    if (q) {
        cl_int err = clGetCommandQueueInfo(q, CL_QUEUE_CONTEXT, sizeof qctx, &qctx, NULL);
        if (err == CL_SUCCESS)
            err = clGetCommandQueueInfo(q, CL_QUEUE_DEVICE, sizeof qdev, &qdev, NULL);
        if (err != CL_SUCCESS)
            return gpusort__set_error(ctx, GPUSORT_STATUS_INVALID_ARGUMENT,
                                      "set_stream: not a usable cl_command_queue: %s (%d)",
                                      gpusort__cl_error_name(err), (int)err);
    }
    clFinish(st->queue);   /* the previous queue's work is done before we switch */
    cl_context next = q ? qctx : st->own_context;
    if (next != st->context) {   /* programs and buffers belong to a context */
        (void)ocl_trim(ctx);
        release_caches(st);
    }
    if (st->user_queue) {
        clReleaseCommandQueue(st->queue);
        clReleaseContext(st->context);
    }
    if (q) {
        clRetainCommandQueue(q);
        clRetainContext(qctx);
        st->queue = q;
        st->context = qctx;
        st->device = qdev;
        st->user_queue = 1;
    } else {
        st->queue = st->own_queue;
        st->context = st->own_context;
        cl_device_id own = NULL;
        clGetCommandQueueInfo(st->own_queue, CL_QUEUE_DEVICE, sizeof own, &own, NULL);
        st->device = own;
        st->user_queue = 0;
    }
    st->has_fp64 = fp64_enabled(st->device);
    cl_uint cus = 1;
    clGetDeviceInfo(st->device, CL_DEVICE_MAX_COMPUTE_UNITS, sizeof cus, &cus, NULL);
    st->compute_units = cus ? (int)cus : 1;
    clGetDeviceInfo(st->device, CL_DEVICE_MAX_MEM_ALLOC_SIZE, sizeof st->max_alloc,
                    &st->max_alloc, NULL);
    clGetDeviceInfo(st->device, CL_DEVICE_GLOBAL_MEM_SIZE, sizeof st->global_mem,
                    &st->global_mem, NULL);
    return GPUSORT_STATUS_SUCCESS;
}

/* ---- helpers for the algorithm files ---- */

cl_command_queue gpusort__cl_queue(gpusort_ctx *ctx) { return state(ctx)->queue; }
cl_context gpusort__cl_context(gpusort_ctx *ctx) { return state(ctx)->context; }
int gpusort__cl_has_fp64(gpusort_ctx *ctx) { return state(ctx)->has_fp64; }
int gpusort__cl_compute_units(gpusort_ctx *ctx) { return state(ctx)->compute_units; }

static const char *cl_source(const char *name)
{
    for (int i = 0; i < gpusort__cl_source_count; i++)
        if (strcmp(gpusort__cl_sources[i].name, name) == 0) return gpusort__cl_sources[i].source;
    return NULL;
}

/* Build program `id`: keys.cl + the algorithm's file, with its -D specialisation. */
static gpusort_status build_program(gpusort_ctx *ctx, int id)
{
    cl_state *st = state(ctx);
    const char *file;
    char options[256];
    /* -cl-std=CL1.2: the kernels use nothing newer; fp64 only where the device has it. */
    int n = snprintf(options, sizeof options, "-cl-std=CL1.2%s",
                     st->has_fp64 ? " -DGS_HAVE_FP64=1" : "");
    if (id < GPUSORT_CL_PROG_RADIX_COUNT) {
        file = "radix.cl";
        int kb = id / 3 ? 8 : 4, vb = (id % 3) * 4;
        snprintf(options + n, sizeof options - n, " -DGS_KEY_BITS=%d -DGS_VAL_BYTES=%d -DGS_ITEMS=%d",
                 kb * 8, vb, GPUSORT_CL_RADIX_ITEMS(kb, vb));
    } else if (id == GPUSORT_CL_PROG_BITONIC_K32 || id == GPUSORT_CL_PROG_BITONIC_K64) {
        file = "bitonic.cl";
        snprintf(options + n, sizeof options - n, " -DGS_KEY_BITS=%d",
                 id == GPUSORT_CL_PROG_BITONIC_K64 ? 64 : 32);
    } else {
        file = "reduce.cl";
    }
    const char *src[2] = {cl_source("keys.cl"), cl_source(file)};
    if (!src[0] || !src[1])
        return gpusort__set_error(ctx, GPUSORT_STATUS_DEVICE_ERROR,
                                  "OpenCL kernel source %s is not embedded in this build", file);
    cl_int err = CL_SUCCESS;
    cl_program prog = clCreateProgramWithSource(st->context, 2, src, NULL, &err);
    if (err != CL_SUCCESS) return gpusort__cl_fail(ctx, err, "clCreateProgramWithSource");
    err = clBuildProgram(prog, 1, &st->device, options, NULL, NULL);
    if (err != CL_SUCCESS) {
        char log[BUILD_LOG_CHARS + 1] = "";
        size_t got = 0;
        /* A log longer than the buffer makes the call fail: then ask for its size and read
         * the head of it through a larger buffer. */
        if (clGetProgramBuildInfo(prog, st->device, CL_PROGRAM_BUILD_LOG, 0, NULL, &got) ==
                CL_SUCCESS && got > 0) {
            char *full = (char *)gpusort__malloc(got + 1);
            if (full && clGetProgramBuildInfo(prog, st->device, CL_PROGRAM_BUILD_LOG, got, full,
                                              NULL) == CL_SUCCESS) {
                full[got] = 0;
                snprintf(log, sizeof log, "%s", full);
            }
            free(full);
        }
        clReleaseProgram(prog);
        return gpusort__set_error(ctx, err == CL_OUT_OF_HOST_MEMORY
                                           ? GPUSORT_STATUS_OUT_OF_HOST_MEMORY
                                           : GPUSORT_STATUS_DEVICE_ERROR,
                                  "clBuildProgram(%s %s): %s (%d); build log: %s", file, options,
                                  gpusort__cl_error_name(err), (int)err, log);
    }
    st->programs[id] = prog;
    return GPUSORT_STATUS_SUCCESS;
}

gpusort_status gpusort__cl_kernel(gpusort_ctx *ctx, gpusort__cl_program_id prog, const char *name,
                                  cl_kernel *kernel)
{
    cl_state *st = state(ctx);
    for (int i = 0; i < st->kernel_count; i++)
        if (st->kernels[i].prog == (int)prog && strcmp(st->kernels[i].name, name) == 0) {
            *kernel = st->kernels[i].kernel;
            return GPUSORT_STATUS_SUCCESS;
        }
    gpusort_status s;
    if (!st->programs[prog] && (s = build_program(ctx, prog))) return s;
    if (st->kernel_count == MAX_KERNELS)
        return gpusort__set_error(ctx, GPUSORT_STATUS_DEVICE_ERROR, "kernel cache full");
    cl_int err = CL_SUCCESS;
    cl_kernel k = clCreateKernel(st->programs[prog], name, &err);
    if (err != CL_SUCCESS) {
        char what[96];
        snprintf(what, sizeof what, "clCreateKernel(%s)", name);
        return gpusort__cl_fail(ctx, err, what);
    }
    st->kernels[st->kernel_count++] = (cached_kernel){(int)prog, name, k};
    *kernel = k;
    return GPUSORT_STATUS_SUCCESS;
}

gpusort_status gpusort__cl_args(gpusort_ctx *ctx, cl_kernel kernel, const char *name, ...)
{
    va_list ap;
    va_start(ap, name);
    cl_uint index = 0;
    for (;;) {
        size_t size = va_arg(ap, size_t);
        if (size == 0) break;
        const void *value = va_arg(ap, const void *);
        cl_int err = clSetKernelArg(kernel, index, size, value);
        if (err != CL_SUCCESS) {
            va_end(ap);
            char what[96];
            snprintf(what, sizeof what, "clSetKernelArg(%s, %u)", name, index);
            return gpusort__cl_fail(ctx, err, what);
        }
        index++;
    }
    va_end(ap);
    return GPUSORT_STATUS_SUCCESS;
}

gpusort_status gpusort__cl_launch(gpusort_ctx *ctx, cl_kernel kernel, const char *name,
                                  size_t groups, size_t local)
{
    size_t global = groups * local;
    cl_int err = clEnqueueNDRangeKernel(state(ctx)->queue, kernel, 1, NULL, &global, &local, 0,
                                        NULL, NULL);
    if (err == CL_SUCCESS) return GPUSORT_STATUS_SUCCESS;
    char what[96];
    snprintf(what, sizeof what, "clEnqueueNDRangeKernel(%s, %zu x %zu)", name, groups, local);
    return gpusort__cl_fail(ctx, err, what);
}

/* gpusort__cl_scratch and gpusort__cl_scratch_zeroed: a new buffer is zero-filled if `zero`. */
static gpusort_status scratch_get(gpusort_ctx *ctx, int slot, size_t bytes, cl_mem *mem, int zero)
{
    cl_state *st = state(ctx);
    if (bytes == 0) bytes = 1;
    if (st->scratch[slot] && st->scratch_bytes[slot] >= bytes) {
        *mem = st->scratch[slot];
        return GPUSORT_STATUS_SUCCESS;
    }
    if (st->scratch[slot]) {
        clReleaseMemObject(st->scratch[slot]);
        st->scratch[slot] = NULL;
        st->scratch_bytes[slot] = 0;
    }
    if (st->max_alloc && bytes > st->max_alloc)
        return gpusort__set_error(ctx, GPUSORT_STATUS_OUT_OF_DEVICE_MEMORY,
                                  "a buffer of %zu bytes exceeds the device's largest allocation "
                                  "(CL_DEVICE_MAX_MEM_ALLOC_SIZE = %llu bytes)",
                                  bytes, (unsigned long long)st->max_alloc);
    cl_int err = CL_SUCCESS;
    void *zeros = zero ? gpusort__calloc(1, bytes) : NULL;
    if (zero && !zeros)
        return gpusort__set_error(ctx, GPUSORT_STATUS_OUT_OF_HOST_MEMORY,
                                  "%zu bytes of zeros for a scratch buffer", bytes);
    cl_mem m = clCreateBuffer(st->context, CL_MEM_READ_WRITE | (zero ? CL_MEM_COPY_HOST_PTR : 0),
                              bytes, zeros, &err);
    free(zeros);
    if (err != CL_SUCCESS) {
        char what[96];
        snprintf(what, sizeof what, "clCreateBuffer(%zu bytes)", bytes);
        gpusort_status s = gpusort__cl_fail(ctx, err, what);
        if (err == CL_OUT_OF_RESOURCES || err == CL_INVALID_BUFFER_SIZE)
            s = GPUSORT_STATUS_OUT_OF_DEVICE_MEMORY;
        return s;
    }
    st->scratch[slot] = m;
    st->scratch_bytes[slot] = bytes;
    *mem = m;
    return GPUSORT_STATUS_SUCCESS;
}

gpusort_status gpusort__cl_scratch(gpusort_ctx *ctx, int slot, size_t bytes, cl_mem *mem)
{
    return scratch_get(ctx, slot, bytes, mem, 0);
}

gpusort_status gpusort__cl_scratch_zeroed(gpusort_ctx *ctx, int slot, size_t bytes, cl_mem *mem)
{
    return scratch_get(ctx, slot, bytes, mem, 1);
}

/* ---- sort ---- */

/* A caller's cl_mem: it must be of our context and hold `bytes`. */
static gpusort_status check_mem(gpusort_ctx *ctx, cl_mem m, size_t bytes, const char *what)
{
    cl_context c = NULL;
    size_t size = 0;
    cl_int err = clGetMemObjectInfo(m, CL_MEM_CONTEXT, sizeof c, &c, NULL);
    if (err == CL_SUCCESS) err = clGetMemObjectInfo(m, CL_MEM_SIZE, sizeof size, &size, NULL);
    if (err != CL_SUCCESS)
        return gpusort__set_error(ctx, GPUSORT_STATUS_INVALID_ARGUMENT,
                                  "%s is not a usable cl_mem: %s (%d)", what,
                                  gpusort__cl_error_name(err), (int)err);
    if (c != state(ctx)->context)
        return gpusort__set_error(ctx, GPUSORT_STATUS_INVALID_ARGUMENT,
                                  "%s belongs to another cl_context: pass a queue of that "
                                  "context to gpusort_ctx_set_stream first", what);
    if (size < bytes)
        return gpusort__set_error(ctx, GPUSORT_STATUS_INVALID_ARGUMENT,
                                  "%s holds %zu bytes, the sort needs %zu", what, size, bytes);
    return GPUSORT_STATUS_SUCCESS;
}

static gpusort_status run_algorithm(gpusort_ctx *ctx, gpusort_algorithm alg,
                                    const gpusort__cl_sort_args *a)
{
    if (alg == GPUSORT_ALGORITHM_BITONIC) return gpusort__cl_bitonic_sort(ctx, a);
    return gpusort__cl_radix_sort(ctx, a);
}

static gpusort_status sort_cl_mem(gpusort_ctx *ctx, const gpusort__sort_args *d,
                                  gpusort_algorithm alg)
{
    cl_state *st = state(ctx);
    size_t ks = gpusort_type_size(d->key_type);
    int vb = d->value_type == GPUSORT_TYPE_NONE ? 0 : (int)gpusort_type_size(d->value_type);
    gpusort__cl_sort_args a = {d->key_type, d->order, (cl_mem)d->keys_in, (cl_mem)d->keys_out,
                               vb, (cl_mem)d->values_in, (cl_mem)d->values_out, d->n};
    gpusort_status s;
    if ((s = check_mem(ctx, a.keys_in, d->n * ks, "keys_in"))) return s;
    if (a.keys_out && (s = check_mem(ctx, a.keys_out, d->n * ks, "keys_out"))) return s;
    if (a.values_in && (s = check_mem(ctx, a.values_in, d->n * vb, "values_in"))) return s;
    if (a.values_out && (s = check_mem(ctx, a.values_out, d->n * vb, "values_out"))) return s;
    if (!a.keys_out && (s = gpusort__cl_scratch(ctx, GPUSORT_CL_SCRATCH_KEYS_OUT, d->n * ks,
                                                &a.keys_out)))
        return s;
    if ((s = run_algorithm(ctx, alg, &a))) return s;
    return st->user_queue ? GPUSORT_STATUS_SUCCESS : ocl_synchronize(ctx);
}

/* The most keys one device sort of host data takes: the kernels' 32-bit limit, what fits in
 * 3/4 of the device memory (device copy + temporaries, about 2 (K + V) + max(K, V, 4) + 4 bytes a
 * key), what one buffer may hold, and the testing knob GPUSORT_OPENCL_HOST_RUN_KEYS. */
static size_t host_run_limit(gpusort_ctx *ctx, const gpusort__sort_args *d, gpusort_algorithm alg)
{
    cl_state *st = state(ctx);
    size_t ks = gpusort_type_size(d->key_type);
    size_t vs = d->value_type == GPUSORT_TYPE_NONE ? 0 : gpusort_type_size(d->value_type);
    size_t widest = ks > vs ? ks : vs, per_key = 2 * (ks + vs) + (widest > 4 ? widest : 4) + 4;
    size_t lim = alg == GPUSORT_ALGORITHM_BITONIC ? GPUSORT_CL_BITONIC_MAX_N
                                                  : GPUSORT_CL_RADIX_MAX_N;
    if (st->global_mem && st->global_mem / 4 * 3 / per_key < lim)
        lim = (size_t)(st->global_mem / 4 * 3 / per_key);
    if (st->max_alloc && st->max_alloc / widest < lim) lim = (size_t)(st->max_alloc / widest);
    const char *knob = getenv("GPUSORT_OPENCL_HOST_RUN_KEYS");
    if (knob && strtoull(knob, NULL, 10) > 0 && strtoull(knob, NULL, 10) < lim)
        lim = (size_t)strtoull(knob, NULL, 10);
    return lim ? lim : 1;
}

/* ---- host data: the device operations hostdata.c drives ----
 * One run lives in the IO scratch slots; the in-order queue orders each sort after the run's
 * writes and the reads after the sort, so the ranges need no events of their own (finish: one
 * range). Staging is plain host memory: OpenCL 1.2 has no portable page-locking, and a
 * driver that pins (CL_MEM_ALLOC_HOST_PTR) would be a measured change. Host arrays are
 * `direct` here (the driver copies from and to them itself), so only the read/write callbacks
 * of hoststream.c go through staging. The sort of a run is one chunk: the OpenCL kernels have
 * no merge. */

static void *hd_staging(gpusort_ctx *ctx, size_t bytes)
{
    cl_state *st = state(ctx);
    if (st->hd_stage_bytes < bytes) {
        free(st->hd_stage);
        st->hd_stage_bytes = 0;
        if (!(st->hd_stage = gpusort__malloc(bytes))) return NULL;
        st->hd_stage_bytes = bytes;
    }
    return st->hd_stage;
}

static gpusort_status hd_begin(gpusort_ctx *ctx, const gpusort__sort_args *d, size_t n,
                               size_t chunk)
{
    cl_state *st = state(ctx);
    gpusort_status s;
    (void)chunk;
    if (d->algorithm == GPUSORT_ALGORITHM_MERGE || d->algorithm == GPUSORT_ALGORITHM_RANK)
        return gpusort__set_error(ctx, GPUSORT_STATUS_UNSUPPORTED,
                                  "the OpenCL backend has no %s sort",
                                  gpusort_algorithm_name(d->algorithm));
    st->hd_es[0] = gpusort_type_size(d->key_type);
    st->hd_es[1] = d->value_type == GPUSORT_TYPE_NONE ? 0 : gpusort_type_size(d->value_type);
    st->hd_buf[1] = NULL;
    if ((s = gpusort__cl_scratch(ctx, GPUSORT_CL_SCRATCH_IO_KEYS, n * st->hd_es[0],
                                 &st->hd_buf[0])))
        return s;
    if (st->hd_es[1] && (s = gpusort__cl_scratch(ctx, GPUSORT_CL_SCRATCH_IO_VALUES,
                                                 n * st->hd_es[1], &st->hd_buf[1])))
        return s;
    return GPUSORT_STATUS_SUCCESS;
}

/* Keep the copy's event in slot ev (the slot's previous one was waited for or is done). */
static void hd_keep(cl_state *st, int ev, cl_event e)
{
    if (ev < 0) return;
    if (st->hd_ev[ev]) clReleaseEvent(st->hd_ev[ev]);
    st->hd_ev[ev] = e;
}

static gpusort_status hd_h2d(gpusort_ctx *ctx, int slot, size_t first, size_t count,
                             const void *src, int ev)
{
    cl_state *st = state(ctx);
    cl_event e = NULL;
    const size_t es = st->hd_es[slot];
    cl_int err = clEnqueueWriteBuffer(st->queue, st->hd_buf[slot], CL_FALSE, first * es,
                                      count * es, src, 0, NULL, ev >= 0 ? &e : NULL);
    if (err != CL_SUCCESS) return gpusort__cl_fail(ctx, err, "clEnqueueWriteBuffer");
    hd_keep(st, ev, e);
    return GPUSORT_STATUS_SUCCESS;
}

static gpusort_status hd_d2h(gpusort_ctx *ctx, int slot, size_t first, size_t count, void *dst,
                             int gate, int ev)
{
    cl_state *st = state(ctx);
    cl_event e = NULL;
    const size_t es = st->hd_es[slot];
    (void)gate; /* the in-order queue has sorted first */
    cl_int err = clEnqueueReadBuffer(st->queue, st->hd_buf[slot], CL_FALSE, first * es,
                                     count * es, dst, 0, NULL, ev >= 0 ? &e : NULL);
    if (err != CL_SUCCESS) return gpusort__cl_fail(ctx, err, "clEnqueueReadBuffer");
    hd_keep(st, ev, e);
    return GPUSORT_STATUS_SUCCESS;
}

static gpusort_status hd_wait(gpusort_ctx *ctx, int ev)
{
    cl_state *st = state(ctx);
    if (ev < 0 || !st->hd_ev[ev]) return GPUSORT_STATUS_SUCCESS;
    cl_int err = clWaitForEvents(1, &st->hd_ev[ev]);
    clReleaseEvent(st->hd_ev[ev]);
    st->hd_ev[ev] = NULL;
    return err == CL_SUCCESS ? GPUSORT_STATUS_SUCCESS : gpusort__cl_fail(ctx, err, "clWaitForEvents");
}

static gpusort_status hd_sort(gpusort_ctx *ctx, const gpusort__sort_args *d, size_t first,
                              size_t count)
{
    cl_state *st = state(ctx);
    (void)first; /* one chunk: the whole run */
    gpusort__cl_sort_args a = {d->key_type, d->order, st->hd_buf[0], st->hd_buf[0],
                               (int)st->hd_es[1], st->hd_es[1] ? st->hd_buf[1] : NULL,
                               st->hd_buf[1], count};
    return run_algorithm(ctx, d->algorithm, &a);
}

static int hd_finish(gpusort_ctx *ctx, const gpusort__sort_args *d, size_t n, size_t chunk,
                     uint64_t *range_end, int ranges, gpusort_status *status)
{
    (void)ctx, (void)d, (void)chunk, (void)ranges;
    *status = GPUSORT_STATUS_SUCCESS;
    range_end[0] = n;
    return 1;
}

static gpusort_status hd_drain(gpusort_ctx *ctx)
{
    cl_state *st = state(ctx);
    cl_int err = clFinish(st->queue);
    for (int i = 0; i < 2 * GPUSORT__HOSTDATA_MAX_THREADS; i++)
        if (st->hd_ev[i]) {
            clReleaseEvent(st->hd_ev[i]);
            st->hd_ev[i] = NULL;
        }
    return err == CL_SUCCESS ? GPUSORT_STATUS_SUCCESS : gpusort__cl_fail(ctx, err, "clFinish");
}

static size_t hd_capacity(gpusort_ctx *ctx, const gpusort__sort_args *d)
{
    return host_run_limit(ctx, d, d->algorithm);
}

static const gpusort__hostdev_ops hostdev_ops = {
    hd_staging, hd_capacity, NULL, hd_begin, NULL, hd_h2d, hd_sort, hd_finish, hd_d2h, hd_wait,
    hd_drain,
};

static gpusort_status ocl_sort(gpusort_ctx *ctx, const gpusort__sort_args *d)
{
    gpusort_algorithm alg = d->algorithm;
    if (alg == GPUSORT_ALGORITHM_MERGE || alg == GPUSORT_ALGORITHM_RANK)
        return gpusort__set_error(ctx, GPUSORT_STATUS_UNSUPPORTED,
                                  "the OpenCL backend has no %s sort (it offers radix and "
                                  "bitonic; merge and rank are CPU/CUDA algorithms)",
                                  gpusort_algorithm_name(alg));
    ctx->last_algorithm = alg == GPUSORT_ALGORITHM_BITONIC ? alg : GPUSORT_ALGORITHM_RADIX;
    if (!(d->flags & GPUSORT_FLAG_CL_MEM)) {
        static const int direct[4] = {1, 1, 1, 1};
        return gpusort__hostdata_sort(ctx, &hostdev_ops, d, direct);
    }
    size_t limit = alg == GPUSORT_ALGORITHM_BITONIC ? GPUSORT_CL_BITONIC_MAX_N
                                                    : GPUSORT_CL_RADIX_MAX_N;
    if (d->n > limit)
        return gpusort__set_error(ctx, GPUSORT_STATUS_UNSUPPORTED,
                                  "the OpenCL %s sort takes at most %zu elements (32-bit "
                                  "positions in the kernels); n = %zu",
                                  alg == GPUSORT_ALGORITHM_BITONIC ? "bitonic" : "radix", limit,
                                  d->n);
    return sort_cl_mem(ctx, d, alg);
}

/* ---- reduce (host data; see MEMORY above) ---- */

static gpusort_status ocl_reduce(gpusort_ctx *ctx, gpusort_type type, const void *data, size_t n,
                                 gpusort_op op, gpusort_value *result)
{
    if ((type == GPUSORT_TYPE_F64) && !state(ctx)->has_fp64)
        return gpusort__set_error(ctx, GPUSORT_STATUS_UNSUPPORTED,
                                  "f64 reduce needs cl_khr_fp64, which this OpenCL device lacks");
    cl_command_queue q = state(ctx)->queue;
    size_t bytes = n * gpusort_type_size(type);
    cl_mem buf = NULL;
    gpusort_status s = gpusort__cl_scratch(ctx, GPUSORT_CL_SCRATCH_IO_KEYS, bytes, &buf);
    if (s) return s;
    cl_int err = clEnqueueWriteBuffer(q, buf, CL_FALSE, 0, bytes, data, 0, NULL, NULL);
    if (err != CL_SUCCESS) s = gpusort__cl_fail(ctx, err, "clEnqueueWriteBuffer(data)");
    else s = gpusort__cl_reduce(ctx, type, buf, n, op, result);
    /* On success the blocking read of the result has drained the (in-order) queue, the write
     * of `data` included; after a failure, wait here so that nothing still reads `data`. */
    if (s) clFinish(q);
    return s;
}

/* Reduce of a caller's cl_mem (gpusort_reduce with GPUSORT_FLAG_CL_MEM). */
static gpusort_status ocl_reduce_cl_mem(gpusort_ctx *ctx, gpusort_type type, const void *data,
                                        size_t n, gpusort_op op, gpusort_value *result)
{
    if ((type == GPUSORT_TYPE_F64) && !state(ctx)->has_fp64)
        return gpusort__set_error(ctx, GPUSORT_STATUS_UNSUPPORTED,
                                  "f64 reduce needs cl_khr_fp64, which this OpenCL device lacks");
    cl_mem buf = (cl_mem)(uintptr_t)data;
    gpusort_status s = check_mem(ctx, buf, n * gpusort_type_size(type), "data");
    if (s) return s;
    s = gpusort__cl_reduce(ctx, type, buf, n, op, result);
    if (s) clFinish(state(ctx)->queue);   /* on success the blocking read has drained it */
    return s;
}

/* ---- top-k ----
 * One row on the device: the stable radix sort of the row (keys, with the indices when they
 * are wanted) into scratch, then the first k copied out: ties keep the lower index, as the
 * contract wants. A select (src/cpu/topk.c, src/cuda/topk.cu) would read the row fewer times;
 * this backend sorts. Host batches of several rows, and rows longer than one device sort, go
 * to the CPU backend's top-k; batches of cl_mem buffers the core refuses. */
static gpusort_status ocl_topk(gpusort_ctx *ctx, const gpusort__topk_args *t)
{
    int cl = (t->flags & GPUSORT_FLAG_CL_MEM) != 0;
    if (!cl && (t->row_length != t->n || t->n > GPUSORT_CL_RADIX_MAX_N))
        return gpusort__cpu_topk(ctx, t);
    if (cl && t->n > GPUSORT_CL_RADIX_MAX_N)
        return gpusort__set_error(ctx, GPUSORT_STATUS_UNSUPPORTED,
                                  "the OpenCL top-k takes at most %zu elements; n = %zu",
                                  (size_t)GPUSORT_CL_RADIX_MAX_N, t->n);
    cl_state *st = state(ctx);
    cl_command_queue q = st->queue;
    size_t ks = gpusort_type_size(t->key_type), n = t->n, k = t->k;
    size_t is = t->indices_out ? gpusort_type_size(t->index_type) : 0;
    gpusort__cl_sort_args a = {t->key_type, t->order, NULL, NULL, (int)is, NULL, NULL, n};
    gpusort_status s;
    cl_int err = CL_SUCCESS;
    if (cl) {
        a.keys_in = (cl_mem)t->keys_in;
        if ((s = check_mem(ctx, a.keys_in, n * ks, "keys_in"))) return s;
        if (t->keys_out && (s = check_mem(ctx, (cl_mem)t->keys_out, k * ks, "keys_out"))) return s;
        if (is && (s = check_mem(ctx, (cl_mem)t->indices_out, k * is, "indices_out"))) return s;
    } else {
        if ((s = gpusort__cl_scratch(ctx, GPUSORT_CL_SCRATCH_KEYS_OUT, n * ks, &a.keys_in))) return s;
        err = clEnqueueWriteBuffer(q, a.keys_in, CL_FALSE, 0, n * ks, t->keys_in, 0, NULL, NULL);
        if (err != CL_SUCCESS) { s = gpusort__cl_fail(ctx, err, "clEnqueueWriteBuffer(keys)"); goto done; }
    }
    if ((s = gpusort__cl_scratch(ctx, GPUSORT_CL_SCRATCH_IO_KEYS, n * ks, &a.keys_out))) goto done;
    if (is && (s = gpusort__cl_scratch(ctx, GPUSORT_CL_SCRATCH_IO_VALUES, n * is, &a.values_out)))
        goto done;
    if ((s = gpusort__cl_radix_sort(ctx, &a))) goto done;
    if (cl) {
        if (t->keys_out)
            err = clEnqueueCopyBuffer(q, a.keys_out, (cl_mem)t->keys_out, 0, 0, k * ks, 0, NULL, NULL);
        if (err == CL_SUCCESS && is)
            err = clEnqueueCopyBuffer(q, a.values_out, (cl_mem)t->indices_out, 0, 0, k * is, 0,
                                      NULL, NULL);
        if (err != CL_SUCCESS) { s = gpusort__cl_fail(ctx, err, "clEnqueueCopyBuffer"); goto done; }
        return st->user_queue ? GPUSORT_STATUS_SUCCESS : ocl_synchronize(ctx);
    }
    if (t->keys_out)
        err = clEnqueueReadBuffer(q, a.keys_out, CL_TRUE, 0, k * ks, t->keys_out, 0, NULL, NULL);
    if (err == CL_SUCCESS && is)
        err = clEnqueueReadBuffer(q, a.values_out, CL_TRUE, 0, k * is, t->indices_out, 0, NULL,
                                  NULL);
    if (err != CL_SUCCESS) s = gpusort__cl_fail(ctx, err, "clEnqueueReadBuffer");
done:
    if (s) clFinish(q);   /* nothing may still read the caller's memory */
    return s;
}

const gpusort_backend_ops gpusort__opencl_ops = {
    GPUSORT_BACKEND_OPS_VERSION,
    GPUSORT_BACKEND_OPENCL,
    "opencl",
    ocl_device_count,
    ocl_device_info,
    ocl_init,
    ocl_destroy,
    ocl_sort,
    ocl_reduce,
    NULL,               /* segmented_sort: the core falls back to the CPU */
    NULL,               /* batch_sort: likewise */
    NULL,               /* sort_strings: likewise */
    NULL,               /* sort_records: likewise */
    ocl_set_stream,
    ocl_synchronize,
    ocl_reduce_cl_mem,
    ocl_trim,
    NULL,               /* set_allocator: UNSUPPORTED (buffers come from clCreateBuffer) */
    NULL,               /* set_scratch: likewise */
    NULL,               /* scratch_size: 0 bytes of device scratch to query */
    ocl_topk,
    &hostdev_ops,
    NULL,               /* multi: pieces of gpusort_multi_sort are host memory */
};
