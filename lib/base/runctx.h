/* Where this run sits in a parallel job: its rank among the job's
 * processes, the job's size, the host and the job's id, read from what MPI
 * launchers and Slurm put in each process's environment.  Every output
 * records it, and output file names expand it (%r, %h, %p, %j, %%), so
 * each rank of `mpirun -np 4 perfex -o counts.%r.json` writes its own
 * file and pfmon-report can merge them. */
#ifndef PX_RUNCTX_H
#define PX_RUNCTX_H

#include <stdbool.h>
#include <stddef.h>

struct px_runctx {
	long rank;		/* 0 when no launcher says */
	long size;		/* 1 when no launcher says */
	bool launched;		/* a launcher's rank variable was set */
	char host[256];
	char job[64];		/* "" when there is no job */
};

/* The rank from OMPI_COMM_WORLD_RANK, PMI_RANK or SLURM_PROCID (the first
 * set), the size from OMPI_COMM_WORLD_SIZE, PMI_SIZE or SLURM_NTASKS, the
 * job from SLURM_JOB_ID or Open MPI's OMPI_MCA_ess_base_jobid.  A variable
 * that is set but not a number fails with -EINVAL, naming it. */
int px_runctx_read(struct px_runctx *c);

/* The context read once for the whole process (px_runctx_read's errors
 * are the front ends' to report first, with px_runctx_check()). */
const struct px_runctx *px_runctx(void);
int px_runctx_check(void);

/* Expand a file name pattern: %r rank, %h host, %p pid, %j job, %% a %.
 * An unknown %X, a lone % at the end or %j without a job fails with
 * -EINVAL and says which.  *out is malloc'ed. */
int px_path_expand(const char *pattern, const struct px_runctx *c, long pid,
		   char **out);

#endif
