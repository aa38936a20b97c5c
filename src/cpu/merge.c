/*
 * merge.c -- stable parallel merge sort (GPUSORT_ALGORITHM_MERGE on the CPU) and the stable
 * k-way merge of sorted runs that the GPU backends use for host arrays larger than the GPU.
 *
 * Exports gpusort__cpu_merge_sort (a checked gpusort__sort_args), gpusort__cpu_merge_job (a
 * job, job.h) and gpusort__cpu_merge_runs (cpu.h).
 *
 * ALGORITHM. Keys compare by their radix keys (rkey.h: the gpusort total order; -0.0 == +0.0;
 * NaN greatest; descending = complemented), so the merge sort and the radix sort agree on every
 * input, ties included. Data live in two arrays: A (the output) and B (scratch, n elements).
 *   1. The input is copied to A (argsort: indices written as values). A is cut into one chunk
 *      per thread; each thread sorts its chunk alone: insertion sort of runs of 16 (or 32)
 *      elements, then bottom-up merge passes that ping-pong between A and B. The run length
 *      is picked so that the chunk ends in the array the merge rounds start from.
 *   2. Merge rounds: adjacent sorted runs are merged pairwise, A -> B -> A ..., until one run
 *      remains, in A. Each pair's merge is cut into pieces of about n / threads outputs with
 *      the merge path (corank) binary search, so all threads work in every round, including
 *      the last one, which merges just two runs.
 *   Stability: runs are merged left to right and ties take the left run's element first.
 * gpusort__cpu_merge_runs is step 2 alone, starting from the caller's runs.
 * Scratch: n * (key + value) bytes (plus n * key bytes when keys_out is NULL).
 */
#include "cpu.h"

/* Round a byte count up to 64 (a cache line; also keeps 8-byte values aligned after keys). */
#define ALIGN64(x) (((x) + (size_t)63) & ~(size_t)63)
#include "job.h"
#include "rkey.h"

#include <stdlib.h>
#include <string.h>

enum {
    RUN_SHORT = 16,                /* insertion-sorted run: about the break-even with merging */
    MIN_PER_THREAD = 1 << 14,      /* below this many elements per thread, one thread */
};

typedef struct mkernels {
    void (*insertion)(void *k, void *v, size_t lo, size_t hi, uint64_t xm);
    void (*merge)(const void *sk, const void *sv, void *dk, void *dv, size_t a0, size_t a1,
                  size_t b0, size_t b1, size_t o, uint64_t xm);
    size_t (*corank)(const void *k, size_t a0, size_t a1, size_t b0, size_t b1, size_t target,
                     uint64_t xm);
} mkernels;

#define MI_KBITS 32
#include "merge_inst.h"
#undef MI_KBITS
#define MI_KBITS 64
#include "merge_inst.h"
#undef MI_KBITS

static const mkernels *kernels_for(gpusort_type key_type, int value_bytes)
{
    static const mkernels *const table[2][3][2] = {
        {{&mi_ops_32_0_0, &mi_ops_32_0_1}, {&mi_ops_32_4_0, &mi_ops_32_4_1},
         {&mi_ops_32_8_0, &mi_ops_32_8_1}},
        {{&mi_ops_64_0_0, &mi_ops_64_0_1}, {&mi_ops_64_4_0, &mi_ops_64_4_1},
         {&mi_ops_64_8_0, &mi_ops_64_8_1}},
    };
    int wide = gpusort_type_size(key_type) == 8;
    int is_float = key_type == GPUSORT_TYPE_F32 || key_type == GPUSORT_TYPE_F64;
    return table[wide][value_bytes / 4][is_float];
}

typedef struct mplan {
    const mkernels *kr;
    uint64_t xm;                   /* rkey.h xor mask */
    size_t ks, vs;                 /* key and value bytes */
    size_t n;
    int threads;
    void *ak, *av;                 /* array A: the output */
    void *bk, *bv;                 /* array B: scratch */
    /* chunk phase */
    size_t *runs;                  /* [nruns + 1] run boundaries */
    size_t nruns;
    int chunks_to_b;               /* the chunks must end in B (an odd number of rounds) */
    /* one merge round */
    const void *src_k, *src_v;
    void *dst_k, *dst_v;
    size_t *task_pair, *task_piece, *task_pieces;
    size_t ntasks;
} mplan;

