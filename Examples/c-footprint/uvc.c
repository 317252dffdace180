/*
 * plain.c's work through libuvcombine-c.so, on one libuv loop the program
 * owns and the library adopts (as Examples/c-host does):
 *
 *   1. A 1 ms timer publisher (uvc_timer_new, one subscriber, connected);
 *      its first tick is "started": the time since exec and the resident
 *      set then.
 *   2. At that tick, FETCHES GETs of URL at once (uvc_fetch, a session
 *      allowing FETCHES connections to the host, so all are in flight).
 *   3. When every fetch has completed: the timer connection is cancelled,
 *      the library detaches from the loop, the loop closes
 *      (uv_loop_close() == 0), and the program prints one line:
 *
 *      uvc main_us=... armed_us=... first_tick_us=... startup_rss_kb=... peak_rss_kb=... fetched=64 bytes=...
 *          lib_mapped_kb=... lib_rss_kb=...
 *
 *     uvc http://127.0.0.1:PORT/PATH
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <uvcombine.h>

#include "footprint.h"

#define FETCHES 64

struct program {
  uv_loop_t uv_loop;
  uvc_loop_t *loop;
  uvc_timer_t *timer;
  uvc_subscription_t *subscription;
  uvc_connection_t *connection;
  uvc_session_t *session;
  uvc_fetch_t *fetches[FETCHES];
  const char *url;
  int started;
  long first_tick_us;
  long startup_rss_kb;
  int completed;
  int ok;
  size_t bytes;
};

static void check(int status, const char *what) {
  if (status < 0) {
    fprintf(stderr, "%s: %s (%s)\n", what, uvc_strerror(status), uvc_err_name(status));
    exit(1);
  }
}

static void detached(uvc_loop_t *loop, void *user_data) {
  (void)user_data;
  check(uvc_loop_free(loop), "uvc_loop_free");
}

static void fetched(uvc_fetch_t *fetch, int status, const uvc_response_t *response, const uvc_fetch_error_t *error,
                    void *user_data) {
  (void)fetch;
  struct program *program = user_data;
  if (status < 0) {
    fprintf(stderr, "fetch: %s\n", error->message);
    exit(1);
  }
  if (response->status == 200) program->ok++;
  program->bytes += response->body_length;
  if (++program->completed == FETCHES) {
    check(uvc_connection_cancel(program->connection), "uvc_connection_cancel");
    check(uvc_loop_detach(program->loop, detached, program), "uvc_loop_detach");
  }
}

static void tick(uvc_subscription_t *subscription, uint64_t time_ns, void *user_data) {
  (void)subscription;
  (void)time_ns;
  struct program *program = user_data;
  if (program->started) return;
  program->started = 1;
  program->first_tick_us = footprint_elapsed_us();
  program->startup_rss_kb = footprint_status_kb("VmRSS");
  footprint_exit_at("tick");
  uvc_request_t request = UVC_REQUEST_INIT;
  request.url = program->url;
  for (int i = 0; i < FETCHES; i++) {
    check(uvc_fetch(program->session, &request, fetched, program, &program->fetches[i]), "uvc_fetch");
  }
}

int main(int argc, char **argv) {
  long main_us = footprint_elapsed_us();
  if (argc != 2 || strncmp(argv[1], "http://", 7) != 0) {
    fprintf(stderr, "usage: %s http://127.0.0.1:PORT/PATH\n", argv[0]);
    return 2;
  }
  static struct program program;
  program.url = argv[1];

  check(uv_loop_init(&program.uv_loop), "uv_loop_init");
  check(uvc_loop_adopt(&program.uv_loop, &program.loop), "uvc_loop_adopt");
  uvc_session_options_t options;
  uvc_session_options_init(&options);
  options.max_connections_per_host = FETCHES;
  check(uvc_session_new(program.loop, &options, &program.session), "uvc_session_new");
  check(uvc_timer_new(program.loop, UVC_MSEC, 0, &program.timer), "uvc_timer_new");
  check(uvc_timer_subscribe(program.timer, tick, &program, &program.subscription), "uvc_timer_subscribe");
  check(uvc_timer_connect(program.timer, &program.connection), "uvc_timer_connect");

  long armed_us = footprint_elapsed_us();
  footprint_exit_at("armed");
  check(uv_run(&program.uv_loop, UV_RUN_DEFAULT), "uv_run");
  long peak_rss_kb = footprint_status_kb("VmHWM");
  long lib_mapped_kb, lib_rss_kb;
  footprint_mapped_kb("libuvcombine-c.so", &lib_mapped_kb, &lib_rss_kb);

  for (int i = 0; i < FETCHES; i++) check(uvc_fetch_free(program.fetches[i]), "uvc_fetch_free");
  check(uvc_subscription_free(program.subscription), "uvc_subscription_free");
  check(uvc_connection_free(program.connection), "uvc_connection_free");
  check(uvc_timer_free(program.timer), "uvc_timer_free");
  check(uvc_session_free(program.session), "uvc_session_free");
  int closed = uv_loop_close(&program.uv_loop);

  printf("uvc main_us=%ld armed_us=%ld first_tick_us=%ld startup_rss_kb=%ld peak_rss_kb=%ld fetched=%d bytes=%zu "
         "loop_close=%d lib_mapped_kb=%ld lib_rss_kb=%ld\n",
         main_us, armed_us, program.first_tick_us, program.startup_rss_kb, peak_rss_kb, program.ok, program.bytes, closed, lib_mapped_kb,
         lib_rss_kb);
  return program.ok == FETCHES && closed == 0 ? 0 : 1;
}
