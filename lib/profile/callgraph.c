/* Call graphs: distinct stacks per event, interned frames (callgraph.h). */
#include "callgraph.h"
#include "error.h"
#include "grow.h"
#include "hindex.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

struct frame {
	char *name;
	char *module;
};

struct stack {
	uint32_t ev;
	uint32_t n;
	size_t off;		/* its frames in pool */
	uint64_t count;
};

struct px_cg {
	struct frame *frames;
	size_t nframes, fcap;
	struct px_hindex fidx;	/* frames by name and module */
	uint32_t *pool;		/* the stacks' frames, back to back */
	size_t npool, pcap;
	struct stack *stacks;
	size_t nstacks, scap;
	struct px_hindex sidx;	/* stacks by event and frames */
	uint64_t *totals;	/* [nev] */
	size_t nev, tcap;
};

static uint64_t fnv(uint64_t h, const void *p, size_t n)
{
	const unsigned char *b = p;

	for (size_t i = 0; i < n; i++)
		h = (h ^ b[i]) * 1099511628211ULL;
	return h;
}

#define FNV_BASIS 1469598103934665603ULL

static uint64_t frame_hash(const char *name, const char *module)
{
	return fnv(fnv(FNV_BASIS, name, strlen(name) + 1), module, strlen(module));
}

static uint64_t stack_hash(size_t ev, const uint32_t *f, size_t n)
{
	uint32_t e = (uint32_t)ev;

	return fnv(fnv(FNV_BASIS, &e, sizeof(e)), f, n * sizeof(*f));
}

int px_cg_new(struct px_cg **out)
{
	*out = calloc(1, sizeof(**out));
	return *out ? 0 : px_fail(ENOMEM, "call graph: out of memory");
}

void px_cg_free(struct px_cg *g)
{
	if (!g)
		return;
	for (size_t i = 0; i < g->nframes; i++) {
		free(g->frames[i].name);
		free(g->frames[i].module);
	}
	free(g->frames);
	px_hindex_free(&g->fidx);
	free(g->pool);
	free(g->stacks);
	px_hindex_free(&g->sidx);
	free(g->totals);
	free(g);
}

static uint64_t frame_hash_of(const void *arg, size_t i)
{
	const struct px_cg *g = arg;

	return frame_hash(g->frames[i].name, g->frames[i].module);
}

static uint64_t stack_hash_of(const void *arg, size_t i)
{
	const struct px_cg *g = arg;
	const struct stack *s = &g->stacks[i];

	return stack_hash(s->ev, g->pool + s->off, s->n);
}

ssize_t px_cg_frame(struct px_cg *g, const char *name, const char *module)
{
	size_t j;
	struct frame *f;

	if (px_hindex_reserve(&g->fidx, g->nframes, frame_hash_of, g))
		return px_fail(ENOMEM, "call graph: out of memory");
	for (j = px_hindex_first(&g->fidx, frame_hash(name, module)); g->fidx.slot[j];
	     j = px_hindex_next(&g->fidx, j)) {
		f = &g->frames[g->fidx.slot[j] - 1];
		if (!strcmp(f->name, name) && !strcmp(f->module, module))
			return (ssize_t)(g->fidx.slot[j] - 1);
	}
	if (px_grow((void **)&g->frames, &g->fcap, g->nframes, 1, sizeof(*f), 256))
		return -ENOMEM;
	f = &g->frames[g->nframes];
	f->name = strdup(name);
	f->module = strdup(module);
	if (!f->name || !f->module) {
		free(f->name);
		free(f->module);
		return px_fail(ENOMEM, "call graph: out of memory");
	}
	g->fidx.slot[j] = ++g->nframes;
	return (ssize_t)(g->nframes - 1);
}

const char *px_cg_frame_name(const struct px_cg *g, uint32_t frame)
{
	return frame < g->nframes ? g->frames[frame].name : "??";
}

const char *px_cg_frame_module(const struct px_cg *g, uint32_t frame)
{
	return frame < g->nframes ? g->frames[frame].module : "??";
}

static int add_total(struct px_cg *g, size_t ev, uint64_t count)
{
	if (ev >= g->nev) {
		if (px_grow((void **)&g->totals, &g->tcap, g->nev, ev + 1 - g->nev,
			    sizeof(*g->totals), 8))
			return -ENOMEM;
		memset(g->totals + g->nev, 0, (ev + 1 - g->nev) * sizeof(*g->totals));
		g->nev = ev + 1;
	}
	g->totals[ev] += count;
	return 0;
}

