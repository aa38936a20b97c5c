/* strings.c -- PLACEHOLDER until the text issue lands: byte-string sort answers "unsupported". */
#include "cpu.h"

gpusort_status gpusort__cpu_sort_strings(gpusort_ctx *ctx, const uint8_t *bytes,
                                         const uint64_t *offsets, size_t n, gpusort_order order,
                                         uint64_t *perm_out)
{
    return gpusort__set_error(ctx, GPUSORT_STATUS_UNSUPPORTED, "string sort is not implemented yet");
}
