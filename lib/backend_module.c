/* The perfmon kernel module backend: the one file that opens /dev/perfmon.
 * One context per measurement: event i gets counter k (PMC k programs
 * PMD k, PMC 64 + k holds a breakpoint address), loaded on the target
 * with inheritance and start-at-exec, as the perf backend does. */
#include "backend.h"
#include "error.h"
#include "perfmon.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

struct module_state {
	int fd;
	size_t n;
	uint32_t arg_size_max;
	int ctr[];		/* counter of event i, -1 when not counted */
};

static int pfm_open_device(int *fd)
{
	*fd = open(PFM_DEVICE, O_RDWR | O_CLOEXEC);
	if (*fd >= 0)
		return 0;
	if (errno == ENOENT || errno == ENODEV || errno == ENXIO)
		return px_fail(ENODEV,
			       "the perfmon kernel module is not loaded (%s is missing): load perfmon.ko (see kernel/README.md) or use --backend=perf",
			       PFM_DEVICE);
	if (errno == EMFILE && access(PFM_DEVICE, F_OK) == 0)
		return px_fail(EMFILE,
			       "cannot open %s: too many perfmon contexts for this user (module parameter ctx_per_user_max)",
			       PFM_DEVICE);
	return px_fail(errno, "cannot open %s: %s", PFM_DEVICE, strerror(errno));
}

static int pfm_get_config(int fd, struct pfarg_config *cf)
{
	memset(cf, 0, sizeof(*cf));
	if (ioctl(fd, PFM_GET_CONFIG, cf))
		return px_fail(errno, "%s: cannot read the module configuration: %s",
			       PFM_DEVICE, strerror(errno));
	if (PFM_VERSION_MAJOR(cf->cf_version) != PFM_VERSION_MAJOR(PFM_VERSION))
		return px_fail(EPROTO,
			       "the loaded perfmon module has interface %u.%u, this program needs %u.x: rebuild one of them",
			       PFM_VERSION_MAJOR(cf->cf_version),
			       PFM_VERSION_MINOR(cf->cf_version),
			       PFM_VERSION_MAJOR(PFM_VERSION));
	return 0;
}

static int module_probe(void)
{
	struct pfarg_config cf;
	int fd, ret;

	ret = pfm_open_device(&fd);
	if (ret)
		return ret;
	ret = pfm_get_config(fd, &cf);
	close(fd);
	return ret;
}

/* One vector command; returns 0 or -errno (errno left as the kernel set it). */
static int pfm_vec(int fd, unsigned long cmd, void *elems, size_t n,
		   size_t esize)
{
	struct pfarg_vec vec;

	memset(&vec, 0, sizeof(vec));
	vec.vec_addr = (uintptr_t)elems;
	vec.vec_size = (uint32_t)(n * esize);
	vec.vec_elem_size = (uint32_t)esize;
	return ioctl(fd, cmd, &vec) ? -errno : 0;
}

static int pfm_write_pmc(int fd, unsigned int num, uint64_t value)
{
	struct pfarg_pmc pmc;

	memset(&pmc, 0, sizeof(pmc));
	pmc.reg_num = (uint16_t)num;
	pmc.reg_value = value;
	return pfm_vec(fd, PFM_WRITE_PMCS, &pmc, 1, sizeof(pmc));
}

/* The event select value (and extension) of an event, or -EOPNOTSUPP
 * for kinds of events the module has no encoding for. */
static int pfm_encode(const struct px_event *ev, uint64_t *evtsel,
		      uint64_t *ext1, uint64_t *ext2)
{
	uint64_t levels = 0;

	if (!ev->exclude_user)
		levels |= PFM_PMC_USR;
	if (!ev->exclude_kernel)
		levels |= PFM_PMC_OS;
	if (!ev->exclude_hv)
		levels |= PFM_PMC_HV;
	*ext1 = ev->config1;
	*ext2 = ev->config2;

	if (ev->kind == PX_EVENT_BREAKPOINT) {
		*evtsel = PFM_PMC_VIRT_EVENT(PFM_EVT_TYPE_BREAKPOINT,
					     ev->bp_type | (ev->bp_len << PFM_PMC_BP_LEN_SHIFT),
					     levels);
		*ext1 = ev->bp_addr;
		*ext2 = 0;
		return 0;
	}
	switch (ev->type) {
	case PFM_EVT_TYPE_HARDWARE:
	case PFM_EVT_TYPE_SOFTWARE:
	case PFM_EVT_TYPE_HW_CACHE:
		if (ev->config > PFM_PMC_CONFIG_MASK)
			return -EOPNOTSUPP;
		*evtsel = PFM_PMC_VIRT_EVENT(ev->type, ev->config, levels);
		return 0;
	case 4:	/* PERF_TYPE_RAW */
		if (ev->config & PFM_PMC_VIRT)
			return -EOPNOTSUPP;
		*evtsel = ev->config & ~(PFM_PMC_RAW_USR | PFM_PMC_RAW_OS);
		if (!ev->exclude_user)
			*evtsel |= PFM_PMC_RAW_USR;
		if (!ev->exclude_kernel)
			*evtsel |= PFM_PMC_RAW_OS;
		return 0;
	}
	return -EOPNOTSUPP;
}

