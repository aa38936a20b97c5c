/* segmented.cu -- PLACEHOLDER until issue 4 lands: answers "unsupported". */
#include "cuda_internal.h"

extern "C" gpusort_status gpusort__cuda_segmented_sort(gpusort_ctx *ctx, const gpusort_sort_desc *d,
                                                       const uint64_t *d_offsets, size_t num_segments)
{
    return gpusort__set_error(ctx, GPUSORT_STATUS_UNSUPPORTED,
                              "the CUDA segmented sort is not implemented yet");
}
