/* Privilege levels for whole event sets: pfmon's -u/-k and --priv-levels
 * (the events after the last level listed get -u/-k's).  Without any,
 * both levels are counted, as perfex and perf stat do (old
 * pfmon counted user level only, which reads as zero for kernel-side
 * software events). */
#include "error.h"
#include "events.h"

#include <errno.h>
#include <string.h>

/* One --priv-levels entry: "u", "k" or "uk" (in any order). */
static int parse_level(const char *tok, size_t len, bool *u, bool *k)
{
	*u = memchr(tok, 'u', len) != NULL;
	*k = memchr(tok, 'k', len) != NULL;
	if ((!*u && !*k) || strspn(tok, "uk") < len)
		return px_fail(EINVAL, "bad privilege level '%.*s' in --priv-levels: use u, k or uk",
			       (int)len, tok);
	return 0;
}

static void set_levels(struct px_event *ev, bool u, bool k)
{
	ev->exclude_user = !u;
	ev->exclude_kernel = !k;
	ev->exclude_hv = !k;
	ev->priv_explicit = true;
}

int px_event_sets_levels(struct px_event_set *sets, size_t nsets,
			 bool user, bool kernel, const char *levels)
{
	bool any = user || kernel;
	const char *next = levels;

	for (size_t s = 0; s < nsets; s++) {
		for (size_t i = 0; i < sets[s].n; i++) {
			struct px_event *ev = &sets[s].events[i];
			bool u = user || !any, k = kernel || !any;

			if (next && *next) {
				size_t len = strcspn(next, ",");
				int ret = parse_level(next, len, &u, &k);

				if (ret)
					return ret;
				next += len + (next[len] == ',');
			} else if (ev->priv_explicit) {
				continue;
			}
			set_levels(ev, u, k);
		}
	}
	if (next && *next)
		return px_fail(EINVAL, "--priv-levels lists more levels than there are events");
	return 0;
}
