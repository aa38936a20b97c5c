/*
 * topk.c -- top-k on the CPU by radix select: gpusort__cpu_topk.
 *
 * The top k of a row are the first k entries of its stable sort: the k smallest radix keys
 * (keys.h; descending is the complement, so one code path serves both orders), ties going to
 * the lower index. Three steps per row:
 *
 *   1. SELECT the k-th radix key T, 8 bits at a time from the top: a histogram of the next
 *      digit of the keys whose higher digits equal the prefix found so far; the digit where the
 *      running count reaches k extends the prefix, and k shrinks by the keys below it. It stops
 *      early when the keys sharing the prefix are exactly the ones still needed. This is the
 *      selection of AIR top-k (Zhang et al., SC'23) and of CUB's DeviceTopK, here on the host.
 *   2. COLLECT, in input order, every key whose prefix is below T's and the first `need` keys
 *      with T's prefix (need = k minus the keys below). Each thread counts its chunk first, so
 *      the chunks know where to write and how many of the equal keys are theirs.
 *   3. SORT the k collected (key, index) pairs with the radix sort (radix.c). It is stable and
 *      they are in input order, so ties stay lowest index first.
 *
 * CANDIDATES (a row of at least CAND_MIN_N keys): after the first digit's histogram, the keys
 * whose top digit is at most T's are copied with their indices, in input order, when they are
 * few (at most 1/CAND_SHARE of the row: uniform keys give about k + n/256), and steps 1-2 run on
 * that copy; its indices map back. That is two reads of the row instead of one per digit plus
 * two; skewed rows keep the plain path (which starts from the histogram already counted).
 *
 * Keys are read, never rewritten: the output keys are the input's bits (-0.0, NaN payloads).
 * Work: (number of digits + 2) reads of the row, or 2 with candidates, plus a sort of k
 * pairs. A single row uses all threads on each pass; many rows (gpusort_topk_batch) go to the
 * threads a group at a time, each row on one thread.
 */
#include "cpu.h"
#include "job.h"

#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

enum { DIGIT_BITS = 8, BUCKETS = 1 << DIGIT_BITS };

/* One row's selection: the row, what is resolved so far, and the threads' counts. */
typedef struct topk_row {
    const gpusort__topk_args *a;
    const char *keys;          /* the row's first key */
    size_t n;                  /* row length */
    int kb, width, desc;       /* key bytes, key bits, descending */
    int bits;                  /* high bits of T resolved so far */
    uint64_t prefix;           /* their value */
    size_t need;               /* keys still wanted among those with this prefix */
    int nt;                    /* chunks (threads) */
    size_t (*hist)[BUCKETS];   /* [nt] digit histograms */
    size_t *below, *equal;     /* [nt] per chunk: prefix below T's, equal to T's */
    size_t *take_eq, *out_at;  /* [nt] equal keys a chunk takes; where it writes */
    char *keys_out;            /* k collected keys (the caller's output or scratch) */
    uint64_t *idx_out;         /* k collected indices within the row */
} topk_row;

static inline uint64_t rkey(const topk_row *r, size_t i)
{
    if (r->kb == 4) {
        uint32_t b;
        memcpy(&b, r->keys + 4 * i, 4);
        return gpusort__radix32(b, (int)r->a->key_type, r->desc);
    }
    uint64_t b;
    memcpy(&b, r->keys + 8 * i, 8);
    return gpusort__radix64(b, (int)r->a->key_type, r->desc);
}

static void chunk_range(const topk_row *r, size_t t, size_t *lo, size_t *hi)
{
    *lo = r->n * t / (size_t)r->nt;
    *hi = r->n * (t + 1) / (size_t)r->nt;
}

/* The resolved high bits of radix key x (all of it once every bit is resolved). */
static inline uint64_t high(const topk_row *r, uint64_t x)
{
    return r->bits >= r->width ? x : x >> (r->width - r->bits);
}

