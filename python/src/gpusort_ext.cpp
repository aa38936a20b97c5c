/*
 * gpusort_ext.cpp -- the C extension of the Python package: a thin layer from Python integers
 * (data pointers, sizes, enum values) to the C calls of include/gpusort.h.
 *
 * Exports (module gpusort._core): sort, sort_pairs, argsort, sort_batch, sort_segmented,
 * topk, topk_batch, reduce, sort_strings (one per C call, same argument order after a common
 * prefix), and backend_built, device_count, context_backend, trim, version.
 * Everything above pointers -- which framework an array comes from, dtypes, axes, outputs,
 * the scratch buffer -- is decided in gpusort/__init__.py; this file only runs the call.
 *
 * The common prefix of every data call is (backend, device, stream, workspace, workspace_bytes):
 *   - one context per (backend, device) and per thread, created on first use and kept in a
 *     thread_local cache (a context is not thread-safe, gpusort.h "Threads"), freed when the
 *     thread ends or by trim(free=True);
 *   - stream: the caller's cudaStream_t as an integer (0 = none: the context's own stream);
 *   - workspace: device memory from the caller's framework (torch/CuPy pools) given to the
 *     context for this call only (gpusort_ctx_set_scratch), 0 = none. Calls made with
 *     GPUSORT_FLAG_QUERY_SCRATCH return the bytes they need (gpusort_ctx_get_scratch_size).
 * The GIL is released while the library runs. A failing status raises: ValueError
 * (INVALID_ARGUMENT), MemoryError (OUT_OF_HOST/DEVICE_MEMORY), RuntimeError (the rest), with
 * gpusort_ctx_get_last_error's detail in the text.
 */
#include <nanobind/nanobind.h>
#include <nanobind/stl/pair.h>
#include <nanobind/stl/string.h>

#include <cstdint>
#include <cstring>
#include <string>

extern "C" {
#include "gpusort.h"
}

namespace nb = nanobind;

namespace {

/* A thread's contexts: a handful at most (CPU, OpenCL, one per CUDA device in use). */
struct ctx_slot {
    int backend, device;      /* as asked: AUTO (0) and device -1 are keys of their own */
    gpusort_ctx *ctx;
};

struct ctx_cache {
    enum { MAX = 16 };
    ctx_slot slot[MAX];
    int count = 0;
    ~ctx_cache() { clear(); }
    void clear()
    {
        for (int i = 0; i < count; i++) gpusort_ctx_free(slot[i].ctx);
        count = 0;
    }
};

thread_local ctx_cache cache;

[[noreturn]] void raise_status(gpusort_status s, const char *what, const char *detail)
{
    std::string msg = std::string("gpusort.") + what + ": " + gpusort_status_string(s);
    if (detail && *detail) msg += std::string(": ") + detail;
    switch (s) {
    case GPUSORT_STATUS_INVALID_ARGUMENT: throw nb::value_error(msg.c_str());
    case GPUSORT_STATUS_OUT_OF_HOST_MEMORY:
    case GPUSORT_STATUS_OUT_OF_DEVICE_MEMORY:
        PyErr_SetString(PyExc_MemoryError, msg.c_str());
        throw nb::python_error();
    default: throw std::runtime_error(msg);
    }
}

/* The calling thread's context for (backend, device); created on first use. Called with the
 * GIL held (context creation is quick after the first CUDA initialisation). */
gpusort_ctx *context(int backend, int device)
{
    for (int i = 0; i < cache.count; i++)
        if (cache.slot[i].backend == backend && cache.slot[i].device == device)
            return cache.slot[i].ctx;
    if (cache.count == ctx_cache::MAX) cache.clear();
    gpusort_ctx *c = nullptr;
    gpusort_status s;
    {
        nb::gil_scoped_release nogil;
        s = gpusort_ctx_create(&c, (gpusort_backend)backend, device);
    }
    if (s) {
        const char *name = gpusort_backend_name((gpusort_backend)backend);
        std::string d = std::string("backend ") + (name ? name : "?") + ", device " + std::to_string(device);
        raise_status(s, "context", d.c_str());
    }
    ctx_slot &sl = cache.slot[cache.count++];
    sl.backend = backend;
    sl.device = device;
    sl.ctx = c;
    return c;
}

/* The prefix every data call takes from Python. */
struct prefix {
    int backend, device;
    uintptr_t stream, ws;
    size_t ws_bytes;
};

/* Run f(ctx) with the GIL released, on the caller's stream and workspace; raise on failure.
 * Returns the scratch bytes recorded when flags asked for a query, else 0.
 * Both belong to this call only: the context is on its own stream again when the call returns.
 * A cached context that kept the caller's stream would outlive it (a CuPy stream is destroyed
 * when collected), and trim() or the thread's end would then synchronise a destroyed stream. */
template <class F>
size_t run(const char *what, const prefix &p, unsigned flags, F f)
{
    gpusort_ctx *c = context(p.backend, p.device);
    gpusort_status s = GPUSORT_STATUS_SUCCESS;
    size_t bytes = 0;
    std::string err;
    {
        nb::gil_scoped_release nogil;
        if (p.stream) s = gpusort_ctx_set_stream(c, (void *)p.stream);
        if (!s && p.ws) s = gpusort_ctx_set_scratch_async(c, (void *)p.ws, p.ws_bytes);
        if (!s) {
            s = f(c);
            if (!s && (flags & GPUSORT_FLAG_QUERY_SCRATCH)) bytes = gpusort_ctx_get_scratch_size(c);
        }
        if (s) err = gpusort_ctx_get_last_error(c);
        /* The caller frees the workspace when the call returns, in stream order (the pools
         * of torch and CuPy are), so neither setting waits: the call stays asynchronous on the
         * caller's stream. Unsetting either (NULL) cannot fail. */
        if (p.ws) gpusort_ctx_set_scratch_async(c, nullptr, 0);
        if (p.stream) gpusort_ctx_set_stream(c, nullptr);
    }
    if (s) raise_status(s, what, err.c_str());
    return bytes;
}

#define PTR(x) ((void *)(uintptr_t)(x))
#define CPTR(x) ((const void *)(uintptr_t)(x))
#define T(x) ((gpusort_type)(x))
#define O(x) ((gpusort_order)(x))
#define A(x) ((gpusort_algorithm)(x))

} // namespace

