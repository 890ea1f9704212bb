/* Burn MS milliseconds of CPU time and print, on standard error, the
 * task-clock of the burn as perf counts it on this thread itself
 * ("task-clock NS"): from a counter it opens at the start of main and
 * reads at the end, the thread's time on a CPU by perf's own clock,
 * interrupts taken on it included (its CPU time from the scheduler may
 * leave those out).  What any other task-clock of this thread, over a
 * longer stretch, must reach.  Usage: selfclock [MS] (200). */
#include <linux/perf_event.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

static double cpu_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

int main(int argc, char **argv)
{
	double ms = argc > 1 ? atof(argv[1]) : 200, start;
	struct perf_event_attr attr;
	volatile unsigned long x = 0;
	uint64_t ns;
	int fd;

	if (ms < 0) {
		fprintf(stderr, "usage: selfclock [MS]\n");
		return 2;
	}
	memset(&attr, 0, sizeof(attr));
	attr.size = sizeof(attr);
	attr.type = PERF_TYPE_SOFTWARE;
	attr.config = PERF_COUNT_SW_TASK_CLOCK;
	attr.exclude_kernel = 1;	/* allowed at perf_event_paranoid 2 */
	attr.exclude_hv = 1;
	fd = (int)syscall(SYS_perf_event_open, &attr, 0, -1, -1, 0);
	if (fd < 0) {
		perror("selfclock: perf_event_open");
		return 1;
	}
	start = cpu_ms();
	while (cpu_ms() - start < ms)
		for (int i = 0; i < 10000; i++)
			x += i;
	if (read(fd, &ns, sizeof(ns)) != sizeof(ns)) {
		perror("selfclock: read");
		return 1;
	}
	fprintf(stderr, "task-clock %llu\n", (unsigned long long)ns);
	return 0;
}
