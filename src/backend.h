/*
 * backend.h -- INTERNAL: the interface every backend implements, and the context struct.
 *
 * A backend is one table of function pointers (gpusort_backend_ops) plus its own state, kept in
 * gpusort_ctx.impl. The core (src/gpusort.c) checks every argument before it calls a backend, so
 * a backend may assume:
 *   - types are valid, n > 0, pointers non-NULL where the call needs them;
 *   - value_type is NONE, U32 or U64; for argsort values_in == NULL and values_out != NULL;
 *   - keys_out == keys_in (in place) or the two do not overlap (same for values);
 *   - keys_out may be NULL only for pairs/argsort (the backend then uses its own scratch).
 * A backend sets a detailed message with gpusort__set_error() when it fails.
 *
 * Registration: gpusort__backends[] in src/registry.c is the one place that lists backends.
 * Methods marked (optional) may be NULL: the core answers GPUSORT_STATUS_UNSUPPORTED, except for
 * segmented/batch sort and strings/records, where the core falls back to the CPU backend's
 * implementation through a temporary host copy when the backend lacks them.
 *
 * Names starting with gpusort__ (two underscores) are internal to the library.
 */
#ifndef GPUSORT_BACKEND_H
#define GPUSORT_BACKEND_H

#include "gpusort.h"

#include <stdarg.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The arguments of one sort (keys, pairs or argsort; segmented and batch sorts add their shape
 * beside it), gathered and checked by the core. */
typedef struct gpusort__sort_args {
    gpusort_type key_type;
    const void *keys_in;
    void *keys_out;            /* may equal keys_in; NULL when values are wanted only */
    gpusort_type value_type;   /* GPUSORT_TYPE_NONE (keys only), _U32 or _U64 */
    const void *values_in;     /* NULL with a value type: argsort (values are 0..n-1) */
    void *values_out;
    size_t n;
    gpusort_order order;
    gpusort_algorithm algorithm;
    unsigned flags;            /* GPUSORT_FLAG_* */
} gpusort__sort_args;

/* What a GPUSORT_FLAG_QUERY_SCRATCH call asks the backend's scratch_size method about: one of
 * the calls that take a device workspace, with its checked arguments (data pointers may be
 * NULL: device data). */
typedef enum gpusort__call {
    GPUSORT__CALL_SORT = 0,       /* sort, sort_pairs, argsort: sort */
    GPUSORT__CALL_SEGMENTED = 1,  /* sort, num_segments */
    GPUSORT__CALL_BATCH = 2,      /* sort, row_length */
    GPUSORT__CALL_REDUCE = 3      /* type, data, n */
} gpusort__call;

typedef struct gpusort__scratch_query {
    gpusort__call call;
    const gpusort__sort_args *sort;  /* SORT, SEGMENTED, BATCH */
    size_t num_segments;             /* SEGMENTED */
    size_t row_length;               /* BATCH */
    gpusort_type type;               /* REDUCE */
    const void *data;                /* REDUCE (may be NULL) */
    size_t n;                        /* REDUCE */
} gpusort__scratch_query;

/* The query of a sort-like call (SORT, SEGMENTED, BATCH). */
static inline gpusort__scratch_query gpusort__sort_query(gpusort__call call,
                                                         const gpusort__sort_args *d,
                                                         size_t num_segments, size_t row_length)
{
    gpusort__scratch_query q = {call, d, num_segments, row_length, GPUSORT_TYPE_NONE, NULL, 0};
    return q;
}

#define GPUSORT_BACKEND_OPS_VERSION 4
/* The arguments of gpusort_topk (one row: row_length == n) and gpusort_topk_batch, checked by
 * the core: 1 <= k <= row_length, n a multiple of row_length, at least one output, index_type
 * U32 or U64 when indices_out is given (NONE otherwise). Row r's results go to
 * [r * k, (r + 1) * k) of the outputs; indices are positions within the row. */
typedef struct gpusort__topk_args {
    gpusort_type key_type;
    gpusort_type index_type;
    const void *keys_in;
    size_t n;
    size_t row_length;
    size_t k;
    void *keys_out;            /* NULL: keys not wanted */
    void *indices_out;         /* NULL: indices not wanted */
    gpusort_order order;
    unsigned flags;
} gpusort__topk_args;

