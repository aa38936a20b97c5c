/*
 * extsort.h -- INTERNAL to the gpusort program: sorting inputs larger than memory (extsort.c).
 *
 * The external sort is generic over "items": text lines ended by a delimiter ('\n' or '\0';
 * the delimiter is not part of the item) or fixed-size binary records (lines of the text mode,
 * records of --record-size, and numbers of the binary mode alike: a u32 file is records of 4
 * bytes with a comparison on the decoded value). The caller owns the in-memory sort; this
 * module owns the temporary run files and the k-way merge.
 *
 * Order of calls:
 *   extsort_init(&x, &items, tmpdirs, ntmpdirs, budget, fanin)
 *   for each part of the input that fits the memory budget:
 *       sort it in memory, then
 *       extsort_run_open(&x, &sink); ext_sink_write(&sink, ...) ...; extsort_run_close(&x, &sink)
 *   extsort_finish(&x, &out)         merge every run into the output, remove the run files
 *   extsort_free(&x)
 * `sort -m` (merge already sorted inputs) is extsort_merge_paths() on the input files.
 *
 * Run files are "<tmpdir>/gpusort-XXXXXX", created with mkstemp and registered with util.h's
 * temp registry before anything is written to them, so they are removed on success, on any
 * cli_fail (full disk, unreadable input, ...) and on SIGINT/SIGTERM/SIGHUP. Several -T folders
 * are used in turn. A write error (ENOSPC, EIO) is one line and exit 2; the output is written
 * through cli_out (util.h), so it is never left half-written.
 *
 * Merging: the one k-way merge of the program (text lines, records and binary numbers alike):
 * a loser tree of the runs' current items, ties to the lower run index, so merging runs cut
 * from the input in order is a stable sort of the whole input (and `-m` takes equal lines from
 * the earlier file first, as GNU sort does). Items are ordered by `cmp` or, when the caller
 * gives `key`, by a 64-bit image of each item computed once as it is read (for numbers, the
 * radix key of src/keys.h: one integer compare per match instead of a call). At most `fanin`
 * runs are merged at once (each needs a file descriptor and a read buffer); with more, groups
 * of consecutive runs are merged into bigger runs first, which keeps the stable order. Memory
 * during a merge: fanin * max(64 KiB, budget / (2 * fanin)) bytes of read buffers (at most
 * 4 MiB each), plus the longest item.
 */
#ifndef GPUSORT_CLI_EXTSORT_H
#define GPUSORT_CLI_EXTSORT_H

#include "util.h"

#include <stddef.h>
#include <stdint.h>

/* Compare two items: < 0, 0, > 0. */
typedef int (*extsort_cmp_fn)(void *arg, const uint8_t *a, size_t alen, const uint8_t *b,
                              size_t blen);

/* An order-preserving image of an item: key(a) < key(b) exactly when a goes before b. */
typedef uint64_t (*extsort_key_fn)(void *arg, const uint8_t *item, size_t len);

typedef struct extsort_items {
    size_t record_size;    /* > 0: fixed-size items; 0: items ended by `delim` */
    int delim;             /* '\n' or '\0' when record_size == 0 */
    extsort_cmp_fn cmp;    /* the order (may be NULL when key is given and unique is 0) */
    void *arg;             /* passed to cmp and key */
    int unique;            /* keep only the first item of each run of equal (cmp == 0) items */
    extsort_key_fn key;    /* optional: merge by these images instead of calling cmp */
} extsort_items;

/* A buffered writer to the final output (cli_out) or to a run file (fd). */
typedef struct ext_sink {
    cli_out *out;          /* final output, or NULL */
    int fd;                /* run file when out == NULL */
    char *path;            /* run file path (for messages and the run list) */
    uint8_t *buf;
    size_t len, cap;
    uint64_t written;      /* bytes passed to the output or run file (the progress line) */
} ext_sink;

void ext_sink_to_out(ext_sink *s, cli_out *out);
void ext_sink_write(ext_sink *s, const void *p, size_t n);
void ext_sink_flush(ext_sink *s);
/* Write one item and, for delimited items, its delimiter. */
void ext_sink_item(ext_sink *s, const extsort_items *it, const uint8_t *p, size_t n);
/* Flush and free the buffer (does not commit a cli_out). */
void ext_sink_close(ext_sink *s);

