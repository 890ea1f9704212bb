/* Call counted_function() exactly N times, so that an execute breakpoint
 * on it counts N.  Built without PIE, so `nm` gives its run-time address.
 * Usage: calls N */
#include <stdio.h>
#include <stdlib.h>

volatile long sink;

__attribute__((noinline)) void counted_function(long i)
{
	sink += i;
}

int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 1000;

	if (n < 0) {
		fprintf(stderr, "usage: calls N\n");
		return 2;
	}
	for (long i = 0; i < n; i++)
		counted_function(i);
	return 0;
}
