/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What differs between the kernels the module supports (6.1 to 6.12), in
 * one place: each difference behind one version check, named by what it
 * does, so that the rest of the module reads the same on every kernel.
 */
#ifndef _PFM_COMPAT_H
#define _PFM_COMPAT_H

#include <linux/build_bug.h>
#include <linux/fs.h>
#include <linux/mm.h>
#include <linux/version.h>

/* A kernel outside the range stops the build here, with its reason, not
 * half-way through with an error about some perf internal. */
#if LINUX_VERSION_CODE < KERNEL_VERSION(6, 1, 0) || \
	LINUX_VERSION_CODE >= KERNEL_VERSION(6, 13, 0)
#error "perfmon.ko builds on Linux 6.1 to 6.12 only (kernel/README.md, Kernels)"
#endif

/* 6.12 removed no_llseek: a NULL .llseek refuses to seek there. */
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 12, 0)
#define PFM_NO_LLSEEK NULL
#else
#define PFM_NO_LLSEEK no_llseek
#endif

/* 6.3 made vm_flags read-only outside the vm_flags_*() helpers. */
static inline void pfm_vm_flags_clear(struct vm_area_struct *vma,
				      unsigned long flags)
{
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 3, 0)
	vm_flags_clear(vma, flags);
#else
	vma->vm_flags &= ~flags;
#endif
}

/*
 * What the module takes from perf beyond its exported functions, read in
 * kernel/events/core.c of 6.1 and 6.12 (the range above refuses any other
 * kernel, whose core.c nobody has read for it):
 *  - a task context with pin_count > 0 is never swapped with a child's
 *    (context_equiv()); pin_count is changed under the context's lock
 *    (pfm_ctx_pin());
 *  - perf's exec tests and clears attr.enable_on_exec under the event's
 *    context lock (perf_event_enable_on_exec(), event_enable_on_exec()),
 *    so clearing it under that lock takes the exec's start back;
 *  - a throttled event has hw.interrupts == MAX_INTERRUPTS, ~0ULL, which
 *    core.c defines for itself (PFM_PERF_THROTTLED).
 * The fields they use are checked here, so that a kernel whose structures
 * changed stops the build rather than the module misreading them.
 */
#include <linux/perf_event.h>
static_assert(__same_type(((struct perf_event_context *)0)->pin_count, int));
static_assert(__same_type(((struct perf_event_context *)0)->lock, raw_spinlock_t));
static_assert(__same_type(((struct hw_perf_event *)0)->interrupts, u64));
static_assert(__same_type(((struct perf_event *)0)->ctx, struct perf_event_context *));

/*
 * How a task work is queued on current from the overflow path.  In NMI,
 * 6.11 and later want TWA_NMI_CURRENT: task_work_add()'s KASAN record
 * is not NMI-safe, and the flag that makes the return to user mode run
 * the work is set from an irq_work.  6.1 has no such mode: TWA_RESUME
 * there sets that flag with an atomic bit operation and, without KASAN
 * (Debian's kernels), takes no lock; after an NMI the module raises its
 * own irq_work so that the way back to user mode sees the flag
 * (pfm_switch_due(), pfm_ovfl.c).
 */
#include <linux/hardirq.h>
#include <linux/task_work.h>
static inline enum task_work_notify_mode pfm_twa_current(void)
{
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 11, 0)
	if (in_nmi())
		return TWA_NMI_CURRENT;
#endif
	return TWA_RESUME;
}

/* 6.4 split arm64's ptrauth_strip_insn_pac() into a kernel and a user
 * form (6.1's tells them apart by bit 55 of the address). */
#ifdef CONFIG_ARM64
#include <asm/pointer_auth.h>
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 4, 0)
#define pfm_strip_kernel_pac(ptr) ptrauth_strip_kernel_insn_pac(ptr)
#define pfm_strip_user_pac(ptr) ptrauth_strip_user_insn_pac(ptr)
#else
#define pfm_strip_kernel_pac(ptr) ptrauth_strip_insn_pac(ptr)
#define pfm_strip_user_pac(ptr) ptrauth_strip_insn_pac(ptr)
#endif
#endif

#endif /* _PFM_COMPAT_H */
