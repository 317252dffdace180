// libFuzzer's driver entry point (compiler-rt, libclang_rt.fuzzer), which
// `-sanitize=fuzzer` links. A program that has its own `main` calls it to run
// the fuzzing loop, the corpus replay, and every libFuzzer flag in argv.
#ifndef UVCOMBINE_LIBFUZZER_DRIVER_H
#define UVCOMBINE_LIBFUZZER_DRIVER_H

#include <stddef.h>
#include <stdint.h>

int LLVMFuzzerRunDriver(int *argc, char ***argv,
                        int (*callback)(const uint8_t *data, size_t size));

#endif
