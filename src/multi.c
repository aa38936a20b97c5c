/*
 * multi.c -- gpusort_multi_sort and gpusort_multi_sort_pairs (gpusort.h, "Several devices of
 * one host"): one sequence spread over several contexts, sorted as a whole, each piece keeping
 * its size. The steps are those of the distributed sort (src/dist/dist.h) with the
 * participants in one process:
 *
 *   1. local sort     every context sorts its piece, each from a thread of its own, at once
 *                     (host pieces: into a host copy, the merge's input; device pieces: in
 *                     place, or into a sorted copy when staged, below; then the context's
 *                     stream is waited for)
 *   2. split          gpusort__dist_select over the count sorted pieces, as count runs of one
 *                     participant: the exact number of keys of every piece that go before each
 *                     output boundary. Ties go in (piece, position) order, so the whole is the
 *                     stable sort. For device pieces the selection's counts are answered by the
 *                     backend's kernel (multi->count_launch), on every GPU at once, 8 rounds
 *                     for 32-bit keys and 16 for 64-bit, and 3 sets of values after them.
 *   3. exchange       the slice of piece s that falls in destination d's range goes to d's
 *                     receive buffer, after the slices of pieces 0 .. s-1 (host: memcpy-free,
 *                     the merge reads the slices where they are; device: multi->exchange,
 *                     NCCL or peer copies, backend.h)
 *   4. merge          every destination merges its count received runs stably into its piece
 *                     (host: gpusort__dist_merge on the context's threads; device:
 *                     multi->merge), one thread per destination, at once.
 * Chunks (device pieces of 2^22 keys and more): each destination's output is cut into K = 8
 * chunks, whose boundaries the split finds too, and the backend pipelines steps 3 and 4
 * (multi->exchange_merge): chunk k merges while chunk k + 1 moves. A merge writes its piece
 * while other slices of that piece may still be in flight, so the slices are read from a sorted
 * copy ("staged": the local sort writes it instead of sorting in place). Without the memory for
 * the copies, or with a backend that does not pipeline, the call runs one chunk, in place.
 * Memory: a receive buffer of n[g] keys (+ values) per context, in the pieces' kind of memory
 * (device pieces: the backend lends the buffers of the local sort, multi.cu), and when staged
 * the sorted copy, as much again.
 *
 * A backend may run the whole call in steps of its own instead (multi->sort: CUDA's radix
 * path under GPUSORT_MULTI_RADIX=1, src/cuda/multi.cu); when it declines, the steps above run.
 *
 * Failures: every step runs on every context before the next starts; the first failing context
 * stops the call after its step, with its message copied to ctxs[0] (gpusort.h, Errors).
 */
#include "backend.h"
#include "dist/dist.h"
#include "internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* Contexts one call takes; the selection's scratch grows with its square. */
#define MULTI_MAX 1024

static _Thread_local gpusort_multi_times last_times;

void gpusort_multi_get_last_times(gpusort_multi_times *t)
{
    if (t) *t = last_times;
}

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* One call's state. */
typedef struct multi_job {
    gpusort_ctx *const *ctxs;
    int count;
    gpusort_type ktype, vtype;
    size_t ks, vs;
    void *const *keys;
    void *const *values;
    const size_t *n;
    gpusort_order order;
    int device;                   /* the pieces are device memory (backend multi ops) */
    const gpusort__multi_ops *ops;
    void **rk, **rv;              /* per context: the receive buffers (device), or the sorted
                                     host copies (host) */
    void **sk, **sv;              /* staged: per context, the sorted copy of its piece (device) */
    gpusort__multi_merge_job *jobs; /* device: count * K merges, (destination, chunk) order */
    size_t *joff;                 /* their run offsets, count + 1 each */
    int staged;                   /* the local sorts write sk/sv, the exchange reads them */
    int chunks;                   /* output chunks per context (K) */
    uint64_t **work;              /* per context: the count kernel's device scratch */
    size_t *split;                /* (count * K + 1) x count: split[b * count + s], boundary
                                     b = d * K + k the start of context d's chunk k */
    struct count_cache *cc;       /* device pieces: the selection's counts, [or_equal] */
    gpusort_status *st;           /* per context */
    double *secs;                 /* per context: its last step's time */
} multi_job;

