/*
 * cl_mem.c -- the OpenCL side of tests/cl_mem.h. Test-only code.
 */
#include "cl_mem.h"

#include <stdio.h>
#include <string.h>

#ifdef __APPLE__
#include <OpenCL/opencl.h>
#else
#include <CL/cl.h>
#endif

static cl_context context;
static cl_command_queue queue;
static char error_text[256];

static int fail(const char *what, cl_int err)
{
    snprintf(error_text, sizeof error_text, "%s: OpenCL error %d", what, (int)err);
    return -1;
}

const char *test_cl_error(void) { return error_text; }

int test_cl_setup(gpusort_ctx *ctx, const char *device_name)
{
    cl_platform_id plats[16];
    cl_uint np = 0;
    cl_int err = clGetPlatformIDs(16, plats, &np);
    if (err != CL_SUCCESS) return fail("clGetPlatformIDs", err);
    cl_device_id found = NULL;
    for (cl_uint p = 0; p < np && p < 16 && !found; p++) {
        cl_device_id devs[16];
        cl_uint nd = 0;
        if (clGetDeviceIDs(plats[p], CL_DEVICE_TYPE_ALL, 16, devs, &nd) != CL_SUCCESS) continue;
        for (cl_uint d = 0; d < nd && d < 16; d++) {
            char name[256] = "";
            clGetDeviceInfo(devs[d], CL_DEVICE_NAME, sizeof name, name, NULL);
            if (strcmp(name, device_name) == 0) { found = devs[d]; break; }
        }
    }
    if (!found) {
        snprintf(error_text, sizeof error_text, "no OpenCL device named \"%s\"", device_name);
        return -1;
    }
    context = clCreateContext(NULL, 1, &found, NULL, NULL, &err);
    if (!context) return fail("clCreateContext", err);
    queue = clCreateCommandQueue(context, found, 0, &err);
    if (!queue) return fail("clCreateCommandQueue", err);
    gpusort_status s = gpusort_ctx_set_stream(ctx, queue);
    if (s != GPUSORT_STATUS_SUCCESS) {
        snprintf(error_text, sizeof error_text, "gpusort_ctx_set_stream: %s: %s",
                 gpusort_status_string(s), gpusort_ctx_get_last_error(ctx));
        return -1;
    }
    return 0;
}

void test_cl_teardown(gpusort_ctx *ctx)
{
    if (ctx) gpusort_ctx_set_stream(ctx, NULL);
    if (queue) clReleaseCommandQueue(queue);
    if (context) clReleaseContext(context);
    queue = NULL;
    context = NULL;
}

void *test_cl_alloc(size_t bytes)
{
    cl_int err;
    cl_mem m = clCreateBuffer(context, CL_MEM_READ_WRITE, bytes ? bytes : 1, NULL, &err);
    if (!m) fail("clCreateBuffer", err);
    return (void *)m;
}

void test_cl_free(void *mem)
{
    if (mem) clReleaseMemObject((cl_mem)mem);
}

int test_cl_upload(void *mem, const void *host_src, size_t bytes)
{
    if (!bytes) return 0;
    cl_int err = clEnqueueWriteBuffer(queue, (cl_mem)mem, CL_TRUE, 0, bytes, host_src, 0, NULL,
                                      NULL);
    return err == CL_SUCCESS ? 0 : fail("clEnqueueWriteBuffer", err);
}

int test_cl_download(void *host_dst, const void *mem, size_t bytes)
{
    if (!bytes) return 0;
    /* in-order queue: the read waits for the sort enqueued before it */
    cl_int err = clEnqueueReadBuffer(queue, (cl_mem)mem, CL_TRUE, 0, bytes, host_dst, 0, NULL,
                                     NULL);
    return err == CL_SUCCESS ? 0 : fail("clEnqueueReadBuffer", err);
}
