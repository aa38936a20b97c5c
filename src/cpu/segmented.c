/*
 * segmented.c -- segmented sort and fixed-row batch sort on the CPU.
 *
 * Exports gpusort__cpu_segmented_sort (segments [offsets[s], offsets[s+1])) and
 * gpusort__cpu_batch_sort (rows of row_length). Keys, pairs and argsort (values_in NULL: the
 * value of element i is its input position i in the whole array), every key type, both
 * orders, stable, in place or out of place.
 *
 * ALGORITHM. Each segment is an independent sort done by the radix sort (radix.c, which uses
 * insertion sort for segments of <= 32 elements). Work is split two ways:
 *   - large segments (>= LARGE_SEGMENT elements, or more than a thread's share of the data)
 *     are sorted one after another, each with all threads;
 *   - the other segments are handed out in groups of consecutive segments to the threads, each
 *     sorting its segments single-threaded; a group holds about GROUP_ELEMS elements so that
 *     a million tiny segments do not cost a million task hand-outs.
 * Elements outside every segment are copied unchanged to the output (their indices, for
 * argsort). Offsets are checked here (non-decreasing, within n): the core does not.
 */
#include "cpu.h"
#include "job.h"

#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

enum {
    LARGE_SEGMENT = 1 << 18,       /* a segment this big gets all threads */
    GROUP_ELEMS = 1 << 16,         /* elements per group of small segments */
};

typedef struct segplan {
    const gpusort__sort_args *d;
    gpusort__cpu_job whole;        /* the job for the whole array; segments narrow it */
    const uint64_t *offsets;       /* NULL: rows of row_length */
    size_t row_length, num_segments, large;
    size_t *group_start;           /* [groups + 1] first segment of each group */
    size_t groups;
    atomic_int status;             /* first failure of a worker */
} segplan;

static size_t seg_lo(const segplan *p, size_t s)
{
    return p->offsets ? (size_t)p->offsets[s] : s * p->row_length;
}

static size_t seg_hi(const segplan *p, size_t s)
{
    return p->offsets ? (size_t)p->offsets[s + 1] : (s + 1) * p->row_length;
}

/* The job that sorts elements [lo, hi) of the whole array. */
static gpusort__cpu_job segment_job(const segplan *p, size_t lo, size_t hi, int threads)
{
    gpusort__cpu_job job = p->whole;
    size_t ks = (size_t)job.key_bytes, vs = (size_t)job.value_bytes;
    job.n = hi - lo;
    job.threads = threads;
    job.keys_in = (const char *)p->d->keys_in + lo * ks;
    job.keys_out = p->d->keys_out ? (char *)p->d->keys_out + lo * ks : NULL;
    if (vs) {
        job.values_in = p->d->values_in ? (const char *)p->d->values_in + lo * vs : NULL;
        job.values_out = (char *)p->d->values_out + lo * vs;
        job.index_base = lo;
    }
    return job;
}

static void group_task(void *arg, size_t g)
{
    segplan *p = (segplan *)arg;
    for (size_t s = p->group_start[g]; s < p->group_start[g + 1]; s++) {
        size_t lo = seg_lo(p, s), hi = seg_hi(p, s);
        if (hi - lo >= p->large || hi <= lo) continue;   /* large ones: all threads, later */
        gpusort__cpu_job job = segment_job(p, lo, hi, 1);
        gpusort_status st = gpusort__cpu_radix_job(NULL, &job);
        if (st != GPUSORT_STATUS_SUCCESS) {
            int ok = GPUSORT_STATUS_SUCCESS;
            atomic_compare_exchange_strong(&p->status, &ok, (int)st);
            return;
        }
    }
}

/* Copy [lo, hi) unchanged to the output (indices for argsort). */
static void copy_gap(const segplan *p, size_t lo, size_t hi)
{
    const gpusort__sort_args *d = p->d;
    size_t ks = (size_t)p->whole.key_bytes, vs = (size_t)p->whole.value_bytes;
    if (hi <= lo) return;
    if (d->keys_out && d->keys_out != d->keys_in)
        memcpy((char *)d->keys_out + lo * ks, (const char *)d->keys_in + lo * ks, (hi - lo) * ks);
    if (vs && d->values_in && d->values_out != d->values_in)
        memcpy((char *)d->values_out + lo * vs, (const char *)d->values_in + lo * vs,
               (hi - lo) * vs);
    if (vs && !d->values_in)
        for (size_t i = lo; i < hi; i++) {
            if (vs == 4) ((uint32_t *)d->values_out)[i] = (uint32_t)i;
            else ((uint64_t *)d->values_out)[i] = i;
        }
}

