/*
 * uvcombine.h: the C API of UVCombine, Combine's programming model on a
 * libuv event loop, for C (and C++) hosts.
 *
 * Build a host with
 *
 *     cc -std=gnu11 host.c $(pkg-config --cflags --libs uvcombine)
 *
 * (uv.h needs gnu11 or later rather than plain c11). libuvcombine-c.so carries
 * its own Swift runtime: at run time it needs libuv, OpenSSL 3, zlib, libc,
 * libm, libstdc++ and libgcc_s only.
 *
 * Conventions: libuv's (a name prefix, int results that are negative libuv
 * error codes, callbacks that take a user_data), except for who owns memory:
 *
 * - Every name starts with uvc_. Unlike libuv, whose handles and requests
 *   the caller allocates (uv_timer_t on the stack or in a struct of yours),
 *   the objects here are opaque and the library allocates every one: each
 *   object you get has a matching uvc_*_free(). That keeps their layout out
 *   of the ABI, so they can change without breaking compiled hosts, and lets
 *   a free from any thread wait for the loop thread safely. The few structs
 *   with visible fields describe data: a request you pass in (copied during
 *   the call), session options (copied by uvc_session_new()), and the
 *   response and error passed to a fetch callback (valid during the
 *   callback).
 * - The two structs you fill in, uvc_request_t and uvc_session_options_t,
 *   start with a `size` member that says which version of the struct you
 *   compiled against: set it with UVC_REQUEST_INIT or
 *   uvc_session_options_init(). Later versions only add fields at the end,
 *   so a host built against an older header keeps working (fields its size
 *   does not cover take their defaults), and a newer host's struct is
 *   accepted by an older library when the fields it does not know are zero
 *   (UV_EINVAL otherwise, rather than silently ignoring them). A size of 0,
 *   or one that ends inside a field, is UV_EINVAL. The structs the library
 *   passes you (uvc_response_t, uvc_fetch_error_t) also only grow at the
 *   end.
 * - Functions return an int: 0 (or a count, where documented) on success,
 *   a negative libuv error code (UV_EINVAL, ...) on failure; fetches also
 *   fail with the UVC_E* codes of UVC_FETCH_ERRNO_MAP below. uvc_strerror()
 *   and uvc_err_name() describe any code. The codes mean the same
 *   everywhere:
 *     UV_EINVAL     a required pointer or callback is NULL, an argument is
 *                   out of range, or the call does not apply to this kind of
 *                   loop (an adopted loop is detached, a created one closed);
 *     UV_ECANCELED  the loop was detached or closed (or the shared fetch
 *                   cancelled): nothing new starts;
 *     UV_EALREADY   it was already done (a second cancel, detach or close;
 *                   a cancel after the fetch's callback ran);
 *     UV_EBUSY      not now: the loop is running, or still has handles;
 *     UV_EPERM      called on a thread that is not the loop's thread.
 *   A function that fails changes nothing, and leaves *out set to NULL.
 * - Every pointer argument may be NULL (hence _Nullable): the function then
 *   returns UV_EINVAL, unless NULL is documented to mean something (a
 *   user_data, a callback of uvc_loop_detach(), the options of
 *   uvc_session_new()). Pointers the library passes to your callbacks are
 *   never NULL. Using an object after its uvc_*_free() is undefined, as with
 *   free(); everything else (cancelling twice, using a timer after its loop
 *   was detached, calling back into the API from a callback) returns an
 *   error code, never crashes.
 * - Every callback takes the void *user_data given with it. A callback that
 *   was accepted runs exactly once (uvc_work_cb; uvc_fetch_cb unless its
 *   fetch is cancelled first) or until cancelled (uvc_timer_cb); once the
 *   cancelling call returned it never runs again, so user_data may be freed
 *   then.
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

#include <stddef.h>
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
 * The codes a fetch fails with besides UV_ECANCELED, as
 * XX(name, value, message): negative like libuv's, and outside every range
 * libuv uses (the values are those of Foundation's URLError codes). The
 * fetch callback's uvc_fetch_error_t says more: the libuv error behind a
 * transport failure, and a message with the details.
 *
 *   UVC_EBADURL            malformed URL: no host, a bad port, CR/LF/NUL, user info
 *   UVC_ETIMEDOUT          a deadline passed: connect, idle read or total (the message says which)
 *   UVC_EUNSUPPORTEDURL    a scheme other than http or https
 *   UVC_ECANNOTFINDHOST    the host name did not resolve (uv_code UV_EAI_NONAME, ...)
 *   UVC_ECANNOTCONNECT     no TCP connection (uv_code UV_ECONNREFUSED, ...)
 *   UVC_ECONNECTIONLOST    reset, or closed before the response was complete
 *   UVC_ETOOMANYREDIRECTS  more redirects than max_redirects, or a redirect cycle
 *   UVC_EUNAVAILABLE       the session could not take the fetch (it was shut down)
 *   UVC_EBADRESPONSE       not a valid HTTP/1.1 response, or a head over the limits
 *   UVC_ETOOLARGE          a body longer than max_response_body_bytes
 *   UVC_EBADREQUEST        the request cannot be written: a method that is not a
 *                          token, CR/LF/NUL or bad characters in a header
 *   UVC_EINSECUREREDIRECT  a redirect from https to http was refused
 *   UVC_ESECURECONNECTION  the TLS handshake failed (no common version, not TLS,
 *                          an unreadable tls_ca_file); the message has OpenSSL's reason
 *   UVC_ECERTBADDATE       the server's certificate has expired
 *   UVC_ECERTUNTRUSTED     the server's certificate chain is not trusted
 *   UVC_ECERTUNKNOWNROOT   the chain ends at a root that is not trusted
 *   UVC_ECERTNOTYETVALID   the server's certificate is not valid yet
 *   UVC_ECERTHOSTNAME      the certificate does not name the URL's host
 *   UVC_ETLSPROTOCOL       the TLS connection broke after the handshake
 */
