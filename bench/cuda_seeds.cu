/* cuda_seeds.cu -- PLACEHOLDER until issue 4 lands. */
#include "bench_cuda.h"
#include <stdio.h>

int bench_cuda_seeds(int argc, char **argv)
{
    fprintf(stderr, "bench_cuda: the seeds suite is not written yet\n");
    return 2;
}
