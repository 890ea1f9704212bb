/* libpx example: code-region markers in a threaded program (docs/libpx.md).
 *
 *   cc -DPX_REGIONS -o regions regions.c $(pkg-config --cflags --libs libpx) -lpthread
 *   perfex --regions -e task-clock,page-faults ./regions [PAGES [THREADS]]
 *
 * The main thread touches PAGES fresh pages (default 100) in region
 * "touch", once per call, 10 calls; each of THREADS threads (default 2)
 * does the same in region "worker".  Run alone, the markers do nothing. */
#include <px_region.h>

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

static long pages = 100;

/* Touch pages fresh pages: one page fault each. */
static int touch(void)
{
	long page = sysconf(_SC_PAGESIZE);
	char *mem = mmap(NULL, (size_t)(pages * page), PROT_READ | PROT_WRITE,
			 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (mem == MAP_FAILED)
		return -1;
	for (long i = 0; i < pages; i++)
		mem[i * page] = 1;
	return munmap(mem, (size_t)(pages * page));
}

static void *worker(void *arg)
{
	(void)arg;
	for (int i = 0; i < 10; i++) {
		PX_REGION_BEGIN("worker");
		touch();
		PX_REGION_END("worker");
	}
	return NULL;
}

int main(int argc, char **argv)
{
	int nthreads = argc > 2 ? atoi(argv[2]) : 2;
	pthread_t t[64];

	pages = argc > 1 ? atol(argv[1]) : 100;
	if (nthreads < 0 || nthreads > 64 || pages < 1) {
		fprintf(stderr, "usage: regions [PAGES [THREADS (0-64)]]\n");
		return 2;
	}
	for (int i = 0; i < 10; i++) {
		PX_REGION_BEGIN("touch");
		touch();
		PX_REGION_END("touch");
	}
	for (int i = 0; i < nthreads; i++)
		pthread_create(&t[i], NULL, worker, NULL);
	for (int i = 0; i < nthreads; i++)
		pthread_join(t[i], NULL);
	return 0;
}
