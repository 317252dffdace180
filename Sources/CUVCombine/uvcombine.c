/*
 * The parts of the C API written in C: version and error strings. Everything
 * else is Swift (Sources/CUVCombineImplementation).
 */
#include "uvcombine.h"

#define UVC_STRINGIFY_(x) #x
#define UVC_STRINGIFY(x) UVC_STRINGIFY_(x)

unsigned int uvc_version(void) {
  return UVC_VERSION_HEX;
}

const char *uvc_version_string(void) {
  return UVC_STRINGIFY(UVC_VERSION_MAJOR) "." UVC_STRINGIFY(UVC_VERSION_MINOR) "." UVC_STRINGIFY(
      UVC_VERSION_PATCH);
}

/* Whether libuv has a name for `err`. For other codes uv_strerror() and
 * uv_err_name() format a message into memory they never free, so those
 * codes get a fixed string here instead. */
static int uvc_is_uv_error(int err) {
  switch (err) {
#define UVC_XX(code, _) case UV_##code:
    UV_ERRNO_MAP(UVC_XX)
#undef UVC_XX
    return 1;
  default:
    return 0;
  }
}

/* libuv's codes are described by libuv's tables, the fetch codes by
 * UVC_FETCH_ERRNO_MAP (their values lie outside every range libuv uses). */
const char *uvc_strerror(int err) {
  switch (err) {
#define UVC_XX(name, value, message) \
  case UVC_##name:                   \
    return message;
    UVC_FETCH_ERRNO_MAP(UVC_XX)
#undef UVC_XX
  default:
    return uvc_is_uv_error(err) ? uv_strerror(err) : "unknown error";
  }
}

const char *uvc_err_name(int err) {
  switch (err) {
#define UVC_XX(name, value, message) \
  case UVC_##name:                   \
    return "UVC_" #name;
    UVC_FETCH_ERRNO_MAP(UVC_XX)
#undef UVC_XX
  default:
    return uvc_is_uv_error(err) ? uv_err_name(err) : "UNKNOWN";
  }
}
