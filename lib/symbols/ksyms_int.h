/* Internal to ksyms.c and its unit test: the table's layout and the size
 * of the read buffer.  Not part of the library's interface. */
#ifndef PX_KSYMS_INT_H
#define PX_KSYMS_INT_H

#include "ksyms.h"
#include "bigbuf.h"

/* The file is read through a buffer of this size, reused for every read.
 * Lines this long or longer are left out (whichever way the file is
 * read). */
#define KSYMS_CHUNK (256 << 10)

/* Past the last symbol: no idea how far it extends. */
#define KSYMS_LAST_REACH 0x100000

#define KCORE UINT32_MAX

struct ksym {
	uint64_t addr;
	uint32_t name;		/* offsets into names */
	uint32_t module;	/* KCORE: the kernel itself */
};

struct px_ksyms {
	/* Parsed text symbols, sorted by address (file order among equal
	 * ones): the whole file, or the module part of a mapped one. */
	struct px_bigbuf syms;	/* struct ksym[n] */
	struct px_bigbuf names;	/* NUL-terminated names and module names */
	size_t n;
	size_t chunk;		/* the read buffer's size */
	/* A mapped file: its kernel part, text[0, core_end), is searched in
	 * place.  NULL once parsed whole. */
	const char *text;
	size_t text_len, core_end;
	bool core_has_text;	/* the kernel part has a text symbol... */
	uint64_t core_last;	/* ...and this is the last one's address */
};

static inline struct ksym *table(const struct px_ksyms *k)
{
	return (struct ksym *)k->syms.p;
}

/* px_ksyms_load() through a read buffer of chunk bytes (a test shrinks
 * it to put lines across reads). */
struct px_ksyms *px_ksyms_load_chunked(const char *path, size_t chunk);

#endif
