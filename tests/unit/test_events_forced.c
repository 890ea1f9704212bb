/* Encodings on real hardware PMU tables, which this machine does not have:
 * LIBPFM_FORCE_PMU makes libpfm4 use one as if it had been detected.  The
 * expected values are the Intel SDM's and AMD's event selectors.  Every
 * other name (perf's generic and software names, raw codes, breakpoints)
 * must mean what it means without the variable (test_events.c). */
#include "tap.h"

#include "error.h"
#include "events.h"
#include "metrics.h"

#include <errno.h>
#include <linux/perf_event.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

struct row {
	int line;
	const char *spec;
	int err;
	uint32_t type;
	uint64_t config;
	bool excl_user, excl_kernel;
	const char *text;	/* the encoded prefix, or a piece of the error */
};

static const struct row skl[] = {
	{ ROW, "INST_RETIRED:ANY_P", 0, PERF_TYPE_RAW, 0xc0, false, false,
	  "skl::INST_RETIRED:ANY_P" },
	{ ROW, "skl::INST_RETIRED:ANY_P", 0, PERF_TYPE_RAW, 0xc0, false, false,
	  "skl::INST_RETIRED:ANY_P" },
	{ ROW, "skl::BR_INST_RETIRED:ALL_BRANCHES:u", 0, PERF_TYPE_RAW, 0xc4,
	  false, true, "skl::BR_INST_RETIRED:ALL_BRANCHES" },
	{ ROW, "UNHALTED_CORE_CYCLES:k", 0, PERF_TYPE_RAW, 0x3c, true, false,
	  "skl::UNHALTED_CORE_CYCLES" },
	{ ROW, "MEM_LOAD_RETIRED:L1_MISS", 0, PERF_TYPE_RAW, 0x8d1, false, false,
	  "skl::MEM_LOAD_RETIRED:L1_MISS" },
	/* counter mask in bits 24-31, invert in bit 23 */
	{ ROW, "INST_RETIRED:ANY_P:c=2:i", 0, PERF_TYPE_RAW, 0x28000c0, false,
	  false, "skl::INST_RETIRED:ANY_P:e=0:i=1:c=2" },
	{ ROW, "INST_RETIRED:BOGUS", EINVAL, 0, 0, false, false,
	  "invalid event attribute" },
	{ ROW, "INST_RETIRD", ENOENT, 0, 0, false, false, "did you mean: " },
	{ ROW, "INST_RETIRD", ENOENT, 0, 0, false, false, "INST_RETIRED" },
	/* the names of every machine, as without LIBPFM_FORCE_PMU */
	{ ROW, "task-clock", 0, PERF_TYPE_SOFTWARE, PERF_COUNT_SW_TASK_CLOCK,
	  false, false, "perf::PERF_COUNT_SW_TASK_CLOCK" },
	{ ROW, "page-faults", 0, PERF_TYPE_SOFTWARE, PERF_COUNT_SW_PAGE_FAULTS,
	  false, false, "perf::PERF_COUNT_SW_PAGE_FAULTS" },
	{ ROW, "page-faults:u", 0, PERF_TYPE_SOFTWARE, PERF_COUNT_SW_PAGE_FAULTS,
	  false, true, "perf::PERF_COUNT_SW_PAGE_FAULTS:u=1:k=0" },
	{ ROW, "perf::PERF_COUNT_SW_CONTEXT_SWITCHES", 0, PERF_TYPE_SOFTWARE,
	  PERF_COUNT_SW_CONTEXT_SWITCHES, false, false,
	  "perf::PERF_COUNT_SW_CONTEXT_SWITCHES" },
	{ ROW, "cycles", 0, PERF_TYPE_HARDWARE, PERF_COUNT_HW_CPU_CYCLES,
	  false, false, "perf::PERF_COUNT_HW_CPU_CYCLES" },
	{ ROW, "instructions:u", 0, PERF_TYPE_HARDWARE, PERF_COUNT_HW_INSTRUCTIONS,
	  false, true, "perf::PERF_COUNT_HW_INSTRUCTIONS:u=1:k=0" },
	{ ROW, "0x1234", 0, PERF_TYPE_RAW, 0x1234, false, false, "perf_raw::" },
	{ ROW, "r5300c0", 0, PERF_TYPE_RAW, 0x5300c0, false, false,
	  "perf_raw::" },
	{ ROW, "r0c0:u", 0, PERF_TYPE_RAW, 0xc0, false, true, "perf_raw::" },
	{ ROW, "page-fualts", ENOENT, 0, 0, false, false,
	  "did you mean: PAGE-FAULTS" },
	{ ROW, "nopmu::page-faults", ENOENT, 0, 0, false, false, "unknown event" },
};

