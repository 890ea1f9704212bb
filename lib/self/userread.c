#include "userread.h"

#if defined(__x86_64__)

static uint64_t read_cycles(void)
{
	uint32_t lo, hi;

	__asm__ volatile("rdtsc" : "=a"(lo), "=d"(hi));
	return lo | (uint64_t)hi << 32;
}

#elif defined(__aarch64__)

static uint64_t read_cycles(void)
{
	uint64_t v;

	__asm__ volatile("isb; mrs %0, cntvct_el0" : "=r"(v) : : "memory");
	return v;
}

#else

static uint64_t read_cycles(void)
{
	return 0;
}

#endif

/* The ns since the page's times were updated, from the cycle counter
 * (the page's conversion). */
uint64_t px_userread_time_delta(const volatile struct perf_event_mmap_page *pc)
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
	return PX_USERREAD_BUILT && page && px_read_page(page, true, value, enabled, running);
}
