/* Call graphs: each event's samples as distinct call stacks with their
 * counts, and what is derived from them: each function's self and
 * inclusive ("children") samples, the callers and callees of a function as
 * trees, and folded stacks (one "frame;frame;frame COUNT" line per stack,
 * the format flame-graph tools read).
 *
 * Frames are interned: a frame is a name (a function, an inlined
 * function, "?? (module+0xoffset)", "[truncated]", a process) and the
 * module it is in; px_cg_frame() gives its number.  A stack is a list of
 * frame numbers, the outermost first.  Events are numbers the caller
 * chooses (the profile's, lib/profile/profile.h). */
#ifndef PX_CALLGRAPH_H
#define PX_CALLGRAPH_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>

struct px_cg;

int px_cg_new(struct px_cg **out);
void px_cg_free(struct px_cg *g);

/* The number of frame (name, module); the strings are copied.  A
 * number >= 0, or -ENOMEM. */
ssize_t px_cg_frame(struct px_cg *g, const char *name, const char *module);
const char *px_cg_frame_name(const struct px_cg *g, uint32_t frame);
const char *px_cg_frame_module(const struct px_cg *g, uint32_t frame);

/* Count `count` samples of event ev on the stack frames[0..n-1]
 * (outermost first; n >= 1).  0 or -ENOMEM. */
int px_cg_add(struct px_cg *g, size_t ev, const uint32_t *frames, size_t n,
	      uint64_t count);

/* The events that have stacks: one more than the highest ev added. */
size_t px_cg_events(const struct px_cg *g);
/* Event ev's samples (over its stacks). */
uint64_t px_cg_total(const struct px_cg *g, size_t ev);

/* Walk event ev's distinct stacks (in no particular order); a non-zero
 * return of fn stops the walk with it. */
typedef int (*px_cg_stack_fn)(void *arg, const uint32_t *frames, size_t n,
			      uint64_t count);
int px_cg_stacks(const struct px_cg *g, size_t ev, px_cg_stack_fn fn, void *arg);

/* A function (a frame) of an event: the samples where it is the
 * innermost frame (self) and those where it is on the stack at all
 * (total, each sample counted once however often the frame recurs). */
struct px_cg_func {
	uint32_t frame;
	uint64_t self, total;
	double self_pct, total_pct;	/* of the event's samples */
};

/* Event ev's functions by decreasing total (then self, then name).
 * *out is the caller's to free().  0 or -ENOMEM. */
int px_cg_functions(const struct px_cg *g, size_t ev, struct px_cg_func **out,
		    size_t *n);

/* A tree below one function, depth first, each node's children by
 * decreasing samples: callers (the function's callers, their callers...:
 * the stacks read outward from the function's innermost occurrence) or
 * callees (read inward from its outermost occurrence).  Node 0 is the
 * function itself (depth 0, its total samples); a callee tree's nodes
 * count the samples in that callee or below it. */
struct px_cg_node {
	uint32_t frame;
	unsigned depth;
	uint64_t count;
};
enum px_cg_direction { PX_CG_CALLERS, PX_CG_CALLEES };
int px_cg_tree(const struct px_cg *g, size_t ev, uint32_t frame,
	       enum px_cg_direction dir, struct px_cg_node **out, size_t *n);

/* Folded stacks of event ev, one line per distinct stack, sorted: frame
 * names joined by ';' (prefixed with `root;` when root is not NULL) and
 * the count.  0, or -errno of the write. */
int px_cg_write_folded(const struct px_cg *g, size_t ev, const char *root, FILE *f);

#endif
