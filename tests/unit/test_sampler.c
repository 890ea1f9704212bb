/* Sampling end to end on this machine: breakpoints give exact sample
 * counts, cpu-clock gives a profile to check attributions against. */
#include "tap.h"
#include "error.h"
#include "events.h"
#include "target.h"
#include "random.h"
#include "monitor.h"
#include "sampler.h"

#include <elf.h>
#include <errno.h>
#include <libgen.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static char calls[PATH_MAX], split[PATH_MAX], touch_pages[PATH_MAX], spin[PATH_MAX];

/* address and size of a function of a workload, through nm */
static int sym(const char *bin, const char *name, uint64_t *addr, uint64_t *size)
{
	char cmd[PATH_MAX + 64], line[512], n[256], t;
	unsigned long long a, s;
	FILE *p;

	snprintf(cmd, sizeof(cmd), "nm -S '%s'", bin);
	p = popen(cmd, "r");
	if (!p)
		return -1;
	while (fgets(line, sizeof(line), p))
		if (sscanf(line, "%llx %llx %c %255s", &a, &s, &t, n) == 4 &&
		    !strcmp(n, name)) {
			*addr = a;
			*size = s;
			pclose(p);
			return 0;
		}
	pclose(p);
	return -1;
}

struct tally {
	uint64_t n, ip_match, ip;
	uint64_t lo[2], hi[2], in[2];
	uint64_t last_value, value_steps_bad;
	uint64_t period_min, period_max, period_long, period_sum;
	uint64_t long_period;
	uint64_t distinct_mask;	/* which periods mod 64 were seen */
	int cpu_want, cpu_bad;
	uint64_t series[4096];	/* the first periods, in order */
};

static int count(void *arg, const struct px_sample *s)
{
	struct tally *t = arg;
	uint64_t period = -s->last_reset_val;

	if (t->n < sizeof(t->series) / sizeof(t->series[0]))
		t->series[t->n] = period;
	t->n++;
	t->ip_match += s->ip == t->ip;
	for (int i = 0; i < 2; i++)
		t->in[i] += s->ip >= t->lo[i] && s->ip < t->hi[i];
	if (s->nvalues) {
		if (t->n > 1 && s->values[0] != t->last_value + 1)
			t->value_steps_bad++;
		t->last_value = s->values[0];
	}
	t->period_sum += period;
	if (!t->period_min || period < t->period_min)
		t->period_min = period;
	if (period > t->period_max)
		t->period_max = period;
	t->period_long += period == t->long_period;
	t->distinct_mask |= 1ull << (period % 64);
	if (t->cpu_want >= 0 && s->cpu != t->cpu_want)
		t->cpu_bad++;
	return 0;
}

struct run_out {
	struct px_smpl_stats st;
	struct px_run run;
	uint64_t count0;	/* the first event's count over the run */
	size_t nmaps;
	int calls_mapped;
	int comm_exec;
	int ret;
};

/* The exact event: an execute breakpoint on counted_function where this
 * machine's debug registers work, else a uprobe on it (the "uprobe" perf
 * PMU counts the same calls exactly, through a trap instruction). */
static struct px_event exact_ev;
static char bp[64];
static uint64_t fn_addr;

static int parse(const char *spec, struct px_event *ev)
{
	if (!strcmp(spec, "EXACT")) {
		*ev = exact_ev;
		return 0;
	}
	return px_event_parse(spec, ev);
}

/* One sampling run of argv (or of every task on cpu while it runs) by
 * the session engine, as pfmon runs one: *out gets the unit's sampling
 * group (the caller closes it), *run how the command ended. */
static int sample_command(struct px_event *evs, size_t n, const struct px_smpl_pmd *pmds,
			  const struct px_smpl_opts *o, int cpu, char **argv,
			  struct px_group **out, struct px_run *run)
{
	struct px_event_set set = { evs, n };
	struct px_monitor_sampling sm = { .pmds = &pmds, .opts = *o };
	struct px_monitor_opts mo = {
		.backend = &px_backend_perf, .sets = &set, .nsets = 1, .sampling = &sm, .argv = argv,
		.system_wide = cpu >= 0, .cpus = cpu >= 0 ? &cpu : NULL, .ncpus = cpu >= 0,
	};
	struct px_monitor m;
	int ret = px_monitor_run(&mo, &m);