#define UVC_FETCH_ERRNO_MAP(XX)                                                         \
  XX(EBADURL, -1000, "bad URL")                                                         \
  XX(ETIMEDOUT, -1001, "the request timed out")                                         \
  XX(EUNSUPPORTEDURL, -1002, "unsupported URL")                                         \
  XX(ECANNOTFINDHOST, -1003, "cannot find host")                                        \
  XX(ECANNOTCONNECT, -1004, "cannot connect to host")                                   \
  XX(ECONNECTIONLOST, -1005, "the network connection was lost")                         \
  XX(ETOOMANYREDIRECTS, -1007, "too many HTTP redirects")                               \
  XX(EUNAVAILABLE, -1008, "resource unavailable")                                       \
  XX(EBADRESPONSE, -1011, "bad server response")                                        \
  XX(ETOOLARGE, -1103, "the response body exceeds the maximum length")                  \
  XX(EBADREQUEST, -1300, "invalid request")                                             \
  XX(EINSECUREREDIRECT, -1301, "refused redirect from https to http")                  \
  XX(ESECURECONNECTION, -1200, "secure connection failed")                              \
  XX(ECERTBADDATE, -1201, "the server certificate has expired")                         \
  XX(ECERTUNTRUSTED, -1202, "the server certificate is not trusted")                    \
  XX(ECERTUNKNOWNROOT, -1203, "the server certificate has an unknown root")             \
  XX(ECERTNOTYETVALID, -1204, "the server certificate is not yet valid")                \
  XX(ECERTHOSTNAME, -1310, "the server certificate does not name the host")             \
  XX(ETLSPROTOCOL, -1311, "TLS protocol error")

/** The fetch error codes as constants: UVC_EBADURL, UVC_ETIMEDOUT, ... */
typedef enum {
#define UVC_FETCH_ERRNO_ENUM(name, value, message) UVC_##name = value,
  UVC_FETCH_ERRNO_MAP(UVC_FETCH_ERRNO_ENUM)
#undef UVC_FETCH_ERRNO_ENUM
} uvc_fetch_errno_t;

/**
 * The message for an error code: for libuv's codes what uv_strerror()
 * gives (e.g. "operation canceled" for UV_ECANCELED), for the fetch codes
 * the message in UVC_FETCH_ERRNO_MAP. Never NULL; unknown codes get a
 * generic message. Any thread.
 */
const char *_Nonnull uvc_strerror(int err);

