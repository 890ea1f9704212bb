/* pfmon: count events per thread or per CPU, with event sets multiplexed
 * and scaled; pfmon's (perfmon2) option names. */
#include <errno.h>
#include <popt.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backend.h"
#include "cli.h"
#include "cpulist.h"
#include "error.h"
#include "events.h"
#include "listing.h"
#include "mon_report.h"
#include "monitor.h"
#include "outfile.h"
#include "smpl_report.h"
#include "smpl_session.h"
#include "target.h"


enum {
	OPT_EVENTS = 'e', OPT_BASE = 1000,	/* the long-only options count from here */
	OPT_FOLLOW_FORK, OPT_FOLLOW_VFORK, OPT_FOLLOW_PTHREAD, OPT_FOLLOW_EXEC,
	OPT_FOLLOW_ALL, OPT_US, OPT_EU, OPT_HEX, OPT_SMPL_INFO,
	OPT_LONG_PERIODS, OPT_SHORT_PERIODS, OPT_RANDOM, OPT_SWITCH_OVFLS,
};

struct options {
	struct px_event_set *sets;
	size_t nsets;
	char *backend, *outfile, *cpu_list, *priv_levels, *separator;
	int switch_ms, session_timeout, attach_pid, print_interval;
	int system_wide, aggregate, append, json, user, kernel, verbose;
	int info, list, long_list, check_only;
	unsigned follow;
	enum px_counter_format format;
	struct px_smpl_spec smpl;
	char *smpl_outfile;
	int saturate, no_block, resolve, profile_lines, profile_inlined, profile_top;
	int profile_callers;
	char *folded, *flamegraph, *pprof, *perf_script, *speedscope;
	const char *profile_by;
};

static __attribute__((noreturn)) void usage_error(const char *msg)
{
	cli_usage_error("pfmon", "%s", msg);
}

/* The sampling options of the last -e so far (the first set's before
 * any -e). */
static struct px_smpl_set_spec *set_spec(struct options *o)
{
	size_t want = o->nsets ? o->nsets : 1;

	if (o->smpl.nsets < want) {
		struct px_smpl_set_spec *g = realloc(o->smpl.sets, want * sizeof(*g));

		if (!g)
			usage_error("out of memory");
		memset(g + o->smpl.nsets, 0, (want - o->smpl.nsets) * sizeof(*g));
		o->smpl.sets = g;
		o->smpl.nsets = want;
	}
	return &o->smpl.sets[want - 1];
}

/* A per-set sampling option: it belongs to the -e before it. */
static void set_option(struct options *o, const char **field, const char *name,
		       const char *value)
{
	char msg[160];

	if (*field) {
		snprintf(msg, sizeof(msg), "--%s given twice for event set %zu: give it once after each -e",
			 name, o->nsets ? o->nsets - 1 : 0);
		usage_error(msg);
	}
	*field = value;
}

static void add_set(struct options *o, const char *list)
{
	struct px_event_set *grown = realloc(o->sets, (o->nsets + 1) * sizeof(*grown));

	if (!grown)
		usage_error("out of memory");
	o->sets = grown;
	memset(&o->sets[o->nsets], 0, sizeof(o->sets[0]));
	if (px_event_parse_list(list, &o->sets[o->nsets].events, &o->sets[o->nsets].n)) {
		fprintf(stderr, "pfmon: %s\n", px_last_error());
		exit(EXIT_USAGE);
	}
	o->nsets++;
}

/* -e's list, which popt hands over to be freed */
static void add_set_arg(struct options *o, char *list)
{
	add_set(o, list ? list : "");
	free(list);
}

