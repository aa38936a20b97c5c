/*
 * cuda_mem.h -- device memory for the tests, behind a C interface (tests/cuda_mem.cu).
 *
 * The test programs are C files compiled by the C compiler, which cannot include the CUDA
 * runtime's headers portably; this small wrapper, compiled by nvcc only when the CUDA backend is
 * built (GPUSORT_HAVE_CUDA), lets them allocate device buffers and copy to and from them, so the
 * cross-backend test also passes DEVICE pointers to the CUDA backend (which detects them).
 *
 * Every function returns 0 (or a non-NULL pointer) on success; on failure it returns -1 (NULL)
 * and test_cuda_error() gives the CUDA error text.
 */
#ifndef GPUSORT_TEST_CUDA_MEM_H
#define GPUSORT_TEST_CUDA_MEM_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Make `device` the current device: later allocations and copies use it. */
int test_cuda_set_device(int device);
/* Device memory of at least `bytes` (1 byte for 0), or NULL. */
void *test_cuda_alloc(size_t bytes);
void test_cuda_free(void *p);
/* Pinned (page-locked) host memory, cudaMallocHost, or NULL. */
void *test_cuda_host_alloc(size_t bytes);
void test_cuda_host_free(void *p);
/* Host -> device and device -> host copies (synchronous). */
int test_cuda_upload(void *device_dst, const void *host_src, size_t bytes);
int test_cuda_download(void *host_dst, const void *device_src, size_t bytes);
/* Fill device memory with a byte value. */
int test_cuda_memset(void *device_dst, int byte, size_t bytes);
/* Keep the device's local-memory reservation at its largest instead of letting the driver
 * shrink it after a launch (cudaDeviceLmemResizeToMax), so that free device memory moves only
 * with allocations; call before anything creates the CUDA context. 0 or -1. */
int test_cuda_keep_local_memory(void);
/* Free device memory now (cudaMemGetInfo), for leak checks; 0 on error. */
size_t test_cuda_free_bytes(void);
/* The text of the last CUDA error a wrapper saw ("" if none). */
const char *test_cuda_error(void);
/* GPUSORT_CUDA_RANK_MAX_N of src/cuda/cuda_internal.h: the largest n the CUDA rank sort takes. */
size_t test_cuda_rank_max_n(void);

#ifdef __cplusplus
}
#endif
#endif /* GPUSORT_TEST_CUDA_MEM_H */
