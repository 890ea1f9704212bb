// SPDX-License-Identifier: GPL-2.0
/*
 * The "default" sampling format of perfmon.ko (spec section 3.6), with
 * the byte layout of formats/default/perfmon_dfl_smpl.h, which user
 * space reads (formats/README.md).  Samples are recorded one after the
 * other until fewer bytes than the largest sample are left; the format
 * then masks monitoring and asks for a notification, and PFM_RESTART
 * empties the buffer.
 */
#include <linux/module.h>
#include <linux/stddef.h>

#include "default/perfmon_dfl_smpl.h"
#include "pfm_fmt.h"

static int pfm_dfl_parse_arg(struct pfm_smpl *s, const void *arg)
{
	const struct pfm_dfl_smpl_arg *a = arg;

	if (a->reserved1 || a->buf_flags & ~PFM_DFL_SMPL_FLAGS)
		return -EINVAL;
	if ((a->buf_flags & PFM_DFL_SMPL_FLAGS) == PFM_DFL_SMPL_FLAGS)
		return -EINVAL;		/* NO_HDR and IIP_HDR exclude each other */
	s->buf_size = a->buf_size;
	s->flags = a->buf_flags;
	if (s->flags & PFM_DFL_SMPL_NO_HDR) {
		s->entry_offset = 0;
		s->entry_size = 0;
	} else if (s->flags & PFM_DFL_SMPL_IIP_HDR) {
		s->entry_offset = offsetof(struct pfm_dfl_smpl_entry, ip);
		s->entry_size = sizeof(struct pfm_dfl_smpl_iip_entry);
	} else {
		s->entry_offset = 0;
		s->entry_size = sizeof(struct pfm_dfl_smpl_entry);
	}
	return 0;
}

static u64 pfm_dfl_min_size(const struct pfm_smpl *s)
{
	return sizeof(struct pfm_dfl_smpl_hdr) + s->max_sample;
}

static void pfm_dfl_init(struct pfm_smpl *s)
{
	struct pfm_dfl_smpl_hdr *h = s->buf;

	h->hdr_cur_offs = sizeof(*h);
	h->hdr_buf_size = s->buf_size;
	h->hdr_version = PFM_DFL_SMPL_VERSION;
	h->hdr_flags = s->flags;
}

/*
 * Record one sample, then the post-check: when fewer bytes than the
 * largest sample are left the buffer is full: count it, mask and ask for
 * a notification (saturation when the PMD does not notify).  A buffer
 * found full before recording (a context loaded again without a restart)
 * records nothing and masks again.
 */
static unsigned int pfm_dfl_record(struct pfm_smpl *s, const void *entry,
				   const u64 *body, unsigned int nbody,
				   struct pt_regs *regs)
{
	struct pfm_dfl_smpl_hdr *h = s->buf;
	u64 need = s->entry_size + nbody * sizeof(u64);

	if (!need) {			/* NO_HDR and an empty body */
		s->lost++;
		return PFM_SMPL_RESET;
	}
	if (h->hdr_buf_size - h->hdr_cur_offs < s->max_sample) {
		s->lost++;
		return PFM_SMPL_MASK | PFM_SMPL_NOTIFY;
	}
	pfm_smpl_put(s, h->hdr_cur_offs, entry, body, nbody);
	h->hdr_cur_offs += need;
	h->hdr_count++;
	if (h->hdr_buf_size - h->hdr_cur_offs < s->max_sample) {
		h->hdr_overflows++;
		return PFM_SMPL_MASK | PFM_SMPL_NOTIFY;
	}
	return PFM_SMPL_RESET;
}

/* Masked or active, a restart empties the buffer; old bytes stay. */
static int pfm_dfl_restart(struct pfm_smpl *s, bool masked)
{
	struct pfm_dfl_smpl_hdr *h = s->buf;

	h->hdr_count = 0;
	h->hdr_cur_offs = sizeof(*h);
	return 0;
}

static struct pfm_smpl_fmt pfm_dfl_fmt = {
	.name = PFM_DFL_SMPL_NAME,
	.uuid = PFM_DFL_SMPL_UUID,
	.arg_size = sizeof(struct pfm_dfl_smpl_arg),
	.owner = THIS_MODULE,
	.parse_arg = pfm_dfl_parse_arg,
	.min_size = pfm_dfl_min_size,
	.init = pfm_dfl_init,
	.record = pfm_dfl_record,
	.restart = pfm_dfl_restart,
};

static int __init pfm_dfl_module_init(void)
{
	return pfm_register_buffer_fmt(&pfm_dfl_fmt);
}

static void __exit pfm_dfl_module_exit(void)
{
	static const u8 uuid[16] = PFM_DFL_SMPL_UUID;

	pfm_unregister_buffer_fmt(uuid);
}

module_init(pfm_dfl_module_init);
module_exit(pfm_dfl_module_exit);

MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("perfmon2 default sampling format");
MODULE_ALIAS("perfmon-fmt-" PFM_DFL_SMPL_NAME);
MODULE_SOFTDEP("pre: perfmon");
