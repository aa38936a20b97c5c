/*
 * host.cu -- the CUDA backend's host-data paths: sorts, segmented sorts and reductions whose
 * arrays live in host memory go to the device, run there, and come back.
 *
 * Exports (cuda_internal.h): gpusort__cuda_sort_host, gpusort__cuda_segmented_host,
 * gpusort__cuda_reduce_host, gpusort__cuda_copy_h2d. backend.cu calls them after it has found
 * the call's pointers in host memory; every call completes before returning.
 *
 * Copies. Pinned (registered or cudaHostAlloc'd) memory is copied directly by DMA. Pageable
 * memory goes through two pinned staging buffers owned by the context: the CPU fills one (8
 * threads) while the copy engine drains the other (two copy streams), so the memcpy into pinned
 * memory and the PCIe transfer overlap, in both directions.
 *
 * Which sort path runs when (gpusort__cuda_sort_host):
 *   CPU           AUTO below the host crossover of auto.cu: the CPU backend sorts.
 *   pipeline      n >= HOST_PIPE_MIN_KEYS (2^22) keys, algorithm AUTO, radix or merge, every
 *                 host array pinned (pageable ones only with GPUSORT_CUDA_HOST_PIPELINE=1:
 *                 host_pipe_chunk says why), the array fits on the device: host_pipeline. The
 *                 array goes in as (up to) 4 chunks; chunk c is copied in on a copy stream while
 *                 the device sorts chunk c - 1 in place (the device-data sort, waiting on the
 *                 chunk's copy event); the sorted chunks are merged on the device (merge.cu's
 *                 merge-path passes, gpusort__cuda_merge_runs: stable, ties take the earlier
 *                 chunk), and the last merge pass runs in 8 ranges of output tiles, each
 *                 followed by an event, so that the copy-out of range j overlaps the merge of
 *                 range j + 1. Exposed beyond the two copies: the last chunk's sort, the merge
 *                 passes but the last, and 1/8 of the last (the constants say why 4 and 8).
 *                 Argsort sorts the chunks as pairs with device-made global indices. 0.94 of a
 *                 bare pinned copy-in + copy-out for 1 GiB u32
 *                 (bench/results/device-final-2026-11-24.md).
 *   single shot   smaller n, pageable arrays, bitonic or rank named (chunks merged would not
 *                 be that sort), a caller's workspace set (gpusort_ctx_set_scratch: its size
 *                 is this path's), GPUSORT_CUDA_HOST_PIPELINE=0, or too little device memory for
 *                 the pipeline: host_run copies everything in, sorts, copies out; only the
 *                 copies' CPU and DMA halves overlap (0.88 of the bare copies for 1 GiB u32,
 *                 same file).
 *   runs + CPU    arrays larger than the device can hold (with the radix sort's alternate
 *                 buffers) are sorted in runs of the largest size that fits; the sorted runs
 *                 come back to a host buffer and are merged on the CPU with
 *                 gpusort__cpu_merge_runs. Why the CPU: a GPU merge of runs that do not fit on
 *                 the GPU together would send every byte over PCIe twice more; the CPU merge
 *                 reads and writes host memory once, at host bandwidth, while PCIe is the
 *                 bottleneck anyway.
 * Segmented sorts copy keys and values in, sort, and copy out. Reductions copy the data in
 * like the single shot; the CPU reduces data that does not fit.
 * A failed cudaMalloc gives OUT_OF_DEVICE_MEMORY, never a crash; on the sort path it makes the
 * runs smaller.
 *
 * Testing knobs (environment variables): GPUSORT_CUDA_HOST_RUN_KEYS=N caps host-path runs at N
 * keys, so that the runs + CPU merge path runs at test sizes; GPUSORT_CUDA_HOST_CHUNK_KEYS=N
 * makes the pipeline run at any n > N with chunks of the largest 4096 * 2^k <= N keys (several
 * chunks, merge passes and output ranges at test sizes); GPUSORT_CUDA_HOST_PIPELINE=0 turns the
 * pipeline off, =1 on for pageable arrays too (bench_cuda --suite host times both).
 */
#include "block_sort.h"
#include "cpu/cpu.h"

#include <cuda_runtime.h>
#include <stdlib.h>
#include <string.h>

/* Size of each of the two pinned staging buffers for pageable host data: large enough that one
 * cudaMemcpyAsync runs at full PCIe rate and that the threads copying it into pinned memory
 * (STAGE_THREADS of them: one thread's memcpy reaches ~7 GB/s, far below PCIe 5) start rarely,
 * small enough to keep pinned memory modest. */
#define STAGE_BYTES ((size_t)32 << 20)
#define STAGE_THREADS 8

