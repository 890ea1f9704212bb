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
#include "perfscript.h"
#include "pprof.h"
#include "speedscope.h"
#include "prefetch.h"
#include "smpl_resolve.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>

/* The files a session writes besides its report, each whole or not at
 * all: opened before the run, so that one that cannot be written fails
 * before anything runs. */
struct session_files {
	struct px_smpl_out samples;
	struct px_outfile folded, flame, pprof, script, speedscope;
	bool has_samples, has_folded, has_flame, has_pprof, has_script, has_speedscope;
};

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
	if (!ret && o->pprof && !(ret = px_outfile_open(&fl->pprof, o->pprof, false)))
		fl->has_pprof = true;
	if (!ret && o->perf_script && !(ret = px_outfile_open(&fl->script, o->perf_script, false)))
		fl->has_script = true;
	if (!ret && o->speedscope &&
	    !(ret = px_outfile_open(&fl->speedscope, o->speedscope, false)))
		fl->has_speedscope = true;
	return ret;
}

/* Commit them all after a run that succeeded, else discard them all. */
static int files_close(struct session_files *fl, int ret)
{
	if (fl->has_samples)
		ret = ret ? (px_smpl_out_discard(&fl->samples), ret) : px_smpl_out_commit(&fl->samples);
	if (fl->has_folded)
		ret = ret ? (px_outfile_discard(&fl->folded), ret) : px_outfile_commit(&fl->folded);
	if (fl->has_flame)
		ret = ret ? (px_outfile_discard(&fl->flame), ret) : px_outfile_commit(&fl->flame);
	if (fl->has_pprof)
		ret = ret ? (px_outfile_discard(&fl->pprof), ret) : px_outfile_commit(&fl->pprof);
	if (fl->has_script)
		ret = ret ? (px_outfile_discard(&fl->script), ret) : px_outfile_commit(&fl->script);
	if (fl->has_speedscope)
		ret = ret ? (px_outfile_discard(&fl->speedscope), ret) :
			    px_outfile_commit(&fl->speedscope);
	return ret;
}

/* The writers of each sample during the resolution: the sample file's
 * (out, NULL: none), the pprof profile, the perf script text and the
 * speedscope file (NULL: none). */
struct sample_writer {
	struct px_smpl_out *out;
	bool resolve;		/* --resolve-addresses: the sample file names
				 * places (the resolution gives them to pprof
				 * in any case) */
	const char **names;	/* room for a chain's frame names */
	size_t cap;
	struct px_pprof *pprof;
	struct px_perfscript *script;
	struct px_speedscope *speedscope;
};

/* A sample and its chain into the sample file. */
static int write_sample(struct sample_writer *w, const struct px_smpl_result *r,
			const struct px_sample *x, const struct px_location *loc,
			const struct px_chain *c, const uint32_t *frames, size_t n)
{
	struct px_smpl_out_chain oc = {
		c->kernel, c->nkernel, c->user, c->nuser, c->cut, NULL, 0,
	};

	if (!w->resolve)
		loc = NULL;
	if (!r->cg)
		return px_smpl_out_write_resolved(w->out, x, loc);
	if (w->resolve) {
		if (px_grow((void **)&w->names, &w->cap, 0, n, sizeof(*w->names), 256))
			return -ENOMEM;
		for (size_t i = 0; i < n; i++)	/* innermost first */
			w->names[i] = px_cg_frame_name(r->cg, frames[n - 1 - i]);
		oc.names = w->names;
		oc.nnames = n;
	}
	return px_smpl_out_write_chain(w->out, x, loc, &oc);
}

/* Each resolved sample to its writers (px_smpl_resolved_fn). */
static int sample_resolved(void *arg, const struct px_smpl_result *r,
			   const struct px_sample *x, const struct px_location *loc,
			   const struct px_chain *c, const uint32_t *frames, size_t n)
{
	struct sample_writer *w = arg;
	int ret = 0;

	if (w->out)
		ret = write_sample(w, r, x, loc, c, frames, n);
	if (!ret && w->pprof)
		ret = px_pprof_add(w->pprof, r, x, loc, c, frames, n);
	if (!ret && w->script)
		ret = px_perfscript_add(w->script, r, x, loc, c, frames, n);
	if (!ret && w->speedscope)
		ret = px_speedscope_add(w->speedscope, r, x, loc, c, frames, n);
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

/* A file the command maps: its debug file is inflated while it runs. */
static void prefetch_map(void *arg, const struct px_mapping *m)
{
	if (m->prot & PROT_EXEC)
		px_prefetch_file(arg, m->path);
}

static uint64_t elapsed_ns(const struct timespec *t0)
{
	struct timespec t1;

	clock_gettime(CLOCK_MONOTONIC, &t1);
	return (uint64_t)(t1.tv_sec - t0->tv_sec) * 1000000000ull +
	       (uint64_t)t1.tv_nsec - (uint64_t)t0->tv_nsec;
}

/* After the run: the resolution into r and the files, timed as
 * r->resolve_ns.  resolve: the sample file names places. */
static int resolve_and_write(const struct px_smpl_session *s,
			     const struct px_smpl_resolve_opts *o, bool resolve,
			     struct px_smpl_result *r, struct session_files *fl,
			     struct px_prefetch *prefetch)
{
	struct sample_writer w = { .out = fl->has_samples ? &fl->samples : NULL,
				   .resolve = resolve };
	struct px_prefetch_stats ahead;
	struct timespec t0;
	int ret = 0;

	clock_gettime(CLOCK_MONOTONIC, &t0);
	px_prefetch_finish(prefetch);
	px_prefetch_stats(prefetch, &ahead);
	px_prefetch_free(prefetch);
	if (fl->has_pprof)
		ret = px_pprof_new(&w.pprof, s);
	if (!ret && fl->has_script)
		ret = px_perfscript_new(&w.script, s, fl->script.f);
	if (!ret && fl->has_speedscope)
		ret = px_speedscope_new(&w.speedscope, s);
	if (!ret)
		ret = px_smpl_resolve(s, o, r, w.out || w.pprof || w.script || w.speedscope ?
				      sample_resolved : NULL, &w);
	px_perfscript_free(w.script);
	if (!ret && w.speedscope)
		ret = px_speedscope_write(w.speedscope, fl->speedscope.f);
	px_speedscope_free(w.speedscope);
	free(w.names);
	if (!ret && w.pprof)
		ret = px_pprof_write(w.pprof, fl->pprof.f);
	px_pprof_free(w.pprof);
	if (!ret && r->cg && fl->has_folded)
		ret = px_smpl_write_folded(r, fl->folded.f);
	if (!ret && r->cg && fl->has_flame)
		ret = px_smpl_write_flamegraph(r, fl->flame.f);
	ret = files_close(fl, ret);
	r->ahead_kernel = ahead.kernel;
	r->ahead_files = ahead.files;
	r->ahead_bytes = ahead.bytes;
	r->ahead_ns = ahead.busy_ns;
	r->resolve_ns = elapsed_ns(&t0);
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
	if (prefetch && px_smpl_reads_dwarf(&o->run, &o->resolve)) {
		run.on_map = prefetch_map;
		run.map_arg = prefetch;
	}
	ret = px_smpl_session_run(&run, s);
	if (ret) {
		px_prefetch_free(prefetch);
		return files_close(&fl, ret);
	}
	return resolve_and_write(s, &o->resolve, opts->resolve.resolve, r, &fl, prefetch);
}
