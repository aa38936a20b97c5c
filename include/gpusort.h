/*
 * gpusort.h -- sort and reduce on NVIDIA GPUs (CUDA), OpenCL devices and multicore CPUs.
 *
 * This is the one public header of libgpusort. It is plain C11 and usable from C++.
 *
 * ORDER OF CALLS
 *   gpusort_ctx_create()           pick a backend and a device, once
 *   gpusort_sort() / gpusort_sort_pairs() / gpusort_argsort() / gpusort_reduce() / ...
 *   gpusort_ctx_synchronize()      only when a stream/queue was set (asynchronous use)
 *   gpusort_ctx_free()             once; gpusort_ctx_free(NULL) is a no-op
 *
 * CONTRACT (every backend, every algorithm)
 *   Types      keys: u32, i32, f32, u64, i64, f64 (gpusort_type). Values of pairs: u32 or u64
 *              (opaque payloads: any 4- or 8-byte data). Indices of argsort: u32 or u64.
 *   Stability  every sort is stable: equal keys keep their input order, in ascending AND in
 *              descending order (descending is NOT the reverse of ascending when keys tie).
 *   Floats     a total order: -inf < ... < -0.0 == +0.0 < ... < +inf < NaN. Every NaN (any sign,
 *              any payload) equals every other NaN. So NaN comes last ascending and first
 *              descending, as torch.sort does. (CUB orders raw bits and puts -NaN first; we do
 *              not.) -0.0 and +0.0 are equal keys, so stability keeps their input order.
 *              The bits of every key are preserved: a sort only moves keys, never rewrites them.
 *   Sizes      n is size_t; n above 2^32 works where memory allows. n == 0 is valid (no-op).
 *   In place   keys_out == keys_in (and values_out == values_in) sorts in place. Any other
 *              overlap between inputs and outputs is an invalid argument.
 *   Pointers   host memory, or (CUDA backend) device memory from cudaMalloc/cudaMallocManaged:
 *              the backend detects which, the caller does not say. All pointers of one call must
 *              be in the same kind of memory. OpenCL cl_mem buffers go through
 *              gpusort_sort_desc.flags = GPUSORT_FLAG_CL_MEM (see gpusort_sort_ex).
 *   Reduce     sum, min, max over all six types (gpusort_reduce).
 *              - integer sums are exact modulo 2^64: accumulated in 64 bits (u64 for unsigned,
 *                i64 for signed types), wrapping on overflow like C unsigned arithmetic.
 *              - float sums (f32 and f64) are returned as double. They are accurate to
 *                |sum - exact| <= 1e-12 * n * sum(|x|) for f32 input on the CPU backend
 *                (accumulated in double), and to 2 * n * eps(double) * sum(|x|) for f64 input
 *                (pairwise/blocked summation); GPU backends state the same bound. A sum over data
 *                with a NaN is NaN; +inf and -inf give NaN; the result is the same on every
 *                run for the same input, backend and thread count.
 *              - min/max return NaN if any input is NaN (numpy semantics); min of {-0.0, +0.0}
 *                is whichever comes first. min/max of n == 0 is an invalid argument; sum of
 *                n == 0 is 0.
 *   Errors     every call returns a gpusort_status. The library never aborts, exits or prints.
 *              gpusort_status_string() names a code; gpusort_ctx_last_error() gives the detail of
 *              the last failure on a context (e.g. the CUDA or OpenCL error text).
 *   Threads    a context is not thread-safe: calls that share a context must be serialised by
 *              the caller. Different contexts may be used from different threads at once.
 *              gpusort_status_string(), gpusort_backend_* and gpusort_device_* queries are
 *              thread-safe.
 *   Scratch    memory each call may allocate (n = element count, K/V = key/value bytes):
 *              CPU radix:          n*(K+V) bytes host (+ n*K when keys_out is NULL) + up to
 *                                  8.5 MiB per thread (in place or not).
 *              CPU merge/others:   n*(K+V) bytes host (+ n*K when keys_out is NULL).
 *                         Buffers of 4 MiB and more are kept by the context after the call
 *                         (the 3 largest) and reused by the next one, so that repeated sorts
 *                         do not pay for fresh pages; gpusort_ctx_trim gives them back.
 *              CUDA radix (device data): n*(K+V) bytes device (+ n*K for argsort, which has
 *                         no key output) + 64-bit digit histograms + look-back state of 1 KiB
 *                         per tile of one portion (< 2^27 keys); kept by the context and reused
 *                         (grown, never shrunk); freed by gpusort_ctx_free. At 2^28 keys: u32
 *                         1042 MiB (CUB 1059), u64 2078 MiB (CUB 2093), u32/u32 pairs 2066 MiB.
 *              CUDA radix (host data): device buffers for a chunk + pinned staging, both owned
 *                         by the context, grown on demand.
 *              OpenCL:             buffers of n*(K+V)*2 bytes on the device for host data.
 *              Backends document the exact figure in README.md ("Scratch memory").
 */
