/*
 * test_hoststream.c -- gpusort__sort_stream (src/hoststream.h) and the host-data pipeline
 * behind it (src/hostdata.c) on one backend, through memory callbacks that check the contract.
 *
 *   test_hoststream [--backend cpu|cuda|opencl] [--seed S] [--max-n N] [--quick]
 *                   [--filter KNOBS]   (only the cases of knob settings named so: default,
 *                                       pieces, tiny, runs, chunks)
 *                   [--algorithm auto|radix]  (CUDA's AUTO gives fewer than 4096 keys to the
 *                                       CPU, i.e. the memory path; radix keeps them on the
 *                                       device pipeline)
 *
 * What is checked, per case (key type, value type, order, size, knob setting):
 *   - the output streams equal the stable reference sort (common/verify.c) bit for bit: keys
 *     ordered, a permutation of the input, each value still with its key, ties in input order;
 *   - the callbacks' contract: every byte of each input read exactly once, every byte of each
 *     output written exactly once, offsets and sizes multiples of the element size, no read
 *     after the first write;
 *   - the read phase's progress reaches its total.
 * Knob settings (environment variables set before each call; hostdata.c reads them per call):
 *   default          2 MiB pieces, all threads
 *   pieces           GPUSORT_HOSTDATA_PIECE_BYTES=4096 (1024 u32), 3 threads: sizes around 1,
 *                    2, 6 (= every staging buffer once) and 7 pieces, so every buffer is
 *                    reused and waited for
 *   tiny             8-byte pieces (one u64, two u32 per copy), 2 threads, small sizes
 *   runs             the backends' run caps at 1000 keys: n above it takes the memory path,
 *                    whose sort is hostdata.c's runs + host merge
 *   chunks (CUDA)    GPUSORT_CUDA_HOST_CHUNK_KEYS=4096: chunks sorted as they arrive, merged
 *                    on the device, ranges copied out behind the merge
 * Failures: a read callback failing at its first, a middle and its last call, a write callback
 * likewise: the call returns INVALID_ARGUMENT with a message, io_errno is the callback's errno,
 * no write follows a failed read; the next call on the same context succeeds (nothing left
 * enqueued or locked). Leaks: run under the ASan build (LeakSanitizer).
 * Prints the seed; exit 0 passed, 1 failed, 77 skipped (backend not built or no device).
 */
#define _POSIX_C_SOURCE 200809L /* setenv */
#include "datagen.h"
#include "gpusort.h"
#include "hoststream.h"
#include "verify.h"

#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define SKIP_EXIT 77

static int g_failed, g_passed;
static const char *g_filter;
static gpusort_algorithm g_alg = GPUSORT_ALGORITHM_AUTO; /* --algorithm radix */ /* run only the cases of knob settings whose name contains it */

/* ---- memory callbacks that check the contract ---- */

typedef struct mem_io {
    const char *in[2];
    char *out[2];
    size_t bytes[2];
    size_t es[2];
    unsigned char *read_count[2];   /* per byte: times read */
    unsigned char *write_count[2];
    pthread_mutex_t lock;
    int writes_started;
    int read_after_write;
    int misaligned;
    long reads, writes;             /* calls so far */
    long fail_read_at, fail_write_at; /* the k-th call (1-based) fails; 0: none */
    int fail_errno;
    uint64_t progress_read;         /* the read phase's last `done` */
    uint64_t progress_total;
} mem_io;

static int mem_read(void *user, int stream, void *buf, uint64_t offset, size_t bytes)
{
    mem_io *m = (mem_io *)user;
    pthread_mutex_lock(&m->lock);
    long k = ++m->reads;
    if (m->writes_started) m->read_after_write = 1;
    if (stream < 0 || stream > 1 || offset % m->es[stream] || bytes % m->es[stream] ||
        offset + bytes > m->bytes[stream])
        m->misaligned = 1;
    else
        for (size_t i = 0; i < bytes; i++) m->read_count[stream][offset + i]++;
    pthread_mutex_unlock(&m->lock);
    if (k == m->fail_read_at) {
        errno = m->fail_errno;
        return -1;
    }
    if (!m->misaligned) memcpy(buf, m->in[stream] + offset, bytes);
    return 0;
}

