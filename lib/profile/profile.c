#include "profile.h"
#include "grow.h"
#include "hindex.h"
#include "error.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>

struct pkey {
	char *process;		/* "" outside a profile of processes */
	char *module;
	char *name;
	int line;
	char *label;		/* name, or "name:line" */
	uint64_t count;
};

/* A resolved location's key, found once by its strings, then by the
 * location's serial number (and process id): a sample costs one integer
 * hash lookup. */
struct locslot {
	uint64_t serial;	/* 0: free */
	uint64_t proc;		/* 0: none, else the process id + 1 */
	size_t key;
};

struct pevent {
	char *name;
	uint64_t total;
	struct pkey *keys;
	size_t n, cap;
	struct px_hindex index;	/* keys by their strings */
	struct locslot *locs;	/* open addressing on the serial, half full */
	size_t nlocs, lcap;
};

struct px_profile {
	enum px_profile_by by;
	struct pevent *ev;
	size_t nev, evcap;
	size_t last;		/* the event of the last sample */
};

static const char unknown[] = "??";

static uint64_t hash_key(const char *process, const char *module, const char *name,
			 int line)
{
	uint64_t h = 1469598103934665603ULL;

	for (const char *s = process; *s; s++)
		h = (h ^ (unsigned char)*s) * 1099511628211ULL;
	h = (h ^ 0xff) * 1099511628211ULL;
	for (const char *s = module; *s; s++)
		h = (h ^ (unsigned char)*s) * 1099511628211ULL;
	h = (h ^ 0xff) * 1099511628211ULL;
	for (const char *s = name; *s; s++)
		h = (h ^ (unsigned char)*s) * 1099511628211ULL;
	return (h ^ (uint64_t)(unsigned)line) * 1099511628211ULL;
}

/* Each key once: its option spelling and what reports call its rows. */
static const struct {
	const char *key, *name;
	enum px_profile_by by;
} profile_keys[] = {
	{ "function", "functions", PX_PROFILE_FUNCTIONS },
	{ "inlined", "inlined functions", PX_PROFILE_INLINED },
	{ "line", "lines", PX_PROFILE_LINES },
	{ "comm", "processes", PX_PROFILE_COMM },
	{ "pid", "process ids", PX_PROFILE_PID },
	{ "cpu", "cpus", PX_PROFILE_CPU },
};

#define NKEYS (sizeof(profile_keys) / sizeof(profile_keys[0]))

int px_profile_by_parse(const char *name, enum px_profile_by *by)
{
	for (size_t i = 0; i < NKEYS; i++)
		if (!strcmp(name, profile_keys[i].key)) {
			*by = profile_keys[i].by;
			return 0;
		}
	return px_fail(EINVAL, "--profile-by takes function, inlined, line, comm, pid or cpu, not '%s'", name);
}

const char *px_profile_by_name(enum px_profile_by by)
{
	for (size_t i = 0; i < NKEYS; i++)
		if (profile_keys[i].by == by)
			return profile_keys[i].name;
	return "functions";
}

int px_profile_new(struct px_profile **out, enum px_profile_by by)
{
	*out = calloc(1, sizeof(**out));
	if (!*out)
		return px_fail(ENOMEM, "profile: out of memory");
	(*out)->by = by;
	return 0;
}

void px_profile_free(struct px_profile *p)
{
	if (!p)
		return;
	for (size_t e = 0; e < p->nev; e++) {
		struct pevent *ev = &p->ev[e];

		for (size_t i = 0; i < ev->n; i++) {
			free(ev->keys[i].process);
			free(ev->keys[i].module);
			free(ev->keys[i].name);
			free(ev->keys[i].label);
		}
		free(ev->keys);
		px_hindex_free(&ev->index);
		free(ev->locs);
		free(ev->name);
	}
	free(p->ev);
	free(p);
}

static struct pevent *event_get(struct px_profile *p, const char *name)
{
	struct pevent *ev;

	/* most often, the same event as the last sample's */
	if (p->nev && !strcmp(p->ev[p->last].name, name))
		return &p->ev[p->last];
	/* a handful of events: a linear search beats hashing */
	for (size_t e = 0; e < p->nev; e++)
		if (!strcmp(p->ev[e].name, name)) {
			p->last = e;
			return &p->ev[e];
		}
	if (px_grow((void **)&p->ev, &p->evcap, p->nev, 1, sizeof(*ev), 4))
		return NULL;
	ev = &p->ev[p->nev];
	memset(ev, 0, sizeof(*ev));
	ev->name = strdup(name);
	if (!ev->name)
		return NULL;
	p->last = p->nev++;
	return ev;
}

