/* A hash index over an array of entries kept elsewhere (the profile's
 * keys, the call graph's frames and stacks): open addressing with linear
 * probing, each slot an entry's number + 1 (0: free), kept at most half
 * full.  The caller hashes and compares entries; the index finds the slot
 * and grows.
 *
 *	if (px_hindex_reserve(&ix, n, hash_of, arr))
 *		return -ENOMEM;
 *	for (j = px_hindex_first(&ix, h); ix.slot[j]; j = px_hindex_next(&ix, j))
 *		if (same(&arr[ix.slot[j] - 1], key))
 *			return ix.slot[j] - 1;
 *	... append entry n to the array ...
 *	ix.slot[j] = n + 1;
 */
#ifndef PX_HINDEX_H
#define PX_HINDEX_H

#include <stddef.h>
#include <stdint.h>

struct px_hindex {
	size_t *slot;
	size_t cap;		/* a power of two, or 0 */
};

/* Room for one more than the n entries indexed: when that would make the
 * index more than half full, it is rebuilt at twice the size (first 256),
 * hash(arg, i) giving entry i's hash.  0, or -ENOMEM (the index is then
 * unchanged). */
int px_hindex_reserve(struct px_hindex *ix, size_t n,
		      uint64_t (*hash)(const void *arg, size_t i), const void *arg);

static inline size_t px_hindex_first(const struct px_hindex *ix, uint64_t hash)
{
	return (size_t)hash & (ix->cap - 1);
}

static inline size_t px_hindex_next(const struct px_hindex *ix, size_t j)
{
	return (j + 1) & (ix->cap - 1);
}

void px_hindex_free(struct px_hindex *ix);

/* FNV-1a of n bytes: the hash of a byte key, for the index above. */
static inline uint64_t px_hash_bytes(const void *s, size_t n)
{
	const unsigned char *b = s;
	uint64_t h = 1469598103934665603ULL;

	for (size_t i = 0; i < n; i++)
		h = (h ^ b[i]) * 1099511628211ULL;
	return h;
}

#endif
