/* Symbol resolution (px_symbols_*) against the workload in
 * tests/workloads/symbols/: a hot function in the main binary (PIE and
 * not), in a linked library, in a dlopen'ed library and an always_inline
 * one inlined into a caller.  The workload prints the run-time address of
 * each function and of a line tagged "MARK:<tag>" in its source; the
 * expected lines are read from the sources, never written here. */
#include "tap.h"
#include "child.h"

#include "error.h"
#include "symbols.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <libgen.h>
#include <limits.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

static char root[PATH_MAX];	/* the repository */
static char src[PATH_MAX + 64];	/* tests/workloads/symbols */
static char out[PATH_MAX + 128];	/* its build directory */

enum { T_MAIN, T_SHARED, T_DLOPEN, T_INLINE, NT };

static const struct {
	const char *tag;	/* "ip TAG" line and MARK:TAG in the source */
	const char *fn;		/* "fn NAME" line: the function holding the mark */
	const char *module;	/* basename of the file it lives in */
	const char *source;
} want[NT] = {
	[T_MAIN] = { "main", "hot_main", "symwork", "symwork.c" },
	[T_SHARED] = { "shared", "hot_shared", "libsymshared.so", "symshared.c" },
	[T_DLOPEN] = { "dlopen", "hot_dlopen", "libsymdl.so", "symdl.c" },
	[T_INLINE] = { "inline", "inline_caller", "symwork", "symwork.c" },
};

struct addrs {
	uint64_t fn[NT];
	uint64_t ip[NT];
};

static const char *base(const char *path)
{
	const char *s = strrchr(path, '/');

	return s ? s + 1 : path;
}

/* The line of SOURCE that carries "MARK:tag " (0 when there is none). */
static int mark_line(const char *source, const char *tag)
{
	char path[PATH_MAX + 256], line[512], needle[64];
	FILE *f;
	int n = 0, found = 0;

	snprintf(path, sizeof(path), "%s/%s", src, source);
	snprintf(needle, sizeof(needle), "MARK:%s ", tag);
	f = fopen(path, "r");
	if (!f)
		return 0;
	while (fgets(line, sizeof(line), f)) {
		n++;
		if (strstr(line, needle)) {
			found = n;
			break;
		}
	}
	fclose(f);
	return found;
}

/* Read "fn"/"ip" lines up to "ready"; -1 when the workload died first. */
static int read_until_ready(struct child *c, struct addrs *a)
{
	char line[256], kind[8], name[64];
	unsigned long long v;

	while (fgets(line, sizeof(line), c->from)) {
		if (!strcmp(line, "ready\n"))
			return 0;
		if (sscanf(line, "%7s %63s %llx", kind, name, &v) != 3)
			continue;
		for (int t = 0; t < NT; t++) {
			if (!strcmp(kind, "fn") && !strcmp(name, want[t].fn))
				a->fn[t] = v;
			if (!strcmp(kind, "ip") && !strcmp(name, want[t].tag))
				a->ip[t] = v;
		}
	}
	return -1;
}

/* Every check of one hot function through one resolver. */
static const char *main_module = "symwork";

static const char *module_of(int t)
{
	return t == T_MAIN || t == T_INLINE ? main_module : want[t].module;
}

