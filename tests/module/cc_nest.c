/* cc_nest MODE N: the workload of the module suite's call-chain tests,
 * built static with frame pointers and without inlining
 * (scripts/vm/lib.sh).  main() calls nest_a(), which calls nest_b(),
 * which calls nest_leaf(), N times; each call of the leaf takes exactly
 * one page fault, on a fresh page of its own (but in mode sleep):
 *
 *   touch        the leaf writes the page: a fault in user mode
 *   read         the leaf reads 4096 bytes of /dev/zero into the page
 *                by a system call made in the leaf itself (no libc
 *                wrapper between): a fault in the kernel, in read()
 *   sleep        the leaf sleeps 1 ms by a system call made in the leaf
 *                (nanosleep()), again until it switched out: at least
 *                one context switch, no fault
 *   fp-zero      the leaf writes the page with %rbp = 0 (an outermost
 *                frame: the chain ends after the ip, not cut)
 *   fp-kernel    ... with %rbp a kernel address
 *   fp-odd       ... with %rbp not 8-aligned
 *   fp-low       ... with %rbp below the stack pointer (a global)
 *   fp-self      ... with %rbp pointing at a frame that links to itself
 *   fp-unmapped  ... with %rbp pointing at a frame that links to an
 *                unmapped address above the stack
 *   fp-kret      ... with %rbp pointing at an outermost frame (its link
 *                0) whose return address is a kernel address
 *
 * The fp- modes make the user frame-pointer chain garbage at the fault:
 * the kernel's walk must stop there (USER_CUT), not oops, not loop.
 * Exit status 0, 2 for a usage error, 3 when the set-up failed. */
#define _GNU_SOURCE		/* RUSAGE_THREAD */
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#define PAGE 4096UL

enum mode { TOUCH, READ, SLEEP, FP_ZERO, FP_KERNEL, FP_ODD, FP_LOW, FP_SELF,
	    FP_UNMAPPED, FP_KRET };

static const char *const names[] = {
	"touch", "read", "sleep", "fp-zero", "fp-kernel", "fp-odd", "fp-low",
	"fp-self", "fp-unmapped", "fp-kret",
};

static int zero_fd = -1;
static uint64_t unmapped;		/* an unmapped address above the stack */
static uint64_t low_frame[2];		/* a "frame" below the stack */

/* Write *p with %rbp = fp: the fault comes with that frame pointer. */
#define TOUCH_WITH_FP(p, fp)						\
	__asm__ volatile("mov %%rbp, %%r12\n\t"				\
			 "mov %[f], %%rbp\n\t"				\
			 "movb $1, (%[a])\n\t"				\
			 "mov %%r12, %%rbp"				\
			 : : [f] "r"(fp), [a] "r"(p) : "r12", "memory")

/* The thread's voluntary context switches so far. */
static long voluntary_switches(void)
{
	struct rusage ru;

	if (getrusage(RUSAGE_THREAD, &ru))
		_exit(3);
	return ru.ru_nvcsw;
}

__attribute__((noinline)) void nest_leaf(enum mode m, char *p)
{
	static const struct timespec ms = { 0, 1000000 };
	volatile uint64_t frame[4];
	long ret;

	/* a frame in the leaf's own stack frame, above the stack pointer */
	frame[0] = m == FP_SELF ? (uint64_t)(uintptr_t)frame :
		   m == FP_KRET ? 0 : unmapped;
	frame[1] = m == FP_KRET ? 0xffffffff81000000UL : 0x1234;
	switch (m) {
	case TOUCH:
		*(volatile char *)p = 1;
		break;
	case READ:
		__asm__ volatile("syscall"
				 : "=a"(ret)
				 : "0"((long)SYS_read), "D"((long)zero_fd),
				   "S"(p), "d"((long)PAGE)
				 : "rcx", "r11", "memory");
		if (ret != (long)PAGE)
			_exit(3);
		break;
	case SLEEP:
		/* until the thread has left its CPU: a sleep whose timer
		 * fires before the thread reaches schedule() (its virtual
		 * CPU not run by the host for that ms) returns without a
		 * context switch, and a run of 20 then made 19 (5 runs in
		 * 400 beside two CPU hogs) */
		for (long before = voluntary_switches();
		     voluntary_switches() == before;) {
			__asm__ volatile("syscall"
					 : "=a"(ret)
					 : "0"((long)SYS_nanosleep), "D"(&ms), "S"(0L)
					 : "rcx", "r11", "memory");
			if (ret)
				_exit(3);
		}
		break;
	case FP_ZERO:
		TOUCH_WITH_FP(p, 0UL);
		break;
	case FP_KERNEL:
		TOUCH_WITH_FP(p, 0xffffffff81000000UL);
		break;
	case FP_ODD:
		TOUCH_WITH_FP(p, (uintptr_t)frame + 3);
		break;
	case FP_LOW:
		TOUCH_WITH_FP(p, (uintptr_t)low_frame);
		break;
	case FP_SELF:
	case FP_UNMAPPED:
	case FP_KRET:
		TOUCH_WITH_FP(p, (uintptr_t)frame);
		break;
	}
	__asm__ volatile("" ::: "memory");	/* no tail call */
}

__attribute__((noinline)) void nest_b(enum mode m, char *p)
{
	nest_leaf(m, p);
	__asm__ volatile("" ::: "memory");
}

__attribute__((noinline)) void nest_a(enum mode m, char *p)
{
	nest_b(m, p);
	__asm__ volatile("" ::: "memory");
}

/* The first page at or above the stack's end that nothing maps. */
static uint64_t find_unmapped(void)
{
	char line[512];
	uint64_t end = 0, a;
	FILE *f = fopen("/proc/self/maps", "r");

	if (!f)
		return 0;
	while (fgets(line, sizeof(line), f)) {
		unsigned long lo, hi;

		if (strstr(line, "[stack]") && sscanf(line, "%lx-%lx", &lo, &hi) == 2)
			end = hi;
	}
	fclose(f);
	/* msync() of an unmapped page fails with ENOMEM */
	for (a = end; end && a < end + 4096 * PAGE; a += PAGE)
		if (msync((void *)(uintptr_t)a, PAGE, MS_ASYNC))
			return a;
	return end;
}

int main(int argc, char **argv)
{
	long n = argc > 2 ? atol(argv[2]) : 0;
	int m = -1;
	char *pages;

	for (int i = 0; argc > 1 && i < (int)(sizeof(names) / sizeof(names[0])); i++)
		if (!strcmp(argv[1], names[i]))
			m = i;
	if (m < 0 || n < 1 || n > 100000) {
		fprintf(stderr, "usage: cc_nest touch|read|sleep|fp-zero|fp-kernel|fp-odd|fp-low|fp-self|fp-unmapped|fp-kret N\n");
		return 2;
	}
	pages = mmap(NULL, (size_t)n * PAGE, PROT_READ | PROT_WRITE,
		     MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (pages == MAP_FAILED)
		return 3;
	/* one fault per page: no transparent huge page */
	madvise(pages, (size_t)n * PAGE, MADV_NOHUGEPAGE);
	if (m == READ && (zero_fd = open("/dev/zero", O_RDONLY)) < 0)
		return 3;
	if (m == FP_UNMAPPED && !(unmapped = find_unmapped()))
		return 3;
	low_frame[0] = (uint64_t)(uintptr_t)low_frame;
	for (long i = 0; i < n; i++)
		nest_a((enum mode)m, pages + i * PAGE);
	return 0;
}
