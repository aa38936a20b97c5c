/*
 * cmd_bench.c -- `gpusort bench`: a quick benchmark of every available backend on the same
 * random keys, with the C library's qsort as a naive peer.
 *
 * Each backend sorts a fresh copy of the data (host memory: GPU times include the transfers)
 * once to warm up and then --runs times; the median is printed with keys/s and the ratio to
 * qsort, and every result is checked to be sorted (binfile.h's radix keys: the gpusort order).
 * The full benchmark suite, with peers such as CUB, lives in bench/.
 */
#include "binfile.h"
#include "cmd.h"
#include "util.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char help_bench[] =
    "Usage: gpusort bench [--backend B] [--type T] [--n N] [--runs R] [--dist D] [--seed S]\n"
    "                     [--algorithm A] [--desc] [--threads N] [--device N]\n"
    "A quick benchmark: sorts the same N keys (default 2^22 u32, uniform) on every available\n"
    "backend (or only --backend B) and with the C library's qsort (a naive peer), R times\n"
    "each (default 7) after one warm-up, each run on a fresh copy of the data in host memory\n"
    "(GPU times include the transfers), and prints the median time and keys/s. Every result\n"
    "is checked to be sorted. The full benchmark suite lives in bench/.\n";

static gpusort_type qsort_type;   /* qsort has no context argument */
static int qsort_cmp(const void *a, const void *b)
{
    size_t size = gpusort_type_size(qsort_type);
    uint64_t x = bin_radix_key(qsort_type, size, a, 0), y = bin_radix_key(qsort_type, size, b, 0);
    return (x > y) - (x < y);
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* 1 if buf (n elements) is sorted in the gpusort order. */
static int is_sorted(gpusort_type t, const void *buf, size_t n, int desc)
{
    size_t size = gpusort_type_size(t);
    for (size_t i = 1; i < n; i++)
        if (bin_radix_key(t, size, (const char *)buf + (i - 1) * size, desc) >
            bin_radix_key(t, size, (const char *)buf + i * size, desc))
            return 0;
    return 1;
}

int gpusort_cli_bench(int argc, char **argv)
{
    const char *cmd = "bench";
    cmd_opts o;
    cmd_parse(argc, argv, "backend device type n runs dist seed algorithm desc threads quiet", 0,
              &o);
    if (o.help) { fputs(help_bench, stdout); return 0; }
    gpusort_type type = o.type_set ? o.type : GPUSORT_TYPE_U32;
    size_t n = o.n_set ? (size_t)o.n : (size_t)1 << 22;
    int runs = o.runs ? o.runs : 7;
    datagen_dist dist = DATAGEN_UNIFORM;
    int index = 0;
    if (cmd_parse_dist(&o, &dist, &index) != 0 || index)
        cli_fail("bench: unknown distribution '%s' (see gpusort gen --help)", o.dist);
    size_t size = gpusort_type_size(type);
    if (o.n > SIZE_MAX / size / 2) cli_fail("bench: --n is too large");
    void *orig = gpusort__malloc(n ? n * size : 1), *work = gpusort__malloc(n ? n * size : 1);
    double *times = (double *)gpusort__malloc(sizeof(double) * (size_t)runs);
    if (!orig || !work || !times)
        cli_fail("bench: out of memory: %zu %s keys need 2 x %zu bytes", n,
                 gpusort_type_name(type), n * size);
    datagen_fill(orig, type, n, dist, o.seed);
    gpusort_order order = o.desc ? GPUSORT_ORDER_DESC : GPUSORT_ORDER_ASC;

    printf("gpusort bench: %zu %s keys, %s, %s, seed %" PRIu64 ", median of %d runs after 1 "
           "warm-up\n", n, gpusort_type_name(type),
           o.dist ? o.dist : "uniform", o.desc ? "descending" : "ascending", o.seed, runs);
    printf("%-8s %12s %12s %10s  %s\n", "backend", "median s", "Mkeys/s", "vs qsort", "device");
    fflush(stdout);

    /* The peer first, so that each backend's line can give its ratio. */
    double qsort_median = 0;
    int qruns = runs;
    {
        qsort_type = type;
        for (int r = -1; r < qruns; r++) {
            memcpy(work, orig, n * size);
            double t0 = cli_now_s();
            if (!o.desc) qsort(work, n, size, qsort_cmp);
            else {
                /* qsort is not stable, so descending by reversing an ascending sort is fine. */
                qsort(work, n, size, qsort_cmp);
                for (size_t i = 0, j = n ? n - 1 : 0; i < j; i++, j--) {
                    char tmp[8];
                    memcpy(tmp, (char *)work + i * size, size);
                    memcpy((char *)work + i * size, (char *)work + j * size, size);
                    memcpy((char *)work + j * size, tmp, size);
                }
            }
            double t = cli_now_s() - t0;
            if (r >= 0) times[r] = t;
        }
        qsort(times, (size_t)qruns, sizeof *times, cmp_double);
        qsort_median = times[qruns / 2];
        printf("%-8s %12.6f %12.1f %10s  %s\n", "qsort", qsort_median,
               qsort_median > 0 ? (double)n / qsort_median / 1e6 : 0.0, "1.0x",
               "libc qsort, 1 thread");
        fflush(stdout);
    }

    int any = 0;
    for (int b = GPUSORT_BACKEND_CPU; b < GPUSORT_BACKEND_COUNT_; b++) {
        gpusort_backend be = (gpusort_backend)b;
        if (o.backend_set && o.backend != GPUSORT_BACKEND_AUTO && o.backend != be) continue;
        int count = 0;
        if (!gpusort_backend_built(be) || gpusort_device_get_count(be, &count) != 0 || count == 0) {
            if (o.backend_set && o.backend == be)
                cli_fail("bench: the %s backend is %s", gpusort_backend_name(be),
                         gpusort_backend_built(be) ? "built but has no device" : "not built");
            continue;
        }
        cmd_opts bo = o;
        bo.backend = be;
        gpusort_ctx *ctx = cmd_make_ctx(cmd, &bo);
        char dev[256];
        cmd_device_name(ctx, dev, sizeof dev);
        gpusort_status s = GPUSORT_STATUS_SUCCESS;
        for (int r = -1; r < runs && s == GPUSORT_STATUS_SUCCESS; r++) {
            memcpy(work, orig, n * size);
            double t0 = cli_now_s();
            s = gpusort_sort(ctx, type, work, n, work, order, o.algorithm, 0);
            double t = cli_now_s() - t0;
            if (r >= 0) times[r] = t;
        }
        if (s != GPUSORT_STATUS_SUCCESS) {
            printf("%-8s failed: %s: %s (%s)\n", gpusort_backend_name(be),
                   gpusort_status_string(s), gpusort_ctx_get_last_error(ctx), dev);
            gpusort_ctx_free(ctx);
            continue;
        }
        if (!is_sorted(type, work, n, o.desc))
            cli_fail("bench: the %s backend returned unsorted data", gpusort_backend_name(be));
        qsort(times, (size_t)runs, sizeof *times, cmp_double);
        double med = times[runs / 2];
        printf("%-8s %12.6f %12.1f %9.1fx  %s\n", gpusort_backend_name(be), med,
               med > 0 ? (double)n / med / 1e6 : 0.0, med > 0 ? qsort_median / med : 0.0, dev);
        fflush(stdout);
        gpusort_ctx_free(ctx);
        any = 1;
    }
    free(orig);
    free(work);
    free(times);
    if (!any) cli_fail("bench: no backend with a device to run");
    return 0;
}
