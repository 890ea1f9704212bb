/* A perf_event ring buffer mapped from its event's descriptor, and the
 * loop that reads the records the kernel has written to it. */
#ifndef PX_PERF_RING_H
#define PX_PERF_RING_H

#include <stddef.h>
#include <stdint.h>

#include "perf_syscall.h"

/* The largest record the kernel writes (its size field is 16 bits). */
#define PX_RING_MAX_RECORD 65536

struct px_ring {
	struct perf_event_mmap_page *meta;	/* NULL: not mapped */
	unsigned char *data;
	size_t data_size;			/* a power of 2 */
};

/* Map pages data pages (a power of 2) of fd's ring.  0 or -errno. */
int px_ring_map(struct px_ring *b, int fd, size_t pages);
void px_ring_unmap(struct px_ring *b);

/* One record: p (size bytes, whole even when it wraps in the ring, then
 * copied to the caller's scratch) at position pos of the ring. */
typedef int (*px_ring_fn)(void *arg, uint64_t pos, const unsigned char *p, size_t size);

/* Hand every whole record written so far to fn, in order, and give their
 * room back to the kernel.  Stops at fn's first non-zero return (the
 * record is consumed) and returns it.  scratch holds PX_RING_MAX_RECORD
 * bytes. */
int px_ring_drain(struct px_ring *b, unsigned char *scratch, px_ring_fn fn, void *arg);

#endif
