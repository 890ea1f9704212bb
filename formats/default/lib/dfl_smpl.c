/* The default sampling format, user side: record and read samples. */
#include "default/px_dfl.h"
#include "error.h"

#include <errno.h>
#include <string.h>

#define HDR_SIZE sizeof(struct pfm_dfl_smpl_hdr)

static size_t entry_size(uint32_t flags)
{
	if (flags & PFM_DFL_SMPL_NO_HDR)
		return 0;
	if (flags & PFM_DFL_SMPL_IIP_HDR)
		return sizeof(struct pfm_dfl_smpl_iip_entry);
	return sizeof(struct pfm_dfl_smpl_entry);
}

static int flags_valid(uint32_t flags)
{
	return !(flags & ~PFM_DFL_SMPL_FLAGS) &&
	       (flags & PFM_DFL_SMPL_FLAGS) != PFM_DFL_SMPL_FLAGS;
}

size_t px_dfl_sample_size(uint32_t flags, unsigned npmds)
{
	return entry_size(flags) + 8 * (size_t)npmds;
}

size_t px_dfl_max_sample_size(uint32_t flags, unsigned npmds)
{
	return px_dfl_sample_size(flags, npmds);
}

int px_dfl_hdr_init(void *buf, size_t size, uint32_t version, uint32_t flags,
		    size_t max_sample)
{
	struct pfm_dfl_smpl_hdr h;

	if (size % 8 || max_sample % 8 || size < HDR_SIZE + max_sample)
		return -EINVAL;
	memset(&h, 0, sizeof(h));
	h.hdr_cur_offs = HDR_SIZE;
	h.hdr_buf_size = size;
	h.hdr_version = version;
	h.hdr_flags = flags;
	memcpy(buf, &h, sizeof(h));
	return 0;
}

int px_dfl_init(void *buf, size_t size, uint32_t flags, size_t max_sample)
{
	if (!flags_valid(flags) || !max_sample)
		return -EINVAL;
	return px_dfl_hdr_init(buf, size, PFM_DFL_SMPL_VERSION, flags, max_sample);
}

int px_dfl_full(const void *buf, size_t max_sample)
{
	const struct pfm_dfl_smpl_hdr *h = buf;

	return h->hdr_buf_size - h->hdr_cur_offs < max_sample;
}

size_t px_smpl_put(void *base, size_t offs, uint32_t flags,
		   const struct px_sample *s)
{
	unsigned char *p = (unsigned char *)base + offs;
	size_t n = entry_size(flags);

	if (flags & PFM_DFL_SMPL_NO_HDR) {
		/* nothing but the body */
	} else if (flags & PFM_DFL_SMPL_IIP_HDR) {
		struct pfm_dfl_smpl_iip_entry e = { .ip = s->ip };

		memcpy(p, &e, sizeof(e));
	} else {
		struct pfm_dfl_smpl_entry e = {
			.pid = s->pid, .tid = s->tid, .ovfl_pmd = s->ovfl_pmd,
			.set = s->set, .cpu = s->cpu,
			.last_reset_val = s->last_reset_val,
			.tstamp = s->tstamp, .ip = s->ip,
		};

		memcpy(p, &e, sizeof(e));
	}
	memcpy(p + n, s->values, 8 * (size_t)s->nvalues);
	return n + 8 * (size_t)s->nvalues;
}

int px_dfl_take(void *buf, size_t need, size_t max_sample, size_t *offs)
{
	struct pfm_dfl_smpl_hdr *h = buf;

	if (need > max_sample || !need)
		return -EINVAL;
	if (h->hdr_buf_size - h->hdr_cur_offs < max_sample)
		return -ENOSPC;
	*offs = h->hdr_cur_offs;
	h->hdr_cur_offs += need;
	h->hdr_count++;
	/* the post-check: is there room for the largest possible sample? */
	if (h->hdr_buf_size - h->hdr_cur_offs < max_sample) {
		h->hdr_overflows++;
		return 1;
	}
	return 0;
}

int px_dfl_append(void *buf, size_t max_sample, const struct px_sample *s)
{
	const struct pfm_dfl_smpl_hdr *h = buf;
	size_t offs;
	int r;

	if (s->nvalues > PX_SMPL_MAX_PMDS)
		return -EINVAL;
	r = px_dfl_take(buf, px_dfl_sample_size(h->hdr_flags, s->nvalues), max_sample, &offs);
	if (r >= 0)
		px_smpl_put(buf, offs, h->hdr_flags, s);
	return r;
}

void px_dfl_reset(void *buf)
{
	struct pfm_dfl_smpl_hdr *h = buf;

	h->hdr_count = 0;
	h->hdr_cur_offs = HDR_SIZE;
}

