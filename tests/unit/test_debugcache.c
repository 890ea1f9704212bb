/* Inflated copies of compressed separate debug files (debugcache.h): the
 * symbols workload's stripped executable, its debug file (by build-id)
 * compressed with objcopy into a scratch debug directory.  Resolution
 * through the copy gives what libdw gives reading the compressed file
 * itself (function, file, line, inline chain); the copy is the same file
 * with its sections inflated; a file changed since is not swapped; a file
 * with nothing compressed is not copied; and the prefetch thread makes the
 * copy of a mapped file's debug file when the debug directory is the
 * system's (checked on libc, whose debug file Debian's libc6-dbg ships
 * compressed). */
#include "tap.h"

#include "debugcache.h"
#include "error.h"
#include "prefetch.h"
#include "symbols.h"

#include <dirent.h>
#include <elfutils/libdwelf.h>
#include <fcntl.h>
#include <gelf.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <unistd.h>

#define BASE 0x555555554000ull

static char out[PATH_MAX];	/* the workload's build directory */
static char tmp[PATH_MAX];	/* scratch: tmp/.build-id/xx/yyyy.debug */

static int run(const char *cmd)
{
	int rc = system(cmd);

	return rc == -1 ? -1 : WEXITSTATUS(rc);
}

/* The value of symbol name in the ELF file at path (0: none), its size
 * in *size. */
static uint64_t symbol(const char *path, const char *name, uint64_t *size)
{
	int fd = open(path, O_RDONLY);
	Elf *e = fd < 0 ? NULL : elf_begin(fd, ELF_C_READ, NULL);
	Elf_Scn *scn = NULL;
	uint64_t v = 0;

	while (e && !v && (scn = elf_nextscn(e, scn))) {
		GElf_Shdr sh;
		Elf_Data *d;

		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_SYMTAB ||
		    !(d = elf_getdata(scn, NULL)))
			continue;
		for (size_t i = 0; i < sh.sh_size / sh.sh_entsize; i++) {
			GElf_Sym s;
			const char *n;

			if (gelf_getsym(d, (int)i, &s) &&
			    (n = elf_strptr(e, sh.sh_link, s.st_name)) && !strcmp(n, name)) {
				v = s.st_value;
				*size = s.st_size;
			}
		}
	}
	elf_end(e);
	if (fd >= 0)
		close(fd);
	return v;
}

/* How many of the file's sections are compressed (-1: not ELF). */
static int compressed_sections(const char *path)
{
	int fd = open(path, O_RDONLY), n = 0;
	Elf *e = fd < 0 ? NULL : elf_begin(fd, ELF_C_READ, NULL);
	Elf_Scn *scn = NULL;

	if (!e)
		n = -1;
	while (e && (scn = elf_nextscn(e, scn))) {
		GElf_Shdr sh;

		if (gelf_getshdr(scn, &sh) && (sh.sh_flags & SHF_COMPRESSED))
			n++;
	}
	elf_end(e);
	if (fd >= 0)
		close(fd);
	return n;
}

/* The one debug file under dir/.build-id: its path relative to dir. */
static int find_build_id_file(const char *dir, char *rel, size_t len)
{
	char path[2 * PATH_MAX + 600];
	struct dirent *a, *b;
	DIR *top, *sub;
	int found = -1;

	if ((size_t)snprintf(path, sizeof(path), "%s/.build-id", dir) >= sizeof(path))
		return -1;
	top = opendir(path);
	while (top && found && (a = readdir(top))) {
		if (a->d_name[0] == '.')
			continue;
		if ((size_t)snprintf(path, sizeof(path), "%s/.build-id/%s", dir,
				     a->d_name) >= sizeof(path))
			continue;
		sub = opendir(path);
		while (sub && found && (b = readdir(sub)))
			if (strstr(b->d_name, ".debug") && b->d_name[0] != '.') {
				snprintf(rel, len, ".build-id/%s/%s", a->d_name, b->d_name);
				found = 0;
			}
		if (sub)
			closedir(sub);
	}
	if (top)
		closedir(top);
	return found;
}

struct place {
	char func[128], file[PATH_MAX];
	int line;
	size_t n_inline;
	char inl[128];
};

/* Resolve ips with res into p, then free res. */
static int resolve_with(struct px_symbols *res, struct place *p, const uint64_t *ips, size_t n)
{
	int ret = 0;

	for (size_t i = 0; i < n && !ret; i++) {
		const struct px_location *loc;

		ret = px_symbols_resolve(res, ips[i], &loc);
		if (ret)
			break;
		snprintf(p[i].func, sizeof(p[i].func), "%s", loc->func);
		snprintf(p[i].file, sizeof(p[i].file), "%s", loc->file);
		p[i].line = loc->line;
		p[i].n_inline = loc->n_inline;
		snprintf(p[i].inl, sizeof(p[i].inl), "%s",
			 loc->n_inline ? loc->inlines[0].func : "");
	}
	px_symbols_free(res);
	return ret;
}

