/*
 * The calling thread's identity for UVCombineCore's re-entrancy gates and
 * the loop's home-thread checks (Sources/UVCombineCore/Concurrency/ThreadIdentity.swift).
 *
 * Why C: Swift has no inline assembly, and the two ways Swift can reach the
 * thread pointer are both wrong or slow in the core's hot paths. glibc
 * declares pthread_self() __attribute__((const)), so LLVM merges two reads in
 * one function or hoists one out of a loop, also across an `await` that
 * resumes on another thread (issue 29). Hiding the call behind a function
 * the optimiser cannot see through fixed that but costs two calls per gate
 * entry (a subject's send, a merge's delivery), measured at 5 to 8 ns a
 * value on the one-subscriber path (issue 32).
 *
 * A volatile asm statement is neither merged nor moved across calls (an
 * await's suspension is one), and it is one instruction: the thread pointer
 * itself. The x86-64 psABI puts the thread pointer at %fs:0 (the TCB's first
 * word points to itself), which is also what glibc's and musl's
 * pthread_self() return there; on AArch64 it is TPIDR_EL0. Elsewhere the
 * out-of-line uvcombine_thread_identity_slow() calls pthread_self(), which the
 * optimiser cannot see through either.
 *
 * Header-only on the two Linux targets: nothing of it is linked but the
 * fallback, a few bytes.
 */
#ifndef UVCOMBINE_THREAD_IDENTITY_H
#define UVCOMBINE_THREAD_IDENTITY_H

#include <stdint.h>

/* pthread_self() as a number, in a function of its own: the fallback. */
uintptr_t uvcombine_thread_identity_slow(void);

/* A number identifying the calling thread: never 0, the same for every call
 * on one thread, different for threads alive at the same time. Any thread. */
static inline __attribute__((always_inline)) uintptr_t uvcombine_thread_identity(void) {
#if defined(__linux__) && defined(__x86_64__)
    uintptr_t self;
    __asm__ volatile("movq %%fs:0, %0" : "=r"(self));
    return self;
#elif defined(__linux__) && defined(__aarch64__)
    uintptr_t self;
    __asm__ volatile("mrs %0, tpidr_el0" : "=r"(self));
    return self;
#else
    return uvcombine_thread_identity_slow();
#endif
}

#endif