int px_smpl_walk(const void *base, size_t start, size_t end, uint64_t count,
		 uint32_t flags, px_body_fn body, void *barg,
		 px_sample_fn fn, void *arg)
{
	const unsigned char *b = base;
	size_t esz = entry_size(flags), off = start;
	struct px_sample s;

	for (uint64_t i = 0; i < count; i++) {
		int nb;

		memset(&s, 0, sizeof(s));
		if (end - off < esz)
			return px_fail(EPROTO,
				       "sampling buffer: sample %llu of %llu is cut at byte %zu (samples end at %zu)",
				       (unsigned long long)i,
				       (unsigned long long)count, off, end);
		if (esz == sizeof(struct pfm_dfl_smpl_entry)) {
			struct pfm_dfl_smpl_entry e;

			memcpy(&e, b + off, sizeof(e));
			if (e.reserved1)
				return px_fail(EPROTO,
					       "sampling buffer: sample %llu at byte %zu has a non-zero reserved field",
					       (unsigned long long)i, off);
			s.pid = e.pid;
			s.tid = e.tid;
			s.ovfl_pmd = e.ovfl_pmd;
			s.set = e.set;
			s.cpu = e.cpu;
			s.last_reset_val = e.last_reset_val;
			s.tstamp = e.tstamp;
			s.ip = e.ip;
		} else if (esz) {
			memcpy(&s.ip, b + off, 8);
		}
		off += esz;
		nb = body ? body(barg, s.set, s.ovfl_pmd) : 0;
		if (nb < 0 || nb > PX_SMPL_MAX_PMDS)
			return px_fail(EPROTO,
				       "sampling buffer: sample %llu at byte %zu names PMD %u of set %u, which is not a sampling PMD of this measurement",
				       (unsigned long long)i, off - esz,
				       s.ovfl_pmd, s.set);
		if (!esz && !nb)
			return px_fail(EINVAL,
				       "sampling buffer: samples without header need a body");
		if ((end - off) / 8 < (size_t)nb)
			return px_fail(EPROTO,
				       "sampling buffer: the body of sample %llu is cut at byte %zu (samples end at %zu)",
				       (unsigned long long)i, off, end);
		s.nvalues = (unsigned)nb;
		memcpy(s.values, b + off, 8 * (size_t)nb);
		off += 8 * (size_t)nb;
		if (fn) {
			int r = fn(arg, &s);

			if (r)
				return r;
		}
	}
	if (off != end)
		return px_fail(EPROTO,
			       "sampling buffer: %llu samples end at byte %zu but the header says %zu",
			       (unsigned long long)count, off, end);
	return 0;
}

int px_dfl_hdr_check(const void *buf, size_t len, const char *what, const char *format,
		     uint32_t major, int (*flags_ok)(uint32_t), size_t min_sample,
		     struct pfm_dfl_smpl_hdr *h)
{
	if (len < HDR_SIZE)
		return px_fail(EINVAL, "%s: %zu bytes is shorter than the %zu-byte header",
			       what, len, HDR_SIZE);
	memcpy(h, buf, sizeof(*h));
	if (h->hdr_version >> 16 != major)
		return px_fail(EPROTO, "%s: version %u.%u, expected %u.x (not a %s-format buffer?)",
			       what, h->hdr_version >> 16, h->hdr_version & 0xffff, major,
			       format);
	if (!flags_ok(h->hdr_flags))
		return px_fail(EPROTO, "%s: unknown flags 0x%x", what, h->hdr_flags);
	if (h->hdr_buf_size > len)
		return px_fail(EINVAL,
			       "%s: truncated: the header says %llu bytes, %zu are there",
			       what, (unsigned long long)h->hdr_buf_size, len);
	if (h->hdr_cur_offs < HDR_SIZE || h->hdr_cur_offs > h->hdr_buf_size ||
	    h->hdr_cur_offs % 8)
		return px_fail(EPROTO,
			       "%s: next-free offset %llu is outside [%zu, %llu] or misaligned",
			       what, (unsigned long long)h->hdr_cur_offs, HDR_SIZE,
			       (unsigned long long)h->hdr_buf_size);
	if (h->hdr_count > (h->hdr_cur_offs - HDR_SIZE) / min_sample)
		return px_fail(EPROTO, "%s: %llu samples cannot fit in %llu bytes",
			       what, (unsigned long long)h->hdr_count,
			       (unsigned long long)(h->hdr_cur_offs - HDR_SIZE));
	return 0;
}

int px_dfl_read(const void *buf, size_t len, px_body_fn body, void *barg,
		px_sample_fn fn, void *arg)
{
	struct pfm_dfl_smpl_hdr h;
	int ret = px_dfl_hdr_check(buf, len, "sampling buffer", "default",
				   PFM_DFL_SMPL_VERSION_MAJ, flags_valid, 8, &h);

	if (ret)
		return ret;
	return px_smpl_walk(buf, HDR_SIZE, h.hdr_cur_offs, h.hdr_count,
			    h.hdr_flags, body, barg, fn, arg);
}
