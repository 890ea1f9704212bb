/*
 * nest N: main -> nest_a -> nest_b -> nest_leaf, the leaf running N turns
 * of a loop of three nops, so nearly every cycle of the run is spent in
 * nest_leaf under that one path.
 * nest read N: the leaf reads 4096 bytes of /dev/zero into each of N
 * fresh pages with the read system call made in the leaf itself (no libc
 * wrapper between), so each read faults once, in the kernel, under the
 * leaf's path.
 * Built static with frame pointers in every function, leaves too, and no
 * inlining (the Makefile), so a frame-pointer walk gives the whole path
 * on x86-64 and arm64 alike.
 */
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>

static int zero_fd = -1;

/* read(zero_fd, p, 4096), the system call itself */
static inline long sys_read_page(void *p)
{
#if defined(__aarch64__)
	register long x0 __asm__("x0") = zero_fd;
	register long x1 __asm__("x1") = (long)p;
	register long x2 __asm__("x2") = 4096;
	register long x8 __asm__("x8") = SYS_read;

	__asm__ volatile("svc #0" : "+r"(x0) : "r"(x1), "r"(x2), "r"(x8) : "memory");
	return x0;
#elif defined(__x86_64__)
	long ret;

	__asm__ volatile("syscall" : "=a"(ret)
			 : "0"((long)SYS_read), "D"((long)zero_fd), "S"(p), "d"(4096L)
			 : "rcx", "r11", "memory");
	return ret;
#else
#error "nest: arm64 and x86-64 only"
#endif
}

__attribute__((noinline)) void nest_leaf(long n)
{
	void *p;

	if (zero_fd < 0) {
		for (long i = 0; i < n; i++)
			__asm__ volatile("nop\n\tnop\n\tnop");
		return;
	}
	for (long i = 0; i < n; i++) {
		p = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (p == MAP_FAILED || sys_read_page(p) != 4096)
			exit(1);
	}
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
	if (argc > 2 && !strcmp(argv[1], "read")) {
		zero_fd = open("/dev/zero", O_RDONLY);
		if (zero_fd < 0)
			return 1;
		argv++;
	}
	nest_a(argc > 1 ? atol(argv[1]) : 1000000);
	return 0;
}
