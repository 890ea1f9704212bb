// SPDX-License-Identifier: GPL-2.0
/*
 * The logical PMU of perfmon.ko: how PMC values become in-kernel
 * perf_event counters, and the register descriptions.
 */
#include <linux/capability.h>
#include <linux/err.h>
#include <linux/hw_breakpoint.h>
#include <linux/kernel.h>
#include <linux/perf_event.h>
#include <linux/smp.h>
#include <linux/string.h>

#include "pfm.h"

bool pfm_hw_pmu;

#define PFM_VIRT_VALID	(PFM_PMC_VIRT | PFM_PMC_TYPE_MASK | PFM_PMC_CONFIG_MASK | \
			 PFM_PMC_USR | PFM_PMC_OS | PFM_PMC_HV)
#define PFM_BP_CONFIG_VALID	(PFM_PMC_BP_TYPE_MASK | PFM_PMC_BP_LEN_MASK)

/* Is a hardware PMU there?  Try a disabled cycles counter on this CPU. */
int pfm_pmu_init(void)
{
	struct perf_event_attr attr = {
		.type = PERF_TYPE_HARDWARE,
		.size = sizeof(attr),
		.config = PERF_COUNT_HW_CPU_CYCLES,
		.disabled = 1,
	};
	struct perf_event *ev;
	int cpu = get_cpu();

	put_cpu();
	ev = perf_event_create_kernel_counter(&attr, cpu, NULL, NULL, NULL);
	pfm_hw_pmu = !IS_ERR(ev);
	if (!IS_ERR(ev))
		perf_event_release_kernel(ev);
	return 0;
}

static int pfm_bp_attr(u64 config, u64 addr, u64 ext2,
		       struct perf_event_attr *attr)
{
	u64 type = config & PFM_PMC_BP_TYPE_MASK;
	u64 len = (config & PFM_PMC_BP_LEN_MASK) >> PFM_PMC_BP_LEN_SHIFT;

	if (config & ~PFM_BP_CONFIG_VALID || ext2)
		return -EINVAL;
	if (type != HW_BREAKPOINT_R && type != HW_BREAKPOINT_W &&
	    type != HW_BREAKPOINT_RW && type != HW_BREAKPOINT_X)
		return -EINVAL;
	if (len != HW_BREAKPOINT_LEN_1 && len != HW_BREAKPOINT_LEN_2 &&
	    len != HW_BREAKPOINT_LEN_4 && len != HW_BREAKPOINT_LEN_8)
		return -EINVAL;
	attr->type = PERF_TYPE_BREAKPOINT;
	attr->bp_type = type;
	attr->bp_addr = addr;
	attr->bp_len = len;
	return 0;
}

/* Fill a perf_event_attr from counter c's PMCs: 0, or -EINVAL for a value
 * the encoding does not allow. */
int pfm_evtsel_to_attr(const struct pfm_counter *c, struct perf_event_attr *attr)
{
	u64 v = c->evtsel;
	u64 type = (v & PFM_PMC_TYPE_MASK) >> PFM_PMC_TYPE_SHIFT;
	u64 config = v & PFM_PMC_CONFIG_MASK;
	u64 config_hi = c->ext3;	/* perf's PMU type of a hybrid CPU */

	memset(attr, 0, sizeof(*attr));
	attr->size = sizeof(*attr);
	attr->disabled = 1;

	if (!(v & PFM_PMC_VIRT)) {
		if (config_hi)
			return -EINVAL;
		attr->type = PERF_TYPE_RAW;
		attr->config = v & ~(PFM_PMC_RAW_USR | PFM_PMC_RAW_OS);
		attr->config1 = c->ext1;
		attr->config2 = c->ext2;
		attr->exclude_user = !(v & PFM_PMC_RAW_USR);
		attr->exclude_kernel = !(v & PFM_PMC_RAW_OS);
		attr->exclude_hv = 1;
		return 0;
	}
	if (v & ~PFM_VIRT_VALID)
		return -EINVAL;
	attr->exclude_user = !(v & PFM_PMC_USR);
	attr->exclude_kernel = !(v & PFM_PMC_OS);
	attr->exclude_hv = !(v & PFM_PMC_HV);

	if (config_hi > U32_MAX ||
	    (config_hi && type != PFM_EVT_TYPE_HARDWARE &&
	     type != PFM_EVT_TYPE_HW_CACHE))
		return -EINVAL;
	switch (type) {
	case PFM_EVT_TYPE_HARDWARE:
		if (config >= PERF_COUNT_HW_MAX)
			return -EINVAL;
		break;
	case PFM_EVT_TYPE_SOFTWARE:
		if (config >= PERF_COUNT_SW_MAX ||
		    config == PERF_COUNT_SW_BPF_OUTPUT)
			return -EINVAL;
		break;
	case PFM_EVT_TYPE_HW_CACHE:
		if (config & ~0xffffffULL)
			return -EINVAL;
		break;
	case PFM_EVT_TYPE_BREAKPOINT:
		return pfm_bp_attr(config, c->ext1, c->ext2, attr);
	default:
		return -EINVAL;
	}
	attr->type = type;
	attr->config = config | config_hi << 32;	/* all 64 bits of perf's */
	attr->config1 = c->ext1;
	attr->config2 = c->ext2;
	return 0;
}

