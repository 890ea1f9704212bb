/* perf_event_open(2) for the library's perf-based parts (counting in
 * backend_perf.c, sampling, libpx's own counters in lib/self). */
#ifndef PX_PERF_SYSCALL_H
#define PX_PERF_SYSCALL_H

#include <linux/perf_event.h>
#include <sys/types.h>

struct px_event;

/* Zero *attr and fill in what the event itself says: its type and
 * configuration, breakpoint, privilege levels.  The caller adds how it
 * is counted or sampled. */
void px_perf_event_attr(const struct px_event *ev, struct perf_event_attr *attr);

/* Returns a close-on-exec fd, or -errno. */
int px_perf_event_open(struct perf_event_attr *attr, pid_t pid, int cpu,
		       int group_fd);

#endif
