/* Stripped files: code no symbol covers is named after the function its
 * CFI (.eh_frame, .debug_frame) places it in, "MODULE+0xSTART"
 * (lib/symbols/cfifuncs.c).
 *
 * The symbols workload (tests/workloads/symbols) is built as it is and
 * stripped of every symbol (scripts/build-symbols-workload.sh).  Each
 * function of symwork.c, at its address in the unstripped file's symbol
 * table, must resolve in the stripped copy to "symwork+0x<that address>"
 * (the address nm gives), with the same name at its middle and last byte
 * and the offset from its start.  Three builds: a PIE, a fixed-address
 * one (so the name holds the file's address, not the load address or the
 * offset in the file) and a PIE whose CFI is in .debug_frame alone.  What
 * a symbol or a PLT stub names keeps its name, and what is no code keeps
 * "??".  The resolvers are built from mappings laid out here (no process
 * runs): the answers depend on the files alone. */
#include "tap.h"

#include "symbols.h"

#include <fcntl.h>
#include <gelf.h>
#include <inttypes.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static char out[PATH_MAX];	/* the workload's build directory */

/* The functions of symwork.c (the workload's source), each with an FDE. */
static const struct {
	int line;
	const char *name;
} funcs[] = {
	{ ROW, "hot_main" },
	{ ROW, "inline_caller" },
	{ ROW, "main" },
	{ ROW, "spin" },
	{ ROW, "now_ms" },
	{ ROW, "load_dl" },
	{ ROW, "shared_addr" },
	{ ROW, "vdso_addr" },
	{ ROW, "wait_line" },
	{ ROW, "spin_mode" },
};

/* Symbol name's value and size in path's .symtab (as nm -S gives them);
 * false when the file has no such symbol. */
static bool elf_symbol(const char *path, const char *name, uint64_t *value, uint64_t *size)
{
	int fd = open(path, O_RDONLY);
	Elf *elf = fd < 0 ? NULL : elf_begin(fd, ELF_C_READ, NULL);
	Elf_Scn *scn = NULL;
	bool found = false;

	while (elf && !found && (scn = elf_nextscn(elf, scn))) {
		GElf_Shdr mem, *sh = gelf_getshdr(scn, &mem);
		Elf_Data *data = sh && sh->sh_type == SHT_SYMTAB ? elf_getdata(scn, NULL) : NULL;

		for (size_t i = 0; data && sh->sh_entsize && i < sh->sh_size / sh->sh_entsize; i++) {
			GElf_Sym sym;
			const char *s;

			if (!gelf_getsym(data, (int)i, &sym) || sym.st_shndx == SHN_UNDEF)
				continue;
			s = elf_strptr(elf, sh->sh_link, sym.st_name);
			if (s && !strcmp(s, name)) {
				*value = sym.st_value;
				*size = sym.st_size;
				found = true;
				break;
			}
		}
	}
	if (elf)
		elf_end(elf);
	if (fd >= 0)
		close(fd);
	return found;
}

/* The address of section name in path; 0 when it has none. */
static uint64_t elf_section(const char *path, const char *name)
{
	int fd = open(path, O_RDONLY);
	Elf *elf = fd < 0 ? NULL : elf_begin(fd, ELF_C_READ, NULL);
	Elf_Scn *scn = NULL;
	uint64_t addr = 0;
	size_t shstrndx;

	if (elf && !elf_getshdrstrndx(elf, &shstrndx))
		while (!addr && (scn = elf_nextscn(elf, scn))) {
			GElf_Shdr mem, *sh = gelf_getshdr(scn, &mem);
			const char *s = sh ? elf_strptr(elf, shstrndx, sh->sh_name) : NULL;

			if (s && !strcmp(s, name))
				addr = sh->sh_addr;
		}
	if (elf)
		elf_end(elf);
	if (fd >= 0)
		close(fd);
	return addr;
}

/* path mapped whole from file offset 0 at load + its first segment's
 * address (load: the load bias, 0 for a fixed-address executable): the
 * resolver's module then has that bias.  No debug file is looked for
 * (the libraries' debuglinks lead to theirs, with their symbols). */
static struct px_symbols *resolver_at(const char *path, uint64_t load)
{
	int fd = open(path, O_RDONLY);
	Elf *elf = fd < 0 ? NULL : elf_begin(fd, ELF_C_READ, NULL);
	uint64_t low = UINT64_MAX, high = 0;
	struct px_maps maps = { 0 };
	struct px_symbols *res = NULL;
	size_t n = 0;

	if (elf && !elf_getphdrnum(elf, &n))
		for (size_t i = 0; i < n; i++) {
			GElf_Phdr mem, *ph = gelf_getphdr(elf, (int)i, &mem);

			if (!ph || ph->p_type != PT_LOAD)
				continue;
			if (ph->p_vaddr < low)
				low = ph->p_vaddr;
			if (ph->p_vaddr + ph->p_memsz > high)
				high = ph->p_vaddr + ph->p_memsz;
		}
	if (elf)
		elf_end(elf);
	if (fd >= 0)
		close(fd);
	low &= ~0xfffULL;
	high = (high + 0xfff) & ~0xfffULL;
	if (low < high && px_maps_add(&maps, load + low, high - low, 0, path) == 0)
		px_symbols_open_maps(&res, &maps, &(struct px_symbols_opts){
			.debuginfo_path = "/nonexistent", .functions_only = true });
	px_maps_free(&maps);
	return res;
}

