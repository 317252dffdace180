// OpenSSL 3 (libssl.so.3, libcrypto.so.3) loaded at the first TLS context,
// not when the process starts (issue 30: loading OpenSSL costs a C host
// about 1.5 ms of start-up whether or not it ever speaks https).
//
// The OpenSSL headers give the types and constants; the functions come
// from a table filled by dlopen/dlsym, so nothing that imports this module
// links libssl or libcrypto. Each field has the type of the function it
// holds (`__typeof__`), so a prototype that changes fails to compile here.
// Swift calls them as `openSSL.SSL_read_ex(...)`.
//
// The names are cuvc_, not uvc_: libuvcombine-c.so exports uvc_* only.
#ifndef CUVC_OPENSSL_H
#define CUVC_OPENSSL_H

#include <stddef.h>

#if !defined(__clang__) && !defined(_Nonnull)
#define _Nonnull
#define _Nullable
#endif
#include <openssl/bio.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/ssl.h>
#include <openssl/x509.h>
#include <openssl/x509_vfy.h>
#include <openssl/x509v3.h>

/// The functions resolved from libssl.so.3. SSL_CTX_set_alpn_protos,
/// SSL_set_alpn_protos (a connection that offers h2) and
/// SSL_get0_alpn_selected are ALPN's.
#define CUVC_LIBSSL_FUNCTIONS(F) \
    F(TLS_client_method) F(SSL_CTX_new) F(SSL_CTX_free) F(SSL_CTX_ctrl) F(SSL_CTX_set_options) \
    F(SSL_CTX_set_alpn_protos) F(SSL_set_alpn_protos) F(SSL_CTX_set_verify) F(SSL_CTX_load_verify_file) F(SSL_CTX_load_verify_dir) \
    F(SSL_new) F(SSL_free) F(SSL_ctrl) F(SSL_set_bio) F(SSL_set_connect_state) F(SSL_get0_param) \
    F(SSL_set_hostflags) F(SSL_set1_host) F(SSL_do_handshake) F(SSL_get_error) F(SSL_get_verify_result) \
    F(SSL_get0_alpn_selected) F(SSL_read_ex) F(SSL_write_ex) F(SSL_pending) F(SSL_has_pending)

/// The functions resolved from libcrypto.so.3. The EVP digests are Digest
/// authentication's (UVCombineHTTPAuthentication).
#define CUVC_LIBCRYPTO_FUNCTIONS(F) \
    F(BIO_new) F(BIO_s_mem) F(BIO_write) F(BIO_ctrl) F(BIO_ctrl_pending) \
    F(ERR_clear_error) F(ERR_get_error) F(ERR_error_string_n) \
    F(X509_VERIFY_PARAM_set1_ip_asc) F(X509_get_default_cert_dir) F(X509_get_default_cert_dir_env) \
    F(X509_get_default_cert_file) F(X509_get_default_cert_file_env) F(X509_verify_cert_error_string) \
    F(EVP_md5) F(EVP_sha256) F(EVP_sha512_256) F(EVP_Digest)

#define CUVC_OPENSSL_FIELD(name) __typeof__(name) *_Nonnull name;

/// OpenSSL's functions, one field per function, named as OpenSSL names it.
typedef struct cuvc_openssl_functions {
    CUVC_LIBSSL_FUNCTIONS(CUVC_OPENSSL_FIELD)
    CUVC_LIBCRYPTO_FUNCTIONS(CUVC_OPENSSL_FIELD)
} cuvc_openssl_functions;

#undef CUVC_OPENSSL_FIELD

/// The versioned names loaded by `cuvc_openssl_load`.
#define CUVC_LIBSSL_SONAME "libssl.so.3"
#define CUVC_LIBCRYPTO_SONAME "libcrypto.so.3"

/// The process's OpenSSL: loads libcrypto.so.3 and libssl.so.3
/// (RTLD_NOW | RTLD_LOCAL) and resolves every function at the first call,
/// once per process, whichever thread calls; later calls return the same
/// table, or the same failure. NULL when a library or a function is
/// missing, with dlerror's reason in `*reason` (a string that lives as
/// long as the process).
const cuvc_openssl_functions *_Nullable cuvc_openssl_load(const char *_Nullable *_Nonnull reason);

/// The same from the libraries named, every call anew (the libraries stay
/// loaded): for tests of a missing or wrong library. Returns a table the
/// caller frees with `free`, or NULL with the reason written into
/// `reason` (`capacity` bytes, NUL-terminated).
cuvc_openssl_functions *_Nullable cuvc_openssl_load_from(const char *_Nonnull libssl, const char *_Nonnull libcrypto,
                                                         char *_Nonnull reason, size_t capacity);

// OpenSSL's macros over SSL_ctrl, SSL_CTX_ctrl and BIO_ctrl (Swift imports
// no function-like macro), each given the table's function it calls:
// `cuvc_bio_reset(openSSL.BIO_ctrl, bio)`.

/// `SSL_set_tlsext_host_name(ssl, name)`: the name sent as SNI.
static inline int cuvc_ssl_set_sni_host_name(__typeof__(SSL_ctrl) *_Nonnull ssl_ctrl, SSL *_Nonnull ssl,
                                             const char *_Nonnull name) {
    return (int)ssl_ctrl(ssl, SSL_CTRL_SET_TLSEXT_HOSTNAME, TLSEXT_NAMETYPE_host_name, (void *)name);
}

/// `SSL_CTX_set_min_proto_version(ctx, version)`.
static inline int cuvc_ssl_ctx_set_min_proto_version(__typeof__(SSL_CTX_ctrl) *_Nonnull ctx_ctrl,
                                                     SSL_CTX *_Nonnull ctx, int version) {
    return (int)ctx_ctrl(ctx, SSL_CTRL_SET_MIN_PROTO_VERSION, version, NULL);
}

/// `SSL_OP_NO_RENEGOTIATION`, for `SSL_CTX_set_options`: a client that
/// refuses TLS 1.2 renegotiation (a write can then never need a read).
static const uint64_t cuvc_ssl_op_no_renegotiation = SSL_OP_NO_RENEGOTIATION;

/// `BIO_get_mem_data(bio, &data)`: the bytes a memory BIO holds, without
/// copying them; returns their count.
static inline long cuvc_bio_get_mem_data(__typeof__(BIO_ctrl) *_Nonnull bio_ctrl, BIO *_Nonnull bio,
                                         char *_Nullable *_Nonnull data) {
    return bio_ctrl(bio, BIO_CTRL_INFO, 0, (char *)data);
}

/// `BIO_reset(bio)`: empties a read-write memory BIO.
static inline int cuvc_bio_reset(__typeof__(BIO_ctrl) *_Nonnull bio_ctrl, BIO *_Nonnull bio) {
    return (int)bio_ctrl(bio, BIO_CTRL_RESET, 0, NULL);
}

#endif /* CUVC_OPENSSL_H */
