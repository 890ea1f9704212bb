/* Unwinding a sampled user stack after the run with libdwfl's unwinder,
 * as perf's --call-graph=dwarf does with libdw (tools/perf/util/
 * unwind-libdw.c), but with the resolver's own Dwfl for every sample of
 * the process: its modules, their ELF files and the CFI libdw caches per
 * module are read once, not once per sample.
 *
 * The state is attached to that Dwfl once (dwfl_attach_state) with our
 * callbacks, never libdwfl's ptrace ones (dwfl_linux_proc_attach): the
 * one thread's registers are the sample's, its memory the sample's stack
 * copy.  Each call points the callbacks' argument at the current sample
 * and walks the frames with dwfl_getthread_frames. */
#include "symbols.h"
#include "symbols_int.h"
#include "error.h"

#include <elfutils/libdwfl.h>
#include <errno.h>
#include <gelf.h>
#include <stdlib.h>
#include <string.h>

#define REG_SP 7	/* DWARF numbering, x86-64 */
#define REG_PC 16

/* One per resolver, the argument of the callbacks: the machine and the
 * sample being unwound. */
struct px_unwinder {
	Elf64_Ehdr ehdr;	/* an x86-64 ELF header: the image of elf */
	Elf *elf;		/* the machine for libdwfl's backend */
	/* the current sample */
	pid_t tid;
	const uint64_t *regs;
	const unsigned char *stack;
	uint64_t sp;
	size_t len;
	/* the chain being built */
	uint64_t *ips;
	size_t max, n;
	bool truncated;		/* a frame beyond max was found */
	bool read_failed;	/* in the step after the last frame */
};

static pid_t next_thread(Dwfl *dwfl, void *arg, void **thread_argp)
{
	struct px_unwinder *u = arg;

	(void)dwfl;
	if (*thread_argp)
		return 0;	/* the sample's thread is the only one */
	*thread_argp = u;
	return u->tid;
}

static bool get_thread(Dwfl *dwfl, pid_t tid, void *arg, void **thread_argp)
{
	(void)dwfl, (void)tid;
	*thread_argp = arg;
	return true;
}

/* A word of the stack copy; anything else is unknown, which ends the
 * chain there. */
static bool memory_read(Dwfl *dwfl, Dwarf_Addr addr, Dwarf_Word *result, void *arg)
{
	struct px_unwinder *u = arg;
	uint64_t off = addr - u->sp;

	(void)dwfl;
	if (addr < u->sp || off > u->len || u->len - off < sizeof(*result)) {
		u->read_failed = true;
		return false;
	}
	memcpy(result, u->stack + off, sizeof(*result));
	return true;
}

/* The 17 registers hold the pc too (DWARF register 16, the x86-64
 * return-address column): libdwfl takes the first frame's pc from it. */
static bool set_initial_registers(Dwfl_Thread *thread, void *thread_arg)
{
	struct px_unwinder *u = thread_arg;

	return dwfl_thread_state_registers(thread, 0, PX_UNWIND_NREGS, u->regs);
}

static const Dwfl_Thread_Callbacks callbacks = {
	.next_thread = next_thread,
	.get_thread = get_thread,
	.memory_read = memory_read,
	.set_initial_registers = set_initial_registers,
};

/* One frame: its pc as libdwfl gives it (the sampled pc, then return
 * addresses).  A frame beyond max is only counted as truncation. */
static int frame_cb(Dwfl_Frame *frame, void *arg)
{
	struct px_unwinder *u = arg;
	Dwarf_Addr pc;

	if (u->n == u->max) {
		u->truncated = true;
		return DWARF_CB_ABORT;
	}
	if (!dwfl_frame_pc(frame, &pc, NULL))
		return DWARF_CB_ABORT;
	u->ips[u->n++] = pc;
	/* libdwfl unwinds the next frame after we return: a failed read
	 * then is what ended the chain */
	u->read_failed = false;
	return DWARF_CB_OK;
}

void px_unwinder_free(struct px_unwinder *u)
{
	if (!u)
		return;
	if (u->elf)
		elf_end(u->elf);
	free(u);
}

/* The resolver's unwinder, attached to its Dwfl on the first call.  The
 * machine comes from an ELF header of our own, not from a module: a
 * module's backend goes when a later report drops the module, and the
 * process state would keep it. */
