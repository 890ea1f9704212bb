/* Reading a counter from user space through its perf mmap page: the
 * page's seqlock, offset and times, and the hardware counter itself
 * (rdpmc on x86-64; the PMU's event or cycle counter on arm64 with
 * kernel.perf_user_access=1 and the event's config1 bit 1), as
 * include/linux/perf_event.h documents the page.  The read of the count
 * alone is inline here: it is the one a loop body pays for. */
#ifndef PX_USERREAD_H
#define PX_USERREAD_H

#include <linux/perf_event.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#if defined(__x86_64__)
#define PX_USERREAD_BUILT 1

static inline __attribute__((always_inline)) uint64_t px_read_pmc(uint32_t idx)
{
	uint32_t lo, hi;

	__asm__ volatile("rdpmc" : "=a"(lo), "=d"(hi) : "c"(idx));
	return lo | (uint64_t)hi << 32;
}

#elif defined(__aarch64__)
#define PX_USERREAD_BUILT 1

/* PMEVCNTR<n>_EL0 is a register per n: one read per case */
#define PX_EVCNTR(n)                                                        \
	case n:                                                          \
		__asm__ volatile("mrs %0, pmevcntr" #n "_el0" : "=r"(v)); \
		break

static inline __attribute__((always_inline)) uint64_t px_read_pmc(uint32_t idx)
{
	uint64_t v = 0;

	switch (idx) {
	PX_EVCNTR(0); PX_EVCNTR(1); PX_EVCNTR(2); PX_EVCNTR(3); PX_EVCNTR(4); PX_EVCNTR(5);
	PX_EVCNTR(6); PX_EVCNTR(7); PX_EVCNTR(8); PX_EVCNTR(9); PX_EVCNTR(10); PX_EVCNTR(11);
	PX_EVCNTR(12); PX_EVCNTR(13); PX_EVCNTR(14); PX_EVCNTR(15); PX_EVCNTR(16);
	PX_EVCNTR(17); PX_EVCNTR(18); PX_EVCNTR(19); PX_EVCNTR(20); PX_EVCNTR(21);
	PX_EVCNTR(22); PX_EVCNTR(23); PX_EVCNTR(24); PX_EVCNTR(25); PX_EVCNTR(26);
	PX_EVCNTR(27); PX_EVCNTR(28); PX_EVCNTR(29); PX_EVCNTR(30);
	case 31:	/* the cycle counter */
		__asm__ volatile("mrs %0, pmccntr_el0" : "=r"(v));
		break;
	}
	return v;
}

#else
#define PX_USERREAD_BUILT 0

static inline __attribute__((always_inline)) uint64_t px_read_pmc(uint32_t idx)
{
	(void)idx;
	return 0;
}

#endif

/* The ns since the page's times were updated (userread.c). */
uint64_t px_userread_time_delta(const volatile struct perf_event_mmap_page *pc);

/* The counter's value from its page's index: the hardware counter's
 * bits, sign-extended as the page's pmc_width says. */
static inline __attribute__((always_inline)) uint64_t
px_counter_value(const volatile struct perf_event_mmap_page *pc, uint32_t idx)
{
	unsigned width = pc->pmc_width;
	int64_t pmc = (int64_t)px_read_pmc(idx - 1);

	if (width && width < 64) {
		pmc = (int64_t)((uint64_t)pmc << (64 - width));
		pmc >>= 64 - width;
	}
	return (uint64_t)pmc;
}

/* The page's count now, and with times its enabled and running times
 * brought up to now, under the page's seqlock.  Inlined into each caller
 * with times constant: a read of the count alone skips the clock. */
static inline __attribute__((always_inline)) bool
px_read_page(const volatile struct perf_event_mmap_page *pc, bool times, uint64_t *value,
	     uint64_t *enabled, uint64_t *running)
{
	uint64_t count = 0, en = 0, run = 0, delta = 0;
	uint32_t seq, idx;
	bool ok;

	do {
		seq = pc->lock;
		__atomic_signal_fence(__ATOMIC_SEQ_CST);
		idx = pc->index;
		ok = pc->cap_user_rdpmc && idx && (!times || pc->cap_user_time);
		if (!ok)
			break;
		if (times) {
			en = pc->time_enabled;
			run = pc->time_running;
			delta = px_userread_time_delta(pc);
		}
		count = pc->offset + px_counter_value(pc, idx);
		__atomic_signal_fence(__ATOMIC_SEQ_CST);
	} while (pc->lock != seq);
	if (!ok)
		return false;
	*value = count;
	if (times) {
		*enabled = en + delta;
		*running = run + delta;
	}
	return true;
}

/* The count and times read(2) would give now, without a system call:
 * false when the page does not allow it (the event is not on a counter
 * now, user access is off, or no user time to bring the times up to
 * now), then the caller reads with read(2). */
bool px_userread(const struct perf_event_mmap_page *pc, uint64_t *value,
		 uint64_t *enabled, uint64_t *running);

/* The count alone, without the times: cheaper by the clock's reading. */
static inline __attribute__((always_inline)) bool
px_userread_value(const struct perf_event_mmap_page *page, uint64_t *value)
{
	return PX_USERREAD_BUILT && page && px_read_page(page, false, value, NULL, NULL);
}

#endif
