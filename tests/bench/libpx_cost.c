/* libpx_cost [EVENT [N]]: what libpx's reads and markers cost here, for
 * scripts/bench-libpx.sh (figures, not a test).  Prints, per call over N
 * calls (default 200000) of each, the median of 5 rounds in ns (the
 * functions take turns in each round):
 *
 *   bare_read     read(2) of a perf counter of EVENT opened directly
 *                 (task-clock, instructions:u or cycles:u)
 *   px_read       px_counters_read of the same event (its path named):
 *                 the sums with their times
 *   px_read_value px_counters_read_value: the count alone
 *   region_pair   PX_REGION_BEGIN + PX_REGION_END with EVENT measured
 *
 * EVENT defaults to task-clock (a software event: libpx reads it with
 * read(2), so px_read against bare_read is the fallback's own cost); a
 * hardware event where user space may read the counter (the arm64 guest
 * of scripts/bench-libpx.sh) gives the user-space read's cost. */
#include <px_counters.h>
#include <px_region.h>

#include <linux/perf_event.h>
#include <stdbool.h>
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

/* A function measured: ns a call of the rounds. */
struct measured {
	const char *name;
	void (*fn)(void *);
	void *arg;
	double round[5];
};

/* 5 rounds of n calls of each, the functions taking turns in each round
 * so that a change of the machine's speed meanwhile falls on all alike;
 * each one's median round. */
static void measure(struct measured *m, int count, long n)
{
	for (int k = 0; k < 5; k++)
		for (int j = 0; j < count; j++) {
			double t = now_ns();

			for (long i = 0; i < n; i++)
				m[j].fn(m[j].arg);
			m[j].round[k] = (now_ns() - t) / (double)n;
		}
	for (int j = 0; j < count; j++)
		qsort(m[j].round, 5, sizeof(m[j].round[0]), by_value);
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

static void px_read_value(void *arg)
{
	uint64_t v;

	px_counters_read_value(arg, 0, &v);
}

static void region_pair(void *arg)
{
	(void)arg;
	px_region_begin("bench");
	px_region_end("bench");
}

/* The perf attributes of the events bare_read knows: false for others. */
static bool bare_attr(const char *event, struct perf_event_attr *a)
{
	static const struct {
		const char *name;
		uint32_t type;
		uint64_t config;
		bool user;
	} known[] = {
		{ "task-clock", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_TASK_CLOCK, false },
		{ "instructions:u", PERF_TYPE_HARDWARE, PERF_COUNT_HW_INSTRUCTIONS, true },
		{ "cycles:u", PERF_TYPE_HARDWARE, PERF_COUNT_HW_CPU_CYCLES, true },
	};

	for (size_t i = 0; i < sizeof(known) / sizeof(known[0]); i++) {
		if (strcmp(event, known[i].name))
			continue;
		memset(a, 0, sizeof(*a));
		a->size = sizeof(*a);
		a->type = known[i].type;
		a->config = known[i].config;
		a->exclude_kernel = a->exclude_hv = known[i].user;
		a->read_format = PERF_FORMAT_TOTAL_TIME_ENABLED | PERF_FORMAT_TOTAL_TIME_RUNNING;
		return true;
	}
	return false;
}

int main(int argc, char **argv)
{
	const char *event = argc > 1 ? argv[1] : "task-clock";
	long n = argc > 2 ? atol(argv[2]) : 200000;
	struct perf_event_attr a;
	struct px_counters_control ctl = { .events = event };
	struct px_counters *c;
	bool known = bare_attr(event, &a);
	int fd = known ? (int)syscall(SYS_perf_event_open, &a, 0, -1, -1, 0) : -1;

	setenv("PX_REGIONS_EVENTS", event, 1);
	setenv("PX_REGIONS_OUTPUT", "/dev/null", 1);
	if ((known && fd < 0) || px_counters_open(&c) || px_counters_control(c, &ctl) ||
	    px_counters_start(c)) {
		fprintf(stderr, "libpx_cost: %s\n", fd < 0 ? "perf_event_open failed" : px_counters_error());
		return 1;
	}
	struct measured m[] = {
		{ "bare_read", bare_read, &fd, { 0 } },
		{ "px_read", px_read, c, { 0 } },
		{ "px_read_value", px_read_value, c, { 0 } },
		{ "region_pair", region_pair, NULL, { 0 } },
	};
	int first = known ? 0 : 1;

	measure(m + first, 4 - first, n);
	if (!known)
		printf("bare_read    - (task-clock, instructions:u and cycles:u only)\n");
	for (int j = first; j < 4; j++)
		printf("%-13s %.1f%s\n", m[j].name, m[j].round[2],
		       j == 1 ? (px_counters_read_path(c, 0) == PX_READ_USER ? " (user space)" : " (read(2))") : "");
	px_counters_close(c);
	return 0;
}
