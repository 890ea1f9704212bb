/* Reading a counter from user space through its perf mmap page: the
 * page's seqlock, offset and times, and the hardware counter itself
 * (rdpmc on x86-64; the PMU's event or cycle counter on arm64 with
 * kernel.perf_user_access=1 and the event's config1 bit 1), as
 * include/linux/perf_event.h documents the page. */
#ifndef PX_USERREAD_H
#define PX_USERREAD_H

#include <linux/perf_event.h>
#include <stdbool.h>
#include <stdint.h>

/* Whether this build can read counters in user space at all. */
bool px_userread_built(void);

/* The count and times read(2) would give now, without a system call:
 * false when the page does not allow it (the event is not on a counter
 * now, user access is off, or no user time to bring the times up to
 * now), then the caller reads with read(2). */
bool px_userread(const struct perf_event_mmap_page *pc, uint64_t *value,
		 uint64_t *enabled, uint64_t *running);

#endif
