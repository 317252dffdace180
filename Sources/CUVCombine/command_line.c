/*
 * CommandLine.arguments for the Swift runtime that libuvcombine-c.so carries
 * inside (issue 30, start-up).
 *
 * The static Swift runtime (libswiftCore.a, CommandLine.cpp.o) finds argv
 * with a global constructor that runs when the library loads, before the
 * host's main: it reads /proc/self/maps line by line with sscanf to find
 * the stack, then walks back from `environ`. In a C host that cost about
 * 0.14 M instructions and an open/read of /proc/self/maps on every start,
 * for `CommandLine.arguments`, which the C API never reads.
 *
 * glibc passes (argc, argv, envp) to every ELF constructor, shared
 * libraries' included, so the same answer costs one store here. This file
 * defines the two functions of that archive member (the only symbols it
 * has), so the linker never pulls it in and its constructor never runs.
 * Only with UVC_STATIC_SWIFT_RUNTIME (the Makefile's C_LIB_FLAGS: the
 * library links the static runtime) and on glibc; otherwise the runtime's
 * own member is linked as before. Should a later runtime add a symbol to
 * that member, the link fails with duplicate symbols rather than running
 * two implementations.
 *
 * Threading: the constructor runs once, on the loading thread, before any
 * Swift code; the functions are read-only afterwards, except the override,
 * which the runtime documents as a start-up call.
 */
#include <limits.h> /* glibc's <features.h>: __GLIBC__ */

#if defined(UVC_STATIC_SWIFT_RUNTIME) && defined(__linux__) && defined(__GLIBC__)

#define UVC_SWIFTCALL __attribute__((swiftcall))

static char **uvc_argv;
static int uvc_argc;
static char **uvc_override_argv;
static int uvc_override_argc;

__attribute__((constructor)) static void uvc_record_arguments(int argc, char **argv, char **envp) {
  (void)envp;
  uvc_argc = argc;
  uvc_argv = argv;
}

/* Swift's CommandLine.arguments reads argc and argv through this. */
__attribute__((visibility("hidden"))) UVC_SWIFTCALL char **_swift_stdlib_getUnsafeArgvArgc(int *outArgLen);
__attribute__((visibility("hidden"))) UVC_SWIFTCALL char **_swift_stdlib_getUnsafeArgvArgc(int *outArgLen) {
  static char *empty[] = {0};
  if (uvc_override_argv != 0) {
    *outArgLen = uvc_override_argc;
    return uvc_override_argv;
  }
  if (uvc_argv != 0) {
    *outArgLen = uvc_argc;
    return uvc_argv;
  }
  *outArgLen = 0;
  return empty;
}

/* The runtime's hook for hosts that supply their own arguments. */
__attribute__((visibility("hidden"))) UVC_SWIFTCALL void _swift_stdlib_overrideUnsafeArgvArgc(char **argv, int argc);
__attribute__((visibility("hidden"))) UVC_SWIFTCALL void _swift_stdlib_overrideUnsafeArgvArgc(char **argv, int argc) {
  uvc_override_argv = argv;
  uvc_override_argc = argc;
}

#else
/* Keeps the translation unit non-empty where the runtime's own is used. */
typedef int uvc_command_line_unused;
#endif
