/* Differential profiles (diff.h): per function, the share of its event's
 * samples in each run of the two groups, and Welch's t test. */
#include "diff.h"
#include "error.h"
#include "grow.h"
#include "stats.h"

#include <dirent.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* A function's shares in one group's runs. */
struct shares {
	struct px_stats pct;	/* over the runs that tell its share */
	double samples;		/* mean samples of those runs' profiles */
};

/* Run in's profile of (event, set), or NULL. */
static const struct px_merge_prof *prof_of(const struct px_merge_input *in, const char *event,
					   long set, size_t *index)
{
	for (size_t p = 0; p < in->nprofs; p++)
		if (in->profs[p].set == set && !strcmp(in->profs[p].event, event)) {
			*index = p;
			return &in->profs[p];
		}
	return NULL;
}

/* The function's share in each run of a group: a run whose listing of
 * the profile is whole and lacks it gives 0; one whose listing was cut
 * (--profile-top) and lacks it does not tell. */
static void group_shares(const struct px_merge_input *runs, size_t n, const char *event, long set,
			 const char *name, const char *module, struct shares *s)
{
	px_stats_init(&s->pct);
	s->samples = 0;
	for (size_t i = 0; i < n; i++) {
		size_t pi;
		const struct px_merge_prof *p = prof_of(&runs[i], event, set, &pi);
		double got = -1;

		if (!p || !p->samples)
			continue;
		for (size_t r = 0; r < runs[i].nrows && got < 0; r++) {
			const struct px_merge_row *w = &runs[i].rows[r];

			if (w->prof == pi && !strcmp(w->name, name) &&
			    !strcmp(w->module ? w->module : "", module))
				got = (double)w->samples;
		}
		if (got < 0 && p->listed < p->rows)
			continue;
		px_stats_add(&s->pct, 100.0 * (got < 0 ? 0 : got) / (double)p->samples);
		s->samples += ((double)p->samples - s->samples) / (double)s->pct.n;
	}
}

/* The variance of a group's mean share: the runs' spread, at least what
 * sampling alone gives a share of pooled% of N samples, the share of both
 * groups together (so that a function with the same few samples in every
 * run, or none in one group, is not "certain"). */
static double mean_variance(const struct shares *s, double pooled)
{
	double p = pooled / 100.0, sd = px_stats_stddev(&s->pct);
	double sampling = s->samples > 0 ? 1e4 * p * (1 - p) / s->samples : 0;
	double v = sd * sd > sampling ? sd * sd : sampling;

	return v / (double)s->pct.n;
}

/* Welch's test of the change; p NAN with fewer than two runs a side. */
static void welch(const struct shares *b, const struct shares *n, struct px_diff_func *f)
{
	double vb, vn, t, dof;

	f->p = NAN;
	if (b->pct.n < 2 || n->pct.n < 2)
		return;
	vb = mean_variance(b, (b->pct.mean + n->pct.mean) / 2);
	vn = mean_variance(n, (b->pct.mean + n->pct.mean) / 2);
	if (vb + vn <= 0) {
		f->p = f->change ? 0 : 1;
		return;
	}
	t = f->change / sqrt(vb + vn);
	dof = (vb + vn) * (vb + vn) /
	      (vb * vb / (double)(b->pct.n - 1) + vn * vn / (double)(n->pct.n - 1));
	f->p = 2 * px_student_t_sf(fabs(t), dof);
}

static bool known(const struct px_diff *d, const char *event, long set, const char *name,
		  const char *module)
{
	for (size_t i = 0; i < d->nfuncs; i++) {
		const struct px_diff_func *f = &d->funcs[i];

		if (f->set == set && !strcmp(f->event, event) && !strcmp(f->name, name) &&
		    !strcmp(f->module, module))
			return true;
	}
	return false;
}

/* Each function listed in any run of either group, once. */
static int collect(struct px_diff *d, const struct px_merge_input *runs, size_t n)
{
	size_t cap = d->nfuncs;

	for (size_t i = 0; i < n; i++)
		for (size_t r = 0; r < runs[i].nrows; r++) {
			const struct px_merge_row *w = &runs[i].rows[r];
			const struct px_merge_prof *p = &runs[i].profs[w->prof];
			const char *module = w->module ? w->module : "";

			if (known(d, p->event, p->set, w->name, module))
				continue;
			if (px_grow((void **)&d->funcs, &cap, d->nfuncs, 1, sizeof(*d->funcs), 64))
				return px_fail(ENOMEM, "out of memory");
			d->funcs[d->nfuncs++] = (struct px_diff_func){
				.event = p->event, .set = p->set, .name = w->name, .module = module,
			};
		}
	return 0;
}

/* Both groups: sampling reports of the same events. */
static int check_groups(const struct px_diff *d)
{
	const struct px_merge_input *first = &d->base[0];

	for (size_t g = 0; g < 2; g++) {
		const struct px_merge_input *runs = g ? d->new : d->base;
		size_t n = g ? d->nnew : d->nbase;

		for (size_t i = 0; i < n; i++) {
			if (runs[i].kind != PX_MERGE_SAMPLING)
				return px_fail(EINVAL, "%s is a %s report: --diff compares pfmon's sampling reports",
					       runs[i].path, px_merge_kind_name(runs[i].kind));
			for (size_t p = 0; p < first->nprofs; p++) {
				size_t pi;

				if (!prof_of(&runs[i], first->profs[p].event, first->profs[p].set, &pi))
					return px_fail(EINVAL, "%s has no profile of %s, which %s has: compare runs of the same events",
						       runs[i].path, first->profs[p].event, first->path);
			}
			if (runs[i].nprofs != first->nprofs)
				return px_fail(EINVAL, "%s and %s sample different events: compare runs of the same events",
					       runs[i].path, first->path);
		}
	}
	return 0;
}