NB_MODULE(_core, m)
{
    m.doc() = "gpusort's C calls on raw pointers (internal: use the gpusort package)";
    m.attr("FLAG_QUERY_SCRATCH") = GPUSORT_FLAG_QUERY_SCRATCH;
    m.attr("FLAG_CL_MEM") = GPUSORT_FLAG_CL_MEM;

    m.def("version", []() { return std::string(gpusort_version()); });
    m.def("backend_built", [](int b) { return gpusort_backend_built((gpusort_backend)b) != 0; });
    m.def("device_count", [](int b) {
        int n = 0;
        gpusort_status s = gpusort_device_get_count((gpusort_backend)b, &n);
        return s ? -1 : n;
    });
    m.def("context_backend", [](int b, int d) {
        gpusort_ctx *c = context(b, d);
        return std::make_pair((int)gpusort_ctx_get_backend(c), gpusort_ctx_get_device(c));
    });
    m.def("trim", [](bool free_contexts) {
        if (free_contexts) { nb::gil_scoped_release nogil; cache.clear(); return; }
        for (int i = 0; i < cache.count; i++) {
            nb::gil_scoped_release nogil;
            gpusort_ctx_trim(cache.slot[i].ctx);
        }
    }, nb::arg("free_contexts") = false);
    m.def("synchronize", [](int b, int d) {
        gpusort_ctx *c = context(b, d);
        gpusort_status s;
        { nb::gil_scoped_release nogil; s = gpusort_ctx_synchronize(c); }
        if (s) raise_status(s, "synchronize", gpusort_ctx_get_last_error(c));
    });

    m.def("sort", [](int b, int d, uintptr_t st, uintptr_t ws, size_t wsb, int type, uintptr_t in,
                     size_t n, uintptr_t out, int order, int alg, unsigned flags) {
        return run("sort", {b, d, st, ws, wsb}, flags, [&](gpusort_ctx *c) {
            return gpusort_sort(c, T(type), CPTR(in), n, PTR(out), O(order), A(alg), flags);
        });
    });
    m.def("sort_pairs", [](int b, int d, uintptr_t st, uintptr_t ws, size_t wsb, int kt, int vt,
                           uintptr_t kin, uintptr_t vin, size_t n, uintptr_t kout, uintptr_t vout,
                           int order, int alg, unsigned flags) {
        return run("sort_pairs", {b, d, st, ws, wsb}, flags, [&](gpusort_ctx *c) {
            return gpusort_sort_pairs(c, T(kt), T(vt), CPTR(kin), CPTR(vin), n, PTR(kout), PTR(vout),
                                      O(order), A(alg), flags);
        });
    });
    m.def("argsort", [](int b, int d, uintptr_t st, uintptr_t ws, size_t wsb, int kt, int it,
                        uintptr_t kin, size_t n, uintptr_t iout, int order, int alg, unsigned flags) {
        return run("argsort", {b, d, st, ws, wsb}, flags, [&](gpusort_ctx *c) {
            return gpusort_argsort(c, T(kt), T(it), CPTR(kin), n, PTR(iout), O(order), A(alg), flags);
        });
    });
    m.def("sort_batch", [](int b, int d, uintptr_t st, uintptr_t ws, size_t wsb, int kt, int vt,
                           uintptr_t kin, uintptr_t vin, size_t n, size_t row, uintptr_t kout,
                           uintptr_t vout, int order, int alg, unsigned flags) {
        return run("sort_batch", {b, d, st, ws, wsb}, flags, [&](gpusort_ctx *c) {
            return gpusort_sort_batch(c, T(kt), T(vt), CPTR(kin), CPTR(vin), n, row, PTR(kout),
                                      PTR(vout), O(order), A(alg), flags);
        });
    });
    m.def("sort_segmented", [](int b, int d, uintptr_t st, uintptr_t ws, size_t wsb, int kt, int vt,
                               uintptr_t kin, uintptr_t vin, size_t n, uintptr_t offsets,
                               size_t segs, uintptr_t kout, uintptr_t vout, int order, int alg,
                               unsigned flags) {
        return run("segmented_sort", {b, d, st, ws, wsb}, flags, [&](gpusort_ctx *c) {
            return gpusort_sort_segmented(c, T(kt), T(vt), CPTR(kin), CPTR(vin), n,
                                          (const uint64_t *)CPTR(offsets), segs, PTR(kout),
                                          PTR(vout), O(order), A(alg), flags);
        });
    });
    m.def("topk", [](int b, int d, uintptr_t st, int kt, int it, uintptr_t kin, size_t n, size_t k,
                     uintptr_t kout, uintptr_t iout, int order) {
        return run("topk", {b, d, st, 0, 0}, 0, [&](gpusort_ctx *c) {
            return gpusort_topk(c, T(kt), T(it), CPTR(kin), n, k, PTR(kout), PTR(iout), O(order), 0);
        });
    });
    m.def("topk_batch", [](int b, int d, uintptr_t st, int kt, int it, uintptr_t kin, size_t n,
                           size_t row, size_t k, uintptr_t kout, uintptr_t iout, int order) {
        return run("topk", {b, d, st, 0, 0}, 0, [&](gpusort_ctx *c) {
            return gpusort_topk_batch(c, T(kt), T(it), CPTR(kin), n, row, k, PTR(kout), PTR(iout),
                                      O(order), 0);
        });
    });
    m.def("reduce", [](int b, int d, uintptr_t st, uintptr_t ws, size_t wsb, int type,
                       uintptr_t data, size_t n, int op, unsigned flags) -> nb::object {
        gpusort_value v;
        std::memset(&v, 0, sizeof v);
        size_t bytes = run("reduce", {b, d, st, ws, wsb}, flags, [&](gpusort_ctx *c) {
            return gpusort_reduce(c, T(type), CPTR(data), n, &v, (gpusort_op)op, flags);
        });
        if (flags & GPUSORT_FLAG_QUERY_SCRATCH) return nb::int_(bytes);
        switch (gpusort_value_field(T(type))) {
        case 'u': return nb::int_(v.u);
        case 'i': return nb::int_(v.i);
        default: return nb::float_(v.f);
        }
    });
    m.def("sort_strings", [](int b, int d, int it, uintptr_t bytes, uintptr_t offsets, size_t n,
                             uintptr_t iout, int order) {
        return run("sort_strings", {b, d, 0, 0, 0}, 0, [&](gpusort_ctx *c) {
            return gpusort_sort_strings(c, T(it), (const uint8_t *)CPTR(bytes),
                                        (const uint64_t *)CPTR(offsets), n, PTR(iout), O(order), 0);
        });
    });
}
