/* Take N page faults at a steady rate: write to the pages of a small
 * anonymous buffer one after the other and, each time the buffer has been
 * written through, drop its pages (MADV_DONTNEED) so that the next pass
 * faults again.  N minor page faults beyond the program's own start-up,
 * with little memory in use at any time and nothing left to free at exit.
 *
 * Built without the C library (static, its own _start, raw system calls):
 * a run is the loop from its first instruction.  A static glibc program
 * starts by probing the CPU (cpuid, which traps to the hypervisor on a
 * virtual machine): 0.4 ms with 26 faults here, against 530 faults a
 * millisecond in the loop, a slow start that falls in whichever event set
 * is active first and skews every multiplexed estimate by 1 to 2%.
 *
 * touch_pages gives the same count but ends by freeing every page it
 * touched: that teardown is CPU time without faults, which makes its
 * fault rate uneven, and so a poor reference for multiplexing estimates.
 * Usage: refault N [BUFFER_PAGES [BURN]] (default 64 pages, no burn):
 * with BURN, then burn CPU time without a fault, a workload whose fault
 * rate changes partway: BURN is milliseconds of its own CPU time, or
 * "P%" for P percent of the CPU time its faults took, a change at the
 * same point of the run however fast this machine takes faults. */
#include <asm/unistd.h>
#include <elf.h>
#include <linux/mman.h>
#include <linux/time.h>

static long sys(long nr, long a, long b, long c, long d, long e, long f)
{
#if defined(__x86_64__)
	register long r10 __asm__("r10") = d;
	register long r8 __asm__("r8") = e;
	register long r9 __asm__("r9") = f;
	long ret;

	__asm__ volatile("syscall"
			 : "=a"(ret)
			 : "a"(nr), "D"(a), "S"(b), "d"(c), "r"(r10), "r"(r8), "r"(r9)
			 : "rcx", "r11", "memory");
	return ret;
#elif defined(__aarch64__)
	register long x8 __asm__("x8") = nr;
	register long x0 __asm__("x0") = a;
	register long x1 __asm__("x1") = b;
	register long x2 __asm__("x2") = c;
	register long x3 __asm__("x3") = d;
	register long x4 __asm__("x4") = e;
	register long x5 __asm__("x5") = f;

	__asm__ volatile("svc 0"
			 : "+r"(x0)
			 : "r"(x8), "r"(x1), "r"(x2), "r"(x3), "r"(x4), "r"(x5)
			 : "memory");
	return x0;
#else
#error "refault: x86-64 and arm64 only"
#endif
}

static __attribute__((noreturn)) void quit(int status)
{
	for (;;)
		sys(__NR_exit_group, status, 0, 0, 0, 0, 0);
}

static void say(const char *s)
{
	long n = 0;

	while (s[n])
		n++;
	sys(__NR_write, 2, (long)s, n, 0, 0, 0);
}

static long cpu_ns(void)
{
	struct timespec ts;

	sys(__NR_clock_gettime, CLOCK_PROCESS_CPUTIME_ID, (long)&ts, 0, 0, 0, 0);
	return ts.tv_sec * 1000000000L + ts.tv_nsec;
}

/* A decimal number ending at the string's end or at *unit; -1 when it is
 * not one. */
static long number(const char *s, char unit)
{
	long v = 0;

	if (!*s)
		return -1;
	for (; *s >= '0' && *s <= '9'; s++)
		v = v * 10 + (*s - '0');
	if (*s && !(unit && *s == unit && !s[1]))
		return -1;
	return v;
}

static int ends_with(const char *s, char c)
{
	while (*s && s[1])
		s++;
	return *s == c;
}

/* The page size, from the auxiliary vector after the environment. */
static long page_size(char **envp)
{
	Elf64_auxv_t *a;

	while (*envp)
		envp++;
	for (a = (Elf64_auxv_t *)(envp + 1); a->a_type != AT_NULL; a++)
		if (a->a_type == AT_PAGESZ)
			return (long)a->a_un.a_val;
	return 4096;
}

static int refault(int argc, char **argv, char **envp)
{
	long n = argc > 1 ? number(argv[1], 0) : 1000;
	long pages = argc > 2 ? number(argv[2], 0) : 64;
	long burn = argc > 3 ? number(argv[3], '%') : 0;
	int burn_pct = argc > 3 && ends_with(argv[3], '%');
	long page = page_size(envp), len, start = cpu_ns(), end;
	volatile char *mem;

	if (n < 0 || pages < 1 || burn < 0) {
		say("usage: refault N [BUFFER_PAGES [BURN_MS or P%]]\n");
		return 2;
	}
	len = pages * page;
	mem = (volatile char *)sys(__NR_mmap, 0, len, PROT_READ | PROT_WRITE,
				   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if ((unsigned long)mem > -4096UL) {
		say("refault: mmap failed\n");
		return 1;
	}
	/* no transparent huge pages: they would fault 512 pages at once */
	sys(__NR_madvise, (long)mem, len, MADV_NOHUGEPAGE, 0, 0, 0);
	for (long i = 0; i < n; i++) {
		long p = i % pages;

		if (p == 0 && i > 0 && sys(__NR_madvise, (long)mem, len, MADV_DONTNEED, 0, 0, 0)) {
			say("refault: madvise failed\n");
			return 1;
		}
		mem[p * page] = 1;
	}
	burn = burn_pct ? (cpu_ns() - start) / 100 * burn : burn * 1000000L;
	for (end = cpu_ns() + burn; cpu_ns() < end;)
		;
	return 0;
}

/* The kernel's entry: argc, argv, NULL, envp, NULL, auxv on the stack. */
__attribute__((noreturn, used)) void refault_start(long *sp)
{
	int argc = (int)sp[0];
	char **argv = (char **)(sp + 1);

	quit(refault(argc, argv, argv + argc + 1));
}

#if defined(__x86_64__)
__asm__(".text\n.global _start\n_start:\n"
	"xor %rbp, %rbp\nmov %rsp, %rdi\nand $-16, %rsp\ncall refault_start\n");
#elif defined(__aarch64__)
__asm__(".text\n.global _start\n_start:\n"
	"mov x29, #0\nmov x30, #0\nmov x0, sp\nb refault_start\n");
#endif