/* The host pipeline (host_pipeline below). From HOST_PIPE_MIN_KEYS keys on, the array goes to
 * the device in HOST_PIPE_CHUNKS chunks (a power of two times 4096 keys each, so the chunks are
 * the merge's runs), and the last merge pass in HOST_PIPE_RANGES ranges.
 *   HOST_PIPE_MIN_KEYS 2^22 (16 MiB of u32): what the pipeline can hide is the sort's time
 *     (about 0.1 ms at 2^22 u32 on an H200, 5 ms at 2^28); what it adds is a merge pass per
 *     doubling of the chunk count beyond the one that overlaps the copy-out, and ~10 launches
 *     and events (some 10 us each on the host). Below 2^22 that leaves nothing to gain (an
 *     estimate, not a measurement: the benchmark measures 2^28).
 *   HOST_PIPE_CHUNKS 4: after the last chunk's copy-in, the sort of that chunk and all merge
 *     passes but the last are exposed: T_sort(n/C) + (log2(C) - 1) * T_pass. At 2^28 u32
 *     (T_sort(2^28) ~ 5.2 ms, T_pass ~ 0.7 ms) that is least for C = 4 and 8, which measured
 *     level; 2 and 16 were slower (bench/results/host-pipeline-2026-11-24.md).
 *   HOST_PIPE_RANGES 8: the copy-out of range 0 waits for its merge, 1/8 of the last pass
 *     (~0.1 ms at 2^28); the merge runs ~30x faster than PCIe, so later ranges are ready before
 *     the copy engine reaches them. */
#define HOST_PIPE_MIN_KEYS ((size_t)1 << 22)
#define HOST_PIPE_CHUNKS 4
#define HOST_PIPE_RANGES GPUSORT_CUDA_HOST_PIPE_RANGES /* 8: the context has an event per range */

/* Device memory left free for the runtime, kernels' look-back state and other users when the
 * host path sizes its runs. */
#define DEVICE_MEM_RESERVE ((size_t)512 << 20)

/* ---- host <-> device copies ---- */

/* memcpy on up to STAGE_THREADS threads (pageable <-> pinned staging). */
typedef struct par_copy {
    char *dst;
    const char *src;
    size_t len, part;
} par_copy;

static void par_copy_task(void *arg, size_t i)
{
    par_copy *p = (par_copy *)arg;
    size_t off = i * p->part;
    if (off < p->len) memcpy(p->dst + off, p->src + off, p->len - off < p->part ? p->len - off : p->part);
}

static void par_memcpy(gpusort_ctx *ctx, void *dst, const void *src, size_t len)
{
    int t = gpusort__threads(ctx);
    if (t > STAGE_THREADS) t = STAGE_THREADS;
    if (len < ((size_t)1 << 20) || t <= 1) {
        memcpy(dst, src, len);
        return;
    }
    par_copy p = {(char *)dst, (const char *)src, len, ((len + t - 1) / t + 4095) & ~(size_t)4095};
    /* On a failure to start threads the tasks still all run (on this thread). */
    (void)gpusort__cpu_parallel_for(t, (size_t)t, par_copy_task, &p);
}

static gpusort_status stage_alloc(gpusort_ctx *ctx)
{
    gpusort__cuda_impl *im = gpusort__cuda_impl_of(ctx);
    for (int i = 0; i < 2; i++) {
        if (im->stage[i]) continue;
        cudaError_t e = cudaHostAlloc(&im->stage[i], STAGE_BYTES, cudaHostAllocDefault);
        if (e != cudaSuccess) {
            im->stage[i] = NULL;
            return gpusort__cuda_check(ctx, e, "cudaHostAlloc (staging)");
        }
    }
    return GPUSORT_STATUS_SUCCESS;
}

/* Enqueue the copy of `bytes` from host `src` to device `dst` on the copy streams and make the
 * context's stream wait for it (work enqueued there afterwards sees the data). The copy streams
 * must already be ordered after earlier users of dst (gpusort__cuda_copy_h2d does that; the host
 * pipeline once for all its chunks). Pinned: one cudaMemcpyAsync on copy stream 0. Pageable:
 * double-buffered through the staging buffers (stage_alloc'd by the caller), buffer b on copy
 * stream b; the call returns when the CPU has filled the last staging buffer, the DMAs may still
 * run. */
