/* pfmon-report --diff --flamegraph: the folded stacks of both groups as
 * one differential flame graph (diff.h). */
#include "diff.h"
#include "error.h"
#include "flamegraph.h"
#include "grow.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

/* The graph's stacks: each distinct stack once (whole[i] its text), its
 * samples summed over the new runs (count) and over the base runs
 * (base); its frames point into split[i], a copy cut at each ';'. */
struct flame_stacks {
	struct px_flame_stack *v;
	char **whole, **split;
	size_t n, cap;
};

static void stacks_free(struct flame_stacks *s)
{
	for (size_t i = 0; i < s->n; i++) {
		free((void *)s->v[i].frames);
		free(s->whole[i]);
		free(s->split[i]);
	}
	free(s->v);
	free(s->whole);
	free(s->split);
}

/* A stack "a;b;c" as frames into its own copy. */
static int split(const char *stack, struct px_flame_stack *out, char **copy)
{
	size_t n = 1;
	const char **frames;
	char *p;

	if (!(*copy = strdup(stack)))
		return -ENOMEM;
	for (p = *copy; *p; p++)
		n += *p == ';';
	if (!(frames = malloc(n * sizeof(*frames))))
		return -ENOMEM;
	out->n = 0;
	for (p = *copy;; p++) {
		frames[out->n++] = p;
		if (!(p = strchr(p, ';')))
			break;
		*p = '\0';
	}
	out->frames = frames;
	return 0;
}

/* Add samples of stack to the new (is_new) or base side. */
static int add(struct flame_stacks *s, const char *stack, uint64_t samples, bool is_new)
{
	size_t i;

	for (i = 0; i < s->n; i++)
		if (!strcmp(s->whole[i], stack))
			break;
	if (i == s->n) {
		size_t cap_whole = s->cap, cap_split = s->cap;

		if (px_grow((void **)&s->whole, &cap_whole, s->n, 1, sizeof(*s->whole), 64) ||
		    px_grow((void **)&s->split, &cap_split, s->n, 1, sizeof(*s->split), 64) ||
		    px_grow((void **)&s->v, &s->cap, s->n, 1, sizeof(*s->v), 64))
			return -ENOMEM;
		s->v[i] = (struct px_flame_stack){ NULL, 0, 0, 0 };
		s->split[i] = NULL;
		if (!(s->whole[i] = strdup(stack)))
			return -ENOMEM;
		s->n++;
		if (split(stack, &s->v[i], &s->split[i]))
			return -ENOMEM;
	}
	if (is_new)
		s->v[i].count += samples;
	else
		s->v[i].base += samples;
	return 0;
}

static int add_group(struct flame_stacks *s, const struct px_merge_input *runs, size_t n,
		     bool is_new)
{
	for (size_t r = 0; r < n; r++) {
		if (!runs[r].stacks)
			return px_fail(EINVAL, "%s is not folded stacks: --flamegraph with --diff draws pfmon --folded files",
				       runs[r].path);
		for (size_t i = 0; i < runs[r].nrows; i++)
			if (add(s, runs[r].rows[i].name, runs[r].rows[i].samples, is_new))
				return px_fail(ENOMEM, "out of memory");
	}
	return 0;
}

int px_diff_flamegraph(FILE *f, const struct px_diff *d)
{
	struct flame_stacks s = { 0 };
	struct px_flame_graph g = {
		"widths: the new runs' samples; red: a larger share than in the base runs, blue: smaller",
		NULL, 0, true,
	};
	int ret;

	if (!(ret = add_group(&s, d->new, d->nnew, true)) &&
	    !(ret = add_group(&s, d->base, d->nbase, false))) {
		g.stacks = s.v;
		g.n = s.n;
		ret = px_flamegraph_write(f, &g, 1);
	}
	stacks_free(&s);
	return ret;
}
