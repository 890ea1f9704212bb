/* selfread EVENT N: libpx counts EVENT over N turns of a loop of five
 * instructions (three nops, count down, branch back) in the calling
 * thread, and prints
 *
 *   path PATH          how the reads went: user (the mmap page and the
 *                      counter) or syscall (read(2))
 *   delta D            the count between two reads around the loop
 *   value_delta D      the same with px_counters_read_value (the count
 *                      alone)
 *
 * With PX_COUNTERS_READ=syscall every read is read(2).  Counts are of the
 * calling thread; at user level only (EVENT:u) D is 5 N plus the fixed
 * instructions of one read, exactly under qemu -icount. */
#include <px_counters.h>

#include "loop5.h"

#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
	struct px_counters_control ctl = { .events = argc > 1 ? argv[1] : "instructions:u" };
	unsigned long n = argc > 2 ? strtoul(argv[2], NULL, 10) : 0;
	struct px_counters_sums a, b;
	uint64_t va, vb;
	struct px_counters *k;

	if (px_counters_open(&k) || px_counters_control(k, &ctl) || px_counters_start(k) ||
	    px_counters_read(k, &a)) {
		fprintf(stderr, "selfread: %s\n", px_counters_error());
		return 1;
	}
	loop5(n);
	px_counters_read(k, &b);
	px_counters_read_value(k, 0, &va);
	loop5(n);
	px_counters_read_value(k, 0, &vb);
	printf("path %s\ndelta %llu\nvalue_delta %llu\n",
	       px_counters_read_path(k, 0) == PX_READ_USER ? "user" : "syscall",
	       (unsigned long long)(b.value[0] - a.value[0]), (unsigned long long)(vb - va));
	px_counters_close(k);
	return 0;
}
