/* smpl_ops [CALLS [ENTRIES]]: the module backend's sampling group through
 * the library's backend interface (backend.h), two event sets in one
 * context,
 * on a traced child that calls counted() and counted2() in turn CALLS
 * times (1000).  Set 0: a breakpoint on counted() samples every call and
 * switches the set out after 3 overflows, a breakpoint on counted2() only
 * counts and is in set 0's samples; set 1: a breakpoint on counted2()
 * samples every call and switches after 2.  The buffer holds ENTRIES
 * samples (16: many notifications, the child blocked in each).
 *
 * Prints one line of words the bats test asserts: the samples handed
 * over and the bad ones (a set other than 0 or 1, not at its set's
 * function, a body not of its set's size), runs of each set, runs of the
 * wrong length, whether the samples are those of a simulation in order
 * ("seq"), the statistics (overflows = samples, nothing lost), read()'s
 * count of set 0's counter against the simulation, both sets' enabled
 * and running times, read() and activations() against the context's
 * own PFM_READ_PMDS of the three PMDs, set 0's then set 1's, and
 * set_runs() against the simulation.  Built with the library (Makefile), run in the guest.
 * Exit status 0 when it ran, 3 when its set-up failed. */
#include "pfm_util.h"
#include "error.h"
#include "events.h"
#include "backend.h"
#include "scale.h"

#define N0 3
#define N1 2

struct check {
	pid_t pid;
	uint64_t *want;		/* set in bit 63, set 0's body value below */
	size_t nwant;
	uint64_t samples, bad, seq_bad, runs_bad;
	uint64_t runs[2];
	uint64_t per_set[2];	/* samples of each set */
	int cur;
	long len;
};

static int on_sample(void *arg, const struct px_sample *x)
{
	struct check *k = arg;
	uint64_t v = x->set == 0 && x->nvalues == 1 ? x->values[0] : 0;

	if (x->set > 1 || x->ovfl_pmd != 0 || x->pid != (uint32_t)k->pid ||
	    x->nvalues != (x->set ? 0u : 1u) ||
	    x->ip != (x->set ? (uintptr_t)counted2 : (uintptr_t)counted)) {
		k->bad++;
		return 0;
	}
	if (x->set != k->cur) {
		if (k->cur >= 0 && k->len != (k->cur ? N1 : N0))
			k->runs_bad++;
		k->cur = x->set;
		k->len = 0;
		k->runs[x->set]++;
	}
	if (k->samples >= k->nwant ||
	    k->want[k->samples] != ((uint64_t)x->set << 63 | v))
		k->seq_bad++;
	k->len++;
	k->samples++;
	k->per_set[x->set]++;
	return 0;
}

static void breakpoint(void (*fn)(void), struct px_event *ev)
{
	char spec[64];

	snprintf(spec, sizeof(spec), "mem:0x%lx:x", (unsigned long)(uintptr_t)fn);
	if (px_event_parse(spec, ev)) {
		fprintf(stderr, "%s\n", px_last_error());
		exit(3);
	}
}

/* read()'s counts and activations()' sums are the kernel's PMDs: set 0's
 * PMD0 and PMD1, then set 1's PMD0, read on the context's descriptor; a
 * sampling PMD's count is its event's over its set's turns. */
static void against_kernel(int fd, const struct px_count *counts,
			   const struct px_activations *acts,
			   bool *read_ok, bool *acts_ok)
{
	struct pfarg_pmd p[3];

	memset(p, 0, sizeof(p));
	p[1].reg_num = 1;
	p[2].reg_set = 1;
	*read_ok = *acts_ok = !pfm_vec_call(fd, PFM_READ_PMDS, p, 3, sizeof(p[0]));
	for (int i = 0; i < 3; i++) {
		bool whole = p[i].reg_act_time2_us != UINT64_MAX &&
			     p[i].reg_act_count2_ms != UINT64_MAX;

		uint64_t value = i == 1 ? p[i].reg_value : p[i].reg_act_count;

		if (counts[i].value != value ||
		    counts[i].enabled != p[i].reg_time_enabled ||
		    counts[i].running != p[i].reg_time_running)
			*read_ok = false;
		if (acts[i].t != (whole ? (double)p[i].reg_act_time : 0) ||
		    acts[i].c != (whole ? (double)p[i].reg_act_count : 0) ||
		    acts[i].t2 != (whole ? (double)p[i].reg_act_time2_us * 1e6 : 0))
			*acts_ok = false;
	}
}

static void failed(const char *what)
{
	fprintf(stderr, "%s: %s\n", what, px_last_error());
	exit(3);
}

