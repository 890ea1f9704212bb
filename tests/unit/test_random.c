/* The perfmon2 generator: published check value, determinism, ranges. */
#include "tap.h"
#include "random.h"

#include <errno.h>
#include <stdint.h>

/* the generator by its definition, with a division */
static uint32_t lehmer(uint32_t s)
{
	return (uint32_t)((16807ull * s) % 2147483647ull);
}

int main(void)
{
	static const uint32_t first[] = {
		16807, 282475249, 1622650073, 984943658, 1144108930,
	};
	static const struct { int line; uint32_t seed; int want; } seeds[] = {
		{ ROW, 0, -EINVAL },
		{ ROW, 0x7fffffff, -EINVAL },
		{ ROW, 0xfffffffe, -EINVAL },
		{ ROW, 1, 0 },
		{ ROW, 0x7ffffffe, 0 },
		{ ROW, 0x80000000, 0 },
		{ ROW, 0xffffffff, 0 },
	};
	struct px_random r, r2;
	uint32_t v = 0;
	int bad;

	is_int(px_random_seed(&r, 1), 0, "seed 1 accepted");
	for (size_t i = 0; i < ARRAY_SIZE(first); i++)
		is_int(px_random_next(&r), first[i], "value %zu from seed 1", i + 1);
	px_random_seed(&r, 1);
	for (int i = 0; i < 10000; i++)
		v = px_random_next(&r);
	is_int(v, 1043618065, "from seed 1 the 10,000th value is 1043618065");

	for (size_t i = 0; i < ARRAY_SIZE(seeds); i++)
		is_int_at(seeds[i].line, px_random_seed(&r, seeds[i].seed),
			  seeds[i].want, "seed 0x%x", seeds[i].seed);
	px_random_seed(&r, 0x80000000);
	is_int(px_random_next(&r), 16807, "seed 2^31 behaves like seed 1");

	/* Carta's form against the division, over a spread of states */
	bad = 0;
	for (uint64_t s = 1; s < 0x7fffffff; s += 104729)
		bad += px_random_step((uint32_t)s) != lehmer((uint32_t)s);
	bad += px_random_step(0x7ffffffe) != lehmer(0x7ffffffe);
	is_int(bad, 0, "Carta's method equals 16807 * s mod (2^31 - 1)");

	px_random_seed(&r, 12345);
	px_random_seed(&r2, 12345);
	bad = 0;
	for (int i = 0; i < 100000; i++)
		bad += px_random_next(&r) != px_random_next(&r2);
	is_int(bad, 0, "the same seed gives the same series");
	px_random_seed(&r2, 12346);
	bad = 0;
	for (int i = 0; i < 100; i++)
		bad += px_random_next(&r) == px_random_next(&r2);
	ok(bad < 5, "another seed gives another series");

	is_int(px_random_check_mask(0x7fffffff), 0, "31-bit mask accepted");
	is_int(px_random_check_mask(0x80000000), -EINVAL, "32-bit mask rejected");
	is_int(px_random_check_mask(~0ull), -EINVAL, "64-bit mask rejected");

	/* spec figure 3.4: base 0x100000, mask 0xff, random 0x1567fb */
	{
		/* find the state before 0x1567fb: s = 0x1567fb * 16807^-1 */
		uint64_t inv = 1, b = 16807, e = 2147483647ull - 2;
		while (e) {
			if (e & 1)
				inv = inv * b % 2147483647ull;
			b = b * b % 2147483647ull;
			e >>= 1;
		}
		r.state = (uint32_t)(0x1567fbull * inv % 2147483647ull);
		is_int(px_random_reset_value(&r, 0x100000, 0xff), 0x1000fb,
		       "spec figure 3.4: 0x100000 + (0x1567fb & 0xff) = 0x1000fb");
	}

	static const struct { int line; uint64_t base, mask; } ranges[] = {
		{ ROW, 0, 0xff },
		{ ROW, 1000, 0x3ff },
		{ ROW, (uint64_t)-100000, 0xfff },
		{ ROW, 1ull << 40, 0x7fffffff },
		{ ROW, 7, 0 },
	};
	for (size_t i = 0; i < ARRAY_SIZE(ranges); i++) {
		uint64_t lo = ranges[i].base, hi = ranges[i].base + ranges[i].mask;
		uint64_t seen_max = 0;

		px_random_seed(&r, 42 + (uint32_t)i);
		bad = 0;
		for (int k = 0; k < 20000; k++) {
			uint64_t x = px_random_reset_value(&r, lo, ranges[i].mask);

			bad += x < lo || x > hi;
			if (x - lo > seen_max)
				seen_max = x - lo;
		}
		is_int_at(ranges[i].line, bad, 0, "values in [base, base + 0x%llx]",
			  (unsigned long long)ranges[i].mask);
		ok_at(ranges[i].line, seen_max >= ranges[i].mask / 2,
		      "values spread over the mask 0x%llx",
		      (unsigned long long)ranges[i].mask);
	}
	return done_testing();
}
