/* --speedscope: the samples as a speedscope file (its file format,
 * https://www.speedscope.app/file-format-schema.json), which speedscope
 * opens as it is.  Internal to the library.
 *
 * Built during the resolution, a sample at a time, written after it:
 *  - shared.frames: each function once (name, and the source file of the
 *    first place in it, sampled or calling, that has one); no line, since
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

#include "smpl_export.h"

/* px_export_speedscope (smpl_export.h) writes the file after the last
 * sample. */

#endif
