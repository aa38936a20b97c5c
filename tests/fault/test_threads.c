/*
 * test_threads.c -- the thread-safety promise of gpusort.h ("Threads"), exercised at once:
 *   - W worker threads, each with its own context (created, used, trimmed, freed and created
 *     again), sorting, argsorting, sorting pairs, strings and records, and reducing, with every
 *     result checked by an independent check (order, permutation, values with their keys,
 *     exact integer sums);
 *   - Q query threads calling the functions the header calls thread-safe, all the while:
 *     gpusort_version, gpusort_status_string, the type/backend/algorithm names and parsers, and
 *     gpusort_device_get_count / gpusort_device_get_info of every backend.
 * Under ThreadSanitizer (cmake -DGPUSORT_TSAN=ON) a data race is a report and a failure; in
 * any build a wrong result is a failure.
 *
 *   test_threads [--backend cpu|opencl|cuda] [--workers W] [--queries Q] [--rounds R]
 *                [--processes P] [--seed S]
 *
 * --processes P runs P copies of the whole test as separate processes at once (forked before
 * any library call), each with its own contexts on the same device: several processes sharing
 * one GPU. Exits 0, 1 on a failure, 77 when the backend has no device here.
 */
#include "datagen.h"
#include "gpusort.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

static gpusort_backend backend = GPUSORT_BACKEND_CPU;
static int rounds = 6;
static uint64_t seed0 = 20261124;
static atomic_int failures;
static atomic_int stop_queries;
static atomic_long checks;