/* ---- step 1: each chunk alone ---- */

static void sort_chunk(void *arg, size_t c)
{
    mplan *p = (mplan *)arg;
    size_t lo = p->runs[c], hi = p->runs[c + 1], len = hi - lo;
    int passes = 0;
    for (size_t w = RUN_SHORT; w < len; w *= 2) passes++;
    size_t run = RUN_SHORT;
    /* passes ping-pong from A: an odd count ends in B. Doubling the run drops one pass. */
    if ((passes % 2 == 1) != (p->chunks_to_b != 0) && passes > 0) { run *= 2; passes--; }
    for (size_t r = lo; r < hi; r += run)
        p->kr->insertion(p->ak, p->av, r, r + run < hi ? r + run : hi, p->xm);
    void *ck = p->ak, *cv = p->av, *ok = p->bk, *ov = p->bv;
    for (size_t w = run; w < len; w *= 2) {
        for (size_t r = lo; r < hi; r += 2 * w) {
            size_t m = r + w < hi ? r + w : hi, e = r + 2 * w < hi ? r + 2 * w : hi;
            p->kr->merge(ck, cv, ok, ov, r, m, m, e, r, p->xm);
        }
        void *t = ck; ck = ok; ok = t;
        t = cv; cv = ov; ov = t;
    }
    if ((ck == p->bk) != (p->chunks_to_b != 0)) {    /* a chunk of <= one run, wrong array */
        memcpy((char *)ok + lo * p->ks, (char *)ck + lo * p->ks, len * p->ks);
        if (p->vs) memcpy((char *)ov + lo * p->vs, (char *)cv + lo * p->vs, len * p->vs);
    }
}

/* ---- step 2: merge rounds ---- */

static void round_task(void *arg, size_t ti)
{
    mplan *p = (mplan *)arg;
    size_t pair = p->task_pair[ti], piece = p->task_piece[ti], pieces = p->task_pieces[ti];
    size_t r0 = p->runs[2 * pair];
    size_t r1 = 2 * pair + 1 < p->nruns ? p->runs[2 * pair + 1] : p->runs[p->nruns];
    size_t r2 = 2 * pair + 2 < p->nruns ? p->runs[2 * pair + 2] : p->runs[p->nruns];
    size_t total = r2 - r0, t0 = total / pieces * piece + total % pieces * piece / pieces;
    size_t t1 = total / pieces * (piece + 1) + total % pieces * (piece + 1) / pieces;
    size_t i0 = p->kr->corank(p->src_k, r0, r1, r1, r2, t0, p->xm);
    size_t i1 = p->kr->corank(p->src_k, r0, r1, r1, r2, t1, p->xm);
    p->kr->merge(p->src_k, p->src_v, p->dst_k, p->dst_v, r0 + i0, r0 + i1, r1 + (t0 - i0),
                 r1 + (t1 - i1), r0 + t0, p->xm);
}

/* Merge p->runs pairwise until one run is left. Round 0 reads (src_k, src_v); round r
 * writes A when (rounds - 1 - r) is even, else B, so the last round writes A. */
static void merge_rounds(mplan *p, const void *src_k, const void *src_v)
{
    int rounds = 0;
    for (size_t r = 1; r < p->nruns; r *= 2) rounds++;
    for (int round = 0; round < rounds; round++) {
        int to_a = (rounds - 1 - round) % 2 == 0;
        p->src_k = src_k;
        p->src_v = src_v;
        p->dst_k = to_a ? p->ak : p->bk;
        p->dst_v = to_a ? p->av : p->bv;
        size_t pairs = (p->nruns + 1) / 2, nt = 0;
        for (size_t q = 0; q < pairs; q++) {
            size_t lo = p->runs[2 * q];
            size_t hi = 2 * q + 2 < p->nruns ? p->runs[2 * q + 2] : p->runs[p->nruns];
            /* pieces of about n / threads outputs each */
            size_t pieces = (hi - lo) * (size_t)p->threads / (p->n ? p->n : 1) + 1;
            if (hi - lo < 2 * MIN_PER_THREAD) pieces = 1;
            for (size_t k = 0; k < pieces; k++, nt++) {
                p->task_pair[nt] = q;
                p->task_piece[nt] = k;
                p->task_pieces[nt] = pieces;
            }
        }
        p->ntasks = nt;
        gpusort__cpu_parallel_for(p->threads, nt, round_task, p);
        for (size_t q = 0; q < pairs; q++) p->runs[q] = p->runs[2 * q];
        p->runs[pairs] = p->runs[p->nruns];
        p->nruns = pairs;
        src_k = p->dst_k;
        src_v = p->dst_v;
    }
}

