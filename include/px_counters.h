/* libpx: a thread's own performance counters, perfctr's virtual
 * per-process counters (seed 000) in this project's names.
 *
 * A thread opens its counter state (px_counters_open), programs it with
 * events as perfex -e takes them (px_counters_control), starts and stops
 * it, reads its sums as often as it likes (px_counters_read) and unlinks
 * it.  Reads take no system call where the machine lets user space read
 * the counter (the perf mmap page's seqlock with rdpmc on x86-64, or the
 * PMU's event counter on arm64 with kernel.perf_user_access=1): the
 * result is what read(2) gives, and px_counters_read_path() says which
 * way each counter was read.  Software events and machines without user
 * access are read with read(2); so is every counter programmed while
 * PX_COUNTERS_READ=syscall is in the environment (to compare the two).
 *
 * Every function returns 0 or -errno; px_counters_error() gives the
 * calling thread's last message.  A px_counters is used by one thread at a
 * time.  Link with `pkg-config --libs libpx`. */
#ifndef PX_COUNTERS_H
#define PX_COUNTERS_H

#include <signal.h>
#include <stdint.h>
#include <sys/types.h>

#ifdef __cplusplus
extern "C" {
#endif

#define PX_COUNTERS_MAX 16	/* events one state counts */

struct px_counters;		/* one thread's counter state */

/* What to count: perfctr's control. */
struct px_counters_control {
	const char *events;	/* comma-separated, as perfex -e takes them */
	/* bit i set: counter i keeps its sum across this control when it
	 * counts the same event as before (perfctr's preserved sums);
	 * otherwise every sum starts again from 0 */
	uint32_t preserve;
	/* count the thread's children and threads started from now on too,
	 * each on counters of its own: their final counts are added up as
	 * they exit, apart from the thread's own sums
	 * (px_counters_read_children) */
	int inherit;
	/* interrupt mode: counter i with overflow[i] > 0 sends the thread
	 * signal signo each time it has counted overflow[i] more events, and
	 * counting is suspended until px_counters_resume() (the handler
	 * learns which counters overflowed with px_counters_overflowed()).
	 * Not with inherit. */
	int signo;
	uint64_t overflow[PX_COUNTERS_MAX];
	/* "perf" (perf_event_open, the default) or "module" (the perfmon
	 * module's /dev/perfmon: counting, preserved sums and reads with an
	 * ioctl; no interrupt mode, no children's sums); NULL: the
	 * environment's PX_COUNTERS_BACKEND, else perf */
	const char *backend;
};

/* The sums of a read: what read(2) of each counter gives. */
struct px_counters_sums {
	unsigned n;				/* counters */
	uint64_t value[PX_COUNTERS_MAX];	/* events counted */
	uint64_t enabled[PX_COUNTERS_MAX];	/* ns the counter was started */
	uint64_t running[PX_COUNTERS_MAX];	/* ns it was on the PMU */
};

/* How px_counters_read() read a counter the last time. */
enum px_read_path {
	PX_READ_NONE,		/* not read yet */
	PX_READ_USER,		/* in user space: mmap page and counter */
	PX_READ_SYSCALL,	/* read(2) */
};

/* Open a counter state for the calling thread (nothing counted yet). */
int px_counters_open(struct px_counters **c);

/* Open one for thread tid, which the caller has stopped (ptrace): its
 * counts are read with read(2). */
int px_counters_attach(struct px_counters **c, pid_t tid);

/* Program the events (stopped: px_counters_start() starts them). */
int px_counters_control(struct px_counters *c, const struct px_counters_control *ctl);

int px_counters_start(struct px_counters *c);
int px_counters_stop(struct px_counters *c);

/* The sums now; a stopped state reads the sums it stopped with.  Only
 * s->n and the first s->n entries are written. */
int px_counters_read(struct px_counters *c, struct px_counters_sums *s);

/* Counter i's count now, alone: value[i] of a px_counters_read(), at the
 * least cost (no times: perfctr's vperfctr_read_pmc).  The cheapest read
 * of a counter in a loop body. */
int px_counters_read_value(struct px_counters *c, unsigned i, uint64_t *value);

/* The control the state counts with now (perfctr's read of the control):
 * its events (a copy of c's, valid until the next control, unlink or
 * close), preserve, inherit, signo, overflow and the backend in use
 * ("perf" or "module"); all zero with nothing programmed. */
int px_counters_read_control(const struct px_counters *c, struct px_counters_control *ctl);

/* The summed final counts of the children and threads that ended since
 * the control (with ctl.inherit; all 0 without): perfctr's children's
 * sums.  A child that is still running is not in them. */
int px_counters_read_children(struct px_counters *c, struct px_counters_sums *s);

/* In the handler of the interrupt signal: the counters whose overflow
 * info reports (bit i: counter i), 0 when it reports none of c's.  It
 * makes sure counting is suspended (the kernel stopped the counter that
 * overflowed at the overflow, and the whole state with it when that is
 * the state's first interrupt-mode counter) and is async-signal-safe. */
uint32_t px_counters_overflowed(struct px_counters *c, const siginfo_t *info);

/* Resume counting after an overflow, re-arming the counters that
 * px_counters_overflowed() reported: each interrupts again after
 * overflow[i] more events. */
int px_counters_resume(struct px_counters *c);

/* Counter i's event as given, and the way it was read last. */
const char *px_counters_name(const struct px_counters *c, unsigned i);
enum px_read_path px_counters_read_path(const struct px_counters *c, unsigned i);

/* Stop and release the counters; the state can be programmed again. */
int px_counters_unlink(struct px_counters *c);

/* Unlink and free (NULL: nothing). */
void px_counters_close(struct px_counters *c);

/* The calling thread's last error message ("" when none). */
const char *px_counters_error(void);

/* The scaled value of counter i, as perf stat scales a multiplexed
 * count: value * enabled / running (value when it ran the whole time, 0
 * when it never ran). */
static inline double px_counters_scaled(const struct px_counters_sums *s, unsigned i)
{
	if (!s->running[i])
		return 0;
	return s->running[i] >= s->enabled[i] ? (double)s->value[i] :
	       (double)s->value[i] * (double)s->enabled[i] / (double)s->running[i];
}

#ifdef __cplusplus
}
#endif

#endif
