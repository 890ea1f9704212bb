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
 * Each frame has the chain address that gave it (a caller's: its return
 * address, as perf prints it), the function's frame of each address its
 * offset in the function (the inlined functions' frames none, as perf
 * prints them); "[truncated]" has address 0.  Without --call-graph, the
 * sampled place alone.  MODULE is
 * the mapped file's path, "[kernel.kallsyms]" for the kernel as perf
 * names it, "[unknown]" for none. */
#ifndef PX_PERFSCRIPT_H
#define PX_PERFSCRIPT_H

#include "smpl_export.h"

/* px_export_perfscript (smpl_export.h) writes each sample as it comes. */

#endif
