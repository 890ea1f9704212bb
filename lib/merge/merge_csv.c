/* The CSV outputs of perfex and pfmon (lib/report/row.h, one header for
 * all), whatever separator they were written with: it is read off the
 * header, between its first two columns ("schema" and "record").  Fields
 * may be quoted as px_csv_field() quotes them. */
#include "merge.h"
#include "error.h"
#include "grow.h"
#include "row.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#define MAX_FIELDS 48

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
	if (!px_merge_whole(r, 0, PX_MERGE_ID_MAX) || !px_merge_whole(n, 1, PX_MERGE_ID_MAX) || r >= n)
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

/* The columns the reader needs, found in the header by name. */
enum col { C_SCHEMA, C_RECORD, C_UNIT, C_SET, C_NAME, C_VALUE, C_RAW, C_STATUS, C_RUNS,
	   C_MIN, C_MAX, C_POSITION, C_ROWS, C_SYMBOL, C_MODULE, NCOLS };

static const char *const col_names[NCOLS] = {
	"schema", "record", "unit", "set", "name", "value", "raw", "status", "runs",
	"min", "max", "position", "rows", "symbol", "module",
};

struct reader {
	struct csv c;
	int col[NCOLS];
	/* the last row; a sampling report; pfmon's counts per unit */
	bool elapsed, summary, units;
	size_t *shown;		/* per profile: the rows its profile_size announces */
};

static const char *cell(const struct reader *r, enum col k)
{
	return field(&r->c, r->col[k]);
}

static int header(struct reader *r)
{
	for (size_t k = 0; k < NCOLS; k++) {
		r->col[k] = column(&r->c, col_names[k]);
		if (r->col[k] < 0)
			return bad(&r->c, "no schema, record, name and value columns: not written by this version of perfex or pfmon");
	}
	return header_columns(&r->c);
}

/* A number cell that must be there. */
static int need(struct reader *r, enum col k, double *v, const char *what)
{
	return number(cell(r, k), v) ? 0 : bad(&r->c, what);
}

static int profile_size_row(struct reader *r, struct px_merge_input *in, long set)
{
	size_t cap = in->nprofs;
	double samples, rows, shown;
	int ret = need(r, C_VALUE, &samples, "a profile_size row without its samples") ?:
		  need(r, C_ROWS, &rows, "a profile_size row without its rows") ?:
		  need(r, C_POSITION, &shown, "a profile_size row without its last position");

	if (ret)
		return ret;
	if (!px_merge_whole(samples, 0, PX_MERGE_COUNT_MAX) ||
	    !px_merge_whole(rows, 0, PX_MERGE_COUNT_MAX) || !px_merge_whole(shown, 0, rows))
		return bad(&r->c, "a profile_size row whose samples, rows or last position are not counts");
	if (px_grow((void **)&r->shown, &cap, in->nprofs, 1, sizeof(*r->shown), in->nprofs + 1))
		return -ENOMEM;
	r->shown[in->nprofs] = (size_t)shown;
	return px_merge_add_prof(in, cell(r, C_NAME), set, (uint64_t)samples, (size_t)rows);
}

static int profile_row(struct reader *r, struct px_merge_input *in, long set)
{
	const char *event = cell(r, C_NAME);
	double samples;

	if (!number(cell(r, C_VALUE), &samples) || !cell(r, C_SYMBOL) || !cell(r, C_MODULE))
		return bad(&r->c, "a profile row without its samples, symbol and module");
	if (!px_merge_whole(samples, 0, PX_MERGE_COUNT_MAX))
		return bad(&r->c, "a profile row whose samples are not a count");
	if (!in->nprofs || strcmp(in->profs[in->nprofs - 1].event, event) ||
	    in->profs[in->nprofs - 1].set != set)
		return bad(&r->c, "a profile row without its profile_size row");
	return px_merge_add_row(in, cell(r, C_SYMBOL), cell(r, C_MODULE), (uint64_t)samples);
}

/* A number cell, NAN when empty or not a number. */
static double number_or_nan(struct reader *r, enum col k)
{
	double v;

	return number(cell(r, k), &v) ? v : NAN;
}

/* perfex --regions: a thread's calls of a region. */
static int region_row(struct reader *r, struct px_merge_input *in)
{
	const struct px_merge_region_row g = {
		.symbol = cell(r, C_SYMBOL), .name = cell(r, C_NAME), .status = cell(r, C_STATUS),
		.runs = number_or_nan(r, C_RUNS), .value = number_or_nan(r, C_VALUE),
		.min = number_or_nan(r, C_MIN), .max = number_or_nan(r, C_MAX),
	};
	const char *fault = px_merge_region_fault(&g);

	if (fault)
		return bad(&r->c, fault);
	return table_run(&r->c, in) ?: px_merge_add_region(in, &g);
}

static int count_row(struct reader *r, struct px_merge_input *in, double set)
{
	double v = 0;
	bool counted = number(cell(r, C_VALUE), &v);

	return table_run(&r->c, in) ?:
	       px_merge_add_event(in, cell(r, C_NAME), (long)set, counted, v);
}

