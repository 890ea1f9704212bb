/* The resolver's address cache (lib/symbols/ipcache.h), white-box through
 * its internal header: each cache is given a hash the test switches at run
 * time, so that collisions (every key on one slot, at the end of the table
 * so that probing wraps around; few distinct slots) and growth are forced
 * rather than hoped for.  Then the resolver through the
 * public API: many distinct addresses, the same entry for the same
 * address, the last-address shortcut, serial numbers, and a cache that is
 * forgotten when mappings are added. */
#include "tap.h"

#include <stdint.h>

#include "ipcache.h"
#include "symbols.h"

#include <stdlib.h>
#include <string.h>

static int hash_mode;	/* 0: the real hash; 1: one slot; 2: eight slots */

static uint64_t test_hash(uint64_t ip)
{
	switch (hash_mode) {
	case 1:
		return ~(uint64_t)0;	/* the last slot, whatever the size */
	case 2:
		return ip & 7;
	default:
		return ipcache_hash(ip);
	}
}

enum { N = 5000 };

static void check_cache(int mode, const char *label)
{
	static struct px_location locs[N];
	struct ipcache c = { .hash = test_hash };
	bool found = true, exact = true, absent = true;
	size_t i;

	hash_mode = mode;
	ok(ipcache_find(&c, 42) == NULL, "%s: an empty cache finds nothing", label);
	for (i = 0; i < N; i++) {
		/* ip 0 is a key like any other; the rest spread wide */
		locs[i].ip = i ? i * 0x10001ULL + (i & 1 ? 0xffff000000000000ULL : 0) : 0;
		if (ipcache_insert(&c, &locs[i]))
			break;
		if (c.n != i + 1 || c.n * 2 > c.cap)
			exact = false;
	}
	is_int(i, N, "%s: %d insertions", label, N);
	ok(exact, "%s: the count follows and the table stays at most half full", label);
	ok(c.cap >= 2 * N && (c.cap & (c.cap - 1)) == 0,
	   "%s: grew to a power of two (%zu slots) from 1024", label, c.cap);
	for (i = 0; i < N; i++)
		if (ipcache_find(&c, locs[i].ip) != &locs[i])
			found = false;
	ok(found, "%s: every address finds its own entry after growing", label);
	/* absent keys, on the same probe chains when the hash collides */
	for (uint64_t k = 1; k < 400; k++) {
		uint64_t ip = k * 0x10001ULL + 1;
		bool inserted = false;

		for (size_t j = 0; j < N && !inserted; j++)
			inserted = locs[j].ip == ip;
		if (!inserted && ipcache_find(&c, ip))
			absent = false;
	}
	ok(absent, "%s: addresses never inserted are not found", label);
	ok(ipcache_find(&c, 1) == NULL, "%s: ip 1 (next to ip 0) is not found", label);
	ipcache_clear(&c);
	is_int(c.n, 0, "%s: cleared", label);
	ok(ipcache_find(&c, locs[7].ip) == NULL && ipcache_find(&c, 0) == NULL,
	   "%s: nothing found after clearing", label);
	ok(ipcache_insert(&c, &locs[7]) == 0 && ipcache_find(&c, locs[7].ip) == &locs[7],
	   "%s: usable again after clearing", label);
	ipcache_free(&c);
}

/* A wrap-around chain at a small size, checked slot by slot. */
static void check_wrap(void)
{
	static struct px_location locs[3];
	struct ipcache c = { .hash = test_hash };

	hash_mode = 1;
	for (int i = 0; i < 3; i++) {
		locs[i].ip = 100 + (uint64_t)i;
		ipcache_insert(&c, &locs[i]);
	}
	is_int(c.cap, 1024, "wrap: first table of 1024 slots");
	ok(c.slot[1023].loc == &locs[0], "wrap: the first key in the last slot");
	ok(c.slot[0].loc == &locs[1] && c.slot[1].loc == &locs[2],
	   "wrap: the next ones wrapped around to slots 0 and 1");
	ok(ipcache_find(&c, 102) == &locs[2], "wrap: found across the wrap");
	ok(ipcache_find(&c, 103) == NULL, "wrap: the chain ends at the first free slot");
	ipcache_free(&c);
}

static void check_api(void)
{
	struct px_symbols *res = NULL;
	struct px_maps none = { 0 };
	const struct px_location *a = NULL, *b = NULL, *x = NULL;
	bool same = true, serials = true;
	uint64_t prev = 0;
	enum { M = 3000 };

	if (!is_int(px_symbols_open_maps(&res, &none, NULL), 0, "api: resolver"))
		return;
	for (uint64_t i = 0; i < M; i++) {
		if (px_symbols_resolve(res, 0x1000 + i * 16, &x) || x->ip != 0x1000 + i * 16)
			same = false;
		else if (x->serial <= prev)
			serials = false;
		else
			prev = x->serial;
	}
	ok(same, "api: %d distinct addresses resolved", M);
	ok(serials, "api: serial numbers are non-zero and increase");
	is_int(px_symbols_cached(res), M, "api: %d cached", M);
	px_symbols_resolve(res, 0x1000, &a);
	px_symbols_resolve(res, 0x1010, &b);
	for (int r = 0; r < 50 && same; r++) {
		const struct px_location *y;

		px_symbols_resolve(res, r & 1 ? 0x1010 : 0x1000, &y);
		same = y == (r & 1 ? b : a);
	}
	ok(same && a != b, "api: alternating addresses get their own entries back");
	px_symbols_resolve(res, 0x1000, &x);
	ok(x == a, "api: the same address again (the last-address shortcut)");
	is_int(px_symbols_cached(res), M, "api: no new entry for known addresses");
	ok(strcmp(a->func, "??") == 0 && strcmp(a->module, "??") == 0,
	   "api: an address in no module reads ??");

	/* a new mapping: cached answers may be wrong, they are forgotten at
	 * the next resolve (and the last-address shortcut with them) */
	is_int(px_symbols_add_map(res, 0x400000, 0x1000, 0, "/nonexistent/file"), 0,
	       "api: a mapping added");
	px_symbols_resolve(res, 0x1000, &x);
	is_int(px_symbols_cached(res), 1, "api: the cache was emptied by the new mapping");
	ok(x != a && x->serial > prev, "api: the address was resolved again");
	px_symbols_resolve(res, 0x400010, &x);
	is_str(x->module, "/nonexistent/file", "api: an address in the new mapping has its module");
	ok(px_symbols_add_map(res, 0x1000, 0x1000, 0, "[heap]") != 0,
	   "api: a mapping without a file is refused");
	is_int(px_symbols_add_map(res, 0x7000, 0x2000, 0, "[vdso]"), 0,
	       "api: the [vdso] is accepted");
	px_symbols_free(res);
}

int main(void)
{
	unsetenv("DEBUGINFOD_URLS");
	check_cache(0, "real hash");
	check_cache(1, "one slot");
	check_cache(2, "eight slots");
	check_wrap();
	check_api();
	return done_testing();
}
