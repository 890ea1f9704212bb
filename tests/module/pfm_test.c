/* pfm_test SCENARIO [ARGS]: run one operation of /dev/perfmon in a set-up
 * state and print what it returned ("OK", an errno name, then for
 * register vectors the PFM_REG_RETFL_* bits of the failing element).
 * Exit status 0 when the scenario ran, 2 for usage, 3 when its set-up
 * failed.  The bats suite asserts the printed words. */
#include "pfm_util.h"
#include "default/perfmon_dfl_smpl.h"
#include "double-buffer/perfmon_dbl_smpl.h"

#include <poll.h>
#include <pthread.h>
#include <sched.h>
#include <linux/userfaultfd.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/syscall.h>

struct scenario {
	const char *name;
	void (*fn)(int argc, char **argv);
};

static void print_e(int e)
{
	printf("%s\n", errname(e));
}

static void print_reg_e(int e, uint32_t flags)
{
	printf("%s", errname(e));
	if (flags & PFM_REG_RETFL_NOTAVAIL)
		printf(" NOTAVAIL");
	if (flags & PFM_REG_RETFL_EINVAL)
		printf(" BADVALUE");
	if (flags & PFM_REG_RETFL_NOSET)
		printf(" NOSET");
	if (flags & PFM_REG_RETFL_PERM)
		printf(" PERM");
	if (flags & PFM_REG_RETFL_NOTSUPP)
		printf(" NOTSUPP");
	printf("\n");
}

static long arg_l(int argc, char **argv, int i, long def)
{
	return argc > i ? strtol(argv[i], NULL, 0) : def;
}

/* --- workloads for traced children -------------------------------------- */

