/* Park-Miller minimal standard generator, Carta's division-free form. */
#include "random.h"

#include <errno.h>

int px_random_seed(struct px_random *r, uint32_t seed)
{
	uint32_t s = seed % PX_RANDOM_MODULUS;

	if (!s)
		return -EINVAL;
	r->state = s;
	return 0;
}

/* 16807 * s is below 2^46; split it at bit 31: since 2^31 = 1 mod
 * (2^31 - 1), the high part is added back to the low part, and one
 * subtraction brings the sum into range. */
uint32_t px_random_step(uint32_t s)
{
	uint64_t p = 16807ull * s;
	uint64_t r = (p & PX_RANDOM_MODULUS) + (p >> 31);

	if (r >= PX_RANDOM_MODULUS)
		r -= PX_RANDOM_MODULUS;
	return (uint32_t)r;
}

uint32_t px_random_next(struct px_random *r)
{
	r->state = px_random_step(r->state);
	return r->state;
}

int px_random_check_mask(uint64_t mask)
{
	return mask > PX_RANDOM_MASK_MAX ? -EINVAL : 0;
}

uint64_t px_random_reset_value(struct px_random *r, uint64_t base,
			       uint64_t mask)
{
	return base + (px_random_next(r) & mask);
}
