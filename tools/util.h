/*
 * util.h -- INTERNAL to the gpusort program: helpers every CLI mode shares (util.c).
 *
 * Errors: one clear line on stderr, "gpusort: <message>", then exit code 2 (cli_fail).
 * Output files are written atomically: cli_out_open() creates a temporary file in the same folder
 * as the destination; cli_out_commit() flushes (fsyncs the file and then its folder when
 * cli_sync is set) and renames it into place; cli_out_abort()
 * (also run by the SIGINT/SIGTERM handler and by cli_fail) removes it. So a failure never leaves a
 * partial or empty output, and `-o` may name an input file.
 */
#ifndef GPUSORT_CLI_UTIL_H
#define GPUSORT_CLI_UTIL_H

#include "internal.h"   /* gpusort__malloc & co. (src/alloc.c): every allocation of tools/ */

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* Print "gpusort: <fmt>" and a newline on stderr, remove pending temporary outputs, exit(2). */
void cli_fail(const char *fmt, ...) __attribute__((format(printf, 1, 2), noreturn));
/* When set, cli_fail calls it instead of exit(2) after its cleanup. Only the fuzz targets
 * (tests/fuzz/) set it, to a function that longjmps back into their harness, so that a refused
 * input ends one run of the target instead of the fuzzer. NULL in the program. */
extern void (*cli_exit_hook)(int code);
/* When set, cli_fail calls it first (once, from the failing thread): the sort command joins
 * the thread that creates its library context there, so that the process never exits while a
 * driver initialises on another thread (CUDA's exit handlers then crash). */
extern void (*cli_fail_prepare)(void);
/* Same, without exiting: prints and returns 2. */
int cli_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* malloc that never returns NULL: cli_fail("out of memory (N bytes)") instead; n = 0 is 1 byte. */
void *cli_alloc(size_t n);
/* 1 when a job of `bytes` of input should go to the CPU: --backend auto (backend AUTO), no
 * --device (device < 0), and at most 16 MiB per CPU thread (threads 0: all cores), 256 MiB in
 * all. The CPU is then done before a GPU has started (bench/results/pipeline-2026-11-28c.md). */
int cli_auto_cpu(gpusort_backend backend, int device, uint64_t bytes, int threads);
/* The GPU's fixed cost in a job of this program: the CUDA context's start-up and its teardown
 * at exit, with the program's one work queue (main.c; bench/results/pipeline-2026-11-28d.md). */
#define CLI_GPU_STARTUP_S 0.25
/* 1 when --backend auto (no --device) should run a job of n items on the CPU because its cost
 * there, n x max(cpu_s / threads, cpu_floor_s), is at most a GPU's, CLI_GPU_STARTUP_S +
 * n x gpu_s: cpu_s is one thread's time per item, cpu_floor_s the time per item where memory
 * bounds the CPU, gpu_s the GPU's per item with its copies (threads 0: all cores). */
int cli_auto_cpu_cost(gpusort_backend backend, int device, int threads, double n, double cpu_s,
                      double cpu_floor_s, double gpu_s);
/* Seconds on the monotonic clock (for --stats and timings). */
double cli_now_s(void);

/* Set by --sync (or GPUSORT_SYNC=1, main.c): outputs are fsynced before they are renamed into
 * place, and their folder after. Off by default, as in GNU sort and cp: a crash of the system
 * (not of gpusort) soon after a run may then lose the new output's contents. */
extern int cli_sync;
/* cli_now_s() when the program started (cli_signals_install), for --stats totals. */
extern double cli_start_s;

/* --stats: one line "gpusort: <what> phases (s): read 0.101 sort 0.010 ... | total 1.020" on
 * stderr; a phase with seconds < 0 is left out; note (may be NULL) follows its number. The
 * binary sort (--stats) and the records mode (GPUSORT_TIMING=1) print their phases here. */
typedef struct cli_phase {
    const char *name;
    double seconds;
    const char *note;
} cli_phase;
void cli_stats_phases(const char *what, const cli_phase *phases, int n, double total);

/* Set by --quiet; progress is shown only when stderr is a terminal and !quiet. */
extern int cli_quiet;
/* Progress: cli_progress_start("sorting", total_units) ... cli_progress_update(done) ...
 * cli_progress_end(). Prints "\rsorting: 45%" at most 4 times a second, and only after the work
 * has run for more than one second. */
void cli_progress_start(const char *what, uint64_t total);
void cli_progress_update(uint64_t done);
void cli_progress_end(void);

/* Read a whole file ("-" = stdin) into a malloc'd buffer; cli_fail on any error. */
void *cli_read_file(const char *path, size_t *size);

/* Atomic output. path "-" or NULL writes to stdout directly (no temp file). */
typedef struct cli_out cli_out;
/* A filter of the lines written (the text mode's --debug): called once per line, without its
 * delimiter, in order; it writes what it wants with cli_out_write_raw. */
