/*
 * tuning.cu -- what the CUDA backend adapts to each GPU architecture: the table of per-
 * architecture settings, the check that this build can run on a device at all, and the shared
 * memory limit every kernel launch is held to.
 *
 * Exports (cuda_internal.h): gpusort__cuda_tuning_select (backend.cu's init),
 * gpusort__cuda_tuning_of (the context's row), gpusort__cuda_device_usable (init and device_info),
 * gpusort__cuda_smem_limit / gpusort__cuda_smem_check (every launch above 48 KiB of dynamic
 * shared memory), gpusort__cuda_pdl (bitonic.cu).
 *
 * The table. One row per architecture the default build has machine code for (CMake option
 * GPUSORT_CUDA_ARCHS); a device takes the row of the newest architecture not newer than its
 * own (8.7 takes 8.6's, 12.1 takes 12.0's). What a row decides:
 *   smem_block      the opt-in shared memory per block (CUDA C++ Programming Guide, "Technical
 *                   Specifications per Compute Capability"); the limit is the smaller of this
 *                   and what the device reports (cudaDevAttrMaxSharedMemoryPerBlockOptin);
 *   radix_compact   the radix sort's tile shapes: 0 = Hopper's (up to 118 KiB per block for
 *                   64-bit pairs; radix.cu), 1 = the compact shapes that fit 64 KiB. A row
 *                   with 0 still falls back to the compact shapes for a (key, value) width
 *                   whose Hopper tile does not fit its smem_block (99 KiB parts: 64-bit pairs);
 *   pdl             programmatic dependent launch (sm_90 and later; pdl.cuh), also only when
 *                   the code that runs was compiled for sm_90 or later (not PTX of an older
 *                   architecture JIT-compiled for this one);
 *   auto_shift      AUTO's crossovers between rank / bitonic / merge and radix (auto.cu)
 *                   move by this many powers of two from Hopper's measured ones. Why: at a
 *                   crossover radix's fixed cost (a few launches, about the same time on every
 *                   GPU) equals the comparison sort's extra memory traffic, which takes time in
 *                   proportion to n / bandwidth; so the crossover n moves with the bandwidth:
 *                   log2(bandwidth / 4.8 TB/s of the H200), rounded;
 *   auto_radix_only AUTO takes radix at every size (sm_75: the other sorts' tiles of 16-byte
 *                   items need more than 64 KiB).
 * Only the sm_90 row is measured (bench/results/auto-2026-11-24.md, device-final-2026-11-24.md);
 * the others are the defaults derived as above, to be replaced by measurements on that
 * hardware. Test knob (not an API): GPUSORT_CUDA_TUNING=sm_75 (any row's name), read at context
 * creation, forces that row, so the tests run each architecture's shapes and limits on the GPU
 * at hand (scripts/gpu_check.sh tuning).
 */
#include "cuda_internal.h"

#include <cuda_runtime.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifndef GPUSORT_CUDA_ARCH_LIST
#define GPUSORT_CUDA_ARCH_LIST "?"
#endif

static const gpusort__cuda_tuning tuning_table[] = {
    /* name     cc   smem_block  threads/SM  compact pdl shift radix-only  bandwidth behind shift */
    {"sm_75",   75,  64 * 1024,  1024,       1,      0,  -4,   1},  /* T4: 0.32 TB/s */
    {"sm_80",   80,  163 * 1024, 2048,       0,      0,  -1,   0},  /* A100: 1.6-2.0 TB/s */
    {"sm_86",   86,  99 * 1024,  1536,       0,      0,  -3,   0},  /* A10, RTX 3090: 0.6-0.94 */
    {"sm_89",   89,  99 * 1024,  1536,       0,      0,  -3,   0},  /* L4 0.3, RTX 4090 1.0 */
    {"sm_90",   90,  227 * 1024, 2048,       0,      1,  0,    0},  /* H100, H200: measured */
    {"sm_100",  100, 227 * 1024, 2048,       0,      1,  1,    0},  /* B200: 8 TB/s */
    {"sm_120",  120, 99 * 1024,  1536,       0,      1,  -1,   0},  /* RTX 5090: 1.8 TB/s */
};
#define TUNING_ROWS (sizeof tuning_table / sizeof tuning_table[0])

