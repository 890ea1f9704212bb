#include "plt.h"
#include "grow.h"

#include <gelf.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The relocation types that fill a PLT stub's GOT slot (x86-64 psABI). */
#ifndef R_X86_64_GLOB_DAT
#define R_X86_64_GLOB_DAT 6
#endif
#ifndef R_X86_64_JUMP_SLOT
#define R_X86_64_JUMP_SLOT 7
#endif
#ifndef R_X86_64_IRELATIVE
#define R_X86_64_IRELATIVE 37
#endif

struct stub {
	uint64_t start, end;	/* module addresses */
	const char *name;	/* into px_plt.names */
};

struct px_plt {
	struct stub *stub;	/* sorted by start, disjoint */
	size_t n, cap;
	char **names;		/* every name made, to free */
	size_t nnames, names_cap;
};

/* A GOT slot and the name of the function a relocation puts in it. */
struct slot {
	uint64_t got;		/* ELF address */
	char *name;		/* "NAME@plt", owned by px_plt.names */
};

struct slots {
	struct slot *v;		/* sorted by GOT address once all are read */
	size_t n, cap;
	char **jump;		/* .rela.plt's names in its order: a lazy
				 * stub's push gives an index into it */
	size_t njump, jump_cap;
};

static char *keep_name(struct px_plt *p, char *name)
{
	if (!name || px_grow((void **)&p->names, &p->names_cap, p->nnames, 1,
			     sizeof(*p->names), 64)) {
		free(name);
		return NULL;
	}
	return p->names[p->nnames++] = name;
}

/* perf's and objdump's names: the symbol's, or for an IRELATIVE
 * relocation (no symbol: a function chosen at load time) its resolver's
 * address. */
static char *stub_name(Elf *elf, const GElf_Shdr *rel, Elf_Data *syms, const GElf_Rela *r)
{
	size_t symndx = GELF_R_SYM(r->r_info);
	GElf_Sym sym;
	const char *s = NULL;
	char *name;

	if (symndx && syms && gelf_getsym(syms, (int)symndx, &sym)) {
		Elf_Scn *symscn = elf_getscn(elf, rel->sh_link);
		GElf_Shdr mem, *sh = symscn ? gelf_getshdr(symscn, &mem) : NULL;

		s = sh ? elf_strptr(elf, sh->sh_link, sym.st_name) : NULL;
	}
	if (s && *s)
		return asprintf(&name, "%s@plt", s) < 0 ? NULL : name;
	return asprintf(&name, "*ABS*+0x%" PRIx64 "@plt", (uint64_t)r->r_addend) < 0 ? NULL : name;
}

/* The relocations of one RELA section that fill PLT slots. */
static bool read_relocs(struct px_plt *p, struct slots *sl, Elf *elf, Elf_Scn *scn,
			const GElf_Shdr *sh, bool is_rela_plt)
{
	Elf_Scn *symscn = sh->sh_link ? elf_getscn(elf, sh->sh_link) : NULL;
	Elf_Data *data = elf_getdata(scn, NULL), *syms = symscn ? elf_getdata(symscn, NULL) : NULL;
	size_t n = sh->sh_entsize ? sh->sh_size / sh->sh_entsize : 0;

	for (size_t i = 0; data && i < n; i++) {
		GElf_Rela r;
		unsigned type;

		if (!gelf_getrela(data, (int)i, &r))
			break;
		type = (unsigned)GELF_R_TYPE(r.r_info);
		if (type != R_X86_64_JUMP_SLOT && type != R_X86_64_GLOB_DAT &&
		    type != R_X86_64_IRELATIVE)
			continue;
		if (px_grow((void **)&sl->v, &sl->cap, sl->n, 1, sizeof(*sl->v), 256) ||
		    (is_rela_plt && px_grow((void **)&sl->jump, &sl->jump_cap, sl->njump, 1,
					    sizeof(*sl->jump), 256)))
			return false;
		sl->v[sl->n] = (struct slot){ r.r_offset, keep_name(p, stub_name(elf, sh, syms, &r)) };
		if (!sl->v[sl->n].name)
			return false;
		if (is_rela_plt)
			sl->jump[sl->njump++] = sl->v[sl->n].name;
		sl->n++;
	}
	return true;
}

static int by_got(const void *a, const void *b)
{
	const struct slot *x = a, *y = b;

	return x->got < y->got ? -1 : x->got > y->got;
}

static const char *slot_name(const struct slots *sl, uint64_t got)
{
	struct slot key = { got, NULL }, *s = bsearch(&key, sl->v, sl->n, sizeof(*sl->v), by_got);

	return s ? s->name : NULL;
}

static bool is_endbr64(const unsigned char *b, size_t len)
{
	return len >= 4 && b[0] == 0xf3 && b[1] == 0x0f && b[2] == 0x1e && b[3] == 0xfa;
}

/* The function an x86-64 stub of len bytes at addr leads to:
 *   jmp *GOT(%rip)                    (.plt, .plt.got; ff 25 disp32)
 *   endbr64; bnd jmp *GOT(%rip)       (.plt.sec, and .plt.got with IBT)
 *   [endbr64;] push $INDEX; ...       (a lazy stub of .plt with IBT: the
 *                                      INDEX-th relocation of .rela.plt)
 * NULL for anything else, such as .plt's first stub (push GOT+8; jmp). */
