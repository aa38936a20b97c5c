/*
 * hoststream.c -- gpusort__sort_stream (hoststream.h): sort elements read through the
 * caller's callbacks and written back through them.
 *
 * Two paths:
 *   device     a backend with host-data operations (ctx->ops->hostdev: CUDA, OpenCL), flags
 *              0, and n within one device run: src/hostdata.c pulls the input through the
 *              backend's pinned staging buffers straight from the read callbacks (copies to
 *              the device overlapping the reads), sorts on the device, and pushes the result
 *              through the staging buffers straight into the write callbacks. The data never
 *              sits in a pageable host array.
 *   memory     every other case (the CPU backend, inputs larger than the device, AUTO
 *              choosing the CPU for this size): the whole input is read into host memory
 *              (several threads, pieces of STREAM_PIECE_BYTES), sorted there with gpusort_sort
 *              / gpusort_sort_pairs (on a device backend, hostdata.c's runs + host merge), and
 *              written back the same way.
 */
#include "hoststream.h"
#include "internal.h"
#include "backend.h"
#include "hostdata.h"

#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* Bytes per callback: large enough that a callback's fixed cost (a syscall) is negligible,
 * small enough that every thread gets many pieces and the progress line moves. */
#define STREAM_PIECE_BYTES ((size_t)8 << 20)

