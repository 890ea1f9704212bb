/* Reads a pfmon sample file (--smpl-outfile, text or JSON Lines) back with
 * the library's reader, px_smpl_file_read(): no front end reads these
 * files, so faults.bats builds this to check what a cut file gives.
 * Prints "N samples" and exits 0, or the reader's error and exits 1. */
#include "error.h"
#include "smpl_output.h"

#include <stdio.h>

static int count(void *arg, const struct px_sample *s)
{
	(void)s;
	++*(unsigned long *)arg;
	return 0;
}

int main(int argc, char **argv)
{
	unsigned long n = 0;

	if (argc != 2) {
		fprintf(stderr, "usage: smpl_read FILE\n");
		return 2;
	}
	if (px_smpl_file_read(argv[1], count, &n)) {
		fprintf(stderr, "smpl_read: %s\n", px_last_error());
		return 1;
	}
	printf("%lu samples\n", n);
	return 0;
}
