/* The hash index (lib/base/hindex.c): every entry found again after the
 * index has grown many times, entries with equal hashes told apart by
 * their own comparison, and absent keys not found. */
#include "tap.h"
#include "hindex.h"

#include <stdlib.h>

enum { N = 20000 };

static uint64_t keys[N];

/* a poor hash on purpose: 64 entries share each value, so probing runs
 * through other entries' slots */
static uint64_t hash_of_key(uint64_t k)
{
	return k / 64;
}

static uint64_t hash_of(const void *arg, size_t i)
{
	return hash_of_key(((const uint64_t *)arg)[i]);
}

/* entry number of k, or N when absent; inserted as entry *n when
 * insert is set */
static size_t find(struct px_hindex *ix, size_t *n, uint64_t k, int insert)
{
	size_t j;

	if (px_hindex_reserve(ix, *n, hash_of, keys))
		return N + 1;
	for (j = px_hindex_first(ix, hash_of_key(k)); ix->slot[j]; j = px_hindex_next(ix, j))
		if (keys[ix->slot[j] - 1] == k)
			return ix->slot[j] - 1;
	if (!insert)
		return N;
	keys[*n] = k;
	ix->slot[j] = ++*n;
	return *n - 1;
}

int main(void)
{
	struct px_hindex ix = { 0 };
	size_t n = 0, wrong = 0, again = 0, absent = 0;

	for (size_t i = 0; i < N; i++)
		wrong += find(&ix, &n, 3 * (uint64_t)i + 1, 1) != i;
	is_int(wrong, 0, "%d distinct keys inserted as entries 0..%d", N, N - 1);
	is_int(n, N, "the index holds them all");
	ok(ix.cap >= 2 * (size_t)N && !(ix.cap & (ix.cap - 1)),
	   "it stays at most half full, a power of two (%zu slots)", ix.cap);
	for (size_t i = 0; i < N; i++)
		again += find(&ix, &n, 3 * (uint64_t)i + 1, 1) != i;
	is_int(again, 0, "each found again after the index grew, none added");
	is_int(n, N, "still %d entries", N);
	for (size_t i = 0; i < N; i++)
		absent += find(&ix, &n, 3 * (uint64_t)i + 2, 0) != N;
	is_int(absent, 0, "keys never inserted are not found");
	px_hindex_free(&ix);
	ok(!ix.slot && !ix.cap, "freed, the index is empty again");
	return done_testing();
}
