#include "cli.h"

#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "error.h"
#include "listing.h"
#include "runctx.h"

/* values no front end's own option uses */
enum { CLI_HELP = 'h', CLI_VERSION = 0x7f00, CLI_USAGE, CLI_LIST_OPTS,
       CLI_LIST_ARG_OPTS, CLI_RAW_DUMP };

struct poptOption cli_common_options[] = {
	{ "version", 0, POPT_ARG_NONE, NULL, CLI_VERSION, "print the version", NULL },
	{ "list-opts", 0, POPT_ARG_NONE | POPT_ARGFLAG_DOC_HIDDEN, NULL, CLI_LIST_OPTS, NULL, NULL },
	{ "list-arg-opts", 0, POPT_ARG_NONE | POPT_ARGFLAG_DOC_HIDDEN, NULL, CLI_LIST_ARG_OPTS, NULL, NULL },
	{ "raw-dump", 0, POPT_ARG_NONE | POPT_ARGFLAG_DOC_HIDDEN, NULL, CLI_RAW_DUMP, NULL, NULL },
	{ "help", 'h', POPT_ARG_NONE, NULL, CLI_HELP, "show this help", NULL },
	{ "usage", 0, POPT_ARG_NONE, NULL, CLI_USAGE, "show a short usage line", NULL },
	POPT_TABLEEND
};

void cli_common_option(poptContext pc, const char *tool,
		       const struct poptOption *table, int rc)
{
	switch (rc) {
	case CLI_HELP:
		poptPrintHelp(pc, stdout, 0);
		break;
	case CLI_USAGE:
		poptPrintUsage(pc, stdout, 0);
		break;
	case CLI_VERSION:
		printf("%s %s\n", tool, PX_VERSION);
		break;
	case CLI_LIST_OPTS:
		cli_list_options(table, false);
		break;
	case CLI_LIST_ARG_OPTS:
		cli_list_options(table, true);
		break;
	case CLI_RAW_DUMP:
		px_print_event_names(stdout);
		break;
	default:
		return;
	}
	exit(0);
}

void cli_list_options(const struct poptOption *t, bool with_arg_only)
{
	for (; t->longName || t->shortName || t->argInfo; t++) {
		unsigned kind = t->argInfo & POPT_ARG_MASK;

		if (kind == POPT_ARG_INCLUDE_TABLE) {
			cli_list_options(t->arg, with_arg_only);
			continue;
		}
		if (t->argInfo & POPT_ARGFLAG_DOC_HIDDEN)
			continue;
		if (with_arg_only && kind == POPT_ARG_NONE)
			continue;
		if (t->shortName)
			printf("-%c\n", t->shortName);
		if (t->longName)
			printf("--%s\n", t->longName);
	}
}

void cli_usage_error(const char *tool, const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "%s: ", tool);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fprintf(stderr, "\nTry '%s --help' for more information.\n", tool);
	exit(EXIT_USAGE);
}

int cli_runtime_error(const char *tool, struct px_outfile *out)
{
	fprintf(stderr, "%s: %s\n", tool, px_last_error());
	if (out && out->f)
		px_outfile_discard(out);
	return EXIT_RUNTIME;
}

void cli_check_parse(poptContext pc, const char *tool, int rc)
{
	if (rc >= -1)
		return;
	cli_usage_error(tool, "%s: %s", poptBadOption(pc, POPT_BADOPTION_NOALIAS),
			poptStrerror(rc));
}

int cli_info_or_list(const char *tool, int info, int list, int long_list,
		     char **args)
{
	const char *pattern = args ? args[0] : NULL;

	if (info) {
		px_print_sysinfo(stdout);
		return 0;
	}
	if (!list && !long_list)
		return -1;
	if (!px_print_event_list(stdout, pattern, long_list) && pattern) {
		fprintf(stderr, "%s: no event matches '%s'\n", tool, pattern);
		return 1;
	}
	return 0;
}

void cli_say_signal(const char *tool, int sig)
{
	/* as a shell says it; not for an interrupt or a broken pipe, which
	 * the user caused or the shell keeps quiet about */
	if (sig && sig != SIGINT && sig != SIGPIPE)
		fprintf(stderr, "%s: the command was killed by signal %d (%s)\n", tool, sig,
			strsignal(sig));
}

void cli_run_context(const char *tool, char **const paths[], size_t n)
{
	int ret = px_runctx_check();

	for (size_t i = 0; !ret && i < n; i++) {
		char *expanded;

		if (!*paths[i])
			continue;
		ret = px_path_expand(*paths[i], px_runctx(), (long)getpid(), &expanded);
		if (!ret) {
			free(*paths[i]);	/* popt's copy of the pattern */
			*paths[i] = expanded;
		}
	}
	if (ret)
		cli_usage_error(tool, "%s", px_last_error());
}
