#include "metrics.h"

#include <stdio.h>
#include <string.h>

/* Inputs, each with the names it has in libpfm4's generic perf table and
 * in the P6/x86 tables of the seeds' study. */
enum input {
	IN_CYCLES, IN_INSTRUCTIONS, IN_TASK_CLOCK, IN_ELAPSED,
	IN_BRANCHES, IN_BRANCH_MISSES, IN_CACHE_REFS, IN_CACHE_MISSES,
	IN_UOPS, IN_MEM_REFS, IN_DCU_LINES_IN, IN_DCU_MISS_OUT,
	IN_IFETCH, IN_IFETCH_MISS, IN_ITLB_MISS, IN_L2_RQSTS, IN_L2_LINES_IN,
	IN_STALLS, IN_FLOPS, IN_COUNT
};

static const char *const input_names[IN_COUNT][4] = {
	[IN_CYCLES] = { "PERF_COUNT_HW_CPU_CYCLES", "CPU_CLK_UNHALTED",
			"UNHALTED_CORE_CYCLES", NULL },
	[IN_INSTRUCTIONS] = { "PERF_COUNT_HW_INSTRUCTIONS", "INST_RETIRED",
			      "INSTRUCTION_RETIRED", "RETIRED_INSTRUCTIONS" },
	[IN_TASK_CLOCK] = { "PERF_COUNT_SW_TASK_CLOCK", NULL },
	[IN_ELAPSED] = { NULL },
	[IN_BRANCHES] = { "PERF_COUNT_HW_BRANCH_INSTRUCTIONS", "BR_INST_RETIRED",
			  "BRANCH_INSTRUCTIONS_RETIRED", NULL },
	[IN_BRANCH_MISSES] = { "PERF_COUNT_HW_BRANCH_MISSES", "BR_MISS_PRED_RETIRED",
			       "MISPREDICTED_BRANCH_RETIRED", NULL },
	[IN_CACHE_REFS] = { "PERF_COUNT_HW_CACHE_REFERENCES", NULL },
	[IN_CACHE_MISSES] = { "PERF_COUNT_HW_CACHE_MISSES", NULL },
	[IN_UOPS] = { "UOPS_RETIRED", NULL },
	[IN_MEM_REFS] = { "DATA_MEM_REFS", NULL },
	[IN_DCU_LINES_IN] = { "DCU_LINES_IN", NULL },
	[IN_DCU_MISS_OUT] = { "DCU_MISS_OUTSTANDING", NULL },
	[IN_IFETCH] = { "IFU_IFETCH", NULL },
	[IN_IFETCH_MISS] = { "IFU_IFETCH_MISS", NULL },
	[IN_ITLB_MISS] = { "ITLB_MISS", NULL },
	[IN_L2_RQSTS] = { "L2_RQSTS", NULL },
	[IN_L2_LINES_IN] = { "L2_LINES_IN", NULL },
	[IN_STALLS] = { "RESOURCE_STALLS", NULL },
	[IN_FLOPS] = { "FLOPS", NULL },
};

struct metric_def {
	const char *name;
	const char *desc;
	enum input num, den;
	double factor;
};

static const struct metric_def metric_defs[] = {
	{ "IPC", "instructions per cycle", IN_INSTRUCTIONS, IN_CYCLES, 1 },
	{ "CPI", "cycles per instruction", IN_CYCLES, IN_INSTRUCTIONS, 1 },
	{ "GHz", "cycles per nanosecond of task-clock", IN_CYCLES, IN_TASK_CLOCK, 1 },
	{ "CPUs-utilized", "task-clock per wall-clock time", IN_TASK_CLOCK, IN_ELAPSED, 1 },
	{ "branch-rate", "branches per instruction", IN_BRANCHES, IN_INSTRUCTIONS, 1 },
	{ "branch-miss-ratio", "mispredicted branches per branch", IN_BRANCH_MISSES, IN_BRANCHES, 1 },
	{ "cache-miss-ratio", "cache misses per cache reference", IN_CACHE_MISSES, IN_CACHE_REFS, 1 },
	{ "uops-per-instruction", "micro-ops retired per instruction", IN_UOPS, IN_INSTRUCTIONS, 1 },
	{ "mem-refs-per-instruction", "data memory references per instruction", IN_MEM_REFS, IN_INSTRUCTIONS, 1 },
	{ "l1d-miss-ratio", "L1 data lines in per memory reference", IN_DCU_LINES_IN, IN_MEM_REFS, 1 },
	{ "l1d-miss-latency", "cycles a L1 data miss is outstanding", IN_DCU_MISS_OUT, IN_DCU_LINES_IN, 1 },
	{ "l1i-miss-ratio", "instruction fetch misses per fetch", IN_IFETCH_MISS, IN_IFETCH, 1 },
	{ "itlb-misses-per-instruction", "ITLB misses per instruction", IN_ITLB_MISS, IN_INSTRUCTIONS, 1 },
	{ "l2-miss-ratio", "L2 lines in per L2 request", IN_L2_LINES_IN, IN_L2_RQSTS, 1 },
	{ "stall-fraction", "resource stall cycles per cycle", IN_STALLS, IN_CYCLES, 1 },
	{ "MFLOPS", "floating-point operations per microsecond of task-clock", IN_FLOPS, IN_TASK_CLOCK, 1000 },
};

void px_metric_key(const struct px_event *ev, char *key, size_t len)
{
	const char *start = strstr(ev->encoded, "::");
	size_t n;

	start = start ? start + 2 : ev->encoded;
	n = strcspn(start, ":");
	if (n >= len)
		n = len - 1;
	memcpy(key, start, n);
	key[n] = '\0';
}

static int input_of(const struct px_event *ev)
{
	char key[PX_EVENT_NAME_MAX];

	if (ev->kind != PX_EVENT_GENERIC || ev->kernel_dropped)
		return -1;
	px_metric_key(ev, key, sizeof(key));
	for (int in = 0; in < IN_COUNT; in++)
		for (int k = 0; k < 4 && input_names[in][k]; k++)
			if (!strcmp(key, input_names[in][k]))
				return in;
	return -1;
}

size_t px_metrics_compute(const struct px_event *evs, const double *values,
			  const bool *counted, size_t n, uint64_t elapsed_ns,
			  struct px_metric *out)
{
	double have[IN_COUNT];
	bool known[IN_COUNT] = { false };
	size_t count = 0;

	for (size_t i = 0; i < n; i++) {
		int in = input_of(&evs[i]);

		/* the first event of a kind is the one a metric uses */
		if (in >= 0 && counted[i] && !known[in]) {
			have[in] = values[i];
			known[in] = true;
		}
	}
	if (elapsed_ns) {
		have[IN_ELAPSED] = (double)elapsed_ns;
		known[IN_ELAPSED] = true;
	}
	for (size_t m = 0; m < sizeof(metric_defs) / sizeof(metric_defs[0]); m++) {
		const struct metric_def *d = &metric_defs[m];

		if (!known[d->num] || !known[d->den] || have[d->den] == 0)
			continue;
		out[count].name = d->name;
		out[count].desc = d->desc;
		out[count].value = d->factor * have[d->num] / have[d->den];
		count++;
	}
	return count;
}
