/*
 * cuda_internal.h -- INTERNAL: what the CUDA backend's files share.
 *
 * The files, from the backend table down to the registers:
 *   backend.cu    the backend table: context, devices, pointer kinds, dispatch
 *   auto.cu       AUTO: the algorithm for a call (type, pairs, n, host or device data)
 *   host.cu       host data: copies, staging, the host pipeline, runs + CPU merge
 *   radix.cu      LSD radix sort (Onesweep class)         gpusort__cuda_radix_sort
 *   bitonic.cu    bitonic network                         gpusort__cuda_bitonic_sort
 *   merge.cu      tile sort + merge-path merge            gpusort__cuda_merge_sort
 *   rank.cu       rank sort for small n                   gpusort__cuda_rank_sort
 *   segmented.cu  segmented / batched sort                gpusort__cuda_segmented_sort
 *   reduce.cu     sum / min / max                         gpusort__cuda_reduce
 *   strings.cu    byte strings and records (host data)    gpusort__cuda_sort_strings/_records
 *   topk.cu       top-k by radix select                   gpusort__cuda_topk
 *   multi.cu      count, exchange, merge of multi_sort    gpusort__cuda_multi
 *   block_sort.cu one block sorts each tile or segment    gpusort__cuda_block_sort_launch
 *   scratch.cu    device memory: own, caller's allocator or workspace; the query's bounds
 *   tuning.cu     per-architecture table, capability check, shared-memory limit
 * and the device building blocks the kernels share, one layer each (as in CUB):
 *   block_sort.cuh, block_radix_rank.cuh      block level (shared memory + barriers)
 *   warp_sort.cuh, warp_radix_rank.cuh        warp level (shuffles, ballots)
 *   thread_sort.cuh, thread_radix_key.cuh     thread level (registers)
 *   pdl.cuh                                   programmatic dependent launch
 *
 * Contract of every algorithm entry:
 *   - every pointer in the desc is DEVICE memory; n > 0; types valid (the core checked);
 *   - keys_out is never NULL (backend.cu gives scratch when the caller passed NULL, as argsort
 *     does); keys_out == keys_in means in place; likewise for values;
 *   - values_in == NULL with value_type U32/U64 means argsort: values are 0..n-1;
 *   - the work is enqueued on gpusort__cuda_stream(ctx); the entry need not synchronise;
 *   - temporary device memory comes from gpusort__cuda_scratch() (owned by the context, grown
 *     on demand, reused across calls; slot numbers let one call hold several buffers at once;
 *     or cut from the caller's workspace: scratch.cu), and what a call asks of each slot stays
 *     within scratch.cu's bounds for it;
 *   - a kernel launched with more than 48 KiB of dynamic shared memory is first checked with
 *     gpusort__cuda_smem_check (tuning.cu: the architecture's limit, UNSUPPORTED beyond it);
 *   - on failure, return a status with gpusort__set_error() detail (gpusort__cuda_check helps).
 */
#ifndef GPUSORT_CUDA_INTERNAL_H
#define GPUSORT_CUDA_INTERNAL_H

#include "backend.h"
#include "hostdata.h"

