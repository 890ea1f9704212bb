/* The module backend's two halves: its counting groups and its table of
 * operations (lib/backend/module/backend_module.c) and its sampling
 * groups (lib/backend/module/sampler_module.c, the px_msmpl_* below,
 * which the table's operations call for a sampling group).  Every
 * /dev/perfmon ioctl stays in these two files, and what both do (program
 * a counter, create a set, read the PMDs with their times and activation
 * sums, the sets' runs) is done in one place. */
#ifndef PX_SAMPLER_MODULE_H
#define PX_SAMPLER_MODULE_H

#include <stddef.h>
#include <stdint.h>

#include "backend.h"
#include "callchain/perfmon_cc_smpl.h"
#include "events.h"

/* The module's largest sample: its post-check keeps room for an entry
 * header and all 64 PMDs (kernel/README.md). */
#define PX_MODULE_MAX_SAMPLE	(40 + 8 * 64)
/* The callchain format's: its 56-byte entry, all 64 PMDs and max_frames
 * frames. */
#define PX_MODULE_CC_MAX_SAMPLE(max_frames) (56 + 8 * 64 + 8 * (max_frames))
/* The callchain buffer's flags: the kernel and the user part (frame
 * pointers); the module refuses a user stack copy. */
#define PX_MODULE_CC_FLAGS	(PFM_CC_SMPL_KERNEL | PFM_CC_SMPL_USER)

/* The buffer size the module sampler asks for so that exactly `entries`
 * samples of nbody body values (and, with the callchain format,
 * max_frames frames) fill it (each half, for double-buffer), as
 * `entries` fill the perf sampler's buffer. */
uint64_t px_module_smpl_buf_size(enum px_smpl_format f, size_t entries,
				 unsigned nbody, unsigned max_frames);

/* Open /dev/perfmon and check the module's interface version;
 * *arg_size_max (when not NULL): the most bytes a vector command takes. */
int px_module_open_device(int *fd, uint32_t *arg_size_max);
/* Program counter k of event set `set` (PMC k, 64 + k, 128 + k) for ev;
 * like the counting backend, a kernel-level event the caller may not
 * count falls back to user level unless its level was chosen. */
int px_module_program(int fd, uint16_t set, unsigned int k, struct px_event *ev);

/* Event sets of one context. */
#define PX_MODULE_SETS_MAX	64
/* 0 when one context takes nsets sets, else -EINVAL with px_last_error(). */
int px_module_check_sets(size_t nsets);
/* 0 when the module can switch sets every timeout_ns, else -EINVAL. */
int px_module_check_timeout(uint64_t timeout_ns);
/* PFM_CREATE_EVTSETS of set id (set 0 exists: this modifies it) with
 * flags PFM_SETFL_* and, with PFM_SETFL_TIME_SWITCH, timeout_ns. */
int px_module_create_set(int fd, unsigned int id, uint32_t flags,
			 uint64_t timeout_ns);

/* One event's counter: PMD ctr of set (ctr < 0: not counted). */
struct px_module_pmd {
	int ctr;
	uint16_t set;
	/* read the event's count in its set's turns (reg_act_count), not
	 * the PMD's value: a sampling PMD's value restarts at each overflow */
	bool event_count;
};
/* counts[i] of regs[i]: the PMD's value (or event count), and its set's active time as
 * enabled and running time (zeros when not counted); PFM_READ_PMDS in
 * calls of at most arg_size_max bytes.  0 or -errno. */
int px_module_read(int fd, uint32_t arg_size_max,
		   const struct px_module_pmd *regs, size_t n,
		   struct px_count *counts);
/* acts[i] of regs[i]: the kernel's sums over its set's activations
 * (reg_act_*), converted for scale.h (zeros when a sum overflowed). */
int px_module_activations(int fd, uint32_t arg_size_max,
			  const struct px_module_pmd *regs, size_t n,
			  struct px_activations *acts);
/* runs[s] = set_runs of sets 0..nsets-1 (PFM_GETINFO_EVTSETS). */
int px_module_set_runs(int fd, uint64_t *runs, size_t nsets);
/* One sampling format the module has loaded. */
#define PX_MODULE_FORMATS_MAX	32
struct px_module_format {
	char name[32];
	uint8_t uuid[16];
	uint32_t flags;		/* PFM_FMTFL_* */
	uint64_t arg_size;	/* bytes of its argument */
};
/* The formats the module has loaded (PFM_GETINFO_FMTS), at most max, in
 * the order they registered; *n of them.  0, or -errno with
 * px_last_error() (ENODEV: the module is not loaded). */
int px_module_formats(struct px_module_format *out, size_t max, size_t *n);

/* PFM_LOAD_CONTEXT on the target, with its errors explained. */
int px_module_load(int fd, const struct px_target *t);

/* A sampling group of the module: one context with every set (o->pmds),
 * and the backend's operations on it (backend.h). */
int px_msmpl_open(const struct px_event_set *sets, size_t nsets,
		  const struct px_target *t, const struct px_group_opts *o,
		  struct px_group **out);
int px_msmpl_enable(struct px_group *g);
int px_msmpl_disable(struct px_group *g);
int px_msmpl_read(struct px_group *g, struct px_count *counts);
int px_msmpl_set_runs(struct px_group *g, uint64_t *runs, size_t nsets);
int px_msmpl_activations(struct px_group *g, struct px_activations *acts);
void px_msmpl_close(struct px_group *g);
int px_msmpl_finish(struct px_group *g);
int px_msmpl_poll(struct px_group *g, int timeout_ms);
size_t px_msmpl_pollfds(const struct px_group *g, struct pollfd *fds, size_t max);
void px_msmpl_stats(const struct px_group *g, struct px_smpl_stats *st);
size_t px_msmpl_mappings(const struct px_group *g, const struct px_mapping **m);
size_t px_msmpl_tasks(const struct px_group *g, const struct px_task_event **t);

#endif
