/*
 * gpusort.h -- sort and reduce on NVIDIA GPUs (CUDA), OpenCL devices and multicore CPUs.
 *
 * This is the one public header of libgpusort. It is plain C11 and usable from C++. It states
 * the contract; measured speeds and memory figures are in README.md and bench/results/.
 *
 * ORDER OF CALLS
 *   gpusort_ctx_create()           pick a backend and a device, once
 *   gpusort_sort() / gpusort_sort_pairs() / gpusort_argsort() / gpusort_reduce() / ...
 *   gpusort_ctx_synchronize()      only when a stream/queue was set (asynchronous use)
 *   gpusort_ctx_free()             once; gpusort_ctx_free(NULL) is a no-op
 *
 * NAMES AND ARGUMENTS (one rule for every call)
 *   Calls that work on data are gpusort_<verb>[_<form>]: gpusort_sort, gpusort_sort_pairs,
 *   gpusort_argsort, gpusort_sort_segmented, gpusort_sort_batch, gpusort_sort_strings,
 *   gpusort_sort_records, gpusort_topk, gpusort_topk_batch, gpusort_reduce. Their arguments
 *   come in one order:
 *       context, element types, inputs, n (and the input's shape), outputs, order, algorithm,
 *       flags
 *   where "element types" are the key type and then the value or index type, "the input's
 *   shape" is what describes it beyond n (segment offsets, row length, record layout, top-k's
 *   k), "order" is the sort order (for gpusort_reduce, the operation), and "algorithm" is
 *   present where the call offers a choice. Every call that touches data ends with
 *   `unsigned flags`: a set of GPUSORT_FLAG_* bits, or 0.
 *   Properties of an object are read and written by gpusort_<object>_get_<name> and
 *   gpusort_<object>_set_<name> (gpusort_ctx_get_threads, gpusort_ctx_set_threads,
 *   gpusort_device_get_count). Functions of an enumeration value are gpusort_<enum>_<what>
 *   (gpusort_type_size, gpusort_type_name, gpusort_algorithm_parse, gpusort_status_string).
 *
 * HOW THE API GROWS (ABI policy)
 *   - A new per-call switch is a new GPUSORT_FLAG_* bit. A flag this library does not know is
 *     refused with GPUSORT_STATUS_INVALID_ARGUMENT, so a caller can probe for a feature.
 *   - A new setting that lasts across calls (threads, stream, and what follows) is a new
 *     gpusort_ctx_set_* / gpusort_ctx_get_* pair.
 *   - Anything else is a new function. A released function's signature never changes within a
 *     major version; enumerations only gain values at their end (before their COUNT_ entry).
 *   - Versions: GPUSORT_VERSION_* below and gpusort_version() at run time. Before 1.0 a minor
 *     release may change the API and the ABI, and the shared library's SONAME carries major and
 *     minor (libgpusort.so.0.4). From 1.0 on the SONAME is libgpusort.so.MAJOR, and only a new
 *     major version breaks callers.
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
 *              be in the same kind of memory. OpenCL cl_mem buffers are passed with
 *              GPUSORT_FLAG_CL_MEM (the caller says so: a cl_mem cannot be told from a host
 *              pointer safely). Strings and records are host memory only.
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
 *              gpusort_status_string() names a code; gpusort_ctx_get_last_error() gives the
 *              detail of the last failure on a context (e.g. the CUDA or OpenCL error text).
 *   Threads    a context is not thread-safe: calls that share a context must be serialised by
 *              the caller. Different contexts may be used from different threads at once.
 *              gpusort_version(), gpusort_status_string(), the gpusort_type_/backend_/
 *              algorithm_ functions and the gpusort_device_* queries are thread-safe.
 *   Scratch    a call may allocate scratch of the order of its data (n * (key + value bytes)),
 *              on the host, the device or both; a context keeps large buffers between calls
 *              so that repeated sorts do not pay for fresh pages, and gpusort_ctx_trim() gives
 *              them back. README.md ("Scratch memory") gives each backend's exact figure.
 *              Device scratch may instead come from the caller: an allocator
 *              (gpusort_ctx_set_allocator) or one workspace (gpusort_ctx_set_scratch) whose
 *              size a call tells with GPUSORT_FLAG_QUERY_SCRATCH, as CUB's NULL-workspace call.
 */
