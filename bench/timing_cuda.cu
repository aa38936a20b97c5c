/*
 * timing_cuda.cu -- the CUDA-event clock of the benchmark harness (timing.h): start() records
 * an event on the clock's stream, stop() records a second one, waits for it and returns the
 * milliseconds between the two. The events measure the work enqueued on the stream between
 * them, plus any host time the timed call spends before it enqueues (a call that waits for its
 * own work, as gpusort's calls on host data do, is timed to its end all the same).
 * Kept apart from timing.c so that the C programs (bench_opencl, bench_exec) need no CUDA.
 */
#include "timing.h"

#include <cuda_runtime.h>
#include <stdio.h>
#include <stdlib.h>

namespace {

struct cuda_clock_state {
    cudaStream_t stream;
    cudaEvent_t start, stop;
};

void check(cudaError_t e, const char *what)
{
    if (e != cudaSuccess) {
        fprintf(stderr, "bench: %s: %s\n", what, cudaGetErrorString(e));
        exit(2);
    }
}

void cuda_start(void *state)
{
    cuda_clock_state *s = (cuda_clock_state *)state;
    check(cudaEventRecord(s->start, s->stream), "cudaEventRecord");
}

double cuda_stop(void *state)
{
    cuda_clock_state *s = (cuda_clock_state *)state;
    check(cudaEventRecord(s->stop, s->stream), "cudaEventRecord");
    check(cudaEventSynchronize(s->stop), "cudaEventSynchronize");
    check(cudaGetLastError(), "the timed call");
    float ms = 0;
    check(cudaEventElapsedTime(&ms, s->start, s->stop), "cudaEventElapsedTime");
    return ms;
}

}  // namespace

void bench_clock_cuda_init(bench_clock *clock, void *stream)
{
    cuda_clock_state *s = (cuda_clock_state *)malloc(sizeof *s);
    if (!s) {
        fprintf(stderr, "bench: out of host memory\n");
        exit(2);
    }
    s->stream = (cudaStream_t)stream;
    check(cudaEventCreate(&s->start), "cudaEventCreate");
    check(cudaEventCreate(&s->stop), "cudaEventCreate");
    clock->name = "cuda events";
    clock->start = cuda_start;
    clock->stop = cuda_stop;
    clock->state = s;
}

void bench_clock_cuda_free(bench_clock *clock)
{
    cuda_clock_state *s = (cuda_clock_state *)clock->state;
    if (!s) return;
    cudaEventDestroy(s->start);
    cudaEventDestroy(s->stop);
    free(s);
    clock->state = NULL;
}