static void check_one(struct px_symbols *res, const struct addrs *a, int t,
		      const char *label)
{
	const struct px_location *loc = NULL;
	int mark = mark_line(want[t].source, want[t].tag);

	if (!ok(a->fn[t] && a->ip[t], "%s %s: the workload printed its addresses",
		label, want[t].tag))
		return;

	/* the function's own address: name+0 */
	if (!ok(px_symbols_resolve(res, a->fn[t], &loc) == 0, "%s %s: resolve fn",
		label, want[t].tag))
		return;
	is_str(loc->func, want[t].fn, "%s %s: function name", label, want[t].tag);
	is_int(loc->offset, 0, "%s %s: at its start, offset 0", label, want[t].tag);
	is_str(base(loc->module), module_of(t), "%s %s: module", label, want[t].tag);

	/* the marked line inside it */
	if (!ok(px_symbols_resolve(res, a->ip[t], &loc) == 0, "%s %s: resolve ip",
		label, want[t].tag))
		return;
	is_str(loc->func, want[t].fn, "%s %s: function of the marked line",
	       label, want[t].tag);
	is_int(loc->offset, a->ip[t] - a->fn[t], "%s %s: offset = ip - function",
	       label, want[t].tag);
	is_str(base(loc->file), want[t].source, "%s %s: source file", label, want[t].tag);
	ok(mark > 0, "%s %s: MARK:%s found in %s", label, want[t].tag, want[t].tag,
	   want[t].source);
	is_int(loc->line, mark, "%s %s: source line", label, want[t].tag);
	ok(!loc->kernel, "%s %s: not a kernel address", label, want[t].tag);

	if (t != T_INLINE) {
		is_int(loc->n_inline, 0, "%s %s: no inline chain", label, want[t].tag);
		return;
	}
	if (!is_int(loc->n_inline, 1, "%s inline: one inlined frame", label))
		return;
	is_str(loc->inlines[0].func, "hot_inline", "%s inline: inlined function", label);
	is_str(base(loc->inlines[0].call_file), "symwork.c", "%s inline: call site file",
	       label);
	is_int(loc->inlines[0].call_line, mark_line("symwork.c", "inline_call"),
	       "%s inline: call site line", label);
}

static void check_all(struct px_symbols *res, const struct addrs *a, bool dl,
		      const char *label)
{
	for (int t = 0; t < NT; t++)
		if (t != T_DLOPEN || dl)
			check_one(res, a, t, label);
}

/* Only the mapping that holds each address, as perf MMAP records (without
 * mmap_data) give it: the executable segment, with its file offset. */
static void exec_only(const struct px_maps *all, const struct addrs *a,
		      struct px_maps *m)
{
	for (size_t i = 0; i < all->n; i++) {
		const struct px_map *p = &all->v[i];

		for (int t = 0; t < NT; t++)
			if (a->ip[t] >= p->start && a->ip[t] < p->start + p->len) {
				px_maps_add(m, p->start, p->len, p->pgoff, p->path);
				break;
			}
	}
}

static bool same_map(const struct px_map *x, const struct px_map *y)
{
	return x->start == y->start && x->len == y->len && !strcmp(x->path, y->path);
}

/* The PIE workload: live, with a library dlopen'ed after the resolver
 * was built, then from recorded mappings after it exited. */