#include <cuda_runtime_api.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Scratch slots: a call may hold one buffer per slot at the same time. */
enum {
    GPUSORT_CUDA_SCRATCH_KEYS = 0,    /* alternate key buffer (n keys) */
    GPUSORT_CUDA_SCRATCH_VALUES = 1,  /* alternate value buffer (n values) */
    GPUSORT_CUDA_SCRATCH_AUX = 2,     /* histograms, look-back state, partitions */
    GPUSORT_CUDA_SCRATCH_AUX2 = 3,
    GPUSORT_CUDA_SCRATCH_IO_KEYS = 4, /* backend.cu, host.cu: device copies of host data */
    GPUSORT_CUDA_SCRATCH_IO_VALUES = 5,
    GPUSORT_CUDA_SCRATCH_IO_OFFSETS = 6, /* backend.cu: device copy of segment offsets */
    GPUSORT_CUDA_SCRATCH_REDUCE = 7,  /* reduce.cu: ticket counter + partials (zeroed when made) */
    GPUSORT_CUDA_SCRATCH_TOPK = 8,    /* topk.cu: selection state, tile counts, candidates */
    GPUSORT_CUDA_SCRATCH_TOPK_IN = 9, /* topk.cu: device copy of host keys */
    GPUSORT_CUDA_SCRATCH_TOPK_OUT = 10,       /* topk.cu: results for the host */
    GPUSORT_CUDA_SCRATCH_TOPK_SORT_KEYS = 11, /* topk.cu: batch path, the sorted rows */
    GPUSORT_CUDA_SCRATCH_TOPK_SORT_IDX = 12,
    GPUSORT_CUDA_SCRATCH_COUNT = 13
};

/* One row of tuning.cu's per-architecture table (the file says what each field decides). */
typedef struct gpusort__cuda_tuning {
    const char *name;     /* "sm_90" */
    int cc;               /* compute capability, major * 10 + minor */
    size_t smem_block;    /* opt-in shared memory per block, bytes */
    int threads_sm;       /* resident threads per SM */
    int radix_compact;    /* 1: radix always takes its 64 KiB tile shapes */
    int pdl;              /* programmatic dependent launch exists */
    int auto_shift;       /* AUTO's crossovers: Hopper's times 2^auto_shift */
    int auto_radix_only;  /* AUTO: radix at every size */
} gpusort__cuda_tuning;

cudaStream_t gpusort__cuda_stream(gpusort_ctx *ctx);
/* Device buffer of at least `bytes` for `slot`; NULL (with OUT_OF_DEVICE_MEMORY in the context's
 * error) if it cannot be had. The contents are undefined. */
void *gpusort__cuda_scratch(gpusort_ctx *ctx, int slot, size_t bytes);
/* The same, but a buffer that this call (re)allocates is zero-filled on the context's stream;
 * one that is kept keeps its contents. For state that kernels leave zeroed themselves. */
void *gpusort__cuda_scratch_zeroed(gpusort_ctx *ctx, int slot, size_t bytes);
/* SUCCESS for cudaSuccess; else DEVICE_ERROR (or OUT_OF_DEVICE_MEMORY) with
 * "what: <CUDA error string>" in the context's error. */
gpusort_status gpusort__cuda_check(gpusort_ctx *ctx, cudaError_t err, const char *what);
/* Properties of the context's device, read once at init. */
const struct cudaDeviceProp *gpusort__cuda_props(gpusort_ctx *ctx);
/* A device buffer from the caller's allocator or cudaMalloc (NULL with OUT_OF_DEVICE_MEMORY
 * and the bytes in the context's error), and its release; for buffers outside the slots. */
void *gpusort__cuda_dev_alloc(gpusort_ctx *ctx, size_t bytes, const char *what);
void gpusort__cuda_dev_free(gpusort_ctx *ctx, void *p, size_t bytes);

/* tuning.cu: the row for a compute capability (force: a row's name, from the test knob). */
const gpusort__cuda_tuning *gpusort__cuda_tuning_select(int major, int minor, const char *force);
const gpusort__cuda_tuning *gpusort__cuda_tuning_of(gpusort_ctx *ctx);
/* tuning.cu: 1 if this build has code the device can run; else 0 and why in reason.
 * *ptx_version: the PTX version of the code that runs (e.g. 75 for JIT-compiled compute_75). */
int gpusort__cuda_device_usable(int device, int *ptx_version, char *reason, size_t len);
/* tuning.cu: the dynamic shared memory a block may have on the context's device (row and
 * device), and SUCCESS or UNSUPPORTED ("what needs N bytes ...") for `bytes` of it. */
