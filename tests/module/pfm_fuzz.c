/* pfm_fuzz N [SEED]: N random calls on /dev/perfmon contexts: ioctls with
 * random numbers, directions, sizes and bytes (often well-formed vectors
 * of random elements), reads, polls, opens and closes, contexts with
 * sampling formats that record on the caller, mappings of their buffers.  The module must
 * answer every one with a result, never an oops; the suite checks the
 * guest's dmesg and that counting still works afterwards.  Prints a
 * summary of the errnos seen.
 *
 * pfm_fuzz -s N [SEED]: sequences.  The same calls, and mostly
 * well-formed steps of a context's life (create, event sets, program,
 * load, start, switch sets, read, stop, restart, unload, close) in
 * random order, from two threads of this process and from a forked
 * child, all on the same contexts: the child has copies of the fds, so
 * a context loaded on one thread is stopped, read, unloaded or closed by
 * the other, by the child, or after its thread has ended; one thread
 * runs in short-lived generations, so that contexts outlive the threads
 * they monitor; ptrace-stopped grandchildren are loaded, released and
 * killed.  N calls in all; the summary sums the three workers. */
#include "pfm_util.h"

#include <poll.h>
#include <pthread.h>
#include <stddef.h>
#include <sys/mman.h>
#include <sys/syscall.h>

#include "callchain/perfmon_cc_smpl.h"
#include "default/perfmon_dfl_smpl.h"
#include "double-buffer/perfmon_dbl_smpl.h"

#define MAX_FDS	8
#define BUF	4096

/* per thread: each worker of the sequence mode has its own stream */
static __thread uint64_t rng_state;

static uint64_t rnd(void)
{
	rng_state ^= rng_state << 13;
	rng_state ^= rng_state >> 7;
	rng_state ^= rng_state << 17;
	return rng_state;
}

static unsigned int rnd_below(unsigned int n)
{
	return (unsigned int)(rnd() % n);
}

/*
 * The contexts, shared by the threads of the sequence mode (and copied
 * into its child): a slot is read, emptied and filled atomically, so
 * that two threads never close the same fd twice.  A slot's fd may still
 * be closed by another thread while one uses it, and its number reused
 * by an open of another slot: every fd the fuzzer opens while it runs is
 * /dev/perfmon, so a stale number is another context, or EBADF.
 */
static int fds[MAX_FDS];
/* the errno counts of the calling worker (counts[0]: successes) */
static __thread unsigned long *counts;

/*
 * The buffers the calls point the kernel at, one per thread, and room
 * after them: a vector may end past elems (its shapes are random, its
 * size up to the module's largest argument, 1 MB, once a root run has
 * raised cf_arg_size_max at random) and a random command's size is up
 * to 16383 bytes, which the module may write back in full.  Those
 * writes land in pad, not in whatever the memory holds next (a thread's
 * own variables, its thread control block, the heap).  Untouched, pad
 * costs no memory.
 */
#define ARG	1024
struct scratch {
	unsigned char elems[BUF];
	unsigned char arg[ARG];
	unsigned char pad[(1 << 20) + 65536];
} __attribute__((aligned(8)));

static struct scratch main_scratch;
static __thread struct scratch *scratch = &main_scratch;
#define elems	(scratch->elems)
#define arg	(scratch->arg)

static int slot_get(int slot)
{
	return __atomic_load_n(&fds[slot], __ATOMIC_RELAXED);
}

/* empty the slot; its fd is the caller's to close */
static int slot_take(int slot)
{
	return __atomic_exchange_n(&fds[slot], -1, __ATOMIC_RELAXED);
}

/* put fd in the slot, closing the one it replaces */
static void slot_put(int slot, int fd)
{
	int old = __atomic_exchange_n(&fds[slot], fd, __ATOMIC_RELAXED);

	if (old >= 0 && old != fd)
		close(old);
}

static void fill_random(unsigned char *p, size_t n)
{
	for (size_t i = 0; i < n; i++)
		p[i] = (unsigned char)rnd();
}

/* random but often plausible values for registers: software events,
 * generic and raw hardware events (x86's instructions retired 0x4300c0,
 * arm64's INST_RETIRED and CPU_CYCLES at user level, which the arm64
 * guest's PMU counts), a breakpoint, reserved bits, an address */
