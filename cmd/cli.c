#include "cli.h"

#include <stdio.h>
#include <stdlib.h>

#include "listing.h"

#define EXIT_USAGE 2

void cli_list_options(const struct poptOption *t)
{
	for (; t->longName || t->shortName || t->argInfo; t++) {
		if (t->argInfo & POPT_ARGFLAG_DOC_HIDDEN)
			continue;
		if (t->shortName)
			printf("-%c\n", t->shortName);
		if (t->longName)
			printf("--%s\n", t->longName);
	}
}

void cli_check_parse(poptContext pc, const char *tool, int rc)
{
	if (rc >= -1)
		return;
	fprintf(stderr, "%s: %s: %s\n", tool,
		poptBadOption(pc, POPT_BADOPTION_NOALIAS), poptStrerror(rc));
	fprintf(stderr, "Try '%s --help' for more information.\n", tool);
	exit(EXIT_USAGE);
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