/* Program counter k for ev: 0, -EOPNOTSUPP (not countable here) or a
 * failure already reported with px_fail(). */
static int pfm_program(int fd, unsigned int k, struct px_event *ev)
{
	uint64_t evtsel, ext1, ext2;
	int ret;

	if (pfm_encode(ev, &evtsel, &ext1, &ext2))
		return px_fail(EINVAL,
			       "the perfmon module cannot count '%s' (perf type %u): it counts generic, software, cache, raw and breakpoint events; use --backend=perf",
			       ev->name, ev->type);
	ret = pfm_write_pmc(fd, PFM_PMC_EXT1_BASE + k, ext1);
	if (!ret)
		ret = pfm_write_pmc(fd, PFM_PMC_EXT2_BASE + k, ext2);
	if (!ret)
		ret = pfm_write_pmc(fd, k, evtsel);
	if (ret == -EACCES && !ev->priv_explicit && !ev->exclude_kernel) {
		/* as the perf backend: count user level only */
		ev->exclude_kernel = true;
		ev->exclude_hv = true;
		ev->kernel_dropped = true;
		return pfm_program(fd, k, ev);
	}
	if (ret == -EOPNOTSUPP || !ret)
		return ret;
	if (ret == -EACCES)
		return px_fail(EACCES,
			       "no permission to count '%s' at kernel level through the perfmon module: it needs CAP_PERFMON; add :u to count user space only",
			       ev->name);
	return px_fail(-ret, "the perfmon module refused event '%s': %s",
		       ev->name, strerror(-ret));
}

static int pfm_load(int fd, const struct px_target *t)
{
	struct pfarg_load ld;

	memset(&ld, 0, sizeof(ld));
	if (t->pid >= 0) {
		ld.load_pid = (uint32_t)t->pid;
		if (t->inherit)
			ld.load_flags |= PFM_LOADFL_INHERIT;
		if (t->enable_on_exec)
			ld.load_flags |= PFM_LOADFL_ENABLE_ON_EXEC;
	} else {
		ld.load_cpu = (uint32_t)t->cpu;
	}
	if (!ioctl(fd, PFM_LOAD_CONTEXT, &ld))
		return 0;
	if (errno == EPERM && t->pid < 0)
		return px_fail(EPERM,
			       "no permission to count on CPU %d through the perfmon module: system-wide counting needs CAP_PERFMON or CAP_SYS_ADMIN",
			       t->cpu);
	if (errno == EPERM)
		return px_fail(EPERM,
			       "the perfmon module cannot attach to task %d: it attaches only to the caller or to a ptrace-stopped child of the caller",
			       (int)t->pid);
	if (errno == EBUSY)
		return px_fail(EBUSY, "%s %d already has a perfmon context",
			       t->pid >= 0 ? "task" : "CPU",
			       t->pid >= 0 ? (int)t->pid : t->cpu);
	if (errno == ESRCH)
		return px_fail(ESRCH, "no task %d to count", (int)t->pid);
	return px_fail(errno, "cannot attach the perfmon context: %s",
		       strerror(errno));
}

static int pfm_create(int fd, const struct px_target *t)
{
	struct pfarg_ctx ctx;

	memset(&ctx, 0, sizeof(ctx));
	if (t->pid < 0)
		ctx.ctx_flags = PFM_FL_SYSTEM_WIDE;
	if (!ioctl(fd, PFM_CREATE_CONTEXT, &ctx))
		return 0;
	if (errno == EPERM)
		return px_fail(EPERM,
			       "no permission to create a %s perfmon context (module parameters sys_gid, thread_gid; system-wide needs CAP_PERFMON)",
			       t->pid < 0 ? "system-wide" : "per-thread");
	return px_fail(errno, "cannot create a perfmon context: %s",
		       strerror(errno));
}

