/* Separate debug files whose sections are compressed (SHF_COMPRESSED, as
 * Debian's -dbg and -dbgsym packages ship them), inflated ahead of need
 * into memory files.  libdw inflates such a file the first time a
 * resolver reads its DWARF: for libc's, 4 MB into 10 MB, about 35 ms of
 * zlib on the report's clock after the run.  A sampling session inflates
 * the debug files of what its command maps on another thread while the
 * command runs (lib/symbols/prefetch.h), and the resolvers' find_debuginfo
 * hands libdwfl the inflated copy for a module's build-id before libdwfl
 * looks for the file itself.  A copy whose file has changed since (device,
 * inode, size or modification time) is not handed out.  Internal to
 * lib/symbols. */
#ifndef PX_DEBUGCACHE_H
#define PX_DEBUGCACHE_H

#include <stddef.h>

/* At most this many bytes of inflated copies are kept. */
#define PX_DEBUGCACHE_MAX_BYTES (256u << 20)
/* The longest build-id kept (SHA-1's are 20 bytes). */
#define PX_DEBUGCACHE_MAX_ID 64

/* Inflate the debug file at path into the cache, under its build-id.  0
 * when it is there afterwards or has nothing to inflate (not ELF, no
 * build-id, no compressed section, not a 64-bit file of this machine's
 * byte order, a compression libelf cannot undo, over the cache's room);
 * -errno on a system error. */
int px_debugcache_add(const char *path);

/* A descriptor of the inflated copy of the debug file with this build-id,
 * and in *path (malloc'ed) the file it was inflated from; -1 when there is
 * none, or that file has changed since. */
int px_debugcache_find(const void *id, size_t len, char **path);

/* Forget every copy (resolvers that hold one keep it open). */
void px_debugcache_clear(void);

/* For tests: the bytes the cache holds, and how many copies it has handed
 * out since the program started. */
size_t px_debugcache_bytes(void);
size_t px_debugcache_handed(void);

#endif
