/* The kernel's text symbols, from a kallsyms file: /proc/kallsyms, or a
 * copy of it made when the samples were taken.  Lines are
 * "ADDR TYPE NAME" for the kernel itself and "ADDR TYPE NAME\t[MODULE]"
 * for modules (and the kernel's bpf programs and trampolines); only text
 * symbols (types t, T, w, W) are kept. */
#ifndef PX_KSYMS_H
#define PX_KSYMS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct px_ksyms;

/* The symbol an address falls in.  Names point into the table and are
 * not NUL-terminated: use the lengths. */
struct px_ksym {
	uint64_t addr;		/* where the symbol starts */
	const char *name;
	size_t name_len;
	const char *module;	/* NULL: the kernel itself */
	size_t module_len;
};

/* The table of a kallsyms file; NULL when it cannot be read or when it
 * holds only zero addresses (kptr_restrict hides them), for which the
 * caller says [kernel]. */
struct px_ksyms *px_ksyms_load(const char *path);

void px_ksyms_free(struct px_ksyms *k);

/* The text symbol holding ip: the last one at or below it (the last in
 * file order among symbols at the same address).  False below the first
 * symbol and more than 1 MB past the last one (its end is unknown). */
bool px_ksyms_find(struct px_ksyms *k, uint64_t ip, struct px_ksym *sym);

#endif
