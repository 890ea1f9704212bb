/* /proc/PID/maps lines, as the symbol resolution reads them. */
#include "fuzz.h"
#include "maps.h"

#include <stdio.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	FILE *f = fmemopen((void *)data, size ? size : 1, "r");
	struct px_maps m = { 0 };

	if (!f)
		return 0;
	if (size)
		(void)px_maps_parse(&m, f);
	px_maps_free(&m);
	fclose(f);
	return 0;
}
