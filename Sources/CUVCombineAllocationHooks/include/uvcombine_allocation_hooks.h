// How UVCombineTesting's AllocationCounter reaches the malloc counter
// without linking it: the counter (CUVCombineMallocCounter, the opt-in
// product UVCombineAllocationCounting) interposes malloc for the whole
// process, which a user of the test support module must not get by
// surprise (next to jemalloc, heaptrack or a sanitizer). These functions
// call the counter through weak references: when the process links it they
// forward to it, otherwise they report nothing counted.
#ifndef UVCOMBINE_ALLOCATION_HOOKS_H
#define UVCOMBINE_ALLOCATION_HOOKS_H

/// The calling thread's allocations so far, or 0 when the counter is not linked.
long uvc_allocation_hooks_thread_total(void);

/// 1 when the counter is linked and counting (not compiled out under a sanitizer), else 0.
int uvc_allocation_hooks_is_counting(void);

#endif
