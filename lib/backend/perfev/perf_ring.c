/* Mapping and reading perf_event ring buffers. */
#include "perf_ring.h"
#include "error.h"

#include <errno.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

int px_ring_map(struct px_ring *b, int fd, size_t pages)
{
	size_t page = (size_t)sysconf(_SC_PAGESIZE);
	void *m;

	b->data_size = pages * page;
	m = mmap(NULL, page + b->data_size, PROT_READ | PROT_WRITE, MAP_SHARED,
		 fd, 0);
	if (m == MAP_FAILED) {
		b->meta = NULL;
		return px_fail(errno,
			       "cannot map a %zu-byte sampling ring: %s (see ulimit -l and kernel.perf_event_mlock_kb)",
			       b->data_size, strerror(errno));
	}
	b->meta = m;
	b->data = (unsigned char *)m + page;
	return 0;
}

void px_ring_unmap(struct px_ring *b)
{
	if (b->meta)
		munmap(b->meta, (size_t)sysconf(_SC_PAGESIZE) + b->data_size);
	b->meta = NULL;
}

int px_ring_drain(struct px_ring *b, unsigned char *scratch, px_ring_fn fn, void *arg)
{
	uint64_t head, tail;
	size_t mask;
	int ret = 0;

	if (!b->meta)
		return 0;
	head = __atomic_load_n(&b->meta->data_head, __ATOMIC_ACQUIRE);
	tail = b->meta->data_tail;
	mask = b->data_size - 1;
	while (tail < head && !ret) {
		struct perf_event_header h;
		size_t off = tail & mask, first;
		const unsigned char *p;

		if (head - tail < sizeof(h))
			break;
		first = b->data_size - off;
		if (first >= sizeof(h)) {
			memcpy(&h, b->data + off, sizeof(h));
		} else {
			memcpy(&h, b->data + off, first);
			memcpy((unsigned char *)&h + first, b->data, sizeof(h) - first);
		}
		/* the kernel writes whole records of a multiple of 8 bytes:
		 * anything else is no record (and would misalign the next) */
		if (h.size < sizeof(h) || h.size % 8 || h.size > head - tail)
			break;
		if (first >= h.size) {
			p = b->data + off;
		} else {
			memcpy(scratch, b->data + off, first);
			memcpy(scratch + first, b->data, h.size - first);
			p = scratch;
		}
		ret = fn(arg, tail, p, h.size);
		tail += h.size;
	}
	__atomic_store_n(&b->meta->data_tail, tail, __ATOMIC_RELEASE);
	return ret;
}
