/*
 * A C host that runs UVCombine on its own libuv loop.
 *
 * The host owns the loop: it initialises it, runs it, and closes it. Next to
 * its own uv_timer (a heartbeat) it adopts the loop for UVCombine, which
 * then drives:
 *   - a timer publisher with two subscribers; the first cancels itself from
 *     inside its callback, the second cancels the timer's connection;
 *   - HTTP fetches from a local server: one shared fetch whose response
 *     reaches two callbacks (one request), and a plain fetch of a missing
 *     file (a 404 is a response, not an error);
 *   - work submitted from a pthread (uvc_schedule is thread-safe);
 *   - a delayed callback (uvc_schedule_after).
 * Once everything arrived, the host detaches UVCombine from inside its
 * heartbeat callback, and closes the loop: uv_loop_close() returns 0.
 *
 *     host http://127.0.0.1:PORT
 *
 * fetches PORT's /host.c and /no-such-file: run it next to a server of this
 * directory. `make c-host` builds it and runs it with run-with-server.sh,
 * which starts `python3 -m http.server` on a free port and stops it again.
 * By hand, after `make install`:
 *
 *     cc -std=gnu11 host.c $(pkg-config --cflags --libs uvcombine) -lpthread
 *     ./run-with-server.sh ./a.out
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <uvcombine.h>

#define SUBMITTED 3
#define READERS 2

struct host {
  uv_loop_t uv_loop;
  uv_timer_t heartbeat;
  uvc_loop_t *loop;
  uvc_timer_t *timer;
  uvc_subscription_t *first;
  uvc_subscription_t *second;
  uvc_connection_t *connection;
  uvc_session_t *session;
  uvc_shared_fetch_t *shared;
  uvc_fetch_t *readers[READERS];
  uvc_fetch_t *missing;
  size_t read_bytes[READERS];
  int heartbeats;
  int first_ticks;
  int second_ticks;
  int fetched;
  int received;
  int delayed;
  int detaching;
};

/* Fails loudly: an example should not carry on past an error. */
static void check(int status, const char *what) {
  if (status < 0) {
    fprintf(stderr, "%s: %s (%s)\n", what, uvc_strerror(status), uvc_err_name(status));
    exit(1);
  }
}

/* ---- the timer's subscribers ---- */

static void first_tick(uvc_subscription_t *subscription, uint64_t time_ns, void *user_data) {
  (void)time_ns;
  struct host *host = user_data;
  printf("first subscriber: tick %d\n", ++host->first_ticks);
  if (host->first_ticks == 2) {
    /* Cancelling from inside the callback: it never runs again. */
    check(uvc_subscription_cancel(subscription), "uvc_subscription_cancel");
    printf("first subscriber: cancelled itself\n");
  }
}

static void second_tick(uvc_subscription_t *subscription, uint64_t time_ns, void *user_data) {
  (void)subscription;
  (void)time_ns;
  struct host *host = user_data;
  printf("second subscriber: tick %d\n", ++host->second_ticks);
  if (host->second_ticks == 4) {
    /* Stops the uv_timer behind the publisher. */
    check(uvc_connection_cancel(host->connection), "uvc_connection_cancel");
    printf("second subscriber: cancelled the timer\n");
  }
}

/* ---- fetches ---- */

static void reader_done(uvc_fetch_t *fetch, int status, const uvc_response_t *response,
                        const uvc_fetch_error_t *error, void *user_data) {
  struct host *host = user_data;
  int reader = fetch == host->readers[0] ? 0 : 1;
  if (status < 0) {
    fprintf(stderr, "shared fetch, reader %d: %s (%s)\n", reader + 1, error->message, uvc_err_name(status));
    exit(1);
  }
  /* Every reader gets the same response: one request went out. */
  host->read_bytes[reader] = response->body_length;
  printf("shared fetch, reader %d: %d %s, %zu bytes\n", reader + 1, response->status, response->reason,
         response->body_length);
  host->fetched++;
}

static void missing_done(uvc_fetch_t *fetch, int status, const uvc_response_t *response,
                         const uvc_fetch_error_t *error, void *user_data) {
  struct host *host = user_data;
  (void)fetch;
  if (status < 0) {
    fprintf(stderr, "fetch: %s (%s)\n", error->message, uvc_err_name(status));
    exit(1);
  }
  printf("fetch /no-such-file: %d\n", response->status);
  host->fetched++;
}

static void start_fetches(struct host *host, const char *base) {
  char url[512];
  uvc_header_t fields[] = {{"Accept", "text/plain"}, {"User-Agent", "uvcombine-c-host"}};
  check(uvc_session_new(host->loop, NULL, &host->session), "uvc_session_new");

  snprintf(url, sizeof url, "%s/host.c", base);
  uvc_request_t shared = {sizeof(uvc_request_t), "GET", url, fields, 2, NULL, 0};
  check(uvc_shared_fetch_new(host->session, &shared, &host->shared), "uvc_shared_fetch_new");
  for (int i = 0; i < READERS; i++) {
    check(uvc_shared_fetch_subscribe(host->shared, reader_done, host, &host->readers[i]),
          "uvc_shared_fetch_subscribe");
  }
  check(uvc_shared_fetch_start(host->shared), "uvc_shared_fetch_start");

  snprintf(url, sizeof url, "%s/no-such-file", base);
  uvc_request_t missing = {sizeof(uvc_request_t), NULL, url, NULL, 0, NULL, 0}; /* NULL method: GET */
  check(uvc_fetch(host->session, &missing, missing_done, host, &host->missing), "uvc_fetch");
}

