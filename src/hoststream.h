/*
 * hoststream.h -- sort elements that come from, and go to, the caller's I/O callbacks: a file,
 * a pipe, or host memory, without the caller first gathering them in one host array.
 *
 * Internal (gpusort__ prefix, not installed): the CLI uses it for `gpusort sort FILE`, the
 * library's own host-array paths may use it with memory callbacks. The point is that a backend
 * with a device can pull the input through its own pinned staging buffers straight from the
 * reads (copies to the device overlapping the reads) and push the sorted output through them
 * straight into the writes, so that the data never has to sit in a pageable host array.
 *
 * Contract of gpusort__sort_stream:
 *   - Input stream 0 holds n keys of key_type; with value_type U32/U64, input stream 1 holds n
 *     values (GPUSORT_TYPE_NONE: keys only). The output streams have the same layout: output
 *     0 the sorted keys, output 1 their values (stable, as gpusort_sort_pairs).
 *   - read(user, stream, buf, offset, bytes) fills buf with bytes [offset, offset + bytes) of
 *     input `stream`; write(user, stream, buf, offset, bytes) stores buf as bytes
 *     [offset, offset + bytes) of output `stream`. Both return 0, or -1 with errno set. They
 *     are called from several threads at once, on disjoint ranges, in no particular order,
 *     each range exactly once; offsets and sizes are multiples of the element size. Every read
 *     of the input ends before the first write of the output (a sort sees every key before
 *     its first output), so output and input may be the same file.
 *   - progress (may be NULL) is called from one thread at a time with the phase running and
 *     bytes done / total of that phase, often enough for a terminal's progress line.
 *   - seconds[] receives the wall time of each phase (they may overlap, so they need not add
 *     up to the call's time).
 *   - On a failing callback the call stops, returns GPUSORT_STATUS_INVALID_ARGUMENT with a
 *     message naming the stream and offset, and leaves the callback's errno in io_errno
 *     (0 when no callback failed). Output may then be partly written: the caller discards it.
 *   - algorithm and flags: as gpusort_sort's. Every backend answers (the CPU backend reads
 *     into memory, sorts and writes); the call completes before it returns.
 */
#ifndef GPUSORT_HOSTSTREAM_H
#define GPUSORT_HOSTSTREAM_H

#include "gpusort.h"

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef enum gpusort__stream_phase {
    GPUSORT__PHASE_READ = 0,        /* the read callbacks */
    GPUSORT__PHASE_TO_DEVICE,       /* host to device copies (0 on the CPU backend) */
    GPUSORT__PHASE_SORT,            /* the sort itself */
    GPUSORT__PHASE_FROM_DEVICE,     /* device to host copies */
    GPUSORT__PHASE_WRITE,           /* the write callbacks */
    GPUSORT__PHASE_COUNT
} gpusort__stream_phase;

typedef struct gpusort__stream {
    int (*read)(void *user, int stream, void *buf, uint64_t offset, size_t bytes);
    int (*write)(void *user, int stream, const void *buf, uint64_t offset, size_t bytes);
    void (*progress)(void *user, gpusort__stream_phase phase, uint64_t done, uint64_t total);
    void *user;
    double seconds[GPUSORT__PHASE_COUNT];   /* out */
    int io_errno;                           /* out: errno of a failed callback, else 0 */
} gpusort__stream;

gpusort_status gpusort__sort_stream(gpusort_ctx *ctx, gpusort_type key_type,
                                    gpusort_type value_type, uint64_t n, gpusort__stream *s,
                                    gpusort_order order, gpusort_algorithm algorithm,
                                    unsigned flags);

#ifdef __cplusplus
}
#endif

#endif /* GPUSORT_HOSTSTREAM_H */
