/* The samples of a sampling session as kept until the run is over, for
 * the resolution after it (lib/profile/smpl_resolve.c).  Internal to the
 * library. */
#ifndef PX_SMPL_STORE_H
#define PX_SMPL_STORE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "smpl_session.h"

/* One sample as kept until the run is over (its body in s->vals). */
struct px_smpl_rec {
	uint32_t pid, tid;
	uint16_t cpu, set, pmd, nvalues;
	uint64_t last_reset, tstamp, ip;
	size_t voff;
	/* the call chain: nkernel + nuser addresses at chain_ips + coff;
	 * with a stack copy (DWARF), its registers then stack_size bytes at
	 * stacks + soff */
	size_t coff, soff;
	uint16_t nkernel, nuser, cc_flags;
	bool has_stack;
	uint32_t stack_size;
};

#endif
