/*
 * plan.c -- the exchange plan of the distributed sort (dist.h): which slice of each
 * participant's sorted run goes to which participant.
 *
 * The output keeps the input's layout: participant d gets back as many keys as it passed in,
 * the global positions [pos[d], pos[d+1]) of the sorted sequence, pos = prefix sums of the
 * counts. Selecting those P + 1 positions in the sorted runs (partition.c) gives, for this
 * participant, P + 1 non-decreasing splits; the slice between split[d] and split[d+1] holds
 * exactly this participant's keys that land in d's range. Example, P = 3, counts 4 2 3:
 * pos = 0 4 6 9; a participant whose splits are 0 1 1 3 sends 1 key to participant 0,
 * none to 1 and 2 keys to 2.
 */
#include "dist.h"

void gpusort__dist_bounds(int P, const size_t *counts, uint64_t *pos)
{
    pos[0] = 0;
    for (int p = 0; p < P; p++) pos[p + 1] = pos[p] + counts[p];
}

void gpusort__dist_plan(int P, const size_t *split, size_t *send_off, size_t *send_cnt)
{
    for (int d = 0; d < P; d++) {
        send_off[d] = split[d];
        send_cnt[d] = split[d + 1] - split[d];
    }
}
