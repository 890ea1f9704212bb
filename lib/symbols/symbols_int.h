/* What the stack unwinder (lib/symbols/unwind.c) needs of a resolver
 * (lib/symbols/symbols.c): its Dwfl, whose modules and CFI caches it
 * shares, and a place to keep its state between samples. */
#ifndef PX_SYMBOLS_INT_H
#define PX_SYMBOLS_INT_H

#include "symbols.h"

#include <elfutils/libdwfl.h>

/* The resolver's Dwfl, with every mapping added so far reported to it. */
int px_symbols_dwfl(struct px_symbols *res, Dwfl **out);

/* The unwinder attached to the resolver's Dwfl: NULL until the first
 * px_symbols_unwind; px_symbols_free frees it after dwfl_end (the Dwfl
 * holds its callbacks' argument until then). */
struct px_unwinder;
struct px_unwinder **px_symbols_unwinder(struct px_symbols *res);
void px_unwinder_free(struct px_unwinder *u);

#endif