static gpusort_status h2d_enqueue(gpusort_ctx *ctx, void *dst, const void *src, size_t bytes,
                                  int pinned)
{
    gpusort__cuda_impl *im = gpusort__cuda_impl_of(ctx);
    gpusort_status s;
    if (bytes == 0) return GPUSORT_STATUS_SUCCESS;
    if (pinned) {
        if ((s = gpusort__cuda_check(ctx, cudaMemcpyAsync(dst, src, bytes, cudaMemcpyHostToDevice,
                                                          im->copy_stream[0]),
                                     "cudaMemcpyAsync (host to device)")))
            return s;
        cudaEventRecord(im->copy_done[0], im->copy_stream[0]);
        cudaStreamWaitEvent(im->stream, im->copy_done[0], 0);
        return gpusort__cuda_check(ctx, cudaGetLastError(), "host to device copy");
    }
    size_t chunks = (bytes + STAGE_BYTES - 1) / STAGE_BYTES;
    for (size_t c = 0; c < chunks; c++) {
        int b = (int)(c & 1);
        size_t off = c * STAGE_BYTES, len = bytes - off < STAGE_BYTES ? bytes - off : STAGE_BYTES;
        /* The buffer's previous DMA (of this call or an earlier one) must be done. */
        if ((s = gpusort__cuda_check(ctx, cudaEventSynchronize(im->copy_done[b]),
                                     "cudaEventSynchronize (staging)")))
            return s;
        par_memcpy(ctx, im->stage[b], (const char *)src + off, len);
        if ((s = gpusort__cuda_check(ctx, cudaMemcpyAsync((char *)dst + off, im->stage[b], len,
                                                          cudaMemcpyHostToDevice,
                                                          im->copy_stream[b]),
                                     "cudaMemcpyAsync (staging to device)")))
            return s;
        cudaEventRecord(im->copy_done[b], im->copy_stream[b]);
    }
    for (int i = 0; i < 2; i++) {
        cudaEventRecord(im->copy_done[i], im->copy_stream[i]);
        cudaStreamWaitEvent(im->stream, im->copy_done[i], 0);
    }
    return gpusort__cuda_check(ctx, cudaGetLastError(), "host to device copy");
}

/* Copy `bytes` from host `src` to device `dst`; the data is ready for work enqueued on the
 * context's stream afterwards. Pinned memory: one cudaMemcpyAsync on the stream. Pageable:
 * double-buffered through the staging buffers on the two copy streams. */
extern "C" gpusort_status gpusort__cuda_copy_h2d(gpusort_ctx *ctx, void *dst, const void *src,
                                                 size_t bytes, int pinned)
{
    gpusort__cuda_impl *im = gpusort__cuda_impl_of(ctx);
    if (bytes == 0) return GPUSORT_STATUS_SUCCESS;
    if (pinned)
        return gpusort__cuda_check(ctx, cudaMemcpyAsync(dst, src, bytes, cudaMemcpyHostToDevice,
                                                        im->stream),
                                   "cudaMemcpyAsync (host to device)");
    gpusort_status s = stage_alloc(ctx);
    if (s) { /* no pinned memory to be had: the driver's own (synchronous) staging */
        ctx->last_error[0] = 0;
        return gpusort__cuda_check(ctx, cudaMemcpy(dst, src, bytes, cudaMemcpyHostToDevice),
                                   "cudaMemcpy (host to device)");
    }
    /* Earlier work on the stream may still use dst: the copy streams wait for it. */
    cudaEventRecord(im->ready, im->stream);
    for (int i = 0; i < 2; i++) cudaStreamWaitEvent(im->copy_stream[i], im->ready, 0);
    return h2d_enqueue(ctx, dst, src, bytes, 0);
}

/* A device-to-host copy through the staging buffers: segments, each copied once `gate` (an
 * event recorded on the context's stream; NULL = none) has happened. */
typedef struct d2h_seg {
    char *dst;          /* host, pageable */
    const char *src;    /* device */
    size_t len;
    cudaEvent_t gate;
} d2h_seg;

/* The segments, cut into pieces of STAGE_BYTES, go through the two staging buffers in turn:
 * piece k by DMA into buffer k & 1 on copy stream k & 1, enqueued before the CPU drains piece
 * k - 1 from the other buffer, so the DMA runs while the CPU copies. A DMA into buffer b
 * follows that buffer's earlier DMAs on the same copy stream, and the CPU has drained it before
 * (the piece two back, drained in the previous step), so it is free. Returns when every byte is
 * in place. The copy streams must already be ordered after the writers of the sources (gates,
 * or the caller's wait on `ready`). */
static gpusort_status d2h_staged(gpusort_ctx *ctx, const d2h_seg *seg, size_t nseg)
{
    gpusort__cuda_impl *im = gpusort__cuda_impl_of(ctx);
    gpusort_status s;
    char *pend_dst[2] = {NULL, NULL};
    size_t pend_len[2] = {0, 0};
    size_t k = 0;
    for (size_t i = 0; i <= nseg; i++) {
        size_t len_i = i < nseg ? seg[i].len : STAGE_BYTES; /* i == nseg: drain the last piece */
        for (size_t off = 0; off < len_i; off += STAGE_BYTES) {
            const int b = (int)(k & 1);
            if (i < nseg) {
                const size_t len = len_i - off < STAGE_BYTES ? len_i - off : STAGE_BYTES;
                if (seg[i].gate) cudaStreamWaitEvent(im->copy_stream[b], seg[i].gate, 0);
                if ((s = gpusort__cuda_check(ctx, cudaMemcpyAsync(im->stage[b], seg[i].src + off,
                                                                  len, cudaMemcpyDeviceToHost,
                                                                  im->copy_stream[b]),
                                             "cudaMemcpyAsync (device to staging)")))
                    return s;
                cudaEventRecord(im->copy_done[b], im->copy_stream[b]);
                pend_dst[b] = seg[i].dst + off;
                pend_len[b] = len;
            }
            if (k >= 1 && pend_dst[b ^ 1]) { /* drain piece k - 1 */
                if ((s = gpusort__cuda_check(ctx, cudaEventSynchronize(im->copy_done[b ^ 1]),
                                             "cudaEventSynchronize (staging)")))
                    return s;
                par_memcpy(ctx, pend_dst[b ^ 1], im->stage[b ^ 1], pend_len[b ^ 1]);
                pend_dst[b ^ 1] = NULL;
            }
            k++;
            if (i == nseg) break;
        }
    }
    return gpusort__cuda_check(ctx, cudaGetLastError(), "device to host copy");
}

