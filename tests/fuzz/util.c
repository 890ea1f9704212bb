/* The fuzzers' shared helpers (fuzz.h). */
#include "fuzz.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

char *fuzz_string(const uint8_t *data, size_t size)
{
	char *s;

	if (size > FUZZ_MAX)
		size = FUZZ_MAX;
	s = malloc(size + 1);
	if (!s)
		abort();
	memcpy(s, data, size);
	s[size] = '\0';
	return s;
}

int fuzz_file(const uint8_t *data, size_t size, char *path, size_t len)
{
	int fd = memfd_create("fuzz", 0);

	if (fd < 0)
		abort();
	if (size > FUZZ_MAX)
		size = FUZZ_MAX;
	if (size && write(fd, data, size) != (ssize_t)size)
		abort();
	snprintf(path, len, "/proc/self/fd/%d", fd);
	return fd;
}

void fuzz_file_close(int fd)
{
	close(fd);
}
