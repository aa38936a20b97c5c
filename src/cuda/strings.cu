/*
 * strings.cu -- stable sort of byte strings and of fixed-size records by a byte key, on the GPU.
 * Host pointers in, host pointers out (the ops-table signatures of src/backend.h).
 *
 * Exports: gpusort__cuda_sort_strings, gpusort__cuda_sort_records (cuda_internal.h).
 *
 * WHAT WE CHOSE AND WHY. The order is memcmp order with a proper prefix first. Strings are
 * sorted by successive 8-byte keys, each the big-endian packing of 7 string bytes from depth d
 * (zero padded) followed by one byte c = min(bytes left from d, 8):
 *     key(s, d) = s[d] s[d+1] ... s[d+6] | c
 * Two strings with equal keys at depth d either both have more than 7 bytes left (c == 8: still
 * tied, look further) or are identical (c <= 7: the zero padding and the equal c leave no
 * difference). A string that ends inside the window with the same 7 padded bytes as a longer one
 * is its proper prefix and has the smaller c: it sorts first, as memcmp order wants. So:
 *   1. upload the bytes and offsets once (records: only the packed key bytes);
 *   2. depth 0: sort (key, string index) pairs, stable (one segment through the segmented sort:
 *      radix sort for large n where available, else the merge sort);
 *   3. runs of equal keys are the groups still to split; a run is unresolved when it has >= 2
 *      strings and c == 8. Run starts are compacted in order (flags -> block scan -> scatter),
 *      and the segmented sort (cuda_internal.h: segmented_sort_masked) re-sorts ONLY the unresolved
 *      runs on the key at depth d + 7, in place; run boundaries accumulate;
 *   4. repeat until no run is unresolved; the order of the indices is the permutation.
 * The depth reached is that of the longest distinguishing prefix (a radix-sort-style MSD
 * refinement, as in the CPU backend's strings.c and in e.g. Deshpande & Narayanan 2013,
 * "Can GPUs sort strings efficiently?"). Every sort is stable and the first sort starts from
 * index order, so equal strings keep their input order; descending sorts every level
 * descending (stable), which is the stable descending memcmp order.
 * Cost per level: one key gather for all n strings (7 bytes each), one compaction, and the sorts
 * of the unresolved runs only (size-classed: warp/block on chip, merge for long runs).
 * Device memory: bytes + offsets + about 30 bytes per string; if that cannot be had the call
 * answers OUT_OF_DEVICE_MEMORY (the CPU backend sorts without a GPU).
 *
 * Records: the key bytes of every record are packed on the host (n * key_size bytes), sorted as
 * fixed-length strings, and the records are then permuted on the host.
 */
#include "cuda_internal.h"
#include "cpu/cpu.h"

#include <stdlib.h>
#include <string.h>

#define SC_THREADS 256
#define SC_PER 4
#define SC_BLOCK (SC_THREADS * SC_PER)  /* flags per scan block */

struct str_view {
    const uint8_t *bytes;
    const uint64_t *offs;  /* strings: n + 1 offsets relative to bytes; NULL for fixed length */
    uint64_t klen;         /* fixed length (records) */
};

__device__ __forceinline__ uint64_t str_key(const str_view &v, uint64_t i, uint64_t d)
{
    uint64_t b, len;
    if (v.offs) {
        b = v.offs[i];
        len = v.offs[i + 1] - b;
    } else {
        b = i * v.klen;
        len = v.klen;
    }
    uint64_t rem = len > d ? len - d : 0;
    uint64_t k = 0;
    const uint8_t *p = v.bytes + b + d;
#pragma unroll
    for (int q = 0; q < 7; q++) k = (k << 8) | ((uint64_t)q < rem ? p[q] : 0);
    return (k << 8) | (rem < 8 ? rem : 8);
}

