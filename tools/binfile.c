/*
 * binfile.c -- reading and writing files of little-endian numbers for the subcommands
 * (binfile.h: the format, and what each function checks).
 *
 * Every failure is one line naming the command and the file, then exit 2 (cli_fail). Sizes are
 * checked before anything is read, so a file that is not a whole number of elements fails
 * before a long read or sort.
 */
#include "binfile.h"
#include "extsort.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

int bin_is_stdio(const char *path) { return !path || strcmp(path, "-") == 0; }

void bin_check_file_size(const char *cmd, const char *path, size_t elem, const char *tname)
{
    if (bin_is_stdio(path)) return;
    struct stat st;
    if (stat(path, &st) != 0) cli_fail("%s: cannot open %s: %s", cmd, path, strerror(errno));
    if (S_ISDIR(st.st_mode)) cli_fail("%s: %s: is a directory", cmd, path);
    if (S_ISREG(st.st_mode) && (uint64_t)st.st_size % elem)
        cli_fail("%s: %s: size %" PRIu64 " bytes is not a multiple of %zu (the size of %s)", cmd,
                 path, (uint64_t)st.st_size, elem, tname);
    if (access(path, R_OK) != 0) cli_fail("%s: cannot open %s: %s", cmd, path, strerror(errno));
}

void *bin_read_elements(const char *cmd, const char *path, size_t elem, const char *tname,
                        size_t *n)
{
    size_t bytes;
    void *buf = cli_read_file(path, &bytes);
    if (bytes % elem)
        cli_fail("%s: %s: size %zu bytes is not a multiple of %zu (the size of %s)", cmd,
                 bin_is_stdio(path) ? "standard input" : path, bytes, elem, tname);
    *n = bytes / elem;
    bin_to_from_le(buf, *n, elem);
    return buf;
}

const char *bin_output_or_stdout(const char *cmd, const char *out)
{
    if (out) return out;
    if (isatty(STDOUT_FILENO))
        cli_fail("%s: refusing to write binary data to a terminal: give -o FILE "
                 "(or redirect standard output)", cmd);
    return "-";
}

void bin_write_elements(cli_out *out, void *buf, size_t n, size_t elem)
{
    bin_to_from_le(buf, n, elem);
    size_t total = n * elem;
    cli_progress_start("writing", total);
    for (size_t done = 0; done < total;) {
        size_t k = total - done < BIN_IO_CHUNK ? total - done : BIN_IO_CHUNK;
        cli_out_write(out, (const char *)buf + done, k);
        done += k;
        cli_progress_update(done);
    }
    cli_progress_end();
    bin_to_from_le(buf, n, elem);
}

size_t bin_read_full(const char *cmd, int fd, void *buf, size_t want, const char *name,
                     uint64_t *done)
{
    size_t got = 0;
    while (got < want) {
        size_t k = want - got < BIN_IO_CHUNK ? want - got : BIN_IO_CHUNK;
        ssize_t r = read(fd, (char *)buf + got, k);
        if (r < 0) {
            if (errno == EINTR) continue;
            cli_fail("%s: read error on %s: %s", cmd, name, strerror(errno));
        }
        if (r == 0) break;
        got += (size_t)r;
        *done += (uint64_t)r;
        cli_progress_update(*done);
    }
    return got;
}

size_t bin_read_piece(const char *cmd, int fd, int regular, void *buf, size_t want,
                      const char *name, uint64_t *done, int threads)
{
    if (!regular || threads <= 1 || want < ((size_t)1 << 20))
        return bin_read_full(cmd, fd, buf, want, name, done);
    size_t got = ext_pread_parallel(fd, (uint8_t *)buf, want, *done, threads, name);
    *done += got;
    cli_progress_update(*done);
    return got;
}
