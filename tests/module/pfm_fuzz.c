/* pfm_fuzz N [SEED]: N random calls on /dev/perfmon contexts: ioctls with
 * random numbers, directions, sizes and bytes (often well-formed vectors
 * of random elements), reads, polls, opens and closes, contexts with
 * sampling formats that record on the caller, mappings of their buffers.  The module must
 * answer every one with a result, never an oops; the suite checks the
 * guest's dmesg and that counting still works afterwards.  Prints a
 * summary of the errnos seen. */
#include "pfm_util.h"

#include <poll.h>
#include <stddef.h>
#include <sys/mman.h>

#include "callchain/perfmon_cc_smpl.h"
#include "default/perfmon_dfl_smpl.h"
#include "double-buffer/perfmon_dbl_smpl.h"

#define MAX_FDS	8
#define BUF	4096

static uint64_t rng_state;

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

static int fds[MAX_FDS];
static unsigned long counts[256];

static unsigned char elems[BUF] __attribute__((aligned(8)));
static unsigned char arg[1024] __attribute__((aligned(8)));

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
	static const uint64_t pool[] = {
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
	static union {
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
	if (fds[slot] >= 0)
		close(fds[slot]);
	fds[slot] = fd;
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
	int fd = fds[slot];
	union pfarg_msg m[2];

	switch (rnd_below(20)) {
	case 0:
		if (fd >= 0)
			close(fd);
		fds[slot] = -1;
		return;
	case 1:
		if (fd < 0) {
			fds[slot] = open(PFM_DEVICE, O_RDWR | O_NONBLOCK | O_CLOEXEC);
			if (fds[slot] < 0)
				counts[errno & 0xff]++;
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
	if (fd < 0)
		fds[slot] = fd = open(PFM_DEVICE, O_RDWR | O_NONBLOCK | O_CLOEXEC);
	if (fd >= 0)
		one_ioctl(fd);
}

int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 5000;
	struct pfarg_config saved;
	int cfd = pfm_open();
	int have_config;

	rng_state = argc > 2 ? strtoull(argv[2], NULL, 0) : 0x9e3779b97f4a7c15ull;
	if (!rng_state)
		rng_state = 1;
	memset(&saved, 0, sizeof(saved));
	have_config = !ioctl(cfd, PFM_GET_CONFIG, &saved);
	for (int i = 0; i < MAX_FDS; i++)
		fds[i] = -1;
	for (long i = 0; i < n; i++)
		one_call();
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
	return 0;
}
