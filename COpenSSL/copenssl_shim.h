// Shim for OpenSSL 3: the one header the COpenSSL module imports.
//
// Several OpenSSL calls are macros over `SSL_ctrl`/`BIO_ctrl`, and some
// constants are expressions Swift does not import; each gets a static
// inline wrapper with a fixed signature here. The name of this file is
// unique on purpose: a header called `shim.h` collides with other packages'.
#ifndef COPENSSL_SHIM_H
#define COPENSSL_SHIM_H

#include <openssl/bio.h>
#include <openssl/err.h>
#include <openssl/ssl.h>
#include <openssl/x509.h>
#include <openssl/x509_vfy.h>
#include <openssl/x509v3.h>

/// `SSL_set_tlsext_host_name(ssl, name)`: the name sent as SNI.
static inline int copenssl_set_sni_host_name(SSL *ssl, const char *name) {
    return (int)SSL_set_tlsext_host_name(ssl, name);
}

/// `SSL_CTX_set_min_proto_version(ctx, version)`.
static inline int copenssl_ctx_set_min_proto_version(SSL_CTX *ctx, int version) {
    return (int)SSL_CTX_set_min_proto_version(ctx, version);
}

/// `SSL_CTX_set_options(ctx, SSL_OP_NO_RENEGOTIATION)`: a client that
/// refuses TLS 1.2 renegotiation (a write can then never need a read).
static inline void copenssl_ctx_refuse_renegotiation(SSL_CTX *ctx) {
    SSL_CTX_set_options(ctx, SSL_OP_NO_RENEGOTIATION);
}

/// `BIO_get_mem_data(bio, &data)`: the bytes a memory BIO holds, without
/// copying them; returns their count.
static inline long copenssl_bio_get_mem_data(BIO *bio, char **data) {
    return BIO_get_mem_data(bio, data);
}

/// `BIO_reset(bio)`: empties a read-write memory BIO.
static inline int copenssl_bio_reset(BIO *bio) {
    return (int)BIO_reset(bio);
}

#endif /* COPENSSL_SHIM_H */
