/* The sampling buffers pfmon reads back: the default format's, the
 * double buffer's (each half, and both in order) and the callchain
 * format's.  The first byte picks the body values asked for; the rest is
 * the buffer, 8-aligned as the kernel hands it over. */
#include "fuzz.h"
#include "callchain/px_cc.h"
#include "default/px_dfl.h"
#include "double-buffer/px_dbl.h"

#include <stdlib.h>
#include <string.h>

static int body(void *arg, unsigned set, unsigned ovfl_pmd)
{
	unsigned pick = *(const unsigned char *)arg;

	return set > 3 || ovfl_pmd > 7 ? -1 : (int)((pick + set + ovfl_pmd) % 5);
}

static int sample(void *arg, const struct px_sample *s)
{
	(void)s;
	++*(unsigned long *)arg;
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	unsigned char pick;
	unsigned long n = 0;
	uint64_t *buf;
	size_t len;

	if (!size)
		return 0;
	pick = data[0];
	len = size - 1 > FUZZ_MAX ? FUZZ_MAX : size - 1;
	buf = malloc(len + 8);
	if (!buf)
		abort();
	memcpy(buf, data + 1, len);
	(void)px_dfl_read(buf, len, body, &pick, sample, &n);
	for (int half = -1; half <= 1; half++)
		(void)px_dbl_read(buf, len, half, body, &pick, sample, &n);
	(void)px_cc_read(buf, len, sample, &n);
	free(buf);
	return 0;
}
