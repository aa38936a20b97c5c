/*
 * alloc.c -- the host allocations of the library and of the gpusort program, with a test-only
 * hook that makes the k-th of them fail (declared in internal.h).
 *
 * Exports:
 *   gpusort__malloc / _calloc / _realloc / _aligned_alloc / _strdup
 *                               malloc & co.; the memory is released with plain free()
 *   gpusort__alloc_fails        counts one allocation made by other means (an mmap, a
 *                               posix_memalign) and says whether it must fail
 *   gpusort__alloc_fail_at      arm the hook: the k-th allocation from now fails, and every
 *                               one after it (k = 0 disarms)
 *   gpusort__alloc_count        allocations counted since the hook was last armed
 *
 * Why: "bad input never crashes and never loses data" must hold when memory runs out too. The
 * fault tests (tests/fault/) arm the hook with k = 1, 2, 3, ... around one library call or one
 * run of the program and check that every run ends with GPUSORT_STATUS_OUT_OF_HOST_MEMORY (the
 * program: one line and exit 2), leaks nothing (LeakSanitizer) and leaves no file behind.
 * zstd tests its out-of-memory paths with a failing allocator the same way; SQLite's
 * sqlite3_test_control(SQLITE_TESTCTRL_FAULT_INSTALL) is the same idea.
 *
 * Once the k-th allocation has failed, every later one fails too until the hook is disarmed: a
 * caller that retries (a smaller buffer, a fallback) must then also end cleanly, and the tests
 * need not guess which allocation a retry would have made.
 *
 * Inert unless armed: disarmed, an allocation costs one relaxed atomic load more than malloc.
 * The counter is atomic because the CPU backend allocates from its worker threads too.
 * Device memory (cudaMalloc, clCreateBuffer) does not pass here: the CUDA backend has its own
 * knob, and an OpenCL buffer that cannot be made is the device's failure.
 */
#include "internal.h"

#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

static atomic_long fail_at;    /* 0: disarmed; else the allocation number that fails first */
static atomic_long counted;    /* allocations since arming */

int gpusort__alloc_fails(void)
{
    long k = atomic_load_explicit(&fail_at, memory_order_relaxed);
    if (k == 0) return 0;
    return atomic_fetch_add_explicit(&counted, 1, memory_order_relaxed) + 1 >= k;
}

void gpusort__alloc_fail_at(long k)
{
    atomic_store(&fail_at, 0);
    atomic_store(&counted, 0);
    atomic_store(&fail_at, k < 0 ? 0 : k);
}

long gpusort__alloc_count(void) { return atomic_load(&counted); }

void *gpusort__malloc(size_t bytes) { return gpusort__alloc_fails() ? NULL : malloc(bytes); }

void *gpusort__calloc(size_t count, size_t size)
{
    return gpusort__alloc_fails() ? NULL : calloc(count, size);
}

/* On failure the old block is untouched and still owned by the caller, as with realloc. */
void *gpusort__realloc(void *p, size_t bytes)
{
    return gpusort__alloc_fails() ? NULL : realloc(p, bytes);
}

void *gpusort__aligned_alloc(size_t alignment, size_t bytes)
{
    return gpusort__alloc_fails() ? NULL : aligned_alloc(alignment, bytes);
}

char *gpusort__strdup(const char *s)
{
    size_t len = strlen(s) + 1;
    char *d = (char *)gpusort__malloc(len);
    if (d) memcpy(d, s, len);
    return d;
}