#define GPUSORT_ERROR_MAX 1024

typedef struct gpusort_backend_ops {
    int version;                 /* GPUSORT_BACKEND_OPS_VERSION */
    gpusort_backend id;
    const char *name;            /* "cpu", "cuda", "opencl" */

    /* Device enumeration (no context needed). A built backend with no driver or no device
     * answers *count = 0 and SUCCESS. */
    gpusort_status (*device_count)(int *count);
    gpusort_status (*device_info)(int device, gpusort_device_info *info);

    /* Create the backend state for ctx on device (>= 0), store it in ctx->impl. */
    gpusort_status (*init)(gpusort_ctx *ctx, int device);
    /* Free ctx->impl (called once; synchronise first). */
    void (*destroy)(gpusort_ctx *ctx);

    /* Keys, pairs and argsort (desc->values_in == NULL with a value type). */
    gpusort_status (*sort)(gpusort_ctx *ctx, const gpusort__sort_args *desc);
    gpusort_status (*reduce)(gpusort_ctx *ctx, gpusort_type type, const void *data, size_t n,
                             gpusort_op op, gpusort_value *result);

    /* (optional) */
    gpusort_status (*segmented_sort)(gpusort_ctx *ctx, const gpusort__sort_args *desc,
                                     const uint64_t *offsets, size_t num_segments);
    /* (optional) */
    gpusort_status (*batch_sort)(gpusort_ctx *ctx, const gpusort__sort_args *desc,
                                 size_t row_length);
    /* (optional) perm_out is always U64 here; the core narrows to U32 if asked. */
    gpusort_status (*sort_strings)(gpusort_ctx *ctx, const uint8_t *bytes,
                                   const uint64_t *offsets, size_t n, gpusort_order order,
                                   uint64_t *perm_out);
    /* (optional) perm_out is never NULL here (the core provides scratch). */
    gpusort_status (*sort_records)(gpusort_ctx *ctx, const void *records_in, void *records_out,
                                   size_t n, size_t record_size, size_t key_offset,
                                   size_t key_size, gpusort_order order, uint64_t *perm_out);
    /* (optional) stream/queue handle; NULL restores the backend's own. */
    gpusort_status (*set_stream)(gpusort_ctx *ctx, void *stream);
    /* (optional) */
    gpusort_status (*synchronize)(gpusort_ctx *ctx);
    /* (optional) reduce of a cl_mem buffer (GPUSORT_FLAG_CL_MEM); NULL: UNSUPPORTED */
    gpusort_status (*reduce_cl_mem)(gpusort_ctx *ctx, gpusort_type type, const void *data,
                                    size_t n, gpusort_op op, gpusort_value *result);
    /* (optional) free the scratch the backend keeps between calls (gpusort_ctx_trim); the
     * core has synchronised first. NULL: the backend keeps none. */
    gpusort_status (*trim)(gpusort_ctx *ctx);
    /* (optional, version 2) the caller's device allocator (NULL: the backend's own); the core
     * has synchronised first. NULL method: the core refuses (gpusort.h says how). */
    gpusort_status (*set_allocator)(gpusort_ctx *ctx, const gpusort_allocator *allocator);
    /* (optional, version 2) the caller's device workspace ((NULL, 0): none); synchronised. */
    gpusort_status (*set_scratch)(gpusort_ctx *ctx, void *scratch, size_t bytes);
    /* (optional, version 2) the device scratch bytes of a call (GPUSORT_FLAG_QUERY_SCRATCH);
     * NULL: 0 bytes. Moves no data. */
    gpusort_status (*scratch_size)(gpusort_ctx *ctx, const gpusort__scratch_query *q,
                                   size_t *bytes);
    /* (optional) top-k of one row or of rows (NULL: UNSUPPORTED). Every backend has one. */
    gpusort_status (*topk)(gpusort_ctx *ctx, const gpusort__topk_args *args);
    /* (optional, version 3) the device operations of the host-data pipeline (hostdata.h);
     * hoststream.c streams the caller's callbacks through them. NULL: no device. */
    const struct gpusort__hostdev_ops *hostdev;
    /* (optional, version 4) the device operations of gpusort_multi_sort on device data
     * (below). NULL: the backend's pieces must be host memory. */
    const struct gpusort__multi_ops *multi;
} gpusort_backend_ops;

