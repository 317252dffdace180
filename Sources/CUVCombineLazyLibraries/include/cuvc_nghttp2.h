// libnghttp2 (libnghttp2.so.14) loaded when the first connection that may
// speak HTTP/2 is made (an https connection that offers h2 in ALPN, or a
// prior-knowledge h2c one), not when the process starts (issue 30: see
// cuvc_openssl.h; the C library then starts without nghttp2).
//
// nghttp2.h gives the types and constants; the functions come from a table
// filled by dlopen/dlsym, so nothing that imports this module links
// libnghttp2. Each field has the type of the function it holds
// (`__typeof__`) and its name without the `nghttp2_` prefix, so Swift calls
// `nghttp2.session_mem_recv(session, bytes, count)` for
// `nghttp2_session_mem_recv(session, bytes, count)`.
#ifndef CUVC_NGHTTP2_H
#define CUVC_NGHTTP2_H

#include <stddef.h>

#if !defined(__clang__) && !defined(_Nonnull)
#define _Nonnull
#define _Nullable
#endif
#include <nghttp2/nghttp2.h>

// Debian 12's 1.52.0-1+deb12u2 and later carry the backported
// nghttp2_option_set_max_continuations (CVE-2024-28182); docs/http2.md.
#if NGHTTP2_VERSION_NUM < 0x013400
#error "UVCombineHTTP2 needs libnghttp2 1.52 or later"
#endif

/// The functions UVCombineHTTP2's client connection calls, without their
/// `nghttp2_` prefix.
#define CUVC_NGHTTP2_FUNCTIONS(F) \
    F(strerror) \
    F(session_callbacks_new) F(session_callbacks_del) \
    F(session_callbacks_set_on_begin_frame_callback) F(session_callbacks_set_on_begin_headers_callback) \
    F(session_callbacks_set_on_header_callback) F(session_callbacks_set_on_frame_recv_callback) \
    F(session_callbacks_set_on_data_chunk_recv_callback) F(session_callbacks_set_on_stream_close_callback) \
    F(session_callbacks_set_on_frame_not_send_callback) F(session_callbacks_set_on_frame_send_callback) \
    F(session_callbacks_set_on_invalid_frame_recv_callback) F(session_callbacks_set_error_callback2) \
    F(option_new) F(option_del) F(option_set_no_auto_window_update) F(option_set_max_continuations) \
    F(option_set_max_settings) F(option_set_max_outbound_ack) F(option_set_max_deflate_dynamic_table_size) \
    F(option_set_no_closed_streams) \
    F(session_client_new3) F(session_del) F(session_set_user_data) F(session_set_local_window_size) \
    F(session_mem_recv) F(session_mem_send) F(session_want_read) F(session_want_write) \
    F(session_get_outbound_queue_size) F(session_get_remote_settings) F(session_get_remote_window_size) \
    F(session_get_stream_remote_window_size) F(session_get_last_proc_stream_id) \
    F(session_consume_connection) F(session_consume_stream) F(session_resume_data) \
    F(session_terminate_session) \
    F(submit_settings) F(submit_request) F(submit_rst_stream) F(submit_ping) F(submit_goaway)

#define CUVC_NGHTTP2_FIELD(name) __typeof__(nghttp2_##name) *_Nonnull name;

/// nghttp2's functions, one field per function, named as nghttp2 names it
/// less the `nghttp2_` prefix.
typedef struct cuvc_nghttp2_functions {
    CUVC_NGHTTP2_FUNCTIONS(CUVC_NGHTTP2_FIELD)
} cuvc_nghttp2_functions;

#undef CUVC_NGHTTP2_FIELD

/// The versioned name loaded by `cuvc_nghttp2_load`.
#define CUVC_NGHTTP2_SONAME "libnghttp2.so.14"

/// The process's nghttp2: loads libnghttp2.so.14 (RTLD_NOW | RTLD_LOCAL)
/// and resolves every function at the first call, once per process,
/// whichever thread calls; later calls return the same table, or the same
/// failure. NULL when the library or a function is missing, with dlerror's
/// reason in `*reason` (a string that lives as long as the process).
const cuvc_nghttp2_functions *_Nullable cuvc_nghttp2_load(const char *_Nullable *_Nonnull reason);

/// The same from the library named, every call anew (it stays loaded):
/// for tests of a missing or wrong library. Returns a table the caller
/// frees with `free`, or NULL with the reason written into `reason`
/// (`capacity` bytes, NUL-terminated).
cuvc_nghttp2_functions *_Nullable cuvc_nghttp2_load_from(const char *_Nonnull soname, char *_Nonnull reason,
                                                         size_t capacity);

#endif /* CUVC_NGHTTP2_H */