	*out = NULL;
	run->exit_code = m.exit_code;
	run->signal = m.signal;
	run->elapsed_ns = m.elapsed_ns;
	if (!ret && m.nunits == 1 && m.units[0].groups[0]) {
		*out = m.units[0].groups[0];
		m.units[0].groups[0] = NULL;	/* the caller's now */
	} else if (!ret) {
		ret = px_fail(EIO, "sampling opened no sampler");
	}
	px_monitor_free(&m);
	return ret;
}

static void sample(const char *const *specs, size_t n, const struct px_smpl_pmd *pmds,
		   struct px_smpl_opts *o, int cpu, char **argv, struct tally *t,
		   struct run_out *r)
{
	struct px_event evs[4];
	struct px_group *s = NULL;
	const struct px_mapping *m;
	const struct px_task_event *te;
	size_t nt;

	memset(r, 0, sizeof(*r));
	for (size_t i = 0; i < n; i++)
		if ((r->ret = parse(specs[i], &evs[i])))
			return;
	o->on_sample = count;
	o->arg = t;
	r->ret = sample_command(evs, n, pmds, o, cpu, argv, &s, &r->run);
	if (r->ret) {
		diag("sampling failed: %s", px_last_error());
		return;
	}
	px_group_stats(s, &r->st);
	{
		struct px_count c[4];

		if (!px_group_read(s, c))
			r->count0 = c[0].value;
	}
	r->nmaps = px_group_mappings(s, &m);
	for (size_t i = 0; i < r->nmaps; i++)
		r->calls_mapped += strstr(m[i].path, "workloads/calls") != NULL;
	nt = px_group_tasks(s, &te);
	for (size_t i = 0; i < nt; i++)
		r->comm_exec += te[i].kind == PX_TASK_COMM && te[i].exec;
	px_group_close(s);
}

static void exact(long calls_n, uint64_t period, enum px_smpl_format fmt)
{
	const char *specs[] = { "EXACT" };
	struct px_smpl_pmd pmd = { .long_period = period, .notify = true };
	struct px_smpl_opts o = { .format = fmt };
	char num[32];
	char *argv[] = { calls, num, NULL };
	struct tally t = { .ip = fn_addr, .cpu_want = -1 };
	struct run_out r;

	snprintf(num, sizeof(num), "%ld", calls_n);
	sample(specs, 1, &pmd, &o, -1, argv, &t, &r);
	is_int(r.ret, 0, "%s: sampling %ld calls at period %llu runs",
	       fmt ? "double-buffer" : "default", calls_n, (unsigned long long)period);
	is_int(t.n, calls_n / (long)period, "exactly N/P = %ld samples",
	       calls_n / (long)period);
	is_int(t.ip_match, t.n, "every sample at counted_function 0x%llx",
	       (unsigned long long)fn_addr);
	is_int(r.st.lost, 0, "no sample lost");
	is_int(r.run.exit_code, 0, "workload exit status 0");
}

static void small_buffer(void)
{
	const char *specs[] = { "EXACT" };
	struct px_smpl_pmd pmd = { .long_period = 1, .notify = true };
	struct px_smpl_opts o = { .entries = 100 };
	char *argv[] = { calls, "10000", NULL };
	struct tally t = { .ip = fn_addr, .cpu_want = -1 };
	struct run_out r;

	sample(specs, 1, &pmd, &o, -1, argv, &t, &r);
	is_int(t.n, 10000, "100-entry buffer, notifications: all 10000 samples reach the tool");
	is_int(r.st.samples, 10000, "10000 recorded");
	is_int(r.st.lost + r.st.dropped, 0, "nothing lost or dropped");
	is_int(r.st.notifications, 100, "100 notifications (one per full buffer)");
	is_int(r.st.restarts, 100, "100 restarts");
	ok(r.calls_mapped > 0, "the workload's mapping was recorded (%zu mappings)", r.nmaps);
	ok(r.comm_exec > 0, "the exec's COMM record was seen");

	/* saturation: no notification */
	pmd.notify = false;
	memset(&t, 0, sizeof(t));
	t.ip = fn_addr;
	t.cpu_want = -1;
	sample(specs, 1, &pmd, &o, -1, argv, &t, &r);
	is_int(t.n, 100, "saturation keeps exactly the buffer's 100 samples");
	is_int(r.st.samples, 100, "100 recorded");
	is_int(r.st.buffer_full, 1, "the buffer filled once");
	is_int(r.st.notifications, 0, "no notification");
	is_int(t.ip_match, 100, "all at counted_function");

	/* double-buffer with the same small buffer */
	pmd.notify = true;
	o.format = PX_SMPL_DOUBLE_BUFFER;
	memset(&t, 0, sizeof(t));
	t.ip = fn_addr;
	t.cpu_want = -1;
	sample(specs, 1, &pmd, &o, -1, argv, &t, &r);
	is_int(t.n, 10000, "double-buffer, 2 x 100 entries: all 10000 samples");
	is_int(r.st.lost + r.st.dropped + r.st.overwritten, 0, "double-buffer loses nothing");
	is_int(r.st.notifications, 100, "double-buffer: 100 half-full notifications");
}