/* Output chunks per context for device pieces: GPUSORT_MULTI_CHUNKS (1 .. 64), else as many as
 * keep every slice of a chunk (one source's part of one destination's chunk, about
 * piece / (P * K) keys) at 2^24 keys or more, at most 8: smaller slices leave the copy engines
 * idle between transfers (bench/results/multi-2026-11-28b.md). */
#define MULTI_SLICE_MIN ((size_t)1 << 24)
#define MULTI_CHUNKS_MAX 8

static int chunks_for(const multi_job *j)
{
    const char *e = getenv("GPUSORT_MULTI_CHUNKS");
    if (e && *e) {
        long v = strtol(e, NULL, 10);
        return v < 1 ? 1 : v > 64 ? 64 : (int)v;
    }
    size_t most = 0;
    for (int g = 0; g < j->count; g++) most = j->n[g] > most ? j->n[g] : most;
    size_t k = most / ((size_t)j->count * MULTI_SLICE_MIN);
    return k < 1 ? 1 : k > MULTI_CHUNKS_MAX ? MULTI_CHUNKS_MAX : (int)k;
}

/* The first failure (in context order), its message copied to ctxs[0]. */
static gpusort_status first_failure(const multi_job *j)
{
    for (int g = 0; g < j->count; g++)
        if (j->st[g]) {
            if (g > 0) {
                char msg[GPUSORT_ERROR_MAX];
                snprintf(msg, sizeof msg, "%s", gpusort_ctx_get_last_error(j->ctxs[g]));
                gpusort__set_error(j->ctxs[0], j->st[g], "multi_sort: context %d: %s", g, msg);
            }
            return j->st[g];
        }
    return GPUSORT_STATUS_SUCCESS;
}

static double slowest(const multi_job *j)
{
    double m = 0;
    for (int g = 0; g < j->count; g++)
        if (j->secs[g] > m) m = j->secs[g];
    return m;
}

/* ---- 1. local sort ---- */

/* Context g sorts its piece into kout/vout (the piece itself, its staged copy, or the host
 * copy) and, for device pieces, waits for its stream. */
static gpusort_status sort_piece(const multi_job *j, int g, void *kout, void *vout)
{
    gpusort_ctx *ctx = j->ctxs[g];
    gpusort_status s = GPUSORT_STATUS_SUCCESS;
    if (j->n[g] > 0)
        s = j->vs ? gpusort_sort_pairs(ctx, j->ktype, j->vtype, j->keys[g], j->values[g],
                                       j->n[g], kout, vout, j->order, GPUSORT_ALGORITHM_AUTO, 0)
                  : gpusort_sort(ctx, j->ktype, j->keys[g], j->n[g], kout, j->order,
                                 GPUSORT_ALGORITHM_AUTO, 0);
    if (!s && j->device) s = j->ops->sync(ctx);
    return s;
}

static void local_sort(void *arg, size_t i)
{
    multi_job *j = (multi_job *)arg;
    int g = (int)i;
    double t0 = now_s();
    void *kout = j->staged ? j->sk[g] : j->device ? j->keys[g] : j->rk[g];
    void *vout = !j->vs ? NULL : j->staged ? j->sv[g] : j->device ? j->values[g] : j->rv[g];
    j->st[g] = sort_piece(j, g, kout, vout);
    j->secs[g] = now_s() - t0;
}

/* ---- 2. split: the selection's counts on a device piece ---- */

typedef struct piece_count {
    multi_job *j;
    int g;
} piece_count;

/* The selection asks the pieces one after another for the counts of the same values (runs
 * 0 .. count-1, partition.c). The first question of a set of values starts the counting on
 * every GPU at once, then fetches all the answers into this cache (one per or_equal); the
 * others read it. A question with other values (compared in full) starts afresh. */
