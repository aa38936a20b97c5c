/*
 * cl_mem.h -- OpenCL buffers for the tests, behind a C interface (tests/cl_mem.c).
 *
 * Lets test_backends exercise the OpenCL backend's GPUSORT_FLAG_CL_MEM path: test_cl_setup()
 * creates a cl_context and an in-order queue on the device a gpusort context runs on (found by
 * its name) and hands the queue to gpusort_ctx_set_stream(), so the backend adopts that context;
 * buffers made by test_cl_alloc() then belong to it. Handles travel as void * (a cl_mem cast),
 * with GPUSORT_FLAG_CL_MEM. Compiled only when the OpenCL backend is built.
 *
 * Every function returns 0 (or non-NULL) on success; -1 (NULL) with test_cl_error() on failure.
 */
#ifndef GPUSORT_TEST_CL_MEM_H
#define GPUSORT_TEST_CL_MEM_H

#include "gpusort.h"

#include <stddef.h>

/* Find the OpenCL device named device_name, make a context and queue on it, and give the queue
 * to ctx. Returns -1 if there is no such device or any step fails. */
int test_cl_setup(gpusort_ctx *ctx, const char *device_name);
/* Give ctx its own queue back (set_stream NULL), then release the queue and context. */
void test_cl_teardown(gpusort_ctx *ctx);
void *test_cl_alloc(size_t bytes);
void test_cl_free(void *mem);
int test_cl_upload(void *mem, const void *host_src, size_t bytes);
int test_cl_download(void *host_dst, const void *mem, size_t bytes);
const char *test_cl_error(void);

#endif /* GPUSORT_TEST_CL_MEM_H */
