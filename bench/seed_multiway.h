/*
 * seed_multiway.h -- seed 000's one-block column sort + multi-way merge (seed_multiway.cu), the
 * subject of bench_cuda's "table" rows. Benchmark code, not part of the library.
 */
#ifndef GPUSORT_BENCH_SEED_MULTIWAY_H
#define GPUSORT_BENCH_SEED_MULTIWAY_H

#include "gpusort.h"

#include <cuda_runtime.h>
#include <stddef.h>
#include <stdint.h>

/* Device scratch the sort of n keys needs. */
size_t seed_multiway_scratch_bytes(uint64_t n);
/* Sort n 32-bit keys of `type` (ascending, stable) from keys_in into keys_out (device memory,
 * not overlapping) with merge variant 0..3 over `lists` columns (1..1024), on stream st. */
cudaError_t seed_multiway_sort(const uint32_t *keys_in, uint32_t *keys_out, uint64_t n,
                               gpusort_type type, int variant, int lists, void *scratch,
                               cudaStream_t st);

#endif /* GPUSORT_BENCH_SEED_MULTIWAY_H */
