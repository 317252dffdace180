// Shim for zlib: the one header the CZlib module imports.
//
// `inflateInit2` and `deflateInit2` are macros (they pass the library's
// version and the stream's size to `inflateInit2_`), which Swift cannot
// import; static inline wrappers with fixed signatures stand in (the
// session inflates; tests and benchmarks deflate their fixtures). The name of this file is
// unique on purpose: a header called `shim.h` collides with other packages'.
#ifndef CZLIB_SHIM_H
#define CZLIB_SHIM_H

#include <zlib.h>

/// `inflateInit2(stream, windowBits)` as a function.
static inline int czlib_inflate_init2(z_streamp stream, int windowBits) {
    return inflateInit2(stream, windowBits);
}

/// `deflateInit2(stream, level, Z_DEFLATED, windowBits, 8,
/// Z_DEFAULT_STRATEGY)` as a function.
static inline int czlib_deflate_init2(z_streamp stream, int level, int windowBits) {
    return deflateInit2(stream, level, Z_DEFLATED, windowBits, 8, Z_DEFAULT_STRATEGY);
}

#endif /* CZLIB_SHIM_H */
