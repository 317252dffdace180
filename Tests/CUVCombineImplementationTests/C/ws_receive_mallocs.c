/* ws_receive_mallocs: mallocs per message on the C API's receive path (the
   UVC_WS_EVENT_MESSAGE callback), which lends the bytes from the read buffer
   and should allocate nothing. A measurement, not part of `make c-test`;
   run it by hand against python_echo_server.py's /push:

     make c-lib C_CONFIG=debug        # or release
     python3 -u Tests/UVCombineWebSocketTests/Servers/python_echo_server.py plain &   # prints its port
     gcc -std=gnu11 -O1 -ISources/CUVCombine/include Tests/CUVCombineImplementationTests/C/ws_receive_mallocs.c \
         -o /tmp/ws_receive_mallocs -L.build/c-lib/debug -luvcombine-c -Wl,-rpath,$PWD/.build/c-lib/debug -luv
     /tmp/ws_receive_mallocs ws://127.0.0.1:PORT/push 16

   It counts every allocation of its one thread (the loop runs here) by
   defining malloc and its siblings over glibc's, skips the first 1,000
   messages (buffers growing to the traffic) and reports the next 20,000. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <stdint.h>
#include "uvcombine.h"
extern void *__libc_malloc(size_t), *__libc_calloc(size_t, size_t), *__libc_realloc(void *, size_t), *__libc_memalign(size_t, size_t);
static long mallocs;
void *malloc(size_t n) { mallocs++; return __libc_malloc(n); }
void *calloc(size_t a, size_t b) { mallocs++; return __libc_calloc(a, b); }
void *realloc(void *p, size_t n) { mallocs++; return __libc_realloc(p, n); }
int posix_memalign(void **out, size_t a, size_t n) { mallocs++; *out = __libc_memalign(a, n); return *out ? 0 : 12; }
void *aligned_alloc(size_t a, size_t n) { mallocs++; return __libc_memalign(a, n); }
void *memalign(size_t a, size_t n) { mallocs++; return __libc_memalign(a, n); }

enum { WARM = 1000, COUNT = 20000 };
static long received, bytes, at_warm, at_end;
static void on_event(uvc_websocket_t *ws, const uvc_ws_event_t *event, void *user_data) {
  (void)user_data;
  if (event->kind == UVC_WS_EVENT_MESSAGE) {
    received++;
    bytes += (long)event->length;
    if (received == WARM) at_warm = mallocs;
    if (received == WARM + COUNT) { at_end = mallocs; uvc_websocket_close(ws, 1000, "done"); }
    return;
  }
  fprintf(stderr, "closed: %d %d %s\n", event->close_code, event->status, event->message);
}
int main(int argc, char **argv) {
  uvc_loop_t *loop; uvc_session_t *session; uvc_websocket_t *ws;
  if (uvc_loop_new(&loop) || uvc_session_new(loop, NULL, &session)) return 1;
  if (uvc_websocket_connect(session, argv[1], NULL, on_event, NULL, &ws)) return 1;
  char command[64];
  snprintf(command, sizeof command, "%d %s", WARM + COUNT, argc > 2 ? argv[2] : "16");
  uvc_websocket_send(ws, UVC_WS_TEXT, command, strlen(command));
  uvc_websocket_request(ws, WARM + COUNT);
  uvc_loop_run(loop, UV_RUN_DEFAULT);
  printf("%ld messages, %ld bytes; %ld mallocs over the last %d: %.4f per message\n",
         received, bytes, at_end - at_warm, COUNT, (double)(at_end - at_warm) / COUNT);
  uvc_websocket_free(ws); uvc_session_free(session); uvc_loop_run(loop, UV_RUN_DEFAULT);
  uvc_loop_close(loop); uvc_loop_free(loop);
  return 0;
}
