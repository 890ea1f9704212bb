/* --speedscope: the samples as a speedscope file (its file format,
 * https://www.speedscope.app/file-format-schema.json), which speedscope
 * opens as it is.  Internal to the library.
 *
 * Built during the resolution, a sample at a time, written after it:
 *  - shared.frames: each function once (name, and the source file the
 *    resolution gave a sampled place in it, when one did); no line, since
 *    a frame is a function, not one of its lines;
 *  - one profile of type "sampled" per thread and sampling event, named
 *    "COMM PID/TID" (" EVENT" after it with several sampling events), in
 *    the order of their first samples; unit "nanoseconds" for the clock
 *    events (cpu-clock, task-clock), else "none";
 *  - each sample's stack as frame indices, outermost first: the call
 *    graph's frames (--call-graph; the process, the root of a system-wide
 *    stack, left out: the profile names it), else the sampled function
 *    alone; its weight the period that ended in it;
 *  - startValue 0, endValue the sum of the weights. */
#ifndef PX_SPEEDSCOPE_H
#define PX_SPEEDSCOPE_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "chains.h"
#include "smpl_resolve.h"

struct px_speedscope;

/* A file for session s's samples.  0 or -ENOMEM. */
int px_speedscope_new(struct px_speedscope **out, const struct px_smpl_session *s);
void px_speedscope_free(struct px_speedscope *p);

/* One resolved sample, as the resolution hands it (px_smpl_resolved_fn,
 * with px_smpl_resolve_opts.resolve: loc is never NULL).  0, or -errno
 * with px_last_error(). */
int px_speedscope_add(struct px_speedscope *p, const struct px_smpl_result *r,
		      const struct px_sample *x, const struct px_location *loc,
		      const struct px_chain *c, const uint32_t *frames, size_t n);

/* The file, written to f.  0, or -errno with px_last_error(). */
int px_speedscope_write(struct px_speedscope *p, FILE *f);

#endif
