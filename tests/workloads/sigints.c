/* Count the SIGINTs that reach this process: print "ready", wait for the
 * first, then give a second one 300 ms to arrive (a tool that passed the
 * terminal's Ctrl-C on would send it within that), print "SIGINT N" and
 * exit 0.  Exit 1 if none comes within 60 s.
 * Usage: sigints */
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static volatile sig_atomic_t count;

static void on_sigint(int sig)
{
	(void)sig;
	count++;
}

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

int main(void)
{
	struct sigaction sa;
	double start = now_s(), first = 0;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_sigint;
	sigaction(SIGINT, &sa, NULL);
	printf("ready\n");
	fflush(stdout);
	while (!count && now_s() - start < 60)
		usleep(1000);
	if (!count)
		return 1;
	first = now_s();
	while (now_s() - first < 0.3)
		usleep(1000);
	printf("SIGINT %d\n", (int)count);
	return 0;
}