static void touch_pages(long n)
{
	long page = sysconf(_SC_PAGESIZE);
	volatile char *m = mmap(NULL, (size_t)n * page, PROT_READ | PROT_WRITE,
				MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (m == MAP_FAILED)
		_exit(1);
	madvise((void *)m, (size_t)n * page, MADV_NOHUGEPAGE);
	for (long i = 0; i < n; i++)
		m[i * page] = 1;
}

static void sleep_forever(long unused)
{
	(void)unused;
	for (;;)
		pause();
}

/* --- state errors ------------------------------------------------------- */

static void sc_before_create(int argc, char **argv)
{
	int fd = pfm_open();
	struct pfarg_load l;
	uint64_t v;
	int e[4];

	(void)argc; (void)argv;
	memset(&l, 0, sizeof(l));
	e[0] = pfm_pmc(fd, 0, EV_TASK_CLOCK);
	e[1] = pfm_read_pmd(fd, 0, &v);
	e[2] = xioctl(fd, PFM_LOAD_CONTEXT, &l);
	e[3] = pfm_start(fd);
	printf("%s %s %s %s\n", errname(e[0]), errname(e[1]), errname(e[2]),
	       errname(e[3]));
}

static void sc_create_twice(int argc, char **argv)
{
	struct pfarg_ctx c;
	int fd = pfm_context(0);

	(void)argc; (void)argv;
	memset(&c, 0, sizeof(c));
	print_e(xioctl(fd, PFM_CREATE_CONTEXT, &c));
}

static void sc_create(int argc, char **argv)
{
	struct pfarg_ctx c;
	int fd = pfm_open();

	memset(&c, 0, sizeof(c));
	c.ctx_flags = (uint32_t)arg_l(argc, argv, 1, 0);
	c.ctx_reserved1 = (uint32_t)arg_l(argc, argv, 2, 0);
	c.ctx_reserved2[1] = (uint64_t)arg_l(argc, argv, 3, 0);
	c.ctx_smpl_uuid[15] = (uint8_t)arg_l(argc, argv, 4, 0);
	print_e(xioctl(fd, PFM_CREATE_CONTEXT, &c));
}

static void sc_start_unloaded(int argc, char **argv)
{
	int fd = pfm_context(0);
	int e[3];

	(void)argc; (void)argv;
	e[0] = pfm_start(fd);
	e[1] = pfm_flags_cmd(fd, PFM_STOP);
	e[2] = pfm_flags_cmd(fd, PFM_UNLOAD_CONTEXT);
	printf("%s %s %s\n", errname(e[0]), errname(e[1]), errname(e[2]));
}

static void sc_load_twice(int argc, char **argv)
{
	int fd = pfm_context(0);

	(void)argc; (void)argv;
	if (pfm_load_pid(fd, 0, 0))
		die("load");
	print_e(pfm_load_pid(fd, 0, 0));
}

static void sc_load_busy_thread(int argc, char **argv)
{
	int a = pfm_context(0), b = pfm_context(0);

	(void)argc; (void)argv;
	if (pfm_load_pid(a, 0, 0))
		die("load");
	print_e(pfm_load_pid(b, 0, 0));
}

static void sc_load_fields(int argc, char **argv)
{
	struct pfarg_load l;
	int fd = pfm_context((uint32_t)arg_l(argc, argv, 1, 0));

	memset(&l, 0, sizeof(l));
	l.load_set = (uint16_t)arg_l(argc, argv, 2, 0);
	l.load_flags = (uint32_t)arg_l(argc, argv, 3, 0);
	l.load_reserved2[0] = (uint64_t)arg_l(argc, argv, 4, 0);
	l.load_cpu = (uint32_t)arg_l(argc, argv, 5, 0);
	l.load_pid = (uint32_t)arg_l(argc, argv, 6, 0);
	print_e(xioctl(fd, PFM_LOAD_CONTEXT, &l));
}

static void sc_load_pid(int argc, char **argv)
{
	int fd = pfm_context(0);

	print_e(pfm_load_pid(fd, (pid_t)arg_l(argc, argv, 1, 0), 0));
}

static void sc_load_child(int argc, char **argv)
{
	int traced = argc > 1 && !strcmp(argv[1], "traced");
	int fd = pfm_context(0);
	pid_t pid;

	if (traced) {
		pid = spawn_traced(sleep_forever, 0);
	} else {
		pid = fork();
		if (pid == 0)
			sleep_forever(0);
	}
	print_e(pfm_load_pid(fd, pid, 0));
	kill(pid, SIGKILL);
	waitpid(pid, NULL, 0);
}

/* pmcs_after_detach: a context loaded onto a ptrace-stopped child, the
 * child let go (PTRACE_DETACH) and running: prints the errno of a new
 * event written into the loaded context (PMC 1), then of a load onto
 * the child by a second context. */
static void sc_pmcs_after_detach(int argc, char **argv)
{
	int fd = pfm_context(0), fd2 = pfm_context(0);
	pid_t pid;
	int e;

	(void)argc;
	(void)argv;
	if (pfm_pmc(fd, 0, EV_PAGE_FAULTS) || pfm_pmc(fd2, 0, EV_PAGE_FAULTS))
		die("PMC 0");
	pid = spawn_traced(sleep_forever, 0);
	if (pfm_load_pid(fd, pid, 0))
		die("load");
	release_traced(pid);
	e = pfm_pmc(fd, 1, EV_PAGE_FAULTS);
	printf("%s %s\n", errname(e), errname(pfm_load_pid(fd2, pid, 0)));
	kill(pid, SIGKILL);
	waitpid(pid, NULL, 0);
}

static void sc_start_flags(int argc, char **argv)
{
	struct pfarg_start s;
	int fd = pfm_context(0);

	if (pfm_load_pid(fd, 0, 0))
		die("load");
	memset(&s, 0, sizeof(s));
	s.start_flags = (uint32_t)arg_l(argc, argv, 1, 0);
	s.start_set = (uint16_t)arg_l(argc, argv, 2, 0);
	s.start_reserved2[0] = (uint64_t)arg_l(argc, argv, 3, 0);
	print_e(xioctl(fd, PFM_START, &s));
}

static void sc_stop_flags(int argc, char **argv)
{
	struct pfarg_flags f;
	int fd = pfm_context(0);
	int e;

	if (pfm_load_pid(fd, 0, 0))
		die("load");
	memset(&f, 0, sizeof(f));
	f.flags = (uint32_t)arg_l(argc, argv, 1, 0);
	f.reserved2[2] = (uint64_t)arg_l(argc, argv, 2, 0);
	e = xioctl(fd, PFM_STOP, &f);
	printf("%s %s\n", errname(e), errname(xioctl(fd, PFM_UNLOAD_CONTEXT, &f)));
}

/* --- registers ---------------------------------------------------------- */

static void sc_pmc(int argc, char **argv)
{
	struct pfarg_pmc p;
	int fd = pfm_context(0);
	int e;

	memset(&p, 0, sizeof(p));
	p.reg_num = (uint16_t)arg_l(argc, argv, 1, 0);
	p.reg_value = (uint64_t)strtoull(argc > 2 ? argv[2] : "0", NULL, 0);
	p.reg_set = (uint16_t)arg_l(argc, argv, 3, 0);
	p.reg_flags = (uint32_t)arg_l(argc, argv, 4, 0);
	p.reg_reserved2[1] = (uint64_t)arg_l(argc, argv, 5, 0);
	e = pfm_vec_call(fd, PFM_WRITE_PMCS, &p, 1, sizeof(p));
	print_reg_e(e, p.reg_flags);
}

/* pmc_ext3 EXT3 EVTSEL: PMC 192 (bits 32..63 of counter 0's config),
 * then PMC 0: prints the errno of each write and the flags of the
 * second. */
static void sc_pmc_ext3(int argc, char **argv)
{
	struct pfarg_pmc p;
	int fd = pfm_context(0);
	int e;

	memset(&p, 0, sizeof(p));
	p.reg_num = PFM_PMC_EXT3_BASE;
	p.reg_value = (uint64_t)strtoull(argc > 1 ? argv[1] : "0", NULL, 0);
	e = pfm_vec_call(fd, PFM_WRITE_PMCS, &p, 1, sizeof(p));
	printf("%s ", errname(e));
	memset(&p, 0, sizeof(p));
	p.reg_value = (uint64_t)strtoull(argc > 2 ? argv[2] : "0", NULL, 0);
	e = pfm_vec_call(fd, PFM_WRITE_PMCS, &p, 1, sizeof(p));
	print_reg_e(e, p.reg_flags);
}

static void sc_pmd(int argc, char **argv)
{
	const char *field = argc > 2 ? argv[2] : "";
	int read = argc > 1 && !strcmp(argv[1], "read");
	struct pfarg_pmd p;
	int fd = pfm_context(0);
	int e;

	memset(&p, 0, sizeof(p));
	p.reg_num = (uint16_t)arg_l(argc, argv, 3, 0);
	if (!strcmp(field, "set"))
		p.reg_set = 1;
	else if (!strcmp(field, "flags"))
		p.reg_flags = PFM_PMDFL_OVFL_NOTIFY;
	else if (!strcmp(field, "badflags"))
		p.reg_flags = 0x100;
	else if (!strcmp(field, "short_reset"))
		p.reg_short_reset = 1000;
	else if (!strcmp(field, "smpl_pmds"))
		p.reg_smpl_pmds[0] = 2;
	else if (!strcmp(field, "random_seed"))
		p.reg_random_seed = 5;
	else if (!strcmp(field, "seed0")) {
		p.reg_flags = PFM_PMDFL_RANDOM;
		p.reg_random_seed = argc > 4 ? (uint32_t)strtoul(argv[4], NULL, 0) : 0;
	} else if (!strcmp(field, "mask32"))
		p.reg_random_mask = 1ull << 31;
	else if (!strcmp(field, "reset_hi"))
		p.reg_reset_pmds[1] = 1;
	else if (!strcmp(field, "smpl_flag"))
		p.reg_flags = PFM_PMDFL_SMPL;
	else if (!strcmp(field, "act"))		/* output only: ignored */
		p.reg_act_count = 1;
	else if (!strcmp(field, "reserved1"))
		p.reg_reserved1 = 1;
	e = pfm_vec_call(fd, read ? PFM_READ_PMDS : PFM_WRITE_PMDS, &p, 1,
			 sizeof(p));
	print_reg_e(e, p.reg_flags);
}

/* A vector whose second element is bad: the first is applied. */
static void sc_vec_partial(int argc, char **argv)
{
	struct pfarg_pmc p[2];
	struct pfarg_vec v;
	int fd = pfm_context(0);
	uint64_t val;
	int e;

	(void)argc; (void)argv;
	memset(p, 0, sizeof(p));
	memset(&v, 0, sizeof(v));
	p[0].reg_num = 0;
	p[0].reg_value = EV_TASK_CLOCK;
	p[1].reg_num = 999;
	v.vec_addr = (uintptr_t)p;
	v.vec_size = sizeof(p);
	v.vec_elem_size = sizeof(p[0]);
	e = xioctl(fd, PFM_WRITE_PMCS, &v);
	if (pfm_load_pid(fd, 0, 0) || pfm_start(fd))
		die("load/start");
	for (volatile long i = 0; i < 1000000; i++)
		;
	pfm_read_pmd(fd, 0, &val);
	printf("%s done=%u flags0=%x counted=%s\n", errname(e), v.vec_done,
	       p[0].reg_flags, val ? "yes" : "no");
}

/* vector header errors: vec KIND */
static void sc_vec(int argc, char **argv)
{
	const char *kind = argc > 1 ? argv[1] : "";
	static struct pfarg_pmc p[1024];
	struct pfarg_vec v;
	int fd = pfm_context(0);

	memset(p, 0, sizeof(p));
	memset(&v, 0, sizeof(v));
	v.vec_addr = (uintptr_t)p;
	v.vec_size = sizeof(p[0]);
	v.vec_elem_size = sizeof(p[0]);
	if (!strcmp(kind, "zero"))
		v.vec_size = 0;
	else if (!strcmp(kind, "not_multiple"))
		v.vec_size = sizeof(p[0]) + 3;
	else if (!strcmp(kind, "elem_small"))
		v.vec_elem_size = v.vec_size = sizeof(p[0]) - 8;
	else if (!strcmp(kind, "elem_odd"))
		v.vec_elem_size = v.vec_size = sizeof(p[0]) + 4;
	else if (!strcmp(kind, "elem_big_nonzero")) {
		v.vec_elem_size = v.vec_size = sizeof(p[0]) + 8;
		memset((char *)p + sizeof(p[0]), 0xff, 8);
	} else if (!strcmp(kind, "elem_big_zero"))
		v.vec_elem_size = v.vec_size = sizeof(p[0]) + 8;
	else if (!strcmp(kind, "too_big"))
		v.vec_size = (uint32_t)arg_l(argc, argv, 2, 1 << 20) / sizeof(p[0]) * sizeof(p[0]);
	else if (!strcmp(kind, "bad_ptr"))
		v.vec_addr = 16;
	else if (!strcmp(kind, "kernel_ptr"))
		v.vec_addr = 0xffffffff81000000ull;
	else if (!strcmp(kind, "reserved"))
		v.vec_reserved2[1] = 1;
	print_e(xioctl(fd, PFM_WRITE_PMCS, &v));
}

/* fixed-size arguments with the wrong size: ioctl KIND */
static void sc_ioctl(int argc, char **argv)
{
	const char *kind = argc > 1 ? argv[1] : "";
	unsigned char buf[512];
	unsigned long cmd = PFM_CREATE_CONTEXT;
	int fd = pfm_open();

	memset(buf, 0, sizeof(buf));
	if (!strcmp(kind, "small"))
		cmd = _IOWR(PFM_IOC_MAGIC, 0x10, struct pfarg_load);
	else if (!strcmp(kind, "big_zero"))
		cmd = _IOC(_IOC_READ | _IOC_WRITE, PFM_IOC_MAGIC, 0x10, 256);
	else if (!strcmp(kind, "big_nonzero")) {
		cmd = _IOC(_IOC_READ | _IOC_WRITE, PFM_IOC_MAGIC, 0x10, 256);
		buf[200] = 1;
	} else if (!strcmp(kind, "unknown_nr"))
		cmd = _IOWR(PFM_IOC_MAGIC, 0x7f, struct pfarg_ctx);
	else if (!strcmp(kind, "wrong_magic"))
		cmd = _IOWR('x', 0x10, struct pfarg_ctx);
	else if (!strcmp(kind, "wrong_dir"))
		cmd = _IOW(PFM_IOC_MAGIC, 0x10, struct pfarg_ctx);
	else if (!strcmp(kind, "evtsets"))
		cmd = PFM_CREATE_EVTSETS;
	else if (!strcmp(kind, "fmts"))
		cmd = PFM_GETINFO_FMTS;
	else if (!strcmp(kind, "bad_ptr")) {
		print_e(xioctl(fd, cmd, (void *)16));
		return;
	}
	print_e(xioctl(fd, cmd, buf));
}

static void sc_getinfo(int argc, char **argv)
{
	int pmd = argc > 1 && !strcmp(argv[1], "pmd");
	struct pfarg_reginfo ri;
	int fd = pfm_open();
	int e;

	memset(&ri, 0, sizeof(ri));
	ri.reg_num = (uint16_t)arg_l(argc, argv, 2, 0);
	e = pfm_vec_call(fd, pmd ? PFM_GETINFO_PMDS : PFM_GETINFO_PMCS, &ri, 1,
			 sizeof(ri));
	if (e) {
		print_reg_e(e, ri.reg_flags);
		return;
	}
	printf("OK type=%u flags=%#x counter=%u index=%#llx\n", ri.reg_type,
	       ri.reg_flags, ri.reg_counter, (unsigned long long)ri.reg_index);
}

static void sc_config(int argc, char **argv)
{
	struct pfarg_config cf;
	int fd = pfm_open();
	int e;

	memset(&cf, 0, sizeof(cf));
	e = xioctl(fd, PFM_GET_CONFIG, &cf);
	if (argc > 1 && !strcmp(argv[1], "set")) {
		cf.cf_arg_size_max = (uint64_t)arg_l(argc, argv, 2, (long)cf.cf_arg_size_max);
		e = xioctl(fd, PFM_SET_CONFIG, &cf);
		print_e(e);
		return;
	}
	printf("%s version=%u.%u counters=%u width=%u arg_size_max=%llu pmds0=%#llx\n",
	       errname(e), PFM_VERSION_MAJOR(cf.cf_version),
	       PFM_VERSION_MINOR(cf.cf_version), cf.cf_num_counters,
	       cf.cf_counter_width, (unsigned long long)cf.cf_arg_size_max,
	       (unsigned long long)cf.cf_impl_pmds[0]);
}

/* --- messages ----------------------------------------------------------- */

static void sc_msg(int argc, char **argv)
{
	const char *kind = argc > 1 ? argv[1] : "";
	union pfarg_msg m[2];
	int fd = pfm_context(0);
	ssize_t r;

	if (!strcmp(kind, "size"))
		r = read(fd, m, 10);
	else if (!strcmp(kind, "poll")) {
		struct pollfd p = { .fd = fd, .events = POLLIN };

		printf("%d\n", poll(&p, 1, 0));
		return;
	} else {
		fcntl(fd, F_SETFL, O_NONBLOCK);
		r = read(fd, m, sizeof(m));
	}
	print_e(r < 0 ? errno : 0);
}

/* --- counting and lifecycle --------------------------------------------- */

/* Count the page faults of a traced child touching N pages, which exits
 * before we read: the counts stay readable, an END message is queued
 * and the context is unloaded.  Prints "N_FAULTS MSG START_ERRNO". */
static void sc_exit_midrun(int argc, char **argv)
{
	long n = arg_l(argc, argv, 1, 1000);
	int fd = pfm_context(0);
	struct pollfd p = { .fd = fd, .events = POLLIN };
	union pfarg_msg m;
	uint64_t v;
	pid_t pid;
	int st;

	pid = spawn_traced(touch_pages, n);
	if (pfm_pmc(fd, 0, EV_PAGE_FAULTS) ||
	    pfm_load_pid(fd, pid, PFM_LOADFL_INHERIT) || pfm_start(fd))
		die("program/load/start");
	release_traced(pid);
	waitpid(pid, &st, 0);
	if (poll(&p, 1, 5000) != 1)
		die("poll: no END message");
	if (read(fd, &m, sizeof(m)) != sizeof(m))
		die("read message");
	if (pfm_read_pmd(fd, 0, &v))
		die("read pmd");
	printf("%llu %s %s\n", (unsigned long long)v,
	       m.type == PFM_MSG_END ? "END" : "OTHER", errname(pfm_start(fd)));
}

/*
 * PFM_LOADFL_INHERIT and the tasks the target creates.  The target (a
 * traced child) obeys one-byte commands on a pipe: 'f' forks a task that
 * spins until killed, 'k' kills it and reaps it, 'q' ends; it answers
 * each but 'q' with a byte on a second pipe.
 */
static int inh_cmd[2], inh_ack[2];

static void inherit_target(long unused)
{
	pid_t kid = 0;
	char c;

	(void)unused;
	while (read(inh_cmd[0], &c, 1) == 1 && c != 'q') {
		if (c == 'f' && (kid = fork()) == 0) {
			prctl(PR_SET_PDEATHSIG, SIGKILL);
			for (volatile unsigned long i = 0;; i++)
				;
		}
		if (c == 'k' && kid > 0) {
			kill(kid, SIGKILL);
			waitpid(kid, NULL, 0);
			kid = 0;
		}
		if (write(inh_ack[1], &c, 1) != 1)
			_exit(1);
	}
}

static void inherit_do(char c)
{
	if (write(inh_cmd[1], &c, 1) != 1 || read(inh_ack[0], &c, 1) != 1)
		die("inherit target");
}

/* Whether PMD 0 still grows: two reads 100 ms apart. */
static const char *inherit_growing(int fd)
{
	uint64_t a, b;

	if (pfm_read_pmd(fd, 0, &a) || usleep(100000) || pfm_read_pmd(fd, 0, &b))
		die("read pmd");
	return b > a ? "counting" : "still";
}

/*
 * What an inheriting context does with the target's children, counting
 * EVENT (task-clock or instructions, user level):
 * PFM_STOP while a child counts, then whether PMD 0 still grows; PFM_STOP
 * once it is gone; PFM_START with a child created while stopped, then
 * whether PMD 0 grows; PFM_LOAD_CONTEXT with inheritance and two sets.
 * Prints "stop:ERR:GROWS restop:ERR start:ERR:GROWS sets:ERR".
 */
static void sc_inherit_rules(int argc, char **argv)
{
	uint64_t ev = argc > 1 && !strcmp(argv[1], "instructions") ?
		      EV_INSTRUCTIONS : EV_TASK_CLOCK;
	int fd = pfm_context(0), fd2, st;
	struct pfarg_setdesc d;
	const char *e;
	pid_t pid;

	if (pipe(inh_cmd) || pipe(inh_ack))
		die("pipe");
	pid = spawn_traced(inherit_target, 0);
	if (pfm_pmc(fd, 0, ev) || pfm_load_pid(fd, pid, PFM_LOADFL_INHERIT) ||
	    pfm_start(fd))
		die("program/load/start");
	release_traced(pid);
	inherit_do('f');
	e = errname(pfm_flags_cmd(fd, PFM_STOP));
	printf("stop:%s:%s", e, inherit_growing(fd));
	inherit_do('k');
	printf(" restop:%s", errname(pfm_flags_cmd(fd, PFM_STOP)));
	inherit_do('f');
	e = errname(pfm_start(fd));
	printf(" start:%s:%s", e, inherit_growing(fd));
	inherit_do('k');
	if (write(inh_cmd[1], "q", 1) != 1 || waitpid(pid, &st, 0) != pid)
		die("inherit target: end");
	close(fd);

	fd2 = pfm_context(0);
	memset(&d, 0, sizeof(d));
	d.set_id = 1;
	if (pfm_pmc(fd2, 0, ev) ||
	    pfm_vec_call(fd2, PFM_CREATE_EVTSETS, &d, 1, sizeof(d)))
		die("two sets");
	printf(" sets:%s\n", errname(pfm_load_pid(fd2, 0, PFM_LOADFL_INHERIT)));
	close(fd2);
}

static void sleep_then_touch(long n)
{
	usleep(300000);
	touch_pages(n);
}

/* A blocking read(2) wakes up when the monitored process ends (we do not
 * wait for it first): prints the message and whether the counts were
 * final. */
static void sc_end_wake(int argc, char **argv)
{
	long n = arg_l(argc, argv, 1, 200);
	int fd = pfm_context(0);
	union pfarg_msg m;
	uint64_t v;
	pid_t pid;

	pid = spawn_traced(sleep_then_touch, n);
	if (pfm_pmc(fd, 0, EV_PAGE_FAULTS) || pfm_load_pid(fd, pid, 0) ||
	    pfm_start(fd))
		die("program/load/start");
	release_traced(pid);
	alarm(30);
	if (read(fd, &m, sizeof(m)) != sizeof(m))
		die("read message");
	if (pfm_read_pmd(fd, 0, &v))
		die("read pmd");
	printf("%s %s\n", m.type == PFM_MSG_END ? "END" : "OTHER",
	       v >= (uint64_t)n ? "counted" : "short");
	waitpid(pid, NULL, 0);
}

/* Monitor ourselves: page faults of touching N pages, user level. */
static void sc_self(int argc, char **argv)
{
	long n = arg_l(argc, argv, 1, 100);
	int fd = pfm_context(0);
	uint64_t v;

	if (pfm_pmc(fd, 0, EV_PAGE_FAULTS) || pfm_load_pid(fd, 0, 0) ||
	    pfm_start(fd))
		die("program/load/start");
	touch_pages(n);
	if (pfm_flags_cmd(fd, PFM_STOP) || pfm_read_pmd(fd, 0, &v))
		die("stop/read");
	printf("%llu\n", (unsigned long long)v);
}

/* A PMD write sets the 64-bit value that counting continues from. */
static void sc_pmd_write(int argc, char **argv)
{
	struct pfarg_pmd p;
	int fd = pfm_context(0);
	uint64_t before, after;

	(void)argc; (void)argv;
	memset(&p, 0, sizeof(p));
	p.reg_value = 1ull << 40;
	if (pfm_pmc(fd, 0, EV_PAGE_FAULTS) ||
	    pfm_vec_call(fd, PFM_WRITE_PMDS, &p, 1, sizeof(p)) ||
	    pfm_read_pmd(fd, 0, &before) || pfm_load_pid(fd, 0, 0) ||
	    pfm_start(fd))
		die("set-up");
	touch_pages(10);
	pfm_flags_cmd(fd, PFM_UNLOAD_CONTEXT);
	pfm_read_pmd(fd, 0, &after);
	printf("%s %s\n", before == 1ull << 40 ? "kept" : "lost",
	       after >= (1ull << 40) + 10 ? "counted" : "wrong");
}

/* Hold a loaded, started context until killed (lifecycle tests). */
static void sc_hold(int argc, char **argv)
{
	pid_t pid = spawn_traced(sleep_forever, 0);	/* first: no fd in it */
	int fd = pfm_context(0);

	(void)argc; (void)argv;
	if (pfm_pmc(fd, 0, EV_TASK_CLOCK) || pfm_pmc(fd, 1, EV_CPU_CLOCK) ||
	    pfm_load_pid(fd, pid, PFM_LOADFL_INHERIT) || pfm_start(fd))
		die("set-up");
	release_traced(pid);
	printf("ready %d\n", (int)pid);
	fflush(stdout);
	for (;;)
		pause();
}

/* N create / program / load / start / stop / close cycles. */
static void sc_churn(int argc, char **argv)
{
	long n = arg_l(argc, argv, 1, 10000);

	for (long i = 0; i < n; i++) {
		int fd = pfm_context(0);

		if (pfm_pmc(fd, 0, EV_TASK_CLOCK) || pfm_load_pid(fd, 0, 0) ||
		    pfm_start(fd) || pfm_flags_cmd(fd, PFM_STOP))
			die("cycle");
		close(fd);
	}
	printf("OK\n");
}

/* Open up to N contexts; print the errno of the first refused open. */
static void sc_open_many(int argc, char **argv)
{
	long n = arg_l(argc, argv, 1, 10);

	for (long i = 0; i < n; i++) {
		if (open(PFM_DEVICE, O_RDWR) < 0) {
			printf("%s after %ld\n", errname(errno), i);
			return;
		}
	}
	printf("OK %ld\n", n);
}

/* A system-wide context on CPU 0: counts cpu-clock while we spin there. */
static void sc_syswide(int argc, char **argv)
{
	struct pfarg_ctx c;
	struct pfarg_load l;
	int fd = pfm_open();
	uint64_t v = 0;
	int e;

	(void)argc; (void)argv;
	memset(&c, 0, sizeof(c));
	memset(&l, 0, sizeof(l));
	c.ctx_flags = PFM_FL_SYSTEM_WIDE;
	e = xioctl(fd, PFM_CREATE_CONTEXT, &c);
	if (e) {
		print_e(e);
		return;
	}
	if (pfm_pmc(fd, 0, PFM_PMC_VIRT_EVENT(PFM_EVT_TYPE_SOFTWARE, 0,
					      PFM_PMC_USR | PFM_PMC_OS)))
		die("pmc");
	e = xioctl(fd, PFM_LOAD_CONTEXT, &l);
	if (!e) {
		int fd2 = pfm_context(PFM_FL_SYSTEM_WIDE);
		int busy = xioctl(fd2, PFM_LOAD_CONTEXT, &l);
		uint64_t t0 = now_ns();

		pfm_start(fd);
		while (now_ns() - t0 < 50000000)
			;
		pfm_read_pmd(fd, 0, &v);
		printf("OK second=%s counted=%s\n", errname(busy),
		       v > 1000000 ? "yes" : "no");
		return;
	}
	print_e(e);
}


/* --- overflow processing ------------------------------------------------ */

static void call_counted(long n)
{
	for (long i = 0; i < n; i++)
		counted();
}

static void slow_calls(long n)
{
	usleep(300000);
	call_counted(n);
}

#define EV_BP_COUNTED	EV_BP_X(8)

static void pmd_setup(struct pfarg_pmd *p, unsigned int num, uint64_t value)
{
	memset(p, 0, sizeof(*p));
	p->reg_num = (uint16_t)num;
	p->reg_value = value;
}

/* Breakpoint on counted() in PMC0/PMC64 and PMD0 as given; exits on failure. */
static void program_bp(int fd, struct pfarg_pmd *p)
{
	if (pfm_pmc(fd, PFM_PMC_EXT1_BASE, (uint64_t)(uintptr_t)counted) ||
	    pfm_pmc(fd, 0, EV_BP_COUNTED) ||
	    pfm_vec_call(fd, PFM_WRITE_PMDS, p, 1, sizeof(*p)))
		die("program breakpoint");
}

static int restart(int fd)
{
	struct pfarg_start s;

	memset(&s, 0, sizeof(s));
	s.start_flags = PFM_STARTFL_RESTART;
	return xioctl(fd, PFM_START, &s);
}

static void ctxinfo(int fd, struct pfarg_ctxinfo *ci)
{
	memset(ci, 0, sizeof(*ci));
	if (ioctl(fd, PFM_GETINFO_CTX, ci))
		die("PFM_GETINFO_CTX");
}

static int read_pmd_full(int fd, unsigned int num, struct pfarg_pmd *p)
{
	memset(p, 0, sizeof(*p));
	p->reg_num = (uint16_t)num;
	return pfm_vec_call(fd, PFM_READ_PMDS, p, 1, sizeof(*p));
}

static uint32_t pm_step(uint32_t s)
{
	uint64_t q = 16807ull * s;
	uint64_t r = (q & 0x7fffffffu) + (q >> 31);

	if (r >= 0x7fffffffu)
		r -= 0x7fffffffu;
	return (uint32_t)r;
}

/*
 * ovfl_notify N P: monitor ourselves, PMD0 = -P counting calls of
 * counted() with OVFL_NOTIFY, short and long reset -P; call it N times,
 * after each call read the queued messages and restart.  Prints the
 * number of OVFL messages, how many were malformed, and PMD0 at the end
 * as a signed number.
 */
static void sc_ovfl_notify(int argc, char **argv)
{
	long n = arg_l(argc, argv, 1, 1000), per = arg_l(argc, argv, 2, 100);
	int fd = pfm_context(0);
	struct pfarg_pmd p;
	union pfarg_msg m;
	long msgs = 0, bad = 0;
	uint64_t v;

	pmd_setup(&p, 0, -(uint64_t)per);
	p.reg_flags = PFM_PMDFL_OVFL_NOTIFY;
	p.reg_short_reset = p.reg_long_reset = -(uint64_t)per;
	program_bp(fd, &p);
	fcntl(fd, F_SETFL, O_NONBLOCK);
	if (pfm_load_pid(fd, 0, 0) || pfm_start(fd))
		die("load/start");
	for (long i = 0; i < n; i++) {
		counted();
		while (read(fd, &m, sizeof(m)) == sizeof(m)) {
			struct pfarg_ovfl_msg *o = &m.pfm_ovfl_msg;

			msgs++;
			if (o->msg_type != PFM_MSG_OVFL || o->msg_ovfl_pmds[0] != 1 ||
			    o->msg_ovfl_pmds[1] || o->msg_active_set ||
			    o->msg_ovfl_tid != (uint32_t)gettid() ||
			    o->msg_ovfl_pid != (uint32_t)getpid() || !o->msg_tstamp)
				bad++;
			if (restart(fd))
				bad++;
		}
	}
	pfm_flags_cmd(fd, PFM_STOP);
	pfm_read_pmd(fd, 0, &v);
	printf("msgs %ld bad %ld pmd %lld\n", msgs, bad, (long long)v);
}

/*
 * ovfl_mask P LONG: one overflow after P calls masks the context: the
 * PMDs are frozen (PMD0 at its wrapped value 0, PMD1 counting page
 * faults unchanged by more faults), more calls give no message; restart
 * reloads the long reset value; a second restart is EBUSY.
 */
static void sc_ovfl_mask(int argc, char **argv)
{
	long per = arg_l(argc, argv, 1, 10), lng = arg_l(argc, argv, 2, 1000);
	int fd = pfm_context(0);
	struct pfarg_ctxinfo ci;
	struct pfarg_pmd p;
	union pfarg_msg m;
	uint64_t v0, f1, f2, after;
	int masked;

	pmd_setup(&p, 0, -(uint64_t)per);
	p.reg_flags = PFM_PMDFL_OVFL_NOTIFY;
	p.reg_short_reset = -(uint64_t)per;
	p.reg_long_reset = -(uint64_t)lng;
	program_bp(fd, &p);
	if (pfm_pmc(fd, 1, EV_PAGE_FAULTS))
		die("pmc1");
	fcntl(fd, F_SETFL, O_NONBLOCK);
	if (pfm_load_pid(fd, 0, 0) || pfm_start(fd))
		die("load/start");
	printf("before %s ", errname(restart(fd)));
	call_counted(per);
	ctxinfo(fd, &ci);
	masked = !!(ci.ctx_state & PFM_CTXINFO_MASKED);
	pfm_read_pmd(fd, 1, &f1);
	call_counted(7);
	touch_pages(20);
	pfm_read_pmd(fd, 0, &v0);
	pfm_read_pmd(fd, 1, &f2);
	printf("masked %d ovfl %llx pmd0 %llu faults %s msgs ", masked,
	       (unsigned long long)ci.ctx_ovfl_pmds[0], (unsigned long long)v0,
	       f1 == f2 ? "frozen" : "moved");
	while (read(fd, &m, sizeof(m)) == sizeof(m))
		printf("%s", m.type == PFM_MSG_OVFL ? "O" : "?");
	printf(" restart %s", errname(restart(fd)));
	pfm_read_pmd(fd, 0, &after);
	printf(" pmd0 %lld", (long long)after);
	call_counted(3);
	pfm_read_pmd(fd, 0, &after);
	ctxinfo(fd, &ci);
	printf(" then %lld masked %d again %s\n", (long long)after,
	       !!(ci.ctx_state & PFM_CTXINFO_MASKED), errname(restart(fd)));
	touch_pages(1);
}

/*
 * ovfl_sim N VALUE SHORT [MASK SEED]: a traced child calls counted() N
 * times; PMD0 starts at VALUE, no notification: every 64-bit overflow
 * reloads SHORT (+ random & MASK).  Prints the PMD and its last reset
 * value, and whether both equal the simulation of the same arithmetic.
 */
static void sc_ovfl_sim(int argc, char **argv)
{
	long n = arg_l(argc, argv, 1, 1000);
	uint64_t v = strtoull(argc > 2 ? argv[2] : "0", NULL, 0);
	uint64_t sh = strtoull(argc > 3 ? argv[3] : "0", NULL, 0);
	uint64_t mask = strtoull(argc > 4 ? argv[4] : "0", NULL, 0);
	uint32_t seed = (uint32_t)strtoul(argc > 5 ? argv[5] : "0", NULL, 0);
	uint64_t sim = v, last = 0, ovfls = 0;
	uint32_t st = seed % 0x7fffffffu;
	int fd = pfm_context(0);
	struct pfarg_pmd p;
	pid_t pid;

	pmd_setup(&p, 0, v);
	p.reg_short_reset = sh;
	p.reg_long_reset = sh;
	if (mask) {
		p.reg_flags = PFM_PMDFL_RANDOM;
		p.reg_random_mask = mask;
		p.reg_random_seed = seed;
	}
	program_bp(fd, &p);
	pid = spawn_traced(call_counted, n);
	if (pfm_load_pid(fd, pid, 0) || pfm_start(fd))
		die("load/start");
	release_traced(pid);
	waitpid(pid, NULL, 0);
	for (long i = 0; i < n; i++) {
		if (++sim == 0) {
			ovfls++;
			last = sh;
			if (mask) {
				st = pm_step(st);
				last = sh + (st & mask);
			}
			sim = last;
		}
	}
	read_pmd_full(fd, 0, &p);
	printf("pmd %lld last %lld ovfls %llu %s\n", (long long)p.reg_value,
	       (long long)p.reg_last_reset_val, (unsigned long long)ovfls,
	       p.reg_value == sim && p.reg_last_reset_val == last ?
	       "match" : "differ");
}

/*
 * ovfl_random N P MASK SEED: as ovfl_notify with randomised long resets
 * (base -P): prints every reset value read back after each restart (as
 * period lengths, 2^64 - value), then whether all were in [base, base +
 * mask] and equal to the generator's series from SEED.
 */
static void sc_ovfl_random(int argc, char **argv)
{
	long n = arg_l(argc, argv, 1, 2000), per = arg_l(argc, argv, 2, 100);
	uint64_t mask = strtoull(argc > 3 ? argv[3] : "15", NULL, 0);
	uint32_t seed = (uint32_t)strtoul(argc > 4 ? argv[4] : "1", NULL, 0);
	uint64_t base = -(uint64_t)per;
	uint32_t st = seed % 0x7fffffffu;
	int fd = pfm_context(0), inrange = 1, gen = 1, k = 0;
	struct pfarg_pmd p;
	union pfarg_msg m;

	pmd_setup(&p, 0, base);
	p.reg_flags = PFM_PMDFL_OVFL_NOTIFY | PFM_PMDFL_RANDOM;
	p.reg_short_reset = p.reg_long_reset = base;
	p.reg_random_mask = mask;
	p.reg_random_seed = seed;
	program_bp(fd, &p);
	fcntl(fd, F_SETFL, O_NONBLOCK);
	if (pfm_load_pid(fd, 0, 0) || pfm_start(fd))
		die("load/start");
	for (long i = 0; i < n; i++) {
		counted();
		while (read(fd, &m, sizeof(m)) == sizeof(m)) {
			uint64_t r;

			if (restart(fd) || read_pmd_full(fd, 0, &p))
				die("restart/read");
			r = p.reg_last_reset_val;
			st = pm_step(st);
			if (r < base || r > base + mask)
				inrange = 0;
			if (r != base + (st & mask))
				gen = 0;
			printf("%llu ", (unsigned long long)-r);
			k++;
		}
	}
	printf("\nresets %d inrange %d generator %d\n", k, inrange, gen);
}

/* ovfl_drop K: K overflows restarted without reading: the queue keeps 8
 * messages and counts the others as dropped. */
static void sc_ovfl_drop(int argc, char **argv)
{
	long k = arg_l(argc, argv, 1, 12);
	int fd = pfm_context(0);
	struct pfarg_ctxinfo ci;
	struct pfarg_pmd p;
	union pfarg_msg m[16];
	ssize_t r;

	pmd_setup(&p, 0, -1ull);
	p.reg_flags = PFM_PMDFL_OVFL_NOTIFY;
	p.reg_short_reset = p.reg_long_reset = -1ull;
	program_bp(fd, &p);
	fcntl(fd, F_SETFL, O_NONBLOCK);
	if (pfm_load_pid(fd, 0, 0) || pfm_start(fd))
		die("load/start");
	for (long i = 0; i < k; i++) {
		counted();
		if (restart(fd))
			die("restart");
	}
	ctxinfo(fd, &ci);
	r = read(fd, m, sizeof(m));
	printf("queued %u dropped %llu read %zd\n", ci.ctx_msg_count,
	       (unsigned long long)ci.ctx_msg_dropped,
	       r < 0 ? r : r / (ssize_t)sizeof(m[0]));
}

/* ovfl_poll P: a traced child calls counted() P times after 300 ms;
 * poll(2) on the context wakes with POLLIN and the message is OVFL; a
 * blocked read(2) works the same. */
static void sc_ovfl_poll(int argc, char **argv)
{
	long per = arg_l(argc, argv, 1, 5);
	int useread = argc > 2 && !strcmp(argv[2], "read");
	int fd = pfm_context(0);
	struct pollfd pf = { .fd = fd, .events = POLLIN };
	struct pfarg_pmd p;
	union pfarg_msg m;
	pid_t pid;
	int pr = 1;

	pmd_setup(&p, 0, -(uint64_t)per);
	p.reg_flags = PFM_PMDFL_OVFL_NOTIFY;
	program_bp(fd, &p);
	pid = spawn_traced(slow_calls, per);
	if (pfm_load_pid(fd, pid, 0) || pfm_start(fd))
		die("load/start");
	release_traced(pid);
	alarm(30);
	if (!useread)
		pr = poll(&pf, 1, 10000);
	if (pr == 1 && read(fd, &m, sizeof(m)) == sizeof(m))
		printf("%s %s\n", useread ? "read" : (pf.revents & POLLIN) ? "POLLIN" : "?",
		       m.type == PFM_MSG_OVFL ? "OVFL" :
		       m.type == PFM_MSG_END ? "END" : "?");
	else
		printf("nothing %d\n", pr);
	waitpid(pid, NULL, 0);
}

/* restart_state: restart on an unloaded context and on a loaded one that
 * is not masked. */
static void sc_restart_state(int argc, char **argv)
{
	int fd = pfm_context(0);

	(void)argc; (void)argv;
	printf("unloaded %s ", errname(restart(fd)));
	if (pfm_load_pid(fd, 0, 0))
		die("load");
	printf("loaded %s ", errname(restart(fd)));
	pfm_start(fd);
	printf("started %s\n", errname(restart(fd)));
}

/* --- sampling formats --------------------------------------------------- */

#define DFL_HDR		sizeof(struct pfm_dfl_smpl_hdr)
#define DBL_HDR		sizeof(struct pfm_dbl_smpl_hdr)
#define ENTRY		sizeof(struct pfm_dfl_smpl_entry)
#define MAX_SAMPLE	(ENTRY + 8 * PFM_NUM_COUNTERS)	/* the module's */

struct smpl_ctx {
	int fd;
	void *buf;
	size_t map;
};

/* Create a context with format name, argument and its size; 0 or errno. */
static int smpl_create_raw(int fd, uint32_t flags, const char *name,
			   const void *arg, size_t arg_size, uint64_t *map)
{
	struct pfarg_ctx c;
	int e;

	memset(&c, 0, sizeof(c));
	c.ctx_flags = PFM_FL_SMPL_FMT | flags;
	c.ctx_smpl_name = (uintptr_t)name;
	c.ctx_smpl_arg = (uintptr_t)arg;
	c.ctx_smpl_arg_size = arg_size;
	e = xioctl(fd, PFM_CREATE_CONTEXT, &c);
	if (map)
		*map = c.ctx_smpl_buf_size;
	return e;
}

/* A context of format name holding buf_size bytes, mapped; exits on error. */
static void smpl_open(struct smpl_ctx *sc, uint32_t flags, const char *name,
		      uint64_t buf_size, uint32_t buf_flags)
{
	struct pfm_dfl_smpl_arg a = { .buf_size = buf_size, .buf_flags = buf_flags };
	uint64_t map;

	sc->fd = pfm_open();
	errno = smpl_create_raw(sc->fd, flags, name, &a, sizeof(a), &map);
	if (errno)
		die("PFM_CREATE_CONTEXT with a format");
	sc->map = map;
	sc->buf = mmap(NULL, map, PROT_READ, MAP_SHARED, sc->fd, 0);
	if (sc->buf == MAP_FAILED)
		die("mmap of the sampling buffer");
}

/*
 * smpl_create NAME ARG_SIZE BUF_SIZE [BUF_FLAGS [RESERVED [CTX_FLAGS]]]:
 * prints the errno of the creation and the buffer size returned.
 * NAME "-" passes no name, "long" one of 40 characters.
 */
static void sc_smpl_create(int argc, char **argv)
{
	const char *name = argc > 1 ? argv[1] : "default";
	struct { struct pfm_dfl_smpl_arg a; uint64_t extra; } arg;
	char longname[41];
	uint64_t map = 0;
	struct pfarg_ctx c;
	int fd = pfm_open(), e;

	memset(&arg, 0, sizeof(arg));
	arg.a.buf_size = strtoull(argc > 3 ? argv[3] : "65536", NULL, 0);
	arg.a.buf_flags = (uint32_t)arg_l(argc, argv, 4, 0);
	arg.a.reserved1 = (uint32_t)arg_l(argc, argv, 5, 0);
	memset(longname, 'x', 40);
	longname[40] = 0;
	if (!strcmp(name, "-")) {
		memset(&c, 0, sizeof(c));
		c.ctx_flags = PFM_FL_SMPL_FMT;
		c.ctx_smpl_arg = (uintptr_t)&arg;
		c.ctx_smpl_arg_size = sizeof(arg.a);
		e = xioctl(fd, PFM_CREATE_CONTEXT, &c);
	} else {
		e = smpl_create_raw(fd, (uint32_t)arg_l(argc, argv, 6, 0),
				    strcmp(name, "long") ? name : longname, &arg,
				    (size_t)arg_l(argc, argv, 2, 16), &map);
	}
	printf("%s %llu\n", errname(e), (unsigned long long)map);
}

/*
 * smpl_mmap KIND: map the buffer of a default-format context of 5000
 * bytes in a wrong way (write, exec, private, size, offset, none,
 * nofmt) or the right one (ok); mprotect_write tries to make the right
 * mapping writable; ok also checks the header the module wrote.
 */
static void sc_smpl_mmap(int argc, char **argv)
{
	const char *kind = argc > 1 ? argv[1] : "ok";
	struct pfm_dfl_smpl_arg a = { .buf_size = 5000 };
	int prot = PROT_READ, flags = MAP_SHARED, fd = pfm_open();
	size_t len;
	off_t off = 0;
	uint64_t map;
	void *m;

	if (!strcmp(kind, "nofmt")) {
		struct pfarg_ctx c;

		memset(&c, 0, sizeof(c));
		if (ioctl(fd, PFM_CREATE_CONTEXT, &c))
			die("create");
		map = 4096;
	} else if (!strcmp(kind, "new")) {
		map = 4096;
	} else if ((errno = smpl_create_raw(fd, 0, "default", &a, sizeof(a), &map))) {
		die("create");
	}
	len = map;
	if (!strcmp(kind, "write"))
		prot |= PROT_WRITE;
	else if (!strcmp(kind, "exec"))
		prot |= PROT_EXEC;
	else if (!strcmp(kind, "none"))
		prot = PROT_NONE;
	else if (!strcmp(kind, "private"))
		flags = MAP_PRIVATE;
	else if (!strcmp(kind, "size"))
		len = map + 4096;
	else if (!strcmp(kind, "small"))
		len = map - 4096;
	else if (!strcmp(kind, "offset"))
		off = 4096;
	m = mmap(NULL, len, prot, flags, fd, off);
	if (m == MAP_FAILED) {
		print_e(errno);
		return;
	}
	if (!strcmp(kind, "mprotect_write")) {
		print_e(mprotect(m, len, PROT_READ | PROT_WRITE) ? errno : 0);
		return;
	}
	{
		const struct pfm_dfl_smpl_hdr *h = m;
		const unsigned char *b = m;
		size_t nz = 0;

		for (size_t i = DFL_HDR; i < map; i++)
			nz += b[i] != 0;
		printf("OK map %llu count %llu offs %llu size %llu version %#x nonzero %zu\n",
		       (unsigned long long)map, (unsigned long long)h->hdr_count,
		       (unsigned long long)h->hdr_cur_offs,
		       (unsigned long long)h->hdr_buf_size, h->hdr_version, nz);
	}
}

struct smpl_check {
	pid_t pid;
	uint64_t ip;
	uint64_t samples, bad, prev_body;
	unsigned nbody;
	uint64_t *resets;	/* last_reset_val of each sample, or NULL */
	size_t nresets;
};

/* Walk count samples from byte start; check each; returns the end offset. */
static uint64_t smpl_walk(struct smpl_check *k, const void *buf, uint64_t start,
			  uint64_t count)
{
	const unsigned char *b = buf;
	uint64_t off = start;

	for (uint64_t i = 0; i < count; i++) {
		struct pfm_dfl_smpl_entry e;

		memcpy(&e, b + off, sizeof(e));
		if (e.pid != (uint32_t)k->pid || e.tid != (uint32_t)k->pid ||
		    e.ip != k->ip || e.ovfl_pmd != 0 || e.set || e.reserved1 ||
		    !e.tstamp)
			k->bad++;
		if (k->nbody) {
			uint64_t v;

			memcpy(&v, b + off + ENTRY, 8);
			if (v <= k->prev_body)
				k->bad++;
			k->prev_body = v;
		}
		if (k->resets && k->nresets < 1000000)
			k->resets[k->nresets++] = e.last_reset_val;
		off += ENTRY + 8 * k->nbody;
		k->samples++;
	}
	return off;
}

static void smpl_walk_dfl(struct smpl_check *k, const void *buf)
{
	const struct pfm_dfl_smpl_hdr *h = buf;

	if (smpl_walk(k, buf, DFL_HDR, h->hdr_count) != h->hdr_cur_offs)
		k->bad++;
}

static void smpl_walk_half(struct smpl_check *k, const void *buf, int i)
{
	const struct pfm_dbl_smpl_hdr *h = buf;
	const struct pfm_dbl_smpl_half *hf = &h->hdr_half[i];

	if (smpl_walk(k, buf, DBL_HDR + i * h->hdr_half_size, hf->half_count) !=
	    hf->half_cur_offs)
		k->bad++;
}

/* The FULL half with the lowest sequence number above read_seq (not read
 * yet: a half read stays FULL when its restart found the context
 * unloaded), or -1. */
static int smpl_next_full(const void *buf, uint64_t read_seq)
{
	const struct pfm_dbl_smpl_hdr *h = buf;
	int best = -1;

	for (int i = 0; i < 2; i++)
		if (h->hdr_half[i].half_state == PFM_DBL_HALF_FULL &&
		    h->hdr_half[i].half_seq > read_seq &&
		    (best < 0 || h->hdr_half[i].half_seq < h->hdr_half[best].half_seq))
			best = i;
	return best;
}

/*
 * smpl_bp FORMAT N P ENTRIES MODE [BODY] [MASK SEED]: a traced child
 * calls counted() N times; PMD0 (a breakpoint on it) samples every P
 * calls into a buffer of FORMAT holding ENTRIES samples of this size
 * (per half for double-buffer).  MODE: notify (OVFL_NOTIFY, the child
 * blocked until each restart), noblock (notify without
 * PFM_FL_NOTIFY_BLOCK), saturate (no OVFL_NOTIFY; double-buffer:
 * MASK_WHEN_FULL), cycle (double-buffer, no notification: it cycles).
 * BODY 1 records PMD1 (a second breakpoint counting every call) in each
 * sample.  MASK SEED randomise PMD0's short resets.  Prints what was
 * read: samples, bad ones, notifications, the lost and overflow counts
 * of PFM_GETINFO_CTX and the buffer's own counts.
 */
/* Start the traced child running fn(n), monitored by the context fd. */
static pid_t start_traced(int fd, void (*fn)(long), long n)
{
	pid_t pid = spawn_traced(fn, n);

	if (pfm_load_pid(fd, pid, 0) || pfm_start(fd))
		die("load/start");
	release_traced(pid);
	alarm(120);
	return pid;
}

/* The notifications of a sampling context while its child runs: after
 * each, until the child's end message, walk(arg) reads the buffer and the
 * context is restarted.  A notification after the child's end finds the
 * context unloaded (restart: EBUSY): what was just read stays in the
 * buffer, and consumed says so. */
struct notify_run {
	int done, consumed;
	long notes;
	uint64_t bad;		/* restarts that failed otherwise */
};

static void follow_notifications(int fd, void (*walk)(void *arg), void *arg,
				 struct notify_run *r)
{
	while (!r->done) {
		struct pollfd pf = { .fd = fd, .events = POLLIN };
		union pfarg_msg m;
		int e;

		if (poll(&pf, 1, 10000) != 1)
			break;
		if (read(fd, &m, sizeof(m)) != sizeof(m))
			die("read");
		if (m.type == PFM_MSG_END) {
			r->done = 1;
			break;
		}
		r->notes++;
		walk(arg);
		e = restart(fd);
		r->consumed = e == EBUSY;
		if (e && e != EBUSY)
			r->bad++;
	}
}

/* sc_smpl_bp's walk of a notified buffer: the default format's whole
 * buffer, or the double buffer's next full half. */
struct bp_walk {
	struct smpl_check *k;
	const void *buf;
	int dbl;
	uint64_t read_seq;
};

static void bp_walk_notified(void *arg)
{
	struct bp_walk *w = arg;
	int i;

	if (!w->dbl) {
		smpl_walk_dfl(w->k, w->buf);
		return;
	}
	i = smpl_next_full(w->buf, w->read_seq);
	if (i < 0) {
		w->k->bad++;
		return;
	}
	smpl_walk_half(w->k, w->buf, i);
	w->read_seq = ((const struct pfm_dbl_smpl_hdr *)w->buf)->hdr_half[i].half_seq;
}

static void sc_smpl_bp(int argc, char **argv)
{
	const char *fmt = argc > 1 ? argv[1] : "default";
	long n = arg_l(argc, argv, 2, 1000), per = arg_l(argc, argv, 3, 1);
	long entries = arg_l(argc, argv, 4, 100);
	const char *mode = argc > 5 ? argv[5] : "notify";
	unsigned nbody = (unsigned)arg_l(argc, argv, 6, 0);
	uint64_t mask = strtoull(argc > 7 ? argv[7] : "0", NULL, 0);
	uint32_t seed = (uint32_t)strtoul(argc > 8 ? argv[8] : "0", NULL, 0);
	int dbl = !strcmp(fmt, "double-buffer");
	int notify = !strcmp(mode, "notify") || !strcmp(mode, "noblock");
	uint64_t size1 = ENTRY + 8 * nbody, half, buf_size;
	struct smpl_check k = { .ip = (uintptr_t)counted, .nbody = nbody };
	uint32_t buf_flags = 0, st = seed % 0x7fffffffu;
	struct pfarg_ctxinfo ci;
	struct smpl_ctx sc;
	struct pfarg_pmd p;
	long inrange = 1, gen = 1;
	struct bp_walk w = { .k = &k, .dbl = dbl };
	struct notify_run r = { 0 };
	pid_t pid;

	/* exactly ENTRIES samples of size1 before the post-check fills it */
	half = (uint64_t)(entries - 1) * size1 + MAX_SAMPLE;
	buf_size = dbl ? DBL_HDR + 2 * half : DFL_HDR + half;
	if (dbl && !strcmp(mode, "saturate"))
		buf_flags = PFM_DBL_SMPL_MASK_WHEN_FULL;
	smpl_open(&sc, strcmp(mode, "notify") ? 0 : PFM_FL_NOTIFY_BLOCK, fmt,
		  buf_size, buf_flags);
	if (mask)
		k.resets = calloc((size_t)n + 1, sizeof(*k.resets));
	pmd_setup(&p, 0, -(uint64_t)per);
	p.reg_flags = PFM_PMDFL_SMPL | (notify || (dbl && !strcmp(mode, "saturate")) ?
					PFM_PMDFL_OVFL_NOTIFY : 0);
	p.reg_short_reset = p.reg_long_reset = -(uint64_t)per;
	if (nbody)
		p.reg_smpl_pmds[0] = 2;
	if (mask) {
		p.reg_flags |= PFM_PMDFL_RANDOM;
		p.reg_random_mask = mask;
		p.reg_random_seed = seed;
	}
	program_bp(sc.fd, &p);
	if (nbody && (pfm_pmc(sc.fd, PFM_PMC_EXT1_BASE + 1, (uintptr_t)counted) ||
		      pfm_pmc(sc.fd, 1, EV_BP_COUNTED)))
		die("pmc1");
	pid = start_traced(sc.fd, call_counted, n);
	k.pid = pid;
	w.buf = sc.buf;
	follow_notifications(sc.fd, bp_walk_notified, &w, &r);
	k.bad += r.bad;
	waitpid(pid, NULL, 0);
	if (dbl) {
		const struct pfm_dbl_smpl_hdr *h = sc.buf;
		int i;

		while ((i = smpl_next_full(sc.buf, w.read_seq)) >= 0) {
			smpl_walk_half(&k, sc.buf, i);
			w.read_seq = h->hdr_half[i].half_seq;
		}
		if (h->hdr_half[h->hdr_cur_half].half_state == PFM_DBL_HALF_FREE)
			smpl_walk_half(&k, sc.buf, (int)h->hdr_cur_half);
	} else if (!r.consumed) {
		smpl_walk_dfl(&k, sc.buf);
	}
	ctxinfo(sc.fd, &ci);
	printf("end %d samples %llu bad %llu notes %ld lost %llu ovfls %llu", r.done,
	       (unsigned long long)k.samples, (unsigned long long)k.bad, r.notes,
	       (unsigned long long)ci.ctx_smpl_lost,
	       (unsigned long long)ci.ctx_smpl_ovfls);
	if (ci.ctx_smpl_late)	/* lost for want of an interrupt (throttled) */
		printf(" late %llu", (unsigned long long)ci.ctx_smpl_late);
	if (dbl) {
		const struct pfm_dbl_smpl_hdr *h = sc.buf;

		printf(" overflows %llu cycles %llu cyclelost %llu",
		       (unsigned long long)h->hdr_overflows,
		       (unsigned long long)h->hdr_cycles,
		       (unsigned long long)h->hdr_lost);
	} else {
		printf(" overflows %llu",
		       (unsigned long long)((const struct pfm_dfl_smpl_hdr *)sc.buf)->hdr_overflows);
	}
	if (mask) {
		/* the first period is reg_value, then the generator's */
		for (size_t i = 0; i < k.nresets; i++) {
			uint64_t want = -(uint64_t)per, r = k.resets[i];

			if (i) {
				st = pm_step(st);
				want += st & mask;
			}
			if (r < -(uint64_t)per || r > -(uint64_t)per + mask)
				inrange = 0;
			if (r != want)
				gen = 0;
		}
		printf(" inrange %ld generator %ld", inrange, gen);
	}
	printf("\n");
}

/* --- event sets --------------------------------------------------------- */

static int set_create(int fd, uint16_t id, uint32_t flags, uint64_t timeout,
		      uint64_t *eff)
{
	struct pfarg_setdesc d;
	int e;

	memset(&d, 0, sizeof(d));
	d.set_id = id;
	d.set_flags = flags;
	d.set_timeout = timeout;
	e = pfm_vec_call(fd, PFM_CREATE_EVTSETS, &d, 1, sizeof(d));
	if (eff)
		*eff = d.set_timeout;
	return e;
}

static int set_delete(int fd, uint16_t id)
{
	struct pfarg_setdesc d;

	memset(&d, 0, sizeof(d));
	d.set_id = id;
	return pfm_vec_call(fd, PFM_DELETE_EVTSETS, &d, 1, sizeof(d));
}

static int set_info(int fd, uint16_t id, struct pfarg_setinfo *si)
{
	memset(si, 0, sizeof(*si));
	si->set_id = id;
	return pfm_vec_call(fd, PFM_GETINFO_EVTSETS, si, 1, sizeof(*si));
}

static int pmc_set(int fd, uint16_t set, unsigned int num, uint64_t value)
{
	struct pfarg_pmc p;

	memset(&p, 0, sizeof(p));
	p.reg_num = (uint16_t)num;
	p.reg_set = set;
	p.reg_value = value;
	return pfm_vec_call(fd, PFM_WRITE_PMCS, &p, 1, sizeof(p));
}

/* sets_create N: one context, sets 1 to N created in turn: "OK", or the
 * errno of the first one refused and its id ("ENOSPC@5"), then that of
 * the same set again once set 1 is deleted. */
static void sc_sets_create(int argc, char **argv)
{
	long n = arg_l(argc, argv, 1, 4);
	int fd = pfm_context(0);

	for (long i = 1; i <= n; i++) {
		int e = set_create(fd, (uint16_t)i, 0, 0, NULL);

		if (!e)
			continue;
		printf("%s@%ld ", errname(e), i);
		if (set_delete(fd, 1))
			die("PFM_DELETE_EVTSETS");
		printf("%s\n", errname(set_create(fd, (uint16_t)i, 0, 0, NULL)));
		return;
	}
	printf("OK\n");
}

/* sets_errors: the create, delete and getinfo rules and errnos */
static void sc_sets_errors(int argc, char **argv)
{
	int fd = pfm_context(0);
	struct pfarg_setinfo si;
	struct pfarg_start st;
	uint64_t eff = 0;

	(void)argc; (void)argv;
	printf("create5 %s ", errname(set_create(fd, 5, 0, 0, NULL)));
	printf("create3 %s ", errname(set_create(fd, 3, PFM_SETFL_TIME_SWITCH, 1000, &eff)));
	printf("eff %llu ", (unsigned long long)eff);
	printf("modify3 %s ", errname(set_create(fd, 3, 0, 0, NULL)));
	printf("both %s ", errname(set_create(fd, 4, PFM_SETFL_TIME_SWITCH |
						  PFM_SETFL_OVFL_SWITCH, 1000, NULL)));
	printf("t0 %s ", errname(set_create(fd, 4, PFM_SETFL_TIME_SWITCH, 0, NULL)));
	printf("badflag %s ", errname(set_create(fd, 4, 0x100, 0, NULL)));
	printf("del0 %s ", errname(set_delete(fd, 0)));
	printf("del9 %s ", errname(set_delete(fd, 9)));
	printf("info9 %s ", errname(set_info(fd, 9, &si)));
	printf("pmc9 %s ", errname(pmc_set(fd, 9, 0, EV_TASK_CLOCK)));
	printf("chain %s ", errname(set_create(fd, 6, PFM_SETFL_EXPL_NEXT, 0, NULL)));
	/* set 6 -> set 0 after explicit next 0: fine; next 7 is missing */
	{
		struct pfarg_setdesc d;

		memset(&d, 0, sizeof(d));
		d.set_id = 6;
		d.set_flags = PFM_SETFL_EXPL_NEXT;
		d.set_id_next = 7;
		pfm_vec_call(fd, PFM_CREATE_EVTSETS, &d, 1, sizeof(d));
	}
	printf("brokenload %s ", errname(pfm_load_pid(fd, 0, 0)));
	set_delete(fd, 6);
	printf("load %s ", errname(pfm_load_pid(fd, 0, 0)));
	printf("loadedcreate %s loadeddelete %s ",
	       errname(set_create(fd, 8, 0, 0, NULL)), errname(set_delete(fd, 5)));
	memset(&st, 0, sizeof(st));
	st.start_flags = PFM_STARTFL_SET;
	st.start_set = 4;
	printf("start4 %s ", errname(xioctl(fd, PFM_START, &st)));
	st.start_set = 5;
	printf("start5 %s ", errname(xioctl(fd, PFM_START, &st)));
	set_info(fd, 5, &si);
	printf("runs5 %llu ", (unsigned long long)si.set_runs);
	set_info(fd, 0, &si);
	printf("runs0 %llu\n", (unsigned long long)si.set_runs);
}

static void spin_ms(long ms)
{
	uint64_t t0 = now_ns();

	while (now_ns() - t0 < (uint64_t)ms * 1000000)
		;
}

/*
 * sets_timeout K MS: K sets switching on a timeout of MS ms of our own CPU
 * time, task-clock in each; spin 600 ms.  Prints each set's runs and
 * share of the active time, the sum of the durations against the time
 * spun, and the sets' task-clock against their durations.  (Summed, not
 * set by set: task-clock is perf's clock, the guest's sched_clock, which
 * with its unstable TSC lags CLOCK_MONOTONIC after a host stall until
 * the next tick, so a switch just then moves the stall from one set's
 * task-clock to the next one's.)
 */
static void sc_sets_timeout(int argc, char **argv)
{
	long k = arg_l(argc, argv, 1, 2), ms = arg_l(argc, argv, 2, 10);
	int fd = pfm_context(0);
	uint64_t sum = 0, clocks = 0, t0, spun, dur[8], runs[8];

	if (k < 1 || k > 8)
		k = 2;
	for (long i = 0; i < k; i++) {
		if (set_create(fd, (uint16_t)i, PFM_SETFL_TIME_SWITCH,
			       (uint64_t)ms * 1000000, NULL) ||
		    pmc_set(fd, (uint16_t)i, 0, EV_TASK_CLOCK))
			die("set-up");
	}
	if (pfm_load_pid(fd, 0, 0) || pfm_start(fd))
		die("load/start");
	t0 = now_ns();
	spin_ms(600);
	pfm_flags_cmd(fd, PFM_STOP);
	spun = now_ns() - t0;
	for (long i = 0; i < k; i++) {
		struct pfarg_setinfo si;
		struct pfarg_pmd p;

		set_info(fd, (uint16_t)i, &si);
		memset(&p, 0, sizeof(p));
		p.reg_set = (uint16_t)i;
		pfm_vec_call(fd, PFM_READ_PMDS, &p, 1, sizeof(p));
		dur[i] = si.set_act_duration;
		runs[i] = si.set_runs;
		sum += dur[i];
		clocks += p.reg_value;
	}
	for (long i = 0; i < k; i++) {
		double share = 100.0 * (double)dur[i] / (double)sum;

		printf("set%ld runs %s share %s\n", i,
		       runs[i] >= (uint64_t)(600 / ms / k / 2) ? "many" : "few",
		       share > 100.0 / k - 10 && share < 100.0 / k + 10 ? "fair" : "unfair");
	}
	/* the sets' task-clock within 10% of their active time */
	printf("sum %s clocks %s\n",
	       sum > spun * 9 / 10 && sum <= spun + 1000000 ? "covers" : "differs",
	       clocks >= sum * 9 / 10 && clocks <= sum * 11 / 10 ? "match" : "differ");
}

/* load_events N: a context of N task-clock events (64 a set, sets 0, 1,
 * ...), loaded on the caller: prints the errno of the load. */
static void sc_load_events(int argc, char **argv)
{
	long n = arg_l(argc, argv, 1, 10);
	int fd = pfm_context(0), e = 0;

	for (long i = 0; i < n && !e; i++) {
		uint16_t set = (uint16_t)(i / 64);

		if (i % 64 == 0 && set)
			e = set_create(fd, set, 0, 0, NULL);
		if (!e)
			e = pmc_set(fd, set, (unsigned int)(i % 64), EV_TASK_CLOCK);
	}
	if (e)
		die("set-up");
	print_e(pfm_load_pid(fd, 0, 0));
}

/* --- counting from the exec (PFM_LOADFL_ENABLE_ON_EXEC) ------------------ */

/* fault_loop: touch and drop 64 pages until killed (the exec's image). */
static void sc_fault_loop(int argc, char **argv)
{
	(void)argc; (void)argv;
	for (;;) {
		long page = sysconf(_SC_PAGESIZE);
		char *m = mmap(NULL, (size_t)(64 * page), PROT_READ | PROT_WRITE,
			       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

		if (m == MAP_FAILED)
			_exit(1);
		for (long i = 0; i < 64; i++)
			((volatile char *)m)[i * page] = 1;
		munmap(m, (size_t)(64 * page));
	}
}

static void exec_fault_loop(long unused)
{
	(void)unused;
	execl("/proc/self/exe", "pfm_test", "fault_loop", (char *)NULL);
	_exit(127);
}

static uint64_t pmd_of_set(int fd, uint16_t set, uint64_t *act_count)
{
	struct pfarg_pmd p;

	memset(&p, 0, sizeof(p));
	p.reg_set = set;
	if (pfm_vec_call(fd, PFM_READ_PMDS, &p, 1, sizeof(p)))
		die("PFM_READ_PMDS");
	if (act_count)
		*act_count = p.reg_act_count;
	return p.reg_value;
}

/*
 * exec_start: two sets counting page faults, switched every ms of the
 * target's CPU time, loaded with PFM_LOADFL_ENABLE_ON_EXEC on a child
 * that then executes a fault loop; no PFM_START.  Once it counts: "sets
 * switch" when set 1 ran, "sums" when the activation sums count, then
 * PFM_STOP and "stopped" when the counts stand still for 200 ms.
 */
static void sc_exec_start(int argc, char **argv)
{
	pid_t pid = spawn_traced(exec_fault_loop, 0);
	int fd = pfm_context(0);
	struct pfarg_setinfo si;
	uint64_t a, b, c0, c1, act0, act1;

	(void)argc; (void)argv;
	for (uint16_t i = 0; i < 2; i++)
		if (set_create(fd, i, PFM_SETFL_TIME_SWITCH, 1000000, NULL) ||
		    pmc_set(fd, i, 0, EV_PAGE_FAULTS))
			die("set-up");
	if (pfm_load_pid(fd, pid, PFM_LOADFL_ENABLE_ON_EXEC))
		die("load");
	release_traced(pid);
	for (int i = 0; i < 500 && pmd_of_set(fd, 0, NULL) < 1000; i++)
		usleep(10000);
	usleep(300000);
	set_info(fd, 1, &si);
	printf("sets %s ", si.set_runs ? "switch" : "stay");
	pmd_of_set(fd, 0, &act0);
	pmd_of_set(fd, 1, &act1);
	printf("%s ", act0 + act1 ? "sums" : "nosums");
	printf("stop %s ", errname(pfm_flags_cmd(fd, PFM_STOP)));
	usleep(20000);
	a = pmd_of_set(fd, 0, NULL) + pmd_of_set(fd, 1, NULL);
	usleep(200000);
	b = pmd_of_set(fd, 0, NULL) + pmd_of_set(fd, 1, NULL);
	c0 = pmd_of_set(fd, 0, NULL);
	c1 = pmd_of_set(fd, 1, NULL);
	printf("%s\n", a == b && c0 && c1 ? "stopped" : "counting");
	kill(pid, SIGKILL);
	waitpid(pid, NULL, 0);
}

/* Wait (up to 5 s) until pid runs "pfm_test fault_loop", its exec done. */
static void wait_fault_loop(pid_t pid)
{
	char path[64], buf[64];

	snprintf(path, sizeof(path), "/proc/%d/cmdline", (int)pid);
	for (int i = 0; i < 500; i++) {
		FILE *f = fopen(path, "r");
		size_t n = f ? fread(buf, 1, sizeof(buf) - 1, f) : 0;

		if (f)
			fclose(f);
		buf[n] = 0;
		/* "pfm_test\0fault_loop\0" */
		if (n > strlen(buf) + 1 && !strcmp(buf + strlen(buf) + 1, "fault_loop"))
			return;
		usleep(10000);
	}
	die("the exec never came");
}

/* Sets 0 and 1's page faults stand still over 200 ms. */
static int sets_still(int fd)
{
	uint64_t a = pmd_of_set(fd, 0, NULL) + pmd_of_set(fd, 1, NULL);

	usleep(200000);
	return a == pmd_of_set(fd, 0, NULL) + pmd_of_set(fd, 1, NULL);
}

/*
 * exec_cancel stop|set: a context loaded to start at the target's exec
 * (PFM_LOADFL_ENABLE_ON_EXEC), two sets counting page faults, not
 * switched.  "stop": PFM_STOP before the exec cancels that start: after
 * the exec prints "quiet" when no set counted, then "counts" when
 * PFM_START starts it and "stopped" when PFM_STOP stops it.  "set":
 * PFM_START of set 1 before the exec starts set 1 alone: after the exec
 * prints "set1" when set 1 counted and set 0 did not, then "stopped"
 * when PFM_STOP stops both.
 */
static void sc_exec_cancel(int argc, char **argv)
{
	int stop = argc > 1 && !strcmp(argv[1], "stop");
	pid_t pid = spawn_traced(exec_fault_loop, 0);
	int fd = pfm_context(0);
	struct pfarg_start st;

	for (uint16_t i = 0; i < 2; i++)
		if (set_create(fd, i, 0, 0, NULL) || pmc_set(fd, i, 0, EV_PAGE_FAULTS))
			die("set-up");
	if (pfm_load_pid(fd, pid, PFM_LOADFL_ENABLE_ON_EXEC))
		die("load");
	memset(&st, 0, sizeof(st));
	st.start_flags = PFM_STARTFL_SET;
	st.start_set = 1;
	if (stop ? pfm_flags_cmd(fd, PFM_STOP) : xioctl(fd, PFM_START, &st))
		die(stop ? "PFM_STOP" : "PFM_START");
	release_traced(pid);
	wait_fault_loop(pid);
	usleep(100000);
	if (stop) {
		printf("%s ", pmd_of_set(fd, 0, NULL) + pmd_of_set(fd, 1, NULL) ? "counted" : "quiet");
		if (pfm_start(fd))
			die("PFM_START");
		usleep(100000);
		printf("%s ", pmd_of_set(fd, 0, NULL) ? "counts" : "nothing");
	} else {
		for (int i = 0; i < 500 && pmd_of_set(fd, 1, NULL) < 1000; i++)
			usleep(10000);
		printf("%s ", pmd_of_set(fd, 1, NULL) >= 1000 && !pmd_of_set(fd, 0, NULL) ?
		       "set1" : "set0");
	}
	if (pfm_flags_cmd(fd, PFM_STOP))
		die("PFM_STOP");
	printf("%s\n", sets_still(fd) ? "stopped" : "counting");
	kill(pid, SIGKILL);
	waitpid(pid, NULL, 0);
}

/* --- CPU hotplug ---------------------------------------------------------- */

static void cpu_set_online(int cpu, int on)
{
	char path[64];
	FILE *f;

	snprintf(path, sizeof(path), "/sys/devices/system/cpu/cpu%d/online", cpu);
	f = fopen(path, "w");
	if (!f || fprintf(f, "%d\n", on) < 0 || fclose(f))
		die(path);
}

/*
 * cpu_offline CPU: a system-wide context counting cpu-clock on CPU,
 * started; CPU taken offline: a read, a stop and a start print their
 * errnos; CPU back: a read, then "counting" when the count goes on over
 * 200 ms, else "stopped"; then an unload.
 */
static void sc_cpu_offline(int argc, char **argv)
{
	int cpu = (int)arg_l(argc, argv, 1, 1);
	int fd = pfm_context(PFM_FL_SYSTEM_WIDE);
	struct pfarg_load l;
	uint64_t v0, v1, v2;
	int e;

	memset(&l, 0, sizeof(l));
	l.load_cpu = (uint32_t)cpu;
	if (pfm_pmc(fd, 0, EV_CPU_CLOCK) || xioctl(fd, PFM_LOAD_CONTEXT, &l) ||
	    pfm_start(fd))
		die("set-up");
	usleep(50000);
	if (pfm_read_pmd(fd, 0, &v0) || !v0)
		die("first read");
	cpu_set_online(cpu, 0);
	e = pfm_read_pmd(fd, 0, &v1);
	printf("offline read %s ", errname(e));
	printf("stop %s ", errname(pfm_flags_cmd(fd, PFM_STOP)));
	printf("start %s ", errname(pfm_start(fd)));
	cpu_set_online(cpu, 1);
	usleep(50000);
	e = pfm_read_pmd(fd, 0, &v1);
	printf("online read %s ", errname(e));
	usleep(200000);
	e |= pfm_read_pmd(fd, 0, &v2);
	printf("%s ", !e && v1 >= v0 && v2 > v1 + 100000000 ? "counting" : "stopped");
	printf("unload %s\n", errname(pfm_flags_cmd(fd, PFM_UNLOAD_CONTEXT)));
}

/*
 * cpu_back_poll CPU: a system-wide context counting cpu-clock on CPU
 * (user and kernel), to notify after 300 ms of it, started; CPU offline and back with no
 * command on the context between; then only poll(2): "POLLIN OVFL" when
 * the overflow comes within 5 s (the context counts again by itself),
 * else "silent".
 */
static void sc_cpu_back_poll(int argc, char **argv)
{
	int cpu = (int)arg_l(argc, argv, 1, 1);
	int fd = pfm_context(PFM_FL_SYSTEM_WIDE);
	struct pollfd pf = { .fd = fd, .events = POLLIN };
	struct pfarg_load l;
	struct pfarg_pmd p;
	union pfarg_msg m;

	memset(&l, 0, sizeof(l));
	l.load_cpu = (uint32_t)cpu;
	pmd_setup(&p, 0, -(uint64_t)300000000);
	p.reg_flags = PFM_PMDFL_OVFL_NOTIFY;
	/* both levels: an idle CPU's clock ticks in the kernel, and perf
	 * makes no overflow of a tick at an excluded level */
	if (pfm_pmc(fd, 0, PFM_PMC_VIRT_EVENT(PFM_EVT_TYPE_SOFTWARE, 0,
					      PFM_PMC_USR | PFM_PMC_OS)) ||
	    pfm_vec_call(fd, PFM_WRITE_PMDS, &p, 1, sizeof(p)) ||
	    xioctl(fd, PFM_LOAD_CONTEXT, &l) || pfm_start(fd))
		die("set-up");
	cpu_set_online(cpu, 0);
	cpu_set_online(cpu, 1);
	if (poll(&pf, 1, 5000) == 1 && read(fd, &m, sizeof(m)) == sizeof(m))
		printf("%s %s\n", (pf.revents & POLLIN) ? "POLLIN" : "?",
		       m.type == PFM_MSG_OVFL ? "OVFL" : "?");
	else
		printf("silent\n");
}

/* --- module lifetime ---------------------------------------------------- */

/* The target of tw_pending: one write(2) of twice its pipe's size, a
 * syscall that copies into the pipe's buffer in the kernel for many set
 * timeouts, then sleeps there until the pipe is read. */
static int tw_pipe[2];

static void write_pipe(long bytes)
{
	char *buf = mmap(NULL, (size_t)bytes * 2, PROT_READ | PROT_WRITE,
			 MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE, -1, 0);

	if (buf == MAP_FAILED || write(tw_pipe[1], buf, (size_t)bytes * 2) != bytes * 2)
		_exit(1);
	_exit(0);
}

static long module_refcnt(void)
{
	FILE *f = fopen("/sys/module/perfmon/refcnt", "r");
	long n = -1;

	if (!f || fscanf(f, "%ld", &n) != 1)
		die("/sys/module/perfmon/refcnt");
	fclose(f);
	return n;
}

/* Where task pid sleeps (/proc/PID/wchan): "" while it runs. */
static void task_wchan(pid_t pid, char *wchan, size_t size)
{
	char path[64];
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/wchan", (int)pid);
	wchan[0] = 0;
	f = fopen(path, "r");
	if (f) {
		if (!fgets(wchan, (int)size, f))
			wchan[0] = 0;
		fclose(f);
	}
}

/* Task pid sleeps in pipe_write(), its pipe full of want bytes. */
static void wait_pipe_full(pid_t pid, int fd, int want)
{
	char wchan[64] = "";
	int n = 0;

	for (int i = 0; i < 6000; i++) {
		task_wchan(pid, wchan, sizeof(wchan));
		if (ioctl(fd, FIONREAD, &n))
			die("FIONREAD");
		if (n == want && !strcmp(wchan, "pipe_write"))
			return;
		usleep(10000);
	}
	fprintf(stderr, "the target did not block in pipe_write: %d bytes, wchan %s\n",
		n, wchan);
	exit(3);
}

/*
 * tw_pending: a task work of the module's (a set switch) queued on a
 * target that has not run it yet, with no context left, and rmmod
 * perfmon (the formats unloaded first).  Sets switched every 10 us of the
 * target's CPU time queue the switch on the target at each timeout; the
 * target copies 16 MiB into a pipe in write(2) and then sleeps there, the
 * pipe full, before its way back to user mode runs the work.  Prints
 * "refs N": the module references that the closed context left (the
 * work's); "rmmod waits" when rmmod is still running a second later,
 * else "rmmod exited S"; then, the pipe drained, "rmmod S" and "target
 * S" (exit statuses).
 */
static void sc_tw_pending(int argc, char **argv)
{
	int size = (int)arg_l(argc, argv, 1, 16 << 20);
	char *drain = malloc((size_t)size);
	long refs0;
	pid_t pid, rm;
	int fd, st;

	if (!drain || pipe(tw_pipe) || fcntl(tw_pipe[1], F_SETPIPE_SZ, size) != size)
		die("pipe");
	pid = spawn_traced(write_pipe, size);
	refs0 = module_refcnt();
	fd = pfm_context(0);
	for (uint16_t i = 0; i < 2; i++)
		if (set_create(fd, i, PFM_SETFL_TIME_SWITCH, 10000, NULL) ||
		    pmc_set(fd, i, 0, EV_TASK_CLOCK))
			die("set-up");
	if (pfm_load_pid(fd, pid, 0) || pfm_start(fd))
		die("load/start");
	release_traced(pid);
	wait_pipe_full(pid, tw_pipe[0], size);
	close(fd);
	printf("refs %ld ", module_refcnt() - refs0);
	fflush(stdout);
	rm = fork();
	if (rm < 0)
		die("fork");
	if (rm == 0) {
		execlp("rmmod", "rmmod", "perfmon", (char *)NULL);
		_exit(127);
	}
	sleep(1);
	if (waitpid(rm, &st, WNOHANG) == rm) {
		printf("rmmod exited %d ", WEXITSTATUS(st));
		rm = 0;
	} else {
		printf("rmmod waits ");
	}
	fflush(stdout);
	for (long left = 2L * size; left > 0;) {
		ssize_t n = read(tw_pipe[0], drain, (size_t)size);

		if (n <= 0)
			die("read pipe");
		left -= n;
	}
	if (rm) {
		if (waitpid(rm, &st, 0) != rm)
			die("waitpid rmmod");
		printf("rmmod %d ", WEXITSTATUS(st));
	}
	if (waitpid(pid, &st, 0) != pid)
		die("waitpid target");
	printf("target %d\n", WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st));
}

/* --- inherited counts and the overflow path ---------------------------- */

/* The target of inherit_mask: a child that faults N pages and exits,
 * then 2 * INHERIT_MASK_PERIOD faults of its own, then it waits for the
 * go to exit (or for the test's end: the pipe's write end is the test's
 * alone). */
#define INHERIT_MASK_PERIOD	200

static void inherit_fault_child(long n)
{
	pid_t kid;
	char c;

	close(inh_cmd[1]);
	prctl(PR_SET_PDEATHSIG, SIGKILL);
	kid = fork();
	if (kid == 0) {
		touch_pages(n);
		_exit(0);
	}
	if (kid < 0 || waitpid(kid, NULL, 0) != kid)
		_exit(1);
	touch_pages(2 * INHERIT_MASK_PERIOD);
	if (read(inh_cmd[0], &c, 1) != 1)
		_exit(1);
}

/*
 * inherit_mask N: an inheriting context whose PMD0 (page faults, period
 * 200, OVFL_NOTIFY) masks it and whose PMD1 counts page faults: the
 * target's child faults N pages and exits (the target has faulted far
 * fewer than 200 times by then), then the target faults 400 pages: its
 * 200th fault is PMD0's interrupt (perf counts a period in the event's
 * own occurrences), where PMD0 stands past its overflow by the child's
 * count.  PMD1, frozen at the mask, must hold the child's
 * faults, and so must its value after the restart and the target's end
 * (before the fix the overflow path read the event's own count: the
 * child's faults were left out of the frozen value and lost at the
 * restart).  PFM_WRITE_PMCS while loaded is refused (EBUSY): the
 * children's copies would not follow.  Prints "masked M final M pmcs E",
 * M 1 when the PMD holds at least N faults.
 */
static void sc_inherit_mask(int argc, char **argv)
{
	long n = arg_l(argc, argv, 1, 5000);
	struct pollfd pf;
	struct pfarg_pmd p;
	union pfarg_msg m;
	uint64_t masked, final;
	int fd, st, pmcs;
	pid_t pid;

	if (pipe(inh_cmd))
		die("pipe");
	pid = spawn_traced(inherit_fault_child, n);
	fd = pfm_context(0);
	pmd_setup(&p, 0, -(uint64_t)INHERIT_MASK_PERIOD);
	p.reg_flags = PFM_PMDFL_OVFL_NOTIFY;
	p.reg_short_reset = p.reg_long_reset = -(uint64_t)INHERIT_MASK_PERIOD;
	if (pfm_pmc(fd, 0, EV_PAGE_FAULTS) || pfm_pmc(fd, 1, EV_PAGE_FAULTS) ||
	    pfm_vec_call(fd, PFM_WRITE_PMDS, &p, 1, sizeof(p)) ||
	    pfm_load_pid(fd, pid, PFM_LOADFL_INHERIT) || pfm_start(fd))
		die("program/load/start");
	pmcs = pfm_pmc(fd, 1, EV_PAGE_FAULTS);
	release_traced(pid);
	pf.fd = fd;
	pf.events = POLLIN;
	if (poll(&pf, 1, 30000) != 1 || read(fd, &m, sizeof(m)) != sizeof(m) ||
	    m.type != PFM_MSG_OVFL)
		die("no overflow message");
	if (pfm_read_pmd(fd, 1, &masked) || restart(fd))
		die("read masked/restart");
	if (write(inh_cmd[1], "q", 1) != 1 || waitpid(pid, &st, 0) != pid)
		die("target end");
	if (pfm_read_pmd(fd, 1, &final))
		die("read final");
	printf("masked %d final %d pmcs %s\n", masked >= (uint64_t)n,
	       final >= (uint64_t)n, errname(pmcs));
	close(fd);
}

/* --- pids of the opener's namespace ------------------------------------- */

/* The pid and tid of the first message of a context of ours that counts
 * our page faults with a notification each. */
static void pidns_msg(uint32_t *pid, uint32_t *tid)
{
	int fd = pfm_context(0);
	struct pfarg_pmd p;
	union pfarg_msg m;

	pmd_setup(&p, 0, -1ull);
	p.reg_flags = PFM_PMDFL_OVFL_NOTIFY;
	p.reg_short_reset = p.reg_long_reset = -1ull;
	if (pfm_pmc(fd, 0, EV_PAGE_FAULTS) ||
	    pfm_vec_call(fd, PFM_WRITE_PMDS, &p, 1, sizeof(p)) ||
	    pfm_load_pid(fd, 0, 0) || pfm_start(fd))
		die("message context");
	touch_pages(4);
	if (read(fd, &m, sizeof(m)) != sizeof(m) || m.type != PFM_MSG_OVFL)
		die("no message");
	*pid = m.pfm_ovfl_msg.msg_ovfl_pid;
	*tid = m.pfm_ovfl_msg.msg_ovfl_tid;
	close(fd);
}

/* The same of the first sample of the default format. */
static void pidns_smpl(uint32_t *pid, uint32_t *tid)
{
	const struct pfm_dfl_smpl_hdr *h;
	const struct pfm_dfl_smpl_entry *e;
	struct smpl_ctx sc;
	struct pfarg_pmd p;

	smpl_open(&sc, 0, "default", 16384, 0);
	pmd_setup(&p, 0, -1ull);
	p.reg_flags = PFM_PMDFL_SMPL;
	p.reg_short_reset = p.reg_long_reset = -1ull;
	if (pfm_pmc(sc.fd, 0, EV_PAGE_FAULTS) ||
	    pfm_vec_call(sc.fd, PFM_WRITE_PMDS, &p, 1, sizeof(p)) ||
	    pfm_load_pid(sc.fd, 0, 0) || pfm_start(sc.fd))
		die("sampling context");
	touch_pages(4);
	if (pfm_flags_cmd(sc.fd, PFM_STOP))
		die("stop");
	h = sc.buf;
	if (!h->hdr_count)
		die("no sample");
	e = (const void *)(h + 1);
	*pid = e->pid;
	*tid = e->tid;
	close(sc.fd);
}

/*
 * pidns: a process in a pid namespace of its own (unshare(CLONE_NEWPID),
 * then fork: the child is its pid 1) monitors itself: the pid and tid in
 * its overflow messages and its samples are its namespace's, as getpid()
 * says, not the initial namespace's.  Prints "msg P/T smpl P/T self P".
 */
static void sc_pidns(int argc, char **argv)
{
	pid_t pid;
	int st;

	(void)argc;
	(void)argv;
	if (unshare(CLONE_NEWPID))
		die("unshare(CLONE_NEWPID)");
	pid = fork();
	if (pid < 0)
		die("fork");
	if (pid == 0) {
		uint32_t mp, mt, sp, stid;

		pidns_msg(&mp, &mt);
		pidns_smpl(&sp, &stid);
		printf("msg %u/%u smpl %u/%u self %d\n", mp, mt, sp, stid, (int)getpid());
		exit(0);
	}
	if (waitpid(pid, &st, 0) != pid || !WIFEXITED(st) || WEXITSTATUS(st))
		die("the namespace's process");
}

/* A region of npages anonymous pages for fault_round(); exits on failure. */
static volatile char *fault_region(long npages)
{
	volatile char *m = mmap(NULL, (size_t)(npages * sysconf(_SC_PAGESIZE)),
				PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS,
				-1, 0);

	if (m == MAP_FAILED)
		die("mmap");
	return m;
}

/* One page fault per page of m, then the pages dropped so that the next
 * round faults again. */
static void fault_round(volatile char *m, long npages)
{
	long page = sysconf(_SC_PAGESIZE);

	for (long i = 0; i < npages; i++)
		m[i * page] = 1;
	madvise((void *)m, (size_t)(npages * page), MADV_DONTNEED);
}

/* --- a close while the handler runs --------------------------------------- */

struct close_race {
	volatile int fd;	/* published by the faulter, -1 once closed */
	volatile int done;
	long rounds;
};

/*
 * The faulter: each round a context on itself, PMD0 counting its page
 * faults with period 1 (the handler runs at every fault, interrupts on),
 * published to the closer; it faults until the closer has closed it.
 */
static void *close_race_faulter(void *arg)
{
	struct close_race *r = arg;
	volatile char *m = fault_region(16);
	struct pfarg_pmd p;

	pmd_setup(&p, 0, -1ull);
	p.reg_short_reset = p.reg_long_reset = -1ull;
	for (long i = 0; i < r->rounds; i++) {
		int fd = pfm_context(0);

		if (pfm_pmc(fd, 0, EV_PAGE_FAULTS) ||
		    pfm_vec_call(fd, PFM_WRITE_PMDS, &p, 1, sizeof(p)) ||
		    pfm_load_pid(fd, 0, 0) || pfm_start(fd))
			die("faulter set-up");
		r->fd = fd;
		while (r->fd != -1)
			fault_round(m, 16);
	}
	r->done = 1;
	return NULL;
}

/*
 * close_race ROUNDS: another thread closes a context while the thread it
 * monitors faults, so that the close's unload and free come while the
 * overflow handler runs on the other CPU (a software event's handler,
 * with interrupts on, is not waited for by the removal's IPI).  The
 * context is freed only a grace period later: a handler that still
 * reached it would read freed memory, which the guest's slub_debug and
 * KFENCE report.  The closer waits a varying few microseconds each round.
 * Prints "closes N".
 */
static void sc_close_race(int argc, char **argv)
{
	struct close_race r = { .fd = -1, .rounds = arg_l(argc, argv, 1, 2000) };
	long closes = 0;
	pthread_t ft;

	if (pthread_create(&ft, NULL, close_race_faulter, &r))
		die("pthread_create");
	while (!r.done) {
		int fd = r.fd;

		if (fd == -1) {
			sched_yield();
			continue;
		}
		for (volatile long spin = 0; spin < (closes % 64) * 100; spin++)
			;
		close(fd);
		closes++;
		r.fd = -1;
	}
	pthread_join(ft, NULL);
	printf("closes %ld\n", closes);
}

/* --- a command's copy that waits on a fault ----------------------------- */

struct uffd_read {
	int fd;
	struct pfarg_pmd *elems;	/* in a page missing under userfaultfd */
	int ret;
};

static void *uffd_reader(void *arg)
{
	struct uffd_read *u = arg;

	u->ret = pfm_vec_call(u->fd, PFM_READ_PMDS, u->elems, 1, sizeof(*u->elems));
	return NULL;
}

/*
 * uffd_copy [SPIN]: PFM_READ_PMDS whose element lies in a page that userfaultfd
 * holds missing, so the module's copy of it waits, while the target
 * switches sets every 10 us of its CPU time (its task work takes
 * ctx->lock) and then exits.  The command must not hold ctx->lock while
 * it copies: the target finishes while the copy still waits (before the
 * fix it waited, uninterruptibly, on the lock).  Then the page comes
 * (UFFDIO_ZEROPAGE) and the command ends.  The target spins SPIN ms
 * (300).  Prints "target exited N"
 * (1: while the copy waited) and the command's result.
 */
static void sc_uffd_copy(int argc, char **argv)
{
	long page = sysconf(_SC_PAGESIZE), spin = arg_l(argc, argv, 1, 300);
	struct uffdio_api api = { .api = UFFD_API };
	struct uffdio_register reg;
	struct uffdio_zeropage zp;
	struct uffd_read u;
	int uffd, st, exited = 0;
	pthread_t t;
	pid_t pid;
	char *m;

	uffd = (int)syscall(SYS_userfaultfd, O_CLOEXEC);
	if (uffd < 0 || ioctl(uffd, UFFDIO_API, &api))
		die("userfaultfd");
	m = mmap(NULL, (size_t)page, PROT_READ | PROT_WRITE,
		 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (m == MAP_FAILED)
		die("mmap");
	memset(&reg, 0, sizeof(reg));
	reg.range.start = (uintptr_t)m;
	reg.range.len = (uint64_t)page;
	reg.mode = UFFDIO_REGISTER_MODE_MISSING;
	if (ioctl(uffd, UFFDIO_REGISTER, &reg))
		die("UFFDIO_REGISTER");

	pid = spawn_traced(spin_ms, spin);
	u.fd = pfm_context(0);
	u.elems = (struct pfarg_pmd *)m;
	for (uint16_t i = 0; i < 2; i++)
		if (set_create(u.fd, i, PFM_SETFL_TIME_SWITCH, 10000, NULL) ||
		    pmc_set(u.fd, i, 0, EV_TASK_CLOCK))
			die("set-up");
	if (pfm_load_pid(u.fd, pid, 0) || pfm_start(u.fd))
		die("load/start");
	if (pthread_create(&t, NULL, uffd_reader, &u))
		die("pthread_create");
	/* the reader waits on the fault once the page's message comes */
	{
		struct pollfd p = { .fd = uffd, .events = POLLIN };

		if (poll(&p, 1, 10000) != 1)
			die("no fault from the command's copy");
	}
	release_traced(pid);
	for (int i = 0; i < 1000 && !exited; i++) {
		if (waitpid(pid, &st, WNOHANG) == pid)
			exited = 1;
		else
			usleep(10000);
	}
	memset(&zp, 0, sizeof(zp));
	zp.range.start = (uintptr_t)m;
	zp.range.len = (uint64_t)page;
	if (ioctl(uffd, UFFDIO_ZEROPAGE, &zp))
		die("UFFDIO_ZEROPAGE");
	pthread_join(t, NULL);
	if (!exited && waitpid(pid, &st, 0) != pid)
		die("waitpid");
	printf("target exited %d read %s\n", exited, u.ret ? errname(u.ret) : "OK");
	close(u.fd);
}

/* --- a block of one load, not of the next ------------------------------- */

#define EV_CSWITCH	PFM_PMC_VIRT_EVENT(PFM_EVT_TYPE_SOFTWARE, 3, \
					   PFM_PMC_USR | PFM_PMC_OS)

/* each target: one byte in, one byte back, from its own pair of pipes */
static int br_in[2][2], br_out[2][2];

static void echo_byte(long i)
{
	char c;

	if (read(br_in[i][0], &c, 1) != 1 || write(br_out[i][1], &c, 1) != 1)
		_exit(1);
	_exit(0);
}

/* Whether target i echoed its byte within ms milliseconds. */
static int echoed(int i, int ms)
{
	struct pollfd p = { .fd = br_out[i][0], .events = POLLIN };
	char c;

	return poll(&p, 1, ms) == 1 && read(br_out[i][0], &c, 1) == 1;
}

/*
 * Target pid, released, is asleep in read(2) on its empty pipe with the
 * block's work queued on it: its overflow (PMD0, its first context switch
 * at any level, period 1) came in the read.  One that was preempted on
 * its way there overflowed then and waits at its return to user mode:
 * each such is restarted, so that its next switch, the read's, overflows.
 */
static void wait_blocked_in_read(int fd, pid_t pid)
{
	struct pollfd p = { .fd = fd, .events = POLLIN };
	union pfarg_msg m;
	char wchan[64];

	for (int i = 0; i < 1000; i++) {
		if (poll(&p, 1, 10000) != 1 || read(fd, &m, sizeof(m)) != sizeof(m) ||
		    m.type != PFM_MSG_OVFL)
			die("no overflow message from the target's switch");
		for (int j = 0; j < 6000; j++) {
			task_wchan(pid, wchan, sizeof(wchan));
			if (wchan[0] && strcmp(wchan, "0"))
				break;
			usleep(1000);
		}
		if (!strcmp(wchan, "pipe_read"))
			return;
		if (restart(fd))
			die("restart");
	}
	die("the target never overflowed in its read");
}

/*
 * block_reload: PFM_FL_NOTIFY_BLOCK, loaded on target A, whose overflow
 * comes while it sleeps in read(2) (the block's work queued on it, to run
 * when the read returns), then unloaded and loaded on target B, which
 * overflows the same way.  B's byte comes: B must wait on its way out of
 * the read until the restart; then A's: A, no longer monitored, must
 * not.  Prints "b_early N" (B echoed before the restart: 0), "b N" (after
 * it: 1), "a N" (1).
 */
static void sc_block_reload(int argc, char **argv)
{
	int early = (int)arg_l(argc, argv, 1, 2000);
	struct pfarg_pmd p;
	pid_t pid[2];
	int fd, st, b_early, b, a;

	for (int i = 0; i < 2; i++) {
		if (pipe(br_in[i]) || pipe(br_out[i]))
			die("pipe");
		pid[i] = spawn_traced(echo_byte, i);
	}
	fd = pfm_context(PFM_FL_NOTIFY_BLOCK);
	pmd_setup(&p, 0, -1ull);
	p.reg_flags = PFM_PMDFL_OVFL_NOTIFY;
	p.reg_short_reset = p.reg_long_reset = -1ull;
	if (pfm_pmc(fd, 0, EV_CSWITCH) ||
	    pfm_vec_call(fd, PFM_WRITE_PMDS, &p, 1, sizeof(p)))
		die("set-up");
	for (int i = 0; i < 2; i++) {
		if (i && pfm_flags_cmd(fd, PFM_UNLOAD_CONTEXT))
			die("unload");
		if (i && pfm_vec_call(fd, PFM_WRITE_PMDS, &p, 1, sizeof(p)))
			die("PMD0 for the second target");
		if (pfm_load_pid(fd, pid[i], 0) || pfm_start(fd))
			die("load/start");
		release_traced(pid[i]);
		wait_blocked_in_read(fd, pid[i]);
	}
	if (write(br_in[1][1], "b", 1) != 1)
		die("write B");
	b_early = echoed(1, early);
	if (restart(fd))
		die("restart B");
	b = b_early || echoed(1, 10000);
	if (write(br_in[0][1], "a", 1) != 1)
		die("write A");
	a = echoed(0, 10000);
	printf("b_early %d b %d a %d\n", b_early, b, a);
	close(fd);
	for (int i = 0; i < 2; i++)
		if (waitpid(pid[i], &st, 0) != pid[i])
			die("waitpid");
}

/* --- counters replaced while the handler runs ---------------------------- */

#define EV_ALIGN_FAULTS	PFM_PMC_VIRT_EVENT(PFM_EVT_TYPE_SOFTWARE, 7, PFM_PMC_USR)

struct reattach {
	int fd;
	volatile int pause_faults, faults_paused;
	volatile int stop_writes, writes_stopped;
	volatile int done, ready;
	long writes;
};

/* The monitored thread: loads the context on itself and faults, each
 * fault an overflow of PMD0 that resets PMD1, until paused. */
static void *reattach_faulter(void *arg)
{
	struct reattach *r = arg;
	volatile char *m = fault_region(64);

	if (pfm_load_pid(r->fd, 0, 0) || pfm_start(r->fd))
		die("faulter set-up");
	r->ready = 1;
	while (!r->done) {
		if (r->pause_faults) {
			r->faults_paused = 1;
			while (r->pause_faults && !r->done)
				sched_yield();
			r->faults_paused = 0;
			continue;
		}
		fault_round(m, 64);
	}
	return NULL;
}

/* The controller: writes PMC1 (its event released and created again),
 * until stopped. */
static void *reattach_writer(void *arg)
{
	struct reattach *r = arg;

	while (!r->done) {
		if (r->stop_writes) {
			r->writes_stopped = 1;
			while (r->stop_writes && !r->done)
				sched_yield();
			r->writes_stopped = 0;
			continue;
		}
		if (pfm_pmc(r->fd, 1, EV_ALIGN_FAULTS))
			die("PFM_WRITE_PMCS");
		r->writes++;
	}
	return NULL;
}

/*
 * reattach ROUNDS: PMD1 counts an event that never comes (alignment
 * faults) and is reset, randomised, by every overflow of PMD0 (page
 * faults of a thread monitoring itself, period 1, reset_pmds {1}),
 * while another thread rewrites PMC1: each write releases PMD1's event
 * and creates a new one, racing with the resets, which the handler
 * makes on the faulting CPU.  Each round the faults are paused at a
 * moment of the writer's loop, the writes stopped, and PMD1 read: it
 * must read its last reset value (reset values are never lost to a
 * release or a creation).  Prints "consistent N of ROUNDS".
 */
static void sc_reattach(int argc, char **argv)
{
	long rounds = arg_l(argc, argv, 1, 100), good = 0, bad = 0;
	struct reattach r = { .fd = pfm_context(0) };
	struct pfarg_pmd p[2];
	pthread_t ft, wt;

	memset(p, 0, sizeof(p));
	p[0].reg_num = 0;
	p[0].reg_value = (uint64_t)-1;
	p[0].reg_short_reset = (uint64_t)-1;
	p[0].reg_long_reset = (uint64_t)-1;
	p[0].reg_reset_pmds[0] = 1ull << 1;
	p[1].reg_num = 1;
	p[1].reg_flags = PFM_PMDFL_RANDOM;
	p[1].reg_short_reset = 1000;
	p[1].reg_random_mask = 0xffff;
	p[1].reg_random_seed = 12345;
	if (pfm_pmc(r.fd, 0, EV_PAGE_FAULTS) || pfm_pmc(r.fd, 1, EV_ALIGN_FAULTS) ||
	    pfm_vec_call(r.fd, PFM_WRITE_PMDS, p, 2, sizeof(p[0])))
		die("set-up");
	if (pthread_create(&ft, NULL, reattach_faulter, &r))
		die("pthread_create");
	while (!r.ready)
		usleep(1000);
	if (pthread_create(&wt, NULL, reattach_writer, &r))
		die("pthread_create");
	for (long i = 0; i < rounds; i++) {
		struct pfarg_pmd q;

		usleep(1000 + (useconds_t)(i % 7) * 300);
		r.pause_faults = 1;
		while (!r.faults_paused)
			sched_yield();
		r.stop_writes = 1;
		while (!r.writes_stopped)
			sched_yield();
		memset(&q, 0, sizeof(q));
		q.reg_num = 1;
		if (pfm_vec_call(r.fd, PFM_READ_PMDS, &q, 1, sizeof(q)))
			die("PFM_READ_PMDS");
		if (q.reg_value == q.reg_last_reset_val)
			good++;
		else if (++bad <= 3)
			fprintf(stderr, "round %ld: PMD1 %llu, last reset %llu\n", i,
				(unsigned long long)q.reg_value,
				(unsigned long long)q.reg_last_reset_val);
		r.stop_writes = 0;
		while (r.writes_stopped)
			sched_yield();
		r.pause_faults = 0;
		while (r.faults_paused)
			sched_yield();
	}
	r.stop_writes = 1;	/* no write after the faulter has gone */
	while (!r.writes_stopped)
		sched_yield();
	r.done = 1;
	pthread_join(wt, NULL);
	pthread_join(ft, NULL);
	fprintf(stderr, "%ld writes\n", r.writes);
	printf("consistent %ld of %ld\n", good, rounds);
}

/*
 * sets_ovfl: set0 switches after 2 overflows of PMD0 (calls of counted(),
 * period 10), set1 counts calls from then on.  25 calls in a row: set1
 * counts 5.
 */
static void sc_sets_ovfl(int argc, char **argv)
{
	int fd = pfm_context(0);
	struct pfarg_ctxinfo ci;
	struct pfarg_setinfo s0, s1;
	struct pfarg_pmd p;
	uint64_t v1;

	(void)argc; (void)argv;
	if (set_create(fd, 0, PFM_SETFL_OVFL_SWITCH, 0, NULL) ||
	    set_create(fd, 1, 0, 0, NULL))
		die("sets");
	pmd_setup(&p, 0, -10ull);
	p.reg_short_reset = -10ull;
	p.reg_ovfl_switch_cnt = 2;
	program_bp(fd, &p);
	if (pmc_set(fd, 1, PFM_PMC_EXT1_BASE, (uint64_t)(uintptr_t)counted) ||
	    pmc_set(fd, 1, 0, EV_BP_COUNTED))
		die("set1");
	if (pfm_load_pid(fd, 0, 0) || pfm_start(fd))
		die("load/start");
	/* the switch is done by this thread before it returns to user
	 * mode from the 20th call's overflow: the 21st counts in set1 */
	call_counted(25);
	pfm_flags_cmd(fd, PFM_STOP);
	ctxinfo(fd, &ci);
	memset(&p, 0, sizeof(p));
	p.reg_set = 1;
	pfm_vec_call(fd, PFM_READ_PMDS, &p, 1, sizeof(p));
	v1 = p.reg_value;
	set_info(fd, 0, &s0);
	set_info(fd, 1, &s1);
	printf("active %u set1 %llu runs %llu %llu switch_pmds %llx\n",
	       ci.ctx_active_set, (unsigned long long)v1,
	       (unsigned long long)s0.set_runs, (unsigned long long)s1.set_runs,
	       (unsigned long long)s0.set_ovfl_pmds[0]);
}

/*
 * fmts [N [reserved]]: PFM_GETINFO_FMTS over indexes 0..N-1 (8); prints
 * the errno and vec_done, then "NAME UUID flags=F arg=SIZE" for each
 * format returned.  "reserved" sets a reserved field of the first one.
 */
static void sc_fmts(int argc, char **argv)
{
	long n = arg_l(argc, argv, 1, 8);
	struct pfarg_fmtinfo fi[64];
	struct pfarg_vec v;
	int fd = pfm_open(), e;

	if (n < 1 || n > 64)
		die("fmts: N in 1..64");
	memset(fi, 0, sizeof(fi));
	for (long i = 0; i < n; i++)
		fi[i].fmt_index = (uint32_t)i;
	if (argc > 2 && !strcmp(argv[2], "reserved"))
		fi[0].fmt_reserved2[1] = 1;
	memset(&v, 0, sizeof(v));
	v.vec_addr = (uintptr_t)fi;
	v.vec_size = (uint32_t)(n * sizeof(fi[0]));
	v.vec_elem_size = sizeof(fi[0]);
	e = xioctl(fd, PFM_GETINFO_FMTS, &v);
	printf("%s %u\n", errname(e), v.vec_done);
	for (unsigned int i = 0; i < v.vec_done; i++) {
		printf("%s ", (const char *)fi[i].fmt_name);
		for (int b = 0; b < 16; b++)
			printf("%02x%s", fi[i].fmt_uuid[b],
			       b == 3 || b == 5 || b == 7 || b == 9 ? "-" : "");
		printf(" flags=0x%x arg=%llu\n", fi[i].fmt_flags,
		       (unsigned long long)fi[i].fmt_arg_size);
	}
	if (v.vec_done < n)
		printf("retflags 0x%x\n", fi[v.vec_done].fmt_retflags);
}

/* 32 hex digits (dashes allowed) into a UUID; exits on a bad one. */
static void parse_uuid(const char *s, uint8_t *u)
{
	int n = 0;

	for (; *s && n < 32; s++) {
		int h = *s >= '0' && *s <= '9' ? *s - '0' :
			*s >= 'a' && *s <= 'f' ? *s - 'a' + 10 : -1;

		if (*s == '-')
			continue;
		if (h < 0)
			die("bad UUID");
		u[n / 2] = (uint8_t)(u[n / 2] << 4 | h);
		n++;
	}
	if (n != 32 || *s)
		die("bad UUID");
}

/*
 * smpl_uuid UUID [NAME]: create a context of the format with that UUID
 * (and that name, or none) and a default-format argument of 64 KiB;
 * prints the errno and the buffer size.
 */
static void sc_smpl_uuid(int argc, char **argv)
{
	struct pfm_dfl_smpl_arg a = { .buf_size = 65536 };
	struct pfarg_ctx c;
	int fd = pfm_open(), e;

	memset(&c, 0, sizeof(c));
	parse_uuid(argc > 1 ? argv[1] : "", c.ctx_smpl_uuid);
	c.ctx_flags = PFM_FL_SMPL_FMT;
	c.ctx_smpl_name = argc > 2 ? (uintptr_t)argv[2] : 0;
	c.ctx_smpl_arg = (uintptr_t)&a;
	c.ctx_smpl_arg_size = sizeof(a);
	e = xioctl(fd, PFM_CREATE_CONTEXT, &c);
	printf("%s %llu\n", errname(e), (unsigned long long)c.ctx_smpl_buf_size);
}

/* A context of format NAME (64 KiB, default-format argument); exits on error. */
static int smpl_context(const char *name)
{
	struct pfm_dfl_smpl_arg a = { .buf_size = 65536 };
	int fd = pfm_open();

	errno = smpl_create_raw(fd, 0, name, &a, sizeof(a), NULL);
	if (errno)
		die("PFM_CREATE_CONTEXT with a format");
	return fd;
}

/*
 * smpl_sets NAME: on a context of format NAME, create set 1, then set 0
 * again; prints both errnos.
 */
static void sc_smpl_sets(int argc, char **argv)
{
	int fd = smpl_context(argc > 1 ? argv[1] : "default");
	struct pfarg_setdesc sd;
	int e1, e0;

	memset(&sd, 0, sizeof(sd));
	sd.set_id = 1;
	e1 = pfm_vec_call(fd, PFM_CREATE_EVTSETS, &sd, 1, sizeof(sd));
	memset(&sd, 0, sizeof(sd));
	e0 = pfm_vec_call(fd, PFM_CREATE_EVTSETS, &sd, 1, sizeof(sd));
	printf("set1 %s set0 %s\n", errname(e1), errname(e0));
}

/* smpl_hold NAME: hold a context of format NAME open until killed. */
static void sc_smpl_hold(int argc, char **argv)
{
	smpl_context(argc > 1 ? argv[1] : "default");
	printf("ready\n");
	fflush(stdout);
	for (;;)
		pause();
}

/* --- sampling with event sets ------------------------------------------- */

/* What smpl_switch expects and finds, sample after sample. */
struct switch_check {
	pid_t pid;
	long n0, n1;		/* the triggers' counts; n1 0: set 1 is timed */
	uint64_t *want;		/* ovfl:ovfl, the expected samples: set in
				 * bit 63, set 0's body value below */
	size_t nwant;
	uint64_t samples, bad, seq_bad, body_bad, runs_bad;
	uint64_t runs[2];	/* runs of samples of each set */
	int cur;		/* the set of the current run, -1 before */
	long len;		/* its length so far */
	uint64_t last_body;	/* set 0's body value in its last sample */
	int have_body;
};

/* A run of samples of set k of len samples ended (not the last one). */
static void switch_run_end(struct switch_check *k, int set, long len)
{
	if (set == 0 && (k->n1 ? len != k->n0 : len % k->n0))
		k->runs_bad++;
	if (set == 1 && k->n1 && len != k->n1)
		k->runs_bad++;
}

/* One sample of set `set` with set 0's body value v (set 0 only). */
static void switch_sample(struct switch_check *k, int set, uint64_t v)
{
	if (set != k->cur) {
		if (k->cur >= 0)
			switch_run_end(k, k->cur, k->len);
		k->cur = set;
		k->len = 0;
		k->runs[set]++;
	}
	if (set == 0) {
		/* a counted2() call between two of set 0's counted() calls
		 * of one activation, none from the trigger's overflow to the
		 * next activation (with a timed set 1: one or none) */
		if (k->have_body) {
			uint64_t d = v - k->last_body;

			if (k->len % k->n0 ? d != 1 : k->n1 ? d != 0 : d > 1)
				k->body_bad++;
		}
		k->last_body = v;
		k->have_body = 1;
	}
	if (k->want && (k->samples >= k->nwant ||
			k->want[k->samples] != ((uint64_t)set << 63 | (set ? 0 : v))))
		k->seq_bad++;
	k->len++;
	k->samples++;
}

/* Walk count samples of a buffer from byte start: each is decoded by
 * its set (set 0's samples carry one body value, set 1's none) and must
 * be at the function of its set's PMD0. */
static uint64_t switch_walk(struct switch_check *k, const void *buf,
			    uint64_t start, uint64_t count)
{
	const unsigned char *b = buf;
	uint64_t off = start;

	for (uint64_t i = 0; i < count; i++) {
		struct pfm_dfl_smpl_entry e;
		uint64_t v = 0;

		memcpy(&e, b + off, sizeof(e));
		off += ENTRY;
		if (e.set > 1) {
			k->bad++;
			break;		/* its size is unknown */
		}
		if (e.set == 0) {
			memcpy(&v, b + off, 8);
			off += 8;
		}
		if (e.pid != (uint32_t)k->pid || e.tid != (uint32_t)k->pid ||
		    e.ovfl_pmd != 0 || e.reserved1 || !e.tstamp ||
		    e.ip != (e.set ? (uintptr_t)counted2 : (uintptr_t)counted))
			k->bad++;
		switch_sample(k, e.set, v);
	}
	return off;
}

static void switch_walk_dfl(struct switch_check *k, const void *buf)
{
	const struct pfm_dfl_smpl_hdr *h = buf;

	if (switch_walk(k, buf, DFL_HDR, h->hdr_count) != h->hdr_cur_offs)
		k->bad++;
}

/*
 * smpl_switch N0 SET1 [CALLS [ENTRIES [MODE]]]: a default-format context
 * with two sets on a traced child that calls counted() and counted2()
 * in turn CALLS times (1000).  Set 0: PMD0 samples every counted() call
 * and is a trigger (OVFL_SWITCH after N0 overflows), PMD1 counts
 * counted2() and is in set 0's samples; set 1: PMD0 samples every
 * counted2() call; SET1 "ovfl:N1" makes it a trigger of N1 overflows,
 * "time:MS" switches it on a timeout of MS ms.  The buffer holds ENTRIES
 * of set 0's samples (all of them: 2 x CALLS); MODE "notify": with
 * OVFL_NOTIFY and PFM_FL_NOTIFY_BLOCK, each full buffer read and
 * restarted (the switch due at a sample that fills it waits for the
 * restart).  Prints: samples, bad ones (a set other than 0 and 1, a
 * sample not at its set's function, a wrong header), runs of each set
 * in the samples, runs of the wrong length (set 0: N0, set 1: N1; with a
 * timed set 1, set 0's runs are multiples of N0), set 0 body values not
 * telling that the switch came at the trigger's overflow, notifications,
 * lost and overflow counts, and with two triggers "seq" (the samples are
 * those of a simulation, in order) and "setruns" (the set_runs of both
 * sets are the simulation's).
 */
struct switch_walk_arg {
	struct switch_check *k;
	const void *buf;
};

static void switch_walk_notified(void *arg)
{
	struct switch_walk_arg *w = arg;

	switch_walk_dfl(w->k, w->buf);
}

static void sc_smpl_switch(int argc, char **argv)
{
	long n0 = arg_l(argc, argv, 1, 3);
	const char *set1 = argc > 2 ? argv[2] : "ovfl:2";
	long calls = arg_l(argc, argv, 3, 1000);
	long entries = arg_l(argc, argv, 4, 0);
	int notify = argc > 5 && !strcmp(argv[5], "notify");
	struct switch_check k = { .n0 = n0, .cur = -1 };
	long n1 = 0, ms = 0;
	uint64_t buf_size, wpmd1, wruns[2] = { 0, 0 };
	struct pfarg_setinfo si0, si1;
	struct pfarg_ctxinfo ci;
	struct pfarg_pmd p[2];
	struct smpl_ctx sc;
	struct notify_run r = { 0 };
	struct switch_walk_arg w = { &k, NULL };
	pid_t pid;

	if (!strncmp(set1, "ovfl:", 5))
		n1 = strtol(set1 + 5, NULL, 0);
	else if (!strncmp(set1, "time:", 5))
		ms = strtol(set1 + 5, NULL, 0);
	if (n0 < 1 || (n1 < 1 && ms < 1) || calls < 1)
		die("smpl_switch: N0 >= 1, ovfl:N1 or time:MS, CALLS >= 1");
	k.n1 = n1;
	if (entries < 1)
		entries = 2 * calls;
	buf_size = DFL_HDR + (uint64_t)(entries - 1) * (ENTRY + 8) + MAX_SAMPLE;
	smpl_open(&sc, notify ? PFM_FL_NOTIFY_BLOCK : 0, "default", buf_size, 0);

	if (set_create(sc.fd, 0, PFM_SETFL_OVFL_SWITCH, 0, NULL) ||
	    set_create(sc.fd, 1, n1 ? PFM_SETFL_OVFL_SWITCH : PFM_SETFL_TIME_SWITCH,
		       (uint64_t)ms * 1000000, NULL))
		die("sets");
	/* set 0: PMD0 samples counted(), PMD1 counts counted2() */
	if (pmc_set(sc.fd, 0, PFM_PMC_EXT1_BASE, (uintptr_t)counted) ||
	    pmc_set(sc.fd, 0, 0, EV_BP_COUNTED) ||
	    pmc_set(sc.fd, 0, PFM_PMC_EXT1_BASE + 1, (uintptr_t)counted2) ||
	    pmc_set(sc.fd, 0, 1, EV_BP_COUNTED) ||
	    pmc_set(sc.fd, 1, PFM_PMC_EXT1_BASE, (uintptr_t)counted2) ||
	    pmc_set(sc.fd, 1, 0, EV_BP_COUNTED))
		die("pmcs");
	for (int set = 0; set < 2; set++) {
		pmd_setup(&p[set], 0, -1ull);
		p[set].reg_set = (uint16_t)set;
		p[set].reg_flags = PFM_PMDFL_SMPL | PFM_PMDFL_SWITCH |
				   (notify ? PFM_PMDFL_OVFL_NOTIFY : 0);
		p[set].reg_short_reset = p[set].reg_long_reset = -1ull;
		p[set].reg_ovfl_switch_cnt = (uint64_t)(set ? n1 : n0);
	}
	p[0].reg_smpl_pmds[0] = 2;
	if (pfm_vec_call(sc.fd, PFM_WRITE_PMDS, p, 2, sizeof(p[0])))
		die("pmds");

	if (n1) {
		k.want = calloc((size_t)calls * 2 + 1, sizeof(*k.want));
		if (!k.want)
			die("calloc");
		k.nwant = pfm_switch_expect(k.want, calls, k.n0, k.n1, &wpmd1, wruns);
	}
	pid = start_traced(sc.fd, call_both, calls);
	k.pid = pid;
	w.buf = sc.buf;
	follow_notifications(sc.fd, switch_walk_notified, &w, &r);
	k.bad += r.bad;
	waitpid(pid, NULL, 0);
	if (!r.consumed)
		switch_walk_dfl(&k, sc.buf);
	ctxinfo(sc.fd, &ci);
	set_info(sc.fd, 0, &si0);
	set_info(sc.fd, 1, &si1);
	printf("end %d samples %llu bad %llu runs %llu %llu runs_bad %llu body_bad %llu notes %ld lost %llu ovfls %llu",
	       r.done, (unsigned long long)k.samples, (unsigned long long)k.bad,
	       (unsigned long long)k.runs[0], (unsigned long long)k.runs[1],
	       (unsigned long long)k.runs_bad, (unsigned long long)k.body_bad,
	       r.notes, (unsigned long long)ci.ctx_smpl_lost,
	       (unsigned long long)ci.ctx_smpl_ovfls);
	if (n1)
		printf(" seq %s setruns %s",
		       !k.seq_bad && k.samples == k.nwant ? "exact" : "differs",
		       si0.set_runs == wruns[0] && si1.set_runs == wruns[1] ?
		       "exact" : "differ");
	printf(" switch_pmds %llx\n", (unsigned long long)si0.set_ovfl_pmds[0]);
	if (k.samples != k.nwant && n1)
		fprintf(stderr, "expected %zu samples, set_runs %llu %llu (want %llu %llu)\n",
			k.nwant, (unsigned long long)si0.set_runs,
			(unsigned long long)si1.set_runs,
			(unsigned long long)wruns[0], (unsigned long long)wruns[1]);
}

static const struct scenario scenarios[] = {
	{ "smpl_create", sc_smpl_create },
	{ "fmts", sc_fmts },
	{ "smpl_uuid", sc_smpl_uuid },
	{ "smpl_sets", sc_smpl_sets },
	{ "smpl_hold", sc_smpl_hold },
	{ "smpl_mmap", sc_smpl_mmap },
	{ "smpl_bp", sc_smpl_bp },
	{ "smpl_switch", sc_smpl_switch },
	{ "sets_errors", sc_sets_errors },
	{ "sets_timeout", sc_sets_timeout },
	{ "sets_ovfl", sc_sets_ovfl },
	{ "ovfl_notify", sc_ovfl_notify },
	{ "ovfl_mask", sc_ovfl_mask },
	{ "ovfl_sim", sc_ovfl_sim },
	{ "ovfl_random", sc_ovfl_random },
	{ "ovfl_drop", sc_ovfl_drop },
	{ "ovfl_poll", sc_ovfl_poll },
	{ "restart_state", sc_restart_state },
	{ "before_create", sc_before_create },
	{ "create_twice", sc_create_twice },
	{ "create", sc_create },
	{ "start_unloaded", sc_start_unloaded },
	{ "load_twice", sc_load_twice },
	{ "load_busy_thread", sc_load_busy_thread },
	{ "load_fields", sc_load_fields },
	{ "load_pid", sc_load_pid },
	{ "load_child", sc_load_child },
	{ "pmcs_after_detach", sc_pmcs_after_detach },
	{ "start_flags", sc_start_flags },
	{ "stop_flags", sc_stop_flags },
	{ "pmc", sc_pmc },
	{ "pmc_ext3", sc_pmc_ext3 },
	{ "pmd", sc_pmd },
	{ "pmd_write", sc_pmd_write },
	{ "vec_partial", sc_vec_partial },
	{ "vec", sc_vec },
	{ "ioctl", sc_ioctl },
	{ "getinfo", sc_getinfo },
	{ "config", sc_config },
	{ "msg", sc_msg },
	{ "exit_midrun", sc_exit_midrun },
	{ "inherit_rules", sc_inherit_rules },
	{ "end_wake", sc_end_wake },
	{ "self", sc_self },
	{ "hold", sc_hold },
	{ "churn", sc_churn },
	{ "syswide", sc_syswide },
	{ "open_many", sc_open_many },
	{ "tw_pending", sc_tw_pending },
	{ "block_reload", sc_block_reload },
	{ "close_race", sc_close_race },
	{ "uffd_copy", sc_uffd_copy },
	{ "inherit_mask", sc_inherit_mask },
	{ "pidns", sc_pidns },
	{ "reattach", sc_reattach },
	{ "load_events", sc_load_events },
	{ "fault_loop", sc_fault_loop },
	{ "exec_start", sc_exec_start },
	{ "exec_cancel", sc_exec_cancel },
	{ "sets_create", sc_sets_create },
	{ "cpu_offline", sc_cpu_offline },
	{ "cpu_back_poll", sc_cpu_back_poll },
};

int main(int argc, char **argv)
{
	if (argc < 2) {
		fprintf(stderr, "usage: pfm_test SCENARIO [ARGS]\n");
		return 2;
	}
	for (size_t i = 0; i < sizeof(scenarios) / sizeof(scenarios[0]); i++) {
		if (!strcmp(argv[1], scenarios[i].name)) {
			scenarios[i].fn(argc - 1, argv + 1);
			return 0;
		}
	}
	fprintf(stderr, "pfm_test: unknown scenario '%s'\n", argv[1]);
	return 2;
}