static int mem_write(void *user, int stream, const void *buf, uint64_t offset, size_t bytes)
{
    mem_io *m = (mem_io *)user;
    pthread_mutex_lock(&m->lock);
    long k = ++m->writes;
    m->writes_started = 1;
    if (stream < 0 || stream > 1 || offset % m->es[stream] || bytes % m->es[stream] ||
        offset + bytes > m->bytes[stream])
        m->misaligned = 1;
    else
        for (size_t i = 0; i < bytes; i++) m->write_count[stream][offset + i]++;
    pthread_mutex_unlock(&m->lock);
    if (k == m->fail_write_at) {
        errno = m->fail_errno;
        return -1;
    }
    if (!m->misaligned) memcpy(m->out[stream] + offset, buf, bytes);
    return 0;
}

static void mem_progress(void *user, gpusort__stream_phase phase, uint64_t done, uint64_t total)
{
    mem_io *m = (mem_io *)user;
    if (phase == GPUSORT__PHASE_READ) {
        m->progress_read = done;
        m->progress_total = total;
    }
}

/* ---- one case ---- */

typedef struct knobs {
    const char *name;
    const char *piece, *threads, *run_keys, *chunk_keys;
} knobs;

static void set_knob(const char *name, const char *v)
{
    if (v) setenv(name, v, 1);
    else unsetenv(name);
}

static void apply(const knobs *k)
{
    set_knob("GPUSORT_HOSTDATA_PIECE_BYTES", k->piece);
    set_knob("GPUSORT_HOSTDATA_THREADS", k->threads);
    set_knob("GPUSORT_OPENCL_HOST_RUN_KEYS", k->run_keys);
    set_knob("GPUSORT_CUDA_HOST_RUN_KEYS", k->run_keys);
    set_knob("GPUSORT_CUDA_HOST_CHUNK_KEYS", k->chunk_keys);
}

static const char *tname(gpusort_type t)
{
    return t == GPUSORT_TYPE_NONE ? "none" : gpusort_type_name(t);
}

/* Sort n elements through the callbacks; fail_read/fail_write: the k-th call fails (0: none).
 * Returns 0 when every check held. */
