/* SPDX-License-Identifier: GPL-2.0 WITH Linux-syscall-note */
/*
 * perfmon_dfl_smpl.h - the ABI of the perfmon2 default sampling format
 * (HPL-2004-200 section 3.6), shared by the kernel module, which records
 * into it, and by user space, which reads it (and which the perf backend
 * also writes, so that both backends produce the same records).
 *
 * ABI rules: fixed-width types only, holes written out as reserved fields
 * that are zero, one layout for every ABI (the spec's LP64 layout: 40-byte
 * buffer header, 40-byte sample header), new fields only appended.  The
 * three fields the spec makes 16-bit (ovfl_pmd, set, cpu) stay __u16, as
 * reg_num and reg_set do in kernel/uapi/perfmon.h, so offsets match the
 * spec.  formats/README.md describes every byte.
 *
 * Buffer: [header][sample][sample]...  A sample is an entry header followed
 * by its body: the 64-bit values of the PMDs in the overflowed PMD's
 * smpl_pmds, in increasing register order.  Every part is a multiple of 8
 * bytes, so everything stays 8-byte aligned.
 */
#ifndef _UAPI_PERFMON_DFL_SMPL_H
#define _UAPI_PERFMON_DFL_SMPL_H

#include <linux/types.h>

#define PFM_DFL_SMPL_NAME	"default"
/* 4d72bec0-0664-4143-82b4-d3fd27243c97 */
#define PFM_DFL_SMPL_UUID { \
	0x4d, 0x72, 0xbe, 0xc0, 0x06, 0x64, 0x41, 0x43, \
	0x82, 0xb4, 0xd3, 0xfd, 0x27, 0x24, 0x3c, 0x97 }

/* hdr_version: major in the upper 16 bits; readers compare the major */
#define PFM_DFL_SMPL_VERSION_MAJ	1
#define PFM_DFL_SMPL_VERSION_MIN	0
#define PFM_DFL_SMPL_VERSION \
	((PFM_DFL_SMPL_VERSION_MAJ << 16) | PFM_DFL_SMPL_VERSION_MIN)

/* buf_flags (the spec names them without values; these are ours) */
#define PFM_DFL_SMPL_NO_HDR	0x1	/* samples are the body only */
#define PFM_DFL_SMPL_IIP_HDR	0x2	/* the entry header is the ip only */
#define PFM_DFL_SMPL_FLAGS	(PFM_DFL_SMPL_NO_HDR | PFM_DFL_SMPL_IIP_HDR)

/* The argument that follows the context at creation. */
struct pfm_dfl_smpl_arg {
	__u64 buf_size;		/* bytes, header included */
	__u32 buf_flags;	/* PFM_DFL_SMPL_* */
	__u32 reserved1;	/* must be zero */
};				/* 16 bytes */

/* At offset 0 of the buffer. */
struct pfm_dfl_smpl_hdr {
	__u64 hdr_count;	/* samples in the buffer since the last reset */
	__u64 hdr_cur_offs;	/* next free byte from the buffer start */
	__u64 hdr_overflows;	/* times the buffer became full; never reset */
	__u64 hdr_buf_size;	/* bytes, header included */
	__u32 hdr_version;	/* PFM_DFL_SMPL_VERSION */
	__u32 hdr_flags;	/* buf_flags of the creation */
};				/* 40 bytes */

/* The entry header of one sample. */
struct pfm_dfl_smpl_entry {
	__u32 pid;		/* process (tgid) running at the overflow */
	__u32 tid;		/* thread running at the overflow */
	__u16 ovfl_pmd;		/* the PMD whose overflow made this sample */
	__u16 set;		/* the event set active at the overflow */
	__u16 cpu;		/* the CPU that took the overflow */
	__u16 reserved1;	/* zero */
	__u64 last_reset_val;	/* last value loaded into ovfl_pmd: for a
				 * period p, 2^64 - p (randomised if asked) */
	__u64 tstamp;		/* per-CPU time stamp (ns), the same for
				 * simultaneous overflows */
	__u64 ip;		/* interrupted instruction pointer */
};				/* 40 bytes */

/* With PFM_DFL_SMPL_IIP_HDR the entry header is this instead. */
struct pfm_dfl_smpl_iip_entry {
	__u64 ip;
};				/* 8 bytes */

#endif
