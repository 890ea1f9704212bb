/* A sampling session's measurement and its outputs: the closing summary
 * (samples, lost, the buffer's events), the profile of each sampled
 * event, the sample file and the call graph's files. */
#ifndef PX_SMPL_REPORT_H
#define PX_SMPL_REPORT_H

#include <stdio.h>

#include "emit.h"
#include "smpl_resolve.h"
#include "smpl_session.h"

/* The summary of a resolved session and the profile of each sampled
 * event (with o->top rows; o->callers: the caller and callee trees of
 * the top functions too), in text, CSV or JSON as o says. */
void px_smpl_report_print(FILE *f, const struct px_smpl_result *r,
			  struct px_out *o);

/* --print-interval while sampling: the samples recorded and lost since
 * the last line, as the session's mon.on_interval with a struct
 * px_smpl_interval (zeroed but for f and out) as its argument. */
struct px_smpl_interval {
	FILE *f;
	struct px_out *out;
	uint64_t samples, lost;	/* at the last line */
};
void px_smpl_interval_print(const struct px_monitor *m, void *iv);

/* A whole sampling measurement: the run, its resolution, and the files
 * written from them. */
struct px_smpl_measure_opts {
	struct px_smpl_session_opts run;
	struct px_smpl_resolve_opts resolve;
	const char *smpl_outfile;	/* every sample, or NULL */
	bool json;			/* JSON Lines sample file */
	/* call graphs (run.smpl.callgraph): folded stacks and an SVG flame
	 * graph written to these files (NULL: not), whole or not at all */
	const char *folded;
	const char *flamegraph;
	/* a pprof profile (lib/report/pprof.h), gzipped, or NULL */
	const char *pprof;
	/* the samples as `perf script` prints them (lib/report/perfscript.h),
	 * or NULL */
	const char *perf_script;
	/* a speedscope file (lib/report/speedscope.h), or NULL */
	const char *speedscope;
};

/* The whole sampling measurement (smpl_measure.c): the files of o
 * opened, the session run into s, its samples resolved into r, the
 * sample file, folded stacks, flame graph, pprof profile, perf script
 * text and speedscope file written,
 * each whole or not at all.  As px_smpl_session_run() for the return
 * and for s; free s with px_smpl_session_free() and r with
 * px_smpl_result_free() in every case. */
int px_smpl_measure(const struct px_smpl_measure_opts *o, struct px_smpl_session *s,
		    struct px_smpl_result *r);

/* A resolved session's call graph as folded stacks, and as a flame graph
 * per event (smpl_graphs.c).  0 or -errno. */
int px_smpl_write_folded(const struct px_smpl_result *r, FILE *f);
int px_smpl_write_flamegraph(const struct px_smpl_result *r, FILE *f);

/* --smpl-module-info: the formats, their layouts and flags
 * (smpl_formats.c). */
void px_smpl_formats_print(FILE *f);

#endif
