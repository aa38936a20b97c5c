/*
 * stage.h -- INTERNAL to libgpusort_mpi: CUDA device data seen from the MPI sort (stage.c).
 * Without the CUDA backend every pointer is a host pointer and staging is never needed.
 */
#ifndef GPUSORT_MPI_STAGE_H
#define GPUSORT_MPI_STAGE_H

#include <stddef.h>

/* 1 if p is CUDA device (or managed) memory, 0 for host memory or NULL. */
int gpusort__mpi_is_device(const void *p);
/* The 16-byte UUID of CUDA device `device` (the same GPU seen from any process of the host);
 * 0, or -1 without CUDA or on an error. */
int gpusort__mpi_device_uuid(int device, unsigned char uuid[16]);
/* Device memory (cudaMalloc) for the keys a device argsort does not return; NULL on failure
 * or without CUDA. */
void *gpusort__mpi_device_alloc(size_t bytes);
void gpusort__mpi_device_free(void *p);
/* Copy bytes between host and device (either direction); 0 on success, -1 on a CUDA error
 * (its name in err). */
int gpusort__mpi_copy(void *dst, const void *src, size_t bytes, char *err, size_t errsize);
/* The same copy between device memory and PAGEABLE host memory, pipelined through small
 * pinned buffers by several threads (stage.c says how); to_device gives the direction. */
int gpusort__mpi_stage(void *dst, const void *src, size_t bytes, int to_device, char *err,
                       size_t errsize);
/* memcpy of host memory by several threads (the rank's own slice of the exchange: fresh
 * pages, whose first touch costs as much as the copy). */
void gpusort__mpi_copy_host(void *dst, const void *src, size_t bytes);
/* 1 if the MPI library says at run time that it accepts device pointers
 * (MPIX_Query_cuda_support, Open MPI's extension), 0 otherwise or where it is unknown. */
int gpusort__mpi_cuda_aware(void);

#endif
