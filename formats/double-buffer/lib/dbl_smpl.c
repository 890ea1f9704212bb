/* The double-buffering sampling format, user side. */
#include "double-buffer/px_dbl.h"
#include "error.h"

#include <errno.h>
#include <string.h>

#define HDR_SIZE sizeof(struct pfm_dbl_smpl_hdr)

static uint64_t half_start(const struct pfm_dbl_smpl_hdr *h, unsigned i)
{
	return HDR_SIZE + i * h->hdr_half_size;
}

static void half_empty(struct pfm_dbl_smpl_hdr *h, unsigned i)
{
	h->hdr_half[i].half_count = 0;
	h->hdr_half[i].half_cur_offs = half_start(h, i);
	h->hdr_half[i].half_state = PFM_DBL_HALF_FREE;
}

int px_dbl_init(void *buf, size_t size, uint32_t flags, size_t max_sample)
{
	struct pfm_dbl_smpl_hdr *h = buf;
	uint64_t half;

	if (flags & ~PFM_DBL_SMPL_FLAGS || !max_sample || max_sample % 8 ||
	    size < HDR_SIZE)
		return -EINVAL;
	half = ((size - HDR_SIZE) / 2) & ~7ull;
	if (half < max_sample)
		return -EINVAL;
	memset(h, 0, sizeof(*h));
	h->hdr_buf_size = size;
	h->hdr_half_size = half;
	h->hdr_version = PFM_DBL_SMPL_VERSION;
	h->hdr_flags = flags;
	half_empty(h, 0);
	half_empty(h, 1);
	return 0;
}

int px_dbl_append(void *buf, size_t max_sample, const struct px_sample *s)
{
	struct pfm_dbl_smpl_hdr *h = buf;
	unsigned cur = h->hdr_cur_half & 1, other = cur ^ 1;
	struct pfm_dbl_smpl_half *c = &h->hdr_half[cur];
	uint64_t end = half_start(h, cur) + h->hdr_half_size;

	if (s->nvalues > PX_SMPL_MAX_PMDS ||
	    px_dfl_sample_size(0, s->nvalues) > max_sample)
		return -EINVAL;
	if (h->hdr_masked || end - c->half_cur_offs < max_sample)
		return -ENOSPC;
	c->half_cur_offs += px_smpl_put(buf, c->half_cur_offs, 0, s);
	c->half_count++;
	if (end - c->half_cur_offs >= max_sample)
		return PX_DBL_RECORDED;
	if (h->hdr_half[other].half_state == PFM_DBL_HALF_FREE) {
		c->half_state = PFM_DBL_HALF_FULL;
		c->half_seq = ++h->hdr_overflows;
		half_empty(h, other);
		h->hdr_cur_half = other;
		return PX_DBL_HALF_FULL;
	}
	if (h->hdr_flags & PFM_DBL_SMPL_MASK_WHEN_FULL) {
		c->half_state = PFM_DBL_HALF_FULL;
		c->half_seq = ++h->hdr_overflows;
		h->hdr_masked = 1;
		return PX_DBL_MASKED;
	}
	h->hdr_cycles++;
	h->hdr_lost += c->half_count;
	half_empty(h, cur);
	return PX_DBL_CYCLED;
}

int px_dbl_next_full(const void *buf)
{
	const struct pfm_dbl_smpl_hdr *h = buf;
	int best = -1;

	for (int i = 0; i < 2; i++)
		if (h->hdr_half[i].half_state == PFM_DBL_HALF_FULL &&
		    (best < 0 ||
		     h->hdr_half[i].half_seq < h->hdr_half[best].half_seq))
			best = i;
	return best;
}

int px_dbl_restart(void *buf)
{
	struct pfm_dbl_smpl_hdr *h = buf;
	int i = px_dbl_next_full(buf);

	if (i < 0)
		return -ENOENT;
	h->hdr_half[i].half_state = PFM_DBL_HALF_FREE;
	if (!h->hdr_masked)
		return 0;
	half_empty(h, (unsigned)i);
	h->hdr_cur_half = (unsigned)i;
	h->hdr_masked = 0;
	return 1;
}

