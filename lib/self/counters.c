/* A thread's own counters (include/px_counters.h): perf events of the
 * thread, one group, each mapped so that reads can skip the kernel; the
 * children's sums on a second group (children.c), interrupt mode in
 * interrupt.c. */
#include "counters_state.h"
#include "api.h"
#include "counters_module.h"
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

/* Event k of c opened in the group of leader (-1: it leads it, disabled),
 * in interrupt mode when it has a period; mapped for reads in user space
 * when it counts the calling thread. */
static int open_counter(struct px_counters *c, struct counter *k, int leader, int signo)
{
	struct perf_event_attr a;
	int fd, ret;

	px_perf_event_attr(&k->ev, &a);
	px_interrupt_attr(k, &a);
	a.disabled = leader < 0;
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
	k->armed = false;
	if ((ret = px_interrupt_setup(c, k, signo)))
		return ret;
	if (c->tid)
		return 0;	/* another thread's: its counter is not ours to read */
	/* populated now: a first read's fault in the page (kernels before
	 * 6.10 map it at the first touch) would be counted as the thread's */
	k->page = mmap(NULL, (size_t)sysconf(_SC_PAGESIZE), PROT_READ, MAP_SHARED | MAP_POPULATE,
		       fd, 0);
	if (k->page == MAP_FAILED)
		k->page = NULL;	/* read(2) it is */
	return 0;
}

