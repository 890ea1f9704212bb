/* SPDX-License-Identifier: GPL-2.0 WITH Linux-syscall-note */
/*
 * perfmon.h - the ABI of /dev/perfmon (perfmon.ko).
 *
 * The perfmon2 interface (HPL-2004-200, "the spec") with the revised call
 * set of the 2008 proposal: one open of /dev/perfmon is one context, every
 * command is an ioctl on it, vectors are passed by size in bytes, start and
 * restart are merged, sampling formats are chosen by name.
 *
 * ABI rules: fixed-width types only, pointers as __u64, every hole written
 * out as a reserved field that must be zero, _IOWR with the structure so its
 * size is part of the command, new fields only appended.  The kernel accepts
 * a structure of any size from the first version of it up: a longer one
 * (from a newer header) must have zeros in the bytes it does not know.
 */
#ifndef _UAPI_LINUX_PERFMON_H
#define _UAPI_LINUX_PERFMON_H

#include <linux/ioctl.h>
#include <linux/types.h>

#define PFM_DEVICE		"/dev/perfmon"

/* cf_version: major in the upper 16 bits, minor in the lower 16 */
#define PFM_VERSION_MAJOR(v)	(((v) >> 16) & 0xffff)
#define PFM_VERSION_MINOR(v)	((v) & 0xffff)
#define PFM_VERSION_MK(a, b)	(((a) << 16) | (b))
#define PFM_VERSION		PFM_VERSION_MK(1, 0)

/*
 * The logical PMU.
 *
 * PMD0..PMD63 are 64-bit counters.  Counter i is programmed by three PMCs:
 *   PMC i        event select (PFM_PMC_EVTSEL_*), 0 = unused (the default)
 *   PMC 64 + i   extension 1: perf config1, or the breakpoint address
 *   PMC 128 + i  extension 2: perf config2
 *   PMC 192 + i  extension 3, appended (cf_impl_pmcs has its bits where
 *                it exists): bits 32..63 of a generic event's perf
 *                config (PFM_EVT_TYPE_HARDWARE, _HW_CACHE), where perf's
 *                PMU type (PERF_PMU_TYPE_SHIFT) names one PMU of a
 *                hybrid CPU; 0 for every other event
 * PMD numbers up to PFM_MAX_PMDS - 1 are reserved for later use (virtual
 * PMDs); the bit vectors are sized for all of them.
 */
#define PFM_NUM_COUNTERS	64
#define PFM_PMC_EXT1_BASE	64
#define PFM_PMC_EXT2_BASE	128
#define PFM_PMC_EXT3_BASE	192
#define PFM_MAX_PMCS		256
#define PFM_MAX_PMDS		256
#define PFM_PMC_BV		((PFM_MAX_PMCS + 63) / 64)
#define PFM_PMD_BV		((PFM_MAX_PMDS + 63) / 64)

/*
 * Event select encoding (PMC 0..63).
 *
 * Bit 63 clear: a raw hardware encoding, handed to the CPU's PMU as a perf
 * PERF_TYPE_RAW config.  Needs a hardware PMU (cf_flags PFM_CFG_HW_PMU).
 * On x86 the privilege bits of IA32_PERFEVTSELx select the levels:
 * bit 16 (USR) counts user level, bit 17 (OS) kernel level; the enable
 * and interrupt bits are managed by the kernel and ignored.
 *
 * Bit 63 set: a virtual (generic or software) event:
 *   bits 0..31   config within the type (perf's numbering: PERF_COUNT_HW_*,
 *                PERF_COUNT_SW_*, cache ids; bits 32..63 of a generic
 *                event's config in PMC 192 + i); for a breakpoint: bits 0..3
 *                the access (R 1, W 2, X 4) and bits 8..15 the length in
 *                bytes, the address in PMC 64 + i
 *   bits 32..39  the type: PFM_EVT_TYPE_*
 *   bit 40       count at user level
 *   bit 41       count at kernel level
 *   bit 42       count in the hypervisor
 *   others       reserved, must be zero
 */
