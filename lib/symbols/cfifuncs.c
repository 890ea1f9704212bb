/* libdw reads the entries of a CFI section (dwarf_next_cfi: lengths, CIE
 * or FDE, the CIE's augmentation) but gives an FDE's address range only
 * through a frame: dwarf_frame_info narrows [start, end) to the row of the
 * CFI table that holds the address asked for, not the FDE's range.  So
 * the FDE's first two fields, its initial location and address range, are
 * decoded here, in the pointer encoding its CIE's augmentation names
 * ('R'), as libdw decodes them for its own lookups.  The formats the
 * toolchains of Linux emit are read (absolute and pc-relative values);
 * an FDE in any other is left out, and its addresses keep no name. */
#include "cfifuncs.h"
#include "grow.h"

#include <dwarf.h>
#include <elfutils/libdw.h>
#include <gelf.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct func {
	uint64_t start, end;	/* ELF addresses */
	char *name;		/* made on the function's first lookup */
};

struct px_cfifuncs {
	struct func *v;		/* sorted by start, starts distinct */
	size_t n, cap;
	uint64_t bias;		/* module address - ELF address */
	char *module;		/* the file's name */
};

/* One CFI section being read, and the CIE its last FDE referred to (most
 * FDEs of a file share one). */
struct section {
	const unsigned char *ident;	/* e_ident: byte order, class */
	Elf_Data *data;
	uint64_t addr;		/* sh_addr: the base of pc-relative values */
	bool eh;		/* .eh_frame, else .debug_frame */
	unsigned addr_size;
	bool msb;
	Dwarf_Off cie;		/* (Dwarf_Off)-1: none yet */
	int enc;		/* its FDEs' pointer encoding; -1: unreadable */
};

static bool read_leb(const unsigned char **p, const unsigned char *end, bool sign,
		     uint64_t *out)
{
	uint64_t v = 0;
	unsigned shift = 0;
	unsigned char b;

	do {
		if (*p >= end || shift >= 64)
			return false;
		b = *(*p)++;
		v |= (uint64_t)(b & 0x7f) << shift;
		shift += 7;
	} while (b & 0x80);
	if (sign && shift < 64 && (b & 0x40))
		v |= ~0ULL << shift;
	*out = v;
	return true;
}

/* A value in the format of encoding enc (its low four bits) at *p, *p
 * moved past it; false when it runs past end or the format is unknown. */
static bool read_value(const struct section *s, int enc, const unsigned char **p,
		       const unsigned char *end, uint64_t *out)
{
	unsigned fmt = (unsigned)enc & 0x0f, n;
	uint64_t v = 0;

	if (fmt == DW_EH_PE_uleb128 || fmt == DW_EH_PE_sleb128)
		return read_leb(p, end, fmt == DW_EH_PE_sleb128, out);
	switch (fmt & ~DW_EH_PE_signed) {
	case DW_EH_PE_absptr: n = s->addr_size; break;
	case DW_EH_PE_udata2: n = 2; break;
	case DW_EH_PE_udata4: n = 4; break;
	case DW_EH_PE_udata8: n = 8; break;
	default: return false;
	}
	if ((size_t)(end - *p) < n)
		return false;
	for (unsigned i = 0; i < n; i++)
		v |= (uint64_t)(*p)[s->msb ? n - 1 - i : i] << (8 * i);
	if ((fmt & DW_EH_PE_signed) && n < 8 && (v >> (8 * n - 1)) & 1)
		v |= ~0ULL << (8 * n);
	*p += n;
	*out = v;
	return true;
}

/* An address in encoding enc at *p: absolute, or relative to its own
 * place in the section.  The other bases (.text, .got, the function) are
 * not used for FDEs on Linux. */
static bool read_address(const struct section *s, int enc, const unsigned char **p,
			 const unsigned char *end, uint64_t *out)
{
	const unsigned char *at = *p;

	if (enc == DW_EH_PE_omit || (enc & DW_EH_PE_indirect) ||
	    !read_value(s, enc, p, end, out))
		return false;
	switch (enc & 0x70) {
	case DW_EH_PE_absptr:
		break;
	case DW_EH_PE_pcrel:
		*out += s->addr + (uint64_t)(at - (const unsigned char *)s->data->d_buf);
		break;
	default:
		return false;
	}
	if (s->addr_size == 4)
		*out &= 0xffffffffu;
	return true;
}

/* The pointer encoding of the FDEs of the CIE at offset off: in
 * .eh_frame, the 'R' entry of its augmentation (absolute without one); in
 * .debug_frame, always an address.  -1 for an augmentation we cannot
 * read past. */
static int fde_encoding(struct section *s, Dwarf_Off off)
{
	const unsigned char *p, *end;
	const char *aug;
	Dwarf_CFI_Entry e;
	Dwarf_Off next;
	uint64_t skip;

	if (off == s->cie)
		return s->enc;
	s->cie = off;
	s->enc = -1;
	if (dwarf_next_cfi(s->ident, s->data, s->eh, off, &next, &e) || !dwarf_cfi_cie_p(&e))
		return -1;
	aug = e.cie.augmentation;
	if (!s->eh || !*aug)
		return s->enc = DW_EH_PE_absptr;
	if (*aug != 'z' || !e.cie.augmentation_data)
		return -1;
	p = e.cie.augmentation_data;
	end = p + e.cie.augmentation_data_size;
	for (aug++; *aug; aug++) {
		switch (*aug) {
		case 'R':	/* the FDEs' encoding */
			return p < end ? (s->enc = *p) : -1;
		case 'L':	/* the LSDA pointers' encoding */
			p++;
			break;
		case 'P':	/* the personality routine: encoding, pointer */
			if (p >= end)
				return -1;
			p++;
			if (!read_value(s, p[-1], &p, end, &skip))
				return -1;
			break;
		case 'S':	/* a signal frame */
		case 'B':	/* arm64: B key for return addresses */
		case 'G':	/* arm64: tagged stack */
			break;
		default:
			return -1;
		}
	}
	return s->enc = DW_EH_PE_absptr;
}

