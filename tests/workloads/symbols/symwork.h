/* The symbol-resolution workload: hot functions in the main binary
 * (symwork.c), in a library it links (symshared.c) and in one it dlopens
 * (symdl.c).  sym_mark() records an address inside its caller, on the line
 * tagged "MARK:<name>" in the source, so a test can check file:line
 * without hard-coding line numbers. */
#ifndef SYMWORK_H
#define SYMWORK_H

#include <stdint.h>

enum { SLOT_MAIN, SLOT_SHARED, SLOT_DLOPEN, SLOT_INLINE, NSLOTS };

extern uintptr_t sym_ips[NSLOTS];

void sym_mark(int slot);
long hot_shared(long n);
long hot_dlopen(long n);

#endif
