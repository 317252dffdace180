// Shim for libnghttp2: the one header the CNGHTTP2 module imports.
//
// nghttp2's API imports into Swift as is; the shim only names the header
// (a uniquely named file: a header called `shim.h` collides with other
// packages') and checks the version the HTTP/2 layer was written against.
// Debian 12's 1.52.0-1+deb12u2 and later carry the backported
// `nghttp2_option_set_max_continuations` (CVE-2024-28182), which
// UVCombineHTTP2 calls; docs/http2.md.
#ifndef CNGHTTP2_SHIM_H
#define CNGHTTP2_SHIM_H

#include <nghttp2/nghttp2.h>

#if NGHTTP2_VERSION_NUM < 0x013400
#error "UVCombineHTTP2 needs libnghttp2 1.52 or later"
#endif

#endif /* CNGHTTP2_SHIM_H */
