/*
 * partition.c -- exact splitting of sorted runs at global positions (dist.h):
 * gpusort__dist_select, the partition step of the distributed sort, and gpusort__dist_key.
 *
 * The problem. P participants each hold sorted runs; the output layout is fixed (participant d
 * gets back as many keys as it passed in), so the exchange needs, for every boundary position
 * G of the global sorted order, how many keys of each run come before G. Sampled splitters
 * (sample sort, HykSort) only approximate this and a second pass fixes the counts; here the
 * counts are exact from the start.
 *
 * The method: a bitwise search for the key at position G, then a tie split.
 *   1. v = the radix key of the element at global position G, found one 4-bit digit at a time
 *      from the top: v starts at 0; for the digit at `shift`, the 15 candidates
 *      c_d = v + d * 2^shift (d = 1..15) are counted -- the number of keys < c_d over all runs,
 *      a binary search per run, summed over participants by ONE collective for all of them --
 *      and v takes the largest d with count(< c_d) <= G. After bits/4 rounds, v is the largest
 *      value with count(< v) <= G, which is the key at position G. All boundaries search
 *      together. This is a distributed radix select over the top bits (RMG sort, Ilic,
 *      Tolovski and Rabl 2023, build 8-bit histograms of unsorted data per round; on sorted
 *      runs a count is a binary search, so a digit costs 15 u64 per boundary, not 256 bins).
 *   2. Ties: L = count(< v) globally; G - L more keys equal to v belong before G, taken in
 *      (participant, run) order -- run r takes min(eq_r, max(0, G - L - before_r)) where
 *      before_r counts the keys equal to v in the runs before it (an exclusive scan). So the
 *      order is (key, participant, position): all-equal or few-unique keys split evenly.
 * Example, two participants, G = 3: runs A = [1 2 2] and B = [2 2 5]. The digits find v = 2
 * (count(< 2) = 1 <= 3, count(< 3) = 5 > 3); L = 1, eq_A = 2, eq_B = 2, G - L = 2: A takes
 * both of its 2s (split 3), B takes none (split 0).
 *
 * Cost per call: bits/4 + 2 collectives (10 for 32-bit keys, 18 for 64-bit), of 15 * npos
 * u64 (the last two of npos); locally 15 * npos * nruns binary searches per round, asked of
 * each run in one batch (a device run answers a round with one kernel: src/multi.c).
 */
#include "dist.h"

#include "keys.h"

#include <string.h>

/* Key bits decided per collective round: 2^4 - 1 = 15 candidate counts per boundary per
 * round, 8 rounds for 32-bit keys and 16 for 64-bit (one bit a round would take 32 / 64
 * latency-bound rounds; 8 bits would send 255 counts per boundary, 2 MB a round at 1024
 * ranks). */
#define SELECT_BITS 4
#define SELECT_CANDIDATES (1u << SELECT_BITS)

uint64_t gpusort__dist_key(gpusort_type type, int desc, const void *keys, size_t i)
{
    if (gpusort_type_size(type) == 4) {
        uint32_t b;
        memcpy(&b, (const char *)keys + i * 4, 4);
        return gpusort__radix32(b, (int)type, desc);
    }
    uint64_t b;
    memcpy(&b, (const char *)keys + i * 8, 8);
    return gpusort__radix64(b, (int)type, desc);
}

/* The number of keys of the run whose radix key is < v (or <= v with `or_equal`). */
static size_t run_count(gpusort_type type, int desc, const gpusort__dist_run *run, uint64_t v,
                        int or_equal)
{
    size_t lo = 0, hi = run->n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        uint64_t k = gpusort__dist_key(type, desc, run->keys, mid);
        if (k < v || (or_equal && k == v)) lo = mid + 1;
        else hi = mid;
    }
    return lo;
}

/* cnt[i] = run_count(v[i]) for i < m: the run's own count (device runs), else host searches. */
static int run_counts(gpusort_type type, int desc, const gpusort__dist_run *run,
                      const uint64_t *v, size_t m, int or_equal, uint64_t *cnt)
{
    if (run->n == 0) {
        memset(cnt, 0, m * sizeof *cnt);
        return 0;
    }
    if (run->count) return run->count(run->count_arg, v, m, or_equal, cnt);
    for (size_t i = 0; i < m; i++) cnt[i] = run_count(type, desc, run, v[i], or_equal);
    return 0;
}

