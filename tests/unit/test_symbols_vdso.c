/* Addresses in the [vdso] (px_symbols_*): the workload in
 * tests/workloads/symbols prints where the dynamic loader sees the vdso's
 * __vdso_clock_gettime; it must resolve to that function in module
 * "[vdso]" while the process lives (libdwfl reads the image from its
 * memory) and after it has exited, from the recorded [vdso] mapping (the
 * image is then this process's own vdso).  A [vdso] mapping of another
 * size (not the same image) keeps the module but names no function. */
#include "tap.h"
#include "child.h"

#include "error.h"
#include "symbols.h"

#include <libgen.h>
#include <limits.h>
#include <signal.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

/* The "fn vdso" address, read up to "ready"; 0 when there is none. */
static uint64_t read_vdso(struct child *c)
{
	char line[256];
	unsigned long long v;
	uint64_t addr = 0;

	while (fgets(line, sizeof(line), c->from)) {
		if (!strcmp(line, "ready\n"))
			return addr;
		if (sscanf(line, "fn vdso %llx", &v) == 1)
			addr = v;
	}
	return 0;
}

static bool vdso_name(const char *f)
{
	return !strcmp(f, "__vdso_clock_gettime") || !strcmp(f, "clock_gettime");
}

static void check(struct px_symbols *res, uint64_t fn, const char *label)
{
	const struct px_location *loc = NULL;

	if (!ok(px_symbols_resolve(res, fn, &loc) == 0, "%s: resolve", label))
		return;
	is_str(loc->module, "[vdso]", "%s: module [vdso]", label);
	ok(vdso_name(loc->func), "%s: __vdso_clock_gettime (got %s)", label, loc->func);
	is_int(loc->offset, 0, "%s: at its start", label);
	ok(!loc->kernel, "%s: not a kernel address", label);
	if (!ok(px_symbols_resolve(res, fn + 4, &loc) == 0, "%s: resolve +4", label))
		return;
	ok(vdso_name(loc->func), "%s: +4 still in it (got %s)", label, loc->func);
	is_int(loc->offset, 4, "%s: offset 4", label);
}

int main(void)
{
	char root[PATH_MAX], exe[PATH_MAX + 64], cmd[PATH_MAX + 64];
	struct px_maps maps = { 0 }, odd = { 0 };
	struct px_symbols *live = NULL, *rec = NULL, *other = NULL;
	const struct px_map *vm = NULL;
	const struct px_location *loc;
	struct child c;
	uint64_t fn;

	snprintf(root, sizeof(root), "%s", PX_TREE);	/* the repository */
	unsetenv("DEBUGINFOD_URLS");
	snprintf(cmd, sizeof(cmd), "%s/scripts/build-symbols-workload.sh >&2", root);
	if (!ok(system(cmd) == 0, "workload built"))
		return done_testing();
	snprintf(exe, sizeof(exe), "%s/tests/workloads/symbols/build/symwork", root);
	if (!ok(spawn(&c, exe) == 0, "workload started"))
		return done_testing();
	fn = read_vdso(&c);
	if (!ok(fn != 0, "the workload found __vdso_clock_gettime at %#llx",
		(unsigned long long)fn)) {
		finish(&c);
		return done_testing();
	}
	is_int(px_maps_snapshot(&maps, c.pid), 0, "maps snapshot");
	for (size_t i = 0; i < maps.n; i++)
		if (!strcmp(maps.v[i].path, "[vdso]"))
			vm = &maps.v[i];
	ok(vm && fn >= vm->start && fn < vm->start + vm->len,
	   "the snapshot holds the [vdso] mapping, around the function");

	if (is_int(px_symbols_open_pid(&live, c.pid, NULL), 0, "live resolver (%s)",
		   px_last_error()))
		check(live, fn, "live");
	is_int(finish(&c), 0, "workload exited 0");
	ok(kill(c.pid, 0) != 0, "the process is gone");

	if (is_int(px_symbols_open_maps(&rec, &maps, NULL), 0, "resolver from the maps"))
		check(rec, fn, "exited");

	/* not the same image: a [vdso] of another size */
	if (vm) {
		px_maps_add(&odd, vm->start, vm->len + 0x1000, 0, "[vdso]");
		if (is_int(px_symbols_open_maps(&other, &odd, NULL), 0, "resolver, odd [vdso]") &&
		    is_int(px_symbols_resolve(other, fn, &loc), 0, "odd [vdso]: resolve")) {
			is_str(loc->module, "[vdso]", "odd [vdso]: module still [vdso]");
			is_str(loc->func, "??", "odd [vdso]: no function named from another image");
		}
	}
	px_symbols_free(live);
	px_symbols_free(rec);
	px_symbols_free(other);
	px_maps_free(&maps);
	px_maps_free(&odd);
	return done_testing();
}
