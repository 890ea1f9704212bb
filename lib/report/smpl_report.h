/* Printing a sampling session: the closing summary (samples, lost, the
 * buffer's events) and the profile of each sampled event. */
#ifndef PX_SMPL_REPORT_H
#define PX_SMPL_REPORT_H

#include <stdio.h>

#include "emit.h"
#include "smpl_session.h"

void px_smpl_report_print(FILE *f, const struct px_smpl_session *s,
			  const struct px_out *o);

#endif
