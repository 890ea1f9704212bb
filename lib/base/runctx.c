#include "runctx.h"
#include "error.h"
#include "grow.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const char *const rank_vars[] = { "OMPI_COMM_WORLD_RANK", "PMI_RANK", "SLURM_PROCID" };
static const char *const size_vars[] = { "OMPI_COMM_WORLD_SIZE", "PMI_SIZE", "SLURM_NTASKS" };
static const char *const job_vars[] = { "SLURM_JOB_ID", "OMPI_MCA_ess_base_jobid" };

/* The first of vars that is set: its value in *v (with min..LONG_MAX).
 * Returns 1 when one was set, 0 when none, -EINVAL when not a number. */
static int first_number(const char *const *vars, size_t n, long min, long *v)
{
	for (size_t i = 0; i < n; i++) {
		const char *s = getenv(vars[i]);
		char *end;

		if (!s)
			continue;
		errno = 0;
		*v = strtol(s, &end, 10);
		if (errno || end == s || *end || *v < min)
			return px_fail(EINVAL, "%s=%s is not a %s", vars[i], s,
				       min ? "positive number" : "rank (0 or more)");
		return 1;
	}
	return 0;
}

int px_runctx_read(struct px_runctx *c)
{
	int ret;

	memset(c, 0, sizeof(*c));
	c->size = 1;
	ret = first_number(rank_vars, 3, 0, &c->rank);
	if (ret < 0)
		return ret;
	c->launched = ret;
	ret = first_number(size_vars, 3, 1, &c->size);
	if (ret < 0)
		return ret;
	if (c->rank >= c->size)
		return px_fail(EINVAL, "rank %ld is not below the job's size %ld (check the launcher's variables: %s, %s)",
			       c->rank, c->size, rank_vars[0], size_vars[0]);
	if (gethostname(c->host, sizeof(c->host) - 1))
		snprintf(c->host, sizeof(c->host), "unknown");
	for (size_t i = 0; i < 2; i++) {
		const char *s = getenv(job_vars[i]);

		if (s && *s) {
			snprintf(c->job, sizeof(c->job), "%s", s);
			break;
		}
	}
	return 0;
}

static struct px_runctx ctx;
static int ctx_status = 1;	/* 1: not read yet */

int px_runctx_check(void)
{
	if (ctx_status == 1)
		ctx_status = px_runctx_read(&ctx);
	return ctx_status;
}

const struct px_runctx *px_runctx(void)
{
	px_runctx_check();
	return &ctx;
}

/* Append n bytes of s to the growing string buf (len bytes, cap). */
static int append(char **buf, size_t *len, size_t *cap, const char *s, size_t n)
{
	if (px_grow((void **)buf, cap, *len, n + 1, 1, 64))
		return -ENOMEM;
	memcpy(*buf + *len, s, n);
	*len += n;
	(*buf)[*len] = '\0';
	return 0;
}

/* The text of pattern's %c in *add (piece: room for a number), or fail. */
static int expansion(const char *pattern, char c, const struct px_runctx *ctx, long pid,
		     char *piece, size_t size, const char **add)
{
	*add = piece;
	switch (c) {
	case 'r': snprintf(piece, size, "%ld", ctx->rank); return 0;
	case 'p': snprintf(piece, size, "%ld", pid); return 0;
	case 'h': *add = ctx->host; return 0;
	case '%': *add = "%"; return 0;
	case 'j':
		*add = ctx->job;
		if (*ctx->job)
			return 0;
		return px_fail(EINVAL, "%s: %%j: this run has no job id (neither SLURM_JOB_ID nor Open MPI's OMPI_MCA_ess_base_jobid is set)",
			       pattern);
	case '\0':
		return px_fail(EINVAL, "%s: a lone %% at the end; write %%%% for a %% sign", pattern);
	default:
		return px_fail(EINVAL, "%s: unknown %%%c; file name patterns know %%r (rank), %%h (host), %%p (pid), %%j (job) and %%%%",
			       pattern, c);
	}
}

int px_path_expand(const char *pattern, const struct px_runctx *c, long pid, char **out)
{
	size_t len = 0, cap = 0;
	char *buf = NULL;
	int ret = append(&buf, &len, &cap, "", 0);

	for (const char *p = pattern; !ret && *p; p++) {
		char piece[32];
		const char *add = p;
		size_t n = 1;

		if (*p == '%') {
			ret = expansion(pattern, *++p, c, pid, piece, sizeof(piece), &add);
			if (ret)
				break;
			n = strlen(add);
		}
		ret = append(&buf, &len, &cap, add, n);
	}
	if (ret) {
		free(buf);
		return ret == -ENOMEM ? px_fail(ENOMEM, "out of memory") : ret;
	}
	*out = buf;
	return 0;
}