static void body_values(void)
{
	const char *specs[] = { "EXACT", "EXACT" };
	struct px_smpl_pmd pmds[2] = {
		{ .long_period = 1, .notify = true, .smpl_pmds = 0x2 },
		{ 0 },
	};
	struct px_smpl_opts o = { 0 };
	char *argv[] = { calls, "3000", NULL };
	struct tally t = { .ip = fn_addr, .cpu_want = -1 };
	struct run_out r;

	sample(specs, 2, pmds, &o, -1, argv, &t, &r);
	is_int(t.n, 3000, "sampling PMD0 with PMD1 in the body: 3000 samples");
	is_int(t.value_steps_bad, 0, "PMD1's value steps by exactly 1 per sample");
	is_int(t.last_value, 3000, "PMD1 reads 3000 at the last sample");
}

/* Randomisation on cpu-clock, whose hrtimer takes a new period cleanly
 * (a software-counted event restarts its count at each period change, see
 * sampler.h): periods in [200000 - 0xffff, 200000] ns.  The samples'
 * periods add up to the task's clock over the run: not more (a change
 * restarts the period when the tool gets to it, so no period is shorter
 * than the one set), and not much less.  Compared within one run: the
 * task's clock varies from run to run (every change is an interrupt of
 * the task, charged to it, and what an interrupt costs a virtual machine
 * varies), so the counts of two runs do not compare. */
static void periods(void)
{
	const char *specs[] = { "EXACT" };
	const char *clk[] = { "cpu-clock" };
	struct px_smpl_pmd pmd = {
		.long_period = 200000, .random = true, .random_mask = 0xffff,
		.random_seed = 5, .notify = true,
	};
	struct px_smpl_opts o = { .entries = 50 };
	char *argv[] = { split, "1500", NULL };
	char *cargv[] = { calls, "20000", NULL };
	struct tally t = { .cpu_want = -1 };
	struct run_out r;

	sample(clk, 1, &pmd, &o, -1, argv, &t, &r);
	is_int(r.ret, 0, "randomised periods run");
	ok(t.period_sum <= r.count0 && t.period_sum > r.count0 / 2,
	   "the %llu samples' periods add up to %llu ns of the task's %llu ns clock",
	   (unsigned long long)t.n, (unsigned long long)t.period_sum,
	   (unsigned long long)r.count0);
	ok(t.period_min >= 200000 - 0xffff && t.period_max <= 200000,
	   "every period in [200000 - 0xffff, 200000]: saw [%llu, %llu]",
	   (unsigned long long)t.period_min, (unsigned long long)t.period_max);
	ok(__builtin_popcountll(t.distinct_mask) > 30, "periods vary (%d residues mod 64)",
	   __builtin_popcountll(t.distinct_mask));
	ok(r.st.period_changes > t.n / 2, "PERF_EVENT_IOC_PERIOD after overflows (%llu times)",
	   (unsigned long long)r.st.period_changes);

	/* long after a notification, short otherwise */
	struct px_smpl_pmd ls = { .long_period = 400, .short_period = 10, .notify = true };
	memset(&t, 0, sizeof(t));
	t.ip = fn_addr;
	t.cpu_want = -1;
	t.long_period = 400;
	sample(specs, 1, &ls, &o, -1, cargv, &t, &r);
	ok(t.period_long >= 1 && t.period_long < t.n / 2,
	   "long period used after start and restarts only: %llu of %llu samples",
	   (unsigned long long)t.period_long, (unsigned long long)t.n);
	ok(t.period_min == 10, "short period used between notifications");
}

/* The perfmon2 series of periods of a PMD: the first is the long
 * period, then the short one after each sample recorded without a
 * notification, the long one again after each restart (every `entries`
 * samples with notify); each randomised as base + (random & mask) on the
 * PMD value.  fill_series() gives them in order and returns how many
 * overflows `events` occurrences make. */
