// Nothing to compile: the target exists for its header (SwiftPM needs a
// source file in a C target). The function lives in libclang_rt.fuzzer.
#include "libfuzzer_driver.h"
