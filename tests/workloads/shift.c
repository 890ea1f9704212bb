/* A known share of the time moved between two functions, for
 * pfmon-report --diff: per round, moving_from runs PCT units of work,
 * moving_to 70 - PCT and steady 30, so the three take PCT%, (70 - PCT)%
 * and 30% of the run; moving PCT from 50 to 40 moves ten points from
 * moving_from to moving_to and leaves steady alone.  Built without PIE,
 * like every workload.  Usage: shift [ROUNDS [PCT]] (default 2000 and 50,
 * about half a second) */
#include <stdlib.h>

volatile unsigned long sink;

/* the loop is written out in each function so its samples land there */
#define WORK(n)                                                                  \
	do {                                                                     \
		unsigned long x = sink;                                          \
		for (unsigned long i = 0; i < (n); i++)                          \
			x = x * 6364136223846793005ul + 1442695040888963407ul;   \
		sink = x;                                                        \
	} while (0)

__attribute__((noinline)) void moving_from(unsigned long n)
{
	WORK(n);
}

__attribute__((noinline)) void moving_to(unsigned long n)
{
	WORK(n);
}

__attribute__((noinline)) void steady(unsigned long n)
{
	WORK(n);
}

int main(int argc, char **argv)
{
	long rounds = argc > 1 ? atol(argv[1]) : 2000;
	long pct = argc > 2 ? atol(argv[2]) : 50;
	const unsigned long unit = 1000;

	if (rounds < 0 || pct < 0 || pct > 70)
		return 2;
	for (long r = 0; r < rounds; r++) {
		moving_from((unsigned long)pct * unit);
		moving_to((unsigned long)(70 - pct) * unit);
		steady(30 * unit);
	}
	return 0;
}
