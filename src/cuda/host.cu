/*
 * host.cu -- the CUDA backend's host-data paths: sorts, segmented sorts and reductions whose
 * arrays live in host memory go to the device, run there, and come back.
 *
 * Exports (cuda_internal.h): gpusort__cuda_sort_host, gpusort__cuda_hostdev (the device
 * operations src/hostdata.c drives, also the backend table's `hostdev` for hoststream.c),
 * gpusort__cuda_segmented_host, gpusort__cuda_reduce_host, gpusort__cuda_copy_h2d. backend.cu
 * calls them after it has found the call's pointers in host memory; every call completes
 * before returning.
 *
 * Sorts (gpusort__cuda_sort_host): AUTO below the host crossover of auto.cu goes to the CPU
 * backend; everything else is src/hostdata.c's pipeline over the operations below (hd_*):
 *   copies      in on copy stream 0, out on copy stream 1, from several host threads; pinned
 *               arrays are copied straight, pageable arrays and callbacks through hostdata.c's
 *               staging, which is pinned memory kept by the context (hd_staging)
 *   chunks      from HOST_PIPE_MIN_KEYS (2^22) keys with AUTO, radix or merge (hd_chunk): up
 *               to 4 chunks, chunk c sorted in place (the device-data sort) on the context's
 *               stream while chunk c + 1 is copied in; then merge.cu's merge passes
 *               (gpusort__cuda_merge_runs: stable, ties to the earlier chunk), the last in 8
 *               ranges each followed by an event, so that the copy-out of range j overlaps the
 *               merge of range j + 1. Exposed beyond the two copies: the last chunk's sort, the
 *               merge passes but the last, and 1/8 of the last. 0.94 of a bare pinned copy-in +
 *               copy-out for 1 GiB u32 (bench/results/host-pipeline-2026-11-24.md).
 *   one chunk   smaller n, bitonic or rank named (chunks merged would not be that sort), a
 *               caller's workspace set (gpusort_ctx_set_scratch: sized for this), or
 *               GPUSORT_CUDA_HOST_PIPELINE=0: copy in, sort, copy out.
 *   runs        arrays larger than the device can hold (IO buffers + the radix sort's
 *               alternate buffers, host_run_capacity) are sorted in runs and merged on the
 *               CPU by hostdata.c (it says why the CPU).
 * Segmented sorts copy keys and values in (gpusort__cuda_copy_h2d: pinned directly, pageable
 * double-buffered through two 32 MiB staging buffers filled by 8 threads), sort, and copy out.
 * Reductions copy the data in the same way; the CPU reduces data that does not fit.
 * A failed cudaMalloc gives OUT_OF_DEVICE_MEMORY, never a crash; on the sort path hostdata.c
 * then tries one chunk, then runs of half the size.
 *
 * Testing knobs (environment variables): GPUSORT_CUDA_HOST_RUN_KEYS=N caps host-path runs at N
 * keys, so that the runs + CPU merge path runs at test sizes; GPUSORT_CUDA_HOST_CHUNK_KEYS=N
 * makes chunks of the largest 4096 * 2^k <= N keys at any n > N (several chunks, merge passes
 * and output ranges at test sizes); GPUSORT_CUDA_HOST_PIPELINE=0 sorts in one chunk (bench_cuda
 * --suite host times both); hostdata.c's knobs set its piece size and threads.
 */
#include "block_sort.h"
#include "cpu/cpu.h"

#include <cuda_runtime.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

/* Size of each of the two pinned staging buffers for pageable host data: large enough that one
 * cudaMemcpyAsync runs at full PCIe rate and that the threads copying it into pinned memory
 * (STAGE_THREADS of them: one thread's memcpy reaches ~7 GB/s, far below PCIe 5) start rarely,
 * small enough to keep pinned memory modest. */
#define STAGE_BYTES ((size_t)32 << 20)
#define STAGE_THREADS 8