__global__ void k_keys(str_view v, uint64_t n, uint64_t d, uint64_t *K, uint64_t *P, int first)
{
    for (uint64_t i = blockIdx.x * (uint64_t)blockDim.x + threadIdx.x; i < n;
         i += (uint64_t)gridDim.x * blockDim.x) {
        uint64_t s = first ? i : P[i];
        if (first) P[i] = i;
        K[i] = str_key(v, s, d);
    }
}

/* B[i] = 1 where a run of equal keys starts (or already started). */
__global__ void k_bounds(const uint64_t *K, uint64_t n, uint8_t *B, int first)
{
    for (uint64_t i = blockIdx.x * (uint64_t)blockDim.x + threadIdx.x; i < n;
         i += (uint64_t)gridDim.x * blockDim.x) {
        uint8_t b = i == 0 || K[i] != K[i - 1];
        B[i] = first ? b : (uint8_t)(B[i] | b);
    }
}

/* Block-exclusive scan of SC_BLOCK flags; returns this thread's exclusive prefix for its first
 * flag, and the block total through *total. */
__device__ uint32_t block_scan(uint32_t x, uint32_t *total)
{
    __shared__ uint32_t warp_sums[SC_THREADS / 32];
    const int lane = threadIdx.x & 31, w = threadIdx.x >> 5;
    uint32_t inc = x;
#pragma unroll
    for (int o = 1; o < 32; o *= 2) {
        uint32_t y = __shfl_up_sync(0xffffffffu, inc, o);
        if (lane >= o) inc += y;
    }
    if (lane == 31) warp_sums[w] = inc;
    __syncthreads();
    uint32_t before = 0, all = 0;
    for (int k = 0; k < SC_THREADS / 32; k++) {
        if (k < w) before += warp_sums[k];
        all += warp_sums[k];
    }
    __syncthreads();
    *total = all;
    return before + inc - x;
}

__global__ void k_count_flags(const uint8_t *F, uint64_t n, uint64_t *sums)
{
    uint64_t base = (uint64_t)blockIdx.x * SC_BLOCK + threadIdx.x * SC_PER;
    uint32_t c = 0;
#pragma unroll
    for (int q = 0; q < SC_PER; q++) c += base + q < n && F[base + q];
    uint32_t total;
    block_scan(c, &total);
    if (threadIdx.x == 0) sums[blockIdx.x] = total;
}

/* Exclusive scan of the block sums in place, one block; sums[count] = grand total. */
__global__ void k_scan_sums(uint64_t *sums, uint64_t count)
{
    __shared__ uint64_t carry;
    if (threadIdx.x == 0) carry = 0;
    __syncthreads();
    for (uint64_t b = 0; b < count; b += SC_THREADS) {
        uint64_t i = b + threadIdx.x;
        uint32_t x = i < count ? (uint32_t)sums[i] : 0, total;
        uint32_t ex = block_scan(x, &total);
        if (i < count) sums[i] = carry + ex;
        __syncthreads();
        if (threadIdx.x == 0) carry += total;
        __syncthreads();
    }
    if (threadIdx.x == 0) sums[count] = carry;
}

__global__ void k_scatter_flags(const uint8_t *F, uint64_t n, const uint64_t *sums, uint64_t *out)
{
    uint64_t base = (uint64_t)blockIdx.x * SC_BLOCK + threadIdx.x * SC_PER;
    uint32_t c = 0;
#pragma unroll
    for (int q = 0; q < SC_PER; q++) c += base + q < n && F[base + q];
    uint32_t total;
    uint64_t pos = sums[blockIdx.x] + block_scan(c, &total);
#pragma unroll
    for (int q = 0; q < SC_PER; q++)
        if (base + q < n && F[base + q]) out[pos++] = base + q;
}

/* Unresolved runs: >= 2 strings with c == 8. U[r], and a count. */
__global__ void k_unresolved(const uint64_t *starts, uint64_t runs, uint64_t n, const uint64_t *K,
                             uint8_t *U, unsigned long long *count)
{
    for (uint64_t r = blockIdx.x * (uint64_t)blockDim.x + threadIdx.x; r < runs;
         r += (uint64_t)gridDim.x * blockDim.x) {
        uint64_t s = starts[r], e = starts[r + 1];
        uint8_t u = e - s >= 2 && (K[s] & 0xff) == 8;
        U[r] = u;
        if (u) atomicAdd(count, 1ull);
    }
}