size_t gpusort__cuda_smem_limit(gpusort_ctx *ctx);
gpusort_status gpusort__cuda_smem_check(gpusort_ctx *ctx, size_t bytes, const char *what);
/* tuning.cu: 1 when dependent kernels may be launched with PDL (pdl.cuh). */
int gpusort__cuda_pdl(gpusort_ctx *ctx);

/* scratch.cu: the table's methods (backend.h) and the start of a call on a workspace: the
 * bounds of call q must fit the workspace (else INVALID_ARGUMENT naming both sizes); host: the
 * data is in host memory. A no-op without a workspace. */
gpusort_status gpusort__cuda_set_allocator(gpusort_ctx *ctx, const gpusort_allocator *a);
gpusort_status gpusort__cuda_set_scratch(gpusort_ctx *ctx, void *scratch, size_t bytes);
gpusort_status gpusort__cuda_scratch_size(gpusort_ctx *ctx, const gpusort__scratch_query *q,
                                          size_t *bytes);
gpusort_status gpusort__cuda_workspace_enter(gpusort_ctx *ctx, const gpusort__scratch_query *q,
                                             int host);
/* backend.cu: 1 when the query's data pointers are in host memory (NULL ones: device). */
int gpusort__cuda_query_on_host(const gpusort__scratch_query *q);
/* radix.cu: the bytes of slot AUX the radix sort of d asks for (0: one tile, none). */
size_t gpusort__cuda_radix_aux_bytes(gpusort_ctx *ctx, const gpusort__sort_args *d);
/* reduce.cu: the bytes of slot REDUCE a reduction asks for on the context's device. */
size_t gpusort__cuda_reduce_scratch_bytes(gpusort_ctx *ctx);

/* ---- the algorithms (device data, contract above) ---- */

gpusort_status gpusort__cuda_radix_sort(gpusort_ctx *ctx, const gpusort__sort_args *d);
/* radix.cu, the steps of the radix sort of pieces on several GPUs (multi.cu drives them; radix.cu
 * explains). d: one context's piece (keys_in, values_in, n, types, order); each step enqueues on
 * the context's stream unless it says otherwise. multi_ok: the shape runs there (1) or not. */
typedef struct gpusort__cuda_multi_dst {
    int count;                  /* receive buffers, at most 8 */
    uint64_t start[8];          /* the first global position of each */
    void *keys[8], *values[8];  /* device memory of any of the GPUs */
} gpusort__cuda_multi_dst;
int gpusort__cuda_radix_multi_ok(gpusort_ctx *ctx, const gpusort__sort_args *d);
/* The histograms of every digit position of the piece; hist_fetch waits and copies them to
 * hist (8 x 256 u64). */
gpusort_status gpusort__cuda_radix_multi_hist(gpusort_ctx *ctx, const gpusort__sort_args *d);
gpusort_status gpusort__cuda_radix_multi_hist_fetch(gpusort_ctx *ctx, const gpusort__sort_args *d,
                                                   uint64_t *hist);
/* The pass on digit position m with this piece's global bin bases (host, 256), into dst. */
gpusort_status gpusort__cuda_radix_multi_scatter(gpusort_ctx *ctx, const gpusort__sort_args *d,
                                                int m, const uint64_t *bases,
                                                const gpusort__cuda_multi_dst *dst);
/* Sort d->keys_in (grouped by digit m: a receive buffer) into d->keys_out, each bucket on the
 * digits below m. */
gpusort_status gpusort__cuda_radix_multi_local(gpusort_ctx *ctx, const gpusort__sort_args *d,
                                              int m);
gpusort_status gpusort__cuda_bitonic_sort(gpusort_ctx *ctx, const gpusort__sort_args *d);
gpusort_status gpusort__cuda_merge_sort(gpusort_ctx *ctx, const gpusort__sort_args *d);
gpusort_status gpusort__cuda_rank_sort(gpusort_ctx *ctx, const gpusort__sort_args *d);
/* d_offsets: device memory, num_segments + 1 entries. */
gpusort_status gpusort__cuda_segmented_sort(gpusort_ctx *ctx, const gpusort__sort_args *d,
                                            const uint64_t *d_offsets, size_t num_segments);
