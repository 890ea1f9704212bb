/* Sample a command with the library and print one line:
 *   samples lost elapsed_ns
 * Usage: bench-sampling-driver default|double-buffer EVENT PERIOD cmd... */
#include "error.h"
#include "events.h"
#include "measure.h"
#include "sampler.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int nop(void *arg, const struct px_sample *s)
{
	(void)s;
	(*(unsigned long *)arg)++;
	return 0;
}

int main(int argc, char **argv)
{
	struct px_event ev;
	struct px_smpl_pmd pmd = { .notify = true };
	struct px_sample_req req = { .evs = &ev, .n = 1, .pmds = &pmd, .cpu = -1 };
	struct px_sampler *s;
	struct px_smpl_stats st;
	struct px_run run;
	unsigned long seen = 0;

	if (argc < 5) {
		fprintf(stderr, "usage: %s default|double-buffer EVENT PERIOD cmd...\n", argv[0]);
		return 2;
	}
	if (px_event_parse(argv[2], &ev)) {
		fprintf(stderr, "%s\n", px_last_error());
		return 1;
	}
	pmd.long_period = strtoull(argv[3], NULL, 0);
	req.opts.format = strcmp(argv[1], "default") ? PX_SMPL_DOUBLE_BUFFER : PX_SMPL_DEFAULT;
	req.opts.no_block = true;	/* the spec's mask while the tool reads */
	req.opts.on_sample = nop;
	req.opts.arg = &seen;
	if (px_sample_command(&req, argv + 4, &s, &run)) {
		fprintf(stderr, "%s\n", px_last_error());
		return 1;
	}
	px_sampler_stats(s, &st);
	printf("%llu %llu %llu\n", (unsigned long long)st.samples,
	       (unsigned long long)(st.lost + st.dropped + st.overwritten),
	       (unsigned long long)run.elapsed_ns);
	px_sampler_close(s);
	return 0;
}