static size_t fill_series(const struct px_smpl_pmd *p, size_t entries,
			  uint64_t events, uint64_t *out, size_t cap)
{
	struct px_random rnd;
	uint64_t used = 0;
	size_t k = 0;

	if (p->random)
		px_random_seed(&rnd, p->random_seed);
	for (;;) {
		bool use_long = k == 0 || (p->notify && entries && k % entries == 0);
		uint64_t base = use_long || !p->short_period ? p->long_period
							     : p->short_period;
		uint64_t period = p->random ?
			-px_random_reset_value(&rnd, -base, p->random_mask) : base;

		if (used + period > events)
			return k;
		used += period;
		if (k < cap)
			out[k] = period;
		k++;
	}
}

static size_t series_mismatch(const struct tally *t, const uint64_t *want, size_t n)
{
	size_t cap = sizeof(t->series) / sizeof(t->series[0]);

	for (size_t i = 0; i < n && i < t->n && i < cap; i++)
		if (t->series[i] != want[i])
			return i + 1;
	return 0;
}

/* Randomised periods on an exact software-counted event (a breakpoint or
 * a uprobe): exactly the overflows and periods perfmon2's series gives,
 * the same for one seed in every run.  Before the task was stopped at
 * each overflow, 200000 calls gave about 25000 samples here, where
 * periods in [745, 1000] allow 200 to 269. */
static void random_exact(void)
{
	const char *specs[] = { "EXACT" };
	struct px_smpl_pmd pmd = {
		.long_period = 1000, .random = true, .random_mask = 0xff,
		.random_seed = 42, .notify = true,
	};
	struct px_smpl_opts o = { 0 };
	char *argv[] = { calls, "200000", NULL };
	static struct tally t, t2;
	static uint64_t want[4096];
	struct run_out r;
	size_t n = fill_series(&pmd, 4096, 200000, want, 4096), bad;

	t.ip = fn_addr;
	t.cpu_want = -1;
	sample(specs, 1, &pmd, &o, -1, argv, &t, &r);
	is_int(r.ret, 0, "randomised periods on %s run", exact_ev.name);
	is_int(t.n, n, "randomised periods: the %zu samples the series gives over 200000 calls",
	       n);
	bad = series_mismatch(&t, want, n);
	is_int(bad, 0, "every sample's period is the series' (first wrong: sample %zu)", bad);
	is_int(r.st.overflows, n, "overflows = %zu", n);
	t2.cpu_want = -1;
	sample(specs, 1, &pmd, &o, -1, argv, &t2, &r);
	ok(t2.n == t.n && !memcmp(t2.series, t.series, sizeof(t.series)),
	   "one seed, one series: a second run gives the same %llu periods",
	   (unsigned long long)t2.n);
}

/* Randomised periods on page faults: touching N fresh pages faults at
 * least N times (plus the loader's and libc's few hundred), so the
 * samples lie between N / 100 and (N + 1000) / (100 - 0x3f). */
static void random_page_faults(void)
{
	const char *specs[] = { "page-faults" };
	struct px_smpl_pmd pmd = {
		.long_period = 100, .random = true, .random_mask = 0x3f,
		.random_seed = 7, .notify = true,
	};
	struct px_smpl_opts o = { 0 };
	char *argv[] = { touch_pages, "20000", NULL };
	static struct tally t;
	struct run_out r;

	t.cpu_want = -1;
	sample(specs, 1, &pmd, &o, -1, argv, &t, &r);
	is_int(r.ret, 0, "randomised periods on page-faults run");
	ok(t.n >= 20000 / 100 && t.n <= 21000 / (100 - 0x3f),
	   "page faults of 20000 pages: %llu samples in [200, 567]",
	   (unsigned long long)t.n);
	ok(t.period_min >= 100 - 0x3f && t.period_max <= 100,
	   "periods in [37, 100]: saw [%llu, %llu]",
	   (unsigned long long)t.period_min, (unsigned long long)t.period_max);
}

/* A short period other than the long one, on the exact event: the long
 * one first and after each of the 50-sample buffer's restarts, the short
 * one otherwise, so 20000 calls make exactly the series' samples. */