static uint64_t rnd_value(void)
{
	/* not static: the address of a thread's variable is no constant */
	const uint64_t pool[] = {
		0, EV_TASK_CLOCK, EV_PAGE_FAULTS, EV_CPU_CLOCK, EV_CYCLES,
		EV_INSTRUCTIONS, EV_BP_X(8), PFM_PMC_VIRT | PFM_PMC_OS,
		1ull << 63, ~0ull, 0x4300c0, PFM_PMC_RAW_USR | 0x08,
		PFM_PMC_RAW_USR | 0x11, (uint64_t)(uintptr_t)&rng_state,
	};

	if (rnd_below(3))
		return pool[rnd_below(sizeof(pool) / sizeof(pool[0]))];
	return rnd();
}

static const uint64_t smpl_events[] = { EV_PAGE_FAULTS, EV_CYCLES, EV_INSTRUCTIONS };

/* a vector argument over elems: mostly valid shapes, random contents */
static void make_vec(struct pfarg_vec *v)
{
	static const unsigned int sizes[] = {
		sizeof(struct pfarg_pmc), sizeof(struct pfarg_pmd),
		sizeof(struct pfarg_reginfo), 8, 0, 7, 4096,
	};
	unsigned int esize = sizes[rnd_below(sizeof(sizes) / sizeof(sizes[0]))];
	unsigned int n = 1 + rnd_below(6);

	memset(v, 0, sizeof(*v));
	fill_random(elems, sizeof(elems));
	if (rnd_below(2)) {
		/* well-formed elements: small register numbers, zero tails */
		memset(elems, 0, sizeof(elems));
		for (unsigned int i = 0; esize >= 16 && i < n && (i + 1) * esize <= BUF; i++) {
			unsigned char *e = elems + i * esize;
			uint16_t num = (uint16_t)rnd_below(300);
			uint64_t val = rnd_value();

			memcpy(e, &num, sizeof(num));
			memcpy(e + 8, &val, sizeof(val));
			if (esize == sizeof(struct pfarg_pmd) && rnd_below(2)) {
				/* sampling fields: flags, resets, smpl_pmds */
				uint32_t fl = rnd_below(16);
				uint64_t sp = rnd_below(3) ? 1ull << rnd_below(64) : rnd();
				uint64_t rs = -(uint64_t)(1 + rnd_below(50));

				memcpy(e + 4, &fl, sizeof(fl));
				memcpy(e + offsetof(struct pfarg_pmd, reg_short_reset), &rs, 8);
				memcpy(e + offsetof(struct pfarg_pmd, reg_long_reset), &rs, 8);
				memcpy(e + offsetof(struct pfarg_pmd, reg_smpl_pmds), &sp, 8);
			}
			if (!rnd_below(8))
				e[2 + rnd_below((unsigned int)esize - 2)] = (unsigned char)rnd();
		}
	}
	v->vec_addr = (uintptr_t)elems;
	v->vec_size = esize * n;
	v->vec_elem_size = esize;
	switch (rnd_below(12)) {
	case 0: v->vec_addr = rnd(); break;
	case 1: v->vec_addr = 0; break;
	case 2: v->vec_size = (uint32_t)rnd(); break;
	case 3: v->vec_elem_size = (uint32_t)rnd(); break;
	case 4: v->vec_reserved1 = 1; break;
	case 5: v->vec_addr = (uintptr_t)(elems + BUF - 8); break;
	}
}

/* a context with a sampling format: names, argument sizes, buffer sizes
 * and flags, mostly plausible */
