/* Spin N iterations with the frame pointer on a frame that points at
 * itself and returns to 0, as code built without frame pointers may
 * leave it: the kernel's frame-pointer walk of a sample taken there reads
 * return addresses of 0 until its depth limit.  The call-chain tests
 * check that such a chain ends at the first 0, marked cut.
 * Usage: fploop N */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

__attribute__((noinline)) static void spin(unsigned long n)
{
	/* next frame: this one; return address: 0 */
	volatile uint64_t frame[2];

	frame[0] = (uint64_t)(uintptr_t)frame;
	frame[1] = 0;
#if defined(__x86_64__)
	__asm__ volatile("mov %%rbp, %%r11\n\t"
			 "mov %1, %%rbp\n\t"
			 "1: dec %0\n\t"
			 "jnz 1b\n\t"
			 "mov %%r11, %%rbp"
			 : "+r"(n) : "r"(frame) : "r11", "memory", "cc");
#elif defined(__aarch64__)
	__asm__ volatile("mov x9, x29\n\t"
			 "mov x29, %1\n\t"
			 "1: subs %0, %0, #1\n\t"
			 "b.ne 1b\n\t"
			 "mov x29, x9"
			 : "+r"(n) : "r"(frame) : "x9", "memory", "cc");
#else
#error "fploop: no frame-pointer spin for this architecture"
#endif
}

int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 0;

	if (n <= 0) {
		fprintf(stderr, "usage: fploop N (N > 0)\n");
		return 2;
	}
	spin((unsigned long)n);
	return 0;
}
