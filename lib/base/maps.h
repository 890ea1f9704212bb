/* Lists of a process's file mappings, as /proc/PID/maps or a perf MMAP
 * record gives them (lib/base/maps.c). */
#ifndef PX_MAPS_H
#define PX_MAPS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>

/* One file-backed mapping of a process, as /proc/PID/maps or a perf MMAP
 * record gives it; "[vdso]" is the one mapping without a file kept. */
struct px_map {
	uint64_t start;
	uint64_t len;
	uint64_t pgoff;
	char *path;		/* owned by the list */
};

/* A growable list of mappings; zero-initialise it before use. */
struct px_maps {
	struct px_map *v;
	size_t n;
	size_t cap;
};

int px_maps_add(struct px_maps *m, uint64_t start, uint64_t len,
		uint64_t pgoff, const char *path);
/* Add a mapping made later than those in m: what it covers of them is cut
 * away, what it leaves of them stays (as the kernel's address space and
 * perf's maps do).  A program's first mapping of its file spans every
 * segment and the gaps between, where the kernel can place others later:
 * arm64's 64 KB-aligned segments leave the [vdso] inside the dynamic
 * loader's first mapping. */
int px_maps_insert(struct px_maps *m, uint64_t start, uint64_t len,
		   uint64_t pgoff, const char *path);
/* The mapping that holds ip, or NULL (m may be NULL). */
const struct px_map *px_maps_find(const struct px_maps *m, uint64_t ip);
/* Append the file-backed mappings and the [vdso] of /proc/PID/maps
 * (pid 0: self). */
int px_maps_snapshot(struct px_maps *m, pid_t pid);
/* The same from a stream in /proc/PID/maps format. */
int px_maps_parse(struct px_maps *m, FILE *f);
void px_maps_free(struct px_maps *m);
/* Whether path names the one mapping without a file that is kept. */
bool px_map_is_vdso(const char *path);

#endif
