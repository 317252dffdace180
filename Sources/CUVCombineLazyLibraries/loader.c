// dlopen and dlsym for cuvc_openssl.h, cuvc_zlib.h and cuvc_nghttp2.h: each library opened
// with RTLD_NOW | RTLD_LOCAL (its symbols resolved at once and kept out of
// the global scope, so they cannot interpose on another copy in the host),
// every function looked up once, the table kept for the process (the
// libraries are never closed: OpenSSL keeps per-thread state and atexit
// handlers that must outlive any of our calls).
#include "cuvc_nghttp2.h"
#include "cuvc_openssl.h"
#include "cuvc_zlib.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/// Writes dlerror's text, or `fallback`, into `reason`.
static void copy_reason(char *reason, size_t capacity, const char *fallback) {
    const char *text = dlerror();
    snprintf(reason, capacity, "%s", text != NULL ? text : fallback);
}

/// Opens `soname`; NULL with the reason written.
static void *open_library(const char *soname, char *reason, size_t capacity) {
    void *handle = dlopen(soname, RTLD_NOW | RTLD_LOCAL);
    if (handle == NULL) copy_reason(reason, capacity, soname);
    return handle;
}

/// Looks `name` up in `handle` into `*slot`; 0, or -1 with the reason.
static int resolve(void *handle, const char *name, void **slot, char *reason, size_t capacity) {
    dlerror();
    *slot = dlsym(handle, name);
    if (*slot != NULL) return 0;
    copy_reason(reason, capacity, name);
    return -1;
}

// MARK: OpenSSL

static int fill_openssl(cuvc_openssl_functions *table, const char *libssl, const char *libcrypto, char *reason,
                        size_t capacity) {
    // libcrypto first: a missing libcrypto is then named as itself, not
    // as libssl's unresolved dependency.
    void *crypto = open_library(libcrypto, reason, capacity);
    if (crypto == NULL) return -1;
    void *ssl = open_library(libssl, reason, capacity);
    if (ssl == NULL) return -1;
#define CUVC_RESOLVE(library, name) \
    if (resolve(library, #name, (void **)&table->name, reason, capacity) != 0) return -1;
#define CUVC_RESOLVE_SSL(name) CUVC_RESOLVE(ssl, name)
#define CUVC_RESOLVE_CRYPTO(name) CUVC_RESOLVE(crypto, name)
    CUVC_LIBSSL_FUNCTIONS(CUVC_RESOLVE_SSL)
    CUVC_LIBCRYPTO_FUNCTIONS(CUVC_RESOLVE_CRYPTO)
#undef CUVC_RESOLVE_SSL
#undef CUVC_RESOLVE_CRYPTO
    return 0;
}

static cuvc_openssl_functions openssl_table;
static const cuvc_openssl_functions *openssl_loaded;
static char openssl_reason[512];
static pthread_once_t openssl_once = PTHREAD_ONCE_INIT;

static void load_openssl_once(void) {
    if (fill_openssl(&openssl_table, CUVC_LIBSSL_SONAME, CUVC_LIBCRYPTO_SONAME, openssl_reason,
                     sizeof openssl_reason) == 0) {
        openssl_loaded = &openssl_table;
    }
}

const cuvc_openssl_functions *cuvc_openssl_load(const char **reason) {
    pthread_once(&openssl_once, load_openssl_once);
    *reason = openssl_loaded != NULL ? NULL : openssl_reason;
    return openssl_loaded;
}

cuvc_openssl_functions *cuvc_openssl_load_from(const char *libssl, const char *libcrypto, char *reason,
                                               size_t capacity) {
    cuvc_openssl_functions *table = malloc(sizeof *table);
    if (table == NULL) {
        snprintf(reason, capacity, "out of memory");
        return NULL;
    }
    if (fill_openssl(table, libssl, libcrypto, reason, capacity) != 0) {
        free(table);
        return NULL;
    }
    return table;
}

// MARK: zlib

static int fill_zlib(cuvc_zlib_functions *table, const char *soname, char *reason, size_t capacity) {
    void *z = open_library(soname, reason, capacity);
    if (z == NULL) return -1;
#define CUVC_RESOLVE_Z(name) CUVC_RESOLVE(z, name)
    CUVC_ZLIB_FUNCTIONS(CUVC_RESOLVE_Z)
#undef CUVC_RESOLVE_Z
    return 0;
}

static cuvc_zlib_functions zlib_table;
static const cuvc_zlib_functions *zlib_loaded;
static char zlib_reason[512];
static pthread_once_t zlib_once = PTHREAD_ONCE_INIT;

static void load_zlib_once(void) {
    if (fill_zlib(&zlib_table, CUVC_ZLIB_SONAME, zlib_reason, sizeof zlib_reason) == 0) zlib_loaded = &zlib_table;
}

const cuvc_zlib_functions *cuvc_zlib_load(const char **reason) {
    pthread_once(&zlib_once, load_zlib_once);
    *reason = zlib_loaded != NULL ? NULL : zlib_reason;
    return zlib_loaded;
}

cuvc_zlib_functions *cuvc_zlib_load_from(const char *soname, char *reason, size_t capacity) {
    cuvc_zlib_functions *table = malloc(sizeof *table);
    if (table == NULL) {
        snprintf(reason, capacity, "out of memory");
        return NULL;
    }
    if (fill_zlib(table, soname, reason, capacity) != 0) {
        free(table);
        return NULL;
    }
    return table;
}

// MARK: nghttp2

static int fill_nghttp2(cuvc_nghttp2_functions *table, const char *soname, char *reason, size_t capacity) {
    void *library = open_library(soname, reason, capacity);
    if (library == NULL) return -1;
// The field is `name`, the symbol `nghttp2_name`.
#define CUVC_RESOLVE_NGHTTP2(name) \
    if (resolve(library, "nghttp2_" #name, (void **)&table->name, reason, capacity) != 0) return -1;
    CUVC_NGHTTP2_FUNCTIONS(CUVC_RESOLVE_NGHTTP2)
#undef CUVC_RESOLVE_NGHTTP2
    return 0;
}

static cuvc_nghttp2_functions nghttp2_table;
static const cuvc_nghttp2_functions *nghttp2_loaded;
static char nghttp2_reason[512];
static pthread_once_t nghttp2_once = PTHREAD_ONCE_INIT;

static void load_nghttp2_once(void) {
    if (fill_nghttp2(&nghttp2_table, CUVC_NGHTTP2_SONAME, nghttp2_reason, sizeof nghttp2_reason) == 0) {
        nghttp2_loaded = &nghttp2_table;
    }
}

const cuvc_nghttp2_functions *cuvc_nghttp2_load(const char **reason) {
    pthread_once(&nghttp2_once, load_nghttp2_once);
    *reason = nghttp2_loaded != NULL ? NULL : nghttp2_reason;
    return nghttp2_loaded;
}

cuvc_nghttp2_functions *cuvc_nghttp2_load_from(const char *soname, char *reason, size_t capacity) {
    cuvc_nghttp2_functions *table = malloc(sizeof *table);
    if (table == NULL) {
        snprintf(reason, capacity, "out of memory");
        return NULL;
    }
    if (fill_nghttp2(table, soname, reason, capacity) != 0) {
        free(table);
        return NULL;
    }
    return table;
}
#undef CUVC_RESOLVE
