/* libpx example: a program counts its own work (docs/libpx.md).
 *
 *   cc -o count_self count_self.c $(pkg-config --cflags --libs libpx)
 *   ./count_self [EVENTS [PAGES]]
 *
 * Counts EVENTS (default task-clock,page-faults) over touching PAGES
 * fresh pages (default 1000), prints each sum with the way it was read,
 * and exits 0; a failure prints libpx's message and exits 1. */
#include <px_counters.h>

#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

static const char *path_name(enum px_read_path p)
{
	return p == PX_READ_USER ? "user space" : p == PX_READ_SYSCALL ? "read(2)" : "-";
}

static int fail(const char *what)
{
	fprintf(stderr, "count_self: %s: %s\n", what, px_counters_error());
	return 1;
}

int main(int argc, char **argv)
{
	struct px_counters_control ctl = {
		.events = argc > 1 ? argv[1] : "task-clock,page-faults",
	};
	long pages = argc > 2 ? atol(argv[2]) : 1000, page = sysconf(_SC_PAGESIZE);
	struct px_counters *c;
	struct px_counters_sums s;
	char *mem;

	if (px_counters_open(&c))
		return fail("open");
	if (px_counters_control(c, &ctl))
		return fail("control");
	mem = mmap(NULL, (size_t)(pages * page), PROT_READ | PROT_WRITE,
		   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (mem == MAP_FAILED)
		return perror("count_self: mmap"), 1;
	if (px_counters_start(c))
		return fail("start");
	for (long i = 0; i < pages; i++)
		mem[i * page] = 1;
	if (px_counters_stop(c) || px_counters_read(c, &s))
		return fail("read");
	for (unsigned i = 0; i < s.n; i++)
		printf("%-24s %14llu  (read from %s)\n", px_counters_name(c, i),
		       (unsigned long long)s.value[i], path_name(px_counters_read_path(c, i)));
	px_counters_close(c);
	return 0;
}