static struct poptOption *option_table(struct options *o)
{
	static struct poptOption table[64];
	struct poptOption t[] = {
		{ "events", 'e', POPT_ARG_STRING, NULL, OPT_EVENTS,
		  "one event set: a comma list of events (repeat -e for more sets, multiplexed)", "EV,..." },
		{ "switch-timeout", 0, POPT_ARG_INT, &o->switch_ms, 0,
		  "switch event sets every MS milliseconds (default 100)", "MS" },
		{ "system-wide", 0, POPT_ARG_NONE, &o->system_wide, 0,
		  "count every task on the CPUs of --cpu-list", NULL },
		{ "cpu-list", 0, POPT_ARG_STRING, &o->cpu_list, 0,
		  "CPUs for --system-wide, e.g. 0,2-3 (default: all online)", "LIST" },
		{ "aggregate-results", 0, POPT_ARG_NONE, &o->aggregate, 0,
		  "print totals over all threads or CPUs", NULL },
		{ "follow-fork", 0, POPT_ARG_NONE, NULL, OPT_FOLLOW_FORK, "also count child processes", NULL },
		{ "follow-vfork", 0, POPT_ARG_NONE, NULL, OPT_FOLLOW_VFORK, "also count vfork children", NULL },
		{ "follow-pthread", 0, POPT_ARG_NONE, NULL, OPT_FOLLOW_PTHREAD, "also count new threads", NULL },
		{ "follow-exec", 0, POPT_ARG_NONE, NULL, OPT_FOLLOW_EXEC,
		  "keep counting a task after it executes another program", NULL },
		{ "follow-all", 0, POPT_ARG_NONE, NULL, OPT_FOLLOW_ALL, "all of the --follow options", NULL },
		{ "attach-task", 0, POPT_ARG_INT, &o->attach_pid, 0,
		  "count a running task until it exits or Ctrl-C, then detach", "PID" },
		{ "session-timeout", 0, POPT_ARG_INT, &o->session_timeout, 0,
		  "stop counting after SECONDS", "SECONDS" },
		{ "user-level", 'u', POPT_ARG_NONE, &o->user, 0, "count at user level (default: user and kernel)", NULL },
		{ "kernel-level", 'k', POPT_ARG_NONE, &o->kernel, 0, "count at kernel level", NULL },
		{ "priv-levels", 0, POPT_ARG_STRING, &o->priv_levels, 0,
		  "privilege levels per event, in order: u, k or uk each", "L,..." },
		{ "print-interval", 0, POPT_ARG_INT, &o->print_interval, 0,
		  "also print each event's change every MS milliseconds", "MS" },
		{ "long-smpl-periods", 0, POPT_ARG_STRING, NULL, OPT_LONG_PERIODS,
		  "sample: the period of each sampling event of the -e before, in order, after a notification", "N,..." },
		{ "short-smpl-periods", 0, POPT_ARG_STRING, NULL, OPT_SHORT_PERIODS,
		  "sampling periods after a sample recorded without notification", "N,..." },
		{ "smpl-periods-random", 0, POPT_ARG_STRING, NULL, OPT_RANDOM,
		  "randomise each sampling event's periods: period - (random & MASK)", "MASK:SEED,..." },
		{ "switch-ovfls", 0, POPT_ARG_STRING, NULL, OPT_SWITCH_OVFLS,
		  "end the turn of the -e before after N overflows of its sampling event, instead of --switch-timeout", "N,..." },
		{ "smpl-entries", 0, POPT_ARG_LONG, &o->smpl.entries, 0,
		  "sampling buffer capacity in samples (default 4096)", "N" },
		{ "smpl-module", 0, POPT_ARG_STRING, &o->smpl.module, 0,
		  "sampling format: default or double-buffer", "NAME" },
		{ "smpl-module-info", 0, POPT_ARG_NONE, NULL, OPT_SMPL_INFO,
		  "describe the sampling formats and exit", NULL },
		{ "smpl-saturate", 0, POPT_ARG_NONE, &o->saturate, 0,
		  "no notification: keep the first full buffer, count the rest as lost", NULL },
		{ "no-overflow-block", 0, POPT_ARG_NONE, &o->no_block, 0,
		  "do not hold the command while pfmon takes a full buffer: samples it takes meanwhile are lost (perfmon2's default)", NULL },
		{ "smpl-outfile", 0, POPT_ARG_STRING, &o->smpl_outfile, 0,
		  "write every sample to FILE (JSON Lines with --json)", "FILE" },
		{ "resolve-addresses", 0, POPT_ARG_NONE, &o->resolve, 0,
		  "give each sample its module, function+offset, file:line and inline chain", NULL },
		{ "profile-lines", 0, POPT_ARG_NONE, &o->profile_lines, 0,
		  "rank source lines instead of functions", NULL },
		{ "profile-inlined", 0, POPT_ARG_NONE, &o->profile_inlined, 0,
		  "rank the innermost inlined functions instead of symbols", NULL },
		{ "profile-by", 0, POPT_ARG_STRING, &o->profile_by, 0,
		  "rank samples by function (default), inlined, line, comm (process name), pid or cpu", "KEY" },
		{ "profile-top", 0, POPT_ARG_INT, &o->profile_top, 0,
		  "show the N first entries of each profile (default 20, 0: all)", "N" },
		{ "call-graph", 0, POPT_ARG_STRING, &o->smpl.call_graph, 0,
		  "record each sample's call chain: fp (frame pointers) or dwarf[,STACK_BYTES] (a stack copy unwound after the run, perf backend)", "MODE" },
		{ "call-graph-depth", 0, POPT_ARG_LONG, &o->smpl.max_frames, 0,
		  "frames per call chain (default 127)", "N" },
		{ "profile-callers", 0, POPT_ARG_NONE, &o->profile_callers, 0,
		  "with --call-graph: the callers and callees of the top functions, as trees", NULL },
		{ "folded", 0, POPT_ARG_STRING, &o->folded, 0,
		  "with --call-graph: write folded stacks (frame;frame COUNT) to FILE", "FILE" },
		{ "flamegraph", 0, POPT_ARG_STRING, &o->flamegraph, 0,
		  "with --call-graph: write an SVG flame graph to FILE", "FILE" },
		{ "pprof", 0, POPT_ARG_STRING, &o->pprof, 0,
		  "write the samples (with --call-graph their stacks) as a gzipped pprof profile to FILE", "FILE" },
		{ "perf-script", 0, POPT_ARG_STRING, &o->perf_script, 0,
		  "write the samples (with --call-graph their stacks) as perf script prints them to FILE", "FILE" },
		{ "speedscope", 0, POPT_ARG_STRING, &o->speedscope, 0,
		  "write the samples (with --call-graph their stacks) as a speedscope file to FILE", "FILE" },
		{ "outfile", 0, POPT_ARG_STRING, &o->outfile, 0, "write the results to FILE", "FILE" },
		{ "append", 0, POPT_ARG_NONE, &o->append, 0, "append to --outfile", NULL },
		{ "us-counter-format", 0, POPT_ARG_NONE, NULL, OPT_US, "print counts as 1,234,567", NULL },
		{ "eu-counter-format", 0, POPT_ARG_NONE, NULL, OPT_EU, "print counts as 1.234.567", NULL },
		{ "hex-counter-format", 0, POPT_ARG_NONE, NULL, OPT_HEX, "print counts in hexadecimal", NULL },
		{ "field-separator", 'x', POPT_ARG_STRING, &o->separator, 0, "print CSV with SEP", "SEP" },
		{ "json", 0, POPT_ARG_NONE, &o->json, 0, "print JSON", NULL },
		{ "backend", 0, POPT_ARG_STRING, &o->backend, 0, "auto, perf or module", "NAME" },
		{ "check-events-only", 0, POPT_ARG_NONE, &o->check_only, 0,
		  "check and print the events' encodings, then exit", NULL },
		{ "info", 'i', POPT_ARG_NONE, &o->info, 0, "print the backends, PMUs and settings", NULL },
		{ "list", 'l', POPT_ARG_NONE, &o->list, 0, "list events (matching PATTERN)", NULL },
		{ "long-list", 'L', POPT_ARG_NONE, &o->long_list, 0, "list events with descriptions", NULL },
		{ "verbose", 'v', POPT_ARG_NONE, &o->verbose, 0, "say what runs", NULL },
		{ NULL, 0, POPT_ARG_INCLUDE_TABLE, cli_common_options, 0, NULL, NULL },
		POPT_TABLEEND
	};