#ifndef GPUSORT_H
#define GPUSORT_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* ---- Version ---- */
#define GPUSORT_VERSION_MAJOR 0
#define GPUSORT_VERSION_MINOR 4
#define GPUSORT_VERSION_PATCH 0
#define GPUSORT_VERSION_NUMBER \
    (GPUSORT_VERSION_MAJOR * 10000 + GPUSORT_VERSION_MINOR * 100 + GPUSORT_VERSION_PATCH)
#define GPUSORT_VERSION_STRING "0.4.0"

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
    X(DEVICE_ERROR,         7, "device error")

typedef enum gpusort_status {
#define GPUSORT_X_(name, code, msg) GPUSORT_STATUS_##name = code,
    GPUSORT_STATUS_LIST(GPUSORT_X_)
#undef GPUSORT_X_
    GPUSORT_STATUS_COUNT_
} gpusort_status;

/* Static string naming a status ("invalid argument"); "unknown status" for a bad code. */
GPUSORT_API const char *gpusort_status_string(gpusort_status status);

/* The library's version: "0.4.0" (GPUSORT_VERSION_STRING of the library that runs, which may
 * differ from the header a program was compiled with), and its GPUSORT_VERSION_NUMBER. */
GPUSORT_API const char *gpusort_version(void);
GPUSORT_API unsigned gpusort_version_number(void);

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
    GPUSORT_TYPE_NONE = -1       /* "no values": the value type of a keys-only segmented or
                                    batch sort */
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
GPUSORT_API gpusort_status gpusort_device_get_count(gpusort_backend backend, int *count);

typedef struct gpusort_device_info {
    char name[256];            /* "NVIDIA H100 80GB HBM3", "pthread CPU (16 threads)", ... */
    char platform[128];        /* OpenCL platform, CUDA driver/runtime, or the CPU's vendor */
    uint64_t memory_bytes;     /* global memory (device) or physical RAM (CPU) */
    int compute_units;         /* SMs, OpenCL compute units, or CPU threads */
    int capability_major;      /* CUDA compute capability; OpenCL version major; 0 for CPU */
    int capability_minor;
    int is_gpu;                /* 1 for a GPU */
    int supports_f64;          /* 1 if f64 keys and reductions are supported */
    int usable;                /* 1 if this library can run on the device (since 0.3). 0: a
                                  CUDA GPU whose compute capability the build has no code for
                                  (no machine code, and no PTX old enough for the driver to
                                  compile for it); gpusort_ctx_create then answers UNSUPPORTED
                                  and AUTO passes the device by */
    char unusable_reason[160]; /* why not, when usable == 0 ("" otherwise): e.g. "compute
                                  capability 7.0; this build has code for 75-real;90-real" */
} gpusort_device_info;

GPUSORT_API gpusort_status gpusort_device_get_info(gpusort_backend backend, int device,
                                                   gpusort_device_info *info);

/* ---- Context ---- */
typedef struct gpusort_ctx gpusort_ctx;

/* Create a context on a backend's device (device index from 0; -1 = the backend's default).
 * AUTO tries CUDA, then OpenCL, then CPU and takes the first that has a usable device.
 * On failure *ctx is set to NULL and the status says why (BACKEND_NOT_BUILT, NO_DEVICE, ...):
 * UNSUPPORTED for a device the library cannot run on (gpusort_device_info.usable == 0, whose
 * unusable_reason says why). A CUDA driver older than the runtime the library was built with
 * shows no CUDA device (NO_DEVICE). */
GPUSORT_API gpusort_status gpusort_ctx_create(gpusort_ctx **ctx, gpusort_backend backend,
                                              int device);
