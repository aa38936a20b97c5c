/*
 * parallel.c -- a tiny pthread fork-join helper for the CPU backend.
 *
 * Exports gpusort__cpu_parallel_for(threads, count, fn, arg): runs fn(arg, i) for every i in
 * [0, count) and returns when all are done; and on top of it gpusort__cpu_parallel_copy (a
 * copy or an index fill of n elements, split over the threads). It starts
 * min(threads, count) - 1 pthreads; the calling thread is the last worker. Tasks are handed out by an atomic counter, so a slow task
 * does not hold back the others; the usual use is count == threads (one task per thread, each
 * task knowing its slice from i).
 *
 * Threads are created per call: about 20-50 us each, negligible next to the work we hand out
 * (the callers only go parallel above a few thousand elements). If a thread cannot be created,
 * the remaining tasks simply run on the threads that exist, so a call never runs partially.
 */
#include "cpu.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

typedef struct pool {
    atomic_size_t next;                 /* next task index to hand out */
    size_t count;
    void (*fn)(void *arg, size_t i);
    void *arg;
} pool;

static void *worker(void *p_)
{
    pool *p = (pool *)p_;
    for (;;) {
        size_t i = atomic_fetch_add_explicit(&p->next, 1, memory_order_relaxed);
        if (i >= p->count) break;
        p->fn(p->arg, i);
    }
    return NULL;
}

gpusort_status gpusort__cpu_parallel_for(int threads, size_t count,
                                         void (*fn)(void *arg, size_t i), void *arg)
{
    if (count == 0) return GPUSORT_STATUS_SUCCESS;
    size_t nt = threads > 1 ? (size_t)threads : 1;
    if (nt > count) nt = count;
    pool p;
    atomic_init(&p.next, 0);
    p.count = count;
    p.fn = fn;
    p.arg = arg;
    if (nt == 1) { worker(&p); return GPUSORT_STATUS_SUCCESS; }

    pthread_t stack_ids[16];
    pthread_t *ids =
        nt - 1 <= 16 ? stack_ids : (pthread_t *)gpusort__malloc((nt - 1) * sizeof *ids);
    size_t started = 0;
    if (ids)
        for (; started < nt - 1; started++)
            if (pthread_create(&ids[started], NULL, worker, &p) != 0) break;
    worker(&p);                        /* the caller works too, and finishes what is left */
    for (size_t t = 0; t < started; t++) pthread_join(ids[t], NULL);
    if (ids != stack_ids) free(ids);
    return GPUSORT_STATUS_SUCCESS;
}

/* ---- parallel copy and index fill ---- */

enum { COPY_MIN_PER_THREAD = 1 << 16 };   /* below this, a thread start costs more than it saves */

typedef struct copy_task {
    void *dst;
    const void *src;               /* NULL: fill dst with indices base + i (width es) */
    size_t n, es, parts;
    uint64_t base;
} copy_task;

static void copy_part(void *arg, size_t i)
{
    copy_task *c = (copy_task *)arg;
    size_t lo = c->n / c->parts * i + c->n % c->parts * i / c->parts;
    size_t hi = c->n / c->parts * (i + 1) + c->n % c->parts * (i + 1) / c->parts;
    if (c->src)
        memcpy((char *)c->dst + lo * c->es, (const char *)c->src + lo * c->es, (hi - lo) * c->es);
    else if (c->es == 4)
        for (size_t k = lo; k < hi; k++) ((uint32_t *)c->dst)[k] = (uint32_t)(c->base + k);
    else
        for (size_t k = lo; k < hi; k++) ((uint64_t *)c->dst)[k] = c->base + k;
}

void gpusort__cpu_parallel_copy(int threads, void *dst, const void *src, size_t n, size_t es,
                                uint64_t base)
{
    if (dst == src || n == 0) return;
    size_t parts = n / COPY_MIN_PER_THREAD + 1;
    if (parts > (size_t)threads) parts = (size_t)threads;
    copy_task c = {dst, src, n, es, parts, base};
    gpusort__cpu_parallel_for((int)parts, parts, copy_part, &c);
}
