/* What both front ends do the same way with popt. */
#ifndef PX_CLI_H
#define PX_CLI_H

#include <popt.h>
#include <stdbool.h>
#include <stddef.h>

#include "outfile.h"

/* Every front end's exit statuses besides its command's own. */
#define EXIT_RUNTIME 1
#define EXIT_USAGE 2

/* The options both front ends share: --version, -h/--help, --usage and,
 * hidden, --list-opts, --list-arg-opts and --raw-dump for completion.  Include it in
 * a table with POPT_ARG_INCLUDE_TABLE; poptGetNextOpt() returns their
 * values, which cli_common_option() handles. */
extern struct poptOption cli_common_options[];

/* If rc is one of the shared options' values, do it and exit 0. */
void cli_common_option(poptContext pc, const char *tool,
		       const struct poptOption *table, int rc);

/* One option a line (-x, --name), for shell completion; with
 * with_arg_only, only those that take an argument (--list-arg-opts). */
void cli_list_options(const struct poptOption *table, bool with_arg_only);

/* After the poptGetNextOpt() loop: on a parse error, print it with the
 * tool's name and exit with the usage status. */
void cli_check_parse(poptContext pc, const char *tool, int rc);

/* -i, -l and -L, which both front ends answer the same way and then exit.
 * Returns the exit code when one was asked for, or -1 to go on. */
int cli_info_or_list(const char *tool, int info, int list, int long_list,
		     char **args);

/* A usage error: "TOOL: MESSAGE" and the --help hint on standard error,
 * then exit with EXIT_USAGE. */
void cli_usage_error(const char *tool, const char *fmt, ...)
	__attribute__((noreturn, format(printf, 2, 3)));

/* A failure at run time: "TOOL: " and px_last_error() on standard error;
 * the result file, when open, is discarded.  Returns EXIT_RUNTIME. */
int cli_runtime_error(const char *tool, struct px_outfile *out);

/* Say on standard error that the measured command was killed by signal
 * sig (0: it was not), as a shell would. */
void cli_say_signal(const char *tool, int sig);

/* Read the run's place in a parallel job (lib/base/runctx.h) and expand
 * the output file name patterns in *paths[0..n) (NULL entries skipped) in
 * place.  A bad launcher variable or pattern: the message, exit 2. */
void cli_run_context(const char *tool, char **const paths[], size_t n);

#endif
