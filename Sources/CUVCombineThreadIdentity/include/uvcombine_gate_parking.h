/*
 * Parking for UVCombineCore's delivery gate
 * (Sources/UVCombineCore/Concurrency/DownstreamGate.swift): how a thread that
 * finds the gate held sleeps until the holder lets go.
 *
 * Why here and not a Swift Mutex: the gate's holder releases it with a plain
 * store (no atomic read-modify-write), which halves the cost of an
 * uncontended send (issue 32). A plain store cannot learn atomically that a
 * waiter went to sleep, so the release is "store the gate open, then load the
 * number of parked threads" and the parking side makes that store/load pair
 * safe with an asymmetric fence: the holder only keeps the compiler from
 * reordering the two (uvcombine_light_barrier), and a thread about to park
 * forces a full barrier on every running thread of the process
 * (membarrier(MEMBARRIER_CMD_PRIVATE_EXPEDITED), uvcombine_heavy_barrier).
 * Then either the holder sees the parked count or the parker sees the gate
 * open: no lost wake-up. Where membarrier is missing, parking also ends on a
 * timeout, so a lost wake-up costs at most that timeout, never a hang.
 *
 * Same C module as the thread identity: both are the core's few thread
 * primitives that Swift cannot spell (inline asm, futex, membarrier).
 */
#ifndef UVCOMBINE_GATE_PARKING_H
#define UVCOMBINE_GATE_PARKING_H

#include <stdint.h>

/* Keeps the compiler from moving memory accesses across this point; emits no
 * instruction. The holder's side of the asymmetric fence. */
static inline __attribute__((always_inline)) void uvcombine_light_barrier(void) {
    __asm__ volatile("" ::: "memory");
}

/* One spin-wait hint (x86 `pause`, AArch64 `yield`). */
static inline __attribute__((always_inline)) void uvcombine_spin_hint(void) {
#if defined(__x86_64__) || defined(__i386__)
    __asm__ volatile("pause" ::: "memory");
#elif defined(__aarch64__)
    __asm__ volatile("yield" ::: "memory");
#else
    __asm__ volatile("" ::: "memory");
#endif
}

/* A full memory barrier on every running thread of the process (the parking
 * side of the asymmetric fence). Returns 1 when that was done, 0 when the
 * system cannot (then only this thread fenced, and parking relies on its
 * timeout). Registers the process on first use. Any thread. */
int uvcombine_heavy_barrier(void);

/* Sleeps while *word == expected, at most timeout_ns nanoseconds, or until
 * uvcombine_unpark_all(word). May return early (spuriously). Any thread. */
void uvcombine_park(const uint32_t *word, uint32_t expected, int64_t timeout_ns);

/* Wakes every thread parked on word. Any thread. */
void uvcombine_unpark_all(const uint32_t *word);

#endif
