/*
 * stage.c -- device pointers for the MPI sort (stage.h): detection, device buffers and the
 * staged copies, through the CUDA runtime when the CUDA backend is built; host-only
 * stand-ins otherwise.
 *
 * Why staging: Debian's Open MPI (and most builds without UCX + CUDA) cannot read device
 * memory, so device data is sorted on the GPU, copied to host memory for the exchange, and
 * the received runs are copied back (sort.c). gpusort__mpi_stage makes those copies as a
 * pipeline: STAGE_THREADS threads, each with its own pinned buffer of STAGE_CHUNK bytes and
 * its own CUDA stream, take the chunks of the transfer in turn; a thread's DMA into (or out
 * of) its pinned buffer runs while the other threads copy their chunks between pinned and
 * pageable memory, so the copy engine and the CPUs work at once, and the pageable buffers
 * (fresh allocations: their page faults are part of the first touch) are written by several
 * cores. Small buffers, because pinning the whole transfer (cudaMallocHost of n keys) costs
 * more than the copy itself (measured on the H200 on 2026-11-25; that record,
 * merged-2026-11-25.md, was never committed). When MPIX_Query_cuda_support says the MPI
 * library takes device pointers, sort.c passes them and stages only the keys the selection
 * reads.
 */
#include "stage.h"

#include <mpi.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#if defined(OPEN_MPI) && OPEN_MPI
#include <mpi-ext.h>
#endif

#ifdef GPUSORT_HAVE_CUDA
#include <cuda_runtime_api.h>

int gpusort__mpi_is_device(const void *p)
{
    if (!p) return 0;
    struct cudaPointerAttributes a;
    if (cudaPointerGetAttributes(&a, p) != cudaSuccess) {
        cudaGetLastError();         /* clear the sticky-free error of a plain host pointer */
        return 0;
    }
    return a.type == cudaMemoryTypeDevice || a.type == cudaMemoryTypeManaged;
}

int gpusort__mpi_device_uuid(int device, unsigned char uuid[16])
{
    struct cudaDeviceProp prop;
    if (device < 0 || cudaGetDeviceProperties(&prop, device) != cudaSuccess) {
        cudaGetLastError();
        return -1;
    }
    memcpy(uuid, prop.uuid.bytes, 16);
    return 0;
}

void *gpusort__mpi_device_alloc(size_t bytes)
{
    void *p = NULL;
    if (cudaMalloc(&p, bytes ? bytes : 1) != cudaSuccess) {
        cudaGetLastError();
        return NULL;
    }
    return p;
}

void gpusort__mpi_device_free(void *p)
{
    if (p) cudaFree(p);
}

int gpusort__mpi_copy(void *dst, const void *src, size_t bytes, char *err, size_t errsize)
{
    if (!bytes) return 0;
    cudaError_t e = cudaMemcpy(dst, src, bytes, cudaMemcpyDefault);
    if (e == cudaSuccess) return 0;
    snprintf(err, errsize, "cudaMemcpy of %zu bytes: %s", bytes, cudaGetErrorString(e));
    return -1;
}

/* Threads and pinned bytes of one staged transfer: 8 x 4 MiB = 32 MiB pinned per call (a few
 * milliseconds to allocate); a 4 MiB DMA runs at the link's rate. Below two chunks one
 * cudaMemcpy is cheaper than starting the threads. The test knob GPUSORT_MPI_STAGE_BYTES=N
 * makes the chunk N bytes (a multiple of 16), so that the tests' small sorts cross many. */
#define STAGE_THREADS 8
#define STAGE_CHUNK ((size_t)4 << 20)

static size_t stage_chunk(void)
{
    const char *e = getenv("GPUSORT_MPI_STAGE_BYTES");
    char *end;
    unsigned long long v = e && *e ? strtoull(e, &end, 10) : 0;
    if (!v || *end || v % 16 || v > STAGE_CHUNK) return STAGE_CHUNK;
    return (size_t)v;
}

typedef struct stage_job {
    char *dst;
    const char *src;
    size_t bytes;
    int to_device;
    int threads;
    int device;                 /* the CUDA device of the calling thread: the workers use it */
    size_t chunk;
    pthread_mutex_t lock;
    cudaError_t error;          /* the first failure, cudaSuccess if none */
} stage_job;

typedef struct stage_worker {
    stage_job *job;
    int t;
    pthread_t thread;
} stage_worker;

static void stage_failed(stage_job *j, cudaError_t e)
{
    pthread_mutex_lock(&j->lock);
    if (j->error == cudaSuccess) j->error = e;
    pthread_mutex_unlock(&j->lock);
}