static void module_close(void *state)
{
	struct module_state *st = state;

	if (!st)
		return;
	if (st->fd >= 0)
		close(st->fd);
	free(st);
}

static int module_open(struct px_event *evs, size_t n,
		       const struct px_target *t, int *status, void **state)
{
	struct module_state *st;
	struct pfarg_config cf;
	unsigned int k = 0;
	int ret;

	if (t->pid >= 0 && t->cpu >= 0)
		return px_fail(EOPNOTSUPP,
			       "the perfmon module counts a task on every CPU or a whole CPU, not a task on one CPU");
	if (n > PFM_NUM_COUNTERS)
		return px_fail(EINVAL,
			       "the perfmon module has %d counters, %zu events were asked for",
			       PFM_NUM_COUNTERS, n);
	st = calloc(1, sizeof(*st) + n * sizeof(int));
	if (!st)
		return px_fail(ENOMEM, "out of memory");
	st->n = n;
	ret = pfm_open_device(&st->fd);
	if (ret) {
		free(st);
		return ret;
	}
	ret = pfm_get_config(st->fd, &cf);
	if (!ret)
		ret = pfm_create(st->fd, t);
	if (ret)
		goto out_close;
	st->arg_size_max = (uint32_t)cf.cf_arg_size_max;

	for (size_t i = 0; i < n; i++) {
		status[i] = 0;
		st->ctr[i] = -1;
		ret = pfm_program(st->fd, k, &evs[i]);
		if (ret == -EOPNOTSUPP) {
			status[i] = -EOPNOTSUPP;
			continue;
		}
		if (ret)
			goto out_close;
		st->ctr[i] = (int)k++;
	}
	ret = pfm_load(st->fd, t);
	if (ret)
		goto out_close;
	*state = st;
	return 0;

out_close:
	module_close(st);
	return ret;
}

static int module_enable(void *state)
{
	struct module_state *st = state;
	struct pfarg_start arg;

	memset(&arg, 0, sizeof(arg));
	if (ioctl(st->fd, PFM_START, &arg))
		return px_fail(errno, "perfmon start failed: %s", strerror(errno));
	return 0;
}

static int module_disable(void *state)
{
	struct module_state *st = state;
	struct pfarg_flags arg;

	memset(&arg, 0, sizeof(arg));
	if (ioctl(st->fd, PFM_STOP, &arg))
		return px_fail(errno, "perfmon stop failed: %s", strerror(errno));
	return 0;
}

static int module_read(void *state, struct px_count *counts)
{
	struct module_state *st = state;
	struct pfarg_pmd pmds[PFM_NUM_COUNTERS];
	size_t per_call = st->arg_size_max / sizeof(pmds[0]);
	size_t nctr = 0;
	int ret;

	for (size_t i = 0; i < st->n; i++)
		if (st->ctr[i] >= 0)
			nctr++;
	memset(pmds, 0, sizeof(pmds));
	for (size_t k = 0; k < nctr; k++)
		pmds[k].reg_num = (uint16_t)k;
	if (!per_call)
		per_call = 1;
	for (size_t k = 0; k < nctr; k += per_call) {
		size_t m = nctr - k < per_call ? nctr - k : per_call;

		ret = pfm_vec(st->fd, PFM_READ_PMDS, &pmds[k], m, sizeof(pmds[0]));
		if (ret)
			return px_fail(-ret, "cannot read the perfmon counters: %s",
				       strerror(-ret));
	}
	for (size_t i = 0; i < st->n; i++) {
		memset(&counts[i], 0, sizeof(counts[i]));
		if (st->ctr[i] < 0)
			continue;
		counts[i].value = pmds[st->ctr[i]].reg_value;
		counts[i].enabled = pmds[st->ctr[i]].reg_time_enabled;
		counts[i].running = pmds[st->ctr[i]].reg_time_running;
	}
	return 0;
}

const struct px_backend px_backend_module = {
	.name = "module",
	.probe = module_probe,
	.open = module_open,
	.enable = module_enable,
	.disable = module_disable,
	.read = module_read,
	.close = module_close,
};
