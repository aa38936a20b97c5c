/*
 * registry.c -- the one place that lists the backends compiled into the library.
 *
 * A backend is compiled in when CMake found its toolchain (GPUSORT_HAVE_CUDA,
 * GPUSORT_HAVE_OPENCL); the CPU backend always is. To add a backend: write its
 * gpusort_backend_ops table in its folder, add an enum value in gpusort.h and a line here.
 */
#include "backend.h"

const gpusort_backend_ops *gpusort__backend_ops(gpusort_backend backend)
{
    switch (backend) {
    case GPUSORT_BACKEND_CPU: return &gpusort__cpu_ops;
#ifdef GPUSORT_HAVE_CUDA
    case GPUSORT_BACKEND_CUDA: return &gpusort__cuda_ops;
#endif
#ifdef GPUSORT_HAVE_OPENCL
    case GPUSORT_BACKEND_OPENCL: return &gpusort__opencl_ops;
#endif
    default: return NULL;
    }
}
