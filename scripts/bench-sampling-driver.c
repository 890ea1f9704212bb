/* Sample a command with the library's perf sampler and print one line:
 *   samples lost elapsed_ns span_ns signal
 * span_ns: from the first sample's timestamp to the last's (the rate
 * achieved is samples / span); signal: what ended the command (0: it
 * exited).  SIGINT and SIGTERM (timeout(1) sends them to the whole
 * process group) end the command; the driver then finishes and reports.
 * Usage: bench-sampling-driver default|default-noblock|double-buffer ENTRIES
 *        EVENT PERIOD cmd...   (ENTRIES 0: the library's 4096) */
#include "error.h"
#include "events.h"
#include "target.h"
#include "sampler.h"

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct seen {
	uint64_t first, last;
};

static int note(void *arg, const struct px_sample *s)
{
	struct seen *t = arg;

	if (!t->first || s->tstamp < t->first)
		t->first = s->tstamp;
	if (s->tstamp > t->last)
		t->last = s->tstamp;
	return 0;
}

static void nothing(int sig)
{
	(void)sig;
}

int main(int argc, char **argv)
{
	struct px_event ev;
	struct px_smpl_pmd pmd = { .notify = true };
	struct px_sample_req req = { .evs = &ev, .n = 1, .pmds = &pmd, .cpu = -1 };
	struct sigaction sa = { .sa_handler = nothing };
	struct px_sampler *s;
	struct px_smpl_stats st;
	struct px_run run;
	struct seen seen = { 0, 0 };

	if (argc < 6) {
		fprintf(stderr, "usage: %s default|default-noblock|double-buffer ENTRIES EVENT PERIOD cmd...\n",
			argv[0]);
		return 2;
	}
	if (px_event_parse(argv[3], &ev)) {
		fprintf(stderr, "%s\n", px_last_error());
		return 1;
	}
	/* a handler, not SIG_IGN: the command gets the default action back
	 * at its exec and ends; the driver goes on to report */
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	pmd.long_period = strtoull(argv[4], NULL, 0);
	req.opts.format = strcmp(argv[1], "double-buffer") ? PX_SMPL_DEFAULT : PX_SMPL_DOUBLE_BUFFER;
	req.opts.no_block = !strcmp(argv[1], "default-noblock");	/* pfmon --no-overflow-block */
	req.opts.entries = strtoul(argv[2], NULL, 0);
	req.opts.on_sample = note;
	req.opts.arg = &seen;
	if (px_sample_command(&req, argv + 5, &s, &run)) {
		fprintf(stderr, "%s\n", px_last_error());
		return 1;
	}
	px_sampler_stats(s, &st);
	printf("%llu %llu %llu %llu %d\n", (unsigned long long)st.samples,
	       (unsigned long long)(st.lost + st.dropped + st.overwritten),
	       (unsigned long long)run.elapsed_ns,
	       (unsigned long long)(seen.last - seen.first), run.signal);
	px_sampler_close(s);
	return 0;
}
