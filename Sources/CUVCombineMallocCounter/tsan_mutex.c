// ThreadSanitizer annotations for Swift's Synchronization.Mutex on Linux,
// compiled only into ThreadSanitizer builds (`make tsan`).
//
// Why: Mutex's fast paths are inlined into our code (TSan sees their
// atomics), but a contended lock or unlock goes through _lockSlow and
// _unlockSlow in libswiftSynchronization.so, which is not instrumented: the
// lock is taken by an uninstrumented compare-exchange or by the kernel
// (FUTEX_LOCK_PI) and released by FUTEX_UNLOCK_PI. TSan then sees no
// happens-before edge between two critical sections and reports the state
// they protect as racing. (A four-thread counter under a Mutex, built with
// -sanitize=thread, reports "Swift access race" without this file.)
//
// How: this file defines the two slow-path symbols, so the test binary's
// calls (from Mutex code inlined into our modules) bind here. Each calls the
// library's own function, found with dlsym(RTLD_NEXT), and tells TSan what
// happened: acquire after locking, release before unlocking, on the
// address of the mutex word, which is also where the inlined fast paths'
// atomics synchronise. Both are Swift methods: `self` (the mutex word's
// address) arrives in the swiftself register, declared here as a
// swift_context parameter of a swiftcall function.
#ifndef __has_feature
#define __has_feature(feature) 0
#endif

#if __has_feature(thread_sanitizer) && defined(__linux__)
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

void __tsan_acquire(void *addr);
void __tsan_release(void *addr);

// Synchronization._MutexHandle._lockSlow(_: UInt32) and ._unlockSlow().
#define UVC_LOCK_SLOW "$s15Synchronization12_MutexHandleV9_lockSlowyys6UInt32VF"
#define UVC_UNLOCK_SLOW "$s15Synchronization12_MutexHandleV11_unlockSlowyyF"

#define UVC_SWIFTCALL __attribute__((swiftcall))
#define UVC_SWIFT_SELF __attribute__((swift_context))

typedef UVC_SWIFTCALL void (*uvc_lock_slow)(uint32_t self_id, UVC_SWIFT_SELF void *handle);
typedef UVC_SWIFTCALL void (*uvc_unlock_slow)(UVC_SWIFT_SELF void *handle);

static uvc_lock_slow real_lock_slow;
static uvc_unlock_slow real_unlock_slow;

// Resolved before any Swift code runs, so no thread reads them while they
// are written.
__attribute__((constructor)) static void uvc_tsan_mutex_resolve(void) {
    real_lock_slow = (uvc_lock_slow)dlsym(RTLD_NEXT, UVC_LOCK_SLOW);
    real_unlock_slow = (uvc_unlock_slow)dlsym(RTLD_NEXT, UVC_UNLOCK_SLOW);
    if (real_lock_slow == NULL || real_unlock_slow == NULL) {
        fprintf(stderr, "tsan_mutex.c: Synchronization's Mutex slow paths not found (%s)\n", dlerror());
        abort();
    }
}

UVC_SWIFTCALL void uvc_tsan_lock_slow(uint32_t self_id, UVC_SWIFT_SELF void *handle) __asm__(UVC_LOCK_SLOW);
UVC_SWIFTCALL void uvc_tsan_unlock_slow(UVC_SWIFT_SELF void *handle) __asm__(UVC_UNLOCK_SLOW);

UVC_SWIFTCALL void uvc_tsan_lock_slow(uint32_t self_id, UVC_SWIFT_SELF void *handle) {
    real_lock_slow(self_id, handle);
    __tsan_acquire(handle);
}

UVC_SWIFTCALL void uvc_tsan_unlock_slow(UVC_SWIFT_SELF void *handle) {
    __tsan_release(handle);
    real_unlock_slow(handle);
}

#else
// Keeps the translation unit non-empty outside ThreadSanitizer builds.
typedef int uvc_tsan_mutex_unused;
#endif
