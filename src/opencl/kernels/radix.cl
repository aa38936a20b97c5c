/*
 * radix.cl -- LSD radix sort kernels: 8-bit digits, reduce-then-scan passes, warp-level
 * stable ranking in local memory.
 *
 * Built (after keys.cl) with -DGS_KEY_BITS=32|64 (the raw key word) and -DGS_VAL_BYTES=0|4|8
 * (no values, u32 or u64 values). The host (src/opencl/radix.c) splits the keys into tiles of
 * TILE keys and the tiles into G contiguous runs of `tiles_per_group` tiles, one run per
 * work-group (G is about the number of work-groups the device holds at once). For each 8-bit
 * digit, from the least significant one up (4 passes for 32-bit keys, 8 for 64-bit), it runs:
 *
 *   radix_upsweep    G work-groups: group g counts the digits of its run of keys
 *                    -> counts[d * G + g]                                   (digit-major)
 *   radix_scan       256 work-groups: group d scans counts[d * G ..+ G) -> prefix[d * G + g]
 *                    (keys of digit d in the runs before g) and totals[d] (all keys of digit d);
 *                    radix_scan_small does the same in one work-group when G <= 16
 *   radix_downsweep  G work-groups: group g starts with run[d] = (keys of digits < d) +
 *                    prefix[d * G + g] and walks its tiles in order: rank the tile stably by
 *                    digit in local memory, write each key to run[d] + (its rank among the
 *                    tile's keys of digit d), then run[d] += the tile's count of digit d.
 *
 * This is the reduce-then-scan structure of Merrill and Grimshaw, "High Performance and
 * Scalable Radix Sorting" (Parallel Processing Letters, 2011): the per-group digit counts are
 * all the scan needs (G * 256 numbers, not one set per tile), and a work-group carries its
 * digits' running offsets from tile to tile in registers. Stability: tiles are ranked stably,
 * a group's tiles are handled in order, and groups take their offsets in group order, so equal
 * digits keep their input order in every pass; LSD over stable passes sorts.
 *
 * RANKING A TILE (radix_downsweep). The work-group's 8 warps of 32 work-items each own a
 * contiguous 1/8 of the tile, "warp-striped": item j of lane l of warp w is tile position
 * w * 32 * ITEMS + j * 32 + l, so (warp, item, lane) order is input order and the global loads
 * are coalesced. Each warp has its own 256 digit counters in local memory. For item j, the
 * lanes holding the same digit find each other (the mask of lanes with an equal digit, from 8
 * ballots); the lowest of them adds the group's size to its warp's counter of that digit (one
 * local atomic per distinct digit) and shuffles the old count to the others; a key's rank is
 * that old count + the number of its peers in lower lanes. Then thread d turns the 8 warps'
 * counters of digit d into positions: the tile's exclusive prefix over digits (a work-group
 * scan) + the counts of digit d in the warps before. A key goes to position (its warp's
 * position of its digit) + its rank: the tile is then sorted by digit, ties in input order.
 * This is the warp-level multisplit of Ashkiani et al., "GPU Multisplit" (PPoPP 2016), as
 * CUB's BlockRadixRankMatch does it (Adinets and Merrill, "Onesweep", 2022).
 * Worked example (warp of 4 lanes, one item, digits [5 2 5 5], counters of 5 and 2 at 0):
 * peers of lanes 0/2/3 = 1101b, lane 0 adds 3 to counter 5 (old 0); ranks 0, 1, 2 for lanes
 * 0, 2, 3; lane 1 alone adds 1 to counter 2 (rank 0).
 * The sorted tile is written out in striped order (position p = j * 256 + thread): the key at
 * p with digit d goes to global position (run[d] - first tile position of d) + p, so
 * consecutive work-items write consecutive addresses within each digit's run.
 *
 * WARP OPERATIONS. On NVIDIA's OpenCL (the compiler defines __NV_CL_C_VERSION) ballots and
 * shuffles are one PTX instruction each (inline asm, sm_70 and later: the .sync forms, every
 * lane of the warp taking part, which holds: all work-items run these steps together).
 * Elsewhere (PoCL, other vendors: OpenCL 1.2 has no sub-groups) the first work-item of each
 * warp computes the same ranks serially (its warp's 32 * ITEMS keys in input order, rank =
 * the warp's count of the digit so far) and the warp scans likewise: cheap on a CPU, where the
 * work-items of a group run one after another anyway; slow on other GPUs (sub-group ranking
 * where cl_khr_subgroups exists would be the next step there). The ranks are the same by
 * definition; the NVIDIA lines are checked by the tests on the GPU.
 *
 * The raw key bits are moved; the radix key (keys.cl) is recomputed from them when a digit is
 * needed, so -0.0 and NaN payloads survive. The last tile is padded with digit-255 items after
 * every real key; they rank last in the tile and are never written.
 *
 * Limits: positions are uint; the host keeps n <= 0xFFFF0000 (opencl_internal.h) and
 * G <= RADIX_MAX_GROUPS.
 */

