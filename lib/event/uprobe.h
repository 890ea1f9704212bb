/* uprobe events for pfmon and perfex: "uprobe:PATH:SYMBOL" counts (or
 * samples) every call of SYMBOL, a function of the ELF file PATH, exactly,
 * by a trap instruction the kernel plants at the function's entry.
 * "uprobe:PATH:0xOFFSET" names a file offset directly.  The probe is made
 * in tracefs (as perf probe makes it) for the life of this process, so
 * its events follow threads and children like any other; it is the exact
 * event of the sampling tests on machines whose hardware breakpoints do
 * not fire (virtual machines). */
#ifndef PX_UPROBE_H
#define PX_UPROBE_H

#include <stddef.h>
#include <stdint.h>

#include "events.h"

/* Whether spec is a uprobe event ("uprobe:" prefix). */
int px_uprobe_is(const char *spec);

/* Parse "uprobe:PATH:SYMBOL" or "uprobe:PATH:0xOFFSET" into ev: a
 * tracepoint event (PERF_TYPE_TRACEPOINT) on a probe in tracefs, group
 * px_PID, made on first use, shared by every event on the same place and
 * removed when this process exits.  Returns 0 or -errno with
 * px_last_error(): unreadable file, not ELF, no such function, no tracefs
 * or no right to write it (uprobes need root). */
int px_uprobe_parse(const char *spec, struct px_event *ev);

/* File offset of function sym in the ELF file path (for ET_EXEC and
 * ET_DYN alike: the symbol's address turned into its place in the file
 * through the PT_LOAD segment holding it). */
int px_elf_func_offset(const char *path, const char *sym, uint64_t *off);

#endif
