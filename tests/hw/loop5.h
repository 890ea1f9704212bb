/* The hardware suite's measured loop: n turns of five instructions (three
 * nops, count down, branch back), and the same instructions around them
 * for every n, 0 included: the test for 0 is in the asm and the function
 * is never inlined, so a count differs from n = 0's by exactly 5 n. */
#ifndef PX_TESTS_HW_LOOP5_H
#define PX_TESTS_HW_LOOP5_H

static __attribute__((noinline)) void loop5(unsigned long n)
{
#if defined(__aarch64__)
	__asm__ volatile("cbz %0, 2f\n1: nop\n nop\n nop\n subs %0, %0, #1\n b.ne 1b\n2:" : "+r"(n) : : "cc");
#elif defined(__x86_64__)
	__asm__ volatile("test %0, %0\n jz 2f\n1: nop\n nop\n nop\n dec %0\n jnz 1b\n2:" : "+r"(n) : : "cc");
#endif
}

#endif