#ifndef GPUSORT_H
#define GPUSORT_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define GPUSORT_VERSION_MAJOR 0
#define GPUSORT_VERSION_MINOR 1
#define GPUSORT_VERSION_PATCH 0

#if defined(_WIN32) && defined(GPUSORT_SHARED_BUILD)
#define GPUSORT_API __declspec(dllexport)
#elif defined(__GNUC__)
#define GPUSORT_API __attribute__((visibility("default")))
#else
#define GPUSORT_API
#endif

/* ---- Status codes: one table gives the enum and the messages. ---- */
#define GPUSORT_STATUS_LIST(X)                                                   \
    X(SUCCESS,              0, "success")                                        \
    X(INVALID_ARGUMENT,     1, "invalid argument")                               \
    X(OUT_OF_HOST_MEMORY,   2, "out of host memory")                             \
    X(OUT_OF_DEVICE_MEMORY, 3, "out of device memory")                           \
    X(BACKEND_NOT_BUILT,    4, "backend not built into this library")            \
    X(NO_DEVICE,            5, "no device found for this backend")               \
    X(UNSUPPORTED,          6, "unsupported by this backend or algorithm")       \
    X(DEVICE_ERROR,         7, "device error")                                   \
    X(IO_ERROR,             8, "input/output error")

typedef enum gpusort_status {
#define GPUSORT_X_(name, code, msg) GPUSORT_STATUS_##name = code,
    GPUSORT_STATUS_LIST(GPUSORT_X_)
#undef GPUSORT_X_
    GPUSORT_STATUS_COUNT_
} gpusort_status;

/* Static string naming a status ("invalid argument"); "unknown status" for a bad code. */
GPUSORT_API const char *gpusort_status_string(gpusort_status status);

/* ---- Enumerations ---- */
typedef enum gpusort_backend {
    GPUSORT_BACKEND_AUTO = 0,   /* CUDA, then OpenCL, then CPU: the first with a device
                                   (OpenCL only for a GPU: an OpenCL CPU device such as PoCL
                                   is slower than the native CPU backend on the same cores) */
    GPUSORT_BACKEND_CPU = 1,
    GPUSORT_BACKEND_CUDA = 2,
    GPUSORT_BACKEND_OPENCL = 3,
    GPUSORT_BACKEND_COUNT_
} gpusort_backend;

typedef enum gpusort_type {
    GPUSORT_TYPE_U32 = 0,
    GPUSORT_TYPE_I32 = 1,
    GPUSORT_TYPE_F32 = 2,
    GPUSORT_TYPE_U64 = 3,
    GPUSORT_TYPE_I64 = 4,
    GPUSORT_TYPE_F64 = 5,
    GPUSORT_TYPE_COUNT_,
    GPUSORT_TYPE_NONE = -1       /* "no values" in gpusort_sort_desc */
} gpusort_type;

typedef enum gpusort_order {
    GPUSORT_ORDER_ASC = 0,
    GPUSORT_ORDER_DESC = 1
} gpusort_order;