static void *stage_main(void *arg)
{
    stage_worker *w = (stage_worker *)arg;
    stage_job *j = w->job;
    void *pin = NULL;
    cudaStream_t s = NULL;
    cudaError_t e = cudaSetDevice(j->device);
    if (e == cudaSuccess) e = cudaMallocHost(&pin, j->chunk);
    if (e == cudaSuccess) e = cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking);
    for (size_t off = (size_t)w->t * j->chunk; e == cudaSuccess && off < j->bytes;
         off += (size_t)j->threads * j->chunk) {
        size_t len = j->bytes - off < j->chunk ? j->bytes - off : j->chunk;
        if (j->to_device) {
            memcpy(pin, j->src + off, len);
            e = cudaMemcpyAsync(j->dst + off, pin, len, cudaMemcpyHostToDevice, s);
            if (e == cudaSuccess) e = cudaStreamSynchronize(s);     /* before pin is reused */
        } else {
            e = cudaMemcpyAsync(pin, j->src + off, len, cudaMemcpyDeviceToHost, s);
            if (e == cudaSuccess) e = cudaStreamSynchronize(s);
            if (e == cudaSuccess) memcpy(j->dst + off, pin, len);
        }
    }
    if (e != cudaSuccess) {
        cudaGetLastError();
        stage_failed(j, e);
    }
    if (s) cudaStreamDestroy(s);
    if (pin) cudaFreeHost(pin);
    return NULL;
}

int gpusort__mpi_stage(void *dst, const void *src, size_t bytes, int to_device, char *err,
                       size_t errsize)
{
    size_t chunk = stage_chunk();
    if (bytes < 2 * chunk) return gpusort__mpi_copy(dst, src, bytes, err, errsize);
    int device = 0;
    cudaGetDevice(&device);
    stage_job j = {(char *)dst, (const char *)src, bytes, to_device, STAGE_THREADS, device,
                   chunk, PTHREAD_MUTEX_INITIALIZER, cudaSuccess};
    size_t chunks = (bytes + chunk - 1) / chunk;
    if ((size_t)j.threads > chunks) j.threads = (int)chunks;
    stage_worker w[STAGE_THREADS];
    int started = 0;
    for (int t = 0; t < j.threads; t++) {
        w[t] = (stage_worker){&j, t, 0};
        if (t > 0 && pthread_create(&w[t].thread, NULL, stage_main, &w[t]) != 0) break;
        started = t + 1;
    }
    if (started < j.threads) {          /* fewer threads: the chunks are re-dealt */
        for (int t = 1; t < started; t++) pthread_join(w[t].thread, NULL);
        j.threads = 1;
        started = 1;
    }
    stage_main(&w[0]);         /* worker 0 is this thread */
    for (int t = 1; t < started; t++) pthread_join(w[t].thread, NULL);
    if (j.error == cudaSuccess) return 0;
    snprintf(err, errsize, "staged copy of %zu bytes %s the device: %s", bytes,
             to_device ? "to" : "from", cudaGetErrorString(j.error));
    return -1;
}
#else
int gpusort__mpi_is_device(const void *p) { (void)p; return 0; }
int gpusort__mpi_device_uuid(int device, unsigned char uuid[16])
{
    (void)device; (void)uuid;
    return -1;
}
void *gpusort__mpi_device_alloc(size_t bytes) { (void)bytes; return NULL; }
void gpusort__mpi_device_free(void *p) { (void)p; }
int gpusort__mpi_copy(void *dst, const void *src, size_t bytes, char *err, size_t errsize)
{
    (void)err; (void)errsize;
    if (bytes) memcpy(dst, src, bytes);
    return 0;
}
int gpusort__mpi_stage(void *dst, const void *src, size_t bytes, int to_device, char *err,
                       size_t errsize)
{
    (void)to_device;
    return gpusort__mpi_copy(dst, src, bytes, err, errsize);
}
#endif

/* gpusort__mpi_copy_host: COPY_THREADS threads, each a contiguous share (a multiple of 64
 * bytes). Above COPY_MIN_BYTES only: below it thread start-up costs more than it saves. */
#define COPY_THREADS 8
#define COPY_MIN_BYTES ((size_t)4 << 20)

typedef struct copy_share {
    char *dst;
    const char *src;
    size_t bytes;
    pthread_t thread;
} copy_share;

static void *copy_main(void *arg)
{
    copy_share *c = (copy_share *)arg;
    memcpy(c->dst, c->src, c->bytes);
    return NULL;
}

void gpusort__mpi_copy_host(void *dst, const void *src, size_t bytes)
{
    if (bytes < COPY_MIN_BYTES) {
        if (bytes) memcpy(dst, src, bytes);
        return;
    }
    copy_share c[COPY_THREADS];
    size_t share = (bytes / COPY_THREADS + 63) & ~(size_t)63, off = 0;
    int started[COPY_THREADS] = {0};
    for (int t = 0; t < COPY_THREADS; t++) {
        size_t len = off >= bytes ? 0 : (bytes - off < share ? bytes - off : share);
        c[t] = (copy_share){(char *)dst + off, (const char *)src + off, len, 0};
        off += len;
        if (t > 0 && len) started[t] = pthread_create(&c[t].thread, NULL, copy_main, &c[t]) == 0;
        if (t > 0 && len && !started[t]) copy_main(&c[t]);     /* no thread: copy it here */
    }
    copy_main(&c[0]);
    for (int t = 1; t < COPY_THREADS; t++)
        if (started[t]) pthread_join(c[t].thread, NULL);
}

int gpusort__mpi_cuda_aware(void)
{
#if defined(MPIX_CUDA_AWARE_SUPPORT) && MPIX_CUDA_AWARE_SUPPORT
    return MPIX_Query_cuda_support() == 1;
#else
    return 0;
#endif
}
