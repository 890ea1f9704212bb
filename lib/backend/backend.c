/* Choosing a backend by name. */
#include "backend.h"
#include "error.h"

#include <errno.h>
#include <string.h>
#include <unistd.h>

#define PERFMON_DEVICE "/dev/perfmon"

int px_backend_select(const char *name, const struct px_backend **out)
{
	const struct px_backend *be;
	int ret;

	if (!name || !strcmp(name, "auto")) {
		/* the module when it is loaded and this user may open it
		 * (perfmon.ko wants CAP_PERFMON or its dev_gid group), else
		 * perf: a loaded module must not cost others their counters */
		if (!access(PERFMON_DEVICE, F_OK) && !px_backend_module.probe()) {
			*out = &px_backend_module;
			return 0;
		}
		be = &px_backend_perf;
	} else if (!strcmp(name, "perf"))
		be = &px_backend_perf;
	else if (!strcmp(name, "module"))
		be = &px_backend_module;
	else
		return px_fail(EINVAL,
			       "unknown backend '%s': use auto, perf or module",
			       name);
	ret = be->probe();
	if (ret)
		return ret;
	*out = be;
	return 0;
}
