/* Result files written whole or not at all: output goes to a temporary
 * file beside the target, renamed over it only when the run succeeded. */
#ifndef PX_OUTFILE_H
#define PX_OUTFILE_H

#include <stdbool.h>
#include <stdio.h>

struct px_outfile {
	FILE *f;
	char *path;
	char *tmp_path;
	bool append;
};

/* Opens the temporary file now, so an unwritable place fails before any
 * measurement.  With append, the existing file's content is kept. */
int px_outfile_open(struct px_outfile *o, const char *path, bool append);
/* Flush and move into place; on failure the target is left untouched. */
int px_outfile_commit(struct px_outfile *o);
void px_outfile_discard(struct px_outfile *o);

#endif
