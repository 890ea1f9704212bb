/* The shared-library path of the call-graph workload. */
#include "cg.h"

__attribute__((noinline)) static void lib_step(cg_leaf_fn leaf, long units)
{
	leaf(units);
	CG_KEEP_FRAME();
}

__attribute__((noinline)) void lib_walk(cg_leaf_fn leaf, long units)
{
	lib_step(leaf, units);
	CG_KEEP_FRAME();
}
