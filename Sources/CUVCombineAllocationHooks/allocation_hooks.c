// Weak references to the malloc counter's two functions (see the header):
// resolved by the linker when CUVCombineMallocCounter is part of the
// process, NULL otherwise.
#include "uvcombine_allocation_hooks.h"

extern long uvc_malloc_counter_thread_total(void) __attribute__((weak));
extern int uvc_malloc_counter_is_counting(void) __attribute__((weak));

long uvc_allocation_hooks_thread_total(void) {
  return uvc_malloc_counter_thread_total ? uvc_malloc_counter_thread_total() : 0;
}

int uvc_allocation_hooks_is_counting(void) {
  return uvc_malloc_counter_is_counting ? uvc_malloc_counter_is_counting() : 0;
}
