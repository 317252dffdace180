/*
 * The C API's tests, in C: every function of uvcombine.h is called here, so
 * this file compiling with -Wall -Wextra -Werror and linking against
 * libuvcombine-c.so checks the header against the library. Each case checks
 * behaviour, bad input included, and ends like libuv's own tests: every
 * handle closed, uv_loop_close() == 0, everything freed (the AddressSanitizer
 * build checks for leaks).
 *
 *     api_test            runs every case, ends with "N passed, N failed"
 *     api_test CASE...    runs the named cases
 *
 * Driven by Tests/CUVCombineImplementationTests (each case under both
 * builds) through `make c-test`.
 */
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <uvcombine.h>

#define CHECK(expr)                                                                      \
  do {                                                                                   \
    if (!(expr)) {                                                                       \
      fprintf(stderr, "%s:%d: check failed: %s\n", __FILE__, __LINE__, #expr);           \
      exit(1);                                                                           \
    }                                                                                    \
  } while (0)

#define CHECK_STATUS(expected, expr)                                                     \
  do {                                                                                   \
    int check_status_ = (expr);                                                          \
    if (check_status_ != (expected)) {                                                   \
      fprintf(stderr, "%s:%d: %s returned %d (%s), expected %d (%s)\n", __FILE__,        \
              __LINE__, #expr, check_status_, uvc_err_name(check_status_), (expected),   \
              uvc_err_name(expected));                                                   \
      exit(1);                                                                           \
    }                                                                                    \
  } while (0)

#define INTERVAL (2 * UVC_MSEC)

/* ---------------------------------------------------------------------- */
/* Helpers                                                                 */

/* Runs the host's loop until it has nothing left, then closes it. */
static void run_and_close_host_loop(uv_loop_t *uv_loop) {
  CHECK_STATUS(0, uv_run(uv_loop, UV_RUN_DEFAULT));
  CHECK_STATUS(0, uv_loop_close(uv_loop));
}

static void count_status(uvc_loop_t *loop, int status, void *user_data) {
  (void)loop;
  int *counts = user_data; /* [0]: ran with 0, [1]: ran with UV_ECANCELED */
  CHECK(status == 0 || status == UV_ECANCELED);
  counts[status == 0 ? 0 : 1]++;
}

static void ignore_tick(uvc_subscription_t *subscription, uint64_t time_ns, void *user_data) {
  (void)subscription;
  (void)time_ns;
  (void)user_data;
}

static void detached_set_flag(uvc_loop_t *loop, void *user_data) {
  (void)loop;
  *(int *)user_data = 1;
}

/* Calls a function of the API on a new thread, and waits for it. */
struct cross_thread {
  uvc_loop_t *loop;
  int status;
};

static void *close_elsewhere(void *argument) {
  struct cross_thread *call = argument;
  call->status = uvc_loop_close(call->loop);
  return NULL;
}

static void *run_elsewhere(void *argument) {
  struct cross_thread *call = argument;
  call->status = uvc_loop_run(call->loop, UV_RUN_NOWAIT);
  return NULL;
}

static void *detach_elsewhere(void *argument) {
  struct cross_thread *call = argument;
  call->status = uvc_loop_detach(call->loop, NULL, NULL);
  return NULL;
}

static void *stop_elsewhere(void *argument) {
  struct cross_thread *call = argument;
  call->status = uvc_loop_stop(call->loop);
  return NULL;
}

static void call_on_thread(void *(*body)(void *), struct cross_thread *call) {
  pthread_t thread;
  CHECK(pthread_create(&thread, NULL, body, call) == 0);
  CHECK(pthread_join(thread, NULL) == 0);
}

/* ---------------------------------------------------------------------- */
/* version_and_errors                                                      */

static void test_version_and_errors(void) {
  CHECK(uvc_version() == UVC_VERSION_HEX);
  CHECK(strcmp(uvc_version_string(), "0.1.0") == 0);
  CHECK(strcmp(uvc_strerror(UV_ECANCELED), uv_strerror(UV_ECANCELED)) == 0);
  CHECK(strcmp(uvc_err_name(UV_ECANCELED), "ECANCELED") == 0);
  CHECK(strcmp(uvc_err_name(UV_EINVAL), "EINVAL") == 0);
  CHECK(strcmp(uvc_err_name(UV_EALREADY), "EALREADY") == 0);
  CHECK(strcmp(uvc_err_name(UV_EBUSY), "EBUSY") == 0);
  CHECK(strcmp(uvc_err_name(UV_EPERM), "EPERM") == 0);
  /* Codes libuv does not know get fixed strings (libuv would leak one). */
  CHECK(strcmp(uvc_err_name(0), "UNKNOWN") == 0);
  CHECK(strcmp(uvc_err_name(-123456), "UNKNOWN") == 0);
  CHECK(strcmp(uvc_strerror(-123456), "unknown error") == 0);
  CHECK(strcmp(uvc_strerror(42), "unknown error") == 0);
}

/* ---------------------------------------------------------------------- */
/* null_pointers: every function rejects NULL with UV_EINVAL              */

static void test_null_pointers(void) {
  uvc_loop_t *loop = (uvc_loop_t *)&loop; /* must be reset to NULL on error */
  CHECK_STATUS(UV_EINVAL, uvc_loop_new(NULL));
  CHECK_STATUS(UV_EINVAL, uvc_loop_adopt(NULL, &loop));
  CHECK(loop == NULL);
  uv_loop_t uv_loop;
  CHECK_STATUS(0, uv_loop_init(&uv_loop));
  CHECK_STATUS(UV_EINVAL, uvc_loop_adopt(&uv_loop, NULL));
  CHECK(uvc_loop_get_uv_loop(NULL) == NULL);
  CHECK_STATUS(UV_EINVAL, uvc_loop_run(NULL, UV_RUN_DEFAULT));
  CHECK_STATUS(UV_EINVAL, uvc_loop_stop(NULL));
  CHECK_STATUS(UV_EINVAL, uvc_loop_close(NULL));
  CHECK_STATUS(UV_EINVAL, uvc_loop_detach(NULL, NULL, NULL));
  CHECK_STATUS(UV_EINVAL, uvc_loop_free(NULL));
  CHECK_STATUS(UV_EINVAL, uvc_schedule(NULL, count_status, NULL));
  CHECK_STATUS(UV_EINVAL, uvc_schedule_after(NULL, 0, count_status, NULL));
  uvc_timer_t *timer = (uvc_timer_t *)&timer;
  CHECK_STATUS(UV_EINVAL, uvc_timer_new(NULL, INTERVAL, 0, &timer));
  CHECK(timer == NULL);
  uvc_subscription_t *subscription = (uvc_subscription_t *)&subscription;
  CHECK_STATUS(UV_EINVAL, uvc_timer_subscribe(NULL, ignore_tick, NULL, &subscription));
  CHECK(subscription == NULL);
  uvc_connection_t *connection = (uvc_connection_t *)&connection;
  CHECK_STATUS(UV_EINVAL, uvc_timer_connect(NULL, &connection));
  CHECK(connection == NULL);
  CHECK_STATUS(UV_EINVAL, uvc_timer_free(NULL));
  CHECK_STATUS(UV_EINVAL, uvc_subscription_cancel(NULL));
  CHECK_STATUS(UV_EINVAL, uvc_subscription_free(NULL));
  CHECK_STATUS(UV_EINVAL, uvc_connection_cancel(NULL));
  CHECK_STATUS(UV_EINVAL, uvc_connection_free(NULL));

  /* NULL callbacks and out-pointers on valid objects. */
  CHECK_STATUS(0, uvc_loop_new(&loop));
  CHECK_STATUS(UV_EINVAL, uvc_schedule(loop, NULL, NULL));
  CHECK_STATUS(UV_EINVAL, uvc_schedule_after(loop, UVC_MSEC, NULL, NULL));
  CHECK_STATUS(UV_EINVAL, uvc_timer_new(loop, INTERVAL, 0, NULL));
  CHECK_STATUS(0, uvc_timer_new(loop, INTERVAL, 0, &timer));
  CHECK_STATUS(UV_EINVAL, uvc_timer_subscribe(timer, NULL, NULL, &subscription));
  CHECK(subscription == NULL);
  CHECK_STATUS(UV_EINVAL, uvc_timer_subscribe(timer, ignore_tick, NULL, NULL));
  CHECK_STATUS(UV_EINVAL, uvc_timer_connect(timer, NULL));
  CHECK_STATUS(0, uvc_timer_free(timer));
  CHECK_STATUS(0, uvc_loop_close(loop));
  CHECK_STATUS(0, uvc_loop_free(loop));
  CHECK_STATUS(0, uv_loop_close(&uv_loop));
}

/* ---------------------------------------------------------------------- */
/* bad_arguments: out-of-range values and the wrong kind of loop           */

static void test_bad_arguments(void) {
  uvc_loop_t *loop;
  uvc_timer_t *timer = (uvc_timer_t *)&timer;
  CHECK_STATUS(0, uvc_loop_new(&loop));
  CHECK_STATUS(UV_EINVAL, uvc_timer_new(loop, 0, 0, &timer));
  CHECK(timer == NULL);
  CHECK_STATUS(UV_EINVAL, uvc_timer_new(loop, UINT64_MAX, 0, &timer));
  CHECK_STATUS(UV_EINVAL, uvc_timer_new(loop, (uint64_t)INT64_MAX + 1, 0, &timer));
  CHECK_STATUS(0, uvc_timer_new(loop, 1, UINT64_MAX, &timer)); /* clamped to 100 us */
  CHECK_STATUS(0, uvc_timer_free(timer));
  CHECK_STATUS(UV_EINVAL, uvc_loop_run(loop, (uv_run_mode)42));
  /* Detaching applies to adopted loops only. */
  CHECK_STATUS(UV_EINVAL, uvc_loop_detach(loop, NULL, NULL));
  CHECK_STATUS(0, uvc_loop_close(loop));
  CHECK_STATUS(0, uvc_loop_free(loop));

  /* Running, stopping and closing apply to created loops only. */
  uv_loop_t uv_loop;
  CHECK_STATUS(0, uv_loop_init(&uv_loop));
  CHECK_STATUS(0, uvc_loop_adopt(&uv_loop, &loop));
  CHECK(uvc_loop_get_uv_loop(loop) == &uv_loop);
  CHECK_STATUS(UV_EINVAL, uvc_loop_run(loop, UV_RUN_DEFAULT));
  CHECK_STATUS(UV_EINVAL, uvc_loop_stop(loop));
  CHECK_STATUS(UV_EINVAL, uvc_loop_close(loop));
  CHECK_STATUS(UV_EBUSY, uvc_loop_free(loop)); /* not detached yet */
  CHECK_STATUS(0, uvc_loop_detach(loop, NULL, NULL));
  CHECK_STATUS(UV_EBUSY, uvc_loop_free(loop)); /* detach not completed yet */
  run_and_close_host_loop(&uv_loop);
  CHECK_STATUS(0, uvc_loop_free(loop));
}

/* ---------------------------------------------------------------------- */
/* created_loop: schedule, run, close, and use after close                  */

struct order {
  int next;
  int seen[8];
};

static struct order *current_order;

static void append_order(uvc_loop_t *loop, int status, void *user_data) {
  (void)loop;
  CHECK_STATUS(0, status);
  current_order->seen[current_order->next++] = (int)(intptr_t)user_data;
}

static void test_created_loop(void) {
  uvc_loop_t *loop;
  CHECK_STATUS(0, uvc_loop_new(&loop));
  CHECK(uvc_loop_get_uv_loop(loop) != NULL);
  struct order order = {0, {0}};
  current_order = &order;
  uint64_t start = uv_hrtime();
  CHECK_STATUS(0, uvc_schedule_after(loop, 5 * UVC_MSEC, append_order, (void *)(intptr_t)4));
  CHECK_STATUS(0, uvc_schedule_after(loop, 5 * UVC_MSEC, append_order, (void *)(intptr_t)5));
  CHECK_STATUS(0, uvc_schedule_after(loop, 1 * UVC_MSEC, append_order, (void *)(intptr_t)3));
  CHECK_STATUS(0, uvc_schedule(loop, append_order, (void *)(intptr_t)1));
  CHECK_STATUS(0, uvc_schedule(loop, append_order, (void *)(intptr_t)2));
  CHECK(order.next == 0); /* never inside the call */
  CHECK_STATUS(0, uvc_loop_run(loop, UV_RUN_DEFAULT));
  CHECK(uv_hrtime() - start >= 5 * UVC_MSEC); /* never early */
  CHECK(order.next == 5);
  for (int i = 0; i < 5; i++) CHECK(order.seen[i] == i + 1);
  CHECK_STATUS(0, uvc_loop_run(loop, UV_RUN_NOWAIT)); /* nothing left */
  CHECK_STATUS(0, uvc_loop_stop(loop)); /* ends the next run after one iteration */
  CHECK_STATUS(0, uvc_loop_run(loop, UV_RUN_ONCE));

  CHECK_STATUS(0, uvc_loop_close(loop));
  /* Use after close: errors, no crash. */
  CHECK_STATUS(UV_EALREADY, uvc_loop_close(loop));
  CHECK_STATUS(UV_ECANCELED, uvc_loop_run(loop, UV_RUN_DEFAULT));
  CHECK_STATUS(UV_ECANCELED, uvc_loop_stop(loop));
  CHECK_STATUS(UV_ECANCELED, uvc_schedule(loop, append_order, NULL));
  CHECK_STATUS(UV_ECANCELED, uvc_schedule_after(loop, 0, append_order, NULL));
  uvc_timer_t *timer = (uvc_timer_t *)&timer;
  CHECK_STATUS(UV_ECANCELED, uvc_timer_new(loop, INTERVAL, 0, &timer));
  CHECK(timer == NULL);
  CHECK(order.next == 5);
  CHECK_STATUS(0, uvc_loop_free(loop));
}

/* ---------------------------------------------------------------------- */
/* pending_cancelled_on_close                                              */

static void test_pending_cancelled_on_close(void) {
  uvc_loop_t *loop;
  int counts[2] = {0, 0};
  /* A loop that never ran: the callbacks get UV_ECANCELED inside close. */
  CHECK_STATUS(0, uvc_loop_new(&loop));
  CHECK_STATUS(0, uvc_schedule(loop, count_status, counts));
  CHECK_STATUS(0, uvc_schedule(loop, count_status, counts));
  CHECK_STATUS(0, uvc_schedule_after(loop, 10 * UVC_SEC, count_status, counts));
  CHECK_STATUS(0, uvc_loop_close(loop));
  CHECK(counts[0] == 0 && counts[1] == 3);
  CHECK_STATUS(0, uvc_loop_free(loop));

  /* A loop that ran: a pending delayed callback is cancelled by close. */
  counts[0] = counts[1] = 0;
  CHECK_STATUS(0, uvc_loop_new(&loop));
  CHECK_STATUS(0, uvc_schedule(loop, count_status, counts));
  CHECK_STATUS(0, uvc_schedule_after(loop, 10 * UVC_SEC, count_status, counts));
  CHECK_STATUS(1, uvc_loop_run(loop, UV_RUN_NOWAIT));
  CHECK(counts[0] == 1 && counts[1] == 0);
  CHECK_STATUS(0, uvc_loop_close(loop));
  CHECK(counts[0] == 1 && counts[1] == 1);
  CHECK_STATUS(0, uvc_loop_free(loop));
}

/* ---------------------------------------------------------------------- */
/* timer_subscribers: several subscribers, cancel from inside callbacks     */

struct tick_log {
  uvc_loop_t *loop;
  uvc_connection_t *connection;
  uint64_t connected_at;
  int order[64];
  int order_count;
  int ticks[3];
  uint64_t last_time_ns;
};

static void tick_a(uvc_subscription_t *subscription, uint64_t time_ns, void *user_data) {
  struct tick_log *log = user_data;
  CHECK(time_ns >= log->last_time_ns);
  log->last_time_ns = time_ns;
  log->order[log->order_count++] = 0;
  /* Never early: firing k comes at least k intervals after connecting. */
  CHECK(uv_hrtime() - log->connected_at >= (uint64_t)(log->ticks[0] + 1) * INTERVAL);
  if (++log->ticks[0] == 2) {
    CHECK_STATUS(0, uvc_subscription_cancel(subscription));
    CHECK_STATUS(UV_EALREADY, uvc_subscription_cancel(subscription)); /* cancel twice */
  }
}

static void tick_b(uvc_subscription_t *subscription, uint64_t time_ns, void *user_data) {
  struct tick_log *log = user_data;
  if (log->ticks[1] < 2) CHECK(time_ns == log->last_time_ns); /* a's firing: same time */
  log->order[log->order_count++] = 1;
  if (++log->ticks[1] == 3) {
    CHECK_STATUS(0, uvc_subscription_free(subscription)); /* inside its own callback */
  }
}

static void tick_c(uvc_subscription_t *subscription, uint64_t time_ns, void *user_data) {
  (void)subscription;
  (void)time_ns;
  struct tick_log *log = user_data;
  log->order[log->order_count++] = 2;
  if (++log->ticks[2] == 5) {
    CHECK_STATUS(0, uvc_connection_cancel(log->connection)); /* stops the timer */
    CHECK_STATUS(UV_EALREADY, uvc_connection_cancel(log->connection));
  }
}

static void test_timer_subscribers(void) {
  struct tick_log log;
  memset(&log, 0, sizeof log);
  uvc_timer_t *timer;
  uvc_subscription_t *a, *b, *c;
  CHECK_STATUS(0, uvc_loop_new(&log.loop));
  CHECK_STATUS(0, uvc_timer_new(log.loop, INTERVAL, UVC_MSEC, &timer));
  CHECK_STATUS(0, uvc_timer_subscribe(timer, tick_a, &log, &a));
  CHECK_STATUS(0, uvc_timer_subscribe(timer, tick_b, &log, &b));
  CHECK_STATUS(0, uvc_timer_subscribe(timer, tick_c, &log, &c));
  /* Nothing fires before connect: a run returns at once. */
  CHECK_STATUS(0, uvc_loop_run(log.loop, UV_RUN_DEFAULT));
  CHECK(log.order_count == 0);
  log.connected_at = uv_hrtime();
  CHECK_STATUS(0, uvc_timer_connect(timer, &log.connection));
  /* Runs until tick_c cancels the connection. */
  CHECK_STATUS(0, uvc_loop_run(log.loop, UV_RUN_DEFAULT));
  CHECK(log.ticks[0] == 2 && log.ticks[1] == 3 && log.ticks[2] == 5);
  static const int expected[] = {0, 1, 2, 0, 1, 2, 1, 2, 2, 2};
  CHECK(log.order_count == 10);
  for (int i = 0; i < 10; i++) CHECK(log.order[i] == expected[i]);

  /* The cancelled connection ended subscription c too. */
  CHECK_STATUS(0, uvc_subscription_cancel(c)); /* the first cancel still answers 0 */
  CHECK_STATUS(UV_EALREADY, uvc_subscription_cancel(c));
  CHECK_STATUS(UV_EALREADY, uvc_subscription_cancel(a));

  /* A new subscriber and a new connection: only it ticks. */
  uvc_subscription_t *d;
  uvc_connection_t *second;
  CHECK_STATUS(0, uvc_connection_free(log.connection));
  log.ticks[2] = 0;
  log.order_count = 0;
  CHECK_STATUS(0, uvc_timer_subscribe(timer, tick_c, &log, &d));
  log.connected_at = uv_hrtime();
  CHECK_STATUS(0, uvc_timer_connect(timer, &second));
  log.connection = second;
  CHECK_STATUS(0, uvc_loop_run(log.loop, UV_RUN_DEFAULT));
  CHECK(log.ticks[2] == 5 && log.order_count == 5);
  CHECK(log.ticks[0] == 2 && log.ticks[1] == 3);

  CHECK_STATUS(0, uvc_subscription_free(a));
  CHECK_STATUS(0, uvc_subscription_free(c));
  CHECK_STATUS(0, uvc_subscription_free(d));
  CHECK_STATUS(0, uvc_connection_free(second));
  CHECK_STATUS(0, uvc_timer_free(timer));
  CHECK_STATUS(0, uvc_loop_close(log.loop));
  CHECK_STATUS(0, uvc_loop_free(log.loop));
}

/* ---------------------------------------------------------------------- */
/* free_inside_callbacks: the timer and the connection freed from a tick   */

struct freeing {
  uvc_timer_t *timer;
  uvc_connection_t *connection;
  uvc_subscription_t *subscription;
  int ticks;
};

static void tick_and_free(uvc_subscription_t *subscription, uint64_t time_ns, void *user_data) {
  (void)time_ns;
  struct freeing *state = user_data;
  CHECK(subscription == state->subscription);
  state->ticks++;
  if (state->ticks == 1) {
    CHECK_STATUS(0, uvc_timer_free(state->timer)); /* the connection keeps it going */
    state->timer = NULL;
  } else if (state->ticks == 2) {
    CHECK_STATUS(0, uvc_connection_free(state->connection)); /* stops it */
    state->connection = NULL;
  } else {
    CHECK(!"ticked after its connection was freed");
  }
}

static void test_free_inside_callbacks(void) {
  uvc_loop_t *loop;
  struct freeing state = {NULL, NULL, NULL, 0};
  CHECK_STATUS(0, uvc_loop_new(&loop));
  CHECK_STATUS(0, uvc_timer_new(loop, INTERVAL, 0, &state.timer));
  CHECK_STATUS(0, uvc_timer_subscribe(state.timer, tick_and_free, &state, &state.subscription));
  CHECK_STATUS(0, uvc_timer_connect(state.timer, &state.connection));
  CHECK_STATUS(0, uvc_loop_run(loop, UV_RUN_DEFAULT));
  CHECK(state.ticks == 2);
  CHECK_STATUS(0, uvc_subscription_free(state.subscription));
  CHECK_STATUS(0, uvc_loop_close(loop));
  CHECK_STATUS(0, uvc_loop_free(loop));
}

/* ---------------------------------------------------------------------- */
/* reentrancy: callbacks calling back into the API                         */

struct reentry {
  int step;
  int counts[2];
};

static void reenter(uvc_loop_t *loop, int status, void *user_data) {
  CHECK_STATUS(0, status);
  struct reentry *state = user_data;
  CHECK_STATUS(UV_EBUSY, uvc_loop_run(loop, UV_RUN_NOWAIT)); /* not re-entrant */
  CHECK_STATUS(UV_EBUSY, uvc_loop_close(loop));              /* running */
  CHECK_STATUS(UV_EBUSY, uvc_loop_free(loop));               /* not closed */
  if (++state->step < 3) {
    CHECK_STATUS(0, uvc_schedule(loop, reenter, state)); /* runs in a later iteration */
    CHECK_STATUS(0, uvc_schedule_after(loop, UVC_MSEC, count_status, state->counts));
  } else {
    /* A timer made, connected and cancelled from inside a callback. */
    uvc_timer_t *timer;
    uvc_connection_t *connection;
    uvc_subscription_t *subscription;
    CHECK_STATUS(0, uvc_timer_new(loop, INTERVAL, 0, &timer));
    CHECK_STATUS(0, uvc_timer_subscribe(timer, ignore_tick, NULL, &subscription));
    CHECK_STATUS(0, uvc_timer_connect(timer, &connection));
    CHECK_STATUS(0, uvc_connection_free(connection));
    CHECK_STATUS(0, uvc_subscription_free(subscription));
    CHECK_STATUS(0, uvc_timer_free(timer));
    CHECK_STATUS(0, uvc_loop_stop(loop));
  }
}

static void test_reentrancy(void) {
  uvc_loop_t *loop;
  struct reentry state = {0, {0, 0}};
  CHECK_STATUS(0, uvc_loop_new(&loop));
  CHECK_STATUS(0, uvc_schedule(loop, reenter, &state));
  /* uvc_loop_stop() from the last step ends this run; the two delayed
   * callbacks are still pending. */
  CHECK_STATUS(1, uvc_loop_run(loop, UV_RUN_DEFAULT));
  CHECK(state.step == 3);
  CHECK_STATUS(0, uvc_loop_run(loop, UV_RUN_DEFAULT));
  CHECK(state.counts[0] == 2 && state.counts[1] == 0);
  CHECK_STATUS(0, uvc_loop_close(loop));
  CHECK_STATUS(0, uvc_loop_free(loop));
}

/* ---------------------------------------------------------------------- */
/* adopted_detach: detach from inside a tick; use after detach            */

struct host {
  uv_loop_t uv_loop;
  uv_timer_t heartbeat; /* the host's own timer, next to ours */
  uvc_loop_t *loop;
  uvc_timer_t *timer;
  uvc_subscription_t *subscription;
  uvc_connection_t *connection;
  int heartbeats;
  int ticks;
  int cancelled[2];
  int detached;
};

static void host_detached(uvc_loop_t *loop, void *user_data) {
  struct host *host = user_data;
  CHECK(loop == host->loop);
  /* Every pending callback got its UV_ECANCELED before this. */
  CHECK(host->cancelled[1] == 2);
  host->detached = 1;
  CHECK_STATUS(0, uvc_loop_free(loop));
  uv_close((uv_handle_t *)&host->heartbeat, NULL);
}

static void host_tick(uvc_subscription_t *subscription, uint64_t time_ns, void *user_data) {
  (void)subscription;
  (void)time_ns;
  struct host *host = user_data;
  if (++host->ticks < 3) return;
  /* Pending work: cancelled by the detach. */
  CHECK_STATUS(0, uvc_schedule(host->loop, count_status, host->cancelled));
  CHECK_STATUS(0, uvc_schedule_after(host->loop, 10 * UVC_SEC, count_status, host->cancelled));
  CHECK_STATUS(0, uvc_loop_detach(host->loop, host_detached, host));
  /* Use after detach, before it completed. */
  CHECK(host->cancelled[1] >= 1); /* the queued one, inside the detach */
  CHECK_STATUS(UV_EALREADY, uvc_loop_detach(host->loop, host_detached, host));
  CHECK_STATUS(UV_EBUSY, uvc_loop_free(host->loop));
  CHECK_STATUS(UV_ECANCELED, uvc_schedule(host->loop, count_status, host->cancelled));
  CHECK_STATUS(UV_ECANCELED, uvc_schedule_after(host->loop, 0, count_status, host->cancelled));
  uvc_timer_t *timer = (uvc_timer_t *)&timer;
  CHECK_STATUS(UV_ECANCELED, uvc_timer_new(host->loop, INTERVAL, 0, &timer));
  CHECK(timer == NULL);
  uvc_subscription_t *other = (uvc_subscription_t *)&other;
  CHECK_STATUS(UV_ECANCELED, uvc_timer_subscribe(host->timer, ignore_tick, NULL, &other));
  CHECK(other == NULL);
  uvc_connection_t *connection = (uvc_connection_t *)&connection;
  CHECK_STATUS(UV_ECANCELED, uvc_timer_connect(host->timer, &connection));
  CHECK(connection == NULL);
  CHECK(host->detached == 0); /* completes in a later iteration */
}

static void host_heartbeat(uv_timer_t *handle) {
  struct host *host = handle->data;
  host->heartbeats++;
}

static void test_adopted_detach(void) {
  struct host host;
  memset(&host, 0, sizeof host);
  CHECK_STATUS(0, uv_loop_init(&host.uv_loop));
  CHECK_STATUS(0, uv_timer_init(&host.uv_loop, &host.heartbeat));
  host.heartbeat.data = &host;
  CHECK_STATUS(0, uv_timer_start(&host.heartbeat, host_heartbeat, 1, 1));
  CHECK_STATUS(0, uvc_loop_adopt(&host.uv_loop, &host.loop));
  CHECK_STATUS(0, uvc_timer_new(host.loop, INTERVAL, 0, &host.timer));
  CHECK_STATUS(0, uvc_timer_subscribe(host.timer, host_tick, &host, &host.subscription));
  CHECK_STATUS(0, uvc_timer_connect(host.timer, &host.connection));
  /* Runs until host_detached() closes the heartbeat. */
  run_and_close_host_loop(&host.uv_loop);
  CHECK(host.detached == 1);
  CHECK(host.ticks == 3);
  CHECK(host.cancelled[0] == 0 && host.cancelled[1] == 2);
  CHECK(host.heartbeats > 0);
  /* The timer's objects outlive the loop and answer errors. */
  uvc_connection_t *late = (uvc_connection_t *)&late;
  CHECK_STATUS(UV_ECANCELED, uvc_timer_connect(host.timer, &late));
  CHECK(late == NULL);
  CHECK_STATUS(0, uvc_subscription_cancel(host.subscription));
  CHECK_STATUS(UV_EALREADY, uvc_subscription_cancel(host.subscription));
  CHECK_STATUS(0, uvc_connection_cancel(host.connection));
  CHECK_STATUS(UV_EALREADY, uvc_connection_cancel(host.connection));
  CHECK_STATUS(0, uvc_subscription_free(host.subscription));
  CHECK_STATUS(0, uvc_connection_free(host.connection));
  CHECK_STATUS(0, uvc_timer_free(host.timer));
}

/* ---------------------------------------------------------------------- */
/* detach_outside_run: detach while the host's loop is not running         */

static void test_detach_outside_run(void) {
  uv_loop_t uv_loop;
  uvc_loop_t *loop;
  uvc_timer_t *timer;
  uvc_connection_t *connection;
  int counts[2] = {0, 0};
  int detached = 0;
  CHECK_STATUS(0, uv_loop_init(&uv_loop));
  CHECK_STATUS(0, uvc_loop_adopt(&uv_loop, &loop));
  CHECK_STATUS(0, uvc_timer_new(loop, INTERVAL, 0, &timer));
  CHECK_STATUS(0, uvc_timer_connect(timer, &connection));
  CHECK_STATUS(0, uvc_schedule(loop, count_status, counts));
  CHECK_STATUS(0, uvc_schedule_after(loop, 10 * UVC_SEC, count_status, counts));
  CHECK_STATUS(0, uvc_loop_detach(loop, detached_set_flag, &detached));
  CHECK(counts[1] == 2); /* both were still queued: cancelled inside the detach */
  CHECK(detached == 0);
  /* The host's loop closes only after running once more. */
  CHECK_STATUS(UV_EBUSY, uv_loop_close(&uv_loop));
  CHECK_STATUS(0, uv_run(&uv_loop, UV_RUN_DEFAULT));
  CHECK(detached == 1);
  CHECK(counts[0] == 0 && counts[1] == 2);
  CHECK_STATUS(0, uv_loop_close(&uv_loop));
  CHECK_STATUS(0, uvc_loop_free(loop));
  /* Stopped by the detach; the first cancel still answers 0. */
  CHECK_STATUS(0, uvc_connection_cancel(connection));
  CHECK_STATUS(0, uvc_connection_free(connection));
  CHECK_STATUS(0, uvc_timer_free(timer));
}

/* ---------------------------------------------------------------------- */
/* close_busy: the host's own handle keeps a created loop from closing     */

static void test_close_busy(void) {
  uvc_loop_t *loop;
  uv_timer_t own;
  int counts[2] = {0, 0};
  CHECK_STATUS(0, uvc_loop_new(&loop));
  CHECK_STATUS(0, uv_timer_init(uvc_loop_get_uv_loop(loop), &own));
  CHECK_STATUS(UV_EBUSY, uvc_loop_close(loop));
  /* The library's part is closed already: nothing new starts. */
  CHECK_STATUS(UV_ECANCELED, uvc_schedule(loop, count_status, counts));
  CHECK_STATUS(UV_ECANCELED, uvc_loop_run(loop, UV_RUN_NOWAIT));
  CHECK_STATUS(UV_EBUSY, uvc_loop_free(loop));
  /* The retry belongs to the thread that tried first. */
  struct cross_thread call = {loop, 1};
  call_on_thread(close_elsewhere, &call);
  CHECK_STATUS(UV_EPERM, call.status);
  uv_close((uv_handle_t *)&own, NULL);
  CHECK_STATUS(0, uv_run(uvc_loop_get_uv_loop(loop), UV_RUN_NOWAIT));
  CHECK_STATUS(0, uvc_loop_close(loop));
  CHECK_STATUS(0, uvc_loop_free(loop));
  CHECK(counts[0] == 0 && counts[1] == 0);
}

/* ---------------------------------------------------------------------- */
/* threads: submit from pthreads, wrong-thread calls, cancel from a thread */

#define SUBMITTERS 4
#define ITEMS 5000

struct submitted {
  uvc_loop_t *loop;
  uv_async_t *keep_alive; /* the host's handle that keeps the loop running */
  int last_seen[SUBMITTERS];
  int received;
};

struct item {
  struct submitted *shared;
  int thread;
  int sequence;
};

static void receive_item(uvc_loop_t *loop, int status, void *user_data) {
  CHECK_STATUS(0, status);
  struct item *item = user_data;
  struct submitted *shared = item->shared;
  CHECK(loop == shared->loop);
  /* Items from one thread arrive in the order they were submitted. */
  CHECK(item->sequence == shared->last_seen[item->thread] + 1);
  shared->last_seen[item->thread] = item->sequence;
  free(item);
  if (++shared->received == SUBMITTERS * ITEMS) {
    uv_close((uv_handle_t *)shared->keep_alive, NULL);
  }
}

struct submitter {
  struct submitted *shared;
  int thread;
};

static void *submit_items(void *argument) {
  struct submitter *submitter = argument;
  for (int sequence = 1; sequence <= ITEMS; sequence++) {
    struct item *item = malloc(sizeof *item);
    CHECK(item != NULL);
    item->shared = submitter->shared;
    item->thread = submitter->thread;
    item->sequence = sequence;
    CHECK_STATUS(0, uvc_schedule(submitter->shared->loop, receive_item, item));
  }
  return NULL;
}

static void unused_async(uv_async_t *handle) {
  (void)handle;
}

static void run_from_other_thread_while_running(uvc_loop_t *loop, int status, void *user_data) {
  CHECK_STATUS(0, status);
  struct cross_thread call = {loop, 0};
  call_on_thread(run_elsewhere, &call);
  *(int *)user_data = call.status;
}

static void test_threads(void) {
  struct submitted shared;
  memset(&shared, 0, sizeof shared);
  uv_async_t keep_alive;
  CHECK_STATUS(0, uvc_loop_new(&shared.loop));
  CHECK_STATUS(0, uv_async_init(uvc_loop_get_uv_loop(shared.loop), &keep_alive, unused_async));
  shared.keep_alive = &keep_alive;
  pthread_t threads[SUBMITTERS];
  struct submitter submitters[SUBMITTERS];
  for (int i = 0; i < SUBMITTERS; i++) {
    submitters[i].shared = &shared;
    submitters[i].thread = i;
    CHECK(pthread_create(&threads[i], NULL, submit_items, &submitters[i]) == 0);
  }
  CHECK_STATUS(0, uvc_loop_run(shared.loop, UV_RUN_DEFAULT));
  for (int i = 0; i < SUBMITTERS; i++) CHECK(pthread_join(threads[i], NULL) == 0);
  CHECK(shared.received == SUBMITTERS * ITEMS);

  /* Running on another thread while this one runs it: UV_EBUSY. */
  int status = 1;
  CHECK_STATUS(0, uvc_schedule(shared.loop, run_from_other_thread_while_running, &status));
  CHECK_STATUS(0, uvc_loop_run(shared.loop, UV_RUN_DEFAULT));
  CHECK_STATUS(UV_EBUSY, status);

  /* Stopping from another thread is fine; closing is for the loop thread. */
  struct cross_thread call = {shared.loop, 1};
  call_on_thread(stop_elsewhere, &call);
  CHECK_STATUS(0, call.status);
  call_on_thread(close_elsewhere, &call);
  CHECK_STATUS(UV_EPERM, call.status);
  CHECK_STATUS(0, uvc_loop_close(shared.loop));
  CHECK_STATUS(0, uvc_loop_free(shared.loop));

  /* Detaching is for the loop thread too. */
  uv_loop_t uv_loop;
  CHECK_STATUS(0, uv_loop_init(&uv_loop));
  CHECK_STATUS(0, uvc_loop_adopt(&uv_loop, &call.loop));
  call_on_thread(detach_elsewhere, &call);
  CHECK_STATUS(UV_EPERM, call.status);
  CHECK_STATUS(0, uvc_loop_detach(call.loop, NULL, NULL));
  run_and_close_host_loop(&uv_loop);
  CHECK_STATUS(0, uvc_loop_free(call.loop));
}

/* cancel_from_thread: once cancel returned on another thread, no callback */

struct racing {
  uvc_subscription_t *subscription;
  uvc_connection_t *connection;
  volatile int cancel_returned; /* written by the cancelling thread */
  pthread_mutex_t lock;
  int ticks;
  int late;
};

static void racing_tick(uvc_subscription_t *subscription, uint64_t time_ns, void *user_data) {
  (void)subscription;
  (void)time_ns;
  struct racing *race = user_data;
  pthread_mutex_lock(&race->lock);
  if (race->cancel_returned) race->late++;
  race->ticks++;
  pthread_mutex_unlock(&race->lock);
}

static void *cancel_after_ticks(void *argument) {
  struct racing *race = argument;
  for (;;) {
    pthread_mutex_lock(&race->lock);
    int ticks = race->ticks;
    pthread_mutex_unlock(&race->lock);
    if (ticks >= 3) break;
    uv_sleep(1);
  }
  CHECK_STATUS(0, uvc_subscription_cancel(race->subscription));
  pthread_mutex_lock(&race->lock);
  race->cancel_returned = 1;
  pthread_mutex_unlock(&race->lock);
  /* Let a few more firings happen, then stop the timer from here too. */
  uv_sleep(10);
  CHECK_STATUS(0, uvc_connection_cancel(race->connection));
  return NULL;
}

static void test_cancel_from_thread(void) {
  uvc_loop_t *loop;
  uvc_timer_t *timer;
  struct racing race;
  memset(&race, 0, sizeof race);
  CHECK(pthread_mutex_init(&race.lock, NULL) == 0);
  CHECK_STATUS(0, uvc_loop_new(&loop));
  CHECK_STATUS(0, uvc_timer_new(loop, UVC_MSEC, 0, &timer));
  CHECK_STATUS(0, uvc_timer_subscribe(timer, racing_tick, &race, &race.subscription));
  CHECK_STATUS(0, uvc_timer_connect(timer, &race.connection));
  pthread_t thread;
  CHECK(pthread_create(&thread, NULL, cancel_after_ticks, &race) == 0);
  /* Runs until the other thread cancels the connection. */
  CHECK_STATUS(0, uvc_loop_run(loop, UV_RUN_DEFAULT));
  CHECK(pthread_join(thread, NULL) == 0);
  CHECK(race.ticks >= 3);
  CHECK(race.late == 0);
  CHECK_STATUS(0, uvc_subscription_free(race.subscription));
  CHECK_STATUS(0, uvc_connection_free(race.connection));
  CHECK_STATUS(0, uvc_timer_free(timer));
  CHECK_STATUS(0, uvc_loop_close(loop));
  CHECK_STATUS(0, uvc_loop_free(loop));
  pthread_mutex_destroy(&race.lock);
}

/* ---------------------------------------------------------------------- */

struct test_case {
  const char *name;
  void (*run)(void);
};

static const struct test_case cases[] = {
    {"version_and_errors", test_version_and_errors},
    {"null_pointers", test_null_pointers},
    {"bad_arguments", test_bad_arguments},
    {"created_loop", test_created_loop},
    {"pending_cancelled_on_close", test_pending_cancelled_on_close},
    {"timer_subscribers", test_timer_subscribers},
    {"free_inside_callbacks", test_free_inside_callbacks},
    {"reentrancy", test_reentrancy},
    {"adopted_detach", test_adopted_detach},
    {"detach_outside_run", test_detach_outside_run},
    {"close_busy", test_close_busy},
    {"threads", test_threads},
    {"cancel_from_thread", test_cancel_from_thread},
};

#define CASE_COUNT ((int)(sizeof cases / sizeof cases[0]))

int main(int argc, char **argv) {
  setvbuf(stdout, NULL, _IONBF, 0);
  if (argc > 1 && strcmp(argv[1], "--list") == 0) {
    for (int i = 0; i < CASE_COUNT; i++) printf("%s\n", cases[i].name);
    return 0;
  }
  int passed = 0;
  for (int i = 0; i < CASE_COUNT; i++) {
    int selected = argc == 1;
    for (int a = 1; a < argc; a++) selected |= strcmp(argv[a], cases[i].name) == 0;
    if (!selected) continue;
    cases[i].run(); /* a failed check exits with status 1 */
    printf("ok %s\n", cases[i].name);
    passed++;
  }
  if (passed == 0) {
    fprintf(stderr, "no such case\n");
    return 2;
  }
  printf("%d passed, 0 failed\n", passed);
  return 0;
}