/**
 * The name of an error code: for libuv's codes what uv_err_name() gives
 * (e.g. "ECANCELED"), for the fetch codes the constant's name
 * ("UVC_EBADURL"). Never NULL. Any thread.
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
 * closes `uv_loop`; it opens one uv_poll_t on an eventfd of its own
 * (unreferenced: it never keeps uv_run() alive) plus one uv_timer_t per connected timer or pending
 * delayed callback. Work scheduled from other threads runs in the host's
 * iterations. End with uvc_loop_detach(), then uvc_loop_free().
 *
 * Thread: the thread that runs `uv_loop`, which becomes the loop thread;
 * also while uv_run() is running (from one of the host's callbacks).
 * Errors: UV_EINVAL (a NULL pointer), or what eventfd() or uv_poll_init()
 * reported.
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
 * uv_loop_init(), eventfd() or uv_poll_init() reported.
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
 * connected timer, a pending uvc_schedule*() callback, a fetch in progress,
 * the host's own referenced handles; idle keep-alive connections do not
 * count) or uvc_loop_stop(); UV_RUN_ONCE and UV_RUN_NOWAIT one iteration.
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
 * and every fetch whose callback has not run (each callback runs once with
 * UV_ECANCELED, before this returns; fetches in the order they were made),
 * stops every timer connection and ends every subscription, closes every
 * handle the library opened (connections included), runs their close
 * callbacks, and closes the uv_loop_t. From then on the loop's objects
 * answer UV_ECANCELED; free them and the loop.
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
 * on it (timers, connections), and leaves the host's loop and handles
 * alone. Before this returns, every pending uvc_schedule() callback and
 * every fetch callback that has not run yet runs once with UV_ECANCELED
 * (fetches in the order they were made), every timer connection stops and
 * every subscription ends; from then on the loop's objects answer
 * UV_ECANCELED. A delayed callback (uvc_schedule_after)
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

/* ---------------------------------------------------------------------- */
/* HTTP: sessions and fetches                                              */

/**
 * An HTTP/1.1 client bound to a loop (UVCombine's UVURLSession): it keeps
 * keep-alive connections per (scheme, host, port) and reuses them, follows
 * redirects, and enforces its options' limits and timeouts. Idle pooled
 * connections never keep the loop alive; a fetch in progress does.
 */
typedef struct uvc_session_s uvc_session_t;

/** One request and its callback, made by uvc_fetch() or uvc_shared_fetch_subscribe(). */
typedef struct uvc_fetch_s uvc_fetch_t;

/** One request whose response goes to several callbacks, made by uvc_shared_fetch_new(). */
typedef struct uvc_shared_fetch_s uvc_shared_fetch_t;

/**
 * A session's limits and timeouts. Fill one with uvc_session_options_init()
 * (its size and the defaults below), change what you need, and pass it to
 * uvc_session_new(), which copies it. Times are nanoseconds.
 */
typedef struct uvc_session_options_s {
  /**
   * sizeof(uvc_session_options_t) as the caller compiled it; set by
   * uvc_session_options_init(). See "Conventions" above for how the struct grows.
   */
  size_t size;
  /** Connections per (scheme, host, port) at most; more fetches wait in order. Default 6; at least 1. */
  unsigned int max_connections_per_host;
  /** Redirects one fetch follows; 0 follows none (a 3xx arrives as the response). Default 5. */
  unsigned int max_redirects;
  /** How long name resolution and TCP connect may take. Default 10 s; not 0. */
  uint64_t connect_timeout_ns;
  /** How long an unused keep-alive connection stays open. Default 60 s; not 0. */
  uint64_t connection_idle_timeout_ns;
  /** The longest wait for the next response byte; 0 for none. Default 60 s. */
  uint64_t idle_read_timeout_ns;
  /** The longest one fetch may take in all, redirects included; 0 for none. Default 7 days. */
  uint64_t total_timeout_ns;
  /** The most bytes a response head may take. Default 65536; not 0. */
  uint64_t max_response_header_bytes;
  /** The largest response body accepted, in bytes; 0 for no limit (the default). */
  uint64_t max_response_body_bytes;
  /**
   * https: a PEM file of CA certificates to trust instead of the system store
   * (/etc/ssl/certs), like curl's --cacert; NULL (the default) for the system
   * store. uvc_session_new() copies the path; the file is read at the first
   * https connection (an unreadable file fails fetches with UVC_ESECURECONNECTION).
   */
  const char *_Nullable tls_ca_file;
  /**
   * https: nonzero turns certificate and host name verification OFF, like
   * curl's -k. For tests only: anyone on the path can then read and change
   * the transfer. Default 0 (verification on).
   */
  int tls_verification_disabled_insecure;
  /**
   * Nonzero: every uvc_fetch() of the session collects its timings and
   * counts, for uvc_fetch_metrics() (UVCombine's taskMetricsHandler).
   * Default 0: nothing is collected, and it costs nothing.
   */
  int collect_metrics;
  /**
   * Which HTTP version the session speaks, one of UVC_HTTP_VERSION_*:
   * UVC_HTTP_VERSION_AUTOMATIC (0, the default) offers HTTP/2 to https
   * servers by ALPN ("h2", "http/1.1"; the server chooses) and speaks
   * HTTP/1.1 to http ones, as curl; UVC_HTTP_VERSION_1_1 never offers
   * HTTP/2; UVC_HTTP_VERSION_2_PRIOR_KNOWLEDGE also speaks HTTP/2 to http
   * servers from the first byte (h2c, no upgrade), like curl's
   * --http2-prior-knowledge. Over HTTP/2, fetches to one origin share a
   * connection as streams; the API is the same either way, and the fetch's
   * metrics say which was spoken (protocol "h2" or "http/1.1"). Another
   * value: UV_EINVAL.
   */
  int http_version;
} uvc_session_options_t;