/*
 * Check an event select value when it is written: its encoding, the
 * privilege levels the caller may count, and (except for breakpoints,
 * whose address may come in a later write) that this machine can count
 * it, with a disabled trial counter on the caller.
 */
int pfm_evtsel_check(const struct pfm_counter *c, u32 *retfl)
{
	struct perf_event_attr attr;
	struct perf_event *ev;
	int ret;

	if (!c->evtsel)
		return 0;
	ret = pfm_evtsel_to_attr(c, &attr);
	if (ret) {
		*retfl = PFM_REG_RETFL_EINVAL;
		return ret;
	}
	if ((!attr.exclude_kernel || !attr.exclude_hv) && !perfmon_capable()) {
		*retfl = PFM_REG_RETFL_PERM;
		return -EACCES;
	}
	/*
	 * arm and arm64 step over a breakpoint hit only for perf's own
	 * output handler (is_default_overflow_handler()): with the
	 * module's, the task returns to the breakpoint and hits it again,
	 * for ever.
	 */
	if (attr.type == PERF_TYPE_BREAKPOINT &&
	    (IS_ENABLED(CONFIG_ARM64) || IS_ENABLED(CONFIG_ARM))) {
		*retfl = PFM_REG_RETFL_NOTSUPP;
		return -EOPNOTSUPP;
	}
	if (attr.type == PERF_TYPE_BREAKPOINT)
		return 0;
	if (attr.type == PERF_TYPE_RAW && !pfm_hw_pmu) {
		*retfl = PFM_REG_RETFL_NOTSUPP;
		return -EOPNOTSUPP;
	}
	ev = perf_event_create_kernel_counter(&attr, -1, current, NULL, NULL);
	if (IS_ERR(ev)) {
		ret = PTR_ERR(ev);
		if (ret == -ENOENT || ret == -EOPNOTSUPP || ret == -ENODEV ||
		    (ret == -EINVAL && attr.type != PERF_TYPE_SOFTWARE)) {
			*retfl = PFM_REG_RETFL_NOTSUPP;
			return -EOPNOTSUPP;
		}
		*retfl = PFM_REG_RETFL_EINVAL;
		return ret;
	}
	perf_event_release_kernel(ev);
	return 0;
}

static void pfm_reginfo_clear(struct pfarg_reginfo *ri)
{
	u16 num = ri->reg_num;

	memset(ri, 0, sizeof(*ri));
	ri->reg_num = num;
	ri->reg_index = PFM_REG_IDX_NONE;
}

int pfm_reginfo_pmc(struct pfarg_reginfo *ri)
{
	unsigned int n = ri->reg_num;

	pfm_reginfo_clear(ri);
	if (n >= PFM_PMC_EXT3_BASE + PFM_NUM_COUNTERS) {
		ri->reg_flags = PFM_REG_RETFL_NOTAVAIL;
		return -EINVAL;
	}
	ri->reg_type = PFM_REG_TYPE_VIRT;
	ri->reg_counter = n % PFM_NUM_COUNTERS;
	if (n < PFM_NUM_COUNTERS) {
		ri->reg_flags = PFM_REGINFO_EVTSEL;
	} else {
		ri->reg_flags = PFM_REGINFO_EXT;
	}
	return 0;
}

int pfm_reginfo_pmd(struct pfarg_reginfo *ri)
{
	unsigned int n = ri->reg_num;

	pfm_reginfo_clear(ri);
	if (n >= PFM_NUM_COUNTERS) {
		ri->reg_flags = PFM_REG_RETFL_NOTAVAIL;
		return -EINVAL;
	}
	ri->reg_type = PFM_REG_TYPE_VIRT;
	ri->reg_flags = PFM_REGINFO_COUNTER;
	ri->reg_counter = n;
	return 0;
}

/* The register map for sysfs (well under a page): "REG ROLE PMD". */
ssize_t pfm_pmu_describe(char *buf, bool pmcs)
{
	ssize_t len = 0;
	int i;

	for (i = 0; i < PFM_NUM_COUNTERS; i++) {
		if (pmcs)
			len += sysfs_emit_at(buf, len, "PMC%d evtsel PMD%d\n", i, i);
		else
			len += sysfs_emit_at(buf, len, "PMD%d counter64 PMD%d\n", i, i);
	}
	if (pmcs) {
		len += sysfs_emit_at(buf, len, "PMC%d-%d ext1 PMD0-%d\n",
				     PFM_PMC_EXT1_BASE,
				     PFM_PMC_EXT1_BASE + PFM_NUM_COUNTERS - 1,
				     PFM_NUM_COUNTERS - 1);
		len += sysfs_emit_at(buf, len, "PMC%d-%d ext2 PMD0-%d\n",
				     PFM_PMC_EXT2_BASE,
				     PFM_PMC_EXT2_BASE + PFM_NUM_COUNTERS - 1,
				     PFM_NUM_COUNTERS - 1);
		len += sysfs_emit_at(buf, len, "PMC%d-%d ext3 PMD0-%d\n",
				     PFM_PMC_EXT3_BASE,
				     PFM_PMC_EXT3_BASE + PFM_NUM_COUNTERS - 1,
				     PFM_NUM_COUNTERS - 1);
	}
	return len;
}
