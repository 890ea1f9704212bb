/* Output file name patterns (-o, --outfile, ...): %r %h %p %j %%. */
#include "fuzz.h"
#include "runctx.h"

#include <stdlib.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const struct px_runctx jobs[] = {
		{ .rank = 3, .size = 8, .launched = true, .host = "node7", .job = "42" },
		{ .rank = 0, .size = 1, .launched = false, .host = "h", .job = "" },
	};
	char *s = fuzz_string(data, size), *out = NULL;

	for (size_t i = 0; i < sizeof(jobs) / sizeof(jobs[0]); i++) {
		if (!px_path_expand(s, &jobs[i], 1234, &out))
			free(out);
		out = NULL;
	}
	free(s);
	return 0;
}
