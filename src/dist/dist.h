/*
 * dist.h -- INTERNAL: the transport-neutral steps of the distributed sort (gpusort_mpi.h), so
 * that the MPI transport (src/mpi/) and a later NCCL one (several GPUs of one host) share them.
 *
 * A distributed sort over P participants, each holding n_p keys, runs:
 *   1. local sort          each participant sorts its keys (a gpusort context; not here)
 *   2. partition           gpusort__dist_select: for every output boundary (a global position
 *                          in the sorted sequence), how many keys of each sorted run lie before
 *                          it -- EXACT counts, ties broken by (key, participant, position)
 *   3. exchange plan       gpusort__dist_plan: the send and receive counts and offsets per peer
 *                          from the splits (the transport moves the bytes)
 *   4. merge               gpusort__dist_merge: a stable k-way merge of the received runs
 *                          (in rank order, so ties keep (rank, position) order)
 * Keys are ordered by their radix key (src/keys.h): one unsigned compare is the gpusort order,
 * descending included (the complement), so every function here takes (type, desc).
 *
 * The selection talks to the other participants only through gpusort__dist_comm: a sum of a
 * u64 vector over all participants and an exclusive prefix sum in participant order. With a
 * NULL comm it runs over local runs only (the merge uses it that way to cut its work into
 * equal pieces for its threads).
 *
 * Names start with gpusort__dist_ (internal, not exported, may change without notice).
 */
#ifndef GPUSORT_DIST_H
#define GPUSORT_DIST_H

#include "gpusort.h"

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The collective operations the selection needs. Each returns 0 on success, non-zero on a
 * transport failure (then every participant's call fails too: they are collective). */
typedef struct gpusort__dist_comm {
    void *arg;
    /* v[0..len) := the element-wise sum of v over all participants. */
    int (*sum)(void *arg, uint64_t *v, size_t len);
    /* v[0..len) := the element-wise sum of v over the participants before this one (0 on the
     * first). */
    int (*exscan)(void *arg, uint64_t *v, size_t len);
} gpusort__dist_comm;

/* The scratch gpusort__dist_select needs, in u64, for npos positions. */
#define GPUSORT_DIST_SELECT_WORK(npos) (48 * (size_t)(npos))

/* cnt[i] := the number of keys of a sorted run whose radix key is < v[i] (<= v[i] when
 * or_equal), for i < m. Returns 0, or non-zero when it failed. */
typedef int (*gpusort__dist_count_fn)(void *arg, const uint64_t *v, size_t m, int or_equal,
                                      uint64_t *cnt);

/* One sorted run of keys (of the type given beside it), with optional values. */
typedef struct gpusort__dist_run {
    const void *keys;
    const void *values;     /* NULL when keys only */
    size_t n;
    /* How the selection counts keys below a value in this run: NULL = binary searches of
     * `keys` in host memory; else this function (a run in device memory: one kernel answers
     * all of a round's values, src/multi.c) with count_arg. */
    gpusort__dist_count_fn count;
    void *count_arg;
} gpusort__dist_run;

/* The radix key of keys[i] (widened to 64 bits). */
uint64_t gpusort__dist_key(gpusort_type type, int desc, const void *keys, size_t i);

/* Exact multi-sequence selection. runs[0..nruns) are this participant's sorted runs; globally
 * the runs are ordered by (participant, run index), and the sequence they form, sorted stably
 * by radix key, is S. For each b < npos, split[b * nruns + r] receives the number of elements
 * of runs[r] among S[0 .. pos[b]) (pos[b] >= |S| gives n of every run). pos[] need not be
 * sorted. Collective when comm != NULL: every participant passes the same npos and pos[].
 * Cost: (key bits / 4 + 2) collectives of up to 15 * npos u64, and 15 * npos * nruns * log2(n)
 * key reads per collective (partition.c). work: GPUSORT_DIST_SELECT_WORK(npos) u64 of
 * scratch, allocated by the caller before the collective
 * step (so that no participant can fail alone inside it). Each run is asked (its count, or
 * the host search) for all of a round's values at once: bits/4 + 2 times per call. Returns
 * GPUSORT_STATUS_SUCCESS, or DEVICE_ERROR when the transport or a run's count failed. */
gpusort_status gpusort__dist_select(gpusort_type type, int desc, const gpusort__dist_run *runs,
                                    size_t nruns, const uint64_t *pos, size_t npos,
                                    const gpusort__dist_comm *comm, size_t *split,
                                    uint64_t *work);

/* The exchange plan (plan.c). counts[p] = n_p, every participant's input count, which is
 * also its output count: participant d receives the global positions [pos[d], pos[d+1]).
 * gpusort__dist_bounds fills pos[0..P] with the prefix sums of counts (pos[P] = N).
 * gpusort__dist_plan turns this participant's splits at those P + 1 positions (from
 * gpusort__dist_select) into the slice of its sorted run that goes to each d: send_off[d],
 * send_cnt[d] elements. What each participant receives from each peer is the peer's send_cnt
 * for it, which the transport learns with one all-to-all of counts. */
void gpusort__dist_bounds(int P, const size_t *counts, uint64_t *pos);
void gpusort__dist_plan(int P, const size_t *split, size_t *send_off, size_t *send_cnt);

/* Stable k-way merge of runs[0..nruns) (keys of `type`, values of vsize bytes or 0) into
 * keys_out / values_out (n = the sum of the run lengths; values_out may be NULL when vsize is
 * 0). Ties go to the lower run. Uses up to `threads` threads, each merging an equal share of
 * the output cut by gpusort__dist_select. Returns SUCCESS or OUT_OF_HOST_MEMORY. */
gpusort_status gpusort__dist_merge(gpusort_type type, int desc, size_t vsize,
                                   const gpusort__dist_run *runs, size_t nruns, void *keys_out,
                                   void *values_out, int threads);

#ifdef __cplusplus
}
#endif
#endif /* GPUSORT_DIST_H */
