/* Result files written whole or not at all: output goes to a temporary
 * file beside the target, renamed over it only when the run succeeded.
 * Where the file system allows (O_TMPFILE: ext4, xfs, btrfs, tmpfs), the
 * temporary file has no name until it is complete: a tool killed with
 * SIGKILL mid-run leaves nothing behind; elsewhere it is TARGET.XXXXXX
 * from the start. */
#ifndef PX_OUTFILE_H
#define PX_OUTFILE_H

#include <stdbool.h>
#include <stdio.h>

struct px_outfile {
	FILE *f;
	char *path;
	char *tmp_path;		/* the temporary file's name, NULL while it
				 * has none (O_TMPFILE) */
	bool anonymous;		/* O_TMPFILE: named at the commit */
	bool append;
};

/* Opens the temporary file now, so an unwritable place fails before any
 * measurement.  With append, the existing file's content is kept. */
int px_outfile_open(struct px_outfile *o, const char *path, bool append);
/* Flush and move into place; on failure the target is left untouched. */
int px_outfile_commit(struct px_outfile *o);
void px_outfile_discard(struct px_outfile *o);
/* The end of a file whose writing returned ret (0 or -errno): committed
 * when ret is 0, else discarded.  A failure that was a write to this file
 * (its stream in error: a full disk midway) is reported with the file's
 * name, whatever the writer, which may not know the name, said. */
int px_outfile_close(struct px_outfile *o, int ret);

#endif
