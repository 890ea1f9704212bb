/* The one backend interface (lib/backend/backend.h) on the perf backend,
 * measuring this test itself: a counting group and a sampling group
 * opened by the same open(), driven by the same px_group_* calls, the
 * sampling-only calls answering for a counting group, and the checks of
 * what each backend can do (px_backend_check()). */
#include "tap.h"
#include "backend.h"
#include "error.h"
#include "events.h"

#include <errno.h>
#include <string.h>
#include <time.h>

/* A failed precondition fails the test and ends the function. */
#define REQUIRE(c, ...) do { if (!(c)) { ok(0, __VA_ARGS__); return; } } while (0)

static volatile unsigned long sink;

/* Spin for ms milliseconds of this thread's CPU time. */
static void spin(long ms)
{
	struct timespec a, b;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &a);
	do {
		for (int i = 0; i < 10000; i++)
			sink += (unsigned long)i;
		clock_gettime(CLOCK_THREAD_CPUTIME_ID, &b);
	} while ((b.tv_sec - a.tv_sec) * 1000 + (b.tv_nsec - a.tv_nsec) / 1000000 < ms);
}

static int parse(const char *spec, struct px_event *ev)
{
	int ret = px_event_parse(spec, ev);

	if (ret)
		diag("%s: %s", spec, px_last_error());
	return ret;
}

static void counting_group(void)
{
	struct px_event evs[2];
	struct px_event_set set = { evs, 2 };
	struct px_target self = { .pid = 0, .cpu = -1 };
	struct px_count c[2], again[2];
	struct px_smpl_stats st;
	const struct px_mapping *maps;
	const struct px_task_event *tasks;
	struct pollfd fd;
	uint64_t runs;
	struct px_group *g = NULL;
	int status[2] = { 1, 1 };

	REQUIRE(!parse("task-clock", &evs[0]) && !parse("cycles", &evs[1]),
		"task-clock and cycles parse");
	is_int(px_backend_perf.open(&set, 1, &self, NULL, status, &g), 0,
	       "a counting group opens (no sampling settings)");
	REQUIRE(g, "a group: %s", px_last_error());
	ok(!g->sampling && g->backend == &px_backend_perf, "it counts, on the perf backend");
	is_int(status[0], 0, "task-clock has a counter");
	ok(status[1] == 0 || status[1] == -EOPNOTSUPP,
	   "cycles has a counter or is not supported here (%d)", status[1]);
	is_int(px_group_enable(g), 0, "enable");
	spin(20);
	is_int(px_group_disable(g), 0, "disable");
	is_int(px_group_read(g, c), 0, "read");
	ok(c[0].value >= 15000000, "task-clock counted the 20 ms spun: %llu ns",
	   (unsigned long long)c[0].value);
	ok(c[0].enabled == c[0].running && c[0].enabled > 0, "and ran all the time it was enabled");
	if (status[1])
		ok(!c[1].value && !c[1].enabled && !c[1].running,
		   "the event without a counter reads as not counted");
	else
		ok(c[1].value > 0, "cycles counted %llu", (unsigned long long)c[1].value);
	spin(5);
	is_int(px_group_read(g, again), 0, "read again");
	ok(again[0].value == c[0].value, "nothing counted while disabled");

	/* what only sampling groups do, asked of a counting group */
	is_int(px_group_poll(g, 0), 0, "poll: nothing to do");
	is_int((int)px_group_pollfds(g, &fd, 1), 0, "pollfds: none");
	is_int(px_group_exec(g, 1), 0, "exec: nothing to do");
	ok(!px_group_switch_due(g), "switch_due: never");
	memset(&st, 0xff, sizeof(st));
	px_group_stats(g, &st);
	ok(!st.overflows && !st.samples, "stats: zero");
	is_int((int)px_group_mappings(g, &maps), 0, "no mappings");
	is_int((int)px_group_tasks(g, &tasks), 0, "no task events");
	is_int(px_group_set_runs(g, &runs, 1), -EOPNOTSUPP,
	       "set_runs: the perf backend keeps no account of sets");
	is_int(px_group_finish(g), 0, "finish disables");
	px_group_close(g);
}

