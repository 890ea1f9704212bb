/* cc_smpl: the module suite's call-chain tests, the callchain format
 * (formats/callchain/kernel/pfm_cc.c, perfmon_cc.ko) on cc_nest, whose
 * main() calls nest_a(), nest_b() and nest_leaf() with frame pointers,
 * the leaf taking one page fault per call; every page fault is sampled
 * (in mode sleep, where the leaf sleeps, every context switch).
 * Built with the library by `make all` (px_cc_read() reads the buffer,
 * lib/symbols resolves the frames), run in the guest.
 *
 *   cc_smpl args
 *	creates a callchain context with each bad argument (and a few good
 *	ones): one line "CASE ERRNO" each
 *   cc_smpl run MODE N [FORMAT [MAX_FRAMES [LEVELS]]]
 *	samples `cc_nest MODE N` through /dev/perfmon: FORMAT callchain
 *	(the default) or default, chains of MAX_FRAMES frames (127), page
 *	faults (context switches in mode sleep) at LEVELS u (user, the
 *	default) or uk (user and kernel)
 *   cc_smpl lib MODE N [fp|dwarf [MAX_FRAMES]]
 *	the same through the library's module backend, a sampling
 *	group in format PX_SMPL_CALLCHAIN
 *
 * run and lib print one line of words NAME=VALUE that the bats tests
 * assert (tally_print()).  A "leaf sample" is one whose first user frame
 * is in nest_leaf() (with the default format: whose ip is).  Exit status
 * 0 when it ran, 3 when its set-up failed. */
#include "pfm_util.h"
#include "callchain/px_cc.h"
#include "error.h"
#include "events.h"
#include "backend.h"
#include "symbols.h"

#include <poll.h>
#include <sys/mman.h>

#define KERNEL_START	0xffff800000000000ull
#define USER_END	0x0000800000000000ull
#define BUF_SIZE	(4u << 20)

static void failed(const char *what)
{
	fprintf(stderr, "%s: %s\n", what, px_last_error());
	exit(3);
}

/* --- the workload ----------------------------------------------------------- */

/* cc_nest MODE N, stopped under ptrace at its exec. */
static pid_t spawn_nest(const char *mode, long n)
{
	char arg[32];
	pid_t pid;
	int st;

	snprintf(arg, sizeof(arg), "%ld", n);
	pid = fork();
	if (pid < 0)
		die("fork");
	if (pid == 0) {
		if (ptrace(PTRACE_TRACEME, 0, NULL, NULL))
			_exit(120);
		execlp("cc_nest", "cc_nest", mode, arg, (char *)NULL);
		_exit(127);
	}
	if (waitpid(pid, &st, 0) != pid || !WIFSTOPPED(st))
		die("waitpid (cc_nest at its exec)");
	return pid;
}

/* --- what the samples say --------------------------------------------------- */

struct tally {
	struct px_symbols *sym;
	pid_t pid;
	bool cc;		/* callchain samples (else the default format's) */
	unsigned max_frames;
	const char *sysfn;	/* the system call the leaf makes, if any */
	long samples, bad, leaf, chain, kernel, kfirst, kcall, trunc, cut;
	long kall, ktrunc;	/* of all samples: with kernel frames, and
				 * those only kernel frames, truncated */
	int nuser, nframes;	/* of the leaf samples: -2 none yet, -1 mixed */
	uint64_t frame1;	/* of the leaf samples: the second user frame */
	char why[160];		/* the first bad sample */
};

static const char *func_of(struct tally *t, uint64_t pc)
{
	const struct px_location *loc;

	if (px_symbols_resolve(t->sym, pc, &loc))
		return "??";
	return loc->func;
}

static void note_bad(struct tally *t, const struct px_sample *x, const char *what)
{
	if (!t->bad)
		snprintf(t->why, sizeof(t->why),
			 "sample %ld: %s (ip 0x%llx, %u kernel and %u user frames, flags 0x%x)",
			 t->samples, what, (unsigned long long)x->ip, x->nr_kernel,
			 x->nr_user, x->cc_flags);
	t->bad++;
}

static void same(int *v, int now)
{
	if (*v == -2)
		*v = now;
	else if (*v != now)
		*v = -1;
}

