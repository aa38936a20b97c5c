/*
 * hostdata.c -- the device backends' one path for host data (hostdata.h): copy in, sort on the
 * device, copy out, as a pipeline driven through the backend's callbacks
 * (gpusort__hostdev_ops), for host arrays (gpusort__hostdata_sort) and for the caller's
 * read/write callbacks (gpusort__hostdata_stream, from hoststream.c).
 *
 * One run (transfer_run): n elements that fit on the device.
 *   in    The run's elements are cut into pieces: per chunk (the backend's chunking, see
 *         below), per array (keys, values), PIECE_BYTES each. T host threads take pieces
 *         round-robin (thread w: pieces w, w + T, ...). A piece whose source the device can
 *         copy itself (pinned memory, `direct`) is one h2d straight from it. Otherwise the
 *         thread fills one of its two staging buffers (memcpy from a pageable array, the read
 *         callback, or the argsort indices), then enqueues the h2d from it; before it refills a
 *         buffer it waits for that buffer's previous copy. So each thread's fill of piece k+1
 *         runs while the copy engine moves piece k, and T threads fill at once.
 *   sort  The thread that enqueues the last piece of chunk c (and finds chunks < c sorted)
 *         enqueues chunk c's sort: chunk c sorts on the device while chunk c+1 arrives.
 *   out   finish() merges the chunks on the device (when there are several) in ranges; the
 *         output pieces are cut at range boundaries and each waits for its range, so the
 *         copy-out of range 0 overlaps the merge of range 1. Each thread enqueues the copy of
 *         its piece k+1 into its other staging buffer before it drains piece k (memcpy into a
 *         pageable array or the write callback); pinned targets get the copy straight in.
 * Worked example: 1 GiB of u32 from a pageable array, T = 16, 2 MiB pieces, 4 chunks: 512
 * pieces, thread 3 fills pieces 3, 19, 35, ... alternately into buffers 6 and 7; chunk 0
 * (pieces 0..127) sorts once its 128 copies are enqueued, while pieces 128.. arrive.
 *
 * Larger than the device (arrays only): runs of capacity() elements, each through
 * transfer_run into host temporaries, merged stably on the host by gpusort__cpu_merge_runs
 * (ties to the earlier run). The CPU merge rather than a device merge: runs that do not fit on
 * the device together would cross PCIe twice more; the CPU merge reads and writes host memory
 * once. Argsort in runs: the indices are global (base + position), so the merge keeps them.
 *
 * What bounds it. Pinned arrays: the PCIe copies (both directions serialise on the one copy
 * stream of each direction), plus what cannot overlap by construction: the last chunk's sort
 * and the merge passes but the last (bench/results/host-pipeline-2026-11-24.md). Pageable
 * arrays and callbacks: the host's memcpy bandwidth between the caller's memory and staging
 * (each byte crosses host memory twice more than a pinned array's: read + write on the way in,
 * on the way out) with T threads, or the callbacks' own speed, whichever is slower than PCIe;
 * bench/results/hostdata-2026-11-25.md measures it. Registrations of caller memory
 * (cudaHostRegister) are not cached between calls: the caller may free and reuse the memory.
 *
 * Testing knobs: GPUSORT_HOSTDATA_PIECE_BYTES=N (pieces of N bytes, rounded down to a multiple
 * of 8, at least 8: many pieces, buffer reuse and thread interleavings at test sizes),
 * GPUSORT_HOSTDATA_THREADS=T (staging threads, 1..16); the backends' run-capacity knobs make
 * the runs path run at test sizes.
 */
#include "hostdata.h"
#include "internal.h"
#include "cpu/cpu.h"

#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* Bytes per piece: large enough that one device copy runs at full PCIe rate (a 2 MiB copy
 * takes ~40 us at 50 GB/s against a few us of fixed cost) and that a read callback's syscall
 * is negligible; small enough that 2 x 16 staging buffers stay at 64 MiB of pinned memory. */
#define PIECE_BYTES ((size_t)2 << 20)

enum end_kind {
    END_NONE = 0,   /* no such array (keys_out NULL, no values) */
    END_DIRECT,     /* the device copies from/to it itself */
    END_STAGED,     /* a pageable array: memcpy through staging */
    END_STREAM,     /* the caller's read/write callbacks */
    END_IOTA        /* input only: argsort's indices base + i */
};

