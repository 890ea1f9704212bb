/* /proc/kallsyms (or PX_KALLSYMS's copy): the table, and lookups in it. */
#include "fuzz.h"
#include "ksyms.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const uint64_t ips[] = { 0, 1, 0xffffffff81000000ull, 0xffffffffffffffffull };
	char path[64];
	int fd = fuzz_file(data, size, path, sizeof(path));
	struct px_ksyms *k = px_ksyms_load(path);
	struct px_ksym sym;

	for (size_t i = 0; k && i < sizeof(ips) / sizeof(ips[0]); i++)
		(void)px_ksyms_find(k, ips[i], &sym);
	px_ksyms_free(k);
	fuzz_file_close(fd);
	return 0;
}
