/* CPU lists as --cpu-list takes them: "0,2-5,7". */
#include "fuzz.h"
#include "cpulist.h"

#include <stdlib.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *s = fuzz_string(data, size);
	int *cpus = NULL;
	size_t n = 0;

	if (!px_cpulist_parse(s, &cpus, &n))
		free(cpus);
	free(s);
	return 0;
}
