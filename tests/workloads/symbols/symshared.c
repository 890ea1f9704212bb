/* libsymshared.so: linked by symwork. */
#include "symwork.h"

uintptr_t sym_ips[NSLOTS];

/* The byte before the return address is inside the caller's call
 * instruction: the line (and inline scope) of the call. */
__attribute__((noinline)) void sym_mark(int slot)
{
	sym_ips[slot] = (uintptr_t)__builtin_return_address(0) - 1;
}

__attribute__((noinline)) long hot_shared(long n)
{
	volatile long acc = 0;

	for (long i = 0; i < n; i++)
		acc += i ^ (acc >> 3);
	sym_mark(SLOT_SHARED); /* MARK:shared */
	return acc;
}
