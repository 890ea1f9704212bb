#include "ipcache.h"
#include "symbols.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

static void ipcache_put(const struct ipcache *c, struct ipslot *slot, size_t cap,
			uint64_t ip, struct px_location *loc)
{
	size_t j;

	for (j = ipcache_slot_of(c, ip, cap - 1); slot[j].loc; j = (j + 1) & (cap - 1))
		;
	slot[j].ip = ip;
	slot[j].loc = loc;
}

int ipcache_insert(struct ipcache *c, struct px_location *loc)
{
	if ((c->n + 1) * 2 > c->cap) {
		size_t cap = c->cap ? c->cap * 2 : 1024;
		struct ipslot *slot = calloc(cap, sizeof(*slot));

		if (!slot)
			return -ENOMEM;
		for (size_t i = 0; i < c->cap; i++)
			if (c->slot[i].loc)
				ipcache_put(c, slot, cap, c->slot[i].ip, c->slot[i].loc);
		free(c->slot);
		c->slot = slot;
		c->cap = cap;
	}
	ipcache_put(c, c->slot, c->cap, loc->ip, loc);
	c->n++;
	return 0;
}

void ipcache_clear(struct ipcache *c)
{
	if (c->slot)
		memset(c->slot, 0, c->cap * sizeof(*c->slot));
	c->n = 0;
}

void ipcache_free(struct ipcache *c)
{
	free(c->slot);
	memset(c, 0, sizeof(*c));
}