static int check_half(const struct pfm_dbl_smpl_hdr *h, unsigned i)
{
	const struct pfm_dbl_smpl_half *p = &h->hdr_half[i];
	uint64_t start = half_start(h, i), end = start + h->hdr_half_size;

	if (p->half_state > PFM_DBL_HALF_FULL || p->half_reserved1)
		return px_fail(EPROTO,
			       "double-buffer: half %u has state %u and reserved 0x%x",
			       i, p->half_state, p->half_reserved1);
	if (p->half_cur_offs < start || p->half_cur_offs > end ||
	    p->half_cur_offs % 8)
		return px_fail(EPROTO,
			       "double-buffer: half %u next-free offset %llu is outside [%llu, %llu] or misaligned",
			       i, (unsigned long long)p->half_cur_offs,
			       (unsigned long long)start, (unsigned long long)end);
	if (p->half_count > (p->half_cur_offs - start) / 8)
		return px_fail(EPROTO,
			       "double-buffer: half %u: %llu samples cannot fit in %llu bytes",
			       i, (unsigned long long)p->half_count,
			       (unsigned long long)(p->half_cur_offs - start));
	return 0;
}

static int check_hdr(const void *buf, size_t len, struct pfm_dbl_smpl_hdr *h)
{
	int r;

	if (len < HDR_SIZE)
		return px_fail(EINVAL,
			       "double-buffer: %zu bytes is shorter than the %zu-byte header",
			       len, HDR_SIZE);
	memcpy(h, buf, sizeof(*h));
	if (h->hdr_version >> 16 != PFM_DBL_SMPL_VERSION_MAJ)
		return px_fail(EPROTO,
			       "double-buffer: version %u.%u, expected %u.x (not a double-buffer format buffer?)",
			       h->hdr_version >> 16, h->hdr_version & 0xffff,
			       PFM_DBL_SMPL_VERSION_MAJ);
	if (h->hdr_flags & ~PFM_DBL_SMPL_FLAGS || h->hdr_cur_half > 1 ||
	    h->hdr_masked > 1)
		return px_fail(EPROTO,
			       "double-buffer: bad flags 0x%x, current half %u or masked %u",
			       h->hdr_flags, h->hdr_cur_half, h->hdr_masked);
	if (h->hdr_buf_size > len)
		return px_fail(EINVAL,
			       "double-buffer: truncated: the header says %llu bytes, %zu are there",
			       (unsigned long long)h->hdr_buf_size, len);
	if (h->hdr_half_size % 8 || h->hdr_buf_size < HDR_SIZE ||
	    h->hdr_half_size > (h->hdr_buf_size - HDR_SIZE) / 2)
		return px_fail(EPROTO,
			       "double-buffer: halves of %llu bytes do not fit a %llu-byte buffer",
			       (unsigned long long)h->hdr_half_size,
			       (unsigned long long)h->hdr_buf_size);
	for (unsigned i = 0; i < 2; i++)
		if ((r = check_half(h, i)))
			return r;
	return 0;
}

static int walk_half(const void *buf, const struct pfm_dbl_smpl_hdr *h,
		     unsigned i, px_body_fn body, void *barg, px_sample_fn fn,
		     void *arg)
{
	return px_smpl_walk(buf, half_start(h, i), h->hdr_half[i].half_cur_offs,
			    h->hdr_half[i].half_count, 0, body, barg, fn, arg);
}

int px_dbl_read(const void *buf, size_t len, int half, px_body_fn body,
		void *barg, px_sample_fn fn, void *arg)
{
	struct pfm_dbl_smpl_hdr h;
	int r, first;

	if ((r = check_hdr(buf, len, &h)))
		return r;
	if (half == 0 || half == 1)
		return walk_half(buf, &h, (unsigned)half, body, barg, fn, arg);
	if (half != -1)
		return px_fail(EINVAL, "double-buffer: no half %d", half);
	first = px_dbl_next_full(&h);
	if (first >= 0) {
		if ((r = walk_half(buf, &h, (unsigned)first, body, barg, fn, arg)))
			return r;
		if (h.hdr_half[first ^ 1].half_state == PFM_DBL_HALF_FULL)
			return walk_half(buf, &h, (unsigned)first ^ 1, body,
					 barg, fn, arg);
	}
	if (h.hdr_half[h.hdr_cur_half].half_state == PFM_DBL_HALF_FULL)
		return 0;
	return walk_half(buf, &h, h.hdr_cur_half, body, barg, fn, arg);
}
