/* libpx on the perfmon module: px_backend_module's counting groups. */
#include "counters_module.h"
#include "error.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

int px_counters_want_module(const struct px_counters_control *ctl)
{
	const char *name = ctl->backend ? ctl->backend : getenv("PX_COUNTERS_BACKEND");

	if (!name || !*name || !strcmp(name, "perf"))
		return 0;
	if (!strcmp(name, "module"))
		return 1;
	return px_fail(EINVAL, "backend '%s': libpx counts with 'perf' (the default) or 'module'",
		       name);
}

int px_module_counters_open(struct px_group **g, struct px_event *evs, unsigned n, pid_t tid)
{
	struct px_event_set set = { .events = evs, .n = n };
	struct px_target t = {
		.pid = tid ? tid : (pid_t)syscall(SYS_gettid),
		.cpu = -1,
	};
	int status[PX_COUNTERS_MAX] = { 0 };
	int ret;

	*g = NULL;
	if ((ret = px_backend_module.probe())) {
		char why[512];

		snprintf(why, sizeof(why), "%s", px_last_error());
		return px_fail(-ret, "the perfmon module was asked for (ctl.backend or PX_COUNTERS_BACKEND): %s",
			       why);
	}
	if ((ret = px_backend_module.open(&set, 1, &t, NULL, status, g)))
		return ret;
	for (unsigned i = 0; i < n; i++)
		if (status[i]) {
			px_group_close(*g);
			*g = NULL;
			return px_fail(-status[i], "the perfmon module cannot count '%s' on this machine",
				       evs[i].name);
		}
	return 0;
}

int px_module_counters_read(struct px_group *g, struct px_counters_sums *s, unsigned n)
{
	struct px_count counts[PX_COUNTERS_MAX];
	int ret = px_group_read(g, counts);

	if (ret)
		return ret;
	s->n = n;
	for (unsigned i = 0; i < n; i++) {
		s->value[i] = counts[i].value;
		s->enabled[i] = counts[i].enabled;
		s->running[i] = counts[i].running;
	}
	return 0;
}
