/* --pprof: a sampling session's samples as a pprof profile (Google's
 * profile.proto, gzipped), the format `go tool pprof` and the tools
 * around it read.  Internal to the library.
 *
 * Built during the resolution, a sample at a time, and written after it:
 *  - sample types: "samples"/"count" (1 a sample), then one per sampling
 *    event, named as pfmon's profile names it ("EVENT", or "EVENT (set S)"
 *    with several sets), unit "nanoseconds" for the clock events
 *    (cpu-clock, task-clock), else "events": a sample adds its period to
 *    its own event's value and 0 to the others', since it stands for a
 *    period's worth of that event.  pprof has one set of value types per
 *    profile: so several events and sets make one profile, each sample
 *    counted under its event (`-sample_index=EVENT` picks one);
 *  - each sample's stack, leaf first: the sampled place as one Location
 *    (its address, its mapping, one Line per inline level, innermost
 *    first, with the line of each), then the call graph's frames
 *    (--call-graph) outward, each a Location of its function alone: the
 *    resolution gives the frames' names but not their places (see
 *    px_pprof_add);
 *  - numeric labels pid, tid, cpu and set on every sample;
 *  - Mappings with their file, range, offset and build-id;
 *  - samples alike in all but their values (stack and labels) merged, as
 *    pprof itself would: their values summed. */
#ifndef PX_PPROF_H
#define PX_PPROF_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "chains.h"
#include "smpl_resolve.h"

struct px_pprof;

/* A profile for session s's sampling events.  0 or -ENOMEM. */
int px_pprof_new(struct px_pprof **out, const struct px_smpl_session *s);
void px_pprof_free(struct px_pprof *p);

/* One resolved sample, as the resolution hands it (px_smpl_resolved_fn,
 * with px_smpl_resolve_opts.resolve: loc is never NULL): its place,
 * and with call graphs its chain and its stack in r's call graph
 * (frames[0..n-1], outermost first; n 0 without).  The stack's last
 * frames are the sampled place's own (its inlined functions, then the
 * function holding it): those become the leaf Location, which loc gives
 * the address and lines of; the frames of the callers become Locations
 * of their functions.  0 or -ENOMEM. */
int px_pprof_add(struct px_pprof *p, const struct px_smpl_result *r,
		 const struct px_sample *x, const struct px_location *loc,
		 const struct px_chain *c, const uint32_t *frames, size_t n);

/* The profile, serialised and gzipped into f.  0, or -errno with
 * px_last_error(). */
int px_pprof_write(struct px_pprof *p, FILE *f);

#endif
