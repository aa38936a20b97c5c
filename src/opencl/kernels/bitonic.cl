/*
 * bitonic.cl -- bitonic sorting network kernels, any n, both orders, stable.
 *
 * Built (after keys.cl) with -DGS_KEY_BITS=32|64. The network sorts pairs (radix key, index):
 * the radix key of keys.cl (descending = complemented key) and the input position as a
 * tie-break, compared lexicographically. All pairs are distinct, so the result is the unique
 * stable order; the original keys and values are then gathered through the indices
 * (gather32/gather64), which also keeps -0.0 and NaN payloads.
 *
 * THE NETWORK. Seed 004 (AMD's OpenCL sample) runs stage = 0 .. log2(N)-1 and, inside a stage,
 * pass = 0 .. stage with pair distance 2^(stage - pass), alternating the direction of each block
 * of 2^(stage+1) elements. We keep that stage / pass loop (host: src/opencl/bitonic.c) but write
 * the first pass of every stage as a "flip": element i of the lower half of a block of size
 * 2^(stage+1) is compared with its mirror i ^ (size - 1) instead of i + size/2. A flip merges two
 * ascending runs exactly as the alternating network merges an ascending and a descending one, and
 * then EVERY comparator puts the smaller pair at the lower position. That is what makes virtual
 * padding work: positions >= n hold +infinity, which never moves below n, so the host neither
 * allocates nor writes them, and any n works (N = next power of two only sets the loop bounds).
 *
 * SHORT STRIDES IN LOCAL MEMORY. A work-group owns a tile of LTILE = 2048 consecutive positions:
 *   bitonic_sort_local   every stage with blocks <= LTILE, entirely in local memory (first call;
 *                        it also computes the radix keys and indices from the input keys)
 *   bitonic_pass2_global two passes with distances >= LTILE (four elements per work-item)
 *   bitonic_pass_global  one pass with distance >= LTILE (when a stage has an odd number left)
 *   bitonic_merge_local  the passes of a stage with distance LTILE/2 .. 1
 * Work for n = 2^24: 1 local sort of 2^11 blocks, then 91 global passes (in 52 launches) and 13
 * local merges.
 *
 * Limits: positions are uint; the host keeps n <= 2^31.
 */

#define WG 256
/* Elements per work-group tile: 2 per comparator, 4 comparators per work-item (2048 * 12 bytes
 * of local memory for 64-bit keys). */
#define LTILE 2048
#define CMP_PER_ITEM (LTILE / 2 / WG)

#define WG_ATTR __attribute__((reqd_work_group_size(WG, 1, 1)))

/* Lower position of comparator t for distance dist (a power of two): t with a 0 bit inserted at
 * log2(dist). */
uint gs_lower(uint t, uint dist)
{
    return ((t & ~(dist - 1u)) << 1) | (t & (dist - 1u));
}

/* Order the pairs at local positions i < j ascending by (key, index). */
void gs_cswap_local(local gs_key *lk, local uint *li, uint i, uint j)
{
    gs_key a = lk[i], b = lk[j];
    uint ia = li[i], ib = li[j];
    if (b < a || (b == a && ib < ia)) {
        lk[i] = b; lk[j] = a;
        li[i] = ib; li[j] = ia;
    }
}

/* Load tile `group` into local memory; positions >= n get +infinity with their position as
 * index (greater than every real pair, distinct from each other). */
void gs_load_tile(global const gs_key *rk, global const uint *idx, uint n, local gs_key *lk,
                  local uint *li)
{
    uint base = get_group_id(0) * LTILE, lid = get_local_id(0);
    for (uint j = 0; j < LTILE / WG; j++) {
        uint p = j * WG + lid, g = base + p;
        if (g < n) { lk[p] = rk[g]; li[p] = idx[g]; }
        else { lk[p] = GS_KEY_MAX; li[p] = g; }
    }
    barrier(CLK_LOCAL_MEM_FENCE);
}

void gs_store_tile(global gs_key *rk, global uint *idx, uint n, local gs_key *lk, local uint *li)
{
    barrier(CLK_LOCAL_MEM_FENCE);
    uint base = get_group_id(0) * LTILE, lid = get_local_id(0);
    for (uint j = 0; j < LTILE / WG; j++) {
        uint p = j * WG + lid, g = base + p;
        if (g < n) { rk[g] = lk[p]; idx[g] = li[p]; }
    }
}

/* Half-cleaner passes with distances dist, dist/2, ..., 1 inside the tile. */
void gs_merge_tile(local gs_key *lk, local uint *li, uint dist)
{
    uint lid = get_local_id(0);
    for (; dist > 0; dist >>= 1) {
        for (uint c = 0; c < CMP_PER_ITEM; c++) {
            uint i = gs_lower(c * WG + lid, dist);
            gs_cswap_local(lk, li, i, i + dist);
        }
        barrier(CLK_LOCAL_MEM_FENCE);
    }
}

