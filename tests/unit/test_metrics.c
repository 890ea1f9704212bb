/* Derived metrics from synthetic counts: present when every input was
 * counted, absent otherwise. */
#include "tap.h"

#include "events.h"
#include "metrics.h"

static struct px_event ev(const char *encoded)
{
	struct px_event e = { .kind = PX_EVENT_GENERIC };

	snprintf(e.name, sizeof(e.name), "%s", encoded);
	snprintf(e.encoded, sizeof(e.encoded), "%s", encoded);
	return e;
}

static const struct px_metric *find(const struct px_metric *m, size_t n,
				    const char *name)
{
	for (size_t i = 0; i < n; i++)
		if (!strcmp(m[i].name, name))
			return &m[i];
	return NULL;
}

static void test_ipc_cpi(void)
{
	struct px_event evs[2] = {
		ev("perf::PERF_COUNT_HW_CPU_CYCLES:u=1:k=1"),
		ev("perf::PERF_COUNT_HW_INSTRUCTIONS:u=1:k=1"),
	};
	double values[2] = { 2000000, 3000000 };
	bool counted[2] = { true, true };
	struct px_metric m[PX_METRICS_MAX];
	size_t n = px_metrics_compute(evs, values, counted, 2, 0, m);
	const struct px_metric *ipc = find(m, n, "IPC"), *cpi = find(m, n, "CPI");

	ok(ipc, "IPC from cycles and instructions");
	ok(cpi, "CPI from cycles and instructions");
	if (ipc)
		is_num(ipc->value, 1.5, 1e-12, "IPC = instructions / cycles");
	if (cpi)
		is_num(cpi->value, 2.0 / 3, 1e-12, "CPI = cycles / instructions");
	ok(!find(m, n, "CPUs-utilized"), "no elapsed time: no CPUs-utilized");

	counted[1] = false;
	n = px_metrics_compute(evs, values, counted, 2, 0, m);
	ok(!find(m, n, "IPC") && !find(m, n, "CPI"),
	   "instructions not counted: neither IPC nor CPI");
	is_int(n, 0, "no metric at all");

	counted[1] = true;
	n = px_metrics_compute(evs, values, counted, 1, 0, m);
	is_int(n, 0, "only cycles: no metric");

	counted[0] = true;
	values[0] = 0;
	n = px_metrics_compute(evs, values, counted, 2, 0, m);
	ok(!find(m, n, "IPC"), "zero cycles: IPC omitted, not infinite");
	ok(find(m, n, "CPI"), "zero cycles: CPI still 0 / instructions");
}

static void test_first_of_a_kind(void)
{
	struct px_event evs[3] = {
		ev("perf::PERF_COUNT_HW_CPU_CYCLES:u=1:k=0"),
		ev("perf::PERF_COUNT_HW_CPU_CYCLES:u=1:k=1"),
		ev("perf::PERF_COUNT_HW_INSTRUCTIONS:u=1:k=1"),
	};
	double values[3] = { 100, 400, 200 };
	bool counted[3] = { true, true, true };
	struct px_metric m[PX_METRICS_MAX];
	size_t n = px_metrics_compute(evs, values, counted, 3, 0, m);
	const struct px_metric *ipc = find(m, n, "IPC");

	ok(ipc, "IPC with two cycles events");
	if (ipc)
		is_num(ipc->value, 2.0, 1e-12, "the first cycles event is used");

	counted[0] = false;
	n = px_metrics_compute(evs, values, counted, 3, 0, m);
	ipc = find(m, n, "IPC");
	if (ok(ipc, "first cycles event not counted: the next one is used"))
		is_num(ipc->value, 0.5, 1e-12, "IPC from the second cycles event");
}

static void test_software(void)
{
	struct px_event evs[2] = {
		ev("perf::PERF_COUNT_SW_TASK_CLOCK:u=1:k=1"),
		ev("perf::PERF_COUNT_SW_PAGE_FAULTS:u=1:k=1"),
	};
	double values[2] = { 500000000, 12 };
	bool counted[2] = { true, true };
	struct px_metric m[PX_METRICS_MAX];
	size_t n = px_metrics_compute(evs, values, counted, 2, 1000000000, m);
	const struct px_metric *cpus = find(m, n, "CPUs-utilized");

	if (ok(cpus, "CPUs-utilized from task-clock and elapsed time"))
		is_num(cpus->value, 0.5, 1e-12, "0.5 s of task-clock in 1 s");
	ok(!find(m, n, "GHz"), "no cycles: no GHz");
	is_int(n, 1, "one metric only");

	n = px_metrics_compute(evs, values, counted, 2, 0, m);
	is_int(n, 0, "no elapsed time: no CPUs-utilized");
}

static void test_ratios(void)
{
	struct px_event evs[5] = {
		ev("perf::PERF_COUNT_HW_BRANCH_INSTRUCTIONS:u=1:k=1"),
		ev("perf::PERF_COUNT_HW_BRANCH_MISSES:u=1:k=1"),
		ev("perf::PERF_COUNT_HW_CACHE_REFERENCES:u=1:k=1"),
		ev("perf::PERF_COUNT_HW_CACHE_MISSES:u=1:k=1"),
		ev("perf::PERF_COUNT_HW_INSTRUCTIONS:u=1:k=1"),
	};
	double values[5] = { 1000, 50, 400, 100, 5000 };
	bool counted[5] = { true, true, true, true, true };
	struct px_metric m[PX_METRICS_MAX];
	size_t n = px_metrics_compute(evs, values, counted, 5, 0, m);
	const struct px_metric *x;

	if (ok(x = find(m, n, "branch-miss-ratio"), "branch-miss-ratio present"))
		is_num(x->value, 0.05, 1e-12, "branch misses / branches");
	if (ok(x = find(m, n, "cache-miss-ratio"), "cache-miss-ratio present"))
		is_num(x->value, 0.25, 1e-12, "cache misses / references");
	if (ok(x = find(m, n, "branch-rate"), "branch-rate present"))
		is_num(x->value, 0.2, 1e-12, "branches / instructions");
	ok(!find(m, n, "IPC"), "no cycles: no IPC");
}

static void test_key(void)
{
	struct px_event e = ev("skl::INST_RETIRED:ANY_P:e=0:u=1");
	char key[64];

	px_metric_key(&e, key, sizeof(key));
	is_str(key, "INST_RETIRED", "key drops the PMU and the modifiers");
	e = ev("PERF_COUNT_HW_CPU_CYCLES");
	px_metric_key(&e, key, sizeof(key));
	is_str(key, "PERF_COUNT_HW_CPU_CYCLES", "a bare name is its own key");
	px_metric_key(&e, key, 5);
	is_str(key, "PERF", "the key is truncated to the buffer");
}

int main(void)
{
	test_ipc_cpi();
	test_first_of_a_kind();
	test_software();
	test_ratios();
	test_key();
	return done_testing();
}