static void test_live_and_recorded(const char *exe, const char *label)
{
	struct child c;
	struct addrs a = { 0 };
	struct px_maps before = { 0 }, after = { 0 }, exec = { 0 };
	struct px_symbols *live = NULL, *rec = NULL, *added = NULL, *ex = NULL;
	char l[64];
	int rc;

	main_module = base(exe);
	if (!ok(spawn(&c, exe) == 0 && read_until_ready(&c, &a) == 0,
		"%s: workload started and printed its addresses", label))
		return;

	rc = px_symbols_open_pid(&live, c.pid, NULL);
	is_int(rc, 0, "%s: resolver from the live pid (%s)", label, px_last_error());
	is_int(px_maps_snapshot(&before, c.pid), 0, "%s: maps snapshot", label);
	ok(before.n > 0, "%s: snapshot holds file mappings", label);
	rc = px_symbols_open_maps(&added, &before, NULL);
	is_int(rc, 0, "%s: resolver from the snapshot", label);
	if (live) {
		snprintf(l, sizeof(l), "%s live", label);
		check_all(live, &a, false, l);
	}

	/* now the workload dlopens libsymdl.so */
	if (!ok(write(c.to, "go\n", 3) == 3 && read_until_ready(&c, &a) == 0,
		"%s: workload dlopen'ed its library", label))
		goto out;
	if (live) {
		snprintf(l, sizeof(l), "%s live after dlopen", label);
		check_one(live, &a, T_DLOPEN, l);
	}
	is_int(px_maps_snapshot(&after, c.pid), 0, "%s: maps snapshot after dlopen", label);
	/* the new mappings, fed one at a time as MMAP records would be */
	if (added) {
		size_t n = 0;

		for (size_t i = 0; i < after.n; i++) {
			bool seen = false;

			for (size_t j = 0; j < before.n && !seen; j++)
				seen = same_map(&after.v[i], &before.v[j]);
			if (!seen && px_symbols_add_map(added, after.v[i].start, after.v[i].len,
							after.v[i].pgoff, after.v[i].path) == 0)
				n++;
		}
		ok(n > 0, "%s: dlopen added %zu mappings", label, n);
	}
	exec_only(&after, &a, &exec);
	is_int(finish(&c), 0, "%s: workload exited 0", label);
	ok(kill(c.pid, 0) != 0, "%s: process %d is gone", label, (int)c.pid);

	/* the process has exited: only recorded mappings are left */
	is_int(px_symbols_open_maps(&rec, &after, NULL), 0, "%s: resolver from the "
	       "recorded maps after exit", label);
	if (rec) {
		snprintf(l, sizeof(l), "%s exited, recorded maps", label);
		check_all(rec, &a, true, l);
	}
	if (added) {
		snprintf(l, sizeof(l), "%s exited, maps + later mappings", label);
		check_all(added, &a, true, l);
	}
	is_int(px_symbols_open_maps(&ex, &exec, NULL), 0, "%s: resolver from "
	       "executable mappings only", label);
	if (ex) {
		snprintf(l, sizeof(l), "%s exited, exec mappings only", label);
		check_all(ex, &a, true, l);
	}
out:
	px_symbols_free(live);
	px_symbols_free(rec);
	px_symbols_free(added);
	px_symbols_free(ex);
	px_maps_free(&before);
	px_maps_free(&after);
	px_maps_free(&exec);
}

/* The stripped copies: debug info only in separate files (build-id for
 * the executable, debuglink for the libraries). */
static void test_stripped(void)
{
	char exe[PATH_MAX + 256], dpath[PATH_MAX + 256];
	struct px_symbols_opts opts = { 0 };
	struct px_symbols *res = NULL, *plain = NULL;
	struct px_maps maps = { 0 };
	const struct px_location *loc;
	struct addrs a = { 0 };
	struct child c;

	snprintf(exe, sizeof(exe), "%s/stripped/symwork", out);
	snprintf(dpath, sizeof(dpath), ":.debug:%s/debug", out);
	opts.debuginfo_path = dpath;
	main_module = "symwork";
	if (!ok(spawn(&c, exe) == 0 && read_until_ready(&c, &a) == 0 &&
		write(c.to, "go\n", 3) == 3 && read_until_ready(&c, &a) == 0,
		"stripped: workload ran and dlopen'ed its library"))
		return;
	is_int(px_maps_snapshot(&maps, c.pid), 0, "stripped: maps snapshot");
	is_int(finish(&c), 0, "stripped: workload exited 0");

	is_int(px_symbols_open_maps(&res, &maps, &opts), 0, "stripped: resolver");
	if (res)
		check_all(res, &a, true, "stripped");

	/* the same without the build-id directory: the executable has no
	 * symbols and no lines of its own, so it must read ?? */
	is_int(px_symbols_open_maps(&plain, &maps, NULL), 0,
	       "stripped, default debuginfo path: resolver");
	if (plain && px_symbols_resolve(plain, a.ip[T_MAIN], &loc) == 0) {
		is_str(loc->file, "??", "stripped without its debug file: file ??");
		is_int(loc->line, 0, "stripped without its debug file: line 0");
		is_str(base(loc->module), "symwork", "stripped without its debug file: "
		       "module still known");
	}
	px_symbols_free(res);
	px_symbols_free(plain);
	px_maps_free(&maps);
}

