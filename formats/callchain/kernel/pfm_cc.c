// SPDX-License-Identifier: GPL-2.0
/*
 * The "callchain" sampling format of perfmon.ko, with the byte layout of
 * formats/callchain/perfmon_cc_smpl.h, which user space reads
 * (formats/README.md): the default format's samples, each with the call
 * chain of the code the overflow interrupted, walked in the overflow
 * handler.  On x86 the kernel part comes from the kernel's own unwinder
 * (ORC on Debian's kernels); arm64 exports no unwinder to modules, so
 * there the kernel part walks the frame records of the task's stack
 * (arm64 kernels keep frame pointers).  The user part walks the frame
 * pointers of the user stack on both.  The copy of the user registers and stack that lets a tool
 * unwind with DWARF after the run (PFM_CC_SMPL_USER_STACK) is the perf
 * backend's only: this format refuses it.  The buffer's rules are the
 * default format's: post-check, mask and notify when full, a restart
 * empties it.
 */
#include <linux/build_bug.h>
#include <linux/module.h>
#include <linux/sched.h>
#include <linux/sched/task_stack.h>
#include <linux/stddef.h>
#include <linux/uaccess.h>
#ifdef CONFIG_X86
#include <asm/unwind.h>
#elif defined(CONFIG_ARM64)
#include <asm/pointer_auth.h>
#else
#error "perfmon_cc: call chains are walked on x86 and arm64 only"
#endif

#include "callchain/perfmon_cc_smpl.h"
#include "default/perfmon_dfl_smpl.h"
#include "pfm_compat.h"
#include "pfm_fmt.h"

/* A sample starts with the default format's entry header, which the core
 * builds; the fields after it are this format's. */
static_assert(offsetof(struct pfm_cc_smpl_entry, nr_pmds) ==
	      sizeof(struct pfm_dfl_smpl_entry));
static_assert(sizeof(struct pfm_cc_smpl_entry) == 56);
static_assert(sizeof(struct pfm_cc_smpl_arg) == 24);

#define PFM_CC_TAIL	(sizeof(struct pfm_cc_smpl_entry) - \
			 sizeof(struct pfm_dfl_smpl_entry))

/*
 * The argument: KERNEL and/or USER, nothing else; max_frames 1..512;
 * stack_bytes and the reserved words zero.  A sample may then take the
 * entry tail and max_frames frames beyond the default format's
 * (max_extra), which is also where max_frames is kept.
 */
static int pfm_cc_parse_arg(struct pfm_smpl *s, const void *arg)
{
	const struct pfm_cc_smpl_arg *a = arg;

	if (a->buf_flags & ~(PFM_CC_SMPL_KERNEL | PFM_CC_SMPL_USER))
		return -EINVAL;		/* unknown flags, or USER_STACK */
	if (!a->buf_flags)
		return -EINVAL;
	if (!a->max_frames || a->max_frames > PFM_CC_MAX_FRAMES)
		return -EINVAL;
	if (a->stack_bytes || a->reserved1 || a->reserved2)
		return -EINVAL;
	s->buf_size = a->buf_size;
	s->flags = a->buf_flags;
	s->entry_offset = 0;
	s->entry_size = sizeof(struct pfm_dfl_smpl_entry);
	s->max_extra = PFM_CC_TAIL + a->max_frames * sizeof(u64);
	return 0;
}

static unsigned int pfm_cc_max_frames(const struct pfm_smpl *s)
{
	return (s->max_extra - PFM_CC_TAIL) / sizeof(u64);
}

static u64 pfm_cc_min_size(const struct pfm_smpl *s)
{
	return sizeof(struct pfm_dfl_smpl_hdr) + s->max_sample;
}

static void pfm_cc_init(struct pfm_smpl *s)
{
	struct pfm_dfl_smpl_hdr *h = s->buf;

	h->hdr_cur_offs = sizeof(*h);
	h->hdr_buf_size = s->buf_size;
	h->hdr_version = PFM_CC_SMPL_VERSION;
	h->hdr_flags = s->flags;
}

