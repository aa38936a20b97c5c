/*
 * seed_multiway.cu -- seed 000 of the project, kept for bench_cuda's "table" rows
 * (cuda_seeds.cu): one block sorts everything by a column radix sort and a multi-way merge.
 * Not part of the library: the merge sort of src/cuda/merge.cu replaces it.
 *
 * seed_multiway_sort: one block of `lists` threads (1..1024) radix-sorts `lists` columns
 * (element i belongs to column i % lists) by 1-bit LSD passes, then merges the columns:
 *   variant 0  one thread picks the minimum head each step
 *   variant 1  every thread atomicMin()s its head into one shared word
 *   variant 2  pairwise tree reduction in shared memory
 *   variant 3  blocked reduction: atomicMin within groups of 8, then across groups
 * Stable (heads are compared as (radix key, index)); 32-bit key types; keys on the device, out
 * of place. Shared memory for n <= 4096, else global scratch (slow: a one-block algorithm).
 * The caller owns the scratch (seed_multiway_scratch_bytes) so that a timed call allocates
 * nothing; the benchmark needs nothing of the library beyond the key order of internal.h.
 */
#include "seed_multiway.h"
#include "internal.h"

#include <cuda_runtime.h>

#define MW_SMEM_MAX 4096  /* n up to this sorts in shared memory (2 x 32 KiB) */

__global__ void k_multiway(const uint32_t *keys, uint32_t n, int type, int desc, int variant,
                           uint64_t *gcol, uint64_t *gtmp, uint64_t *res, int use_smem)
{
    extern __shared__ unsigned long long mw_smem[];
    __shared__ unsigned long long s_min;
    __shared__ unsigned long long s_red[1024];
    __shared__ uint32_t s_head[1024];
    const uint32_t L = blockDim.x, tid = threadIdx.x;
    uint64_t *col = use_smem ? (uint64_t *)mw_smem : gcol;
    uint64_t *tmp = use_smem ? (uint64_t *)mw_smem + n : gtmp;
    const uint64_t MAXV = ~0ull;
    /* Composite (radix key, index): unique, so every minimum has exactly one owner. */
    for (uint32_t i = tid; i < n; i += L)
        col[i] = ((uint64_t)gpusort__radix32(keys[i], type, desc) << 32) | i;
    /* Column tid = positions tid, tid + L, ...: 1-bit LSD radix sort (stable) on the key bits;
     * the column starts in index order, so it ends sorted by (key, index). */
    for (int bit = 32; bit < 64; bit++) {
        uint32_t c0 = 0, c1 = 0;
        for (uint32_t i = tid; i < n; i += L) {
            uint64_t v = col[i];
            if ((v >> bit) & 1) tmp[(c1++) * L + tid] = v;
            else col[(c0++) * L + tid] = v;
        }
        for (uint32_t q = 0; q < c1; q++) col[(c0 + q) * L + tid] = tmp[q * L + tid];
    }
    __syncthreads();
    uint32_t h = tid;
    uint64_t head = h < n ? col[h] : MAXV;
    if (variant == 0) {  /* one thread scans the L heads */
        s_head[tid] = tid;
        __syncthreads();
        if (tid == 0)
            for (uint32_t i = 0; i < n; i++) {
                uint64_t best = MAXV;
                uint32_t who = 0;
                for (uint32_t j = 0; j < L; j++) {
                    uint32_t hj = s_head[j];
                    if (hj < n && col[hj] < best) {
                        best = col[hj];
                        who = j;
                    }
                }
                s_head[who] += L;
                res[i] = best;
            }
        return;
    }
    for (uint32_t i = 0; i < n; i++) {
        uint64_t m;
        if (variant == 1) {  /* everybody atomicMin()s into one word */
            if (tid == 0) s_min = MAXV;
            __syncthreads();
            atomicMin(&s_min, (unsigned long long)head);
            __syncthreads();
            m = s_min;
        } else if (variant == 2) {  /* pairwise tree in shared memory */
            s_red[tid] = head;
            __syncthreads();
            uint32_t p2 = 1;
            while (p2 < L) p2 *= 2;
            for (uint32_t s = p2 / 2; s > 0; s /= 2) {
                if (tid < s && tid + s < L && s_red[tid + s] < s_red[tid]) s_red[tid] = s_red[tid + s];
                __syncthreads();
            }
            m = s_red[0];
        } else {  /* blocked: groups of 8 atomicMin, then the group minima */
            if (tid < (L + 7) / 8) s_red[tid] = MAXV;
            if (tid == 0) s_min = MAXV;
            __syncthreads();
            atomicMin(&s_red[tid / 8], (unsigned long long)head);
            __syncthreads();
            if (tid < (L + 7) / 8) atomicMin(&s_min, s_red[tid]);
            __syncthreads();
            m = s_min;
        }
        if (head == m) {
            res[i] = m;
            h += L;
            head = h < n ? col[h] : MAXV;
        }
        __syncthreads();  /* everyone has read m before it is reset */
    }
}

__global__ void k_multiway_gather(const uint64_t *res, uint64_t n, const uint32_t *kin,
                                  uint32_t *kout, const void *vin, void *vout, int vbytes)
{
    for (uint64_t i = blockIdx.x * (uint64_t)blockDim.x + threadIdx.x; i < n;
         i += (uint64_t)gridDim.x * blockDim.x) {
        uint32_t g = (uint32_t)res[i];
        kout[i] = kin[g];
        if (vbytes == 4) ((uint32_t *)vout)[i] = vin ? ((const uint32_t *)vin)[g] : g;
        else if (vbytes == 8) ((uint64_t *)vout)[i] = vin ? ((const uint64_t *)vin)[g] : g;
    }
}

size_t seed_multiway_scratch_bytes(uint64_t n) { return (size_t)n * (n <= MW_SMEM_MAX ? 8 : 24); }

cudaError_t seed_multiway_sort(const uint32_t *keys_in, uint32_t *keys_out, uint64_t n,
                               gpusort_type type, int variant, int lists, void *scratch,
                               cudaStream_t st)
{
    if (gpusort_type_size(type) != 4 || n >= 0xffffffffull || variant < 0 || variant > 3 ||
        lists < 1 || lists > 1024 || keys_in == keys_out)
        return cudaErrorInvalidValue;
    int use_smem = n <= MW_SMEM_MAX;
    uint64_t *res = (uint64_t *)scratch;
    uint64_t *gcol = use_smem ? NULL : res + n;
    size_t sm = use_smem ? (size_t)n * 16 : 0;
    cudaError_t e;
    if (sm > 48 * 1024 - 12 * 1024 &&
        (e = cudaFuncSetAttribute(k_multiway, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                  (int)sm)) != cudaSuccess)
        return e;
    k_multiway<<<1, lists, sm, st>>>(keys_in, (uint32_t)n, type, 0, variant, gcol,
                                     gcol ? gcol + n : NULL, res, use_smem);
    if ((e = cudaGetLastError()) != cudaSuccess) return e;
    unsigned g = (unsigned)((n + 255) / 256 < 4096 ? (n + 255) / 256 : 4096);
    k_multiway_gather<<<g, 256, 0, st>>>(res, n, keys_in, keys_out, NULL, NULL, 0);
    return cudaGetLastError();
}