static int run_case(gpusort_ctx *ctx, const knobs *kn, gpusort_type kt, gpusort_type vt,
                    gpusort_order order, size_t n, uint64_t seed, long fail_read,
                    long fail_write)
{
    const size_t ks = gpusort_type_size(kt), vs = vt == GPUSORT_TYPE_NONE ? 0 : gpusort_type_size(vt);
    if (g_filter && !strstr(kn->name, g_filter)) return 0;
    char label[200];
    snprintf(label, sizeof label, "[%s] %s/%s %s n=%zu seed=%" PRIu64 " fail_read=%ld fail_write=%ld",
             kn->name, tname(kt), tname(vt), order == GPUSORT_ORDER_ASC ? "asc" : "desc", n, seed,
             fail_read, fail_write);
    mem_io m;
    memset(&m, 0, sizeof m);
    pthread_mutex_init(&m.lock, NULL);
    m.es[0] = ks;
    m.es[1] = vs ? vs : 1;
    m.bytes[0] = n * ks;
    m.bytes[1] = n * vs;
    m.fail_read_at = fail_read;
    m.fail_write_at = fail_write;
    m.fail_errno = fail_write ? ENOSPC : EIO;
    char *keys = malloc(n * ks + 1), *vals = malloc(n * vs + 1);
    char *ok = malloc(n * ks + 1), *ov = malloc(n * vs + 1);
    char *ek = malloc(n * ks + 1), *ev = malloc(n * vs + 1);
    uint64_t *perm = malloc((n + 1) * 8), *perm2 = malloc((n + 1) * 8);
    for (int a = 0; a < 2; a++) {
        m.read_count[a] = calloc(m.bytes[a] + 1, 1);
        m.write_count[a] = calloc(m.bytes[a] + 1, 1);
    }
    int bad = 0;
    if (!keys || !vals || !ok || !ov || !ek || !ev || !perm || !perm2 || !m.read_count[0] ||
        !m.read_count[1] || !m.write_count[0] || !m.write_count[1]) {
        printf("FAIL %s: out of host memory in the test\n", label);
        bad = 1;
        goto done;
    }
    /* Few distinct keys half of the time: ties test stability. */
    datagen_fill(keys, kt, n, (seed & 1) ? DATAGEN_FEW : DATAGEN_UNIFORM, seed);
    for (size_t i = 0; i < n; i++) { /* values: the input position, so ties are visible */
        if (vs == 4) ((uint32_t *)vals)[i] = (uint32_t)i;
        else if (vs == 8) ((uint64_t *)vals)[i] = (uint64_t)i * 0x100000001ull;
    }
    memset(ok, 0xA5, n * ks);
    memset(ov, 0xA5, n * vs);
    m.in[0] = keys;
    m.in[1] = vals;
    m.out[0] = ok;
    m.out[1] = ov;
    gpusort__stream s;
    memset(&s, 0, sizeof s);
    s.read = mem_read;
    s.write = mem_write;
    s.progress = mem_progress;
    s.user = &m;
    apply(kn);
    gpusort_status st = gpusort__sort_stream(ctx, kt, vt, n, &s, order, g_alg, 0);
    apply(&(knobs){"", NULL, NULL, NULL, NULL});

    if (m.misaligned) { printf("FAIL %s: a callback got a misaligned or out-of-range piece\n", label); bad = 1; }
    if (m.read_after_write) { printf("FAIL %s: a read came after the first write\n", label); bad = 1; }
    if (fail_read || fail_write) {
        const int want = fail_write ? ENOSPC : EIO;
        const int happened = fail_read ? m.reads >= fail_read : m.writes >= fail_write;
        if (!happened) { /* fewer calls than k: then the call must succeed */
            if (st != GPUSORT_STATUS_SUCCESS) {
                printf("FAIL %s: status %s (%s) with no failing callback\n", label,
                       gpusort_status_string(st), gpusort_ctx_get_last_error(ctx));
                bad = 1;
            }
        } else if (st != GPUSORT_STATUS_INVALID_ARGUMENT || s.io_errno != want ||
                   !gpusort_ctx_get_last_error(ctx)[0]) {
            printf("FAIL %s: status %s, io_errno %d (want INVALID_ARGUMENT, %d), message '%s'\n",
                   label, gpusort_status_string(st), s.io_errno, want, gpusort_ctx_get_last_error(ctx));
            bad = 1;
        } else if (fail_read && m.writes) {
            printf("FAIL %s: %ld writes after a failed read\n", label, m.writes);
            bad = 1;
        }
        goto done;
    }
    if (st != GPUSORT_STATUS_SUCCESS) {
        printf("FAIL %s: %s: %s\n", label, gpusort_status_string(st), gpusort_ctx_get_last_error(ctx));
        bad = 1;
        goto done;
    }
    if (s.io_errno) { printf("FAIL %s: io_errno %d after success\n", label, s.io_errno); bad = 1; }
    for (int a = 0; a < 2 && !bad; a++)
        for (size_t i = 0; i < m.bytes[a]; i++)
            if (m.read_count[a][i] != 1 || m.write_count[a][i] != 1) {
                printf("FAIL %s: stream %d byte %zu read %d times, written %d times\n", label, a,
                       i, m.read_count[a][i], m.write_count[a][i]);
                bad = 1;
                break;
            }
    if (n && (m.progress_read != m.progress_total || m.progress_total != m.bytes[0] + m.bytes[1])) {
        printf("FAIL %s: read progress ended at %" PRIu64 " of %" PRIu64 " (want %zu)\n", label,
               m.progress_read, m.progress_total, m.bytes[0] + m.bytes[1]);
        bad = 1;
    }
    for (int p = 0; p < GPUSORT__PHASE_COUNT; p++)
        if (!(s.seconds[p] >= 0)) { printf("FAIL %s: phase %d took %g s\n", label, p, s.seconds[p]); bad = 1; }
    if (!bad) {
        if (verify_ref_argsort(kt, keys, n, GPUSORT_ORDER_ASC, perm)) {
            printf("FAIL %s: out of memory in the reference\n", label);
            bad = 1;
            goto done;
        }
        const uint64_t *p = perm;
        if (order == GPUSORT_ORDER_DESC) {
            verify_ref_reverse_stable(kt, keys, n, perm, perm2);
            p = perm2;
        }
        verify_gather(ek, keys, p, n, ks);
        size_t i = verify_first_diff(ok, ek, n, ks);
        if (i < n) {
            char a[64], b[64];
            verify_format(kt, ok + i * ks, a, sizeof a);
            verify_format(kt, ek + i * ks, b, sizeof b);
            printf("FAIL %s: key %zu is %s, the reference has %s\n", label, i, a, b);
            bad = 1;
        }
        if (vs) {
            verify_gather(ev, vals, p, n, vs);
            i = verify_first_diff(ov, ev, n, vs);
            if (i < n) {
                printf("FAIL %s: value %zu differs from the stable reference's\n", label, i);
                bad = 1;
            }
        }
    }
done:
    if (bad) g_failed++;
    else g_passed++;
    for (int a = 0; a < 2; a++) {
        free(m.read_count[a]);
        free(m.write_count[a]);
    }
    pthread_mutex_destroy(&m.lock);
    free(keys); free(vals); free(ok); free(ov); free(ek); free(ev); free(perm); free(perm2);
    return bad;
}