#define CHECK(cond, ...)                                                                   \
    do {                                                                                   \
        if (!(cond)) {                                                                     \
            fprintf(stderr, "FAIL %s:%d: %s: ", __FILE__, __LINE__, #cond);                \
            fprintf(stderr, __VA_ARGS__);                                                  \
            fprintf(stderr, "\n");                                                         \
            atomic_fetch_add(&failures, 1);                                                \
        } else {                                                                           \
            atomic_fetch_add(&checks, 1);                                                  \
        }                                                                                  \
    } while (0)

/* One round of every kind of call on ctx, with n keys. */
static void one_round(gpusort_ctx *ctx, int id, size_t n, datagen_rng *rng)
{
    uint32_t *k = (uint32_t *)malloc(n * 4 + 4), *ko = (uint32_t *)malloc(n * 4 + 4);
    uint64_t *idx = (uint64_t *)malloc(n * 8 + 8), *vals = (uint64_t *)malloc(n * 8 + 8);
    uint64_t *vo = (uint64_t *)malloc(n * 8 + 8);
    uint64_t sum = 0;
    for (size_t i = 0; i < n; i++) {
        k[i] = (uint32_t)(datagen_rng_next(rng) % (n / 2 + 1));   /* many ties */
        vals[i] = ((uint64_t)k[i] << 32) | i;               /* a value that names its key */
        sum += k[i];
    }
    gpusort_status s;
    /* keys */
    s = gpusort_sort(ctx, GPUSORT_TYPE_U32, k, n, ko, id & 1 ? GPUSORT_ORDER_DESC : GPUSORT_ORDER_ASC,
                     GPUSORT_ALGORITHM_AUTO, 0);
    CHECK(s == GPUSORT_STATUS_SUCCESS, "worker %d sort n=%zu: %s", id, n, gpusort_status_string(s));
    int ordered = 1;
    uint64_t osum = 0;
    for (size_t i = 0; i < n; i++) {
        osum += ko[i];
        if (i && ((id & 1) ? ko[i - 1] < ko[i] : ko[i - 1] > ko[i])) ordered = 0;
    }
    CHECK(ordered && osum == sum, "worker %d sort n=%zu: not sorted or not the same keys", id, n);
    /* argsort: stable */
    s = gpusort_argsort(ctx, GPUSORT_TYPE_U32, GPUSORT_TYPE_U64, k, n, idx, GPUSORT_ORDER_ASC,
                        GPUSORT_ALGORITHM_AUTO, 0);
    CHECK(s == GPUSORT_STATUS_SUCCESS, "worker %d argsort: %s", id, gpusort_status_string(s));
    int stable = 1;
    for (size_t i = 0; i + 1 < n; i++)
        if (idx[i] >= n || idx[i + 1] >= n || k[idx[i]] > k[idx[i + 1]] ||
            (k[idx[i]] == k[idx[i + 1]] && idx[i] > idx[i + 1]))
            stable = 0;
    CHECK(stable, "worker %d argsort n=%zu: not a stable order", id, n);
    /* pairs: each value travels with its key */
    s = gpusort_sort_pairs(ctx, GPUSORT_TYPE_U32, GPUSORT_TYPE_U64, k, vals, n, ko, vo,
                           GPUSORT_ORDER_ASC, GPUSORT_ALGORITHM_AUTO, 0);
    CHECK(s == GPUSORT_STATUS_SUCCESS, "worker %d pairs: %s", id, gpusort_status_string(s));
    int paired = 1;
    for (size_t i = 0; i < n; i++)
        if ((uint32_t)(vo[i] >> 32) != ko[i] || (i && ko[i - 1] > ko[i])) paired = 0;
    CHECK(paired, "worker %d pairs n=%zu: a value left its key", id, n);
    /* reduce */
    gpusort_value r;
    s = gpusort_reduce(ctx, GPUSORT_TYPE_U32, k, n, &r, GPUSORT_OP_SUM, 0);
    CHECK(s == GPUSORT_STATUS_SUCCESS && r.u == sum, "worker %d reduce n=%zu: %s", id, n,
          gpusort_status_string(s));
    /* strings: the keys' bytes as 4-byte strings; records of 8 bytes keyed by bytes 2..5 */
    uint64_t *offs = (uint64_t *)malloc((n + 1) * 8);
    for (size_t i = 0; i <= n; i++) offs[i] = 4 * i;
    s = gpusort_sort_strings(ctx, GPUSORT_TYPE_U64, (const uint8_t *)k, offs, n, idx,
                             GPUSORT_ORDER_ASC, 0);
    CHECK(s == GPUSORT_STATUS_SUCCESS, "worker %d strings: %s", id, gpusort_status_string(s));
    int sok = 1;
    for (size_t i = 0; i + 1 < n && sok; i++) {
        int c = memcmp(&k[idx[i]], &k[idx[i + 1]], 4);
        if (c > 0 || (c == 0 && idx[i] > idx[i + 1])) sok = 0;
    }
    CHECK(sok, "worker %d strings n=%zu: not in byte order", id, n);
    s = gpusort_sort_records(ctx, GPUSORT_TYPE_U64, vals, n, 8, 2, 4, vo, idx, GPUSORT_ORDER_DESC, 0);
    CHECK(s == GPUSORT_STATUS_SUCCESS, "worker %d records: %s", id, gpusort_status_string(s));
    int rok = 1;
    for (size_t i = 0; i < n && rok; i++) {
        if (idx[i] >= n || vo[i] != vals[idx[i]]) rok = 0;
        if (i && memcmp((uint8_t *)&vo[i - 1] + 2, (uint8_t *)&vo[i] + 2, 4) < 0) rok = 0;
    }
    CHECK(rok, "worker %d records n=%zu: wrong", id, n);
    free(offs);
    free(k);
    free(ko);
    free(idx);
    free(vals);
    free(vo);
}

static void *worker(void *arg)
{
    int id = (int)(intptr_t)arg;
    datagen_rng rng;
    datagen_rng_seed(&rng, datagen_mix64(seed0 + (uint64_t)id));
    static const size_t sizes[] = {1, 2, 100, 4097, 65537, 300001};
    for (int life = 0; life < 2; life++) {   /* a context created, used, freed, created again */
        gpusort_ctx *ctx = NULL;
        gpusort_status s = gpusort_ctx_create(&ctx, backend, -1);
        CHECK(s == GPUSORT_STATUS_SUCCESS, "worker %d ctx_create: %s", id, gpusort_status_string(s));
        if (s) return NULL;
        gpusort_ctx_set_threads(ctx, 2);   /* the CPU backend's own workers run too */
        for (int r = 0; r < rounds; r++) {
            one_round(ctx, id, sizes[(size_t)(id + r) % (sizeof sizes / sizeof sizes[0])], &rng);
            if (r == rounds / 2) CHECK(gpusort_ctx_trim(ctx) == GPUSORT_STATUS_SUCCESS, "trim");
        }
        gpusort_ctx_free(ctx);
    }
    return NULL;
}

static void *querier(void *arg)
{
    (void)arg;
    long n = 0;
    while (!atomic_load(&stop_queries) || n < 50) {
        CHECK(strcmp(gpusort_version(), GPUSORT_VERSION_STRING) == 0, "version");
        CHECK(strcmp(gpusort_status_string(GPUSORT_STATUS_OUT_OF_HOST_MEMORY), "out of host memory") == 0,
              "status string");
        gpusort_type t;
        CHECK(gpusort_type_parse("f64", &t) == GPUSORT_STATUS_SUCCESS && t == GPUSORT_TYPE_F64, "type parse");
        gpusort_algorithm a;
        CHECK(gpusort_algorithm_parse("merge", &a) == GPUSORT_STATUS_SUCCESS && a == GPUSORT_ALGORITHM_MERGE,
              "algorithm parse");
        CHECK(strcmp(gpusort_backend_name(GPUSORT_BACKEND_OPENCL), "opencl") == 0, "backend name");
        for (int b = GPUSORT_BACKEND_CPU; b < GPUSORT_BACKEND_COUNT_; b++) {
            int count = -1;
            gpusort_status s = gpusort_device_get_count((gpusort_backend)b, &count);
            CHECK(s == GPUSORT_STATUS_SUCCESS || s == GPUSORT_STATUS_BACKEND_NOT_BUILT,
                  "device_get_count(%d): %s", b, gpusort_status_string(s));
            for (int d = 0; s == GPUSORT_STATUS_SUCCESS && d < count; d++) {
                gpusort_device_info info;
                gpusort_status si = gpusort_device_get_info((gpusort_backend)b, d, &info);
                CHECK(si == GPUSORT_STATUS_SUCCESS && info.name[0] && memchr(info.name, 0, sizeof info.name),
                      "device_get_info(%d, %d): %s", b, d, gpusort_status_string(si));
            }
        }
        n++;
    }
    return NULL;
}

static int run(int workers, int queries)
{
    int count = 0;
    if (gpusort_device_get_count(backend, &count) != GPUSORT_STATUS_SUCCESS || count == 0) {
        printf("skipped: no %s device\n", gpusort_backend_name(backend));
        return 77;
    }
    pthread_t w[64], q[16];
    for (int i = 0; i < queries; i++) pthread_create(&q[i], NULL, querier, NULL);
    for (int i = 0; i < workers; i++) pthread_create(&w[i], NULL, worker, (void *)(intptr_t)i);
    for (int i = 0; i < workers; i++) pthread_join(w[i], NULL);
    atomic_store(&stop_queries, 1);
    for (int i = 0; i < queries; i++) pthread_join(q[i], NULL);
    printf("%s: %d workers x %d rounds, %d query threads: %ld checks, %d failed\n",
           gpusort_backend_name(backend), workers, rounds, queries, atomic_load(&checks),
           atomic_load(&failures));
    return atomic_load(&failures) ? 1 : 0;
}

int main(int argc, char **argv)
{
    int workers = 6, queries = 3, procs = 1;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (!v) { fprintf(stderr, "%s: %s needs a value\n", argv[0], a); return 2; }
        if (strcmp(a, "--backend") == 0) {
            if (gpusort_backend_parse(v, &backend) != GPUSORT_STATUS_SUCCESS) return 2;
        } else if (strcmp(a, "--workers") == 0) workers = atoi(v);
        else if (strcmp(a, "--queries") == 0) queries = atoi(v);
        else if (strcmp(a, "--rounds") == 0) rounds = atoi(v);
        else if (strcmp(a, "--processes") == 0) procs = atoi(v);
        else if (strcmp(a, "--seed") == 0) seed0 = strtoull(v, NULL, 0);
        else { fprintf(stderr, "%s: unknown option %s\n", argv[0], a); return 2; }
        i++;
    }
    if (workers < 1 || workers > 64 || queries < 0 || queries > 16 || procs < 1) return 2;
    printf("seed %llu\n", (unsigned long long)seed0);
    fflush(stdout);
    if (procs == 1) return run(workers, queries);

    /* Several processes on one device: fork before the library is touched (a CUDA context
     * does not survive fork). */
    pid_t pids[64];
    for (int p = 0; p < procs && p < 64; p++) {
        pids[p] = fork();
        if (pids[p] == 0) {
            seed0 += (uint64_t)p;
            exit(run(workers, queries));
        }
    }
    int worst = 0;
    for (int p = 0; p < procs && p < 64; p++) {
        int st = 0;
        waitpid(pids[p], &st, 0);
        int rc = WIFEXITED(st) ? WEXITSTATUS(st) : 1;
        if (rc == 77 && worst == 0) worst = 77;
        else if (rc != 0 && rc != 77) worst = 1;
    }
    printf("%d processes: %s\n", procs, worst == 0 ? "ok" : worst == 77 ? "skipped" : "FAILED");
    return worst;
}
