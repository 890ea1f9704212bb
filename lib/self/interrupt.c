/* Interrupt mode (perfctr's i-mode counters) on perf events: a counter
 * with a period sends the counted thread a signal of the caller's choice
 * at each overflow (the descriptor's owner and signal, O_ASYNC), and an
 * event limit of one overflow (PERF_EVENT_IOC_REFRESH) makes the kernel
 * stop the counter at that overflow.  The state's first interrupt-mode
 * counter leads the group, so its overflow stops every counter of the
 * state at once. */
#include "counters_state.h"
#include "api.h"
#include "error.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <unistd.h>

int px_interrupt_check(const struct px_counters_control *ctl, unsigned n)
{
	bool any = false;

	for (unsigned i = 0; i < PX_COUNTERS_MAX; i++) {
		if (!ctl->overflow[i])
			continue;
		if (i >= n)
			return px_fail(EINVAL, "overflow[%u] is set, but there are %u events", i, n);
		if (ctl->overflow[i] >> 63)
			return px_fail(EINVAL, "overflow[%u] = %llu: at most 2^63 - 1 events", i,
				       (unsigned long long)ctl->overflow[i]);
		any = true;
	}
	if (!any)
		return 0;
	if (ctl->inherit)
		return px_fail(EINVAL,
			       "interrupt mode and inherit together: an overflow in a child could not be resumed; use one or the other");
	if (ctl->signo <= 0 || ctl->signo >= NSIG || ctl->signo == SIGKILL || ctl->signo == SIGSTOP)
		return px_fail(EINVAL,
			       "interrupt mode needs a signal to send: ctl.signo %d is none (a real-time signal such as SIGRTMIN queues one per overflow)",
			       ctl->signo);
	return 0;
}

void px_interrupt_attr(const struct counter *k, struct perf_event_attr *a)
{
	if (!k->overflow)
		return;
	a->sample_period = k->overflow;
	a->wakeup_events = 1;
}

int px_interrupt_setup(const struct px_counters *c, const struct counter *k, int signo)
{
	struct f_owner_ex owner = {
		.type = F_OWNER_TID,
		.pid = c->tid ? c->tid : (pid_t)syscall(SYS_gettid),
	};
	int flags;

	if (!k->overflow)
		return 0;
	if (fcntl(k->fd, F_SETOWN_EX, &owner) || fcntl(k->fd, F_SETSIG, signo) ||
	    (flags = fcntl(k->fd, F_GETFL)) < 0 || fcntl(k->fd, F_SETFL, flags | O_ASYNC))
		return px_fail(errno, "interrupt mode for '%s': %s", k->ev.name, strerror(errno));
	return 0;
}

int px_interrupt_arm(struct px_counters *c, unsigned i)
{
	struct counter *k = &c->ctr[i];

	if (!k->overflow || k->armed)
		return 0;
	if (ioctl(k->fd, PERF_EVENT_IOC_REFRESH, 1))
		return px_fail(errno, "arm the overflow of '%s': %s", k->ev.name, strerror(errno));
	k->armed = true;
	return 1;
}

PX_API uint32_t px_counters_overflowed(struct px_counters *c, const siginfo_t *info)
{
	int saved = errno;	/* a signal handler leaves errno alone */
	uint32_t mask = 0;

	if (!c || !info || (info->si_code != POLL_HUP && info->si_code != POLL_IN))
		return 0;
	for (unsigned i = 0; i < c->n; i++) {
		struct counter *k = &c->ctr[i];

		if (!k->overflow || k->fd != info->si_fd)
			continue;
		mask |= 1u << i;
		/* POLL_HUP: the event limit ran out, the kernel stopped it */
		if (info->si_code == POLL_HUP)
			k->armed = false;
	}
	if (mask)
		ioctl(c->ctr[c->leader].fd, PERF_EVENT_IOC_DISABLE, 0);
	errno = saved;
	return mask;
}
