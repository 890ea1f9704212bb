#include "symindex.h"
#include "grow.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

struct answer {
	const char *name;	/* libdwfl's, valid as long as the module */
	uint64_t start;		/* the symbol's address */
	bool known;
};

struct px_symindex {
	uint64_t *bound;	/* sorted, distinct */
	size_t n;
	struct answer *answer;	/* n + 1: answer[k] is for the addresses a
				 * with bound[k - 1] <= a < bound[k] */
};

struct bounds {
	uint64_t *v;
	size_t n, cap;
};

static bool push(struct bounds *b, uint64_t a)
{
	if (px_grow((void **)&b->v, &b->cap, b->n, 1, sizeof(*b->v), 1024))
		return false;
	b->v[b->n++] = a;
	return true;
}

/* A symbol [start, start + size); one without a size matches only its own
 * address in some cases (absolute symbols), so it is a stretch alone. */
static bool push_symbol(struct bounds *b, uint64_t start, uint64_t size)
{
	return push(b, start) && push(b, start + (size ? size : 1));
}

static bool push_sections(struct bounds *b, Elf *elf, Dwarf_Addr bias)
{
	Elf_Scn *scn = NULL;

	while ((scn = elf_nextscn(elf, scn))) {
		GElf_Shdr mem, *sh = gelf_getshdr(scn, &mem);

		if (sh && !push_symbol(b, sh->sh_addr + bias, sh->sh_size))
			return false;
	}
	return true;
}

/* Every symbol's start and end as libdwfl gives them (the resolved
 * address, and st_value plus the bias when they differ, as with function
 * descriptors), and the sections of each ELF file the symbols come from
 * (the main file, and a separate symbol table's). */
static bool collect(struct bounds *b, Dwfl_Module *mod, int nsyms)
{
	Dwarf_Addr main_bias = 0, aux_bias = 0;
	Elf *main_elf = dwfl_module_getelf(mod, &main_bias), *aux_elf = NULL;

	if (main_elf && !push_sections(b, main_elf, main_bias))
		return false;
	for (int i = 0; i < nsyms; i++) {
		GElf_Sym sym;
		GElf_Addr addr;
		GElf_Word shndx;
		Elf *elf = NULL;
		Dwarf_Addr bias = 0;

		if (!dwfl_module_getsym_info(mod, i, &sym, &addr, &shndx, &elf, &bias))
			continue;
		if (!push_symbol(b, addr, sym.st_size))
			return false;
		if (sym.st_value + bias != addr && !push_symbol(b, sym.st_value + bias, sym.st_size))
			return false;
		if (elf && elf != main_elf && !aux_elf) {
			aux_elf = elf;
			aux_bias = bias;
			if (!push_sections(b, aux_elf, aux_bias))
				return false;
		}
	}
	return true;
}

/* Sorts v[0..n) with tmp[0..n) as scratch: a radix sort by bytes, least
 * significant first, skipping the bytes every value shares (the high
 * bytes of one module's addresses); about twice as fast as qsort on the
 * tens of thousands of boundaries of a library's symbol table. */
static void sort_u64(uint64_t *v, uint64_t *tmp, size_t n)
{
	for (unsigned shift = 0; shift < 64; shift += 8) {
		size_t count[256] = { 0 }, at = 0;

		for (size_t i = 0; i < n; i++)
			count[(v[i] >> shift) & 0xff]++;
		if (count[(v[0] >> shift) & 0xff] == n)
			continue;
		for (unsigned d = 0; d < 256; d++) {
			size_t c = count[d];

			count[d] = at;
			at += c;
		}
		for (size_t i = 0; i < n; i++)
			tmp[count[(v[i] >> shift) & 0xff]++] = v[i];
		memcpy(v, tmp, n * sizeof(*v));
	}
}

/* Sorts the boundaries and drops repeats (the end of a symbol is often
 * the start of the next). */
static bool sort_unique(struct bounds *b)
{
	uint64_t *tmp = malloc(b->n * sizeof(*tmp));
	size_t n = 0;

	if (!tmp)
		return false;
	sort_u64(b->v, tmp, b->n);
	free(tmp);
	for (size_t i = 0; i < b->n; i++)
		if (!n || b->v[i] != b->v[n - 1])
			b->v[n++] = b->v[i];
	b->n = n;
	return true;
}

struct px_symindex *px_symindex_new(Dwfl_Module *mod)
{
	int nsyms = dwfl_module_getsymtab(mod);
	struct px_symindex *ix = NULL;
	struct bounds b = { 0 };

	if (nsyms <= 0 || !collect(&b, mod, nsyms) || !b.n || !sort_unique(&b))
		goto fail;
	ix = malloc(sizeof(*ix));
	if (!ix || !(ix->answer = calloc(b.n + 1, sizeof(*ix->answer))))
		goto fail;
	ix->bound = b.v;
	ix->n = b.n;
	return ix;

fail:
	free(ix);
	free(b.v);
	return NULL;
}

/* The number of boundaries at or below ip: the stretch ip is in. */
static size_t stretch_of(const struct px_symindex *ix, uint64_t ip)
{
	size_t lo = 0, hi = ix->n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (ix->bound[mid] <= ip)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

const char *px_symindex_lookup(struct px_symindex *ix, Dwfl_Module *mod,
			       uint64_t ip, uint64_t *offset)
{
	struct answer *a = &ix->answer[stretch_of(ix, ip)];

	if (!a->known) {
		GElf_Off off = 0;
		GElf_Sym sym;

		a->name = dwfl_module_addrinfo(mod, ip, &off, &sym, NULL, NULL, NULL);
		a->start = ip - off;
		a->known = true;
	}
	*offset = a->name ? ip - a->start : 0;
	return a->name;
}

void px_symindex_free(struct px_symindex *ix)
{
	if (!ix)
		return;
	free(ix->bound);
	free(ix->answer);
	free(ix);
}