/* Copy `bytes` from device `src` (written by work on the context's stream) to host `dst`; the
 * call returns when the data is in dst. */
static gpusort_status copy_d2h(gpusort_ctx *ctx, void *dst, const void *src, size_t bytes,
                               int pinned)
{
    gpusort__cuda_impl *im = gpusort__cuda_impl_of(ctx);
    gpusort_status s;
    if (bytes == 0) return GPUSORT_STATUS_SUCCESS;
    if (pinned) {
        if ((s = gpusort__cuda_check(ctx, cudaMemcpyAsync(dst, src, bytes,
                                                          cudaMemcpyDeviceToHost, im->stream),
                                     "cudaMemcpyAsync (device to host)")))
            return s;
        return gpusort__cuda_check(ctx, cudaStreamSynchronize(im->stream),
                                   "cudaStreamSynchronize");
    }
    if ((s = stage_alloc(ctx))) {
        ctx->last_error[0] = 0;
        if ((s = gpusort__cuda_check(ctx, cudaStreamSynchronize(im->stream),
                                     "cudaStreamSynchronize")))
            return s;
        return gpusort__cuda_check(ctx, cudaMemcpy(dst, src, bytes, cudaMemcpyDeviceToHost),
                                   "cudaMemcpy (device to host)");
    }
    cudaEventRecord(im->ready, im->stream);
    for (int i = 0; i < 2; i++) cudaStreamWaitEvent(im->copy_stream[i], im->ready, 0);
    const d2h_seg one = {(char *)dst, (const char *)src, bytes, NULL};
    return d2h_staged(ctx, &one, 1);
}

/* ---- sorts ---- */

/* One run of the host path: elements [off, off + m) of d go to the device, are sorted there and
 * come back to keys_out/values_out (host, same offsets), which may be d's outputs or a host
 * temporary. */
static gpusort_status host_run(gpusort_ctx *ctx, const gpusort__sort_args *d, size_t off, size_t m,
                               void *keys_out, void *values_out, const int *pinned)
{
    size_t ks = gpusort_type_size(d->key_type);
    size_t vs = d->value_type == GPUSORT_TYPE_NONE ? 0 : gpusort_type_size(d->value_type);
    gpusort_status s;
    void *dk = gpusort__cuda_scratch(ctx, GPUSORT_CUDA_SCRATCH_IO_KEYS, m * ks);
    if (!dk) return GPUSORT_STATUS_OUT_OF_DEVICE_MEMORY;
    void *dv = NULL;
    if (vs) {
        dv = gpusort__cuda_scratch(ctx, GPUSORT_CUDA_SCRATCH_IO_VALUES, m * vs);
        if (!dv) return GPUSORT_STATUS_OUT_OF_DEVICE_MEMORY;
    }
    if ((s = gpusort__cuda_copy_h2d(ctx, dk, (const char *)d->keys_in + off * ks, m * ks,
                                    pinned[0])))
        return s;
    if (vs && d->values_in &&
        (s = gpusort__cuda_copy_h2d(ctx, dv, (const char *)d->values_in + off * vs, m * vs,
                                    pinned[2])))
        return s;
    gpusort__sort_args dd = *d;
    dd.keys_in = dk;
    dd.keys_out = dk;
    dd.values_in = d->values_in ? dv : NULL;
    dd.values_out = dv;
    dd.n = m;
    if ((s = gpusort__cuda_dispatch(ctx, &dd))) return s;
    if (keys_out && (s = copy_d2h(ctx, (char *)keys_out + off * ks, dk, m * ks, pinned[1])))
        return s;
    if (vs && (s = copy_d2h(ctx, (char *)values_out + off * vs, dv, m * vs, pinned[3]))) return s;
    return GPUSORT_STATUS_SUCCESS;
}

/* The largest run of the host path that fits on the device with the sort's scratch: the IO
 * buffers plus the radix sort's alternate buffers, 2 * (K + V) bytes a key. */
