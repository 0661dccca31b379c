// libFuzzer's driver (linked by `-sanitize=fuzzer`), for FootprintFuzzer's main.
#include <stddef.h>
#include <stdint.h>

int LLVMFuzzerRunDriver(int *argc, char ***argv, int (*callback)(const uint8_t *data, size_t size));