/* Every loop over a work-item's keys is unrolled (#pragma unroll): its arrays then live in
 * registers. NVIDIA's compiler takes the pragma as the cl_nv_pragma_unroll extension. */
#ifdef cl_nv_pragma_unroll
#pragma OPENCL EXTENSION cl_nv_pragma_unroll : enable
#endif

/* Work-items per work-group; 256 = one digit per work-item in the per-digit steps. */
#define WG 256
#define WARP 32
#define WARPS (WG / WARP)
#define DIGITS 256
/* Keys per work-item in the downsweep: 16 when a key and its value take at most 8 bytes,
 * else 8, so the tile (TILE * (K + V) bytes) + 8 KiB of warp counters + 2 KiB stay under
 * 48 KiB of local memory (the static limit of NVIDIA's OpenCL): u64 keys or u32 pairs 4096 *
 * 8 + 10 KiB = 42 KiB; u64 + u64 2048 * 16 + 10 KiB = 42 KiB. Must match radix.c. */
#if GS_KEY_BITS / 8 + GS_VAL_BYTES <= 8
#define ITEMS 16
#else
#define ITEMS 8
#endif
#define TILE (WG * ITEMS)
/* Keys loaded per work-item per step of the upsweep: enough loads in flight to cover the
 * memory latency with one work-group per compute unit slot. */
#define UP_UNROLL 8
/* Most work-groups per pass (radix_scan gives each work-item 4 of a digit's counts). */
#define RADIX_MAX_GROUPS (4 * WG)

#if GS_VAL_BYTES == 4
typedef uint gs_val;
#elif GS_VAL_BYTES == 8
typedef ulong gs_val;
#endif

#define WG_ATTR __attribute__((reqd_work_group_size(WG, 1, 1)))

/* ---- warp level: lanes, inclusive scan; on NVIDIA also ballots, shuffles ----
 * Every work-item of the work-group must call these together (they may hold barriers).
 * `xs` is WG words of local scratch (unused on NVIDIA). */
uint gs_lane(void) { return get_local_id(0) & (WARP - 1); }

/* Lanes below this one. */
uint gs_lanemask_lt(void) { return (1u << gs_lane()) - 1u; }

#ifdef __NV_CL_C_VERSION
#define GS_NATIVE_WARP 1

/* Lanes of this warp whose bit is set (vote.ballot). */
uint gs_ballot(uint bit)
{
    uint m;
    asm volatile("{ .reg .pred p; setp.ne.u32 p, %1, 0; vote.sync.ballot.b32 %0, p, 0xffffffff; }"
                 : "=r"(m) : "r"(bit));
    return m;
}

/* Lanes of this warp whose 8-bit digit equals this lane's: AND over the digit's bits of the
 * ballot of the lanes that share that bit. (match.any.sync does it in one instruction, but its
 * throughput on sm_90 is far lower when the 32 lanes hold many distinct values; CUB's onesweep
 * and our CUDA backend avoid it too.) */
uint gs_match_digit(uint d)
{
    uint peers = 0xffffffffu;
#pragma unroll
    for (uint b = 0; b < 8; b++) {
        uint set = (d >> b) & 1u;
        uint m = gs_ballot(set);
        peers &= set ? m : ~m;
    }
    return peers;
}

/* x of lane `src` of this warp. */
uint gs_shfl(uint x, uint src)
{
    uint y;
    asm volatile("shfl.sync.idx.b32 %0, %1, %2, 0x1f, 0xffffffff;" : "=r"(y) : "r"(x), "r"(src));
    return y;
}

/* Inclusive prefix sum of x over the warp's lanes (Kogge-Stone with shfl.up). */
uint gs_warp_scan(uint x, local uint *xs)
{
    uint lane = gs_lane();
    #pragma unroll
    for (uint off = 1; off < WARP; off <<= 1) {
        uint y;
        asm volatile("shfl.sync.up.b32 %0, %1, %2, 0x0, 0xffffffff;" : "=r"(y) : "r"(x), "r"(off));
        if (lane >= off) x += y;
    }
    return x;
}

#else /* no warp instructions: serial steps by the first work-item of each warp */