static void histogram_task(void *arg, size_t t)
{
    topk_row *r = (topk_row *)arg;
    size_t lo, hi, *h = r->hist[t];
    chunk_range(r, t, &lo, &hi);
    memset(h, 0, sizeof r->hist[0]);
    int shift = r->width - r->bits - DIGIT_BITS;
    if (r->bits == 0) {
        for (size_t i = lo; i < hi; i++) h[(rkey(r, i) >> shift) & (BUCKETS - 1)]++;
    } else {
        for (size_t i = lo; i < hi; i++) {
            uint64_t x = rkey(r, i);
            if (high(r, x) == r->prefix) h[(x >> shift) & (BUCKETS - 1)]++;
        }
    }
}

static void count_task(void *arg, size_t t)
{
    topk_row *r = (topk_row *)arg;
    size_t lo, hi, below = 0, equal = 0;
    chunk_range(r, t, &lo, &hi);
    for (size_t i = lo; i < hi; i++) {
        uint64_t p = high(r, rkey(r, i));
        below += p < r->prefix;
        equal += p == r->prefix;
    }
    r->below[t] = below;
    r->equal[t] = equal;
}

static void collect_task(void *arg, size_t t)
{
    topk_row *r = (topk_row *)arg;
    size_t lo, hi, at = r->out_at[t], eq_left = r->take_eq[t];
    size_t left = r->below[t] + eq_left;
    chunk_range(r, t, &lo, &hi);
    for (size_t i = lo; i < hi && left; i++) {
        uint64_t p = high(r, rkey(r, i));
        if (p < r->prefix || (p == r->prefix && eq_left)) {
            eq_left -= p == r->prefix;
            memcpy(r->keys_out + at * (size_t)r->kb, r->keys + i * (size_t)r->kb, (size_t)r->kb);
            r->idx_out[at++] = i;
            left--;
        }
    }
}

/* Run task over the row's chunks: on the threads when there are several, else inline. */
static void run_chunks(topk_row *r, void (*task)(void *, size_t))
{
    if (r->nt == 1) task(r, 0);
    else gpusort__cpu_parallel_for(r->nt, (size_t)r->nt, task, r);
}

/* Steps 1 and 2 for one row: fills r->keys_out / r->idx_out with the k keys, in input order.
 * counted: r->hist already holds the first digit's histogram of this row. */
static void select_and_collect(topk_row *r, size_t k, int counted)
{
    r->bits = 0;
    r->prefix = 0;
    r->need = k;
    while (r->bits < r->width) {
        if (!counted) run_chunks(r, histogram_task);
        counted = 0;
        size_t total[BUCKETS] = {0};
        for (int t = 0; t < r->nt; t++)
            for (int b = 0; b < BUCKETS; b++) total[b] += r->hist[t][b];
        int d = 0;
        while (total[d] < r->need) r->need -= total[d++];   /* d < BUCKETS: need <= keys left */
        r->prefix = r->prefix << DIGIT_BITS | (uint64_t)d;
        r->bits += DIGIT_BITS;
        if (total[d] == r->need) break;   /* every key with this prefix is taken */
    }
    run_chunks(r, count_task);
    size_t at = 0, eq_before = 0;
    for (int t = 0; t < r->nt; t++) {
        size_t rest = r->need > eq_before ? r->need - eq_before : 0;
        r->take_eq[t] = r->equal[t] < rest ? r->equal[t] : rest;
        eq_before += r->equal[t];
        r->out_at[t] = at;
        at += r->below[t] + r->take_eq[t];
    }
    run_chunks(r, collect_task);
}

/* CANDIDATES (top of the file): rows from CAND_MIN_N keys, copies of at most n / CAND_SHARE. */
#define CAND_MIN_N ((size_t)1 << 16)
#define CAND_SHARE 8

typedef struct cand_job {
    const topk_row *r;
    uint64_t top;              /* the largest top digit copied */
    const size_t *at;          /* [nt] where each chunk writes */
    char *keys;
    uint64_t *idx;
} cand_job;