/* The function an FDE describes; true also when it is left out (an
 * encoding not read, an empty range); false without memory. */
static bool add_fde(struct px_cfifuncs *cf, struct section *s, const Dwarf_FDE *fde)
{
	int enc = fde_encoding(s, fde->CIE_pointer);
	const unsigned char *p = fde->start;
	uint64_t start, len;

	if (enc < 0 || !read_address(s, enc, &p, fde->end, &start) ||
	    !read_value(s, enc, &p, fde->end, &len) || !len)
		return true;
	if (px_grow((void **)&cf->v, &cf->cap, cf->n, 1, sizeof(*cf->v), 256))
		return false;
	cf->v[cf->n++] = (struct func){ .start = start, .end = start + len };
	return true;
}

static bool read_section(struct px_cfifuncs *cf, struct section *s)
{
	Dwarf_Off off = 0;

	while (off < s->data->d_size) {
		Dwarf_Off next = (Dwarf_Off)-1;
		Dwarf_CFI_Entry e;
		int rc = dwarf_next_cfi(s->ident, s->data, s->eh, off, &next, &e);

		if (rc > 0)
			break;	/* the end, or .eh_frame's terminator */
		if (rc == 0 && !dwarf_cfi_cie_p(&e) && !add_fde(cf, s, &e.fde))
			return false;
		/* an error libdw cannot skip ends the section */
		if (next == (Dwarf_Off)-1 || next <= off)
			break;
		off = next;
	}
	return true;
}

/* .eh_frame and .debug_frame of the module's own file (not a separate
 * debug file's: one with a symbol table leaves nothing to name here). */
static bool read_cfi(struct px_cfifuncs *cf, Elf *elf)
{
	const unsigned char *ident = (const unsigned char *)elf_getident(elf, NULL);
	Elf_Scn *scn = NULL;
	size_t shstrndx;

	if (!ident || elf_getshdrstrndx(elf, &shstrndx))
		return true;
	while ((scn = elf_nextscn(elf, scn))) {
		GElf_Shdr mem, *sh = gelf_getshdr(scn, &mem);
		const char *name = sh ? elf_strptr(elf, shstrndx, sh->sh_name) : NULL;
		struct section s = {
			.ident = ident, .eh = name && !strcmp(name, ".eh_frame"),
			.addr_size = ident[EI_CLASS] == ELFCLASS32 ? 4 : 8,
			.msb = ident[EI_DATA] == ELFDATA2MSB,
			.cie = (Dwarf_Off)-1, .enc = -1,
		};

		if (!name || (!s.eh && strcmp(name, ".debug_frame")) ||
		    sh->sh_type == SHT_NOBITS || (sh->sh_flags & SHF_COMPRESSED))
			continue;
		s.addr = sh->sh_addr;
		s.data = elf_rawdata(scn, NULL);
		if (s.data && s.data->d_buf && !read_section(cf, &s))
			return false;
	}
	return true;
}

static int by_start(const void *a, const void *b)
{
	const struct func *x = a, *y = b;

	if (x->start != y->start)
		return x->start < y->start ? -1 : 1;
	return x->end < y->end ? 1 : x->end > y->end ? -1 : 0;
}

/* Sorted, one function per start: a file with both sections describes
 * its functions twice; the wider range is kept. */
static void sort_unique(struct px_cfifuncs *cf)
{
	size_t n = 0;

	qsort(cf->v, cf->n, sizeof(*cf->v), by_start);
	for (size_t i = 0; i < cf->n; i++)
		if (!n || cf->v[i].start != cf->v[n - 1].start)
			cf->v[n++] = cf->v[i];
	cf->n = n;
}

struct px_cfifuncs *px_cfifuncs_new(Dwfl_Module *mod, const char *module)
{
	Dwarf_Addr bias = 0;
	Elf *elf = dwfl_module_getelf(mod, &bias);
	const char *base = module ? strrchr(module, '/') : NULL;
	struct px_cfifuncs *cf = calloc(1, sizeof(*cf));

	if (!cf || !elf || !module)
		goto fail;
	cf->bias = bias;
	cf->module = strdup(base && base[1] ? base + 1 : module);
	if (!cf->module || !read_cfi(cf, elf) || !cf->n)
		goto fail;
	sort_unique(cf);
	return cf;

fail:
	px_cfifuncs_free(cf);
	return NULL;
}

const char *px_cfifuncs_lookup(struct px_cfifuncs *cf, uint64_t ip, uint64_t *offset)
{
	uint64_t addr;
	size_t lo = 0, hi;
	struct func *f;

	if (!cf)
		return NULL;
	addr = ip - cf->bias;
	hi = cf->n;
	while (lo < hi) {	/* the first function starting after addr */
		size_t mid = lo + (hi - lo) / 2;

		if (cf->v[mid].start <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (!lo || addr >= cf->v[lo - 1].end)
		return NULL;
	f = &cf->v[lo - 1];
	if (!f->name && asprintf(&f->name, "%s+0x%" PRIx64, cf->module, f->start) < 0) {
		f->name = NULL;
		return NULL;
	}
	*offset = addr - f->start;
	return f->name;
}

void px_cfifuncs_free(struct px_cfifuncs *cf)
{
	if (!cf)
		return;
	for (size_t i = 0; i < cf->n; i++)
		free(cf->v[i].name);
	free(cf->v);
	free(cf->module);
	free(cf);
}