struct count_cache {
    int valid;
    size_t m, cap;
    uint64_t *v;       /* cap values */
    uint64_t *cnt;     /* count x cap: piece g's answers at g * m */
};

static int device_count(void *arg, const uint64_t *v, size_t m, int or_equal, uint64_t *cnt)
{
    piece_count *pc = (piece_count *)arg;
    multi_job *j = pc->j;
    struct count_cache *c = &j->cc[or_equal != 0];
    const int desc = j->order == GPUSORT_ORDER_DESC;
    if (m > c->cap) { /* more values than the selection's rounds ask for: never */
        j->st[pc->g] = gpusort__set_error(j->ctxs[pc->g], GPUSORT_STATUS_INVALID_ARGUMENT,
                                          "multi_sort: internal: %zu counts asked", m);
        return 1;
    }
    if (!c->valid || c->m != m || memcmp(c->v, v, m * sizeof *v)) {
        c->valid = 0;
        gpusort_status s = GPUSORT_STATUS_SUCCESS;
        for (int g = 0; g < j->count && !s; g++)
            if (j->n[g] && (s = j->ops->count_launch(j->ctxs[g], j->ktype, desc,
                                                     j->staged ? j->sk[g] : j->keys[g], j->n[g],
                                                     v, m, or_equal, j->work[g])))
                j->st[g] = s;
        for (int g = 0; g < j->count && !s; g++) {
            if (!j->n[g]) memset(c->cnt + (size_t)g * m, 0, m * sizeof *c->cnt);
            else if ((s = j->ops->count_fetch(j->ctxs[g], m, c->cnt + (size_t)g * m, j->work[g])))
                j->st[g] = s;
        }
        if (s) return 1;
        memcpy(c->v, v, m * sizeof *v);
        c->m = m;
        c->valid = 1;
    }
    memcpy(cnt, c->cnt + (size_t)pc->g * m, m * sizeof *cnt);
    return 0;
}

/* ---- 4. merge ---- */

static void merge_host(void *arg, size_t i)
{
    multi_job *j = (multi_job *)arg;
    const int d = (int)i, P = j->count;
    double t0 = now_s();
    gpusort__dist_run *runs = (gpusort__dist_run *)gpusort__calloc((size_t)P, sizeof *runs);
    if (!runs) {
        j->st[d] = gpusort__set_error(j->ctxs[d], GPUSORT_STATUS_OUT_OF_HOST_MEMORY,
                                      "multi_sort: the merge's run table");
        return;
    }
    const size_t K = (size_t)j->chunks;
    for (int s = 0; s < P; s++) {
        size_t lo = j->split[d * K * P + s], hi = j->split[(d + 1) * K * P + s];
        runs[s].keys = (const char *)j->rk[s] + lo * j->ks;
        runs[s].values = j->vs ? (const char *)j->rv[s] + lo * j->vs : NULL;
        runs[s].n = hi - lo;
    }
    gpusort_status s = gpusort__dist_merge(j->ktype, j->order == GPUSORT_ORDER_DESC, j->vs,
                                           runs, (size_t)P, j->keys[d],
                                           j->vs ? j->values[d] : NULL,
                                           gpusort__threads(j->ctxs[d]));
    free(runs);
    if (s) gpusort__set_error(j->ctxs[d], s, "multi_sort: the merge's scratch");
    j->st[d] = s;
    j->secs[d] = now_s() - t0;
}

/* Destination d's merge jobs, one after another (when the exchange did not run them). */
static void merge_device(void *arg, size_t i)
{
    multi_job *j = (multi_job *)arg;
    const int d = (int)i;
    double t0 = now_s();
    gpusort_status s = GPUSORT_STATUS_SUCCESS;
    for (int k = 0; k < j->chunks && !s; k++) {
        const gpusort__multi_merge_job *m = &j->jobs[(size_t)d * j->chunks + k];
        if (m->off[m->nruns] > 0)
            s = j->ops->merge(j->ctxs[d], j->ktype, j->order == GPUSORT_ORDER_DESC, j->vs,
                              m->keys, m->values, m->off, m->nruns, m->keys_out, m->values_out);
    }
    j->st[d] = s;
    j->secs[d] = now_s() - t0;
}