	memcpy(table, t, sizeof(t));
	return table;
}

static char **parse_options(int argc, const char **argv, struct options *o, poptContext *pcp)
{
	struct poptOption *table = option_table(o);
	poptContext pc = poptGetContext("pfmon", argc, argv, table, POPT_CONTEXT_POSIXMEHARDER);
	int rc;

	poptSetOtherOptionHelp(pc, "[OPTION...] [command [args...]]");
	while ((rc = poptGetNextOpt(pc)) > 0) {
		switch (rc) {
		case OPT_EVENTS: add_set_arg(o, poptGetOptArg(pc)); break;
		case OPT_FOLLOW_FORK: o->follow |= PX_FOLLOW_FORK; break;
		case OPT_FOLLOW_VFORK: o->follow |= PX_FOLLOW_VFORK; break;
		case OPT_FOLLOW_PTHREAD: o->follow |= PX_FOLLOW_PTHREAD; break;
		case OPT_FOLLOW_EXEC: o->follow |= PX_FOLLOW_EXEC; break;
		case OPT_FOLLOW_ALL: o->follow |= PX_FOLLOW_ALL; break;
		case OPT_US: o->format = PX_FMT_US; break;
		case OPT_EU: o->format = PX_FMT_EU; break;
		case OPT_HEX: o->format = PX_FMT_HEX; break;
		case OPT_SMPL_INFO: px_smpl_formats_print(stdout); exit(0);
		case OPT_LONG_PERIODS:
			set_option(o, &set_spec(o)->long_periods, "long-smpl-periods", poptGetOptArg(pc));
			break;
		case OPT_SHORT_PERIODS:
			set_option(o, &set_spec(o)->short_periods, "short-smpl-periods", poptGetOptArg(pc));
			break;
		case OPT_RANDOM:
			set_option(o, &set_spec(o)->random, "smpl-periods-random", poptGetOptArg(pc));
			break;
		case OPT_SWITCH_OVFLS:
			set_option(o, &set_spec(o)->switch_ovfls, "switch-ovfls", poptGetOptArg(pc));
			break;
		default: cli_common_option(pc, "pfmon", table, rc); break;
		}
	}
	cli_check_parse(pc, "pfmon", rc);
	*pcp = pc;
	return (char **)poptGetArgs(pc);
}

