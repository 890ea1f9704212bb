/* The perfmon kernel module backend: the one file that opens /dev/perfmon. */
#include "backend.h"
#include "error.h"

#include <errno.h>
#include <unistd.h>

#define PERFMON_DEVICE "/dev/perfmon"

static int module_probe(void)
{
	if (access(PERFMON_DEVICE, F_OK))
		return px_fail(ENODEV,
			       "the perfmon kernel module is not loaded (%s is missing): load perfmon.ko (see kernel/README.md) or use --backend=perf",
			       PERFMON_DEVICE);
	return px_fail(ENOSYS,
		       "the perfmon module backend is not built into this perfex yet: use --backend=perf");
}

static int module_open(struct px_event *evs, size_t n,
		       const struct px_target *t, int *status, void **state)
{
	(void)evs; (void)n; (void)t; (void)status; (void)state;
	return module_probe();
}

static int module_nop(void *state)
{
	(void)state;
	return module_probe();
}

static int module_read(void *state, struct px_count *counts)
{
	(void)state; (void)counts;
	return module_probe();
}

static void module_close(void *state)
{
	(void)state;
}

const struct px_backend px_backend_module = {
	.name = "module",
	.probe = module_probe,
	.open = module_open,
	.enable = module_nop,
	.disable = module_nop,
	.read = module_read,
	.close = module_close,
};