#define PFM_PMC_VIRT		(1ULL << 63)
#define PFM_PMC_RAW_USR		(1ULL << 16)
#define PFM_PMC_RAW_OS		(1ULL << 17)
#define PFM_PMC_TYPE_SHIFT	32
#define PFM_PMC_TYPE_MASK	(0xffULL << PFM_PMC_TYPE_SHIFT)
#define PFM_PMC_CONFIG_MASK	0xffffffffULL
#define PFM_PMC_USR		(1ULL << 40)
#define PFM_PMC_OS		(1ULL << 41)
#define PFM_PMC_HV		(1ULL << 42)
#define PFM_PMC_BP_TYPE_MASK	0xfULL
#define PFM_PMC_BP_LEN_SHIFT	8
#define PFM_PMC_BP_LEN_MASK	(0xffULL << PFM_PMC_BP_LEN_SHIFT)

#define PFM_EVT_TYPE_HARDWARE	0	/* generic hardware event */
#define PFM_EVT_TYPE_SOFTWARE	1	/* kernel software event */
#define PFM_EVT_TYPE_HW_CACHE	3	/* generic cache event */
#define PFM_EVT_TYPE_BREAKPOINT	5	/* hardware breakpoint */

/* build a virtual event select value */
#define PFM_PMC_VIRT_EVENT(type, config, levels) \
	(PFM_PMC_VIRT | ((__u64)(type) << PFM_PMC_TYPE_SHIFT) | \
	 ((__u64)(config) & PFM_PMC_CONFIG_MASK) | (levels))

/* --- context creation --------------------------------------------------- */

#define PFM_FL_NOTIFY_BLOCK	0x01	/* block the task until the restart */
#define PFM_FL_SYSTEM_WIDE	0x02	/* a per-CPU context */
#define PFM_FL_SMPL_FMT		0x04	/* a sampling format is named */
#define PFM_FL_OVFL_NO_MSG	0x08	/* no overflow messages */

/*
 * With PFM_FL_SMPL_FMT the format is named by ctx_smpl_name, or, when that
 * is 0, by ctx_smpl_uuid (spec 3.4); with both the UUID must be the named
 * format's or all zero.  No loaded format of that name or UUID: EINVAL.
 */
struct pfarg_ctx {
	__u32 ctx_flags;		/* in: PFM_FL_* */
	__u32 ctx_reserved1;
	__u64 ctx_smpl_name;		/* in: format name (PFM_FL_SMPL_FMT), a
					 * NUL-terminated string, or 0 */
	__u64 ctx_smpl_arg;		/* in: format argument */
	__u64 ctx_smpl_arg_size;	/* in: its size in bytes, exact */
	__u64 ctx_smpl_buf_size;	/* out: the length to mmap() */
	__u8 ctx_smpl_uuid[16];		/* in: format UUID, or all zero */
	__u64 ctx_reserved2[2];
};

/* --- sampling formats (PFM_GETINFO_FMTS) -------------------------------- */

#define PFM_FMT_NAME_LEN	32	/* a format name, NUL included */

/* fmt_flags */
#define PFM_FMTFL_NOSET		0x1	/* set 0 only: no other event set */

/*
 * One loaded format.  In: fmt_index, 0 for the first registered; out:
 * the rest.  An index past the last format is EINVAL with
 * PFM_REG_RETFL_NOTAVAIL in fmt_retflags, so vec_done is the number of
 * formats when the vector is longer than the list.
 */
struct pfarg_fmtinfo {
	__u32 fmt_index;		/* in */
	__u32 fmt_retflags;		/* out: PFM_REG_RETFL_* on error */
	__u8 fmt_name[PFM_FMT_NAME_LEN];	/* out: NUL-terminated */
	__u8 fmt_uuid[16];		/* out */
	__u32 fmt_flags;		/* out: PFM_FMTFL_* */
	__u32 fmt_reserved1;
	__u64 fmt_arg_size;		/* out: bytes of its argument */
	__u64 fmt_reserved2[2];
};

/* --- registers ---------------------------------------------------------- */

/* reg_flags input bits */
#define PFM_PMCFL_NO_EMUL64	0x1	/* no 64-bit emulation (reserved) */

