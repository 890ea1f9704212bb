/* The call-graph workload's shared declarations (see cgmain.c). */
#ifndef CG_H
#define CG_H

/* the leaf: spins for `units` units of work */
typedef void (*cg_leaf_fn)(long units);

/* libcgshared.so: lib_walk -> lib_step -> leaf */
void lib_walk(cg_leaf_fn leaf, long units);

/* libcgdl.so, dlopen'ed: dl_walk -> leaf */
void dl_walk(cg_leaf_fn leaf, long units);

/* a call the compiler cannot turn into a jump: the caller's frame stays */
#define CG_KEEP_FRAME() __asm__ volatile("" ::: "memory")

#endif
