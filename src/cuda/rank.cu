/* rank.cu -- PLACEHOLDER until issue 4 lands: the rank sort answers "unsupported". */
#include "cuda_internal.h"

extern "C" gpusort_status gpusort__cuda_rank_sort(gpusort_ctx *ctx, const gpusort_sort_desc *d)
{
    return gpusort__set_error(ctx, GPUSORT_STATUS_UNSUPPORTED,
                              "the CUDA rank sort is not implemented yet");
}