static void make_fmt_ctx(struct pfarg_ctx *c)
{
	static const char *names[] = { "default", "double-buffer", "callchain",
				       "bogus", "" };
	static __thread union {
		struct pfm_dfl_smpl_arg a;
		struct pfm_cc_smpl_arg cc;
	} u;
	struct pfm_dfl_smpl_arg *a = &u.a;
	static const uint64_t sizes[] = { 0, 40, 592, 1224, 5000, 65536, 1 << 24, 1ull << 40 };
	static const uint16_t frames[] = { 0, 1, 2, 127, 512, 513, 65535 };
	unsigned int name = rnd_below(5);

	memset(c, 0, sizeof(*c));
	c->ctx_flags = PFM_FL_SMPL_FMT | (uint32_t)rnd_below(16);
	c->ctx_smpl_name = rnd_below(20) ? (uintptr_t)names[name] : rnd();
	c->ctx_smpl_arg = rnd_below(20) ? (uintptr_t)&u : rnd();
	c->ctx_smpl_arg_size = rnd_below(4) ? (name == 2 ? sizeof(u.cc) : sizeof(*a)) :
					      rnd_below(40);
	if (!rnd_below(4)) {
		/* by UUID: a loaded format's, or any; with or without a name */
		static const uint8_t uuids[3][16] = { PFM_DFL_SMPL_UUID,
						      PFM_DBL_SMPL_UUID,
						      PFM_CC_SMPL_UUID };

		if (rnd_below(3))
			memcpy(c->ctx_smpl_uuid, uuids[rnd_below(3)], 16);
		else
			for (int i = 0; i < 16; i++)
				c->ctx_smpl_uuid[i] = (uint8_t)rnd();
		if (rnd_below(2))
			c->ctx_smpl_name = 0;
	}
	memset(&u, 0, sizeof(u));
	if (name == 2) {
		u.cc.buf_size = rnd_below(6) ? sizes[rnd_below(8)] : rnd();
		u.cc.buf_flags = rnd_below(3) ? 3 : (uint32_t)rnd_below(9);
		u.cc.max_frames = frames[rnd_below(7)];
		if (!rnd_below(10))
			u.cc.stack_bytes = 8 * rnd_below(3);
		if (!rnd_below(10))
			u.cc.reserved1 = 1;
		if (!rnd_below(10))
			u.cc.reserved2 = 1;
		return;
	}
	a->buf_size = rnd_below(6) ? sizes[rnd_below(8)] : rnd();
	a->buf_flags = rnd_below(3) ? 0 : (uint32_t)rnd_below(5);
	if (!rnd_below(10))
		a->reserved1 = 1;
}

/* A sampling run on the caller: a format context, page faults sampled
 * every few faults with random flags (with call chains, at user or both
 * levels), some pages touched, maybe a restart; left in its slot for the
 * random calls that follow. */