/* Algorithms. AUTO lets the backend choose (always a stable one). A backend answers
 * GPUSORT_STATUS_UNSUPPORTED for an algorithm it does not offer. */
typedef enum gpusort_algorithm {
    GPUSORT_ALGORITHM_AUTO = 0,
    GPUSORT_ALGORITHM_RADIX = 1,    /* LSD radix sort (every backend) */
    GPUSORT_ALGORITHM_MERGE = 2,    /* comparison merge sort (CPU, CUDA) */
    GPUSORT_ALGORITHM_BITONIC = 3,  /* bitonic network, stable by index tie-break (CUDA, OpenCL) */
    GPUSORT_ALGORITHM_RANK = 4,     /* O(n^2) rank sort, for tiny n; capped (CUDA) */
    GPUSORT_ALGORITHM_COUNT_
} gpusort_algorithm;

/* Reduce operations. */
typedef enum gpusort_op {
    GPUSORT_OP_SUM = 0,
    GPUSORT_OP_MIN = 1,
    GPUSORT_OP_MAX = 2
} gpusort_op;

/* Size in bytes of one element of a type (0 for an invalid type). */
GPUSORT_API size_t gpusort_type_size(gpusort_type type);
/* "u32", "i32", "f32", "u64", "i64", "f64"; NULL for an invalid type. */
GPUSORT_API const char *gpusort_type_name(gpusort_type type);
/* Parse a type name as above; returns GPUSORT_STATUS_INVALID_ARGUMENT for an unknown name. */
GPUSORT_API gpusort_status gpusort_type_parse(const char *name, gpusort_type *type);
/* "auto", "cpu", "cuda", "opencl"; NULL for an invalid backend. */
GPUSORT_API const char *gpusort_backend_name(gpusort_backend backend);
GPUSORT_API gpusort_status gpusort_backend_parse(const char *name, gpusort_backend *backend);
/* "auto", "radix", "merge", "bitonic", "rank"; NULL for an invalid algorithm. */
GPUSORT_API const char *gpusort_algorithm_name(gpusort_algorithm algorithm);
GPUSORT_API gpusort_status gpusort_algorithm_parse(const char *name, gpusort_algorithm *algorithm);

/* ---- Backends and devices ---- */

/* 1 if the backend was compiled into this library, 0 otherwise (AUTO and CPU: always 1). */
GPUSORT_API int gpusort_backend_built(gpusort_backend backend);

/* Number of devices the backend sees now. BACKEND_NOT_BUILT if not compiled in; a built backend
 * with no device (or no driver) gives *count = 0 and SUCCESS. The CPU backend has 1 device. */
GPUSORT_API gpusort_status gpusort_device_count(gpusort_backend backend, int *count);

typedef struct gpusort_device_info {
    char name[256];            /* "NVIDIA H100 80GB HBM3", "pthread CPU (16 threads)", ... */
    char platform[128];        /* OpenCL platform, CUDA driver/runtime, or the CPU's vendor */
    uint64_t memory_bytes;     /* global memory (device) or physical RAM (CPU) */
    int compute_units;         /* SMs, OpenCL compute units, or CPU threads */
    int capability_major;      /* CUDA compute capability; OpenCL version major; 0 for CPU */
    int capability_minor;
    int is_gpu;                /* 1 for a GPU */
    int supports_f64;          /* 1 if f64 keys and reductions are supported */
} gpusort_device_info;

GPUSORT_API gpusort_status gpusort_device_get_info(gpusort_backend backend, int device,
                                                   gpusort_device_info *info);

/* ---- Context ---- */
typedef struct gpusort_ctx gpusort_ctx;

/* Create a context on a backend's device (device index from 0; -1 = the backend's default).
 * AUTO tries CUDA, then OpenCL, then CPU and takes the first that has a device.
 * On failure *ctx is set to NULL and the status says why (BACKEND_NOT_BUILT, NO_DEVICE, ...). */
GPUSORT_API gpusort_status gpusort_ctx_create(gpusort_ctx **ctx, gpusort_backend backend,
                                              int device);
