/* The prefetch thread (prefetch.h): the kernel's table first, then the
 * debug files of the mapped files, in the order they were mapped. */
#include "prefetch.h"
#include "debugcache.h"
#include "symbols.h"

#include <elfutils/libdwelf.h>
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <limits.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

struct px_prefetch {
	pthread_t thread;
	pthread_mutex_t lock;
	pthread_cond_t wake;
	bool stop;
	bool kernel;		/* load the kernel's table (st.kernel: held) */
	char *kallsyms;
	char **seen;		/* every path given, once */
	size_t nseen;
	size_t next;		/* seen[next..] wait for the thread */
	bool running;		/* the thread was started and not joined */
	struct px_prefetch_stats st;	/* the thread's, read after the join */
};

static uint64_t now_ns(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (uint64_t)t.tv_sec * 1000000000ull + (uint64_t)t.tv_nsec;
}

/* Where a file's separate debug file is, by its build-id, or false. */
static bool debug_file_of(const char *path, char *out, size_t len)
{
	const unsigned char *id;
	ssize_t n;
	Elf *e;
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	bool ok = false;

	if (fd < 0)
		return false;
	elf_version(EV_CURRENT);
	e = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	n = e ? dwelf_elf_gnu_build_id(e, (const void **)&id) : -1;
	if (n >= 2) {
		size_t at = (size_t)snprintf(out, len, "/usr/lib/debug/.build-id/%02x/", id[0]);

		for (ssize_t i = 1; i < n && at + 3 < len; i++)
			at += (size_t)snprintf(out + at, len - at, "%02x", id[i]);
		ok = at + sizeof(".debug") <= len;
		if (ok)
			memcpy(out + at, ".debug", sizeof(".debug"));
	}
	elf_end(e);
	close(fd);
	return ok;
}

static void *run(void *arg)
{
	struct px_prefetch *p = arg;
	char debug[PATH_MAX];
	uint64_t t0 = now_ns();

	if (p->kernel)
		p->st.kernel = px_symbols_kernel_hold(p->kallsyms);
	p->st.busy_ns += now_ns() - t0;
	pthread_mutex_lock(&p->lock);
	for (;;) {
		const char *path;
		size_t before;

		while (!p->stop && p->next == p->nseen)
			pthread_cond_wait(&p->wake, &p->lock);
		if (p->stop)
			break;
		path = p->seen[p->next++];
		pthread_mutex_unlock(&p->lock);
		/* a file that cannot be inflated is left to libdw, as without
		 * the prefetch */
		t0 = now_ns();
		before = px_debugcache_bytes();
		if (debug_file_of(path, debug, sizeof(debug)))
			(void)px_debugcache_add(debug);
		if (px_debugcache_bytes() > before) {
			p->st.files++;
			p->st.bytes += px_debugcache_bytes() - before;
		}
		p->st.busy_ns += now_ns() - t0;
		pthread_mutex_lock(&p->lock);
	}
	pthread_mutex_unlock(&p->lock);
	return NULL;
}

int px_prefetch_start(struct px_prefetch **out, bool kernel, const char *kallsyms)
{
	struct px_prefetch *p = calloc(1, sizeof(*p));
	sigset_t all, old;
	int ret;

	*out = NULL;
	if (!p || (kallsyms && !(p->kallsyms = strdup(kallsyms)))) {
		free(p);
		return -ENOMEM;
	}
	p->kernel = kernel;
	pthread_mutex_init(&p->lock, NULL);
	pthread_cond_init(&p->wake, NULL);
	/* every signal is the run's (the monitor takes SIGCHLD, SIGINT ... by
	 * signalfd): none may be delivered to this thread */
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	ret = pthread_create(&p->thread, NULL, run, p);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (ret) {
		px_prefetch_free(p);
		return -ret;
	}
	p->running = true;
	*out = p;
	return 0;
}

void px_prefetch_file(struct px_prefetch *p, const char *path)
{
	char *copy, **v;

	if (!p || path[0] != '/')
		return;
	pthread_mutex_lock(&p->lock);
	for (size_t i = 0; i < p->nseen; i++)
		if (!strcmp(p->seen[i], path))
			goto out;
	v = realloc(p->seen, (p->nseen + 1) * sizeof(*v));
	if (v)
		p->seen = v;
	copy = v ? strdup(path) : NULL;
	if (copy) {		/* out of memory: the file is left to libdw */
		p->seen[p->nseen++] = copy;
		pthread_cond_signal(&p->wake);
	}
out:
	pthread_mutex_unlock(&p->lock);
}

void px_prefetch_finish(struct px_prefetch *p)
{
	if (!p || !p->running)
		return;
	pthread_mutex_lock(&p->lock);
	p->stop = true;
	pthread_cond_signal(&p->wake);
	pthread_mutex_unlock(&p->lock);
	pthread_join(p->thread, NULL);
	p->running = false;
}

void px_prefetch_stats(const struct px_prefetch *p, struct px_prefetch_stats *st)
{
	if (p && !p->running)
		*st = p->st;
	else
		memset(st, 0, sizeof(*st));
}

void px_prefetch_free(struct px_prefetch *p)
{
	if (!p)
		return;
	px_prefetch_finish(p);
	if (p->st.kernel)
		px_symbols_kernel_release();
	px_debugcache_clear();
	for (size_t i = 0; i < p->nseen; i++)
		free(p->seen[i]);
	free(p->seen);
	free(p->kallsyms);
	pthread_cond_destroy(&p->wake);
	pthread_mutex_destroy(&p->lock);
	free(p);
}
