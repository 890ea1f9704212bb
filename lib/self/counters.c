/* A thread's own counters (include/px_counters.h): perf events of the
 * thread, one group, each mapped so that reads can skip the kernel. */
#include "px_counters.h"
#include "api.h"
#include "error.h"
#include "events.h"
#include "perf_syscall.h"
#include "userread.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <unistd.h>

struct counter {
	struct px_event ev;
	int fd;
	struct perf_event_mmap_page *page;	/* NULL: read(2) only */
	uint64_t base;		/* a preserved sum's part before its reopening */
	enum px_read_path path;
};

struct px_counters {
	pid_t tid;		/* 0: the thread that opened it */
	bool running;
	bool syscall_only;	/* PX_COUNTERS_READ=syscall: never in user space */
	unsigned n;
	struct counter ctr[PX_COUNTERS_MAX];
	struct px_counters_sums stopped;	/* the sums at the last stop */
};

PX_API const char *px_counters_error(void)
{
	return px_last_error();
}

static int open_state(struct px_counters **c, pid_t tid)
{
	*c = calloc(1, sizeof(**c));
	if (!*c)
		return px_fail(ENOMEM, "out of memory");
	(*c)->tid = tid;
	return 0;
}

PX_API int px_counters_open(struct px_counters **c)
{
	return open_state(c, 0);
}

PX_API int px_counters_attach(struct px_counters **c, pid_t tid)
{
	if (tid <= 0)
		return px_fail(EINVAL, "attach to thread %d: not a thread id", (int)tid);
	return open_state(c, tid);
}

static void unmap_page(struct counter *k)
{
	if (k->page)
		munmap(k->page, (size_t)sysconf(_SC_PAGESIZE));
	k->page = NULL;
}

static void release(struct counter *k)
{
	unmap_page(k);
	if (k->fd >= 0)
		close(k->fd);
	k->fd = -1;
}

/* Event k of c opened, in the group of the first (leader -1: it is the
 * first), disabled; mapped for reads in user space when it counts the
 * calling thread. */
static int open_counter(struct px_counters *c, struct counter *k, int leader, bool inherit)
{
	struct perf_event_attr a;
	int fd;

	px_perf_event_attr(&k->ev, &a);
	a.disabled = leader < 0;
	a.inherit = inherit;
	a.read_format = PERF_FORMAT_TOTAL_TIME_ENABLED | PERF_FORMAT_TOTAL_TIME_RUNNING;
#if defined(__aarch64__)
	/* arm64: user access to the counter is asked per event (config1
	 * bit 1, the PMU's "rdpmc" format), and granted with
	 * kernel.perf_user_access=1 */
	if (a.type == PERF_TYPE_HARDWARE || a.type == PERF_TYPE_RAW ||
	    a.type == PERF_TYPE_HW_CACHE || a.type > PERF_TYPE_MAX)
		a.config1 |= 2;
#endif
	fd = px_perf_event_open(&a, c->tid, -1, leader);
	if (fd < 0)
		return px_fail(-fd, "cannot count '%s': %s", k->ev.name, strerror(-fd));
	k->fd = fd;
	k->path = PX_READ_NONE;
	if (c->tid)
		return 0;	/* another thread's: its counter is not ours to read */
	k->page = mmap(NULL, (size_t)sysconf(_SC_PAGESIZE), PROT_READ, MAP_SHARED, fd, 0);
	if (k->page == MAP_FAILED)
		k->page = NULL;	/* read(2) it is */
	return 0;
}

static int read_syscall(const struct counter *k, uint64_t *v, uint64_t *en, uint64_t *run)
{
	uint64_t buf[3];

	if (read(k->fd, buf, sizeof(buf)) != (ssize_t)sizeof(buf))
		return px_fail(errno ? errno : EIO, "cannot read the counter of '%s': %s",
			       k->ev.name, strerror(errno ? errno : EIO));
	*v = buf[0];
	*en = buf[1];
	*run = buf[2];
	return 0;
}

/* Counter i's sum now, and how it was read. */
static int read_counter(struct px_counters *c, unsigned i, struct px_counters_sums *s)
{
	struct counter *k = &c->ctr[i];
	int ret = 0;

	if (k->page && !c->syscall_only &&
	    px_userread(k->page, &s->value[i], &s->enabled[i], &s->running[i])) {
		k->path = PX_READ_USER;
	} else {
		errno = 0;
		ret = read_syscall(k, &s->value[i], &s->enabled[i], &s->running[i]);
		k->path = PX_READ_SYSCALL;
		/* a running counter whose page grants no user reads (a
		 * software event, user access off) never will: read(2) from
		 * now on, without looking at the page first */
		if (k->page && c->running && !k->page->cap_user_rdpmc)
			unmap_page(k);
	}
	s->value[i] += k->base;
	return ret;
}