/* --- the chain ------------------------------------------------------------ */

/* The frames of one sample, written straight into the buffer. */
struct pfm_cc_walk {
	u64 *frames;
	unsigned int n;
	unsigned int max;
	u16 flags;		/* PFM_CC_TRUNCATED, PFM_CC_USER_CUT */
};

/* Store a frame; false (and TRUNCATED) when the chain is full. */
static bool pfm_cc_store(struct pfm_cc_walk *w, u64 addr)
{
	if (w->n == w->max) {
		w->flags |= PFM_CC_TRUNCATED;
		return false;
	}
	w->frames[w->n++] = addr;
	return true;
}

#ifdef CONFIG_X86

/*
 * Whether regs are an interrupt's or an exception's, with every register
 * (X86_EFLAGS_FIXED, bit 1, is set in every real flags value), or the
 * few that perf_fetch_caller_regs() fills for a software event raised in
 * the kernel (ip, sp, cs; flags 0): those give only a stack pointer to
 * start from, as in perf's own kernel call chains.
 */
static bool pfm_cc_full_regs(const struct pt_regs *regs)
{
	return regs->flags & X86_EFLAGS_FIXED;
}

/* The kernel part: the interrupted ip, then each caller's return
 * address, until the unwinder reaches the entry from user space. */
static void pfm_cc_kernel(struct pfm_cc_walk *w, struct pt_regs *regs)
{
	struct unwind_state state;
	unsigned long addr;

	if (!pfm_cc_store(w, regs->ip))
		return;
	if (pfm_cc_full_regs(regs))
		unwind_start(&state, current, regs, NULL);
	else
		unwind_start(&state, current, NULL, (unsigned long *)regs->sp);
	/* each turn stores a frame or ends: at most max turns */
	for (; !unwind_done(&state); unwind_next_frame(&state)) {
		addr = unwind_get_return_address(&state);
		if (!addr || !pfm_cc_store(w, addr))
			return;
	}
}

/* A frame of the user stack as a frame-pointer prologue (push %rbp;
 * mov %rsp,%rbp) leaves it: the caller's frame pointer, then the return
 * address. */
struct pfm_cc_frame {
	u64 next;
	u64 ret;
};

/*
 * The user part: the user ip, then the return address of each frame of
 * the frame-pointer chain from regs->bp.  The walk ends at a frame
 * pointer of 0 (the outermost frame), and is cut (USER_CUT) at one that
 * is not 8-aligned, does not lie above the previous frame (or, first,
 * at or above the stack pointer), cannot be read without a fault
 * (copy_from_user_nmi() checks the address range and the mm, and takes
 * no fault), or holds a return address that is 0 or not a user address
 * (__access_ok(), not access_ok(), which may warn outside task context):
 * code built without frame pointers uses %rbp for anything.  32-bit
 * code gives its ip only, cut.
 */
static void pfm_cc_user(struct pfm_cc_walk *w, struct pt_regs *regs)
{
	struct pfm_cc_frame f;
	unsigned long fp, lo;

	if (!pfm_cc_store(w, regs->ip))
		return;
	if (!user_64bit_mode(regs)) {
		w->flags |= PFM_CC_USER_CUT;
		return;
	}
	fp = regs->bp;
	lo = regs->sp;
	/* each turn stores a frame or ends: at most max turns */
	while (fp) {
		if (fp % sizeof(u64) || fp < lo ||
		    copy_from_user_nmi(&f, (const void __user *)fp, sizeof(f)) ||
		    !f.ret || !__access_ok((const void __user *)f.ret, 1)) {
			w->flags |= PFM_CC_USER_CUT;
			return;
		}
		if (!pfm_cc_store(w, f.ret))
			return;
		lo = fp + sizeof(f);
		fp = f.next;
	}
}

#else /* CONFIG_ARM64 */

/*
 * A frame record as AAPCS64 code leaves it (stp x29, x30, [sp, #-N]!;
 * mov x29, sp): the caller's frame pointer, then the return address,
 * which pointer authentication may have signed (pfm_strip_kernel_pac()
 * and pfm_strip_user_pac() give the address back).
 */
