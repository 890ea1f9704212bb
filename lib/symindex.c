#include "symindex.h"

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
	if (b->n == b->cap) {
		size_t cap = b->cap ? b->cap * 2 : 1024;
		uint64_t *v = realloc(b->v, cap * sizeof(*v));

		if (!v)
			return false;
		b->v = v;
		b->cap = cap;
	}
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

static int u64_cmp(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

struct px_symindex *px_symindex_new(Dwfl_Module *mod)
{
	int nsyms = dwfl_module_getsymtab(mod);
	struct px_symindex *ix;
	struct bounds b = { 0 };
	size_t n = 0;

	if (nsyms <= 0 || !collect(&b, mod, nsyms) || !b.n) {
		free(b.v);
		return NULL;
	}
	qsort(b.v, b.n, sizeof(*b.v), u64_cmp);
	for (size_t i = 0; i < b.n; i++)
		if (!n || b.v[i] != b.v[n - 1])
			b.v[n++] = b.v[i];
	ix = malloc(sizeof(*ix));
	if (!ix || !(ix->answer = calloc(n + 1, sizeof(*ix->answer)))) {
		free(ix);
		free(b.v);
		return NULL;
	}
	ix->bound = b.v;
	ix->n = n;
	return ix;
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
