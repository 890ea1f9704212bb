/* libpx_cost [EVENT [N]]: what libpx's reads and markers cost here, for
 * scripts/bench-libpx.sh (figures, not a test).  Prints, per call over N
 * calls (default 200000) of each, the median of 5 rounds in ns:
 *
 *   bare_read     read(2) of a perf counter of EVENT opened directly
 *   px_read       px_counters_read of the same event (its path named)
 *   region_pair   PX_REGION_BEGIN + PX_REGION_END with EVENT measured
 *
 * EVENT defaults to task-clock (a software event: libpx reads it with
 * read(2), so px_read against bare_read is the fallback's own cost). */
#include <px_counters.h>
#include <px_region.h>

#include <linux/perf_event.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

static double now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e9 + ts.tv_nsec;
}

static int by_value(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

/* the median of 5 rounds of n calls of fn, ns a call */
static double median_ns(void (*fn)(void *), void *arg, long n)
{
	double r[5];

	for (int k = 0; k < 5; k++) {
		double t = now_ns();

		for (long i = 0; i < n; i++)
			fn(arg);
		r[k] = (now_ns() - t) / (double)n;
	}
	qsort(r, 5, sizeof(r[0]), by_value);
	return r[2];
}

static void bare_read(void *arg)
{
	uint64_t v[3];

	if (read(*(int *)arg, v, sizeof(v)) < 0)
		abort();
}

static void px_read(void *arg)
{
	struct px_counters_sums s;

	px_counters_read(arg, &s);
}

static void region_pair(void *arg)
{
	(void)arg;
	px_region_begin("bench");
	px_region_end("bench");
}

int main(int argc, char **argv)
{
	const char *event = argc > 1 ? argv[1] : "task-clock";
	long n = argc > 2 ? atol(argv[2]) : 200000;
	struct perf_event_attr a = {
		.size = sizeof(a), .type = PERF_TYPE_SOFTWARE,
		.config = PERF_COUNT_SW_TASK_CLOCK,
		.read_format = PERF_FORMAT_TOTAL_TIME_ENABLED | PERF_FORMAT_TOTAL_TIME_RUNNING,
	};
	struct px_counters_control ctl = { .events = event };
	struct px_counters *c;
	int fd = (int)syscall(SYS_perf_event_open, &a, 0, -1, -1, 0);

	setenv("PX_REGIONS_EVENTS", event, 1);
	setenv("PX_REGIONS_OUTPUT", "/dev/null", 1);
	if (fd < 0 || px_counters_open(&c) || px_counters_control(c, &ctl) ||
	    px_counters_start(c)) {
		fprintf(stderr, "libpx_cost: %s\n", fd < 0 ? "perf_event_open failed" : px_counters_error());
		return 1;
	}
	if (strcmp(event, "task-clock"))
		printf("bare_read    - (task-clock only)\n");
	else
		printf("bare_read    %.1f\n", median_ns(bare_read, &fd, n));
	printf("px_read      %.1f (%s)\n", median_ns(px_read, c, n),
	       px_counters_read_path(c, 0) == PX_READ_USER ? "user space" : "read(2)");
	printf("region_pair  %.1f\n", median_ns(region_pair, NULL, n));
	px_counters_close(c);
	return 0;
}
