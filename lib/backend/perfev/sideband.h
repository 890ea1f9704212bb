/* The side band of a sampling run, as perf record has it: a dummy perf
 * event whose ring gets the kernel's records of the files mapped
 * (PERF_RECORD_MMAP2), the names set by exec (COMM), forks and exits of a
 * task, its children when inherited, or every task on a CPU.  With them
 * the samples' addresses resolve to the programs that ran, even those
 * gone by the end.  The perf sampler has one beside each of its rings; the
 * module's samplers one per CPU when sampling system-wide. */
#ifndef PX_SIDEBAND_H
#define PX_SIDEBAND_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "perf_ring.h"
#include "backend.h"

/* What side bands decoded, in the order drained. */
struct px_records {
	struct px_mapping *maps;
	size_t nmaps, maps_cap;
	struct px_task_event *tasks;
	size_t ntasks, tasks_cap;
	uint64_t lost;		/* records the kernel could not store */
};

void px_records_free(struct px_records *r);

struct px_sideband {
	int fd;			/* -1: not open */
	struct px_ring ring;
};

/* Open the dummy event on t's task (its inherit and enable_on_exec) or on
 * cpu (t->pid -1), disabled; remove_on_exec for a sampler whose events
 * end at exec; wake_each: its fd polls readable at each record (a tool
 * told of each mapping as it comes), not only when half full.  0 or
 * -errno with px_last_error(). */
int px_sideband_open(struct px_sideband *sb, const struct px_target *t, int cpu,
		     bool remove_on_exec, bool wake_each);
int px_sideband_enable(struct px_sideband *sb);
int px_sideband_disable(struct px_sideband *sb);
/* Decode what its ring holds into r, and tell o->on_map (o may be NULL)
 * of each mapping decoded.  scratch: PX_RING_MAX_RECORD bytes. */
int px_sideband_drain(struct px_sideband *sb, unsigned char *scratch,
		      struct px_records *r, const struct px_smpl_opts *o);
void px_sideband_close(struct px_sideband *sb);

#endif
