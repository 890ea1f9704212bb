/* One sampling measurement, from the files to the profile: the files
 * opened before the run (one that cannot be written fails before
 * anything runs), the run (lib/session/smpl_session.h), the resolution
 * (lib/profile/smpl_resolve.h) writing each sample to the sample file
 * and adding it to the pprof profile, the perf script text and the
 * speedscope file, the call graph's files, and every
 * file committed whole, or none. */
#include "smpl_report.h"
#include "outfile.h"
#include "callgraph.h"
#include "chains.h"
#include "grow.h"
#include "smpl_output.h"
#include "smpl_export.h"
#include "prefetch.h"
#include "heldfiles.h"
#include "error.h"
#include "smpl_resolve.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>

/* An export (smpl_export.h) and its file. */
struct export_file {
	const struct px_smpl_export *e;
	struct px_outfile file;
	void *state;
};

enum { EXPORTS = 3 };

/* The files a session writes besides its report, each whole or not at
 * all: opened before the run, so that one that cannot be written fails
 * before anything runs. */
struct session_files {
	struct px_smpl_out samples;
	struct px_outfile folded, flame;
	bool has_samples, has_folded, has_flame;
	struct export_file exports[EXPORTS];
	size_t nexports;
};

static int export_file_open(struct session_files *fl, const char *path,
			    const struct px_smpl_export *e)
{
	struct export_file *x = &fl->exports[fl->nexports];
	int ret;

	if (!path)
		return 0;
	if ((ret = px_outfile_open(&x->file, path, false)))
		return ret;
	x->e = e;
	fl->nexports++;
	return 0;
}

static int files_open(const struct px_smpl_measure_opts *o, struct session_files *fl)
{
	int ret = 0;

	memset(fl, 0, sizeof(*fl));
	if (o->smpl_outfile && !(ret = px_smpl_out_open(&fl->samples, o->smpl_outfile, o->json)))
		fl->has_samples = true;
	if (!ret && o->folded && !(ret = px_outfile_open(&fl->folded, o->folded, false)))
		fl->has_folded = true;
	if (!ret && o->flamegraph && !(ret = px_outfile_open(&fl->flame, o->flamegraph, false)))
		fl->has_flame = true;
	if (!ret)
		ret = export_file_open(fl, o->pprof, &px_export_pprof);
	if (!ret)
		ret = export_file_open(fl, o->perf_script, &px_export_perfscript);
	if (!ret)
		ret = export_file_open(fl, o->speedscope, &px_export_speedscope);
	return ret;
}

/* Commit them all after a run that succeeded, else discard them all. */
static int files_close(struct session_files *fl, int ret)
{
	if (fl->has_samples)
		ret = ret ? (px_smpl_out_discard(&fl->samples), ret) : px_smpl_out_commit(&fl->samples);
	if (fl->has_folded)
		ret = px_outfile_close(&fl->folded, ret);
	if (fl->has_flame)
		ret = px_outfile_close(&fl->flame, ret);
	for (size_t i = 0; i < fl->nexports; i++)
		ret = px_outfile_close(&fl->exports[i].file, ret);
	return ret;
}

/* The writers of each sample during the resolution: the sample file's
 * (out, NULL: none) and the exports. */
struct sample_writer {
	struct px_smpl_out *out;
	bool resolve;		/* --resolve-addresses: the sample file names
				 * places (the resolution gives them to the
				 * exports in any case) */
	const char **names;	/* room for a chain's frame names */
	size_t cap;
	struct session_files *fl;
	uint64_t export_ns;	/* time in the exports */
};

static uint64_t now_ns(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (uint64_t)t.tv_sec * 1000000000ull + (uint64_t)t.tv_nsec;
}

/* A sample and its chain into the sample file. */
static int write_sample(struct sample_writer *w, const struct px_smpl_result *r,
			const struct px_smpl_resolved *sr)
{
	const struct px_chain *c = sr->chain;
	const struct px_chain_stack *st = &sr->stack;
	const struct px_location *loc = w->resolve ? sr->loc : NULL;
	struct px_smpl_out_chain oc = {
		c->kernel, c->nkernel, c->user, c->nuser, c->cut, NULL, 0,
	};

	if (!r->cg)
		return px_smpl_out_write_resolved(w->out, sr->x, loc);
	if (w->resolve) {
		if (px_grow((void **)&w->names, &w->cap, 0, st->n, sizeof(*w->names), 256))
			return -ENOMEM;
		for (size_t i = 0; i < st->n; i++)	/* innermost first */
			w->names[i] = px_cg_frame_name(r->cg, st->frames[st->n - 1 - i]);
		oc.names = w->names;
		oc.nnames = st->n;
	}
	return px_smpl_out_write_chain(w->out, sr->x, loc, &oc);
}

/* Each resolved sample to its writers (px_smpl_resolved_fn). */
static int sample_resolved(void *arg, const struct px_smpl_result *r,
			   const struct px_smpl_resolved *sr)
{
	struct sample_writer *w = arg;
	struct session_files *fl = w->fl;
	uint64_t t0;
	int ret = 0;

	if (w->out)
		ret = write_sample(w, r, sr);
	if (ret || !fl->nexports)
		return ret;
	t0 = now_ns();
	for (size_t i = 0; i < fl->nexports && !ret; i++)
		ret = fl->exports[i].e->add(fl->exports[i].state, r, sr);
	w->export_ns += now_ns() - t0;
	return ret;
}

/* The exports' states before the resolution, their ends after it. */
static int exports_open(struct session_files *fl, const struct px_smpl_session *s)
{
	int ret = 0;

	for (size_t i = 0; i < fl->nexports && !ret; i++)
		ret = fl->exports[i].e->open(&fl->exports[i].state, s, fl->exports[i].file.f);
	return ret;
}

