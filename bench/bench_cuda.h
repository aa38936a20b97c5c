/*
 * bench_cuda.h -- what the CUDA benchmark program's files share.
 * bench_cuda.cu owns main() and the radix/reduce/host-data suites; each cuda_*.cu file adds a
 * suite, called from main by its --suite name.
 */
#ifndef GPUSORT_BENCH_CUDA_H
#define GPUSORT_BENCH_CUDA_H

#include <cuda_runtime.h>
#include <stdio.h>
#include <stdlib.h>

/* A CUDA call that must succeed: on an error, say which call and where, and exit 2. */
#define CK(x)                                                                                    \
    do {                                                                                         \
        cudaError_t e_ = (x);                                                                    \
        if (e_ != cudaSuccess) {                                                                 \
            fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #x, cudaGetErrorString(e_)); \
            exit(2);                                                                             \
        }                                                                                        \
    } while (0)

/* cuda_seeds.cu: bitonic, merge, rank and segmented sort against their baselines and CUB.
 * argv holds the options after "--suite seeds"; returns the exit code. */
int bench_cuda_seeds(int argc, char **argv);

#endif
