/*
 * uvcombine.h: the C API of UVCombine, Combine's programming model on a
 * libuv event loop, for C (and C++) hosts.
 *
 * Build a host with
 *
 *     cc -std=gnu11 host.c $(pkg-config --cflags --libs uvcombine)
 *
 * (uv.h needs gnu11 or later rather than plain c11). libuvcombine-c.so carries
 * its own Swift runtime: at run time it needs libuv, libc, libm, libstdc++
 * and libgcc_s only.
 *
 * Conventions, as in libuv:
 *
 * - Every name starts with uvc_. The types are opaque: the library allocates
 *   every object, and each object you get has a matching uvc_*_free().
 * - Functions return an int: 0 (or a count, where documented) on success,
 *   a negative libuv error code (UV_EINVAL, ...) on failure. uvc_strerror()
 *   and uvc_err_name() describe any code. The codes mean the same
 *   everywhere:
 *     UV_EINVAL     a required pointer or callback is NULL, an argument is
 *                   out of range, or the call does not apply to this kind of
 *                   loop (an adopted loop is detached, a created one closed);
 *     UV_ECANCELED  the loop was detached or closed: nothing new starts;
 *     UV_EALREADY   it was already done (a second cancel, detach or close);
 *     UV_EBUSY      not now: the loop is running, or still has handles;
 *     UV_EPERM      called on a thread that is not the loop's thread.
 *   A function that fails changes nothing, and leaves *out set to NULL.
 * - Every pointer argument may be NULL (hence _Nullable): the function then
 *   returns UV_EINVAL. Pointers the library passes to your callbacks are
 *   never NULL. Using an object after its uvc_*_free() is undefined, as with
 *   free(); everything else (cancelling twice, using a timer after its loop
 *   was detached, calling back into the API from a callback) returns an
 *   error code, never crashes.
 * - Every callback takes the void *user_data given with it. A callback that
 *   was accepted runs exactly once (uvc_work_cb) or until cancelled
 *   (uvc_timer_cb); once the cancelling call returned it never runs again,
 *   so user_data may be freed then.
 * - Callbacks run on the loop's thread, inside libuv's callbacks. They may
 *   call any function of this API (including on the objects they were
 *   called for), except that uvc_loop_run() and uvc_loop_close() from inside
 *   a callback return UV_EBUSY.
 * - Times are nanoseconds (uint64_t); UVC_MSEC and UVC_SEC help write them.
 *
 * Threads: a loop runs on one thread at a time, its loop thread: the one in
 * uvc_loop_run() for a created loop, the one that called uvc_loop_adopt()
 * (and runs the host's uv_run()) for an adopted loop. Each function below
 * says where it may be called from; "any thread" means any thread, also
 * concurrently with the loop running.
 */
#ifndef UVCOMBINE_H
#define UVCOMBINE_H

#include <stdint.h>
#include <uv.h>

/* Nullability annotations are a clang extension; other compilers see none.
 * Defined here only for this header, and removed again at its end. */
#if !defined(__clang__) && !defined(_Nullable)
#define _Nullable
#define _Nonnull
#define UVC_DEFINED_NULLABILITY 1
#endif