/* ---- work from another thread ---- */

struct message {
  struct host *host;
  int number;
};

static void receive_message(uvc_loop_t *loop, int status, void *user_data) {
  (void)loop;
  struct message *message = user_data;
  if (status == 0) {
    message->host->received++;
    printf("from the worker thread: message %d\n", message->number);
  }
  free(message); /* the callback runs exactly once, also when cancelled */
}

static void *worker(void *argument) {
  struct host *host = argument;
  for (int i = 1; i <= SUBMITTED; i++) {
    struct message *message = malloc(sizeof *message);
    if (message == NULL) exit(1);
    message->host = host;
    message->number = i;
    check(uvc_schedule(host->loop, receive_message, message), "uvc_schedule");
  }
  return NULL;
}

static void delayed(uvc_loop_t *loop, int status, void *user_data) {
  (void)loop;
  struct host *host = user_data;
  if (status == 0) {
    host->delayed = 1;
    printf("delayed callback: ran\n");
  }
}

/* ---- the host's own timer, and the detach ---- */

static void detached(uvc_loop_t *loop, void *user_data) {
  struct host *host = user_data;
  printf("detached: every UVCombine handle is closed\n");
  check(uvc_loop_free(loop), "uvc_loop_free");
  host->loop = NULL;
  /* The heartbeat was the last handle: uv_run() returns after this. */
  uv_close((uv_handle_t *)&host->heartbeat, NULL);
}

static void heartbeat(uv_timer_t *handle) {
  struct host *host = handle->data;
  host->heartbeats++;
  int done = host->first_ticks == 2 && host->second_ticks == 4 && host->received == SUBMITTED &&
             host->delayed && host->fetched == READERS + 1;
  if (done && !host->detaching) {
    host->detaching = 1;
    printf("host: everything arrived, detaching\n");
    check(uvc_loop_detach(host->loop, detached, host), "uvc_loop_detach");
  }
}

int main(int argc, char **argv) {
  setvbuf(stdout, NULL, _IONBF, 0);
  if (argc != 2 || strncmp(argv[1], "http://", 7) != 0) {
    fprintf(stderr, "usage: %s http://127.0.0.1:PORT   (a server of Examples/c-host; see run-with-server.sh)\n",
            argv[0]);
    return 2;
  }
  struct host host = {0};
  printf("uvcombine %s on libuv %s\n", uvc_version_string(), uv_version_string());

  /* The host's loop and its own timer. */
  check(uv_loop_init(&host.uv_loop), "uv_loop_init");
  check(uv_timer_init(&host.uv_loop, &host.heartbeat), "uv_timer_init");
  host.heartbeat.data = &host;
  check(uv_timer_start(&host.heartbeat, heartbeat, 5, 5), "uv_timer_start");

  /* UVCombine on the same loop. */
  check(uvc_loop_adopt(&host.uv_loop, &host.loop), "uvc_loop_adopt");
  check(uvc_timer_new(host.loop, 10 * UVC_MSEC, UVC_MSEC, &host.timer), "uvc_timer_new");
  check(uvc_timer_subscribe(host.timer, first_tick, &host, &host.first), "uvc_timer_subscribe");
  check(uvc_timer_subscribe(host.timer, second_tick, &host, &host.second), "uvc_timer_subscribe");
  check(uvc_timer_connect(host.timer, &host.connection), "uvc_timer_connect");
  check(uvc_schedule_after(host.loop, 30 * UVC_MSEC, delayed, &host), "uvc_schedule_after");
  start_fetches(&host, argv[1]);

  pthread_t thread;
  if (pthread_create(&thread, NULL, worker, &host) != 0) return 1;

  check(uv_run(&host.uv_loop, UV_RUN_DEFAULT), "uv_run");
  pthread_join(thread, NULL);

  /* The timer's objects outlive the loop; each is freed on its own. */
  check(uvc_subscription_free(host.first), "uvc_subscription_free");
  check(uvc_subscription_free(host.second), "uvc_subscription_free");
  check(uvc_connection_free(host.connection), "uvc_connection_free");
  check(uvc_timer_free(host.timer), "uvc_timer_free");
  for (int i = 0; i < READERS; i++) check(uvc_fetch_free(host.readers[i]), "uvc_fetch_free");
  check(uvc_fetch_free(host.missing), "uvc_fetch_free");
  check(uvc_shared_fetch_free(host.shared), "uvc_shared_fetch_free");
  check(uvc_session_free(host.session), "uvc_session_free");
  if (host.read_bytes[0] != host.read_bytes[1]) return 1;

  int status = uv_loop_close(&host.uv_loop);
  printf("host: %d heartbeats, uv_loop_close: %d\n", host.heartbeats, status);
  return status == 0 ? 0 : 1;
}
