/* --perf-script: the samples as the text `perf script` prints for samples
 * with call chains, which the Firefox Profiler, FlameGraph's
 * stackcollapse-perf.pl and speedscope import.  Internal to the library.
 *
 * Per sample, written during the resolution:
 *   COMM PID/TID [CPU] SECONDS.MICROS: PERIOD EVENT:
 *   \t    ADDR SYMBOL+0xOFF (MODULE)        one line a frame, innermost first
 *   (an empty line)
 * with perf's widths ("%5d/%-5d", "[%03d]", "%5lu.%06lu:", "%10lu",
 * addresses "%16lx").  The importers read the header with
 * /^(\S.+?)\s+(\d+)(?:\/?(\d+))?\s+/, the time with /\s+(\d+\.\d+):\s+/,
 * the event with /(\S+):\s*$/ and each frame with
 * /^\s*(\w+)\s*(.+) \((\S*)\)/ (the "+0xOFF" taken off).  EVENT: the
 * event as typed, "EVENT/setS" with several sets (the importers take the
 * event up to the first blank).  SECONDS: the sample's time stamp, in
 * seconds.  PERIOD: the period that ended in the sample.
 *
 * The frames are the call graph's (--call-graph): each named as the
 * profile and the folded stacks name it, an inlined function its own
 * frame; "[truncated]" last for a chain cut short; the process's name,
 * the root of the system-wide call graph, left out (the header has it).
 * The resolution hands on each frame's name and module, not its place,
 * so: the sampled place's frames have its address and its function's
 * offset; a caller's frame has its chain address when the chain's
 * addresses and frames pair one to one (no inlined caller), else 0, and
 * no offset.  Without --call-graph, the sampled place alone.  MODULE is
 * the mapped file's path, "[kernel.kallsyms]" for the kernel as perf
 * names it, "[unknown]" for none. */
#ifndef PX_PERFSCRIPT_H
#define PX_PERFSCRIPT_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "chains.h"
#include "smpl_resolve.h"

struct px_perfscript;

/* A writer of session s's samples to f.  0 or -ENOMEM. */
int px_perfscript_new(struct px_perfscript **out, const struct px_smpl_session *s, FILE *f);
void px_perfscript_free(struct px_perfscript *p);

/* One resolved sample as the resolution hands it (px_smpl_resolved_fn,
 * with px_smpl_resolve_opts.resolve: loc is never NULL).  0, or -errno
 * with px_last_error(). */
int px_perfscript_add(struct px_perfscript *p, const struct px_smpl_result *r,
		      const struct px_sample *x, const struct px_location *loc,
		      const struct px_chain *c, const uint32_t *frames, size_t n);

#endif
