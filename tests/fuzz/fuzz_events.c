/* Event strings as perfex -e and pfmon -e take them: libpfm4 names with
 * modifiers, raw codes, breakpoints, uprobes, comma lists. */
#include "fuzz.h"
#include "events.h"

#include <stdlib.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *s = fuzz_string(data, size);
	struct px_event ev, *evs = NULL;
	size_t n = 0;

	(void)px_event_parse(s, &ev);
	(void)px_event_parse_list(s, &evs, &n);
	free(evs);
	free(s);
	return 0;
}
