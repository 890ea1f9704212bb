/* A dummy perf event recording mappings and tasks (see sideband.h). */
#include "sideband.h"
#include "error.h"
#include "grow.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#define SIDE_RING_PAGES 32

void px_records_free(struct px_records *r)
{
	free(r->maps);
	free(r->tasks);
	memset(r, 0, sizeof(*r));
}

int px_sideband_open(struct px_sideband *sb, const struct px_target *t, int cpu,
		     bool remove_on_exec, bool wake_each)
{
	struct perf_event_attr a;
	int fd;

	sb->fd = -1;
	memset(&sb->ring, 0, sizeof(sb->ring));
	memset(&a, 0, sizeof(a));
	a.size = sizeof(a);
	a.type = PERF_TYPE_SOFTWARE;
	a.config = PERF_COUNT_SW_DUMMY;
	a.exclude_kernel = 1;
	a.exclude_hv = 1;
	a.disabled = 1;
	a.enable_on_exec = t->enable_on_exec;
	a.remove_on_exec = remove_on_exec;
	a.inherit = t->inherit;
	a.mmap = 1;
	a.mmap2 = 1;
	a.comm = 1;
	a.comm_exec = 1;
	a.task = 1;
	a.sample_id_all = 1;
	a.sample_type = PERF_SAMPLE_TID | PERF_SAMPLE_TIME;
	/* the kernel wakes a side band's reader by its watermark alone
	 * (wakeup_events counts samples): one byte is every record */
	a.watermark = 1;
	a.wakeup_watermark = wake_each ? 1 : SIDE_RING_PAGES / 2 * (uint32_t)sysconf(_SC_PAGESIZE);
	fd = px_perf_event_open(&a, t->pid, cpu, -1);
	if (fd < 0)
		return px_fail(-fd, "cannot record the mappings of the sampled tasks: %s",
			       strerror(-fd));
	sb->fd = fd;
	return px_ring_map(&sb->ring, fd, SIDE_RING_PAGES);
}

static int side_ioctl(struct px_sideband *sb, unsigned long req, const char *what)
{
	if (sb->fd >= 0 && ioctl(sb->fd, req, 0))
		return px_fail(errno, "cannot %s recording mappings: %s", what,
			       strerror(errno));
	return 0;
}

int px_sideband_enable(struct px_sideband *sb)
{
	return side_ioctl(sb, PERF_EVENT_IOC_ENABLE, "start");
}

int px_sideband_disable(struct px_sideband *sb)
{
	return side_ioctl(sb, PERF_EVENT_IOC_DISABLE, "stop");
}

static int decode_mmap2(struct px_records *r, const unsigned char *p, size_t size)
{
	const unsigned char *q = p + sizeof(struct perf_event_header);
	/* pid/tid, addr/len/pgoff, maj/min/ino/generation, prot/flags */
	size_t fixed = 8 + 3 * 8 + 24 + 8, room, len;
	struct px_mapping *m;
	int ret;

	if (size < sizeof(struct perf_event_header) + fixed)
		return 0;
	if ((ret = px_grow((void **)&r->maps, &r->maps_cap, r->nmaps, 1, sizeof(*m), 64)))
		return ret;
	m = &r->maps[r->nmaps++];
	memcpy(&m->pid, q, 4);
	memcpy(&m->tid, q + 4, 4);
	memcpy(&m->start, q + 8, 8);
	memcpy(&m->len, q + 16, 8);
	memcpy(&m->pgoff, q + 24, 8);
	memcpy(&m->ino, q + 40, 8);	/* after maj and min */
	memcpy(&m->prot, q + 56, 4);
	memcpy(&m->flags, q + 60, 4);
	room = size - sizeof(struct perf_event_header) - fixed;
	len = strnlen((const char *)q + fixed, room);
	if (len >= sizeof(m->path))
		len = sizeof(m->path) - 1;
	memcpy(m->path, q + fixed, len);
	m->path[len] = 0;
	/* sample_id_all: the record ends with pid, tid and time */
	m->time = 0;
	if (room >= len + 1 + 16)
		memcpy(&m->time, p + size - 8, 8);
	return 0;
}

static int decode_task(struct px_records *r, const struct perf_event_header *h,
		       const unsigned char *p, size_t size)
{
	const unsigned char *q = p + sizeof(*h);
	struct px_task_event *t;
	int ret;

	if (size < sizeof(*h) + 16)
		return 0;
	if ((ret = px_grow((void **)&r->tasks, &r->tasks_cap, r->ntasks, 1, sizeof(*t), 64)))
		return ret;
	t = &r->tasks[r->ntasks++];
	memset(t, 0, sizeof(*t));
	if (h->type == PERF_RECORD_COMM) {
		size_t len = strnlen((const char *)q + 8, size - sizeof(*h) - 8);

		t->kind = PX_TASK_COMM;
		memcpy(&t->pid, q, 4);
		memcpy(&t->tid, q + 4, 4);
		t->exec = h->misc & PERF_RECORD_MISC_COMM_EXEC;
		memcpy(t->comm, q + 8, len < 15 ? len : 15);
		/* sample_id_all: the record ends with pid, tid and time */
		if (size >= sizeof(*h) + 8 + len + 1 + 16)
			memcpy(&t->time, p + size - 8, 8);
		return 0;
	}
	if (size < sizeof(*h) + 24) {
		r->ntasks--;
		return 0;
	}
	t->kind = h->type == PERF_RECORD_FORK ? PX_TASK_FORK : PX_TASK_EXIT;
	memcpy(&t->pid, q, 4);
	memcpy(&t->ppid, q + 4, 4);
	memcpy(&t->tid, q + 8, 4);
	memcpy(&t->ptid, q + 12, 4);
	memcpy(&t->time, q + 16, 8);
	return 0;
}

static int decode(void *arg, uint64_t pos, const unsigned char *p, size_t size)
{
	struct perf_event_header h;	/* copied: p need not be aligned */
	struct px_records *r = arg;

	(void)pos;
	memcpy(&h, p, sizeof(h));
	switch (h.type) {
	case PERF_RECORD_LOST:
		if (size >= sizeof(h) + 16) {
			uint64_t lost;

			memcpy(&lost, p + sizeof(h) + 8, 8);
			r->lost += lost;
		}
		return 0;
	case PERF_RECORD_MMAP2:
		return decode_mmap2(r, p, size);
	case PERF_RECORD_COMM:
	case PERF_RECORD_FORK:
	case PERF_RECORD_EXIT:
		return decode_task(r, &h, p, size);
	}
	return 0;
}

int px_sideband_drain(struct px_sideband *sb, unsigned char *scratch,
		      struct px_records *r, const struct px_smpl_opts *o)
{
	size_t before = r->nmaps;
	int ret = px_ring_drain(&sb->ring, scratch, decode, r);

	for (size_t i = before; o && o->on_map && i < r->nmaps; i++)
		o->on_map(o->arg, &r->maps[i]);
	return ret;
}

void px_sideband_close(struct px_sideband *sb)
{
	px_ring_unmap(&sb->ring);
	if (sb->fd >= 0)
		close(sb->fd);
	sb->fd = -1;
}