/* Free a context and every buffer it owns. NULL is a no-op. Synchronises first. */
GPUSORT_API void gpusort_ctx_free(gpusort_ctx *ctx);
/* The backend the context runs on (never AUTO). */
GPUSORT_API gpusort_backend gpusort_ctx_get_backend(const gpusort_ctx *ctx);
/* The device index the context runs on. */
GPUSORT_API int gpusort_ctx_get_device(const gpusort_ctx *ctx);
/* Detail of the last failing call on this context ("" if none). Valid until the next call. */
GPUSORT_API const char *gpusort_ctx_get_last_error(const gpusort_ctx *ctx);
/* The algorithm the last gpusort_sort / _sort_pairs / _argsort on this context ran, with AUTO
 * resolved to the backend's choice (e.g. RANK for a few thousand keys on CUDA). AUTO if no
 * such call has succeeded yet, or the last one failed or had n = 0. For logs and benchmarks:
 * the choice may change between releases as the crossovers are re-measured. */
GPUSORT_API gpusort_algorithm gpusort_ctx_get_last_algorithm(const gpusort_ctx *ctx);

/* Worker threads for the CPU backend (and for host-side work of the others, such as merging
 * runs). 0 = all online cores (the default). get_threads answers the resolved count. */
GPUSORT_API gpusort_status gpusort_ctx_set_threads(gpusort_ctx *ctx, int threads);
GPUSORT_API int gpusort_ctx_get_threads(const gpusort_ctx *ctx);

/* Asynchronous use: a cudaStream_t (CUDA) or cl_command_queue (OpenCL) owned by the caller.
 * Calls on device data are then enqueued on it and may return before they finish; calls on host
 * data always complete before returning. NULL restores the context's own stream/queue.
 * The CPU backend accepts only NULL.
 * The context keeps the stream until it is given NULL or another one, and
 * gpusort_ctx_synchronize, gpusort_ctx_trim and gpusort_ctx_free wait on it. So set NULL before
 * destroying a CUDA stream: CUDA cannot keep a destroyed stream alive. An OpenCL queue is
 * retained by the context until then. */
GPUSORT_API gpusort_status gpusort_ctx_set_stream(gpusort_ctx *ctx, void *stream);
/* Wait for all work the context enqueued. */
GPUSORT_API gpusort_status gpusort_ctx_synchronize(gpusort_ctx *ctx);
/* Give back the scratch memory the context keeps between calls: the CPU kernels' host buffers
 * and, on CUDA and OpenCL, the device scratch and pinned staging. Waits for the context's work
 * first. The next call allocates again. gpusort_ctx_free does this too. */
GPUSORT_API gpusort_status gpusort_ctx_trim(gpusort_ctx *ctx);

/* ---- Device memory from the caller (since 0.3) ----
 * By default a context allocates its device scratch itself (cudaMalloc), keeps it between calls
 * and gives it back on gpusort_ctx_trim / gpusort_ctx_free. A caller that manages device memory
 * itself (a PyTorch or CuPy caching allocator, a pool) can instead
 *   - give an allocator: every device buffer of the context then comes from alloc and goes back
 *     through free, both called with the context's stream (gpusort_ctx_set_stream; NULL = the
 *     context's own stream), in stream order: a buffer freed on the stream may be reused by
 *     work enqueued on it later, as with cudaFreeAsync. The context still keeps buffers between
 *     calls (trim and free give them back through free). alloc returning NULL makes the call
 *     fail with OUT_OF_DEVICE_MEMORY (the message names the bytes); nothing is leaked, the
 *     context stays usable.
 *   - or give one workspace: calls on device data take all their device scratch from it and
 *     allocate nothing. Its size comes from the same call made with GPUSORT_FLAG_QUERY_SCRATCH:
 *     the call checks its arguments, touches no data (the data pointers may be NULL, meaning
 *     device data; host pointers ask for the host-data path) and records the bytes, read by
 *     gpusort_ctx_get_scratch_size. A later call that needs more than the workspace holds
 *     returns INVALID_ARGUMENT naming both sizes. A call on host data takes its device copies
 *     from the workspace too (CUDA then sorts host data in one shot: no pipeline, no runs).
 * Which backends: CUDA takes both. The CPU backend has no device memory: it answers
 * INVALID_ARGUMENT to an allocator or workspace (NULL is accepted) and 0 to every query.
 * OpenCL answers UNSUPPORTED (its buffers come from clCreateBuffer on its cl_context) and 0 to
 * every query. On CUDA, strings and records (host memory only) answer 0: their device buffers
 * come from the allocator (or the context's own allocation), never from the workspace.
 * Test knob, not an API: the environment variable GPUSORT_TEST_FAIL_DEVICE_ALLOC=k, read when a
 * CUDA context is created, makes the k-th device allocation of that context's own allocation
 * (k from 1, not a caller's allocator) fail as if the device were full. */
