#include "hindex.h"

#include <errno.h>
#include <stdlib.h>

int px_hindex_reserve(struct px_hindex *ix, size_t n,
		      uint64_t (*hash)(const void *arg, size_t i), const void *arg)
{
	size_t cap = ix->cap ? 2 * ix->cap : 256, *v;

	if (2 * (n + 1) <= ix->cap)
		return 0;
	while (2 * (n + 1) > cap)
		cap *= 2;
	v = calloc(cap, sizeof(*v));
	if (!v)
		return -ENOMEM;
	for (size_t i = 0; i < n; i++) {
		size_t j = (size_t)hash(arg, i) & (cap - 1);

		while (v[j])
			j = (j + 1) & (cap - 1);
		v[j] = i + 1;
	}
	free(ix->slot);
	ix->slot = v;
	ix->cap = cap;
	return 0;
}

void px_hindex_free(struct px_hindex *ix)
{
	free(ix->slot);
	ix->slot = NULL;
	ix->cap = 0;
}