typedef void (*cli_line_hook)(void *arg, cli_out *o, const uint8_t *line, size_t n);
struct cli_out {
    FILE *f;
    char *path;     /* destination */
    char *tmp;      /* temporary file in the same folder; NULL for stdout */
    uint64_t base;  /* cli_out_pwrite: the file offset of byte 0 */
    cli_line_hook hook;         /* see cli_out_set_line_hook */
    void *hook_arg;
    int hook_delim;
    uint8_t *pend;              /* the start of a line not yet ended */
    size_t pend_len, pend_cap;
};
void cli_out_open(cli_out *o, const char *path);
/* Write n bytes; cli_fail (after removing the temp file) on a short write (e.g. full disk). */
void cli_out_write(cli_out *o, const void *data, size_t n);
/* From now on, cut what is written into lines ended by `delim` and pass each to hook (a last
 * line without its delimiter goes at the commit). Not with cli_out_pwrite. */
void cli_out_set_line_hook(cli_out *o, int delim, cli_line_hook hook, void *arg);
/* Write n bytes past the hook. */
void cli_out_write_raw(cli_out *o, const void *data, size_t n);
/* Writes at offsets from several threads at once (the streaming sort): cli_out_pwrite_ready
 * flushes what was written so far and returns 1 if the output takes pwrite (a regular file or
 * a device such as /dev/null; not a pipe, a terminal or an O_APPEND file), else 0. Then
 * cli_out_pwrite(o, data, off, n) stores n bytes at offset off (from the current position):
 * 0, or -1 with errno set (it never exits: it runs on library threads). cli_out_pwrite_end
 * leaves the file position after `bytes` bytes. */
int cli_out_pwrite_ready(cli_out *o);
int cli_out_pwrite(cli_out *o, const void *data, uint64_t offset, size_t n);
void cli_out_pwrite_end(cli_out *o, uint64_t bytes);
/* Reserve the blocks of `bytes` of output at the write offset (fallocate) of a temporary output
 * file whose size is known before its data: a disk too small fails at once (cli_fail), and the
 * writes that follow skip the filesystem's block reservation page by page. Does nothing where
 * the filesystem cannot (nothing to gain there) or the output is not a temporary file. */
int cli_out_reserve(cli_out *o, uint64_t bytes);     /* 1 if the blocks are reserved */
/* Pre-writing reserved outputs while the job waits for something else (a GPU's start-up).
 * A write into a page the file already holds is a copy; a write into a new page also makes
 * the page and maps it to its block (bench/results/pipeline-2026-11-28e.md has what the whole
 * job gains). cli_prefill_start starts `threads` threads that write zeros into
 * the n outputs' reserved bytes (outputs that cli_out_reserve reserved), 2 MiB at a time from
 * the start, until cli_prefill_stop; the real data then overwrites those pages. Call
 * cli_prefill_end, which stops and joins the threads, before anything else writes to the
 * outputs: it returns the bytes pre-written. The threads never fail the job: a write that
 * fails ends their work (the real write will report the error). NULL when there is nothing to
 * do (no threads, nothing reserved). */
typedef struct cli_prefill cli_prefill;
cli_prefill *cli_prefill_start(cli_out *const *outs, const uint64_t *bytes, int n, int threads);
void cli_prefill_stop(cli_prefill *p);
uint64_t cli_prefill_end(cli_prefill *p);
/* Test-only: GPUSORT_TEST_FAIL_WRITE=k[:eio|enospc|short] (main.c passes the value to
 * cli_write_fault_set, -1 if malformed). Every write or fsync of an output or temporary file
 * calls cli_write_fault first: 0 to go on (*n may be halved: a short write), or -1 with errno
 * set (EIO or ENOSPC) for the k-th call, and ENOSPC for every call after a short one. n may be
 * NULL (an fsync). */
int cli_write_fault_set(const char *spec);
int cli_write_fault(size_t *n);
/* Flush, fsync (with cli_sync), close and rename into place; cli_fail on any error. */
void cli_out_commit(cli_out *o);
/* Flush, fsync (with cli_sync) and close without renaming yet (commit then only renames). Lets a caller finish
 * several outputs before it publishes any of them. */
void cli_out_sync(cli_out *o);
/* Close and remove the temporary file (safe to call twice). */
void cli_out_abort(cli_out *o);

/* Register a temporary path to unlink on cli_fail or SIGINT/SIGTERM/SIGHUP; unregister with
 * cli_temp_forget. Used by cli_out and by the external sort's run files. */
void cli_temp_register(const char *path);
void cli_temp_forget(const char *path);
/* Create a temporary file from a mkstemp template (…XXXXXX, O_CLOEXEC) and register it, as one
 * step that no signal can split. Returns the fd, or -1 with errno set. */
int cli_temp_mkstemp(char *template_path);
/* Install the signal handling (call once at start, before any thread is created). */
void cli_signals_install(void);

/* Parse sizes like "100", "10K", "64M", "2G", "50%" (of physical RAM); returns 0 on success. */
int cli_parse_size(const char *s, uint64_t *bytes);
/* Parse an element count: "1000", "1e6" (exact powers of ten), "2^26", or binary suffixes
 * "64K", "16M", "1G" (K = 1024). Returns 0 on success, -1 on a malformed or overflowing value. */
int cli_parse_count(const char *s, uint64_t *count);

#endif