static void test_bogus(void)
{
	struct px_symbols *res = NULL;
	struct px_maps none = { 0 };
	const struct px_location *loc = NULL, *again = NULL;
	char buf[64];

	if (!is_int(px_symbols_open_maps(&res, &none, NULL), 0, "bogus: empty resolver"))
		return;
	is_int(px_symbols_resolve(res, 0x10, &loc), 0, "bogus: resolve succeeds");
	is_str(loc->module, "??", "bogus: module ??");
	is_str(loc->func, "??", "bogus: function ??");
	is_str(loc->file, "??", "bogus: file ??");
	is_int(loc->line, 0, "bogus: line 0");
	is_int(loc->n_inline, 0, "bogus: no inline chain");
	px_location_format_func(loc, buf, sizeof(buf));
	is_str(buf, "??", "bogus: formats as ??");
	px_location_format_line(loc, buf, sizeof(buf));
	is_str(buf, "??:0", "bogus: line formats as ??:0");

	is_int(px_symbols_cached(res), 1, "cache: one address");
	px_symbols_resolve(res, 0x10, &again);
	ok(again == loc, "cache: the same address gives the same entry");
	is_int(px_symbols_cached(res), 1, "cache: still one address");
	px_symbols_resolve(res, 0x20, &again);
	is_int(px_symbols_cached(res), 2, "cache: a new address adds one");
	px_symbols_free(res);
}

static void test_kernel(void)
{
	static const char fake[] =
		"ffffffff81000000 T _stext\n"
		"ffffffff81000100 t foo\n"
		"ffffffff81000200 D some_data\n"
		"ffffffff81000300 T bar\n"
		"ffffffffc0000000 t modfn\t[mymod]\n";
	static const char zero[] =
		"0000000000000000 T _stext\n"
		"0000000000000000 t foo\n";
	char path[] = "/tmp/px-kallsyms-XXXXXX";
	struct px_symbols_opts opts = { .kallsyms = path };
	struct px_symbols *res = NULL;
	const struct px_location *loc;
	struct px_maps none = { 0 };
	char buf[64];
	int fd = mkstemp(path);

	if (!ok(fd >= 0 && write(fd, fake, sizeof(fake) - 1) == sizeof(fake) - 1,
		"kernel: fake kallsyms written"))
		return;
	close(fd);
	if (is_int(px_symbols_open_maps(&res, &none, &opts), 0, "kernel: resolver")) {
		px_symbols_resolve(res, 0xffffffff81000105ULL, &loc);
		ok(loc->kernel, "kernel: flagged as kernel");
		is_str(loc->func, "foo", "kernel: function from kallsyms");
		is_int(loc->offset, 5, "kernel: offset");
		is_str(loc->module, "[kernel]", "kernel: core kernel module");
		px_location_format_func(loc, buf, sizeof(buf));
		is_str(buf, "foo+0x5", "kernel: formats as foo+0x5");
		px_symbols_resolve(res, 0xffffffff81000250ULL, &loc);
		is_str(loc->func, "foo", "kernel: data symbols are not functions");
		px_symbols_resolve(res, 0xffffffffc0000010ULL, &loc);
		is_str(loc->func, "modfn", "kernel: module function");
		is_str(loc->module, "[mymod]", "kernel: module name");
		px_symbols_resolve(res, 0xffffffff80000000ULL, &loc);
		is_str(loc->func, "??", "kernel: below the first symbol is ??");
		is_str(loc->module, "[kernel]", "kernel: ... in [kernel]");
		px_symbols_free(res);
		res = NULL;
	}

	fd = open(path, O_WRONLY | O_TRUNC);
	ok(fd >= 0 && write(fd, zero, sizeof(zero) - 1) == sizeof(zero) - 1,
	   "kernel: zeroed kallsyms written");
	close(fd);
	if (is_int(px_symbols_open_maps(&res, &none, &opts), 0, "kernel: resolver (zeroed)")) {
		px_symbols_resolve(res, 0xffffffff81000105ULL, &loc);
		is_str(loc->module, "[kernel]", "kptr_restrict: [kernel]");
		is_str(loc->func, "??", "kptr_restrict: function ??");
		px_symbols_free(res);
		res = NULL;
	}
	unlink(path);

	/* the real one, when it is readable and not zeroed */
	{
		FILE *f = fopen("/proc/kallsyms", "r");
		char line[256], name[128], prev[128] = "";
		unsigned long long addr = 0, prev_addr = 0;
		char type;
		bool found = false;

		while (f && fgets(line, sizeof(line), f)) {
			if (sscanf(line, "%llx %c %127s", &addr, &type, name) != 3)
				continue;
			if (type != 'T' && type != 't')
				continue;
			/* a function at least 2 bytes long, with a unique address */
			if (*prev && addr > prev_addr + 1 && prev_addr && !strchr(line, '[')) {
				found = true;
				break;
			}
			snprintf(prev, sizeof(prev), "%s", name);
			prev_addr = addr;
		}
		if (f)
			fclose(f);
		if (!found) {
			ok(1, "# skip /proc/kallsyms unreadable or zeroed");
			return;
		}
		if (is_int(px_symbols_open_maps(&res, &none, NULL), 0, "kallsyms: resolver")) {
			px_symbols_resolve(res, prev_addr + 1, &loc);
			ok(loc->kernel, "kallsyms: kernel address");
			ok(!strcmp(loc->func, prev) || loc->offset == 1,
			   "kallsyms: %#llx+1 is %s+0x1 (got %s+%#" PRIx64 ")", prev_addr,
			   prev, loc->func, loc->offset);
			is_str(loc->module, "[kernel]", "kallsyms: module [kernel]");
			px_symbols_free(res);
		}
	}
}