static void check_rows(const struct row *rows, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		const struct row *r = &rows[i];
		struct px_event ev;
		int ret = px_event_parse(r->spec, &ev);

		is_int_at(r->line, ret, -r->err, "%s: status", r->spec);
		if (r->err) {
			ok_at(r->line, strstr(px_last_error(), r->text),
			      "%s: message '%s' says '%s'", r->spec,
			      px_last_error(), r->text);
			continue;
		}
		if (ret)
			continue;
		is_int_at(r->line, ev.type, r->type, "%s: type", r->spec);
		is_int_at(r->line, ev.config, r->config, "%s: config", r->spec);
		is_int_at(r->line, ev.exclude_user, r->excl_user, "%s: exclude_user", r->spec);
		is_int_at(r->line, ev.exclude_kernel, r->excl_kernel, "%s: exclude_kernel", r->spec);
		ok_at(r->line, !strncmp(ev.encoded, r->text, strlen(r->text)),
		      "%s: encoded '%s' starts with '%s'", r->spec, ev.encoded, r->text);
	}
}

/* IPC and CPI from the model-specific names of the cycles and
 * instructions events. */
static void test_metrics_on_skl(void)
{
	struct px_event evs[2];
	double values[2] = { 4000, 1000 };
	bool counted[2] = { true, true };
	struct px_metric m[PX_METRICS_MAX];
	size_t n;
	double ipc = -1, cpi = -1;

	if (px_event_parse("UNHALTED_CORE_CYCLES", &evs[0]) ||
	    px_event_parse("INST_RETIRED:ANY_P", &evs[1])) {
		ok(0, "skl cycles and instructions parse: %s", px_last_error());
		return;
	}
	n = px_metrics_compute(evs, values, counted, 2, 0, m);
	for (size_t i = 0; i < n; i++) {
		if (!strcmp(m[i].name, "IPC"))
			ipc = m[i].value;
		if (!strcmp(m[i].name, "CPI"))
			cpi = m[i].value;
	}
	is_num(ipc, 0.25, 1e-12, "skl: IPC = INST_RETIRED / UNHALTED_CORE_CYCLES");
	is_num(cpi, 4.0, 1e-12, "skl: CPI = UNHALTED_CORE_CYCLES / INST_RETIRED");
}

/* Breakpoints are perfex's own syntax, whatever libpfm4 loads. */
static void test_breakpoint(void)
{
	struct px_event ev;

	if (!is_int(px_event_parse("mem:0x401000:x", &ev), 0,
		    "mem:0x401000:x parses"))
		diag("error: %s", px_last_error());
	is_int(ev.kind, PX_EVENT_BREAKPOINT, "mem:0x401000:x: breakpoint kind");
	is_str(ev.encoded, "mem:0x401000/8:x", "mem:0x401000:x: encoded");
}

/* The forced PMU's names, then perf's, then the forced PMU's again (where
 * a libpfm4 load replaces the tables before, back and forth between them;
 * where they add up, the same tables). */
static void test_alternating(void)
{
	static const char *const specs[] = {
		"INST_RETIRED:ANY_P", "task-clock", "UNHALTED_CORE_CYCLES",
		"0xc0", "page-faults", "INST_RETIRED:ANY_P", "cycles",
	};
	struct px_event *evs = NULL;
	char list[256] = "";
	size_t n = 0;

	for (size_t i = 0; i < ARRAY_SIZE(specs); i++) {
		strcat(list, i ? "," : "");
		strcat(list, specs[i]);
	}
	is_int(px_event_parse_list(list, &evs, &n), 0,
	       "a list mixing skl's names and perf's parses: %s", px_last_error());
	is_int(n, ARRAY_SIZE(specs), "every event of the list");
	for (size_t i = 0; i < n && i < ARRAY_SIZE(specs); i++)
		is_str(evs[i].name, specs[i], "event %zu is %s", i, specs[i]);
	if (n == ARRAY_SIZE(specs)) {
		is_int(evs[0].config, 0xc0, "skl's INST_RETIRED:ANY_P");
		is_int(evs[1].type, PERF_TYPE_SOFTWARE, "perf's task-clock");
		is_int(evs[5].config, 0xc0, "skl's INST_RETIRED:ANY_P again");
		is_int(evs[6].type, PERF_TYPE_HARDWARE, "perf's cycles");
	}
	free(evs);
}