__global__ void k_sub(uint64_t *offs, uint64_t count, uint64_t base)
{
    for (uint64_t i = blockIdx.x * (uint64_t)blockDim.x + threadIdx.x; i < count;
         i += (uint64_t)gridDim.x * blockDim.x)
        offs[i] -= base;
}

static unsigned grid_n(uint64_t n)
{
    uint64_t g = (n + 255) / 256;
    return (unsigned)(g > 65536 ? 65536 : g ? g : 1);
}

/* The device part shared by strings and records: perm_out (host) gets the stable order of the
 * n strings of v (device). */
static gpusort_status sort_views(gpusort_ctx *ctx, str_view v, uint64_t n, gpusort_order order,
                                 uint64_t *perm_out, void **bufs, size_t *sizes)
{
    cudaStream_t st = gpusort__cuda_stream(ctx);
    gpusort_status s;
    uint64_t nb = (n + SC_BLOCK - 1) / SC_BLOCK;
    uint64_t *K, *P, *starts, *sums;
    uint8_t *B, *U;
    unsigned long long *cnt;
    size_t bytes = n * 8 * 2 + (n + 2) * 8 + (nb + 1) * 8 + 2 * n + 16 + 64;
    if (!(bufs[0] = gpusort__cuda_dev_alloc(ctx, bytes, "string sort")))
        return GPUSORT_STATUS_OUT_OF_DEVICE_MEMORY;
    sizes[0] = bytes;
    char *p = (char *)bufs[0];
    K = (uint64_t *)p; p += n * 8;
    P = (uint64_t *)p; p += n * 8;
    starts = (uint64_t *)p; p += (n + 2) * 8;
    sums = (uint64_t *)p; p += (nb + 1) * 8;
    cnt = (unsigned long long *)p; p += 16;
    B = (uint8_t *)p; p += n;
    U = (uint8_t *)p;

    gpusort__sort_args d;
    memset(&d, 0, sizeof d);
    d.key_type = GPUSORT_TYPE_U64;
    d.keys_in = K;
    d.keys_out = K;
    d.value_type = GPUSORT_TYPE_U64;
    d.values_in = P;
    d.values_out = P;
    d.n = n;
    d.order = order;
    /* depth 0: everything, one segment */
    k_keys<<<grid_n(n), 256, 0, st>>>(v, n, 0, K, P, 1);
    uint64_t whole[2] = {0, n};
    if ((s = gpusort__cuda_check(ctx, cudaMemcpyAsync(starts, whole, 16, cudaMemcpyHostToDevice, st),
                                 "cudaMemcpyAsync")) ||
        (s = gpusort__cuda_check(ctx, cudaStreamSynchronize(st), "cudaStreamSynchronize")) ||
        (s = gpusort__cuda_segmented_sort_masked(ctx, &d, starts, 1, NULL)))
        return s;
    k_bounds<<<grid_n(n), 256, 0, st>>>(K, n, B, 1);
    for (uint64_t depth = 7;; depth += 7) {
        /* run starts, in order */
        k_count_flags<<<(unsigned)nb, SC_THREADS, 0, st>>>(B, n, sums);
        k_scan_sums<<<1, SC_THREADS, 0, st>>>(sums, nb);
        k_scatter_flags<<<(unsigned)nb, SC_THREADS, 0, st>>>(B, n, sums, starts);
        uint64_t runs = 0;
        if ((s = gpusort__cuda_check(ctx, cudaMemcpyAsync(&runs, sums + nb, 8, cudaMemcpyDeviceToHost, st),
                                     "cudaMemcpyAsync")) ||
            (s = gpusort__cuda_check(ctx, cudaStreamSynchronize(st), "cudaStreamSynchronize")))
            return s;
        if (runs == n) break;  /* all distinct */
        if ((s = gpusort__cuda_check(ctx, cudaMemcpyAsync(starts + runs, &n, 8, cudaMemcpyHostToDevice, st),
                                     "cudaMemcpyAsync")) ||
            (s = gpusort__cuda_check(ctx, cudaMemsetAsync(cnt, 0, 8, st), "cudaMemsetAsync")))
            return s;
        k_unresolved<<<grid_n(runs), 256, 0, st>>>(starts, runs, n, K, U, cnt);
        unsigned long long open = 0;
        if ((s = gpusort__cuda_check(ctx, cudaMemcpyAsync(&open, cnt, 8, cudaMemcpyDeviceToHost, st),
                                     "cudaMemcpyAsync")) ||
            (s = gpusort__cuda_check(ctx, cudaStreamSynchronize(st), "cudaStreamSynchronize")))
            return s;
        if (!open) break;
        k_keys<<<grid_n(n), 256, 0, st>>>(v, n, depth, K, P, 0);
        if ((s = gpusort__cuda_check(ctx, cudaGetLastError(), "string key kernels")) ||
            (s = gpusort__cuda_segmented_sort_masked(ctx, &d, starts, runs, U)))
            return s;
        k_bounds<<<grid_n(n), 256, 0, st>>>(K, n, B, 0);
    }
    if ((s = gpusort__cuda_check(ctx, cudaMemcpyAsync(perm_out, P, n * 8, cudaMemcpyDeviceToHost, st),
                                 "cudaMemcpyAsync (permutation)")))
        return s;
    return gpusort__cuda_check(ctx, cudaStreamSynchronize(st), "cudaStreamSynchronize");
}