/* First kernel: radix keys and indices from the input keys, then every tile fully sorted. */
kernel WG_ATTR void bitonic_sort_local(global const gs_key *keys, uint n, int type, int desc,
                                       global gs_key *rk, global uint *idx)
{
    local gs_key lk[LTILE];
    local uint li[LTILE];
    uint base = get_group_id(0) * LTILE, lid = get_local_id(0);
    for (uint j = 0; j < LTILE / WG; j++) {
        uint p = j * WG + lid, g = base + p;
        if (g < n) { lk[p] = GS_RADIX(keys[g], type, desc); li[p] = g; }
        else { lk[p] = GS_KEY_MAX; li[p] = g; }
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    for (uint size = 2; size <= LTILE; size <<= 1) {
        uint hsize = size >> 1;
        for (uint c = 0; c < CMP_PER_ITEM; c++) {         /* the flip pass */
            uint i = gs_lower(c * WG + lid, hsize);
            gs_cswap_local(lk, li, i, i ^ (size - 1u));
        }
        barrier(CLK_LOCAL_MEM_FENCE);
        gs_merge_tile(lk, li, hsize >> 1);
    }
    gs_store_tile(rk, idx, n, lk, li);
}

/* One global pass: comparator t orders positions i = lower(t, hsize) and its partner, the
 * mirror i ^ (2 * hsize - 1) when flip != 0, else i + hsize. Partners >= n hold +infinity. */
kernel WG_ATTR void bitonic_pass_global(global gs_key *rk, global uint *idx, uint n, uint hsize,
                                        int flip)
{
    uint i = gs_lower((uint)get_global_id(0), hsize);
    if (i >= n) return;
    uint j = flip ? (i ^ (2u * hsize - 1u)) : i + hsize;
    if (j >= n) return;
    gs_key a = rk[i], b = rk[j];
    uint ia = idx[i], ib = idx[j];
    if (b < a || (b == a && ib < ia)) {
        rk[i] = b; rk[j] = a;
        idx[i] = ib; idx[j] = ia;
    }
}

/* Two global passes in one: distance hsize (a flip when flip != 0) and then hsize / 2. The four
 * positions {a, a + hsize/2, partner(a), partner(a + hsize/2)} only meet each other in these two
 * passes, so one work-item loads them, runs both comparator layers in registers and stores
 * them: half the global traffic of two single passes. Positions >= n are +infinity (never
 * stored). Work-item t: a = t with zero bits inserted at log2(hsize/2) and log2(hsize). */
kernel WG_ATTR void bitonic_pass2_global(global gs_key *rk, global uint *idx, uint n, uint hsize,
                                         int flip)
{
    uint q = hsize >> 1;
    uint a = gs_lower(gs_lower((uint)get_global_id(0), q), hsize);
    if (a >= n) return;
    uint p[4];
    p[0] = a;
    p[1] = a + q;
    p[2] = flip ? (a ^ (2u * hsize - 1u)) : a + hsize;      /* partner of p[0] */
    p[3] = flip ? (p[1] ^ (2u * hsize - 1u)) : p[1] + hsize; /* partner of p[1] */
    gs_key k[4];
    uint x[4];
    for (uint e = 0; e < 4; e++) {
        if (p[e] < n) { k[e] = rk[p[e]]; x[e] = idx[p[e]]; }
        else { k[e] = GS_KEY_MAX; x[e] = p[e]; }
    }
    /* Layer 1: (p0, p2), (p1, p3), each lower position first. Layer 2: (p0, p1) and the pair
     * of the upper half in position order: (p2, p3) without flip, (p3, p2) with it. */
    uint lo[4], hi[4];
    lo[0] = 0; hi[0] = 2;
    lo[1] = 1; hi[1] = 3;
    lo[2] = 0; hi[2] = 1;
    lo[3] = flip ? 3 : 2; hi[3] = flip ? 2 : 3;
    for (uint c = 0; c < 4; c++) {
        uint i = lo[c], j = hi[c];
        if (k[j] < k[i] || (k[j] == k[i] && x[j] < x[i])) {
            gs_key tk = k[i]; k[i] = k[j]; k[j] = tk;
            uint tx = x[i]; x[i] = x[j]; x[j] = tx;
        }
    }
    for (uint e = 0; e < 4; e++)
        if (p[e] < n) { rk[p[e]] = k[e]; idx[p[e]] = x[e]; }
}

/* The rest of a stage, distances LTILE/2 .. 1, in local memory. */
kernel WG_ATTR void bitonic_merge_local(global gs_key *rk, global uint *idx, uint n)
{
    local gs_key lk[LTILE];
    local uint li[LTILE];
    gs_load_tile(rk, idx, n, lk, li);
    gs_merge_tile(lk, li, LTILE / 2);
    gs_store_tile(rk, idx, n, lk, li);
}

/* dst[i] = src[idx[i]]: moves the original keys or the values into sorted order. */
kernel void gather32(global const uint *src, global const uint *idx, uint n, global uint *dst)
{
    uint i = get_global_id(0);
    if (i < n) dst[i] = src[idx[i]];
}

kernel void gather64(global const ulong *src, global const uint *idx, uint n, global ulong *dst)
{
    uint i = get_global_id(0);
    if (i < n) dst[i] = src[idx[i]];
}

/* u64 argsort output from the u32 indices. */
kernel void widen_index(global const uint *idx, uint n, global ulong *dst)
{
    uint i = get_global_id(0);
    if (i < n) dst[i] = idx[i];
}