#define PFM_PMDFL_SMPL		0x1	/* used for sampling (informative) */
#define PFM_PMDFL_SWITCH	0x2	/* used in overflow switching (informative) */
#define PFM_PMDFL_OVFL_NOTIFY	0x4	/* notify (and mask) on 64-bit overflow */
#define PFM_PMDFL_RANDOM	0x8	/* randomise the reset values */

/* randomisation: seeds reduce modulo 2^31 - 1 and must not reduce to 0;
 * masks have at most 31 bits */
#define PFM_RANDOM_MODULUS	0x7fffffffU
#define PFM_RANDOM_MASK_MAX	0x7fffffffULL

/* reg_flags output bits: why the element failed */
#define PFM_REG_RETFL_NOTSUPP	(1U << 27)	/* event not countable here */
#define PFM_REG_RETFL_PERM	(1U << 28)	/* privilege level refused */
#define PFM_REG_RETFL_NOSET	(1U << 29)	/* no such event set */
#define PFM_REG_RETFL_EINVAL	(1U << 30)	/* invalid value */
#define PFM_REG_RETFL_NOTAVAIL	(1U << 31)	/* no such register */
#define PFM_REG_RETFL_MASK	(0xffU << 24)
#define PFM_REG_HAS_ERROR(flag)	(((flag) & PFM_REG_RETFL_MASK) != 0)

struct pfarg_pmc {
	__u16 reg_num;
	__u16 reg_set;
	__u32 reg_flags;
	__u64 reg_value;
	__u64 reg_reserved2[4];
};

struct pfarg_pmd {
	__u16 reg_num;
	__u16 reg_set;
	__u32 reg_flags;
	__u64 reg_value;		/* the 64-bit count */
	__u64 reg_long_reset;		/* reload value at restart */
	__u64 reg_short_reset;		/* reload value after an overflow in the kernel */
	__u64 reg_last_reset_val;	/* out: the last value reloaded */
	__u64 reg_ovfl_switch_cnt;	/* overflows before a set switch; out: left */
	__u64 reg_reset_pmds[PFM_PMD_BV];
	__u64 reg_smpl_pmds[PFM_PMD_BV];
	__u64 reg_smpl_eventid;
	__u64 reg_random_mask;
	__u32 reg_random_seed;
	__u32 reg_reserved1;
	__u64 reg_time_enabled;		/* out: ns the counter was enabled */
	__u64 reg_time_running;		/* out: ns it really counted */
	/*
	 * out: over the activations of its set (each from a switch to the
	 * set to the switch away, the current one so far), sums of the ns
	 * the counter ran in each, of their squares in us^2, of its counts
	 * and of count^2 / ms ran: the spread of its rate, so how far its
	 * count scaled to the whole time may be off.  U64_MAX: overflowed.
	 * Ignored on input.
	 */
	__u64 reg_act_time;
	__u64 reg_act_time2_us;
	__u64 reg_act_count;
	__u64 reg_act_count2_ms;
};

/*
 * A vector argument: vec_size bytes of elements of vec_elem_size bytes
 * each (sizeof the element the caller was built with; a multiple of 8 and
 * at least the first version's size).  On an error the failing element
 * carries PFM_REG_RETFL_* bits, the elements before it were applied and
 * vec_done says how many.
 */
struct pfarg_vec {
	__u64 vec_addr;
	__u32 vec_size;
	__u32 vec_elem_size;
	__u32 vec_done;			/* out */
	__u32 vec_reserved1;
	__u64 vec_reserved2[2];
};

/* --- attach, start, stop ------------------------------------------------ */

#define PFM_LOADFL_INHERIT		0x1	/* count tasks the target creates after the load */
#define PFM_LOADFL_ENABLE_ON_EXEC	0x2	/* start at the target's next execve() */

struct pfarg_load {
	__u32 load_pid;		/* per-thread: the thread id, 0 = the caller */
	__u32 load_cpu;		/* system-wide: the CPU */
	__u16 load_set;
	__u16 load_reserved1;
	__u32 load_flags;	/* PFM_LOADFL_* */
	__u64 load_reserved2[3];
};

#define PFM_STARTFL_SET		0x1	/* start_set names the first set */
#define PFM_STARTFL_RESTART	0x2	/* resume after a notification */

