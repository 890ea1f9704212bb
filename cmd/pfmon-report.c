/* pfmon-report: one report over the per-rank outputs of perfex or pfmon
 * (mpirun -np 4 perfex -o 'counts.%r.json' --json ./app, then
 * pfmon-report counts.*.json), or two groups of sampling runs compared
 * (pfmon-report --diff BASE NEW).  Thin over lib/merge. */
#include <errno.h>
#include <popt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "diff.h"
#include "emit.h"
#include "error.h"
#include "merge.h"
#include "outfile.h"

struct options {
	char *output, *separator, *flamegraph;
	int json, top, diff;
};

static char **parse_options(int argc, const char **argv, struct options *o, poptContext *pcp)
{
	static struct poptOption table[] = {
		{ "output", 'o', POPT_ARG_STRING, NULL, 'o',
		  "write the report to FILE (whole, or not at all) instead of standard output", "FILE" },
		{ "field-separator", 'x', POPT_ARG_STRING, NULL, 'x',
		  "print CSV with SEP between fields", "SEP" },
		{ "json", 0, POPT_ARG_NONE, NULL, 'j', "print JSON", NULL },
		{ "top", 0, POPT_ARG_INT, NULL, 't',
		  "sampling: the N first functions of each merged profile (default 10, 0: all)", "N" },
		{ "diff", 0, POPT_ARG_NONE, NULL, 'd',
		  "compare two groups of sampling runs, BASE and NEW (each a report or a folder of reports): per function the share in each, the change and whether it is significant", NULL },
		{ "flamegraph", 0, POPT_ARG_STRING, NULL, 'f',
		  "with --diff of folded stacks (pfmon --folded): write their differential flame graph SVG to FILE (widths from NEW, colour by the change)", "FILE" },
		{ NULL, 0, POPT_ARG_INCLUDE_TABLE, cli_common_options, 0, NULL, NULL },
		POPT_TABLEEND
	};
	poptContext pc;
	int rc;

	table[0].arg = &o->output;
	table[1].arg = &o->separator;
	table[2].arg = &o->json;
	table[3].arg = &o->top;
	table[4].arg = &o->diff;
	table[5].arg = &o->flamegraph;
	pc = poptGetContext("pfmon-report", argc, argv, table, 0);
	poptSetOtherOptionHelp(pc, "[OPTION...] FILE...");
	while ((rc = poptGetNextOpt(pc)) > 0)
		cli_common_option(pc, "pfmon-report", table, rc);
	cli_check_parse(pc, "pfmon-report", rc);
	*pcp = pc;
	return (char **)poptGetArgs(pc);
}

/* Read every file into in[0..n); on failure the ones read are freed. */
static int read_all(char **files, size_t n, struct px_merge_input *in)
{
	for (size_t i = 0; i < n; i++) {
		if (px_merge_read(files[i], &in[i])) {
			for (size_t k = 0; k <= i; k++)
				px_merge_input_free(&in[k]);
			return -1;
		}
	}
	return 0;
}

/* --diff BASE NEW: the groups read and compared, the report written. */
static int diff(char **files, const struct options *o, struct px_outfile *out)
{
	struct px_merge_input *base = NULL, *new = NULL;
	size_t nb = 0, nn = 0;
	struct px_diff d = { 0 };
	struct px_outfile svg = { 0 };
	struct px_out how;
	int ret = 0;

	if (!files[0] || !files[1] || files[2])
		cli_usage_error("pfmon-report", "--diff compares two groups: pfmon-report --diff BASE NEW (each a report or a folder of reports)");
	if ((o->output && px_outfile_open(out, o->output, false)) ||
	    (o->flamegraph && px_outfile_open(&svg, o->flamegraph, false)) ||
	    px_diff_read_group(files[0], &base, &nb) || px_diff_read_group(files[1], &new, &nn) ||
	    px_diff_build(base, nb, new, nn, &d)) {	/* d owns them */
		if (!d.base) {
			for (size_t i = 0; i < nb; i++)
				px_merge_input_free(&base[i]);
			free(base);
		}
		ret = cli_runtime_error("pfmon-report", out);
	} else if (svg.f && px_outfile_close(&svg, px_diff_flamegraph(svg.f, &d))) {
		ret = cli_runtime_error("pfmon-report", out);
	} else {
		px_out_init(&how, o->separator, o->json);
		px_diff_print(out->f ? out->f : stdout, &d, &how, (size_t)o->top);
		if (out->f && px_outfile_commit(out))
			ret = cli_runtime_error("pfmon-report", out);
	}
	if (svg.f)
		px_outfile_discard(&svg);	/* not committed: an earlier failure */
	px_diff_free(&d);
	return ret;
}

int main(int argc, const char **argv)
{
	/* static: what the options hold (popt's strings) lives until the
	 * exit and stays reachable, not leaked, at every return */
	static struct options o = { .top = 10 };
	static poptContext pc;
	struct px_outfile out = { 0 };
	struct px_merge_input *in;
	struct px_merge m = { 0 };
	struct px_out how;
	char **files = parse_options(argc, argv, &o, &pc);
	size_t n = 0;
	int ret = 0;

	if (!files || !files[0])
		cli_usage_error("pfmon-report", "no files given: pfmon-report [options] FILE... (the JSON or CSV outputs of perfex or pfmon, one per rank)");
	if (o.separator && !*o.separator)
		cli_usage_error("pfmon-report", "the field separator must not be empty");
	if (o.separator && o.json)
		cli_usage_error("pfmon-report", "choose one of -x and --json");
	if (o.top < 0)
		cli_usage_error("pfmon-report", "--top takes a number, 0 for all");
	if (o.flamegraph && !o.diff)
		cli_usage_error("pfmon-report", "--flamegraph draws a --diff of folded stacks: give --diff BASE NEW");
	if (o.diff) {
		ret = diff(files, &o, &out);
		poptFreeContext(pc);
		free(o.output);
		free(o.separator);
		free(o.flamegraph);
		return ret;
	}
	while (files[n])
		n++;
	in = calloc(n, sizeof(*in));
	if (!in)
		px_fail(ENOMEM, "out of memory");
	if (!in || (o.output && px_outfile_open(&out, o.output, false)) || read_all(files, n, in)) {
		free(in);
		ret = cli_runtime_error("pfmon-report", &out);
	} else if (px_merge_build(in, n, &m)) {	/* m owns in now */
		ret = cli_runtime_error("pfmon-report", &out);
	} else {
		px_out_init(&how, o.separator, o.json);
		px_merge_print(out.f ? out.f : stdout, &m, &how, (size_t)o.top);
		if (out.f && px_outfile_commit(&out))
			ret = cli_runtime_error("pfmon-report", &out);
	}
	px_merge_free(&m);
	poptFreeContext(pc);
	free(o.output);		/* popt's copies of the arguments */
	free(o.separator);
	return ret;
}
