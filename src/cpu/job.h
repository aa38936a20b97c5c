/*
 * job.h -- INTERNAL to the CPU backend: one sort request in the form its sort kernels take.
 *
 * The public description (gpusort__sort_args) is turned into a gpusort__cpu_job once, in
 * backend.c / segmented.c, so that radix.c and merge.c see plain sizes and pointers:
 *   key_bytes     4 or 8 (from the key type)
 *   value_bytes   0 (keys only), 4 or 8
 *   values_in     NULL with value_bytes != 0 means argsort: value i is index_base + i
 *   keys_out      may be NULL when values are wanted (the kernels then use scratch)
 * In place: keys_out == keys_in and/or values_out == values_in.
 */
#ifndef GPUSORT_CPU_JOB_H
#define GPUSORT_CPU_JOB_H

#include "cpu.h"

typedef struct gpusort__cpu_job {
    gpusort_type key_type;
    int key_bytes;           /* 4 or 8 */
    int desc;                /* 1 for descending */
    const void *keys_in;
    void *keys_out;          /* NULL: keys not wanted (pairs/argsort) */
    int value_bytes;         /* 0, 4 or 8 */
    const void *values_in;   /* NULL with value_bytes: indices index_base + i */
    void *values_out;
    uint64_t index_base;     /* first index of argsort (segments use their offset) */
    size_t n;
    int threads;             /* worker threads allowed for this job (>= 1) */
} gpusort__cpu_job;

/* Fill a job from a checked description (whole array, index_base 0). */
void gpusort__cpu_job_from_desc(gpusort__cpu_job *job, const gpusort__sort_args *d, int threads);

/* The kernels behind gpusort__cpu_radix_sort / gpusort__cpu_merge_sort, on a job. */
gpusort_status gpusort__cpu_radix_job(gpusort_ctx *ctx, const gpusort__cpu_job *job);
gpusort_status gpusort__cpu_merge_job(gpusort_ctx *ctx, const gpusort__cpu_job *job);

/* Scratch buffers of n-element size (memory.c): huge pages where the system offers them,
 * kept by ctx between calls (ctx may be NULL: not kept). Free with the size allocated. */
void *gpusort__cpu_big_alloc(gpusort_ctx *ctx, size_t bytes);
void gpusort__cpu_big_free(gpusort_ctx *ctx, void *p, size_t bytes);

#endif /* GPUSORT_CPU_JOB_H */