/* Resolve ips through a new resolver of this process (libc's debug files
 * in the system's places). */
static int resolve_self(struct place *p, const uint64_t *ips, size_t n)
{
	struct px_symbols *res = NULL;
	int ret = px_symbols_open_pid(&res, getpid(), NULL);

	return ret ? ret : resolve_with(res, p, ips, n);
}

/* Resolve the workload's functions through a new resolver of the stripped
 * executable mapped at BASE, its debug files searched in tmp. */
static int resolve(struct place *p, const uint64_t *ips, size_t n)
{
	char dpath[PATH_MAX + 8], exe[PATH_MAX + 32];
	struct px_symbols_opts opts = { 0 };
	struct px_maps maps = { 0 };
	struct px_symbols *res = NULL;
	struct stat st;
	int ret;

	snprintf(exe, sizeof(exe), "%s/stripped/symwork", out);
	snprintf(dpath, sizeof(dpath), ":%s", tmp);
	opts.debuginfo_path = dpath;
	if (stat(exe, &st) || px_maps_add(&maps, BASE, ((uint64_t)st.st_size + 4095) & ~4095ull, 0,
					  exe))
		return -1;
	ret = px_symbols_open_maps(&res, &maps, &opts);
	if (!ret)
		ret = resolve_with(res, p, ips, n);
	px_maps_free(&maps);
	return ret;
}

/* Every address resolved alike: the first difference is reported. */
static void same_places(const struct place *a, const struct place *b, size_t n,
			const char *label)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (strcmp(a[i].func, b[i].func) || strcmp(a[i].file, b[i].file) ||
		    a[i].line != b[i].line || a[i].n_inline != b[i].n_inline ||
		    strcmp(a[i].inl, b[i].inl))
			break;
	if (!ok(i == n, "%s: the %zu addresses resolve alike", label, n))
		diag("address %zu: %s %s:%d (%zu inlines, %s) against %s %s:%d (%zu inlines, %s)",
		     i, a[i].func, a[i].file, a[i].line, a[i].n_inline, a[i].inl, b[i].func,
		     b[i].file, b[i].line, b[i].n_inline, b[i].inl);
}

/* libc: the prefetch thread inflates the debug file of a mapped file by
 * its build-id in /usr/lib/debug. */
static void test_prefetch_libc(void)
{
	char libc[PATH_MAX] = "", line[PATH_MAX + 128];
	struct px_prefetch *p = NULL;
	FILE *maps = fopen("/proc/self/maps", "r");
	size_t before = px_debugcache_bytes(), n = 0, handed;
	/* functions no sanitizer intercepts: built with them, the address
	 * of qsort is the interceptor's in the program */
	void *fns[] = { (void *)labs, (void *)div, (void *)strverscmp, (void *)getpid };
	uint64_t ips[4 * 48];
	static struct place before_places[4 * 48], after_places[4 * 48];

	while (maps && fgets(line, sizeof(line), maps)) {
		char *path = strchr(line, '/');

		if (path && strstr(path, "/libc.so.6")) {
			path[strcspn(path, "\n")] = 0;
			snprintf(libc, sizeof(libc), "%s", path);
		}
	}
	if (maps)
		fclose(maps);
	if (!ok(libc[0], "libc is mapped: %s", libc))
		return;
	/* the first bytes of a few libc functions, by libdw alone */
	for (size_t f = 0; f < ARRAY_SIZE(fns); f++)
		for (size_t a = 0; a < 48; a++)
			ips[n++] = (uintptr_t)fns[f] + a;
	is_int(resolve_self(before_places, ips, n), 0, "libc resolved without a copy");
	ok(strstr(before_places[0].file, ".c") && before_places[0].line > 0,
	   "libc's lines known (libc6-dbg): %s %s:%d", before_places[0].func,
	   before_places[0].file, before_places[0].line);
	if (!is_int(px_prefetch_start(&p, false, NULL), 0, "prefetch started"))
		return;
	px_prefetch_file(p, libc);
	px_prefetch_file(p, libc);	/* once */
	px_prefetch_file(p, "relative/path");
	/* finish drops what has not started: wait for the work queued */
	for (int i = 0; i < 500 && px_debugcache_bytes() == before; i++)
		usleep(10000);
	px_prefetch_finish(p);
	ok(px_debugcache_bytes() > before,
	   "libc's compressed debug file (libc6-dbg) was inflated: %zu bytes",
	   px_debugcache_bytes() - before);
	handed = px_debugcache_handed();
	is_int(resolve_self(after_places, ips, n), 0, "libc resolved through the copy");
	ok(px_debugcache_handed() > handed, "libc's copy was handed to libdwfl");
	same_places(before_places, after_places, n, "libc");
	px_prefetch_free(p);
	is_int((int)px_debugcache_bytes(), 0, "the prefetch's end clears the cache");
}

