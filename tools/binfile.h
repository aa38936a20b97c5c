/*
 * binfile.h -- INTERNAL to the gpusort program: files of little-endian numbers, as the
 * subcommands sort, gen, check and reduce read and write them (binfile.c).
 *
 * File format: a file is n elements of one type (u32, i32, f32, u64, i64, f64), little-endian,
 * no header; its size must be a multiple of the element size. "-" (or no name) is standard
 * input or output. In memory, elements are in host byte order: bin_to_from_le converts after a
 * read and before a write (nothing to do on a little-endian host).
 *
 * Order: bin_radix_key gives an element's radix key (src/keys.h through internal.h): one
 * unsigned compare of two keys is the gpusort order (NaN last ascending, -0.0 == +0.0), the
 * same as the library's, so checks do not depend on how a file was sorted.
 */
#ifndef GPUSORT_CLI_BINFILE_H
#define GPUSORT_CLI_BINFILE_H

#include "util.h"

#include "gpusort.h"
#include "internal.h"

#include <endian.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

/* Files are read and written in pieces of this size: large enough to run at disk speed, small
 * enough for progress to move and to bound check's memory. */
#define BIN_IO_CHUNK ((size_t)64 << 20)

/* Files are little-endian; on a big-endian host, swap each element in place. */
static inline void bin_to_from_le(void *buf, size_t n, size_t size)
{
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
    unsigned char *p = (unsigned char *)buf;
    for (size_t i = 0; i < n; i++, p += size)
        for (size_t a = 0, b = size - 1; a < b; a++, b--) {
            unsigned char t = p[a];
            p[a] = p[b];
            p[b] = t;
        }
#else
    (void)buf; (void)n; (void)size;
#endif
}

/* The element at p (`size` = 4 or 8 bytes) as an integer: in host byte order (bin_load), or
 * in file order, little-endian (bin_load_le). */
static inline uint64_t bin_load(const void *p, size_t size)
{
    if (size == 8) {
        uint64_t v;
        memcpy(&v, p, 8);
        return v;
    }
    uint32_t v;
    memcpy(&v, p, 4);
    return v;
}

static inline uint64_t bin_load_le(const void *p, size_t size)
{
    uint64_t v = bin_load(p, size);
    return size == 8 ? le64toh(v) : le32toh((uint32_t)v);
}

/* The radix key of an element's bits (from bin_load/bin_load_le) of `type`; desc != 0: the key
 * of the descending order. */
static inline uint64_t bin_radix_bits(gpusort_type type, size_t size, uint64_t bits, int desc)
{
    return size == 8 ? gpusort__radix64(bits, (int)type, desc)
                     : gpusort__radix32((uint32_t)bits, (int)type, desc);
}

/* The radix key of the element at p, in host byte order. */
static inline uint64_t bin_radix_key(gpusort_type type, size_t size, const void *p, int desc)
{
    return bin_radix_bits(type, size, bin_load(p, size), desc);
}

/* 1 for standard input/output: NULL or "-". */
int bin_is_stdio(const char *path);

/* Before reading: a regular file's size must be a whole number of elements, and the file must
 * be readable; cli_fail ("<cmd>: ...") otherwise. Nothing to check on standard input. */
void bin_check_file_size(const char *cmd, const char *path, size_t elem, const char *tname);

/* Read a whole file into a malloc'd buffer of *n elements in host order; cli_fail if its size
 * is not a multiple of elem. */
void *bin_read_elements(const char *cmd, const char *path, size_t elem, const char *tname,
                        size_t *n);

/* Read up to `want` bytes from fd (fewer only at the end of the input), adding them to *done
 * and to the progress display; cli_fail on a read error. */
size_t bin_read_full(const char *cmd, int fd, void *buf, size_t want, const char *name,
                     uint64_t *done);

/* bin_read_full for a piece of a file read front to back: a regular file (regular != 0) is
 * read at offset *done by `threads` parallel preads (one thread reads the page cache at a
 * fraction of the memory's speed), anything else by read(2). */
size_t bin_read_piece(const char *cmd, int fd, int regular, void *buf, size_t want,
                      const char *name, uint64_t *done, int threads);

/* Binary data must not land on a terminal: `out` itself, or "-" (standard output) when out is
 * NULL and standard output is redirected; cli_fail when it is a terminal. */
const char *bin_output_or_stdout(const char *cmd, const char *out);

/* Write n elements of buf (converted to little-endian, restored afterwards) with progress. */
void bin_write_elements(cli_out *out, void *buf, size_t n, size_t elem);

#endif