/* The chunks of the host-data pipeline (hd_chunk, hd_finish below). From HOST_PIPE_MIN_KEYS keys on, the array goes to
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

extern "C" void gpusort__cuda_par_memcpy(gpusort_ctx *ctx, void *dst, const void *src, size_t len)
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

/* ---- pinned memory ----
 * cudaHostAlloc pins page by page, and the host-data staging is made after the context, on the
 * critical path of every CLI sort. An anonymous mapping on transparent huge pages
 * (MADV_HUGEPAGE: the kernel's usual "madvise" setting gives them), touched by several threads
 * and then registered, costs a fraction of that (bench/results/pipeline-2026-11-28d.md); on
 * 4 KiB pages it costs about what cudaHostAlloc does. MADV_DONTFORK keeps a forked child from
 * sharing the pinned pages (it never needs them). Where registering fails (a platform without
 * it) cudaHostAlloc serves. */
#define PIN_ALIGN ((size_t)2 << 20)

typedef struct pin_touch {
    char *p;
    size_t bytes, part;
} pin_touch;

static void pin_touch_task(void *arg, size_t i)
{
    pin_touch *t = (pin_touch *)arg;
    for (size_t off = i * t->part; off < (i + 1) * t->part && off < t->bytes; off += 4096)
        t->p[off] = 0;
}

extern "C" gpusort_status gpusort__cuda_pinned_get(gpusort_ctx *ctx, gpusort__cuda_pinned *pin,
                                                   size_t bytes, const char *what)
{
    if (pin->p && pin->bytes >= bytes) return GPUSORT_STATUS_SUCCESS;
    gpusort__cuda_pinned_put(pin);
    const size_t len = (bytes + PIN_ALIGN - 1) & ~(PIN_ALIGN - 1);
    void *map = mmap(NULL, len + PIN_ALIGN, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS,
                     -1, 0);
    if (map != MAP_FAILED) {
        char *p = (char *)(((uintptr_t)map + PIN_ALIGN - 1) & ~(uintptr_t)(PIN_ALIGN - 1));
#ifdef MADV_HUGEPAGE
        (void)madvise(p, len, MADV_HUGEPAGE);
#endif
#ifdef MADV_DONTFORK
        (void)madvise(p, len, MADV_DONTFORK);
#endif
        int t = gpusort__threads(ctx);
        if (t > STAGE_THREADS) t = STAGE_THREADS;
        if (t < 1) t = 1;
        pin_touch tt = {p, len, ((len / (size_t)t) + PIN_ALIGN - 1) & ~(PIN_ALIGN - 1)};
        (void)gpusort__cpu_parallel_for(t, (size_t)t, pin_touch_task, &tt);
        if (cudaHostRegister(p, len, cudaHostRegisterDefault) == cudaSuccess) {
            pin->p = p;
            pin->bytes = len;
            pin->map = map;
            pin->map_len = len + PIN_ALIGN;
            return GPUSORT_STATUS_SUCCESS;
        }
        (void)cudaGetLastError();
        munmap(map, len + PIN_ALIGN);
    }
    cudaError_t e = cudaHostAlloc(&pin->p, bytes, cudaHostAllocDefault);
    if (e != cudaSuccess) {
        pin->p = NULL;
        return gpusort__cuda_check(ctx, e, what);
    }
    pin->bytes = bytes;
    return GPUSORT_STATUS_SUCCESS;
}

extern "C" void gpusort__cuda_pinned_put(gpusort__cuda_pinned *pin)
{
    if (pin->p && pin->map) {
        (void)cudaHostUnregister(pin->p);
        munmap(pin->map, pin->map_len);
    } else if (pin->p) {
        (void)cudaFreeHost(pin->p);
    }
    memset(pin, 0, sizeof *pin);
}

static gpusort_status stage_alloc(gpusort_ctx *ctx)
{
    gpusort__cuda_impl *im = gpusort__cuda_impl_of(ctx);
    gpusort_status s = GPUSORT_STATUS_SUCCESS;
    for (int i = 0; i < 2 && !s; i++)
        if (!im->stage[i].p) s = gpusort__cuda_pinned_get(ctx, &im->stage[i], STAGE_BYTES,
                                                          "pinned staging");
    return s;
}