/* result is host memory; the call completes before returning. */
gpusort_status gpusort__cuda_reduce(gpusort_ctx *ctx, gpusort_type type, const void *d_data,
                                    size_t n, gpusort_op op, gpusort_value *result);

/* topk.cu: gpusort_topk / gpusort_topk_batch, host or device data (backend.h's topk). */
gpusort_status gpusort__cuda_topk(gpusort_ctx *ctx, const gpusort__topk_args *args);

/* backend.cu: 1 if p is device (or managed) memory; *pinned = 1 for page-locked host memory. */
int gpusort__cuda_is_device(const void *p, int *pinned);

/* Host pointers in, host pointers out (the ops-table signatures of backend.h). */
gpusort_status gpusort__cuda_sort_strings(gpusort_ctx *ctx, const uint8_t *bytes,
                                          const uint64_t *offsets, size_t n, gpusort_order order,
                                          uint64_t *perm_out);
gpusort_status gpusort__cuda_sort_records(gpusort_ctx *ctx, const void *records_in,
                                          void *records_out, size_t n, size_t record_size,
                                          size_t key_offset, size_t key_size, gpusort_order order,
                                          uint64_t *perm_out);

/* The largest n the rank sort accepts (O(n^2) work); above it it answers UNSUPPORTED. */
#define GPUSORT_CUDA_RANK_MAX_N ((size_t)1 << 16)

/* ---- what the algorithm files offer each other ---- */

/* segmented.cu: the segmented sort restricted to the segments s with d_active[s] != 0 (device
 * bytes; NULL = all). Inactive segments and keys outside every segment are left as they are:
 * use it in place (keys_out == keys_in, values_out == values_in). strings.cu re-sorts its
 * unresolved runs with it. */
gpusort_status gpusort__cuda_segmented_sort_masked(gpusort_ctx *ctx, const gpusort__sort_args *d,
                                                  const uint64_t *d_offsets, size_t num_segments,
                                                  const uint8_t *d_active);

/* merge.cu: stable merge sort of segments [lo[s], hi[s]) (host arrays, count entries) of d
 * (device data; keys_out never NULL; other elements untouched). float_exact: the keys are
 * floats known to hold no NaN and no -0.0, so they sort as bare radix keys (0 is always
 * correct). Uses scratch KEYS, VALUES and AUX2. segmented.cu sorts its large segments with it. */
gpusort_status gpusort__cuda_merge_segments(gpusort_ctx *ctx, const gpusort__sort_args *d,
                                            const uint64_t *lo, const uint64_t *hi,
                                            size_t count, int float_exact);

/* merge.cu: merge sorted runs into one sorted array (stable: ties take the earlier run), the
 * merge passes of merge_segments without its tile phase. d (device data): n, key/value types
 * and order; d->keys_out (and d->values_out when value_type is set; argsort callers pass the
 * indices as values) hold the runs [k*w0, (k+1)*w0), the last one shorter; keys_in/values_in
 * are ignored. w0 = 4096 * 2^k < n. keys_alt/values_alt: n-element ping-pong buffers
 * (values_alt unused for keys only). The last pass is enqueued in `ranges` ranges of output
 * tiles; after range j the call records range_done[j] on the context's stream and sets
 * range_end[j], the end of range j in keys (range j = [range_end[j-1], range_end[j]),
 * range_end[-1] = 0; the last = n). *result_alt: 0 = the sorted data is in
 * keys_out/values_out, 1 = in keys_alt/values_alt (ceil(log2(runs)) passes ping-pong). Uses
 * scratch AUX2 ((n / 4096 + 2) * 8 bytes). host.cu's pipeline merges its chunks with it. */
gpusort_status gpusort__cuda_merge_runs(gpusort_ctx *ctx, const gpusort__sort_args *d, uint64_t w0,
                                        void *keys_alt, void *values_alt,
                                        const cudaEvent_t *range_done, uint64_t *range_end,
                                        int ranges, int *result_alt);

