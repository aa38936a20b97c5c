/*
 * stage.c -- device pointers for the MPI sort (stage.h): detection, pinned host staging
 * buffers and the copies, through the CUDA runtime when the CUDA backend is built; host-only
 * stand-ins otherwise.
 *
 * Why staging: Debian's Open MPI (and most builds without UCX + CUDA) cannot read device
 * memory, so device data is sorted on the GPU, then copied into pinned host memory (the
 * fastest copy, ~50 GB/s on an H200's PCIe 5 link) for the exchange and the merge, and the
 * result is copied back. MPIX_Query_cuda_support is asked and reported (gpusort_mpi_times),
 * but device pointers are not yet passed to MPI.
 */
#include "stage.h"

#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#if defined(OPEN_MPI) && OPEN_MPI
#include <mpi-ext.h>
#endif

#ifdef GPUSORT_HAVE_CUDA
#include <cuda_runtime_api.h>

int gpusort__mpi_is_device(const void *p)
{
    if (!p) return 0;
    struct cudaPointerAttributes a;
    if (cudaPointerGetAttributes(&a, p) != cudaSuccess) {
        cudaGetLastError();         /* clear the sticky-free error of a plain host pointer */
        return 0;
    }
    return a.type == cudaMemoryTypeDevice || a.type == cudaMemoryTypeManaged;
}

void *gpusort__mpi_host_alloc(size_t bytes)
{
    void *p = NULL;
    if (cudaMallocHost(&p, bytes ? bytes : 1) != cudaSuccess) {
        cudaGetLastError();
        return NULL;
    }
    return p;
}

void gpusort__mpi_host_free(void *p)
{
    if (p) cudaFreeHost(p);
}

void *gpusort__mpi_device_alloc(size_t bytes)
{
    void *p = NULL;
    if (cudaMalloc(&p, bytes ? bytes : 1) != cudaSuccess) {
        cudaGetLastError();
        return NULL;
    }
    return p;
}

void gpusort__mpi_device_free(void *p)
{
    if (p) cudaFree(p);
}

int gpusort__mpi_copy(void *dst, const void *src, size_t bytes, char *err, size_t errsize)
{
    if (!bytes) return 0;
    cudaError_t e = cudaMemcpy(dst, src, bytes, cudaMemcpyDefault);
    if (e == cudaSuccess) return 0;
    snprintf(err, errsize, "cudaMemcpy of %zu bytes: %s", bytes, cudaGetErrorString(e));
    return -1;
}
#else
int gpusort__mpi_is_device(const void *p) { (void)p; return 0; }
void *gpusort__mpi_host_alloc(size_t bytes) { return malloc(bytes ? bytes : 1); }
void gpusort__mpi_host_free(void *p) { free(p); }
void *gpusort__mpi_device_alloc(size_t bytes) { (void)bytes; return NULL; }
void gpusort__mpi_device_free(void *p) { (void)p; }
int gpusort__mpi_copy(void *dst, const void *src, size_t bytes, char *err, size_t errsize)
{
    (void)err; (void)errsize;
    if (bytes) memcpy(dst, src, bytes);
    return 0;
}
#endif

int gpusort__mpi_cuda_aware(void)
{
#if defined(MPIX_CUDA_AWARE_SUPPORT) && MPIX_CUDA_AWARE_SUPPORT
    return MPIX_Query_cuda_support() == 1;
#else
    return 0;
#endif
}