/* ---- the call ---- */

static gpusort_status check_args(gpusort_ctx *const *ctxs, int count, gpusort_type ktype,
                                 gpusort_type vtype, void *const *keys, void *const *values,
                                 const size_t *n, gpusort_order order, unsigned flags,
                                 int *device)
{
    if (!ctxs || count < 1 || count > MULTI_MAX || !ctxs[0]) return GPUSORT_STATUS_INVALID_ARGUMENT;
    gpusort_ctx *c0 = ctxs[0];
    c0->last_error[0] = 0;
#define BAD(...) gpusort__set_error(c0, GPUSORT_STATUS_INVALID_ARGUMENT, "multi_sort: " __VA_ARGS__)
    for (int g = 1; g < count; g++) {
        if (!ctxs[g]) return BAD("ctxs[%d] is NULL", g);
        for (int h = 0; h < g; h++)
            if (ctxs[h] == ctxs[g]) return BAD("ctxs[%d] and ctxs[%d] are one context", h, g);
    }
    if (gpusort_type_size(ktype) == 0) return BAD("unknown key type %d", (int)ktype);
    if (vtype != GPUSORT_TYPE_NONE && vtype != GPUSORT_TYPE_U32 && vtype != GPUSORT_TYPE_U64)
        return BAD("value type must be u32 or u64");
    if (order != GPUSORT_ORDER_ASC && order != GPUSORT_ORDER_DESC)
        return BAD("unknown order %d", (int)order);
    if (flags) return BAD("flags must be 0 (got %#x)", flags);
    if (!keys || !n) return BAD("keys and n must not be NULL");
    if (vtype != GPUSORT_TYPE_NONE && !values) return BAD("values must not be NULL");
    int dev = -1;   /* unknown until the first non-empty piece */
    for (int g = 0; g < count; g++) {
        if (n[g] == 0) continue;
        if (!keys[g] || (vtype != GPUSORT_TYPE_NONE && !values[g]))
            return BAD("piece %d has n = %zu and a NULL pointer", g, n[g]);
        const gpusort__multi_ops *ops = ctxs[g]->ops->multi;
        int wk = ops ? ops->where(ctxs[g], keys[g]) : 0;
        int wv = vtype == GPUSORT_TYPE_NONE ? wk : ops ? ops->where(ctxs[g], values[g]) : 0;
        if (wk < 0 || wv < 0)
            return BAD("piece %d is device memory of another GPU than context %d's", g, g);
        if (wk != wv) return BAD("piece %d: keys and values in different kinds of memory", g);
        if (dev >= 0 && wk != dev)
            return BAD("the pieces mix host and device memory (piece %d)", g);
        dev = wk;
    }
    *device = dev == 1;
    if (*device)
        for (int g = 1; g < count; g++)
            if (ctxs[g]->ops != ctxs[0]->ops)
                return BAD("device pieces need contexts of one backend (context %d is %s)", g,
                           ctxs[g]->ops->name);
#undef BAD
    return GPUSORT_STATUS_SUCCESS;
}

/* The receive buffers and the count scratch (device pieces: asked for after the local sorts,
 * since a backend may lend the memory those sorts used), or the sorted host copies (host
 * pieces: the local sorts' output). */