/* Enqueue the copy of `bytes` from host `src` to device `dst` on the copy streams and make the
 * context's stream wait for it (work enqueued there afterwards sees the data). The copy streams
 * must already be ordered after earlier users of dst (gpusort__cuda_copy_h2d does that). Pinned: one cudaMemcpyAsync on copy stream 0. Pageable:
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
        gpusort__cuda_par_memcpy(ctx, im->stage[b].p, (const char *)src + off, len);
        if ((s = gpusort__cuda_check(ctx, cudaMemcpyAsync((char *)dst + off, im->stage[b].p, len,
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
                if ((s = gpusort__cuda_check(ctx, cudaMemcpyAsync(im->stage[b].p, seg[i].src + off,
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
                gpusort__cuda_par_memcpy(ctx, pend_dst[b ^ 1], im->stage[b ^ 1].p, pend_len[b ^ 1]);
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

/* ---- sorts: the device operations of hostdata.c ---- */

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

/* The chunk length of a run of n keys, or 0 for one chunk: algorithms other than radix, merge
 * and AUTO (bitonic or rank named: chunks merged would not be that sort), a caller's workspace
 * (sized for one chunk), GPUSORT_CUDA_HOST_PIPELINE=0 (bench_cuda --suite host times both), n
 * below HOST_PIPE_MIN_KEYS. A chunk is 4096 * 2^k keys (the merge passes' run widths): the
 * smallest with at most HOST_PIPE_CHUNKS chunks. Testing knob: GPUSORT_CUDA_HOST_CHUNK_KEYS=N
 * takes the largest such length <= N (at least 4096) at any n, so that several chunks and
 * merge passes run at test sizes. */
static size_t hd_chunk(gpusort_ctx *ctx, const gpusort__sort_args *d, size_t n, int direct)
{
    (void)direct;
    if (d->algorithm != GPUSORT_ALGORITHM_AUTO && d->algorithm != GPUSORT_ALGORITHM_RADIX &&
        d->algorithm != GPUSORT_ALGORITHM_MERGE)
        return 0;
    if (gpusort__cuda_impl_of(ctx)->ws) return 0;
    const char *ab = getenv("GPUSORT_CUDA_HOST_PIPELINE");
    if (ab && !strcmp(ab, "0")) return 0;
    const char *knob = getenv("GPUSORT_CUDA_HOST_CHUNK_KEYS");
    const size_t want = knob ? (size_t)strtoull(knob, NULL, 10) : 0;
    size_t m = GPUSORT_CUDA_BLOCK_TILE;
    if (want) {
        while (m * 2 <= want) m *= 2;
    } else {
        if (n < HOST_PIPE_MIN_KEYS) return 0;
        while (m * HOST_PIPE_CHUNKS < n) m *= 2;
    }
    return n > m ? m : 0;
}

static void *hd_staging(gpusort_ctx *ctx, size_t bytes)
{
    gpusort__cuda_impl *im = gpusort__cuda_impl_of(ctx);
    cudaSetDevice(im->device);
    if (gpusort__cuda_pinned_get(ctx, &im->hd_stage, bytes, "pinned staging")) {
        ctx->last_error[0] = 0;
        return NULL;
    }
    return im->hd_stage.p;
}

/* The most keys of d one run holds. Host arrays (gpusort__cuda_sort_host, inside the entry
 * point's workspace_enter): a caller's workspace holds whatever the call was sized for
 * (scratch.cu sized it for one run of n). */
static size_t hd_capacity_arrays(gpusort_ctx *ctx, const gpusort__sort_args *d)
{
    if (gpusort__cuda_impl_of(ctx)->ws) return (size_t)-1;
    const size_t ks = gpusort_type_size(d->key_type);
    const size_t vs = d->value_type == GPUSORT_TYPE_NONE ? 0 : gpusort_type_size(d->value_type);
    return host_run_capacity(ctx, ks + vs);
}

