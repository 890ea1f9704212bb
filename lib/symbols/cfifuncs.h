/* Names for a module's functions that no symbol covers, from its call
 * frame information.
 *
 * A stripped executable or library keeps no symbol for its own (static,
 * or not exported) functions, but it keeps .eh_frame, which exceptions and
 * unwinders need.  Each frame description entry (FDE) there describes one
 * function, in practice: the compiler emits one per function (and one per
 * part split out of it, such as foo.cold).  So where no symbol covers an
 * address, it is named after the FDE holding it: "MODULE+0xSTART", MODULE
 * the file's name and START the function's address in the file (the
 * address nm, objdump and addr2line use), one name per function rather
 * than one "??" for the whole module.  .debug_frame serves the same way
 * when the file has one.  Addresses no FDE covers have no name here. */
#ifndef PX_CFIFUNCS_H
#define PX_CFIFUNCS_H

#include <elfutils/libdwfl.h>
#include <stdint.h>

struct px_cfifuncs;

/* The FDEs of mod's ELF file, read once; module names the file (its
 * path: the name is its last component).  NULL when the file has no CFI
 * or without memory. */
struct px_cfifuncs *px_cfifuncs_new(Dwfl_Module *mod, const char *module);

/* "MODULE+0xSTART" for the function holding ip (a module address), and
 * ip's offset from its start; NULL when no FDE covers ip (or cf is NULL).
 * The name lives as long as cf. */
const char *px_cfifuncs_lookup(struct px_cfifuncs *cf, uint64_t ip, uint64_t *offset);

void px_cfifuncs_free(struct px_cfifuncs *cf);

#endif
