/* Reading one rank's output file: the file whole, its kind told from its
 * first bytes, and the arrays the JSON and CSV readers fill. */
#include "merge.h"
#include "error.h"
#include "grow.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char *px_merge_kind_name(enum px_merge_kind k)
{
	switch (k) {
	case PX_MERGE_PERFEX: return "perfex counts";
	case PX_MERGE_PFMON: return "pfmon counts";
	default: return "pfmon sampling report";
	}
}

/* The whole file, '\0'-terminated, in *text (malloc'ed). */
static int slurp(const char *path, char **text)
{
	FILE *f = fopen(path, "r");
	size_t len = 0, cap = 0;
	char *buf = NULL;
	int err = 0;

	if (!f)
		return px_fail(errno, "cannot open '%s': %s", path, strerror(errno));
	for (;;) {
		size_t n;

		if (px_grow((void **)&buf, &cap, len, 4097, 1, 8192)) {
			err = ENOMEM;
			break;
		}
		n = fread(buf + len, 1, cap - len - 1, f);
		len += n;
		if (n == 0) {
			err = ferror(f) ? errno : 0;
			break;
		}
	}
	fclose(f);
	if (err) {
		free(buf);
		return px_fail(err, "cannot read '%s': %s", path, strerror(err));
	}
	buf[len] = '\0';
	if (strlen(buf) != len) {
		free(buf);
		return px_fail(EPROTO, "%s: a NUL byte: not a pfmon or perfex output", path);
	}
	*text = buf;
	return 0;
}

int px_merge_read(const char *path, struct px_merge_input *in)
{
	char *text = NULL, *p;
	int ret;

	memset(in, 0, sizeof(*in));
	in->path = strdup(path);
	if (!in->path)
		return px_fail(ENOMEM, "out of memory");
	ret = slurp(path, &text);
	if (ret)
		return ret;
	p = text + strspn(text, " \t\r\n");
	if (!*p)
		ret = px_fail(EPROTO, "%s: empty file", path);
	else if (*p == '{')
		ret = px_merge_read_json(path, p, in);
	else if (px_merge_looks_folded(p))
		ret = px_merge_read_folded(path, p, in);
	else
		ret = px_merge_read_csv(path, p, in);
	free(text);
	return ret;
}

void px_merge_input_free(struct px_merge_input *in)
{
	for (size_t i = 0; i < in->nevents; i++)
		free(in->events[i].name);
	for (size_t i = 0; i < in->nprofs; i++)
		free(in->profs[i].event);
	for (size_t i = 0; i < in->nrows; i++) {
		free(in->rows[i].name);
		free(in->rows[i].module);
	}
	for (size_t i = 0; i < in->nregions; i++) {
		free(in->regions[i].symbol);
		free(in->regions[i].name);
	}
	free(in->events);
	free(in->profs);
	free(in->rows);
	free(in->regions);
	free(in->path);
	free(in->host);
	free(in->job);
	memset(in, 0, sizeof(*in));
}

/* The arrays grow by doubling; their capacity is their count rounded up
 * to a power of two (from 8), so it need not be stored. */
static size_t cap_of(size_t n)
{
	size_t c = 8;

	while (c < n)
		c *= 2;
	return n ? c : 0;
}

#define APPEND(arr, n) \
	({ size_t cap_ = cap_of(n); \
	   px_grow((void **)&(arr), &cap_, (n), 1, sizeof(*(arr)), 8) ? NULL : &(arr)[(n)++]; })

int px_merge_add_event(struct px_merge_input *in, const char *name, long set,
		       bool counted, double value)
{
	struct px_merge_event *e = APPEND(in->events, in->nevents);

	if (!e)
		return -ENOMEM;
	e->name = strdup(name);
	if (!e->name) {
		in->nevents--;
		return px_fail(ENOMEM, "out of memory");
	}
	e->set = set;
	e->counted = counted;
	e->value = counted ? value : 0;
	return 0;
}

bool px_merge_whole(double v, double min, double max)
{
	return v >= min && v <= max && v == floor(v);
}

int px_merge_add_prof(struct px_merge_input *in, const char *event, long set,
		      uint64_t samples, size_t rows)
{
	struct px_merge_prof *p = APPEND(in->profs, in->nprofs);

	if (!p)
		return -ENOMEM;
	*p = (struct px_merge_prof){ .event = strdup(event), .set = set, .samples = samples,
				     .rows = rows };
	if (!p->event) {
		in->nprofs--;
		return px_fail(ENOMEM, "out of memory");
	}
	return 0;
}

int px_merge_add_row(struct px_merge_input *in, const char *name, const char *module,
		     uint64_t samples)
{
	struct px_merge_row *r;

	if (!in->nprofs)
		return px_fail(EPROTO, "a profile row before its profile");
	r = APPEND(in->rows, in->nrows);
	if (!r)
		return -ENOMEM;
	*r = (struct px_merge_row){ in->nprofs - 1, strdup(name), strdup(module), samples };
	if (!r->name || !r->module) {
		free(r->name);
		free(r->module);
		in->nrows--;
		return px_fail(ENOMEM, "out of memory");
	}
	in->profs[in->nprofs - 1].listed++;
	return 0;
}

const char *px_merge_region_fault(const struct px_merge_region_row *r)
{
	if (!r->symbol || !*r->symbol || !r->name || !*r->name)
		return "a region row without its symbol (the region) and name (the event)";
	if (!isfinite(r->runs) || !isfinite(r->value) || !isfinite(r->min) || !isfinite(r->max))
		return "a region row without its runs (the calls), value, min and max";
	if (!px_merge_whole(r->runs, 1, PX_MERGE_COUNT_MAX))
		return "a region row whose runs (the calls) is not a whole number above 0";
	if (r->value < 0 || r->min < 0 || r->max < 0)
		return "a region row with a negative value, min or max";
	if (r->min > r->max)
		return "a region row whose min is above its max";
	/* libpx always has a value: a region's counters are read at every
	 * marker, and scaled when they were multiplexed meanwhile */
	if (!r->status || (strcmp(r->status, "counted") && strcmp(r->status, "scaled")))
		return "a region row whose status is neither counted nor scaled";
	return NULL;
}

int px_merge_add_region(struct px_merge_input *in, const struct px_merge_region_row *r)
{
	struct px_merge_region *g = APPEND(in->regions, in->nregions);

	if (!g)
		return -ENOMEM;
	*g = (struct px_merge_region){ .symbol = strdup(r->symbol), .name = strdup(r->name),
				       .scaled = !strcmp(r->status, "scaled"),
				       .calls = (uint64_t)r->runs, .sum = r->value, .min = r->min,
				       .max = r->max };
	if (!g->symbol || !g->name) {
		free(g->symbol);
		free(g->name);
		in->nregions--;
		return px_fail(ENOMEM, "out of memory");
	}
	return 0;
}

void px_merge_label(const char *name, long set, char *buf, size_t len)
{
	if (set > 0)
		snprintf(buf, len, "%s (set %ld)", name, set);
	else
		snprintf(buf, len, "%s", name);
}
