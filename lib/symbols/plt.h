/* Names for the addresses of a module's PLT (procedure linkage table).
 *
 * A call to another module's function goes through a stub of the PLT,
 * and no symbol table covers the stubs: libdwfl names none of their
 * addresses, so a sample there would read "??".  perf and objdump name
 * each stub after the function it leads to, and so do we, from the ELF
 * file (libelf): "NAME@plt" for the stub of NAME (the dynamic symbol of
 * the relocation that fills the stub's GOT slot), "*ABS*+0xADDR@plt" for
 * a function chosen at load time (an IRELATIVE relocation, e.g. libc's
 * string functions), and the section's name (".plt", ".plt.sec",
 * ".plt.got") for the rest: .plt's first stub, which binds lazily, and
 * every stub on machines other than x86-64, whose stubs we do not
 * decode. */
#ifndef PX_PLT_H
#define PX_PLT_H

#include <elfutils/libdwfl.h>
#include <stdint.h>

struct px_plt;

/* The stubs of mod's ELF file; NULL when it has none (or no memory). */
struct px_plt *px_plt_new(Dwfl_Module *mod);

/* The name of the stub holding ip (a module address) and ip's offset in
 * it; NULL when ip is in no PLT section (or plt is NULL). */
const char *px_plt_lookup(const struct px_plt *plt, uint64_t ip, uint64_t *offset);

void px_plt_free(struct px_plt *plt);

#endif