static double now_s(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

/* One parallel pass of read or write callbacks over the bytes of both streams. */
typedef struct stream_pass {
    gpusort__stream *s;
    int writing;
    char *buf[2];
    uint64_t bytes[2];
    uint64_t pieces[2];         /* pieces of stream 0, of stream 1 */
    int threads;
    gpusort__stream_phase phase;
    pthread_mutex_t lock;       /* guards everything below, and the progress callback */
    uint64_t done, total;
    int failed;                 /* a callback failed: the others stop */
    int fail_stream, fail_errno;
    uint64_t fail_offset;
} stream_pass;

static void pass_task(void *arg, size_t t)
{
    stream_pass *p = (stream_pass *)arg;
    uint64_t all = p->pieces[0] + p->pieces[1];
    for (uint64_t i = t; i < all; i += (uint64_t)p->threads) {
        int st = i < p->pieces[0] ? 0 : 1;
        uint64_t off = (st == 0 ? i : i - p->pieces[0]) * STREAM_PIECE_BYTES;
        size_t len = (size_t)(p->bytes[st] - off < STREAM_PIECE_BYTES ? p->bytes[st] - off
                                                                       : STREAM_PIECE_BYTES);
        pthread_mutex_lock(&p->lock);
        int stop = p->failed;
        pthread_mutex_unlock(&p->lock);
        if (stop) return;
        errno = 0;
        int r = p->writing ? p->s->write(p->s->user, st, p->buf[st] + off, off, len)
                           : p->s->read(p->s->user, st, p->buf[st] + off, off, len);
        int e = errno ? errno : EIO;
        pthread_mutex_lock(&p->lock);
        if (r != 0 && !p->failed) {
            p->failed = 1;
            p->fail_stream = st;
            p->fail_offset = off;
            p->fail_errno = e;
        }
        p->done += len;
        if (!p->failed && p->s->progress) p->s->progress(p->s->user, p->phase, p->done, p->total);
        pthread_mutex_unlock(&p->lock);
    }
}

static gpusort_status run_pass(gpusort_ctx *ctx, stream_pass *p)
{
    double t0 = now_s();
    p->done = 0;
    p->total = p->bytes[0] + p->bytes[1];
    p->failed = 0;
    gpusort_status st = gpusort__cpu_parallel_for(p->threads, (size_t)p->threads, pass_task, p);
    p->s->seconds[p->phase] += now_s() - t0;
    if (st != GPUSORT_STATUS_SUCCESS) return st;
    if (p->failed) {
        p->s->io_errno = p->fail_errno;
        return gpusort__set_error(ctx, GPUSORT_STATUS_INVALID_ARGUMENT,
                                  "%s %s stream %d failed at byte %llu: %s",
                                  p->writing ? "writing" : "reading",
                                  p->writing ? "output" : "input", p->fail_stream,
                                  (unsigned long long)p->fail_offset, strerror(p->fail_errno));
    }
    return GPUSORT_STATUS_SUCCESS;
}

gpusort_status gpusort__sort_stream(gpusort_ctx *ctx, gpusort_type key_type,
                                    gpusort_type value_type, uint64_t n, gpusort__stream *s,
                                    gpusort_order order, gpusort_algorithm algorithm,
                                    unsigned flags)
{
    if (!ctx) return GPUSORT_STATUS_INVALID_ARGUMENT;
    if (!s || !s->read || !s->write)
        return gpusort__set_error(ctx, GPUSORT_STATUS_INVALID_ARGUMENT,
                                  "sort_stream: the read and write callbacks are required");
    size_t ksize = gpusort_type_size(key_type);
    size_t vsize = value_type == GPUSORT_TYPE_NONE ? 0 : gpusort_type_size(value_type);
    if (ksize == 0 || (value_type != GPUSORT_TYPE_NONE &&
                       value_type != GPUSORT_TYPE_U32 && value_type != GPUSORT_TYPE_U64))
        return gpusort__set_error(ctx, GPUSORT_STATUS_INVALID_ARGUMENT,
                                  "sort_stream: bad key type %d or value type %d",
                                  (int)key_type, (int)value_type);
    memset(s->seconds, 0, sizeof s->seconds);
    s->io_errno = 0;
    if (n > (uint64_t)SIZE_MAX / ksize)
        return gpusort__set_error(ctx, GPUSORT_STATUS_OUT_OF_HOST_MEMORY,
                                  "sort_stream: %llu keys do not fit this address space",
                                  (unsigned long long)n);

    const gpusort__hostdev_ops *hd = ctx->ops->hostdev;
    if (hd && n > 0 && flags == 0 && (order == GPUSORT_ORDER_ASC || order == GPUSORT_ORDER_DESC) &&
        algorithm >= GPUSORT_ALGORITHM_AUTO && algorithm < GPUSORT_ALGORITHM_COUNT_ &&
        n <= (uint64_t)SIZE_MAX / (ksize + vsize)) {
        gpusort__sort_args d = {key_type, NULL, NULL, value_type, NULL, NULL, (size_t)n,
                                order, algorithm, flags};
        if (hd->capacity(ctx, &d) >= n) {
            ctx->last_error[0] = 0;
            ctx->last_algorithm = algorithm;
            return gpusort__hostdata_stream(ctx, hd, &d, s);
        }
        ctx->last_error[0] = 0;
    }

    stream_pass p;
    memset(&p, 0, sizeof p);
    p.s = s;
    p.bytes[0] = n * ksize;
    p.bytes[1] = n * vsize;
    for (int i = 0; i < 2; i++)
        p.pieces[i] = (p.bytes[i] + STREAM_PIECE_BYTES - 1) / STREAM_PIECE_BYTES;
    p.threads = gpusort_ctx_get_threads(ctx);
    if (p.threads < 1) p.threads = 1;
    pthread_mutex_init(&p.lock, NULL);

    gpusort_status st = GPUSORT_STATUS_SUCCESS;
    for (int i = 0; i < 2 && st == GPUSORT_STATUS_SUCCESS; i++)
        if (p.bytes[i] && !(p.buf[i] = (char *)gpusort__malloc((size_t)p.bytes[i])))
            st = gpusort__set_error(ctx, GPUSORT_STATUS_OUT_OF_HOST_MEMORY,
                                    "sort_stream: %llu bytes of host memory",
                                    (unsigned long long)p.bytes[i]);
    if (st == GPUSORT_STATUS_SUCCESS) {
        p.phase = GPUSORT__PHASE_READ;
        st = run_pass(ctx, &p);
    }
    if (st == GPUSORT_STATUS_SUCCESS && n > 0) {
        double t0 = now_s();
        st = vsize ? gpusort_sort_pairs(ctx, key_type, value_type, p.buf[0], p.buf[1],
                                        (size_t)n, p.buf[0], p.buf[1], order,
                                        algorithm, flags)
                   : gpusort_sort(ctx, key_type, p.buf[0], (size_t)n, p.buf[0], order,
                                  algorithm, flags);
        s->seconds[GPUSORT__PHASE_SORT] = now_s() - t0;
    }
    if (st == GPUSORT_STATUS_SUCCESS) {
        p.writing = 1;
        p.phase = GPUSORT__PHASE_WRITE;
        st = run_pass(ctx, &p);
    }
    pthread_mutex_destroy(&p.lock);
    free(p.buf[0]);
    free(p.buf[1]);
    return st;
}