/* Ordered parallel output: write items [0, n) to the sink in order when formatting them is
 * the work (a sorted permutation gathered from memory at random). Each round cuts up to
 * per * parts items into `parts` slices, one thread formats each slice into its own buffer,
 * and the buffers are written in order. fmt(arg, a, b, out) formats items [a, b): it appends
 * to out->p (out->len starts at 0), growing it with ext_out_reserve. */
typedef struct ext_out_buf {
    uint8_t *p;
    size_t len, cap;
} ext_out_buf;
typedef void (*ext_format_fn)(void *arg, size_t a, size_t b, ext_out_buf *out);
void ext_sink_gather(ext_sink *s, size_t n, size_t per, int parts, ext_format_fn fmt, void *arg);
/* Room for at least `more` bytes past out->len (the capacity at least doubles). */
void ext_out_reserve(ext_out_buf *out, size_t more);

/* A buffered reader of items from a file ("-" = standard input). */
typedef struct ext_reader {
    int fd;
    char *name;            /* for messages */
    uint8_t *buf;
    size_t cap, beg, end, scan;   /* data is buf[beg, end); no delimiter in buf[beg, scan) */
    int eof;
    size_t record_size;
    int delim;
} ext_reader;

/* Open (cli_fail on error). bufsize: initial buffer (grows for long lines). */
void ext_reader_open(ext_reader *r, const char *path, size_t bufsize, size_t record_size,
                     int delim);
/* Next item: 1 with *p, *len set (valid until the next call on this reader), 0 at the end.
 * A last line without a delimiter is an item; a truncated record is an error (cli_fail). */
int ext_reader_next(ext_reader *r, const uint8_t **p, size_t *len);
void ext_reader_close(ext_reader *r);

/* A copy of one item that outlives its reader's buffer (the previous line of a check, the
 * last item written by -u). Starts as {NULL, 0, 0} (p NULL: no item yet); free(p) at the end. */
typedef struct ext_item_copy {
    uint8_t *p;
    size_t len, cap;
} ext_item_copy;
void ext_item_copy_set(ext_item_copy *c, const uint8_t *p, size_t len);

/* malloc for large arrays read at random (line data, permutations, records): 2 MiB aligned and
 * marked for transparent huge pages (fewer TLB misses and page faults); free() releases it.
 * cli_fail when out of memory. */
void *ext_big_alloc(size_t n);

/* Read size bytes of a regular file from offset 0 (ext_pread_parallel: from `offset`) into dst
 * with `threads` parallel pread(2) calls; returns the bytes read (less where the file ends or
 * shrank); cli_fail on a read error. */
size_t ext_read_parallel(int fd, uint8_t *dst, size_t size, int threads, const char *name);
size_t ext_pread_parallel(int fd, uint8_t *dst, size_t size, uint64_t offset, int threads,
                          const char *name);

typedef struct extsort {
    extsort_items items;
    const char *const *tmpdirs;
    int ntmpdirs, next_tmpdir;
    uint64_t budget;
    int fanin;
    char **runs;
    size_t nruns, cap;
} extsort;

/* tmpdirs: the -T folders (ntmpdirs >= 1). budget: bytes of memory the caller may use.
 * fanin: most runs merged at once (>= 2). */
void extsort_init(extsort *x, const extsort_items *items, const char *const *tmpdirs,
                  int ntmpdirs, uint64_t budget, int fanin);
/* A new run file; write its items (sorted, each with its delimiter) to *sink. */
void extsort_run_open(extsort *x, ext_sink *sink);
void extsort_run_close(extsort *x, ext_sink *sink);
/* Merge every run into out and remove the run files. */
void extsort_finish(extsort *x, cli_out *out);
/* Merge the files `paths` (inputs, not removed; "-" = stdin) into out. */
void extsort_merge_paths(extsort *x, char *const *paths, size_t n, cli_out *out);
/* Remove any run files left and free memory. */
void extsort_free(extsort *x);

#endif