/** uvc_session_options_t.http_version: HTTP/2 by ALPN on https, HTTP/1.1 on http (the default). */
#define UVC_HTTP_VERSION_AUTOMATIC 0
/** uvc_session_options_t.http_version: HTTP/1.1 only. */
#define UVC_HTTP_VERSION_1_1 1
/** uvc_session_options_t.http_version: HTTP/2 on http from the first byte (h2c), by ALPN on https. */
#define UVC_HTTP_VERSION_2_PRIOR_KNOWLEDGE 2

/** One header field: a name and a value, NUL-terminated. */
typedef struct uvc_header_s {
  const char *_Nullable name;
  const char *_Nullable value;
} uvc_header_t;

/**
 * What to fetch. Every pointer is read during the call only (the library
 * copies what it keeps), so the request may live on the stack. Start from
 * UVC_REQUEST_INIT, which sets `size` (see "Conventions" above):
 *
 *     uvc_request_t request = UVC_REQUEST_INIT;
 *     request.url = "http://127.0.0.1:8080/items";
 *
 * - method: an HTTP method token ("GET", "POST", ...); NULL for "GET".
 * - url: an absolute http:// or https:// URL, required. The host and port
 *   say where to connect; the path and query are sent, the fragment never is.
 * - headers, header_count: fields sent as given, in order (NULL with count
 *   0 for none). The library writes Host and Content-Length itself: a Host
 *   field, a Transfer-Encoding field (bodies are sent with a length) or a
 *   Content-Length that is not body_length fails the call with UV_EINVAL; a
 *   Content-Length equal to body_length is accepted.
 * - body, body_length: the request body (NULL with length 0 for none); a
 *   body is sent with its Content-Length, whatever the method.
 */
typedef struct uvc_request_s {
  /** sizeof(uvc_request_t) as the caller compiled it; set by UVC_REQUEST_INIT. */
  size_t size;
  const char *_Nullable method;
  const char *_Nullable url;
  const uvc_header_t *_Nullable headers;
  size_t header_count;
  const void *_Nullable body;
  size_t body_length;
} uvc_request_t;

/** The initialiser of a uvc_request_t: its size, every other field 0 (a GET without headers or body). */
#define UVC_REQUEST_INIT {sizeof(uvc_request_t), NULL, NULL, NULL, 0, NULL, 0}

/**
 * The response, passed to a fetch callback; everything it points to is
 * valid until the callback returns (copy what you keep). 4xx and 5xx
 * responses are responses, not errors. When the fetch failed, status is 0,
 * reason "", and there are no headers and no body. No pointer is NULL.
 */
typedef struct uvc_response_s {
  /** The HTTP status code, e.g. 200 or 404; 0 when the fetch failed. */
  int status;
  /** The reason phrase, e.g. "OK"; "" when there was none. */
  const char *_Nonnull reason;
  /** The header fields in the order received, names as the server spelled them. */
  const uvc_header_t *_Nonnull headers;
  size_t header_count;
  /** The body (its chunked encoding removed): body_length bytes, not NUL-terminated. */
  const void *_Nonnull body;
  size_t body_length;
} uvc_response_t;

/**
 * Why a fetch failed, passed to a fetch callback next to the response;
 * valid until the callback returns.
 */
typedef struct uvc_fetch_error_s {
  /**
   * The callback's status again: 0 for a response, otherwise a code of
   * UVC_FETCH_ERRNO_MAP, or UV_ECANCELED when the loop was detached or
   * closed, or the shared fetch cancelled, before the response came.
   */
  int code;
  /**
   * The libuv error behind a transport failure (UV_ECONNREFUSED,
   * UV_EAI_NONAME, UV_ECONNRESET, ...), or 0.
   */
  int uv_code;
  /**
   * What went wrong, in one line, e.g. "cannot connect to host (connection
   * refused) [UV_ECONNREFUSED]" or "the request timed out (idle read
   * timeout)"; "" when code is 0. Never NULL.
   */
  const char *_Nonnull message;
} uvc_fetch_error_t;

/**
 * A fetch's completion: `status` is 0 when a response arrived (whatever its
 * HTTP status), or a negative code (the same as error->code). It runs once
 * per fetch, on the loop thread, never inside the call that made the fetch;
 * not at all once uvc_fetch_cancel() or uvc_fetch_free() returned. The
 * callback may call any function of this API, e.g. start another fetch, or
 * cancel or free this one or others.
 */
