/* A perf ring's records as the side band decodes them (mappings, names,
 * forks, exits, losses): the ring's framing (px_ring_drain: records cut
 * at its end, sizes that lie) and each record's decoding.  The first two
 * bytes place the ring's tail, so records wrap; the rest is the ring. */
#include "fuzz.h"
#include "sideband.h"

#include <stdlib.h>
#include <string.h>

#define RING 4096	/* data bytes, a power of 2 */

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static unsigned char scratch[PX_RING_MAX_RECORD];
	struct perf_event_mmap_page *meta = calloc(1, sizeof(*meta));
	unsigned char *ring = calloc(1, RING);
	struct px_sideband sb = { .fd = -1 };
	struct px_records r = { 0 };
	size_t len, tail;

	if (!meta || !ring)
		abort();
	if (size >= 2) {
		tail = ((size_t)data[0] << 8 | data[1]) & (RING - 1);
		len = size - 2 > RING ? RING : size - 2;
		for (size_t i = 0; i < len; i++)	/* written from the tail on, wrapping */
			ring[(tail + i) & (RING - 1)] = data[2 + i];
		meta->data_tail = tail;
		meta->data_head = tail + len;
		sb.ring = (struct px_ring){ meta, ring, RING };
		(void)px_sideband_drain(&sb, scratch, &r, NULL);
	}
	px_records_free(&r);
	free(ring);
	free(meta);
	return 0;
}
