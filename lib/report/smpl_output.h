/* --smpl-outfile: every sample on one line, written whole or not at all
 * (lib/base/outfile.h), and read back strictly.
 *
 * Text:  "# pfmon samples v1", "# run {RUN}" (RUN: the run's place in a
 *        parallel job, "rank":R,"size":N,"host":"H","job":"J" or null, as
 *        in every JSON output), then one line per sample:
 *        INDEX PID TID CPU SET PMD LAST_RESET TSTAMP IP [VALUE...]
 *        (LAST_RESET and IP in hex with 0x, the rest decimal), and a last
 *        line "# end N samples" so a cut file is told from a whole one.
 * JSON Lines: {"run":{RUN}}, then one object per sample, keys in that order:
 *        {"index":0,"pid":1,"tid":1,"cpu":0,"set":0,"pmd":0,
 *         "last_reset":"0x...","tstamp":1,"ip":"0x...","values":[1,2]}
 *        and a last line {"end":N}.
 * Resolved (--resolve-addresses): text lines go on with
 *        " | MODULE FUNC+0xOFF FILE:LINE" and, for an inlined place,
 *        " inlined: FUNC CALL_FILE:LINE <- FUNC CALL_FILE:LINE ..."
 *        (innermost first); JSON objects with "module", "func", "offset",
 *        "file", "line" and "inlines":[{"func","call_file","call_line"}]
 *        after "values".  The reader accepts both and skips the place. */
#ifndef PX_SMPL_OUTPUT_H
#define PX_SMPL_OUTPUT_H

#include <stdbool.h>
#include <stdint.h>

#include "default/px_dfl.h"
#include "outfile.h"
#include "symbols.h"

struct px_smpl_out {
	struct px_outfile of;
	bool json;
	uint64_t index;
};

int px_smpl_out_open(struct px_smpl_out *o, const char *path, bool json);
/* Write one sample; o is a struct px_smpl_out, so this is a px_sample_fn
 * for px_smpl_opts.on_sample.  Returns 0 or -errno. */
int px_smpl_out_write(void *o, const struct px_sample *s);
/* The same with the sample's resolved place (loc NULL: none). */
int px_smpl_out_write_resolved(struct px_smpl_out *o, const struct px_sample *s,
			       const struct px_location *loc);
/* A sample's call chain in the sample file: its addresses as recorded
 * (or unwound), kernel then user, innermost first; cut when the chain
 * was cut short; names: its frames resolved, innermost first (with the
 * inlined functions; NULL: not resolved).
 * Text: " chain 0xA,0xB,..." after the values (",[truncated]" at the end
 *       of a cut chain) and, resolved, " | chain: F1 <- F2 <- ..." after
 *       the place;
 * JSON: "chain":["0xA",...],"chain_cut":false after "values", and,
 *       resolved, "frames":["F1",...] at the end. */
struct px_smpl_out_chain {
	const uint64_t *kernel;
	size_t nkernel;
	const uint64_t *user;
	size_t nuser;
	bool cut;
	const char *const *names;
	size_t nnames;
};

/* px_smpl_out_write_resolved() with the sample's chain (NULL: none). */
int px_smpl_out_write_chain(struct px_smpl_out *o, const struct px_sample *s,
			    const struct px_location *loc,
			    const struct px_smpl_out_chain *ch);

/* Write the end line and move the file into place. */
int px_smpl_out_commit(struct px_smpl_out *o);
void px_smpl_out_discard(struct px_smpl_out *o);

/* Read a file of either kind, calling fn for each sample.  A truncated or
 * corrupt file fails with -EPROTO (-errno when unreadable) and the line
 * at fault in px_last_error(). */
int px_smpl_file_read(const char *path, px_sample_fn fn, void *arg);

#endif