/* merge.cu: the stable merge (ties take A) of two sorted runs of any lengths, A = [0, na) and
 * B = [na, n) of d->keys_in (and d->values_in), into d->keys_out (d->values_out), which must not
 * overlap them: one merge pass (a partition kernel, then one block per 4096 outputs), enqueued.
 * part: device memory of (n / 4096 + 2) u64. multi.cu merges gpusort_multi_sort's slices
 * with it. */
gpusort_status gpusort__cuda_merge_pair(gpusort_ctx *ctx, const gpusort__sort_args *d, uint64_t na,
                                        uint64_t *part);
#define GPUSORT_CUDA_MERGE_PAIR_PART(n) (((n) / 4096 + 2) * sizeof(uint64_t))

/* ---- the context, and what backend.cu, host.cu and auto.cu share ---- */

/* host.cu's pipeline runs its last merge pass in this many ranges of output, each with an event
 * that starts its copy-out (host.cu says why 8). */
#define GPUSORT_CUDA_HOST_PIPE_RANGES 8

/* Pinned host memory of the context (host.cu): an anonymous mapping on huge pages where the
 * kernel gives them, touched by several threads and registered (cudaHostRegister), else
 * cudaHostAlloc's. */
typedef struct gpusort__cuda_pinned {
    void *p;                       /* NULL: none */
    size_t bytes;
    void *map;                     /* the mapping (registered), or NULL (cudaHostAlloc) */
    size_t map_len;
} gpusort__cuda_pinned;
gpusort_status gpusort__cuda_pinned_get(gpusort_ctx *ctx, gpusort__cuda_pinned *pin, size_t bytes,
                                        const char *what);
void gpusort__cuda_pinned_put(gpusort__cuda_pinned *pin);

/* The context's state (ctx->impl). backend.cu creates and frees it; host.cu uses the copy
 * streams, events and staging buffers. */
typedef struct gpusort__cuda_impl {
    int device;
    cudaStream_t own_stream;       /* created at init */
    cudaStream_t stream;           /* own_stream or the caller's (set_stream) */
    cudaStream_t copy_stream[2];   /* host-path copies of pageable data */
    cudaEvent_t copy_done[2];      /* the last DMA to or from staging buffer i is done */
    cudaEvent_t ready;             /* the stream's work so far (the copy streams wait on it) */
    cudaEvent_t range_done[GPUSORT_CUDA_HOST_PIPE_RANGES]; /* host pipeline: range j done */
    void *scratch[GPUSORT_CUDA_SCRATCH_COUNT];
    size_t scratch_bytes[GPUSORT_CUDA_SCRATCH_COUNT];
    gpusort__cuda_pinned stage[2]; /* pinned staging of the segmented/reduce copies (host.cu) */
    /* host data (host.cu's gpusort__cuda_hostdev, driven by src/hostdata.c) */
    gpusort__cuda_pinned hd_stage; /* pinned staging, kept between calls (trim frees it) */
    cudaEvent_t hd_ev[2 * GPUSORT__HOSTDATA_MAX_THREADS]; /* staging buffer i's last copy */
    cudaEvent_t hd_chunk_ready;    /* copies so far (a chunk's sort waits for it) */
    char *hd_buf[2];               /* the run's keys, values (IO slots) */
    char *hd_out[2];               /* where the sorted run is: hd_buf or the merge's buffers */
    size_t hd_es[2];               /* element bytes of keys, values (0: none) */
    struct cudaDeviceProp props;
    const gpusort__cuda_tuning *tune; /* tuning.cu's row for the device (or the knob's) */
    int pdl;                       /* gpusort__cuda_pdl */
    gpusort_allocator allocator;   /* the caller's, or all NULL: cudaMalloc */
    void *ws;                      /* the caller's workspace, or NULL */
    size_t ws_bytes;
    size_t ws_off[GPUSORT_CUDA_SCRATCH_COUNT];  /* this call's region of each slot in ws */
    size_t ws_size[GPUSORT_CUDA_SCRATCH_COUNT];
    long alloc_count;              /* cudaMalloc calls so far (the test knob counts them) */
    long fail_alloc_at;            /* GPUSORT_TEST_FAIL_DEVICE_ALLOC, 0 = off */
    int radix_hybrid;              /* GPUSORT_TEST_RADIX_HYBRID: -1 by size, 0 never, 1 always
                                      (small sub-buckets by warps), 2 always (by blocks) */
    int radix_hist;                /* GPUSORT_TEST_RADIX_HIST: -1 by size, 0 copies, 1 columns */
    int radix_pack;                /* GPUSORT_TEST_RADIX_PACK=0: no packed argsort (radix.cu) */
    int radix_float_form;          /* GPUSORT_TEST_RADIX_FLOAT_FORM: 0 the full float digit
                                      always, else as the histograms allow */
} gpusort__cuda_impl;

