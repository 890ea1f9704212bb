/* selfregion N CALLS: a program that marks a region, linked as programs
 * link libpx (pkg-config's flags, the shared library): region "loop" is
 * CALLS calls of a loop of five instructions turning N times.  Under
 * perfex --regions each call counts 5 N instructions plus the markers'
 * own; alone, the markers do nothing. */
#include <px_region.h>

#include <stdlib.h>

/* The loop's instructions are the same for every n but 5 n: the test for
 * 0 is in it, and it is never inlined (tests/hw/selfread.c). */
static __attribute__((noinline)) void loop(unsigned long n)
{
#if defined(__aarch64__)
	__asm__ volatile("cbz %0, 2f\n1: nop\n nop\n nop\n subs %0, %0, #1\n b.ne 1b\n2:" : "+r"(n) : : "cc");
#elif defined(__x86_64__)
	__asm__ volatile("test %0, %0\n jz 2f\n1: nop\n nop\n nop\n dec %0\n jnz 1b\n2:" : "+r"(n) : : "cc");
#endif
}

int main(int argc, char **argv)
{
	unsigned long n = argc > 1 ? strtoul(argv[1], NULL, 10) : 1000;
	int calls = argc > 2 ? atoi(argv[2]) : 10;

	for (int i = 0; i < calls; i++) {
		PX_REGION_BEGIN("loop");
		loop(n);
		PX_REGION_END("loop");
	}
	return 0;
}