typedef void (*uvc_fetch_cb)(uvc_fetch_t *_Nonnull fetch, int status, const uvc_response_t *_Nonnull response,
                             const uvc_fetch_error_t *_Nonnull error, void *_Nullable user_data);

/**
 * Fills `options` with its size (sizeof(uvc_session_options_t)) and the
 * defaults documented in uvc_session_options_t.
 *
 * Thread: any thread. Errors: UV_EINVAL (NULL).
 */
int uvc_session_options_init(uvc_session_options_t *_Nullable options);

/**
 * Creates a session on `loop` with `options` (copied), or with the
 * defaults when `options` is NULL. Nothing is opened until the first fetch.
 * Free with uvc_session_free().
 *
 * Thread: any thread. Errors: UV_EINVAL (NULL loop or session_out; a
 * `size` that is 0, ends inside a field, or covers fields this library
 * does not know that are not 0; an option out of range:
 * max_connections_per_host, connect_timeout_ns, connection_idle_timeout_ns
 * or max_response_header_bytes 0, a time or size above INT64_MAX, an
 * http_version that is not one of UVC_HTTP_VERSION_*),
 * UV_ECANCELED (the loop was detached or closed).
 */
int uvc_session_new(uvc_loop_t *_Nullable loop, const uvc_session_options_t *_Nullable options,
                    uvc_session_t *_Nullable *_Nullable session_out);

/**
 * Frees a session. Fetches already made keep going and their callbacks run
 * as usual (they hold the session); its idle connections close once the
 * last of them ended. A loop's detach or close ends every fetch anyway.
 *
 * Thread: any thread, also from a fetch callback. Errors: UV_EINVAL (NULL).
 */
int uvc_session_free(uvc_session_t *_Nullable session);

/**
 * Fetches `request` on `session`: the request goes out in a later loop
 * iteration, and `cb` runs once with the response or the error. Free the
 * fetch with uvc_fetch_free() (from inside its callback, for instance).
 * A fetch in progress keeps a created loop's uvc_loop_run() running.
 *
 * The request is checked here, so bad input fails the call and `cb` never
 * runs: an unparsable URL, no host, a bad port, CR, LF or NUL in the URL
 * (UVC_EBADURL); a scheme other than http or https (UVC_EUNSUPPORTEDURL);
 * a method that is not a token, a header name that is not a token, CR, LF
 * or NUL or surrounding white space in a header value (UVC_EBADREQUEST).
 * What only the network can tell (https without TLS included) comes through
 * `cb`.
 *
 * Thread: any thread. Errors: UV_EINVAL (NULL session, request, url, cb or
 * fetch_out; a request `size` that is 0, ends inside a field or covers
 * unknown fields that are not 0; NULL headers with header_count > 0, a NULL
 * header name or value; NULL body with body_length > 0; a Host or
 * Transfer-Encoding field, a Content-Length other than body_length), the
 * codes above, UV_ECANCELED (the loop was detached or closed).
 */
int uvc_fetch(uvc_session_t *_Nullable session, const uvc_request_t *_Nullable request, uvc_fetch_cb _Nullable cb,
              void *_Nullable user_data, uvc_fetch_t *_Nullable *_Nullable fetch_out);

/**
 * Cancels a fetch: once this returns its callback never runs, and a request
 * in progress is abandoned (its connection closed if the request was
 * partly sent). A callback running on the loop thread at that moment is
 * waited for, so a fetch callback must not block waiting for a thread that
 * cancels a fetch. The fetch still needs uvc_fetch_free().
 *
 * Thread: any thread, also from a callback. Errors: UV_EINVAL (NULL),
 * UV_EALREADY (cancelled before, or its callback already ran or is
 * running: from inside its own callback, for instance).
 */
int uvc_fetch_cancel(uvc_fetch_t *_Nullable fetch);

/**
 * Cancels the fetch if its callback has not run yet, and frees it.
 *
 * Thread: any thread, also from its own callback (do not use it after this
 * call). Errors: UV_EINVAL (NULL).
 */
int uvc_fetch_free(uvc_fetch_t *_Nullable fetch);

/**
 * What a fetch cost, in all (UVCombine's UVURLSessionTaskMetrics): filled
 * by uvc_fetch_metrics(). Set `size` to sizeof(uvc_fetch_metrics_t) first
 * (UVC_FETCH_METRICS_INIT); the library writes only the fields that size
 * covers (a later version only adds fields at the end). Instants are
 * nanoseconds of the loop's monotonic clock (uv_hrtime()): subtract two for
 * a duration.
 */
