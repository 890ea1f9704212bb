/* Profiles: samples ranked by function, source line, process or CPU,
 * per event.
 *
 * Samples are counted per event (by name, in the order events first
 * appear) under a key: the function, the innermost inlined function, or
 * the source line, each within its module and, in a profile of many
 * processes, within its process (px_profile_count_in); or only the
 * process or CPU (px_profile_add with the label as the name).
 * px_profile_rank gives one event's keys by decreasing count with their
 * share of the event's samples. */
#ifndef PX_PROFILE_H
#define PX_PROFILE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "symbols.h"

enum px_profile_by {
	PX_PROFILE_FUNCTIONS,	/* the symbol holding the address */
	PX_PROFILE_INLINED,	/* the innermost inlined function, else the symbol */
	PX_PROFILE_LINES,	/* "file:line" */
	PX_PROFILE_COMM,	/* the process name only */
	PX_PROFILE_PID,		/* the process, "comm/pid" */
	PX_PROFILE_CPU,		/* the CPU, "cpu N" */
};

/* The --profile-by key NAME (function, inlined, line, comm, pid, cpu):
 * 0 and *by, or -EINVAL with a message that lists the keys. */
int px_profile_by_parse(const char *name, enum px_profile_by *by);
/* What a profile by `by` ranks, as reports name it: "functions",
 * "inlined functions", "lines", "processes", "process ids", "cpus". */
const char *px_profile_by_name(enum px_profile_by by);

/* Whether a profile ranks places in the code (functions or lines), not
 * processes or CPUs. */
static inline bool px_profile_by_place(enum px_profile_by by)
{
	return by == PX_PROFILE_FUNCTIONS || by == PX_PROFILE_INLINED ||
	       by == PX_PROFILE_LINES;
}

/* The process a sample counts under in a profile of many processes: id
 * tells processes apart quickly (e.g. the pid), label is what the row
 * shows (e.g. the command name).  Samples of one label count together. */
struct px_profile_proc {
	uint32_t id;
	const char *label;
};

struct px_profile_entry {
	const char *name;	/* function, or "file:line"; "??" when unknown */
	const char *module;
	const char *process;	/* "" unless counted with a process */
	uint64_t count;
	double pct;		/* 100 * count / samples of the event */
};

struct px_profile;

int px_profile_new(struct px_profile **out, enum px_profile_by by);
void px_profile_free(struct px_profile *p);

/* Count samples of event under (module, name, line); line 0 for a
 * function.  NULL or empty strings count as "??". */
int px_profile_add(struct px_profile *p, const char *event, const char *module,
		   const char *name, int line, uint64_t count);
/* The same, keyed by a resolved location as the profile's mode says. */
int px_profile_add_location(struct px_profile *p, const char *event,
			    const struct px_location *loc, uint64_t count);
/* The number of event `event` in p (made when new: it is then the
 * highest), or -ENOMEM; for px_profile_count, which spares a sample the
 * look-up of its event by name. */
ssize_t px_profile_event_id(struct px_profile *p, const char *event);
int px_profile_count(struct px_profile *p, size_t ev, const struct px_location *loc,
		     uint64_t count);
/* Count samples of event number ev under a label alone (a process or a
 * CPU: PX_PROFILE_COMM, _PID, _CPU), with no module. */
int px_profile_count_label(struct px_profile *p, size_t ev, const char *label,
			   uint64_t count);
/* The same as px_profile_count within a process (NULL: none). */
int px_profile_count_in(struct px_profile *p, size_t ev,
			const struct px_profile_proc *proc,
			const struct px_location *loc, uint64_t count);

size_t px_profile_events(const struct px_profile *p);
const char *px_profile_event(const struct px_profile *p, size_t ev);
uint64_t px_profile_total(const struct px_profile *p, size_t ev);

/* Event ev's entries, most samples first (ties by name, then module).
 * *out is the caller's to free(); its strings live as long as p. */
int px_profile_rank(const struct px_profile *p, size_t ev,
		    struct px_profile_entry **out, size_t *n);

#endif
