/*
 * bench_internal.h -- INTERNAL: the one header through which the benchmark programs reach the
 * library's internals. Everything else they call is the public gpusort.h.
 *
 *   gpusort__radix_*, gpusort__radix32    (keys.h) the radix-key order of each key type: the
 *                                         CUDA programs check their outputs' order on the device
 *   gpusort__cl_context                   bench_opencl: the cl_context of the device the OpenCL
 *                                         backend chose, to make the program's own queue there
 *   gpusort__cl_kernel, program ids       bench_opencl --breakdown (the kernels of one radix pass
 *                                         timed one by one) and --dump-reduce (a program binary)
 *
 * The OpenCL declarations repeat those of src/opencl/opencl_internal.h (the benchmarks do
 * not include a backend's private header); they belong in the library's declared internal
 * header, src/internal.h, and this file then includes that header instead of declaring them.
 */
#ifndef GPUSORT_BENCH_INTERNAL_H
#define GPUSORT_BENCH_INTERNAL_H

#include "gpusort.h"
#include "keys.h"

#if defined(CL_VERSION_1_0) /* the includer has <CL/cl.h> (bench_opencl.c) */
#ifdef __cplusplus
extern "C" {
#endif

/* The programs the backend builds, each once per context, on first use. A radix program is
 * specialised for the key width and the value width (-DGS_KEY_BITS, -DGS_VAL_BYTES); a bitonic
 * program for the key width. */
typedef enum gpusort__cl_program_id {
    GPUSORT_CL_PROG_RADIX_K32_V0 = 0, /* + 3 * (key 64) + value bytes / 4 */
    GPUSORT_CL_PROG_RADIX_COUNT = 6,
    GPUSORT_CL_PROG_BITONIC_K32 = 6,
    GPUSORT_CL_PROG_BITONIC_K64 = 7,
    GPUSORT_CL_PROG_REDUCE = 8,
    GPUSORT_CL_PROG_COUNT = 9
} gpusort__cl_program_id;

/* The cl_context of an OpenCL gpusort context (its own, or the one of the queue given to
 * gpusort_ctx_set_stream). */
cl_context gpusort__cl_context(gpusort_ctx *ctx);

/* The kernel `name` of program `prog`, building the program on first use (the build log goes
 * into the context's error on failure). The kernel object is cached by the context: set its
 * arguments and enqueue it before asking for another use of the same kernel. */
gpusort_status gpusort__cl_kernel(gpusort_ctx *ctx, gpusort__cl_program_id prog, const char *name,
                                  cl_kernel *kernel);

#ifdef __cplusplus
}
#endif
#endif /* CL_VERSION_1_0 */

#endif /* GPUSORT_BENCH_INTERNAL_H */