int px_cg_add(struct px_cg *g, size_t ev, const uint32_t *frames, size_t n,
	      uint64_t count)
{
	size_t j;
	struct stack *s;

	if (!n || n > UINT32_MAX || ev > UINT32_MAX)
		return px_fail(EINVAL, "call graph: a stack of %zu frames", n);
	if (add_total(g, ev, count))
		return -ENOMEM;
	if (px_hindex_reserve(&g->sidx, g->nstacks, stack_hash_of, g))
		return px_fail(ENOMEM, "call graph: out of memory");
	for (j = px_hindex_first(&g->sidx, stack_hash(ev, frames, n)); g->sidx.slot[j];
	     j = px_hindex_next(&g->sidx, j)) {
		s = &g->stacks[g->sidx.slot[j] - 1];
		if (s->ev == ev && s->n == n &&
		    !memcmp(g->pool + s->off, frames, n * sizeof(*frames))) {
			s->count += count;
			return 0;
		}
	}
	if (px_grow((void **)&g->stacks, &g->scap, g->nstacks, 1, sizeof(*s), 1024) ||
	    px_grow((void **)&g->pool, &g->pcap, g->npool, n, sizeof(*g->pool), 16384))
		return -ENOMEM;
	s = &g->stacks[g->nstacks];
	*s = (struct stack){ (uint32_t)ev, (uint32_t)n, g->npool, count };
	memcpy(g->pool + g->npool, frames, n * sizeof(*frames));
	g->npool += n;
	g->sidx.slot[j] = ++g->nstacks;
	return 0;
}

size_t px_cg_events(const struct px_cg *g)
{
	return g->nev;
}

uint64_t px_cg_total(const struct px_cg *g, size_t ev)
{
	return ev < g->nev ? g->totals[ev] : 0;
}

int px_cg_stacks(const struct px_cg *g, size_t ev, px_cg_stack_fn fn, void *arg)
{
	for (size_t i = 0; i < g->nstacks; i++) {
		const struct stack *s = &g->stacks[i];
		int r;

		if (s->ev == ev && (r = fn(arg, g->pool + s->off, s->n, s->count)))
			return r;
	}
	return 0;
}

static int func_cmp(const void *a, const void *b, void *g)
{
	const struct px_cg_func *x = a, *y = b;
	const struct px_cg *cg = g;

	if (x->total != y->total)
		return x->total < y->total ? 1 : -1;
	if (x->self != y->self)
		return x->self < y->self ? 1 : -1;
	return strcmp(cg->frames[x->frame].name, cg->frames[y->frame].name);
}

static double pct(uint64_t part, uint64_t whole)
{
	return whole ? 100.0 * (double)part / (double)whole : 0.0;
}

int px_cg_functions(const struct px_cg *g, size_t ev, struct px_cg_func **out,
		    size_t *n)
{
	struct px_cg_func *v = calloc(g->nframes + 1, sizeof(*v));
	size_t *seen = calloc(g->nframes + 1, sizeof(*seen)), k = 0;
	uint64_t total = px_cg_total(g, ev);

	*out = NULL;
	*n = 0;
	if (!v || !seen) {
		free(v);
		free(seen);
		return px_fail(ENOMEM, "call graph: out of memory");
	}
	for (size_t i = 0; i < g->nstacks; i++) {
		const struct stack *s = &g->stacks[i];
		const uint32_t *f = g->pool + s->off;

		if (s->ev != ev)
			continue;
		v[f[s->n - 1]].self += s->count;
		/* a recursive function counts once per sample */
		for (size_t j = 0; j < s->n; j++)
			if (seen[f[j]] != i + 1) {
				seen[f[j]] = i + 1;
				v[f[j]].total += s->count;
			}
	}
	for (size_t i = 0; i < g->nframes; i++)
		if (v[i].total) {
			v[k] = v[i];
			v[k].frame = (uint32_t)i;
			v[k].self_pct = pct(v[k].self, total);
			v[k].total_pct = pct(v[k].total, total);
			k++;
		}
	free(seen);
	qsort_r(v, k, sizeof(*v), func_cmp, (void *)g);
	*out = v;
	*n = k;
	return 0;
}

/* ---- trees ---- */

struct tnode {
	uint32_t frame;
	uint64_t count;
	size_t child, sibling;	/* node numbers + 1; 0: none */
};

struct trie {
	struct tnode *v;
	size_t n, cap;
};

/* The child of node p for frame, made when missing: its number + 1, or 0
 * when out of memory. */
static size_t trie_child(struct trie *t, size_t p, uint32_t frame)
{
	size_t c;

	for (c = t->v[p].child; c; c = t->v[c - 1].sibling)
		if (t->v[c - 1].frame == frame)
			return c;
	if (px_grow((void **)&t->v, &t->cap, t->n, 1, sizeof(*t->v), 64))
		return 0;
	t->v[t->n] = (struct tnode){ frame, 0, 0, t->v[p].child };
	t->v[p].child = ++t->n;
	return t->n;
}

/* Where the function is in stack s: -1 when not. */
static ssize_t occurrence(const uint32_t *f, size_t n, uint32_t frame,
			  enum px_cg_direction dir)
{
	if (dir == PX_CG_CALLERS) {
		for (size_t j = n; j-- > 0;)
			if (f[j] == frame)
				return (ssize_t)j;
	} else {
		for (size_t j = 0; j < n; j++)
			if (f[j] == frame)
				return (ssize_t)j;
	}
	return -1;
}

static int trie_add(struct trie *t, const uint32_t *f, size_t n, uint32_t frame,
		    enum px_cg_direction dir, uint64_t count)
{
	ssize_t at = occurrence(f, n, frame, dir);
	size_t p = 0;