static void check_options(struct options *o, char **cmd)
{
	bool has_cmd = cmd && cmd[0];

	if (o->switch_ms < 0 || o->session_timeout < 0 || o->attach_pid < 0 ||
	    o->print_interval < 0)
		usage_error("--switch-timeout, --session-timeout, --print-interval and --attach-task take positive numbers");
	if (o->separator && !*o->separator)
		usage_error("the field separator must not be empty");
	if (o->separator && o->json)
		usage_error("choose one of -x and --json");
	if (o->append && !o->outfile)
		usage_error("--append needs --outfile");
	if (o->cpu_list && !o->system_wide)
		usage_error("--cpu-list needs --system-wide");
	if (o->attach_pid && (has_cmd || o->system_wide))
		usage_error("--attach-task takes no command and no --system-wide");
	if (o->system_wide && o->follow)
		usage_error("--follow-* options are for per-thread counting, not --system-wide");
	if (!has_cmd && !o->attach_pid && !o->system_wide)
		usage_error("no command given: pfmon [options] command [args], or --attach-task PID, or --system-wide");
}

static void check_events(const struct options *o)
{
	for (size_t s = 0; s < o->nsets; s++)
		for (size_t i = 0; i < o->sets[s].n; i++)
			printf("set %zu: %s = %s\n", s, o->sets[s].events[i].name,
			       o->sets[s].events[i].encoded);
}

static int runtime_error(struct px_outfile *out)
{
	return cli_runtime_error("pfmon", out);
}

static void warn_unsupported(const struct px_monitor *m)
{
	if (!m->nunits)
		return;
	for (size_t s = 0; s < m->opts.nsets; s++)
		for (size_t i = 0; i < m->opts.sets[s].n; i++)
			if (m->units[0].status[px_monitor_index(m, s, i)])
				fprintf(stderr, "pfmon: warning: '%s' cannot be counted on this machine (no PMU here provides it); it is reported as <not supported>\n",
					m->opts.sets[s].events[i].name);
}

/* -v: the counters are attached and counting; a script can wait for this
 * line before it signals pfmon or lets an attached task go on. */
static void say_started(const struct px_monitor *m, void *arg)
{
	const char *what = m->opts.sampling ? "sampling" : "counting";

	(void)arg;
	if (m->opts.system_wide)
		fprintf(stderr, "pfmon: %s started on %zu CPU%s\n", what, m->nunits,
			m->nunits == 1 ? "" : "s");
	else
		fprintf(stderr, "pfmon: %s started on task %d\n", what, (int)m->units[0].tid);
}