static gpusort_status alloc_buffers(multi_job *j)
{
    const size_t m = (size_t)15 * ((size_t)j->count * j->chunks + 1); /* counts per round */
    for (int g = 0; g < j->count; g++) {
        gpusort_ctx *ctx = j->ctxs[g];
        size_t nk = j->n[g] ? j->n[g] : 1;
        if (j->device) {
            j->rk[g] = j->ops->alloc(ctx, GPUSORT__MULTI_BUF_KEYS, nk * j->ks);
            j->rv[g] = j->vs && j->rk[g] ? j->ops->alloc(ctx, GPUSORT__MULTI_BUF_VALUES,
                                                         nk * j->vs)
                                         : NULL;
            j->work[g] = j->rk[g] ? (uint64_t *)j->ops->alloc(ctx, GPUSORT__MULTI_BUF_WORK,
                                                              2 * m * sizeof(uint64_t))
                                  : NULL;
            if (!j->rk[g] || (j->vs && !j->rv[g]) || !j->work[g])
                return j->st[g] = GPUSORT_STATUS_OUT_OF_DEVICE_MEMORY;
        } else {
            j->rk[g] = gpusort__malloc(nk * j->ks);
            j->rv[g] = j->vs && j->rk[g] ? gpusort__malloc(nk * j->vs) : NULL;
            if (!j->rk[g] || (j->vs && !j->rv[g]))
                return j->st[g] = gpusort__set_error(ctx, GPUSORT_STATUS_OUT_OF_HOST_MEMORY,
                                                     "multi_sort: %zu-element host copy", nk);
        }
    }
    return GPUSORT_STATUS_SUCCESS;
}

static void free_staged(multi_job *j)
{
    for (int g = 0; g < j->count; g++) {
        size_t nk = j->n[g] ? j->n[g] : 1;
        j->ops->free(j->ctxs[g], GPUSORT__MULTI_BUF_SORTED_KEYS, j->sk[g], nk * j->ks);
        j->ops->free(j->ctxs[g], GPUSORT__MULTI_BUF_SORTED_VALUES, j->sv[g], nk * j->vs);
        j->sk[g] = j->sv[g] = NULL;
    }
}

/* Device pieces cut into several chunks: the sorted copies that the local sorts write and the
 * exchange reads, so that the merges may write the pieces while later chunks still move. Where
 * that memory is not there, the call goes on without (one chunk, the pieces sorted in place). */
static void alloc_staged(multi_job *j)
{
    if (!j->device || j->chunks < 2 || !j->ops->exchange_merge) {
        j->chunks = 1;
        return;
    }
    int ok = 1;
    for (int g = 0; g < j->count && ok; g++) {
        size_t nk = j->n[g] ? j->n[g] : 1;
        j->sk[g] = j->ops->alloc(j->ctxs[g], GPUSORT__MULTI_BUF_SORTED_KEYS, nk * j->ks);
        j->sv[g] = j->vs && j->sk[g]
                       ? j->ops->alloc(j->ctxs[g], GPUSORT__MULTI_BUF_SORTED_VALUES, nk * j->vs)
                       : NULL;
        ok = j->sk[g] && (!j->vs || j->sv[g]);
    }
    j->staged = ok;
    if (ok) return;
    free_staged(j);
    for (int g = 0; g < j->count; g++) j->ctxs[g]->last_error[0] = 0;
    j->chunks = 1;
}

static void free_buffers(multi_job *j)
{
    const size_t m = (size_t)15 * ((size_t)j->count * j->chunks + 1);
    for (int g = 0; g < j->count; g++) {
        size_t nk = j->n[g] ? j->n[g] : 1;
        if (j->device) {
            j->ops->free(j->ctxs[g], GPUSORT__MULTI_BUF_KEYS, j->rk[g], nk * j->ks);
            j->ops->free(j->ctxs[g], GPUSORT__MULTI_BUF_VALUES, j->rv[g], nk * j->vs);
            j->ops->free(j->ctxs[g], GPUSORT__MULTI_BUF_WORK, j->work[g],
                         2 * m * sizeof(uint64_t));
        } else {
            free(j->rk[g]);
            free(j->rv[g]);
        }
    }
    if (j->staged) free_staged(j);
}

/* A failed exchange leaves its message on the context where it failed: bring it to ctxs[0]. */
static gpusort_status lift_error(const multi_job *j, gpusort_status s)
{
    if (!s || gpusort_ctx_get_last_error(j->ctxs[0])[0]) return s;
    for (int g = 1; g < j->count; g++) {
        const char *m = gpusort_ctx_get_last_error(j->ctxs[g]);
        if (m[0]) {
            char msg[GPUSORT_ERROR_MAX];
            snprintf(msg, sizeof msg, "%s", m);
            return gpusort__set_error(j->ctxs[0], s, "multi_sort: context %d: %s", g, msg);
        }
    }
    return s;
}

