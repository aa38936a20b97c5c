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
 * cannot be created the remaining tasks run on the calling thread: every task runs once.
 * (Declared here as in src/cpu/cpu.h, which the programs do not include.) */
gpusort_status gpusort__cpu_parallel_for(int threads, size_t count,
                                         void (*fn)(void *arg, size_t i), void *arg);

#ifdef __cplusplus
}
#endif
#endif /* GPUSORT_INTERNAL_H */