static int by_significance(const void *a, const void *b)
{
	const struct px_diff_func *x = a, *y = b;
	double px = isnan(x->p) ? 2 : x->p, py = isnan(y->p) ? 2 : y->p;

	if (px != py)
		return px < py ? -1 : 1;
	return fabs(x->change) > fabs(y->change) ? -1 : fabs(x->change) < fabs(y->change);
}

int px_diff_build(struct px_merge_input *base, size_t nb, struct px_merge_input *new, size_t nn,
		  struct px_diff *d)
{
	int ret;

	*d = (struct px_diff){ .base = base, .nbase = nb, .new = new, .nnew = nn };
	if (!nb || !nn)
		return px_fail(EINVAL, "--diff needs runs on both sides");
	if ((ret = check_groups(d)) || (ret = collect(d, base, nb)) || (ret = collect(d, new, nn)))
		return ret;
	for (size_t i = 0; i < d->nfuncs; i++) {
		struct px_diff_func *f = &d->funcs[i];
		struct shares b, n;

		group_shares(base, nb, f->event, f->set, f->name, f->module, &b);
		group_shares(new, nn, f->event, f->set, f->name, f->module, &n);
		f->base_pct = b.pct.mean;
		f->new_pct = n.pct.mean;
		f->base_runs = b.pct.n;
		f->new_runs = n.pct.n;
		f->change = f->new_pct - f->base_pct;
		welch(&b, &n, f);
		d->tested += !isnan(f->p);
	}
	for (size_t i = 0; i < d->nfuncs; i++)
		d->funcs[i].significant = !isnan(d->funcs[i].p) &&
					  d->funcs[i].p < PX_DIFF_ALPHA / (double)d->tested;
	qsort(d->funcs, d->nfuncs, sizeof(*d->funcs), by_significance);
	return 0;
}

void px_diff_free(struct px_diff *d)
{
	for (size_t i = 0; i < d->nbase; i++)
		px_merge_input_free(&d->base[i]);
	for (size_t i = 0; i < d->nnew; i++)
		px_merge_input_free(&d->new[i]);
	free(d->base);
	free(d->new);
	free(d->funcs);
	*d = (struct px_diff){ 0 };
}

static bool is_report_name(const char *name)
{
	size_t n = strlen(name);

	return (n > 5 && !strcmp(name + n - 5, ".json")) || (n > 4 && !strcmp(name + n - 4, ".csv")) ||
	       (n > 7 && !strcmp(name + n - 7, ".folded"));
}

static int by_name(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The reports of folder dir, full paths, sorted. */
static int folder_reports(const char *dir, char ***paths, size_t *n)
{
	DIR *dp = opendir(dir);
	struct dirent *e;
	size_t cap = 0;
	int ret = 0;

	*paths = NULL;
	*n = 0;
	if (!dp)
		return px_fail(errno, "cannot read folder %s: %s", dir, strerror(errno));
	while (!ret && (e = readdir(dp))) {
		char *p;

		if (!is_report_name(e->d_name))
			continue;
		if (asprintf(&p, "%s/%s", dir, e->d_name) < 0 ||
		    px_grow((void **)paths, &cap, *n, 1, sizeof(**paths), 16))
			ret = px_fail(ENOMEM, "out of memory");
		else
			(*paths)[(*n)++] = p;
	}
	closedir(dp);
	if (!ret && !*n)
		ret = px_fail(ENOENT, "folder %s has no report (*.json, *.csv or *.folded)", dir);
	if (!ret)
		qsort(*paths, *n, sizeof(**paths), by_name);
	return ret;
}

int px_diff_read_group(const char *path, struct px_merge_input **in, size_t *n)
{
	struct stat st;
	char **paths = NULL, *one[1] = { (char *)path };
	size_t np = 1, ok = 0;
	int ret = 0;

	*in = NULL;
	*n = 0;
	if (stat(path, &st))
		return px_fail(errno, "cannot read %s: %s", path, strerror(errno));
	if (S_ISDIR(st.st_mode) && (ret = folder_reports(path, &paths, &np)))
		goto out;
	if (!(*in = calloc(np, sizeof(**in)))) {
		ret = px_fail(ENOMEM, "out of memory");
		goto out;
	}
	for (ok = 0; ok < np && !ret; ok++)
		ret = px_merge_read(paths ? paths[ok] : one[0], &(*in)[ok]);
	if (ret) {
		for (size_t i = 0; i < ok; i++)	/* the one that failed too */
			px_merge_input_free(&(*in)[i]);
		free(*in);
		*in = NULL;
	} else {
		*n = np;
	}
out:
	for (size_t i = 0; paths && i < np; i++)
		free(paths[i]);
	free(paths);
	return ret;
}
