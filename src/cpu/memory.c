/*
 * memory.c -- large scratch buffers for the CPU backend.
 *
 * Exports gpusort__cpu_big_alloc(bytes) and gpusort__cpu_big_free(p, bytes) (job.h).
 *
 * The sorts allocate scratch as large as their input for every call. On Linux, buffers of
 * 4 MiB and more are mapped directly, aligned to 2 MiB and marked MADV_HUGEPAGE: with
 * transparent huge pages (even in "madvise" mode) the kernel backs them with 2 MiB pages,
 * so first touch costs one fault per 2 MiB instead of one per 4 KiB, and the radix scatter,
 * which writes to 2048 places at once, misses the TLB far less. Elsewhere, or if mmap fails,
 * plain malloc. The caller passes the size back to free (munmap needs it).
 */
#include "job.h"

#include <stdint.h>
#include <stdlib.h>

#if defined(__linux__)
#include <sys/mman.h>
#define BIG_MIN ((size_t)4 << 20)     /* below this, malloc: the heap reuses its memory */
#define HUGE_PAGE ((size_t)2 << 20)
#endif

void *gpusort__cpu_big_alloc(size_t bytes)
{
    if (bytes == 0) bytes = 1;
#if defined(__linux__) && defined(MADV_HUGEPAGE)
    if (bytes >= BIG_MIN) {
        size_t len = bytes + HUGE_PAGE + 4096;     /* room to align the start to 2 MiB */
        void *m = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        if (m == MAP_FAILED) return NULL;
        uintptr_t start = ((uintptr_t)m + sizeof(size_t) * 2 + HUGE_PAGE - 1) & ~(HUGE_PAGE - 1);
        /* the mapping's base and length go just before the aligned start */
        ((size_t *)start)[-1] = len;
        ((uintptr_t *)start)[-2] = (uintptr_t)m;
        (void)madvise((void *)start, bytes, MADV_HUGEPAGE);
        return (void *)start;
    }
#endif
    return malloc(bytes);
}

void gpusort__cpu_big_free(void *p, size_t bytes)
{
    if (!p) return;
#if defined(__linux__) && defined(MADV_HUGEPAGE)
    if (bytes >= BIG_MIN) {
        size_t len = ((size_t *)p)[-1];
        void *m = (void *)((uintptr_t *)p)[-2];
        munmap(m, len);
        return;
    }
#endif
    free(p);
}
