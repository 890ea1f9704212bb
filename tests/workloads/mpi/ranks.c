/* An MPI program whose ranks do known, unequal work, for the per-rank
 * tests: rank R touches (R+1)*PAGES fresh anonymous pages (one minor page
 * fault each) and then spends (R+1)*MS milliseconds of its own thread's
 * CPU time in rank_work().  So over N ranks the work of rank R is (R+1)
 * units, the most is N units (the last rank) and the mean (N+1)/2: the
 * imbalance (max/mean) is 2N/(N+1), 1.6 for 4 ranks, plus what MPI's own
 * start-up adds to every rank alike.
 *
 * Rank 0 broadcasts PAGES and MS (read from its arguments) before the
 * work; nothing is exchanged after it, so no rank spends the others' work
 * polling in MPI (MPI_Finalize waits without spinning).
 *
 * Usage: ranks PAGES MS.  Each rank prints one line:
 *   rank R of N: P pages, M ms
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <time.h>
#include <unistd.h>

static double thread_cpu_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

/* The rank-dependent function of the sampling tests: MS milliseconds of
 * this thread's CPU time, nearly all of it in this function's loop (the
 * clock is read once per 100000 iterations). */
static void rank_work(double ms)
{
	double start = thread_cpu_ms();
	volatile unsigned long x = 0;

	while (thread_cpu_ms() - start < ms)
		for (int i = 0; i < 100000; i++)
			x += i;
}

/* PAGES fresh pages, one write each: PAGES minor page faults. */
static int touch_pages(long pages)
{
	long page = sysconf(_SC_PAGESIZE);
	volatile char *mem;

	if (pages == 0)
		return 0;
	mem = mmap(NULL, (size_t)pages * page, PROT_READ | PROT_WRITE,
		   MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	if (mem == MAP_FAILED) {
		perror("ranks: mmap");
		return -1;
	}
	/* no transparent huge pages: they would fault 512 pages at once */
	madvise((void *)mem, (size_t)pages * page, MADV_NOHUGEPAGE);
	for (long i = 0; i < pages; i++)
		mem[i * page] = 1;
	munmap((void *)mem, (size_t)pages * page);
	return 0;
}

int main(int argc, char **argv)
{
	long param[2] = { 0, 0 };	/* PAGES, MS */
	int rank, size, rc = 0;

	/* no huge page anywhere: MPI_Init's threads fault their stacks,
	 * which a region not yet madvise()d can merge with (family.c) */
	prctl(PR_SET_THP_DISABLE, 1, 0, 0, 0);
	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	if (rank == 0) {
		if (argc == 3) {
			param[0] = atol(argv[1]);
			param[1] = atol(argv[2]);
		}
		if (argc != 3 || param[0] < 0 || param[1] < 0) {
			fprintf(stderr, "usage: ranks PAGES MS\n");
			param[0] = -1;
		}
	}
	MPI_Bcast(param, 2, MPI_LONG, 0, MPI_COMM_WORLD);
	if (param[0] < 0) {
		MPI_Finalize();
		return 2;
	}
	if (touch_pages((rank + 1) * param[0]) < 0)
		rc = 1;
	rank_work((double)(rank + 1) * param[1]);
	printf("rank %d of %d: %ld pages, %ld ms\n", rank, size,
	       (rank + 1) * param[0], (rank + 1) * param[1]);
	MPI_Finalize();
	return rc;
}
