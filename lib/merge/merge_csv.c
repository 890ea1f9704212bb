/* The CSV outputs of perfex and pfmon (lib/report), whatever separator
 * they were written with: it is read off the first line, between its
 * first two words ("kind" and "name" for perfex, "unit" and "pid" for
 * pfmon's counts, "run" and "rank" for a sampling report).  Fields may be
 * quoted as px_csv_field() quotes them. */
#include "merge.h"
#include "error.h"
#include "grow.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#define MAX_FIELDS 32

struct csv {
	const char *path;
	const char *sep;
	size_t seplen;
	unsigned long lineno;
	char *fields[MAX_FIELDS];
	size_t n;
	int col_rank, col_size, col_host, col_job;	/* in a table's rows */
};

/* Split line (its end cut off) into c->fields, in place: quotes removed,
 * doubled quotes made single.  -EPROTO on an unterminated quote. */
static int split(struct csv *c, char *line)
{
	char *r = line, *w = line;

	c->n = 0;
	for (;;) {
		if (c->n == MAX_FIELDS)
			return px_fail(EPROTO, "%s:%lu: more than %d fields", c->path, c->lineno,
				       MAX_FIELDS);
		c->fields[c->n++] = w;
		if (*r == '"') {
			for (r++;; r++) {
				if (!*r)
					return px_fail(EPROTO, "%s:%lu: a quote that does not end",
						       c->path, c->lineno);
				if (*r == '"' && r[1] != '"')
					break;
				if (*r == '"')
					r++;
				*w++ = *r;
			}
			r++;
		} else {
			while (*r && strncmp(r, c->sep, c->seplen))
				*w++ = *r++;
		}
		if (!*r) {
			*w = '\0';
			return 0;
		}
		if (strncmp(r, c->sep, c->seplen))
			return px_fail(EPROTO, "%s:%lu: text after a quoted field", c->path, c->lineno);
		*w = '\0';
		r += c->seplen;
		/* w trails r after a quoted field: the next one is written
		 * where it starts */
		w = r;
	}
}

static const char *field(const struct csv *c, int i)
{
	return i >= 0 && (size_t)i < c->n ? c->fields[i] : NULL;
}

static int column(const struct csv *c, const char *name)
{
	for (size_t i = 0; i < c->n; i++)
		if (!strcmp(c->fields[i], name))
			return (int)i;
	return -1;
}

static int bad(const struct csv *c, const char *what)
{
	return px_fail(EPROTO, "%s:%lu: %s", c->path, c->lineno, what);
}

/* A number field: strict, whole. */
static bool number(const char *s, double *v)
{
	char *end;

	if (!s || !*s)
		return false;
	*v = strtod(s, &end);
	return !*end;
}

static int set_run(struct px_merge_input *in, const char *rank, const char *size,
		   const char *host, const char *job)
{
	double r, n;

	if (!number(rank, &r) || !number(size, &n) || !host)
		return -EPROTO;
	if (r < 0 || n < 1 || r >= n)
		return -EPROTO;
	if (in->host)	/* every row says it: the first one counts */
		return 0;
	in->rank = (long)r;
	in->size = (long)n;
	in->host = strdup(host);
	in->job = job && *job ? strdup(job) : NULL;
	return in->host ? 0 : -ENOMEM;
}

static int table_run(struct csv *c, struct px_merge_input *in)
{
	int ret = set_run(in, field(c, c->col_rank), field(c, c->col_size),
			  field(c, c->col_host), field(c, c->col_job));

	return ret == -EPROTO ? bad(c, "no valid rank, size and host in this row") : ret;
}

static int header_columns(struct csv *c)
{
	c->col_rank = column(c, "rank");
	c->col_size = column(c, "size");
	c->col_host = column(c, "host");
	c->col_job = column(c, "job");
	if (c->col_rank < 0 || c->col_size < 0 || c->col_host < 0 || c->col_job < 0)
		return bad(c, "no rank, size, host and job columns: not written by this version of perfex or pfmon (0.1.0 or later)");
	return 0;
}

/* perfex: kind,name,value,...; the rows of kind "event", and "elapsed"
 * last (a file without it was cut). */
static int perfex_row(struct csv *c, struct px_merge_input *in, bool *ended, int *cols)
{
	const char *kind = field(c, 0);
	double v = 0;

	if (*ended)
		return bad(c, "a row after the elapsed row");
	if (!strcmp(kind, "elapsed")) {
		*ended = true;
		return 0;
	}
	if (strcmp(kind, "event"))
		return 0;
	bool counted = number(field(c, cols[1]), &v);

	if (!field(c, cols[0]))
		return bad(c, "an event row without its name");
	return table_run(c, in) ?: px_merge_add_event(in, field(c, cols[0]), 0, counted, v);
}

/* pfmon counts: unit,pid,tid,cpu,set,event,value,...; the "all" rows. */
static int pfmon_row(struct csv *c, struct px_merge_input *in, int *cols)
{
	const char *unit = field(c, 0);
	double v = 0, set;

	if (strcmp(unit, "all"))	/* threads, CPUs, intervals */
		return 0;
	bool counted = number(field(c, cols[2]), &v);

	if (!field(c, cols[0]) || !number(field(c, cols[1]), &set))
		return bad(c, "an aggregate row without its event or set");
	return table_run(c, in) ?: px_merge_add_event(in, field(c, cols[0]), (long)set,
						   counted, v);
}

/* pfmon sampling: run,KEY,VALUE rows, then samples,EVENT,SET,RAW,...,
 * profile_size,EVENT,ROWS,SAMPLES,SHOWN and profile,EVENT,POS,COUNT,PCT,
 * NAME,MODULE,PROCESS rows (the others are not merged). */