/* The rules every chain follows (formats/README.md, "callchain"). */
static void check_chain(struct tally *t, const struct px_sample *x)
{
	unsigned nk = x->nr_kernel, n = nk + x->nr_user;

	if (n > t->max_frames)
		note_bad(t, x, "more frames than max_frames");
	else if ((x->cc_flags & PFM_CC_TRUNCATED) && n != t->max_frames)
		note_bad(t, x, "truncated short of max_frames");
	else if (n && x->frames[0] != x->ip)
		note_bad(t, x, "the first frame is not the ip");
	for (unsigned i = 0; i < nk; i++)
		if (x->frames[i] < KERNEL_START) {
			note_bad(t, x, "a kernel frame is not a kernel address");
			break;
		}
	/* the ip may be 0 (a thread that never ran in user space) */
	for (unsigned i = nk; i < n; i++)
		if (x->frames[i] >= USER_END || (i > nk && !x->frames[i])) {
			note_bad(t, x, "a user frame is not a user address");
			break;
		}
}

/* The first leaf sample's chain, for the reader of a test's output. */
static void show_chain(struct tally *t, const struct px_sample *x)
{
	fprintf(stderr, "chain (%u kernel, %u user frames, flags 0x%x):",
		x->nr_kernel, x->nr_user, x->cc_flags);
	for (unsigned i = 0; i < x->nr_kernel + x->nr_user; i++) {
		bool ret = i && i != x->nr_kernel;

		fprintf(stderr, " %s", func_of(t, x->frames[i] - ret));
	}
	fprintf(stderr, "\n");
}

/* A leaf sample: its user frames are nest_leaf's ip and the return
 * addresses into nest_b, nest_a and main (as many as were recorded). */
static void check_leaf(struct tally *t, const struct px_sample *x)
{
	static const char *const want[] = { "nest_leaf", "nest_b", "nest_a", "main" };
	unsigned nk = x->nr_kernel, nu = x->nr_user, room = t->max_frames - nk;
	bool ok = nu >= (room < 4 ? room : 4);

	if (!t->leaf++)
		show_chain(t, x);
	for (unsigned i = 0; ok && i < nu && i < 4; i++)
		ok = !strcmp(func_of(t, x->frames[nk + i] - (i ? 1 : 0)), want[i]);
	t->chain += ok;
	if (nk) {
		bool in = false;

		t->kernel++;
		t->kfirst += x->frames[0] == x->ip;
		for (unsigned i = 0; i < nk && !in && t->sysfn; i++)
			in = strstr(func_of(t, x->frames[i]), t->sysfn) != NULL;
		t->kcall += in;
	}
	t->trunc += !!(x->cc_flags & PFM_CC_TRUNCATED);
	t->cut += !!(x->cc_flags & PFM_CC_USER_CUT);
	same(&t->nuser, (int)nu);
	same(&t->nframes, (int)(nk + nu));
	if (nu > 1)
		t->frame1 = x->frames[nk + 1];
}

static int on_sample(void *arg, const struct px_sample *x)
{
	struct tally *t = arg;

	if (x->pid != (uint32_t)t->pid || x->tid != (uint32_t)t->pid)
		note_bad(t, x, "not the workload's");
	if (!t->cc) {
		if (!strcmp(func_of(t, x->ip), "nest_leaf"))
			t->leaf++;
	} else {
		check_chain(t, x);
		if (x->nr_kernel) {
			t->kall++;
			t->ktrunc += (x->cc_flags & PFM_CC_TRUNCATED) &&
				     !x->nr_user && x->nr_kernel == t->max_frames;
		}
		if (x->nr_user && !strcmp(func_of(t, x->frames[x->nr_kernel]),
					  "nest_leaf"))
			check_leaf(t, x);
	}
	t->samples++;
	return 0;
}