typedef struct uvc_fetch_metrics_s {
  /** sizeof(uvc_fetch_metrics_t) as the caller compiled it. */
  size_t size;
  /** When the fetch started (before its first request went out). */
  uint64_t task_start_ns;
  /** When it ended (response, failure or cancellation), before its callback ran. */
  uint64_t task_end_ns;
  /** The redirects followed. */
  unsigned int redirect_count;
  /**
   * The requests sent, each a transaction for uvc_fetch_transaction_metrics():
   * the first, one per redirect, one per transparent retry on a fresh
   * connection. 0 when the fetch failed before any request went out.
   */
  unsigned int transaction_count;
} uvc_fetch_metrics_t;

/** The initialiser of a uvc_fetch_metrics_t: its size, every other field 0. */
#define UVC_FETCH_METRICS_INIT {sizeof(uvc_fetch_metrics_t), 0, 0, 0, 0}

/**
 * One request of a fetch and where its time went (UVCombine's
 * UVURLSessionTaskTransactionMetrics, Foundation's
 * URLSessionTaskTransactionMetrics): filled by
 * uvc_fetch_transaction_metrics(). Set `size` first, as for
 * uvc_fetch_metrics_t (UVC_TRANSACTION_METRICS_INIT).
 *
 * The instants are nanoseconds of the loop's clock (uv_hrtime()), in the
 * order listed; 0 for a step that did not happen in this transaction (every
 * connection step on a reused connection, the TLS steps for http, the
 * response's after a failure). connect_end_ns is when TCP connected (curl's
 * time_connect); the TLS handshake follows it. The strings are
 * NUL-terminated, never NULL ("" when unknown), and stay valid until
 * uvc_fetch_free().
 */
typedef struct uvc_transaction_metrics_s {
  /** sizeof(uvc_transaction_metrics_t) as the caller compiled it. */
  size_t size;
  /** The transaction began: the fetch started, or followed a redirect. */
  uint64_t fetch_start_ns;
  uint64_t domain_lookup_start_ns;
  uint64_t domain_lookup_end_ns;
  uint64_t connect_start_ns;
  uint64_t connect_end_ns;
  uint64_t secure_connection_start_ns;
  uint64_t secure_connection_end_ns;
  /** The request's first byte was handed to the connection. */
  uint64_t request_start_ns;
  /** The kernel took the request's last byte. */
  uint64_t request_end_ns;
  /** The response's first byte arrived. */
  uint64_t response_start_ns;
  /** The response's last byte arrived. */
  uint64_t response_end_ns;
  /** The request head's bytes as written. */
  uint64_t request_header_bytes;
  /** The request body's bytes as written. */
  uint64_t request_body_bytes;
  /** The response head's bytes as received. */
  uint64_t response_header_bytes;
  /** The response body's bytes as received (before decoding, chunk framing included). */
  uint64_t response_body_bytes;
  /** The response's HTTP status; 0 when none came (a failure, a retried request). */
  int status;
  /** Nonzero when the connection had carried an exchange before this one. */
  int reused_connection;
  /** Nonzero when the connection goes to (or tunnels through) a proxy. */
  int proxy_connection;
  /** The local port; 0 when unknown. */
  int local_port;
  /** The port connected to; 0 when unknown. */
  int remote_port;
  /** The protocol spoken, e.g. "http/1.1"; "" when no request went out. */
  const char *_Nonnull protocol;
  /** The local address, e.g. "127.0.0.1"; "" when unknown. */
  const char *_Nonnull local_address;
  /** The address connected to (the proxy's through a proxy), e.g. "127.0.0.1"; "" when unknown. */
  const char *_Nonnull remote_address;
} uvc_transaction_metrics_t;

/** The initialiser of a uvc_transaction_metrics_t: its size, every other field 0. */
#define UVC_TRANSACTION_METRICS_INIT \
  {sizeof(uvc_transaction_metrics_t), 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, "", "", ""}

/**
 * Fills `metrics` with what `fetch` cost in all: a fetch made by
 * uvc_fetch() on a session whose options set collect_metrics. The metrics arrive when
 * the fetch ends, just before its callback runs, and stay until
 * uvc_fetch_free(): read them in the callback or after it.
 *
 *     static void done(uvc_fetch_t *fetch, int status, const uvc_response_t *response,
 *                      const uvc_fetch_error_t *error, void *user_data) {
 *       uvc_fetch_metrics_t metrics = UVC_FETCH_METRICS_INIT;
 *       if (uvc_fetch_metrics(fetch, &metrics) == 0)
 *         printf("%llu ns\n", (unsigned long long)(metrics.task_end_ns - metrics.task_start_ns));
 *     }
 *
 * Thread: any thread, also from the fetch's callback. Errors: UV_EINVAL
 * (NULL; a `size` that is 0 or ends inside a field; a fetch of a session
 * without collect_metrics, or made by uvc_shared_fetch_subscribe()), UV_EBUSY (not yet:
 * the fetch has not ended; a fetch cancelled before it ended may never
 * get them).
 */