extern "C" gpusort_status gpusort__cuda_sort_strings(gpusort_ctx *ctx, const uint8_t *bytes,
                                                     const uint64_t *offsets, size_t n,
                                                     gpusort_order order, uint64_t *perm_out)
{
    cudaStream_t st = gpusort__cuda_stream(ctx);
    const uint64_t base = offsets[0], total = offsets[n] - offsets[0];
    void *bufs[3] = {NULL, NULL, NULL};
    gpusort_status s;
    size_t sizes[3] = {0, total + 8, (n + 1) * 8};
    s = GPUSORT_STATUS_OUT_OF_DEVICE_MEMORY;
    if (!(bufs[1] = gpusort__cuda_dev_alloc(ctx, sizes[1], "string bytes")) ||
        !(bufs[2] = gpusort__cuda_dev_alloc(ctx, sizes[2], "string offsets")))
        goto done;
    if (total &&
        (s = gpusort__cuda_check(ctx, cudaMemcpyAsync(bufs[1], bytes + base, total, cudaMemcpyHostToDevice, st),
                                 "cudaMemcpyAsync (string bytes)")))
        goto done;
    if ((s = gpusort__cuda_check(ctx, cudaMemcpyAsync(bufs[2], offsets, (n + 1) * 8, cudaMemcpyHostToDevice, st),
                                 "cudaMemcpyAsync (string offsets)")))
        goto done;
    k_sub<<<grid_n(n + 1), 256, 0, st>>>((uint64_t *)bufs[2], n + 1, base);
    {
        str_view v = {(const uint8_t *)bufs[1], (const uint64_t *)bufs[2], 0};
        s = sort_views(ctx, v, n, order, perm_out, bufs, sizes);
    }
done:
    cudaStreamSynchronize(st);
    for (int i = 0; i < 3; i++) gpusort__cuda_dev_free(ctx, bufs[i], sizes[i]);
    return s;
}

/* The host halves of a records sort, on the context's threads: packing the key bytes of every
 * record, and permuting the records. Both touch every record's bytes in host memory, which
 * one thread does far slower than the device sorts the keys
 * (bench/results/records-2026-11-28.md). */