static void cand_task(void *arg, size_t t)
{
    const cand_job *c = (const cand_job *)arg;
    const topk_row *r = c->r;
    size_t lo, hi, at = c->at[t];
    const int shift = r->width - DIGIT_BITS;
    chunk_range(r, t, &lo, &hi);
    for (size_t i = lo; i < hi; i++)
        if (rkey(r, i) >> shift <= c->top) {
            memcpy(c->keys + at * (size_t)r->kb, r->keys + i * (size_t)r->kb, (size_t)r->kb);
            c->idx[at++] = i;
        }
}

/* Steps 1 and 2 for a row of one or more threads, through the candidates when they pay. */
static void select_row(topk_row *r, size_t k)
{
    if (r->n < CAND_MIN_N || k == 0) {
        select_and_collect(r, k, 0);
        return;
    }
    r->bits = 0;
    r->prefix = 0;
    run_chunks(r, histogram_task);
    size_t total[BUCKETS] = {0};
    for (int t = 0; t < r->nt; t++)
        for (int b = 0; b < BUCKETS; b++) total[b] += r->hist[t][b];
    size_t cand = 0;
    int d = 0;
    while ((cand += total[d]) < k) d++;          /* d < BUCKETS: k <= n */
    char *block = NULL;
    if (cand <= r->n / CAND_SHARE)
        block = (char *)gpusort__malloc(cand * (8 + (size_t)r->kb) +
                                        (size_t)r->nt * sizeof(size_t));
    if (!block) {                                /* skewed (or no memory): the plain path */
        select_and_collect(r, k, 1);
        return;
    }
    uint64_t *idx = (uint64_t *)block;
    size_t *at = (size_t *)(idx + cand);
    char *keys = (char *)(at + r->nt);
    size_t run = 0;
    for (int t = 0; t < r->nt; t++) {
        at[t] = run;
        for (int b = 0; b <= d; b++) run += r->hist[t][b];
    }
    cand_job cj = {r, (uint64_t)d, at, keys, idx};
    if (r->nt == 1) cand_task(&cj, 0);
    else gpusort__cpu_parallel_for(r->nt, (size_t)r->nt, cand_task, &cj);
    topk_row c = *r;                             /* the copy as a row; same outputs */
    c.keys = keys;
    c.n = cand;
    if (cand < CAND_MIN_N) c.nt = 1;
    select_and_collect(&c, k, 0);
    for (size_t j = 0; j < k; j++) r->idx_out[j] = idx[r->idx_out[j]];
    free(block);
}

/* Step 3 and the outputs of one row: sort the collected pairs, write keys and indices. */
static gpusort_status sort_collected(gpusort_ctx *ctx, topk_row *r, size_t k, size_t row,
                                     int threads)
{
    const gpusort__topk_args *a = r->a;
    gpusort__cpu_job job = {
        .key_type = a->key_type, .key_bytes = r->kb, .desc = r->desc,
        .keys_in = r->keys_out, .keys_out = r->keys_out,
        .value_bytes = 8, .values_in = r->idx_out, .values_out = r->idx_out,
        .index_base = 0, .n = k, .threads = threads,
    };
    gpusort_status s = gpusort__cpu_radix_job(ctx, &job);
    if (s) return s;
    if (a->indices_out && a->index_type == GPUSORT_TYPE_U32) {
        uint32_t *out = (uint32_t *)a->indices_out + row * k;
        for (size_t i = 0; i < k; i++) out[i] = (uint32_t)r->idx_out[i];
    }
    return GPUSORT_STATUS_SUCCESS;
}

/* The scratch of one row's top-k on nt chunks; keys/indices go straight to the caller's
 * outputs when it has them in the form collected (keys; u64 indices). */
typedef struct topk_mem {
    void *block;
    char *keys;
    uint64_t *idx;
} topk_mem;

