/*
 * backend.c -- the CPU backend's table (gpusort__cpu_ops): device info and dispatch.
 *
 * The CPU backend is always built. It has one device, the host, and uses
 * gpusort__threads(ctx) worker threads (all online cores unless gpusort_ctx_set_threads said
 * otherwise). It is the reference every other backend is tested against.
 *
 * Algorithms: AUTO and RADIX -> radix.c (LSD radix sort), MERGE -> merge.c (merge sort).
 * BITONIC and RANK are GPU algorithms: UNSUPPORTED here.
 *
 * The backend keeps no state between calls (ctx->impl stays NULL): every call allocates the
 * scratch it needs and frees it before returning.
 */
#include "cpu.h"
#include "job.h"

#include <stdio.h>
#include <string.h>
#include <unistd.h>

static gpusort_status cpu_device_count(int *count)
{
    *count = 1;
    return GPUSORT_STATUS_SUCCESS;
}

/* Copy the value of "key<spaces>: value" from /proc/cpuinfo into out ("" if absent). */
static void cpuinfo_field(const char *key, char *out, size_t size)
{
    out[0] = 0;
    FILE *f = fopen("/proc/cpuinfo", "r");
    if (!f) return;
    char line[512];
    size_t klen = strlen(key);
    while (fgets(line, sizeof line, f)) {
        if (strncmp(line, key, klen) != 0) continue;
        const char *colon = strchr(line + klen, ':');
        if (!colon) continue;
        colon++;
        while (*colon == ' ' || *colon == '\t') colon++;
        snprintf(out, size, "%s", colon);
        size_t len = strlen(out);
        while (len && (out[len - 1] == '\n' || out[len - 1] == ' ')) out[--len] = 0;
        break;
    }
    fclose(f);
}

static gpusort_status cpu_device_info(int device, gpusort_device_info *info)
{
    char model[200], vendor[100];
    int threads = gpusort__threads(NULL);
    cpuinfo_field("model name", model, sizeof model);
    cpuinfo_field("vendor_id", vendor, sizeof vendor);
    if (!model[0]) snprintf(model, sizeof model, "unknown processor");
    snprintf(info->name, sizeof info->name, "CPU: %s (%d threads)", model, threads);
    snprintf(info->platform, sizeof info->platform, "%s", vendor[0] ? vendor : "pthreads");
    long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGESIZE);
    info->memory_bytes = pages > 0 && page > 0 ? (uint64_t)pages * (uint64_t)page : 0;
    info->compute_units = threads;
    info->capability_major = 0;
    info->capability_minor = 0;
    info->is_gpu = 0;
    info->supports_f64 = 1;
    return GPUSORT_STATUS_SUCCESS;
}

static gpusort_status cpu_init(gpusort_ctx *ctx, int device)
{
    ctx->impl = NULL;
    return GPUSORT_STATUS_SUCCESS;
}

static void cpu_destroy(gpusort_ctx *ctx) { ctx->impl = NULL; }

void gpusort__cpu_job_from_desc(gpusort__cpu_job *job, const gpusort__sort_args *d, int threads)
{
    job->key_type = d->key_type;
    job->key_bytes = (int)gpusort_type_size(d->key_type);
    job->desc = d->order == GPUSORT_ORDER_DESC;
    job->keys_in = d->keys_in;
    job->keys_out = d->keys_out;
    job->value_bytes = d->value_type == GPUSORT_TYPE_NONE ? 0 : (int)gpusort_type_size(d->value_type);
    job->values_in = job->value_bytes ? d->values_in : NULL;
    job->values_out = job->value_bytes ? d->values_out : NULL;
    job->index_base = 0;
    job->n = d->n;
    job->threads = threads > 0 ? threads : 1;
}

gpusort_status gpusort__cpu_sort(gpusort_ctx *ctx, const gpusort__sort_args *d)
{
    switch (d->algorithm) {
    case GPUSORT_ALGORITHM_AUTO:
    case GPUSORT_ALGORITHM_RADIX:
        ctx->last_algorithm = GPUSORT_ALGORITHM_RADIX;
        return gpusort__cpu_radix_sort(ctx, d);
    case GPUSORT_ALGORITHM_MERGE:
        ctx->last_algorithm = GPUSORT_ALGORITHM_MERGE;
        return gpusort__cpu_merge_sort(ctx, d);
    default:
        return gpusort__set_error(ctx, GPUSORT_STATUS_UNSUPPORTED,
                                  "the CPU backend offers the radix and merge algorithms, not %s "
                                  "(a GPU algorithm)", gpusort_algorithm_name(d->algorithm));
    }
}

const gpusort_backend_ops gpusort__cpu_ops = {
    .version = GPUSORT_BACKEND_OPS_VERSION,
    .id = GPUSORT_BACKEND_CPU,
    .name = "cpu",
    .device_count = cpu_device_count,
    .device_info = cpu_device_info,
    .init = cpu_init,
    .destroy = cpu_destroy,
    .sort = gpusort__cpu_sort,
    .reduce = gpusort__cpu_reduce,
    .segmented_sort = gpusort__cpu_segmented_sort,
    .batch_sort = gpusort__cpu_batch_sort,
    .sort_strings = gpusort__cpu_sort_strings,
    .sort_records = gpusort__cpu_sort_records,
    .set_stream = NULL,
    .synchronize = NULL,
    .topk = gpusort__cpu_topk,
};