static const char *stub_target(const struct slots *sl, const unsigned char *b, size_t len,
			       uint64_t addr)
{
	size_t p = is_endbr64(b, len) ? 4 : 0;

	if (p < len && b[p] == 0xf2)	/* bnd prefix */
		p++;
	if (p + 6 <= len && b[p] == 0xff && b[p + 1] == 0x25) {
		int32_t disp;

		memcpy(&disp, b + p + 2, sizeof(disp));
		return slot_name(sl, addr + p + 6 + (int64_t)disp);
	}
	p = is_endbr64(b, len) ? 4 : 0;
	if (p + 5 <= len && b[p] == 0x68) {
		uint32_t index;

		memcpy(&index, b + p + 1, sizeof(index));
		return index < sl->njump ? sl->jump[index] : NULL;
	}
	return NULL;
}

static bool is_plt_section(const char *name)
{
	return name && (!strcmp(name, ".plt") || !strcmp(name, ".plt.sec") ||
			!strcmp(name, ".plt.got"));
}

static bool add_stub(struct px_plt *p, uint64_t start, uint64_t end, const char *name)
{
	if (px_grow((void **)&p->stub, &p->cap, p->n, 1, sizeof(*p->stub), 64))
		return false;
	p->stub[p->n++] = (struct stub){ start, end, name };
	return true;
}

/* One PLT section's stubs: on x86-64 each of sh_entsize bytes named after
 * its target; elsewhere (or for a stub not understood) the section's
 * name, so that its addresses still say where they are. */
static bool read_section(struct px_plt *p, const struct slots *sl, Elf_Scn *scn,
			 const GElf_Shdr *sh, const char *secname, bool x86_64, uint64_t bias)
{
	Elf_Data *data = sh->sh_type == SHT_PROGBITS ? elf_rawdata(scn, NULL) : NULL;
	size_t step = x86_64 && data && sh->sh_entsize ? sh->sh_entsize : sh->sh_size;

	for (size_t off = 0; step && off < sh->sh_size; off += step) {
		size_t len = off + step <= sh->sh_size ? step : sh->sh_size - off;
		const char *name = NULL;

		if (step < sh->sh_size && off + len <= data->d_size)
			name = stub_target(sl, (const unsigned char *)data->d_buf + off, len,
					   sh->sh_addr + off);
		if (!add_stub(p, sh->sh_addr + off + bias, sh->sh_addr + off + len + bias,
			      name ? name : secname))
			return false;
	}
	return true;
}

static int by_start(const void *a, const void *b)
{
	const struct stub *x = a, *y = b;

	return x->start < y->start ? -1 : x->start > y->start;
}

static bool read_plt(struct px_plt *p, Elf *elf, uint64_t bias)
{
	GElf_Ehdr eh;
	size_t shstrndx;
	struct slots sl = { 0 };
	Elf_Scn *scn = NULL;
	bool ok = true, x86_64;

	if (!gelf_getehdr(elf, &eh) || elf_getshdrstrndx(elf, &shstrndx))
		return true;	/* nothing to name */
	x86_64 = eh.e_machine == EM_X86_64;
	while (ok && x86_64 && (scn = elf_nextscn(elf, scn))) {
		GElf_Shdr mem, *sh = gelf_getshdr(scn, &mem);
		const char *name = sh ? elf_strptr(elf, shstrndx, sh->sh_name) : NULL;

		if (sh && sh->sh_type == SHT_RELA)
			ok = read_relocs(p, &sl, elf, scn, sh, name && !strcmp(name, ".rela.plt"));
	}
	if (sl.n)
		qsort(sl.v, sl.n, sizeof(*sl.v), by_got);
	scn = NULL;
	while (ok && (scn = elf_nextscn(elf, scn))) {
		GElf_Shdr mem, *sh = gelf_getshdr(scn, &mem);
		const char *name = sh ? elf_strptr(elf, shstrndx, sh->sh_name) : NULL;

		if (sh && (sh->sh_flags & SHF_EXECINSTR) && is_plt_section(name))
			ok = read_section(p, &sl, scn, sh, name, x86_64, bias);
	}
	free(sl.v);
	free(sl.jump);
	if (ok)
		qsort(p->stub, p->n, sizeof(*p->stub), by_start);
	return ok;
}

struct px_plt *px_plt_new(Dwfl_Module *mod)
{
	Dwarf_Addr bias = 0;
	Elf *elf = dwfl_module_getelf(mod, &bias);
	struct px_plt *p = calloc(1, sizeof(*p));

	if (!p || !elf || !read_plt(p, elf, bias) || !p->n) {
		px_plt_free(p);
		return NULL;
	}
	return p;
}

const char *px_plt_lookup(const struct px_plt *p, uint64_t ip, uint64_t *offset)
{
	size_t lo = 0, hi = p ? p->n : 0;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (p->stub[mid].end <= ip)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo == (p ? p->n : 0) || ip < p->stub[lo].start)
		return NULL;
	*offset = ip - p->stub[lo].start;
	return p->stub[lo].name;
}

void px_plt_free(struct px_plt *p)
{
	if (!p)
		return;
	for (size_t i = 0; i < p->nnames; i++)
		free(p->names[i]);
	free(p->names);
	free(p->stub);
	free(p);
}