static int count_sample(void *arg, const struct px_sample *s)
{
	(void)s;
	++*(unsigned long *)arg;
	return 0;
}

static void sampling_group(void)
{
	struct px_event ev;
	struct px_event_set set = { &ev, 1 };
	struct px_target self = { .pid = 0, .cpu = -1 };
	struct px_smpl_pmd pmd = { .long_period = 1000000, .notify = true };
	const struct px_smpl_pmd *pmds = &pmd;
	unsigned long seen = 0;
	struct px_group_opts o = {
		.pmds = &pmds,
		.smpl = { .on_sample = count_sample, .arg = &seen },
	};
	struct px_smpl_stats st;
	struct px_count c;
	struct px_group *g = NULL;
	int status = 1;

	REQUIRE(!parse("task-clock", &ev), "task-clock parses");
	is_int(px_backend_perf.open(&set, 1, &self, &o, &status, &g), 0,
	       "a sampling group opens through the same open()");
	REQUIRE(g, "a group: %s", px_last_error());
	ok(g->sampling, "it samples");
	is_int(status, 0, "its event has a counter");
	is_int(px_group_enable(g), 0, "enable");
	spin(30);
	is_int(px_group_finish(g), 0, "finish: the buffer handed over");
	px_group_stats(g, &st);
	is_int(px_group_read(g, &c), 0, "read");
	ok(st.samples >= 15, "samples every ms of 30 ms spun: %llu",
	   (unsigned long long)st.samples);
	ok(seen == st.samples, "every sample handed over (%lu) is counted", seen);
	ok(c.value >= st.samples * pmd.long_period,
	   "the count (%llu ns) covers the samples' periods", (unsigned long long)c.value);
	ok(px_group_pollfds(g, NULL, 0) > 0, "it has descriptors to poll");
	px_group_close(g);
}

static void capabilities(void)
{
	struct px_event evs[2];
	struct px_event_set sets[2] = { { &evs[0], 1 }, { &evs[1], 1 } };
	struct px_smpl_pmd random = { .long_period = 100000, .random = true,
				      .random_mask = 0xff, .random_seed = 1 };
	const struct px_smpl_pmd *pmds[2] = { &random, &random };
	struct px_target self = { .pid = 0, .cpu = -1 };
	struct px_group *g = (struct px_group *)&g;
	int status[2];

	REQUIRE(!parse("task-clock", &evs[0]) && !parse("page-faults", &evs[1]),
		"task-clock and page-faults parse");
	ok(!px_backend_perf.switches_sets && px_backend_module.switches_sets,
	   "the module switches sets itself, the perf backend does not");
	is_int(px_backend_perf.open(sets, 2, &self, NULL, status, &g), -EINVAL,
	       "the perf backend opens one set per group");
	ok(g == NULL, "and leaves no group");
	is_int(px_backend_check(&px_backend_perf, sets, 2, NULL, false, false), 0,
	       "counting several sets: every backend can");
	is_int(px_backend_check(&px_backend_perf, sets, 2, pmds, false, false), -EINVAL,
	       "perf: randomised periods with several sets refused");
	ok(strstr(px_last_error(), "--backend=module") != NULL, "naming the way out: %s",
	   px_last_error());
	is_int(px_backend_check(&px_backend_perf, sets, 1, pmds, true, false), -EINVAL,
	       "perf: randomised periods on a CPU refused");
	is_int(px_backend_check(&px_backend_perf, sets, 1, pmds, false, false), 0,
	       "perf: randomised periods on one task of one set");
	is_int(px_backend_check(&px_backend_module, sets, 2, pmds, true, true), 0,
	       "module: all of it (it sets periods and switches sets in the kernel)");
}

int main(void)
{
	counting_group();
	sampling_group();
	capabilities();
	return done_testing();
}