typedef struct hd_end {
    int kind;
    char *ptr;      /* DIRECT, STAGED: element 0 of the whole array */
} hd_end;

typedef struct piece {
    int slot;       /* 0 keys, 1 values */
    int group;      /* input: its chunk; output: its range */
    size_t first, count;    /* elements of the run */
} piece;

typedef struct hd_run {
    gpusort_ctx *ctx;
    const gpusort__hostdev_ops *ops;
    const gpusort__sort_args *d;
    gpusort__stream *s;     /* END_STREAM ends */
    size_t es[2];           /* element bytes of keys, values (0: none) */
    size_t base;            /* the run's first element in the whole arrays */
    size_t n, chunk, chunks;
    hd_end src[2], dst[2];
    char *stage;            /* 2 * threads buffers of piece_bytes */
    char *own_stage;        /* stage, when this call had to allocate it (freed at the end) */
    size_t piece_bytes;
    int threads;
    piece *pieces;
    size_t npieces;
    size_t *chunk_left;     /* input: pieces of chunk c not yet enqueued */
    size_t next_sort;       /* input: the next chunk to sort */
    int writing;
    pthread_mutex_t lock;   /* guards the rest */
    int failed;             /* the first failure stops every thread */
    gpusort_status status;
    int io_failed, io_stream, io_errno;
    uint64_t io_offset;
    uint64_t done, total;   /* progress bytes */
} hd_run;