/* One slice of gpusort_multi_sort's exchange: `bytes` from context `src`'s memory at `from` to
 * context `dst`'s at `to`. */
typedef struct gpusort__multi_xfer {
    int src, dst;
    const void *from;
    void *to;
    size_t bytes;
    int chunk;           /* the output chunk it belongs to (exchange_merge) */
} gpusort__multi_xfer;

/* One merge of gpusort_multi_sort: destination `dst`'s output chunk `chunk`, from the received
 * runs [off[r], off[r+1]) (r < nruns) of keys/values into keys_out/values_out. */
typedef struct gpusort__multi_merge_job {
    int dst, chunk;
    void *keys, *values;       /* values NULL: keys only */
    const size_t *off;
    int nruns;
    void *keys_out, *values_out;
} gpusort__multi_merge_job;

/* The buffers of gpusort__multi_ops.alloc: received keys and values, the count scratch, and
 * the sorted copies of the piece that the exchange reads (so that the merges may write the
 * piece while later chunks still move). */
enum {
    GPUSORT__MULTI_BUF_KEYS = 0,
    GPUSORT__MULTI_BUF_VALUES = 1,
    GPUSORT__MULTI_BUF_WORK = 2,
    GPUSORT__MULTI_BUF_SORTED_KEYS = 3,
    GPUSORT__MULTI_BUF_SORTED_VALUES = 4
};

/* What src/multi.c needs of a backend for pieces in its device memory (src/cuda/multi.cu). Every
 * method completes before it returns and sets the context's error on failure. */
typedef struct gpusort__multi_ops {
    /* 1: p is device memory of ctx's device; 0: host memory; -1: device memory elsewhere. */
    int (*where)(gpusort_ctx *ctx, const void *p);
    /* Device memory for `which` (GPUSORT__MULTI_BUF_*), given back by free. KEYS, VALUES and
     * WORK are asked for after the context's local sort is complete (a backend may lend the
     * buffers that sort used); SORTED_* before it (its output). */
    void *(*alloc)(gpusort_ctx *ctx, int which, size_t bytes);
    void (*free)(gpusort_ctx *ctx, int which, void *p, size_t bytes);
    /* Wait for the work on the context's stream (the caller's, when it set one). */
    gpusort_status (*sync)(gpusort_ctx *ctx);
    /* Start counting, for i < m, the keys of the sorted run keys[0..n) (device) whose radix
     * key (keys.h; type, desc) is < v[i], or <= v[i] with or_equal (v may be reused at
     * return); count_fetch(ctx, m, cnt, work) waits and puts the counts in cnt. work: device
     * memory of 2 * m u64 from alloc. Split in two so that every GPU counts at once. */
    gpusort_status (*count_launch)(gpusort_ctx *ctx, gpusort_type type, int desc,
                                   const void *keys, size_t n, const uint64_t *v, size_t m,
                                   int or_equal, uint64_t *work);
    gpusort_status (*count_fetch)(gpusort_ctx *ctx, size_t m, uint64_t *cnt, uint64_t *work);
    /* Every slice of x[0..nx) moved between the contexts ctxs[0..count) (each on its own
     * device, or sharing some); *how receives "peer" or "nccl". Called with the ctxs of one
     * backend. */
    gpusort_status (*exchange)(gpusort_ctx *const *ctxs, int count,
                               const gpusort__multi_xfer *x, size_t nx, const char **how);
    /* Stable merge of the sorted runs [off[r], off[r+1]) for r < nruns of keys/values (device;
     * ties to the lower run) into keys_out/values_out (n = off[nruns] elements). The inputs
     * may be overwritten (they are the ping-pong buffers). vsize 0: keys only. */
    gpusort_status (*merge)(gpusort_ctx *ctx, gpusort_type type, int desc, size_t vsize,
                            void *keys, void *values, const size_t *off, int nruns,
                            void *keys_out, void *values_out);
    /* (optional) exchange and merge pipelined: x[0..nx) in chunk order, jobs[0..njobs) the
     * merges; job (d, k) starts once every slice of chunk k bound for d has landed, while
     * later chunks move, so no slice may be read from memory that a merge writes. Sets *how
     * and returns; or sets *how = NULL and does nothing when its transport would not overlap
     * (the caller then runs exchange, then the jobs through merge). */
    gpusort_status (*exchange_merge)(gpusort_ctx *const *ctxs, int count, gpusort_type type,
                                     int desc, size_t vsize, const gpusort__multi_xfer *x,
                                     size_t nx, const gpusort__multi_merge_job *jobs,
                                     size_t njobs, const char **how);
    /* (optional) NCCL between processes, one rank per GPU (src/mpi/sort.c). rank_id: a new
     * communicator's unique id (GPUSORT__NCCL_ID_BYTES) into id, on one rank, which sends it
     * to the others; UNSUPPORTED when NCCL cannot be loaded. rank_exchange: this rank's part
     * of the all-to-all over the communicator of id (made on first use, by every rank at once,
     * and kept for the process): send[soff[p] ..) (scnt[p] elements of esize bytes) to rank
     * p, rcnt[p] elements from rank p to recv[roff[p] ..); device memory of ctx's GPU;
     * complete at return. */
    gpusort_status (*rank_id)(gpusort_ctx *ctx, void *id);
    gpusort_status (*rank_exchange)(gpusort_ctx *ctx, const void *id, int nranks, int rank,
                                    const void *send, const size_t *soff, const size_t *scnt,
                                    void *recv, const size_t *roff, const size_t *rcnt,
                                    size_t esize);
    /* (optional) the whole call in the backend's own steps (CUDA: the radix sort whose one
     * pass moves the keys between GPUs, radix.cu "Several GPUs"): *declined = 1 with nothing
     * done and no error when it does not apply (the caller then runs the steps above), else
     * the call's status, with t filled on success. */
    gpusort_status (*sort)(gpusort_ctx *const *ctxs, int count, gpusort_type key_type,
                           gpusort_type value_type, void *const *keys, void *const *values,
                           const size_t *n, gpusort_order order, struct gpusort_multi_times *t,
                           int *declined);
} gpusort__multi_ops;

