/* An export of a sampling session's resolved samples into a file of a
 * viewer's format (--pprof, --perf-script, --speedscope): one shape for
 * each, so that the measurement (smpl_measure.c) opens, feeds, writes
 * and frees them all alike.  Internal to lib/report. */
#ifndef PX_SMPL_EXPORT_H
#define PX_SMPL_EXPORT_H

#include <stdio.h>

#include "smpl_resolve.h"

struct px_smpl_export {
	/* A new export of session s's samples into f (the export may write
	 * to f as samples come, or keep them until write).  0, or -errno
	 * with px_last_error(). */
	int (*open)(void **state, const struct px_smpl_session *s, FILE *f);
	/* One resolved sample, as the resolution hands it (with
	 * px_smpl_resolve_opts.resolve: its place is never NULL).  0, or
	 * -errno with px_last_error(). */
	int (*add)(void *state, const struct px_smpl_result *r,
		   const struct px_smpl_resolved *s);
	/* The file's end, after the last sample.  0, or -errno with
	 * px_last_error(). */
	int (*write)(void *state, FILE *f);
	void (*free)(void *state);	/* NULL state: nothing */
};

extern const struct px_smpl_export px_export_pprof;		/* pprof.h */
extern const struct px_smpl_export px_export_perfscript;	/* perfscript.h */
extern const struct px_smpl_export px_export_speedscope;	/* speedscope.h */

#endif