static size_t host_run_capacity(gpusort_ctx *ctx, size_t per_key)
{
    /* Testing knob: GPUSORT_CUDA_HOST_RUN_KEYS=N caps a run at N keys, so that the run + merge
     * path can be tested without filling the device (scripts/gpu_check.sh test does). */
    const char *knob = getenv("GPUSORT_CUDA_HOST_RUN_KEYS");
    const size_t cap_knob = knob ? (size_t)strtoull(knob, NULL, 10) : 0;
    size_t free_b = 0, total_b = 0;
    if (cudaMemGetInfo(&free_b, &total_b) != cudaSuccess) {
        (void)cudaGetLastError();
        return 0;
    }
    /* Our own scratch counts as available: it is released before the run is sized. */
    gpusort__cuda_impl *im = gpusort__cuda_impl_of(ctx);
    for (int i = 0; i < GPUSORT_CUDA_SCRATCH_COUNT; i++) free_b += im->scratch_bytes[i];
    if (free_b <= DEVICE_MEM_RESERVE) return 0;
    const size_t cap = (free_b - DEVICE_MEM_RESERVE) / (2 * per_key + 1);
    return cap_knob && cap_knob < cap ? cap_knob : cap;
}

/* ---- the host pipeline ---- */

/* v[i] = i: argsort's indices, made on the device before the chunks arrive, so that each chunk
 * sorts as pairs whose values are already global positions. */
static __global__ void fill_iota(void *v, size_t n, int wide)
{
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n;
         i += (size_t)gridDim.x * blockDim.x) {
        if (wide) ((uint64_t *)v)[i] = i;
        else ((uint32_t *)v)[i] = (uint32_t)i;
    }
}

/* The chunk length of the host pipeline for d, or 0 where the single-shot path runs: algorithms
 * other than radix, merge and AUTO (bitonic or rank named: chunks merged would not be that sort),
 * GPUSORT_CUDA_HOST_PIPELINE=0 (bench_cuda --suite host times both), n below HOST_PIPE_MIN_KEYS,
 * pageable arrays unless asked for (below).
 * A chunk is 4096 * 2^k keys (the merge passes' run widths): the smallest with at most
 * HOST_PIPE_CHUNKS chunks. Testing knob: GPUSORT_CUDA_HOST_CHUNK_KEYS=N takes the largest such
 * length <= N (at least 4096) at any n, so that several chunks and merge passes run at test
 * sizes. */
static size_t host_pipe_chunk(const gpusort__sort_args *d, const int *pinned)
{
    if (d->algorithm != GPUSORT_ALGORITHM_AUTO && d->algorithm != GPUSORT_ALGORITHM_RADIX &&
        d->algorithm != GPUSORT_ALGORITHM_MERGE)
        return 0;
    const char *ab = getenv("GPUSORT_CUDA_HOST_PIPELINE");
    if (ab && !strcmp(ab, "0")) return 0;
    const char *knob = getenv("GPUSORT_CUDA_HOST_CHUNK_KEYS");
    const size_t want = knob ? (size_t)strtoull(knob, NULL, 10) : 0;
    /* Pageable arrays: only when asked (GPUSORT_CUDA_HOST_PIPELINE=1, or the chunk knob). Their
     * round trip is bound by the CPU's copies into staging (70-120 ms for 1 GiB against 39 ms
     * of DMA), and the pipeline showed no gain over the single shot there
     * (bench/results/host-pipeline-2026-11-24.md). */
    const int all_pinned = pinned[0] && (!d->keys_out || pinned[1]) &&
                           (d->value_type == GPUSORT_TYPE_NONE ||
                            ((!d->values_in || pinned[2]) && pinned[3]));
    if (!all_pinned && !want && !(ab && !strcmp(ab, "1"))) return 0;
    size_t m = GPUSORT_CUDA_BLOCK_TILE;
    if (want) {
        while (m * 2 <= want) m *= 2;
    } else {
        if (d->n < HOST_PIPE_MIN_KEYS) return 0;
        while (m * HOST_PIPE_CHUNKS < d->n) m *= 2;
    }
    return d->n > m ? m : 0;
}

/* Wait for everything the pipeline enqueued (an error path must not leave DMAs running into
 * staging buffers or scratch that the next call reuses). */
static void pipe_drain(gpusort__cuda_impl *im)
{
    cudaStreamSynchronize(im->copy_stream[0]);
    cudaStreamSynchronize(im->copy_stream[1]);
    cudaStreamSynchronize(im->stream);
    (void)cudaGetLastError();
}

