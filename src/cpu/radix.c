/* radix.c -- FIRST CUT: forwards to the merge sort until the LSD radix sort lands. */
#include "cpu.h"
#include "job.h"

gpusort_status gpusort__cpu_radix_job(gpusort_ctx *ctx, const gpusort__cpu_job *job)
{
    return gpusort__cpu_merge_job(ctx, job);
}

gpusort_status gpusort__cpu_radix_sort(gpusort_ctx *ctx, const gpusort_sort_desc *d)
{
    gpusort__cpu_job job;
    gpusort__cpu_job_from_desc(&job, d, gpusort__threads(ctx));
    return gpusort__cpu_radix_job(ctx, &job);
}