typedef struct gpusort_allocator {
    void *(*alloc)(void *user, size_t bytes, void *stream);          /* NULL = out of memory */
    void (*free)(void *user, void *ptr, size_t bytes, void *stream); /* bytes as allocated */
    void *user;                                                      /* passed back as is */
} gpusort_allocator;

/* Use `allocator` (copied; alloc and free must both be set) for the context's device memory
 * from now on; NULL restores the context's own allocation. Waits for the context's work and
 * gives the buffers kept so far back to whoever allocated them. */
GPUSORT_API gpusort_status gpusort_ctx_set_allocator(gpusort_ctx *ctx,
                                                     const gpusort_allocator *allocator);
/* Use `bytes` of caller-owned device memory at `scratch` as the workspace of the following
 * calls (it must stay valid while they run); (NULL, 0) = none, the default. Waits for the
 * context's work first. */
GPUSORT_API gpusort_status gpusort_ctx_set_scratch(gpusort_ctx *ctx, void *scratch, size_t bytes);
/* The same without the wait (since 0.4): work enqueued earlier on the context's stream may
 * still use the previous workspace, so give that memory back in stream order (a stream-ordered
 * pool such as PyTorch's or CuPy's, or cudaFreeAsync on that stream) or after
 * gpusort_ctx_synchronize. A call on device data then stays asynchronous on the caller's
 * stream from workspace to workspace: the Python binding gives each call its workspace so. */
GPUSORT_API gpusort_status gpusort_ctx_set_scratch_async(gpusort_ctx *ctx, void *scratch,
                                                         size_t bytes);
/* The bytes of device scratch recorded by the last call made with GPUSORT_FLAG_QUERY_SCRATCH
 * on this context (0 before any). Enough for that call: an upper bound, not always exact. */
GPUSORT_API size_t gpusort_ctx_get_scratch_size(const gpusort_ctx *ctx);

/* ---- Flags (the last argument of every call that touches data) ---- */
#define GPUSORT_FLAG_CL_MEM 1u   /* the data pointers are cl_mem handles (OpenCL backend; the
                                    buffers belong to the context's cl_context) */
#define GPUSORT_FLAG_QUERY_SCRATCH 2u /* move no data: check the arguments and record the bytes
                                    of device scratch the call needs (since 0.3; see above) */

/* ---- Sorting ---- */

/* Sort n keys of `type`. keys_out == keys_in sorts in place. */
GPUSORT_API gpusort_status gpusort_sort(gpusort_ctx *ctx, gpusort_type type,
                                        const void *keys_in, size_t n, void *keys_out,
                                        gpusort_order order, gpusort_algorithm algorithm,
                                        unsigned flags);

/* Sort n (key, value) pairs by key; value_type is GPUSORT_TYPE_U32 or _U64.
 * keys_out may be NULL when only the permuted values are wanted. values_in may be NULL: the
 * values are then the indices 0, 1, ..., n-1 (an argsort that also returns the sorted keys). */
