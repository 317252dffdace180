#include "uvcombine_gate_parking.h"

#include <time.h>

#if defined(__linux__)
#include <limits.h>
#include <linux/futex.h>
#include <linux/membarrier.h>
#include <sys/syscall.h>
#include <unistd.h>

/* 0: not tried yet, 1: registered and working, -1: unavailable. */
static int membarrier_state;

int uvcombine_heavy_barrier(void) {
    int state = __atomic_load_n(&membarrier_state, __ATOMIC_ACQUIRE);
    if (state == 0) {
        /* Registering twice is harmless: two racing first users both do it. */
        long ok = syscall(SYS_membarrier, MEMBARRIER_CMD_REGISTER_PRIVATE_EXPEDITED, 0, 0);
        state = ok == 0 ? 1 : -1;
        __atomic_store_n(&membarrier_state, state, __ATOMIC_RELEASE);
    }
    __atomic_thread_fence(__ATOMIC_SEQ_CST);
    if (state == 1 && syscall(SYS_membarrier, MEMBARRIER_CMD_PRIVATE_EXPEDITED, 0, 0) == 0) return 1;
    return 0;
}

void uvcombine_park(const uint32_t *word, uint32_t expected, int64_t timeout_ns) {
    struct timespec timeout = { (time_t)(timeout_ns / 1000000000), (long)(timeout_ns % 1000000000) };
    syscall(SYS_futex, word, FUTEX_WAIT_PRIVATE, expected, &timeout, NULL, 0);
}

void uvcombine_unpark_all(const uint32_t *word) {
    syscall(SYS_futex, word, FUTEX_WAKE_PRIVATE, INT_MAX, NULL, NULL, 0);
}

#else

/* No futex or membarrier: parking is a short sleep, and the timeout is the
 * only wake-up. */
int uvcombine_heavy_barrier(void) {
    __atomic_thread_fence(__ATOMIC_SEQ_CST);
    return 0;
}

void uvcombine_park(const uint32_t *word, uint32_t expected, int64_t timeout_ns) {
    if (__atomic_load_n(word, __ATOMIC_ACQUIRE) != expected) return;
    struct timespec pause = { 0, timeout_ns < 50000 ? (long)timeout_ns : 50000 };
    nanosleep(&pause, NULL);
}

void uvcombine_unpark_all(const uint32_t *word) { (void)word; }

#endif