/* The exchange's slices and the merge jobs of device pieces. Destination d's chunk k holds the
 * output positions [b, b') (boundaries b = d * K + k and b + 1 of split); in d's receive
 * buffer it takes the same offsets as in the piece, and in it source s's slice follows those of
 * sources 0 .. s-1. The slices go in chunk order (the pipeline's order) and, within a chunk,
 * in rounds: in round r source s sends to destination (s + r) mod count, so that the sources'
 * copies at any time go to different GPUs (all of them sending to one destination at once
 * share that destination's links). */
static size_t plan_device(multi_job *j, const uint64_t *pos, gpusort__multi_xfer *x)
{
    const int P = j->count, K = j->chunks;
    for (int k = 0; k < K; k++)
        for (int d = 0; d < P; d++) {
            const size_t b = (size_t)d * K + k;
            const size_t at = pos[b] - pos[(size_t)d * K]; /* the chunk's first output in d */
            size_t *off = j->joff + b * (P + 1);
            j->jobs[b] = (gpusort__multi_merge_job){
                d, k, (char *)j->rk[d] + at * j->ks, j->vs ? (char *)j->rv[d] + at * j->vs : NULL,
                off, P, (char *)j->keys[d] + at * j->ks,
                j->vs ? (char *)j->values[d] + at * j->vs : NULL};
            off[0] = 0;
            for (int src = 0; src < P; src++)
                off[src + 1] = off[src] + j->split[(b + 1) * P + src] - j->split[b * P + src];
        }
    size_t nx = 0;
    for (int k = 0; k < K; k++)
        for (int r = 0; r < P; r++)
            for (int src = 0; src < P; src++) {
                const int d = (src + r) % P;
                const size_t b = (size_t)d * K + k, lo = j->split[b * P + src];
                const gpusort__multi_merge_job *m = &j->jobs[b];
                const size_t cnt = m->off[src + 1] - m->off[src];
                const char *kf = j->staged ? (const char *)j->sk[src] : (const char *)j->keys[src];
                x[nx++] = (gpusort__multi_xfer){src, d, kf + lo * j->ks,
                                                (char *)m->keys + m->off[src] * j->ks,
                                                cnt * j->ks, k};
                if (j->vs) {
                    const char *vf = j->staged ? (const char *)j->sv[src]
                                               : (const char *)j->values[src];
                    x[nx++] = (gpusort__multi_xfer){src, d, vf + lo * j->vs,
                                                    (char *)m->values + m->off[src] * j->vs,
                                                    cnt * j->vs, k};
                }
            }
    return nx;
}

/* Steps 2 to 4 after the local sorts: the splits; host pieces: the merges (they read the slices
 * where they are); device pieces: the exchange into the receive buffers and the merges, at once
 * where the backend pipelines them, else one after the other. */
