/* The dlopen'ed path of the call-graph workload. */
#include "cg.h"

__attribute__((noinline)) void dl_walk(cg_leaf_fn leaf, long units)
{
	leaf(units);
	CG_KEEP_FRAME();
}
