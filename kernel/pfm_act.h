/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The sums over a counter's set activations (pfarg_pmd.reg_act_*), apart
 * from the rest of the module so that tests/unit/test_pfm_act.c checks
 * the same arithmetic at its extremes.  In the kernel it takes its
 * helpers from the kernel's headers; a user-space includer defines u64,
 * U64_MAX, NSEC_PER_MSEC, div_u64(), check_add_overflow(),
 * check_mul_overflow(), mul_u64_u64_shr() and mul_u64_u64_div_u64()
 * first.
 */
#ifndef PFM_ACT_H
#define PFM_ACT_H

#ifdef __KERNEL__
#include <linux/limits.h>
#include <linux/math64.h>
#include <linux/overflow.h>
#include <linux/time64.h>
#include <linux/types.h>
#endif

/* Sums over a counter's set activations: ns ran, their squares in us^2,
 * counts, count^2 per ms ran; U64_MAX: overflowed. */
struct pfm_act {
	u64 time;
	u64 time2_us;
	u64 count;
	u64 count2_ms;
};

static inline void pfm_sat_add(u64 *sum, u64 v)
{
	if (check_add_overflow(*sum, v, sum))
		*sum = U64_MAX;
}

/* us^2, or U64_MAX when it does not fit (an activation of 71.6 minutes) */
static inline u64 pfm_act_time2_us(u64 time)
{
	u64 us = div_u64(time, 1000), sq;

	if (check_mul_overflow(us, us, &sq))
		return U64_MAX;
	return sq;
}

/*
 * count^2 per ms ran, count^2 * 10^6 / time, or U64_MAX when it does not
 * fit.  A quotient of a 128-bit product fits in 64 bits only when the
 * product's high word is below the divisor: checked before each
 * mul_u64_u64_div_u64(), as x86's divq raises a divide error otherwise
 * (2^44 events in 2^41 ns, 8 per ns, give 2^70).  count^2 / time first,
 * then its remainder's share, so that count * 10^6 need not fit either:
 * q * time + r = count^2 with r < time, and r * 10^6 / time < 10^6.
 * The remainder is taken modulo 2^64 (its true value is below time);
 * where mul_u64_u64_div_u64() is approximate (the generic version drops
 * low bits of large operands) an inconsistent one is left out.
 */
static inline u64 pfm_act_count2_ms(u64 count, u64 time)
{
	u64 q, r, sum;

	if (mul_u64_u64_shr(count, count, 64) >= time)
		return U64_MAX;
	q = mul_u64_u64_div_u64(count, count, time);
	r = count * count - q * time;
	if (check_mul_overflow(q, (u64)NSEC_PER_MSEC, &sum))
		return U64_MAX;
	if (r < time && check_add_overflow(sum, mul_u64_u64_div_u64(r, NSEC_PER_MSEC, time),
					   &sum))
		return U64_MAX;
	return sum;
}

/*
 * One activation into the sums: time ns ran, count counted.  count^2 /
 * time is kept per ms (x 10^6), so that a few thousand events in a few ms
 * keep their digits in an integer.  Every count goes into the count sum,
 * so that it is what the event counted in its set's turns (a sampling
 * PMD's value restarts at each overflow: this is its count); an
 * activation that ran no measurable time gives no rate.
 */
static inline void pfm_act_add(struct pfm_act *a, u64 count, u64 time)
{
	pfm_sat_add(&a->count, count);
	if (!time)
		return;
	pfm_sat_add(&a->time, time);
	pfm_sat_add(&a->time2_us, pfm_act_time2_us(time));
	pfm_sat_add(&a->count2_ms, pfm_act_count2_ms(count, time));
}

#endif