static gpusort_status split_exchange_merge(multi_job *j, gpusort_multi_times *t)
{
    double t0 = now_s();
    const int P = j->count, K = j->chunks;
    const size_t nb = (size_t)P * K + 1;   /* output boundaries */
    const int desc = j->order == GPUSORT_ORDER_DESC;
    gpusort_ctx *c0 = j->ctxs[0];
    uint64_t *pos = (uint64_t *)gpusort__malloc((nb + GPUSORT_DIST_SELECT_WORK(nb)) * sizeof *pos);
    gpusort__dist_run *runs = (gpusort__dist_run *)gpusort__calloc((size_t)P, sizeof *runs);
    piece_count *pc = (piece_count *)gpusort__malloc((size_t)P * sizeof *pc);
    gpusort__multi_xfer *x = (gpusort__multi_xfer *)gpusort__malloc(
        (nb - 1) * P * (j->vs ? 2 : 1) * sizeof *x);
    const size_t cap = 15 * nb;   /* values per selection round (dist.h) */
    struct count_cache cc[2] = {{0, 0, cap, NULL, NULL}, {0, 0, cap, NULL, NULL}};
    for (int e = 0; e < 2 && j->device; e++) {
        cc[e].v = (uint64_t *)gpusort__malloc(cap * sizeof(uint64_t));
        cc[e].cnt = (uint64_t *)gpusort__malloc((size_t)P * cap * sizeof(uint64_t));
    }
    j->cc = cc;
    gpusort_status s = GPUSORT_STATUS_SUCCESS;
    if (!pos || !runs || !pc || !x ||
        (j->device && (!cc[0].v || !cc[0].cnt || !cc[1].v || !cc[1].cnt))) {
        s = gpusort__set_error(c0, GPUSORT_STATUS_OUT_OF_HOST_MEMORY, "multi_sort: split tables");
        goto done;
    }
    /* Boundaries: piece d's output starts at n[0] + ... + n[d-1]; its chunk k at k / K of it. */
    {
        uint64_t at = 0;
        for (int d = 0; d < P; d++) {
            for (int k = 0; k < K; k++) pos[(size_t)d * K + k] = at + j->n[d] * k / K;
            at += j->n[d];
        }
        pos[nb - 1] = at;
    }
    for (int g = 0; g < P; g++) {
        pc[g] = (piece_count){j, g};
        runs[g].keys = !j->device ? j->rk[g] : j->staged ? j->sk[g] : j->keys[g];
        runs[g].n = j->n[g];
        if (j->device) {
            runs[g].count = device_count;
            runs[g].count_arg = &pc[g];
        }
    }
    s = gpusort__dist_select(j->ktype, desc, runs, (size_t)P, pos, nb, NULL, j->split, pos + nb);
    if (s) {
        s = first_failure(j);
        goto done;
    }
    t->split_s = now_s() - t0;
    t->moved_bytes = 0;
    for (int d = 0; d < P; d++)
        for (int src = 0; src < P; src++)
            if (src != d)
                t->moved_bytes += (j->split[(size_t)(d + 1) * K * P + src] -
                                   j->split[(size_t)d * K * P + src]) * (j->ks + j->vs);
    double t1 = now_s();
    if (!j->device) { /* the merges read the slices where they are */
        t->exchange = "host";
        if ((s = gpusort__cpu_parallel_for(P, (size_t)P, merge_host, j)) ||
            (s = first_failure(j)))
            goto done;
        t->merge_s = slowest(j);
        goto done;
    }
    size_t nx = plan_device(j, pos, x);
    const char *how = NULL;
    if (j->staged &&
        (s = lift_error(j, j->ops->exchange_merge(j->ctxs, P, j->ktype, desc, j->vs, x, nx,
                                                  j->jobs, (size_t)P * K, &how))))
        goto done;
    if (how) { /* pipelined: the exchange's time includes the merges */
        t->exchange = how;
        t->exchange_s = now_s() - t1;
        goto done;
    }
    if ((s = lift_error(j, j->ops->exchange(j->ctxs, P, x, nx, &t->exchange)))) goto done;
    t->exchange_s = now_s() - t1;
    if ((s = gpusort__cpu_parallel_for(P, (size_t)P, merge_device, j)) || (s = first_failure(j)))
        goto done;
    t->merge_s = slowest(j);
done:
    free(pos);
    free(runs);
    free(pc);
    free(x);
    for (int e = 0; e < 2; e++) {
        free(cc[e].v);
        free(cc[e].cnt);
    }
    j->cc = NULL;
    return s;
}

