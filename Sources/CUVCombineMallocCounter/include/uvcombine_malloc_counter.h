// Counts heap allocations made by the calling thread.
//
// Linked only on request (the product UVCombineAllocationCounting, and our
// own test targets), never through the test support module, which reaches
// it by weak references (CUVCombineAllocationHooks). It defines malloc,
// calloc, realloc and the aligned allocators, forwarding each to glibc's
// internal entry points and counting calls in a thread-local counter, so a
// test measures only its own thread while other tests run in parallel.
// Compiled out under sanitizers (see malloc_counter.c).
#ifndef UVCOMBINE_MALLOC_COUNTER_H
#define UVCOMBINE_MALLOC_COUNTER_H

/// The number of allocations (malloc, calloc, realloc, posix_memalign,
/// aligned_alloc, memalign) the calling thread made since it started.
long uvc_malloc_counter_thread_total(void);

/// 1 when allocations are counted; 0 in builds with AddressSanitizer or
/// ThreadSanitizer, or with UVC_MALLOC_COUNTER_DISABLED defined, where the
/// sanitizer owns malloc and uvc_malloc_counter_thread_total() stays 0.
int uvc_malloc_counter_is_counting(void);

#endif