/* Free a context and every buffer it owns. NULL is a no-op. Synchronises first. */
GPUSORT_API void gpusort_ctx_free(gpusort_ctx *ctx);
/* The backend the context runs on (never AUTO). */
GPUSORT_API gpusort_backend gpusort_ctx_backend(const gpusort_ctx *ctx);
/* The device index the context runs on. */
GPUSORT_API int gpusort_ctx_device(const gpusort_ctx *ctx);
/* Detail of the last failing call on this context ("" if none). Valid until the next call. */
GPUSORT_API const char *gpusort_ctx_last_error(const gpusort_ctx *ctx);
/* The algorithm the last gpusort_sort / _sort_pairs / _argsort / _sort_ex on this context ran,
 * with AUTO resolved to the backend's choice (e.g. RANK for a few thousand keys on CUDA). AUTO if
 * no such call has succeeded yet, or the last one failed or had n = 0. For logs and benchmarks:
 * the choice may change between releases as the crossovers are re-measured. */
GPUSORT_API gpusort_algorithm gpusort_ctx_last_algorithm(const gpusort_ctx *ctx);

/* Worker threads for the CPU backend (and for host-side work of the others, such as merging
 * runs). 0 = all online cores (the default). */
GPUSORT_API gpusort_status gpusort_ctx_set_threads(gpusort_ctx *ctx, int threads);
GPUSORT_API int gpusort_ctx_threads(const gpusort_ctx *ctx);

/* Asynchronous use: a cudaStream_t (CUDA) or cl_command_queue (OpenCL) owned by the caller.
 * Calls on device data are then enqueued on it and may return before they finish; calls on host
 * data always complete before returning. NULL restores the context's own stream/queue.
 * The CPU backend accepts only NULL. */
GPUSORT_API gpusort_status gpusort_ctx_set_stream(gpusort_ctx *ctx, void *stream);
/* Wait for all work the context enqueued. */
GPUSORT_API gpusort_status gpusort_ctx_synchronize(gpusort_ctx *ctx);
/* Give back the scratch memory the context keeps between calls (see "Scratch" above): the
 * CPU kernels' host buffers and, on CUDA, the device scratch and pinned staging. Waits for
 * the context's work first. The next call allocates again. gpusort_ctx_free does this too. */
GPUSORT_API gpusort_status gpusort_ctx_trim(gpusort_ctx *ctx);

/* ---- Sorting ---- */

/* Sort n keys of `type`. keys_out == keys_in sorts in place. */
GPUSORT_API gpusort_status gpusort_sort(gpusort_ctx *ctx, gpusort_type type,
                                        const void *keys_in, void *keys_out, size_t n,
                                        gpusort_order order, gpusort_algorithm algorithm);

/* Sort n (key, value) pairs by key, stably; value_type is GPUSORT_TYPE_U32 or _U64.
 * keys_out may be NULL if only the permuted values are wanted. */
GPUSORT_API gpusort_status gpusort_sort_pairs(gpusort_ctx *ctx, gpusort_type key_type,
                                              const void *keys_in, void *keys_out,
                                              gpusort_type value_type, const void *values_in,
                                              void *values_out, size_t n, gpusort_order order,
                                              gpusort_algorithm algorithm);

/* Argsort: indices_out[i] = the input position of the i-th key in sorted (stable) order.
 * index_type is GPUSORT_TYPE_U32 (n must fit) or _U64. keys are not modified. */
GPUSORT_API gpusort_status gpusort_argsort(gpusort_ctx *ctx, gpusort_type key_type,
                                           const void *keys, gpusort_type index_type,
                                           void *indices_out, size_t n, gpusort_order order,
                                           gpusort_algorithm algorithm);

/* The general form of the three calls above. */
#define GPUSORT_FLAG_CL_MEM 1u   /* the pointers are cl_mem handles (OpenCL backend) */

