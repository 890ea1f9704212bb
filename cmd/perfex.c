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
#include "outfile.h"
#include "region_run.h"
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
	int info, list, long_list, json, verbose, help, regions;
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
		{ "regions", 0, POPT_ARG_NONE, &o->regions, 0,
		  "also count the command's code regions (libpx's PX_REGION_BEGIN/END markers) with the same events: per thread and region, calls and the sum, min, mean and max per call", NULL },
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

static void warn_unsupported(const struct px_report *r)
{
	for (size_t i = 0; i < r->nevents; i++)
		if (r->results[i].status)
			fprintf(stderr, "perfex: warning: '%s' cannot be counted on this machine (no PMU here provides it); it is reported as <not supported>\n",
				r->events[i].name);
}

static int fail_runtime(struct px_outfile *out)
{
	return cli_runtime_error("perfex", out);
}

/* Count the command o->repeat times into r.  Returns -1 to go on and
 * print, or the exit code to leave with at once. */
static int count(struct options *o, const struct px_backend *be,
		 char **cmd, struct px_report *r, struct px_outfile *out)
{
	struct px_child first;
	int exec_errno;

	/* forked now, held until its counters are attached: libpfm4's
	 * start-up (encode_events) overlaps the command's */
	if (px_child_fork(cmd, &first))
		return fail_runtime(out);
	if (encode_events(o)) {
		px_child_abort(&first);
		if (out->f)
			px_outfile_discard(out);
		return EXIT_USAGE;
	}
	if (!px_report_count(&(struct px_count_opts){
				.tool = "perfex", .backend = be, .argv = cmd,
				.events = o->events, .nevents = o->nevents,
				.repeat = o->repeat },
			     &first, r, &exec_errno)) {
		warn_unsupported(r);
		return -1;
	}
	if (!exec_errno)
		return fail_runtime(out);
	fprintf(stderr, "perfex: %s\n", px_last_error());
	if (out->f)
		px_outfile_discard(out);
	return px_exec_exit_code(exec_errno);
}

/* --regions: the command's environment asks libpx for its regions, with
 * the events of -e, in the output's format. */
static int prepare_regions(const struct options *o, const struct px_out *how,
			   struct px_region_run *rr)
{
	size_t len = 1;
	char *events;
	int ret;

	for (size_t i = 0; i < o->nspecs; i++)
		len += strlen(o->specs[i]) + 1;
	events = calloc(1, len);
	if (!events)
		return px_fail(ENOMEM, "out of memory");
	for (size_t i = 0; i < o->nspecs; i++)
		strcat(strcat(events, i ? "," : ""), o->specs[i]);
	/* the regions on the module only when asked for by name: on perf
	 * events they read in user space where the machine allows */
	ret = px_region_run_prepare(rr, events, o->backend && !strcmp(o->backend, "module") ?
						       "module" : "perf", how);
	free(events);
	return ret;
}

/* The regions before the counts: in CSV after the header and before the
 * elapsed row, in JSON as lines before the document. */
static int print_regions(struct px_region_run *rr, FILE *f, struct px_out *how)
{
	long n = px_region_run_print(rr, f, how);

	px_region_run_end(rr);
	if (n < 0)
		return -1;
	if (!n)
		fprintf(stderr, "perfex: warning: --regions: the command marked no region (is it built with -DPX_REGIONS and linked with libpx, and did it call PX_REGION_BEGIN/END?)\n");
	return 0;
}

int main(int argc, const char **argv)
{
	/* static: what the options hold (popt's strings, the events) lives
	 * until the exit and stays reachable, not leaked, at every return */
	static struct options o = { .repeat = 1 };
	static poptContext pc;
	struct px_outfile out = { 0 };
	struct px_report report = { 0 };
	struct px_region_run regions = { 0 };
	struct px_out how;
	const struct px_backend *be;
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
	px_out_init(&how, o.separator, o.json);
	if (o.regions && prepare_regions(&o, &how, &regions))
		return fail_runtime(&out);
	ret = count(&o, be, cmd, &report, &out);
	if (ret >= 0) {
		px_region_run_end(&regions);
		return ret;
	}
	for (size_t i = 0; o.verbose && i < o.nevents; i++)
		if (o.events[i].kernel_dropped)
			fprintf(stderr, "perfex: '%s' counts user space only: perf_event_paranoid forbids kernel counting\n",
				o.events[i].name);
	if (o.regions && print_regions(&regions, out.f ? out.f : stderr, &how))
		return fail_runtime(&out);
	cli_say_signal("perfex", report.signal);	/* before the counts, as they
							 * may end a JSON stream */
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
