/* Call chains into call-graph stacks (chains.h). */
#include "chains.h"
#include "error.h"
#include "grow.h"

#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A resolved place's frames, innermost first, found once by the place's
 * serial number (symbols.h): chains repeat the same places over and over. */
struct place {
	uint64_t serial;	/* 0: free */
	size_t off, n;		/* its frames in ids */
};

struct px_chains {
	struct px_cg *cg;
	struct place *slot;	/* open addressing on the serial, half full */
	size_t nslots, cap;
	uint32_t *ids;		/* the places' frames, back to back */
	size_t nids, idcap;
	uint32_t *stack;	/* the chain being counted */
	size_t stack_cap;
	struct px_chain_place *places;	/* its addresses */
	size_t nplaces, places_cap;
	ssize_t truncated;	/* the "[truncated]" frame, -1 until needed */
};

int px_chains_new(struct px_chains **out, struct px_cg *cg)
{
	*out = calloc(1, sizeof(**out));
	if (!*out)
		return px_fail(ENOMEM, "out of memory");
	(*out)->cg = cg;
	(*out)->truncated = -1;
	return 0;
}

void px_chains_free(struct px_chains *c)
{
	if (!c)
		return;
	free(c->slot);
	free(c->ids);
	free(c->stack);
	free(c->places);
	free(c);
}

static size_t slot_of(uint64_t serial, size_t mask)
{
	return (size_t)((serial * 0x9e3779b97f4a7c15ULL) >> 17) & mask;
}

static int grow_slots(struct px_chains *c)
{
	size_t ncap = c->cap ? 2 * c->cap : 4096;
	struct place *v = calloc(ncap, sizeof(*v));

	if (!v)
		return px_fail(ENOMEM, "out of memory");
	for (size_t i = 0; i < c->cap; i++) {
		size_t j;

		if (!c->slot[i].serial)
			continue;
		for (j = slot_of(c->slot[i].serial, ncap - 1); v[j].serial;
		     j = (j + 1) & (ncap - 1))
			;
		v[j] = c->slot[i];
	}
	free(c->slot);
	c->slot = v;
	c->cap = ncap;
	return 0;
}

static const char *base_name(const char *path)
{
	const char *s = strrchr(path, '/');

	return s && s[1] ? s + 1 : path;
}

/* "?? (MODULE+0xOFFSET)": the offset in the mapped file, or the address
 * when no mapping holds it. */
static void unknown_name(const struct px_location *loc, const struct px_maps *maps,
			 char *buf, size_t len)
{
	const struct px_map *m = loc->kernel ? NULL : px_maps_find(maps, loc->ip);

	if (m)
		snprintf(buf, len, "?? (%s+0x%" PRIx64 ")", base_name(m->path),
			 loc->ip - m->start + m->pgoff);
	else
		snprintf(buf, len, "?? (%s+0x%" PRIx64 ")",
			 loc->kernel ? "[kernel]" : "[unknown]", loc->ip);
}

static int push_id(struct px_chains *c, const char *name, const char *module)
{
	ssize_t id = px_cg_frame(c->cg, name, module);

	if (id < 0)
		return (int)id;
	if (px_grow((void **)&c->ids, &c->idcap, c->nids, 1, sizeof(*c->ids), 4096))
		return -ENOMEM;
	c->ids[c->nids++] = (uint32_t)id;
	return 0;
}

/* The frames of loc, innermost first: its inlined functions, then the
 * function holding it. */
static int place_frames(struct px_chains *c, const struct px_location *loc,
			const struct px_maps *maps, const struct place **out)
{
	size_t j, mask;
	char name[PATH_MAX + 64];
	int ret = 0;

	if (2 * (c->nslots + 1) > c->cap && grow_slots(c))
		return -ENOMEM;
	mask = c->cap - 1;
	for (j = slot_of(loc->serial, mask); c->slot[j].serial; j = (j + 1) & mask)
		if (c->slot[j].serial == loc->serial) {
			*out = &c->slot[j];
			return 0;
		}
	c->slot[j] = (struct place){ loc->serial, c->nids, 0 };
	for (size_t i = 0; i < loc->n_inline && !ret; i++)
		ret = push_id(c, loc->inlines[i].func, loc->module);
	if (!ret && strcmp(loc->func, "??"))
		ret = push_id(c, loc->func, loc->module);
	else if (!ret) {
		unknown_name(loc, maps, name, sizeof(name));
		ret = push_id(c, name, loc->module);
	}
	if (ret) {
		c->slot[j].serial = 0;
		return ret;
	}
	c->slot[j].n = c->nids - c->slot[j].off;
	c->nslots++;
	*out = &c->slot[j];
	return 0;
}

