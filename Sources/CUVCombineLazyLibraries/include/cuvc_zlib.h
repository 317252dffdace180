// zlib (libz.so.1) loaded at the first compressed body or permessage-deflate
// WebSocket, not when the process starts (issue 30: see cuvc_openssl.h).
//
// zlib.h gives the types and constants; the functions come from a table
// filled by dlopen/dlsym, so nothing that imports this module links libz.
// Each field has the type of the function it holds (`__typeof__`). Swift
// calls them as `zlib.inflate(stream, Z_NO_FLUSH)`.
#ifndef CUVC_ZLIB_H
#define CUVC_ZLIB_H

#include <stddef.h>

#if !defined(__clang__) && !defined(_Nonnull)
#define _Nonnull
#define _Nullable
#endif
#include <zlib.h>

#define CUVC_ZLIB_FUNCTIONS(F) \
    F(inflateInit2_) F(inflate) F(inflateEnd) F(inflateReset) F(inflateReset2) \
    F(deflateInit2_) F(deflate) F(deflateEnd) F(deflateReset)

#define CUVC_ZLIB_FIELD(name) __typeof__(name) *_Nonnull name;

/// zlib's functions, one field per function, named as zlib names it.
typedef struct cuvc_zlib_functions {
    CUVC_ZLIB_FUNCTIONS(CUVC_ZLIB_FIELD)
} cuvc_zlib_functions;

#undef CUVC_ZLIB_FIELD

/// The versioned name loaded by `cuvc_zlib_load`.
#define CUVC_ZLIB_SONAME "libz.so.1"

/// The process's zlib: loads libz.so.1 (RTLD_NOW | RTLD_LOCAL) and resolves
/// every function at the first call, once per process, whichever thread
/// calls; later calls return the same table, or the same failure. NULL
/// when the library or a function is missing, with dlerror's reason in
/// `*reason` (a string that lives as long as the process).
const cuvc_zlib_functions *_Nullable cuvc_zlib_load(const char *_Nullable *_Nonnull reason);

/// The same from the library named, every call anew (it stays loaded):
/// for tests of a missing or wrong library. Returns a table the caller
/// frees with `free`, or NULL with the reason written into `reason`
/// (`capacity` bytes, NUL-terminated).
cuvc_zlib_functions *_Nullable cuvc_zlib_load_from(const char *_Nonnull soname, char *_Nonnull reason, size_t capacity);

/// `inflateInit2(stream, windowBits)`, given the table's `inflateInit2_`:
/// `cuvc_inflate_init2(zlib.inflateInit2_, stream, 15)`.
static inline int cuvc_inflate_init2(__typeof__(inflateInit2_) *_Nonnull inflate_init2, z_streamp _Nonnull stream,
                                     int windowBits) {
    return inflate_init2(stream, windowBits, ZLIB_VERSION, (int)sizeof(z_stream));
}

/// `deflateInit2(stream, level, Z_DEFLATED, windowBits, 8,
/// Z_DEFAULT_STRATEGY)`, given the table's `deflateInit2_`.
static inline int cuvc_deflate_init2(__typeof__(deflateInit2_) *_Nonnull deflate_init2, z_streamp _Nonnull stream,
                                     int level, int windowBits) {
    return deflate_init2(stream, level, Z_DEFLATED, windowBits, 8, Z_DEFAULT_STRATEGY, ZLIB_VERSION,
                            (int)sizeof(z_stream));
}

#endif /* CUVC_ZLIB_H */
