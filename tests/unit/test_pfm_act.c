/*
 * perfmon.ko's sums over set activations (kernel/pfm_act.h) at their
 * extremes: an unprivileged instructions:u count of a busy loop runs at
 * about 8 events per ns, so 2^44 events come in 2^41 ns (37 minutes),
 * and an activation may last longer than the 71.6 minutes whose us^2
 * still fits in 64 bits.  The kernel's helpers are modelled as x86-64
 * runs them: mul_u64_u64_div_u64() is mulq then divq, which raises a
 * divide error (an oops in the kernel, with ctx->lock held) when the
 * quotient does not fit in 64 bits; here that is counted.
 */
#include "tap.h"

#include <stdint.h>

typedef uint64_t u64;
#define U64_MAX		UINT64_MAX
#define NSEC_PER_MSEC	1000000L
#define check_add_overflow(a, b, d)	__builtin_add_overflow(a, b, d)
#define check_mul_overflow(a, b, d)	__builtin_mul_overflow(a, b, d)

static int divide_errors;

static u64 div_u64(u64 a, uint32_t b)
{
	return a / b;
}

static u64 mul_u64_u64_shr(u64 a, u64 b, unsigned int shift)
{
	return (u64)(((unsigned __int128)a * b) >> shift);
}

/* x86-64's: mulq; divq (#DE when the quotient is 2^64 or more) */
static u64 mul_u64_u64_div_u64(u64 a, u64 mul, u64 div)
{
	unsigned __int128 q = (unsigned __int128)a * mul / div;

	if (q > U64_MAX) {
		divide_errors++;
		return 0;
	}
	return (u64)q;
}

#include "../../kernel/pfm_act.h"

#define NS_PER_MIN	(60ULL * 1000000000ULL)

/* count^2 * 10^6 / time, exactly, or U64_MAX when it does not fit */
static u64 want_count2_ms(u64 count, u64 time)
{
	unsigned __int128 q = (unsigned __int128)count * count * 1000000 / time;

	return q > U64_MAX ? U64_MAX : (u64)q;
}

static u64 want_time2_us(u64 time)
{
	unsigned __int128 us = time / 1000;

	return us * us > U64_MAX ? U64_MAX : (u64)(us * us);
}

int main(void)
{
	static const struct {
		int line;
		u64 count, time;
		const char *what;
	} rows[] = {
		{ ROW, 0, 1, "nothing counted in 1 ns" },
		{ ROW, 1, 1, "one event in one ns" },
		{ ROW, 5000, 3000000, "5,000 events in 3 ms" },
		{ ROW, 8ULL << 30, 1ULL << 30, "8 per ns for 1 s" },
		{ ROW, 8ULL * 280000000000ULL, 280000000000ULL,
		  "8 per ns for 280 s (fits)" },
		{ ROW, 8ULL * 290000000000ULL, 290000000000ULL,
		  "8 per ns for 290 s (the quotient passes 2^64)" },
		{ ROW, 1ULL << 44, 1ULL << 41, "2^44 events at 8 per ns" },
		{ ROW, 1ULL << 44, 1, "2^44 events in 1 ns" },
		{ ROW, U64_MAX / NSEC_PER_MSEC, 1, "the largest count whose x 10^6 fits" },
		{ ROW, U64_MAX / NSEC_PER_MSEC, U64_MAX, "... over the longest time" },
		{ ROW, U64_MAX / NSEC_PER_MSEC + 1, U64_MAX, "the smallest count whose x 10^6 does not" },
		{ ROW, U64_MAX, 72 * NS_PER_MIN, "U64_MAX events in 72 minutes" },
		{ ROW, 4294967295ULL, U64_MAX, "2^32 - 1 events over the longest time" },
		{ ROW, 1000, 71 * NS_PER_MIN, "an activation of 71 minutes" },
		{ ROW, 1000, 72 * NS_PER_MIN, "an activation of 72 minutes" },
		{ ROW, 1000, U64_MAX, "an activation of 2^64 - 1 ns" },
	};

	for (size_t i = 0; i < ARRAY_SIZE(rows); i++) {
		u64 count = rows[i].count, time = rows[i].time;
		struct pfm_act a = { 0 };
		int errors = divide_errors;

		pfm_act_add(&a, count, time);
		ok_at(rows[i].line, divide_errors == errors,
		      "%s: no divide error", rows[i].what);
		ok_at(rows[i].line, a.count2_ms == want_count2_ms(count, time),
		      "%s: count^2 per ms %llu, want %llu", rows[i].what,
		      (unsigned long long)a.count2_ms,
		      (unsigned long long)want_count2_ms(count, time));
		ok_at(rows[i].line, a.time2_us == want_time2_us(time),
		      "%s: us^2 %llu, want %llu", rows[i].what,
		      (unsigned long long)a.time2_us,
		      (unsigned long long)want_time2_us(time));
		ok_at(rows[i].line, a.count == count && a.time == time,
		      "%s: count and time summed", rows[i].what);
	}

	/* sums saturate at U64_MAX and stay there */
	{
		struct pfm_act a = { 0 };
		u64 t = 72 * NS_PER_MIN;

		pfm_act_add(&a, 1ULL << 44, 1ULL << 41);
		pfm_act_add(&a, 1ULL << 44, 1ULL << 41);
		ok(a.count2_ms == U64_MAX, "a saturated count^2 sum stays U64_MAX");
		pfm_act_add(&a, 100, 1000);
		ok(a.count2_ms == U64_MAX, "... after a small activation too");
		ok(a.count == (1ULL << 45) + 100, "the counts add up: %llu",
		   (unsigned long long)a.count);
		a = (struct pfm_act){ 0 };
		pfm_act_add(&a, 10, 30 * NS_PER_MIN);
		pfm_act_add(&a, 10, 30 * NS_PER_MIN);
		ok(a.time2_us == 2 * want_time2_us(30 * NS_PER_MIN),
		   "two 30-minute activations' us^2 add up");
		pfm_act_add(&a, 10, t);
		ok(a.time2_us == U64_MAX, "a 72-minute activation saturates us^2");
		a = (struct pfm_act){ .count = U64_MAX - 1 };
		pfm_act_add(&a, 5, 0);
		ok(a.count == U64_MAX && a.time == 0 && a.count2_ms == 0,
		   "a count sum saturates; no time, no rate");
	}
	ok(divide_errors == 0, "no divide error in all (%d)", divide_errors);
	return done_testing();
}
