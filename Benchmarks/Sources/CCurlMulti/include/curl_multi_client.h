// libcurl's multi interface as a benchmark peer (issue 33): a small C
// client that keeps `width` transfers of one URL in flight, each finished
// transfer starting the next, until a run's count is done. The same loop
// curl's own tools use: curl_multi_perform, curl_multi_info_read,
// curl_multi_poll.
//
// Threading: one client per thread; every call on the thread that made it
// (the measuring thread, so that its CPU time and mallocs are counted as
// the other clients' are).
//
//   cm_client *c = cm_client_create("http://127.0.0.1:8080/small.txt",
//                                   CM_HTTP2_PRIOR_KNOWLEDGE, NULL, 100, 0);
//   cm_client_run(c, 3000);   // 0, or a CURLcode / CURLMcode on failure
//   cm_client_destroy(c);
#ifndef CURL_MULTI_CLIENT_H
#define CURL_MULTI_CLIENT_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/// Which HTTP the client speaks.
typedef enum {
    /// HTTP/1.1 only: up to `width` connections (CURLMOPT_MAX_HOST_CONNECTIONS).
    CM_HTTP1_1 = 0,
    /// HTTP/2 over cleartext with prior knowledge, every transfer
    /// multiplexed on one connection (CURLOPT_PIPEWAIT).
    CM_HTTP2_PRIOR_KNOWLEDGE = 1,
    /// HTTP/2 negotiated by ALPN over TLS, multiplexed on one connection.
    CM_HTTP2_TLS = 2,
} cm_version;

typedef struct cm_client cm_client;

/// A client for `url` (copied). `ca_file`: the PEM file of the server's
/// certificate (https), or NULL. `fresh_handles`: 0 reuses `width` easy
/// handles (removed and added again); 1 makes and frees an easy handle for
/// every transfer (as `curl --parallel` does). NULL when libcurl has no
/// HTTP/2 (a message goes to stderr).
cm_client *cm_client_create(const char *url, cm_version version, const char *ca_file, int width, int fresh_handles);

/// Runs `total` transfers (`total` >= width), `width` at a time; returns
/// when all finished. 0 on success; otherwise the first failure's code
/// (a CURLcode, or 1000 + a CURLMcode, or 2000 + an HTTP status other
/// than 200), after which the client is unusable.
int cm_client_run(cm_client *client, long total);

/// Body bytes received since the client was made.
long long cm_client_body_bytes(const cm_client *client);

/// Connections libcurl opened since the client was made (the sum of
/// CURLINFO_NUM_CONNECTS over the transfers).
long cm_client_connections(const cm_client *client);

/// The HTTP version of the last finished transfer (CURLINFO_HTTP_VERSION:
/// 2 = HTTP/1.1, 3 = HTTP/2).
long cm_client_last_http_version(const cm_client *client);

/// libcurl's version as a number (0xXXYYZZ: 7.88.1 is 0x075801).
/// Before 8.0.0 HTTP/2 with prior knowledge fails on a reused connection
/// ("Error in the HTTP2 framing layer", curl issue 10634), so its
/// multiplexed h2c workload cannot run.
unsigned int cm_libcurl_version_number(void);

/// Frees the handles and the client.
void cm_client_destroy(cm_client *client);

#ifdef __cplusplus
}
#endif

#endif