GPUSORT_API gpusort_status gpusort_sort_pairs(gpusort_ctx *ctx, gpusort_type key_type,
                                              gpusort_type value_type, const void *keys_in,
                                              const void *values_in, size_t n, void *keys_out,
                                              void *values_out, gpusort_order order,
                                              gpusort_algorithm algorithm, unsigned flags);

/* Argsort: indices_out[i] = the input position of the i-th key in sorted (stable) order.
 * index_type is GPUSORT_TYPE_U32 (n must fit) or _U64. The keys are not modified. */
GPUSORT_API gpusort_status gpusort_argsort(gpusort_ctx *ctx, gpusort_type key_type,
                                           gpusort_type index_type, const void *keys_in,
                                           size_t n, void *indices_out, gpusort_order order,
                                           gpusort_algorithm algorithm, unsigned flags);

/* Segmented sort: segments [offsets[s], offsets[s+1]) for s < num_segments are sorted
 * independently (offsets: num_segments + 1 entries in the same kind of memory as the data,
 * non-decreasing, offsets[num_segments] <= n); elements outside every segment are copied
 * unchanged.
 * value_type GPUSORT_TYPE_NONE (with NULL values) sorts keys only; a value type with
 * values_in NULL gives GLOBAL indices: position i of values_out holds the index into the whole
 * input (offsets[s] <= idx < offsets[s+1]), not the index within the segment. keys_out may be
 * NULL when values are wanted only. Not for cl_mem buffers. */
GPUSORT_API gpusort_status gpusort_sort_segmented(gpusort_ctx *ctx, gpusort_type key_type,
                                                  gpusort_type value_type, const void *keys_in,
                                                  const void *values_in, size_t n,
                                                  const uint64_t *offsets, size_t num_segments,
                                                  void *keys_out, void *values_out,
                                                  gpusort_order order,
                                                  gpusort_algorithm algorithm, unsigned flags);

/* Batch sort: n keys as rows of row_length (n % row_length == 0), each row sorted on its own.
 * Values as in gpusort_sort_segmented (values_in NULL with a value type: global indices). */
GPUSORT_API gpusort_status gpusort_sort_batch(gpusort_ctx *ctx, gpusort_type key_type,
                                              gpusort_type value_type, const void *keys_in,
                                              const void *values_in, size_t n,
                                              size_t row_length, void *keys_out,
                                              void *values_out, gpusort_order order,
                                              gpusort_algorithm algorithm, unsigned flags);

/* ---- Top-k ---- */

/* Top-k: the first k entries of the stable sort of the n keys in `order`: the k smallest keys
 * ascending (GPUSORT_ORDER_ASC) or the k largest descending (GPUSORT_ORDER_DESC), in sorted
 * order, ties going to the lower input index (so the result is deterministic: the same as
 * gpusort_sort_pairs with indices, cut after k). Floats in the contract's order: NaN is the
 * largest key, so it comes last ascending and first descending.
 * keys_out receives k keys (NULL: not wanted); indices_out receives the k input indices
 * (NULL: not wanted) of index_type U32 (n must fit) or U64; index_type is ignored when
 * indices_out is NULL. At least one output is given. 0 <= k <= n (k == 0 does nothing).
 * Outputs must not overlap the input or each other. flags: GPUSORT_FLAG_CL_MEM (OpenCL).
 * Device scratch: from the context or its allocator; top-k takes no workspace yet (CUDA
 * answers UNSUPPORTED while one is set) and no GPUSORT_FLAG_QUERY_SCRATCH. */
GPUSORT_API gpusort_status gpusort_topk(gpusort_ctx *ctx, gpusort_type key_type,
                                        gpusort_type index_type, const void *keys_in, size_t n,
                                        size_t k, void *keys_out, void *indices_out,
                                        gpusort_order order, unsigned flags);

