/* The pprof profile's interned tables (pprof_int.h): strings, functions
 * and locations, each found again by its key through a hash index, so
 * that a place or a function seen a thousand times is one entry. */
#include "pprof_int.h"
#include "error.h"
#include "grow.h"

#include <errno.h>
#include <string.h>

/* A 64-bit mix (murmur3's finaliser), for the integer keys. */
static uint64_t mix(uint64_t x)
{
	x ^= x >> 33;
	x *= 0xff51afd7ed558ccdULL;
	x ^= x >> 33;
	x *= 0xc4ceb9fe1a85ec53ULL;
	return x ^ (x >> 33);
}

static uint64_t string_hash_of(const void *arg, size_t i)
{
	return ((const struct px_pprof *)arg)->strings[i].hash;
}

int64_t pp_string(struct px_pprof *p, const char *s)
{
	size_t len = strlen(s), j;
	uint64_t h = px_hash_bytes(s, len);
	struct pp_string *e;

	if (px_hindex_reserve(&p->string_ix, p->nstrings, string_hash_of, p))
		return -ENOMEM;
	for (j = px_hindex_first(&p->string_ix, h); p->string_ix.slot[j];
	     j = px_hindex_next(&p->string_ix, j)) {
		e = &p->strings[p->string_ix.slot[j] - 1];
		if (e->hash == h && e->len == len && !memcmp(p->chars + e->off, s, len))
			return (int64_t)(p->string_ix.slot[j] - 1);
	}
	if (px_grow((void **)&p->strings, &p->strings_cap, p->nstrings, 1,
		    sizeof(*p->strings), 1024) ||
	    px_grow((void **)&p->chars, &p->chars_cap, p->nchars, len + 1, 1, 65536))
		return -ENOMEM;
	memcpy(p->chars + p->nchars, s, len + 1);
	p->strings[p->nstrings] = (struct pp_string){ p->nchars, len, h };
	p->nchars += len + 1;
	p->string_ix.slot[j] = ++p->nstrings;
	return (int64_t)(p->nstrings - 1);
}

static uint64_t function_hash(uint32_t name, uint32_t module)
{
	return mix((uint64_t)name << 32 | module);
}

static uint64_t function_hash_of(const void *arg, size_t i)
{
	const struct pp_function *f = &((const struct px_pprof *)arg)->functions[i];

	return function_hash(f->name, f->module);
}

int64_t pp_function(struct px_pprof *p, uint32_t name, uint32_t module, uint32_t file)
{
	struct pp_function *f;
	size_t j;

	if (px_hindex_reserve(&p->function_ix, p->nfunctions, function_hash_of, p))
		return -ENOMEM;
	for (j = px_hindex_first(&p->function_ix, function_hash(name, module));
	     p->function_ix.slot[j]; j = px_hindex_next(&p->function_ix, j)) {
		f = &p->functions[p->function_ix.slot[j] - 1];
		if (f->name == name && f->module == module) {
			/* a frame of no place does not know it: a place may */
			if (!f->file)
				f->file = file;
			return (int64_t)p->function_ix.slot[j];
		}
	}
	if (px_grow((void **)&p->functions, &p->functions_cap, p->nfunctions, 1,
		    sizeof(*p->functions), 256))
		return -ENOMEM;
	p->functions[p->nfunctions] = (struct pp_function){ name, module, file };
	p->function_ix.slot[j] = ++p->nfunctions;
	return (int64_t)p->nfunctions;
}

static uint64_t location_hash_of(const void *arg, size_t i)
{
	return mix(((const struct px_pprof *)arg)->locations[i].key);
}

uint32_t pp_location_find(struct px_pprof *p, uint64_t key)
{
	if (!p->location_ix.cap)
		return 0;
	for (size_t j = px_hindex_first(&p->location_ix, mix(key)); p->location_ix.slot[j];
	     j = px_hindex_next(&p->location_ix, j))
		if (p->locations[p->location_ix.slot[j] - 1].key == key)
			return (uint32_t)p->location_ix.slot[j];
	return 0;
}

int64_t pp_location_new(struct px_pprof *p, uint64_t key, size_t n, struct pp_line **lines)
{
	size_t j;

	if (px_hindex_reserve(&p->location_ix, p->nlocations, location_hash_of, p) ||
	    px_grow((void **)&p->locations, &p->locations_cap, p->nlocations, 1,
		    sizeof(*p->locations), 1024) ||
	    px_grow((void **)&p->lines, &p->lines_cap, p->nlines, n, sizeof(*p->lines), 1024))
		return -ENOMEM;
	for (j = px_hindex_first(&p->location_ix, mix(key)); p->location_ix.slot[j];
	     j = px_hindex_next(&p->location_ix, j))
		;
	p->locations[p->nlocations] = (struct pp_location){
		.key = key, .line = p->nlines, .nlines = n,
	};
	*lines = p->lines + p->nlines;
	memset(*lines, 0, n * sizeof(**lines));
	p->nlines += n;
	p->location_ix.slot[j] = ++p->nlocations;
	return (int64_t)p->nlocations;
}
