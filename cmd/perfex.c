/* perfex: count events over a command and its children, print totals,
 * return the command's exit status.  perfctr's perfex, on perf_events or
 * the perfmon kernel module. */
#include <errno.h>
#include <popt.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backend.h"
#include "cli.h"
#include "error.h"
#include "events.h"
#include "listing.h"
#include "monitor.h"
#include "outfile.h"
#include "report.h"
#include "target.h"

#define DEFAULT_EVENTS "task-clock,context-switches,cpu-migrations,page-faults,cycles,instructions,branches,branch-misses"

enum { OPT_EVENT = 'e' };

struct options {
	const char **specs;	/* -e arguments, encoded once the command is held */
	size_t nspecs;
	struct px_event *events;
	size_t nevents;
	char *output;
	char *separator;
	char *backend;
	int repeat;
	int info, list, long_list, json, verbose, help;
};

static struct poptOption *option_table(struct options *o)
{
	static struct poptOption table[20];
	struct poptOption t[] = {
		{ "event", 'e', POPT_ARG_STRING, NULL, OPT_EVENT,
		  "count EVENT (repeatable, or a comma list): a name from -l, pmu::NAME[:mod], a raw 0xHEX encoding or mem:ADDR[/LEN][:r|w|rw|x]", "EVENT" },
		{ "output", 'o', POPT_ARG_STRING, &o->output, 0,
		  "write the results to FILE instead of standard error", "FILE" },
		{ "field-separator", 'x', POPT_ARG_STRING, &o->separator, 0,
		  "print CSV with SEP between fields", "SEP" },
		{ "json", 0, POPT_ARG_NONE, &o->json, 0, "print JSON", NULL },
		{ "repeat", 'r', POPT_ARG_INT, &o->repeat, 0,
		  "run the command N times; print mean, stddev, min and max", "N" },
		{ "backend", 0, POPT_ARG_STRING, &o->backend, 0,
		  "auto (module when /dev/perfmon exists, else perf), perf or module", "NAME" },
		{ "info", 'i', POPT_ARG_NONE, &o->info, 0,
		  "print the backends, PMUs and kernel settings, then exit", NULL },
		{ "list", 'l', POPT_ARG_NONE, &o->list, 0,
		  "list event names (matching PATTERN if given), then exit", NULL },
		{ "long-list", 'L', POPT_ARG_NONE, &o->long_list, 0,
		  "list events with descriptions, then exit", NULL },
		{ "verbose", 'v', POPT_ARG_NONE, &o->verbose, 0,
		  "say which backend runs and how each event is encoded", NULL },
		{ NULL, 0, POPT_ARG_INCLUDE_TABLE, cli_common_options, 0, NULL, NULL },
		POPT_TABLEEND
	};

	memcpy(table, t, sizeof(t));
	return table;
}

static void add_spec(struct options *o, const char *list)
{
	const char **grown = realloc(o->specs, (o->nspecs + 1) * sizeof(*grown));

	if (!grown)
		cli_usage_error("perfex", "out of memory");
	o->specs = grown;
	o->specs[o->nspecs++] = list;
}

/* Encode the events through libpfm4.  Its start-up (probing every PMU
 * model it knows) is a large part of perfex's own cost, so it runs
 * while the command's process starts.  Returns 0 or prints why not. */
static int encode_events(struct options *o)
{
	for (size_t i = 0; i < o->nspecs; i++) {
		if (px_event_parse_list(o->specs[i], &o->events, &o->nevents)) {
			fprintf(stderr, "perfex: %s\n", px_last_error());
			return -1;
		}
	}
	for (size_t i = 0; o->verbose && i < o->nevents; i++)
		fprintf(stderr, "perfex: event %s = %s\n", o->events[i].name,
			o->events[i].encoded);
	return 0;
}

/* Parse argv; returns the index of the command's first word. */
static char **parse_options(int argc, const char **argv, struct options *o,
			    poptContext *pcp)
{
	struct poptOption *table = option_table(o);
	poptContext pc = poptGetContext("perfex", argc, argv, table,
					POPT_CONTEXT_POSIXMEHARDER);
	int rc;

	poptSetOtherOptionHelp(pc, "[OPTION...] command [args...]\n"
			       "       perfex -l|-L [PATTERN]   perfex -i");
	while ((rc = poptGetNextOpt(pc)) > 0) {
		switch (rc) {
		case OPT_EVENT:
			add_spec(o, poptGetOptArg(pc) ? : "");
			break;
		default:
			cli_common_option(pc, "perfex", table, rc);
			break;
		}
	}
	cli_check_parse(pc, "perfex", rc);
	*pcp = pc;
	return (char **)poptGetArgs(pc);
}

