/* records.c -- PLACEHOLDER until the text issue lands: record sort answers "unsupported". */
#include "cpu.h"

gpusort_status gpusort__cpu_sort_records(gpusort_ctx *ctx, const void *records_in,
                                         void *records_out, size_t n, size_t record_size,
                                         size_t key_offset, size_t key_size, gpusort_order order,
                                         uint64_t *perm_out)
{
    return gpusort__set_error(ctx, GPUSORT_STATUS_UNSUPPORTED, "record sort is not implemented yet");
}
