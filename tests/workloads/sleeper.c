/* Sleep N times for a millisecond: at least N voluntary context switches.
 * Usage: sleeper N */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 10;
	struct timespec ms = { 0, 1000000 };

	if (n < 0) {
		fprintf(stderr, "usage: sleeper N\n");
		return 2;
	}
	for (long i = 0; i < n; i++)
		nanosleep(&ms, NULL);
	return 0;
}
