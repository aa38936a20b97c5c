/*
 * gpusort_mpi.h -- a distributed sort over MPI: every rank of a communicator passes its part
 * of the data and gets back its part of the globally sorted sequence. Library libgpusort_mpi
 * (links libgpusort and MPI; pkg-config gpusort_mpi, CMake gpusort::gpusort_mpi).
 *
 * ORDER OF CALLS (on every rank of comm, after MPI_Init)
 *   gpusort_ctx_create()          the rank's own context: CUDA on its GPU, or the CPU backend
 *   gpusort_mpi_sort() / gpusort_mpi_sort_pairs() / gpusort_mpi_argsort()   collective
 *   gpusort_ctx_free()
 *
 * CONTRACT
 * - Collective over comm: every rank calls the same function with the same types, order and
 *   flags (a rank that disagrees makes every rank return INVALID_ARGUMENT). n is the rank's
 *   own count and may differ between ranks, 0 included.
 * - Layout: each rank gets back exactly n elements (its input count): the globally sorted
 *   sequence laid out over the ranks in rank order, so rank r holds positions
 *   [n_0 + ... + n_{r-1}, ... + n_r). Callers allocate outputs of their input's size.
 * - Order and stability: the gpusort order (gpusort.h: floats -0.0 == +0.0, NaN last
 *   ascending); equal keys keep their (rank, position) order, ascending and descending.
 * - Indices: gpusort_mpi_argsort and gpusort_mpi_sort_pairs with values_in NULL give GLOBAL
 *   u64 indices: rank r's element i is index n_0 + ... + n_{r-1} + i.
 * - Memory: host memory, or CUDA device memory (detected per pointer; the keys and values of
 *   one call are all on the host or all on the device). Device data is sorted on the GPU and
 *   staged through pinned host memory for the exchange and the merge.
 * - Faults: when any rank fails (a bad argument, out of memory, a failed local sort) every
 *   rank returns an error: the failing rank its own status, the others the same status with
 *   "rank R failed" in gpusort_mpi_get_last_error(). No rank hangs. Outputs are then undefined.
 * - Extra memory per rank: n*(K+V) bytes for the received runs (+ n*K when the keys are not
 *   wanted: host memory, or device memory for device data), the local sort's scratch (README
 *   "Scratch memory"), and for device data a pinned host copy of n*(K+V) bytes.
 * - MPI: any MPI-3 library; the exchange is one MPI_Alltoallv, or point-to-point messages of
 *   at most 2^30 bytes when a rank's send or receive volume does not fit MPI-3's int counts.
 *   The call duplicates comm (no message of the caller's can match ours).
 * - GPU ranks over NCCL (since 0.4): when every rank has a CUDA context and device data (or
 *   none), and libnccl.so.2 loads (GPUSORT_NCCL_LIBRARY names it), the data goes GPU to GPU
 *   with ncclSend/ncclRecv and the splits are counted on the GPUs: no host copy of the data.
 *   The NCCL communicator is made on a communicator's first such call (its id cached on comm
 *   as an MPI attribute) and kept for the process; ranks sharing a GPU cannot use it (NCCL
 *   needs one GPU per rank). GPUSORT_MPI_NCCL=0 keeps the exchange in MPI. Not with global
 *   indices (argsort, values_in NULL), which are made on the host.
 *
 * ALGORITHM (src/dist/, src/mpi/sort.c): local sort with the context; exact splitting
 * positions by a distributed radix selection on the sorted runs (key bits / 4 + 2 allreduce /
 * exscan of up to 15 (P + 1) u64); one all-to-all exchange; then the P received runs are combined in
 * rank order: a stable multi-way merge on the context's threads (CPU context), or a stable
 * sort with the context (GPU contexts: the same result at the GPU's rate).
 */
#ifndef GPUSORT_MPI_H
#define GPUSORT_MPI_H

#include "gpusort.h"

#include <mpi.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Sort keys: n keys of `type` in, n keys out (this rank's share of the sorted sequence).
 * keys_out == keys_in sorts in place. flags must be 0. */
GPUSORT_API gpusort_status gpusort_mpi_sort(gpusort_ctx *ctx, MPI_Comm comm, gpusort_type type,
                                            const void *keys_in, size_t n, void *keys_out,
                                            gpusort_order order, unsigned flags);

/* Sort (key, value) pairs; value_type U32 or U64. keys_out may be NULL when only the values
 * are wanted. values_in NULL: the values are the global indices (value_type must be U64). */
GPUSORT_API gpusort_status gpusort_mpi_sort_pairs(gpusort_ctx *ctx, MPI_Comm comm,
                                                  gpusort_type key_type, gpusort_type value_type,
                                                  const void *keys_in, const void *values_in,
                                                  size_t n, void *keys_out, void *values_out,
                                                  gpusort_order order, unsigned flags);

/* Argsort: indices_out[i] = the global index of the key at this rank's i-th output position. */
GPUSORT_API gpusort_status gpusort_mpi_argsort(gpusort_ctx *ctx, MPI_Comm comm,
                                               gpusort_type key_type, const void *keys_in,
                                               size_t n, uint64_t *indices_out,
                                               gpusort_order order, unsigned flags);

/* Detail of this thread's last failing gpusort_mpi_* call ("" if none). */
GPUSORT_API const char *gpusort_mpi_get_last_error(void);

/* Where this thread's last successful gpusort_mpi_* call spent its time, on this rank
 * (seconds, MPI_Wtime), for benchmarks and logs. */
typedef struct gpusort_mpi_times {
    double local_sort_s;    /* the local sort (with device staging copies) */
    double split_s;         /* the exact splitting positions (the selection's collectives) */
    double exchange_s;      /* the all-to-all of counts and data */
    double merge_s;         /* the merge, or the GPU's sort, of the received runs (and the
                               copies back to the device) */
    uint64_t sent_bytes;    /* keys and values sent to other ranks */
    int chunked;            /* 1: the exchange went point-to-point in pieces */
    int device_data;        /* 1: the data was in CUDA device memory */
    int cuda_aware;         /* 1: device data went to MPI as device pointers (the MPI library
                               reported CUDA awareness at run time; GPUSORT_MPI_CUDA_AWARE=0
                               turns it off) */
    int nccl;               /* 1: the exchange went GPU to GPU over NCCL (since 0.4) */
} gpusort_mpi_times;
GPUSORT_API void gpusort_mpi_get_last_times(gpusort_mpi_times *times);

#ifdef __cplusplus
}
#endif
#endif /* GPUSORT_MPI_H */
