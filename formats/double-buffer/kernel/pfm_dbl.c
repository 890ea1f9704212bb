// SPDX-License-Identifier: GPL-2.0
/*
 * The "double-buffer" sampling format of perfmon.ko (spec section 6.3.1),
 * with the byte layout of formats/double-buffer/perfmon_dbl_smpl.h, which
 * user space reads (formats/README.md).  The buffer is two halves: while
 * the tool reads one, the format records into the other.
 */
#include <linux/module.h>

#include "default/perfmon_dfl_smpl.h"
#include "double-buffer/perfmon_dbl_smpl.h"
#include "pfm_fmt.h"

static int pfm_dbl_parse_arg(struct pfm_smpl *s, const void *arg)
{
	const struct pfm_dbl_smpl_arg *a = arg;

	if (a->reserved1 || a->buf_flags & ~PFM_DBL_SMPL_FLAGS)
		return -EINVAL;
	s->buf_size = a->buf_size;
	s->flags = a->buf_flags;
	s->entry_offset = 0;
	s->entry_size = sizeof(struct pfm_dfl_smpl_entry);
	return 0;
}

static u64 pfm_dbl_min_size(const struct pfm_smpl *s)
{
	return sizeof(struct pfm_dbl_smpl_hdr) + 2ULL * s->max_sample;
}

static u64 pfm_dbl_half_start(const struct pfm_dbl_smpl_hdr *h, unsigned int i)
{
	return sizeof(*h) + i * h->hdr_half_size;
}

static void pfm_dbl_half_empty(struct pfm_dbl_smpl_hdr *h, unsigned int i)
{
	h->hdr_half[i].half_count = 0;
	h->hdr_half[i].half_cur_offs = pfm_dbl_half_start(h, i);
	h->hdr_half[i].half_state = PFM_DBL_HALF_FREE;
}

static void pfm_dbl_init(struct pfm_smpl *s)
{
	struct pfm_dbl_smpl_hdr *h = s->buf;

	h->hdr_buf_size = s->buf_size;
	h->hdr_half_size = ((s->buf_size - sizeof(*h)) / 2) & ~7ULL;
	h->hdr_version = PFM_DBL_SMPL_VERSION;
	h->hdr_flags = s->flags;
	pfm_dbl_half_empty(h, 0);
	pfm_dbl_half_empty(h, 1);
}

/*
 * The post-check against the end of the current half.  A full half goes
 * to the tool (notify, no mask) when the other one is free, and
 * recording moves there; when the tool still holds the other half the
 * format cycles in its own half (its samples are lost), or with
 * MASK_WHEN_FULL hands it over too and masks.
 */
static unsigned int pfm_dbl_record(struct pfm_smpl *s, const void *entry,
				   const u64 *body, unsigned int nbody,
				   struct pt_regs *regs)
{
	struct pfm_dbl_smpl_hdr *h = s->buf;
	unsigned int cur = h->hdr_cur_half & 1, other = cur ^ 1;
	struct pfm_dbl_smpl_half *c = &h->hdr_half[cur];
	u64 end = pfm_dbl_half_start(h, cur) + h->hdr_half_size;

	if (h->hdr_masked || end - c->half_cur_offs < s->max_sample) {
		s->lost++;
		return PFM_SMPL_MASK | PFM_SMPL_NOTIFY;
	}
	pfm_smpl_put(s, c->half_cur_offs, entry, body, nbody);
	c->half_cur_offs += s->entry_size + nbody * sizeof(u64);
	c->half_count++;
	if (end - c->half_cur_offs >= s->max_sample)
		return PFM_SMPL_RESET;
	if (h->hdr_half[other].half_state == PFM_DBL_HALF_FREE) {
		c->half_state = PFM_DBL_HALF_FULL;
		c->half_seq = ++h->hdr_overflows;
		pfm_dbl_half_empty(h, other);
		h->hdr_cur_half = other;
		return PFM_SMPL_RESET | PFM_SMPL_NOTIFY;
	}
	if (h->hdr_flags & PFM_DBL_SMPL_MASK_WHEN_FULL) {
		c->half_state = PFM_DBL_HALF_FULL;
		c->half_seq = ++h->hdr_overflows;
		h->hdr_masked = 1;
		return PFM_SMPL_MASK | PFM_SMPL_NOTIFY;
	}
	h->hdr_cycles++;
	h->hdr_lost += c->half_count;
	pfm_dbl_half_empty(h, cur);
	return PFM_SMPL_RESET;
}

/*
 * Free the FULL half with the lowest sequence number.  When that ends a
 * saturation recording resumes in it.  An active restart with no FULL
 * half is EBUSY (nothing to give back).
 */
static int pfm_dbl_restart(struct pfm_smpl *s, bool masked)
{
	struct pfm_dbl_smpl_hdr *h = s->buf;
	int i, best = -1;

	for (i = 0; i < 2; i++)
		if (h->hdr_half[i].half_state == PFM_DBL_HALF_FULL &&
		    (best < 0 ||
		     h->hdr_half[i].half_seq < h->hdr_half[best].half_seq))
			best = i;
	if (best < 0)
		return masked ? 0 : -EBUSY;
	h->hdr_half[best].half_state = PFM_DBL_HALF_FREE;
	if (h->hdr_masked) {
		pfm_dbl_half_empty(h, best);
		h->hdr_cur_half = best;
		h->hdr_masked = 0;
	}
	return 0;
}

static struct pfm_smpl_fmt pfm_dbl_fmt = {
	.name = PFM_DBL_SMPL_NAME,
	.uuid = PFM_DBL_SMPL_UUID,
	.arg_size = sizeof(struct pfm_dbl_smpl_arg),
	.owner = THIS_MODULE,
	.parse_arg = pfm_dbl_parse_arg,
	.min_size = pfm_dbl_min_size,
	.init = pfm_dbl_init,
	.record = pfm_dbl_record,
	.restart = pfm_dbl_restart,
};

static int __init pfm_dbl_module_init(void)
{
	return pfm_register_buffer_fmt(&pfm_dbl_fmt);
}

static void __exit pfm_dbl_module_exit(void)
{
	static const u8 uuid[16] = PFM_DBL_SMPL_UUID;

	pfm_unregister_buffer_fmt(uuid);
}

module_init(pfm_dbl_module_init);
module_exit(pfm_dbl_module_exit);

MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("perfmon2 double-buffer sampling format");
MODULE_ALIAS("perfmon-fmt-" PFM_DBL_SMPL_NAME);
MODULE_SOFTDEP("pre: perfmon");
