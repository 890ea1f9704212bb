/* Call counted_function() exactly N times, so that an execute breakpoint
 * on it counts N, then run COMMAND if one is given (an exec in the middle
 * of a measurement: `calls 1500 calls 500` calls it 2000 times in all).
 * Built without PIE, so `nm` gives its run-time address.
 * Usage: calls N [COMMAND [ARGS...]] */
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

volatile long sink;

__attribute__((noinline)) void counted_function(long i)
{
	sink += i;
}

int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 1000;

	if (n < 0) {
		fprintf(stderr, "usage: calls N [COMMAND [ARGS...]]\n");
		return 2;
	}
	for (long i = 0; i < n; i++)
		counted_function(i);
	if (argc > 2) {
		execv(argv[2], argv + 2);
		perror(argv[2]);
		return 127;
	}
	return 0;
}