/* Commands perfex starts inherit the environment it was given. */
static void test_env_kept(void)
{
	struct px_event ev;
	const char *v;

	px_event_parse("task-clock", &ev);
	px_event_parse("r1234", &ev);
	v = getenv("LIBPFM_FORCE_PMU");
	ok(v && !strcmp(v, "skl"), "LIBPFM_FORCE_PMU is still skl ('%s')",
	   v ? v : "(unset)");
}

struct pmu_seen {
	int skl, perf, perf_raw, other;
	bool skl_inst, perf_faults;
};

static void see_event(const struct px_event_desc *d, void *arg)
{
	struct pmu_seen *s = arg;

	if (!strcmp(d->pmu, "skl")) {
		s->skl++;
		s->skl_inst |= !strcmp(d->name, "INST_RETIRED");
	} else if (!strcmp(d->pmu, "perf")) {
		s->perf++;
		s->perf_faults |= !strcmp(d->name, "PAGE-FAULTS");
	} else if (!strcmp(d->pmu, "perf_raw")) {
		s->perf_raw++;
	} else {
		s->other++;
	}
}

static void see_pmu(const struct px_pmu_desc *d, void *arg)
{
	see_event(&(struct px_event_desc){ .pmu = d->name, .name = "" }, arg);
}

/* -l lists the forced PMU's names and those of every machine; -i the
 * PMUs, each once. */
static void test_listing(void)
{
	struct pmu_seen ev = { 0 }, pmus = { 0 };
	int n = px_event_foreach(NULL, see_event, &ev);

	is_int(n, ev.skl + ev.perf + ev.perf_raw + ev.other, "visited count");
	ok(ev.skl > 50 && ev.skl_inst, "skl's events listed (%d)", ev.skl);
	ok(ev.perf > 10 && ev.perf_faults, "perf's events listed (%d)", ev.perf);
	is_int(ev.perf_raw, 1, "perf_raw's raw syntax listed");
	is_int(ev.other, 0, "no other PMU's events");
	is_int(px_pmu_foreach(see_pmu, &pmus), 3, "three PMUs");
	ok(pmus.skl == 1 && pmus.perf == 1 && pmus.perf_raw == 1 && !pmus.other,
	   "skl, perf and perf_raw, once each");
}

/* A LIBPFM_FORCE_PMU that names no table of libpfm4: the names of every
 * machine still work, and an unknown name's message names the variable.
 * In a child: the variable is read once per process. */
static void test_no_such_pmu(void)
{
	pid_t pid = fork();
	int status;

	if (pid == 0) {
		struct px_event ev;
		bool good;

		setenv("LIBPFM_FORCE_PMU", "no_such_pmu", 1);
		good = !px_event_parse("task-clock", &ev) &&
		       ev.type == PERF_TYPE_SOFTWARE &&
		       px_event_parse("INST_RETIRED:ANY_P", &ev) == -ENOENT &&
		       strstr(px_last_error(), "LIBPFM_FORCE_PMU=no_such_pmu");
		if (!good)
			fprintf(stderr, "# %s\n", px_last_error());
		_exit(good ? 0 : 1);
	}
	ok(pid > 0 && waitpid(pid, &status, 0) == pid && WIFEXITED(status) &&
	   WEXITSTATUS(status) == 0,
	   "LIBPFM_FORCE_PMU=no_such_pmu: task-clock parses, a model's name is unknown and the message names the variable");
}

int main(void)
{
	test_no_such_pmu();	/* first: before this process reads the variable */
	setenv("LIBPFM_FORCE_PMU", "skl", 1);
	check_rows(skl, ARRAY_SIZE(skl));
	test_metrics_on_skl();
	test_breakpoint();
	test_alternating();
	test_env_kept();
	test_listing();
	check_rows(skl, ARRAY_SIZE(skl));	/* again, after the listing */
	return done_testing();
}
