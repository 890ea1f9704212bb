/* selfregion N CALLS: a program that marks a region, linked as programs
 * link libpx (pkg-config's flags, the shared library): region "loop" is
 * CALLS calls of a loop of five instructions turning N times.  Under
 * perfex --regions each call counts 5 N instructions plus the markers'
 * own; alone, the markers do nothing. */
#include <px_region.h>

#include "loop5.h"

#include <stdlib.h>

int main(int argc, char **argv)
{
	unsigned long n = argc > 1 ? strtoul(argv[1], NULL, 10) : 1000;
	int calls = argc > 2 ? atoi(argv[2]) : 10;

	for (int i = 0; i < calls; i++) {
		PX_REGION_BEGIN("loop");
		loop5(n);
		PX_REGION_END("loop");
	}
	return 0;
}
