// libFuzzer's driver, from the toolchain's libclang_rt.fuzzer (linked by -sanitize=fuzzer).
#pragma once
#include <stddef.h>
#include <stdint.h>

/// Runs libFuzzer with the command line `argc`/`argv` on the harness `callback`.
int LLVMFuzzerRunDriver(int *argc, char ***argv, int (*callback)(const uint8_t *data, size_t size));
