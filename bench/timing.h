/*
 * timing.h -- the one timing and output harness of every benchmark program under bench/
 * (bench_cpu, bench_cuda and its suites, bench_opencl, bench_exec for command lines).
 *
 * It separates HOW to time from WHAT is timed (as zstd's benchfn does): a program describes the
 * work as contenders (a timed call plus an optional untimed preparation) and gets back the
 * median, minimum and maximum of N timed calls per contender. Then it prints one row per
 * measurement through the row writer, in CSV or JSON, with a column set fixed per program.
 *
 *   bench_plan p = {clock, warmup, runs, first_run, trace};     (bench_plan_default() fills it)
 *   bench_time(&p, contenders, count, stats)   time count contenders in alternation
 *   bench_row_make(&row, columns, ncolumns, value, value, ...)  one row, one value per column
 *   bench_csv_header / bench_csv_row            CSV lines
 *   bench_json_begin / bench_json_row / bench_json_end   {"meta...", "rows": [{...}, ...]}
 *
 * Method (bench_time):
 *   - `warmup` untimed rounds, then `runs` timed rounds; a round calls every contender once, in
 *     order (contender 0, 1, ...; round r of every contender before round r + 1 of any). Timing
 *     contenders in alternation rather than one after the other means whatever drifts while a
 *     row is measured (machine load, GPU clocks, the memory state left by the data generator)
 *     weighs on every contender alike (bench/results/cuda-2026-11-24.md: the first runs after a
 *     row's buffers replaced the previous row's ran 12-14% slow, whoever ran then);
 *   - before each call, prepare(prepare_arg, run) runs untimed (e.g. copy the input of an
 *     in-place sort); the clock brackets run(arg, run) alone;
 *   - the run index tells the call which of its rotating inputs to use: timed round r gets
 *     first_run + r, every warm-up call gets first_run - 1;
 *   - the median is the middle sample, sorted[runs / 2] (the upper middle one for even runs);
 *   - a clock's stop() returns when the timed work has finished: the wall clock reads the host
 *     clock when run() returns (run() must wait for its work), the CUDA-event clock
 *     (timing_cuda.cu) records events on a stream around the call and waits for the second one.
 * GPUSORT_BENCH_TRACE=1 in the environment prints every sample of a plan that has a trace label.
 *
 * Plain C11 (bench_opencl and bench_exec are C); C++ callers get bench_call() below, which turns
 * a lambda into a contender. The CUDA clock is declared here with the stream as void *, so that
 * this header needs no CUDA header; only programs that link timing_cuda.cu may call it.
 */
#ifndef GPUSORT_BENCH_TIMING_H
#define GPUSORT_BENCH_TIMING_H

#include <stddef.h>
#include <stdio.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Timed rounds per measurement unless a program's --runs says otherwise: an odd count, so the
 * median is one sample, and enough that one disturbed run does not move it. */
#define BENCH_RUNS_DEFAULT 7

/* ---- clocks ---- */

typedef struct bench_clock {
    const char *name;              /* "wall" or "cuda events": for the programs' headers */
    void (*start)(void *state);
    double (*stop)(void *state);   /* milliseconds since start(), once the timed work is done */
    void *state;
} bench_clock;

/* The host's monotonic clock (CLOCK_MONOTONIC). */
const bench_clock *bench_clock_wall(void);

/* timing_cuda.cu: CUDA events recorded on `stream` (a cudaStream_t; NULL: the default stream).
 * stop() waits for the stop event and checks cudaGetLastError(); a CUDA error prints and exits
 * with status 2, as the CUDA programs do on any failed call. */
void bench_clock_cuda_init(bench_clock *clock, void *stream);
void bench_clock_cuda_free(bench_clock *clock);

/* ---- timing ---- */

typedef struct bench_contender {
    int (*run)(void *arg, int run);                 /* the timed call; nonzero: it failed */
    void *arg;
    void (*prepare)(void *prepare_arg, int run);    /* untimed, before each call; NULL: none */
    void *prepare_arg;
} bench_contender;

