/* Growable buffers for tables of megabytes built in one go (the kernel's
 * symbol table).  Their pages are populated by the kernel in bulk as the
 * buffer grows instead of one page fault at a time: on virtual machines a
 * page fault can cost several microseconds, and a 5 MB table faulted in
 * page by page then costs more than reading and parsing it.  Growing
 * moves the mapping (mremap), never copies it. */
#ifndef PX_BIGBUF_H
#define PX_BIGBUF_H

#include <stddef.h>

struct px_bigbuf {
	char *p;		/* NULL until the first reserve */
	size_t len;		/* bytes in use */
	size_t cap;		/* bytes mapped, a multiple of the page size */
};

/* Make room for at least `more` bytes after len; -ENOMEM on failure (the
 * buffer is then unchanged). */
int px_bigbuf_reserve(struct px_bigbuf *b, size_t more);

/* Room for `n` bytes at the end, counted as used; NULL on failure. */
void *px_bigbuf_append(struct px_bigbuf *b, size_t n);

void px_bigbuf_free(struct px_bigbuf *b);

#endif