static uint64_t key_hash_of(const void *arg, size_t i)
{
	const struct pkey *k = &((const struct pevent *)arg)->keys[i];

	return hash_key(k->process, k->module, k->name, k->line);
}

static int key_new(struct pevent *ev, const char *process, const char *module,
		   const char *name, int line, size_t slot)
{
	struct pkey *k;

	if (px_grow((void **)&ev->keys, &ev->cap, ev->n, 1, sizeof(*k), 64))
		return -ENOMEM;
	k = &ev->keys[ev->n];
	memset(k, 0, sizeof(*k));
	k->line = line;
	k->process = strdup(process);
	k->module = strdup(module);
	k->name = strdup(name);
	if (line)
		(void)!asprintf(&k->label, "%s:%d", name, line);
	else
		k->label = strdup(name);
	if (!k->process || !k->module || !k->name || !k->label) {
		free(k->process);
		free(k->module);
		free(k->name);
		free(k->label);
		return -ENOMEM;
	}
	ev->index.slot[slot] = ++ev->n;
	return 0;
}

/* The key of these exact strings, made when new; -1 without memory. */
static ssize_t key_find(struct pevent *ev, const char *process, const char *module,
			const char *name, int line)
{
	size_t j;

	if (px_hindex_reserve(&ev->index, ev->n, key_hash_of, ev))
		return -1;
	for (j = px_hindex_first(&ev->index, hash_key(process, module, name, line));
	     ev->index.slot[j]; j = px_hindex_next(&ev->index, j)) {
		struct pkey *k = &ev->keys[ev->index.slot[j] - 1];

		if (k->line == line && !strcmp(k->name, name) &&
		    !strcmp(k->module, module) && !strcmp(k->process, process))
			break;
	}
	if (!ev->index.slot[j] && key_new(ev, process, module, name, line, j))
		return -1;
	return (ssize_t)ev->index.slot[j] - 1;
}

/* The key (process, module, name, line) of ev, made when new, a missing
 * module or name counting as "??"; -1 without memory. */
static ssize_t key_get(struct pevent *ev, const char *process, const char *module,
		       const char *name, int line)
{
	if (!module || !*module)
		module = unknown;
	if (!name || !*name)
		name = unknown;
	return key_find(ev, process ? process : "", module, name, line);
}

int px_profile_add(struct px_profile *p, const char *event, const char *module,
		   const char *name, int line, uint64_t count)
{
	struct pevent *ev = event_get(p, event ? event : unknown);
	ssize_t k = ev ? key_get(ev, NULL, module, name, line) : -1;

	if (k < 0)
		return px_fail(ENOMEM, "profile: out of memory");
	ev->keys[k].count += count;
	ev->total += count;
	return 0;
}

static uint64_t hash_serial(uint64_t x, uint64_t proc)
{
	x ^= proc * 0x9e3779b97f4a7c15ULL;
	x ^= x >> 33;
	x *= 0xff51afd7ed558ccdULL;
	x ^= x >> 33;
	return x;
}

static int locs_grow(struct pevent *ev)
{
	size_t cap = ev->lcap ? ev->lcap * 2 : 256;
	struct locslot *v = calloc(cap, sizeof(*v));

	if (!v)
		return -ENOMEM;
	for (size_t i = 0; i < ev->lcap; i++) {
		size_t j;

		if (!ev->locs[i].serial)
			continue;
		for (j = hash_serial(ev->locs[i].serial, ev->locs[i].proc) & (cap - 1);
		     v[j].serial;
		     j = (j + 1) & (cap - 1))
			;
		v[j] = ev->locs[i];
	}
	free(ev->locs);
	ev->locs = v;
	ev->lcap = cap;
	return 0;
}

/* The key a location counts under in this profile's mode. */
static ssize_t loc_key(const struct px_profile *p, struct pevent *ev,
		       const char *process, const struct px_location *loc)
{
	switch (p->by) {
	case PX_PROFILE_LINES:
		return key_get(ev, process, loc->module, loc->file, loc->line);
	case PX_PROFILE_INLINED:
		if (loc->n_inline)
			return key_get(ev, process, loc->module, loc->inlines[0].func, 0);
		/* fall through */
	default:
		return key_get(ev, process, loc->module, loc->func, 0);
	}
}

ssize_t px_profile_event_id(struct px_profile *p, const char *event)
{
	struct pevent *ev = event_get(p, event ? event : unknown);

	return ev ? ev - p->ev : px_fail(ENOMEM, "profile: out of memory");
}