typedef struct rec_host {
    const uint8_t *in;
    uint8_t *out;
    const uint64_t *perm;   /* NULL: pack keys; else gather records */
    size_t n, record_size, key_offset, key_size, parts;
} rec_host;

static void rec_host_task(void *arg, size_t t)
{
    const rec_host *r = (const rec_host *)arg;
    const size_t lo = r->n / r->parts * t + (t < r->n % r->parts ? t : r->n % r->parts);
    const size_t hi = lo + r->n / r->parts + (t < r->n % r->parts ? 1 : 0);
    const size_t rs = r->record_size, ks = r->key_size;
    if (!r->perm)
        for (size_t i = lo; i < hi; i++) memcpy(r->out + i * ks, r->in + i * rs + r->key_offset, ks);
    else
        for (size_t k = lo; k < hi; k++) memcpy(r->out + k * rs, r->in + r->perm[k] * rs, rs);
}

static void rec_host_run(gpusort_ctx *ctx, rec_host *r)
{
    int t = r->n < 65536 ? 1 : gpusort__threads(ctx);
    r->parts = (size_t)(t > 1 ? 4 * t : 1);
    /* On a failure to start threads the tasks still all run (on this thread). */
    (void)gpusort__cpu_parallel_for(t, r->parts, rec_host_task, r);
}

extern "C" gpusort_status gpusort__cuda_sort_records(gpusort_ctx *ctx, const void *records_in,
                                                     void *records_out, size_t n,
                                                     size_t record_size, size_t key_offset,
                                                     size_t key_size, gpusort_order order,
                                                     uint64_t *perm_out)
{
    cudaStream_t st = gpusort__cuda_stream(ctx);
    const uint8_t *in = (const uint8_t *)records_in;
    void *bufs[3] = {NULL, NULL, NULL};
    size_t sizes[3] = {0, 0, 0};
    gpusort_status s = GPUSORT_STATUS_SUCCESS;
    uint8_t *packed = NULL, *tmp = NULL;
    if (key_size == 0) {  /* all keys equal: the stable order is the input order */
        for (size_t i = 0; i < n; i++) perm_out[i] = i;
    } else {
        packed = (uint8_t *)malloc(n * key_size + 8);
        if (!packed) return gpusort__set_error(ctx, GPUSORT_STATUS_OUT_OF_HOST_MEMORY, "record keys");
        rec_host pack = {in, packed, NULL, n, record_size, key_offset, key_size, 0};
        rec_host_run(ctx, &pack);
        sizes[1] = n * key_size + 8;
        if (!(bufs[1] = gpusort__cuda_dev_alloc(ctx, sizes[1], "record keys"))) {
            s = GPUSORT_STATUS_OUT_OF_DEVICE_MEMORY;
            goto done;
        }
        if ((s = gpusort__cuda_check(ctx, cudaMemcpyAsync(bufs[1], packed, n * key_size, cudaMemcpyHostToDevice, st),
                                     "cudaMemcpyAsync (record keys)")))
            goto done;
        str_view v = {(const uint8_t *)bufs[1], NULL, key_size};
        if ((s = sort_views(ctx, v, n, order, perm_out, bufs, sizes))) goto done;
    }
    /* Permute the records on the host (through a copy when in place). */
    if (records_out == records_in) {
        tmp = (uint8_t *)malloc(n * record_size);
        if (!tmp) {
            s = gpusort__set_error(ctx, GPUSORT_STATUS_OUT_OF_HOST_MEMORY, "record copy");
            goto done;
        }
        gpusort__cuda_par_memcpy(ctx, tmp, in, n * record_size);
        in = tmp;
    }
    {
        rec_host gather = {in, (uint8_t *)records_out, perm_out, n, record_size, 0, record_size, 0};
        rec_host_run(ctx, &gather);
    }
done:
    cudaStreamSynchronize(st);
    for (int i = 0; i < 3; i++) gpusort__cuda_dev_free(ctx, bufs[i], sizes[i]);
    free(packed);
    free(tmp);
    return s;
}
