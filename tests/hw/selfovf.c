/* selfovf EVENTS PERIOD N: libpx's interrupt mode on the calling thread.
 * Counter 0 (the first of EVENTS) signals every PERIOD events; the loop
 * of five instructions turns N times, twice, with a resume between:
 *
 *   first SIGNALS MASK V0 V1 ...   after the first loop: the signals so
 *                                  far, the counters they named (a
 *                                  mask) and each counter's sum
 *   second SIGNALS MASK V0 V1 ...  the same after the resume and the
 *                                  second loop
 *   signal CODE V0                 the first signal's si_code (POLL_HUP:
 *                                  the kernel stopped the counter) and
 *                                  counter 0 read in its handler
 *
 * With 5 N well past PERIOD, each loop ends suspended: counter 0 at
 * about PERIOD (then 2 PERIOD), the others where it stopped them all. */
#include <px_counters.h>

#include "loop5.h"

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>

static struct px_counters *state;
static volatile uint32_t mask;
static volatile int signals, first_code;
static volatile uint64_t first_value;

static void on_overflow(int sig, siginfo_t *info, void *uc)
{
	(void)sig;
	(void)uc;
	mask |= px_counters_overflowed(state, info);
	if (!signals++) {
		first_code = info->si_code;
		px_counters_read_value(state, 0, (uint64_t *)&first_value);
	}
}

static void print(const char *when)
{
	struct px_counters_sums s;

	px_counters_read(state, &s);
	printf("%s %d %u", when, signals, (unsigned)mask);
	for (unsigned i = 0; i < s.n; i++)
		printf(" %llu", (unsigned long long)s.value[i]);
	printf("\n");
}

int main(int argc, char **argv)
{
	struct px_counters_control ctl = {
		.events = argc > 1 ? argv[1] : "instructions:u",
		.signo = SIGRTMIN + 1,
	};
	struct sigaction sa = { .sa_sigaction = on_overflow, .sa_flags = SA_SIGINFO };
	unsigned long n = argc > 3 ? strtoul(argv[3], NULL, 10) : 100000;

	ctl.overflow[0] = argc > 2 ? strtoull(argv[2], NULL, 10) : 100000;
	sigaction(ctl.signo, &sa, NULL);
	if (px_counters_open(&state) || px_counters_control(state, &ctl) ||
	    px_counters_start(state)) {
		fprintf(stderr, "selfovf: %s\n", px_counters_error());
		return 1;
	}
	loop5(n);
	print("first");
	if (px_counters_resume(state)) {
		fprintf(stderr, "selfovf: %s\n", px_counters_error());
		return 1;
	}
	loop5(n);
	print("second");
	printf("signal %s %llu\n", first_code == POLL_HUP ? "POLL_HUP" : first_code == POLL_IN ? "POLL_IN" : "other",
	       (unsigned long long)first_value);
	px_counters_close(state);
	return 0;
}