int uvc_fetch_metrics(const uvc_fetch_t *_Nullable fetch, uvc_fetch_metrics_t *_Nullable metrics);

/**
 * Fills `transaction` with the `index`-th request of `fetch` (0 for the
 * first; uvc_fetch_metrics() says how many there are). Its strings belong
 * to the fetch: valid until uvc_fetch_free().
 *
 * Thread: any thread, also from the fetch's callback. Errors: as
 * uvc_fetch_metrics(), and UV_EINVAL for an index at or past
 * transaction_count.
 */
int uvc_fetch_transaction_metrics(const uvc_fetch_t *_Nullable fetch, unsigned int index,
                                  uvc_transaction_metrics_t *_Nullable transaction);

/**
 * Prepares one request for several callbacks (Combine's multicast with a
 * PassthroughSubject): subscribe each callback with
 * uvc_shared_fetch_subscribe(), then uvc_shared_fetch_start() sends the
 * request once and every subscriber gets the same response, in the order
 * they subscribed. The request is checked as by uvc_fetch(). Free with
 * uvc_shared_fetch_free().
 *
 * Thread: any thread. Errors: as uvc_fetch() (UV_EINVAL for a NULL
 * shared_out instead of cb and fetch_out).
 */
int uvc_shared_fetch_new(uvc_session_t *_Nullable session, const uvc_request_t *_Nullable request,
                         uvc_shared_fetch_t *_Nullable *_Nullable shared_out);

/**
 * Subscribes `cb` to a shared fetch that has not started: it runs once,
 * with the shared response or error, unless the returned fetch is cancelled
 * (uvc_fetch_cancel() on it stops only this subscriber) or freed first.
 *
 * Thread: any thread. Errors: UV_EINVAL (NULL shared, cb or fetch_out),
 * UV_EALREADY (the shared fetch started already), UV_ECANCELED (it was
 * cancelled, or the loop was detached or closed).
 */
int uvc_shared_fetch_subscribe(uvc_shared_fetch_t *_Nullable shared, uvc_fetch_cb _Nullable cb,
                               void *_Nullable user_data, uvc_fetch_t *_Nullable *_Nullable fetch_out);

/**
 * Sends the shared request, once, in a later loop iteration; it keeps
 * going (and the shared fetch alive) until every subscriber got the
 * response, also when the shared fetch is freed meanwhile.
 *
 * Thread: any thread. Errors: UV_EINVAL (NULL), UV_EALREADY (started
 * before), UV_ECANCELED (cancelled, or the loop was detached or closed).
 */
int uvc_shared_fetch_start(uvc_shared_fetch_t *_Nullable shared);

/**
 * Cancels a shared fetch: the request (if started) is abandoned, and every
 * subscriber still waiting gets its callback with UV_ECANCELED, in a later
 * loop iteration (never inside this call). Later subscribes and starts
 * return UV_ECANCELED.
 *
 * Thread: any thread, also from a subscriber's callback. Errors: UV_EINVAL
 * (NULL), UV_EALREADY (cancelled before).
 */
int uvc_shared_fetch_cancel(uvc_shared_fetch_t *_Nullable shared);

/**
 * Frees a shared fetch. Started, it keeps going for its subscribers; not
 * started, it is cancelled as by uvc_shared_fetch_cancel(). Each subscriber's
 * fetch is freed on its own.
 *
 * Thread: any thread, also from a subscriber's callback. Errors: UV_EINVAL
 * (NULL).
 */
int uvc_shared_fetch_free(uvc_shared_fetch_t *_Nullable shared);

/* ---------------------------------------------------------------------- */
/* WebSockets                                                              */

/**
 * A WebSocket client connection (RFC 6455, with permessage-deflate offered),
 * made by uvc_websocket_connect() on a session's loop: ws:// or wss:// (the
 * session's TLS options). Messages reach the callback only
 * as far as uvc_websocket_request() asked for them: without demand the
 * socket is not read, and TCP flow control makes the server wait.
 */
typedef struct uvc_websocket_s uvc_websocket_t;

/** A message's type. */
typedef enum {
  UVC_WS_TEXT = 1,
  UVC_WS_BINARY = 2,
} uvc_ws_message_type;

/** What a WebSocket callback reports. */
typedef enum {
  /** A message: type, data and length are set. */
  UVC_WS_EVENT_MESSAGE = 1,
  /** The end, once: close_code, status and message are set. */
  UVC_WS_EVENT_CLOSED = 2,
} uvc_ws_event_kind;

