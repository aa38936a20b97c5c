/*
 * internal.h -- what gpusort's own programs (tools/, bench/, tests/) may use beyond gpusort.h.
 *
 * NOT part of the API: this header is not installed, its names carry the internal prefix
 * `gpusort__`, and they change without notice or version bump. A program outside this tree
 * uses gpusort.h alone.
 *
 * What it offers:
 *   the radix key transforms (keys.h)     gpusort__radix32 / gpusort__radix64 and the per-type
 *                                          gpusort__radix_f32 / _f64 / _i32 / _i64: the gpusort
 *                                          order of a number as one unsigned compare (NaN last,
 *                                          -0.0 == +0.0, descending = complement)
 *   gpusort__cpu_parallel_for              the CPU backend's fork-join helper (src/cpu/parallel.c)
 *   gpusort__malloc and the others of      the host allocations of the library and of tools/,
 *     src/alloc.c                          with the test-only hook that fails the k-th one
 *   gpusort__cl_context, gpusort__cl_kernel the OpenCL backend's cl_context and its kernels by
 *     and gpusort__cl_program_id           program (src/opencl/backend.c), for bench_opencl's
 *                                          own queue and its per-kernel timings; declared
 *                                          only where <CL/cl.h> was included first
 *
 * Linking. The library is built with hidden visibility: libgpusort.so exports the GPUSORT_API
 * functions of gpusort.h only, so gpusort__cpu_parallel_for is NOT reachable through the shared
 * library. A program that uses it links the static library (CMake target gpusort_static) or the
 * object library (gpusort_objects), as tools/ does. The keys.h transforms are static inline and
 * need no symbol at all.
 */
#ifndef GPUSORT_INTERNAL_H
#define GPUSORT_INTERNAL_H

#include "gpusort.h"
#include "keys.h"

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Run fn(arg, i) for i in [0, count) on up to `threads` threads (the caller's thread is one of
 * them) and wait for all; one task per thread (count <= threads) is the usual use. When threads
 * cannot be created the remaining tasks run on the calling thread: every task runs once. */
gpusort_status gpusort__cpu_parallel_for(int threads, size_t count,
                                         void (*fn)(void *arg, size_t i), void *arg);

/* Host allocations (src/alloc.c). Release with free(). Each counts as one allocation for the
 * test hook: gpusort__alloc_fail_at(k) makes the k-th allocation from now fail (NULL), and every
 * later one, until gpusort__alloc_fail_at(0); gpusort__alloc_count() counts them since arming.
 * gpusort__alloc_fails() counts one allocation made by other means (mmap, posix_memalign) and
 * returns 1 when it must fail. Disarmed (the default) nothing fails. */
void *gpusort__malloc(size_t bytes);
void *gpusort__calloc(size_t count, size_t size);
void *gpusort__realloc(void *p, size_t bytes);
void *gpusort__aligned_alloc(size_t alignment, size_t bytes);
char *gpusort__strdup(const char *s);
int gpusort__alloc_fails(void);
void gpusort__alloc_fail_at(long k);
long gpusort__alloc_count(void);

/* Why the CUDA backend found no device, in buf (one line): no driver, a driver older than the
 * runtime the library was built with (the version numbers), or the driver's error. Only in a
 * build with the CUDA backend (GPUSORT_HAVE_CUDA); for `gpusort devices` and the CLI's errors. */
const char *gpusort__cuda_no_device_reason(char *buf, size_t size);

#if defined(CL_VERSION_1_0) /* the includer has <CL/cl.h> */
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
#endif /* CL_VERSION_1_0 */

#ifdef __cplusplus
}
#endif
#endif /* GPUSORT_INTERNAL_H */
