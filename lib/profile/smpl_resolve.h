/* The resolution step after a sampling run (smpl_resolve.c): a
 * session's samples resolved against the programs that ran (per process
 * and exec), into a result: the profile of each sampled event and, with
 * call chains, the call graph. */
#ifndef PX_SMPL_RESOLVE_H
#define PX_SMPL_RESOLVE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "callgraph.h"
#include "profile.h"
#include "smpl_session.h"
#include "symbols.h"

#include "chains.h"

/* How the samples are resolved. */
struct px_smpl_resolve_opts {
	enum px_profile_by by;		/* profile key; system-wide, a
					 * profile of functions or lines
					 * is per process (its name) */
	bool resolve;			/* each sample's place, for the
					 * sample file */
	const char *kallsyms;		/* NULL: /proc/kallsyms */
};

/* What the resolution made of a session's samples. */
struct px_smpl_result {
	const struct px_smpl_session *session;	/* the run's, not owned */
	struct px_smpl_resolve_opts o;
	struct px_profile *profile;
	uint64_t unresolved;		/* samples whose function is ?? */
	struct px_cg *cg;		/* the stacks, per profile event */
	uint64_t frames;		/* frames resolved over all chains */
	uint64_t unknown_frames;	/* of those: "??" */
	uint64_t cut_chains;		/* chains cut short ([truncated]) */
	uint64_t resolve_ns;		/* wall time of the resolution step:
					 * symbols, chains, profiles, files */
	uint64_t export_ns;		/* of it: the exports' own work
					 * (--pprof, --perf-script,
					 * --speedscope) */
	/* read ahead during the run on another thread (lib/symbols/
	 * prefetch.h, by px_smpl_measure()): the kernel's table, debug
	 * files inflated */
	bool ahead_kernel;
	size_t ahead_files;
	uint64_t ahead_bytes, ahead_ns;
	/* files the command mapped that were replaced on disk before the
	 * run could hold them (lib/symbols/heldfiles.h): their addresses
	 * are left unknown (by px_smpl_measure()) */
	char **replaced;
	size_t nreplaced;
};

/* One sample once resolved: the sample, the name of the program its
 * process ran when it was taken, its place (with the resolve option,
 * else NULL), and with call graphs its chain and the chain's stack in
 * the call graph (lib/profile/chains.h: the frames, outermost first, and
 * the place of each address that gave them; n 0 without call graphs). */
struct px_smpl_resolved {
	const struct px_sample *x;
	const char *comm;
	const struct px_location *loc;
	const struct px_chain *chain;
	struct px_chain_stack stack;
};

/* Each sample once resolved, in the order taken (valid for the call; the
 * places' locations while r lives).  A non-zero return ends the
 * resolution with it. */
typedef int (*px_smpl_resolved_fn)(void *arg, const struct px_smpl_result *r,
				   const struct px_smpl_resolved *s);

/* Whether the profile is per process: system-wide, when it ranks places
 * (functions or lines), each row is a place in a process. */
bool px_smpl_per_process(const struct px_smpl_session_opts *so,
			 const struct px_smpl_resolve_opts *o);

/* Whether the resolution reads DWARF (lines, inline chains: call chains
 * name their inlined functions), or only the symbol tables, as perf
 * report's default sort needs. */
bool px_smpl_reads_dwarf(const struct px_smpl_session_opts *so,
			 const struct px_smpl_resolve_opts *o);

/* Resolve every sample of s into r (zeroed here; r->session is s), fn
 * (NULL: none) told of each.  0 or -errno with px_last_error(); free r
 * with px_smpl_result_free() in every case. */
int px_smpl_resolve(const struct px_smpl_session *s, const struct px_smpl_resolve_opts *o,
		    struct px_smpl_result *r, px_smpl_resolved_fn fn, void *arg);
void px_smpl_result_free(struct px_smpl_result *r);

/* The event and set of r's profile event e (px_profile_event() is its
 * label, "EVENT (set S)" with several sets): set's event i, in the order
 * of the sets and events; "?" and set -1 for samples of no known event. */
void px_smpl_result_event(const struct px_smpl_result *r, size_t e,
			  const char **name, long *set);

#endif
