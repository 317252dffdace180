// Allocation counting by symbol interposition; see the header.
#define _GNU_SOURCE
#include <stddef.h>
#include <errno.h>
#include "uvcombine_malloc_counter.h"

extern void *__libc_malloc(size_t size);
extern void *__libc_calloc(size_t count, size_t size);
extern void *__libc_realloc(void *ptr, size_t size);
extern void *__libc_memalign(size_t alignment, size_t size);
extern void __libc_free(void *ptr);

static __thread long thread_allocations;

long uvc_malloc_counter_thread_total(void) { return thread_allocations; }

void *malloc(size_t size) {
    thread_allocations++;
    return __libc_malloc(size);
}

void *calloc(size_t count, size_t size) {
    thread_allocations++;
    return __libc_calloc(count, size);
}

void *realloc(void *ptr, size_t size) {
    thread_allocations++;
    return __libc_realloc(ptr, size);
}

void free(void *ptr) { __libc_free(ptr); }

void *memalign(size_t alignment, size_t size) {
    thread_allocations++;
    return __libc_memalign(alignment, size);
}

void *aligned_alloc(size_t alignment, size_t size) {
    thread_allocations++;
    return __libc_memalign(alignment, size);
}

int posix_memalign(void **out, size_t alignment, size_t size) {
    if (alignment < sizeof(void *) || (alignment & (alignment - 1)) != 0) return EINVAL;
    thread_allocations++;
    void *p = __libc_memalign(alignment, size);
    if (p == NULL) return ENOMEM;
    *out = p;
    return 0;
}