int main(int argc, char **argv)
{
	long calls = argc > 1 ? atol(argv[1]) : 1000;
	long entries = argc > 2 ? atol(argv[2]) : 16;
	struct px_event ev0[2], ev1[1];
	struct px_smpl_pmd p0[2] = {
		{ .long_period = 1, .smpl_pmds = 2, .notify = true, .switch_ovfls = N0 },
		{ 0 },
	};
	struct px_smpl_pmd p1[1] = {
		{ .long_period = 1, .notify = true, .switch_ovfls = N1 },
	};
	struct px_event_set sets[2] = { { ev0, 2 }, { ev1, 1 } };
	const struct px_smpl_pmd *pmds[2] = { p0, p1 };
	struct check k = { .cur = -1 };
	struct px_group_opts o = {
		.switch_ns = 1000000,
		.pmds = pmds,
		.smpl = {
			.format = PX_SMPL_DEFAULT,
			.entries = (size_t)entries,
			.on_sample = on_sample,
			.arg = &k,
		},
	};
	struct px_target t = { .cpu = -1 };
	struct px_count counts[3];
	struct px_activations acts[3];
	struct px_smpl_stats st;
	uint64_t pmd1, wruns[2], runs[2];
	struct pollfd pfd;
	bool read_ok, acts_ok;
	struct px_group *s;
	int opened[3], status, ended = 0;

	if (calls < 1 || entries < 1)
		return 2;
	breakpoint(counted, &ev0[0]);
	breakpoint(counted2, &ev0[1]);
	breakpoint(counted2, &ev1[0]);
	k.want = calloc((size_t)calls * 2 + 1, sizeof(*k.want));
	if (!k.want)
		return 3;
	k.nwant = pfm_switch_expect(k.want, calls, N0, N1, &pmd1, wruns);

	t.pid = k.pid = spawn_traced(call_both, calls);
	if (px_backend_module.open(sets, 2, &t, &o, opened, &s))
		failed("open");
	if (px_group_enable(s))
		failed("enable");
	release_traced(t.pid);
	alarm(120);
	while (!ended) {
		if (px_group_poll(s, 100) < 0)
			failed("poll");
		ended = waitpid(t.pid, &status, WNOHANG) == t.pid;
	}
	if (px_group_finish(s))
		failed("finish");
	px_group_stats(s, &st);
	if (px_group_read(s, counts))
		failed("read");
	if (px_group_activations(s, acts))
		failed("activations");
	if (px_group_set_runs(s, runs, 2))
		failed("set_runs");
	if (px_group_pollfds(s, &pfd, 1) < 1)
		failed("pollfds");
	against_kernel(pfd.fd, counts, acts, &read_ok, &acts_ok);
	printf("samples %llu bad %llu runs %llu %llu runs_bad %llu seq %s",
	       (unsigned long long)k.samples, (unsigned long long)k.bad,
	       (unsigned long long)k.runs[0], (unsigned long long)k.runs[1],
	       (unsigned long long)k.runs_bad,
	       !k.seq_bad && k.samples == k.nwant ? "exact" : "differs");
	printf(" stats %s notes %s",
	       st.overflows == k.samples && !st.lost && !st.dropped ? "whole" : "lossy",
	       st.notifications ? "some" : "none");
	/* set 0's counter of counted2(): its calls while set 0 was active */
	/* period 1: each sampling event counted a sample per occurrence */
	printf(" evcount %s", counts[0].value == k.per_set[0] &&
	       counts[2].value == k.per_set[1] ? "exact" : "differs");
	printf(" count %s enabled %s read %s acts %s setruns %s\n",
	       counts[1].value == pmd1 ? "exact" : "differs",
	       counts[0].enabled && counts[1].enabled && counts[2].enabled ?
	       "both" : "missing",
	       read_ok ? "kernel's" : "differs",
	       acts_ok && acts[0].t > 0 && acts[2].t > 0 ? "kernel's" : "differ",
	       runs[0] == wruns[0] && runs[1] == wruns[1] ? "exact" : "differ");
	if (k.samples != k.nwant || counts[1].value != pmd1)
		fprintf(stderr, "expected %zu samples and count %llu, got count %llu; set_runs %llu %llu (want %llu %llu)\n",
			k.nwant, (unsigned long long)pmd1,
			(unsigned long long)counts[1].value,
			(unsigned long long)runs[0], (unsigned long long)runs[1],
			(unsigned long long)wruns[0], (unsigned long long)wruns[1]);
	px_group_close(s);
	free(k.want);
	return 0;
}
