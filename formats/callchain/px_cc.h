/* User-side code of the callchain sampling format: the writer the perf
 * backend records with, and a validating reader.  The buffer header is
 * the default format's, so px_dfl_full() and px_dfl_reset() serve it too.
 * Layout and rules: perfmon_cc_smpl.h and formats/README.md. */
#ifndef PX_CC_H
#define PX_CC_H

#include <stddef.h>
#include <stdint.h>

#include "callchain/perfmon_cc_smpl.h"
#include "default/px_dfl.h"

/* Bytes sample s takes (its body, frames and, with USER_STACK in flags,
 * registers and stack). */
size_t px_cc_sample_size(uint32_t flags, const struct px_sample *s);

/* The largest sample: npmds body values, max_frames frames and, with
 * USER_STACK, the registers and stack_bytes of stack. */
size_t px_cc_max_sample_size(uint32_t flags, unsigned npmds, unsigned max_frames,
			     uint32_t stack_bytes);

/* Make buf an empty buffer of size bytes.  -EINVAL for unknown flags (or
 * neither KERNEL nor USER), a size not a multiple of 8, or one that
 * cannot hold the header and one sample of max_sample bytes. */
int px_cc_init(void *buf, size_t size, uint32_t flags, size_t max_sample);

/* Append sample s with its chain (s->regs and s->stack are written only
 * with USER_STACK; a sample without regs then gets zero registers and no
 * stack).  Returns as px_dfl_append(): 0, 1 when the buffer became full
 * with it, -ENOSPC when it was full, -EINVAL when s does not fit
 * max_sample. */
int px_cc_append(void *buf, size_t max_sample, const struct px_sample *s);

/* Validate buf (len bytes readable) and call fn for each sample, its
 * frames, registers and stack pointing into buf.  Returns 0, fn's
 * non-zero return, or -EINVAL/-EPROTO with the defect named in
 * px_last_error(); nothing outside buf is read. */
int px_cc_read(const void *buf, size_t len, px_sample_fn fn, void *arg);

#endif
