/* The files a sampling run's command maps, held open from the moment
 * their mapping is reported, so that the resolution after the run reads
 * the file that was mapped even when another was put in its place
 * meanwhile (a package upgrade renames a new copy over a library while
 * a long run uses it).  A file found already replaced when its mapping
 * is reported (its inode is not the mapping's) is named as such, and the
 * resolvers leave its addresses unknown rather than read another file's
 * symbols.  Process-wide, like the files the resolvers open; thread-safe. */
#ifndef PX_HELDFILES_H
#define PX_HELDFILES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Hold the file at path (absolute), whose mapping has inode ino (0: not
 * known, not checked).  Each path is held once; past a limit of open
 * files, no more are held and they are read by path as before. */
void px_held_add(const char *path, uint64_t ino);

/* A new descriptor of the held file at path (the caller closes it), -1
 * when none is held, or -2 when it was found replaced. */
int px_held_open(const char *path);

/* The files found replaced, in the order reported: path i, i < n. */
size_t px_held_replaced(const char ***paths);

/* Close them all and forget them (the end of a measurement). */
void px_held_release(void);

#endif