/* The same for hoststream.c, which comes in without an entry point: it makes the context's
 * device current, and answers 0 (hoststream.c then reads into memory and calls gpusort_sort,
 * which decides) where AUTO gives the keys to the CPU or a caller's workspace is set (only an
 * entry point fits a call into it). */
static size_t hd_capacity_stream(gpusort_ctx *ctx, const gpusort__sort_args *d)
{
    gpusort__cuda_impl *im = gpusort__cuda_impl_of(ctx);
    if (cudaSetDevice(im->device) != cudaSuccess) {
        (void)cudaGetLastError();
        return 0;
    }
    if (d->algorithm == GPUSORT_ALGORITHM_AUTO && gpusort__cuda_auto_on_cpu(ctx, d)) return 0;
    if (im->ws) return 0;
    return hd_capacity_arrays(ctx, d);
}

/* The run's buffers: IO slots for the data; with chunks, the merge's ping-pong buffers at full
 * size now (the chunk sorts then find their alternate buffers there and no scratch grows --
 * cudaFree waits for the device -- mid-way). On a full device our other scratch goes first. */
static gpusort_status hd_begin(gpusort_ctx *ctx, const gpusort__sort_args *d, size_t n,
                               size_t chunk)
{
    gpusort__cuda_impl *im = gpusort__cuda_impl_of(ctx);
    gpusort_status s;
    if ((s = gpusort__cuda_check(ctx, cudaSetDevice(im->device), "cudaSetDevice"))) return s;
    im->hd_es[0] = gpusort_type_size(d->key_type);
    im->hd_es[1] = d->value_type == GPUSORT_TYPE_NONE ? 0 : gpusort_type_size(d->value_type);
    for (int i = 0; i < 2 * GPUSORT__HOSTDATA_MAX_THREADS; i++)
        if (!im->hd_ev[i] &&
            (s = gpusort__cuda_check(ctx, cudaEventCreateWithFlags(&im->hd_ev[i],
                                                                   cudaEventDisableTiming),
                                     "cudaEventCreate")))
            return s;
    if (!im->hd_chunk_ready &&
        (s = gpusort__cuda_check(ctx, cudaEventCreateWithFlags(&im->hd_chunk_ready,
                                                               cudaEventDisableTiming),
                                 "cudaEventCreate")))
        return s;
    for (int attempt = 0; attempt < 2; attempt++) {
        const size_t es0 = im->hd_es[0], es1 = im->hd_es[1];
        im->hd_buf[0] = (char *)gpusort__cuda_scratch(ctx, GPUSORT_CUDA_SCRATCH_IO_KEYS, n * es0);
        im->hd_buf[1] = es1 ? (char *)gpusort__cuda_scratch(ctx, GPUSORT_CUDA_SCRATCH_IO_VALUES,
                                                            n * es1)
                            : NULL;
        int ok = im->hd_buf[0] && (!es1 || im->hd_buf[1]);
        if (ok && chunk < n)
            ok = gpusort__cuda_scratch(ctx, GPUSORT_CUDA_SCRATCH_KEYS, n * es0) &&
                 (!es1 || gpusort__cuda_scratch(ctx, GPUSORT_CUDA_SCRATCH_VALUES, n * es1));
        if (ok) break;
        if (attempt || im->ws) return GPUSORT_STATUS_OUT_OF_DEVICE_MEMORY;
        ctx->last_error[0] = 0;
        cudaStreamSynchronize(im->stream);
        gpusort__cuda_scratch_release(im);
    }
    im->hd_out[0] = im->hd_buf[0];
    im->hd_out[1] = im->hd_buf[1];
    /* Earlier work on the stream may still use the buffers: the copy streams wait for it. */
    cudaEventRecord(im->ready, im->stream);
    for (int i = 0; i < 2; i++) cudaStreamWaitEvent(im->copy_stream[i], im->ready, 0);
    return gpusort__cuda_check(ctx, cudaGetLastError(), "host data: begin");
}

/* Copies in go on copy stream 0, copies out on copy stream 1, from whichever host thread;
 * each thread first makes the context's device its own. */