struct pfm_cc_frame {
	u64 next;
	u64 ret;
};

/*
 * The kernel part: the interrupted pc, then the return address of each
 * frame record from regs->regs[29], as arm64's own unwinder walks them
 * (arm64 kernels are built with frame pointers; the unwinder itself is
 * not exported).  Records are read only where they lie wholly in the
 * task's stack, each above the one before (so the walk ends), 8-aligned;
 * the walk ends at the task's last record (in its pt_regs, where the
 * kernel was entered from user space), at a frame pointer of 0, or at
 * one outside the task's stack (an interrupt or overflow stack, which
 * the interrupted code ran on: its frames are not walked).  An exception
 * taken in the kernel left a record whose return address is the
 * interrupted pc, so the chain goes on through it.
 */
static void pfm_cc_kernel(struct pfm_cc_walk *w, struct pt_regs *regs)
{
	unsigned long lo, hi, end, fp, prev, ret;
	const struct pfm_cc_frame *f;

	if (!pfm_cc_store(w, instruction_pointer(regs)))
		return;
	lo = (unsigned long)task_stack_page(current);
	hi = lo + THREAD_SIZE;
	end = (unsigned long)task_pt_regs(current)->stackframe;
	fp = regs->regs[29];
	prev = 0;
	/* each turn stores a frame or ends: at most max turns */
	while (fp && fp != end) {
		if (fp % sizeof(u64) || fp <= prev || fp < lo ||
		    fp > hi - sizeof(*f))
			return;
		f = (const struct pfm_cc_frame *)fp;
		ret = pfm_strip_kernel_pac(READ_ONCE(f->ret));
		if (!ret || !pfm_cc_store(w, ret))
			return;
		prev = fp;
		fp = READ_ONCE(f->next);
	}
}

/*
 * The user part: the user pc, then the return address of each frame
 * record of the chain from regs->regs[29] (x29).  The walk ends at a
 * frame pointer of 0 (glibc's start code and thread start clear x29),
 * and is cut (USER_CUT) at one that is not 8-aligned, does not lie
 * above the previous record (or, first, at or above the stack pointer),
 * cannot be read without a fault (copy_from_user_nofault() checks the
 * range and takes no fault), or holds a return address that is 0 or not
 * a user address: code built without frame pointers may use x29 for
 * anything.  32-bit (compat) code gives its pc only, cut.
 */
static void pfm_cc_user(struct pfm_cc_walk *w, struct pt_regs *regs)
{
	struct pfm_cc_frame f;
	unsigned long fp, lo, ret;

	if (!pfm_cc_store(w, instruction_pointer(regs)))
		return;
	if (compat_user_mode(regs)) {
		w->flags |= PFM_CC_USER_CUT;
		return;
	}
	fp = regs->regs[29];
	lo = regs->sp;
	/* each turn stores a frame or ends: at most max turns */
	while (fp) {
		if (fp % sizeof(u64) || fp < lo ||
		    copy_from_user_nofault(&f, (const void __user *)fp, sizeof(f))) {
			w->flags |= PFM_CC_USER_CUT;
			return;
		}
		ret = pfm_strip_user_pac(f.ret);
		if (!ret || !access_ok((const void __user *)ret, 1)) {
			w->flags |= PFM_CC_USER_CUT;
			return;
		}
		if (!pfm_cc_store(w, ret))
			return;
		lo = fp + sizeof(f);
		fp = f.next;
	}
}

#endif

/* The user registers of current when the overflow came in the kernel:
 * those saved at its entry; none for a kernel thread. */
static struct pt_regs *pfm_cc_user_regs(void)
{
	if (current->flags & (PF_KTHREAD | PF_IO_WORKER) || !current->mm)
		return NULL;
	return task_pt_regs(current);
}

/*
 * The chain of the interrupted code: the kernel part when the overflow
 * interrupted the kernel, the buffer asks for it and the context may
 * see kernel addresses; then the user part from the registers the thread
 * left user space with.  The number of kernel frames in *nr_kernel.
 */
