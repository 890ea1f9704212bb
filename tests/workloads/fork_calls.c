/* K children (fork, no exec) or K threads each call counted_function()
 * exactly N times; the first process calls it none: tests that sampling
 * follows children and threads, and that a forked child's samples resolve
 * through the mappings it inherited.  Built without PIE.
 * Usage: fork_calls fork|thread K N */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

volatile long sink;

__attribute__((noinline)) void counted_function(long i)
{
	sink += i;
}

static void *calls(void *arg)
{
	long n = (long)arg;

	for (long i = 0; i < n; i++)
		counted_function(i);
	return NULL;
}

int main(int argc, char **argv)
{
	long k = argc > 3 ? atol(argv[2]) : -1, n = argc > 3 ? atol(argv[3]) : -1;
	int threads = argc > 3 && !strcmp(argv[1], "thread");
	pthread_t tid[64];
	int st, bad = 0;

	if (argc != 4 || (!threads && strcmp(argv[1], "fork")) || k < 0 || k > 64 || n < 0) {
		fprintf(stderr, "usage: fork_calls fork|thread K N (K <= 64)\n");
		return 2;
	}
	for (long c = 0; c < k; c++) {
		if (threads) {
			if (pthread_create(&tid[c], NULL, calls, (void *)n))
				return 1;
			continue;
		}
		pid_t pid = fork();

		if (pid < 0)
			return 1;
		if (pid == 0) {
			calls((void *)n);
			_exit(0);
		}
		if (waitpid(pid, &st, 0) != pid || !WIFEXITED(st) || WEXITSTATUS(st))
			bad = 1;
	}
	for (long c = 0; threads && c < k; c++)
		pthread_join(tid[c], NULL);
	return bad;
}
