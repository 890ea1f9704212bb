/*
 * nest N: main -> nest_a -> nest_b -> nest_leaf, the leaf running N turns
 * of a loop of three nops, so nearly every cycle of the run is spent in
 * nest_leaf under that one path.  Built static with frame pointers in
 * every function, leaves too, and no inlining (the Makefile), so a
 * frame-pointer walk gives the whole path on x86-64 and arm64 alike.
 */
#include <stdlib.h>

__attribute__((noinline)) void nest_leaf(long n)
{
	for (long i = 0; i < n; i++)
		__asm__ volatile("nop\n\tnop\n\tnop");
}

__attribute__((noinline)) void nest_b(long n)
{
	nest_leaf(n);
	__asm__ volatile("" ::: "memory");	/* no tail call */
}

__attribute__((noinline)) void nest_a(long n)
{
	nest_b(n);
	__asm__ volatile("" ::: "memory");
}

int main(int argc, char **argv)
{
	nest_a(argc > 1 ? atol(argv[1]) : 1000000);
	return 0;
}
