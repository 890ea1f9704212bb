/* The module backend's helpers shared by its counting side
 * (lib/backend/module/backend_module.c) and its sampler (lib/backend/module/sampler_module.c): every
 * /dev/perfmon ioctl stays in these two files. */
#ifndef PX_SAMPLER_MODULE_H
#define PX_SAMPLER_MODULE_H

#include <stdint.h>

#include "backend.h"
#include "events.h"
#include "sampler.h"

/* The module's largest sample: its post-check keeps room for an entry
 * header and all 64 PMDs (kernel/README.md). */
#define PX_MODULE_MAX_SAMPLE	(40 + 8 * 64)

/* The buffer size the module sampler asks for so that exactly `entries`
 * samples of nbody body values fill it (each half, for double-buffer),
 * as `entries` fill the perf sampler's buffer. */
uint64_t px_module_smpl_buf_size(enum px_smpl_format f, size_t entries,
				 unsigned nbody);

/* Open /dev/perfmon and check the module's interface version. */
int px_module_open_device(int *fd);
/* Program counter k (PMC k, 64 + k, 128 + k of set 0) for ev; like the
 * counting backend, a kernel-level event the caller may not count falls
 * back to user level unless its level was chosen. */
int px_module_program(int fd, unsigned int k, struct px_event *ev);
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

#endif
