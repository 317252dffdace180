// Allocation counting by symbol interposition; see the header.
#define _GNU_SOURCE
#include <stddef.h>
#include <errno.h>
#include "uvcombine_malloc_counter.h"

#ifndef __has_feature
#define __has_feature(feature) 0
#endif

// Under AddressSanitizer or ThreadSanitizer the sanitizer runtime owns
// malloc: it intercepts it to track every block (ASan's redzones and leak
// checking, TSan's shadow state). Our definitions would take the calls from
// it and hand out glibc blocks the runtime never saw, which it then reports
// or crashes on when they are freed. So the interposer is compiled out there
// (SwiftPM's --sanitize passes -fsanitize to C targets too), or on request
// with -DUVC_MALLOC_COUNTER_DISABLED (`-Xcc -DUVC_MALLOC_COUNTER_DISABLED`).
#if defined(UVC_MALLOC_COUNTER_DISABLED) || __has_feature(address_sanitizer) || \
    __has_feature(thread_sanitizer) || defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)

long uvc_malloc_counter_thread_total(void) { return 0; }

int uvc_malloc_counter_is_counting(void) { return 0; }

#else

extern void *__libc_malloc(size_t size);
extern void *__libc_calloc(size_t count, size_t size);
extern void *__libc_realloc(void *ptr, size_t size);
extern void *__libc_memalign(size_t alignment, size_t size);
extern void __libc_free(void *ptr);

static __thread long thread_allocations;

long uvc_malloc_counter_thread_total(void) { return thread_allocations; }

int uvc_malloc_counter_is_counting(void) { return 1; }

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

#endif
