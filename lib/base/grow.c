#include "grow.h"
#include "error.h"

#include <errno.h>
#include <stdint.h>
#include <stdlib.h>

int px_grow_realloc(void **v, size_t *cap, size_t need, size_t elem, size_t first)
{
	size_t c = *cap ? *cap : first;
	void *nv;

	while (c < need) {
		if (c > SIZE_MAX / 2 / elem)
			return px_fail(ENOMEM, "out of memory");
		c *= 2;
	}
	nv = realloc(*v, c * elem);
	if (!nv)
		return px_fail(ENOMEM, "out of memory");
	*v = nv;
	*cap = c;
	return 0;
}
