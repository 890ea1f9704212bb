/* User-side code of the default sampling format: a writer that records a
 * sample as the kernel format does (the unit tests' buffers; the perf
 * backend keeps only the header's accounting, px_dfl_take), and a reader
 * that walks and validates a buffer.  The layout is in perfmon_dfl_smpl.h
 * and formats/README.md. */
#ifndef PX_DFL_H
#define PX_DFL_H

#include <stddef.h>
#include <stdint.h>

#include "default/perfmon_dfl_smpl.h"

#define PX_SMPL_MAX_PMDS 64	/* PMD registers a sample body can name */

/* One decoded sample, whatever format or backend it came from. */
struct px_sample {
	uint32_t pid;
	uint32_t tid;
	uint16_t ovfl_pmd;
	uint16_t set;
	uint16_t cpu;
	uint64_t last_reset_val;
	uint64_t tstamp;
	uint64_t ip;
	unsigned nvalues;	/* body: PMD values in increasing PMD order */
	uint64_t values[PX_SMPL_MAX_PMDS];
	/* The call chain (formats/callchain; none in the other formats):
	 * frames innermost first, the nr_kernel kernel ones then the nr_user
	 * user ones; with a user stack copy, regs (PFM_CC_NREGS, DWARF
	 * order) and stack_size bytes from the user stack pointer up.  The
	 * pointers are valid during the callback that gets the sample. */
	unsigned nr_kernel, nr_user;
	unsigned cc_flags;		/* PFM_CC_TRUNCATED, PFM_CC_USER_CUT */
	const uint64_t *frames;
	const uint64_t *regs;		/* NULL: no stack copy */
	const void *stack;
	uint32_t stack_size;
};

/* Bytes one sample takes with these flags and npmds body values. */
size_t px_dfl_sample_size(uint32_t flags, unsigned npmds);

/* The spec's maximum sample size: an entry header plus one value for each
 * of npmds implemented (or, for the perf backend, used) PMDs. */
size_t px_dfl_max_sample_size(uint32_t flags, unsigned npmds);

/* Make buf an empty buffer of size bytes.  -EINVAL when the flags are
 * unknown, the size is not a multiple of 8, or it cannot hold the header
 * and one sample of max_sample bytes. */
int px_dfl_init(void *buf, size_t size, uint32_t flags, size_t max_sample);

/* Whether the buffer is full: fewer than max_sample bytes are left (the
 * spec's post-check). */
int px_dfl_full(const void *buf, size_t max_sample);

/* Reserve need bytes for one sample at the buffer's end (*offs), as
 * appending does, without writing them: the header alone accounts for a
 * buffer whose samples go elsewhere.  Returns as px_dfl_append(), -EINVAL
 * for a need of 0 or above max_sample. */
int px_dfl_take(void *buf, size_t need, size_t max_sample, size_t *offs);

/* Append one sample (s->nvalues body values).  Returns 0 when recorded,
 * 1 when recorded and the buffer became full with it (hdr_overflows is
 * then incremented: the format masks and asks for a notification),
 * -ENOSPC when the buffer was already full (nothing written), -EINVAL for
 * a sample that does not fit the flags (NO_HDR or IIP_HDR drop fields). */
int px_dfl_append(void *buf, size_t max_sample, const struct px_sample *s);

/* PFM_RESTART: empty the buffer (hdr_overflows is kept). */
void px_dfl_reset(void *buf);

/* How many body values samples of (set, ovfl_pmd) carry: the reader's
 * knowledge of the measurement (spec 3.6.4).  -1 for an unknown pair. */
typedef int (*px_body_fn)(void *arg, unsigned set, unsigned ovfl_pmd);
/* Called for each sample; a non-zero return stops the walk with it. */
typedef int (*px_sample_fn)(void *arg, const struct px_sample *s);

/* Validate buf (len bytes readable) and call fn for each sample.  With
 * NO_HDR or IIP_HDR, body() is asked about set 0, ovfl_pmd 0.  Returns 0,
 * fn's non-zero return, or -EINVAL/-EPROTO with a message naming the
 * defect in px_last_error(); nothing outside buf is read. */
int px_dfl_read(const void *buf, size_t len, px_body_fn body, void *barg,
		px_sample_fn fn, void *arg);

/* Write an empty buffer header of the default format's layout (also the
 * callchain format's) at buf: `version`, `flags`, size bytes in all.
 * -EINVAL unless size and max_sample are 8-aligned and the buffer holds
 * the header and one sample of max_sample bytes (the caller checks its
 * flags and its smallest sample). */
int px_dfl_hdr_init(void *buf, size_t size, uint32_t version, uint32_t flags,
		    size_t max_sample);

/* The checks of a buffer header of the default format's layout (also the
 * callchain format's): at least the header, major version `major`, flags
 * flags_ok() accepts, hdr_buf_size within len, the next-free offset in
 * the buffer and 8-aligned, and room for hdr_count samples of at least
 * min_sample bytes.  *h gets the header.  0, or -EINVAL/-EPROTO with the
 * defect in px_last_error(), prefixed with `what`; a wrong version names
 * `format`. */
int px_dfl_hdr_check(const void *buf, size_t len, const char *what, const char *format,
		     uint32_t major, int (*flags_ok)(uint32_t), size_t min_sample,
		     struct pfm_dfl_smpl_hdr *h);

/* The sample walk on its own, shared with the double-buffer format: count
 * samples from byte start to byte end of base (which has at least end
 * bytes).  The samples must end exactly at end. */
int px_smpl_walk(const void *base, size_t start, size_t end, uint64_t count,
		 uint32_t flags, px_body_fn body, void *barg,
		 px_sample_fn fn, void *arg);

/* Write one sample at base + offs (the caller checked the room). */
size_t px_smpl_put(void *base, size_t offs, uint32_t flags,
		   const struct px_sample *s);

#endif
