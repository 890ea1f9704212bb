/* Growing an array by doubling: the one helper for the library's tables
 * that gain elements one or a few at a time. */
#ifndef PX_GROW_H
#define PX_GROW_H

#include <stddef.h>

/* The reallocation behind px_grow(). */
int px_grow_realloc(void **v, size_t *cap, size_t need, size_t elem, size_t first);

/* Make room in *v (*cap elements of elem bytes, n in use) for `more`
 * after the n: the capacity doubles from `first` until they fit.
 * 0, or -ENOMEM with px_last_error() (*v and *cap then unchanged).
 * Inline: on the hot paths (symbol index, profile keys, sample records)
 * the array mostly has room. */
static inline int px_grow(void **v, size_t *cap, size_t n, size_t more,
			  size_t elem, size_t first)
{
	return n + more <= *cap ? 0 : px_grow_realloc(v, cap, n + more, elem, first);
}

#endif
