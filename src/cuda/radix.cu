/* radix.cu -- LSD radix sort (Onesweep class). Work in progress: answers "unsupported". */
#include "cuda_internal.h"

extern "C" gpusort_status gpusort__cuda_radix_sort(gpusort_ctx *ctx, const gpusort_sort_desc *d)
{
    return gpusort__set_error(ctx, GPUSORT_STATUS_UNSUPPORTED,
                              "the CUDA radix sort is not implemented yet");
}