static const struct px_location *resolve(struct px_symbols *res, uint64_t ip)
{
	static const struct px_location none = { .func = "(not resolved)", .module = "" };
	const struct px_location *loc = NULL;

	return res && px_symbols_resolve(res, ip, &loc) == 0 ? loc : &none;
}

/* Every function of funcs[] in the stripped copy of file (in out/),
 * loaded with bias load. */
static void test_functions(const char *file, uint64_t load)
{
	char plain[PATH_MAX + 64], stripped[PATH_MAX + 64], want[PATH_MAX + 128];
	struct px_symbols *res, *named;

	snprintf(plain, sizeof(plain), "%s/%s", out, file);
	snprintf(stripped, sizeof(stripped), "%s/stripped/%s", out, file);
	res = resolver_at(stripped, load);
	named = resolver_at(plain, load);
	if (!ok(res && named, "%s: resolvers of the stripped and the plain file", file))
		goto out;
	for (size_t i = 0; i < ARRAY_SIZE(funcs); i++) {
		const struct px_location *loc;
		uint64_t start, size, off[3];

		if (!ok_at(funcs[i].line, elf_symbol(plain, funcs[i].name, &start, &size) && size,
			   "%s: %s in the plain file's symbol table", file, funcs[i].name))
			continue;
		snprintf(want, sizeof(want), "%s+0x%" PRIx64, file, start);
		off[0] = 0;
		off[1] = size / 2;
		off[2] = size - 1;
		for (int k = 0; k < 3; k++) {
			loc = resolve(res, load + start + off[k]);
			is_str_at(funcs[i].line, loc->func, want, "%s: %s+0x%" PRIx64 " in the stripped file",
				  file, funcs[i].name, off[k]);
			is_int_at(funcs[i].line, loc->offset, off[k], "%s: %s+0x%" PRIx64 ": offset",
				  file, funcs[i].name, off[k]);
			is_str_at(funcs[i].line, loc->module, stripped, "%s: %s+0x%" PRIx64 ": module",
				  file, funcs[i].name, off[k]);
		}
		/* where a symbol covers the address, nothing changed */
		loc = resolve(named, load + start + size / 2);
		is_str_at(funcs[i].line, loc->func, funcs[i].name, "%s: %s in the plain file",
			  file, funcs[i].name);
	}
out:
	px_symbols_free(res);
	px_symbols_free(named);
}

/* A PLT stub keeps its name; the ELF header (no code) stays "??", in a
 * known module; an address in no module stays "??". */
static void test_not_functions(void)
{
	char stripped[PATH_MAX + 64];
	const uint64_t load = 0x555555554000ULL;
	struct px_symbols *res;
	const struct px_location *loc;
	uint64_t plt;
	size_t len;

	snprintf(stripped, sizeof(stripped), "%s/stripped/symwork", out);
	res = resolver_at(stripped, load);
	plt = elf_section(stripped, ".plt");
	if (!ok(res && plt, "symwork: resolver, and a .plt"))
		goto out;
	/* .plt's first 16 bytes are the lazy binder, the stubs follow */
	loc = resolve(res, load + plt + 16);
	len = strlen(loc->func);
	ok(len > 4 && !strcmp(loc->func + len - 4, "@plt"),
	   "symwork: .plt's first stub is NAME@plt (%s)", loc->func);
	loc = resolve(res, load + 0x10);
	is_str(loc->func, "??", "symwork: the ELF header is no function");
	is_str(loc->module, stripped, "symwork: the ELF header is in the module");
	loc = resolve(res, 0x1000);
	is_str(loc->func, "??", "an address in no module is ??");
	is_str(loc->module, "??", "an address in no module has no module");
out:
	px_symbols_free(res);
}

/* A stripped library keeps its exported functions' symbols (.dynsym):
 * they keep their names. */
static void test_library(void)
{
	char plain[PATH_MAX + 64], stripped[PATH_MAX + 64];
	const uint64_t load = 0x7f0000000000ULL;
	struct px_symbols *res;
	uint64_t start, size;

	snprintf(plain, sizeof(plain), "%s/libsymshared.so", out);
	snprintf(stripped, sizeof(stripped), "%s/stripped/libsymshared.so", out);
	res = resolver_at(stripped, load);
	if (ok(res && elf_symbol(plain, "hot_shared", &start, &size),
	       "libsymshared.so: resolver, and hot_shared's address"))
		is_str(resolve(res, load + start)->func, "hot_shared",
		       "libsymshared.so: an exported function keeps its name");
	px_symbols_free(res);
}

int main(void)
{
	char cmd[PATH_MAX + 128];

	elf_version(EV_CURRENT);
	snprintf(out, sizeof(out), "%s/tests/workloads/symbols/build", PX_TREE);
	unsetenv("DEBUGINFOD_URLS");	/* never go to the network */
	snprintf(cmd, sizeof(cmd), "%s/scripts/build-symbols-workload.sh >&2", PX_TREE);
	if (!ok(system(cmd) == 0, "workload built (scripts/build-symbols-workload.sh)"))
		return done_testing();
	test_functions("symwork", 0x555555554000ULL);
	test_functions("symwork-nopie", 0);
	test_functions("symwork-debugframe", 0x555555554000ULL);
	test_not_functions();
	test_library();
	return done_testing();
}
