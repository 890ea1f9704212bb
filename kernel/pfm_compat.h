/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What differs between the kernels the module supports (6.1 to 6.12), in
 * one place: each difference behind one version check, named by what it
 * does, so that the rest of the module reads the same on every kernel.
 */
#ifndef _PFM_COMPAT_H
#define _PFM_COMPAT_H

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

#endif /* _PFM_COMPAT_H */