int px_profile_add_location(struct px_profile *p, const char *event,
			    const struct px_location *loc, uint64_t count)
{
	ssize_t ev = px_profile_event_id(p, event);

	return ev < 0 ? (int)ev : px_profile_count(p, (size_t)ev, loc, count);
}

int px_profile_count_label(struct px_profile *p, size_t evno, const char *label,
			   uint64_t count)
{
	struct pevent *ev = evno < p->nev ? &p->ev[evno] : NULL;
	ssize_t k;

	if (!ev)
		return px_fail(EINVAL, "profile: no event number %zu", evno);
	k = key_find(ev, "", "", label, 0);
	if (k < 0)
		return px_fail(ENOMEM, "profile: out of memory");
	ev->keys[k].count += count;
	ev->total += count;
	return 0;
}

int px_profile_count(struct px_profile *p, size_t evno, const struct px_location *loc,
		     uint64_t count)
{
	return px_profile_count_in(p, evno, NULL, loc, count);
}

int px_profile_count_in(struct px_profile *p, size_t evno,
			const struct px_profile_proc *proc,
			const struct px_location *loc, uint64_t count)
{
	struct pevent *ev = evno < p->nev ? &p->ev[evno] : NULL;
	const char *process = proc ? proc->label : NULL;
	uint64_t pkey = proc ? (uint64_t)proc->id + 1 : 0;
	size_t j;
	ssize_t k;

	if (!ev)
		return px_fail(EINVAL, "profile: no event number %zu", evno);
	if (!loc->serial) {	/* not from a resolver: by its strings */
		k = loc_key(p, ev, process, loc);
		goto count;
	}
	if (ev->lcap)
		for (j = hash_serial(loc->serial, pkey) & (ev->lcap - 1); ev->locs[j].serial;
		     j = (j + 1) & (ev->lcap - 1))
			if (ev->locs[j].serial == loc->serial && ev->locs[j].proc == pkey) {
				k = (ssize_t)ev->locs[j].key;
				goto count;
			}
	k = loc_key(p, ev, process, loc);
	if (k < 0)
		goto count;
	if ((ev->nlocs + 1) * 2 > ev->lcap && locs_grow(ev))
		return px_fail(ENOMEM, "profile: out of memory");
	for (j = hash_serial(loc->serial, pkey) & (ev->lcap - 1); ev->locs[j].serial;
	     j = (j + 1) & (ev->lcap - 1))
		;
	ev->locs[j] = (struct locslot){ loc->serial, pkey, (size_t)k };
	ev->nlocs++;
count:
	if (k < 0)
		return px_fail(ENOMEM, "profile: out of memory");
	ev->keys[k].count += count;
	ev->total += count;
	return 0;
}

size_t px_profile_events(const struct px_profile *p)
{
	return p->nev;
}

const char *px_profile_event(const struct px_profile *p, size_t ev)
{
	return ev < p->nev ? p->ev[ev].name : NULL;
}

uint64_t px_profile_total(const struct px_profile *p, size_t ev)
{
	return ev < p->nev ? p->ev[ev].total : 0;
}

static int entry_cmp(const void *a, const void *b)
{
	const struct px_profile_entry *x = a, *y = b;
	int c;

	if (x->count != y->count)
		return x->count > y->count ? -1 : 1;
	c = strcmp(x->name, y->name);
	if (!c)
		c = strcmp(x->module, y->module);
	return c ? c : strcmp(x->process, y->process);
}

int px_profile_rank(const struct px_profile *p, size_t ev,
		    struct px_profile_entry **out, size_t *n)
{
	const struct pevent *e;
	struct px_profile_entry *v;

	*out = NULL;
	*n = 0;
	if (ev >= p->nev)
		return px_fail(EINVAL, "profile: no event number %zu", ev);
	e = &p->ev[ev];
	if (!e->n)
		return 0;
	v = malloc(e->n * sizeof(*v));
	if (!v)
		return px_fail(ENOMEM, "profile: out of memory");
	for (size_t i = 0; i < e->n; i++) {
		v[i].name = e->keys[i].label;
		v[i].module = e->keys[i].module;
		v[i].process = e->keys[i].process;
		v[i].count = e->keys[i].count;
		v[i].pct = e->total ? 100.0 * (double)e->keys[i].count / (double)e->total : 0;
	}
	qsort(v, e->n, sizeof(*v), entry_cmp);
	*out = v;
	*n = e->n;
	return 0;
}
