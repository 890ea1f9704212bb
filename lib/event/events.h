/* Event specifications: what the user typed, turned into a perf_event style
 * encoding.  Names and encodings come from libpfm4; only breakpoints, which
 * libpfm4 has no table for, are parsed here. */
#ifndef PX_EVENTS_H
#define PX_EVENTS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define PX_EVENT_NAME_MAX 256

/* What kind of counter an event needs; the backends map it to their API. */
enum px_event_kind {
	PX_EVENT_GENERIC = 0,	/* anything libpfm4 encoded (type/config) */
	PX_EVENT_BREAKPOINT,	/* mem:ADDR[/LEN][:rwx] */
};

/* Breakpoint access bits, the values of perf's HW_BREAKPOINT_R/W/X. */
#define PX_BP_R 1u
#define PX_BP_W 2u
#define PX_BP_X 4u

struct px_event {
	char name[PX_EVENT_NAME_MAX];	  /* as the user wrote it */
	char encoded[PX_EVENT_NAME_MAX];  /* libpfm4's canonical string */
	enum px_event_kind kind;
	uint32_t type;		/* perf_event_attr.type */
	uint64_t config;	/* perf_event_attr.config */
	uint64_t config1;
	uint64_t config2;
	uint32_t bp_type;	/* PX_BP_* for breakpoints */
	uint64_t bp_addr;
	uint64_t bp_len;
	bool exclude_user;
	bool exclude_kernel;
	bool exclude_hv;
	bool priv_explicit;	/* the user chose :u/:k, do not change it */
	bool kernel_dropped;	/* kernel counting refused by perf_event_paranoid */
};

/* Parse one event specification: a libpfm4 name, a raw 0xHEX, a
 * breakpoint mem:ADDR[/LEN][:rwx] or a uprobe uprobe:PATH:FUNCTION.  Returns 0, or -errno with the reason in
 * px_last_error() (unknown names come with close matches). */
int px_event_parse(const char *spec, struct px_event *ev);

/* Whether ev counts time in nanoseconds (task-clock, cpu-clock): text
 * shows it in msec, as perf stat does. */
bool px_event_is_clock(const struct px_event *ev);

/* Parse a comma-separated list, appending to *evs (grown with realloc). */
int px_event_parse_list(const char *list, struct px_event **evs, size_t *n);

/* One event set: events counted together, multiplexed with other sets. */
struct px_event_set {
	struct px_event *events;
	size_t n;
};

/* Privilege levels of every event of the sets (lib/event/levels.c):
 * user and kernel as -u and -k give them (neither: both levels), an
 * event with its own :u/:k modifier keeping it; or, with levels, one of
 * "u", "k" or "uk" per event, comma-separated, in the sets' order, which
 * overrides the modifiers (the events after the last one listed as
 * without levels).  0, or -EINVAL with px_last_error() naming
 * the bad level or the count that does not match. */
int px_event_sets_levels(struct px_event_set *sets, size_t nsets,
			 bool user, bool kernel, const char *levels);

/* One entry of the event table, for listings and completion. */
struct px_event_desc {
	const char *pmu;	/* libpfm4 PMU name, e.g. "perf" */
	const char *name;	/* event name within that PMU */
	const char *equiv;	/* the event it aliases, or NULL */
	const char *desc;
};

/* Call fn for every event of every PMU present on this machine (with
 * LIBPFM_FORCE_PMU: that model's, perf's and perf_raw's) whose name
 * matches pattern (NULL: all; a glob when it has * ? or [, else a
 * case-insensitive substring).  fn must not call the functions of this
 * header.  Returns the number of events visited. */
int px_event_foreach(const char *pattern,
		     void (*fn)(const struct px_event_desc *d, void *arg),
		     void *arg);

/* The PMU models libpfm4 detected on this machine (with LIBPFM_FORCE_PMU:
 * that model, perf and perf_raw); fn as for px_event_foreach. */
struct px_pmu_desc {
	const char *name;
	const char *desc;
	int nevents;
	int counters;		/* generic counters, 0 when libpfm4 does not say */
	int fixed_counters;
};
int px_pmu_foreach(void (*fn)(const struct px_pmu_desc *d, void *arg),
		   void *arg);

#endif