static int samples_row(struct reader *r, struct px_merge_input *in, double set)
{
	double v;

	return need(r, C_RAW, &v, "a samples row without its samples") ?:
	       table_run(&r->c, in) ?:
	       px_merge_add_event(in, cell(r, C_NAME), (long)set, true, v);
}

/* One row: what pfmon-report merges is each aggregate count (count rows of
 * unit all), or a sampling report's samples rows and profiles (its summary
 * rows come first: the counts of its sampled events are not merged), and
 * perfex --regions' region rows. */
static int row(struct reader *r, struct px_merge_input *in)
{
	const char *record = cell(r, C_RECORD), *unit = cell(r, C_UNIT);
	double schema, set = 0;

	if (!number(cell(r, C_SCHEMA), &schema) || schema != PX_SCHEMA)
		return px_fail(EPROTO, "%s:%lu: schema %s: this pfmon-report reads schema %d (write the files again with this version)",
			       r->c.path, r->c.lineno, cell(r, C_SCHEMA) ?: "missing", PX_SCHEMA);
	if (!record || !cell(r, C_NAME))
		return bad(&r->c, "a row without its record and name");
	if (r->elapsed)
		return bad(&r->c, "a row after the elapsed row");
	if (*cell(r, C_SET) && (!number(cell(r, C_SET), &set) || !px_merge_whole(set, 0, PX_MERGE_ID_MAX)))
		return bad(&r->c, "a set that is not a set's number");
	if (!strcmp(record, "elapsed"))
		r->elapsed = true;
	else if (!strcmp(record, "summary"))
		r->summary = true;
	if (!strcmp(record, "count") && unit && (!strcmp(unit, "thread") || !strcmp(unit, "cpu")))
		r->units = true;
	else if (!strcmp(record, "count") && unit && !strcmp(unit, "all") && !r->summary)
		return count_row(r, in, set);
	else if (!strcmp(record, "samples"))
		return samples_row(r, in, set);
	else if (!strcmp(record, "profile_size"))
		return profile_size_row(r, in, (long)set);
	else if (!strcmp(record, "profile"))
		return profile_row(r, in, (long)set);
	else if (!strcmp(record, "region"))
		return region_row(r, in);
	return table_run(&r->c, in);
}

/* The separator: what stands between the header's first two columns. */
static int find_sep(struct csv *c, const char *line)
{
	const char *b;

	if (strncmp(line, "schema", 6) || !(b = strstr(line + 7, "record")))
		return px_fail(EPROTO, "%s: not a JSON or CSV output of perfex or pfmon of schema %d (a text report? write --json or -x , to merge)",
			       c->path, PX_SCHEMA);
	c->seplen = (size_t)(b - line - 6);
	c->sep = strndup(line + 6, c->seplen);
	return c->sep ? 0 : -ENOMEM;
}

/* What the rows said the file is, and whether it is whole: every CSV ends
 * with its elapsed row. */
static int finish(struct reader *r, struct px_merge_input *in)
{
	const char *path = r->c.path;

	/* perfex counts its command as a whole: no thread or CPU rows */
	in->kind = r->summary ? PX_MERGE_SAMPLING : r->units ? PX_MERGE_PFMON :
							       PX_MERGE_PERFEX;
	if (!r->elapsed)
		return px_fail(EPROTO, "%s: truncated: no elapsed row at the end", path);
	if (!in->nevents)
		return px_fail(EPROTO, "%s: no %s rows", path,
			       in->kind == PX_MERGE_SAMPLING ? "samples" : "aggregate count (unit all)");
	for (size_t i = 0; i < in->nprofs; i++)
		if (in->profs[i].listed != r->shown[i])
			return px_fail(EPROTO, "%s: truncated: the profile of %s lists %zu of the %zu rows its profile_size row announces",
				       path, in->profs[i].event, in->profs[i].listed, r->shown[i]);
	if (!in->host)
		return px_fail(EPROTO, "%s: no rows with a valid rank, size and host", path);
	return 0;
}

int px_merge_read_csv(const char *path, char *text, struct px_merge_input *in)
{
	struct reader r = { .c = { .path = path } };
	char *line = text, *nl;
	int ret = find_sep(&r.c, text);

	for (; !ret && *line; line = nl + 1) {
		r.c.lineno++;
		nl = strchr(line, '\n');
		if (!nl) {
			ret = bad(&r.c, "truncated: the last line has no end");
			break;
		}
		*nl = '\0';
		if (nl > line && nl[-1] == '\r')
			nl[-1] = '\0';
		ret = split(&r.c, line);
		if (!ret)
			ret = r.c.lineno == 1 ? header(&r) : row(&r, in);
	}
	if (!ret)
		ret = finish(&r, in);
	free(r.shown);
	free((char *)r.c.sep);
	return ret == -ENOMEM ? px_fail(ENOMEM, "out of memory") : ret;
}
