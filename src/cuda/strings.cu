/* strings.cu -- PLACEHOLDER until the text issue's CUDA part lands: answers "unsupported". */
#include "cuda_internal.h"

extern "C" gpusort_status gpusort__cuda_sort_strings(gpusort_ctx *ctx, const uint8_t *bytes,
                                                     const uint64_t *offsets, size_t n,
                                                     gpusort_order order, uint64_t *perm_out)
{
    return gpusort__set_error(ctx, GPUSORT_STATUS_UNSUPPORTED,
                              "the CUDA string sort is not implemented yet");
}

extern "C" gpusort_status gpusort__cuda_sort_records(gpusort_ctx *ctx, const void *records_in,
                                                     void *records_out, size_t n,
                                                     size_t record_size, size_t key_offset,
                                                     size_t key_size, gpusort_order order,
                                                     uint64_t *perm_out)
{
    return gpusort__set_error(ctx, GPUSORT_STATUS_UNSUPPORTED,
                              "the CUDA record sort is not implemented yet");
}
