/*
 * timing.c -- the benchmark harness of timing.h: the wall clock, bench_time (warm-up rounds,
 * timed rounds of every contender in alternation, median / min / max), and the CSV and JSON
 * row writers. The method is stated in timing.h; the CUDA-event clock is in timing_cuda.cu.
 */
#define _POSIX_C_SOURCE 200809L   /* clock_gettime under -std=c11 */
#include "timing.h"

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* ---- the wall clock ---- */

static double wall_ms(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec * 1e3 + 1e-6 * (double)t.tv_nsec;
}

static void wall_start(void *state) { *(double *)state = wall_ms(); }
static double wall_stop(void *state) { return wall_ms() - *(double *)state; }

/* The start time lives in the clock's state: one wall clock serves one bench_time() at a time
 * (the programs are single-threaded). */
static double wall_t0;
static const bench_clock wall_clock = {"wall", wall_start, wall_stop, &wall_t0};

const bench_clock *bench_clock_wall(void) { return &wall_clock; }

/* ---- timing ---- */

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

double bench_median(double *samples, int n)
{
    if (n <= 0) return 0;
    qsort(samples, (size_t)n, sizeof *samples, cmp_double);
    return samples[n / 2];
}

bench_plan bench_plan_default(int runs)
{
    bench_plan p = {NULL, 1, runs, 0, NULL};
    return p;
}

static int call(const bench_clock *clock, const bench_contender *c, int run, double *ms)
{
    if (c->prepare) c->prepare(c->prepare_arg, run);
    clock->start(clock->state);
    int rc = c->run(c->arg, run);
    double t = clock->stop(clock->state);
    if (ms) *ms = t;
    return rc;
}

int bench_time(const bench_plan *plan, const bench_contender *cs, int count, bench_stats *stats)
{
    const bench_clock *clock = plan->clock ? plan->clock : bench_clock_wall();
    const int runs = plan->runs > 0 ? plan->runs : 1;
    for (int c = 0; c < count; c++) stats[c] = (bench_stats){-1, -1, -1, 0};
    double *t = (double *)malloc(sizeof(double) * (size_t)runs * (size_t)(count > 0 ? count : 1));
    if (!t) {
        fprintf(stderr, "bench: out of host memory\n");
        return -1;
    }
    int rc = 0;
    for (int w = 0; w < plan->warmup && !rc; w++)
        for (int c = 0; c < count && !rc; c++) rc = call(clock, &cs[c], plan->first_run - 1, NULL);
    for (int r = 0; r < runs && !rc; r++)
        for (int c = 0; c < count && !rc; c++)
            rc = call(clock, &cs[c], plan->first_run + r, &t[(size_t)c * runs + r]);
    const char *trace = getenv("GPUSORT_BENCH_TRACE");
    for (int c = 0; c < count && !rc; c++) {
        double *v = &t[(size_t)c * runs];
        if (plan->trace && trace && trace[0] == '1') {
            printf("  trace %s contender %d:", plan->trace, c);
            for (int r = 0; r < runs; r++) printf(" %.4f", v[r]);
            printf("\n");
        }
        stats[c].median_ms = bench_median(v, runs);
        stats[c].min_ms = v[0];
        stats[c].max_ms = v[runs - 1];
        stats[c].runs = runs;
    }
    free(t);
    return rc;
}

double bench_time_one(const bench_plan *plan, const bench_contender *contender)
{
    bench_stats s;
    bench_time(plan, contender, 1, &s);
    return s.median_ms;
}

/* ---- rows ---- */

/* The type of a column's value, from the conversion's last letters. */
enum { CELL_TEXT, CELL_INT, CELL_SIZE, CELL_LLONG, CELL_DOUBLE };

static int cell_kind(const char *format)
{
    size_t n = strlen(format);
    char last = n ? format[n - 1] : 's';
    if (last == 's') return CELL_TEXT;
    if (last == 'f' || last == 'e' || last == 'g') return CELL_DOUBLE;
    if (n >= 2 && format[n - 2] == 'z') return CELL_SIZE;
    if (n >= 3 && format[n - 2] == 'l' && format[n - 3] == 'l') return CELL_LLONG;
    return CELL_INT;
}

void bench_row_make(bench_row *row, const bench_column *columns, int ncolumns, ...)
{
    va_list ap;
    va_start(ap, ncolumns);
    if (ncolumns > BENCH_MAX_COLUMNS) ncolumns = BENCH_MAX_COLUMNS;
    row->columns = columns;
    row->ncolumns = ncolumns;
    for (int i = 0; i < ncolumns; i++) {
        char *cell = row->cell[i];
        const char *f = columns[i].format;
        switch (cell_kind(f)) {
        case CELL_TEXT: snprintf(cell, BENCH_CELL_BYTES, f, va_arg(ap, const char *)); break;
        case CELL_DOUBLE: snprintf(cell, BENCH_CELL_BYTES, f, va_arg(ap, double)); break;
        case CELL_SIZE: snprintf(cell, BENCH_CELL_BYTES, f, va_arg(ap, size_t)); break;
        case CELL_LLONG: snprintf(cell, BENCH_CELL_BYTES, f, va_arg(ap, long long)); break;
        default: snprintf(cell, BENCH_CELL_BYTES, f, va_arg(ap, int)); break;
        }
    }
    va_end(ap);
}

void bench_csv_header(FILE *f, const char *prefix, const bench_column *columns, int ncolumns)
{
    if (!f) return;
    fputs(prefix ? prefix : "", f);
    for (int i = 0; i < ncolumns; i++) fprintf(f, "%s%s", i ? "," : "", columns[i].name);
    fputc('\n', f);
}

void bench_csv_row(FILE *f, const char *prefix, const bench_row *row)
{
    if (!f) return;
    fputs(prefix ? prefix : "", f);
    for (int i = 0; i < row->ncolumns; i++) fprintf(f, "%s%s", i ? "," : "", row->cell[i]);
    fputc('\n', f);
}

void bench_json_begin(bench_json *j, FILE *f, const char *meta)
{
    j->f = f;
    j->rows = 0;
    if (f) fprintf(f, "{%s%s\"rows\": [\n", meta ? meta : "", meta && *meta ? ", " : "");
}

static void json_string(FILE *f, const char *s)
{
    fputc('"', f);
    for (; *s; s++) {
        if (*s == '"' || *s == '\\') fprintf(f, "\\%c", *s);
        else if ((unsigned char)*s < 0x20) fprintf(f, "\\u%04x", (unsigned)(unsigned char)*s);
        else fputc(*s, f);
    }
    fputc('"', f);
}

void bench_json_row(bench_json *j, const bench_row *row)
{
    if (!j->f) return;
    fputs(j->rows++ ? ",\n  {" : "  {", j->f);
    for (int i = 0; i < row->ncolumns; i++) {
        fprintf(j->f, "%s\"%s\": ", i ? ", " : "", row->columns[i].name);
        if (cell_kind(row->columns[i].format) == CELL_TEXT) json_string(j->f, row->cell[i]);
        else fputs(row->cell[i], j->f);
    }
    fputc('}', j->f);
}

void bench_json_end(bench_json *j)
{
    if (!j->f) return;
    fputs(j->rows ? "\n]}\n" : "]}\n", j->f);
    j->f = NULL;
}
