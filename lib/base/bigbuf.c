#include "bigbuf.h"

#include <errno.h>
#include <sys/mman.h>
#include <unistd.h>

#ifndef MADV_POPULATE_WRITE
#define MADV_POPULATE_WRITE 23	/* Linux 5.14; older kernels say EINVAL */
#endif

enum { BIGBUF_MIN = 1 << 20 };

int px_bigbuf_reserve(struct px_bigbuf *b, size_t more)
{
	size_t page, cap = b->cap ? b->cap : BIGBUF_MIN;
	void *p;

	if (b->cap - b->len >= more && b->p)
		return 0;
	if (more > (size_t)-1 / 4 - b->len)
		return -ENOMEM;
	page = (size_t)sysconf(_SC_PAGESIZE);
	while (cap - b->len < more)
		cap *= 2;
	cap = (cap + page - 1) & ~(page - 1);
	if (!b->p)
		p = mmap(NULL, cap, PROT_READ | PROT_WRITE,
			 MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE, -1, 0);
	else
		p = mremap(b->p, b->cap, cap, MREMAP_MAYMOVE);
	if (p == MAP_FAILED)
		return -ENOMEM;
	/* only a hint: without it the pages fault in one by one */
	if (b->p)
		madvise((char *)p + b->cap, cap - b->cap, MADV_POPULATE_WRITE);
	b->p = p;
	b->cap = cap;
	return 0;
}

void *px_bigbuf_append(struct px_bigbuf *b, size_t n)
{
	void *at;

	if (px_bigbuf_reserve(b, n))
		return NULL;
	at = b->p + b->len;
	b->len += n;
	return at;
}

void px_bigbuf_free(struct px_bigbuf *b)
{
	if (b->p)
		munmap(b->p, b->cap);
	b->p = NULL;
	b->len = b->cap = 0;
}