static void tally_init(struct tally *t, pid_t pid, const char *mode, bool cc,
		       unsigned max_frames)
{
	struct px_symbols_opts so = { .functions_only = true };
	struct px_maps maps = { 0 };

	memset(t, 0, sizeof(*t));
	t->pid = pid;
	t->cc = cc;
	t->max_frames = max_frames;
	t->nuser = t->nframes = -2;
	t->sysfn = !strcmp(mode, "read") ? "read" :
		   !strcmp(mode, "sleep") ? "nanosleep" : NULL;
	/* the static workload's every mapping is there at its exec stop */
	if (px_maps_snapshot(&maps, pid) || px_symbols_open_maps(&t->sym, &maps, &so))
		failed("symbols of cc_nest");
	px_maps_free(&maps);
}

static void tally_print(struct tally *t)
{
	printf("samples=%ld bad=%ld leaf=%ld", t->samples, t->bad, t->leaf);
	if (t->cc)
		printf(" chain=%ld kernel=%ld kfirst=%ld kcall=%ld trunc=%ld cut=%ld nuser=%d nframes=%d frame1=0x%llx kall=%ld ktrunc=%ld",
		       t->chain, t->kernel, t->kfirst, t->kcall, t->trunc,
		       t->cut, t->nuser, t->nframes,
		       (unsigned long long)t->frame1, t->kall, t->ktrunc);
	if (t->bad)
		fprintf(stderr, "%s\n", t->why);
	px_symbols_free(t->sym);
}

/* --- through /dev/perfmon --------------------------------------------------- */

static int cc_create(int fd, const struct pfm_cc_smpl_arg *a, size_t size,
		     uint64_t *map)
{
	struct pfarg_ctx c;
	int e;

	memset(&c, 0, sizeof(c));
	c.ctx_flags = PFM_FL_SMPL_FMT;
	c.ctx_smpl_name = (uintptr_t)PFM_CC_SMPL_NAME;
	c.ctx_smpl_arg = (uintptr_t)a;
	c.ctx_smpl_arg_size = size;
	e = xioctl(fd, PFM_CREATE_CONTEXT, &c);
	if (map)
		*map = c.ctx_smpl_buf_size;
	return e;
}

static void cmd_args(void)
{
	/* the smallest buffer for 127 frames: the header and one sample of
	 * the entry, 64 PMDs and 127 frames */
	const uint64_t min = 40 + 56 + 8 * 64 + 8 * 127;
	static const struct {
		const char *name;
		uint32_t flags;
		uint16_t frames;
		uint32_t stack;
		uint16_t res1;
		uint32_t res2;
		int64_t size;		/* from min; 0: 1 MiB */
		size_t arg_size;	/* 0: exact */
	} rows[] = {
		{ "ok", 3, 127, 0, 0, 0, 0, 0 },
		{ "kernel-only", 1, 127, 0, 0, 0, 0, 0 },
		{ "user-only", 2, 127, 0, 0, 0, 0, 0 },
		{ "frames-1", 3, 1, 0, 0, 0, 0, 0 },
		{ "frames-512", 3, 512, 0, 0, 0, 0, 0 },
		{ "buf-min", 3, 127, 0, 0, 0, -1, 0 },
		{ "no-flags", 0, 127, 0, 0, 0, 0, 0 },
		{ "unknown-flag", 3 | 0x8, 127, 0, 0, 0, 0, 0 },
		{ "high-flag", 3 | 0x80000000u, 127, 0, 0, 0, 0, 0 },
		{ "user-stack", 2 | PFM_CC_SMPL_USER_STACK, 127, 8192, 0, 0, 0, 0 },
		{ "user-stack-only", PFM_CC_SMPL_USER_STACK, 127, 8192, 0, 0, 0, 0 },
		{ "user-stack-no-bytes", 3 | PFM_CC_SMPL_USER_STACK, 127, 0, 0, 0, 0, 0 },
		{ "frames-0", 3, 0, 0, 0, 0, 0, 0 },
		{ "frames-513", 3, 513, 0, 0, 0, 0, 0 },
		{ "frames-65535", 3, 65535, 0, 0, 0, 0, 0 },
		{ "stack-bytes", 3, 127, 8, 0, 0, 0, 0 },
		{ "reserved1", 3, 127, 0, 1, 0, 0, 0 },
		{ "reserved2", 3, 127, 0, 0, 0x80000000u, 0, 0 },
		{ "buf-small", 3, 127, 0, 0, 0, -2, 0 },
		{ "buf-odd", 3, 127, 0, 0, 0, -3, 0 },
		{ "buf-zero", 3, 127, 0, 0, 0, -4, 0 },
		{ "buf-huge", 3, 127, 0, 0, 0, -5, 0 },
		{ "arg-short", 3, 127, 0, 0, 0, 0, 16 },
		{ "arg-long", 3, 127, 0, 0, 0, 0, 32 },
	};

	for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		struct { struct pfm_cc_smpl_arg a; uint64_t pad; } arg;
		uint64_t map = 0;
		int fd = pfm_open(), e;

		memset(&arg, 0, sizeof(arg));
		arg.a.buf_flags = rows[i].flags;
		arg.a.max_frames = rows[i].frames;
		arg.a.stack_bytes = rows[i].stack;
		arg.a.reserved1 = rows[i].res1;
		arg.a.reserved2 = rows[i].res2;
		switch (rows[i].size) {
		case -1: arg.a.buf_size = min; break;
		case -2: arg.a.buf_size = min - 8; break;
		case -3: arg.a.buf_size = (1 << 20) + 4; break;
		case -4: arg.a.buf_size = 0; break;
		case -5: arg.a.buf_size = 1ull << 40; break;
		default: arg.a.buf_size = 1 << 20; break;
		}
		e = cc_create(fd, &arg.a, rows[i].arg_size ? rows[i].arg_size :
					  sizeof(arg.a), &map);
		printf("%s %s", rows[i].name, errname(e));
		if (!e)
			printf(" %llu", (unsigned long long)map);
		printf("\n");
		close(fd);
	}
}