#ifdef __cplusplus
extern "C" {
#endif

/* ---------------------------------------------------------------------- */
/* Version, errors and time                                                */

/** The version as (major << 16) | (minor << 8) | patch. Any thread. */
#define UVC_VERSION_MAJOR 0
#define UVC_VERSION_MINOR 1
#define UVC_VERSION_PATCH 0
#define UVC_VERSION_HEX \
  ((UVC_VERSION_MAJOR << 16) | (UVC_VERSION_MINOR << 8) | UVC_VERSION_PATCH)

/** One millisecond and one second, in nanoseconds. */
#define UVC_MSEC UINT64_C(1000000)
#define UVC_SEC UINT64_C(1000000000)

/**
 * The library's version, UVC_VERSION_HEX of the library actually loaded
 * (compare with the header's to detect a mismatch). Any thread.
 */
unsigned int uvc_version(void);

/** The library's version as a string, e.g. "0.1.0". Any thread. */
const char *_Nonnull uvc_version_string(void);

/**
 * The message for an error code, e.g. "operation canceled" for
 * UV_ECANCELED, as uv_strerror() gives it. Never NULL; unknown codes get a
 * generic message. Any thread.
 */
const char *_Nonnull uvc_strerror(int err);

/**
 * The name of an error code, e.g. "ECANCELED", as uv_err_name() gives it.
 * Never NULL. Any thread.
 */
const char *_Nonnull uvc_err_name(int err);

/* ---------------------------------------------------------------------- */
/* Loops                                                                   */

/**
 * The library's side of a libuv loop: its wake-up handle, its queue of work
 * from other threads, and every handle its timers open. Either adopted (the
 * host's uv_loop_t, which the host keeps running and closing) or created
 * (the library's own uv_loop_t, run with uvc_loop_run()).
 */
typedef struct uvc_loop_s uvc_loop_t;

/**
 * Called once a detach finished: every handle the library had opened on the
 * host's loop has been closed and its close callback has run. Loop thread.
 * The callback may call uvc_loop_free(loop).
 */
typedef void (*uvc_detach_cb)(uvc_loop_t *_Nonnull loop, void *_Nullable user_data);

/**
 * Adopts a loop the host owns and runs. The library never runs, stops or
 * closes `uv_loop`; it opens one uv_async_t on it (unreferenced: it never
 * keeps uv_run() alive) plus one uv_timer_t per connected timer or pending
 * delayed callback. Work scheduled from other threads runs in the host's
 * iterations. End with uvc_loop_detach(), then uvc_loop_free().
 *
 * Thread: the thread that runs `uv_loop`, which becomes the loop thread;
 * also while uv_run() is running (from one of the host's callbacks).
 * Errors: UV_EINVAL (a NULL pointer), or what uv_async_init() reported.
 */
int uvc_loop_adopt(uv_loop_t *_Nullable uv_loop, uvc_loop_t *_Nullable *_Nullable loop_out);

/**
 * Creates a loop with a uv_loop_t of the library's own. It has no thread
 * until uvc_loop_run(); work scheduled before then runs once it does. The
 * host may open its own libuv handles on uvc_loop_get_uv_loop() (and must
 * close them before uvc_loop_close()). End with uvc_loop_close(), then
 * uvc_loop_free().
 *
 * Thread: any thread. Errors: UV_EINVAL (NULL loop_out), or what
 * uv_loop_init() or uv_async_init() reported.
 */
int uvc_loop_new(uvc_loop_t *_Nullable *_Nullable loop_out);

/**
 * The libuv loop behind `loop` (the adopted one, or the created one), or
 * NULL for a NULL loop. Any thread; use the libuv loop only on the loop
 * thread.
 */
uv_loop_t *_Nullable uvc_loop_get_uv_loop(const uvc_loop_t *_Nullable loop);

/**
 * Runs a created loop on the calling thread, which becomes its loop thread,
 * like uv_run(): UV_RUN_DEFAULT until no referenced work is left (a
 * connected timer, a pending uvc_schedule*() callback, the host's own
 * referenced handles) or uvc_loop_stop(); UV_RUN_ONCE and UV_RUN_NOWAIT one
 * iteration.
 *
 * Returns 1 when referenced work remains, 0 when none does (uv_run()'s
 * result), or an error. Thread: any one thread at a time.
 * Errors: UV_EINVAL (NULL, an adopted loop, an unknown mode), UV_EBUSY
 * (already running: from a callback, or on another thread), UV_ECANCELED
 * (the loop was closed).
 */
int uvc_loop_run(uvc_loop_t *_Nullable loop, uv_run_mode mode);

/**
 * Makes uvc_loop_run() return once the current iteration ends. A stop that
 * arrives while the loop is not running ends the next uvc_loop_run() after
 * its first iteration.
 *
 * Thread: any thread (from another thread the request is queued, since
 * uv_stop() is not thread-safe). Errors: UV_EINVAL (NULL, an adopted loop),
 * UV_ECANCELED (the loop was closed).
 */
int uvc_loop_stop(uvc_loop_t *_Nullable loop);

/**
 * Closes a created loop: cancels every pending uvc_schedule*() callback
 * (each runs once with UV_ECANCELED, before this returns), stops every timer
 * connection and ends every subscription, closes every handle the library
 * opened, runs their close callbacks, and closes the uv_loop_t. From then on
 * the loop's objects answer UV_ECANCELED; free them and the loop.
 *
 * Thread: the thread that last ran the loop (any thread if it never ran),
 * while it is not running. Errors: UV_EINVAL (NULL, an adopted loop),
 * UV_EBUSY (the loop is running, or the host's own handles are still open on
 * it: close them, let their close callbacks run with uv_run() on
 * uvc_loop_get_uv_loop(), and call uvc_loop_close() again), UV_EPERM (another
 * thread), UV_EALREADY (already closed).
 */
int uvc_loop_close(uvc_loop_t *_Nullable loop);

/**
 * Detaches from an adopted loop: closes only the handles the library opened
 * on it, and leaves the host's loop and handles alone. Before this returns,
 * every pending uvc_schedule() callback runs once with UV_ECANCELED, every
 * timer connection stops and every subscription ends; from then on the
 * loop's objects answer UV_ECANCELED. A delayed callback (uvc_schedule_after)
 * whose timer had started gets its UV_ECANCELED from that timer's close
 * callback instead, before `cb` runs.
 *
 * Completion is asynchronous, as uv_close() is: the close callbacks run in
 * the host's next loop iteration, and then `cb` (if not NULL) runs, on the
 * loop thread. Calling this from inside a callback of a running loop is
 * fine. If the host's loop is not running, run it (uv_run(UV_RUN_DEFAULT)
 * returns once the detach completed: the closing handles keep it alive until
 * then) before uv_loop_close(). After completion, uvc_loop_free(loop).
 *
 * Thread: the loop thread. Errors: UV_EINVAL (NULL, a created loop),
 * UV_EPERM (another thread), UV_EALREADY (already detaching or detached).
 */
int uvc_loop_detach(uvc_loop_t *_Nullable loop, uvc_detach_cb _Nullable cb,
                    void *_Nullable user_data);

/**
 * Frees a loop once it was closed (created) or its detach completed
 * (adopted); `loop` is invalid afterwards. Timers and subscriptions made on
 * it stay valid (they answer UV_ECANCELED) until freed themselves.
 *
 * Thread: any thread, also from the detach callback. Errors: UV_EINVAL
 * (NULL), UV_EBUSY (not closed yet, or the detach has not completed; nothing
 * is freed).
 */
int uvc_loop_free(uvc_loop_t *_Nullable loop);

/* ---------------------------------------------------------------------- */
/* Scheduling                                                              */

/**
 * A scheduled callback. `status` is 0 when it runs as scheduled, or
 * UV_ECANCELED when the loop was detached or closed before it could run.
 * Either way it runs exactly once, on the loop thread (for a created loop
 * closed before it ever ran: on the thread calling uvc_loop_close()).
 */
typedef void (*uvc_work_cb)(uvc_loop_t *_Nonnull loop, int status, void *_Nullable user_data);

/**
 * Runs `cb` on the loop thread at the next opportunity: in a later
 * iteration, never inside this call, even on the loop thread. Callbacks
 * scheduled from one thread run in the order they were scheduled.
 *
 * Thread: any thread (the thread-safe way to hand work to the loop: one
 * mutex-protected queue, one uv_async_t wake-up). From another thread it
 * does not keep an adopted loop alive: the host's loop must be running.
 * Errors: UV_EINVAL (NULL loop or cb), UV_ECANCELED (the loop was detached
 * or closed; `cb` will not run).
 */
int uvc_schedule(uvc_loop_t *_Nullable loop, uvc_work_cb _Nullable cb, void *_Nullable user_data);

/**
 * Runs `cb` on the loop thread once `delay_ns` nanoseconds have passed: never
 * earlier, usually within a millisecond after (libuv's timers count whole
 * milliseconds). Callbacks with equal deadlines run in the order scheduled.
 * A pending delayed callback keeps the loop alive, as setTimeout() does.
 *
 * Thread: any thread. Errors: UV_EINVAL (NULL loop or cb), UV_ECANCELED
 * (the loop was detached or closed; `cb` will not run).
 */
int uvc_schedule_after(uvc_loop_t *_Nullable loop, uint64_t delay_ns, uvc_work_cb _Nullable cb,
                       void *_Nullable user_data);

/* ---------------------------------------------------------------------- */
/* Timers                                                                  */

/**
 * A timer publisher: Combine's Timer.publish(every:tolerance:on:in:) on a
 * loop. Subscribers receive the firings of every connection; each
 * uvc_timer_connect() starts one uv_timer_t, shared by every subscriber.
 * Firings come on a fixed schedule (connect + k * interval) that does not
 * drift, never early; firings a blocked loop missed are skipped.
 */
typedef struct uvc_timer_s uvc_timer_t;

/** One subscriber's link to a timer, made by uvc_timer_subscribe(). */
typedef struct uvc_subscription_s uvc_subscription_t;

/** One running uv_timer_t of a timer, made by uvc_timer_connect(). */
typedef struct uvc_connection_s uvc_connection_t;

/**
 * A timer firing. `time_ns` is the firing's wall-clock time in nanoseconds
 * since the Unix epoch (microsecond precision; every subscriber of one firing
 * gets the same value; read uv_hrtime() for a monotonic clock). Loop thread.
 * The callback may cancel or free its own subscription.
 */
typedef void (*uvc_timer_cb)(uvc_subscription_t *_Nonnull subscription, uint64_t time_ns,
                             void *_Nullable user_data);

/**
 * Creates a timer that fires every `interval_ns` nanoseconds once connected
 * (intervals under 100 microseconds count as 100 microseconds). Nothing
 * fires before uvc_timer_connect(). `tolerance_ns` is recorded and otherwise
 * unused: firings are never early and come within about a millisecond,
 * tighter than any tolerance. Free with uvc_timer_free().
 *
 * Thread: any thread. Errors: UV_EINVAL (NULL loop or timer_out,
 * interval_ns 0 or above INT64_MAX), UV_ECANCELED (the loop was detached or
 * closed).
 */
int uvc_timer_new(uvc_loop_t *_Nullable loop, uint64_t interval_ns, uint64_t tolerance_ns,
                  uvc_timer_t *_Nullable *_Nullable timer_out);

/**
 * Subscribes `cb`: from now on it runs for every firing of every connection
 * of `timer`, until uvc_subscription_cancel(), or until a connection of
 * `timer` is cancelled (as in Combine, cancelling a connection also ends
 * every subscription attached to the timer at that time). Several
 * subscribers may share one timer; they run in the order they subscribed.
 *
 * Thread: any thread. Errors: UV_EINVAL (NULL timer, cb or
 * subscription_out), UV_ECANCELED (the loop was detached or closed).
 */
int uvc_timer_subscribe(uvc_timer_t *_Nullable timer, uvc_timer_cb _Nullable cb, void *_Nullable user_data,
                        uvc_subscription_t *_Nullable *_Nullable subscription_out);

/**
 * Connects: starts a uv_timer_t whose first firing comes one interval from
 * now. Connecting again runs a second timer. The connection keeps running
 * (and keeps a created loop's uvc_loop_run() alive) until
 * uvc_connection_cancel(), uvc_connection_free(), or the loop's detach or
 * close; the timer object may be freed meanwhile.
 *
 * Thread: any thread. Errors: UV_EINVAL (NULL timer or connection_out),
 * UV_ECANCELED (the loop was detached or closed).
 */
int uvc_timer_connect(uvc_timer_t *_Nullable timer, uvc_connection_t *_Nullable *_Nullable connection_out);

/**
 * Frees a timer. Its connections keep running and its subscriptions stay
 * attached to them until cancelled; each is freed on its own.
 *
 * Thread: any thread. Errors: UV_EINVAL (NULL).
 */
int uvc_timer_free(uvc_timer_t *_Nullable timer);

/**
 * Cancels a subscription: once this returns, its callback never runs again
 * (a firing being delivered on the loop thread at that moment is waited for,
 * so a timer callback must not block waiting for a thread that cancels a
 * subscription of the same timer). The subscription still needs
 * uvc_subscription_free().
 *
 * Thread: any thread, also from the subscription's own callback. Errors:
 * UV_EINVAL (NULL), UV_EALREADY (cancelled before).
 */
int uvc_subscription_cancel(uvc_subscription_t *_Nullable subscription);

/**
 * Cancels the subscription if it was not cancelled yet, and frees it.
 *
 * Thread: any thread, also from its own callback (the object then lives
 * until the callback returns; do not use it after this call). Errors:
 * UV_EINVAL (NULL).
 */
int uvc_subscription_free(uvc_subscription_t *_Nullable subscription);

/**
 * Stops a connection's uv_timer_t (it closes on the loop thread) and ends
 * the subscriptions attached to the timer: once this returns none of their
 * callbacks runs again. A later uvc_timer_connect() serves only later
 * subscribers. The connection still needs uvc_connection_free().
 *
 * Thread: any thread, also from a timer callback. Errors: UV_EINVAL (NULL),
 * UV_EALREADY (cancelled before).
 */
int uvc_connection_cancel(uvc_connection_t *_Nullable connection);

/**
 * Cancels the connection if it was not cancelled yet, and frees it.
 *
 * Thread: any thread. Errors: UV_EINVAL (NULL).
 */
int uvc_connection_free(uvc_connection_t *_Nullable connection);

#ifdef __cplusplus
}
#endif

#ifdef UVC_DEFINED_NULLABILITY
#undef _Nullable
#undef _Nonnull
#undef UVC_DEFINED_NULLABILITY
#endif

#endif /* UVCOMBINE_H */