static gpusort_status hd_h2d(gpusort_ctx *ctx, int slot, size_t first, size_t count,
                             const void *src, int ev)
{
    gpusort__cuda_impl *im = gpusort__cuda_impl_of(ctx);
    const size_t es = im->hd_es[slot];
    cudaSetDevice(im->device);
    gpusort_status s = gpusort__cuda_check(ctx, cudaMemcpyAsync(im->hd_buf[slot] + first * es,
                                                                src, count * es,
                                                                cudaMemcpyHostToDevice,
                                                                im->copy_stream[0]),
                                           "cudaMemcpyAsync (host to device)");
    if (!s && ev >= 0)
        s = gpusort__cuda_check(ctx, cudaEventRecord(im->hd_ev[ev], im->copy_stream[0]),
                                "cudaEventRecord");
    return s;
}

/* v[i] = base + i: argsort's indices, made on the device before the chunks arrive, so that
 * each chunk sorts as pairs whose values are already global positions (runs: base is the run's
 * first element). */
static __global__ void fill_iota(void *v, size_t base, size_t n, int wide)
{
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n;
         i += (size_t)gridDim.x * blockDim.x) {
        if (wide) ((uint64_t *)v)[i] = base + i;
        else ((uint32_t *)v)[i] = (uint32_t)(base + i);
    }
}

static gpusort_status hd_iota(gpusort_ctx *ctx, size_t base, size_t n)
{
    gpusort__cuda_impl *im = gpusort__cuda_impl_of(ctx);
    const size_t blocks = (n + 255) / 256 < 4096 ? (n + 255) / 256 : 4096;
    fill_iota<<<(unsigned)blocks, 256, 0, im->stream>>>(im->hd_buf[1], base, n, im->hd_es[1] == 8);
    return gpusort__cuda_check(ctx, cudaGetLastError(), "fill_iota");
}

/* Chunk [first, first + count) in place, on the context's stream after every copy enqueued so
 * far (the chunk's among them: hostdata.c calls this once they all are). */
static gpusort_status hd_sort(gpusort_ctx *ctx, const gpusort__sort_args *d, size_t first,
                              size_t count)
{
    gpusort__cuda_impl *im = gpusort__cuda_impl_of(ctx);
    cudaSetDevice(im->device);
    cudaEventRecord(im->hd_chunk_ready, im->copy_stream[0]);
    cudaStreamWaitEvent(im->stream, im->hd_chunk_ready, 0);
    gpusort__sort_args cd = *d;
    cd.keys_in = cd.keys_out = im->hd_buf[0] + first * im->hd_es[0];
    cd.values_in = cd.values_out = im->hd_es[1] ? im->hd_buf[1] + first * im->hd_es[1] : NULL;
    cd.n = count;
    return gpusort__cuda_dispatch(ctx, &cd);
}

/* One chunk: one range, ready when the sort is. Several: merge.cu merges them, its last pass
 * in HOST_PIPE_RANGES ranges, each with its event. */
static int hd_finish(gpusort_ctx *ctx, const gpusort__sort_args *d, size_t n, size_t chunk,
                     uint64_t *range_end, int ranges, gpusort_status *status)
{
    gpusort__cuda_impl *im = gpusort__cuda_impl_of(ctx);
    if (chunk >= n) {
        range_end[0] = n;
        *status = gpusort__cuda_check(ctx, cudaEventRecord(im->range_done[0], im->stream),
                                      "cudaEventRecord");
        return *status ? 0 : 1;
    }
    /* The ping-pong buffers again: a chunk sort whose scratch outgrew them (a bitonic item of
     * key + index, with a test knob's n barely above the chunk) has replaced them. */
    const size_t es0 = im->hd_es[0], es1 = im->hd_es[1];
    char *ak = (char *)gpusort__cuda_scratch(ctx, GPUSORT_CUDA_SCRATCH_KEYS, n * es0);
    char *av = es1 ? (char *)gpusort__cuda_scratch(ctx, GPUSORT_CUDA_SCRATCH_VALUES, n * es1)
                   : NULL;
    if (!ak || (es1 && !av)) {
        *status = GPUSORT_STATUS_OUT_OF_DEVICE_MEMORY;
        return 0;
    }
    gpusort__sort_args md = *d;
    md.keys_out = im->hd_buf[0];
    md.values_out = im->hd_buf[1];
    uint64_t end[HOST_PIPE_RANGES];
    int alt = 0;
    const int r = ranges < HOST_PIPE_RANGES ? ranges : HOST_PIPE_RANGES;
    if ((*status = gpusort__cuda_merge_runs(ctx, &md, chunk, ak, av, im->range_done, end, r,
                                            &alt)))
        return 0;
    if (alt) {
        im->hd_out[0] = ak;
        im->hd_out[1] = av;
    }
    for (int j = 0; j < r; j++) range_end[j] = end[j];
    return r;
}

