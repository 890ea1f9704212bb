/* What the fuzzers share: libFuzzer's entry point, and the input as a
 * NUL-terminated string or as a file (for the readers that take a path),
 * both cut at FUZZ_MAX bytes. */
#ifndef PX_FUZZ_H
#define PX_FUZZ_H

#include <stddef.h>
#include <stdint.h>

#define FUZZ_MAX 65536

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* The input as a string, owned by the caller (free). */
char *fuzz_string(const uint8_t *data, size_t size);

/* The input in a file of its own, /proc/self/fd/N in path (closed by
 * fuzz_file_close). */
int fuzz_file(const uint8_t *data, size_t size, char *path, size_t len);
void fuzz_file_close(int fd);

#endif
