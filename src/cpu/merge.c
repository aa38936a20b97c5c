/* merge.c -- FIRST CUT (correct, single-threaded): stable merge sort of (radix key, index)
 * items, then a gather. Being replaced by the parallel merge sort. */
#include "cpu.h"
#include "job.h"
#include "keys.h"

#include <stdlib.h>
#include <string.h>

typedef struct item { uint64_t rk, i; } item;

static uint64_t job_rk(const gpusort__cpu_job *job, size_t i)
{
    if (job->key_bytes == 4) {
        uint32_t b;
        memcpy(&b, (const char *)job->keys_in + i * 4, 4);
        return gpusort__radix32(b, job->key_type, job->desc);
    }
    uint64_t b;
    memcpy(&b, (const char *)job->keys_in + i * 8, 8);
    return gpusort__radix64(b, job->key_type, job->desc);
}

static void gather(const void *in, void *out, size_t es, const item *it, size_t n, void *tmp)
{
    char *dst = in == out ? (char *)tmp : (char *)out;
    for (size_t k = 0; k < n; k++) memcpy(dst + k * es, (const char *)in + it[k].i * es, es);
    if (in == out) memcpy(out, tmp, n * es);
}

gpusort_status gpusort__cpu_merge_job(gpusort_ctx *ctx, const gpusort__cpu_job *job)
{
    size_t n = job->n;
    item *a = (item *)malloc(n * sizeof *a), *b = (item *)malloc(n * sizeof *b);
    void *tmp = malloc(n * 8);
    if (!a || !b || !tmp) {
        free(a); free(b); free(tmp);
        return gpusort__set_error(ctx, GPUSORT_STATUS_OUT_OF_HOST_MEMORY,
                                  "merge sort: %zu bytes of scratch", n * 40);
    }
    for (size_t i = 0; i < n; i++) { a[i].rk = job_rk(job, i); a[i].i = i; }
    for (size_t w = 1; w < n; w *= 2) {
        for (size_t lo = 0; lo < n; lo += 2 * w) {
            size_t mid = lo + w < n ? lo + w : n, hi = lo + 2 * w < n ? lo + 2 * w : n;
            size_t x = lo, y = mid, k = lo;
            while (x < mid && y < hi) b[k++] = a[y].rk < a[x].rk ? a[y++] : a[x++];
            while (x < mid) b[k++] = a[x++];
            while (y < hi) b[k++] = a[y++];
        }
        item *t = a; a = b; b = t;
    }
    if (job->keys_out) gather(job->keys_in, job->keys_out, (size_t)job->key_bytes, a, n, tmp);
    if (job->value_bytes) {
        if (job->values_in)
            gather(job->values_in, job->values_out, (size_t)job->value_bytes, a, n, tmp);
        else if (job->value_bytes == 4)
            for (size_t k = 0; k < n; k++)
                ((uint32_t *)job->values_out)[k] = (uint32_t)(job->index_base + a[k].i);
        else
            for (size_t k = 0; k < n; k++)
                ((uint64_t *)job->values_out)[k] = job->index_base + a[k].i;
    }
    free(a); free(b); free(tmp);
    return GPUSORT_STATUS_SUCCESS;
}

gpusort_status gpusort__cpu_merge_sort(gpusort_ctx *ctx, const gpusort_sort_desc *d)
{
    gpusort__cpu_job job;
    gpusort__cpu_job_from_desc(&job, d, gpusort__threads(ctx));
    return gpusort__cpu_merge_job(ctx, &job);
}

gpusort_status gpusort__cpu_merge_runs(gpusort_ctx *ctx, const gpusort_sort_desc *d,
                                       const uint64_t *run_offsets, size_t num_runs)
{
    /* First cut: a stable sort of the runs' concatenation equals their stable merge. */
    gpusort__cpu_job job;
    gpusort__cpu_job_from_desc(&job, d, gpusort__threads(ctx));
    size_t lo = num_runs ? run_offsets[0] : 0, hi = num_runs ? run_offsets[num_runs] : 0;
    if (hi <= lo) return GPUSORT_STATUS_SUCCESS;
    job.n = hi - lo;
    job.keys_in = (const char *)d->keys_in + lo * job.key_bytes;
    if (job.keys_out) job.keys_out = (char *)d->keys_out + lo * job.key_bytes;
    if (job.value_bytes) job.values_out = (char *)d->values_out + lo * job.value_bytes;
    job.index_base = lo;
    if (job.values_in) job.values_in = (const char *)d->values_in + lo * job.value_bytes;
    return gpusort__cpu_merge_job(ctx, &job);
}
