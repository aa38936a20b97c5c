/*
 * merge.c -- the last step of the distributed sort (dist.h): gpusort__dist_merge, a stable
 * k-way merge of the sorted runs a participant received, on several threads.
 *
 * Threads: the output is cut into `threads` equal ranges; gpusort__dist_select (partition.c,
 * here without a transport) gives every run's split at each cut, so the pieces are exact and
 * independent, and each thread merges its piece of every run into its range of the output.
 *
 * One thread's merge is a loser tree (tournament tree, Knuth TAOCP vol. 3, 5.4.1; the same
 * structure as tools/extsort.c's merge of runs on disk) over the current element of every
 * run, ordered by (radix key, run index): the earliest run wins among equal keys, which keeps
 * the received runs' (rank, position) order, so the merge is stable. A node keeps the loser of
 * the match played there; after the winner's run advances, only the log2(k) matches on its
 * path to the root are replayed. An exhausted run holds the greatest key and loses every tie.
 */
#include "dist.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

/* Below this many output elements per thread a thread is not worth starting. */
#define MERGE_MIN_PER_THREAD ((size_t)1 << 16)
/* Most runs one loser tree merges (the distributed sort merges one run per participant;
 * the tree's arrays are on the stack up to this). Above it the arrays are allocated. */
#define MERGE_STACK_RUNS 64

typedef struct merge_piece {
    gpusort_type type;
    int desc;
    size_t ksize, vsize;
    const gpusort__dist_run *runs;
    size_t nruns;
    const size_t *lo, *hi;          /* this piece's range of each run */
    char *keys_out, *values_out;    /* this piece's place in the output */
    int failed;
} merge_piece;

/* Entry s of the tree: run s's current element (cur[s] < end[s]) or exhausted. */
typedef struct merge_tree {
    uint64_t *key;
    size_t *cur, *end;
    int *tree;          /* tree[1..K): the loser of each match; K = leaves, a power of two */
    int K;
} merge_tree;

static int beats(const merge_tree *t, int a, int b)   /* a before b? */
{
    int ea = t->cur[a] >= t->end[a], eb = t->cur[b] >= t->end[b];
    if (ea != eb) return eb;
    if (!ea && t->key[a] != t->key[b]) return t->key[a] < t->key[b];
    return a < b;
}

static int build(merge_tree *t, int node)
{
    if (node >= t->K) return node - t->K;
    int l = build(t, 2 * node), r = build(t, 2 * node + 1);
    if (beats(t, l, r)) { t->tree[node] = r; return l; }
    t->tree[node] = l;
    return r;
}

static void merge_piece_run(merge_piece *p)
{
    int K = 1;
    while ((size_t)K < p->nruns) K *= 2;
    uint64_t key_s[MERGE_STACK_RUNS];
    size_t cur_s[MERGE_STACK_RUNS], end_s[MERGE_STACK_RUNS];
    int tree_s[MERGE_STACK_RUNS];
    merge_tree t = {key_s, cur_s, end_s, tree_s, K};
    void *heap = NULL;
    if (K > MERGE_STACK_RUNS) {
        heap = malloc((size_t)K * (sizeof(uint64_t) + 2 * sizeof(size_t) + sizeof(int)));
        if (!heap) { p->failed = 1; return; }
        t.key = (uint64_t *)heap;
        t.cur = (size_t *)(t.key + K);
        t.end = t.cur + K;
        t.tree = (int *)(t.end + K);
    }
    size_t total = 0;
    for (int s = 0; s < K; s++) {
        int live = (size_t)s < p->nruns;
        t.cur[s] = live ? p->lo[s] : 0;
        t.end[s] = live ? p->hi[s] : 0;
        if (t.cur[s] < t.end[s])
            t.key[s] = gpusort__dist_key(p->type, p->desc, p->runs[s].keys, t.cur[s]);
        total += t.end[s] - t.cur[s];
    }
    int w = build(&t, 1);
    size_t ks = p->ksize, vs = p->vsize;
    char *ko = p->keys_out, *vo = p->values_out;
    for (size_t i = 0; i < total; i++) {
        const gpusort__dist_run *r = &p->runs[w];
        size_t c = t.cur[w]++;
        memcpy(ko + i * ks, (const char *)r->keys + c * ks, ks);
        if (vs) memcpy(vo + i * vs, (const char *)r->values + c * vs, vs);
        if (c + 1 < t.end[w]) t.key[w] = gpusort__dist_key(p->type, p->desc, r->keys, c + 1);
        for (int node = (w + K) / 2; node >= 1; node /= 2)
            if (beats(&t, t.tree[node], w)) {
                int l = t.tree[node];
                t.tree[node] = w;
                w = l;
            }
    }
    free(heap);
}

