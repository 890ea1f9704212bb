/* Start K threads and K child processes that each touch N fresh pages,
 * and wait for all of them: per-thread and per-child counts are known.
 * Usage: family K N */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

static long pages;

static void *touch(void *arg)
{
	long page = sysconf(_SC_PAGESIZE);
	volatile char *mem = mmap(NULL, (size_t)pages * page, PROT_READ | PROT_WRITE,
				  MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	(void)arg;
	if (mem == MAP_FAILED)
		return (void *)1;
	madvise((void *)mem, (size_t)pages * page, MADV_NOHUGEPAGE);
	for (long i = 0; i < pages; i++)
		mem[i * page] = 1;
	return NULL;
}

int main(int argc, char **argv)
{
	long k = argc > 1 ? atol(argv[1]) : 2;
	pthread_t *threads;
	int failed = 0;

	pages = argc > 2 ? atol(argv[2]) : 1000;
	if (k < 1 || pages < 1) {
		fprintf(stderr, "usage: family K N\n");
		return 2;
	}
	/* no huge page anywhere in the process: madvise() comes after the
	 * mmap(), and meanwhile the new region can merge with a thread's
	 * stack that another thread faults a huge page into, which maps
	 * up to 512 of our pages before we touch them (kernels with THP
	 * "always", Debian's) */
	prctl(PR_SET_THP_DISABLE, 1, 0, 0, 0);
	threads = calloc((size_t)k, sizeof(*threads));
	for (long i = 0; i < k; i++)
		if (pthread_create(&threads[i], NULL, touch, NULL))
			return 1;
	for (long i = 0; i < k; i++) {
		void *ret;

		pthread_join(threads[i], &ret);
		failed |= ret != NULL;
	}
	for (long i = 0; i < k; i++) {
		pid_t pid = fork();

		if (pid == 0)
			_exit(touch(NULL) != NULL);
	}
	for (long i = 0; i < k; i++) {
		int st;

		if (wait(&st) < 0 || !WIFEXITED(st) || WEXITSTATUS(st))
			failed = 1;
	}
	free(threads);
	return failed;
}
