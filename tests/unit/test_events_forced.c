/* Encodings on real hardware PMU tables, which this machine does not have:
 * LIBPFM_FORCE_PMU makes libpfm4 use one as if it had been detected (and
 * then only that one: perf's generic names and perf_raw's raw encodings
 * are unknown here, test_events.c covers those).  The
 * expected values are the Intel SDM's and AMD's event selectors. */
#include "tap.h"

#include "error.h"
#include "events.h"
#include "metrics.h"

#include <errno.h>
#include <linux/perf_event.h>
#include <stdlib.h>

struct row {
	int line;
	const char *spec;
	int err;
	uint64_t config;
	bool excl_user, excl_kernel;
	const char *text;	/* the encoded prefix, or a piece of the error */
};

static const struct row skl[] = {
	{ ROW, "INST_RETIRED:ANY_P", 0, 0xc0, false, false, "skl::INST_RETIRED:ANY_P" },
	{ ROW, "skl::INST_RETIRED:ANY_P", 0, 0xc0, false, false, "skl::INST_RETIRED:ANY_P" },
	{ ROW, "skl::BR_INST_RETIRED:ALL_BRANCHES:u", 0, 0xc4, false, true,
	  "skl::BR_INST_RETIRED:ALL_BRANCHES" },
	{ ROW, "UNHALTED_CORE_CYCLES:k", 0, 0x3c, true, false, "skl::UNHALTED_CORE_CYCLES" },
	{ ROW, "MEM_LOAD_RETIRED:L1_MISS", 0, 0x8d1, false, false,
	  "skl::MEM_LOAD_RETIRED:L1_MISS" },
	/* counter mask in bits 24-31, invert in bit 23 */
	{ ROW, "INST_RETIRED:ANY_P:c=2:i", 0, 0x28000c0, false, false,
	  "skl::INST_RETIRED:ANY_P:e=0:i=1:c=2" },
	{ ROW, "INST_RETIRED:BOGUS", EINVAL, 0, false, false, "invalid event attribute" },
	{ ROW, "INST_RETIRD", ENOENT, 0, false, false, "did you mean: " },
	{ ROW, "INST_RETIRD", ENOENT, 0, false, false, "INST_RETIRED" },
	{ ROW, "cycles", ENOENT, 0, false, false, "UNHALTED_CORE_CYCLES" },
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
		is_int_at(r->line, ev.type, PERF_TYPE_RAW, "%s: raw type", r->spec);
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

int main(void)
{
	setenv("LIBPFM_FORCE_PMU", "skl", 1);
	check_rows(skl, ARRAY_SIZE(skl));
	test_metrics_on_skl();
	return done_testing();
}
