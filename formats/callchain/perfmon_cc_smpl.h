/* SPDX-License-Identifier: GPL-2.0 WITH Linux-syscall-note */
/*
 * perfmon_cc_smpl.h - the ABI of the "callchain" sampling format: the
 * default format's samples (spec section 3.6) each followed by the call
 * chain of the interrupted code, kernel part then user part, and, on the
 * perf backend only, a copy of the user registers and stack for unwinding
 * with DWARF after the run.  Shared by the kernel module, which records
 * into it, and by user space, which reads it (and which the perf backend
 * also writes, so that both backends produce the same records).
 *
 * ABI rules as for the default format: fixed-width types, reserved fields
 * zero, one layout for every ABI, new fields only appended, every part a
 * multiple of 8 bytes.  formats/README.md describes every byte.
 *
 * Buffer: [header][sample][sample]...  The header is the default format's
 * (struct pfm_dfl_smpl_hdr, 40 bytes) with this format's version and
 * flags.  A sample is:
 *   struct pfm_cc_smpl_entry (56 bytes)
 *   body:   nr_pmds x u64, the PMD values of the overflowed PMD's smpl_pmds
 *   frames: (nr_kernel + nr_user) x u64 return addresses, innermost first;
 *           the kernel frames (the first one the interrupted kernel ip when
 *           the overflow came in the kernel), then the user frames (the
 *           first one the user ip where the thread left user space)
 *   with PFM_CC_SMPL_USER_STACK, then:
 *   regs:   PFM_CC_NREGS x u64, the user registers in DWARF numbering
 *           (x86-64: rax rdx rcx rbx rsi rdi rbp rsp r8..r15 rip)
 *   stack:  stack_size bytes copied from the user stack pointer up,
 *           followed by zero bytes to the next multiple of 8
 */
#ifndef _UAPI_PERFMON_CC_SMPL_H
#define _UAPI_PERFMON_CC_SMPL_H

#include <linux/types.h>

#define PFM_CC_SMPL_NAME	"callchain"
/* 5732f060-78d7-4fea-9faa-84db11b0ff11 */
#define PFM_CC_SMPL_UUID { \
	0x57, 0x32, 0xf0, 0x60, 0x78, 0xd7, 0x4f, 0xea, \
	0x9f, 0xaa, 0x84, 0xdb, 0x11, 0xb0, 0xff, 0x11 }

#define PFM_CC_SMPL_VERSION_MAJ	1
#define PFM_CC_SMPL_VERSION_MIN	0
#define PFM_CC_SMPL_VERSION \
	((PFM_CC_SMPL_VERSION_MAJ << 16) | PFM_CC_SMPL_VERSION_MIN)

/* buf_flags: at least one of KERNEL and USER */
#define PFM_CC_SMPL_KERNEL	0x1	/* the kernel part of each chain */
#define PFM_CC_SMPL_USER	0x2	/* the user part, by frame pointers */
#define PFM_CC_SMPL_USER_STACK	0x4	/* regs and a stack copy (the perf
					 * backend; the module refuses it) */
#define PFM_CC_SMPL_FLAGS \
	(PFM_CC_SMPL_KERNEL | PFM_CC_SMPL_USER | PFM_CC_SMPL_USER_STACK)

#define PFM_CC_MAX_FRAMES	512	/* max_frames at most */
#define PFM_CC_MAX_STACK	65528	/* stack_bytes at most (perf's) */
#define PFM_CC_NREGS		17	/* x86-64 DWARF registers 0..16 */

/* cc_flags of a sample */
#define PFM_CC_TRUNCATED	0x1	/* the walk stopped at max_frames */
#define PFM_CC_USER_CUT		0x2	/* the user walk stopped before the
					 * outermost frame (whose frame
					 * pointer is 0): a frame it could not
					 * read, a frame pointer that does not
					 * go up the stack, or a return
					 * address outside user space */

/* The argument that follows the context at creation. */
struct pfm_cc_smpl_arg {
	__u64 buf_size;		/* bytes, header included */
	__u32 buf_flags;	/* PFM_CC_SMPL_* */
	__u16 max_frames;	/* frames per chain, 1..PFM_CC_MAX_FRAMES,
				 * kernel and user together */
	__u16 reserved1;	/* zero */
	__u32 stack_bytes;	/* USER_STACK: bytes of stack per sample,
				 * a multiple of 8 up to PFM_CC_MAX_STACK;
				 * else 0 */
	__u32 reserved2;	/* zero */
};				/* 24 bytes */

/* The entry header of one sample: the default format's fields, then the
 * sizes of the parts that follow. */
struct pfm_cc_smpl_entry {
	__u32 pid;		/* process (tgid) at the overflow */
	__u32 tid;		/* thread at the overflow */
	__u16 ovfl_pmd;		/* the PMD whose overflow made this sample */
	__u16 set;		/* the event set active at the overflow */
	__u16 cpu;		/* the CPU that took the overflow */
	__u16 reserved1;	/* zero */
	__u64 last_reset_val;	/* 2^64 - period, as in the default format */
	__u64 tstamp;		/* time stamp (ns) */
	__u64 ip;		/* interrupted instruction pointer */
	__u16 nr_pmds;		/* u64 body values that follow */
	__u16 nr_kernel;	/* kernel frames after the body */
	__u16 nr_user;		/* user frames after those */
	__u16 cc_flags;		/* PFM_CC_TRUNCATED, PFM_CC_USER_CUT */
	__u32 stack_size;	/* USER_STACK: stack bytes copied; else 0 */
	__u32 reserved2;	/* zero */
};				/* 56 bytes */

#endif
