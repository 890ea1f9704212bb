/* Code-region markers (include/px_region.h): per thread, a stack of the
 * open regions with the counters' sums at their beginning; at each end
 * the difference goes to the region's statistics.  Measuring is decided
 * once, from PX_REGIONS_EVENTS; the report is written at exit to
 * PX_REGIONS_OUTPUT (a file; standard error when unset), in
 * PX_REGIONS_FORMAT (text, csv or json; PX_REGIONS_SEP the CSV's
 * separator; PX_REGIONS_HEADER=0 leaves the CSV header out). */
#include "px_region.h"
#include "api.h"
#include "error.h"
#include "regions.h"

#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define MAX_DEPTH 64

struct open_region {
	const char *name;
	struct px_counters_sums at;
};

struct thread_state {
	struct px_region_thread r;	/* first: what the report reads */
	struct px_counters *c;
	struct open_region stack[MAX_DEPTH];
	unsigned depth;
	size_t cap;
};

static pthread_once_t once = PTHREAD_ONCE_INIT;
static const char *events;		/* NULL: not measuring */
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static struct px_region_thread *threads, **threads_end = &threads;
static _Thread_local struct thread_state *self;
static _Thread_local int self_failed;	/* -errno: this thread cannot count */
/* threads whose counters could not be opened, and the first one's reason:
 * said at exit, so that a region never counted is never silently absent */
static unsigned failed_threads;
static char failed_why[256];

static void report_at_exit(void)
{
	const char *path = getenv("PX_REGIONS_OUTPUT");
	const char *fmt = getenv("PX_REGIONS_FORMAT");
	const char *sep = getenv("PX_REGIONS_SEP");
	const char *header = getenv("PX_REGIONS_HEADER");
	FILE *f = path && *path ? fopen(path, "a") : stderr;

	if (!f) {
		fprintf(stderr, "libpx: cannot write the regions to %s\n", path);
		return;
	}
	pthread_mutex_lock(&lock);
	px_region_report(f, fmt ? fmt : "text", sep ? sep : ",",
			 !header || strcmp(header, "0"), threads);
	if (failed_threads)
		fprintf(stderr, "libpx: the regions of %u thread%s were not counted: %s\n",
			failed_threads, failed_threads > 1 ? "s" : "", failed_why);
	pthread_mutex_unlock(&lock);
	if (f != stderr)
		fclose(f);
}

static void decide(void)
{
	const char *e = getenv("PX_REGIONS_EVENTS");

	if (!e || !*e)
		return;
	events = e;
	atexit(report_at_exit);
}

/* The calling thread's state, its counters started on first use. */
static struct px_region_stat *stat_of(struct thread_state *t, const char *name);

static int thread_state(struct thread_state **out)
{
	struct px_counters_control ctl = { .events = events };
	struct thread_state *t = self;
	int ret;

	if (t) {
		*out = t;
		return 0;
	}
	if (self_failed)
		return self_failed;
	/* room for the regions, taken now: growing it inside a region
	 * would fault pages in that region's counts */
	t = calloc(1, sizeof(*t));
	if (!t || !(t->r.stats = calloc(64, sizeof(*t->r.stats)))) {
		free(t);
		return px_fail(ENOMEM, "out of memory");
	}
	t->cap = 64;
	/* and faulted in now: calloc may hand out fresh zero pages that
	 * fault at their first write, in the first region that ends (an
	 * allocator's choice: glibc's top of the heap, the sanitizers') */
	for (size_t b = 0; b < 64 * sizeof(*t->r.stats); b += 1024)
		((volatile char *)t->r.stats)[b] = 0;
	/* and the code that ends a region, run once before the counting:
	 * its pages (the string functions', a sanitizer's interceptors)
	 * fault here on their first run, not inside the region around the
	 * first one that ends */
	stat_of(t, "-");
	stat_of(t, "-");
	t->r.nstats = 0;
	if ((ret = px_counters_open(&t->c)) || (ret = px_counters_control(t->c, &ctl)) ||
	    (ret = px_counters_start(t->c))) {
		pthread_mutex_lock(&lock);
		if (!failed_threads++)
			snprintf(failed_why, sizeof(failed_why), "%s", px_last_error());
		pthread_mutex_unlock(&lock);
		px_counters_close(t->c);
		free(t->r.stats);
		free(t);
		return self_failed = ret;
	}
	t->r.tid = gettid();
	for (unsigned i = 0; px_counters_name(t->c, i); i++)
		t->r.events[t->r.nevents++] = px_counters_name(t->c, i);
	pthread_mutex_lock(&lock);	/* in the order the threads began */
	*threads_end = &t->r;
	threads_end = &t->r.next;
	pthread_mutex_unlock(&lock);
	self = t;
	*out = t;
	return 0;
}

