/*
 * util.h -- INTERNAL to the gpusort program: helpers every CLI mode shares (util.c).
 *
 * Errors: one clear line on stderr, "gpusort: <message>", then exit code 2 (cli_fail).
 * Output files are written atomically: cli_out_open() creates a temporary file in the same folder
 * as the destination; cli_out_commit() flushes, fsyncs and renames it into place; cli_out_abort()
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
/* Same, without exiting: prints and returns 2. */
int cli_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* malloc that never returns NULL: cli_fail("out of memory (N bytes)") instead; n = 0 is 1 byte. */
void *cli_alloc(size_t n);
/* Seconds on the monotonic clock (for --stats and timings). */
double cli_now_s(void);

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
typedef struct cli_out {
    FILE *f;
    char *path;     /* destination */
    char *tmp;      /* temporary file in the same folder; NULL for stdout */
} cli_out;
void cli_out_open(cli_out *o, const char *path);
/* Write n bytes; cli_fail (after removing the temp file) on a short write (e.g. full disk). */
void cli_out_write(cli_out *o, const void *data, size_t n);
/* Flush, fsync, close and rename into place; cli_fail on any error. */
void cli_out_commit(cli_out *o);
/* Flush, fsync and close without renaming yet (commit then only renames). Lets a caller finish
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
