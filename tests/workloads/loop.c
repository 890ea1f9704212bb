/* A fixed amount of CPU work: N iterations of a dependent integer loop,
 * so any slowdown from being measured shows in its run time.
 * Usage: loop N */
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 100000000;
	volatile unsigned long x = 1;

	if (n < 0) {
		fprintf(stderr, "usage: loop N\n");
		return 2;
	}
	for (long i = 0; i < n; i++)
		x = x * 6364136223846793005ul + 1442695040888963407ul;
	return 0;
}