/* How the results are printed, counting and sampling alike. */
static void output_settings(const struct options *o, struct px_out *how)
{
	px_out_init(how, o->separator, o->json);
	how->format = o->format;
	how->aggregate = o->aggregate;
	how->top = (size_t)o->profile_top;
	how->callers = o->profile_callers;
	how->full_paths = o->verbose;
}

/* The run both counting and sampling make: the sets, the command, task
 * or CPUs, the timers.  *cpus is the caller's to free.  0, or the exit
 * status of a bad --cpu-list (usage) or of reading the online CPUs. */
static int plan_run(const struct options *o, char **cmd, struct px_monitor_opts *mo,
		    int **cpus)
{
	size_t ncpus = 0;

	*cpus = NULL;
	if (o->system_wide &&
	    (o->cpu_list ? px_cpulist_parse(o->cpu_list, cpus, &ncpus)
			 : px_cpulist_online(cpus, &ncpus))) {
		fprintf(stderr, "pfmon: %s\n", px_last_error());
		return o->cpu_list ? EXIT_USAGE : EXIT_RUNTIME;
	}
	memset(mo, 0, sizeof(*mo));
	mo->sets = o->sets;
	mo->nsets = o->nsets;
	mo->switch_ns = (uint64_t)o->switch_ms * 1000000ull;
	mo->session_timeout_ns = (uint64_t)o->session_timeout * 1000000000ull;
	mo->print_interval_ns = (uint64_t)o->print_interval * 1000000ull;
	mo->follow = o->follow;
	mo->argv = cmd && cmd[0] ? cmd : NULL;
	mo->attach_pid = o->attach_pid;
	mo->system_wide = o->system_wide;
	mo->cpus = *cpus;
	mo->ncpus = ncpus;
	if (o->verbose)
		mo->on_start = say_started;
	return 0;
}

/* The end of a run: a command that could not be executed (its exec's
 * errno) gets the shell's status and no output file; a runtime error
 * its message; otherwise the output file is committed and the
 * command's status returned. */
static int finish_run(int ret, int exec_errno, int exit_code, struct px_outfile *out)
{
	if (ret && exec_errno) {
		fprintf(stderr, "pfmon: %s\n", px_last_error());
		if (out->f)
			px_outfile_discard(out);
		return px_exec_exit_code(exec_errno);
	}
	if (ret)
		return runtime_error(out);
	if (out->f && px_outfile_commit(out)) {
		fprintf(stderr, "pfmon: %s\n", px_last_error());
		return EXIT_RUNTIME;
	}
	return exit_code;
}

static int measure(struct options *o, char **cmd, struct px_outfile *out)
{
	struct px_monitor_opts mo;
	struct px_out pr;
	struct px_mon_interval iv = { 0 };
	struct px_monitor m;
	int *cpus, ret;

	output_settings(o, &pr);
	if ((ret = plan_run(o, cmd, &mo, &cpus)))
		return ret;
	if (px_backend_select(o->backend, &mo.backend)) {
		free(cpus);
		return runtime_error(out);
	}
	if (o->print_interval) {
		size_t total = 0;

		for (size_t s = 0; s < o->nsets; s++)
			total += o->sets[s].n;
		if (px_mon_interval_init(&iv, out->f ? out->f : stdout, &pr, total)) {
			free(cpus);
			return runtime_error(out);
		}
		mo.on_interval = px_mon_interval_print;
		mo.interval_arg = &iv;
	}
	if (o->verbose)
		fprintf(stderr, "pfmon: backend %s, %zu event set(s)\n", mo.backend->name, o->nsets);
	ret = px_monitor_run(&mo, &m);
	free(cpus);
	px_mon_interval_free(&iv);
	if (!ret) {
		warn_unsupported(&m);
		px_mon_print(out->f ? out->f : stdout, &m, &pr);
		cli_say_signal("pfmon", m.signal);
	}
	ret = finish_run(ret, m.exec_errno, m.exit_code, out);
	px_monitor_free(&m);
	return ret;
}

/* What the profile ranks: --profile-by, or its older spellings. */
static enum px_profile_by profile_by(const struct options *o)
{
	enum px_profile_by by = PX_PROFILE_FUNCTIONS;

