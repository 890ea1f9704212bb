/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The interface between perfmon.ko and the sampling formats, which are
 * modules of their own (formats/default/kernel, formats/double-buffer/
 * kernel, formats/callchain/kernel) registering with it by name and UUID
 * (spec sections 3.5.1 and 3.5.2).  The core owns the buffer (allocation,
 * budget, mmap, freeing) and builds each sample's entry header; a format
 * parses its argument, lays out and fills the buffer, and says after each
 * sample whether to notify, mask or reset.  A format that records more
 * than the entry header and the body (the callchain format's call chains)
 * says how much more a sample may take (max_extra) and gets the
 * interrupted registers with each overflow.
 */
#ifndef PFM_FMT_H
#define PFM_FMT_H

#include <linux/list.h>
#include <linux/module.h>
#include <linux/ptrace.h>
#include <linux/types.h>

#include "perfmon.h"

/* The sampling buffer of a context and the format's state in it. */
struct pfm_smpl {
	const struct pfm_smpl_fmt *fmt;
	void *buf;			/* vmalloc_user(), map_size bytes */
	u64 buf_size;			/* the format's size, header included */
	size_t map_size;		/* PAGE_ALIGN(buf_size): mmap() length */
	u32 flags;			/* the format's flags of the argument */
	/* The part of struct pfm_dfl_smpl_entry each sample starts with
	 * (the spec's entry header is the same for every format). */
	u32 entry_offset;
	u32 entry_size;
	/* bytes a sample may take besides its entry header and body (the
	 * format's own parts; set by parse_arg, 0 by default) */
	u32 max_extra;
	u32 max_sample;			/* bytes of the largest sample */
	/* the context may see kernel addresses (its creator had
	 * CAP_PERFMON): else a format records none */
	bool kernel_ip;
	u64 lost;			/* overflows not recorded */
	u64 late;			/* of lost: no interrupt came in time */
	u64 ovfls;			/* overflows: recorded or lost */
};

/* max_extra at most: a format asking for more is refused (EINVAL) */
#define PFM_SMPL_MAX_EXTRA	(64U << 10)

/* What the format asks after recording an overflow (the spec's ovfl_ctrl) */
#define PFM_SMPL_RESET	0x1	/* short reset of the PMD and its reset_pmds */
#define PFM_SMPL_NOTIFY	0x2	/* a PFM_MSG_OVFL (when the PMD has OVFL_NOTIFY) */
#define PFM_SMPL_MASK	0x4	/* mask until PFM_RESTART */

struct pfm_smpl_fmt {
	const char *name;		/* shorter than PFM_FMT_NAME_LEN */
	u8 uuid[16];
	u32 flags;			/* PFM_FMTFL_* */
	size_t arg_size;		/* exact size of its argument */
	struct module *owner;		/* THIS_MODULE: held by each context */
	/*
	 * At PFM_CREATE_CONTEXT, with the argument copied in: check it and
	 * set s->buf_size, flags, entry_offset, entry_size and, for parts
	 * of its own, max_extra (the core then sets max_sample = entry_size
	 * + 8 x 64 PMDs + max_extra and calls min_size).  0 or -EINVAL.
	 */
	int (*parse_arg)(struct pfm_smpl *s, const void *arg);
	/* the smallest buffer: the header and room for the largest sample */
	u64 (*min_size)(const struct pfm_smpl *s);
	/* lay out the zeroed buffer before PFM_CREATE_CONTEXT returns */
	void (*init)(struct pfm_smpl *s);
	/*
	 * Record one sample (interrupt context, maybe NMI, ovfl_lock held:
	 * never sleeps, never faults; reads user memory only with
	 * copy_from_user_nmi()): its entry header and body, and regs, the
	 * registers the overflow interrupted (kernel or user mode; NULL when
	 * unknown), for a format that looks at the stack.  PFM_SMPL_*.
	 */
	unsigned int (*record)(struct pfm_smpl *s, const void *entry,
			       const u64 *body, unsigned int nbody,
			       struct pt_regs *regs);
	/* PFM_RESTART: 0 or -errno */
	int (*restart)(struct pfm_smpl *s, bool masked);

	struct list_head list;		/* the core's registry */
};

/*
 * Register a format: 0, -EINVAL when a required field is missing or the
 * name is too long, -EBUSY when its name or UUID is registered already.
 */
int pfm_register_buffer_fmt(struct pfm_smpl_fmt *fmt);
/* 0, or -EINVAL when no format has that UUID.  A format module cannot be
 * unloaded while a context uses it (each holds a module reference). */
int pfm_unregister_buffer_fmt(const u8 *uuid);

/* Copy a sample (entry header, then body) to offs of the buffer. */
static inline void pfm_smpl_put(struct pfm_smpl *s, u64 offs, const void *entry,
				const u64 *body, unsigned int nbody)
{
	memcpy(s->buf + offs, entry, s->entry_size);
	memcpy(s->buf + offs + s->entry_size, body, nbody * sizeof(u64));
}

#endif