/* The bytes of an NCCL unique id (ncclUniqueId, nccl.h's NCCL_UNIQUE_ID_BYTES). */
#define GPUSORT__NCCL_ID_BYTES 128

/* Host scratch buffers kept between calls (src/cpu/memory.c): the large buffers the CPU
 * kernels free go here instead of back to the system, and the next call's allocations take
 * them, so a repeated sort does not fault in (and the kernel does not zero) fresh pages each
 * time. Any backend's context has them: the CUDA and OpenCL backends run CPU kernels too. */
#define GPUSORT__KEPT_MAX 3

struct gpusort_ctx {
    const gpusort_backend_ops *ops;
    void *impl;                         /* the backend's own state */
    int device;
    int threads;                        /* 0 = all online cores */
    void *kept[GPUSORT__KEPT_MAX];      /* host scratch kept between calls, or NULL */
    gpusort_algorithm last_algorithm;   /* what the last sort ran: the core stores the request,
                                           a backend that resolves AUTO stores its choice */
    size_t scratch_query;               /* bytes of the last GPUSORT_FLAG_QUERY_SCRATCH call */
    char last_error[GPUSORT_ERROR_MAX];
};

/* Give the kept host scratch back to the system (memory.c). */
void gpusort__host_scratch_release(gpusort_ctx *ctx);

/* The registry (src/registry.c): NULL for a backend not built. Indexed by gpusort_backend. */
const gpusort_backend_ops *gpusort__backend_ops(gpusort_backend backend);

/* Set ctx->last_error (printf-style) and return status, so a backend can write
 *   return gpusort__set_error(ctx, GPUSORT_STATUS_DEVICE_ERROR, "cudaMalloc: %s", msg); */
gpusort_status gpusort__set_error(gpusort_ctx *ctx, gpusort_status status, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;

/* Number of worker threads a context should use (resolves 0 to the online core count). */
int gpusort__threads(const gpusort_ctx *ctx);

/* The backends' tables (each defined in its folder; referenced only by src/registry.c). */
extern const gpusort_backend_ops gpusort__cpu_ops;
extern const gpusort_backend_ops gpusort__cuda_ops;
extern const gpusort_backend_ops gpusort__opencl_ops;

#ifdef __cplusplus
}
#endif
#endif /* GPUSORT_BACKEND_H */
