/*
 * cmd_devices.c -- `gpusort devices`: every backend (built into this gpusort or not), its
 * devices and their properties as the library reports them (gpusort_device_get_info), whether
 * this build can run on each (a GPU it has no code for is listed with the reason, and AUTO
 * passes it by), and the backend and device that --backend auto picks.
 */
#include "cmd.h"
#include "internal.h"
#include "util.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

static const char help_devices[] =
    "Usage: gpusort devices\n"
    "List every backend (built into this gpusort or not), its devices and their properties,\n"
    "whether this build can run on each, and the backend --backend auto picks.\n";

static void print_memory(uint64_t bytes)
{
    if (bytes >= ((uint64_t)1 << 30)) printf("%.1f GiB", (double)bytes / (double)(1u << 30));
    else printf("%.0f MiB", (double)bytes / (double)(1u << 20));
}

int gpusort_cli_devices(int argc, char **argv)
{
    cmd_opts o;
    cmd_parse(argc, argv, "", 0, &o);
    if (o.help) { fputs(help_devices, stdout); return 0; }
    for (int b = GPUSORT_BACKEND_CPU; b < GPUSORT_BACKEND_COUNT_; b++) {
        gpusort_backend be = (gpusort_backend)b;
        const char *bn = gpusort_backend_name(be);
        if (!gpusort_backend_built(be)) {
            printf("%s: not built into this gpusort\n", bn);
            continue;
        }
        int count = 0;
        gpusort_status s = gpusort_device_get_count(be, &count);
        if (s != GPUSORT_STATUS_SUCCESS) {
            printf("%s: built; cannot list devices: %s\n", bn, gpusort_status_string(s));
            continue;
        }
        if (count == 0) {
            printf("%s: built; no device found\n", bn);
#if defined(GPUSORT_HAVE_CUDA)
            char why[256];
            if (be == GPUSORT_BACKEND_CUDA)
                printf("  (%s)\n", gpusort__cuda_no_device_reason(why, sizeof why));
#endif
            continue;
        }
        printf("%s: %d device%s\n", bn, count, count == 1 ? "" : "s");
        for (int d = 0; d < count; d++) {
            gpusort_device_info info;
            s = gpusort_device_get_info(be, d, &info);
            if (s != GPUSORT_STATUS_SUCCESS) {
                printf("  [%d] cannot query: %s\n", d, gpusort_status_string(s));
                continue;
            }
            printf("  [%d] %s\n", d, info.name);
            printf("      platform: %s\n", info.platform);
            printf("      memory: ");
            print_memory(info.memory_bytes);
            printf(", compute units: %d", info.compute_units);
            if (be == GPUSORT_BACKEND_CUDA)
                printf(", compute capability %d.%d", info.capability_major, info.capability_minor);
            else if (be == GPUSORT_BACKEND_OPENCL)
                printf(", OpenCL %d.%d", info.capability_major, info.capability_minor);
            printf("\n      GPU: %s, f64: %s\n", info.is_gpu ? "yes" : "no",
                   info.supports_f64 ? "yes" : "no");
            if (!info.usable) printf("      not usable by this build: %s\n", info.unusable_reason);
        }
    }
    gpusort_ctx *ctx = NULL;
    gpusort_status s = gpusort_ctx_create(&ctx, GPUSORT_BACKEND_AUTO, -1);
    if (s == GPUSORT_STATUS_SUCCESS) {
        char dev[256];
        printf("auto: %s device %d (%s)\n", gpusort_backend_name(gpusort_ctx_get_backend(ctx)),
               gpusort_ctx_get_device(ctx), cmd_device_name(ctx, dev, sizeof dev));
    } else {
        printf("auto: no usable backend: %s\n", gpusort_status_string(s));
    }
    gpusort_ctx_free(ctx);
    if (fflush(stdout) != 0 || ferror(stdout))
        cli_fail("devices: write error on standard output: %s", strerror(errno));
    return 0;
}
