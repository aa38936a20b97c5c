/*
 * opencl_internal.h -- INTERNAL: what the OpenCL backend's files share.
 *
 * backend.c owns the context state (platform, device, cl_context, queue, the cache of built
 * programs and kernels, scratch buffers), error mapping, and the host-data pipeline (copy in,
 * sort on the device, copy out); it dispatches each call to one algorithm file:
 *   radix.c    LSD radix sort, local-memory ranking      gpusort__cl_radix_sort
 *   bitonic.c  bitonic network, index tie-break          gpusort__cl_bitonic_sort
 *   reduce.c   sum / min / max                           gpusort__cl_reduce
 * The kernels are OpenCL C 1.2 in kernels/<same name>.cl (+ kernels/keys.cl, the key transforms
 * of src/keys.h), embedded at build time (cmake/embed_cl.cmake -> opencl_kernels.h).
 *
 * Contract of every algorithm entry (gpusort__cl_sort_args below):
 *   - every buffer is a cl_mem of the context's cl_context; n > 0; types valid (core checked);
 *   - keys_out is never NULL (backend.c gives scratch when the caller wants values only);
 *     keys_out == keys_in means in place; likewise for values;
 *   - values_in == NULL with value_bytes 4/8 means argsort: values are 0..n-1;
 *   - the work is enqueued on the context's current queue (gpusort__cl_queue); the entry need
 *     not finish it;
 *   - temporary device memory comes from gpusort__cl_scratch() (owned by the context, grown on
 *     demand, reused across calls; one buffer per slot);
 *   - on failure, return a status with detail (gpusort__cl_fail helps).
 */
#ifndef GPUSORT_OPENCL_INTERNAL_H
#define GPUSORT_OPENCL_INTERNAL_H

#include "backend.h"

#ifndef CL_TARGET_OPENCL_VERSION
#define CL_TARGET_OPENCL_VERSION 120
#endif
#include <CL/cl.h>

#include "internal.h"

/* Largest n one device sort takes: positions and counts are 32-bit in the kernels (uint), and
 * a tile index times the tile size must not wrap. Bitonic pads to a power of two, so its limit
 * is 2^31. Above these the backend answers UNSUPPORTED with the limit in the message. */
#define GPUSORT_CL_RADIX_MAX_N ((size_t)0xFFFF0000u)
#define GPUSORT_CL_BITONIC_MAX_N ((size_t)1 << 31)

/* Keys per work-item of the radix kernels for key and value sizes in bytes (see radix.cl);
 * a radix tile is 256 times that. */
#define GPUSORT_CL_RADIX_ITEMS(key_bytes, value_bytes) ((key_bytes) + (value_bytes) <= 8 ? 16 : 8)

/* Scratch slots: a call may hold one buffer per slot at the same time. */
enum {
    GPUSORT_CL_SCRATCH_IO_KEYS = 0,   /* backend.c: device copy of host keys */
    GPUSORT_CL_SCRATCH_IO_VALUES,     /* backend.c: device copy of host values / indices */
    GPUSORT_CL_SCRATCH_KEYS_OUT,      /* backend.c: keys_out when the caller wants none */
    GPUSORT_CL_SCRATCH_KEYS,          /* alternate key buffer (radix), radix keys (bitonic) */
    GPUSORT_CL_SCRATCH_VALUES,        /* alternate value buffer (radix), indices (bitonic) */
    GPUSORT_CL_SCRATCH_AUX,           /* digit counts (radix), gather target (bitonic) */
    GPUSORT_CL_SCRATCH_AUX2,          /* scanned offsets (radix); partials (reduce) */
    GPUSORT_CL_SCRATCH_AUX3,          /* scan block sums (radix) */
    GPUSORT_CL_SCRATCH_REDUCE_DONE,   /* reduce's ticket counter: zero between calls (reduce.cl) */
    GPUSORT_CL_SCRATCH_COUNT
};

/* gpusort__cl_program_id, gpusort__cl_context and gpusort__cl_kernel are declared in internal.h
 * (the benchmarks use them too). */

/* One sort on device buffers (see the contract above). */
typedef struct gpusort__cl_sort_args {
    gpusort_type key_type;
    gpusort_order order;
    cl_mem keys_in, keys_out;
    int value_bytes;                  /* 0 (keys only), 4 or 8 */
    cl_mem values_in, values_out;     /* values_in NULL with value_bytes != 0: argsort */
    size_t n;
} gpusort__cl_sort_args;

/* The queue work is enqueued on: the caller's (gpusort_ctx_set_stream) or the context's own. */
cl_command_queue gpusort__cl_queue(gpusort_ctx *ctx);

/* 1 if the device has double precision (cl_khr_fp64) and it is not disabled by the testing
 * knob GPUSORT_OPENCL_NO_FP64=1 (environment, read at context creation). */
int gpusort__cl_has_fp64(gpusort_ctx *ctx);
/* Compute units of the device (sizes the reduce grid). */
int gpusort__cl_compute_units(gpusort_ctx *ctx);


/* Set the arguments of a kernel from a list of (size, pointer) pairs ending with size 0. */
gpusort_status gpusort__cl_args(gpusort_ctx *ctx, cl_kernel kernel, const char *name, ...);
/* Enqueue a 1-D kernel with `groups` work-groups of `local` work-items. */
gpusort_status gpusort__cl_launch(gpusort_ctx *ctx, cl_kernel kernel, const char *name,
                                  size_t groups, size_t local);
/* Device buffer of at least `bytes` for `slot`, kept by the context. Contents undefined. */
gpusort_status gpusort__cl_scratch(gpusort_ctx *ctx, int slot, size_t bytes, cl_mem *mem);
/* The same, but a buffer created by this call is all zero bytes (filled at creation from the
 * host: nothing is enqueued). A buffer that already existed keeps what the last user left in
 * it: for slots whose users restore the zeros themselves (reduce's counter). */
gpusort_status gpusort__cl_scratch_zeroed(gpusort_ctx *ctx, int slot, size_t bytes, cl_mem *mem);
/* Map a failing cl_int to a status and a message "what: CL_ERROR_NAME (code)". */
gpusort_status gpusort__cl_fail(gpusort_ctx *ctx, cl_int err, const char *what);
/* "CL_OUT_OF_RESOURCES" etc.; "CL_UNKNOWN_ERROR" for codes it does not know. */
const char *gpusort__cl_error_name(cl_int err);

gpusort_status gpusort__cl_radix_sort(gpusort_ctx *ctx, const gpusort__cl_sort_args *a);
gpusort_status gpusort__cl_bitonic_sort(gpusort_ctx *ctx, const gpusort__cl_sort_args *a);
/* data is a cl_mem of the context; the result is read back (the call completes). */
gpusort_status gpusort__cl_reduce(gpusort_ctx *ctx, gpusort_type type, cl_mem data, size_t n,
                                  gpusort_op op, gpusort_value *result);

#endif /* GPUSORT_OPENCL_INTERNAL_H */
