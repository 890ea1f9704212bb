/* Touch N fresh anonymous pages, one write each: N minor page faults
 * beyond the program's own start-up.  Usage: touch_pages N */
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 1000;
	long page = sysconf(_SC_PAGESIZE);
	volatile char *mem;

	if (n < 0) {
		fprintf(stderr, "usage: touch_pages N\n");
		return 2;
	}
	if (n == 0)
		return 0;
	mem = mmap(NULL, (size_t)n * page, PROT_READ | PROT_WRITE,
		   MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	if (mem == MAP_FAILED) {
		perror("touch_pages: mmap");
		return 1;
	}
	/* no transparent huge pages: they would fault 512 pages at once */
	madvise((void *)mem, (size_t)n * page, MADV_NOHUGEPAGE);
	for (long i = 0; i < n; i++)
		mem[i * page] = 1;
	return 0;
}
