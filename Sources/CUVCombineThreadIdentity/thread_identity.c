#include "uvcombine_thread_identity.h"

#include <pthread.h>

/* Out of line on purpose: a caller sees an ordinary function, not glibc's
 * __attribute__((const)) declaration, so no read is merged or hoisted. */
uintptr_t uvcombine_thread_identity_slow(void) {
    return (uintptr_t)pthread_self();
}