/* Room for the round tasks: at most threads + runs per round. */
static int alloc_tasks(mplan *p)
{
    size_t cap = (size_t)p->threads + p->nruns + 1;
    p->task_pair = (size_t *)gpusort__malloc(cap * sizeof(size_t));
    p->task_piece = (size_t *)gpusort__malloc(cap * sizeof(size_t));
    p->task_pieces = (size_t *)gpusort__malloc(cap * sizeof(size_t));
    return p->task_pair && p->task_piece && p->task_pieces;
}

static void free_plan(mplan *p)
{
    free(p->task_pair);
    free(p->task_piece);
    free(p->task_pieces);
    free(p->runs);
}


/* ---- entry points ---- */

gpusort_status gpusort__cpu_merge_job(gpusort_ctx *ctx, const gpusort__cpu_job *job)
{
    const size_t n = job->n, ks = (size_t)job->key_bytes, vs = (size_t)job->value_bytes;
    mplan p;
    memset(&p, 0, sizeof p);
    p.kr = kernels_for(job->key_type, job->value_bytes);
    p.xm = gpusort__cpu_xor_mask(job->key_type, job->desc);
    p.ks = ks;
    p.vs = vs;
    p.n = n;
    size_t chunks = n / MIN_PER_THREAD;
    if (chunks > (size_t)job->threads) chunks = (size_t)job->threads;
    if (chunks < 1) chunks = 1;
    p.threads = (int)chunks;
    p.nruns = chunks;

    void *own_k = NULL, *scratch = NULL;
    gpusort_status st = GPUSORT_STATUS_SUCCESS;
    p.ak = job->keys_out;
    if (!p.ak) p.ak = own_k = gpusort__cpu_big_alloc(ctx, n * ks);
    p.av = vs ? job->values_out : NULL;
    scratch = gpusort__cpu_big_alloc(ctx, ALIGN64(n * ks) + n * vs);
    p.runs = (size_t *)gpusort__malloc((chunks + 1) * sizeof(size_t));
    if (!p.ak || !scratch || !p.runs || !alloc_tasks(&p)) {
        st = gpusort__set_error(ctx, GPUSORT_STATUS_OUT_OF_HOST_MEMORY,
                                "merge sort: %zu bytes of scratch for %zu keys",
                                n * (ks + vs) + (job->keys_out ? 0 : n * ks), n);
        goto done;
    }
    p.bk = scratch;
    p.bv = vs ? (char *)scratch + ALIGN64(n * ks) : NULL;   /* 8-byte values stay aligned */
    gpusort__cpu_parallel_copy(p.threads, p.ak, job->keys_in, n, ks, 0);
    if (vs)
        gpusort__cpu_parallel_copy(p.threads, p.av, job->values_in, n, vs, job->index_base);
    for (size_t c = 0; c <= chunks; c++) p.runs[c] = n / chunks * c + n % chunks * c / chunks;
    int rounds = 0;
    for (size_t r = 1; r < chunks; r *= 2) rounds++;
    p.chunks_to_b = rounds % 2 == 1;
    gpusort__cpu_parallel_for(p.threads, chunks, sort_chunk, &p);
    merge_rounds(&p, p.chunks_to_b ? p.bk : p.ak, p.chunks_to_b ? p.bv : p.av);

done:
    free_plan(&p);
    gpusort__cpu_big_free(ctx, scratch, ALIGN64(n * ks) + n * vs);
    gpusort__cpu_big_free(ctx, own_k, n * ks);
    return st;
}

