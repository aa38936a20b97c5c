/* segmented.c -- FIRST CUT: segments sorted one after another with the radix job. */
#include "cpu.h"
#include "job.h"

#include <string.h>

static gpusort_status run_segments(gpusort_ctx *ctx, const gpusort_sort_desc *d,
                                   const uint64_t *offsets, size_t num_segments,
                                   size_t row_length)
{
    gpusort__cpu_job whole;
    gpusort__cpu_job_from_desc(&whole, d, gpusort__threads(ctx));
    size_t ks = (size_t)whole.key_bytes, vs = (size_t)whole.value_bytes;
    if (offsets) {
        for (size_t s = 0; s < num_segments; s++)
            if (offsets[s] > offsets[s + 1] || offsets[s + 1] > d->n)
                return gpusort__set_error(ctx, GPUSORT_STATUS_INVALID_ARGUMENT,
                                          "segment %zu: offsets [%llu, %llu) not within [0, %zu]"
                                          " or decreasing", s, (unsigned long long)offsets[s],
                                          (unsigned long long)offsets[s + 1], d->n);
        /* Elements outside every segment: copied unchanged (identity indices for argsort). */
        size_t prev = 0;
        for (size_t s = 0; s <= num_segments; s++) {
            size_t lo = prev, hi = s < num_segments ? (size_t)offsets[s] : d->n;
            if (s < num_segments && (size_t)offsets[s + 1] > prev) prev = offsets[s + 1];
            if (hi <= lo) continue;
            if (d->keys_out && d->keys_out != d->keys_in)
                memcpy((char *)d->keys_out + lo * ks, (const char *)d->keys_in + lo * ks,
                       (hi - lo) * ks);
            if (vs && d->values_in && d->values_out != d->values_in)
                memcpy((char *)d->values_out + lo * vs, (const char *)d->values_in + lo * vs,
                       (hi - lo) * vs);
            if (vs && !d->values_in)
                for (size_t i = lo; i < hi; i++) {
                    if (vs == 4) ((uint32_t *)d->values_out)[i] = (uint32_t)i;
                    else ((uint64_t *)d->values_out)[i] = i;
                }
        }
    } else {
        num_segments = d->n / row_length;
    }
    for (size_t s = 0; s < num_segments; s++) {
        size_t lo = offsets ? (size_t)offsets[s] : s * row_length;
        size_t hi = offsets ? (size_t)offsets[s + 1] : lo + row_length;
        if (hi <= lo) continue;
        gpusort__cpu_job job = whole;
        job.n = hi - lo;
        job.keys_in = (const char *)d->keys_in + lo * ks;
        if (d->keys_out) job.keys_out = (char *)d->keys_out + lo * ks;
        if (vs) {
            if (d->values_in) job.values_in = (const char *)d->values_in + lo * vs;
            job.values_out = (char *)d->values_out + lo * vs;
            job.index_base = lo;
        }
        gpusort_status st = gpusort__cpu_radix_job(ctx, &job);
        if (st) return st;
    }
    return GPUSORT_STATUS_SUCCESS;
}

gpusort_status gpusort__cpu_segmented_sort(gpusort_ctx *ctx, const gpusort_sort_desc *d,
                                           const uint64_t *offsets, size_t num_segments)
{
    if (num_segments == 0) return run_segments(ctx, d, offsets ? offsets : (const uint64_t[]){0}, 0, 0);
    return run_segments(ctx, d, offsets, num_segments, 0);
}

gpusort_status gpusort__cpu_batch_sort(gpusort_ctx *ctx, const gpusort_sort_desc *d,
                                       size_t row_length)
{
    return run_segments(ctx, d, NULL, 0, row_length);
}