/* Sort host data through the device in chunks of m keys (host_pipe_chunk):
 *   1. copy chunk c in (copy streams) while the device sorts chunk c - 1 (the device-data sort,
 *      in place in IO_KEYS/IO_VALUES, on the context's stream after chunk c's copy event);
 *   2. merge the sorted chunks (gpusort__cuda_merge_runs, ping-pong with KEYS/VALUES); its last
 *      pass in HOST_PIPE_RANGES ranges, each followed by an event;
 *   3. copy range j out (copy streams, gated by its event) while range j + 1 merges.
 * Argsort sorts pairs: its indices are made on the device (fill_iota) while chunk 0 arrives.
 * OUT_OF_DEVICE_MEMORY (scratch or staging not to be had) leaves the host arrays untouched and
 * the device idle, so the caller can take the single-shot path; the call completes before
 * returning. */
static gpusort_status host_pipeline(gpusort_ctx *ctx, const gpusort__sort_args *d,
                                    const int *pinned, size_t m)
{
    gpusort__cuda_impl *im = gpusort__cuda_impl_of(ctx);
    const size_t n = d->n;
    const size_t ks = gpusort_type_size(d->key_type);
    const size_t vs = d->value_type == GPUSORT_TYPE_NONE ? 0 : gpusort_type_size(d->value_type);
    const int argsort = vs && !d->values_in;
    gpusort_status s;
    char *dk = (char *)gpusort__cuda_scratch(ctx, GPUSORT_CUDA_SCRATCH_IO_KEYS, n * ks);
    char *dv = vs ? (char *)gpusort__cuda_scratch(ctx, GPUSORT_CUDA_SCRATCH_IO_VALUES, n * vs)
                  : NULL;
    /* The merge's ping-pong buffers, taken now at full size: the chunk sorts then find their
     * alternate buffers there and no scratch grows (cudaFree waits for the device) mid-way. */
    char *ak = (char *)gpusort__cuda_scratch(ctx, GPUSORT_CUDA_SCRATCH_KEYS, n * ks);
    char *av = vs ? (char *)gpusort__cuda_scratch(ctx, GPUSORT_CUDA_SCRATCH_VALUES, n * vs)
                  : NULL;
    if (!dk || !ak || (vs && (!dv || !av))) return GPUSORT_STATUS_OUT_OF_DEVICE_MEMORY;
    const int pageable = !pinned[0] || (d->keys_out && !pinned[1]) ||
                         (vs && d->values_in && !pinned[2]) || (vs && !pinned[3]);
    if (pageable && stage_alloc(ctx)) /* no pinned memory: the single-shot path copies without */
        return GPUSORT_STATUS_OUT_OF_DEVICE_MEMORY;

    /* Earlier work on the stream may still use the buffers: the copy streams wait for it. */
    cudaEventRecord(im->ready, im->stream);
    for (int i = 0; i < 2; i++) cudaStreamWaitEvent(im->copy_stream[i], im->ready, 0);
    if (argsort) {
        const size_t blocks = (n + 255) / 256 < 4096 ? (n + 255) / 256 : 4096;
        fill_iota<<<(unsigned)blocks, 256, 0, im->stream>>>(dv, n, vs == 8);
        if ((s = gpusort__cuda_check(ctx, cudaGetLastError(), "fill_iota"))) goto fail;
    }
    for (size_t off = 0; off < n; off += m) {
        const size_t mc = n - off < m ? n - off : m;
        if ((s = h2d_enqueue(ctx, dk + off * ks, (const char *)d->keys_in + off * ks, mc * ks,
                             pinned[0])))
            goto fail;
        if (vs && !argsort &&
            (s = h2d_enqueue(ctx, dv + off * vs, (const char *)d->values_in + off * vs, mc * vs,
                             pinned[2])))
            goto fail;
        gpusort__sort_args cd = *d;
        cd.keys_in = cd.keys_out = dk + off * ks;
        cd.values_in = cd.values_out = vs ? dv + off * vs : NULL;
        cd.n = mc;
        if ((s = gpusort__cuda_dispatch(ctx, &cd))) goto fail;
    }
    {
        /* The ping-pong buffers again: a chunk sort whose scratch outgrew them (a bitonic item
         * of key + index, with a test knob's n barely above m) has replaced them. */
        ak = (char *)gpusort__cuda_scratch(ctx, GPUSORT_CUDA_SCRATCH_KEYS, n * ks);
        av = vs ? (char *)gpusort__cuda_scratch(ctx, GPUSORT_CUDA_SCRATCH_VALUES, n * vs) : NULL;
        if (!ak || (vs && !av)) {
            s = GPUSORT_STATUS_OUT_OF_DEVICE_MEMORY;
            goto fail;
        }
        gpusort__sort_args md = *d;
        md.keys_out = dk;
        md.values_out = dv;
        uint64_t end[HOST_PIPE_RANGES];
        int alt = 0;
        if ((s = gpusort__cuda_merge_runs(ctx, &md, m, ak, av, im->range_done, end,
                                          HOST_PIPE_RANGES, &alt)))
            goto fail;
        const char *rk = alt ? ak : dk, *rv = alt ? av : dv;
        /* Copy-out: pinned arrays by one DMA per range on copy stream 0; pageable ones through
         * staging (d2h_staged), both gated by the range's event. */
        d2h_seg seg[2 * HOST_PIPE_RANGES];
        size_t nseg = 0;
        for (int j = 0; j < HOST_PIPE_RANGES; j++) {
            const size_t lo = j ? end[j - 1] : 0, cnt = end[j] - lo;
            for (int a = 0; a < 2 && cnt; a++) {
                const size_t es = a ? vs : ks;
                char *dst = (char *)(a ? d->values_out : d->keys_out);
                if (!es || !dst) continue;
                const char *src = (a ? rv : rk) + lo * es;
                if (pinned[a ? 3 : 1]) {
                    cudaStreamWaitEvent(im->copy_stream[0], im->range_done[j], 0);
                    if ((s = gpusort__cuda_check(ctx, cudaMemcpyAsync(dst + lo * es, src, cnt * es,
                                                                      cudaMemcpyDeviceToHost,
                                                                      im->copy_stream[0]),
                                                 "cudaMemcpyAsync (device to host)")))
                        goto fail;
                } else {
                    const d2h_seg g = {dst + lo * es, src, cnt * es, im->range_done[j]};
                    seg[nseg++] = g;
                }
            }
        }
        if ((s = d2h_staged(ctx, seg, nseg))) goto fail;
        if ((s = gpusort__cuda_check(ctx, cudaStreamSynchronize(im->copy_stream[0]),
                                     "cudaStreamSynchronize (copy-out)")))
            goto fail;
        return gpusort__cuda_check(ctx, cudaStreamSynchronize(im->stream),
                                   "cudaStreamSynchronize");
    }
fail:
    /* OUT_OF_DEVICE_MEMORY comes only from scratch (chunk sorts, merge), before the copy-out:
     * once the device is drained the host arrays are untouched, and the caller may retry. */
    pipe_drain(im);
    return s;
}

