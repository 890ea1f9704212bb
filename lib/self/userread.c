#include "userread.h"

#if defined(__x86_64__)

bool px_userread_built(void)
{
	return true;
}

static uint64_t read_pmc(uint32_t idx)
{
	uint32_t lo, hi;

	__asm__ volatile("rdpmc" : "=a"(lo), "=d"(hi) : "c"(idx));
	return lo | (uint64_t)hi << 32;
}

static uint64_t read_cycles(void)
{
	uint32_t lo, hi;

	__asm__ volatile("rdtsc" : "=a"(lo), "=d"(hi));
	return lo | (uint64_t)hi << 32;
}

#elif defined(__aarch64__)

bool px_userread_built(void)
{
	return true;
}

/* PMEVCNTR<n>_EL0 is a register per n: one read per case */
#define EVCNTR(n)                                                        \
	case n:                                                          \
		__asm__ volatile("mrs %0, pmevcntr" #n "_el0" : "=r"(v)); \
		break

static uint64_t read_pmc(uint32_t idx)
{
	uint64_t v = 0;

	switch (idx) {
	EVCNTR(0); EVCNTR(1); EVCNTR(2); EVCNTR(3); EVCNTR(4); EVCNTR(5);
	EVCNTR(6); EVCNTR(7); EVCNTR(8); EVCNTR(9); EVCNTR(10); EVCNTR(11);
	EVCNTR(12); EVCNTR(13); EVCNTR(14); EVCNTR(15); EVCNTR(16);
	EVCNTR(17); EVCNTR(18); EVCNTR(19); EVCNTR(20); EVCNTR(21);
	EVCNTR(22); EVCNTR(23); EVCNTR(24); EVCNTR(25); EVCNTR(26);
	EVCNTR(27); EVCNTR(28); EVCNTR(29); EVCNTR(30);
	case 31:	/* the cycle counter */
		__asm__ volatile("mrs %0, pmccntr_el0" : "=r"(v));
		break;
	}
	return v;
}

static uint64_t read_cycles(void)
{
	uint64_t v;

	__asm__ volatile("isb; mrs %0, cntvct_el0" : "=r"(v) : : "memory");
	return v;
}

#else

bool px_userread_built(void)
{
	return false;
}

static uint64_t read_pmc(uint32_t idx)
{
	(void)idx;
	return 0;
}

static uint64_t read_cycles(void)
{
	return 0;
}

#endif

/* The ns since the page's times were updated, from the cycle counter
 * (the page's conversion). */
static uint64_t time_delta(const volatile struct perf_event_mmap_page *pc)
{
	uint64_t cyc = read_cycles(), quot, rem;
	uint16_t shift = pc->time_shift;
	uint32_t mult = pc->time_mult;

	if (pc->cap_user_time_short)
		cyc = pc->time_cycles + ((cyc - pc->time_cycles) & pc->time_mask);
	quot = cyc >> shift;
	rem = cyc & (((uint64_t)1 << shift) - 1);
	return pc->time_offset + quot * mult + ((rem * mult) >> shift);
}

bool px_userread(const struct perf_event_mmap_page *page, uint64_t *value,
		 uint64_t *enabled, uint64_t *running)
{
	const volatile struct perf_event_mmap_page *pc = page;
	uint64_t count, en, run, delta;
	uint32_t seq, idx;
	bool ok;

	if (!px_userread_built() || !pc)
		return false;
	do {
		seq = pc->lock;
		__atomic_signal_fence(__ATOMIC_SEQ_CST);
		idx = pc->index;
		ok = pc->cap_user_rdpmc && pc->cap_user_time && idx;
		if (!ok)
			break;
		en = pc->time_enabled;
		run = pc->time_running;
		delta = time_delta(pc);
		count = pc->offset;
		{
			unsigned width = pc->pmc_width;
			int64_t pmc = (int64_t)read_pmc(idx - 1);

			/* the counter's bits, sign-extended as the page asks */
			if (width && width < 64) {
				pmc = (int64_t)((uint64_t)pmc << (64 - width));
				pmc >>= 64 - width;
			}
			count += (uint64_t)pmc;
		}
		__atomic_signal_fence(__ATOMIC_SEQ_CST);
	} while (pc->lock != seq);
	if (!ok)
		return false;
	*value = count;
	*enabled = en + delta;
	*running = run + delta;
	return true;
}