struct pfarg_start {
	__u32 start_flags;
	__u16 start_set;
	__u16 start_reserved1;
	__u64 start_reserved2[3];
};

/* for PFM_STOP and PFM_UNLOAD_CONTEXT: no flags defined yet */
struct pfarg_flags {
	__u32 flags;
	__u32 reserved1;
	__u64 reserved2[3];
};

/* --- the PMU description ------------------------------------------------ */

#define PFM_REG_TYPE_PMC	1
#define PFM_REG_TYPE_PMD	2
#define PFM_REG_TYPE_VIRT	3	/* a perf_event of the running kernel */
#define PFM_REG_IDX_NONE	(~0ULL)

/* reg_flags of a register description */
#define PFM_REGINFO_EVTSEL	0x1	/* an event select PMC */
#define PFM_REGINFO_EXT		0x2	/* an extension PMC */
#define PFM_REGINFO_COUNTER	0x4	/* a 64-bit counting PMD */

struct pfarg_reginfo {
	__u16 reg_num;		/* in */
	__u16 reg_type;		/* out: PFM_REG_TYPE_* */
	__u32 reg_flags;	/* out: PFM_REGINFO_*, or PFM_REG_RETFL_* */
	__u64 reg_def_value;	/* out: the value after create */
	__u64 reg_rsvd_mask;	/* out: bits that must be zero */
	__u64 reg_index;	/* out: hardware index or PFM_REG_IDX_NONE */
	__u32 reg_counter;	/* out: the PMD a PMC programs, or the PMD itself */
	__u32 reg_reserved1;
	__u64 reg_reserved2[3];
};

#define PFM_GROUP_ANY		0xffffffffU
#define PFM_CFG_HW_PMU		0x1	/* raw hardware encodings accepted */

struct pfarg_config {
	__u32 cf_version;		/* out: PFM_VERSION */
	__u32 cf_flags;			/* out: PFM_CFG_* */
	__u64 cf_impl_pmcs[PFM_PMC_BV];	/* out */
	__u64 cf_impl_pmds[PFM_PMD_BV];	/* out */
	__u32 cf_sys_gid;		/* group that may create system-wide contexts */
	__u32 cf_thread_gid;		/* group that may create per-thread contexts */
	__u64 cf_arg_size_max;		/* bytes of a vector argument */
	__u64 cf_smpl_buf_size_max;	/* bytes of all sampling buffers */
	__u32 cf_counter_width;		/* out: 64 */
	__u32 cf_num_counters;		/* out: PFM_NUM_COUNTERS */
	__u32 cf_ctx_per_user_max;	/* open contexts per user */
	__u32 cf_reserved1;
	__u64 cf_reserved2[6];
};

/* --- event sets (reserved: not implemented in this version) ------------- */

#define PFM_SETFL_OVFL_SWITCH	0x01
#define PFM_SETFL_TIME_SWITCH	0x02
#define PFM_SETFL_EXPL_NEXT	0x04

struct pfarg_setdesc {
	__u16 set_id;
	__u16 set_id_next;
	__u32 set_flags;
	__u64 set_timeout;		/* ns; out: the effective timeout */
	__u64 set_reserved2[6];
};

struct pfarg_setinfo {
	__u16 set_id;
	__u16 set_id_next;
	__u32 set_flags;
	__u64 set_ovfl_pmds[PFM_PMD_BV];
	__u64 set_runs;
	__u64 set_timeout;
	__u64 set_act_duration;
	__u64 set_avail_pmcs[PFM_PMC_BV];
	__u64 set_avail_pmds[PFM_PMD_BV];
	__u64 set_reserved3[6];
};

/* --- messages, read(2) from the context fd ------------------------------ */

#define PFM_MSG_OVFL		1	/* a counter overflowed */
#define PFM_MSG_END		2	/* the monitored thread ended */

struct pfarg_ovfl_msg {
	__u32 msg_type;
	__u32 msg_ovfl_pid;
	__u16 msg_active_set;
	__u16 msg_ovfl_cpu;
	__u32 msg_ovfl_tid;
	__u64 msg_ovfl_ip;
	__u64 msg_ovfl_pmds[PFM_PMD_BV];
	__u64 msg_tstamp;		/* ns, local_clock() of the overflow CPU */
};

