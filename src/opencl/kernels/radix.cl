/*
 * radix.cl -- LSD radix sort kernels, 8-bit digits, with local-memory ranking.
 *
 * Built (after keys.cl) with -DGS_KEY_BITS=32|64 (the raw key word) and -DGS_VAL_BYTES=0|4|8
 * (no values, u32 or u64 values). The host (src/opencl/radix.c) runs, for each 8-bit digit from
 * the least significant one up (4 passes for 32-bit keys, 8 for 64-bit):
 *
 *   radix_histogram  one work-group per tile of TILE keys: count the tile's digits (local
 *                    atomics) and write counts[digit * num_tiles + tile]  (digit-major)
 *   scan_reduce      \
 *   scan_spine        > exclusive prefix sum of counts -> offsets: offsets[d * num_tiles + t] is
 *   scan_down        /  where tile t's first key of digit d goes in the output
 *   radix_scatter    one work-group per tile: sort the tile stably by digit in local memory,
 *                    then write key (and value) at offsets[d, t] + (rank of the key among the
 *                    tile's keys of digit d)
 *
 * This is the "reduce, scan, scatter" structure of Satish, Harris and Garland, "Designing
 * efficient sorting algorithms for manycore GPUs" (IPDPS 2009), and of Merrill and Grimshaw's
 * radix sort. Stability: the tile is ranked stably (below) and tiles take their offsets in tile
 * order, so equal digits keep their input order in every pass; LSD over stable passes sorts.
 *
 * LOCAL RANKING (radix_scatter). The tile's keys are sorted by their 8-bit digit with two
 * stable counting rounds of 4 bits each (low nibble, then high nibble). One round: every
 * work-item holds ITEMS consecutive keys ("blocked": item j of thread t is tile position
 * t * ITEMS + j, so thread order is input order); it counts its keys per nibble in its own column
 * of a 16 x WG counter table (rank of a key = count before it in the same thread); an exclusive
 * scan of the table in (nibble, thread) order gives each (nibble, thread) its first position;
 * a key goes to counter + rank. Worked example, WG = 2, ITEMS = 2, nibbles of the tile
 * [3 1 | 1 3]: table (nibble 1: t0=1 t1=1; nibble 3: t0=1 t1=1) scans to (1: 0, 1; 3: 2, 3), so
 * t0's 3 -> 2, t0's 1 -> 0, t1's 1 -> 1, t1's 3 -> 3: [1 1 3 3], ties in input order.
 * After both rounds the tile is sorted by digit; the first position p of digit d in the tile is
 * where ld[p - 1] != d, so the key at tile position p goes to offsets[d, t] - first[d] + p.
 * Consecutive work-items then write consecutive addresses within a digit's run (coalesced).
 *
 * The raw key bits are moved; the radix key (keys.cl) is recomputed from them when a digit is
 * needed, so -0.0 and NaN payloads survive. The last tile is padded with digit 255 items placed
 * after every real key; they sort to the tile's end and are never written.
 *
 * Limits: positions are uint; the host keeps n <= 0xFFFF0000 (opencl_internal.h).
 */

/* 256 work-items = 256 digits: one histogram bin per work-item. Every kernel requires it. */
#define WG 256
/* Keys per work-item, -DGS_ITEMS from the host (GPUSORT_CL_RADIX_ITEMS): 16 when a key and its
 * value take at most 8 bytes, else 8, so the tile's local memory (TILE * (K + V + 1) bytes +
 * 8 KB counters + 2 KB) stays under 48 KB, the OpenCL/NVIDIA static limit: u64 keys + u64 values
 * use 2048 * 17 + 10 KB = 44 KB; u32 keys + u32 values 4096 * 9 + 10 KB = 46 KB. Larger tiles
 * mean fewer digit counts to scan and fewer barriers per key. */
#ifndef GS_ITEMS
#define GS_ITEMS 8
#endif
#define ITEMS GS_ITEMS
#define TILE (WG * ITEMS)
#define DIGITS 256
#define NIBBLES 16
/* Counts per work-item in the scan kernels: a scan tile of 4096 counts per work-group. */
#define SCAN_ITEMS 16
#define SCAN_TILE (WG * SCAN_ITEMS)

#if GS_VAL_BYTES == 4
typedef uint gs_val;
#elif GS_VAL_BYTES == 8
typedef ulong gs_val;
#endif

#define WG_ATTR __attribute__((reqd_work_group_size(WG, 1, 1)))

