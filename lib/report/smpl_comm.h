/* The name of the process a sample was taken in, at the sample's time
 * (the program it ran then: lib/symbols/procs.h), for the exports that
 * head each sample or thread with it (--perf-script, --speedscope).  The
 * resolution names processes the same way but hands samples on without
 * their names.  Internal to lib/report. */
#ifndef PX_SMPL_COMM_H
#define PX_SMPL_COMM_H

#include <stdint.h>

#include "smpl_session.h"

struct px_smpl_comm;

/* The names of session s's processes.  0 or -ENOMEM. */
int px_smpl_comm_new(struct px_smpl_comm **out, const struct px_smpl_session *s);
void px_smpl_comm_free(struct px_smpl_comm *c);

/* Process pid's name at time stamp t in *name (valid while c lives).
 * 0 or -ENOMEM. */
int px_smpl_comm_get(struct px_smpl_comm *c, uint32_t pid, uint64_t t, const char **name);

#endif
