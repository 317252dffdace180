/*
 * A small HTTP/1.1 server for the fetch tests, on a libuv loop of the
 * test's choosing (the one the fetches run on, so a case stays on one
 * thread and can act at the exact moment a request arrives). Every
 * response carries `Connection: close` and the connection closes after it,
 * so each request is one connection and the server can count them.
 *
 * Routes:
 *   /hello      200 OK, X-Test: yes, body "hello, world"
 *   /echo       200 OK, body "<method> <body>", X-Echo: the request's X-Custom
 *   /missing    404 Not Found, body "no such thing"
 *   /redirect   302 Found, Location: /hello
 *   /big        200 OK, a body of 100 bytes
 *   /stall      no response: the connection stays open until the client
 *               closes it or the server closes
 * Anything else gets 400.
 *
 * The listening socket is unreferenced: it never keeps a loop alive.
 */
#ifndef TEST_HTTP_SERVER_H
#define TEST_HTTP_SERVER_H

#include <stddef.h>
#include <uv.h>

#define TEST_SERVER_MAX_CLIENTS 32

struct test_server;

/* Called for every complete request, before the response goes out. */
typedef void (*test_server_request_cb)(struct test_server *server, const char *target);

struct test_server_client;

struct test_server {
  uv_loop_t *uv_loop;
  uv_tcp_t listener;
  int port;
  int connections;      /* accepted */
  int requests;         /* complete requests */
  int hung_up;          /* connections the client closed before a response */
  int open_handles;     /* the listener and the clients, until their close callbacks ran */
  int closed;           /* test_server_close() was called */
  char method[16];      /* the last request's */
  char target[128];
  char custom[128];     /* its X-Custom field, "" if none */
  char body[256];
  size_t body_length;
  size_t head_length;          /* the last request's head in bytes, its blank line included */
  size_t response_head_length; /* the last response's head in bytes */
  size_t response_body_length; /* the last response's body in bytes */
  int peer_port;               /* the last connection's port on the client's side */
  test_server_request_cb on_request;
  void *data;           /* for on_request */
  struct test_server_client *clients[TEST_SERVER_MAX_CLIENTS];
};

/* Starts listening on 127.0.0.1 at a free port (server->port). */
void test_server_start(struct test_server *server, uv_loop_t *uv_loop);

/* Closes the listener and every open connection; the close callbacks run in
 * the loop's next iteration (server->open_handles reaches 0). Idempotent. */
void test_server_close(struct test_server *server);

/* "http://127.0.0.1:<port><path>" into `url`. */
void test_server_url(const struct test_server *server, const char *path, char *url, size_t size);

/* A port on 127.0.0.1 that nothing listens on (bound, then closed). */
int test_server_unused_port(void);

#endif /* TEST_HTTP_SERVER_H */
