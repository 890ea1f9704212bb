/* One report over the ranks of a parallel job (pfmon-report): each rank's
 * output file (perfex's or pfmon's JSON or CSV, lib/report) is read into a
 * struct px_merge_input, the inputs are checked against each other (one
 * kind, the same events, distinct ranks of one job) and merged: per event
 * the sum, min, mean and max over the ranks, the ranks of the min and max
 * and the imbalance (max / mean); for sampling reports, one profile over
 * all ranks with each function's share per rank; for perfex --regions, per
 * region and event the calls and the per-call figures over every thread
 * and rank, and the same statistics of each rank's sum. */
#ifndef PX_MERGE_H
#define PX_MERGE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "emit.h"

enum px_merge_kind {
	PX_MERGE_PERFEX,	/* perfex's counts */
	PX_MERGE_PFMON,		/* pfmon's counts (the aggregate over units) */
	PX_MERGE_SAMPLING,	/* pfmon's sampling report */
};

const char *px_merge_kind_name(enum px_merge_kind k);

/* An event's value in one file: for counts its count (scaled), for a
 * sampling report its samples; not counted: counted false. */
struct px_merge_event {
	char *name;
	long set;		/* its event set (perfex: 0) */
	double value;
	bool counted;
};

/* A profile's head in one file: its event, its samples, how many rows the
 * whole profile had and how many the file lists (fewer: cut at a top). */
struct px_merge_prof {
	char *event;
	long set;
	uint64_t samples;
	size_t rows, listed;
};

/* A row of a file's profile: of its profs[prof]. */
struct px_merge_row {
	size_t prof;
	char *name, *module;
	uint64_t samples;
};

/* A region row of perfex --regions as a reader finds it: one thread's
 * calls of region `symbol`, with event `name`'s sum over them (`value`)
 * and its min and max per call (lib/self/region_report.c).  NULL strings
 * and NAN numbers where the row lacks them. */
struct px_merge_region_row {
	const char *symbol, *name, *status;
	double runs, value, min, max;
};

/* What pfmon-report keeps of a region row. */
struct px_merge_region {
	char *symbol, *name;
	bool scaled;		/* status "scaled": multiplexed in some call */
	uint64_t calls;
	double sum, min, max;
};

struct px_merge_input {
	char *path;
	enum px_merge_kind kind;
	long rank, size;
	char *host;
	char *job;		/* NULL: no job */
	struct px_merge_event *events;
	size_t nevents;
	struct px_merge_prof *profs;
	size_t nprofs;
	struct px_merge_row *rows;
	size_t nrows;
	struct px_merge_region *regions;	/* in the file's order */
	size_t nregions;
	bool stacks;		/* folded stacks: the rows are whole stacks */
};

/* Read one file, JSON or CSV told by its content.  -errno, with
 * px_last_error() naming the file and what is wrong (unreadable, not
 * JSON, truncated, a text report, no rank, ...). */
int px_merge_read(const char *path, struct px_merge_input *in);
void px_merge_input_free(struct px_merge_input *in);

/* The readers behind px_merge_read(), on the file's whole content. */
int px_merge_read_json(const char *path, const char *text, struct px_merge_input *in);
int px_merge_read_csv(const char *path, char *text, struct px_merge_input *in);
/* Folded stacks (merge_folded.c), told by their first line. */
bool px_merge_looks_folded(const char *text);
int px_merge_read_folded(const char *path, char *text, struct px_merge_input *in);

/* The helpers the readers share: append to the input's arrays (strings
 * are copied).  0 or -ENOMEM. */
int px_merge_add_event(struct px_merge_input *in, const char *name, long set,
		       bool counted, double value);
int px_merge_add_prof(struct px_merge_input *in, const char *event, long set,
		      uint64_t samples, size_t rows);
/* A row of the profile added last. */
int px_merge_add_row(struct px_merge_input *in, const char *name, const char *module,
		     uint64_t samples);

/* Why a region row cannot be merged (no symbol, runs not a count of
 * calls, a negative figure, min above max, ...), or NULL: the one check
 * of both readers, which add the file and line. */
const char *px_merge_region_fault(const struct px_merge_region_row *r);
/* A region row that passed px_merge_region_fault().  0 or -ENOMEM. */
int px_merge_add_region(struct px_merge_input *in, const struct px_merge_region_row *r);

/* Whether v, a number read from a file, is a whole number from min to max
 * (counts: up to 2^53, where doubles stop being exact; sets and ranks):
 * what the readers check before they take it as an integer. */
#define PX_MERGE_COUNT_MAX 9007199254740992.0
#define PX_MERGE_ID_MAX 1e9
bool px_merge_whole(double v, double min, double max);

/* An event's name in text and messages: "NAME", "NAME (set S)" past set 0. */
void px_merge_label(const char *name, long set, char *buf, size_t len);

/* An event over the ranks (those where it was counted: n). */
struct px_merge_stat {
	const char *name;
	long set;
	size_t n;
	double sum, min, mean, max, imbalance;
	long min_rank, max_rank;
};

/* An event of a region over every thread and rank: its calls, the min and
 * max per call, and in `ranks` the statistics of each rank's sum (its
 * name the event, no set; ranks.sum is the sum over everything). */
struct px_merge_region_stat {
	const char *symbol;
	bool scaled;		/* some row was scaled */
	uint64_t calls;
	double min, max;	/* per call */
	struct px_merge_stat ranks;
};

/* A function of the merged profile: its samples over all ranks and, per
 * input (in rank order), its samples there. */
struct px_merge_func {
	const char *name, *module;
	uint64_t samples;
	uint64_t *per_rank;
};

struct px_merge_profile {
	const char *event;
	long set;
	uint64_t samples;	/* over all ranks */
	uint64_t *rank_samples;	/* per input: the rank's samples of the event */
	size_t cut;		/* inputs whose profile was cut at a top */
	struct px_merge_func *funcs;	/* by samples, most first */
	size_t nfuncs;
};

struct px_merge {
	struct px_merge_input *in;	/* sorted by rank */
	size_t nin;
	enum px_merge_kind kind;
	long size;
	const char *job;
	size_t nhosts;
	struct px_merge_stat *stats;
	size_t nstats;
	struct px_merge_profile *profiles;
	size_t nprofiles;
	struct px_merge_region_stat *regions;	/* by region, then event */
	size_t nregions;
};

/* Check the inputs against each other and merge them; m takes the inputs
 * (a malloc'ed array, sorted by rank here; freed by px_merge_free()
 * whatever the result).  -EINVAL with the
 * files at fault named in px_last_error(). */
int px_merge_build(struct px_merge_input *in, size_t nin, struct px_merge *m);
void px_merge_free(struct px_merge *m);

/* The report: text, CSV or JSON by o; top functions per profile (0: all). */
void px_merge_print(FILE *f, const struct px_merge *m, const struct px_out *o, size_t top);

#endif