static void short_long_exact(void)
{
	const char *specs[] = { "EXACT" };
	struct px_smpl_pmd pmd = { .long_period = 400, .short_period = 10, .notify = true };
	struct px_smpl_opts o = { .entries = 50 };
	char *argv[] = { calls, "20000", NULL };
	static struct tally t;
	static uint64_t want[4096];
	struct run_out r;
	size_t n = fill_series(&pmd, 50, 20000, want, 4096), bad;

	t.ip = fn_addr;
	t.cpu_want = -1;
	sample(specs, 1, &pmd, &o, -1, argv, &t, &r);
	is_int(t.n, n, "long 400 after each restart, short 10 otherwise: %zu samples", n);
	bad = series_mismatch(&t, want, n);
	is_int(bad, 0, "every period as the series has it (first wrong: sample %zu)", bad);
}

/* Every overflow is recorded or counted lost: overflows = recorded +
 * lost + dropped + overwritten, and an exact event's overflows are its
 * count over the period, in every format and mode. */
static void accounting(void)
{
	static const struct {
		const char *what;
		enum px_smpl_format format;
		bool notify, no_block, mask_when_full;
	} modes[] = {
		{ "default, notifications", PX_SMPL_DEFAULT, true, false, false },
		{ "default, saturation", PX_SMPL_DEFAULT, false, false, false },
		{ "default, not blocking", PX_SMPL_DEFAULT, true, true, false },
		{ "double-buffer", PX_SMPL_DOUBLE_BUFFER, true, false, false },
		{ "double-buffer, mask when full", PX_SMPL_DOUBLE_BUFFER, true, false, true },
	};
	const char *specs[] = { "EXACT" };
	char *argv[] = { calls, "30000", NULL };

	for (size_t m = 0; m < sizeof(modes) / sizeof(modes[0]); m++) {
		struct px_smpl_pmd pmd = { .long_period = 3, .notify = modes[m].notify };
		struct px_smpl_opts o = { .format = modes[m].format, .entries = 64,
					  .no_block = modes[m].no_block,
					  .mask_when_full = modes[m].mask_when_full };
		static struct tally t;
		struct run_out r;
		uint64_t sum;

		memset(&t, 0, sizeof(t));
		t.cpu_want = -1;
		sample(specs, 1, &pmd, &o, -1, argv, &t, &r);
		sum = r.st.samples + r.st.lost + r.st.dropped + r.st.overwritten;
		is_int(r.st.overflows, 10000, "%s: 10000 overflows for 30000 calls at period 3",
		       modes[m].what);
		is_int(sum, r.st.overflows,
		       "%s: recorded %llu + lost %llu + dropped %llu + overwritten %llu = overflows",
		       modes[m].what, (unsigned long long)r.st.samples,
		       (unsigned long long)r.st.lost, (unsigned long long)r.st.dropped,
		       (unsigned long long)r.st.overwritten);
		is_int(t.n, r.st.samples, "%s: the tool got every recorded sample",
		       modes[m].what);
	}
}

/* Nanoseconds task pid has run (/proc/PID/schedstat), or 0. */
static uint64_t run_ns(uint32_t pid)
{
	char path[64];
	unsigned long long ns = 0;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%u/schedstat", pid);
	f = fopen(path, "r");
	if (!f)
		return 0;
	if (fscanf(f, "%llu", &ns) != 1)
		ns = 0;
	fclose(f);
	return ns;
}

struct slow_tool {
	uint64_t n, waited, entries;
};

/* A tool slow to take its notifications: on the sample that fills each
 * of the first ten buffers (the tool has the buffer's samples as they are
 * recorded; the restart follows its last) it waits until the workload has
 * run 2 ms more (40 periods of 50 us), however loaded the machine is. */
static int slow_take(void *arg, const struct px_sample *x)
{
	struct slow_tool *t = arg;
	uint64_t start;

	if (++t->n % t->entries || t->waited >= 10)
		return 0;
	t->waited++;
	start = run_ns(x->pid);
	for (int i = 0; start && i < 5000 && run_ns(x->pid) < start + 2000000; i++)
		usleep(1000);
	return 0;
}

/* Not blocking (perfmon2's default): the samples taken while the tool
 * holds a full buffer fall in the mask and are dropped, each counted.
 * Event-driven: the tool waits for the workload's own progress, so the
 * blind spots exist on a busy machine too. */