/* PMC0 page faults (context switches for mode sleep) at levels, PMD0
 * samples each one. */
static void program_event(int fd, const char *mode, const char *levels)
{
	uint64_t lv = PFM_PMC_USR | (strchr(levels, 'k') ? PFM_PMC_OS : 0);
	unsigned config = strcmp(mode, "sleep") ? 2 : 3;
	struct pfarg_pmd p;

	memset(&p, 0, sizeof(p));
	p.reg_flags = PFM_PMDFL_SMPL;
	p.reg_value = p.reg_short_reset = p.reg_long_reset = -1ull;
	if (pfm_pmc(fd, 0, PFM_PMC_VIRT_EVENT(PFM_EVT_TYPE_SOFTWARE, config, lv)) ||
	    pfm_vec_call(fd, PFM_WRITE_PMDS, &p, 1, sizeof(p)))
		die("program the event");
}

static void cmd_run(int argc, char **argv)
{
	const char *mode = argv[2];
	long n = atol(argv[3]);
	const char *fmt = argc > 4 ? argv[4] : "callchain";
	unsigned max_frames = argc > 5 ? (unsigned)atol(argv[5]) : 127;
	const char *levels = argc > 6 ? argv[6] : "u";
	bool cc = !strcmp(fmt, "callchain");
	struct pfm_cc_smpl_arg ca = {
		.buf_size = BUF_SIZE, .buf_flags = PFM_CC_SMPL_KERNEL | PFM_CC_SMPL_USER,
		.max_frames = (uint16_t)max_frames,
	};
	struct pfm_dfl_smpl_arg da = { .buf_size = BUF_SIZE };
	struct pfarg_ctxinfo ci;
	struct pfarg_ctx c;
	struct tally t;
	int fd = pfm_open(), st, r;
	void *buf;
	pid_t pid;

	memset(&c, 0, sizeof(c));
	c.ctx_flags = PFM_FL_SMPL_FMT;
	c.ctx_smpl_name = (uintptr_t)fmt;
	c.ctx_smpl_arg = cc ? (uintptr_t)&ca : (uintptr_t)&da;
	c.ctx_smpl_arg_size = cc ? sizeof(ca) : sizeof(da);
	if (ioctl(fd, PFM_CREATE_CONTEXT, &c))
		die("PFM_CREATE_CONTEXT");
	buf = mmap(NULL, c.ctx_smpl_buf_size, PROT_READ, MAP_SHARED, fd, 0);
	if (buf == MAP_FAILED)
		die("mmap");
	program_event(fd, mode, levels);
	pid = spawn_nest(mode, n);
	tally_init(&t, pid, mode, cc, max_frames);
	if (pfm_load_pid(fd, pid, 0) || pfm_start(fd))
		die("load/start");
	release_traced(pid);
	alarm(120);
	if (waitpid(pid, &st, 0) != pid || !WIFEXITED(st) || WEXITSTATUS(st))
		die("cc_nest did not end well");
	r = cc ? px_cc_read(buf, c.ctx_smpl_buf_size, on_sample, &t) :
		 px_dfl_read(buf, c.ctx_smpl_buf_size, NULL, NULL, on_sample, &t);
	if (r)
		failed("reading the buffer");
	memset(&ci, 0, sizeof(ci));
	if (ioctl(fd, PFM_GETINFO_CTX, &ci))
		die("PFM_GETINFO_CTX");
	tally_print(&t);
	printf(" ovfls=%llu lost=%llu\n", (unsigned long long)ci.ctx_smpl_ovfls,
	       (unsigned long long)ci.ctx_smpl_lost);
}

