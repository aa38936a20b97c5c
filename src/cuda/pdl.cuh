/*
 * pdl.cuh -- INTERNAL (CUDA): programmatic dependent launch (sm_90) for the sorts that run a
 * chain of dependent kernels (bitonic.cu, merge.cu).
 *
 * A kernel launched by launch_pdl(..., pdl = 1, ...) may be scheduled while the previous kernel
 * of the stream finishes; it calls pdl_wait_and_release() FIRST, which waits until that kernel
 * has completed and its memory is visible (a no-op when launched without the attribute), then
 * lets its own successor be scheduled. Everything else keeps plain stream order, so only the
 * launch gap between dependent kernels is hidden (the bitonic sort of 2^20 u32 keys gained
 * 5%: bench/results/bitonic-rank-2026-11-22b.md).
 *
 * Exports (namespace gpusort_bs): pdl_wait_and_release (device), launch_pdl (host).
 */
#ifndef GPUSORT_CUDA_PDL_CUH
#define GPUSORT_CUDA_PDL_CUH

#include <cuda_runtime.h>

namespace gpusort_bs {

__device__ __forceinline__ void pdl_wait_and_release()
{
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
    asm volatile("griddepcontrol.wait;" ::: "memory");
    asm volatile("griddepcontrol.launch_dependents;" :::);
#endif
}

/* Launch kern<<<grid, block, smem, st>>>(args...) with the PDL attribute when pdl. Errors are
 * left for the caller's cudaGetLastError. */
template <typename... P, typename... A>
static void launch_pdl(void (*kern)(P...), unsigned grid, unsigned block, size_t smem,
                       cudaStream_t st, int pdl, A... args)
{
    cudaLaunchConfig_t cfg = {};
    cfg.gridDim = dim3(grid);
    cfg.blockDim = dim3(block);
    cfg.dynamicSmemBytes = smem;
    cfg.stream = st;
    cudaLaunchAttribute at[1];
    at[0].id = cudaLaunchAttributeProgrammaticStreamSerialization;
    at[0].val.programmaticStreamSerializationAllowed = 1;
    cfg.attrs = at;
    cfg.numAttrs = pdl ? 1 : 0;
    (void)cudaLaunchKernelEx(&cfg, kern, args...);
}

}  // namespace gpusort_bs

#endif /* GPUSORT_CUDA_PDL_CUH */
