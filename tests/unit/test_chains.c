/* Call chains into call-graph stacks (px_chains_add): the test's own
 * functions resolved by name, outermost frame first; user frames that
 * cannot be code (an address in the kernel's half, read off a stack whose
 * frame pointers lead nowhere) named unknown, never after a kernel
 * symbol; a return address of 0 ending the walk; a sampled address of 0
 * unknown; a chain cut short ending in "[truncated]"; each address's
 * place and the frames it gave handed on with the stack. */
#include "tap.h"

#include "callgraph.h"
#include "error.h"
#include "chains.h"
#include "symbols.h"

#include <stdint.h>
#include <string.h>
#include <unistd.h>

__attribute__((noinline)) void chains_inner(void)
{
	__asm__ volatile("");
}

__attribute__((noinline)) void chains_outer(void)
{
	chains_inner();
	__asm__ volatile("");
}

static const char *frame(const struct px_cg *g, const struct px_chain_stack *st, size_t i)
{
	return i < st->n ? px_cg_frame_name(g, st->frames[i]) : "(none)";
}

int main(void)
{
	struct px_symbols *res = NULL;
	struct px_chains *c = NULL;
	struct px_cg *g = NULL;
	struct px_chain_stack st;
	uint64_t unknown = 0;
	/* the sampled ip, then return addresses (resolved one byte back); a
	 * return address of 0 ends the walk */
	const uint64_t user[] = {
		(uintptr_t)chains_inner, (uintptr_t)chains_outer + 1,
		0xffffffff81000000ull, 0xffffffffffffffffull, 0, (uintptr_t)chains_outer + 1,
	};
	const uint64_t null_call[] = { 0, (uintptr_t)chains_outer + 1 };
	struct px_chain ch = { .user = user, .nuser = 2 };

	if (!is_int(px_symbols_open_pid(&res, getpid(), NULL), 0, "resolver (%s)",
		    px_last_error()) ||
	    !is_int(px_cg_new(&g), 0, "call graph") ||
	    !is_int(px_chains_new(&c, g), 0, "chains"))
		return done_testing();

	is_int(px_chains_add(c, res, NULL, 0, NULL, &ch, &st, &unknown), 0,
	       "a good chain");
	is_int((int)st.n, 2, "two frames");
	is_str(frame(g, &st, 0), "chains_outer", "outermost first");
	is_str(frame(g, &st, 1), "chains_inner", "then the sampled function");
	is_int((int)unknown, 0, "nothing unknown");
	if (is_int((int)st.nplaces, 2, "two places, innermost first")) {
		ok(st.places[0].ip == user[0] && st.places[0].loc &&
		   !strcmp(st.places[0].loc->func, "chains_inner") && st.places[0].nframes == 1,
		   "the sampled address, its place");
		ok(st.places[1].ip == user[1] && st.places[1].loc &&
		   st.places[1].loc->ip == user[1] - 1 &&
		   !strcmp(st.places[1].loc->func, "chains_outer"),
		   "the return address as taken, its call's place one byte back");
	}

	ch.nuser = 6;
	ch.cut = true;
	is_int(px_chains_add(c, res, NULL, 0, "proc", &ch, &st, &unknown), 0,
	       "a chain through garbage frame pointers");
	is_int((int)st.n, 6, "root, [truncated] and four frames");
	is_str(frame(g, &st, 0), "proc", "the root");
	is_str(frame(g, &st, 1), "[truncated]", "then the cut");
	is_str(frame(g, &st, 2), "?? ([unknown]+0xffffffffffffffff)",
	       "-1 as a return address: unknown, not a kernel place");
	is_str(frame(g, &st, 3), "?? ([unknown]+0xffffffff81000000)",
	       "a kernel-half user frame: unknown, not a kernel symbol");
	is_str(frame(g, &st, 4), "chains_outer", "the good frames follow");
	is_int((int)unknown, 2, "two unknown frames counted; the 0 ended the walk");
	if (is_int((int)st.nplaces, 4, "four places: the 0 gave none")) {
		ok(!st.places[2].loc && st.places[2].ip == user[2] && st.places[2].nframes == 1,
		   "a user address that cannot be code: no place, one frame");
	}

	ch = (struct px_chain){ .user = null_call, .nuser = 2 };
	unknown = 0;
	is_int(px_chains_add(c, res, NULL, 0, NULL, &ch, &st, &unknown), 0,
	       "a call through a null pointer");
	is_int((int)st.n, 2, "two frames");
	is_str(frame(g, &st, 1), "?? ([unknown]+0x0)",
	       "sampled at 0: unknown, and not wrapped to -1");
	is_str(frame(g, &st, 0), "chains_outer", "its caller");
	is_int((int)unknown, 1, "one unknown frame");
	is_int((int)px_cg_total(g, 0), 3, "three samples counted");

	px_chains_free(c);
	px_cg_free(g);
	px_symbols_free(res);
	return done_testing();
}
