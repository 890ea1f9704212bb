/* Reading one rank's output file: the file whole, its kind told from its
 * first bytes, and the arrays the JSON and CSV readers fill. */
#include "merge.h"
#include "error.h"
#include "grow.h"

#include <errno.h>
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
	free(in->events);
	free(in->profs);
	free(in->rows);
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

void px_merge_label(const char *name, long set, char *buf, size_t len)
{
	if (set > 0)
		snprintf(buf, len, "%s (set %ld)", name, set);
	else
		snprintf(buf, len, "%s", name);
}
