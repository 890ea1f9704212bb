#include "report.h"
#include "error.h"
#include "monitor.h"
#include "target.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

int px_report_init(struct px_report *r, const char *tool, char *const *argv,
		   const char *backend, const struct px_event *events,
		   size_t nevents, const int *status)
{
	memset(r, 0, sizeof(*r));
	r->results = calloc(nevents ? nevents : 1, sizeof(*r->results));
	if (!r->results)
		return px_fail(ENOMEM, "out of memory");
	r->tool = tool;
	r->argv = argv;
	r->backend = backend;
	r->events = events;
	r->nevents = nevents;
	px_stats_init(&r->elapsed_ns);
	for (size_t i = 0; i < nevents; i++) {
		r->results[i].status = status ? status[i] : 0;
		r->results[i].min_running_pct = 100.0;
		px_stats_init(&r->results[i].values);
		px_stats_init(&r->results[i].raws);
	}
	return 0;
}

void px_report_add_run(struct px_report *r, const struct px_count *counts,
		       uint64_t elapsed_ns, int exit_code)
{
	r->runs++;
	px_stats_add(&r->elapsed_ns, (double)elapsed_ns);
	if (exit_code)
		r->exit_code = exit_code;
	for (size_t i = 0; i < r->nevents; i++) {
		struct px_event_result *res = &r->results[i];

		if (res->status)
			continue;
		px_scale(&counts[i], &res->last);
		if (res->last.state == PX_NOT_COUNTED)
			continue;	/* runs_counted < runs tells it */
		res->runs_counted++;
		px_stats_add(&res->values, res->last.value);
		px_stats_add(&res->raws, (double)res->last.raw);
		if (res->last.state == PX_SCALED)
			res->ever_scaled = true;
		if (res->last.active_pct < res->min_running_pct)
			res->min_running_pct = res->last.active_pct;
	}
}

void px_report_free(struct px_report *r)
{
	free(r->results);
	r->results = NULL;
}

int px_report_count(const struct px_count_opts *o, struct px_child *first,
		    struct px_report *r, int *exec_errno)
{
	struct px_event_set set = { o->events, o->nevents };
	struct px_monitor_opts mo = {
		.backend = o->backend, .sets = &set, .nsets = 1, .inherit = true,
		.argv = o->argv, .child = first,
	};
	int ret = 0;

	*exec_errno = 0;
	for (int run = 0; run < o->repeat && !ret; run++) {
		struct px_child next;
		struct px_monitor m;
		bool interrupted;

		if (run > 0) {
			/* forked now, held until its counters are attached */
			if ((ret = px_child_fork(o->argv, &next)))
				break;
			mo.child = &next;
		}
		ret = px_monitor_run(&mo, &m);
		*exec_errno = m.exec_errno;
		if (!ret && run == 0)
			ret = px_report_init(r, o->tool, o->argv, o->backend->name,
					     o->events, o->nevents, m.units[0].status);
		if (!ret)
			px_report_add_run(r, m.units[0].counts, m.elapsed_ns,
					  m.exit_code);
		r->signal = m.signal;
		interrupted = m.signal != 0;
		px_monitor_free(&m);
		if (interrupted)
			break;
	}
	return ret;
}
