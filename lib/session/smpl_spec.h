/* pfmon's sampling options, as its command line gives them, turned into
 * the samplers' settings (lib/backend/sampler.h): per-set periods,
 * randomisation, triggers, the format and call chains.  The messages of
 * a refusal name the options. */
#ifndef PX_SMPL_SPEC_H
#define PX_SMPL_SPEC_H

#include <stdbool.h>
#include <stddef.h>

#include "sampler.h"

/* The sampling options of one event set (NULL: not given). */
struct px_smpl_set_spec {
	const char *long_periods;	/* "N,..." per sampling event */
	const char *short_periods;	/* "N,..." per sampling event */
	const char *random;		/* "MASK:SEED,..." per sampling event */
	const char *switch_ovfls;	/* "N,..." per sampling event: its
					 * set's turn ends after N overflows */
};

/* The sampling options as pfmon's command line gives them (NULL or 0:
 * not given). */
struct px_smpl_spec {
	struct px_smpl_set_spec *sets;	/* [nsets] each event set's */
	size_t nsets;
	const char *module;		/* "default" or "double-buffer" */
	long entries;			/* buffer capacity in samples */
	bool saturate;			/* no notification: keep the first
					 * buffer-full and stop recording */
	bool no_block;			/* do not hold the command during a
					 * notification (px_smpl_opts) */
	const char *call_graph;		/* "fp", "dwarf" or "dwarf,BYTES":
					 * call chains (the callchain format) */
	long max_frames;		/* frames per chain; 0: 127 */
};

/* Whether the options ask for sampling at all. */
bool px_smpl_spec_sampling(const struct px_smpl_spec *sp);

/* Per-PMD settings for the n events of event set `set`: event i samples
 * when the set's long-period list has an i-th period (a sampling event is
 * one with a period; the others only count and go into the sampling
 * events' sample bodies).  *pmds is the caller's to free().  -EINVAL with
 * px_last_error() for any malformed or inconsistent option (a usage
 * error). */
int px_smpl_spec_build(const struct px_smpl_spec *sp, size_t set, size_t n,
		       struct px_smpl_pmd **pmds, struct px_smpl_opts *o);

#endif