static void pfm_cc_chain(const struct pfm_smpl *s, struct pfm_cc_walk *w,
			 struct pt_regs *regs, unsigned int *nr_kernel)
{
	struct pt_regs *uregs = regs;

	if (!user_mode(regs)) {
		if ((s->flags & PFM_CC_SMPL_KERNEL) && s->kernel_ip)
			pfm_cc_kernel(w, regs);
		uregs = pfm_cc_user_regs();
	}
	*nr_kernel = w->n;
	if ((s->flags & PFM_CC_SMPL_USER) && uregs &&
	    !(w->flags & PFM_CC_TRUNCATED))
		pfm_cc_user(w, uregs);
}

/* --- recording -------------------------------------------------------------- */

/*
 * Record one sample, then the post-check, as the default format does:
 * when fewer bytes than the largest sample are left the buffer is full:
 * count it, mask and ask for a notification.  A buffer found full
 * before recording records nothing and masks again.  Only the bytes of
 * the sample are written: the entry, nr_pmds values, and the frames.
 */
static unsigned int pfm_cc_record(struct pfm_smpl *s, const void *entry,
				  const u64 *body, unsigned int nbody,
				  struct pt_regs *regs)
{
	struct pfm_dfl_smpl_hdr *h = s->buf;
	struct pfm_cc_smpl_entry *e;
	struct pfm_cc_walk w = { .max = pfm_cc_max_frames(s) };
	unsigned int nr_kernel = 0;

	if (h->hdr_buf_size - h->hdr_cur_offs < s->max_sample) {
		s->lost++;
		return PFM_SMPL_MASK | PFM_SMPL_NOTIFY;
	}
	e = s->buf + h->hdr_cur_offs;
	memcpy(e, entry, sizeof(struct pfm_dfl_smpl_entry));
	memcpy(e + 1, body, nbody * sizeof(u64));
	w.frames = (u64 *)(e + 1) + nbody;
	if (regs)
		pfm_cc_chain(s, &w, regs, &nr_kernel);
	e->nr_pmds = nbody;
	e->nr_kernel = nr_kernel;
	e->nr_user = w.n - nr_kernel;
	e->cc_flags = w.flags;
	e->stack_size = 0;
	e->reserved2 = 0;
	h->hdr_cur_offs += sizeof(*e) + (nbody + w.n) * sizeof(u64);
	h->hdr_count++;
	if (h->hdr_buf_size - h->hdr_cur_offs < s->max_sample) {
		h->hdr_overflows++;
		return PFM_SMPL_MASK | PFM_SMPL_NOTIFY;
	}
	return PFM_SMPL_RESET;
}

/* Masked or active, a restart empties the buffer; old bytes stay. */
static int pfm_cc_restart(struct pfm_smpl *s, bool masked)
{
	struct pfm_dfl_smpl_hdr *h = s->buf;

	h->hdr_count = 0;
	h->hdr_cur_offs = sizeof(*h);
	return 0;
}

static struct pfm_smpl_fmt pfm_cc_fmt = {
	.name = PFM_CC_SMPL_NAME,
	.uuid = PFM_CC_SMPL_UUID,
	.arg_size = sizeof(struct pfm_cc_smpl_arg),
	.owner = THIS_MODULE,
	.parse_arg = pfm_cc_parse_arg,
	.min_size = pfm_cc_min_size,
	.init = pfm_cc_init,
	.record = pfm_cc_record,
	.restart = pfm_cc_restart,
};

static int __init pfm_cc_module_init(void)
{
	return pfm_register_buffer_fmt(&pfm_cc_fmt);
}

static void __exit pfm_cc_module_exit(void)
{
	static const u8 uuid[16] = PFM_CC_SMPL_UUID;

	pfm_unregister_buffer_fmt(uuid);
}

module_init(pfm_cc_module_init);
module_exit(pfm_cc_module_exit);

MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("perfmon2 callchain sampling format");
MODULE_ALIAS("perfmon-fmt-" PFM_CC_SMPL_NAME);
MODULE_SOFTDEP("pre: perfmon");