/* read(2) sizes are whole multiples of this union: 64 bytes */
union pfarg_msg {
	__u32 type;
	struct pfarg_ovfl_msg pfm_ovfl_msg;
	__u64 msg_reserved[8];
};

/* --- the context's state (ours, not in the spec) ----------------------- */

#define PFM_CTXINFO_LOADED	0x1
#define PFM_CTXINFO_STARTED	0x2
#define PFM_CTXINFO_MASKED	0x4	/* an overflow waits for PFM_STARTFL_RESTART */

struct pfarg_ctxinfo {
	__u32 ctx_flags;		/* out: PFM_FL_* given at create */
	__u32 ctx_state;		/* out: PFM_CTXINFO_* */
	__u16 ctx_active_set;		/* out */
	__u16 ctx_reserved1;
	__u32 ctx_msg_count;		/* out: messages queued */
	__u64 ctx_msg_dropped;		/* out: messages dropped on a full queue */
	__u64 ctx_ovfl_pmds[PFM_PMD_BV];	/* out: overflowed PMDs while masked */
	__u64 ctx_smpl_lost;		/* out: with a format, overflows not
					 * recorded (masked, or no room) */
	__u64 ctx_reserved2[3];
	/* appended (the first version ends above) */
	__u64 ctx_smpl_ovfls;		/* out: with a format, every overflow:
					 * recorded or in ctx_smpl_lost */
	__u64 ctx_smpl_late;		/* out: of ctx_smpl_lost, overflows no
					 * interrupt came for in time */
	__u64 ctx_throttled;		/* out: times the kernel throttled one
					 * of the context's events (kernel.
					 * perf_event_max_sample_rate): until
					 * its next tick it takes no overflow,
					 * and a clock or a PMU counter counts
					 * nothing */
};

/* --- commands ----------------------------------------------------------- */

#define PFM_IOC_MAGIC	0xF8

#define PFM_GET_CONFIG		_IOWR(PFM_IOC_MAGIC, 0x00, struct pfarg_config)
#define PFM_SET_CONFIG		_IOWR(PFM_IOC_MAGIC, 0x01, struct pfarg_config)
#define PFM_GETINFO_PMCS	_IOWR(PFM_IOC_MAGIC, 0x02, struct pfarg_vec)
#define PFM_GETINFO_PMDS	_IOWR(PFM_IOC_MAGIC, 0x03, struct pfarg_vec)
#define PFM_CREATE_CONTEXT	_IOWR(PFM_IOC_MAGIC, 0x10, struct pfarg_ctx)
#define PFM_WRITE_PMCS		_IOWR(PFM_IOC_MAGIC, 0x11, struct pfarg_vec)
#define PFM_WRITE_PMDS		_IOWR(PFM_IOC_MAGIC, 0x12, struct pfarg_vec)
#define PFM_READ_PMDS		_IOWR(PFM_IOC_MAGIC, 0x13, struct pfarg_vec)
#define PFM_LOAD_CONTEXT	_IOWR(PFM_IOC_MAGIC, 0x14, struct pfarg_load)
#define PFM_UNLOAD_CONTEXT	_IOWR(PFM_IOC_MAGIC, 0x15, struct pfarg_flags)
#define PFM_START		_IOWR(PFM_IOC_MAGIC, 0x16, struct pfarg_start)
#define PFM_STOP		_IOWR(PFM_IOC_MAGIC, 0x17, struct pfarg_flags)
#define PFM_CREATE_EVTSETS	_IOWR(PFM_IOC_MAGIC, 0x18, struct pfarg_vec)
#define PFM_DELETE_EVTSETS	_IOWR(PFM_IOC_MAGIC, 0x19, struct pfarg_vec)
#define PFM_GETINFO_EVTSETS	_IOWR(PFM_IOC_MAGIC, 0x1a, struct pfarg_vec)
#define PFM_GETINFO_FMTS	_IOWR(PFM_IOC_MAGIC, 0x1b, struct pfarg_vec)
#define PFM_GETINFO_CTX		_IOWR(PFM_IOC_MAGIC, 0x1c, struct pfarg_ctxinfo)

#endif /* _UAPI_LINUX_PERFMON_H */
