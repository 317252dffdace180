// libcurl's multi interface as a benchmark peer; see curl_multi_client.h.
#include "curl_multi_client.h"

#include <curl/curl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct cm_client {
    CURLM *multi;
    CURL **handles;        // `width` reused easy handles (fresh_handles == 0)
    int width;
    int fresh_handles;
    cm_version version;
    char *url;
    char *ca_file;
    long long body_bytes;
    long connections;
    long last_http_version;
};

static size_t cm_on_body(char *bytes, size_t size, size_t count, void *context) {
    (void)bytes;
    cm_client *client = context;
    client->body_bytes += (long long)(size * count);
    return size * count;
}

static CURL *cm_make_handle(cm_client *client) {
    CURL *easy = curl_easy_init();
    if (easy == NULL) return NULL;
    curl_easy_setopt(easy, CURLOPT_URL, client->url);
    curl_easy_setopt(easy, CURLOPT_WRITEFUNCTION, cm_on_body);
    curl_easy_setopt(easy, CURLOPT_WRITEDATA, client);
    curl_easy_setopt(easy, CURLOPT_NOSIGNAL, 1L);
    switch (client->version) {
    case CM_HTTP1_1:
        curl_easy_setopt(easy, CURLOPT_HTTP_VERSION, (long)CURL_HTTP_VERSION_1_1);
        break;
    case CM_HTTP2_PRIOR_KNOWLEDGE:
        curl_easy_setopt(easy, CURLOPT_HTTP_VERSION, (long)CURL_HTTP_VERSION_2_PRIOR_KNOWLEDGE);
        curl_easy_setopt(easy, CURLOPT_PIPEWAIT, 1L);
        break;
    case CM_HTTP2_TLS:
        curl_easy_setopt(easy, CURLOPT_HTTP_VERSION, (long)CURL_HTTP_VERSION_2TLS);
        curl_easy_setopt(easy, CURLOPT_PIPEWAIT, 1L);
        break;
    }
    if (client->ca_file != NULL) curl_easy_setopt(easy, CURLOPT_CAINFO, client->ca_file);
    return easy;
}

cm_client *cm_client_create(const char *url, cm_version version, const char *ca_file, int width, int fresh_handles) {
    static int initialised = 0;
    if (!initialised) {
        curl_global_init(CURL_GLOBAL_DEFAULT);
        initialised = 1;
    }
    curl_version_info_data *info = curl_version_info(CURLVERSION_NOW);
    if (version != CM_HTTP1_1 && !(info->features & CURL_VERSION_HTTP2)) {
        fprintf(stderr, "cm_client: libcurl %s has no HTTP/2\n", info->version);
        return NULL;
    }
    cm_client *client = calloc(1, sizeof *client);
    if (client == NULL) return NULL;
    client->multi = curl_multi_init();
    client->width = width;
    client->fresh_handles = fresh_handles;
    client->version = version;
    client->url = strdup(url);
    client->ca_file = ca_file != NULL ? strdup(ca_file) : NULL;
    client->handles = calloc((size_t)width, sizeof(CURL *));
    if (version == CM_HTTP1_1) {
        curl_multi_setopt(client->multi, CURLMOPT_PIPELINING, (long)CURLPIPE_NOTHING);
        curl_multi_setopt(client->multi, CURLMOPT_MAX_HOST_CONNECTIONS, (long)width);
        curl_multi_setopt(client->multi, CURLMOPT_MAXCONNECTS, (long)width);
    } else {
        curl_multi_setopt(client->multi, CURLMOPT_PIPELINING, (long)CURLPIPE_MULTIPLEX);
        curl_multi_setopt(client->multi, CURLMOPT_MAX_HOST_CONNECTIONS, 1L);
        curl_multi_setopt(client->multi, CURLMOPT_MAX_CONCURRENT_STREAMS, (long)width);
    }
    if (!fresh_handles) {
        for (int index = 0; index < width; index++) client->handles[index] = cm_make_handle(client);
    }
    return client;
}

/// Starts one transfer: a reused handle (`slot`) or a fresh one.
static int cm_start(cm_client *client, CURL *easy) {
    if (easy == NULL) easy = cm_make_handle(client);
    if (easy == NULL) return CURLE_OUT_OF_MEMORY;
    CURLMcode added = curl_multi_add_handle(client->multi, easy);
    return added == CURLM_OK ? 0 : 1000 + (int)added;
}

int cm_client_run(cm_client *client, long total) {
    if (total < client->width) return CURLE_BAD_FUNCTION_ARGUMENT;
    long to_start = total;
    long finished = 0;
    int failure = 0;
    for (int index = 0; index < client->width; index++) {
        to_start -= 1;
        failure = cm_start(client, client->fresh_handles ? NULL : client->handles[index]);
        if (failure) return failure;
    }
    while (finished < total) {
        int running = 0;
        CURLMcode performed = curl_multi_perform(client->multi, &running);
        if (performed != CURLM_OK) return 1000 + (int)performed;
        CURLMsg *message;
        int queued;
        while ((message = curl_multi_info_read(client->multi, &queued)) != NULL) {
            if (message->msg != CURLMSG_DONE) continue;
            CURL *easy = message->easy_handle;
            CURLcode result = message->data.result;
            long status = 0;
            long connects = 0;
            curl_easy_getinfo(easy, CURLINFO_RESPONSE_CODE, &status);
            curl_easy_getinfo(easy, CURLINFO_NUM_CONNECTS, &connects);
            curl_easy_getinfo(easy, CURLINFO_HTTP_VERSION, &client->last_http_version);
            client->connections += connects;
            curl_multi_remove_handle(client->multi, easy);
            finished += 1;
            if (result != CURLE_OK) {
                fprintf(stderr, "cm_client: %s\n", curl_easy_strerror(result));
                failure = (int)result;
            } else if (status != 200) {
                failure = 2000 + (int)status;
            }
            if (client->fresh_handles) {
                curl_easy_cleanup(easy);
                easy = NULL;
            }
            if (failure) return failure;
            if (to_start > 0) {
                to_start -= 1;
                failure = cm_start(client, easy);
                if (failure) return failure;
            }
        }
        if (finished < total) {
            CURLMcode polled = curl_multi_poll(client->multi, NULL, 0, 1000, NULL);
            if (polled != CURLM_OK) return 1000 + (int)polled;
        }
    }
    return 0;
}

long long cm_client_body_bytes(const cm_client *client) { return client->body_bytes; }

long cm_client_connections(const cm_client *client) { return client->connections; }

long cm_client_last_http_version(const cm_client *client) { return client->last_http_version; }

unsigned int cm_libcurl_version_number(void) { return curl_version_info(CURLVERSION_NOW)->version_num; }

void cm_client_destroy(cm_client *client) {
    if (client == NULL) return;
    for (int index = 0; index < client->width; index++) {
        if (client->handles[index] != NULL) curl_easy_cleanup(client->handles[index]);
    }
    curl_multi_cleanup(client->multi);
    free(client->handles);
    free(client->url);
    free(client->ca_file);
    free(client);
}