static int read_syscall(const struct counter *k, uint64_t *v, uint64_t *en, uint64_t *run)
{
	uint64_t buf[3];
	ssize_t got = read(k->fd, buf, sizeof(buf));

	if (got != (ssize_t)sizeof(buf)) {
		int err = got < 0 ? errno : EIO;	/* short: not a counter's read */

		return px_fail(err, "cannot read the counter of '%s': %s", k->ev.name,
			       strerror(err));
	}
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

/* Only n and the first n entries are written: a read is meant to be
 * cheap enough for a loop body, and clearing the whole 392-byte struct
 * was a third of a user-space read's instructions. */
/* The module's sums: every counter with one ioctl. */
static int read_module(struct px_counters *c, struct px_counters_sums *s)
{
	int ret = px_module_counters_read(c->group, s, c->n);

	for (unsigned i = 0; !ret && i < c->n; i++) {
		s->value[i] += c->ctr[i].base;
		c->ctr[i].path = PX_READ_SYSCALL;
	}
	return ret;
}

PX_API int px_counters_read(struct px_counters *c, struct px_counters_sums *s)
{
	if (!c->running) {
		*s = c->stopped;
		s->n = c->n;
		return 0;
	}
	if (c->group)
		return read_module(c, s);
	s->n = c->n;
	for (unsigned i = 0; i < c->n; i++) {
		int ret = read_counter(c, i, s);

		if (ret)
			return ret;
	}
	return 0;
}

/* px_counters_read_value() when the counter cannot be read in user
 * space: apart, so that the user-space path stays a few instructions. */
static __attribute__((noinline)) int read_value_slow(struct px_counters *c, unsigned i,
						     uint64_t *value)
{
	struct px_counters_sums s;
	int ret;

	if (i >= c->n)
		return px_fail(EINVAL, "read counter %u: there are %u", i, c->n);
	if (!c->running) {
		*value = c->stopped.value[i];
		return 0;
	}
	if ((ret = c->group ? read_module(c, &s) : read_counter(c, i, &s)))
		return ret;
	*value = s.value[i];
	return 0;
}

PX_API int px_counters_read_value(struct px_counters *c, unsigned i, uint64_t *value)
{
	if (i < c->n && c->running && !c->syscall_only && c->ctr[i].page &&
	    px_userread_value(c->ctr[i].page, value)) {
		c->ctr[i].path = PX_READ_USER;
		*value += c->ctr[i].base;
		return 0;
	}
	return read_value_slow(c, i, value);
}

static int no_events(const struct px_counters *c, const char *what)
{
	if (c->n)
		return 0;
	return px_fail(EINVAL, "%s: no events programmed (px_counters_control first)", what);
}

/* Start the group at one point: its members first (arming those in
 * interrupt mode), which count nothing while their leader is off, then
 * the leader. */
static int start_group(struct px_counters *c)
{
	int ret;

	for (unsigned i = 0; i < c->n; i++)
		if (i != c->leader && (ret = px_interrupt_arm(c, i)) < 0)
			return ret;
	if ((ret = px_interrupt_arm(c, c->leader)) < 0)
		return ret;
	if (!ret && ioctl(c->ctr[c->leader].fd, PERF_EVENT_IOC_ENABLE, 0))
		return px_fail(errno, "start the counters: %s", strerror(errno));
	return 0;
}

PX_API int px_counters_start(struct px_counters *c)
{
	int ret;

	if ((ret = no_events(c, "start")) ||
	    (ret = c->group ? px_group_enable(c->group) : start_group(c)) ||
	    (c->children && (ret = px_children_enable(c->children, true))))
		return ret;
	c->running = true;
	return 0;
}

PX_API int px_counters_resume(struct px_counters *c)
{
	int ret;

	if ((ret = no_events(c, "resume")))
		return ret;
	if (!c->running)
		return px_fail(EINVAL, "resume: the counters are stopped (px_counters_start starts them)");
	return c->group ? px_group_enable(c->group) : start_group(c);
}

/* Stop the group at one point: its leader. */
PX_API int px_counters_stop(struct px_counters *c)
{
	int ret;

	if ((ret = no_events(c, "stop")))
		return ret;
	if (c->group)
		ret = px_group_disable(c->group);
	else if (ioctl(c->ctr[c->leader].fd, PERF_EVENT_IOC_DISABLE, 0))
		ret = px_fail(errno, "stop the counters: %s", strerror(errno));
	if (ret)
		return ret;
	if (c->children && (ret = px_children_enable(c->children, false)))
		return ret;
	if (!c->running)
		return 0;
	if ((ret = px_counters_read(c, &c->stopped)))
		return ret;
	c->running = false;
	return 0;
}

PX_API int px_counters_read_children(struct px_counters *c, struct px_counters_sums *s)
{
	memset(s, 0, sizeof(*s));
	s->n = c->n;
	return c->children ? px_children_read(c->children, s) : 0;
}

/* The events of ctl, parsed: at most PX_COUNTERS_MAX. */
static int parse_events(const struct px_counters_control *ctl, struct px_event **evs, size_t *n)
{
	int ret;

	*evs = NULL;
	*n = 0;
	if (!ctl || !ctl->events || !*ctl->events)
		return px_fail(EINVAL, "no events to count: give them as perfex -e takes them");
	if ((ret = px_event_parse_list(ctl->events, evs, n))) {
		free(*evs);	/* the events parsed before the bad one */
		*evs = NULL;
		return ret;
	}
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

/* The leader: the first interrupt-mode counter, so that its overflow
 * stops them all; counter 0 without one. */
static unsigned first_interrupt(const struct px_counters_control *ctl, unsigned n)
{
	for (unsigned i = 0; i < n; i++)
		if (ctl->overflow[i])
			return i;
	return 0;
}

/* The control c counts with, for px_counters_read_control(): its own
 * copy of the events. */
static void keep_control(struct px_counters *c, const struct px_counters_control *ctl,
			 int module, char *events)
{
	c->control = *ctl;
	c->control.backend = module ? "module" : "perf";
	c->control.events = events;
}

PX_API int px_counters_read_control(const struct px_counters *c, struct px_counters_control *ctl)
{
	*ctl = c->control;
	return 0;
}

/* What the module backend cannot do for libpx: 0, or -EINVAL saying so. */
static int module_can(const struct px_counters_control *ctl)
{
	if (ctl->inherit)
		return px_fail(EINVAL,
			       "children's sums (inherit) need the perf backend: the module adds a child's counts to the thread's own");
	for (unsigned i = 0; i < PX_COUNTERS_MAX; i++)
		if (ctl->overflow[i])
			return px_fail(EINVAL, "interrupt mode needs the perf backend");
	return 0;
}

/* Every counter of c opened, its leader first. */
static int open_group(struct px_counters *c, int signo)
{
	struct counter *lead = &c->ctr[c->leader];
	int ret = open_counter(c, lead, -1, signo);

	for (unsigned i = 0; i < c->n && !ret; i++)
		if (i != c->leader)
			ret = open_counter(c, &c->ctr[i], lead->fd, signo);
	return ret;
}

PX_API int px_counters_control(struct px_counters *c, const struct px_counters_control *ctl)
{
	struct px_event *evs;
	uint64_t kept[PX_COUNTERS_MAX] = { 0 };
	size_t n;
	int module = 0, ret = parse_events(ctl, &evs, &n);
	char *events;

	if (ret)
		return ret;
	/* copied before the unlink frees the old copy: ctl may be the
	 * control px_counters_read_control() gave */
	if (!(events = strdup(ctl->events))) {
		free(evs);
		return px_fail(ENOMEM, "out of memory");
	}
	if ((ret = px_interrupt_check(ctl, (unsigned)n)) ||
	    (ret = module = px_counters_want_module(ctl)) < 0 ||
	    (module && (ret = module_can(ctl))) || (ret = kept_sums(c, ctl, evs, n, kept))) {
		free(evs);
		free(events);
		return ret;
	}
	px_counters_unlink(c);
	c->syscall_only = getenv("PX_COUNTERS_READ") && !strcmp(getenv("PX_COUNTERS_READ"), "syscall");
	c->n = (unsigned)n;
	c->leader = first_interrupt(ctl, c->n);
	for (unsigned i = 0; i < c->n; i++) {
		c->ctr[i].ev = evs[i];
		c->ctr[i].base = kept[i];
		c->ctr[i].overflow = ctl->overflow[i];
		c->ctr[i].fd = -1;
	}
	ret = module ? px_module_counters_open(&c->group, evs, c->n, c->tid) :
		       open_group(c, ctl->signo);
	if (!ret && ctl->inherit)
		ret = px_children_open(&c->children, evs, c->n, c->tid);
	if (!ret) {
		keep_control(c, ctl, module, events);
		events = NULL;
	}
	if (ret)
		px_counters_unlink(c);
	free(events);
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
		if (i != c->leader)
			release(&c->ctr[i]);
	if (c->n)
		release(&c->ctr[c->leader]);
	px_children_close(c->children);
	c->children = NULL;
	px_group_close(c->group);
	c->group = NULL;
	free((char *)c->control.events);
	memset(&c->control, 0, sizeof(c->control));
	c->n = 0;
	c->leader = 0;
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