static void blind_spot(void)
{
	const char *specs[] = { "cpu-clock" };
	struct px_smpl_pmd pmd = { .long_period = 50000, .notify = true };
	struct px_smpl_opts o = { .entries = 200, .no_block = true };
	char *argv[] = { spin, "400", NULL };
	struct slow_tool t = { .entries = 200 };
	struct px_event ev;
	struct px_group *s = NULL;
	struct px_smpl_stats st;
	struct px_run run;

	if (px_event_parse(specs[0], &ev)) {
		ok(0, "cpu-clock parses: %s", px_last_error());
		return;
	}
	o.on_sample = slow_take;
	o.arg = &t;
	if (sample_command(&ev, 1, &pmd, &o, -1, argv, &s, &run)) {
		ok(0, "not-blocking sampling runs: %s", px_last_error());
		return;
	}
	px_group_stats(s, &st);
	px_group_close(s);
	is_int(t.waited, 10, "the tool was slow on 10 notifications");
	ok(st.dropped >= 10, "not blocking: %llu samples dropped in the blind spots",
	   (unsigned long long)st.dropped);
	is_int(st.samples + st.lost + st.dropped + st.overwritten, st.overflows,
	       "recorded %llu + dropped %llu = overflows", (unsigned long long)st.samples,
	       (unsigned long long)st.dropped);
	is_int(t.n, st.samples, "the tool got every recorded sample");
}

static void profile(void)
{
	/* the command: user space only (on a loaded virtual machine a fifth
	 * of the task's time can be the kernel's, switching it in and out:
	 * samples at the hypervisor's irq-enable, none of the two
	 * functions); CPU 0: every level, since the command may run on the
	 * other CPU and leave CPU 0 to the kernel and other tasks */
	const char *specs[] = { "cpu-clock:u" }, *cpu_specs[] = { "cpu-clock" };
	struct px_smpl_pmd pmd = { .long_period = 100000, .notify = true };
	struct px_smpl_opts o = { 0 };
	char *argv[] = { split, "1500", NULL };
	struct tally t = { .cpu_want = -1 };
	struct run_out r;
	uint64_t a, sz;
	double share;

	sym(split, "heavy_function", &a, &sz);
	t.lo[0] = a;
	t.hi[0] = a + sz;
	sym(split, "light_function", &a, &sz);
	t.lo[1] = a;
	t.hi[1] = a + sz;
	sample(specs, 1, &pmd, &o, -1, argv, &t, &r);
	share = t.in[0] + t.in[1] ? 100.0 * (double)t.in[0] / (double)(t.in[0] + t.in[1]) : 0;
	ok(t.n > 1000, "cpu-clock every 100us: %llu samples", (unsigned long long)t.n);
	is_num(share, 70.0, 5.0, "heavy_function gets 70%% of the two functions' samples (%.1f%%)", share);
	ok(t.in[0] + t.in[1] > t.n * 9 / 10, "90%% of the samples in the two functions (%llu of %llu)",
	   (unsigned long long)(t.in[0] + t.in[1]), (unsigned long long)t.n);

	/* per-CPU: every task on CPU 0 while the command runs */
	memset(&t, 0, sizeof(t));
	t.cpu_want = 0;
	sample(cpu_specs, 1, &pmd, &o, 0, argv, &t, &r);
	if (r.ret == -EACCES || r.ret == -EPERM) {
		ok(1, "# SKIP per-CPU sampling needs privileges: %s", px_last_error());
		return;
	}
	is_int(r.ret, 0, "per-CPU sampling on CPU 0 runs");
	ok(t.n > 100, "per-CPU: %llu samples", (unsigned long long)t.n);
	is_int(t.cpu_bad, 0, "every sample from CPU 0");
}

static void errors(void)
{
	struct px_event ev;
	struct px_smpl_pmd pmd = { .long_period = 10, .random = true,
				   .random_mask = 0x3f, .random_seed = 0 };
	const struct px_smpl_pmd *pmds = &pmd;
	struct px_group_opts o = { .pmds = &pmds };
	struct px_target tg = { .pid = 0, .cpu = -1 };
	struct px_event_set set = { &ev, 1 };
	struct px_group *s;
	int status;

	ev = exact_ev;
	is_int(px_backend_perf.open(&set, 1, &tg, &o, &status, &s), -EINVAL,
	       "mask not below the period refused");
	pmd.long_period = 1000;
	is_int(px_backend_perf.open(&set, 1, &tg, &o, &status, &s), -EINVAL, "seed 0 refused");
	ok(strstr(px_last_error(), "seed") != NULL, "message: %s", px_last_error());
	pmd.random = false;
	pmd.long_period = 0;
	is_int(px_backend_perf.open(&set, 1, &tg, &o, &status, &s), -EINVAL,
	       "no sampling period refused");
	ok(s == NULL, "nothing opened");
}

