/* Sampled IP -> module, function+offset, source file:line and inline chain.
 *
 * One resolver per process.  It is built either from the live process
 * (px_symbols_open_pid) or from mappings recorded while the process lived
 * (px_symbols_open_maps: perf MMAP records or /proc/PID/maps snapshots), so
 * resolution still works after the process has exited.  Kernel addresses
 * resolve through /proc/kallsyms when it is readable and holds real
 * addresses, to "[kernel]" otherwise (the environment variable
 * PX_KALLSYMS, when set, names another file in kallsyms format in place of
 * /proc/kallsyms: tests use it to check that fallback, and benchmarks give
 * the copy made when the samples were taken; lib/symbols/ksyms.c reads it).  Addresses in the
 * [vdso] resolve through the vdso image of the process (live) or, once it
 * has exited, through this process's own vdso, which is the same image for
 * native processes on the same kernel.
 *
 * Nothing is read before it is needed: a module's ELF file when an address
 * first falls in it, its DWARF only when source lines are wanted and an
 * address first falls in it, the kernel's symbols on the first kernel
 * address.  Every resolved address is cached by address (open addressing
 * on the IP): resolving the same IP again is one hash lookup.  Anything unknown reads "??" (function, module, file)
 * and 0 (line), never NULL and never garbage.  Errors are -errno with the
 * message in px_last_error(); the library never prints. */
#ifndef PX_SYMBOLS_H
#define PX_SYMBOLS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <stdint.h>
#include <sys/types.h>

#include "maps.h"


struct px_symbols_opts {
	/* Where separate debug files are searched, in libdwfl's syntax:
	 * "-:.debug:/usr/lib/debug" (NULL: that default).  Absolute entries
	 * are also searched for .build-id/xx/yyyy.debug. */
	const char *debuginfo_path;
	/* Kernel symbol table (NULL: $PX_KALLSYMS if set, else
	 * /proc/kallsyms). */
	const char *kallsyms;
	/* Module and function+offset only, as perf report's default sort
	 * needs: no DWARF is read, file reads "??", line 0, no inline chain. */
	bool functions_only;
};

/* One inlined call, innermost first: the inlined function's name and the
 * place it was called from (in the next function out). */
struct px_inline_frame {
	const char *func;
	const char *call_file;
	int call_line;
	int call_column;
};

struct px_location {
	uint64_t ip;
	/* Unique among every location of every resolver of this process
	 * (never 0, never reused): a key for caches of derived data, such
	 * as the profile's location -> entry cache. */
	uint64_t serial;
	const char *module;	/* path of the mapped file, "[kernel]", ... */
	const char *func;	/* ELF (or kernel) symbol containing ip; else
				 * its PLT stub's name, or in a stripped file
				 * "MODULE+0xSTART" after its function's
				 * CFI (lib/symbols/cfifuncs.h) */
	uint64_t offset;	/* ip - symbol start (0 when func is "??") */
	const char *file;	/* source file of ip (innermost inline) */
	int line;
	int column;
	bool kernel;
	size_t n_inline;
	const struct px_inline_frame *inlines;	/* n_inline entries */
};

/* Inline level j of loc, 0 the innermost, loc->n_inline the function
 * holding them all: its function, and where loc is in it: the place's
 * own file and line in the innermost, in each function around it the
 * call of the level inside it (px_inline_frame: the call in the next
 * function out). */
static inline const char *px_location_level_func(const struct px_location *loc, size_t j)
{
	return j < loc->n_inline ? loc->inlines[j].func : loc->func;
}

static inline const char *px_location_level_file(const struct px_location *loc, size_t j)
{
	return j ? loc->inlines[j - 1].call_file : loc->file;
}

static inline int px_location_level_line(const struct px_location *loc, size_t j)
{
	return j ? loc->inlines[j - 1].call_line : loc->line;
}

struct px_symbols;

int px_symbols_open_pid(struct px_symbols **out, pid_t pid,
			const struct px_symbols_opts *opts);