	if (at < 0)
		return 0;
	t->v[0].count += count;
	for (ssize_t j = at + (dir == PX_CG_CALLERS ? -1 : 1);
	     j >= 0 && (size_t)j < n; j += dir == PX_CG_CALLERS ? -1 : 1) {
		size_t c = trie_child(t, p, f[j]);

		if (!c)
			return -ENOMEM;
		p = c - 1;
		t->v[p].count += count;
	}
	return 0;
}

struct walk {
	const struct px_cg *g;
	const struct trie *t;
	struct px_cg_node *out;
	size_t n;
};

static int node_cmp(const void *a, const void *b, void *g)
{
	const struct tnode *x = *(const struct tnode *const *)a;
	const struct tnode *y = *(const struct tnode *const *)b;
	const struct px_cg *cg = g;

	if (x->count != y->count)
		return x->count < y->count ? 1 : -1;
	return strcmp(cg->frames[x->frame].name, cg->frames[y->frame].name);
}

static int walk_node(struct walk *w, size_t p, unsigned depth)
{
	const struct tnode **kids;
	size_t nk = 0;
	int ret = 0;

	w->out[w->n++] = (struct px_cg_node){ w->t->v[p].frame, depth, w->t->v[p].count };
	for (size_t c = w->t->v[p].child; c; c = w->t->v[c - 1].sibling)
		nk++;
	if (!nk)
		return 0;
	kids = malloc(nk * sizeof(*kids));
	if (!kids)
		return px_fail(ENOMEM, "call graph: out of memory");
	nk = 0;
	for (size_t c = w->t->v[p].child; c; c = w->t->v[c - 1].sibling)
		kids[nk++] = &w->t->v[c - 1];
	qsort_r(kids, nk, sizeof(*kids), node_cmp, (void *)w->g);
	for (size_t i = 0; i < nk && !ret; i++)
		ret = walk_node(w, (size_t)(kids[i] - w->t->v), depth + 1);
	free(kids);
	return ret;
}

int px_cg_tree(const struct px_cg *g, size_t ev, uint32_t frame,
	       enum px_cg_direction dir, struct px_cg_node **out, size_t *n)
{
	struct trie t = { 0 };
	struct walk w = { g, &t, NULL, 0 };
	int ret = 0;

	*out = NULL;
	*n = 0;
	if (px_grow((void **)&t.v, &t.cap, 0, 1, sizeof(*t.v), 64))
		return -ENOMEM;
	t.v[t.n++] = (struct tnode){ frame, 0, 0, 0 };
	for (size_t i = 0; i < g->nstacks && !ret; i++) {
		const struct stack *s = &g->stacks[i];

		if (s->ev == ev)
			ret = trie_add(&t, g->pool + s->off, s->n, frame, dir, s->count);
	}
	if (!ret && !(w.out = malloc(t.n * sizeof(*w.out))))
		ret = px_fail(ENOMEM, "call graph: out of memory");
	if (!ret)
		ret = walk_node(&w, 0, 0);
	free(t.v);
	if (ret) {
		free(w.out);
		return ret;
	}
	*out = w.out;
	*n = w.n;
	return 0;
}

/* ---- folded stacks ---- */

static int line_cmp(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Stack s as "root;f0;f1;...;fn COUNT" (malloc'ed), or NULL. */
static char *folded_line(const struct px_cg *g, const struct stack *s, const char *root)
{
	size_t len = (root ? strlen(root) + 1 : 0) + 32;
	const uint32_t *f = g->pool + s->off;
	char *line, *p;

	for (size_t j = 0; j < s->n; j++)
		len += strlen(g->frames[f[j]].name) + 1;
	p = line = malloc(len);
	if (!line)
		return NULL;
	if (root)
		p += sprintf(p, "%s;", root);
	for (size_t j = 0; j < s->n; j++)
		p += sprintf(p, "%s%s", g->frames[f[j]].name, j + 1 < s->n ? ";" : "");
	sprintf(p, " %llu", (unsigned long long)s->count);
	return line;
}

int px_cg_write_folded(const struct px_cg *g, size_t ev, const char *root, FILE *f)
{
	char **lines = malloc((g->nstacks + 1) * sizeof(*lines));
	size_t n = 0;
	int ret = 0;

	if (!lines)
		return px_fail(ENOMEM, "call graph: out of memory");
	for (size_t i = 0; i < g->nstacks && !ret; i++) {
		if (g->stacks[i].ev != ev)
			continue;
		if (!(lines[n] = folded_line(g, &g->stacks[i], root)))
			ret = px_fail(ENOMEM, "call graph: out of memory");
		else
			n++;
	}
	if (!ret)
		qsort(lines, n, sizeof(*lines), line_cmp);
	for (size_t i = 0; i < n; i++) {
		if (!ret && fprintf(f, "%s\n", lines[i]) < 0)
			ret = px_fail(errno ? errno : EIO, "cannot write folded stacks: %s",
				      strerror(errno ? errno : EIO));
		free(lines[i]);
	}
	free(lines);
	return ret;
}