	if (o->profile_lines)
		return PX_PROFILE_LINES;
	if (o->profile_inlined)
		return PX_PROFILE_INLINED;
	if (o->profile_by && px_profile_by_parse(o->profile_by, &by))
		usage_error(px_last_error());
	return by;
}

/* Sampling options that make no sense, or that sampling cannot do yet. */
static void check_sampling(struct options *o)
{
	bool sampling = px_smpl_spec_sampling(&o->smpl);

	if (!sampling) {
		if (o->no_block)
			usage_error("--no-overflow-block needs sampling: give --long-smpl-periods=N,...");
		if (o->smpl_outfile || o->resolve || o->profile_lines || o->profile_inlined ||
		    o->profile_by || o->smpl.call_graph || o->smpl.max_frames)
			usage_error("--smpl-outfile, --resolve-addresses, --call-graph and --profile-* need sampling: give --long-smpl-periods=N,...");
		if (o->pprof)
			usage_error("--pprof writes the samples of a sampling run, and this run counts: give --long-smpl-periods=N,...");
		if (o->perf_script)
			usage_error("--perf-script writes the samples of a sampling run, and this run counts: give --long-smpl-periods=N,...");
		if (o->speedscope)
			usage_error("--speedscope writes the samples of a sampling run, and this run counts: give --long-smpl-periods=N,...");
	}
	if (!o->smpl.call_graph && (o->folded || o->flamegraph || o->profile_callers ||
				    o->smpl.max_frames))
		usage_error("--folded, --flamegraph, --profile-callers and --call-graph-depth need call chains: give --call-graph=fp or --call-graph=dwarf");
	if (!sampling)
		return;
	if (o->profile_lines + o->profile_inlined + !!o->profile_by > 1)
		usage_error("choose one of --profile-by, --profile-lines and --profile-inlined");
	(void)profile_by(o);
	if (o->profile_top < 0)
		usage_error("--profile-top takes a number, 0 for all");
	{
		const char *files[] = { o->outfile, o->smpl_outfile, o->folded, o->flamegraph,
					o->pprof, o->perf_script, o->speedscope };
		size_t n = sizeof(files) / sizeof(files[0]);

		for (size_t i = 0; i < n; i++)
			for (size_t j = i + 1; j < n; j++)
				if (files[i] && files[j] && !strcmp(files[i], files[j]))
					usage_error("--outfile, --smpl-outfile, --folded, --flamegraph, --pprof, --perf-script and --speedscope must be different files");
	}
}

/* Each set's sampling settings: pmds[s] (the caller frees them all). */
static struct px_smpl_pmd **build_sets(struct options *o, struct px_smpl_opts *opts)
{
	struct px_smpl_pmd **pmds = calloc(o->nsets, sizeof(*pmds));

	if (!pmds)
		usage_error("out of memory");
	for (size_t s = 0; s < o->nsets; s++) {
		if (px_smpl_spec_build(&o->smpl, s, o->sets[s].n, &pmds[s], opts)) {
			fprintf(stderr, "pfmon: %s\n", px_last_error());
			exit(EXIT_USAGE);
		}
	}
	if (o->smpl.nsets > o->nsets)
		usage_error("sampling options after the last -e belong to no event set: give them after the -e they are for");
	return pmds;
}

static void free_sets(struct px_smpl_pmd **pmds, size_t n)
{
	for (size_t s = 0; pmds && s < n; s++)
		free(pmds[s]);
	free(pmds);
}

