/* The resolution step after a sampling run (smpl_resolve.c): the
 * session's samples resolved against the programs that ran, into its
 * profile (s->profile, s->unresolved) and call graph (s->cg, s->frames,
 * s->unknown_frames, s->cut_chains). */
#ifndef PX_SMPL_RESOLVE_H
#define PX_SMPL_RESOLVE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "chains.h"
#include "smpl_session.h"
#include "symbols.h"

/* Each sample once resolved, in the order taken: the sample, its place
 * (with the session's resolve option, else NULL), its chain and the
 * chain's frames in the call graph (n of them, outermost first).  A
 * non-zero return ends the resolution with it. */
typedef int (*px_smpl_resolved_fn)(void *arg, const struct px_smpl_session *s,
				   const struct px_sample *x,
				   const struct px_location *loc,
				   const struct px_chain *c,
				   const uint32_t *frames, size_t n);

/* Whether the resolution reads DWARF (lines, inline chains: call chains
 * name their inlined functions), or only the symbol tables, as perf
 * report's default sort needs. */
bool px_smpl_reads_dwarf(const struct px_smpl_session_opts *o);

/* Resolve every sample, fn (NULL: none) told of each.  0 or -errno with
 * px_last_error(). */
int px_smpl_resolve(struct px_smpl_session *s, px_smpl_resolved_fn fn, void *arg);

#endif