static inline gpusort__cuda_impl *gpusort__cuda_impl_of(gpusort_ctx *ctx)
{
    return (gpusort__cuda_impl *)ctx->impl;
}

/* backend.cu: free every scratch slot (host.cu does so before sizing its runs on a full
 * device). */
void gpusort__cuda_scratch_release(gpusort__cuda_impl *im);
/* backend.cu: run d (device data, keys_out set) with its algorithm, AUTO resolved by auto.cu;
 * records ctx->last_algorithm. Enqueued, not synchronised. */
gpusort_status gpusort__cuda_dispatch(gpusort_ctx *ctx, const gpusort__sort_args *d);

/* auto.cu: what AUTO runs for device data d (rank, bitonic, merge or radix) on the context's
 * device (its tuning row). */
gpusort_algorithm gpusort__cuda_auto_algorithm(gpusort_ctx *ctx, const gpusort__sort_args *d);
/* auto.cu: 1 when AUTO sorts host data d faster with the CPU backend than through the device. */
int gpusort__cuda_auto_on_cpu(gpusort_ctx *ctx, const gpusort__sort_args *d);

/* host.cu: the host-data paths. pinned[i]: array i of (keys_in, keys_out, values_in,
 * values_out) is page-locked (DMA without staging). Each call completes before returning. */
gpusort_status gpusort__cuda_sort_host(gpusort_ctx *ctx, const gpusort__sort_args *d,
                                       const int *pinned);
/* host.cu: the device operations of src/hostdata.c (also the backend table's hostdev). */
extern const gpusort__hostdev_ops gpusort__cuda_hostdev;

/* multi.cu: the device operations of gpusort_multi_sort (the backend table's multi). */
extern const gpusort__multi_ops gpusort__cuda_multi;
/* d_offsets: device memory (num_segments + 1 entries); keys and values in host memory. */
gpusort_status gpusort__cuda_segmented_host(gpusort_ctx *ctx, const gpusort__sort_args *d,
                                            const uint64_t *d_offsets, size_t num_segments,
                                            const int *pinned);
gpusort_status gpusort__cuda_reduce_host(gpusort_ctx *ctx, gpusort_type type, const void *data,
                                         size_t n, gpusort_op op, gpusort_value *result,
                                         int pinned);
/* Copy `bytes` from host `src` to device `dst`; the data is ready for work enqueued on the
 * context's stream afterwards. */
gpusort_status gpusort__cuda_copy_h2d(gpusort_ctx *ctx, void *dst, const void *src, size_t bytes,
                                      int pinned);
/* host.cu: memcpy of host memory on up to 8 of the context's threads (one below 1 MiB). */
void gpusort__cuda_par_memcpy(gpusort_ctx *ctx, void *dst, const void *src, size_t len);

#ifdef __cplusplus
}
#endif
#endif /* GPUSORT_CUDA_INTERNAL_H */