static int sampling_row(struct csv *c, struct px_merge_input *in, char **run,
			size_t **shown)
{
	const char *kind = field(c, 0);
	double a, b, d;

	if (!strcmp(kind, "run") && c->n == 3) {
		static const char *const keys[] = { "rank", "size", "host", "job" };

		for (size_t k = 0; k < 4; k++)
			if (!strcmp(c->fields[1], keys[k]) && !run[k])
				return (run[k] = strdup(c->fields[2])) ? 0 : -ENOMEM;
		return 0;
	}
	if (!strcmp(kind, "samples")) {
		if (c->n < 4 || !number(c->fields[2], &a) || !number(c->fields[3], &b))
			return bad(c, "a samples row without its set and samples");
		return px_merge_add_event(in, c->fields[1], (long)a, true, b);
	}
	if (!strcmp(kind, "profile_size")) {
		size_t cap = in->nprofs;

		if (c->n < 5 || !number(c->fields[2], &a) || !number(c->fields[3], &b) ||
		    !number(c->fields[4], &d))
			return bad(c, "a profile_size row without its rows, samples and shown rows");
		if (px_grow((void **)shown, &cap, in->nprofs, 1, sizeof(**shown), in->nprofs + 1))
			return -ENOMEM;
		(*shown)[in->nprofs] = (size_t)d;
		return px_merge_add_prof(in, c->fields[1], (uint64_t)b, (size_t)a);
	}
	if (!strcmp(kind, "profile")) {
		if (c->n < 7 || !number(c->fields[3], &a))
			return bad(c, "a profile row without its samples, name and module");
		if (!in->nprofs || strcmp(in->profs[in->nprofs - 1].event, c->fields[1]))
			return bad(c, "a profile row without its profile_size row");
		return px_merge_add_row(in, c->fields[1], c->fields[5], c->fields[6], (uint64_t)a);
	}
	return 0;
}

/* The separator: what stands between the first line's first two words. */
static int find_sep(struct csv *c, const char *line, struct px_merge_input *in)
{
	static const struct { const char *a, *b; enum px_merge_kind k; } heads[] = {
		{ "kind", "name", PX_MERGE_PERFEX },
		{ "unit", "pid", PX_MERGE_PFMON },
		{ "run", "rank", PX_MERGE_SAMPLING },
	};

	for (size_t i = 0; i < 3; i++) {
		size_t la = strlen(heads[i].a);
		const char *b;

		if (strncmp(line, heads[i].a, la))
			continue;
		b = strstr(line + la + 1, heads[i].b);
		if (!b)
			continue;
		c->seplen = (size_t)(b - line - (long)la);
		c->sep = strndup(line + la, c->seplen);
		in->kind = heads[i].k;
		return c->sep ? 0 : -ENOMEM;
	}
	return px_fail(EPROTO, "%s: not a JSON or CSV output of perfex or pfmon (a text report? write --json or -x , to merge)",
		       c->path);
}

int px_merge_read_csv(const char *path, char *text, struct px_merge_input *in)
{
	struct csv c = { .path = path };
	char *run[4] = { 0 }, *line = text, *nl;
	size_t *shown = NULL;
	int cols[3] = { -1, -1, -1 }, ret = find_sep(&c, text, in);
	bool ended = false;

	for (; !ret && *line; line = nl + 1) {
		c.lineno++;
		nl = strchr(line, '\n');
		if (!nl) {
			ret = bad(&c, "truncated: the last line has no end");
			break;
		}
		*nl = '\0';
		if (nl > line && nl[-1] == '\r')
			nl[-1] = '\0';
		ret = split(&c, line);
		if (ret)
			break;
		if (c.lineno == 1 && in->kind != PX_MERGE_SAMPLING) {
			ret = header_columns(&c);
			cols[0] = column(&c, in->kind == PX_MERGE_PERFEX ? "name" : "event");
			cols[1] = column(&c, in->kind == PX_MERGE_PERFEX ? "value" : "set");
			cols[2] = column(&c, "value");
			continue;
		}
		ret = in->kind == PX_MERGE_PERFEX ? perfex_row(&c, in, &ended, cols) :
		      in->kind == PX_MERGE_PFMON ? pfmon_row(&c, in, cols) :
						   sampling_row(&c, in, run, &shown);
	}
	if (!ret && in->kind == PX_MERGE_PERFEX && !ended)
		ret = px_fail(EPROTO, "%s: truncated: no elapsed row at the end", path);
	if (!ret && in->kind == PX_MERGE_PFMON && !in->nevents)
		ret = px_fail(EPROTO, "%s: truncated: no aggregate (all) rows", path);
	if (!ret && in->kind == PX_MERGE_SAMPLING) {
		for (size_t i = 0; !ret && i < in->nprofs; i++)
			if (in->profs[i].listed != shown[i])
				ret = px_fail(EPROTO, "%s: truncated: the profile of %s lists %zu of the %zu rows its profile_size row announces",
					      path, in->profs[i].event, in->profs[i].listed, shown[i]);
		if (!ret && set_run(in, run[0], run[1], run[2], run[3]))
			ret = px_fail(EPROTO, "%s: no valid run,rank / size / host rows", path);
		if (!ret && !in->nevents)
			ret = px_fail(EPROTO, "%s: truncated: no samples rows", path);
	}
	for (size_t k = 0; k < 4; k++)
		free(run[k]);
	free(shown);
	free((char *)c.sep);
	return ret == -ENOMEM ? px_fail(ENOMEM, "out of memory") : ret;
}