static double now_s(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static size_t env_size(const char *name, size_t fallback)
{
    const char *v = getenv(name);
    size_t x = v ? (size_t)strtoull(v, NULL, 10) : 0;
    return x ? x : fallback;
}

static int stopped(hd_run *r)
{
    pthread_mutex_lock(&r->lock);
    int f = r->failed;
    pthread_mutex_unlock(&r->lock);
    return f;
}

/* Record the first failure (lock held by the caller or not: takes it). */
static void fail(hd_run *r, gpusort_status st)
{
    pthread_mutex_lock(&r->lock);
    if (!r->failed) {
        r->failed = 1;
        r->status = st;
    }
    pthread_mutex_unlock(&r->lock);
}

static void fail_io(hd_run *r, int stream, uint64_t offset, int err)
{
    pthread_mutex_lock(&r->lock);
    if (!r->failed) {
        r->failed = 1;
        r->status = GPUSORT_STATUS_INVALID_ARGUMENT;
        r->io_failed = 1;
        r->io_stream = stream;
        r->io_offset = offset;
        r->io_errno = err ? err : EIO;
    }
    pthread_mutex_unlock(&r->lock);
}

/* Progress of one piece (lock held). */
static void progress(hd_run *r, size_t bytes)
{
    r->done += bytes;
    if (r->s && r->s->progress && !r->failed)
        r->s->progress(r->s->user, r->writing ? GPUSORT__PHASE_WRITE : GPUSORT__PHASE_READ,
                       r->done, r->total);
}

/* ---- in: fill, copy, sort chunks as they complete ---- */

static int fill(hd_run *r, const piece *p, char *buf)
{
    const size_t es = r->es[p->slot], bytes = p->count * es;
    const size_t at = r->base + p->first;
    const hd_end *e = &r->src[p->slot];
    if (e->kind == END_STAGED) {
        memcpy(buf, e->ptr + at * es, bytes);
    } else if (e->kind == END_IOTA) {
        if (es == 4) for (size_t j = 0; j < p->count; j++) ((uint32_t *)buf)[j] = (uint32_t)(at + j);
        else for (size_t j = 0; j < p->count; j++) ((uint64_t *)buf)[j] = (uint64_t)(at + j);
    } else { /* END_STREAM */
        errno = 0;
        if (r->s->read(r->s->user, p->slot, buf, (uint64_t)at * es, bytes) != 0) {
            fail_io(r, p->slot, (uint64_t)at * es, errno);
            return -1;
        }
    }
    return 0;
}

static void in_task(void *arg, size_t w)
{
    hd_run *r = (hd_run *)arg;
    size_t k = 0;
    for (size_t i = w; i < r->npieces; i += (size_t)r->threads) {
        if (stopped(r)) return;
        const piece *p = &r->pieces[i];
        const hd_end *e = &r->src[p->slot];
        const void *src;
        int ev = -1;
        gpusort_status st;
        if (e->kind == END_DIRECT) {
            src = e->ptr + (r->base + p->first) * r->es[p->slot];
        } else {
            ev = (int)(2 * w + (k & 1));
            char *buf = r->stage + (size_t)ev * r->piece_bytes;
            if (k >= 2 && (st = r->ops->wait(r->ctx, ev))) { fail(r, st); return; }
            if (fill(r, p, buf)) return;
            src = buf;
            k++;
        }
        if ((st = r->ops->h2d(r->ctx, p->slot, p->first, p->count, src, ev))) {
            fail(r, st);
            return;
        }
        pthread_mutex_lock(&r->lock);
        progress(r, p->count * r->es[p->slot]);
        r->chunk_left[p->group]--;
        while (!r->failed && r->next_sort < r->chunks && r->chunk_left[r->next_sort] == 0) {
            const size_t c = r->next_sort++, lo = c * r->chunk;
            const size_t cnt = r->n - lo < r->chunk ? r->n - lo : r->chunk;
            if ((st = r->ops->sort(r->ctx, r->d, lo, cnt))) {
                r->failed = 1;
                r->status = st;
            }
        }
        pthread_mutex_unlock(&r->lock);
    }
}

/* ---- out: copy ranges back as they are ready, drain the staging buffers ---- */

static int drain_piece(hd_run *r, const piece *p, const char *buf, int ev)
{
    gpusort_status st;
    if ((st = r->ops->wait(r->ctx, ev))) { fail(r, st); return -1; }
    const size_t es = r->es[p->slot], bytes = p->count * es;
    const size_t at = r->base + p->first;
    const hd_end *e = &r->dst[p->slot];
    if (e->kind == END_STAGED) {
        memcpy(e->ptr + at * es, buf, bytes);
    } else {
        errno = 0;
        if (r->s->write(r->s->user, p->slot, buf, (uint64_t)at * es, bytes) != 0) {
            fail_io(r, p->slot, (uint64_t)at * es, errno);
            return -1;
        }
    }
    pthread_mutex_lock(&r->lock);
    progress(r, bytes);
    pthread_mutex_unlock(&r->lock);
    return 0;
}

static void out_task(void *arg, size_t w)
{
    hd_run *r = (hd_run *)arg;
    const piece *prev = NULL;
    int prev_ev = -1;
    size_t k = 0;
    for (size_t i = w; i < r->npieces; i += (size_t)r->threads) {
        if (stopped(r)) return;
        const piece *p = &r->pieces[i];
        const hd_end *e = &r->dst[p->slot];
        gpusort_status st;
        const size_t es = r->es[p->slot];
        if (e->kind == END_DIRECT) {
            if ((st = r->ops->d2h(r->ctx, p->slot, p->first, p->count,
                                  e->ptr + (r->base + p->first) * es, p->group, -1))) {
                fail(r, st);
                return;
            }
            pthread_mutex_lock(&r->lock);
            progress(r, p->count * es);
            pthread_mutex_unlock(&r->lock);
            continue;
        }
        /* Buffer k & 1 was last used by piece k - 2, drained in the previous step. */
        const int ev = (int)(2 * w + (k & 1));
        if ((st = r->ops->d2h(r->ctx, p->slot, p->first, p->count,
                              r->stage + (size_t)ev * r->piece_bytes, p->group, ev))) {
            fail(r, st);
            return;
        }
        k++;
        if (prev && drain_piece(r, prev, r->stage + (size_t)prev_ev * r->piece_bytes, prev_ev))
            return;
        prev = p;
        prev_ev = ev;
    }
    if (prev && !stopped(r))
        (void)drain_piece(r, prev, r->stage + (size_t)prev_ev * r->piece_bytes, prev_ev);
}

/* ---- one run ---- */

/* Cut [lo, hi) of array `slot` into pieces (of the piece size, or one for a direct end). */
static void cut(hd_run *r, int slot, int group, size_t lo, size_t hi, int direct)
{
    const size_t per = direct ? hi - lo : r->piece_bytes / r->es[slot];
    for (size_t f = lo; f < hi; f += per) {
        piece p = {slot, group, f, hi - f < per ? hi - f : per};
        r->pieces[r->npieces++] = p;
    }
}

/* Threads for a pass over r->npieces pieces: one where every end is direct (it enqueues the
 * copies in order), else no more than there are pieces (starting a thread costs 20-50 us:
 * 15 idle ones made a 2^10-key sort 0.85 ms instead of 0.05). */
static int threads_for(const hd_run *r, const hd_end *ends, int all, int skip_values)
{
    int staged = 0;
    for (int a = 0; a < 2 - skip_values; a++)
        staged |= ends[a].kind != END_NONE && ends[a].kind != END_DIRECT;
    if (!staged) return 1;
    return (size_t)all < r->npieces ? all : r->npieces ? (int)r->npieces : 1;
}

/* Threads and piece size (knobs), once per call. */
static void setup(hd_run *r)
{
    int t = gpusort__threads(r->ctx);
    int knob = (int)env_size("GPUSORT_HOSTDATA_THREADS", 0);
    if (knob) t = knob;
    if (t > GPUSORT__HOSTDATA_MAX_THREADS) t = GPUSORT__HOSTDATA_MAX_THREADS;
    if (t < 1) t = 1;
    r->threads = t;
    r->piece_bytes = env_size("GPUSORT_HOSTDATA_PIECE_BYTES", PIECE_BYTES) & ~(size_t)7;
    if (r->piece_bytes < 8) r->piece_bytes = 8;
    pthread_mutex_init(&r->lock, NULL);
}

/* Staging for the run's non-direct ends: the backend's pinned memory, else (none to be had)
 * plain host memory of this call (r->own_stage), which the copies still take, only slower. */
static gpusort_status stage_get(hd_run *r)
{
    int staged = 0;
    for (int a = 0; a < 2; a++)
        staged |= (r->src[a].kind > END_DIRECT) || (r->dst[a].kind > END_DIRECT);
    if (!staged || r->stage) return GPUSORT_STATUS_SUCCESS;
    const size_t bytes = 2 * (size_t)r->threads * r->piece_bytes;
    r->stage = (char *)r->ops->staging(r->ctx, bytes);
    if (!r->stage) {
        r->ctx->last_error[0] = 0;
        r->stage = r->own_stage = (char *)gpusort__malloc(bytes);
        if (!r->stage)
            return gpusort__set_error(r->ctx, GPUSORT_STATUS_OUT_OF_HOST_MEMORY,
                                      "host data: %zu bytes of staging", bytes);
    }
    return GPUSORT_STATUS_SUCCESS;
}

/* Sort elements [base, base + n) of the sources into the targets (same positions); r is set
 * up but for the run's fields. *out_started: the targets may have been written. */
static gpusort_status transfer_run(hd_run *r, int *out_started, double *t)
{
    const gpusort__hostdev_ops *ops = r->ops;
    gpusort_status st;
    int all_threads = r->threads;
    r->failed = 0;
    r->status = GPUSORT_STATUS_SUCCESS;
    *out_started = 0;
    if ((st = stage_get(r))) return st;
    const int direct_in = (r->src[0].kind == END_DIRECT) &&
                          (r->src[1].kind == END_NONE || r->src[1].kind == END_DIRECT);
    const int direct_out = (r->dst[0].kind == END_DIRECT || r->dst[0].kind == END_NONE) &&
                           (r->dst[1].kind == END_NONE || r->dst[1].kind == END_DIRECT);
    r->chunk = ops->chunk ? ops->chunk(r->ctx, r->d, r->n, direct_in && direct_out) : 0;
    if (r->chunk == 0 || r->chunk >= r->n) r->chunk = r->n;
    if ((st = ops->begin(r->ctx, r->d, r->n, r->chunk))) {
        if (st == GPUSORT_STATUS_OUT_OF_DEVICE_MEMORY && r->chunk < r->n) { /* one chunk */
            r->ctx->last_error[0] = 0;
            r->chunk = r->n;
            st = ops->begin(r->ctx, r->d, r->n, r->chunk);
        }
        if (st) {
            (void)ops->drain(r->ctx);
            return st;
        }
    }
    r->chunks = (r->n + r->chunk - 1) / r->chunk;
    /* argsort's indices made on the device: no input pieces for them */
    const int device_iota = r->src[1].kind == END_IOTA && ops->iota;
    if (device_iota && (st = ops->iota(r->ctx, r->base, r->n))) goto done;

    /* in */
    size_t most = 0;
    for (int a = 0; a < 2; a++)
        if (r->es[a]) most += r->chunks * 2 + r->n / (r->piece_bytes / r->es[a]) + 1;
    most += 2 * GPUSORT__HOSTDATA_MAX_RANGES * 2;
    r->pieces = (piece *)gpusort__malloc(most * sizeof *r->pieces);
    r->chunk_left = (size_t *)gpusort__calloc(r->chunks, sizeof *r->chunk_left);
    if (!r->pieces || !r->chunk_left) {
        st = gpusort__set_error(r->ctx, GPUSORT_STATUS_OUT_OF_HOST_MEMORY,
                                "host data: the piece list of %zu elements", r->n);
        goto done;
    }
    r->npieces = 0;
    for (size_t c = 0; c < r->chunks; c++) {
        const size_t lo = c * r->chunk, hi = r->n - lo < r->chunk ? r->n : lo + r->chunk;
        const size_t before = r->npieces;
        for (int a = 0; a < 2; a++)
            if (r->es[a] && !(a == 1 && device_iota))
                cut(r, a, (int)c, lo, hi, r->src[a].kind == END_DIRECT);
        r->chunk_left[c] = r->npieces - before;
    }
    r->next_sort = 0;
    r->writing = 0;
    r->done = 0;
    r->total = r->n * (r->es[0] + (device_iota ? 0 : r->es[1]));
    r->threads = threads_for(r, r->src, all_threads, device_iota);
    t[0] = now_s();
    st = gpusort__cpu_parallel_for(r->threads, (size_t)r->threads, in_task, r);
    t[1] = now_s();
    if (!st && r->failed) st = r->status;
    if (st) goto done;

    /* sort done, ranges ready */
    uint64_t range_end[GPUSORT__HOSTDATA_MAX_RANGES];
    int ranges = ops->finish(r->ctx, r->d, r->n, r->chunk, range_end,
                             GPUSORT__HOSTDATA_MAX_RANGES, &st);
    if (ranges <= 0) goto done;
    if (r->s) { /* the stream reports its sort phase: wait for it (the last merge pass's
                   overlap with the copy-out is lost; negligible next to file I/O) */
        if ((st = ops->drain(r->ctx))) goto done;
    }
    t[2] = now_s();

    /* out */
    r->npieces = 0;
    for (int j = 0; j < ranges; j++) {
        const size_t lo = j ? (size_t)range_end[j - 1] : 0, hi = (size_t)range_end[j];
        for (int a = 0; a < 2; a++)
            if (r->es[a] && r->dst[a].kind != END_NONE && hi > lo)
                cut(r, a, j, lo, hi, r->dst[a].kind == END_DIRECT);
    }
    r->writing = 1;
    r->done = 0;
    r->total = 0;
    for (int a = 0; a < 2; a++) if (r->dst[a].kind != END_NONE) r->total += r->n * r->es[a];
    r->threads = threads_for(r, r->dst, all_threads, 0);
    *out_started = 1;
    st = gpusort__cpu_parallel_for(r->threads, (size_t)r->threads, out_task, r);
    if (!st && r->failed) st = r->status;
done:
    {
        gpusort_status ds = ops->drain(r->ctx); /* also: no copy may still run into staging */
        if (!st) st = ds;
    }
    t[3] = now_s();
    r->threads = all_threads;
    free(r->pieces);
    free(r->chunk_left);
    r->pieces = NULL;
    r->chunk_left = NULL;
    return st;
}

static void init_run(hd_run *r, gpusort_ctx *ctx, const gpusort__hostdev_ops *ops,
                     const gpusort__sort_args *d)
{
    memset(r, 0, sizeof *r);
    r->ctx = ctx;
    r->ops = ops;
    r->d = d;
    r->es[0] = gpusort_type_size(d->key_type);
    r->es[1] = d->value_type == GPUSORT_TYPE_NONE ? 0 : gpusort_type_size(d->value_type);
}

static hd_end end_of(const void *p, int direct)
{
    hd_end e = {p ? (direct ? END_DIRECT : END_STAGED) : END_NONE, (char *)p};
    return e;
}

gpusort_status gpusort__hostdata_sort(gpusort_ctx *ctx, const gpusort__hostdev_ops *ops,
                                      const gpusort__sort_args *d, const int direct[4])
{
    hd_run r;
    init_run(&r, ctx, ops, d);
    const size_t ks = r.es[0], vs = r.es[1], n = d->n;
    r.src[0] = end_of(d->keys_in, direct[0]);
    r.dst[0] = end_of(d->keys_out, direct[1]);
    if (vs) {
        r.src[1] = end_of(d->values_in, direct[2]);
        if (!d->values_in) r.src[1].kind = END_IOTA;
        r.dst[1] = end_of(d->values_out, direct[3]);
    }
    /* The device sorts pairs for argsort (values: the indices), keys otherwise. */
    gpusort__sort_args dd = *d;
    if (vs && !dd.values_in) dd.values_in = dd.values_out;
    r.d = &dd;
    setup(&r);
    gpusort_status st = GPUSORT_STATUS_SUCCESS;
    double t[4];
    int started = 0;
    size_t cap = ops->capacity(ctx, &dd);
    if (!st && n <= cap) {
        r.n = n;
        st = transfer_run(&r, &started, t);
        if (st != GPUSORT_STATUS_OUT_OF_DEVICE_MEMORY || started) goto done;
        ctx->last_error[0] = 0; /* someone took the memory meanwhile: runs of half */
        cap = n / 2;
    }
    if (st) goto done;
    if (cap == 0) {
        st = gpusort__set_error(ctx, GPUSORT_STATUS_OUT_OF_DEVICE_MEMORY,
                                "too little device memory for host data of %zu keys", n);
        goto done;
    }
    {
        /* Runs into host temporaries, merged on the host. */
        const size_t runs = (n + cap - 1) / cap;
        char *tk = (char *)gpusort__malloc(n * ks);
        char *tv = vs ? (char *)gpusort__malloc(n * vs) : NULL;
        char *mk = d->keys_out ? NULL : (char *)gpusort__malloc(n * ks);
        uint64_t *offs = (uint64_t *)gpusort__malloc((runs + 1) * sizeof *offs);
        if (!tk || (vs && !tv) || (!d->keys_out && !mk) || !offs) {
            st = gpusort__set_error(ctx, GPUSORT_STATUS_OUT_OF_HOST_MEMORY,
                                    "host temporaries for %zu keys in %zu runs", n, runs);
        } else {
            r.dst[0] = end_of(tk, 0);
            r.dst[1] = end_of(tv, 0);
            for (size_t i = 0; i < runs && !st; i++) {
                r.base = i * cap;
                r.n = n - r.base < cap ? n - r.base : cap;
                offs[i] = r.base;
                st = transfer_run(&r, &started, t);
            }
            offs[runs] = n;
            if (!st) {
                gpusort__sort_args md = *d;
                md.keys_in = tk;
                md.values_in = tv;
                if (!md.keys_out) md.keys_out = mk;
                st = gpusort__cpu_merge_runs(ctx, &md, offs, runs);
            }
        }
        free(tk);
        free(tv);
        free(mk);
        free(offs);
    }
done:
    pthread_mutex_destroy(&r.lock);
    free(r.own_stage);
    return st;
}

gpusort_status gpusort__hostdata_stream(gpusort_ctx *ctx, const gpusort__hostdev_ops *ops,
                                        const gpusort__sort_args *d, gpusort__stream *s)
{
    hd_run r;
    init_run(&r, ctx, ops, d);
    r.s = s;
    for (int a = 0; a < 2; a++) {
        r.src[a].kind = r.es[a] ? END_STREAM : END_NONE;
        r.dst[a].kind = r.es[a] ? END_STREAM : END_NONE;
    }
    setup(&r);
    gpusort_status st;
    double t[4] = {0, 0, 0, 0};
    int started = 0;
    {
        r.n = d->n;
        st = transfer_run(&r, &started, t);
        if (t[1] > 0) {
            s->seconds[GPUSORT__PHASE_READ] = t[1] - t[0];
            s->seconds[GPUSORT__PHASE_TO_DEVICE] = t[1] - t[0];
        }
        if (t[2] > 0) {
            s->seconds[GPUSORT__PHASE_SORT] = t[2] - t[1];
            s->seconds[GPUSORT__PHASE_FROM_DEVICE] = t[3] - t[2];
            s->seconds[GPUSORT__PHASE_WRITE] = t[3] - t[2];
        }
    }
    if (r.io_failed) {
        s->io_errno = r.io_errno;
        st = gpusort__set_error(ctx, GPUSORT_STATUS_INVALID_ARGUMENT,
                                "%s %s stream %d failed at byte %llu: %s",
                                r.writing ? "writing" : "reading",
                                r.writing ? "output" : "input", r.io_stream,
                                (unsigned long long)r.io_offset, strerror(r.io_errno));
    }
    pthread_mutex_destroy(&r.lock);
    free(r.own_stage);
    return st;
}
