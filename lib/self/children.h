/* The summed final counts of a thread's exited children (perfctr's
 * children's sums), apart from the thread's own. */
#ifndef PX_SELF_CHILDREN_H
#define PX_SELF_CHILDREN_H

#include "events.h"
#include "px_counters.h"

#include <stdbool.h>

struct px_children;

/* Events evs[0..n) of thread tid (0: the calling thread) in a group that
 * every task the thread starts from now on inherits; disabled. */
int px_children_open(struct px_children **ch, const struct px_event *evs, unsigned n, pid_t tid);

/* Enable or disable the group: children started meanwhile count. */
int px_children_enable(struct px_children *ch, bool on);

/* The sums of the children that exited so far. */
int px_children_read(struct px_children *ch, struct px_counters_sums *s);

void px_children_close(struct px_children *ch);

#endif
