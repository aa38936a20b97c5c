/* reduce.cu -- sum/min/max. Work in progress: answers "unsupported". */
#include "cuda_internal.h"

extern "C" gpusort_status gpusort__cuda_reduce(gpusort_ctx *ctx, gpusort_type type,
                                               const void *d_data, size_t n, gpusort_op op,
                                               gpusort_value *result)
{
    return gpusort__set_error(ctx, GPUSORT_STATUS_UNSUPPORTED,
                              "the CUDA reduce is not implemented yet");
}