gpusort_status gpusort__dist_select(gpusort_type type, int desc, const gpusort__dist_run *runs,
                                    size_t nruns, const uint64_t *pos, size_t npos,
                                    const gpusort__dist_comm *comm, size_t *split,
                                    uint64_t *work)
{
    if (npos == 0) return GPUSORT_STATUS_SUCCESS;
    const size_t nc = npos * (SELECT_CANDIDATES - 1);   /* candidates per round */
    int bits = (int)gpusort_type_size(type) * 8;
    /* work: v[npos] | c[nc] (summed counts) | cand[nc] then one run's counts | cnt | eq */
    uint64_t *v = work, *c = v + npos, *cand = c + nc, *one = cand + nc, *cnt = one + nc,
             *eq = cnt + npos;
    memset(v, 0, npos * sizeof *v);

    /* 1. The key at each position, SELECT_BITS bits at a time from the top: the candidates
     * v + d * 2^shift for d = 1 .. 2^SELECT_BITS - 1, counted in one collective. count(< c)
     * grows with d, so the digit is the largest d whose count is still <= pos. v has no bits
     * below shift + SELECT_BITS, so no candidate passes the key range's top. */
    for (int shift = bits - SELECT_BITS; shift >= 0; shift -= SELECT_BITS) {
        for (size_t b = 0; b < npos; b++)
            for (uint64_t d = 1; d < SELECT_CANDIDATES; d++)
                cand[b * (SELECT_CANDIDATES - 1) + d - 1] = v[b] + (d << shift);
        memset(c, 0, nc * sizeof *c);
        for (size_t r = 0; r < nruns; r++) {
            if (run_counts(type, desc, &runs[r], cand, nc, 0, one))
                return GPUSORT_STATUS_DEVICE_ERROR;
            for (size_t i = 0; i < nc; i++) c[i] += one[i];
        }
        if (comm && comm->sum(comm->arg, c, nc)) return GPUSORT_STATUS_DEVICE_ERROR;
        for (size_t b = 0; b < npos; b++) {
            uint64_t digit = 0;
            for (uint64_t d = 1; d < SELECT_CANDIDATES; d++)
                if (c[b * (SELECT_CANDIDATES - 1) + d - 1] <= pos[b]) digit = d;
            v[b] += digit << shift;
        }
    }

    /* 2. Below v everything goes before the position; the keys equal to v are shared out in
     * (participant, run) order. split holds count(< v) per run meanwhile; cnt the global L,
     * eq the keys equal to v (then, after the scan, those of the participants before). The
     * per-run counts <= v are kept in cand (npos * nruns would not fit; they are asked again
     * in the last loop). */
    memset(cnt, 0, npos * sizeof *cnt);
    memset(eq, 0, npos * sizeof *eq);
    for (size_t r = 0; r < nruns; r++) {
        if (run_counts(type, desc, &runs[r], v, npos, 0, one) ||
            run_counts(type, desc, &runs[r], v, npos, 1, cand))
            return GPUSORT_STATUS_DEVICE_ERROR;
        for (size_t b = 0; b < npos; b++) {
            split[b * nruns + r] = (size_t)one[b];
            cnt[b] += one[b];
            eq[b] += cand[b] - one[b];
        }
    }
    if (comm && (comm->sum(comm->arg, cnt, npos) || comm->exscan(comm->arg, eq, npos)))
        return GPUSORT_STATUS_DEVICE_ERROR;
    /* need[b] (keys equal to v before the position) into c, before[b] into eq */
    for (size_t b = 0; b < npos; b++) {
        c[b] = pos[b] > cnt[b] ? pos[b] - cnt[b] : 0;
        if (!comm) eq[b] = 0;
    }
    for (size_t r = 0; r < nruns; r++) {
        if (run_counts(type, desc, &runs[r], v, npos, 1, cand)) return GPUSORT_STATUS_DEVICE_ERROR;
        for (size_t b = 0; b < npos; b++) {
            size_t less = split[b * nruns + r];
            uint64_t e = cand[b] - less;
            uint64_t take = c[b] > eq[b] ? c[b] - eq[b] : 0;
            if (take > e) take = e;
            split[b * nruns + r] = less + (size_t)take;
            eq[b] += e;
        }
    }
    return GPUSORT_STATUS_SUCCESS;
}
