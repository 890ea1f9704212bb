/* A workload in stages that a test drives by events instead of by time.
 * Usage: stages FIFO STATUS STEP...
 * FIFO is a named pipe the test has made; each STEP, in order, is
 *   MS  burn MS milliseconds of the process's own CPU time,
 *   w   print "wait N" on standard output (N: 1 for the first w or s,
 *       2 for the next...), then block until a line arrives on FIFO,
 *   s   print "spin N", then burn CPU until a line arrives on FIFO,
 *   cN  call counted_function() exactly N times (a uprobe on it counts
 *       them; `nm` gives its address, the build has no PIE);
 * then exit with STATUS.  A test attaches a tool to it, or signals the
 * tool, once it has printed "wait N" or "spin N", then lets it go on by
 * writing a line to FIFO: the CPU time it spends between two such events
 * is known, however loaded the host is.  A system call of its own that a
 * tracer's stop disturbs (EINTR) is an error: it exits with status 3.
 * Exit status 2: usage or set-up error. */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static int fifo;

static double cpu_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

static void burn_10k(void)
{
	volatile unsigned long x = 0;

	for (int i = 0; i < 10000; i++)
		x += i;
}

volatile long sink;

__attribute__((noinline)) void counted_function(long i)
{
	sink += i;
}

static void fail(const char *what, int status)
{
	fprintf(stderr, "stages: %s: %s\n", what, strerror(errno));
	exit(status);
}

/* Take one byte of a line from FIFO, if there is one.  1: a whole line
 * has been read; 0: nothing more there now. */
static int take_line(void)
{
	char c;

	for (;;) {
		ssize_t n = read(fifo, &c, 1);

		if (n == 1 && c == '\n')
			return 1;
		if (n == 1)
			continue;
		if (n < 0 && errno == EAGAIN)
			return 0;
		fail("read from the FIFO", n < 0 && errno == EINTR ? 3 : 2);
	}
}

static void wait_line(void)
{
	struct pollfd p = { .fd = fifo, .events = POLLIN };

	while (!take_line())
		if (poll(&p, 1, -1) < 0)
			fail("poll on the FIFO", errno == EINTR ? 3 : 2);
}

static void spin_until_line(void)
{
	while (!take_line())
		burn_10k();
}

static void burn_ms(double ms)
{
	double start = cpu_ms();

	while (cpu_ms() - start < ms)
		burn_10k();
}

int main(int argc, char **argv)
{
	int pause = 0;

	if (argc < 3) {
		fprintf(stderr, "usage: stages FIFO STATUS STEP... (STEP: MS, w, s or cN)\n");
		return 2;
	}
	/* read and write: the open does not wait for a writer, and the
	 * FIFO never reads as ended between the test's lines */
	fifo = open(argv[1], O_RDWR | O_NONBLOCK);
	if (fifo < 0)
		fail(argv[1], 2);
	for (int i = 3; i < argc; i++) {
		const char *step = argv[i];

		if (!strcmp(step, "w") || !strcmp(step, "s")) {
			printf("%s %d\n", *step == 'w' ? "wait" : "spin", ++pause);
			fflush(stdout);
			if (*step == 'w')
				wait_line();
			else
				spin_until_line();
		} else if (*step == 'c') {
			char *end;
			long n = strtol(step + 1, &end, 10);

			if (end == step + 1 || *end || n < 0) {
				fprintf(stderr, "stages: bad step '%s': give cN\n", step);
				return 2;
			}
			for (long k = 0; k < n; k++)
				counted_function(k);
		} else {
			char *end;
			double ms = strtod(step, &end);

			if (end == step || *end || ms < 0) {
				fprintf(stderr, "stages: bad step '%s': give MS, w or s\n", step);
				return 2;
			}
			burn_ms(ms);
		}
	}
	return atoi(argv[2]);
}