static gpusort_status run_segments(gpusort_ctx *ctx, segplan *p)
{
    const gpusort__sort_args *d = p->d;
    int threads = gpusort__threads(ctx);
    gpusort__cpu_job_from_desc(&p->whole, d, threads);
    if (p->offsets) {
        size_t prev = 0;
        for (size_t s = 0; s < p->num_segments; s++) {
            if (p->offsets[s] > p->offsets[s + 1] || p->offsets[s + 1] > d->n)
                return gpusort__set_error(ctx, GPUSORT_STATUS_INVALID_ARGUMENT,
                                          "segment %zu: [%llu, %llu) is decreasing or beyond "
                                          "n = %zu", s, (unsigned long long)p->offsets[s],
                                          (unsigned long long)p->offsets[s + 1], d->n);
        }
        for (size_t s = 0; s < p->num_segments; s++) {   /* the gaps between segments */
            copy_gap(p, prev, (size_t)p->offsets[s]);
            prev = (size_t)p->offsets[s + 1];
        }
        copy_gap(p, p->num_segments ? prev : 0, d->n);
    }
    size_t total = p->num_segments ? seg_hi(p, p->num_segments - 1) - seg_lo(p, 0) : 0;
    p->large = total / (size_t)threads + 1;
    if (p->large > LARGE_SEGMENT) p->large = LARGE_SEGMENT;
    if (threads == 1) p->large = (size_t)-1;             /* one thread: no distinction */

    /* groups of consecutive segments holding about GROUP_ELEMS elements */
    size_t cap = total / GROUP_ELEMS + p->num_segments / 4096 + 2;
    if (cap > p->num_segments + 1) cap = p->num_segments + 1;
    p->group_start = (size_t *)gpusort__malloc((cap + 1) * sizeof(size_t));
    if (!p->group_start)
        return gpusort__set_error(ctx, GPUSORT_STATUS_OUT_OF_HOST_MEMORY, "segmented sort plan");
    size_t g = 0, acc = 0, per_group_segs = p->num_segments / (cap > 1 ? cap - 1 : 1) + 1;
    p->group_start[0] = 0;
    for (size_t s = 0, in_group = 0; s < p->num_segments; s++) {
        acc += seg_hi(p, s) - seg_lo(p, s);
        in_group++;
        if ((acc >= GROUP_ELEMS || in_group >= per_group_segs) && g + 1 < cap) {
            p->group_start[++g] = s + 1;
            acc = 0;
            in_group = 0;
        }
    }
    if (p->group_start[g] != p->num_segments) p->group_start[++g] = p->num_segments;
    p->groups = g;
    atomic_init(&p->status, GPUSORT_STATUS_SUCCESS);
    gpusort__cpu_parallel_for(threads, p->groups, group_task, p);
    gpusort_status st = (gpusort_status)atomic_load(&p->status);
    if (st != GPUSORT_STATUS_SUCCESS) {
        free(p->group_start);
        return gpusort__set_error(ctx, st, "segmented sort: %s while sorting a segment",
                                  gpusort_status_string(st));
    }
    for (size_t s = 0; s < p->num_segments && st == GPUSORT_STATUS_SUCCESS; s++) {
        size_t lo = seg_lo(p, s), hi = seg_hi(p, s);
        if (hi - lo < p->large || hi <= lo) continue;
        gpusort__cpu_job job = segment_job(p, lo, hi, threads);
        st = gpusort__cpu_radix_job(ctx, &job);
    }
    free(p->group_start);
    return st;
}

gpusort_status gpusort__cpu_segmented_sort(gpusort_ctx *ctx, const gpusort__sort_args *d,
                                           const uint64_t *offsets, size_t num_segments)
{
    static const uint64_t none[1] = {0};
    segplan p;
    memset(&p, 0, sizeof p);
    p.d = d;
    p.offsets = num_segments ? offsets : none;
    p.num_segments = num_segments;
    return run_segments(ctx, &p);
}

gpusort_status gpusort__cpu_batch_sort(gpusort_ctx *ctx, const gpusort__sort_args *d,
                                       size_t row_length)
{
    segplan p;
    memset(&p, 0, sizeof p);
    p.d = d;
    p.offsets = NULL;
    p.row_length = row_length;
    p.num_segments = d->n / row_length;
    return run_segments(ctx, &p);
}
