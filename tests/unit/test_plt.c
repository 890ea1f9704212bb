/* PLT stubs (lib/symbols/plt.c) get the names objdump gives them.
 *
 * For four files: the calls workload (a lazy .plt), the same program
 * linked for IBT (a lazy .plt beside .plt.sec), dash (a PIE whose .plt.got
 * is one stub) and this process's libc (IRELATIVE stubs,
 * "*ABS*+0x...@plt", and .plt.got), every byte of every
 * stub objdump labels is looked up, and must read objdump's label with
 * its offset in the stub.  objdump's own labels for the lazy headers
 * ("X@plt-0x10") and for IBT's whole lazy .plt (".plt") are read as what
 * we name them: the header ".plt", and IBT's lazy stub k the function of
 * .plt.sec's stub k - 1 (both follow .rela.plt's order).  Then the same
 * through the resolver of this live process: libc's stubs resolve to
 * their names, no longer to "??". */
#include "tap.h"
#include "plt.h"
#include "symbols.h"

#include <dlfcn.h>
#include <fcntl.h>
#include <elfutils/libdwfl.h>
#include <gelf.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

enum { MAX_STUBS = 4096 };

/* A stub as objdump labels it, in the file's addresses. */
struct label {
	uint64_t start, end;
	char name[256];
	char section[32];
};

struct labels {
	struct label v[MAX_STUBS];
	size_t n;
};

/* The section's end, from libelf (objdump's listing does not say). */
static uint64_t section_end(Elf *elf, const char *want)
{
	size_t shstrndx;
	Elf_Scn *scn = NULL;

	if (elf_getshdrstrndx(elf, &shstrndx))
		return 0;
	while ((scn = elf_nextscn(elf, scn))) {
		GElf_Shdr mem, *sh = gelf_getshdr(scn, &mem);
		const char *name = sh ? elf_strptr(elf, shstrndx, sh->sh_name) : NULL;

		if (name && !strcmp(name, want))
			return sh->sh_addr + sh->sh_size;
	}
	return 0;
}

/* objdump -d of the PLT sections: "ADDR <NAME>:" starts a stub, which
 * ends where the next starts or its section ends. */
static bool read_labels(const char *path, Elf *elf, struct labels *l)
{
	char cmd[4200], line[512], section[32] = "";
	FILE *p;

	snprintf(cmd, sizeof(cmd),
		 "objdump -d -j .plt -j .plt.sec -j .plt.got '%s' 2>/dev/null", path);
	if (!(p = popen(cmd, "r")))
		return false;
	l->n = 0;
	while (fgets(line, sizeof(line), p)) {
		unsigned long long a;
		char name[256];

		if (sscanf(line, "Disassembly of section %31[^:]:", section) == 1)
			continue;
		if (sscanf(line, "%llx <%255[^>]>:", &a, name) != 2 || l->n == MAX_STUBS)
			continue;
		if (l->n && !strcmp(l->v[l->n - 1].section, section))
			l->v[l->n - 1].end = a;
		l->v[l->n] = (struct label){ .start = a, .end = section_end(elf, section) };
		snprintf(l->v[l->n].name, sizeof(l->v[l->n].name), "%s", name);
		snprintf(l->v[l->n].section, sizeof(l->v[l->n].section), "%s", section);
		l->n++;
	}
	return pclose(p) == 0 && l->n > 0;
}

/* What we name the bytes [start, start + 16) of label i, per the header
 * comment; NULL when the label is not a stub's. */
static const char *expected(const struct labels *l, size_t i, uint64_t at, char *buf,
			    size_t len)
{
	const struct label *x = &l->v[i];

	if (strstr(x->name, "@plt-0x"))	/* objdump's name for a lazy header */
		return at - x->start < 16 ? ".plt" : NULL;
	if (!strcmp(x->name, ".plt")) {	/* IBT's lazy .plt, one label */
		size_t k = (at - x->start) / 16, sec = 0;

		if (!k)
			return ".plt";
		for (size_t j = 0; j < l->n; j++)
			if (!strcmp(l->v[j].section, ".plt.sec") && ++sec == k)
				return l->v[j].name;
		return NULL;
	}
	snprintf(buf, len, "%s", x->name);
	return buf;
}