typedef struct bench_plan {
    const bench_clock *clock;   /* NULL: bench_clock_wall() */
    int warmup;                 /* untimed rounds first (>= 0) */
    int runs;                   /* timed rounds (>= 1) */
    int first_run;              /* run index of timed round 0; warm-ups get first_run - 1 */
    const char *trace;          /* label of the GPUSORT_BENCH_TRACE=1 lines; NULL: none */
} bench_plan;

typedef struct bench_stats {
    double median_ms, min_ms, max_ms;   /* -1 when a call failed */
    int runs;                           /* samples taken */
} bench_stats;

/* {wall clock, 1 warm-up, `runs` timed rounds, first_run 0, no trace}. */
bench_plan bench_plan_default(int runs);

/* Time `count` contenders by `plan` (see Method above); stats[c] gets contender c's figures.
 * Returns 0, or the nonzero value of the first failed call (then every stats[] is -1). */
int bench_time(const bench_plan *plan, const bench_contender *contenders, int count,
               bench_stats *stats);

/* One contender: the median in ms (-1 if a call failed). */
double bench_time_one(const bench_plan *plan, const bench_contender *contender);

/* The median (sorted[n / 2]) of n samples, sorted in place; 0 for n = 0. */
double bench_median(double *samples, int n);

/* ---- rows: CSV and JSON ---- */

/* A column: its CSV header / JSON key and one printf conversion for its value. The conversion
 * says the type of the value passed to bench_row_make: "%s" const char *, "%d" int,
 * "%zu" size_t, "%lld" long long, anything ending in f, e or g a double. Values of "%s"
 * columns are JSON strings, the others JSON numbers. */
typedef struct bench_column {
    const char *name;
    const char *format;
} bench_column;

#define BENCH_MAX_COLUMNS 24   /* bench_cuda has 17 */
#define BENCH_CELL_BYTES 96    /* the longest cell: a case name such as "mixed 1..2^17 (N segs)" */

typedef struct bench_row {
    const bench_column *columns;
    int ncolumns;
    char cell[BENCH_MAX_COLUMNS][BENCH_CELL_BYTES];
} bench_row;

/* Format one value per column (types as the columns' conversions say). */
void bench_row_make(bench_row *row, const bench_column *columns, int ncolumns, ...);

/* CSV: the header line / one row, each line after `prefix` (NULL: none). Cells are written as
 * formatted, unquoted (no cell holds a comma). f == NULL: nothing is written. */
void bench_csv_header(FILE *f, const char *prefix, const bench_column *columns, int ncolumns);
void bench_csv_row(FILE *f, const char *prefix, const bench_row *row);

/* JSON: {<meta>, "rows": [ {"column": value, ...}, ... ]}. meta is JSON members written as
 * given ("\"device\": \"H100\", \"runs\": 7"; NULL: none). f == NULL: nothing is written. */
typedef struct bench_json {
    FILE *f;
    long rows;
} bench_json;
void bench_json_begin(bench_json *j, FILE *f, const char *meta);
void bench_json_row(bench_json *j, const bench_row *row);
void bench_json_end(bench_json *j);   /* closes the object; does not close the file */

#ifdef __cplusplus
}

/* C++: a contender from a callable run(int run) and an optional callable prepare(int run).
 * run's return value is ignored (C++ callers stop the program on a failed call). The callables
 * must outlive the bench_time() call. */
template <class F> static int bench__run(void *f, int run)
{
    (*(F *)f)(run);
    return 0;
}
template <class P> static void bench__prepare(void *p, int run) { (*(P *)p)(run); }
template <class F> static inline bench_contender bench_call(F &run)
{
    bench_contender c = {bench__run<F>, &run, NULL, NULL};
    return c;
}
template <class F, class P> static inline bench_contender bench_call(F &run, P &prepare)
{
    bench_contender c = {bench__run<F>, &run, bench__prepare<P>, &prepare};
    return c;
}
#endif

#endif /* GPUSORT_BENCH_TIMING_H */
