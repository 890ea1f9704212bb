/* pfmon-report's readers: the JSON and CSV outputs of perfex and pfmon
 * and folded stacks, told apart by their content as px_merge_read()
 * does; and the merge and diff of what they read. */
#include "fuzz.h"
#include "diff.h"
#include "merge.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char path[64];
	int fd = fuzz_file(data, size, path, sizeof(path));
	struct px_merge_input *in = calloc(2, sizeof(*in));
	struct px_merge m = { 0 };
	FILE *null = fopen("/dev/null", "w");

	if (!in || !null)
		abort();
	if (!px_merge_read(path, &in[0]) && !px_merge_read(path, &in[1])) {
		struct px_out how;

		/* the same file twice: two ranks that are one (refused), or
		 * one run on each side of a diff */
		if (!px_merge_build(in, 2, &m)) {
			px_out_init(&how, NULL, true);
			px_merge_print(null, &m, &how, 0);
		}
		px_merge_free(&m);
	} else {
		px_merge_input_free(&in[0]);
		px_merge_input_free(&in[1]);
		free(in);
	}
	fclose(null);
	fuzz_file_close(fd);
	return 0;
}
