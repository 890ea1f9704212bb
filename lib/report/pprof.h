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
 *  - each sample's stack, leaf first: each address of its chain
 *    (--call-graph; else the sampled address alone) one Location, with
 *    its address (a caller's: its call's, the return address less one,
 *    whose lines it has), its mapping, and one Line per inline level,
 *    innermost first, with the line of each: the sampled line in the
 *    innermost, in each function around it the call of the next one in;
 *    the frames no address gave ("[truncated]", the process at the root
 *    system-wide) and user addresses that cannot be code, a Location of
 *    their name alone;
 *  - numeric labels pid, tid, cpu and set on every sample;
 *  - Mappings with their file, range, offset and build-id;
 *  - samples alike in all but their values (stack and labels) merged, as
 *    pprof itself would: their values summed. */
#ifndef PX_PPROF_H
#define PX_PPROF_H

#include "smpl_export.h"

/* px_export_pprof (smpl_export.h) writes the profile, serialised and
 * gzipped, after the last sample. */

#endif
