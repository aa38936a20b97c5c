/*
 * text.h -- INTERNAL to the gpusort program: what text.c (GNU sort mode) shares with records.c.
 *
 * text.c parses the GNU sort command line into a text_opts; with --record-size it hands the
 * options to text_records_main() (records.c), which sorts, merges or checks fixed-size binary
 * records with the same -o/-S/-T/-m/-c/-u/-r and external-sort machinery (extsort.h).
 */
#ifndef GPUSORT_CLI_TEXT_H
#define GPUSORT_CLI_TEXT_H

#include "gpusort.h"

#include <stddef.h>
#include <stdint.h>

typedef struct text_opts {
    char **files;              /* inputs ("-" = stdin); at least one */
    int nfiles;
    const char *outfile;       /* -o, or NULL for stdout */
    int reverse, unique, stable, merge;
    int check;                 /* 0, 'c' (report) or 'C' (quiet) */
    uint64_t budget;           /* -S in bytes (default: DEFAULT_BUDGET_PERCENT of RAM) */
    const char **tmpdirs;      /* -T folders, default $TMPDIR or /tmp */
    int ntmpdirs;
    int fanin;                 /* --batch-size */
    int threads;               /* --parallel (0 = all cores) */
    gpusort_backend backend;   /* --backend */
    int device;                /* --device */
    size_t record_size, key_size, key_offset;   /* --record-size etc. (record_size 0: text) */
} text_opts;

/* Default memory budget: this share of physical RAM (GNU sort takes a similar share). */
#define TEXT_DEFAULT_BUDGET_PERCENT 50

/* Create the library context of --backend/--device/--parallel; cli_fail on error. */
gpusort_ctx *text_context(const text_opts *o);

/* Records mode (records.c). Returns the exit code. */
int text_records_main(const text_opts *o);

#endif
