/* Burn CPU for about MS milliseconds of its own CPU time, then exit with
 * STATUS.  Usage: spin MS [STATUS] */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static double cpu_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

int main(int argc, char **argv)
{
	double ms = argc > 1 ? atof(argv[1]) : 100;
	int status = argc > 2 ? atoi(argv[2]) : 0;
	double start = cpu_ms();
	volatile unsigned long x = 0;

	while (cpu_ms() - start < ms)
		for (int i = 0; i < 10000; i++)
			x += i;
	return status;
}