gpusort_status gpusort_multi_sort_pairs(gpusort_ctx *const *ctxs, int count,
                                        gpusort_type key_type, gpusort_type value_type,
                                        void *const *keys, void *const *values, const size_t *n,
                                        gpusort_order order, unsigned flags)
{
    double t_start = now_s();
    int device = 0;
    gpusort_status s = check_args(ctxs, count, key_type, value_type, keys, values, n, order,
                                  flags, &device);
    if (s) return s;
    for (int g = 0; g < count; g++) ctxs[g]->last_error[0] = 0;
    multi_job j = {ctxs, count, key_type, value_type, gpusort_type_size(key_type),
                   value_type == GPUSORT_TYPE_NONE ? 0 : gpusort_type_size(value_type), keys,
                   values, n, order, device, ctxs[0]->ops->multi};
    if (count == 1) { /* one piece: the context's own sort, in place */
        s = sort_piece(&j, 0, keys[0], j.vs ? values[0] : NULL);
        if (!s) {
            memset(&last_times, 0, sizeof last_times);
            last_times.local_sort_s = last_times.total_s = now_s() - t_start;
            last_times.exchange = "none";
        }
        return s;
    }

    if (device && j.ops->sort) { /* the backend's own steps, where they apply */
        int declined = 1;
        gpusort_multi_times rt = {0};
        s = j.ops->sort(ctxs, count, key_type, value_type, keys, values, n, order, &rt, &declined);
        if (s) return lift_error(&j, s);
        if (!declined) {
            rt.total_s = now_s() - t_start;
            last_times = rt;
            return s;
        }
    }

    const size_t P = (size_t)count;
    j.chunks = device ? chunks_for(&j) : 1;
    j.rk = (void **)gpusort__calloc(P, sizeof *j.rk);
    j.rv = (void **)gpusort__calloc(P, sizeof *j.rv);
    j.sk = (void **)gpusort__calloc(P, sizeof *j.sk);
    j.sv = (void **)gpusort__calloc(P, sizeof *j.sv);
    j.work = (uint64_t **)gpusort__calloc(P, sizeof *j.work);
    j.st = (gpusort_status *)gpusort__calloc(P, sizeof *j.st);
    j.secs = (double *)gpusort__calloc(P, sizeof *j.secs);
    gpusort_multi_times t = {0};
    if (!j.rk || !j.rv || !j.sk || !j.sv || !j.work || !j.st || !j.secs) {
        s = gpusort__set_error(ctxs[0], GPUSORT_STATUS_OUT_OF_HOST_MEMORY, "multi_sort: tables");
        goto out;
    }
    alloc_staged(&j); /* may fall back to one chunk */
    {
        const size_t K = (size_t)j.chunks;
        j.split = (size_t *)gpusort__malloc((P * K + 1) * P * sizeof *j.split);
        j.jobs = device ? (gpusort__multi_merge_job *)gpusort__calloc(P * K, sizeof *j.jobs) : NULL;
        j.joff = device ? (size_t *)gpusort__malloc(P * K * (P + 1) * sizeof *j.joff) : NULL;
        if (!j.split || (device && (!j.jobs || !j.joff))) {
            s = gpusort__set_error(ctxs[0], GPUSORT_STATUS_OUT_OF_HOST_MEMORY,
                                   "multi_sort: tables");
            goto free_out;
        }
    }
    if (!device && alloc_buffers(&j)) {
        s = first_failure(&j);
        goto free_out;
    }

    /* 1. every context sorts its piece */
    if ((s = gpusort__cpu_parallel_for(count, P, local_sort, &j)) || (s = first_failure(&j)))
        goto free_out;
    t.local_sort_s = slowest(&j);
    if (device && alloc_buffers(&j)) {
        s = first_failure(&j);
        goto free_out;
    }

    /* 2, 3 and 4 */
    if ((s = split_exchange_merge(&j, &t))) goto free_out;
    t.total_s = now_s() - t_start;

free_out:
    free_buffers(&j);
out:
    if (!s) last_times = t;
    free(j.rk);
    free(j.rv);
    free(j.sk);
    free(j.sv);
    free(j.work);
    free(j.split);
    free(j.jobs);
    free(j.joff);
    free(j.st);
    free(j.secs);
    return s;
}

gpusort_status gpusort_multi_sort(gpusort_ctx *const *ctxs, int count, gpusort_type type,
                                  void *const *keys, const size_t *n, gpusort_order order,
                                  unsigned flags)
{
    return gpusort_multi_sort_pairs(ctxs, count, type, GPUSORT_TYPE_NONE, keys, NULL, n, order,
                                    flags);
}
