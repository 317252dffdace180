/*
 * The bar for libuvcombine-c.so's footprint: the same work as uvc.c, on one
 * libuv loop, written against libuv alone.
 *
 *   1. A repeating 1 ms uv_timer; its first tick is "started": the program
 *      reports the time since exec and its resident set then.
 *   2. At that tick, FETCHES plain HTTP/1.1 GETs of URL's path at once
 *      (uv_getaddrinfo is skipped: the host is a numeric IPv4 address),
 *      each on its own connection (Connection: close), read to the end.
 *   3. When every response has ended, the timer stops, the loop runs dry
 *      and closes (uv_loop_close() == 0), and the program prints one line:
 *
 *      plain main_us=... armed_us=... first_tick_us=... startup_rss_kb=... peak_rss_kb=... fetched=64 bytes=...
 *
 *     plain http://127.0.0.1:PORT/PATH
 *
 * measure.py runs it next to a local server; it responds to anything but
 * checks only that each response starts with "HTTP/1." and ends.
 */
#include <arpa/inet.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <uv.h>

#include "footprint.h"

#define FETCHES 64
#define BUFFER 65536

struct fetch {
  uv_tcp_t tcp;
  uv_connect_t connect;
  uv_write_t write;
  uv_buf_t request;
  size_t received;
  int ok;
};

static struct fetch fetches[FETCHES];
static char request[512];
static struct sockaddr_in address;
static uv_timer_t timer;
static int started;
static long first_tick_us = -1;
static long startup_rss_kb;
static int done;
static size_t total_bytes;
/* One read buffer for every connection: reads are handled one at a time. */
static char buffer[BUFFER];

static void on_alloc(uv_handle_t *handle, size_t suggested, uv_buf_t *buf) {
  (void)handle;
  (void)suggested;
  *buf = uv_buf_init(buffer, sizeof buffer);
}

static void on_close(uv_handle_t *handle) {
  (void)handle;
  if (++done == FETCHES) uv_close((uv_handle_t *)&timer, NULL);
}

static void on_read(uv_stream_t *stream, ssize_t nread, const uv_buf_t *buf) {
  struct fetch *fetch = stream->data;
  if (nread > 0) {
    if (fetch->received == 0 && nread >= 7 && memcmp(buf->base, "HTTP/1.", 7) == 0) fetch->ok = 1;
    fetch->received += (size_t)nread;
    return;
  }
  if (nread == 0) return;
  total_bytes += fetch->received;
  uv_close((uv_handle_t *)&fetch->tcp, on_close);
}

static void on_write(uv_write_t *write, int status) {
  struct fetch *fetch = write->data;
  if (status < 0) {
    fprintf(stderr, "write: %s\n", uv_strerror(status));
    exit(1);
  }
  uv_read_start((uv_stream_t *)&fetch->tcp, on_alloc, on_read);
}

static void on_connect(uv_connect_t *connect, int status) {
  struct fetch *fetch = connect->data;
  if (status < 0) {
    fprintf(stderr, "connect: %s\n", uv_strerror(status));
    exit(1);
  }
  fetch->write.data = fetch;
  fetch->request = uv_buf_init(request, (unsigned int)strlen(request));
  uv_write(&fetch->write, (uv_stream_t *)&fetch->tcp, &fetch->request, 1, on_write);
}

static void on_tick(uv_timer_t *handle) {
  if (started) return;
  started = 1;
  first_tick_us = footprint_elapsed_us();
  startup_rss_kb = footprint_status_kb("VmRSS");
  footprint_exit_at("tick");
  for (int i = 0; i < FETCHES; i++) {
    struct fetch *fetch = &fetches[i];
    uv_tcp_init(handle->loop, &fetch->tcp);
    fetch->tcp.data = fetch;
    fetch->connect.data = fetch;
    int status = uv_tcp_connect(&fetch->connect, &fetch->tcp, (const struct sockaddr *)&address, on_connect);
    if (status < 0) {
      fprintf(stderr, "uv_tcp_connect: %s\n", uv_strerror(status));
      exit(1);
    }
  }
}

int main(int argc, char **argv) {
  long main_us = footprint_elapsed_us();
  char host[64];
  int port = 0;
  char path[256] = "/";
  if (argc != 2 || sscanf(argv[1], "http://%63[0-9.]:%d%255s", host, &port, path) < 2) {
    fprintf(stderr, "usage: %s http://IPV4:PORT/PATH\n", argv[0]);
    return 2;
  }
  uv_ip4_addr(host, port, &address);
  snprintf(request, sizeof request, "GET %s HTTP/1.1\r\nHost: %s:%d\r\nConnection: close\r\n\r\n", path, host, port);

  uv_loop_t loop;
  uv_loop_init(&loop);
  uv_timer_init(&loop, &timer);
  uv_timer_start(&timer, on_tick, 1, 1);
  long armed_us = footprint_elapsed_us();
  footprint_exit_at("armed");
  uv_run(&loop, UV_RUN_DEFAULT);
  int closed = uv_loop_close(&loop);

  int ok = 0;
  for (int i = 0; i < FETCHES; i++) ok += fetches[i].ok;
  printf("plain main_us=%ld armed_us=%ld first_tick_us=%ld startup_rss_kb=%ld peak_rss_kb=%ld fetched=%d bytes=%zu "
         "loop_close=%d\n",
         main_us, armed_us, first_tick_us, startup_rss_kb, footprint_status_kb("VmHWM"), ok, total_bytes, closed);
  return ok == FETCHES && closed == 0 ? 0 : 1;
}