static gpusort_status hd_d2h(gpusort_ctx *ctx, int slot, size_t first, size_t count, void *dst,
                             int gate, int ev)
{
    gpusort__cuda_impl *im = gpusort__cuda_impl_of(ctx);
    const size_t es = im->hd_es[slot];
    cudaSetDevice(im->device);
    cudaStreamWaitEvent(im->copy_stream[1], im->range_done[gate], 0);
    gpusort_status s = gpusort__cuda_check(ctx, cudaMemcpyAsync(dst, im->hd_out[slot] + first * es,
                                                                count * es,
                                                                cudaMemcpyDeviceToHost,
                                                                im->copy_stream[1]),
                                           "cudaMemcpyAsync (device to host)");
    if (!s && ev >= 0)
        s = gpusort__cuda_check(ctx, cudaEventRecord(im->hd_ev[ev], im->copy_stream[1]),
                                "cudaEventRecord");
    return s;
}

static gpusort_status hd_wait(gpusort_ctx *ctx, int ev)
{
    gpusort__cuda_impl *im = gpusort__cuda_impl_of(ctx);
    cudaSetDevice(im->device);
    return gpusort__cuda_check(ctx, cudaEventSynchronize(im->hd_ev[ev]), "cudaEventSynchronize");
}

/* Everything enqueued done (an error path must not leave DMAs running into staging buffers or
 * scratch that the next call reuses). */
static gpusort_status hd_drain(gpusort_ctx *ctx)
{
    gpusort__cuda_impl *im = gpusort__cuda_impl_of(ctx);
    cudaSetDevice(im->device);
    cudaError_t e0 = cudaStreamSynchronize(im->copy_stream[0]);
    cudaError_t e1 = cudaStreamSynchronize(im->copy_stream[1]);
    cudaError_t e2 = cudaStreamSynchronize(im->stream);
    cudaError_t e = e0 ? e0 : e1 ? e1 : e2;
    if (!e) e = cudaGetLastError();
    else (void)cudaGetLastError();
    return gpusort__cuda_check(ctx, e, "cudaStreamSynchronize (host data)");
}

extern "C" const gpusort__hostdev_ops gpusort__cuda_hostdev = {
    hd_staging, hd_capacity_stream, hd_chunk, hd_begin, hd_iota, hd_h2d, hd_sort, hd_finish,
    hd_d2h, hd_wait, hd_drain,
};
static const gpusort__hostdev_ops host_arrays = {
    hd_staging, hd_capacity_arrays, hd_chunk, hd_begin, hd_iota, hd_h2d, hd_sort, hd_finish,
    hd_d2h, hd_wait, hd_drain,
};

extern "C" gpusort_status gpusort__cuda_sort_host(gpusort_ctx *ctx, const gpusort__sort_args *d,
                                                  const int *pinned)
{
    if (d->algorithm == GPUSORT_ALGORITHM_AUTO && gpusort__cuda_auto_on_cpu(ctx, d))
        return gpusort__cpu_sort(ctx, d);
    return gpusort__hostdata_sort(ctx, &host_arrays, d, pinned);
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
