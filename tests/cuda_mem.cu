/*
 * cuda_mem.cu -- the C interface of tests/cuda_mem.h over the CUDA runtime. Test-only code.
 */
#include "cuda_mem.h"

#include "cuda/cuda_internal.h"

#include <cuda_runtime_api.h>

static const char *last_error = "";

static int check(cudaError_t e)
{
    if (e == cudaSuccess) return 0;
    last_error = cudaGetErrorString(e);
    return -1;
}

extern "C" void *test_cuda_alloc(size_t bytes)
{
    void *p = NULL;
    if (check(cudaMalloc(&p, bytes ? bytes : 1))) return NULL;
    return p;
}

extern "C" void test_cuda_free(void *p)
{
    if (p) (void)check(cudaFree(p));
}

extern "C" void *test_cuda_host_alloc(size_t bytes)
{
    void *p = NULL;
    if (check(cudaMallocHost(&p, bytes ? bytes : 1))) return NULL;
    return p;
}

extern "C" void test_cuda_host_free(void *p)
{
    if (p) (void)check(cudaFreeHost(p));
}

extern "C" int test_cuda_upload(void *device_dst, const void *host_src, size_t bytes)
{
    return bytes ? check(cudaMemcpy(device_dst, host_src, bytes, cudaMemcpyHostToDevice)) : 0;
}

extern "C" int test_cuda_download(void *host_dst, const void *device_src, size_t bytes)
{
    return bytes ? check(cudaMemcpy(host_dst, device_src, bytes, cudaMemcpyDeviceToHost)) : 0;
}

extern "C" int test_cuda_memset(void *device_dst, int byte, size_t bytes)
{
    return bytes ? check(cudaMemset(device_dst, byte, bytes)) : 0;
}

extern "C" const char *test_cuda_error(void) { return last_error; }

extern "C" size_t test_cuda_rank_max_n(void) { return GPUSORT_CUDA_RANK_MAX_N; }

extern "C" size_t test_cuda_free_bytes(void)
{
    size_t f = 0, t = 0;
    if (cudaMemGetInfo(&f, &t) != cudaSuccess) return 0;
    return f;
}

extern "C" int test_cuda_keep_local_memory(void)
{
    cudaError_t e = cudaSetDeviceFlags(cudaDeviceLmemResizeToMax);
    if (e == cudaSuccess) return 0;
    last_error = cudaGetErrorString(e);
    return -1;
}

extern "C" int test_cuda_set_device(int device)
{
    cudaError_t e = cudaSetDevice(device);
    if (e == cudaSuccess) return 0;
    last_error = cudaGetErrorString(e);
    return -1;
}
