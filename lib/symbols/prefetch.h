/* Work the resolution of a sampling run will need, done on another thread
 * while the command runs rather than on the report's clock after it: the
 * kernel's symbol table (/proc/kallsyms: about 35 ms for the kernel to
 * format its 120,000 lines), and the inflation of the compressed separate
 * debug files of what the command maps (lib/symbols/debugcache.h).  The
 * resolvers made after px_prefetch_finish find both done; a piece of work
 * not started by then is left to them, so nothing is done twice or read
 * differently.  The thread costs CPU time during the run, on another core
 * when there is one free. */
#ifndef PX_PREFETCH_H
#define PX_PREFETCH_H

#include <stdbool.h>
#include <stdint.h>
#include <stddef.h>

struct px_prefetch;

/* Start the thread; kernel: load the kernel's table (kallsyms: the
 * resolvers' px_symbols_opts.kallsyms).  0 or -errno. */
int px_prefetch_start(struct px_prefetch **out, bool kernel, const char *kallsyms);

/* A file the command mapped (an absolute path): its separate debug file
 * (by build-id, in /usr/lib/debug/.build-id) is inflated.  Each path is
 * looked at once.  Never blocks on the thread's work. */
void px_prefetch_file(struct px_prefetch *p, const char *path);

/* Drop the files not started, and wait for the thread to finish its
 * current piece of work. */
void px_prefetch_finish(struct px_prefetch *p);

/* What the thread did (after px_prefetch_finish): the kernel's table
 * loaded, the debug files inflated and their inflated bytes, and the wall
 * time it spent working. */
struct px_prefetch_stats {
	bool kernel;
	size_t files;
	uint64_t bytes;
	uint64_t busy_ns;
};
void px_prefetch_stats(const struct px_prefetch *p, struct px_prefetch_stats *st);

/* Finish, then let go of the kernel's table and the inflated copies (the
 * resolvers still open keep theirs). */
void px_prefetch_free(struct px_prefetch *p);

#endif