/** One WebSocket event; every pointer is valid during the callback only. */
typedef struct uvc_ws_event_s {
  /** UVC_WS_EVENT_MESSAGE or UVC_WS_EVENT_CLOSED. */
  int kind;
  /** A message's type: UVC_WS_TEXT (UTF-8, checked) or UVC_WS_BINARY. */
  int type;
  /**
   * A message's bytes (not NUL-terminated); NULL for an empty message. They
   * are lent from the connection's read buffer (or, for a fragmented or
   * compressed message, its reused message buffer): nothing is copied or
   * allocated per message, and they are valid during the callback only.
   */
  const void *_Nullable data;
  /** A message's length in bytes. */
  size_t length;
  /**
   * The end's close code: the server's (1000, 4001, ...), the one the
   * connection was failed with (1002 protocol error, 1007 invalid UTF-8, 1009
   * message too big), 1006 when it ended without a close frame, 0 when it
   * never opened.
   */
  int close_code;
  /**
   * The end's status: 0 after a close handshake; UV_EPROTO when the server
   * broke the protocol (close_code says how); UV_EOF when the connection
   * ended without a close frame; UV_ECANCELED when freed or closed before it
   * opened; a fetch code when it could not be opened (UVC_ECANNOTCONNECT,
   * UVC_ESECURECONNECTION, UVC_EBADRESPONSE for a refused handshake,
   * UVC_ETIMEDOUT, ...).
   */
  int status;
  /** The end's description, NUL-terminated; NULL for a message. */
  const char *_Nullable message;
} uvc_ws_event_t;

/** Receives a WebSocket's messages and, last, its end. Loop thread. */
typedef void (*uvc_websocket_cb)(uvc_websocket_t *_Nonnull ws, const uvc_ws_event_t *_Nonnull event,
                                 void *_Nullable user_data);

/**
 * Connects to `url` (ws:// or wss://) on the session's loop, offering the
 * subprotocols in `protocols` (comma-separated, or NULL), and performs the
 * opening handshake. Messages arrive only after uvc_websocket_request(); the
 * callback never runs inside this call.
 *
 * Thread: any thread. Errors: UV_EINVAL (a NULL argument). A URL that is not
 * valid, or a connection that fails, is reported by the callback
 * (UVC_WS_EVENT_CLOSED).
 */
int uvc_websocket_connect(uvc_session_t *_Nullable session, const char *_Nullable url,
                          const char *_Nullable protocols, uvc_websocket_cb _Nullable cb,
                          void *_Nullable user_data, uvc_websocket_t *_Nullable *_Nullable ws_out);

/**
 * Asks for `count` more messages (UINT64_MAX: all of them); the demand adds
 * up. The socket is read while demand remains.
 *
 * Thread: any thread, also from the callback. Errors: UV_EINVAL (NULL, or 0).
 */
int uvc_websocket_request(uvc_websocket_t *_Nullable ws, uint64_t count);

/**
 * Sends a message of `length` bytes (copied; `data` may be NULL when
 * `length` is 0). A send before the connection opened waits for it. A send
 * that cannot be made (the connection ended) is dropped; the callback's
 * UVC_WS_EVENT_CLOSED says why.
 *
 * Thread: any thread, also from the callback. Errors: UV_EINVAL (NULL ws, a
 * type other than UVC_WS_TEXT or UVC_WS_BINARY, NULL data with a length).
 */
int uvc_websocket_send(uvc_websocket_t *_Nullable ws, int type, const void *_Nullable data, size_t length);

/**
 * Starts the close handshake with `code` (1000-4999) and `reason` (UTF-8,
 * NUL-terminated, cut to 123 bytes; or NULL). The callback reports
 * UVC_WS_EVENT_CLOSED with status 0 when the server answered.
 *
 * Thread: any thread, also from the callback. Errors: UV_EINVAL (NULL ws, a
 * code outside 1000-4999).
 */
int uvc_websocket_close(uvc_websocket_t *_Nullable ws, int code, const char *_Nullable reason);

/**
 * Frees a WebSocket: no callback runs after this returns (one running on
 * the loop thread is waited for). A connection still open is closed with
 * 1001 (going away) through the close handshake. Free every WebSocket before
 * closing its loop.
 *
 * Thread: any thread, also from the callback. Errors: UV_EINVAL (NULL).
 */
int uvc_websocket_free(uvc_websocket_t *_Nullable ws);

#ifdef __cplusplus
}
#endif

#ifdef UVC_DEFINED_NULLABILITY
#undef _Nullable
#undef _Nonnull
#undef UVC_DEFINED_NULLABILITY
#endif

#endif /* UVCOMBINE_H */
