/* What both front ends do the same way with popt. */
#ifndef PX_CLI_H
#define PX_CLI_H

#include <popt.h>

/* One option a line (-x, --name), for shell completion. */
void cli_list_options(const struct poptOption *table);

/* After the poptGetNextOpt() loop: on a parse error, print it with the
 * tool's name and exit with the usage status. */
void cli_check_parse(poptContext pc, const char *tool, int rc);

/* -i, -l and -L, which both front ends answer the same way and then exit.
 * Returns the exit code when one was asked for, or -1 to go on. */
int cli_info_or_list(const char *tool, int info, int list, int long_list,
		     char **args);

#endif
