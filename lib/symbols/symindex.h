/* A module's symbol lookups through libdwfl, cached per stretch.
 *
 * dwfl_module_addrinfo scans the module's whole symbol table on every
 * call.  Its answer (which symbol, or none) depends only on which symbols
 * start at or below the address, which of those still cover it, and which
 * section it lies in; so it is the same for every address between two
 * consecutive "boundaries": symbol starts and ends, and section starts
 * and ends.  The index sorts those boundaries once, and asks libdwfl once
 * per stretch between them: every other address of the stretch gets the
 * same symbol, with its own offset.  Libdwfl still decides every answer. */
#ifndef PX_SYMINDEX_H
#define PX_SYMINDEX_H

#include <elfutils/libdwfl.h>
#include <stdint.h>

struct px_symindex;

/* NULL when the module has no symbol table to index or without memory:
 * the caller then asks libdwfl directly. */
struct px_symindex *px_symindex_new(Dwfl_Module *mod);

/* The symbol covering ip (libdwfl's answer), and ip's offset from its
 * start; NULL when there is none. */
const char *px_symindex_lookup(struct px_symindex *ix, Dwfl_Module *mod,
			       uint64_t ip, uint64_t *offset);

void px_symindex_free(struct px_symindex *ix);

#endif