static int exports_finish(struct session_files *fl, int ret)
{
	for (size_t i = 0; i < fl->nexports; i++) {
		struct export_file *x = &fl->exports[i];

		if (!ret && x->state)
			ret = x->e->write(x->state, x->file.f);
		x->e->free(x->state);
		x->state = NULL;
	}
	return ret;
}

/* The resolution's slow reads, started before the run on another
 * thread: the kernel's table when an event samples the kernel, the
 * inflation of the mapped files' compressed debug files when DWARF is
 * read (lib/symbols/prefetch.h).  Without the thread, the resolvers do
 * the same work themselves, as they do system-wide: there the thread's
 * work would be sampled into the profile it is for, and taken from the
 * CPUs being measured.  NULL: none. */
static struct px_prefetch *prefetch_start(const struct px_smpl_measure_opts *mo)
{
	const struct px_smpl_session_opts *o = &mo->run;
	struct px_prefetch *p = NULL;
	bool kernel = false;

	if (o->mon.ncpus)
		return NULL;
	for (size_t set = 0; set < o->mon.nsets; set++)
		for (size_t i = 0; i < o->mon.sets[set].n; i++)
			kernel |= o->pmds[set][i].long_period &&
				  !o->mon.sets[set].events[i].exclude_kernel;
	if (kernel || px_smpl_reads_dwarf(o, &mo->resolve))
		(void)px_prefetch_start(&p, kernel, mo->resolve.kallsyms);
	return p;
}

/* A file the command maps: held open for the resolution (heldfiles.h),
 * and its debug file inflated while it runs (arg: the prefetch, or NULL). */
static void file_mapped(void *arg, const struct px_mapping *m)
{
	if (!(m->prot & PROT_EXEC))
		return;
	px_held_add(m->path, m->ino);
	if (arg)
		px_prefetch_file(arg, m->path);
}

/* The files found replaced before they could be held, into r. */
static int keep_replaced(struct px_smpl_result *r)
{
	const char **paths;
	size_t n = px_held_replaced(&paths);

	if (!n)
		return 0;
	if (!(r->replaced = calloc(n, sizeof(*r->replaced))))
		return px_fail(ENOMEM, "out of memory");
	for (; r->nreplaced < n; r->nreplaced++)
		if (!(r->replaced[r->nreplaced] = strdup(paths[r->nreplaced])))
			return px_fail(ENOMEM, "out of memory");
	return 0;
}

/* After the run: the resolution into r and the files, timed as
 * r->resolve_ns, the exports' part of it as r->export_ns.  resolve: the
 * sample file names places. */
static int resolve_and_write(const struct px_smpl_session *s,
			     const struct px_smpl_resolve_opts *o, bool resolve,
			     struct px_smpl_result *r, struct session_files *fl,
			     struct px_prefetch *prefetch)
{
	struct sample_writer w = { .out = fl->has_samples ? &fl->samples : NULL,
				   .resolve = resolve, .fl = fl };
	struct px_prefetch_stats ahead;
	uint64_t t0 = now_ns(), t1;
	int ret;

	px_prefetch_finish(prefetch);
	px_prefetch_stats(prefetch, &ahead);
	px_prefetch_free(prefetch);
	ret = exports_open(fl, s);
	if (!ret)
		ret = px_smpl_resolve(s, o, r, w.out || fl->nexports ? sample_resolved : NULL, &w);
	t1 = now_ns();
	ret = exports_finish(fl, ret);
	w.export_ns += now_ns() - t1;
	free(w.names);
	if (!ret && r->cg && fl->has_folded)
		ret = px_smpl_write_folded(r, fl->folded.f);
	if (!ret && r->cg && fl->has_flame)
		ret = px_smpl_write_flamegraph(r, fl->flame.f);
	ret = files_close(fl, ret);
	r->ahead_kernel = ahead.kernel;
	r->ahead_files = ahead.files;
	r->ahead_bytes = ahead.bytes;
	r->ahead_ns = ahead.busy_ns;
	r->export_ns = w.export_ns;
	r->resolve_ns = now_ns() - t0;
	return ret;
}

int px_smpl_measure(const struct px_smpl_measure_opts *opts, struct px_smpl_session *s,
		    struct px_smpl_result *r)
{
	/* pprof's locations have files and lines, perf script's frames
	 * offsets, speedscope's frames files: the resolution gives each
	 * sample its place, read from DWARF */
	struct px_smpl_measure_opts mo = *opts;
	const struct px_smpl_measure_opts *o = &mo;
	struct px_smpl_session_opts run = o->run;
	struct px_prefetch *prefetch;
	struct session_files fl;
	int ret;

	mo.resolve.resolve |= opts->pprof || opts->perf_script || opts->speedscope;
	memset(s, 0, sizeof(*s));
	memset(r, 0, sizeof(*r));
	if ((ret = files_open(o, &fl)))
		return files_close(&fl, ret);
	prefetch = prefetch_start(o);
	run.on_map = file_mapped;
	run.map_arg = px_smpl_reads_dwarf(&o->run, &o->resolve) ? prefetch : NULL;
	ret = px_smpl_session_run(&run, s);
	if (ret) {
		px_prefetch_free(prefetch);
		px_held_release();
		return files_close(&fl, ret);
	}
	ret = resolve_and_write(s, &o->resolve, opts->resolve.resolve, r, &fl, prefetch);
	if (!ret)
		ret = keep_replaced(r);
	px_held_release();
	return ret;
}