static int unwinder_get(struct px_symbols *res, Dwfl *dwfl, struct px_unwinder **out)
{
	struct px_unwinder **slot = px_symbols_unwinder(res), *u = *slot;

	if (u) {
		*out = u;
		return 0;
	}
	u = calloc(1, sizeof(*u));
	if (!u)
		return px_fail(ENOMEM, "unwind: out of memory");
	memcpy(u->ehdr.e_ident, ELFMAG, SELFMAG);
	u->ehdr.e_ident[EI_CLASS] = ELFCLASS64;
	u->ehdr.e_ident[EI_DATA] = ELFDATA2LSB;
	u->ehdr.e_ident[EI_VERSION] = EV_CURRENT;
	u->ehdr.e_type = ET_EXEC;
	u->ehdr.e_machine = EM_X86_64;
	u->ehdr.e_version = EV_CURRENT;
	u->ehdr.e_ehsize = sizeof(u->ehdr);
	u->elf = elf_memory((char *)&u->ehdr, sizeof(u->ehdr));
	/* pid 0: libdwfl reads no process memory for us (it would for a
	 * deleted file's image, from /proc/PID/mem) */
	if (!u->elf || !dwfl_attach_state(dwfl, u->elf, 0, &callbacks, u)) {
		int err = px_fail(ENOMEM, "unwind: cannot attach to the resolver: %s",
				  u->elf ? dwfl_errmsg(-1) : elf_errmsg(-1));

		px_unwinder_free(u);
		return err;
	}
	*out = *slot = u;
	return 0;
}

/* Whether the code at pc (a return address when ret: its call is one byte
 * back) is the function at its module's entry point: the dynamic loader's
 * _start, where the kernel started the process.  Nothing called it, so a
 * chain that reaches it is whole, even though the unwinder, which finds
 * no CFI there (glibc's RTLD_START has none), could not step beyond. */
static bool at_entry_function(Dwfl *dwfl, uint64_t pc, bool ret)
{
	Dwfl_Module *mod;
	GElf_Addr bias;
	GElf_Ehdr eh;
	GElf_Off off;
	GElf_Sym sym;
	Elf *elf;

	if (ret && pc)
		pc--;
	mod = dwfl_addrmodule(dwfl, pc);
	elf = mod ? dwfl_module_getelf(mod, &bias) : NULL;
	if (!elf || !gelf_getehdr(elf, &eh) || !eh.e_entry ||
	    !dwfl_module_addrinfo(mod, pc, &off, &sym, NULL, NULL, NULL))
		return false;
	return pc - off == eh.e_entry + bias;
}

int px_symbols_unwind(struct px_symbols *res, uint32_t tid, const uint64_t *regs,
		      const void *stack, size_t len, uint64_t *ips, size_t max,
		      size_t *n, unsigned *flags)
{
	struct px_unwinder *u = NULL;
	Dwfl *dwfl;
	int rc;

	*n = 0;
	*flags = 0;
	if (!regs[REG_PC]) {
		*flags = PX_UNWIND_CUT;
		return 0;
	}
	if (!max) {
		*flags = PX_UNWIND_TRUNCATED;
		return 0;
	}
	rc = px_symbols_dwfl(res, &dwfl);
	if (!rc)
		rc = unwinder_get(res, dwfl, &u);
	if (rc)
		return rc;
	u->tid = (pid_t)tid;
	u->regs = regs;
	u->stack = stack;
	u->sp = regs[REG_SP];
	u->len = stack ? len : 0;
	u->ips = ips;
	u->max = max;
	u->n = 0;
	u->truncated = false;
	u->read_failed = false;
	rc = dwfl_getthread_frames(dwfl, (pid_t)tid, frame_cb, u);
	if (!u->n)	/* libdwfl failed before the first frame */
		ips[u->n++] = regs[REG_PC];
	*n = u->n;
	/* 0: the last step found the return address undefined (or 0), the
	 * outermost frame, unless a read outside the copy made it so;
	 * -1: no CFI and no frame pointer, or a read that failed */
	if (u->truncated)
		*flags = PX_UNWIND_TRUNCATED;
	else if ((rc != 0 || u->read_failed) &&
		 !at_entry_function(dwfl, ips[u->n - 1], u->n > 1))
		*flags = PX_UNWIND_CUT;
	u->regs = NULL;
	u->stack = NULL;
	u->ips = NULL;
	return 0;
}
