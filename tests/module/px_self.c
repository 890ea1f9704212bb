/* px_self EVENTS PAGES [inherit]: libpx counting the calling thread on
 * the backend PX_COUNTERS_BACKEND names, over PAGES fresh pages touched,
 * twice (the second after a control that preserves counter 0), and
 * prints
 *
 *   count V0 V1 ...       after the first PAGES, stopped
 *   preserved V0 V1 ...   after the second PAGES
 *   value V0              counter 0 with px_counters_read_value
 *
 * "inherit" asks for children's sums.  An error prints "px_self: MSG" on
 * standard error and exits 1. */
#include <px_counters.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

static void touch(long n)
{
	long page = sysconf(_SC_PAGESIZE);
	char *mem = mmap(NULL, (size_t)(n * page), PROT_READ | PROT_WRITE,
			 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (mem == MAP_FAILED)
		return;
	for (long i = 0; i < n; i++)
		mem[i * page] = 1;
	munmap(mem, (size_t)(n * page));
}

static void print(struct px_counters *c, const char *what)
{
	struct px_counters_sums s;

	px_counters_read(c, &s);
	printf("%s", what);
	for (unsigned i = 0; i < s.n; i++)
		printf(" %llu", (unsigned long long)s.value[i]);
	printf("\n");
}

static int fail(void)
{
	fprintf(stderr, "px_self: %s\n", px_counters_error());
	return 1;
}

int main(int argc, char **argv)
{
	struct px_counters_control ctl = { .events = argc > 1 ? argv[1] : "page-faults" };
	long pages = argc > 2 ? atol(argv[2]) : 100;
	struct px_counters *c;
	uint64_t v;

	ctl.inherit = argc > 3 && !strcmp(argv[3], "inherit");
	touch(1);	/* the code and stack this uses, before */
	if (px_counters_open(&c) || px_counters_control(c, &ctl) || px_counters_start(c))
		return fail();
	touch(pages);
	if (px_counters_stop(c))
		return fail();
	print(c, "count");
	ctl.preserve = 1;
	if (px_counters_control(c, &ctl) || px_counters_start(c))
		return fail();
	touch(pages);
	if (px_counters_read_value(c, 0, &v) || px_counters_stop(c))
		return fail();
	print(c, "preserved");
	printf("value %llu\n", (unsigned long long)v);
	px_counters_close(c);
	return 0;
}
