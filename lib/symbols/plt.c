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
	const char *name;	/* a slot's, or a section's name */
};

/* A GOT slot and the name of the function a relocation puts in it. */
struct slot {
	uint64_t got;		/* ELF address */
	char *name;		/* "NAME@plt" */
};

struct px_plt {
	struct stub *stub;	/* sorted by start, disjoint */
	size_t n, cap;
	struct slot *slot;	/* sorted by GOT address once all are read;
				 * they own the names */
	size_t nslots, slot_cap;
	const char **jump;	/* .rela.plt's names in its order: a lazy
				 * stub's push gives an index into it */
	size_t njump, jump_cap;
};

/* perf's and objdump's names: the symbol's (its name in string table
 * strndx), or for an IRELATIVE relocation (no symbol: a function chosen
 * at load time) its resolver's address. */
static char *stub_name(Elf *elf, Elf_Data *syms, size_t strndx, const GElf_Rela *r)
{
	size_t symndx = GELF_R_SYM(r->r_info);
	GElf_Sym sym;
	const char *s = NULL;
	char *name;

	if (symndx && syms && gelf_getsym(syms, (int)symndx, &sym))
		s = elf_strptr(elf, strndx, sym.st_name);
	if (s && *s)
		return asprintf(&name, "%s@plt", s) < 0 ? NULL : name;
	return asprintf(&name, "*ABS*+0x%" PRIx64 "@plt", (uint64_t)r->r_addend) < 0 ? NULL : name;
}

/* The relocations of one RELA section that fill PLT slots. */
static bool read_relocs(struct px_plt *p, Elf *elf, Elf_Scn *scn, const GElf_Shdr *sh,
			bool is_rela_plt)
{
	Elf_Scn *symscn = sh->sh_link ? elf_getscn(elf, sh->sh_link) : NULL;
	GElf_Shdr symmem, *symsh = symscn ? gelf_getshdr(symscn, &symmem) : NULL;
	Elf_Data *data = elf_getdata(scn, NULL), *syms = symsh ? elf_getdata(symscn, NULL) : NULL;
	size_t n = sh->sh_entsize ? sh->sh_size / sh->sh_entsize : 0;

	for (size_t i = 0; data && i < n; i++) {
		GElf_Rela r;
		unsigned type;
		char *name;

		if (!gelf_getrela(data, (int)i, &r))
			break;
		type = (unsigned)GELF_R_TYPE(r.r_info);
		if (type != R_X86_64_JUMP_SLOT && type != R_X86_64_GLOB_DAT &&
		    type != R_X86_64_IRELATIVE)
			continue;
		if (px_grow((void **)&p->slot, &p->slot_cap, p->nslots, 1, sizeof(*p->slot), 256) ||
		    (is_rela_plt && px_grow((void **)&p->jump, &p->jump_cap, p->njump, 1,
					    sizeof(*p->jump), 256)) ||
		    !(name = stub_name(elf, syms, symsh ? symsh->sh_link : 0, &r)))
			return false;
		p->slot[p->nslots++] = (struct slot){ r.r_offset, name };
		if (is_rela_plt)
			p->jump[p->njump++] = name;
	}
	return true;
}

static int by_got(const void *a, const void *b)
{
	const struct slot *x = a, *y = b;

	return x->got < y->got ? -1 : x->got > y->got;
}

static const char *slot_name(const struct px_plt *p, uint64_t got)
{
	struct slot key = { got, NULL }, *s;

	if (!p->nslots)	/* no relocations: no array to search */
		return NULL;
	s = bsearch(&key, p->slot, p->nslots, sizeof(*p->slot), by_got);
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
static const char *stub_target(const struct px_plt *pl, const unsigned char *b, size_t len,
			       uint64_t addr)
{
	size_t start = is_endbr64(b, len) ? 4 : 0, p = start;

	if (p < len && b[p] == 0xf2)	/* bnd prefix */
		p++;
	if (p + 6 <= len && b[p] == 0xff && b[p + 1] == 0x25) {
		int32_t disp;

		memcpy(&disp, b + p + 2, sizeof(disp));
		return slot_name(pl, addr + p + 6 + (int64_t)disp);
	}
	if (start + 5 <= len && b[start] == 0x68) {
		uint32_t index;

		memcpy(&index, b + start + 1, sizeof(index));
		return index < pl->njump ? pl->jump[index] : NULL;
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
static bool read_section(struct px_plt *p, Elf_Scn *scn, const GElf_Shdr *sh,
			 const char *secname, bool x86_64, uint64_t bias)
{
	Elf_Data *data = sh->sh_type == SHT_PROGBITS ? elf_rawdata(scn, NULL) : NULL;
	bool decode = x86_64 && data && sh->sh_entsize;
	size_t step = decode ? sh->sh_entsize : sh->sh_size;

	for (size_t off = 0; step && off < sh->sh_size; off += step) {
		size_t len = off + step <= sh->sh_size ? step : sh->sh_size - off;
		const char *name = NULL;

		if (decode && off + len <= data->d_size)
			name = stub_target(p, (const unsigned char *)data->d_buf + off, len,
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

static const char *section_name(Elf *elf, size_t shstrndx, const GElf_Shdr *sh)
{
	return sh ? elf_strptr(elf, shstrndx, sh->sh_name) : NULL;
}

static bool read_plt(struct px_plt *p, Elf *elf, uint64_t bias)
{
	GElf_Ehdr eh;
	size_t shstrndx;
	Elf_Scn *scn = NULL;
	bool ok = true, x86_64;

	if (!gelf_getehdr(elf, &eh) || elf_getshdrstrndx(elf, &shstrndx))
		return true;	/* nothing to name */
	x86_64 = eh.e_machine == EM_X86_64;
	while (ok && x86_64 && (scn = elf_nextscn(elf, scn))) {
		GElf_Shdr mem, *sh = gelf_getshdr(scn, &mem);
		const char *name = section_name(elf, shstrndx, sh);

		if (sh && sh->sh_type == SHT_RELA)
			ok = read_relocs(p, elf, scn, sh, name && !strcmp(name, ".rela.plt"));
	}
	if (p->nslots)
		qsort(p->slot, p->nslots, sizeof(*p->slot), by_got);
	scn = NULL;
	while (ok && (scn = elf_nextscn(elf, scn))) {
		GElf_Shdr mem, *sh = gelf_getshdr(scn, &mem);
		const char *name = section_name(elf, shstrndx, sh);

		if (sh && (sh->sh_flags & SHF_EXECINSTR) && is_plt_section(name))
			ok = read_section(p, scn, sh, name, x86_64, bias);
	}
	if (ok && p->n)	/* no stubs: no array to sort */
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
	for (size_t i = 0; i < p->nslots; i++)
		free(p->slot[i].name);
	free(p->slot);
	free(p->jump);
	free(p->stub);
	free(p);
}
