/* Fork K children that each touch N fresh pages, and wait for them:
 * tests that children are counted.  Usage: forker K N */
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

static void touch(long n)
{
	long page = sysconf(_SC_PAGESIZE);
	volatile char *mem = mmap(NULL, (size_t)n * page, PROT_READ | PROT_WRITE,
				  MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (mem == MAP_FAILED)
		_exit(1);
	madvise((void *)mem, (size_t)n * page, MADV_NOHUGEPAGE);
	for (long i = 0; i < n; i++)
		mem[i * page] = 1;
}

int main(int argc, char **argv)
{
	long k = argc > 1 ? atol(argv[1]) : 2;
	long n = argc > 2 ? atol(argv[2]) : 1000;
	int failed = 0;

	for (long i = 0; i < k; i++) {
		pid_t pid = fork();

		if (pid < 0) {
			perror("forker: fork");
			return 1;
		}
		if (pid == 0) {
			touch(n);
			_exit(0);
		}
	}
	for (long i = 0; i < k; i++) {
		int st;

		if (wait(&st) < 0 || !WIFEXITED(st) || WEXITSTATUS(st))
			failed = 1;
	}
	return failed;
}