static uint64_t file_offset(const char *bin, uint64_t addr)
{
	Elf64_Ehdr eh;
	Elf64_Phdr ph;
	FILE *f = fopen(bin, "rb");
	uint64_t off = 0;

	if (!f || fread(&eh, sizeof(eh), 1, f) != 1)
		goto out;
	for (int i = 0; i < eh.e_phnum; i++) {
		if (fseek(f, (long)(eh.e_phoff + (uint64_t)i * eh.e_phentsize), SEEK_SET) ||
		    fread(&ph, sizeof(ph), 1, f) != 1)
			break;
		if (ph.p_type == PT_LOAD && addr >= ph.p_vaddr &&
		    addr < ph.p_vaddr + ph.p_filesz)
			off = addr - ph.p_vaddr + ph.p_offset;
	}
out:
	if (f)
		fclose(f);
	return off;
}

/* Sample 100 calls with the breakpoint; when this machine's breakpoints
 * do not fire (virtualised debug registers), use a uprobe. */
static int choose_exact_event(void)
{
	static char path[PATH_MAX];
	struct px_smpl_pmd pmd = { .long_period = 1, .notify = true };
	struct px_smpl_opts o = { 0 };
	char *argv[] = { calls, "100", NULL };
	struct tally t = { .ip = fn_addr, .cpu_want = -1 };
	struct run_out r;
	const char *specs[] = { bp };
	FILE *f;
	int type = -1;

	if (px_event_parse(bp, &exact_ev) == 0) {
		sample(specs, 1, &pmd, &o, -1, argv, &t, &r);
		if (!r.ret && t.n == 100) {
			diag("exact event: breakpoint %s", bp);
			return 0;
		}
	}
	diag("the breakpoint %s gave %llu samples for 100 calls: hardware breakpoints do not fire on this machine; using a uprobe on counted_function",
	     bp, (unsigned long long)t.n);
	f = fopen("/sys/bus/event_source/devices/uprobe/type", "r");
	if (!f || fscanf(f, "%d", &type) != 1) {
		ok(0, "no uprobe PMU either: no exact event on this machine");
		return -1;
	}
	fclose(f);
	if (!realpath(calls, path))
		return -1;
	memset(&exact_ev, 0, sizeof(exact_ev));
	snprintf(exact_ev.name, sizeof(exact_ev.name), "uprobe:counted_function");
	exact_ev.type = (uint32_t)type;
	exact_ev.config1 = (uint64_t)(uintptr_t)path;
	exact_ev.config2 = file_offset(calls, fn_addr);
	exact_ev.priv_explicit = true;
	diag("exact event: uprobe %s+0x%llx", path, (unsigned long long)exact_ev.config2);
	return 0;
}

int main(int argc, char **argv)
{
	char self[PATH_MAX], *dir;
	uint64_t size;

	(void)argc;
	snprintf(self, sizeof(self), "%s", argv[0]);
	dir = dirname(self);
	snprintf(calls, sizeof(calls), "%s/../workloads/calls", dir);
	snprintf(split, sizeof(split), "%s/../workloads/split", dir);
	snprintf(touch_pages, sizeof(touch_pages), "%s/../workloads/touch_pages", dir);
	snprintf(spin, sizeof(spin), "%s/../workloads/spin", dir);
	if (sym(calls, "counted_function", &fn_addr, &size)) {
		ok(0, "cannot find counted_function in %s (make the workloads)", calls);
		return done_testing();
	}
	snprintf(bp, sizeof(bp), "mem:0x%llx:x", (unsigned long long)fn_addr);
	if (choose_exact_event())
		return done_testing();

	exact(10000, 1, PX_SMPL_DEFAULT);
	exact(7000, 7, PX_SMPL_DEFAULT);
	exact(10000, 1000, PX_SMPL_DEFAULT);
	exact(10000, 1, PX_SMPL_DOUBLE_BUFFER);
	exact(9999, 3, PX_SMPL_DOUBLE_BUFFER);
	small_buffer();
	body_values();
	periods();
	random_exact();
	random_page_faults();
	short_long_exact();
	accounting();
	blind_spot();
	profile();
	errors();
	return done_testing();
}