gpusort_status gpusort__cpu_merge_sort(gpusort_ctx *ctx, const gpusort__sort_args *d)
{
    gpusort__cpu_job job;
    gpusort__cpu_job_from_desc(&job, d, gpusort__threads(ctx));
    return gpusort__cpu_merge_job(ctx, &job);
}

gpusort_status gpusort__cpu_merge_runs(gpusort_ctx *ctx, const gpusort__sort_args *d,
                                       const uint64_t *run_offsets, size_t num_runs)
{
    if (num_runs == 0) return GPUSORT_STATUS_SUCCESS;
    const size_t lo = (size_t)run_offsets[0], hi = (size_t)run_offsets[num_runs];
    for (size_t r = 0; r < num_runs; r++)
        if (run_offsets[r] > run_offsets[r + 1])
            return gpusort__set_error(ctx, GPUSORT_STATUS_INVALID_ARGUMENT,
                                      "merge_runs: run offsets decrease at run %zu", r);
    if (hi <= lo) return GPUSORT_STATUS_SUCCESS;
    const size_t n = hi - lo, ks = gpusort_type_size(d->key_type);
    const size_t vs = d->value_type == GPUSORT_TYPE_NONE ? 0 : gpusort_type_size(d->value_type);
    mplan p;
    memset(&p, 0, sizeof p);
    p.kr = kernels_for(d->key_type, (int)vs);
    p.xm = gpusort__cpu_xor_mask(d->key_type, d->order == GPUSORT_ORDER_DESC);
    p.ks = ks;
    p.vs = vs;
    p.n = n;
    p.threads = gpusort__threads(ctx);
    p.nruns = num_runs;

    /* Everything is addressed relative to element lo: the output keeps the input positions. */
    const char *in_k = (const char *)d->keys_in + lo * ks;
    const char *in_v = vs && d->values_in ? (const char *)d->values_in + lo * vs : NULL;
    void *own_k = NULL, *own_v = NULL, *scratch = NULL;
    gpusort_status st = GPUSORT_STATUS_SUCCESS;
    p.ak = d->keys_out ? (char *)d->keys_out + lo * ks : (own_k = gpusort__cpu_big_alloc(ctx, n * ks));
    p.av = vs ? (char *)d->values_out + lo * vs : NULL;
    if (vs && !in_v) in_v = own_v = gpusort__cpu_big_alloc(ctx, n * vs);   /* no values given: positions */
    scratch = num_runs > 2 ? gpusort__cpu_big_alloc(ctx, ALIGN64(n * ks) + n * vs) : NULL;
    p.runs = (size_t *)gpusort__malloc((num_runs + 1) * sizeof(size_t));
    if (!p.ak || (vs && !in_v) || (num_runs > 2 && !scratch) || !p.runs || !alloc_tasks(&p)) {
        st = gpusort__set_error(ctx, GPUSORT_STATUS_OUT_OF_HOST_MEMORY,
                                "merge of %zu runs: %zu bytes of scratch", num_runs,
                                n * (ks + vs));
        goto done;
    }
    if (own_v) gpusort__cpu_parallel_copy(p.threads, own_v, NULL, n, vs, lo);
    p.bk = scratch;
    p.bv = scratch && vs ? (char *)scratch + ALIGN64(n * ks) : NULL;
    for (size_t r = 0; r <= num_runs; r++) p.runs[r] = (size_t)run_offsets[r] - lo;
    if (num_runs == 1) {
        gpusort__cpu_parallel_copy(p.threads, p.ak, in_k, n, ks, 0);
        if (vs) gpusort__cpu_parallel_copy(p.threads, p.av, in_v, n, vs, 0);
    } else {
        merge_rounds(&p, in_k, in_v);
    }

done:
    free_plan(&p);
    gpusort__cpu_big_free(ctx, scratch, ALIGN64(n * ks) + n * vs);
    gpusort__cpu_big_free(ctx, own_k, n * ks);
    gpusort__cpu_big_free(ctx, own_v, n * vs);
    return st;
}
