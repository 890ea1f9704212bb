/* pfmon's sample files (--smpl-outfile), text and JSON Lines, read back
 * strictly (lib/report/smpl_output.h). */
#include "fuzz.h"
#include "smpl_output.h"

static int count(void *arg, const struct px_sample *s)
{
	(void)s;
	++*(unsigned long *)arg;
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char path[64];
	int fd = fuzz_file(data, size, path, sizeof(path));
	unsigned long n = 0;

	(void)px_smpl_file_read(path, count, &n);
	fuzz_file_close(fd);
	return 0;
}
