/*
 * cmd_check.c -- `gpusort check FILE --type T [--desc] [--quiet]`: exit 0 if a file of
 * little-endian numbers is sorted, 1 (with the first disorder, as sort -c reports it) if not.
 *
 * The file is streamed in BIN_IO_CHUNK pieces, comparing neighbours by their radix keys
 * (binfile.h: the library's total order, NaN last ascending), so it needs little memory at any
 * size and does not depend on how the file was sorted. The last element of a piece is kept in
 * front of the next one, so a disorder across pieces is found too.
 * Text lines (`gpusort check FILE` without --type) and records (--record-size) are checked by
 * the text mode and records.c; main.c routes them there.
 */
#include "binfile.h"
#include "cmd.h"
#include "util.h"

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* Format one element for messages: integers exactly, floats with %.9g (f32) / %.17g (f64),
 * which print the exact value back; NaN as "nan" (with its bits, which tell NaNs apart). */
static const char *format_value(gpusort_type t, const void *p, char *buf, size_t size)
{
    uint32_t u32;
    uint64_t u64;
    switch (t) {
    case GPUSORT_TYPE_U32: memcpy(&u32, p, 4); snprintf(buf, size, "%" PRIu32, u32); break;
    case GPUSORT_TYPE_I32: memcpy(&u32, p, 4); snprintf(buf, size, "%" PRId32, (int32_t)u32); break;
    case GPUSORT_TYPE_U64: memcpy(&u64, p, 8); snprintf(buf, size, "%" PRIu64, u64); break;
    case GPUSORT_TYPE_I64: memcpy(&u64, p, 8); snprintf(buf, size, "%" PRId64, (int64_t)u64); break;
    case GPUSORT_TYPE_F32: {
        float f;
        memcpy(&f, p, 4);
        memcpy(&u32, p, 4);
        if (isnan(f)) snprintf(buf, size, "nan (0x%08" PRIx32 ")", u32);
        else snprintf(buf, size, "%.9g", (double)f);
        break;
    }
    case GPUSORT_TYPE_F64: {
        double d;
        memcpy(&d, p, 8);
        memcpy(&u64, p, 8);
        if (isnan(d)) snprintf(buf, size, "nan (0x%016" PRIx64 ")", u64);
        else snprintf(buf, size, "%.17g", d);
        break;
    }
    default: snprintf(buf, size, "?"); break;
    }
    return buf;
}

static const char help_check[] =
    "Usage: gpusort check [FILE] --type T [--desc] [--quiet]\n"
    "Exit 0 if FILE (little-endian numbers of type T; none or - reads standard input) is\n"
    "sorted, 1 if not, with \"gpusort: FILE: disorder at index I: A then B\" (I counts from 0:\n"
    "element I is out of order after element I-1), as sort -c does; 2 on errors.\n"
    "--quiet: no message (as sort -C).\n"
    "The order is gpusort's: NaN last ascending, first with --desc; -0.0 == +0.0.\n"
    "Reads FILE in 64 MiB pieces: any size works in little memory.\n"
    "Without --type, `gpusort check FILE` checks text lines (as gpusort -c FILE);\n"
    "with --record-size, fixed-size records.\n";

int gpusort_cli_check(int argc, char **argv)
{
    const char *cmd = "check";
    cmd_opts o;
    cmd_parse(argc, argv, "type desc quiet", 1, &o);
    if (o.help) { fputs(help_check, stdout); return 0; }
    if (!o.type_set) cli_fail("check: --type is required for binary files");
    const char *path = o.npos ? o.pos[0] : "-";
    const char *name = bin_is_stdio(path) ? "standard input" : path;
    size_t size = gpusort_type_size(o.type);
    bin_check_file_size(cmd, path, size, gpusort_type_name(o.type));
    FILE *f = bin_is_stdio(path) ? stdin : fopen(path, "rb");
    if (!f) cli_fail("check: cannot open %s: %s", path, strerror(errno));
    struct stat st;
    uint64_t total = (fstat(fileno(f), &st) == 0 && S_ISREG(st.st_mode)) ? (uint64_t)st.st_size : 0;

    unsigned char *buf = (unsigned char *)gpusort__malloc(BIN_IO_CHUNK + 8);
    if (!buf) cli_fail("check: out of memory");
    /* buf[0..8) holds the previous element (once there is one); a piece is read after it. */
    unsigned char *data = buf + 8;
    int have_prev = 0;
    uint64_t index = 0, bytes = 0;
    int unsorted = 0;
    cli_progress_start("checking", total);
    size_t carry = 0;   /* bytes of a partial element at the start of data */
    for (;;) {
        size_t got = fread(data + carry, 1, BIN_IO_CHUNK - carry, f);
        if (got == 0) {
            if (ferror(f)) cli_fail("check: read error on %s: %s", name, strerror(errno));
            break;
        }
        bytes += got;
        size_t avail = carry + got, m = avail / size;
        bin_to_from_le(data, m, size);
        for (size_t i = 0; i < m; i++) {
            const unsigned char *cur = data + i * size;
            const unsigned char *prev = i ? cur - size : buf + 8 - size;
            if (i || have_prev) {
                if (bin_radix_key(o.type, size, prev, o.desc) >
                    bin_radix_key(o.type, size, cur, o.desc)) {
                    if (!o.quiet) {
                        char sa[64], sb[64];
                        cli_progress_end();
                        fprintf(stderr, "gpusort: %s: disorder at index %" PRIu64 ": %s then %s\n",
                                name, index + i, format_value(o.type, prev, sa, sizeof sa),
                                format_value(o.type, cur, sb, sizeof sb));
                    }
                    unsorted = 1;
                    break;
                }
            }
        }
        if (unsorted) break;
        index += m;
        if (m) {
            memcpy(buf + 8 - size, data + (m - 1) * size, size);
            have_prev = 1;
        }
        carry = avail - m * size;
        memmove(data, data + m * size, carry);
        cli_progress_update(bytes);
    }
    cli_progress_end();
    if (!unsorted && carry)
        cli_fail("check: %s: size %" PRIu64 " bytes is not a multiple of %zu (the size of %s)",
                 name, bytes, size, gpusort_type_name(o.type));
    if (f != stdin) fclose(f);
    free(buf);
    return unsorted ? 1 : 0;
}
