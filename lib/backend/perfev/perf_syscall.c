/* perf_event_open(2) and the part of an event's attributes that the
 * event itself gives: shared by the counting and sampling backends and
 * by libpx's self-monitoring counters. */
#include "perf_syscall.h"
#include "events.h"

#include <errno.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

int px_perf_event_open(struct perf_event_attr *attr, pid_t pid, int cpu,
		       int group_fd)
{
	int fd = (int)syscall(SYS_perf_event_open, attr, pid, cpu, group_fd,
			      PERF_FLAG_FD_CLOEXEC);

	return fd < 0 ? -errno : fd;
}

void px_perf_event_attr(const struct px_event *ev, struct perf_event_attr *attr)
{
	memset(attr, 0, sizeof(*attr));
	attr->size = sizeof(*attr);
	attr->type = ev->type;
	attr->config = ev->config;
	attr->config1 = ev->config1;
	attr->config2 = ev->config2;
	if (ev->kind == PX_EVENT_BREAKPOINT) {
		attr->bp_type = ev->bp_type;
		attr->bp_addr = ev->bp_addr;
		attr->bp_len = ev->bp_len;
	}
	attr->exclude_user = ev->exclude_user;
	attr->exclude_kernel = ev->exclude_kernel;
	attr->exclude_hv = ev->exclude_hv;
}