static int push_frame(struct px_chains *c, size_t *len, ssize_t id)
{
	if (id < 0)
		return (int)id;
	if (px_grow((void **)&c->stack, &c->stack_cap, *len, 1, sizeof(*c->stack), 256))
		return -ENOMEM;
	c->stack[(*len)++] = (uint32_t)id;
	return 0;
}

static int push_place(struct px_chains *c, uint64_t ip, const struct px_location *loc,
		      size_t nframes)
{
	if (px_grow((void **)&c->places, &c->places_cap, c->nplaces, 1, sizeof(*c->places), 64))
		return -ENOMEM;
	c->places[c->nplaces++] = (struct px_chain_place){ ip, loc, nframes };
	return 0;
}

/* A user frame that cannot be code of the process: an address in the
 * kernel's half, or a sampled address of 0 (a call through a null
 * pointer), read off a stack whose frame pointers lead nowhere.  It is
 * unknown; naming it after whatever kernel symbol it hits would be garbage. */
static int push_bad_user_frame(struct px_chains *c, uint64_t ip, size_t *len)
{
	char name[64];

	if (push_place(c, ip, NULL, 1))
		return -ENOMEM;
	snprintf(name, sizeof(name), "?? ([unknown]+0x%" PRIx64 ")", ip);
	return push_frame(c, len, px_cg_frame(c->cg, name, "[unknown]"));
}

/* Append the frames of one part of a chain (innermost first). */
static int add_part(struct px_chains *c, struct px_symbols *res, const struct px_maps *maps,
		    const uint64_t *ips, size_t n, bool user, size_t *len, uint64_t *unknown)
{
	for (size_t i = 0; i < n; i++) {
		const struct px_location *loc;
		const struct place *pl;
		int ret;

		/* a return address of 0 is no call: the frame pointers led
		 * into zeroed memory, and the walk ends there, as an unwinder
		 * ends at a frame whose return address is 0 */
		if (user && i && !ips[i])
			break;
		if (user && (!ips[i] || px_symbols_is_kernel_ip(ips[i]))) {
			if ((ret = push_bad_user_frame(c, ips[i], len)))
				return ret;
			++*unknown;
			continue;
		}
		/* a return address is after its call: resolve the call */
		ret = px_symbols_resolve(res, i ? ips[i] - 1 : ips[i], &loc);
		if (ret || (ret = place_frames(c, loc, maps, &pl)))
			return ret;
		if (push_place(c, ips[i], loc, pl->n))
			return -ENOMEM;
		if (px_grow((void **)&c->stack, &c->stack_cap, *len, pl->n,
			    sizeof(*c->stack), 256))
			return -ENOMEM;
		memcpy(c->stack + *len, c->ids + pl->off, pl->n * sizeof(*c->ids));
		*len += pl->n;
		*unknown += !strcmp(loc->func, "??");
	}
	return 0;
}

static void reverse(uint32_t *v, size_t n)
{
	for (size_t i = 0; i < n / 2; i++) {
		uint32_t t = v[i];

		v[i] = v[n - 1 - i];
		v[n - 1 - i] = t;
	}
}

int px_chains_add(struct px_chains *c, struct px_symbols *res, const struct px_maps *maps,
		  size_t ev, const char *root, const struct px_chain *ch,
		  struct px_chain_stack *out, uint64_t *unknown)
{
	size_t len = 0;
	int ret;

	c->nplaces = 0;
	/* built innermost first, then turned around */
	if ((ret = add_part(c, res, maps, ch->kernel, ch->nkernel, false, &len, unknown)) ||
	    (ret = add_part(c, res, maps, ch->user, ch->nuser, true, &len, unknown)))
		return ret;
	if (ch->cut) {
		if (c->truncated < 0)
			c->truncated = px_cg_frame(c->cg, "[truncated]", "");
		if ((ret = push_frame(c, &len, c->truncated)))
			return ret;
	}
	if (root && (ret = push_frame(c, &len, px_cg_frame(c->cg, root, ""))))
		return ret;
	if (!len && (ret = push_frame(c, &len, px_cg_frame(c->cg, "[no chain]", ""))))
		return ret;
	reverse(c->stack, len);
	*out = (struct px_chain_stack){ c->stack, len, c->places, c->nplaces };
	return px_cg_add(c->cg, ev, c->stack, len, 1);
}