/* Exclusive prefix sum of x over the work-group (Hillis-Steele in local memory, buf holds WG
 * words); *total gets the sum of all x. Every work-item must call it. */
uint gs_scan_exclusive(uint x, local uint *buf, uint *total)
{
    uint lid = get_local_id(0);
    buf[lid] = x;
    barrier(CLK_LOCAL_MEM_FENCE);
    for (uint off = 1; off < WG; off <<= 1) {
        uint t = lid >= off ? buf[lid - off] : 0u;
        barrier(CLK_LOCAL_MEM_FENCE);
        buf[lid] += t;
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    uint inclusive = buf[lid];
    *total = buf[WG - 1];
    barrier(CLK_LOCAL_MEM_FENCE);
    return inclusive - x;
}

uint gs_digit(gs_key k, int type, int desc, uint shift)
{
    return (uint)(GS_RADIX(k, type, desc) >> shift) & (DIGITS - 1);
}

kernel WG_ATTR void radix_histogram(global const gs_key *keys, uint n, int type, int desc,
                                    uint shift, uint num_tiles, global uint *counts)
{
    local uint hist[DIGITS];
    uint lid = get_local_id(0), tile = get_group_id(0);
    hist[lid] = 0u;
    barrier(CLK_LOCAL_MEM_FENCE);
    uint start = tile * TILE;
    for (uint j = 0; j < ITEMS; j++) {
        uint i = start + j * WG + lid;
        if (i < n) atomic_inc(&hist[gs_digit(keys[i], type, desc, shift)]);
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    counts[lid * num_tiles + tile] = hist[lid];
}

/* sums[g] = sum of in[g * SCAN_TILE .. + SCAN_TILE) (clipped to m). */
kernel WG_ATTR void scan_reduce(global const uint *in, uint m, global uint *sums)
{
    local uint buf[WG];
    uint lid = get_local_id(0), base = get_group_id(0) * SCAN_TILE;
    uint s = 0u;
    for (uint j = 0; j < SCAN_ITEMS; j++) {
        uint i = base + j * WG + lid;
        if (i < m) s += in[i];
    }
    uint total;
    gs_scan_exclusive(s, buf, &total);
    if (lid == 0) sums[get_group_id(0)] = total;
}

/* One work-group: exclusive prefix sum of sums[0 .. g) in place. */
kernel WG_ATTR void scan_spine(global uint *sums, uint g)
{
    local uint buf[WG];
    uint lid = get_local_id(0);
    uint chunk = (g + WG - 1) / WG;
    uint lo = min(lid * chunk, g), hi = min(lo + chunk, g);
    uint s = 0u;
    for (uint i = lo; i < hi; i++) s += sums[i];
    uint total;
    uint run = gs_scan_exclusive(s, buf, &total);
    for (uint i = lo; i < hi; i++) {
        uint v = sums[i];
        sums[i] = run;
        run += v;
    }
}

/* out = exclusive prefix sum of in, given the scanned tile sums. */
kernel WG_ATTR void scan_down(global const uint *in, uint m, global const uint *sums,
                              global uint *out)
{
    local uint tile[SCAN_TILE];
    local uint buf[WG];
    uint lid = get_local_id(0), base = get_group_id(0) * SCAN_TILE;
    for (uint j = 0; j < SCAN_ITEMS; j++) {
        uint i = j * WG + lid;
        tile[i] = base + i < m ? in[base + i] : 0u;
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    uint v[SCAN_ITEMS];
    uint s = 0u;
    for (uint j = 0; j < SCAN_ITEMS; j++) {
        v[j] = tile[lid * SCAN_ITEMS + j];
        s += v[j];
    }
    uint total;
    uint run = gs_scan_exclusive(s, buf, &total) + sums[get_group_id(0)];
    for (uint j = 0; j < SCAN_ITEMS; j++) {
        tile[lid * SCAN_ITEMS + j] = run;
        run += v[j];
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    for (uint j = 0; j < SCAN_ITEMS; j++) {
        uint i = j * WG + lid;
        if (base + i < m) out[base + i] = tile[i];
    }
}

/* One pass: stable scatter of the keys (and values) by the digit at `shift`.
 * gen_index != 0 (argsort, first pass): the values are the input positions, vals_in unused. */
kernel WG_ATTR void radix_scatter(global const gs_key *keys_in, global gs_key *keys_out,
#if GS_VAL_BYTES
                                  global const gs_val *vals_in, global gs_val *vals_out,
                                  int gen_index,
#endif
                                  uint n, int type, int desc, uint shift, uint num_tiles,
                                  global const uint *offsets)
{
    local gs_key lk[TILE];
#if GS_VAL_BYTES
    local gs_val lv[TILE];
#endif
    local uchar ld[TILE];
    /* Counter table, (nibble, work-item) order. ushort: a count is at most TILE <= 4096. */
    local ushort ctr[NIBBLES * WG];
    local uint buf[WG];
    local uint base[DIGITS];

    uint lid = get_local_id(0), tile = get_group_id(0);
    uint start = tile * TILE;
    uint valid = min(n - start, (uint)TILE);

    /* Coalesced load into local memory. */
    for (uint j = 0; j < ITEMS; j++) {
        uint i = j * WG + lid;
        if (i < valid) {
            lk[i] = keys_in[start + i];
#if GS_VAL_BYTES
            lv[i] = gen_index ? (gs_val)(start + i) : vals_in[start + i];
#endif
        }
    }
    barrier(CLK_LOCAL_MEM_FENCE);

    /* Blocked into registers; padding items get digit 255 (they are last in the tile). */
    gs_key k[ITEMS];
#if GS_VAL_BYTES
    gs_val v[ITEMS];
#endif
    uint d[ITEMS];
    for (uint j = 0; j < ITEMS; j++) {
        uint p = lid * ITEMS + j;
        k[j] = p < valid ? lk[p] : (gs_key)0;
#if GS_VAL_BYTES
        v[j] = p < valid ? lv[p] : (gs_val)0;
#endif
        d[j] = p < valid ? gs_digit(k[j], type, desc, shift) : DIGITS - 1;
    }

    for (uint round = 0; round < 2; round++) {
        uint sh = round * 4;
        for (uint q = 0; q < NIBBLES; q++) ctr[q * WG + lid] = 0;
        ushort rank[ITEMS];
        for (uint j = 0; j < ITEMS; j++) {
            uint c = ((d[j] >> sh) & (NIBBLES - 1)) * WG + lid;
            rank[j] = ctr[c];
            ctr[c] = rank[j] + 1;
        }
        barrier(CLK_LOCAL_MEM_FENCE);
        /* Exclusive scan of the table as a flat array: work-item t owns entries
         * t*16 .. t*16+15 (NIBBLES * WG / WG = 16 each). */
        ushort mine[NIBBLES];
        uint s = 0u;
        for (uint q = 0; q < NIBBLES; q++) {
            mine[q] = ctr[lid * NIBBLES + q];
            s += mine[q];
        }
        uint total;
        uint run = gs_scan_exclusive(s, buf, &total);
        for (uint q = 0; q < NIBBLES; q++) {
            ctr[lid * NIBBLES + q] = (ushort)run;
            run += mine[q];
        }
        barrier(CLK_LOCAL_MEM_FENCE);
        for (uint j = 0; j < ITEMS; j++) {
            uint pos = ctr[((d[j] >> sh) & (NIBBLES - 1)) * WG + lid] + rank[j];
            lk[pos] = k[j];
#if GS_VAL_BYTES
            lv[pos] = v[j];
#endif
            ld[pos] = (uchar)d[j];
        }
        barrier(CLK_LOCAL_MEM_FENCE);
        /* Blocked reload for the next round (unused after the last one: a barrier under a
         * condition, even a uniform one, trips some implementations such as PoCL). */
        for (uint j = 0; j < ITEMS; j++) {
            uint p = lid * ITEMS + j;
            k[j] = lk[p];
#if GS_VAL_BYTES
            v[j] = lv[p];
#endif
            d[j] = ld[p];
        }
        barrier(CLK_LOCAL_MEM_FENCE);
    }

    /* base[d] = global offset of the tile's digit d minus its first tile position. */
    for (uint j = 0; j < ITEMS; j++) {
        uint p = j * WG + lid;
        if (p < valid) {
            uint dd = ld[p];
            if (p == 0 || ld[p - 1] != dd) base[dd] = offsets[dd * num_tiles + tile] - p;
        }
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    for (uint j = 0; j < ITEMS; j++) {
        uint p = j * WG + lid;
        if (p < valid) {
            uint g = base[ld[p]] + p;
            keys_out[g] = lk[p];
#if GS_VAL_BYTES
            vals_out[g] = lv[p];
#endif
        }
    }
}