static void smpl_run(int slot)
{
	static const char *names[] = { "default", "double-buffer", "callchain" };
	unsigned int name = rnd_below(3);
	struct pfm_dfl_smpl_arg a = { .buf_size = 592 + 40 * rnd_below(40) };
	struct pfm_cc_smpl_arg cc = {
		.buf_flags = 1 + rnd_below(3),
		.max_frames = (uint16_t)(1 + rnd_below(rnd_below(2) ? 8 : 512)),
	};
	struct pfarg_ctx c;
	struct pfarg_pmd p;
	struct pfarg_load l;
	struct pfarg_start st;
	long page = sysconf(_SC_PAGESIZE);
	int fd = open(PFM_DEVICE, O_RDWR | O_NONBLOCK | O_CLOEXEC);
	unsigned int n = 1 + rnd_below(64);
	char *m;

	if (fd < 0)
		return;
	slot_put(slot, fd);
	if (rnd_below(2))
		a.buf_size += 640;	/* room for two halves */
	a.buf_flags = rnd_below(4) ? 0 : 1;
	/* a few of the largest samples */
	cc.buf_size = 40 + (568 + 8 * cc.max_frames) * (1 + rnd_below(4));
	memset(&c, 0, sizeof(c));
	c.ctx_flags = PFM_FL_SMPL_FMT | (rnd_below(2) ? PFM_FL_NOTIFY_BLOCK : 0);
	c.ctx_smpl_name = (uintptr_t)names[name];
	c.ctx_smpl_arg = name == 2 ? (uintptr_t)&cc : (uintptr_t)&a;
	c.ctx_smpl_arg_size = name == 2 ? sizeof(cc) : sizeof(a);
	if (ioctl(fd, PFM_CREATE_CONTEXT, &c)) {
		counts[errno & 0xff]++;
		return;
	}
	/* kernel level: refused to the unprivileged user (EACCES); the
	 * hardware events sample where there is a PMU (EOPNOTSUPP else) */
	pfm_pmc(fd, 0, smpl_events[rnd_below(3)] |
		       (name == 2 && rnd_below(2) ? PFM_PMC_OS : 0));
	pfm_pmc(fd, 1, EV_TASK_CLOCK);
	memset(&p, 0, sizeof(p));
	p.reg_value = -(uint64_t)(1 + rnd_below(4));
	p.reg_short_reset = p.reg_long_reset = p.reg_value;
	p.reg_flags = PFM_PMDFL_SMPL | (uint32_t)(rnd_below(16) & ~PFM_PMDFL_SMPL);
	p.reg_random_mask = rnd_below(2);
	p.reg_random_seed = 1 + rnd_below(1000);
	p.reg_smpl_pmds[0] = rnd_below(4);
	p.reg_reset_pmds[0] = rnd_below(3);
	pfm_vec_call(fd, PFM_WRITE_PMDS, &p, 1, sizeof(p));
	memset(&l, 0, sizeof(l));
	memset(&st, 0, sizeof(st));
	if (ioctl(fd, PFM_LOAD_CONTEXT, &l) || ioctl(fd, PFM_START, &st)) {
		counts[errno & 0xff]++;
		return;
	}
	m = mmap(NULL, n * page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (m != MAP_FAILED) {
		for (unsigned int i = 0; i < n; i++)
			m[i * page] = 1;
		munmap(m, n * page);
	}
	if (rnd_below(2)) {
		st.start_flags = PFM_STARTFL_RESTART;
		counts[(ioctl(fd, PFM_START, &st) ? errno : 0) & 0xff]++;
	}
}

/* mmap a context's buffer: right or wrong prot, length, offset; read it */
static void smpl_map(int fd)
{
	static const int prots[] = { PROT_READ, PROT_READ | PROT_WRITE, PROT_EXEC, PROT_NONE };
	size_t len = (size_t)(1 + rnd_below(20)) * 4096;
	off_t off = rnd_below(4) ? 0 : 4096 * (off_t)rnd_below(3);
	volatile unsigned char sum = 0;
	unsigned char *m;

	m = mmap(NULL, len, prots[rnd_below(4)], rnd_below(5) ? MAP_SHARED : MAP_PRIVATE,
		 fd, off);
	if (m == MAP_FAILED) {
		counts[errno & 0xff]++;
		return;
	}
	counts[0]++;
	for (size_t i = 0; i < len; i += 4096)
		sum += m[i];
	(void)sum;
	munmap(m, len);
}

static unsigned long rnd_cmd(void)
{
	unsigned int nr = rnd_below(0x22);
	unsigned int size;
	unsigned int dir = _IOC_READ | _IOC_WRITE;

	switch (rnd_below(10)) {
	case 0:
		return (unsigned long)rnd();
	case 1:
		dir = rnd_below(4);
		break;
	}
	switch (rnd_below(5)) {
	case 0: size = rnd_below(sizeof(arg)); break;
	case 1: size = sizeof(struct pfarg_ctx); break;
	case 2: size = sizeof(struct pfarg_ctxinfo); break;
	default: size = sizeof(struct pfarg_vec); break;
	}
	if (nr >= 0x04 && nr < 0x10)
		nr = 0x10 + nr % 8;
	return _IOC(dir, rnd_below(20) ? PFM_IOC_MAGIC : rnd_below(256), nr, size);
}


static void one_ioctl(int fd)
{
	unsigned long cmd = rnd_cmd();
	unsigned int nr = _IOC_NR(cmd);
	int e;

	fill_random(arg, sizeof(arg));
	if (rnd_below(4)) {
		memset(arg, 0, sizeof(arg));
		if (nr == 0x11 || nr == 0x12 || nr == 0x13 || nr == 0x02 ||
		    nr == 0x03 || nr >= 0x18)
			make_vec((struct pfarg_vec *)arg);
		else if (nr == 0x10 && rnd_below(2))
			make_fmt_ctx((struct pfarg_ctx *)arg);
		else if (nr == 0x10 && rnd_below(2))
			arg[0] = (unsigned char)(rnd_below(2) ? PFM_FL_SYSTEM_WIDE : 0);
		else if (nr == 0x14 && rnd_below(2))
			memcpy(arg + 8, &(uint32_t){ (uint32_t)rnd_below(4) }, 4);
		else if (rnd_below(4) == 0)
			arg[rnd_below(64)] = (unsigned char)rnd();
	}
	e = ioctl(fd, cmd, rnd_below(30) ? (void *)arg : (void *)(uintptr_t)rnd()) ? errno : 0;
	counts[e & 0xff]++;
}

static void one_call(void)
{
	int slot = (int)rnd_below(MAX_FDS);
	int fd = slot_get(slot);
	union pfarg_msg m[2];

	switch (rnd_below(20)) {
	case 0:
		fd = slot_take(slot);
		if (fd >= 0)
			close(fd);
		return;
	case 1:
		if (fd < 0) {
			fd = open(PFM_DEVICE, O_RDWR | O_NONBLOCK | O_CLOEXEC);
			if (fd < 0)
				counts[errno & 0xff]++;
			else
				slot_put(slot, fd);
		}
		return;
	case 2:
		if (fd >= 0)
			counts[(read(fd, m, rnd_below(3) * sizeof(m[0]) + rnd_below(2)) < 0 ? errno : 0) & 0xff]++;
		return;
	case 3:
		if (fd >= 0) {
			struct pollfd p = { .fd = fd, .events = POLLIN };

			poll(&p, 1, 0);
		}
		return;
	case 4:
		smpl_run(slot);
		return;
	case 5:
		if (fd >= 0)
			smpl_map(fd);
		return;
	}
	if (fd < 0) {
		fd = open(PFM_DEVICE, O_RDWR | O_NONBLOCK | O_CLOEXEC);
		if (fd >= 0)
			slot_put(slot, fd);
	}
	if (fd >= 0)
		one_ioctl(fd);
}

/* --- sequences: the steps of a context's life, from several workers --- */

/* the tids and pids a load may name: the other thread, the child */
static pid_t parent_pid, child_pid;
static pid_t worker_tid[2];

/* events that count in both guests (no breakpoint: each hit costs the
 * arm64 guest milliseconds), at user level, or at both for root */
static uint64_t seq_event(void)
{
	static const uint64_t pool[] = {
		EV_TASK_CLOCK, EV_PAGE_FAULTS, EV_CPU_CLOCK, EV_CYCLES,
		EV_INSTRUCTIONS,
	};
	uint64_t ev = pool[rnd_below(sizeof(pool) / sizeof(pool[0]))];

	return rnd_below(8) ? ev : ev | PFM_PMC_OS;
}

static void seq_count(int e)
{
	counts[e & 0xff]++;
}

/*
 * Event sets 1..3 besides set 0: switched on a clock of 10 us to 1 ms,
 * after overflows, or only by PFM_START; a chain of explicit next sets
 * now and then.  Or one of them deleted.
 */
static void seq_sets(int fd)
{
	struct pfarg_setdesc sd[3];
	unsigned int n = 1 + rnd_below(3);

	memset(sd, 0, sizeof(sd));
	if (!rnd_below(4)) {
		sd[0].set_id = (uint16_t)rnd_below(4);
		seq_count(pfm_vec_call(fd, PFM_DELETE_EVTSETS, sd, 1, sizeof(sd[0])));
		return;
	}
	for (unsigned int i = 0; i < n; i++) {
		sd[i].set_id = (uint16_t)(rnd_below(4) ? i + 1 : 0);
		switch (rnd_below(4)) {
		case 0:
			sd[i].set_flags = PFM_SETFL_TIME_SWITCH;
			sd[i].set_timeout = 10000 + rnd_below(1000000);
			break;
		case 1:
			sd[i].set_flags = PFM_SETFL_OVFL_SWITCH;
			break;
		}
		if (!rnd_below(4)) {
			sd[i].set_flags |= PFM_SETFL_EXPL_NEXT;
			sd[i].set_id_next = (uint16_t)rnd_below(4);
		}
	}
	seq_count(pfm_vec_call(fd, PFM_CREATE_EVTSETS, sd, n, sizeof(sd[0])));
}

/*
 * Program a few counters of a set: events, then PMDs that overflow
 * soon (every few ns of a clock, faults or instructions) with
 * notifications, set switches after overflows and randomised resets.
 */
static void seq_program(int fd)
{
	struct pfarg_pmc pc[4];
	struct pfarg_pmd pd[4];
	unsigned int n = 1 + rnd_below(4);
	uint16_t set = (uint16_t)(rnd_below(2) ? 0 : rnd_below(4));

	memset(pc, 0, sizeof(pc));
	memset(pd, 0, sizeof(pd));
	for (unsigned int i = 0; i < n; i++) {
		pc[i].reg_num = (uint16_t)rnd_below(6);
		pc[i].reg_set = set;
		pc[i].reg_value = seq_event();
		pd[i].reg_num = pc[i].reg_num;
		pd[i].reg_set = set;
		if (rnd_below(2))
			continue;	/* counts from 0 */
		pd[i].reg_value = -(uint64_t)(1 + rnd_below(rnd_below(2) ? 20 : 100000));
		pd[i].reg_short_reset = pd[i].reg_long_reset = pd[i].reg_value;
		pd[i].reg_flags = (uint32_t)rnd_below(16) & ~PFM_PMDFL_SMPL;
		pd[i].reg_ovfl_switch_cnt = rnd_below(3);
		pd[i].reg_reset_pmds[0] = rnd_below(64);
		pd[i].reg_random_mask = rnd_below(2) ? 0 : 0xff;
		pd[i].reg_random_seed = 1 + rnd_below(1000);
	}
	seq_count(pfm_vec_call(fd, PFM_WRITE_PMCS, pc, n, sizeof(pc[0])));
	seq_count(pfm_vec_call(fd, PFM_WRITE_PMDS, pd, n, sizeof(pd[0])));
}

/* a load on the caller mostly; or on a thread or process it may not
 * monitor (EPERM), or on a CPU (a system-wide context) */
static void seq_load(int fd)
{
	struct pfarg_load l;

	memset(&l, 0, sizeof(l));
	switch (rnd_below(12)) {
	case 0:
		l.load_pid = (uint32_t)__atomic_load_n(&worker_tid[rnd_below(2)],
						       __ATOMIC_RELAXED);
		break;
	case 1: l.load_pid = (uint32_t)(rnd_below(2) ? parent_pid : child_pid); break;
	case 2: l.load_cpu = rnd_below(2); break;
	case 3: l.load_flags = PFM_LOADFL_INHERIT; break;
	case 4: l.load_set = (uint16_t)rnd_below(4); break;
	}
	seq_count(xioctl(fd, PFM_LOAD_CONTEXT, &l));
}

/* start, start on a named set (a switch when started), or restart */
static void seq_start(int fd)
{
	struct pfarg_start st;

	memset(&st, 0, sizeof(st));
	switch (rnd_below(4)) {
	case 0:
		st.start_flags = PFM_STARTFL_SET;
		st.start_set = (uint16_t)rnd_below(4);
		break;
	case 1:
		st.start_flags = PFM_STARTFL_RESTART;
		break;
	}
	seq_count(xioctl(fd, PFM_START, &st));
}

/* what a monitoring tool reads: counts, the context's state, the sets */
static void seq_read(int fd)
{
	struct pfarg_pmd pd[4];
	struct pfarg_ctxinfo ci;
	struct pfarg_setinfo si[2];

	memset(pd, 0, sizeof(pd));
	for (unsigned int i = 0; i < 4; i++) {
		pd[i].reg_num = (uint16_t)rnd_below(6);
		pd[i].reg_set = (uint16_t)(rnd_below(2) ? 0 : rnd_below(4));
	}
	seq_count(pfm_vec_call(fd, PFM_READ_PMDS, pd, 1 + rnd_below(4), sizeof(pd[0])));
	memset(&ci, 0, sizeof(ci));
	seq_count(xioctl(fd, PFM_GETINFO_CTX, &ci));
	memset(si, 0, sizeof(si));
	si[1].set_id = (uint16_t)(1 + rnd_below(3));
	seq_count(pfm_vec_call(fd, PFM_GETINFO_EVTSETS, si, 2, sizeof(si[0])));
}

/* work for the counters, the overflows and the switch clock: faults on
 * fresh pages, then some user time */
static void seq_work(unsigned int pages)
{
	long page = sysconf(_SC_PAGESIZE);
	volatile uint64_t x = 0;
	char *m;

	m = mmap(NULL, pages * page, PROT_READ | PROT_WRITE,
		 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (m != MAP_FAILED) {
		for (unsigned int i = 0; i < pages; i++)
			m[i * page] = 1;
		munmap(m, pages * page);
	}
	for (unsigned int i = rnd_below(20000); i; i--)
		x += i;
}

static void seq_traced_body(long pages)
{
	seq_work((unsigned int)pages);
}

/*
 * A grandchild stopped under ptrace, the slot's context loaded on it
 * and maybe started, then released: it runs a little and ends (the
 * context unloads at its next command, with PFM_MSG_END), unless a
 * PFM_FL_NOTIFY_BLOCK overflow holds it for a restart that may never
 * come: after 20 ms it is killed (the block is killable).
 */
static void seq_traced(int fd)
{
	pid_t pid = fork();
	int st;

	if (pid < 0) {
		seq_count(errno);
		return;
	}
	if (pid == 0) {
		if (ptrace(PTRACE_TRACEME, 0, NULL, NULL))
			_exit(120);
		raise(SIGSTOP);
		seq_traced_body(1 + rnd_below(32));
		_exit(0);
	}
	if (waitpid(pid, &st, 0) != pid || !WIFSTOPPED(st)) {
		kill(pid, SIGKILL);
		waitpid(pid, &st, 0);
		return;
	}
	seq_count(pfm_load_pid(fd, pid, rnd_below(4) ? 0 : PFM_LOADFL_INHERIT));
	if (rnd_below(3))
		seq_count(pfm_start(fd));
	ptrace(PTRACE_DETACH, pid, NULL, NULL);
	for (int i = 0; i < 20; i++) {
		if (waitpid(pid, &st, WNOHANG) == pid)
			return;
		usleep(1000);
	}
	kill(pid, SIGKILL);
	waitpid(pid, &st, 0);
}

/*
 * A context taken from creation as far as a random step: created
 * (blocking, without messages, system-wide, now and then), event sets,
 * programmed, loaded, started, some work.  Left in its slot for the
 * other workers.
 */
static void seq_chain(int slot)
{
	static const uint32_t flags[] = {
		0, 0, PFM_FL_NOTIFY_BLOCK, PFM_FL_OVFL_NO_MSG, PFM_FL_SYSTEM_WIDE,
	};
	int fd = open(PFM_DEVICE, O_RDWR | O_NONBLOCK | O_CLOEXEC);
	unsigned int depth = 1 + rnd_below(6);
	struct pfarg_ctx c;

	if (fd < 0) {
		seq_count(errno);
		return;
	}
	slot_put(slot, fd);
	memset(&c, 0, sizeof(c));
	c.ctx_flags = flags[rnd_below(sizeof(flags) / sizeof(flags[0]))];
	seq_count(xioctl(fd, PFM_CREATE_CONTEXT, &c));
	if (depth > 1 && rnd_below(2))
		seq_sets(fd);
	if (depth > 2)
		seq_program(fd);
	if (depth > 2 && rnd_below(2))
		seq_program(fd);
	if (depth > 3)
		seq_load(fd);
	if (depth > 4)
		seq_start(fd);
	if (depth > 5)
		seq_work(1 + rnd_below(16));
}

/* one step of the sequence mode, on a random slot */
static void seq_call(void)
{
	int slot = (int)rnd_below(MAX_FDS);
	int fd = slot_get(slot);
	struct pollfd p;
	union pfarg_msg m[2];

	switch (rnd_below(24)) {
	case 0: case 1: case 2:
		seq_chain(slot);
		return;
	case 3:
		fd = slot_take(slot);
		if (fd >= 0)
			close(fd);
		return;
	case 4:
		seq_work(1 + rnd_below(16));
		return;
	case 5:
		if (fd >= 0)
			seq_traced(fd);
		return;
	case 6:
		if (fd >= 0)
			seq_count(read(fd, m, (1 + rnd_below(2)) * sizeof(m[0])) < 0 ? errno : 0);
		return;
	case 7:
		/* sleeps in the context's wait queue while the others work */
		if (fd >= 0) {
			p.fd = fd;
			p.events = POLLIN;
			poll(&p, 1, (int)rnd_below(2));
		}
		return;
	case 8: case 9:
		one_call();	/* anything, as in the single mode */
		return;
	}
	if (fd < 0)
		return;
	switch (rnd_below(9)) {
	case 0: seq_sets(fd); break;
	case 1: seq_program(fd); break;
	case 2: seq_load(fd); break;
	case 3: seq_start(fd); break;
	case 4: seq_count(pfm_flags_cmd(fd, PFM_STOP)); break;
	case 5: seq_count(pfm_flags_cmd(fd, PFM_UNLOAD_CONTEXT)); break;
	case 6: smpl_map(fd); break;
	default: seq_read(fd); break;
	}
}

struct seq_worker {
	uint64_t seed;
	long calls;
	unsigned long *counts;
};

static void seq_run(struct seq_worker *w)
{
	rng_state = w->seed ? w->seed : 1;
	counts = w->counts;
	for (long i = 0; i < w->calls; i++)
		seq_call();
}

static void *seq_thread(void *p)
{
	struct scratch *own = malloc(sizeof(*own));

	if (!own)
		die("malloc");
	scratch = own;
	/* the thread the others may try to load a context on */
	__atomic_store_n(&worker_tid[1], (pid_t)syscall(SYS_gettid), __ATOMIC_RELAXED);
	seq_run(p);
	free(own);
	return NULL;
}

/*
 * The second thread of the parent: generations of 50 to 500 calls, each
 * a new thread, so that the contexts loaded on one (on itself) outlive
 * it and the other workers find them loaded on an ended thread.
 */
static void *seq_generations(void *p)
{
	struct seq_worker *w = p;
	struct seq_worker gen = { .counts = w->counts };
	uint64_t seed = w->seed;
	pthread_t t;

	for (long done = 0; done < w->calls; done += gen.calls) {
		seed = seed * 6364136223846793005ull + 1442695040888963407ull;
		gen.seed = seed;
		gen.calls = 50 + (long)(seed >> 33) % 451;
		if (gen.calls > w->calls - done)
			gen.calls = w->calls - done;
		if (pthread_create(&t, NULL, seq_thread, &gen)) {
			seq_run(&gen);	/* no thread: the calls here */
			continue;
		}
		pthread_join(t, NULL);
	}
	return NULL;
}

/*
 * N calls: a third by the parent's main thread, a third by the
 * generations of its second thread, a third by a child forked after a
 * few contexts were taken to deep states (loaded on the main thread,
 * started), which it inherits.  The child's counts come back through
 * shared memory.  Returns the exit status.
 */
static int seq_main(long n, uint64_t seed, unsigned long *total)
{
	unsigned long *shared;
	unsigned long own[2][256];
	struct seq_worker w[3];
	pthread_t gen;
	int st, ret = 0;

	shared = mmap(NULL, 256 * sizeof(*shared), PROT_READ | PROT_WRITE,
		      MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (shared == MAP_FAILED)
		die("mmap");
	memset(own, 0, sizeof(own));
	for (int i = 0; i < 3; i++) {
		w[i].seed = seed * (2 * i + 3) + 0x9e3779b97f4a7c15ull * i;
		w[i].calls = n / 3;
	}
	w[0].calls += n % 3;
	w[0].counts = own[0];
	w[1].counts = own[1];
	w[2].counts = shared;

	/* contexts in deep states for the child to inherit */
	rng_state = seed ? seed : 1;
	counts = own[0];
	parent_pid = getpid();
	worker_tid[0] = (pid_t)syscall(SYS_gettid);
	for (int i = 0; i < MAX_FDS / 2; i++)
		seq_chain((int)rnd_below(MAX_FDS));

	fflush(stdout);
	child_pid = fork();
	if (child_pid < 0)
		die("fork");
	if (child_pid == 0) {
		child_pid = getpid();
		worker_tid[0] = worker_tid[1] = child_pid;
		seq_run(&w[2]);
		/* its copies of the fds close at the exit */
		_exit(0);
	}
	if (pthread_create(&gen, NULL, seq_generations, &w[1]))
		die("pthread_create");
	seq_run(&w[0]);
	pthread_join(gen, NULL);
	if (waitpid(child_pid, &st, 0) != child_pid || !WIFEXITED(st) ||
	    WEXITSTATUS(st)) {
		fprintf(stderr, "pfm_fuzz: the child ended with status 0x%x\n", st);
		ret = 1;
	}
	for (int e = 0; e < 256; e++)
		total[e] = own[0][e] + own[1][e] + shared[e];
	munmap(shared, 256 * sizeof(*shared));
	return ret;
}

static unsigned long solo_counts[256];

int main(int argc, char **argv)
{
	int seq = argc > 1 && !strcmp(argv[1], "-s");
	long n;
	struct pfarg_config saved;
	int cfd = pfm_open();
	int have_config, ret = 0;
	uint64_t seed;

	if (seq) {
		argc--;
		argv++;
	}
	n = argc > 1 ? atol(argv[1]) : 5000;
	seed = argc > 2 ? strtoull(argv[2], NULL, 0) : 0x9e3779b97f4a7c15ull;
	rng_state = seed ? seed : 1;
	counts = solo_counts;
	memset(&saved, 0, sizeof(saved));
	have_config = !ioctl(cfd, PFM_GET_CONFIG, &saved);
	for (int i = 0; i < MAX_FDS; i++)
		fds[i] = -1;
	if (seq) {
		ret = seq_main(n, seed, solo_counts);
		counts = solo_counts;
	} else {
		for (long i = 0; i < n; i++)
			one_call();
	}
	for (int i = 0; i < MAX_FDS; i++)
		if (fds[i] >= 0)
			close(fds[i]);
	/* a root run may have changed the limits at random: put them back */
	if (have_config && geteuid() == 0)
		ioctl(cfd, PFM_SET_CONFIG, &saved);
	close(cfd);

	printf("calls=%ld", n);
	for (int e = 0; e < 256; e++)
		if (counts[e])
			printf(" %s=%lu", errname(e), counts[e]);
	printf("\n");
	return ret;
}
