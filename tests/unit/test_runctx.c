/* The run's place in a parallel job: which launcher variables win, the
 * refusals, and the file name patterns. */
#include "tap.h"
#include "error.h"
#include "runctx.h"

#include <errno.h>
#include <stdlib.h>
#include <unistd.h>

static const char *const vars[] = {
	"OMPI_COMM_WORLD_RANK", "PMI_RANK", "SLURM_PROCID", "OMPI_COMM_WORLD_SIZE",
	"PMI_SIZE", "SLURM_NTASKS", "SLURM_JOB_ID", "OMPI_MCA_ess_base_jobid",
};

static void clear_env(void)
{
	for (size_t i = 0; i < sizeof(vars) / sizeof(vars[0]); i++)
		unsetenv(vars[i]);
}

static void precedence(void)
{
	struct px_runctx c;
	char host[256] = "";

	clear_env();
	gethostname(host, sizeof(host) - 1);
	is_int(px_runctx_read(&c), 0, "no launcher: read");
	ok(c.rank == 0 && c.size == 1 && !c.launched && !*c.job,
	   "no launcher: rank 0 of 1, not launched, no job");
	is_str(c.host, host, "the host is gethostname()'s");

	setenv("SLURM_PROCID", "5", 1);
	setenv("SLURM_NTASKS", "8", 1);
	setenv("SLURM_JOB_ID", "4242", 1);
	is_int(px_runctx_read(&c), 0, "Slurm: read");
	ok(c.rank == 5 && c.size == 8 && c.launched, "Slurm: rank 5 of 8");
	is_str(c.job, "4242", "Slurm: the job");

	setenv("PMI_RANK", "2", 1);
	setenv("PMI_SIZE", "4", 1);
	is_int(px_runctx_read(&c), 0, "PMI over Slurm: read");
	ok(c.rank == 2 && c.size == 4, "PMI_RANK and PMI_SIZE come before Slurm's");

	setenv("OMPI_COMM_WORLD_RANK", "3", 1);
	setenv("OMPI_COMM_WORLD_SIZE", "6", 1);
	setenv("OMPI_MCA_ess_base_jobid", "99", 1);
	is_int(px_runctx_read(&c), 0, "Open MPI first: read");
	ok(c.rank == 3 && c.size == 6, "Open MPI's variables come first");
	is_str(c.job, "4242", "SLURM_JOB_ID comes before Open MPI's job id");
	unsetenv("SLURM_JOB_ID");
	px_runctx_read(&c);
	is_str(c.job, "99", "Open MPI's job id without Slurm");
}

static void refusals(void)
{
	static const struct { int line; const char *var, *value, *msg; } rows[] = {
		{ ROW, "OMPI_COMM_WORLD_RANK", "x", "OMPI_COMM_WORLD_RANK=x is not a rank" },
		{ ROW, "OMPI_COMM_WORLD_RANK", "-1", "OMPI_COMM_WORLD_RANK=-1 is not a rank" },
		{ ROW, "OMPI_COMM_WORLD_RANK", "", "OMPI_COMM_WORLD_RANK= is not a rank" },
		{ ROW, "PMI_SIZE", "0", "PMI_SIZE=0 is not a positive number" },
		{ ROW, "SLURM_NTASKS", "4k", "SLURM_NTASKS=4k is not a positive number" },
		{ ROW, "SLURM_PROCID", "7", "rank 7 is not below the job's size 2" },
	};
	struct px_runctx c;

	for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		clear_env();
		setenv("SLURM_NTASKS", "2", 1);
		setenv(rows[i].var, rows[i].value, 1);
		is_int_at(rows[i].line, px_runctx_read(&c), -EINVAL, "%s=%s refused",
			  rows[i].var, rows[i].value);
		ok_at(rows[i].line, strstr(px_last_error(), rows[i].msg) != NULL,
		      "the message says so: %s", px_last_error());
	}
}

static void patterns(void)
{
	static const struct { int line; const char *in, *out, *err; } rows[] = {
		{ ROW, "counts.%r.json", "counts.3.json", NULL },
		{ ROW, "%h.%r.csv", "node7.3.csv", NULL },
		{ ROW, "run-%j-%p", "run-4242-1234", NULL },
		{ ROW, "100%%.txt", "100%.txt", NULL },
		{ ROW, "%%r", "%r", NULL },
		{ ROW, "plain", "plain", NULL },
		{ ROW, "", "", NULL },
		{ ROW, "a%", NULL, "a lone % at the end" },
		{ ROW, "a%x.json", NULL, "unknown %x" },
	};
	struct px_runctx c = { .rank = 3, .size = 4, .host = "node7", .job = "4242" };
	struct px_runctx nojob = { .rank = 0, .size = 1, .host = "h" };
	char *out = NULL;

	for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		int ret = px_path_expand(rows[i].in, &c, 1234, &out);

		if (rows[i].out) {
			is_int_at(rows[i].line, ret, 0, "'%s' expands", rows[i].in);
			is_str_at(rows[i].line, ret ? NULL : out, rows[i].out, "'%s'", rows[i].in);
			free(ret ? NULL : out);
		} else {
			is_int_at(rows[i].line, ret, -EINVAL, "'%s' refused", rows[i].in);
			ok_at(rows[i].line, strstr(px_last_error(), rows[i].err) != NULL,
			      "'%s': %s", rows[i].in, px_last_error());
		}
	}
	is_int(px_path_expand("x.%j", &nojob, 1, &out), -EINVAL, "%%j without a job refused");
	ok(strstr(px_last_error(), "no job id") != NULL, "%s", px_last_error());
}

int main(void)
{
	precedence();
	refusals();
	patterns();
	return done_testing();
}
