/* Take N page faults at a steady rate: write to the pages of a small
 * anonymous buffer one after the other and, each time the buffer has been
 * written through, drop its pages (MADV_DONTNEED) so that the next pass
 * faults again.  N minor page faults beyond the program's own start-up,
 * with little memory in use at any time and nothing left to free at exit.
 *
 * touch_pages gives the same count but ends by freeing every page it
 * touched: that teardown is CPU time without faults, which makes its
 * fault rate uneven, and so a poor reference for multiplexing estimates.
 * Usage: refault N [BUFFER_PAGES [BURN_MS]] (default 64 pages, 0 ms):
 * with BURN_MS, then burn that much of its own CPU time without a fault,
 * a workload whose fault rate changes halfway. */
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
	long burn_ms = argc > 3 ? atol(argv[3]) : 0;
	long page = sysconf(_SC_PAGESIZE);
	size_t len = (size_t)pages * page;
	volatile char *mem;

	if (n < 0 || pages < 1 || burn_ms < 0) {
		fprintf(stderr, "usage: refault N [BUFFER_PAGES [BURN_MS]]\n");
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
	for (double end = cpu_ms() + burn_ms; cpu_ms() < end;)
		;
	return 0;
}