int main(void)
{
	char src[3 * PATH_MAX], dbg[3 * PATH_MAX], rel[PATH_MAX], cmd[12 * PATH_MAX];
	const char *fns[] = { "hot_main", "inline_caller" };
	uint64_t ips[512];
	struct place *plain, *via_copy, *stale;
	size_t n = 0, handed, inlined = 0;

	elf_version(EV_CURRENT);
	snprintf(out, sizeof(out), "%s/tests/workloads/symbols/build", PX_TREE);
	snprintf(tmp, sizeof(tmp), "/tmp/test_debugcache.XXXXXX");
	if (!ok(mkdtemp(tmp) != NULL, "scratch directory"))
		return done_testing();
	snprintf(src, sizeof(src), "%s/debug", out);
	if (!is_int(find_build_id_file(src, rel, sizeof(rel)), 0, "the workload's debug file"))
		return done_testing();
	snprintf(dbg, sizeof(dbg), "%s/%s", tmp, rel);
	snprintf(cmd, sizeof(cmd), "mkdir -p \"$(dirname '%s')\" && "
		 "objcopy --compress-debug-sections=zlib '%s/%s' '%s'", dbg, src, rel, dbg);
	if (!is_int(run(cmd), 0, "objcopy compresses it") ||
	    !ok(compressed_sections(dbg) > 0, "its debug sections are compressed: %d",
		compressed_sections(dbg)))
		return done_testing();

	/* every address of the two functions */
	snprintf(src, sizeof(src), "%s/symwork", out);
	for (size_t f = 0; f < 2; f++) {
		uint64_t size = 0, v = symbol(src, fns[f], &size);

		ok(v && size, "%s at %#llx, %llu bytes", fns[f], (unsigned long long)v,
		   (unsigned long long)size);
		for (uint64_t a = 0; v && a < size && n < ARRAY_SIZE(ips); a++)
			ips[n++] = BASE + v + a;
	}
	plain = calloc(n, sizeof(*plain));
	via_copy = calloc(n, sizeof(*via_copy));
	stale = calloc(n, sizeof(*stale));
	if (!ok(n && plain && via_copy && stale, "%zu addresses", n))
		return done_testing();

	/* libdw reading the compressed file itself */
	is_int(resolve(plain, ips, n), 0, "resolved without a copy (%s)", px_last_error());
	is_str(plain[0].func, "hot_main", "hot_main named");
	ok(strstr(plain[0].file, "symwork.c") && plain[0].line > 0, "its line: %s:%d",
	   plain[0].file, plain[0].line);
	for (size_t i = 0; i < n; i++)
		inlined += plain[i].n_inline > 0;
	ok(inlined > 0, "%zu addresses in inline_caller's inlined function", inlined);

	/* through the inflated copy */
	is_int(px_debugcache_add(dbg), 0, "inflated");
	ok(px_debugcache_bytes() > 0, "the copy holds %zu bytes", px_debugcache_bytes());
	handed = px_debugcache_handed();
	is_int(resolve(via_copy, ips, n), 0, "resolved through the copy");
	is_int((int)(px_debugcache_handed() - handed), 1, "the copy was handed to libdwfl");
	same_places(plain, via_copy, n, "copy");

	/* a file changed since is read from itself */
	{
		struct timeval later[2];

		gettimeofday(&later[0], NULL);
		later[0].tv_sec += 10;
		later[1] = later[0];
		ok(utimes(dbg, later) == 0, "the debug file touched");
	}
	handed = px_debugcache_handed();
	is_int(resolve(stale, ips, n), 0, "resolved after the change");
	is_int((int)(px_debugcache_handed() - handed), 0, "a stale copy is not handed out");
	same_places(plain, stale, n, "stale");

	/* nothing compressed: nothing copied */
	px_debugcache_clear();
	snprintf(src, sizeof(src), "%s/debug/%s", out, rel);
	is_int(px_debugcache_add(src), 0, "a file with nothing compressed");
	is_int((int)px_debugcache_bytes(), 0, "is not copied");
	is_int(px_debugcache_add("/nonexistent/file.debug"), 0, "a missing file is no error");
	is_int((int)px_debugcache_bytes(), 0, "and nothing is kept");

	test_prefetch_libc();

	free(plain);
	free(via_copy);
	free(stale);
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", tmp);
	run(cmd);
	return done_testing();
}
