/* Call first_function() and second_function() N times each, in turn, so
 * that a uprobe on each counts N; two event sets that sample one each see
 * the calls made in their turns.  Built without PIE, as calls.c.
 * Usage: two_calls N */
#include <stdio.h>
#include <stdlib.h>

volatile long sink;

__attribute__((noinline)) void first_function(long i)
{
	sink += i;
}

__attribute__((noinline)) void second_function(long i)
{
	sink -= i;
}

int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 1000;

	if (n < 0) {
		fprintf(stderr, "usage: two_calls N\n");
		return 2;
	}
	for (long i = 0; i < n; i++) {
		first_function(i);
		second_function(i);
	}
	return 0;
}