static void test_maps_parse(void)
{
	static const char text[] =
		"55d0c0000000-55d0c0001000 r--p 00000000 fe:01 123  /usr/bin/prog\n"
		"55d0c0001000-55d0c0005000 r-xp 00001000 fe:01 123  /usr/bin/prog\n"
		"55d0c1000000-55d0c1021000 rw-p 00000000 00:00 0    [heap]\n"
		"7f0000000000-7f0000001000 rw-p 00000000 00:00 0 \n"
		"7f0000100000-7f0000200000 r-xp 00028000 fe:01 456  /lib/x86_64-linux-gnu/libc.so.6\n"
		"7ffd00000000-7ffd00002000 r-xp 00000000 00:00 0    [vdso]\n";
	struct px_maps m = { 0 };
	FILE *f = fmemopen((void *)text, sizeof(text) - 1, "r");

	if (!ok(f != NULL, "maps: stream"))
		return;
	is_int(px_maps_parse(&m, f), 0, "maps: parsed");
	fclose(f);
	if (is_int(m.n, 4, "maps: three file mappings and the vdso (no heap, anon)")) {
		is_int(m.v[1].start, 0x55d0c0001000ULL, "maps: start");
		is_int(m.v[1].len, 0x4000, "maps: length");
		is_int(m.v[1].pgoff, 0x1000, "maps: file offset");
		is_str(m.v[2].path, "/lib/x86_64-linux-gnu/libc.so.6", "maps: path");
		is_str(m.v[3].path, "[vdso]", "maps: the vdso");
		is_int(m.v[3].len, 0x2000, "maps: the vdso's length");
	}
	px_maps_free(&m);
	is_int(m.n, 0, "maps: freed");
}

int main(void)
{
	char cmd[PATH_MAX * 2 + 256];

	/* the repository, as the build gave it */
	snprintf(root, sizeof(root), "%s", PX_TREE);
	snprintf(src, sizeof(src), "%s/tests/workloads/symbols", root);
	snprintf(out, sizeof(out), "%s/build", src);
	unsetenv("DEBUGINFOD_URLS");	/* never go to the network */

	test_maps_parse();
	test_bogus();
	test_kernel();

	snprintf(cmd, sizeof(cmd), "%s/scripts/build-symbols-workload.sh >&2", root);
	if (!ok(system(cmd) == 0, "workload built (scripts/build-symbols-workload.sh)"))
		return done_testing();
	snprintf(cmd, sizeof(cmd), "%s/symwork", out);
	test_live_and_recorded(cmd, "pie");
	snprintf(cmd, sizeof(cmd), "%s/symwork-nopie", out);
	test_live_and_recorded(cmd, "no-pie");
	test_stripped();
	return done_testing();
}