typedef struct gpusort_sort_desc {
    gpusort_type key_type;
    const void *keys_in;
    void *keys_out;            /* may equal keys_in; may be NULL when values are wanted only */
    gpusort_type value_type;   /* GPUSORT_TYPE_NONE (keys only), _U32 or _U64 */
    const void *values_in;     /* NULL with a value type: argsort (values are 0..n-1) */
    void *values_out;
    size_t n;
    gpusort_order order;
    gpusort_algorithm algorithm;
    unsigned flags;            /* GPUSORT_FLAG_* */
} gpusort_sort_desc;

GPUSORT_API gpusort_status gpusort_sort_ex(gpusort_ctx *ctx, const gpusort_sort_desc *desc);

/* Segmented (batched) sort: segments [offsets[s], offsets[s+1]) for s < num_segments are sorted
 * independently (offsets has num_segments + 1 entries, non-decreasing, offsets[num_segments] <= n;
 * elements outside every segment are copied unchanged to the output).
 * values may be NULL/GPUSORT_TYPE_NONE for keys only. Argsort (values_in NULL with a value type)
 * gives GLOBAL indices: position i of the output holds the index into the whole input array
 * (offsets[s] <= idx < offsets[s+1]), not the index within the segment. */
GPUSORT_API gpusort_status gpusort_segmented_sort(gpusort_ctx *ctx, const gpusort_sort_desc *desc,
                                                  const uint64_t *offsets, size_t num_segments);
/* Fixed-size batch: n keys as rows of row_length (n % row_length == 0), each row sorted. */
GPUSORT_API gpusort_status gpusort_batch_sort(gpusort_ctx *ctx, const gpusort_sort_desc *desc,
                                              size_t row_length);

/* ---- Strings and records ---- */

/* Stable sort of n byte strings in byte order (memcmp; a proper prefix sorts first).
 * String i is bytes[offsets[i] .. offsets[i+1]) (offsets has n + 1 entries; host memory).
 * perm_out[k] = index of the k-th string in sorted order; index_type U32 or U64. */
GPUSORT_API gpusort_status gpusort_sort_strings(gpusort_ctx *ctx, const uint8_t *bytes,
                                                const uint64_t *offsets, size_t n,
                                                gpusort_order order, gpusort_type index_type,
                                                void *perm_out);

/* Stable sort of n fixed-size records of record_size bytes by the byte string
 * key = record[key_offset .. key_offset + key_size) compared with memcmp.
 * records_out may equal records_in. perm_out may be NULL; else it receives U64 indices. */
GPUSORT_API gpusort_status gpusort_sort_records(gpusort_ctx *ctx, const void *records_in,
                                                void *records_out, size_t n, size_t record_size,
                                                size_t key_offset, size_t key_size,
                                                gpusort_order order, uint64_t *perm_out);

/* ---- Reduction ---- */
typedef union gpusort_value {
    uint64_t u;   /* sum of u32/u64 (mod 2^64); min/max of u32/u64 */
    int64_t i;    /* sum of i32/i64 (mod 2^64, two's complement); min/max of i32/i64 */
    double f;     /* sum, min, max of f32/f64 (f32 min/max converted exactly) */
} gpusort_value;

/* Which field of gpusort_value holds the result for a type: 'u', 'i' or 'f'. */
GPUSORT_API char gpusort_value_field(gpusort_type type);

GPUSORT_API gpusort_status gpusort_reduce(gpusort_ctx *ctx, gpusort_type type, const void *data,
                                          size_t n, gpusort_op op, gpusort_value *result);
/* gpusort_reduce with flags: GPUSORT_FLAG_CL_MEM says `data` is a cl_mem handle (OpenCL
 * backend; the buffer must belong to the context's cl_context, see gpusort_ctx_set_stream).
 * (A cl_mem cannot be told from a host pointer safely, so the caller says it.) The call completes
 * before returning: the result is on the host. */
GPUSORT_API gpusort_status gpusort_reduce_ex(gpusort_ctx *ctx, gpusort_type type,
                                             const void *data, size_t n, gpusort_op op,
                                             gpusort_value *result, unsigned flags);

#ifdef __cplusplus
}
#endif
#endif /* GPUSORT_H */
