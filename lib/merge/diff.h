/* pfmon-report --diff: two groups of sampling runs (base and new, a file
 * each: pfmon's JSON or CSV reports, e.g. per-rank files or repeated
 * runs) compared function by function.  A function's share of its
 * event's samples in each run; per group the mean share; the change; and
 * Welch's t test over the runs' shares, whether the change is larger
 * than the runs' spread explains.  Significant: p below 0.001 divided by
 * the number of functions tested (Bonferroni): among any number of
 * unchanged functions, one is flagged by chance in fewer than one
 * comparison in a thousand. */
#ifndef PX_MERGE_DIFF_H
#define PX_MERGE_DIFF_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "emit.h"
#include "merge.h"

#define PX_DIFF_ALPHA 0.001

/* A function of a profile in both groups. */
struct px_diff_func {
	const char *event;	/* the profile's event and set */
	long set;
	const char *name, *module;
	double base_pct, new_pct;	/* mean share over the group's runs */
	double change;			/* new - base, in points */
	double p;			/* two-sided; NAN: not tested */
	bool significant;
	size_t base_runs, new_runs;	/* runs whose listing tells its share */
};

struct px_diff {
	struct px_merge_input *base, *new;	/* owned */
	size_t nbase, nnew;
	struct px_diff_func *funcs;	/* most significant first */
	size_t nfuncs, tested;
};

/* One group's runs: path a report, or a folder whose reports (*.json,
 * *.csv, or folded stacks *.folded: compared stack by stack) are the
 * runs, in name order.  *in is the caller's (px_diff_build
 * takes it).  0 or -errno with px_last_error(). */
int px_diff_read_group(const char *path, struct px_merge_input **in, size_t *n);

/* Compare base[0..nb) with new[0..nn) (taking them over, freed by
 * px_diff_free() in every case).  Every input must be a sampling report
 * and both groups must sample the same events.  0 or -errno with
 * px_last_error(). */
int px_diff_build(struct px_merge_input *base, size_t nb, struct px_merge_input *new, size_t nn,
		  struct px_diff *d);
void px_diff_free(struct px_diff *d);

/* Text, CSV ("diff" rows) or JSON; top: rows printed (0: all). */
void px_diff_print(FILE *f, const struct px_diff *d, const struct px_out *o, size_t top);

/* The differential flame graph of folded stacks (every run's): the new
 * runs' stacks, their widths the new samples, each box coloured by the
 * change of its share from the base runs' (lib/report/flamegraph.h).
 * -EINVAL when the runs are reports, not stacks; 0 or -errno. */
int px_diff_flamegraph(FILE *f, const struct px_diff *d);

#endif
