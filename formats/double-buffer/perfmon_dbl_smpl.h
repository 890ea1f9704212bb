/* SPDX-License-Identifier: GPL-2.0 WITH Linux-syscall-note */
/*
 * perfmon_dbl_smpl.h - the ABI of the double-buffering sampling format
 * (HPL-2004-200 section 6.3.1, which proposes the format but leaves its
 * header open; this file settles it).
 *
 * The buffer is [header][half 0][half 1].  The format records into the
 * current half with the default format's sample layout (struct
 * pfm_dfl_smpl_entry then the body).  When a half becomes full (the
 * default format's post-check, against the end of the half) it is handed
 * to the tool (state FULL, a notification is asked for) and recording
 * goes on in the other half without masking; the overflowed PMDs get
 * their short reset values.  PFM_RESTART frees the oldest FULL half.
 * When the half being recorded fills while the tool still holds the other:
 *   - by default the format cycles within its own half: the half is
 *     emptied (its samples are lost and counted) and recording goes on;
 *   - with PFM_DBL_SMPL_MASK_WHEN_FULL the half is handed over too and
 *     monitoring is masked until a restart frees a half (long reset).
 * Same ABI rules as perfmon_dfl_smpl.h; formats/README.md has every byte.
 */
#ifndef _UAPI_PERFMON_DBL_SMPL_H
#define _UAPI_PERFMON_DBL_SMPL_H

#include <linux/types.h>

#define PFM_DBL_SMPL_NAME	"double-buffer"
/* e6fb9edd-a20e-4b08-9670-8993147d0a5a */
#define PFM_DBL_SMPL_UUID { \
	0xe6, 0xfb, 0x9e, 0xdd, 0xa2, 0x0e, 0x4b, 0x08, \
	0x96, 0x70, 0x89, 0x93, 0x14, 0x7d, 0x0a, 0x5a }

#define PFM_DBL_SMPL_VERSION_MAJ	1
#define PFM_DBL_SMPL_VERSION_MIN	0
#define PFM_DBL_SMPL_VERSION \
	((PFM_DBL_SMPL_VERSION_MAJ << 16) | PFM_DBL_SMPL_VERSION_MIN)

/* buf_flags */
#define PFM_DBL_SMPL_MASK_WHEN_FULL	0x1	/* saturate instead of cycling */
#define PFM_DBL_SMPL_FLAGS		PFM_DBL_SMPL_MASK_WHEN_FULL

/* half_state */
#define PFM_DBL_HALF_FREE	0	/* the format's: recording or empty */
#define PFM_DBL_HALF_FULL	1	/* the tool's, until a restart frees it */

struct pfm_dbl_smpl_arg {
	__u64 buf_size;		/* bytes, header included */
	__u32 buf_flags;	/* PFM_DBL_SMPL_* */
	__u32 reserved1;	/* must be zero */
};				/* 16 bytes */

struct pfm_dbl_smpl_half {
	__u64 half_count;	/* samples in this half */
	__u64 half_cur_offs;	/* next free byte, from the buffer start */
	__u64 half_seq;		/* hdr_overflows when it became full: the
				 * order to read FULL halves in; 0 = never */
	__u32 half_state;	/* PFM_DBL_HALF_* */
	__u32 half_reserved1;	/* zero */
};				/* 32 bytes */

struct pfm_dbl_smpl_hdr {
	__u64 hdr_buf_size;	/* bytes, header included */
	__u64 hdr_half_size;	/* bytes of each half (a multiple of 8);
				 * half i starts at sizeof(hdr) + i * size */
	__u64 hdr_overflows;	/* halves that became full; never reset */
	__u64 hdr_cycles;	/* times a half was overwritten because the
				 * tool held the other one */
	__u64 hdr_lost;		/* samples overwritten by those cycles */
	__u32 hdr_version;	/* PFM_DBL_SMPL_VERSION */
	__u32 hdr_flags;	/* buf_flags of the creation */
	__u32 hdr_cur_half;	/* the half being recorded into: 0 or 1 */
	__u32 hdr_masked;	/* 1 while saturated (MASK_WHEN_FULL) */
	struct pfm_dbl_smpl_half hdr_half[2];
};				/* 120 bytes */

#endif