extern "C" const gpusort__cuda_tuning *gpusort__cuda_tuning_select(int major, int minor,
                                                                   const char *force)
{
    if (force && *force)
        for (size_t i = 0; i < TUNING_ROWS; i++)
            if (strcmp(force, tuning_table[i].name) == 0) return &tuning_table[i];
    const int cc = major * 10 + minor;
    const gpusort__cuda_tuning *t = &tuning_table[0];
    for (size_t i = 0; i < TUNING_ROWS; i++)
        if (tuning_table[i].cc <= cc) t = &tuning_table[i];
    return t;
}

extern "C" const gpusort__cuda_tuning *gpusort__cuda_tuning_of(gpusort_ctx *ctx)
{
    return gpusort__cuda_impl_of(ctx)->tune;
}

/* ---- can this build run on the device? ---- */

/* An empty kernel: if the runtime finds code for it on the device (machine code for the
 * device's architecture, or PTX the driver can compile for it), it finds code for every kernel,
 * since every .cu file is compiled for the same list of architectures. */
static __global__ void probe_kernel() {}

extern "C" int gpusort__cuda_device_usable(int device, int *ptx_version, char *reason, size_t len)
{
    int prev = 0;
    (void)cudaGetDevice(&prev);
    struct cudaFuncAttributes fa;
    memset(&fa, 0, sizeof fa);
    cudaError_t e = cudaSetDevice(device);
    if (e == cudaSuccess) e = cudaFuncGetAttributes(&fa, probe_kernel);
    (void)cudaGetLastError();
    (void)cudaSetDevice(prev);
    if (ptx_version) *ptx_version = fa.ptxVersion;
    if (e == cudaSuccess) {
        if (reason && len) reason[0] = 0;
        return 1;
    }
    if (reason && len) {
        int major = 0, minor = 0;
        cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, device);
        cudaDeviceGetAttribute(&minor, cudaDevAttrComputeCapabilityMinor, device);
        (void)cudaGetLastError();
        if (e == cudaErrorNoKernelImageForDevice || e == cudaErrorInvalidDeviceFunction ||
            e == cudaErrorUnsupportedPtxVersion)
            snprintf(reason, len, "compute capability %d.%d: this build has code for %s only",
                     major, minor, GPUSORT_CUDA_ARCH_LIST);
        else
            snprintf(reason, len, "compute capability %d.%d: %s", major, minor,
                     cudaGetErrorString(e));
    }
    return 0;
}

/* ---- shared memory ---- */

extern "C" size_t gpusort__cuda_smem_limit(gpusort_ctx *ctx)
{
    gpusort__cuda_impl *im = gpusort__cuda_impl_of(ctx);
    size_t dev = im->props.sharedMemPerBlockOptin;
    return dev && dev < im->tune->smem_block ? dev : im->tune->smem_block;
}

extern "C" gpusort_status gpusort__cuda_smem_check(gpusort_ctx *ctx, size_t bytes, const char *what)
{
    const size_t limit = gpusort__cuda_smem_limit(ctx);
    if (bytes <= limit) return GPUSORT_STATUS_SUCCESS;
    return gpusort__set_error(ctx, GPUSORT_STATUS_UNSUPPORTED,
                              "%s needs %zu bytes of shared memory per block; %s gives %zu (use "
                              "GPUSORT_ALGORITHM_RADIX or AUTO)",
                              what, bytes, gpusort__cuda_impl_of(ctx)->tune->name, limit);
}

extern "C" int gpusort__cuda_pdl(gpusort_ctx *ctx) { return gpusort__cuda_impl_of(ctx)->pdl; }