/* Batched top-k: n keys as rows of row_length (n % row_length == 0); each row's top k
 * (k <= row_length) as gpusort_topk gives it, row r's results at [r * k, (r + 1) * k) of the
 * outputs. The indices are positions WITHIN the row (0 <= idx < row_length), as torch.topk
 * returns them (unlike gpusort_sort_batch, whose indices are global). Not for cl_mem buffers. */
GPUSORT_API gpusort_status gpusort_topk_batch(gpusort_ctx *ctx, gpusort_type key_type,
                                              gpusort_type index_type, const void *keys_in,
                                              size_t n, size_t row_length, size_t k,
                                              void *keys_out, void *indices_out,
                                              gpusort_order order, unsigned flags);

/* ---- Strings and records (host memory) ---- */

/* Stable sort of n byte strings in byte order (memcmp; a proper prefix sorts first).
 * String i is bytes[offsets[i] .. offsets[i+1]) (offsets has n + 1 entries).
 * indices_out[k] = index of the k-th string in sorted order; index_type U32 (n must fit) or
 * U64. flags: 0 or GPUSORT_FLAG_QUERY_SCRATCH. */
GPUSORT_API gpusort_status gpusort_sort_strings(gpusort_ctx *ctx, gpusort_type index_type,
                                                const uint8_t *bytes, const uint64_t *offsets,
                                                size_t n, void *indices_out,
                                                gpusort_order order, unsigned flags);

/* Stable sort of n fixed-size records of record_size bytes by the byte string
 * key = record[key_offset .. key_offset + key_size) compared with memcmp.
 * records_out may equal records_in. indices_out may be NULL; else it receives the input index
 * of each output record, of index_type U32 (n must fit) or U64. flags: 0 or
 * GPUSORT_FLAG_QUERY_SCRATCH. */
GPUSORT_API gpusort_status gpusort_sort_records(gpusort_ctx *ctx, gpusort_type index_type,
                                                const void *records_in, size_t n,
                                                size_t record_size, size_t key_offset,
                                                size_t key_size, void *records_out,
                                                void *indices_out, gpusort_order order,
                                                unsigned flags);

/* ---- Several devices of one host (since 0.4) ----
 *
 * One sequence spread over `count` contexts (typically one per GPU), sorted as a whole: piece
 * g is keys[g][0 .. n[g]) in the memory of ctxs[g]; on return piece g holds the positions
 * [n[0] + ... + n[g-1], ... + n[g]) of the stable sorted sequence of all pieces, in which
 * equal keys keep (g, position) order. Each piece keeps its size (0 allowed), so callers
 * allocate nothing new. The sort is in place.
 *   Memory   either every piece is in host memory (any backend: the pieces are sorted by their
 *            contexts, then merged on the host), or every piece is device memory of its own
 *            context's GPU (CUDA contexts). Mixed, or a device piece on another GPU than its
 *            context's, is an invalid argument. Several contexts may share one GPU.
 *   Method   each context sorts its piece (one host thread per context, at once); the exact
 *            split of every sorted piece at the output boundaries is computed by a radix
 *            selection on the sorted pieces (on the GPUs for device data); one all-to-all
 *            exchange moves each slice to its destination (GPU to GPU: CUDA peer copies when
 *            every two of the GPUs can reach each other, over NVLink or PCIe; else NCCL's
 *            ncclSend and ncclRecv in one group when libnccl.so.2 can be loaded --
 *            GPUSORT_NCCL_LIBRARY names it -- and every context has its own GPU; else peer
 *            copies staged by the driver); each destination merges its count received runs
 *            stably (on its GPU for device data). Device pieces are moved in chunks per
 *            destination, each merged while the next moves (peer copies): as many as keep
 *            each source's slice of a chunk at 2^24 keys or more, at most 8
 *            (GPUSORT_MULTI_CHUNKS=K sets the count, 1 turns it off).
 *            GPUSORT_MULTI_EXCHANGE=peer or =nccl in the environment forces the exchange.
 *            GPUSORT_MULTI_RADIX=1 (CUDA, at most 8 contexts, GPUs that reach each other) takes
 *            another method instead: the radix sort's pass on the highest differing digit
 *            stores every key straight into the GPU that owns its position, then each GPU
 *            sorts what it received on the digits below; slower than the above on two H200s
 *            (bench/results/multi-2026-11-28d.md), so not the default.
 *   Memory   per context n[g] * (key + value bytes) for the received runs, in the pieces' kind
 *            of memory (device pieces: the buffers of the local sort's scratch, kept by the
 *            context); with chunks as much again for a sorted copy of the piece, where the
 *            device has it (else one chunk).
 *   Threads  the call uses every context from a thread of its own; none may be in use
 *            elsewhere meanwhile, and ctxs[] may not name one context twice. A context's
 *            stream (gpusort_ctx_set_stream) is honoured: the call waits for it first and
 *            completes before returning.
 *   Errors   any context's failure fails the call; its message goes to that context's
 *            gpusort_ctx_get_last_error() and, prefixed with its index, to ctxs[0]'s. The
 *            pieces are then unspecified (a permutation of the input is not promised).
 */

