/* The fetch tests' HTTP server: see test_http_server.h. */
#include "test_http_server.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#define SERVER_CHECK(expr)                                                               \
  do {                                                                                   \
    if (!(expr)) {                                                                       \
      fprintf(stderr, "%s:%d: test server: %s\n", __FILE__, __LINE__, #expr);            \
      exit(1);                                                                           \
    }                                                                                    \
  } while (0)

struct test_server_client {
  uv_tcp_t tcp;
  struct test_server *server;
  int slot;
  int closing;
  int handled;     /* a complete request arrived */
  int responded;   /* the response was queued */
  size_t length;
  char buffer[8192];
  char response[1024];
  uv_write_t write;
};

static void client_closed(uv_handle_t *handle) {
  struct test_server_client *client = handle->data;
  client->server->open_handles--;
  free(client);
}

static void close_client(struct test_server_client *client) {
  if (client->closing) return;
  client->closing = 1;
  client->server->clients[client->slot] = NULL;
  uv_close((uv_handle_t *)&client->tcp, client_closed);
}

static void wrote(uv_write_t *request, int status) {
  (void)status; /* the client may have gone: nothing to do either way */
  close_client(request->data);
}

/* The value of header `name` in the head [head, end), or "" */
static void find_header(const char *head, const char *name, char *out, size_t size) {
  size_t name_length = strlen(name);
  out[0] = '\0';
  for (const char *line = strstr(head, "\r\n"); line != NULL; line = strstr(line + 2, "\r\n")) {
    const char *start = line + 2;
    if (strncmp(start, "\r\n", 2) == 0) return; /* end of head */
    if (strncasecmp(start, name, name_length) == 0 && start[name_length] == ':') {
      const char *value = start + name_length + 1;
      while (*value == ' ') value++;
      const char *stop = strstr(value, "\r\n");
      size_t length = (size_t)(stop - value);
      if (length >= size) length = size - 1;
      memcpy(out, value, length);
      out[length] = '\0';
      return;
    }
  }
}

static void respond(struct test_server_client *client, int status, const char *reason, const char *fields,
                    const char *body, size_t body_length) {
  int head = snprintf(client->response, sizeof client->response,
                      "HTTP/1.1 %d %s\r\nContent-Length: %zu\r\nConnection: close\r\n%s\r\n", status, reason,
                      body_length, fields);
  SERVER_CHECK(head > 0 && (size_t)head + body_length <= sizeof client->response);
  client->server->response_head_length = (size_t)head;
  client->server->response_body_length = body_length;
  memcpy(client->response + head, body, body_length);
  uv_buf_t buffer = uv_buf_init(client->response, (unsigned int)((size_t)head + body_length));
  client->write.data = client;
  client->responded = 1;
  SERVER_CHECK(uv_write(&client->write, (uv_stream_t *)&client->tcp, &buffer, 1, wrote) == 0);
}

/* Handles the request once its head and body are in the buffer. */
static void maybe_handle(struct test_server_client *client) {
  struct test_server *server = client->server;
  client->buffer[client->length] = '\0';
  char *end_of_head = strstr(client->buffer, "\r\n\r\n");
  if (end_of_head == NULL) return;
  char length_text[32];
  find_header(client->buffer, "Content-Length", length_text, sizeof length_text);
  size_t body_length = length_text[0] ? (size_t)strtoul(length_text, NULL, 10) : 0;
  char *body = end_of_head + 4;
  if ((size_t)(client->buffer + client->length - body) < body_length) return;

  client->handled = 1;
  server->requests++;
  server->head_length = (size_t)(body - client->buffer);
  SERVER_CHECK(sscanf(client->buffer, "%15s %127s", server->method, server->target) == 2);
  find_header(client->buffer, "X-Custom", server->custom, sizeof server->custom);
  SERVER_CHECK(body_length < sizeof server->body);
  memcpy(server->body, body, body_length);
  server->body[body_length] = '\0';
  server->body_length = body_length;
  char target[128];
  strcpy(target, server->target);
  if (server->on_request != NULL) server->on_request(server, target);
  if (client->closing) return; /* on_request closed the server */

  if (strcmp(target, "/hello") == 0) {
    respond(client, 200, "OK", "Content-Type: text/plain\r\nX-Test: yes\r\n", "hello, world", 12);
  } else if (strcmp(target, "/echo") == 0) {
    char fields[192], echoed[320];
    snprintf(fields, sizeof fields, "X-Echo: %s\r\n", server->custom);
    int length = snprintf(echoed, sizeof echoed, "%s %s", server->method, server->body);
    respond(client, 200, "OK", fields, echoed, (size_t)length);
  } else if (strcmp(target, "/missing") == 0) {
    respond(client, 404, "Not Found", "", "no such thing", 13);
  } else if (strcmp(target, "/redirect") == 0) {
    respond(client, 302, "Found", "Location: /hello\r\n", "", 0);
  } else if (strcmp(target, "/big") == 0) {
    char big[100];
    memset(big, 'x', sizeof big);
    respond(client, 200, "OK", "", big, sizeof big);
  } else if (strcmp(target, "/stall") == 0) {
    /* No response: wait for the client to hang up. */
  } else {
    respond(client, 400, "Bad Request", "", "", 0);
  }
}

static void allocate(uv_handle_t *handle, size_t suggested, uv_buf_t *buffer) {
  (void)suggested;
  struct test_server_client *client = handle->data;
  size_t room = sizeof client->buffer - 1 - client->length;
  *buffer = uv_buf_init(client->buffer + client->length, (unsigned int)room);
}

static void did_read(uv_stream_t *stream, ssize_t nread, const uv_buf_t *buffer) {
  (void)buffer;
  struct test_server_client *client = stream->data;
  if (nread < 0) {
    if (!client->responded) client->server->hung_up++;
    close_client(client);
    return;
  }
  client->length += (size_t)nread;
  SERVER_CHECK(client->length < sizeof client->buffer - 1);
  if (!client->handled) maybe_handle(client);
}

static void accepted(uv_stream_t *listener, int status) {
  SERVER_CHECK(status == 0);
  struct test_server *server = listener->data;
  struct test_server_client *client = calloc(1, sizeof *client);
  SERVER_CHECK(client != NULL);
  client->server = server;
  SERVER_CHECK(uv_tcp_init(server->uv_loop, &client->tcp) == 0);
  client->tcp.data = client;
  server->open_handles++;
  client->slot = -1;
  for (int i = 0; i < TEST_SERVER_MAX_CLIENTS; i++) {
    if (server->clients[i] == NULL) {
      server->clients[i] = client;
      client->slot = i;
      break;
    }
  }
  SERVER_CHECK(client->slot >= 0);
  SERVER_CHECK(uv_accept(listener, (uv_stream_t *)&client->tcp) == 0);
  server->connections++;
  struct sockaddr_in peer;
  int peer_length = sizeof peer;
  SERVER_CHECK(uv_tcp_getpeername(&client->tcp, (struct sockaddr *)&peer, &peer_length) == 0);
  server->peer_port = ntohs(peer.sin_port);
  SERVER_CHECK(uv_read_start((uv_stream_t *)&client->tcp, allocate, did_read) == 0);
}

void test_server_start(struct test_server *server, uv_loop_t *uv_loop) {
  memset(server, 0, sizeof *server);
  server->uv_loop = uv_loop;
  struct sockaddr_in address;
  SERVER_CHECK(uv_ip4_addr("127.0.0.1", 0, &address) == 0);
  SERVER_CHECK(uv_tcp_init(uv_loop, &server->listener) == 0);
  server->listener.data = server;
  server->open_handles = 1;
  SERVER_CHECK(uv_tcp_bind(&server->listener, (const struct sockaddr *)&address, 0) == 0);
  SERVER_CHECK(uv_listen((uv_stream_t *)&server->listener, 64, accepted) == 0);
  struct sockaddr_in bound;
  int length = sizeof bound;
  SERVER_CHECK(uv_tcp_getsockname(&server->listener, (struct sockaddr *)&bound, &length) == 0);
  server->port = ntohs(bound.sin_port);
  uv_unref((uv_handle_t *)&server->listener);
}

static void listener_closed(uv_handle_t *handle) {
  struct test_server *server = handle->data;
  server->open_handles--;
}

void test_server_close(struct test_server *server) {
  if (server->closed) return;
  server->closed = 1;
  uv_close((uv_handle_t *)&server->listener, listener_closed);
  for (int i = 0; i < TEST_SERVER_MAX_CLIENTS; i++) {
    if (server->clients[i] != NULL) close_client(server->clients[i]);
  }
}

void test_server_url(const struct test_server *server, const char *path, char *url, size_t size) {
  snprintf(url, size, "http://127.0.0.1:%d%s", server->port, path);
}

int test_server_unused_port(void) {
  uv_loop_t loop;
  uv_tcp_t socket;
  struct sockaddr_in address, bound;
  int length = sizeof bound;
  SERVER_CHECK(uv_loop_init(&loop) == 0);
  SERVER_CHECK(uv_ip4_addr("127.0.0.1", 0, &address) == 0);
  SERVER_CHECK(uv_tcp_init(&loop, &socket) == 0);
  SERVER_CHECK(uv_tcp_bind(&socket, (const struct sockaddr *)&address, 0) == 0);
  SERVER_CHECK(uv_tcp_getsockname(&socket, (struct sockaddr *)&bound, &length) == 0);
  uv_close((uv_handle_t *)&socket, NULL);
  SERVER_CHECK(uv_run(&loop, UV_RUN_DEFAULT) == 0);
  SERVER_CHECK(uv_loop_close(&loop) == 0);
  return ntohs(bound.sin_port);
}
