/* A workload with a known call tree, for call-graph tests and benchmarks.
 * Every sample of CPU time falls in leaf(), reached by five paths:
 *
 *   main -> a -> b -> leaf                     3 parts of the work
 *   main -> c -> leaf                          2 parts
 *   main -> lib_walk -> lib_step -> leaf       2 parts (libcgshared.so)
 *   main -> dl_walk -> leaf                    2 parts (libcgdl.so, dlopen)
 *   main -> d -> inl -> leaf                   1 part  (inl inlined in d)
 *
 * usage: cgmain [ROUNDS [UNITS]]: ROUNDS times (default 20) each path
 * with its parts of UNITS (default 2000000) units of work.  The directory
 * of the executable holds libcgdl.so. */
#include "cg.h"

#include <dlfcn.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static volatile unsigned long sink;

__attribute__((noinline)) static void store(unsigned long x)
{
	sink = x;
	CG_KEEP_FRAME();
}

/* It calls store() so that it is not a leaf to the compiler, which would
 * otherwise leave out its frame pointer whatever the options (GCC 12) */
__attribute__((noinline)) static void leaf(long units)
{
	unsigned long x = sink;

	for (long i = 0; i < units; i++)
		x = x * 6364136223846793005ul + 1442695040888963407ul;
	store(x);
	CG_KEEP_FRAME();
}

__attribute__((noinline)) static void b(long units)
{
	leaf(units);
	CG_KEEP_FRAME();
}

__attribute__((noinline)) static void a(long units)
{
	b(units);
	CG_KEEP_FRAME();
}

__attribute__((noinline)) static void c(long units)
{
	leaf(units);
	CG_KEEP_FRAME();
}

__attribute__((always_inline)) static inline void inl(long units)
{
	leaf(units);
	CG_KEEP_FRAME();
}

__attribute__((noinline)) static void d(long units)
{
	inl(units);
	CG_KEEP_FRAME();
}

static void (*load_dl_walk(const char *argv0))(cg_leaf_fn, long)
{
	char path[PATH_MAX], *slash;
	void *h, *fn;

	snprintf(path, sizeof(path), "%s", argv0);
	slash = strrchr(path, '/');
	snprintf(slash ? slash + 1 : path, sizeof(path) - (size_t)(slash ? slash + 1 - path : 0),
		 "libcgdl.so");
	h = dlopen(path, RTLD_NOW);
	if (!h || !(fn = dlsym(h, "dl_walk"))) {
		fprintf(stderr, "cgmain: cannot load %s: %s\n", path, dlerror());
		exit(1);
	}
	return (void (*)(cg_leaf_fn, long))fn;
}

int main(int argc, char **argv)
{
	long rounds = argc > 1 ? atol(argv[1]) : 20;
	long units = argc > 2 ? atol(argv[2]) : 2000000;
	void (*walk)(cg_leaf_fn, long) = load_dl_walk(argv[0]);

	for (long r = 0; r < rounds; r++) {
		a(3 * units);
		c(2 * units);
		lib_walk(leaf, 2 * units);
		walk(leaf, 2 * units);
		d(units);
	}
	CG_KEEP_FRAME();
	return 0;
}
