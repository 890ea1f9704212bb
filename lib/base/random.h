/* The perfmon2 pseudo-random generator for randomised sampling periods.
 *
 * Park and Miller's "minimal standard" Lehmer generator,
 * x' = 16807 * x mod (2^31 - 1), computed without division as D. F. Carta
 * showed (CACM 33(1), 1990).  Values are 31-bit, in [1, 2^31 - 2]; the
 * series is fully determined by the seed.  The kernel module uses the same
 * arithmetic, so both backends produce the same reset values.
 *
 * Reset values follow the spec: value = base + (random & mask), where the
 * generator is advanced before each use and base is the short or long
 * reset value (DESIGN.md, open question 12). */
#ifndef PX_RANDOM_H
#define PX_RANDOM_H

#include <stdint.h>

#define PX_RANDOM_MODULUS	0x7fffffffu	/* 2^31 - 1 */
#define PX_RANDOM_MASK_MAX	0x7fffffffu	/* masks are limited to 31 bits */

struct px_random {
	uint32_t state;		/* in [1, 2^31 - 2] once seeded */
};

/* Seed the generator.  A seed that is a multiple of 2^31 - 1 (0,
 * 0x7fffffff, 0xfffffffe) would make the generator stick at one value and
 * is rejected with -EINVAL; any other 32-bit seed is reduced modulo
 * 2^31 - 1, which is what the first step of Carta's method does anyway. */
int px_random_seed(struct px_random *r, uint32_t seed);

/* One step of the generator on a bare state: 16807 * s mod (2^31 - 1). */
uint32_t px_random_step(uint32_t s);

/* Advance the generator and return its new value. */
uint32_t px_random_next(struct px_random *r);

/* 0 when mask fits in 31 bits, else -EINVAL. */
int px_random_check_mask(uint64_t mask);

/* Advance, then return base + (value & mask) (64-bit wrap-around, as a
 * PMD value does).  mask must have passed px_random_check_mask(). */
uint64_t px_random_reset_value(struct px_random *r, uint64_t base,
			       uint64_t mask);

#endif
