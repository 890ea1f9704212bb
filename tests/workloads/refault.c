/* Take N page faults at a steady rate: write to the pages of a small
 * anonymous buffer one after the other and, each time the buffer has been
 * written through, drop its pages (MADV_DONTNEED) so that the next pass
 * faults again.  N minor page faults beyond the program's own start-up,
 * with little memory in use at any time and nothing left to free at exit.
 *
 * touch_pages gives the same count but ends by freeing every page it
 * touched: that teardown is CPU time without faults, which makes its
 * fault rate uneven, and so a poor reference for multiplexing estimates.
 * Usage: refault N [BUFFER_PAGES [BURN]] (default 64 pages, no burn):
 * with BURN, then burn CPU time without a fault, a workload whose fault
 * rate changes partway: BURN is milliseconds of its own CPU time, or
 * "P%" for P percent of the CPU time its faults took, a change at the
 * same point of the run however fast this machine takes faults. */
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

static double cpu_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 1000;
	long pages = argc > 2 ? atol(argv[2]) : 64;
	char *unit = "";
	double burn = argc > 3 ? strtod(argv[3], &unit) : 0;
	int burn_pct = *unit == '%';
	long page = sysconf(_SC_PAGESIZE);
	size_t len = (size_t)pages * page;
	double start = cpu_ms();
	volatile char *mem;

	if (n < 0 || pages < 1 || burn < 0 || (*unit && !burn_pct)) {
		fprintf(stderr, "usage: refault N [BUFFER_PAGES [BURN_MS or P%%]]\n");
		return 2;
	}
	mem = mmap(NULL, len, PROT_READ | PROT_WRITE,
		   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (mem == MAP_FAILED) {
		perror("refault: mmap");
		return 1;
	}
	/* no transparent huge pages: they would fault 512 pages at once */
	madvise((void *)mem, len, MADV_NOHUGEPAGE);
	for (long i = 0; i < n; i++) {
		long p = i % pages;

		if (p == 0 && i > 0 && madvise((void *)mem, len, MADV_DONTNEED)) {
			perror("refault: madvise");
			return 1;
		}
		mem[p * page] = 1;
	}
	if (burn_pct)
		burn = (cpu_ms() - start) * burn / 100;
	for (double end = cpu_ms() + burn; cpu_ms() < end;)
		;
	return 0;
}