static int row_setup(topk_row *r, topk_mem *m, const gpusort__topk_args *a, int nt)
{
    size_t k = a->k;
    r->a = a;
    r->kb = (int)gpusort_type_size(a->key_type);
    r->width = 8 * r->kb;
    r->desc = a->order == GPUSORT_ORDER_DESC;
    r->n = a->row_length;
    r->nt = nt;
    int own_keys = a->keys_out == NULL;
    int own_idx = !(a->indices_out && a->index_type == GPUSORT_TYPE_U64);
    size_t counts = (size_t)nt * (sizeof r->hist[0] + 4 * sizeof(size_t));
    size_t bytes = counts + (own_keys ? k * (size_t)r->kb : 0) + (own_idx ? k * 8 : 0);
    m->block = gpusort__malloc(bytes ? bytes : 1);
    if (!m->block) return -1;
    char *p = (char *)m->block;
    r->hist = (size_t (*)[BUCKETS])p;
    p += (size_t)nt * sizeof r->hist[0];
    r->below = (size_t *)p;
    r->equal = r->below + nt;
    r->take_eq = r->equal + nt;
    r->out_at = r->take_eq + nt;
    p += (size_t)nt * 4 * sizeof(size_t);
    m->idx = own_idx ? (uint64_t *)p : NULL;       /* 8-aligned: counts are multiples of 8 */
    p += own_idx ? k * 8 : 0;
    m->keys = own_keys ? p : NULL;
    return 0;
}

/* Point r at row `row` of the input and outputs. */
static void row_at(topk_row *r, const topk_mem *m, size_t row)
{
    const gpusort__topk_args *a = r->a;
    size_t k = a->k;
    r->keys = (const char *)a->keys_in + row * a->row_length * (size_t)r->kb;
    r->keys_out = m->keys ? m->keys : (char *)a->keys_out + row * k * (size_t)r->kb;
    r->idx_out = m->idx ? m->idx : (uint64_t *)a->indices_out + row * k;
}

/* Many rows: groups of consecutive rows go to the threads, each row on one thread. */
typedef struct rows_plan {
    const gpusort__topk_args *a;
    size_t rows, groups;
    atomic_int status;
} rows_plan;

static void rows_task(void *arg, size_t g)
{
    rows_plan *p = (rows_plan *)arg;
    topk_row r;
    topk_mem m;
    if (row_setup(&r, &m, p->a, 1)) {
        atomic_store(&p->status, (int)GPUSORT_STATUS_OUT_OF_HOST_MEMORY);
        return;
    }
    for (size_t row = p->rows * g / p->groups; row < p->rows * (g + 1) / p->groups; row++) {
        row_at(&r, &m, row);
        select_row(&r, p->a->k);
        gpusort_status s = sort_collected(NULL, &r, p->a->k, row, 1);
        if (s) {
            atomic_store(&p->status, (int)s);
            break;
        }
    }
    free(m.block);
}

gpusort_status gpusort__cpu_topk(gpusort_ctx *ctx, const gpusort__topk_args *a)
{
    int threads = gpusort__threads(ctx);
    size_t rows = a->n / a->row_length;
    /* A row this long gets all threads (a pass over it outweighs a fork-join). */
    int wide = rows < (size_t)threads || a->row_length >= ((size_t)1 << 20);
    if (!wide) {
        rows_plan p = {a, rows, 0, GPUSORT_STATUS_SUCCESS};
        p.groups = rows < (size_t)threads * 8 ? rows : (size_t)threads * 8;
        gpusort_status s = gpusort__cpu_parallel_for(threads, p.groups, rows_task, &p);
        if (s) return gpusort__set_error(ctx, s, "top-k: cannot start the worker threads");
        s = (gpusort_status)atomic_load(&p.status);
        if (s == GPUSORT_STATUS_OUT_OF_HOST_MEMORY)
            return gpusort__set_error(ctx, s, "top-k: out of host memory for %zu rows of k = %zu",
                                      rows, a->k);
        return s;
    }
    int nt = a->row_length < ((size_t)1 << 16) ? 1 : threads;
    topk_row r;
    topk_mem m;
    if (row_setup(&r, &m, a, nt))
        return gpusort__set_error(ctx, GPUSORT_STATUS_OUT_OF_HOST_MEMORY,
                                  "top-k: out of host memory for k = %zu", a->k);
    gpusort_status s = GPUSORT_STATUS_SUCCESS;
    for (size_t row = 0; row < rows && !s; row++) {
        row_at(&r, &m, row);
        select_row(&r, a->k);
        s = sort_collected(ctx, &r, a->k, row, threads);
    }
    free(m.block);
    return s;
}
