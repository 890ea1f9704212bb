/* A sample's call chain as the call graph counts it: each address
 * resolved (the sampled one as is, return addresses at the call, one byte
 * back), each place expanded into its inlined functions, unknown places
 * named "?? (MODULE+0xOFFSET)", user addresses that cannot be code (in
 * the kernel's half: garbage frame pointers) "?? ([unknown]+0xADDRESS)",
 * the user part ended at a return address of 0, a chain cut short ended
 * by "[truncated]",
 * and the stack counted in the session's call graph (lib/profile/
 * callgraph.h), outermost frame first.  The resolution hands its
 * stacks (px_chain_stack) on to the front ends. */
#ifndef PX_CHAINS_H
#define PX_CHAINS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "callgraph.h"
#include "symbols.h"

struct px_chains;

int px_chains_new(struct px_chains **out, struct px_cg *cg);
void px_chains_free(struct px_chains *c);

/* One chain: kernel addresses then user ones, each part innermost first. */
struct px_chain {
	const uint64_t *kernel;
	size_t nkernel;
	const uint64_t *user;
	size_t nuser;
	bool cut;		/* cut short: ends in "[truncated]" */
};

/* One address of a counted chain and what it gave the stack: the
 * address as the chain has it (a caller's is its return address), its
 * place (a return address's is its call's, one byte back; NULL for a
 * user address that cannot be code) and the number of frames it gave
 * (its inline levels and its function; 1 without a place). */
struct px_chain_place {
	uint64_t ip;
	const struct px_location *loc;
	size_t nframes;
};

/* A counted chain's stack: frames[0..n) outermost first, and the
 * addresses that gave them, places[0..nplaces) innermost first (the
 * kernel's, then the user's): place 0's frames are the stack's last,
 * place 1's the ones before, and so on; the frames before all the
 * places' are "[truncated]" and the root, when the stack has them. */
struct px_chain_stack {
	const uint32_t *frames;
	size_t n;
	const struct px_chain_place *places;
	size_t nplaces;
};

/* Count one sample of event ev with chain ch, its user addresses
 * resolved with res (maps: the process's mappings, for the offsets of
 * unknown places), under the root frame `root` when not NULL (the
 * process, system-wide).  *out (valid until the next call; its places'
 * locations until res is freed) gets the stack.  *unknown is increased
 * by the "??" frames.  0 or -ENOMEM. */
int px_chains_add(struct px_chains *c, struct px_symbols *res, const struct px_maps *maps,
		  size_t ev, const char *root, const struct px_chain *ch,
		  struct px_chain_stack *out, uint64_t *unknown);

#endif