PX_API int px_counters_read(struct px_counters *c, struct px_counters_sums *s)
{
	memset(s, 0, sizeof(*s));
	if (!c->running && c->n) {
		*s = c->stopped;
		return 0;
	}
	s->n = c->n;
	for (unsigned i = 0; i < c->n; i++) {
		int ret = read_counter(c, i, s);

		if (ret)
			return ret;
	}
	return 0;
}

static int group_ioctl(struct px_counters *c, unsigned long req, const char *what)
{
	if (!c->n)
		return px_fail(EINVAL, "%s: no events programmed (px_counters_control first)", what);
	if (ioctl(c->ctr[0].fd, req, PERF_IOC_FLAG_GROUP))
		return px_fail(errno, "%s the counters: %s", what, strerror(errno));
	return 0;
}

PX_API int px_counters_start(struct px_counters *c)
{
	int ret = group_ioctl(c, PERF_EVENT_IOC_ENABLE, "start");

	if (!ret)
		c->running = true;
	return ret;
}

PX_API int px_counters_stop(struct px_counters *c)
{
	int ret;

	if (!c->running)
		return group_ioctl(c, PERF_EVENT_IOC_DISABLE, "stop");
	if ((ret = group_ioctl(c, PERF_EVENT_IOC_DISABLE, "stop")) ||
	    (ret = px_counters_read(c, &c->stopped)))
		return ret;
	c->running = false;
	return 0;
}

/* The events of ctl, parsed: at most PX_COUNTERS_MAX. */
static int parse_events(const struct px_counters_control *ctl, struct px_event **evs, size_t *n)
{
	int ret;

	*evs = NULL;
	*n = 0;
	if (!ctl || !ctl->events || !*ctl->events)
		return px_fail(EINVAL, "no events to count: give them as perfex -e takes them");
	if ((ret = px_event_parse_list(ctl->events, evs, n)))
		return ret;
	if (*n > PX_COUNTERS_MAX) {
		free(*evs);
		return px_fail(EINVAL, "%zu events: a counter state counts at most %d", *n,
			       PX_COUNTERS_MAX);
	}
	return 0;
}

/* The sums the n new counters keep across a control: counter i's sum
 * now when it is preserved and counts the same event, else 0.  One read
 * of every counter serves them all; a failed read fails the control
 * rather than lose a preserved sum. */
static int kept_sums(struct px_counters *c, const struct px_counters_control *ctl,
		     const struct px_event *evs, size_t n, uint64_t *kept)
{
	struct px_counters_sums now;
	int ret;

	memset(kept, 0, n * sizeof(*kept));
	if (!(ctl->preserve & ((1u << c->n) - 1)))	/* c->n <= PX_COUNTERS_MAX */
		return 0;
	if ((ret = px_counters_read(c, &now)))
		return ret;
	for (unsigned i = 0; i < n && i < c->n; i++)
		if ((ctl->preserve >> i & 1) && !strcmp(c->ctr[i].ev.encoded, evs[i].encoded))
			kept[i] = now.value[i];
	return 0;
}

PX_API int px_counters_control(struct px_counters *c, const struct px_counters_control *ctl)
{
	struct px_event *evs;
	uint64_t kept[PX_COUNTERS_MAX] = { 0 };
	size_t n;
	int ret = parse_events(ctl, &evs, &n);

	if (ret)
		return ret;
	if ((ret = kept_sums(c, ctl, evs, n, kept))) {
		free(evs);
		return ret;
	}
	px_counters_unlink(c);
	c->syscall_only = getenv("PX_COUNTERS_READ") && !strcmp(getenv("PX_COUNTERS_READ"), "syscall");
	for (unsigned i = 0; i < n; i++) {
		struct counter *k = &c->ctr[i];

		k->ev = evs[i];
		k->base = kept[i];
		if ((ret = open_counter(c, k, i ? c->ctr[0].fd : -1, ctl->inherit))) {
			c->n = i;
			px_counters_unlink(c);
			break;
		}
		c->n = i + 1;
	}
	free(evs);
	return ret;
}

PX_API const char *px_counters_name(const struct px_counters *c, unsigned i)
{
	return i < c->n ? c->ctr[i].ev.name : NULL;
}

PX_API enum px_read_path px_counters_read_path(const struct px_counters *c, unsigned i)
{
	return i < c->n ? c->ctr[i].path : PX_READ_NONE;
}

PX_API int px_counters_unlink(struct px_counters *c)
{
	/* the group's members first, its leader last */
	for (unsigned i = c->n; i-- > 0;)
		release(&c->ctr[i]);
	c->n = 0;
	c->running = false;
	memset(&c->stopped, 0, sizeof(c->stopped));
	return 0;
}

PX_API void px_counters_close(struct px_counters *c)
{
	if (!c)
		return;
	px_counters_unlink(c);
	free(c);
}
