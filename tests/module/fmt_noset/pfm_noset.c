// SPDX-License-Identifier: GPL-2.0
/*
 * A sampling format for the module suite only: "test-noset" registers
 * with PFM_FMTFL_NOSET (set 0 only) and records nothing (every overflow
 * counted lost).  With clash=1 it asks for the default format's UUID
 * instead of its own, which perfmon.ko must refuse (EBUSY).
 */
#include <linux/module.h>

#include "default/perfmon_dfl_smpl.h"
#include "pfm_fmt.h"

static bool clash;
module_param(clash, bool, 0444);
MODULE_PARM_DESC(clash, "register with the default format's UUID");

static int noset_parse_arg(struct pfm_smpl *s, const void *arg)
{
	const struct pfm_dfl_smpl_arg *a = arg;

	if (a->reserved1 || a->buf_flags)
		return -EINVAL;
	s->buf_size = a->buf_size;
	s->entry_size = sizeof(struct pfm_dfl_smpl_entry);
	return 0;
}

static u64 noset_min_size(const struct pfm_smpl *s)
{
	return 8;
}

static void noset_init(struct pfm_smpl *s)
{
}

static unsigned int noset_record(struct pfm_smpl *s, const void *entry,
				 const u64 *body, unsigned int nbody,
				 struct pt_regs *regs)
{
	s->lost++;
	return PFM_SMPL_RESET;
}

static int noset_restart(struct pfm_smpl *s, bool masked)
{
	return 0;
}

static struct pfm_smpl_fmt noset_fmt = {
	.name = "test-noset",
	/* 2f0cbd1e-8a53-4c57-b2e4-1d0b6f3a9c77 */
	.uuid = { 0x2f, 0x0c, 0xbd, 0x1e, 0x8a, 0x53, 0x4c, 0x57,
		  0xb2, 0xe4, 0x1d, 0x0b, 0x6f, 0x3a, 0x9c, 0x77 },
	.flags = PFM_FMTFL_NOSET,
	.arg_size = sizeof(struct pfm_dfl_smpl_arg),
	.owner = THIS_MODULE,
	.parse_arg = noset_parse_arg,
	.min_size = noset_min_size,
	.init = noset_init,
	.record = noset_record,
	.restart = noset_restart,
};

static int __init noset_module_init(void)
{
	static const u8 dfl_uuid[16] = PFM_DFL_SMPL_UUID;

	if (clash)
		memcpy(noset_fmt.uuid, dfl_uuid, sizeof(dfl_uuid));
	return pfm_register_buffer_fmt(&noset_fmt);
}

static void __exit noset_module_exit(void)
{
	pfm_unregister_buffer_fmt(noset_fmt.uuid);
}

module_init(noset_module_init);
module_exit(noset_module_exit);

MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("perfmon2 test format: set 0 only, records nothing");
