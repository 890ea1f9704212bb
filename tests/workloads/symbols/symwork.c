/* symwork: the symbol-resolution workload.
 *
 *   symwork          print the run-time addresses of its hot functions and
 *                    of a marked line in each ("fn NAME 0x..", "ip TAG 0x.."),
 *                    and of __vdso_clock_gettime in its [vdso] ("fn vdso"),
 *                    then "ready"; on a line from stdin dlopen libsymdl.so
 *                    from its own directory, print its addresses and
 *                    "ready" again; exit at end of stdin.
 *   symwork spin N   spend about N ms in each hot function, round robin,
 *                    for sampling benchmarks.
 */
#include "symwork.h"

#include <dlfcn.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static inline __attribute__((always_inline)) long hot_inline(long n)
{
	volatile unsigned long acc = 1;	/* wraps: unsigned */

	for (long i = 0; i < n; i++)
		acc = acc * 3 + (unsigned long)i;
	sym_mark(SLOT_INLINE); /* MARK:inline */
	return (long)acc;
}

__attribute__((noinline)) long inline_caller(long n)
{
	long r = hot_inline(n); /* MARK:inline_call */

	return r + 1;
}

__attribute__((noinline)) long hot_main(long n)
{
	volatile long acc = 0;

	for (long i = 0; i < n; i++)
		acc += i % 13;
	sym_mark(SLOT_MAIN); /* MARK:main */
	return acc;
}

static long (*load_dl(void))(long)
{
	char dir[PATH_MAX], path[PATH_MAX + 16];
	ssize_t len = readlink("/proc/self/exe", dir, sizeof(dir) - 1);
	void *h;
	char *slash;

	if (len <= 0)
		return NULL;
	dir[len] = '\0';
	slash = strrchr(dir, '/');
	if (slash)
		*slash = '\0';
	snprintf(path, sizeof(path), "%s/libsymdl.so", dir);
	h = dlopen(path, RTLD_NOW);
	if (!h) {
		fprintf(stderr, "symwork: %s\n", dlerror());
		return NULL;
	}
	return (long (*)(long))dlsym(h, "hot_dlopen");
}

/* Not &hot_shared: in a fixed-address executable that is its PLT entry
 * (the canonical address), so ask the library itself. */
static void *shared_addr(void)
{
	void *h = dlopen("libsymshared.so", RTLD_NOW | RTLD_NOLOAD);

	return h ? dlsym(h, "hot_shared") : NULL;
}

/* The vdso's clock_gettime, as the dynamic loader sees the vdso. */
static void *vdso_addr(void)
{
	void *h = dlopen("linux-vdso.so.1", RTLD_LAZY | RTLD_NOLOAD);

	return h ? dlsym(h, "__vdso_clock_gettime") : NULL;
}

static double now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

static void spin(long (*fn)(long), double ms)
{
	double end = now_ms() + ms;

	while (now_ms() < end)
		fn(20000);
}

static int spin_mode(long ms)
{
	long (*dl)(long) = load_dl();

	if (!dl)
		return 1;
	for (int round = 0; round < 10; round++) {
		spin(hot_main, ms / 10.0);
		spin(hot_shared, ms / 10.0);
		spin(dl, ms / 10.0);
		spin(inline_caller, ms / 10.0);
	}
	return 0;
}

static int wait_line(void)
{
	char buf[64];

	return fgets(buf, sizeof(buf), stdin) ? 0 : -1;
}

int main(int argc, char **argv)
{
	long (*dl)(long);

	if (argc == 3 && !strcmp(argv[1], "spin"))
		return spin_mode(atol(argv[2]));
	hot_main(100);
	hot_shared(100);
	inline_caller(100);
	printf("fn hot_main %#lx\n", (unsigned long)(uintptr_t)hot_main);
	printf("fn hot_shared %#lx\n", (unsigned long)(uintptr_t)shared_addr());
	printf("fn inline_caller %#lx\n", (unsigned long)(uintptr_t)inline_caller);
	printf("fn vdso %#lx\n", (unsigned long)(uintptr_t)vdso_addr());
	printf("ip main %#lx\n", (unsigned long)sym_ips[SLOT_MAIN]);
	printf("ip shared %#lx\n", (unsigned long)sym_ips[SLOT_SHARED]);
	printf("ip inline %#lx\n", (unsigned long)sym_ips[SLOT_INLINE]);
	printf("ready\n");
	fflush(stdout);
	if (wait_line())
		return 0;
	dl = load_dl();
	if (!dl)
		return 1;
	dl(100);
	printf("fn hot_dlopen %#lx\n", (unsigned long)(uintptr_t)dl);
	printf("ip dlopen %#lx\n", (unsigned long)sym_ips[SLOT_DLOPEN]);
	printf("ready\n");
	fflush(stdout);
	while (!wait_line())
		;
	return 0;
}