int px_symbols_open_maps(struct px_symbols **out, const struct px_maps *maps,
			 const struct px_symbols_opts *opts);
/* Mappings that appear later (dlopen, a new MMAP record): path is a file
 * or "[vdso]".  They take effect at the next px_symbols_resolve, which
 * then forgets the cached addresses.  On a live resolver,
 * px_symbols_refresh re-reads /proc/PID/maps; it also happens by itself
 * once when an address falls outside every known module. */
int px_symbols_add_map(struct px_symbols *res, uint64_t start, uint64_t len,
		       uint64_t pgoff, const char *path);
int px_symbols_refresh(struct px_symbols *res);
void px_symbols_free(struct px_symbols *res);

/* Hold the kernel's table that resolvers share (/proc/kallsyms, unless
 * kallsyms or PX_KALLSYMS names another file: then nothing is held and
 * false is returned), loading it now if it is not loaded: a sampling
 * session does it on another thread during the run, and its resolvers,
 * after the run, find it loaded or wait for the load.  True when held;
 * each hold is released once. */
bool px_symbols_kernel_hold(const char *kallsyms);
void px_symbols_kernel_release(void);

/* Whether ip is in the kernel's half of the address space (resolved
 * through kallsyms rather than the process's maps). */
bool px_symbols_is_kernel_ip(uint64_t ip);

/* *out stays valid until px_symbols_free.  Returns 0 also when nothing
 * is known about ip (the fields then read "??"); -ENOMEM otherwise. */
int px_symbols_resolve(struct px_symbols *res, uint64_t ip,
		       const struct px_location **out);

/* What px_symbols_unwind() found about the end of a chain. */
#define PX_UNWIND_TRUNCATED 0x1	/* stopped at max frames */
#define PX_UNWIND_CUT       0x2	/* stopped before the outermost frame: a read
				 * outside the stack copy, no CFI for a frame,
				 * or an unknown module */
/* The user registers px_symbols_unwind() takes: x86-64's DWARF registers
 * 0..16 (rax rdx rcx rbx rsi rdi rbp rsp r8..r15 rip), as the callchain
 * format records them. */
#define PX_UNWIND_NREGS 17

/* Unwind the user stack of thread tid of this resolver's process from a
 * sample's registers (PX_UNWIND_NREGS of them) and its stack
 * copy (len bytes from regs[7] up) with the CFI of the process's modules
 * (.eh_frame / .debug_frame), as libdwfl's unwinder does it.  ips gets
 * the frames innermost first: ips[0] is regs[16] (the sampled pc), the
 * others return addresses (as a frame-pointer chain gives them); at most
 * max.  *n the number found, *flags PX_UNWIND_*.  0, or -errno with
 * px_last_error() (ENOMEM; an unwinding error is not an error: the chain
 * ends there with PX_UNWIND_CUT).
 *
 * The chain ends without PX_UNWIND_CUT only where the CFI says the
 * return address is undefined (_start, a thread's start) or reads 0.
 * PX_UNWIND_TRUNCATED means at least one more frame was found.  Where no
 * CFI covers a frame, libdwfl falls back to the frame pointer (rbp).
 * The resolver's Dwfl, its modules and their CFI serve every call; the
 * stack is read from the copy alone, never from a live process (no
 * ptrace); mappings added later (px_symbols_add_map, px_symbols_refresh)
 * take part from the next call. */
int px_symbols_unwind(struct px_symbols *res, uint32_t tid, const uint64_t *regs,
		      const void *stack, size_t len, uint64_t *ips, size_t max,
		      size_t *n, unsigned *flags);

/* Number of distinct addresses cached so far. */
size_t px_symbols_cached(const struct px_symbols *res);

/* "func+0xoff", or "??" when the function is unknown. */
int px_location_format_func(const struct px_location *loc, char *buf,
			    size_t len);
/* "file:line" (with ":column" when known), or "??:0". */
int px_location_format_line(const struct px_location *loc, char *buf,
			    size_t len);

#endif