/* Inclusive prefix sum of x over the 32 work-items of this warp: the warp's first work-item
 * adds them up in local memory (3 barriers; on a CPU the serial loop is the cheap part). */
uint gs_warp_scan(uint x, local uint *xs)
{
    uint lid = get_local_id(0);
    xs[lid] = x;
    barrier(CLK_LOCAL_MEM_FENCE);
    if (gs_lane() == 0)
        for (uint l = 1; l < WARP; l++) xs[lid + l] += xs[lid + l - 1];
    barrier(CLK_LOCAL_MEM_FENCE);
    x = xs[lid];
    barrier(CLK_LOCAL_MEM_FENCE);
    return x;
}
#endif

/* ---- work-group level ---- */

/* Exclusive prefix sum of x over the work-group (warp scans, then the 8 warp totals);
 * *total gets the sum of all x. wsum: WARPS words of local memory. */
uint gs_group_scan(uint x, local uint *wsum, local uint *xs, uint *total)
{
    uint lid = get_local_id(0), w = lid / WARP;
    uint inc = gs_warp_scan(x, xs);
    if (gs_lane() == WARP - 1) wsum[w] = inc;
    barrier(CLK_LOCAL_MEM_FENCE);
    uint before = 0, all = 0;
    #pragma unroll
    for (uint q = 0; q < WARPS; q++) {
        uint s = wsum[q];
        before += q < w ? s : 0u;
        all += s;
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    *total = all;
    return before + inc - x;
}

uint gs_digit(gs_key k, int type, int desc, uint shift)
{
    return (uint)(GS_RADIX(k, type, desc) >> shift) & (DIGITS - 1);
}

/* Run-length digit counting: the work-item's current run is *cnt keys of digit *cur; a key of
 * another digit ends it, and the run goes to the warp's table h in one local atomic (one per
 * run, not per key: few atomics on sorted or constant data). The caller adds the last run. */
void gs_count_run(local uint *h, uint d, uint *cur, uint *cnt)
{
    if (d == *cur) {
        *cnt += 1u;
    } else {
        if (*cnt) atomic_add(&h[*cur], *cnt);
        *cur = d;
        *cnt = 1u;
    }
}

/* ---- kernels ---- */

/* counts[d * G + g] = keys of digit d among keys [g * tiles_per_group * TILE, ...) of group g.
 * Counting in per-warp tables, by runs of equal digits per work-item (gs_count_run). */
kernel WG_ATTR void radix_upsweep(global const gs_key *keys, uint n, int type, int desc,
                                  uint shift, uint num_tiles, uint tiles_per_group,
                                  global uint *counts)
{
    local uint hist[WARPS * DIGITS];
    uint lid = get_local_id(0), g = get_group_id(0), G = get_num_groups(0);
    for (uint q = lid; q < WARPS * DIGITS; q += WG) hist[q] = 0u;
    barrier(CLK_LOCAL_MEM_FENCE);
    local uint *h = hist + (lid / WARP) * DIGITS;
    uint t_lo = g * tiles_per_group, t_hi = min(t_lo + tiles_per_group, num_tiles);
    uint lo = t_lo * TILE, hi = min(t_hi * TILE, n);
    uint cur = 0u, cnt = 0u;
    uint i = lo + lid;
    for (; i + (UP_UNROLL - 1) * WG < hi; i += UP_UNROLL * WG) {
        gs_key k[UP_UNROLL];
        #pragma unroll
        for (uint u = 0; u < UP_UNROLL; u++) k[u] = keys[i + u * WG];
        #pragma unroll
        for (uint u = 0; u < UP_UNROLL; u++)
            gs_count_run(h, gs_digit(k[u], type, desc, shift), &cur, &cnt);
    }
    for (; i < hi; i += WG) gs_count_run(h, gs_digit(keys[i], type, desc, shift), &cur, &cnt);
    if (cnt) atomic_add(&h[cur], cnt);
    barrier(CLK_LOCAL_MEM_FENCE);
    uint s = 0u;
    #pragma unroll
    for (uint w = 0; w < WARPS; w++) s += hist[w * DIGITS + lid];
    counts[lid * G + g] = s;
}

/* Work-group d: prefix[d * G + g] = sum of counts[d * G + g'] for g' < g; totals[d] = all of
 * them. G <= RADIX_MAX_GROUPS: each work-item takes 4 consecutive counts. */
kernel WG_ATTR void radix_scan(global const uint *counts, uint G, global uint *prefix,
                               global uint *totals)
{
    local uint wsum[WARPS];
    local uint xs[WG];
    uint lid = get_local_id(0), d = get_group_id(0);
    global const uint *col = counts + (size_t)d * G;
    uint c[4], s = 0u;
    #pragma unroll
    for (uint q = 0; q < 4; q++) {
        uint i = 4 * lid + q;
        c[q] = i < G ? col[i] : 0u;
        s += c[q];
    }
    uint total;
    uint run = gs_group_scan(s, wsum, xs, &total);
    #pragma unroll
    for (uint q = 0; q < 4; q++) {
        uint i = 4 * lid + q;
        if (i < G) prefix[(size_t)d * G + i] = run;
        run += c[q];
    }
    if (lid == 0) totals[d] = total;
}

/* The same for G <= SMALL_SCAN_GROUPS (small sorts; CPU devices): one work-group, work-item d
 * walks digit d's G counts. (On PoCL a launch of 256 work-groups costs about 2 ms, more than
 * the rest of a small sort's pass.) */
kernel WG_ATTR void radix_scan_small(global const uint *counts, uint G, global uint *prefix,
                                     global uint *totals)
{
    uint d = get_local_id(0), run = 0u;
    for (uint g = 0; g < G; g++) {
        uint c = counts[d * G + g];
        prefix[d * G + g] = run;
        run += c;
    }
    totals[d] = run;
}

/* PREFETCH: each tile's loop first issues the loads of the group's NEXT tile's keys, so that
 * their latency hides behind this tile's ranking and scatter instead of stalling the next
 * ranking (the downsweep measured 4x slower than its memory traffic). For 32-bit keys only:
 * a second set of ITEMS keys in registers is affordable there. */
#if GS_KEY_BITS == 32
#define PREFETCH 1
#else
#define PREFETCH 0
#endif

/* k[j] = key at tile position pbase + 32 j of tile t (0 past the end), warp-striped: each
 * warp reads 32 consecutive keys per j (coalesced). */
void gs_load_keys(gs_key *k, global const gs_key *keys, uint n, uint t, uint pbase)
{
    uint start = t * TILE, valid = min(n - start, (uint)TILE);
    #pragma unroll
    for (uint j = 0; j < ITEMS; j++) {
        uint p = pbase + j * WARP;
        k[j] = p < valid ? keys[start + p] : (gs_key)0;
    }
}

/* One pass: stable scatter of the keys (and values) by the digit at `shift`, group g over its
 * run of tiles. gen_index != 0 (argsort, first pass): the values are the input positions,
 * vals_in unused. */
kernel WG_ATTR void radix_downsweep(global const gs_key *keys_in, global gs_key *keys_out,
#if GS_VAL_BYTES
                                    global const gs_val *vals_in, global gs_val *vals_out,
                                    int gen_index,
#endif
                                    uint n, int type, int desc, uint shift, uint num_tiles,
                                    uint tiles_per_group, global const uint *prefix,
                                    global const uint *totals)
{
    local gs_key lk[TILE];
#if GS_VAL_BYTES
    local gs_val lv[TILE];
#endif
    /* Per-warp digit counters; after the per-digit step, each warp's first position of d. */
    local uint whist[WARPS * DIGITS];
    /* Global position of the tile's first key of digit d, minus d's first tile position. */
    local uint gbase[DIGITS];
    local uint wsum[WARPS];
    local uint xs[WG];

    uint lid = get_local_id(0), g = get_group_id(0), G = get_num_groups(0);
    uint w = lid / WARP, lane = gs_lane();
    local uint *h = whist + w * DIGITS;

    /* Work-item lid owns digit lid: where this group's next key of that digit goes. */
    uint total;
    uint run = gs_group_scan(totals[lid], wsum, xs, &total) + prefix[(size_t)lid * G + g];

    uint t_lo = g * tiles_per_group, t_hi = min(t_lo + tiles_per_group, num_tiles);
    uint pbase = w * (WARP * ITEMS) + lane;
    gs_key k[ITEMS];
#if PREFETCH
    if (t_lo < t_hi) gs_load_keys(k, keys_in, n, t_lo, pbase);
#endif
    for (uint t = t_lo; t < t_hi; t++) {
        uint start = t * TILE;
        uint valid = min(n - start, (uint)TILE);
        for (uint q = lid; q < WARPS * DIGITS; q += WG) whist[q] = 0u;

        /* Warp-striped coalesced loads into registers. */
#if PREFETCH
        gs_key kn[ITEMS];
        if (t + 1 < t_hi) gs_load_keys(kn, keys_in, n, t + 1, pbase);
#else
        gs_load_keys(k, keys_in, n, t, pbase);
#endif
#if GS_VAL_BYTES
        gs_val v[ITEMS];
        #pragma unroll
        for (uint j = 0; j < ITEMS; j++) {
            uint p = pbase + j * WARP;
            v[j] = p < valid ? (gen_index ? (gs_val)(start + p) : vals_in[start + p]) : (gs_val)0;
        }
#endif
        barrier(CLK_LOCAL_MEM_FENCE);

        /* Rank within the warp: dr[j] = digit << 16 | rank (rank < TILE <= 2^16). */
        uint dr[ITEMS];
#ifdef GS_NATIVE_WARP
        /* Two loops, so that no item waits for the last one's atomic: the first issues every
         * item's ballots and leader atomic (dr[j] = digit << 16 | below << 8 | leader lane),
         * the second hands the old counts to the peers. */
        uint lt = gs_lanemask_lt();
        uint old[ITEMS];
        #pragma unroll
        for (uint j = 0; j < ITEMS; j++) {
            uint p = pbase + j * WARP;
            uint d = p < valid ? gs_digit(k[j], type, desc, shift) : DIGITS - 1;
            uint peers = gs_match_digit(d);
            uint below = popcount(peers & lt);
            old[j] = 0u;
            if (below == 0) old[j] = atomic_add(&h[d], popcount(peers));
            dr[j] = d << 16 | below << 8 | (31u - clz(peers & (0u - peers)));
        }
        #pragma unroll
        for (uint j = 0; j < ITEMS; j++) {
            uint o = gs_shfl(old[j], dr[j] & (WARP - 1));
            dr[j] = (dr[j] >> 16) << 16 | (o + ((dr[j] >> 8) & 0xffu));
        }
#else
        /* The same ranks, serially: the warp's first work-item walks the warp's part of the
         * tile in input order, rank = its warp's count of the digit so far. The tile's key
         * buffer is free until the scatter below and holds the digits, then the ranks. */
        {
            local ushort *rk = (local ushort *)lk;
            #pragma unroll
            for (uint j = 0; j < ITEMS; j++) {
                uint p = pbase + j * WARP;
                dr[j] = p < valid ? gs_digit(k[j], type, desc, shift) : DIGITS - 1;
                rk[p] = (ushort)dr[j];
            }
            barrier(CLK_LOCAL_MEM_FENCE);
            if (lane == 0) {
                for (uint p = w * WARP * ITEMS; p < (w + 1) * WARP * ITEMS; p++) {
                    uint d = rk[p];
                    rk[p] = (ushort)h[d];
                    h[d] = h[d] + 1u;
                }
            }
            barrier(CLK_LOCAL_MEM_FENCE);
            #pragma unroll
            for (uint j = 0; j < ITEMS; j++) dr[j] = dr[j] << 16 | rk[pbase + j * WARP];
        }
#endif
        barrier(CLK_LOCAL_MEM_FENCE);

        /* Per digit (work-item lid = digit): positions of the warps' keys of this digit. */
        {
            uint c[WARPS], s = 0u;
            #pragma unroll
            for (uint q = 0; q < WARPS; q++) {
                c[q] = whist[q * DIGITS + lid];
                s += c[q];
            }
            uint tile_total;
            uint first = gs_group_scan(s, wsum, xs, &tile_total);
            uint pos = first;
            #pragma unroll
            for (uint q = 0; q < WARPS; q++) {
                whist[q * DIGITS + lid] = pos;
                pos += c[q];
            }
            gbase[lid] = run - first;
            run += s;
        }
        barrier(CLK_LOCAL_MEM_FENCE);

        /* Into local memory, sorted by digit. */
        #pragma unroll
        for (uint j = 0; j < ITEMS; j++) {
            uint pos = h[dr[j] >> 16] + (dr[j] & 0xffffu);
            lk[pos] = k[j];
#if GS_VAL_BYTES
            lv[pos] = v[j];
#endif
        }
        barrier(CLK_LOCAL_MEM_FENCE);

        /* Striped write-out: consecutive work-items, consecutive addresses within a digit. */
        #pragma unroll
        for (uint j = 0; j < ITEMS; j++) {
            uint p = j * WG + lid;
            if (p < valid) {
                gs_key key = lk[p];
                uint o = gbase[gs_digit(key, type, desc, shift)] + p;
                keys_out[o] = key;
#if GS_VAL_BYTES
                vals_out[o] = lv[p];
#endif
            }
        }
        /* No barrier needed here: the next tile writes gbase and lk only after the barrier
         * that follows its loads, which every work-item reaches after this write-out. */
#if PREFETCH
        if (t + 1 < t_hi) {
            #pragma unroll
            for (uint j = 0; j < ITEMS; j++) k[j] = kn[j];
        }
#endif
    }
}
