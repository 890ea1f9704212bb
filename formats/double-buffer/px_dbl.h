/* User-side code of the double-buffering format: the writer the perf
 * backend records with, and a validating reader.  Layout and rules:
 * perfmon_dbl_smpl.h and formats/README.md. */
#ifndef PX_DBL_H
#define PX_DBL_H

#include <stddef.h>
#include <stdint.h>

#include "default/px_dfl.h"
#include "double-buffer/perfmon_dbl_smpl.h"

/* What px_dbl_append() did. */
#define PX_DBL_RECORDED	0	/* sample stored, nothing else */
#define PX_DBL_HALF_FULL 1	/* stored; its half filled and went to the
				 * tool (notify); recording moved on */
#define PX_DBL_CYCLED	2	/* stored; its half filled while the tool held
				 * the other: the half was emptied (lost) */
#define PX_DBL_MASKED	3	/* stored; its half filled while the tool held
				 * the other: handed over, now masked */

/* Make buf an empty buffer of size bytes; -EINVAL when the flags are
 * unknown or a half cannot hold one sample of max_sample bytes. */
int px_dbl_init(void *buf, size_t size, uint32_t flags, size_t max_sample);

/* Append one sample with the full entry header.  Returns PX_DBL_*, or
 * -ENOSPC while masked, -EINVAL for a sample larger than max_sample. */
int px_dbl_append(void *buf, size_t max_sample, const struct px_sample *s);

/* PFM_RESTART: free the oldest FULL half.  Returns 1 when that ended a
 * saturation (recording resumes in the freed half: long reset), 0 when
 * monitoring was active, -ENOENT when no half was FULL (nothing freed). */
int px_dbl_restart(void *buf);

/* The FULL half to read next (lowest half_seq), or -1. */
int px_dbl_next_full(const void *buf);

/* Validate buf (len bytes readable) and walk one half (0 or 1), or with
 * half = -1 every sample in order: FULL halves oldest first, then the
 * half being recorded.  Returns 0, fn's non-zero return, or -EINVAL or
 * -EPROTO with the defect in px_last_error(). */
int px_dbl_read(const void *buf, size_t len, int half, px_body_fn body,
		void *barg, px_sample_fn fn, void *arg);

#endif
