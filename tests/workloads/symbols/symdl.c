/* libsymdl.so: dlopen'ed by symwork after it started. */
#include "symwork.h"

__attribute__((noinline)) long hot_dlopen(long n)
{
	volatile long acc = 0;

	for (long i = 0; i < n; i++)
		acc += i * 7 + (acc >> 5);
	sym_mark(SLOT_DLOPEN); /* MARK:dlopen */
	return acc;
}
