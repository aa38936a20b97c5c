/*
 * memory.c -- large scratch buffers for the CPU kernels, kept by the context between calls.
 *
 * Exports gpusort__cpu_big_alloc(ctx, bytes), gpusort__cpu_big_free(ctx, p, bytes) (job.h) and
 * gpusort__host_scratch_release(ctx) (backend.h; gpusort_ctx_trim and gpusort_ctx_free).
 *
 * The sorts need scratch as large as their input. On Linux, buffers of 4 MiB and more are
 * mapped directly, aligned to 2 MiB and marked MADV_HUGEPAGE: with transparent huge pages
 * (even in "madvise" mode) the kernel backs them with 2 MiB pages, so first touch costs one
 * fault per 2 MiB instead of one per 4 KiB, and the radix scatter, which writes to 2048 places
 * at once, misses the TLB far less. Elsewhere, or if mmap fails, plain malloc.
 *
 * Even with huge pages, first touch costs the kernel's zeroing of every page: 85 ms for the
 * 256 MiB scratch of a 2^26-key u32 sort on one core of a 2-core machine, ~5% of the sort
 * (bench/results/cpu-2026-11-22b.md).
 * So a freed mapping is not unmapped but KEPT in the context (ctx->kept, at most
 * GPUSORT__KEPT_MAX of them, the largest ones), and the next allocation takes the smallest
 * kept mapping that is large enough. A program that sorts repeatedly with one context then
 * touches fresh pages once. The memory stays with the context until gpusort_ctx_trim or
 * gpusort_ctx_free (the header's "Scratch" contract). ctx == NULL (segmented.c's worker
 * threads, which share a context) never keeps anything, so no lock is needed: a context is
 * used by one thread at a time (the header's "Threads" contract).
 *
 * The caller passes the size back to free (munmap needs it for the malloc'd case only: a
 * mapping records its base and length just before its aligned start).
 */
#include "job.h"

#include <stdint.h>
#include <stdlib.h>

#if defined(__linux__) && defined(__has_include)
#if __has_include(<sys/mman.h>)
#include <sys/mman.h>
#endif
#endif

#if defined(__linux__) && defined(MADV_HUGEPAGE)
#define BIG_MAPPED 1
#define BIG_MIN ((size_t)4 << 20)     /* below this, malloc: the heap reuses its memory */
#define HUGE_PAGE ((size_t)2 << 20)
/* Bytes usable from the aligned start of mapping p. */
static size_t capacity(void *p)
{
    uintptr_t m = ((uintptr_t *)p)[-2];
    return ((size_t *)p)[-1] - ((uintptr_t)p - m);
}
static void unmap(void *p) { munmap((void *)((uintptr_t *)p)[-2], ((size_t *)p)[-1]); }
#else
#define BIG_MAPPED 0
#endif

void *gpusort__cpu_big_alloc(gpusort_ctx *ctx, size_t bytes)
{
    if (bytes == 0) bytes = 1;
#if BIG_MAPPED
    if (bytes >= BIG_MIN) {
        if (ctx) {   /* the smallest kept mapping that is large enough */
            int best = -1;
            for (int i = 0; i < GPUSORT__KEPT_MAX; i++)
                if (ctx->kept[i] && capacity(ctx->kept[i]) >= bytes &&
                    (best < 0 || capacity(ctx->kept[i]) < capacity(ctx->kept[best])))
                    best = i;
            if (best >= 0) {
                void *p = ctx->kept[best];
                ctx->kept[best] = NULL;
                return p;
            }
        }
        size_t len = bytes + HUGE_PAGE + 4096;     /* room to align the start to 2 MiB */
        void *m = gpusort__alloc_fails()   /* the test hook of src/alloc.c */
                      ? MAP_FAILED
                      : mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        if (m == MAP_FAILED) {
            /* out of address space or memory: give back what we keep and try once more */
            int kept = 0;
            for (int i = 0; ctx && i < GPUSORT__KEPT_MAX; i++) kept += ctx->kept[i] != NULL;
            if (!kept) return NULL;
            gpusort__host_scratch_release(ctx);
            return gpusort__cpu_big_alloc(ctx, bytes);
        }
        uintptr_t start = ((uintptr_t)m + sizeof(size_t) * 2 + HUGE_PAGE - 1) & ~(HUGE_PAGE - 1);
        /* the mapping's base and length go just before the aligned start */
        ((size_t *)start)[-1] = len;
        ((uintptr_t *)start)[-2] = (uintptr_t)m;
        (void)madvise((void *)start, bytes, MADV_HUGEPAGE);
        return (void *)start;
    }
#endif
    (void)ctx;
    return gpusort__malloc(bytes);
}

void gpusort__cpu_big_free(gpusort_ctx *ctx, void *p, size_t bytes)
{
    if (!p) return;
    if (bytes == 0) bytes = 1;
#if BIG_MAPPED
    if (bytes >= BIG_MIN) {
        if (ctx) {   /* keep it: in a free slot, else in place of a smaller kept one */
            int slot = -1;
            for (int i = 0; i < GPUSORT__KEPT_MAX && slot < 0; i++)
                if (!ctx->kept[i]) slot = i;
            if (slot < 0) {
                for (int i = 0; i < GPUSORT__KEPT_MAX; i++)
                    if (capacity(ctx->kept[i]) < capacity(p) &&
                        (slot < 0 || capacity(ctx->kept[i]) < capacity(ctx->kept[slot])))
                        slot = i;
                if (slot >= 0) unmap(ctx->kept[slot]);
            }
            if (slot >= 0) {
                ctx->kept[slot] = p;
                return;
            }
        }
        unmap(p);
        return;
    }
#endif
    (void)ctx;
    free(p);
}

void gpusort__host_scratch_release(gpusort_ctx *ctx)
{
    for (int i = 0; i < GPUSORT__KEPT_MAX; i++) {
#if BIG_MAPPED
        if (ctx->kept[i]) unmap(ctx->kept[i]);
#endif
        ctx->kept[i] = NULL;
    }
}
