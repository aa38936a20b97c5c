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
 * the match played there, with its key (no indirection on the path); after the winner's run
 * advances, only the log2(k) matches on its path to the root are replayed. An exhausted run
 * holds the greatest key and a tie above every live run, so it loses every match.
 */
#include "dist.h"

#include "keys.h"

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

/* The tree: node i (1 <= i < K, K leaves, a power of two) keeps the loser of its match as
 * (key, tie); the winner travels up in registers. tie = run + K * exhausted, and an exhausted
 * run's key is the greatest, so one compare of (key, tie) orders live runs by key then by run
 * and puts every exhausted run last. */
typedef struct merge_node {
    uint64_t key;
    uint32_t tie;
} merge_node;

static inline int node_before(uint64_t ka, uint32_t ta, uint64_t kb, uint32_t tb)
{
    return (ka < kb) | ((ka == kb) & (ta < tb));    /* no branch: random keys mispredict */
}

/* The radix key of element i of a run of ks-byte keys (ks a constant 4 or 8 below). */
static inline __attribute__((always_inline)) uint64_t key_at(int type, int desc, size_t ks,
                                                             const void *keys, size_t i)
{
    if (ks == 4) return gpusort__radix32(((const uint32_t *)keys)[i], type, desc);
    return gpusort__radix64(((const uint64_t *)keys)[i], type, desc);
}

/* dst[i] = src[j] for elements of `size` bytes (a constant 4 or 8), through typed pointers:
 * a store through char (memcpy) may alias anything, and the compiler would then reload the
 * tree and the run tables after every element. The arrays are the caller's typed arrays. */
static inline __attribute__((always_inline)) void copy_elem(void *dst, size_t i,
                                                            const void *src, size_t j,
                                                            size_t size)
{
    if (size == 4) ((uint32_t *)dst)[i] = ((const uint32_t *)src)[j];
    else ((uint64_t *)dst)[i] = ((const uint64_t *)src)[j];
}

/* Play the matches below node; return the winner, store the losers. */
static merge_node build(merge_node *tree, const merge_node *leaf, uint32_t K, uint32_t node)
{
    if (node >= K) return leaf[node - K];
    merge_node l = build(tree, leaf, K, 2 * node), r = build(tree, leaf, K, 2 * node + 1);
    int lw = node_before(l.key, l.tie, r.key, r.tie);
    tree[node] = lw ? r : l;
    return lw ? l : r;
}

/* One piece, for a key size ks and value size vs that merge_piece_run makes constants, so the
 * copies and the key load compile to single moves. */
static inline __attribute__((always_inline)) void merge_piece_sized(merge_piece *p,
                                                                    const size_t ks,
                                                                    const size_t vs)
{
    uint32_t K = 1;
    while (K < p->nruns) K *= 2;
    size_t cur_s[MERGE_STACK_RUNS], end_s[MERGE_STACK_RUNS];
    merge_node tree_s[MERGE_STACK_RUNS], leaf_s[MERGE_STACK_RUNS];
    size_t *cur = cur_s, *end = end_s;
    merge_node *tree = tree_s, *leaf = leaf_s;
    void *heap = NULL;
    if (K > MERGE_STACK_RUNS) {
        heap = malloc((size_t)K * (2 * sizeof(size_t) + 2 * sizeof(merge_node)));
        if (!heap) { p->failed = 1; return; }
        tree = (merge_node *)heap;
        leaf = tree + K;
        cur = (size_t *)(leaf + K);
        end = cur + K;
    }
    const int type = (int)p->type, desc = p->desc;
    size_t total = 0;
    for (uint32_t s = 0; s < K; s++) {
        int live = s < p->nruns;
        cur[s] = live ? p->lo[s] : 0;
        end[s] = live ? p->hi[s] : 0;
        total += end[s] - cur[s];
        leaf[s] = cur[s] < end[s]
                      ? (merge_node){key_at(type, desc, ks, p->runs[s].keys, cur[s]), s}
                      : (merge_node){UINT64_MAX, s + K};
    }
    merge_node w = build(tree, leaf, K, 1);
    char *ko = p->keys_out, *vo = p->values_out;
    for (size_t i = 0; i < total; i++) {
        uint32_t run = w.tie;           /* the winner is live: tie = its run */
        const gpusort__dist_run *r = &p->runs[run];
        size_t c = cur[run]++;
        copy_elem(ko, i, r->keys, c, ks);
        if (vs) copy_elem(vo, i, r->values, c, vs);
        w = c + 1 < end[run] ? (merge_node){key_at(type, desc, ks, r->keys, c + 1), run}
                             : (merge_node){UINT64_MAX, run + K};
        for (uint32_t node = (run + K) / 2; node >= 1; node /= 2) {
            merge_node l = tree[node];
            int lw = node_before(l.key, l.tie, w.key, w.tie);
            tree[node] = lw ? w : l;    /* the loser stays, the winner goes on */
            w = lw ? l : w;
        }
    }
    free(heap);
}

static void merge_piece_run(merge_piece *p)
{
    if (p->ksize == 4 && p->vsize == 0) merge_piece_sized(p, 4, 0);
    else if (p->ksize == 4 && p->vsize == 4) merge_piece_sized(p, 4, 4);
    else if (p->ksize == 4) merge_piece_sized(p, 4, 8);
    else if (p->vsize == 0) merge_piece_sized(p, 8, 0);
    else if (p->vsize == 4) merge_piece_sized(p, 8, 4);
    else merge_piece_sized(p, 8, 8);
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
    uint64_t *pos = (uint64_t *)malloc(((T + 1) + GPUSORT_DIST_SELECT_WORK(T + 1)) * sizeof *pos);
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