/* 1 when the markers measure, 0 when they do nothing, or -errno for a
 * name they refuse. */
static int measuring(const char *name)
{
	pthread_once(&once, decide);
	if (!events)
		return 0;
	if (!name)
		return px_fail(EINVAL, "a region needs a name");
	if (strlen(name) >= PX_REGION_NAME_MAX)
		return px_fail(ENAMETOOLONG, "region '%.20s...': a name has at most %d bytes",
			       name, PX_REGION_NAME_MAX - 1);
	return 1;
}

PX_API int px_region_begin(const char *name)
{
	struct thread_state *t = NULL;
	int ret = measuring(name);

	if (ret <= 0)
		return ret;
	if ((ret = thread_state(&t)))
		return ret;
	if (t->depth == MAX_DEPTH)
		return px_fail(E2BIG, "region '%s': regions nest %d deep at most", name, MAX_DEPTH);
	t->stack[t->depth].name = name;
	if ((ret = px_counters_read(t->c, &t->stack[t->depth].at)))
		return ret;
	t->depth++;
	return 0;
}

/* Region name's statistics in t, added on its first end. */
static struct px_region_stat *stat_of(struct thread_state *t, const char *name)
{
	struct px_region_stat *s;

	for (size_t i = 0; i < t->r.nstats; i++)
		if (!strcmp(t->r.stats[i].name, name))
			return &t->r.stats[i];
	pthread_mutex_lock(&lock);	/* the report may read the array */
	if (t->r.nstats == t->cap) {
		size_t cap = t->cap ? 2 * t->cap : 16;
		void *g = realloc(t->r.stats, cap * sizeof(*t->r.stats));

		if (!g) {
			pthread_mutex_unlock(&lock);
			return NULL;
		}
		t->r.stats = g;
		t->cap = cap;
	}
	s = &t->r.stats[t->r.nstats++];
	memset(s, 0, sizeof(*s));
	strcpy(s->name, name);	/* its length was checked at the beginning */
	pthread_mutex_unlock(&lock);
	return s;
}

/* One call's count of event i: the difference of the sums, scaled as
 * perf stat scales when the counter was multiplexed meanwhile. */
static double call_count(const struct px_counters_sums *a, const struct px_counters_sums *b,
			 unsigned i, bool *scaled)
{
	double v = (double)(b->value[i] - a->value[i]);
	uint64_t en = b->enabled[i] - a->enabled[i], run = b->running[i] - a->running[i];

	if (run >= en)
		return v;
	*scaled = true;
	return run ? v * (double)en / (double)run : 0;
}

PX_API int px_region_end(const char *name)
{
	struct thread_state *t = self;
	struct px_counters_sums now;
	struct open_region *o;
	struct px_region_stat *s;
	int ret = measuring(name);

	if (ret <= 0)
		return ret;
	if (!t || !t->depth)
		return px_fail(EINVAL, "region '%s' ends but this thread has no region open", name);
	o = &t->stack[t->depth - 1];
	if (o->name != name && strcmp(o->name, name))
		return px_fail(EINVAL, "region '%s' ends while '%s' is open inside it: end the inner region first",
			       name, o->name);
	if ((ret = px_counters_read(t->c, &now)))
		return ret;
	t->depth--;
	if (!(s = stat_of(t, name)))
		return px_fail(ENOMEM, "out of memory");
	for (unsigned i = 0; i < t->r.nevents; i++) {
		double v = call_count(&o->at, &now, i, &s->scaled);

		if (!s->calls || v < s->min[i])
			s->min[i] = v;
		if (!s->calls || v > s->max[i])
			s->max[i] = v;
		s->sum[i] += v;
	}
	s->calls++;
	return 0;
}