static void check_file(const char *path)
{
	static struct labels l;
	Dwfl_Callbacks cb = { .find_elf = dwfl_build_id_find_elf,
			      .find_debuginfo = dwfl_standard_find_debuginfo };
	Dwfl *dwfl = dwfl_begin(&cb);
	Dwfl_Module *mod = dwfl ? dwfl_report_offline(dwfl, path, path, -1) : NULL;
	Dwarf_Addr bias = 0;
	Elf *elf = mod ? dwfl_module_getelf(mod, &bias) : NULL;
	struct px_plt *plt = elf ? px_plt_new(mod) : NULL;
	size_t checked = 0, wrong = 0;

	if (!ok(plt && read_labels(path, elf, &l), "%s: its PLT read, and objdump's labels", path))
		goto out;
	for (size_t i = 0; i < l.n; i++) {
		const struct label *x = &l.v[i];

		for (uint64_t at = x->start; at < x->end; at++) {
			char buf[256];
			const char *want = expected(&l, i, at, buf, sizeof(buf)), *got;
			uint64_t off = ~0ULL, want_off = at - x->start;

			if (!want)
				continue;
			/* a label over several 16-byte stubs: each its own */
			if (!strcmp(x->name, ".plt") || strstr(x->name, "@plt-0x"))
				want_off %= 16;
			got = px_plt_lookup(plt, at + bias, &off);
			checked++;
			if (!got || strcmp(got, want) || off != want_off) {
				if (wrong++ < 5)
					diag("%s+0x%" PRIx64 ": %s+0x%" PRIx64 ", objdump %s+0x%" PRIx64,
					     path, at, got ? got : "NULL", off, want, want_off);
			}
		}
	}
	ok(checked > 0 && !wrong, "%s: %zu bytes of %zu stubs named as objdump names them",
	   path, checked, l.n);
	{
		uint64_t off, before = l.v[0].start - 1;

		/* no PLT section ends where another starts in these files */
		ok(!px_plt_lookup(plt, before + bias, &off) &&
		   !px_plt_lookup(plt, l.v[l.n - 1].end + bias, &off),
		   "%s: the bytes just outside the PLT sections are not named", path);
	}
out:
	px_plt_free(plt);
	if (dwfl)
		dwfl_end(dwfl);
}

/* The live resolver: a libc stub's address in this process. */
static void check_live(const char *libc)
{
	static struct labels l;
	Dl_info info;
	struct px_symbols *res = NULL;
	const struct px_location *loc;
	size_t named = 0, checked = 0;
	int fd = -1;
	Elf *elf = NULL;

	if (!dladdr((void *)printf, &info)) {
		ok(0, "dladdr finds libc");
		return;
	}
	elf_version(EV_CURRENT);
	fd = open(libc, O_RDONLY);
	elf = fd >= 0 ? elf_begin(fd, ELF_C_READ, NULL) : NULL;
	if (!ok(elf && read_labels(libc, elf, &l) && !px_symbols_open_pid(&res, getpid(), NULL),
		"this process's resolver and libc's labels"))
		goto out;
	for (size_t i = 0; i < l.n; i++) {
		char buf[256];
		const char *want = expected(&l, i, l.v[i].start + 6, buf, sizeof(buf));

		if (!want || px_symbols_resolve(res, (uintptr_t)info.dli_fbase + l.v[i].start + 6,
						&loc))
			continue;
		checked++;
		if (loc->func && !strcmp(loc->func, want) && loc->offset == 6)
			named++;
		else if (checked - named <= 5)
			diag("libc+0x%" PRIx64 ": %s+0x%" PRIx64 ", want %s+0x6",
			     l.v[i].start + 6, loc->func ? loc->func : "NULL", loc->offset, want);
	}
	ok(checked > 10 && named == checked,
	   "the live resolver names %zu of %zu libc stubs as objdump does", named, checked);
out:
	px_symbols_free(res);
	if (elf)
		elf_end(elf);
	if (fd >= 0)
		close(fd);
}

int main(void)
{
	Dl_info info;

	elf_version(EV_CURRENT);
	check_file(PX_TREE "/build/tests/workloads/calls");
	check_file(PX_TREE "/build/tests/workloads/calls_ibtplt");
	/* a PIE whose .plt.got holds a single stub (__cxa_finalize) */
	check_file("/usr/bin/dash");
	if (!dladdr((void *)printf, &info))
		info.dli_fname = NULL;
	if (ok(info.dli_fname, "libc's path: %s", info.dli_fname ? info.dli_fname : "none")) {
		check_file(info.dli_fname);
		check_live(info.dli_fname);
	}
	return done_testing();
}