static void check_options(struct options *o)
{
	if (o->repeat < 1 || o->repeat > 1000000)
		cli_usage_error("perfex", "--repeat must be between 1 and 1000000, not %s",
				o->repeat < 0 ? "negative" : o->repeat ? "that large" : "0");
	if (o->separator && !*o->separator)
		cli_usage_error("perfex", "the field separator must not be empty");
	if (o->separator && o->json)
		cli_usage_error("perfex", "choose one of -x and --json");
}

static void warn_unsupported(const struct options *o, const int *status)
{
	for (size_t i = 0; i < o->nevents; i++)
		if (status[i])
			fprintf(stderr, "perfex: warning: '%s' cannot be counted on this machine (no PMU here provides it); it is reported as <not supported>\n",
				o->events[i].name);
}

static int fail_runtime(struct px_outfile *out)
{
	return cli_runtime_error("perfex", out);
}

/* One run of the command held in *child through the session engine,
 * its counters inherited by what it starts.  0 or -errno (see
 * px_monitor_run()); m is the caller's to free. */
static int count_once(const struct options *o, const struct px_backend *be,
		      char **cmd, struct px_child *child, struct px_monitor *m)
{
	struct px_event_set set = { o->events, o->nevents };
	struct px_monitor_opts mo = {
		.backend = be, .sets = &set, .nsets = 1, .inherit = true,
		.argv = cmd, .child = child,
	};

	return px_monitor_run(&mo, m);
}

/* Run the command o->repeat times into r.  Returns -1 to go on and print,
 * or the exit code to leave with at once. */
static int run_all(struct options *o, const struct px_backend *be,
		   char **cmd, struct px_report *r, struct px_outfile *out)
{
	int ret = -1;

	for (int run = 0; run < o->repeat; run++) {
		struct px_child child;
		struct px_monitor m;
		int killed_by;

		/* forked now, held until its counters are attached */
		if (px_child_fork(cmd, &child)) {
			ret = fail_runtime(out);
			break;
		}
		if (run == 0 && encode_events(o)) {
			px_child_abort(&child);
			if (out->f)
				px_outfile_discard(out);
			ret = EXIT_USAGE;
			break;
		}
		ret = count_once(o, be, cmd, &child, &m);
		if (ret && m.exec_errno) {
			fprintf(stderr, "perfex: %s\n", px_last_error());
			if (out->f)
				px_outfile_discard(out);
			ret = px_exec_exit_code(m.exec_errno);
		} else if (ret) {
			ret = fail_runtime(out);
		} else if (run == 0 &&
			   px_report_init(r, "perfex", cmd, be->name, o->events,
					  o->nevents, m.units[0].status)) {
			ret = fail_runtime(out);
		} else {
			ret = -1;
			if (run == 0)
				warn_unsupported(o, m.units[0].status);
			px_report_add_run(r, m.units[0].counts, m.elapsed_ns,
					  m.exit_code);
			if (m.signal)
				r->exit_code = m.exit_code;
		}
		killed_by = m.signal;
		px_monitor_free(&m);
		/* an error, or interrupted: report what was counted */
		if (ret >= 0 || killed_by)
			break;
	}
	return ret;
}

int main(int argc, const char **argv)
{
	struct options o = { .repeat = 1 };
	struct px_outfile out = { 0 };
	struct px_report report = { 0 };
	struct px_out how;
	const struct px_backend *be;
	poptContext pc;
	char **cmd = parse_options(argc, argv, &o, &pc);
	int ret;

	check_options(&o);
	ret = cli_info_or_list("perfex", o.info, o.list, o.long_list, cmd);
	if (ret >= 0)
		return ret;
	if (!cmd || !cmd[0])
		cli_usage_error("perfex", "no command given: perfex [-e EVENT]... command [args]");
	cli_run_context("perfex", (char **const[]){ &o.output }, 1);
	if (!o.nspecs)
		add_spec(&o, DEFAULT_EVENTS);
	if (px_backend_select(o.backend, &be))
		return fail_runtime(&out);
	if (o.verbose)
		fprintf(stderr, "perfex: backend %s\n", be->name);
	if (o.output && px_outfile_open(&out, o.output, false))
		return fail_runtime(&out);
	ret = run_all(&o, be, cmd, &report, &out);
	if (ret >= 0)
		return ret;
	for (size_t i = 0; o.verbose && i < o.nevents; i++)
		if (o.events[i].kernel_dropped)
			fprintf(stderr, "perfex: '%s' counts user space only: perf_event_paranoid forbids kernel counting\n",
				o.events[i].name);
	px_out_init(&how, o.separator, o.json);
	px_report_print(out.f ? out.f : stderr, &report, &how);
	if (out.f && px_outfile_commit(&out)) {
		fprintf(stderr, "perfex: %s\n", px_last_error());
		ret = EXIT_RUNTIME;
	} else {
		ret = report.exit_code;
	}
	px_report_free(&report);
	free(o.events);
	free(o.specs);
	poptFreeContext(pc);
	return ret;
}
