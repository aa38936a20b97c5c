/*
 * test_api.c -- the API contract of include/gpusort.h that needs no GPU: names and status
 * strings, backend and device queries, context life cycle, AUTO's fallback, the threads and
 * stream setters, and every invalid argument the core must refuse (with a detail message)
 * before a backend sees it.
 *
 *   test_api [-v]        exit 0 if every assertion held, 1 otherwise
 *
 * Assertions print both operands and keep going (libuv style, without aborting), so one run
 * lists every broken promise; the last line is "N passed, N failed".
 */
#include "gpusort.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static long passed, failed;
static int verbose;

#define CHECK_(cond, ...) do {                                                  \
        if (cond) { passed++; break; }                                          \
        failed++;                                                               \
        fprintf(stdout, "%s:%d: ", __FILE__, __LINE__);                         \
        fprintf(stdout, __VA_ARGS__);                                           \
        fputc('\n', stdout);                                                    \
    } while (0)

/* ASSERT_EQ(a, b): integers (printed as long long). */
#define ASSERT_EQ(a, b) do {                                                    \
        long long a_ = (long long)(a), b_ = (long long)(b);                     \
        CHECK_(a_ == b_, "assertion failed: %s == %s (%lld == %lld)", #a, #b, a_, b_); \
    } while (0)
#define ASSERT_NE(a, b) do {                                                    \
        long long a_ = (long long)(a), b_ = (long long)(b);                     \
        CHECK_(a_ != b_, "assertion failed: %s != %s (%lld != %lld)", #a, #b, a_, b_); \
    } while (0)
#define ASSERT_GE(a, b) do {                                                    \
        long long a_ = (long long)(a), b_ = (long long)(b);                     \
        CHECK_(a_ >= b_, "assertion failed: %s >= %s (%lld >= %lld)", #a, #b, a_, b_); \
    } while (0)
#define ASSERT_PTR_EQ(a, b) do {                                                \
        const void *a_ = (const void *)(a), *b_ = (const void *)(b);            \
        CHECK_(a_ == b_, "assertion failed: %s == %s (%p == %p)", #a, #b, a_, b_); \
    } while (0)
#define ASSERT_STR_EQ(a, b) do {                                                \
        const char *a_ = (a), *b_ = (b);                                        \
        CHECK_(a_ && b_ && strcmp(a_, b_) == 0, "assertion failed: %s == %s (\"%s\" == \"%s\")", \
               #a, #b, a_ ? a_ : "(null)", b_ ? b_ : "(null)");                  \
    } while (0)
/* A status with its name on failure. */
#define ASSERT_STATUS(expr, want) do {                                          \
        gpusort_status s_ = (expr), w_ = (want);                                \
        CHECK_(s_ == w_, "assertion failed: %s == %s (\"%s\" == \"%s\")", #expr, #want, \
               gpusort_status_string(s_), gpusort_status_string(w_));           \
    } while (0)
