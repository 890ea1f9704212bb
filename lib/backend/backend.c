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

	if (!name || !strcmp(name, "auto"))
		be = access(PERFMON_DEVICE, F_OK) ? &px_backend_perf
						  : &px_backend_module;
	else if (!strcmp(name, "perf"))
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