static void *merge_thread(void *arg)
{
    merge_piece_run((merge_piece *)arg);
    return NULL;
}

gpusort_status gpusort__dist_merge(gpusort_type type, int desc, size_t vsize,
                                   const gpusort__dist_run *runs, size_t nruns, void *keys_out,
                                   void *values_out, int threads)
{
    size_t n = 0, ksize = gpusort_type_size(type);
    for (size_t r = 0; r < nruns; r++) n += runs[r].n;
    if (n == 0) return GPUSORT_STATUS_SUCCESS;
    size_t T = threads > 0 ? (size_t)threads : 1;
    if (T > n / MERGE_MIN_PER_THREAD) T = n / MERGE_MIN_PER_THREAD ? n / MERGE_MIN_PER_THREAD : 1;

    /* The cuts: T + 1 output positions and every run's split at each. */
    uint64_t *pos = (uint64_t *)malloc((T + 1) * sizeof *pos + 3 * (T + 1) * sizeof(uint64_t));
    size_t *split = (size_t *)malloc((T + 1) * nruns * sizeof *split);
    merge_piece *pieces = (merge_piece *)calloc(T, sizeof *pieces);
    pthread_t *tid = (pthread_t *)malloc(T * sizeof *tid);
    gpusort_status st = GPUSORT_STATUS_OUT_OF_HOST_MEMORY;
    if (!pos || !split || !pieces || !tid) goto out;
    for (size_t t = 0; t <= T; t++) pos[t] = n / T * t + (t < n % T ? t : n % T);
    st = gpusort__dist_select(type, desc, runs, nruns, pos, T + 1, NULL, split, pos + T + 1);
    if (st) goto out;

    for (size_t t = 0; t < T; t++) {
        merge_piece *p = &pieces[t];
        *p = (merge_piece){type, desc, ksize, vsize, runs, nruns, split + t * nruns,
                           split + (t + 1) * nruns, (char *)keys_out + pos[t] * ksize,
                           values_out ? (char *)values_out + pos[t] * vsize : NULL, 0};
    }
    /* Piece 0 runs on this thread; a thread that cannot start leaves its piece to it too. */
    size_t started = 0;
    int *own = (int *)calloc(T, sizeof *own);
    if (!own) goto out;
    for (size_t t = 1; t < T; t++)
        if (pthread_create(&tid[t], NULL, merge_thread, &pieces[t]) != 0) own[t] = 1;
        else started++;
    merge_piece_run(&pieces[0]);
    for (size_t t = 1; t < T; t++)
        if (own[t]) merge_piece_run(&pieces[t]);
    for (size_t t = 1; t < T; t++)
        if (!own[t]) pthread_join(tid[t], NULL);
    (void)started;
    free(own);
    st = GPUSORT_STATUS_SUCCESS;
    for (size_t t = 0; t < T; t++)
        if (pieces[t].failed) st = GPUSORT_STATUS_OUT_OF_HOST_MEMORY;
out:
    free(pos);
    free(split);
    free(pieces);
    free(tid);
    return st;
}