/* --- through the library ------------------------------------------------------ */

static void cmd_lib(int argc, char **argv)
{
	const char *mode = argv[2];
	long n = atol(argv[3]);
	bool dwarf = argc > 4 && !strcmp(argv[4], "dwarf");
	unsigned max_frames = argc > 5 ? (unsigned)atol(argv[5]) : 0;
	struct px_smpl_pmd pmd = { .long_period = 1, .notify = true };
	const struct px_smpl_pmd *pmds = &pmd;
	struct tally t;
	struct px_group_opts o = {
		.pmds = &pmds,
		.smpl = {
			.format = PX_SMPL_CALLCHAIN,
			.callgraph = dwarf ? PX_CALLGRAPH_DWARF : PX_CALLGRAPH_FP,
			.max_frames = max_frames,
			.entries = 2,		/* notifications on the way */
			.on_sample = on_sample,
			.arg = &t,
		},
	};
	struct px_target tg = { .cpu = -1 };
	struct px_smpl_stats st;
	struct px_event ev;
	struct px_event_set set = { &ev, 1 };
	int opened, status, ended = 0, ret;
	struct px_group *s;

	if (px_event_parse("page-faults:u", &ev))
		failed("page-faults:u");
	tg.pid = spawn_nest(mode, n);
	tally_init(&t, tg.pid, mode, true,
		   max_frames ? max_frames : PX_CALLGRAPH_MAX_FRAMES);
	if ((ret = px_backend_module.open(&set, 1, &tg, &o, &opened, &s))) {
		printf("open %s: %s\n", errname(-ret), px_last_error());
		kill(tg.pid, SIGKILL);
		waitpid(tg.pid, NULL, 0);
		px_symbols_free(t.sym);
		return;
	}
	if (px_group_enable(s))
		failed("enable");
	release_traced(tg.pid);
	alarm(120);
	while (!ended) {
		if (px_group_poll(s, 100) < 0)
			failed("poll");
		ended = waitpid(tg.pid, &status, WNOHANG) == tg.pid;
	}
	if (px_group_finish(s))
		failed("finish");
	px_group_stats(s, &st);
	tally_print(&t);
	printf(" overflows=%llu lost=%llu dropped=%llu notifications=%llu\n",
	       (unsigned long long)st.overflows, (unsigned long long)st.lost,
	       (unsigned long long)st.dropped,
	       (unsigned long long)st.notifications);
	px_group_close(s);
}

int main(int argc, char **argv)
{
	if (argc > 1 && !strcmp(argv[1], "args")) {
		cmd_args();
		return 0;
	}
	if (argc > 3 && !strcmp(argv[1], "run")) {
		cmd_run(argc, argv);
		return 0;
	}
	if (argc > 3 && !strcmp(argv[1], "lib")) {
		cmd_lib(argc, argv);
		return 0;
	}
	fprintf(stderr, "usage: cc_smpl args | run MODE N [FORMAT [MAX_FRAMES [LEVELS]]] | lib MODE N [fp|dwarf [MAX_FRAMES]]\n");
	return 2;
}