extern "C" gpusort_status gpusort__cuda_sort_host(gpusort_ctx *ctx, const gpusort__sort_args *d,
                                                  const int *pinned)
{
    if (d->algorithm == GPUSORT_ALGORITHM_AUTO && gpusort__cuda_auto_on_cpu(ctx, d))
        return gpusort__cpu_sort(ctx, d);
    /* A caller's workspace holds the single shot's buffers (scratch.cu sized it so). */
    if (gpusort__cuda_impl_of(ctx)->ws)
        return host_run(ctx, d, 0, d->n, d->keys_out, d->values_out, pinned);
    size_t n = d->n;
    size_t ks = gpusort_type_size(d->key_type);
    size_t vs = d->value_type == GPUSORT_TYPE_NONE ? 0 : gpusort_type_size(d->value_type);
    size_t cap = host_run_capacity(ctx, ks + vs);
    if (n <= cap) {
        gpusort_status s;
        const size_t m = host_pipe_chunk(d, pinned);
        if (m) {
            s = host_pipeline(ctx, d, pinned, m);
            if (s != GPUSORT_STATUS_OUT_OF_DEVICE_MEMORY) return s;
            ctx->last_error[0] = 0; /* host arrays untouched: try the single-shot path */
        }
        s = host_run(ctx, d, 0, n, d->keys_out, d->values_out, pinned);
        if (s != GPUSORT_STATUS_OUT_OF_DEVICE_MEMORY) return s;
        ctx->last_error[0] = 0;
        cap = n / 2; /* someone else took the memory meanwhile: fall through to runs */
    }
    if (cap == 0 || (cap < 1024 && !getenv("GPUSORT_CUDA_HOST_RUN_KEYS")))
        return gpusort__set_error(ctx, GPUSORT_STATUS_OUT_OF_DEVICE_MEMORY,
                                  "too little device memory for host data of %zu keys", n);
    if (d->algorithm != GPUSORT_ALGORITHM_AUTO && d->algorithm != GPUSORT_ALGORITHM_RADIX &&
        d->algorithm != GPUSORT_ALGORITHM_MERGE)
        return gpusort__set_error(ctx, GPUSORT_STATUS_UNSUPPORTED,
                                  "%zu keys do not fit on the device for this algorithm", n);

    /* Runs: sorted on the device into host temporaries, then merged on the CPU. */
    gpusort__cuda_scratch_release(gpusort__cuda_impl_of(ctx));
    {
        size_t again = host_run_capacity(ctx, ks + vs);
        cap = again < cap || cap >= n ? again : cap;
    }
    if (cap == 0)
        return gpusort__set_error(ctx, GPUSORT_STATUS_OUT_OF_DEVICE_MEMORY,
                                  "too little device memory for host data of %zu keys", n);
    size_t runs = (n + cap - 1) / cap;
    gpusort__sort_args rd = *d;
    char *tk = (char *)malloc(n * ks);
    char *tv = vs ? (char *)malloc(n * vs) : NULL;
    char *iota = (vs && !d->values_in) ? (char *)malloc(n * vs) : NULL;
    uint64_t *offs = (uint64_t *)malloc((runs + 1) * sizeof *offs);
    int tpin[4] = {pinned[0], 0, pinned[2], 0};
    gpusort_status s = GPUSORT_STATUS_SUCCESS;
    if (!tk || (vs && !tv) || (vs && !d->values_in && !iota) || !offs) {
        s = gpusort__set_error(ctx, GPUSORT_STATUS_OUT_OF_HOST_MEMORY,
                               "host temporaries for %zu keys in %zu runs", n, runs);
        goto done;
    }
    if (iota) { /* argsort in runs: the runs sort pairs whose values are the global indices */
        if (vs == 4) for (size_t i = 0; i < n; i++) ((uint32_t *)iota)[i] = (uint32_t)i;
        else for (size_t i = 0; i < n; i++) ((uint64_t *)iota)[i] = i;
        rd.values_in = iota;
        tpin[2] = 0;
    }
    for (size_t r = 0; r < runs; r++) {
        size_t off = r * cap, m = n - off < cap ? n - off : cap;
        offs[r] = off;
        if ((s = host_run(ctx, &rd, off, m, tk, tv, tpin))) goto done;
    }
    offs[runs] = n;
    {
        gpusort__sort_args md = *d;
        md.keys_in = tk;
        md.values_in = tv;
        /* argsort: keys_out may be NULL; merge the keys into the key temporary's twin. */
        char *mk = NULL;
        if (!md.keys_out) {
            mk = (char *)malloc(n * ks);
            if (!mk) {
                s = gpusort__set_error(ctx, GPUSORT_STATUS_OUT_OF_HOST_MEMORY, "merge keys");
                goto done;
            }
            md.keys_out = mk;
        }
        s = gpusort__cpu_merge_runs(ctx, &md, offs, runs);
        free(mk);
    }
done:
    free(tk);
    free(tv);
    free(iota);
    free(offs);
    return s;
}