/* Sort the pieces keys[0 .. count) (n[g] keys of `type` each) as one sequence, in place.
 * flags must be 0. */
GPUSORT_API gpusort_status gpusort_multi_sort(gpusort_ctx *const *ctxs, int count,
                                              gpusort_type type, void *const *keys,
                                              const size_t *n, gpusort_order order,
                                              unsigned flags);

/* The same for (key, value) pairs: values[g] holds n[g] values of value_type (U32 or U64)
 * beside keys[g] and moves with them. flags must be 0. */
GPUSORT_API gpusort_status gpusort_multi_sort_pairs(gpusort_ctx *const *ctxs, int count,
                                                    gpusort_type key_type,
                                                    gpusort_type value_type,
                                                    void *const *keys, void *const *values,
                                                    const size_t *n, gpusort_order order,
                                                    unsigned flags);

/* Where this thread's last successful gpusort_multi_* call spent its time (seconds of wall
 * time, phases in order), for benchmarks and logs. */
typedef struct gpusort_multi_times {
    double local_sort_s;    /* every context's sort of its piece (the slowest) */
    double split_s;         /* the exact splits of the sorted pieces */
    double exchange_s;      /* the all-to-all exchange of the slices (with the merges when
                               they overlap it: merge_s is then 0) */
    double merge_s;         /* every destination's merge of its runs (the slowest) */
    double total_s;         /* the whole call */
    uint64_t moved_bytes;   /* keys and values that changed context */
    const char *exchange;   /* "host", "peer" or "nccl": how the slices moved ("none": one
                               context) */
} gpusort_multi_times;
GPUSORT_API void gpusort_multi_get_last_times(gpusort_multi_times *times);

/* ---- Reduction ---- */
typedef union gpusort_value {
    uint64_t u;   /* sum of u32/u64 (mod 2^64); min/max of u32/u64 */
    int64_t i;    /* sum of i32/i64 (mod 2^64, two's complement); min/max of i32/i64 */
    double f;     /* sum, min, max of f32/f64 (f32 min/max converted exactly) */
} gpusort_value;

/* Which field of gpusort_value holds the result for a type: 'u', 'i' or 'f'. */
GPUSORT_API char gpusort_value_field(gpusort_type type);

/* Reduce n elements of `type` with op into *result. The call completes before returning: the
 * result is on the host. flags: GPUSORT_FLAG_CL_MEM for a cl_mem buffer (OpenCL),
 * GPUSORT_FLAG_QUERY_SCRATCH (result may then be NULL). */
GPUSORT_API gpusort_status gpusort_reduce(gpusort_ctx *ctx, gpusort_type type, const void *data,
                                          size_t n, gpusort_value *result, gpusort_op op,
                                          unsigned flags);

#ifdef __cplusplus
}
#endif
#endif /* GPUSORT_H */
