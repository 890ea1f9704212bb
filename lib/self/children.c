/* Children's sums on perf events: a second group of the thread's events
 * with inherit, so that every task the thread starts counts on copies of
 * its own.  When a copy's task exits, the kernel adds its count to the
 * original's (which read(2) would mix with the thread's own and its live
 * children's) and, with inherit_stat, writes the copy's final count as a
 * PERF_RECORD_READ into the original's ring: those records, summed, are
 * the children's sums exactly.  An inherited event cannot have a ring of
 * its own (perf_mmap refuses it), so the records go to the ring of an
 * uninherited dummy event of the thread.  The originals' own counts are
 * not used: the thread's sums come from its own, uninherited group. */
#include "children.h"
#include "error.h"
#include "perf_ring.h"
#include "perf_syscall.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

/* 32 data pages: about 2,700 children's counters between two reads */
#define CHILDREN_RING_PAGES 32

struct px_children {
	unsigned n;
	int fd[PX_COUNTERS_MAX];
	uint64_t id[PX_COUNTERS_MAX];	/* what each record names */
	int ring_fd;			/* the dummy event holding the ring */
	struct px_ring ring;
	unsigned char *scratch;
	struct px_counters_sums sums;
	uint64_t lost;			/* records the ring had no room for */
};

/* A PERF_RECORD_READ with read_format TOTAL_TIME_ENABLED|RUNNING|ID */
struct read_record {
	struct perf_event_header h;
	uint32_t pid, tid;
	uint64_t value, enabled, running, id;
};

static int open_one(struct px_children *ch, unsigned i, const struct px_event *ev, pid_t tid)
{
	struct perf_event_attr a;
	int fd;

	px_perf_event_attr(ev, &a);
	a.disabled = i == 0;
	a.inherit = 1;
	a.inherit_stat = 1;
	a.read_format = PERF_FORMAT_TOTAL_TIME_ENABLED | PERF_FORMAT_TOTAL_TIME_RUNNING |
			PERF_FORMAT_ID;
	fd = px_perf_event_open(&a, tid, -1, i ? ch->fd[0] : -1);
	if (fd < 0)
		return px_fail(-fd, "cannot count '%s' for the children: %s", ev->name,
			       strerror(-fd));
	ch->fd[i] = fd;
	ch->n = i + 1;
	if (ioctl(fd, PERF_EVENT_IOC_ID, &ch->id[i]))
		return px_fail(errno, "the id of '%s' for the children: %s", ev->name,
			       strerror(errno));
	if (ioctl(fd, PERF_EVENT_IOC_SET_OUTPUT, ch->ring_fd))
		return px_fail(errno, "the children's records of '%s': %s", ev->name,
			       strerror(errno));
	return 0;
}

/* The ring the children's records go to: a dummy event's, not inherited. */
static int open_ring(struct px_children *ch, pid_t tid)
{
	struct perf_event_attr a;
	int ret;

	memset(&a, 0, sizeof(a));
	a.size = sizeof(a);
	a.type = PERF_TYPE_SOFTWARE;
	a.config = PERF_COUNT_SW_DUMMY;
	ch->ring_fd = px_perf_event_open(&a, tid, -1, -1);
	if (ch->ring_fd < 0)
		return px_fail(-ch->ring_fd, "cannot open the children's records: %s",
			       strerror(-ch->ring_fd));
	if ((ret = px_ring_map(&ch->ring, ch->ring_fd, CHILDREN_RING_PAGES)))
		return ret;
	/* every page touched now: the thread's reads of the records would
	 * fault them in and count the faults as its own (kernels before
	 * 6.10 map a ring's pages at the first touch) */
	for (size_t off = 0; off < ch->ring.data_size; off += (size_t)sysconf(_SC_PAGESIZE))
		(void)*(volatile unsigned char *)(ch->ring.data + off);
	(void)__atomic_load_n(&ch->ring.meta->data_head, __ATOMIC_RELAXED);
	return 0;
}

int px_children_open(struct px_children **chp, const struct px_event *evs, unsigned n, pid_t tid)
{
	struct px_children *ch = calloc(1, sizeof(*ch));
	int ret = 0;

	*chp = NULL;
	if (!ch || !(ch->scratch = malloc(PX_RING_MAX_RECORD))) {
		free(ch);
		return px_fail(ENOMEM, "out of memory");
	}
	ch->ring_fd = -1;
	ret = open_ring(ch, tid);
	for (unsigned i = 0; i < n && !ret; i++)
		ret = open_one(ch, i, &evs[i], tid);
	if (ret) {
		px_children_close(ch);
		return ret;
	}
	ch->sums.n = n;
	*chp = ch;
	return 0;
}

int px_children_enable(struct px_children *ch, bool on)
{
	unsigned long req = on ? PERF_EVENT_IOC_ENABLE : PERF_EVENT_IOC_DISABLE;

	if (ioctl(ch->fd[0], req, PERF_IOC_FLAG_GROUP))
		return px_fail(errno, "%s the children's counters: %s", on ? "start" : "stop",
			       strerror(errno));
	return 0;
}

/* One record of the ring: a child's final count joins its counter's sum. */
static int add_record(void *arg, uint64_t pos, const unsigned char *p, size_t size)
{
	struct px_children *ch = arg;
	struct perf_event_header h;
	struct read_record r;

	(void)pos;
	memcpy(&h, p, sizeof(h));
	if (h.type == PERF_RECORD_LOST && size >= sizeof(h) + 16) {
		uint64_t lost;

		memcpy(&lost, p + sizeof(h) + 8, sizeof(lost));
		ch->lost += lost;
		return 0;
	}
	if (h.type != PERF_RECORD_READ || size < sizeof(r))
		return 0;
	memcpy(&r, p, sizeof(r));
	for (unsigned i = 0; i < ch->n; i++)
		if (ch->id[i] == r.id) {
			ch->sums.value[i] += r.value;
			ch->sums.enabled[i] += r.enabled;
			ch->sums.running[i] += r.running;
		}
	return 0;
}

int px_children_read(struct px_children *ch, struct px_counters_sums *s)
{
	px_ring_drain(&ch->ring, ch->scratch, add_record, ch);
	*s = ch->sums;
	if (ch->lost)
		return px_fail(EOVERFLOW,
			       "the final counts of %llu children's counters were lost (more ended between two reads than %d pages hold): the children's sums are short",
			       (unsigned long long)ch->lost, CHILDREN_RING_PAGES);
	return 0;
}

void px_children_close(struct px_children *ch)
{
	if (!ch)
		return;
	px_ring_unmap(&ch->ring);
	for (unsigned i = ch->n; i-- > 0;)
		close(ch->fd[i]);
	if (ch->ring_fd >= 0)
		close(ch->ring_fd);
	free(ch->scratch);
	free(ch);
}