/* An INVALID_ARGUMENT on ctx, with a non-empty detail message. */
#define ASSERT_INVALID(ctx, expr) do {                                          \
        ASSERT_STATUS(expr, GPUSORT_STATUS_INVALID_ARGUMENT);                   \
        const char *e_ = gpusort_ctx_get_last_error(ctx);                           \
        CHECK_(e_ && e_[0], "no detail in gpusort_ctx_last_error after %s", #expr); \
        if (verbose && e_) printf("  ok: %s -> %s\n", #expr, e_);               \
    } while (0)

/* ---- names ---- */

static void test_status_strings(void)
{
    /* every code has its own non-empty string, as the table in gpusort.h says */
#define X_(name, code, msg)                                                      \
    ASSERT_EQ(GPUSORT_STATUS_##name, code);                                     \
    ASSERT_STR_EQ(gpusort_status_string(GPUSORT_STATUS_##name), msg);
    GPUSORT_STATUS_LIST(X_)
#undef X_
    for (int a = 0; a < GPUSORT_STATUS_COUNT_; a++)
        for (int b = a + 1; b < GPUSORT_STATUS_COUNT_; b++)
            CHECK_(strcmp(gpusort_status_string((gpusort_status)a),
                          gpusort_status_string((gpusort_status)b)) != 0,
                   "status %d and %d share a string", a, b);
    ASSERT_STR_EQ(gpusort_status_string(GPUSORT_STATUS_COUNT_), "unknown status");
    ASSERT_STR_EQ(gpusort_status_string((gpusort_status)-1), "unknown status");
    ASSERT_STR_EQ(gpusort_status_string((gpusort_status)12345), "unknown status");
}

static void test_version(void)
{
    char want[32];
    snprintf(want, sizeof want, "%d.%d.%d", GPUSORT_VERSION_MAJOR, GPUSORT_VERSION_MINOR,
             GPUSORT_VERSION_PATCH);
    ASSERT_STR_EQ(GPUSORT_VERSION_STRING, want);
    ASSERT_STR_EQ(gpusort_version(), GPUSORT_VERSION_STRING); /* library and header agree */
    ASSERT_EQ(gpusort_version_number(), (unsigned)GPUSORT_VERSION_NUMBER);
    ASSERT_EQ(GPUSORT_VERSION_NUMBER, GPUSORT_VERSION_MAJOR * 10000 + GPUSORT_VERSION_MINOR * 100 +
                                          GPUSORT_VERSION_PATCH);
}

static void test_names(void)
{
    static const char *const types[] = {"u32", "i32", "f32", "u64", "i64", "f64"};
    static const size_t sizes[] = {4, 4, 4, 8, 8, 8};
    static const char fields[] = {'u', 'i', 'f', 'u', 'i', 'f'};
    for (int t = 0; t < GPUSORT_TYPE_COUNT_; t++) {
        gpusort_type parsed = GPUSORT_TYPE_NONE;
        ASSERT_STR_EQ(gpusort_type_name((gpusort_type)t), types[t]);
        ASSERT_EQ(gpusort_type_size((gpusort_type)t), sizes[t]);
        ASSERT_EQ(gpusort_value_field((gpusort_type)t), fields[t]);
        ASSERT_STATUS(gpusort_type_parse(types[t], &parsed), GPUSORT_STATUS_SUCCESS);
        ASSERT_EQ(parsed, t);
    }
    gpusort_type tt = GPUSORT_TYPE_U32;
    ASSERT_PTR_EQ(gpusort_type_name(GPUSORT_TYPE_NONE), NULL);
    ASSERT_PTR_EQ(gpusort_type_name(GPUSORT_TYPE_COUNT_), NULL);
    ASSERT_EQ(gpusort_type_size(GPUSORT_TYPE_NONE), 0);
    ASSERT_EQ(gpusort_type_size((gpusort_type)99), 0);
    ASSERT_EQ(gpusort_value_field(GPUSORT_TYPE_NONE), 0);
    ASSERT_STATUS(gpusort_type_parse("f16", &tt), GPUSORT_STATUS_INVALID_ARGUMENT);
    ASSERT_STATUS(gpusort_type_parse("U32", &tt), GPUSORT_STATUS_INVALID_ARGUMENT);
    ASSERT_STATUS(gpusort_type_parse("", &tt), GPUSORT_STATUS_INVALID_ARGUMENT);
    ASSERT_STATUS(gpusort_type_parse(NULL, &tt), GPUSORT_STATUS_INVALID_ARGUMENT);
    ASSERT_STATUS(gpusort_type_parse("u32", NULL), GPUSORT_STATUS_INVALID_ARGUMENT);
    ASSERT_EQ(tt, GPUSORT_TYPE_U32); /* untouched by failed parses */

    static const char *const backends[] = {"auto", "cpu", "cuda", "opencl"};
    for (int b = 0; b < GPUSORT_BACKEND_COUNT_; b++) {
        gpusort_backend parsed = (gpusort_backend)-1;
        ASSERT_STR_EQ(gpusort_backend_name((gpusort_backend)b), backends[b]);
        ASSERT_STATUS(gpusort_backend_parse(backends[b], &parsed), GPUSORT_STATUS_SUCCESS);
        ASSERT_EQ(parsed, b);
    }
    gpusort_backend bb = GPUSORT_BACKEND_CPU;
    ASSERT_PTR_EQ(gpusort_backend_name(GPUSORT_BACKEND_COUNT_), NULL);
    ASSERT_PTR_EQ(gpusort_backend_name((gpusort_backend)-1), NULL);
    ASSERT_STATUS(gpusort_backend_parse("vulkan", &bb), GPUSORT_STATUS_INVALID_ARGUMENT);
    ASSERT_STATUS(gpusort_backend_parse(NULL, &bb), GPUSORT_STATUS_INVALID_ARGUMENT);
    ASSERT_STATUS(gpusort_backend_parse("cpu", NULL), GPUSORT_STATUS_INVALID_ARGUMENT);

    static const char *const algs[] = {"auto", "radix", "merge", "bitonic", "rank"};
    for (int a = 0; a < GPUSORT_ALGORITHM_COUNT_; a++) {
        gpusort_algorithm parsed = (gpusort_algorithm)-1;
        ASSERT_STR_EQ(gpusort_algorithm_name((gpusort_algorithm)a), algs[a]);
        ASSERT_STATUS(gpusort_algorithm_parse(algs[a], &parsed), GPUSORT_STATUS_SUCCESS);
        ASSERT_EQ(parsed, a);
    }
    gpusort_algorithm aa = GPUSORT_ALGORITHM_AUTO;
    ASSERT_PTR_EQ(gpusort_algorithm_name(GPUSORT_ALGORITHM_COUNT_), NULL);
    ASSERT_PTR_EQ(gpusort_algorithm_name((gpusort_algorithm)-3), NULL);
    ASSERT_STATUS(gpusort_algorithm_parse("quick", &aa), GPUSORT_STATUS_INVALID_ARGUMENT);
    ASSERT_STATUS(gpusort_algorithm_parse(NULL, &aa), GPUSORT_STATUS_INVALID_ARGUMENT);
    ASSERT_STATUS(gpusort_algorithm_parse("radix", NULL), GPUSORT_STATUS_INVALID_ARGUMENT);
}

/* ---- backends, devices, contexts ---- */

static void test_backends_and_devices(void)
{
    ASSERT_EQ(gpusort_backend_built(GPUSORT_BACKEND_AUTO), 1);
    ASSERT_EQ(gpusort_backend_built(GPUSORT_BACKEND_CPU), 1);
    ASSERT_EQ(gpusort_backend_built((gpusort_backend)77), 0);

    int count = -1;
    ASSERT_STATUS(gpusort_device_get_count(GPUSORT_BACKEND_CPU, &count), GPUSORT_STATUS_SUCCESS);
    ASSERT_EQ(count, 1);
    ASSERT_STATUS(gpusort_device_get_count(GPUSORT_BACKEND_CPU, NULL),
                  GPUSORT_STATUS_INVALID_ARGUMENT);
    ASSERT_STATUS(gpusort_device_get_count(GPUSORT_BACKEND_AUTO, &count),
                  GPUSORT_STATUS_INVALID_ARGUMENT);
    ASSERT_STATUS(gpusort_device_get_count((gpusort_backend)77, &count),
                  GPUSORT_STATUS_INVALID_ARGUMENT);

    gpusort_device_info info;
    memset(&info, 0x5a, sizeof info);
    ASSERT_STATUS(gpusort_device_get_info(GPUSORT_BACKEND_CPU, 0, &info), GPUSORT_STATUS_SUCCESS);
    CHECK_(memchr(info.name, 0, sizeof info.name) && info.name[0],
           "CPU device name is empty or not terminated");
    CHECK_(memchr(info.platform, 0, sizeof info.platform) != NULL,
           "CPU platform string is not terminated");
    ASSERT_GE(info.compute_units, 1);
    ASSERT_EQ(info.is_gpu, 0);
    ASSERT_EQ(info.supports_f64, 1);
    CHECK_(info.memory_bytes > 0, "CPU memory_bytes is 0");
    if (verbose) printf("  cpu device: %s (%s), %d threads\n", info.name, info.platform,
                        info.compute_units);
    ASSERT_STATUS(gpusort_device_get_info(GPUSORT_BACKEND_CPU, 1, &info),
                  GPUSORT_STATUS_INVALID_ARGUMENT);
    ASSERT_STATUS(gpusort_device_get_info(GPUSORT_BACKEND_CPU, -1, &info),
                  GPUSORT_STATUS_INVALID_ARGUMENT);
    ASSERT_STATUS(gpusort_device_get_info(GPUSORT_BACKEND_CPU, 0, NULL),
                  GPUSORT_STATUS_INVALID_ARGUMENT);

    /* the GPU backends: not built -> BACKEND_NOT_BUILT everywhere; built -> a count (maybe 0),
     * and a context only where a device exists */
    static const gpusort_backend gpus[] = {GPUSORT_BACKEND_CUDA, GPUSORT_BACKEND_OPENCL};
    for (size_t i = 0; i < 2; i++) {
        gpusort_backend b = gpus[i];
        gpusort_ctx *ctx = (gpusort_ctx *)&count; /* must be overwritten with NULL on failure */
        count = -1;
        if (!gpusort_backend_built(b)) {
            ASSERT_STATUS(gpusort_device_get_count(b, &count), GPUSORT_STATUS_BACKEND_NOT_BUILT);
            ASSERT_EQ(count, 0);
            ASSERT_STATUS(gpusort_ctx_create(&ctx, b, -1), GPUSORT_STATUS_BACKEND_NOT_BUILT);
            ASSERT_PTR_EQ(ctx, NULL);
            ASSERT_STATUS(gpusort_device_get_info(b, 0, &info), GPUSORT_STATUS_BACKEND_NOT_BUILT);
            if (verbose) printf("  %s: not built\n", gpusort_backend_name(b));
            continue;
        }
        ASSERT_STATUS(gpusort_device_get_count(b, &count), GPUSORT_STATUS_SUCCESS);
        ASSERT_GE(count, 0);
        if (verbose) printf("  %s: built, %d device(s)\n", gpusort_backend_name(b), count);
        if (count == 0) {
            ASSERT_STATUS(gpusort_ctx_create(&ctx, b, -1), GPUSORT_STATUS_NO_DEVICE);
            ASSERT_PTR_EQ(ctx, NULL);
            ASSERT_STATUS(gpusort_device_get_info(b, 0, &info), GPUSORT_STATUS_NO_DEVICE);
        } else {
            ASSERT_STATUS(gpusort_ctx_create(&ctx, b, count), GPUSORT_STATUS_INVALID_ARGUMENT);
            ASSERT_PTR_EQ(ctx, NULL);
            for (int d = 0; d < count; d++) {
                memset(&info, 0, sizeof info);
                ASSERT_STATUS(gpusort_device_get_info(b, d, &info), GPUSORT_STATUS_SUCCESS);
                CHECK_(info.name[0] != 0, "%s device %d has no name", gpusort_backend_name(b), d);
                if (verbose) printf("    %d: %s (%s)%s\n", d, info.name, info.platform,
                                    info.is_gpu ? ", GPU" : "");
            }
            ASSERT_STATUS(gpusort_ctx_create(&ctx, b, 0), GPUSORT_STATUS_SUCCESS);
            if (ctx) {
                ASSERT_EQ(gpusort_ctx_get_backend(ctx), b);
                ASSERT_EQ(gpusort_ctx_get_device(ctx), 0);
                ASSERT_STR_EQ(gpusort_ctx_get_last_error(ctx), "");
            }
            gpusort_ctx_free(ctx);
        }
    }
}

static void test_contexts(void)
{
    gpusort_ctx_free(NULL); /* a no-op */
    ASSERT_EQ(gpusort_ctx_get_backend(NULL), GPUSORT_BACKEND_AUTO);
    ASSERT_EQ(gpusort_ctx_get_device(NULL), -1);
    ASSERT_STR_EQ(gpusort_ctx_get_last_error(NULL), "");

    gpusort_ctx *ctx = (gpusort_ctx *)&passed;
    ASSERT_STATUS(gpusort_ctx_create(NULL, GPUSORT_BACKEND_CPU, 0), GPUSORT_STATUS_INVALID_ARGUMENT);
    ASSERT_STATUS(gpusort_ctx_create(&ctx, (gpusort_backend)9, 0), GPUSORT_STATUS_INVALID_ARGUMENT);
    ASSERT_PTR_EQ(ctx, NULL);
    ctx = (gpusort_ctx *)&passed;
    ASSERT_STATUS(gpusort_ctx_create(&ctx, (gpusort_backend)-1, 0),
                  GPUSORT_STATUS_INVALID_ARGUMENT);
    ASSERT_PTR_EQ(ctx, NULL);
    ctx = (gpusort_ctx *)&passed;
    ASSERT_STATUS(gpusort_ctx_create(&ctx, GPUSORT_BACKEND_CPU, -2),
                  GPUSORT_STATUS_INVALID_ARGUMENT);
    ASSERT_PTR_EQ(ctx, NULL);
    ctx = (gpusort_ctx *)&passed;
    ASSERT_STATUS(gpusort_ctx_create(&ctx, GPUSORT_BACKEND_CPU, 1),
                  GPUSORT_STATUS_INVALID_ARGUMENT);
    ASSERT_PTR_EQ(ctx, NULL);

    /* the CPU backend: device -1 (default) and 0 */
    ASSERT_STATUS(gpusort_ctx_create(&ctx, GPUSORT_BACKEND_CPU, -1), GPUSORT_STATUS_SUCCESS);
    if (ctx) {
        ASSERT_EQ(gpusort_ctx_get_backend(ctx), GPUSORT_BACKEND_CPU);
        ASSERT_EQ(gpusort_ctx_get_device(ctx), 0);
    }
    gpusort_ctx_free(ctx);

    /* AUTO: CUDA if it has a device, else an OpenCL GPU, else the CPU (never AUTO itself) */
    gpusort_backend want = GPUSORT_BACKEND_CPU;
    int count = 0;
    if (gpusort_device_get_count(GPUSORT_BACKEND_CUDA, &count) == GPUSORT_STATUS_SUCCESS && count) {
        want = GPUSORT_BACKEND_CUDA;
    } else if (gpusort_device_get_count(GPUSORT_BACKEND_OPENCL, &count) == GPUSORT_STATUS_SUCCESS) {
        for (int d = 0; d < count; d++) {
            gpusort_device_info info;
            if (gpusort_device_get_info(GPUSORT_BACKEND_OPENCL, d, &info) ==
                    GPUSORT_STATUS_SUCCESS && info.is_gpu) {
                want = GPUSORT_BACKEND_OPENCL;
                break;
            }
        }
    }
    ASSERT_STATUS(gpusort_ctx_create(&ctx, GPUSORT_BACKEND_AUTO, -1), GPUSORT_STATUS_SUCCESS);
    if (ctx) {
        ASSERT_EQ(gpusort_ctx_get_backend(ctx), want);
        if (verbose) printf("  auto -> %s\n", gpusort_backend_name(gpusort_ctx_get_backend(ctx)));
    }
    gpusort_ctx_free(ctx);
}

/* ---- arguments ---- */

static void test_threads_and_streams(gpusort_ctx *ctx)
{
    ASSERT_STATUS(gpusort_ctx_set_threads(NULL, 1), GPUSORT_STATUS_INVALID_ARGUMENT);
    ASSERT_STATUS(gpusort_ctx_set_threads(ctx, -1), GPUSORT_STATUS_INVALID_ARGUMENT);
    ASSERT_STATUS(gpusort_ctx_set_threads(ctx, 3), GPUSORT_STATUS_SUCCESS);
    ASSERT_EQ(gpusort_ctx_get_threads(ctx), 3);
    ASSERT_STATUS(gpusort_ctx_set_threads(ctx, 1), GPUSORT_STATUS_SUCCESS);
    ASSERT_EQ(gpusort_ctx_get_threads(ctx), 1);
    /* a sort still works with one thread, and with more threads than cores */
    uint32_t k[5] = {5, 3, 9, 1, 3};
    ASSERT_STATUS(gpusort_sort(ctx, GPUSORT_TYPE_U32, k, 5, k, GPUSORT_ORDER_ASC,
                               GPUSORT_ALGORITHM_AUTO, 0), GPUSORT_STATUS_SUCCESS);
    ASSERT_EQ(k[0], 1); ASSERT_EQ(k[1], 3); ASSERT_EQ(k[2], 3); ASSERT_EQ(k[3], 5); ASSERT_EQ(k[4], 9);
    ASSERT_STATUS(gpusort_ctx_set_threads(ctx, 64), GPUSORT_STATUS_SUCCESS);
    ASSERT_STATUS(gpusort_sort(ctx, GPUSORT_TYPE_U32, k, 5, k, GPUSORT_ORDER_DESC,
                               GPUSORT_ALGORITHM_AUTO, 0), GPUSORT_STATUS_SUCCESS);
    ASSERT_EQ(k[0], 9); ASSERT_EQ(k[4], 1);
    ASSERT_STATUS(gpusort_ctx_set_threads(ctx, 0), GPUSORT_STATUS_SUCCESS);
    ASSERT_GE(gpusort_ctx_get_threads(ctx), 1);

    /* the CPU backend takes only a NULL stream */
    ASSERT_STATUS(gpusort_ctx_set_stream(NULL, NULL), GPUSORT_STATUS_INVALID_ARGUMENT);
    ASSERT_STATUS(gpusort_ctx_set_stream(ctx, NULL), GPUSORT_STATUS_SUCCESS);
    ASSERT_STATUS(gpusort_ctx_set_stream(ctx, (void *)k), GPUSORT_STATUS_UNSUPPORTED);
    CHECK_(gpusort_ctx_get_last_error(ctx)[0], "no detail for an unsupported stream");
    ASSERT_STATUS(gpusort_ctx_synchronize(ctx), GPUSORT_STATUS_SUCCESS);
    ASSERT_STATUS(gpusort_ctx_synchronize(NULL), GPUSORT_STATUS_INVALID_ARGUMENT);
}

static void test_sort_arguments(gpusort_ctx *ctx)
{
    enum { N = 64 };
    uint32_t a[N], b[N], v[N], w[N];
    uint64_t big[N];
    for (int i = 0; i < N; i++) a[i] = (uint32_t)(N - i), v[i] = (uint32_t)i;
    const gpusort_order asc = GPUSORT_ORDER_ASC;
    const gpusort_algorithm aut = GPUSORT_ALGORITHM_AUTO;
    const gpusort_type U32 = GPUSORT_TYPE_U32, U64 = GPUSORT_TYPE_U64;

    /* NULL context: INVALID_ARGUMENT (no context to hold a message) */
    ASSERT_STATUS(gpusort_sort(NULL, U32, a, N, b, asc, aut, 0), GPUSORT_STATUS_INVALID_ARGUMENT);
    ASSERT_STATUS(gpusort_sort_pairs(NULL, U32, U32, a, v, N, b, w, asc, aut, 0),
                  GPUSORT_STATUS_INVALID_ARGUMENT);
    ASSERT_STATUS(gpusort_argsort(NULL, U32, U32, a, N, w, asc, aut, 0),
                  GPUSORT_STATUS_INVALID_ARGUMENT);
    gpusort_value r;
    ASSERT_STATUS(gpusort_reduce(NULL, U32, a, N, &r, GPUSORT_OP_SUM, 0),
                  GPUSORT_STATUS_INVALID_ARGUMENT);

    /* NULL pointers with n > 0 */
    ASSERT_INVALID(ctx, gpusort_sort(ctx, U32, NULL, N, b, asc, aut, 0));
    ASSERT_INVALID(ctx, gpusort_sort(ctx, U32, a, N, NULL, asc, aut, 0));
    ASSERT_INVALID(ctx, gpusort_sort_pairs(ctx, U32, U32, a, v, N, b, NULL, asc, aut, 0));
    ASSERT_INVALID(ctx, gpusort_sort_pairs(ctx, U32, U32, NULL, v, N, b, w, asc, aut, 0));
    ASSERT_INVALID(ctx, gpusort_argsort(ctx, U32, U32, NULL, N, w, asc, aut, 0));
    ASSERT_INVALID(ctx, gpusort_argsort(ctx, U32, U32, a, N, NULL, asc, aut, 0));

    /* n == 0 is a no-op, NULL pointers allowed */
    ASSERT_STATUS(gpusort_sort(ctx, U32, NULL, 0, NULL, asc, aut, 0), GPUSORT_STATUS_SUCCESS);
    ASSERT_STATUS(gpusort_sort_pairs(ctx, U32, U32, NULL, NULL, 0, NULL, NULL, asc, aut, 0),
                  GPUSORT_STATUS_SUCCESS);
    ASSERT_STATUS(gpusort_argsort(ctx, U32, U64, NULL, 0, NULL, asc, aut, 0), GPUSORT_STATUS_SUCCESS);

    /* bad types, orders, algorithms, value/index types, flags */
    ASSERT_INVALID(ctx, gpusort_sort(ctx, (gpusort_type)6, a, N, b, asc, aut, 0));
    ASSERT_INVALID(ctx, gpusort_sort(ctx, (gpusort_type)-7, a, N, b, asc, aut, 0));
    ASSERT_INVALID(ctx, gpusort_sort(ctx, GPUSORT_TYPE_NONE, a, N, b, asc, aut, 0));
    ASSERT_INVALID(ctx, gpusort_sort(ctx, U32, a, N, b, (gpusort_order)2, aut, 0));
    ASSERT_INVALID(ctx, gpusort_sort(ctx, U32, a, N, b, (gpusort_order)-1, aut, 0));
    ASSERT_INVALID(ctx, gpusort_sort(ctx, U32, a, N, b, asc, GPUSORT_ALGORITHM_COUNT_, 0));
    ASSERT_INVALID(ctx, gpusort_sort(ctx, U32, a, N, b, asc, (gpusort_algorithm)-1, 0));
    ASSERT_INVALID(ctx, gpusort_sort_pairs(ctx, U32, GPUSORT_TYPE_F32, a, v, N, b, w, asc, aut, 0));
    ASSERT_INVALID(ctx, gpusort_sort_pairs(ctx, U32, GPUSORT_TYPE_I64, a, v, N, b, w, asc, aut, 0));
    ASSERT_INVALID(ctx, gpusort_sort_pairs(ctx, U32, GPUSORT_TYPE_NONE, a, v, N, b, w, asc, aut, 0));
    ASSERT_INVALID(ctx, gpusort_argsort(ctx, U32, GPUSORT_TYPE_I32, a, N, w, asc, aut, 0));
    ASSERT_INVALID(ctx, gpusort_argsort(ctx, U32, GPUSORT_TYPE_NONE, a, N, w, asc, aut, 0));
    /* the same checks with n == 0: a bad type is bad whatever n is */
    ASSERT_INVALID(ctx, gpusort_sort(ctx, (gpusort_type)6, a, 0, b, asc, aut, 0));
    ASSERT_INVALID(ctx, gpusort_sort(ctx, U32, a, 0, b, (gpusort_order)5, aut, 0));

    /* flags: unknown bits are refused by every call (how a caller probes for a feature) */
    ASSERT_INVALID(ctx, gpusort_sort(ctx, U32, a, N, b, asc, aut, 0x80));
    ASSERT_INVALID(ctx, gpusort_sort_pairs(ctx, U32, U32, a, v, N, b, w, asc, aut, 0x80));
    ASSERT_INVALID(ctx, gpusort_argsort(ctx, U32, U32, a, N, w, asc, aut, 0x80));
    ASSERT_INVALID(ctx, gpusort_reduce(ctx, U32, a, N, &r, GPUSORT_OP_SUM, 0x80));
    ASSERT_INVALID(ctx, gpusort_sort_strings(ctx, U64, (const uint8_t *)"ab", (const uint64_t[]){0, 1, 2}, 2, big, asc, GPUSORT_FLAG_CL_MEM));
    ASSERT_INVALID(ctx, gpusort_sort_records(ctx, U64, a, 4, 4, 0, 4, b, NULL, asc, 1));
    /* cl_mem handles on a CPU context */
    ASSERT_STATUS(gpusort_sort(ctx, U32, a, N, b, asc, aut, GPUSORT_FLAG_CL_MEM),
                  GPUSORT_STATUS_UNSUPPORTED);
    CHECK_(gpusort_ctx_get_last_error(ctx)[0], "no detail for GPUSORT_FLAG_CL_MEM on the CPU");
    ASSERT_STATUS(gpusort_reduce(ctx, U32, a, N, &r, GPUSORT_OP_SUM, GPUSORT_FLAG_CL_MEM),
                  GPUSORT_STATUS_UNSUPPORTED);
    ASSERT_STATUS(gpusort_sort(ctx, U32, a, N, b, asc, aut, 0), GPUSORT_STATUS_SUCCESS);
    ASSERT_STR_EQ(gpusort_ctx_get_last_error(ctx), ""); /* a success clears the last error */

    /* sort_pairs with values_in NULL: the values are the indices (argsort + sorted keys) */
    for (int i = 0; i < N; i++) w[i] = 0xdeadbeef;
    ASSERT_STATUS(gpusort_sort_pairs(ctx, U32, U32, a, NULL, N, b, w, asc, aut, 0),
                  GPUSORT_STATUS_SUCCESS);
    for (int i = 0; i < N; i++)
        CHECK_(b[i] == (uint32_t)(i + 1) && w[i] == (uint32_t)(N - 1 - i),
               "pairs with generated indices: position %d has key %u, index %u", i, b[i], w[i]);

    /* overlapping buffers: only exact in-place is allowed */
    uint32_t *buf = calloc(4 * N, sizeof *buf);
    if (buf) {
        ASSERT_STATUS(gpusort_sort(ctx, U32, buf, N, buf, asc, aut, 0), GPUSORT_STATUS_SUCCESS);
        ASSERT_INVALID(ctx, gpusort_sort(ctx, U32, buf, N, buf + 1, asc, aut, 0));
        ASSERT_INVALID(ctx, gpusort_sort(ctx, U32, buf + 1, N, buf, asc, aut, 0));
        ASSERT_INVALID(ctx, gpusort_sort(ctx, U32, buf, N, buf + N - 1, asc, aut, 0));
        ASSERT_STATUS(gpusort_sort(ctx, U32, buf, N, buf + N, asc, aut, 0), GPUSORT_STATUS_SUCCESS);
        /* values overlapping keys */
        ASSERT_INVALID(ctx, gpusort_sort_pairs(ctx, U32, U32, buf, buf + N / 2, N,
                                               buf, buf + N / 2, asc, aut, 0));
        ASSERT_INVALID(ctx, gpusort_sort_pairs(ctx, U32, U32, buf, buf + 2 * N, N,
                                               buf + N, buf + N + 3, asc, aut, 0));
        ASSERT_INVALID(ctx, gpusort_sort_pairs(ctx, U32, U32, buf, buf + 2 * N, N,
                                               buf + N, buf + 2 * N + 1, asc, aut, 0));
        ASSERT_INVALID(ctx, gpusort_sort_pairs(ctx, U32, U32, buf, buf + 2 * N, N,
                                               buf + 2 * N + 5, buf + 3 * N, asc, aut, 0));
        ASSERT_INVALID(ctx, gpusort_argsort(ctx, U32, U32, buf, N, buf + 5, asc, aut, 0));
        ASSERT_STATUS(gpusort_sort_pairs(ctx, U32, U32, buf, buf + 2 * N, N, buf + N,
                                         buf + 3 * N, asc, aut, 0), GPUSORT_STATUS_SUCCESS);
        /* u64 values (8 bytes each) of N/2 u32 keys: values_out may start right where
         * keys_out ends, not one key earlier */
        for (int i = 0; i < N; i++) big[i] = (uint64_t)i;
        ASSERT_STATUS(gpusort_sort_pairs(ctx, U32, U64, buf, big, N / 2, buf + N,
                                         buf + N + N / 2, asc, aut, 0), GPUSORT_STATUS_SUCCESS);
        ASSERT_INVALID(ctx, gpusort_sort_pairs(ctx, U32, U64, buf, big, N / 2,
                                               buf + N, buf + N + N / 2 - 1, asc, aut, 0));
        free(buf);
    }

    /* u32 indices cannot number more than 2^32 keys: refused before any memory is touched */
    if (sizeof(size_t) > 4) {
        size_t huge = (size_t)UINT32_MAX + 2;
        ASSERT_INVALID(ctx, gpusort_argsort(ctx, U32, U32, a, huge, w, asc, aut, 0));
        /* and n so large that n * 16 overflows is refused too */
        ASSERT_INVALID(ctx, gpusort_sort(ctx, U64, big, SIZE_MAX / 8, big, asc, aut, 0));
    }
}

static void test_reduce_arguments(gpusort_ctx *ctx)
{
    int32_t x[4] = {-3, 7, 2, -9};
    gpusort_value r;
    memset(&r, 0x77, sizeof r);
    /* sum of nothing is 0 in every field; min/max of nothing is an error */
    for (int t = 0; t < GPUSORT_TYPE_COUNT_; t++) {
        memset(&r, 0x77, sizeof r);
        ASSERT_STATUS(gpusort_reduce(ctx, (gpusort_type)t, NULL, 0, &r, GPUSORT_OP_SUM, 0),
                      GPUSORT_STATUS_SUCCESS);
        ASSERT_EQ(r.u, 0);
        ASSERT_INVALID(ctx, gpusort_reduce(ctx, (gpusort_type)t, x, 0, &r, GPUSORT_OP_MIN, 0));
        ASSERT_INVALID(ctx, gpusort_reduce(ctx, (gpusort_type)t, x, 0, &r, GPUSORT_OP_MAX, 0));
    }
    ASSERT_INVALID(ctx, gpusort_reduce(ctx, GPUSORT_TYPE_I32, NULL, 4, &r, GPUSORT_OP_SUM, 0));
    ASSERT_INVALID(ctx, gpusort_reduce(ctx, GPUSORT_TYPE_I32, x, 4, &r, GPUSORT_OP_SUM, 0x80));
    ASSERT_STATUS(gpusort_reduce(ctx, GPUSORT_TYPE_I32, x, 4, &r, GPUSORT_OP_SUM,
                                    GPUSORT_FLAG_CL_MEM),
                  GPUSORT_STATUS_UNSUPPORTED);   /* the CPU backend has no cl_mem */
    ASSERT_NE(gpusort_ctx_get_last_error(ctx)[0], 0);
    ASSERT_INVALID(ctx, gpusort_reduce(ctx, GPUSORT_TYPE_I32, x, 4, NULL, GPUSORT_OP_SUM, 0));
    ASSERT_INVALID(ctx, gpusort_reduce(ctx, GPUSORT_TYPE_I32, x, 4, &r, (gpusort_op)3, 0));
    ASSERT_INVALID(ctx, gpusort_reduce(ctx, (gpusort_type)6, x, 4, &r, GPUSORT_OP_SUM, 0));
    ASSERT_INVALID(ctx, gpusort_reduce(ctx, GPUSORT_TYPE_NONE, x, 4, &r, GPUSORT_OP_SUM, 0));
    /* a small exact case per field */
    ASSERT_STATUS(gpusort_reduce(ctx, GPUSORT_TYPE_I32, x, 4, &r, GPUSORT_OP_SUM, 0),
                  GPUSORT_STATUS_SUCCESS);
    ASSERT_EQ(r.i, -3);
    ASSERT_STATUS(gpusort_reduce(ctx, GPUSORT_TYPE_I32, x, 4, &r, GPUSORT_OP_MIN, 0),
                  GPUSORT_STATUS_SUCCESS);
    ASSERT_EQ(r.i, -9);
    ASSERT_STATUS(gpusort_reduce(ctx, GPUSORT_TYPE_U32, x, 4, &r, GPUSORT_OP_MAX, 0),
                  GPUSORT_STATUS_SUCCESS);
    ASSERT_EQ(r.u, (uint32_t)-3);
    /* wrap-around is modulo 2^64, as documented */
    uint64_t wrap[3] = {UINT64_MAX, 2, UINT64_MAX};
    ASSERT_STATUS(gpusort_reduce(ctx, GPUSORT_TYPE_U64, wrap, 3, &r, GPUSORT_OP_SUM, 0),
                  GPUSORT_STATUS_SUCCESS);
    ASSERT_EQ(r.u, 0);
    float f[3] = {1.5f, -0.25f, 4.0f};
    ASSERT_STATUS(gpusort_reduce(ctx, GPUSORT_TYPE_F32, f, 3, &r, GPUSORT_OP_SUM, 0),
                  GPUSORT_STATUS_SUCCESS);
    CHECK_(r.f == 5.25, "f32 sum {1.5, -0.25, 4}: got %.17g, want 5.25", r.f);
}

static void test_segmented_arguments(gpusort_ctx *ctx)
{
    enum { N = 40 };
    uint32_t k[N], out[N];
    for (int i = 0; i < N; i++) k[i] = (uint32_t)(i * 7919 % N);
    const gpusort_type U32 = GPUSORT_TYPE_U32, NONE = GPUSORT_TYPE_NONE, BAD = (gpusort_type)9;
    const gpusort_order asc = GPUSORT_ORDER_ASC;
    const gpusort_algorithm aut = GPUSORT_ALGORITHM_AUTO;
    uint64_t ok[3] = {0, 10, N}, decreasing[3] = {0, 20, 10}, beyond[3] = {0, 10, N + 1};
#define SEG(c, t, offs, m) gpusort_sort_segmented(c, t, NONE, k, NULL, N, offs, m, out, NULL, asc, aut, 0)
#define BATCH(c, t, row) gpusort_sort_batch(c, t, NONE, k, NULL, N, row, out, NULL, asc, aut, 0)
    ASSERT_STATUS(SEG(NULL, U32, ok, 2), GPUSORT_STATUS_INVALID_ARGUMENT);
    ASSERT_INVALID(ctx, SEG(ctx, U32, NULL, 2));
    ASSERT_INVALID(ctx, SEG(ctx, U32, decreasing, 2));
    ASSERT_INVALID(ctx, SEG(ctx, U32, beyond, 2));
    ASSERT_INVALID(ctx, gpusort_sort_segmented(ctx, U32, NONE, k, NULL, N, ok, 2, out, NULL, asc,
                                               aut, 0x80));
    ASSERT_STATUS(SEG(ctx, U32, ok, 2), GPUSORT_STATUS_SUCCESS);
    /* no segments: every key is outside, copied unchanged */
    memset(out, 0, sizeof out);
    ASSERT_STATUS(SEG(ctx, U32, ok, 0), GPUSORT_STATUS_SUCCESS);
    CHECK_(memcmp(out, k, sizeof k) == 0, "segmented sort with no segments changed the keys");

    ASSERT_STATUS(BATCH(NULL, U32, 10), GPUSORT_STATUS_INVALID_ARGUMENT);
    ASSERT_INVALID(ctx, BATCH(ctx, U32, 0));
    ASSERT_INVALID(ctx, BATCH(ctx, U32, 7));    /* 40 % 7 != 0 */
    ASSERT_INVALID(ctx, BATCH(ctx, U32, N + 1));
    ASSERT_INVALID(ctx, gpusort_sort_batch(ctx, U32, NONE, k, NULL, N, 8, out, NULL, asc, aut,
                                           0x80));
    ASSERT_STATUS(BATCH(ctx, U32, 8), GPUSORT_STATUS_SUCCESS);
    for (int row = 0; row < N / 8; row++)
        for (int i = 1; i < 8; i++)
            CHECK_(out[row * 8 + i - 1] <= out[row * 8 + i], "batch row %d unsorted at %d", row, i);
    ASSERT_INVALID(ctx, BATCH(ctx, BAD, 8));
    ASSERT_INVALID(ctx, SEG(ctx, BAD, ok, 2));
#undef SEG
#undef BATCH
}

static void test_strings_records_arguments(gpusort_ctx *ctx)
{
    const uint8_t bytes[] = "banana" "apple" "cherry";
    uint64_t off[4] = {0, 6, 11, 17}, bad_off[4] = {0, 6, 5, 17};
    uint32_t p32[3];
    uint64_t p64[3];
    const gpusort_order asc = GPUSORT_ORDER_ASC;
    ASSERT_STATUS(gpusort_sort_strings(NULL, GPUSORT_TYPE_U32, bytes, off, 3, p32, asc, 0),
                  GPUSORT_STATUS_INVALID_ARGUMENT);
    ASSERT_INVALID(ctx, gpusort_sort_strings(ctx, GPUSORT_TYPE_U32, bytes, NULL, 3, p32, asc, 0));
    ASSERT_INVALID(ctx, gpusort_sort_strings(ctx, GPUSORT_TYPE_U32, bytes, off, 3, NULL, asc, 0));
    ASSERT_INVALID(ctx, gpusort_sort_strings(ctx, GPUSORT_TYPE_F32, bytes, off, 3, p32, asc, 0));
    ASSERT_INVALID(ctx, gpusort_sort_strings(ctx, GPUSORT_TYPE_U32, bytes, off, 3,
                                             p32, (gpusort_order)4, 0));
    ASSERT_INVALID(ctx, gpusort_sort_strings(ctx, GPUSORT_TYPE_U32, bytes, bad_off, 3, p32, asc, 0));
    if (sizeof(size_t) > 4)
        ASSERT_INVALID(ctx, gpusort_sort_strings(ctx, GPUSORT_TYPE_U32, bytes, off, (size_t)UINT32_MAX + 1,
                                                 p32, asc, 0));
    ASSERT_STATUS(gpusort_sort_strings(ctx, GPUSORT_TYPE_U64, bytes, off, 3, p64, asc, 0),
                  GPUSORT_STATUS_SUCCESS);
    ASSERT_EQ(p64[0], 1); ASSERT_EQ(p64[1], 0); ASSERT_EQ(p64[2], 2);

    uint8_t rec[4][6] = {{3, 0, 0, 0, 0, 9}, {1, 0, 0, 0, 0, 8}, {2, 0, 0, 0, 0, 7},
                         {1, 0, 0, 0, 0, 6}};
    uint8_t rout[4][6];
    ASSERT_STATUS(gpusort_sort_records(NULL, GPUSORT_TYPE_U64, rec, 4, 6, 0, 1, rout, NULL, asc, 0),
                  GPUSORT_STATUS_INVALID_ARGUMENT);
    ASSERT_INVALID(ctx, gpusort_sort_records(ctx, GPUSORT_TYPE_U64, rec, 4, 0, 0, 1, rout, NULL, asc, 0));
    ASSERT_INVALID(ctx, gpusort_sort_records(ctx, GPUSORT_TYPE_U64, rec, 4, 6, 5, 2, rout, NULL, asc, 0));
    ASSERT_INVALID(ctx, gpusort_sort_records(ctx, GPUSORT_TYPE_U64, rec, 4, 6, 7, 0, rout, NULL, asc, 0));
    ASSERT_INVALID(ctx, gpusort_sort_records(ctx, GPUSORT_TYPE_U64, NULL, 4, 6, 0, 1, rout, NULL, asc, 0));
    ASSERT_INVALID(ctx, gpusort_sort_records(ctx, GPUSORT_TYPE_U64, rec, 4, 6, 0, 1, NULL, NULL, asc, 0));
    ASSERT_INVALID(ctx, gpusort_sort_records(ctx, GPUSORT_TYPE_U64, rec, 4, 6, 0, 1, &rec[0][1], NULL, asc, 0));
    ASSERT_INVALID(ctx, gpusort_sort_records(ctx, GPUSORT_TYPE_U64, rec, 4, 6, 0, 1, rout, NULL, (gpusort_order)2, 0));
    ASSERT_STATUS(gpusort_sort_records(ctx, GPUSORT_TYPE_U64, rec, 4, 6, 0, 1, rout, NULL, asc, 0),
                  GPUSORT_STATUS_SUCCESS);
    ASSERT_EQ(rout[0][5], 8); ASSERT_EQ(rout[1][5], 6); /* stable: record 1 before record 3 */
    ASSERT_EQ(rout[2][5], 7); ASSERT_EQ(rout[3][5], 9);
    /* the record indices, as U32 and as U64, like gpusort_sort_strings */
    uint32_t r32[4] = {9, 9, 9, 9};
    uint64_t r64[4] = {9, 9, 9, 9};
    ASSERT_INVALID(ctx, gpusort_sort_records(ctx, GPUSORT_TYPE_I32, rec, 4, 6, 0, 1, rout, r32, asc, 0));
    ASSERT_INVALID(ctx, gpusort_sort_records(ctx, GPUSORT_TYPE_U32, rec, 4, 6, 0, 1, rout, rout, asc, 0));
    ASSERT_STATUS(gpusort_sort_records(ctx, GPUSORT_TYPE_U32, rec, 4, 6, 0, 1, rout, r32, asc, 0),
                  GPUSORT_STATUS_SUCCESS);
    ASSERT_EQ(r32[0], 1); ASSERT_EQ(r32[1], 3); ASSERT_EQ(r32[2], 2); ASSERT_EQ(r32[3], 0);
    ASSERT_STATUS(gpusort_sort_records(ctx, GPUSORT_TYPE_U64, rec, 4, 6, 0, 1, rout, r64,
                                       GPUSORT_ORDER_DESC, 0),
                  GPUSORT_STATUS_SUCCESS);
    ASSERT_EQ(r64[0], 0); ASSERT_EQ(r64[1], 2); ASSERT_EQ(r64[2], 1); ASSERT_EQ(r64[3], 3);
    ASSERT_EQ(rout[0][5], 9); ASSERT_EQ(rout[3][5], 6);
}

static int cmp_u32(const void *a, const void *b)
{
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    return (x > y) - (x < y);
}

/* Scratch kept by the context between calls (src/cpu/memory.c) and gpusort_ctx_trim: sorts of
 * sizes whose scratch is kept (>= 4 MiB), larger then smaller then larger again, keys and
 * pairs, radix and merge, each checked against qsort; trim between them; trim(NULL). */
static void test_kept_scratch(gpusort_ctx *ctx)
{
    const size_t sizes[] = {((size_t)1 << 22) + 77, ((size_t)1 << 21) + 5, ((size_t)1 << 22) + 99};
    const size_t nmax = ((size_t)1 << 22) + 99;
    uint32_t *k = (uint32_t *)malloc(nmax * 4), *ref = (uint32_t *)malloc(nmax * 4);
    uint32_t *v = (uint32_t *)malloc(nmax * 4);
    uint32_t *k0 = (uint32_t *)malloc(nmax * 4);
    CHECK_(k && ref && v && k0, "out of memory for the kept-scratch test");
    if (!k || !ref || !v || !k0) goto done;
    uint64_t x = 0x9E3779B97F4A7C15ull;
    for (int round = 0; round < 6; round++) {
        size_t n = sizes[round % 3];
        for (size_t i = 0; i < n; i++) {
            x ^= x << 13, x ^= x >> 7, x ^= x << 17;
            k0[i] = k[i] = (uint32_t)x, v[i] = (uint32_t)i;
        }
        memcpy(ref, k, n * 4);
        qsort(ref, n, 4, cmp_u32);
        gpusort_algorithm alg = round % 2 ? GPUSORT_ALGORITHM_MERGE : GPUSORT_ALGORITHM_RADIX;
        if (round < 3) {
            ASSERT_STATUS(gpusort_sort(ctx, GPUSORT_TYPE_U32, k, n, k, GPUSORT_ORDER_ASC, alg, 0),
                          GPUSORT_STATUS_SUCCESS);
        } else {
            ASSERT_STATUS(gpusort_sort_pairs(ctx, GPUSORT_TYPE_U32, GPUSORT_TYPE_U32, k, v, n, k,
                                             v, GPUSORT_ORDER_ASC, alg, 0),
                          GPUSORT_STATUS_SUCCESS);
        }
        size_t bad = 0;
        for (size_t i = 0; i < n; i++) {
            bad += k[i] != ref[i];
            if (round >= 3) bad += v[i] >= n || k0[v[i]] != k[i];   /* each value with its key */
        }
        CHECK_(bad == 0, "kept scratch, round %d, n=%zu (%s): %zu wrong elements", round, n,
               gpusort_algorithm_name(alg), bad);
        if (round == 2) ASSERT_STATUS(gpusort_ctx_trim(ctx), GPUSORT_STATUS_SUCCESS);
    }
    ASSERT_STATUS(gpusort_ctx_trim(ctx), GPUSORT_STATUS_SUCCESS);
    ASSERT_STATUS(gpusort_ctx_trim(ctx), GPUSORT_STATUS_SUCCESS);   /* nothing kept: fine */
    ASSERT_STATUS(gpusort_ctx_trim(NULL), GPUSORT_STATUS_INVALID_ARGUMENT);
done:
    free(k), free(ref), free(v), free(k0);
}

/* gpusort_ctx_last_algorithm: AUTO resolved to what ran, the request when named, AUTO after a
 * failure or an empty sort; on every backend that has a device (host data). */
static void test_last_algorithm(void)
{
    enum { N = 3000 };
    static uint32_t k[N], v[N];
    const gpusort_backend backends[] = {GPUSORT_BACKEND_CPU, GPUSORT_BACKEND_OPENCL,
                                        GPUSORT_BACKEND_CUDA};
    ASSERT_EQ(gpusort_ctx_get_last_algorithm(NULL), GPUSORT_ALGORITHM_AUTO);
    for (int b = 0; b < 3; b++) {
        gpusort_ctx *ctx = NULL;
        if (gpusort_ctx_create(&ctx, backends[b], -1) != GPUSORT_STATUS_SUCCESS) continue;
        const char *name = gpusort_backend_name(backends[b]);
        ASSERT_EQ(gpusort_ctx_get_last_algorithm(ctx), GPUSORT_ALGORITHM_AUTO);
        for (size_t i = 0; i < N; i++) k[i] = (uint32_t)(i * 2654435761u), v[i] = (uint32_t)i;
        ASSERT_STATUS(gpusort_sort(ctx, GPUSORT_TYPE_U32, k, N, k, GPUSORT_ORDER_ASC,
                                   GPUSORT_ALGORITHM_AUTO, 0), GPUSORT_STATUS_SUCCESS);
        gpusort_algorithm a = gpusort_ctx_get_last_algorithm(ctx);
        CHECK_(a != GPUSORT_ALGORITHM_AUTO, "%s: AUTO not resolved by the last sort", name);
        /* what ran must be one the backend offers by name */
        ASSERT_STATUS(gpusort_sort(ctx, GPUSORT_TYPE_U32, k, N, k, GPUSORT_ORDER_DESC, a, 0),
                      GPUSORT_STATUS_SUCCESS);
        ASSERT_EQ(gpusort_ctx_get_last_algorithm(ctx), a);
        ASSERT_STATUS(gpusort_argsort(ctx, GPUSORT_TYPE_U32, GPUSORT_TYPE_U32, k, N, v,
                                      GPUSORT_ORDER_ASC, GPUSORT_ALGORITHM_RADIX, 0),
                      GPUSORT_STATUS_SUCCESS);
        ASSERT_EQ(gpusort_ctx_get_last_algorithm(ctx), GPUSORT_ALGORITHM_RADIX);
        ASSERT_STATUS(gpusort_sort(ctx, GPUSORT_TYPE_U32, k, 0, k, GPUSORT_ORDER_ASC,
                                   GPUSORT_ALGORITHM_RADIX, 0), GPUSORT_STATUS_SUCCESS);
        ASSERT_EQ(gpusort_ctx_get_last_algorithm(ctx), GPUSORT_ALGORITHM_AUTO);
        ASSERT_INVALID(ctx, gpusort_sort(ctx, GPUSORT_TYPE_U32, NULL, N, k, GPUSORT_ORDER_ASC,
                                         GPUSORT_ALGORITHM_AUTO, 0));
        ASSERT_EQ(gpusort_ctx_get_last_algorithm(ctx), GPUSORT_ALGORITHM_AUTO);
        if (verbose) printf("  ok: %s: AUTO on %d u32 keys ran %s\n", name, N, gpusort_algorithm_name(a));
        gpusort_ctx_free(ctx);
    }
}

int main(int argc, char **argv)
{
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "-v")) verbose = 1;
        else {
            fprintf(stderr, "usage: test_api [-v]\n");
            return 2;
        }
    }
    printf("gpusort %d.%d.%d\n", GPUSORT_VERSION_MAJOR, GPUSORT_VERSION_MINOR,
           GPUSORT_VERSION_PATCH);
    test_status_strings();
    test_version();
    test_names();
    test_backends_and_devices();
    test_contexts();
    test_last_algorithm();

    gpusort_ctx *ctx = NULL;
    gpusort_status s = gpusort_ctx_create(&ctx, GPUSORT_BACKEND_CPU, 0);
    ASSERT_STATUS(s, GPUSORT_STATUS_SUCCESS);
    if (ctx) {
        test_threads_and_streams(ctx);
        test_sort_arguments(ctx);
        test_reduce_arguments(ctx);
        test_segmented_arguments(ctx);
        test_strings_records_arguments(ctx);
        test_kept_scratch(ctx);
        gpusort_ctx_free(ctx);
    }
    printf("%ld passed, %ld failed\n", passed, failed);
    return failed ? 1 : 0;
}