int main(int argc, char **argv)
{
    gpusort_backend backend = GPUSORT_BACKEND_CPU;
    uint64_t seed = (uint64_t)time(NULL);
    size_t max_n = 20000;
    int quick = getenv("GPUSORT_TEST_QUICK") != NULL;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--backend") && i + 1 < argc) {
            const char *b = argv[++i];
            backend = !strcmp(b, "cuda") ? GPUSORT_BACKEND_CUDA
                      : !strcmp(b, "opencl") ? GPUSORT_BACKEND_OPENCL : GPUSORT_BACKEND_CPU;
        } else if (!strcmp(argv[i], "--seed") && i + 1 < argc) {
            seed = strtoull(argv[++i], NULL, 10);
        } else if (!strcmp(argv[i], "--max-n") && i + 1 < argc) {
            max_n = (size_t)strtoull(argv[++i], NULL, 10);
        } else if (!strcmp(argv[i], "--filter") && i + 1 < argc) {
            g_filter = argv[++i];
        } else if (!strcmp(argv[i], "--algorithm") && i + 1 < argc) {
            g_alg = !strcmp(argv[++i], "radix") ? GPUSORT_ALGORITHM_RADIX : GPUSORT_ALGORITHM_AUTO;
        } else if (!strcmp(argv[i], "--quick")) {
            quick = 1;
        } else {
            fprintf(stderr, "usage: test_hoststream [--backend cpu|cuda|opencl] [--seed S] "
                            "[--max-n N] [--quick] [--filter KNOBS] [--algorithm auto|radix]\n");
            return 2;
        }
    }
    printf("test_hoststream: backend %s, seed %" PRIu64 " (--seed to replay), max n %zu\n",
           gpusort_backend_name(backend), seed, max_n);
    gpusort_ctx *ctx = NULL;
    gpusort_status st = gpusort_ctx_create(&ctx, backend, -1);
    if (st != GPUSORT_STATUS_SUCCESS) {
        printf("skipped: no %s device (%s)\n", gpusort_backend_name(backend),
               gpusort_status_string(st));
        return SKIP_EXIT;
    }
    datagen_rng rng;
    datagen_rng_seed(&rng, seed);

    const knobs kdefault = {"default", NULL, NULL, NULL, NULL};
    const knobs kpieces = {"pieces", "4096", "3", NULL, NULL};
    const knobs ktiny = {"tiny", "8", "2", NULL, NULL};
    const knobs kruns = {"runs", "4096", "2", "1000", NULL};
    const knobs kchunks = {"chunks", "4096", "3", NULL, "4096"};
    const struct { gpusort_type k, v; } types[] = {
        {GPUSORT_TYPE_U32, GPUSORT_TYPE_NONE}, {GPUSORT_TYPE_F64, GPUSORT_TYPE_NONE},
        {GPUSORT_TYPE_U32, GPUSORT_TYPE_U64}, {GPUSORT_TYPE_I64, GPUSORT_TYPE_U32},
        {GPUSORT_TYPE_F32, GPUSORT_TYPE_U32},
    };
    const int ntypes = (int)(sizeof types / sizeof types[0]);

    for (int t = 0; t < ntypes; t++) {
        const gpusort_type kt = types[t].k, vt = types[t].v;
        const size_t ks = gpusort_type_size(kt);
        for (int o = 0; o < 2; o++) {
            const gpusort_order order = o ? GPUSORT_ORDER_DESC : GPUSORT_ORDER_ASC;
            /* empty, one key, a few */
            const size_t small[] = {0, 1, 2, 3, 17};
            for (size_t i = 0; i < sizeof small / sizeof *small; i++)
                run_case(ctx, &kdefault, kt, vt, order, small[i], datagen_rng_next(&rng), 0, 0);
            /* around 1, 2, 6 (every staging buffer of 3 threads) and 7 pieces of 4096 bytes;
             * the keys' pieces decide (values of other widths cut elsewhere) */
            const size_t pe = 4096 / ks;
            const size_t mult[] = {1, 2, 6, 7};
            for (size_t i = 0; i < sizeof mult / sizeof *mult; i++)
                for (int dlt = -1; dlt <= 1; dlt++) {
                    if (quick && dlt == 0 && i > 0) continue;
                    size_t n = mult[i] * pe + (size_t)(long)dlt;
                    if (n <= max_n)
                        run_case(ctx, &kpieces, kt, vt, order, n, datagen_rng_next(&rng), 0, 0);
                }
            run_case(ctx, &kpieces, kt, vt, order, 1 + datagen_rng_below(&rng, max_n),
                     datagen_rng_next(&rng), 0, 0);
            run_case(ctx, &ktiny, kt, vt, order, 1 + datagen_rng_below(&rng, 300),
                     datagen_rng_next(&rng), 0, 0);
            /* larger than one device run: 999, 1000, 1001 keys and a few runs */
            const size_t rn[] = {999, 1000, 1001, 3 * 1000 + 7};
            for (size_t i = 0; i < sizeof rn / sizeof *rn; i++)
                if (!quick || i != 1)
                    run_case(ctx, &kruns, kt, vt, order, rn[i], datagen_rng_next(&rng), 0, 0);
            if (backend == GPUSORT_BACKEND_CUDA) {
                const size_t cn[] = {4095, 4096, 4097, 8192 + 1, 5 * 4096 + 3, 70000};
                for (size_t i = 0; i < sizeof cn / sizeof *cn; i++)
                    run_case(ctx, &kchunks, kt, vt, order, cn[i], datagen_rng_next(&rng), 0, 0);
            }
        }
    }
    /* Failing callbacks: the first, a middle and the last call of many pieces. The number of
     * calls: n = 6000 u32 + u64 pairs in 4096-byte pieces = 6 + 12 reads and as many writes. */
    {
        const long at[] = {1, 7, 18};
        for (size_t i = 0; i < sizeof at / sizeof *at; i++) {
            run_case(ctx, &kpieces, GPUSORT_TYPE_U32, GPUSORT_TYPE_U64, GPUSORT_ORDER_ASC, 6000,
                     datagen_rng_next(&rng), at[i], 0);
            run_case(ctx, &kpieces, GPUSORT_TYPE_U32, GPUSORT_TYPE_U64, GPUSORT_ORDER_ASC, 6000,
                     datagen_rng_next(&rng), 0, at[i]);
            run_case(ctx, &kruns, GPUSORT_TYPE_U32, GPUSORT_TYPE_U64, GPUSORT_ORDER_DESC, 6000,
                     datagen_rng_next(&rng), 0, at[i]);
            /* the context still works */
            run_case(ctx, &kpieces, GPUSORT_TYPE_F64, GPUSORT_TYPE_U32, GPUSORT_ORDER_DESC, 5000,
                     datagen_rng_next(&rng), 0, 0);
        }
    }
    gpusort_ctx_free(ctx);
    printf("%d passed, %d failed, 0 skipped\n", g_passed, g_failed);
    return g_failed ? 1 : 0;
}
