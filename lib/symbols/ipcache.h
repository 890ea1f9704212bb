/* Internal to lib/symbols: the resolver's address cache, ip -> location,
 * open addressing with linear probing on the IP itself (no pointer to
 * follow before the key matches), at most half full. */
#ifndef PX_IPCACHE_H
#define PX_IPCACHE_H

#include <stddef.h>
#include <stdint.h>

struct px_location;

struct ipslot {
	uint64_t ip;
	struct px_location *loc;	/* NULL: free */
};

struct ipcache {
	struct ipslot *slot;
	size_t n, cap;		/* cap is 0 or a power of two */
	/* NULL: ipcache_hash(); a test sets its own to force collisions */
	uint64_t (*hash)(uint64_t ip);
};

/* A 64-bit mix (murmur3's finaliser). */
static inline uint64_t ipcache_hash(uint64_t x)
{
	x ^= x >> 33;
	x *= 0xff51afd7ed558ccdULL;
	x ^= x >> 33;
	x *= 0xc4ceb9fe1a85ec53ULL;
	x ^= x >> 33;
	return x;
}

static inline size_t ipcache_slot_of(const struct ipcache *c, uint64_t ip, size_t mask)
{
	return (size_t)((c->hash ? c->hash(ip) : ipcache_hash(ip)) & mask);
}

/* The location cached for ip, or NULL. */
static inline struct px_location *ipcache_find(const struct ipcache *c, uint64_t ip)
{
	size_t mask = c->cap - 1;

	if (!c->cap)
		return NULL;
	for (size_t j = ipcache_slot_of(c, ip, mask); c->slot[j].loc; j = (j + 1) & mask)
		if (c->slot[j].ip == ip)
			return c->slot[j].loc;
	return NULL;
}

/* Cache loc under loc->ip, which must not be cached yet.  0 or -ENOMEM. */
int ipcache_insert(struct ipcache *c, struct px_location *loc);

/* Forget every entry; the table stays for reuse. */
void ipcache_clear(struct ipcache *c);

void ipcache_free(struct ipcache *c);

#endif