static int sample(struct options *o, char **cmd, struct px_outfile *out)
{
	struct px_smpl_measure_opts mo = { .smpl_outfile = o->smpl_outfile,
					   .json = o->json, .resolve.resolve = o->resolve,
					   .folded = o->folded, .flamegraph = o->flamegraph,
					   .pprof = o->pprof, .perf_script = o->perf_script,
					   .speedscope = o->speedscope };
	struct px_smpl_session_opts *so = &mo.run;
	struct px_out pr;
	struct px_smpl_pmd **pmds;
	const struct px_backend *be;
	struct px_smpl_interval siv = { 0 };
	struct px_smpl_session ss;
	struct px_smpl_result res;
	int *cpus, ret;

	output_settings(o, &pr);
	o->smpl.saturate = o->saturate;
	o->smpl.no_block = o->no_block;
	pmds = build_sets(o, &so->smpl);
	ret = px_backend_select(o->backend, &be);
	if (ret == -EINVAL)	/* a name px_backend_select() does not know */
		usage_error(px_last_error());
	if (ret) {
		free_sets(pmds, o->nsets);
		return runtime_error(NULL);
	}
	if (px_backend_check(be, o->sets, o->nsets,
			     (const struct px_smpl_pmd *const *)pmds,
			     o->system_wide, o->follow))
		usage_error(px_last_error());
	if ((ret = plan_run(o, cmd, &so->mon, &cpus))) {
		free_sets(pmds, o->nsets);
		return ret;
	}
	so->mon.backend = be;
	so->pmds = (const struct px_smpl_pmd *const *)pmds;
	if (o->print_interval) {
		siv.f = out->f ? out->f : stdout;
		siv.out = &pr;
		so->mon.on_interval = px_smpl_interval_print;
		so->mon.interval_arg = &siv;
	}
	mo.resolve.by = profile_by(o);
	if (o->verbose)
		fprintf(stderr, "pfmon: backend %s, sampling %s\n", be->name,
			so->mon.ncpus ? "per CPU" : o->attach_pid ? "the attached task" : "the command");
	ret = px_smpl_measure(&mo, &ss, &res);
	free(cpus);
	if (!ret) {
		/* the session's settings (pmds) serve the report too */
		px_smpl_report_print(out->f ? out->f : stdout, &res, &pr);
		for (size_t i = 0; i < res.nreplaced; i++)
			fprintf(stderr, "pfmon: %s was replaced on disk while the command ran, "
				"before pfmon could hold it: its samples are left unknown (\?\?)\n",
				res.replaced[i]);
		if (o->verbose) {
			if (res.ahead_kernel || res.ahead_files)
				fprintf(stderr, "pfmon: read ahead during the run: %s%zu debug "
					"files inflated (%.1f MB), in %.3f ms\n",
					res.ahead_kernel ? "the kernel's symbols, " : "",
					res.ahead_files, res.ahead_bytes / 1e6, res.ahead_ns / 1e6);
			fprintf(stderr, "pfmon: resolved %zu samples in %.3f ms", ss.nrecs,
				res.resolve_ns / 1e6);
			if (mo.pprof || mo.perf_script || mo.speedscope)
				fprintf(stderr, ", of which exports %.3f ms", res.export_ns / 1e6);
			fputc('\n', stderr);
		}
	}
	if (!ret)
		cli_say_signal("pfmon", ss.run.signal);
	ret = finish_run(ret, ss.exec_errno, ss.run.exit_code, out);
	px_smpl_result_free(&res);
	px_smpl_session_free(&ss);
	free_sets(pmds, o->nsets);
	return ret;
}

int main(int argc, const char **argv)
{
	/* static: what the options hold (popt's strings, the events) lives
	 * until the exit and stays reachable, not leaked, at every return */
	static struct options o = { .profile_top = 20 };
	static poptContext pc;
	struct px_outfile out = { 0 };
	char **cmd = parse_options(argc, argv, &o, &pc);
	int ret;

	ret = cli_info_or_list("pfmon", o.info, o.list, o.long_list, cmd);
	if (ret >= 0)
		return ret;
	if (!o.nsets)
		add_set(&o, o.system_wide ? "cpu-clock" : "task-clock");
	if (px_event_sets_levels(o.sets, o.nsets, o.user, o.kernel, o.priv_levels))
		usage_error(px_last_error());
	if (o.check_only) {
		check_events(&o);
		return 0;
	}
	check_options(&o, cmd);
	{
		char **const files[] = { &o.outfile, &o.smpl_outfile, &o.folded, &o.flamegraph,
					 &o.pprof, &o.perf_script, &o.speedscope };

		cli_run_context("pfmon", files, sizeof(files) / sizeof(files[0]));
	}
	check_sampling(&o);
	if (o.outfile && px_outfile_open(&out, o.outfile, o.append))
		return runtime_error(&out);
	if (px_smpl_spec_sampling(&o.smpl))
		ret = sample(&o, cmd, &out);
	else
		ret = measure(&o, cmd, &out);
	for (size_t s = 0; s < o.nsets; s++)
		free(o.sets[s].events);
	free(o.sets);
	free(o.smpl.sets);
	poptFreeContext(pc);
	return ret;
}