/* ---- segmented sort and reduce ---- */

/* Keys and values through the IO slots to the device, the segmented sort there, and back. */
extern "C" gpusort_status gpusort__cuda_segmented_host(gpusort_ctx *ctx,
                                                       const gpusort__sort_args *d,
                                                       const uint64_t *d_offsets,
                                                       size_t num_segments, const int *pinned)
{
    size_t ks = gpusort_type_size(d->key_type);
    size_t vs = d->value_type == GPUSORT_TYPE_NONE ? 0 : gpusort_type_size(d->value_type);
    gpusort_status s;
    void *dk = gpusort__cuda_scratch(ctx, GPUSORT_CUDA_SCRATCH_IO_KEYS, d->n * ks);
    void *dv = vs ? gpusort__cuda_scratch(ctx, GPUSORT_CUDA_SCRATCH_IO_VALUES, d->n * vs) : NULL;
    if (!dk || (vs && !dv)) return GPUSORT_STATUS_OUT_OF_DEVICE_MEMORY;
    if ((s = gpusort__cuda_copy_h2d(ctx, dk, d->keys_in, d->n * ks, pinned[0]))) return s;
    if (vs && d->values_in &&
        (s = gpusort__cuda_copy_h2d(ctx, dv, d->values_in, d->n * vs, pinned[2])))
        return s;
    gpusort__sort_args dd = *d;
    dd.keys_in = dk;
    dd.keys_out = dk;
    dd.values_in = d->values_in ? dv : NULL;
    dd.values_out = dv;
    if ((s = gpusort__cuda_segmented_sort(ctx, &dd, d_offsets, num_segments))) return s;
    if (d->keys_out && (s = copy_d2h(ctx, d->keys_out, dk, d->n * ks, pinned[1]))) return s;
    if (vs && (s = copy_d2h(ctx, d->values_out, dv, d->n * vs, pinned[3]))) return s;
    return GPUSORT_STATUS_SUCCESS;
}

/* Host data goes onto the device (which then gives the same result as for device data). If it
 * does not fit, the CPU reduces it (a sum reads each byte once: host memory bandwidth beats the
 * PCIe link it would otherwise cross). */
extern "C" gpusort_status gpusort__cuda_reduce_host(gpusort_ctx *ctx, gpusort_type type,
                                                    const void *data, size_t n, gpusort_op op,
                                                    gpusort_value *result, int pinned)
{
    gpusort_status s;
    size_t bytes = n * gpusort_type_size(type);
    void *dd = gpusort__cuda_scratch(ctx, GPUSORT_CUDA_SCRATCH_IO_KEYS, bytes);
    if (!dd) {
        ctx->last_error[0] = 0;
        return gpusort__cpu_reduce(ctx, type, data, n, op, result);
    }
    if ((s = gpusort__cuda_copy_h2d(ctx, dd, data, bytes, pinned))) return s;
    return gpusort__cuda_reduce(ctx, type, dd, n, op, result);
}
