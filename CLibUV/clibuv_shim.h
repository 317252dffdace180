// Shim for libuv: the one header the CLibUV module imports.
//
// Swift cannot import variadic C functions, so the few we need get a
// static inline wrapper with a fixed signature here. The name of this file is
// unique on purpose: a header called `shim.h` collides with other packages'.
#ifndef CLIBUV_SHIM_H
#define CLIBUV_SHIM_H

#include <uv.h>

#if defined(__linux__)
// eventfd for UVLoop's cross-thread wake-up (UVLoop.Wakeup.swift): Glibc's
// Swift module does not import <sys/eventfd.h>.
#include <sys/eventfd.h>
#endif

/// `uv_loop_configure(loop, UV_LOOP_BLOCK_SIGNAL, signum)` without varargs.
static inline int clibuv_loop_block_signal(uv_loop_t *loop, int signum) {
    return uv_loop_configure(loop, UV_LOOP_BLOCK_SIGNAL, signum);
}

#endif /* CLIBUV_SHIM_H */
