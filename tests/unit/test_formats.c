/* The default, double-buffer and callchain sampling formats: byte layout against the
 * spec, the full condition at its boundary, rejection of bad buffers, and
 * random bytes fed to the readers. */
#include "tap.h"
#include "default/px_dfl.h"
#include "double-buffer/px_dbl.h"
#include "callchain/px_cc.h"
#include "error.h"

#include <errno.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#define OFF(t, f) offsetof(struct t, f)

static int nbody = 2;
static int body(void *arg, unsigned set, unsigned pmd)
{
	(void)arg;
	(void)set;
	return pmd < 8 ? nbody : -1;
}

struct seen {
	unsigned n;
	uint64_t ips[4096];
	int bad;
};

static int collect(void *arg, const struct px_sample *s)
{
	struct seen *w = arg;

	if (w->n < ARRAY_SIZE(w->ips))
		w->ips[w->n] = s->ip;
	w->bad += s->nvalues != (unsigned)nbody || s->values[0] != s->ip * 3 ||
		  s->values[nbody - 1] != s->ip * 5;
	w->n++;
	return 0;
}

static struct px_sample mk(uint64_t ip)
{
	struct px_sample s = {
		.pid = 10, .tid = 11, .ovfl_pmd = 1, .set = 0, .cpu = 1,
		.last_reset_val = (uint64_t)-1000, .tstamp = ip * 7, .ip = ip,
		.nvalues = (unsigned)nbody,
	};

	s.values[0] = ip * 3;
	s.values[nbody - 1] = ip * 5;
	return s;
}

static void layout(void)
{
	static const struct { int line; size_t got, want; const char *what; } rows[] = {
		{ ROW, sizeof(struct pfm_dfl_smpl_hdr), 40, "dfl hdr size" },
		{ ROW, OFF(pfm_dfl_smpl_hdr, hdr_count), 0, "hdr_count" },
		{ ROW, OFF(pfm_dfl_smpl_hdr, hdr_cur_offs), 8, "hdr_cur_offs" },
		{ ROW, OFF(pfm_dfl_smpl_hdr, hdr_overflows), 16, "hdr_overflows" },
		{ ROW, OFF(pfm_dfl_smpl_hdr, hdr_buf_size), 24, "hdr_buf_size" },
		{ ROW, OFF(pfm_dfl_smpl_hdr, hdr_version), 32, "hdr_version" },
		{ ROW, OFF(pfm_dfl_smpl_hdr, hdr_flags), 36, "hdr_flags" },
		{ ROW, sizeof(struct pfm_dfl_smpl_entry), 40, "dfl entry size" },
		{ ROW, OFF(pfm_dfl_smpl_entry, pid), 0, "pid" },
		{ ROW, OFF(pfm_dfl_smpl_entry, tid), 4, "tid" },
		{ ROW, OFF(pfm_dfl_smpl_entry, ovfl_pmd), 8, "ovfl_pmd" },
		{ ROW, OFF(pfm_dfl_smpl_entry, set), 10, "set" },
		{ ROW, OFF(pfm_dfl_smpl_entry, cpu), 12, "cpu" },
		{ ROW, OFF(pfm_dfl_smpl_entry, reserved1), 14, "entry padding" },
		{ ROW, OFF(pfm_dfl_smpl_entry, last_reset_val), 16, "last_reset_val" },
		{ ROW, OFF(pfm_dfl_smpl_entry, tstamp), 24, "tstamp" },
		{ ROW, OFF(pfm_dfl_smpl_entry, ip), 32, "ip" },
		{ ROW, sizeof(struct pfm_dfl_smpl_arg), 16, "dfl arg size" },
		{ ROW, sizeof(struct pfm_dfl_smpl_iip_entry), 8, "iip entry size" },
		{ ROW, sizeof(struct pfm_dbl_smpl_half), 32, "dbl half size" },
		{ ROW, sizeof(struct pfm_dbl_smpl_hdr), 120, "dbl hdr size" },
		{ ROW, OFF(pfm_dbl_smpl_hdr, hdr_half_size), 8, "hdr_half_size" },
		{ ROW, OFF(pfm_dbl_smpl_hdr, hdr_lost), 32, "dbl hdr_lost" },
		{ ROW, OFF(pfm_dbl_smpl_hdr, hdr_version), 40, "dbl hdr_version" },
		{ ROW, OFF(pfm_dbl_smpl_hdr, hdr_cur_half), 48, "hdr_cur_half" },
		{ ROW, OFF(pfm_dbl_smpl_hdr, hdr_half), 56, "hdr_half" },
		{ ROW, OFF(pfm_dbl_smpl_half, half_state), 24, "half_state" },
		{ ROW, sizeof(struct pfm_dbl_smpl_arg), 16, "dbl arg size" },
	};
	static const unsigned char uuid[16] = PFM_DFL_SMPL_UUID;

	for (size_t i = 0; i < ARRAY_SIZE(rows); i++)
		is_int_at(rows[i].line, rows[i].got, rows[i].want, "%s", rows[i].what);
	is_int(uuid[3], 0xc0, "default UUID 4d72bec0-... byte 3");
	is_int(uuid[15], 0x97, "default UUID byte 15");
	is_int(PFM_DFL_SMPL_VERSION, 0x10000, "default version 1.0");
	is_int(px_dfl_sample_size(0, 2), 56, "sample with two PMDs: 40 + 16");
	is_int(px_dfl_sample_size(PFM_DFL_SMPL_IIP_HDR, 2), 24, "IIP_HDR sample");
	is_int(px_dfl_sample_size(PFM_DFL_SMPL_NO_HDR, 2), 16, "NO_HDR sample");
}

/* Bytes as they must lie in memory, independent of the structure. */
static void bytes(void)
{
	uint64_t buf[64];
	unsigned char *b = (unsigned char *)buf;
	struct px_sample s = mk(0x401126);
	uint64_t v;
	uint32_t w;
	uint16_t h;

	px_dfl_init(buf, sizeof(buf), 0, px_dfl_max_sample_size(0, 2));
	px_dfl_append(buf, px_dfl_max_sample_size(0, 2), &s);
	memcpy(&v, b + 0, 8);
	is_int(v, 1, "byte 0: count 1");
	memcpy(&v, b + 8, 8);
	is_int(v, 40 + 56, "byte 8: next free offset after one sample");
	memcpy(&w, b + 40, 4);
	is_int(w, 10, "byte 40: pid");
	memcpy(&h, b + 48, 2);
	is_int(h, 1, "byte 48: ovfl_pmd");
	memcpy(&h, b + 52, 2);
	is_int(h, 1, "byte 52: cpu");
	memcpy(&v, b + 56, 8);
	is_int(v, (uint64_t)-1000, "byte 56: last reset value");
	memcpy(&v, b + 72, 8);
	is_int(v, 0x401126, "byte 72: ip");
	memcpy(&v, b + 80, 8);
	is_int(v, 0x401126 * 3, "byte 80: first body value");
}

static void full_boundary(void)
{
	size_t max = px_dfl_max_sample_size(0, 4);	/* 72: 4 PMDs implemented */
	size_t cap = 5, size = 40 + cap * max;
	uint64_t *buf = calloc(1, size + 8);
	struct px_sample s;
	int r = 0, i;
	struct seen w = { 0 };

	nbody = 2;		/* samples are 56 bytes, smaller than max */
	is_int(px_dfl_init(buf, size, 0, max), 0, "init %zu bytes", size);
	is_int(px_dfl_init(buf, 40 + max - 8, 0, max), -EINVAL,
	       "a buffer that cannot hold one maximum sample is refused");
	is_int(px_dfl_init(buf, size, 4, max), -EINVAL, "unknown flag refused");
	px_dfl_init(buf, size, 0, max);
	/* 56-byte samples: full once size - cur_offs < 72, i.e. after
	 * floor((360 - 72) / 56) + 1 = 6 samples */
	for (i = 0; i < 100 && r == 0; i++) {
		s = mk(0x1000 + (uint64_t)i);
		r = px_dfl_append(buf, max, &s);
	}
	is_int(r, 1, "the append that fills reports full");
	is_int(i, 6, "full after exactly 6 samples of 56 bytes (post-check with 72)");
	is_int(((struct pfm_dfl_smpl_hdr *)buf)->hdr_overflows, 1, "hdr_overflows 1");
	is_int(size - ((struct pfm_dfl_smpl_hdr *)buf)->hdr_cur_offs, 24,
	       "24 bytes wasted at the end, no partial sample");
	s = mk(1);
	is_int(px_dfl_append(buf, max, &s), -ENOSPC, "no append once full");
	is_int(px_dfl_read(buf, size, body, NULL, collect, &w), 0, "read it back");
	is_int(w.n, 6, "6 samples read");
	is_int(w.bad, 0, "bodies intact");
	is_int(w.ips[5], 0x1005, "last ip");

	/* exactly max-sized samples: buffer of cap maxima holds cap */
	nbody = 4;
	px_dfl_init(buf, size, 0, max);
	r = 0;
	for (i = 0; i < 100 && r == 0; i++) {
		s = mk(0x2000 + (uint64_t)i);
		r = px_dfl_append(buf, max, &s);
	}
	is_int(i, (int)cap, "maximum-size samples: full at exactly the capacity");
	px_dfl_reset(buf);
	is_int(((struct pfm_dfl_smpl_hdr *)buf)->hdr_count, 0, "restart empties");
	is_int(((struct pfm_dfl_smpl_hdr *)buf)->hdr_overflows, 1,
	       "restart keeps hdr_overflows");
	/* one byte less than cap maxima: full one sample earlier */
	px_dfl_init(buf, size - 8, 0, max);
	r = 0;
	for (i = 0; i < 100 && r == 0; i++) {
		s = mk(0x3000 + (uint64_t)i);
		r = px_dfl_append(buf, max, &s);
	}
	is_int(i, (int)cap - 1, "8 bytes short: full one sample earlier");
	free(buf);
}

static void flags_variants(void)
{
	uint64_t buf[64];
	struct px_sample s;
	struct seen w = { 0 };

	nbody = 2;
	s = mk(0x4242);
	px_dfl_init(buf, sizeof(buf), PFM_DFL_SMPL_IIP_HDR, 24);
	is_int(px_dfl_append(buf, 24, &s), 0, "IIP sample appended");
	px_dfl_append(buf, 24, &s);
	px_dfl_append(buf, 24, &s);
	is_int(px_dfl_read(buf, sizeof(buf), body, NULL, collect, &w), 0,
	       "IIP_HDR buffer reads");
	is_int(w.n, 3, "three IIP samples");
	is_int(w.ips[1], 0x4242, "IIP sample keeps the ip");
	is_int(px_dfl_init(buf, sizeof(buf), PFM_DFL_SMPL_IIP_HDR | PFM_DFL_SMPL_NO_HDR, 24),
	       -EINVAL, "NO_HDR with IIP_HDR refused");
}

static void corrupt(void)
{
	size_t max = px_dfl_max_sample_size(0, 2), size = 40 + 4 * max;
	uint64_t *buf = calloc(1, size), *copy = calloc(1, size);
	struct pfm_dfl_smpl_hdr *h = (void *)copy;
	struct px_sample s;

	nbody = 2;
	px_dfl_init(buf, size, 0, max);
	for (int i = 0; i < 3; i++) {
		s = mk(0x5000 + (uint64_t)i);
		px_dfl_append(buf, max, &s);
	}
#define RESET() memcpy(copy, buf, size)
	RESET();
	is_int(px_dfl_read(copy, size, body, NULL, NULL, NULL), 0, "intact buffer valid");
	is_int(px_dfl_read(copy, 39, body, NULL, NULL, NULL), -EINVAL, "shorter than header");
	ok(strstr(px_last_error(), "header") != NULL, "message: %s", px_last_error());
	is_int(px_dfl_read(copy, size - 8, body, NULL, NULL, NULL), -EINVAL, "truncated");
	ok(strstr(px_last_error(), "truncated") != NULL, "message: %s", px_last_error());
	h->hdr_count = 4;
	is_int(px_dfl_read(copy, size, body, NULL, NULL, NULL), -EPROTO, "count too high");
	diag("%s", px_last_error());
	RESET();
	h->hdr_count = 2;
	is_int(px_dfl_read(copy, size, body, NULL, NULL, NULL), -EPROTO, "count too low");
	RESET();
	h->hdr_cur_offs = size + 8;
	is_int(px_dfl_read(copy, size, body, NULL, NULL, NULL), -EPROTO, "offset past the end");
	RESET();
	h->hdr_cur_offs -= 4;
	is_int(px_dfl_read(copy, size, body, NULL, NULL, NULL), -EPROTO, "misaligned offset");
	RESET();
	h->hdr_version = 2 << 16;
	is_int(px_dfl_read(copy, size, body, NULL, NULL, NULL), -EPROTO, "other major version");
	RESET();
	h->hdr_flags = 0x80;
	is_int(px_dfl_read(copy, size, body, NULL, NULL, NULL), -EPROTO, "unknown flags");
	RESET();
	((struct pfm_dfl_smpl_entry *)(copy + 5))->ovfl_pmd = 9;
	is_int(px_dfl_read(copy, size, body, NULL, NULL, NULL), -EPROTO, "unknown PMD");
	RESET();
	((struct pfm_dfl_smpl_entry *)(copy + 5))->reserved1 = 1;
	is_int(px_dfl_read(copy, size, body, NULL, NULL, NULL), -EPROTO, "reserved not zero");
	free(buf);
	free(copy);
}

static void dbl(void)
{
	size_t max = px_dfl_max_sample_size(0, 2);	/* 56 */
	size_t size = 120 + 2 * 3 * max;		/* 3 samples per half */
	uint64_t *buf = calloc(1, size);
	struct pfm_dbl_smpl_hdr *h = (void *)buf;
	struct px_sample s;
	struct seen w = { 0 };
	int r[10];

	nbody = 2;
	is_int(px_dbl_init(buf, size, 0, max), 0, "double-buffer init");
	is_int(h->hdr_half_size, 3 * max, "half size");
	for (int i = 0; i < 3; i++) {
		s = mk(0x100 + (uint64_t)i);
		r[i] = px_dbl_append(buf, max, &s);
	}
	is_int(r[1], PX_DBL_RECORDED, "recording in half 0");
	is_int(r[2], PX_DBL_HALF_FULL, "third sample fills half 0: notify");
	is_int(h->hdr_cur_half, 1, "recording moved to half 1");
	is_int(px_dbl_next_full(buf), 0, "half 0 is the tool's");
	is_int(px_dbl_read(buf, size, 0, body, NULL, collect, &w), 0, "read half 0");
	is_int(w.n, 3, "3 samples in half 0");
	for (int i = 0; i < 3; i++) {
		s = mk(0x200 + (uint64_t)i);
		r[i] = px_dbl_append(buf, max, &s);
	}
	is_int(r[2], PX_DBL_CYCLED, "late tool: half 1 cycles");
	is_int(h->hdr_lost, 3, "3 samples lost by the cycle");
	is_int(h->hdr_cur_half, 1, "still recording in half 1");
	is_int(px_dbl_restart(buf), 0, "restart frees half 0 (active restart)");
	is_int(px_dbl_restart(buf), -ENOENT, "nothing more to free");
	for (int i = 0; i < 3; i++) {
		s = mk(0x300 + (uint64_t)i);
		r[i] = px_dbl_append(buf, max, &s);
	}
	is_int(r[2], PX_DBL_HALF_FULL, "half 1 fills, half 0 free: notify");
	is_int(h->hdr_half[1].half_seq, 2, "second full half has seq 2");

	/* MASK_WHEN_FULL */
	px_dbl_init(buf, size, PFM_DBL_SMPL_MASK_WHEN_FULL, max);
	for (int i = 0; i < 6; i++) {
		s = mk(0x400 + (uint64_t)i);
		r[i] = px_dbl_append(buf, max, &s);
	}
	is_int(r[2], PX_DBL_HALF_FULL, "mask-when-full: first half notifies");
	is_int(r[5], PX_DBL_MASKED, "second half full with the first held: masked");
	s = mk(1);
	is_int(px_dbl_append(buf, max, &s), -ENOSPC, "nothing recorded while masked");
	memset(&w, 0, sizeof(w));
	is_int(px_dbl_read(buf, size, -1, body, NULL, collect, &w), 0, "read all");
	is_int(w.n, 6, "both halves read");
	ok(w.ips[0] == 0x400 && w.ips[5] == 0x405, "oldest half first");
	is_int(px_dbl_restart(buf), 1, "restart ends the saturation (long reset)");
	is_int(h->hdr_cur_half, 0, "recording resumes in the freed half 0");
	is_int(h->hdr_half[0].half_count, 0, "freed half emptied");

	/* corrupt */
	h->hdr_half[1].half_cur_offs = size * 2;
	is_int(px_dbl_read(buf, size, -1, body, NULL, NULL, NULL), -EPROTO,
	       "half offset outside its half rejected");
	diag("%s", px_last_error());
	px_dbl_init(buf, size, 0, max);
	is_int(px_dbl_read(buf, size - 8, -1, body, NULL, NULL, NULL), -EINVAL,
	       "truncated double buffer rejected");
	h->hdr_half_size = size;
	is_int(px_dbl_read(buf, size, -1, body, NULL, NULL, NULL), -EPROTO,
	       "halves larger than the buffer rejected");
	free(buf);
}

/* Random bytes, random headers over valid buffers, and random lengths:
 * the readers must return an error or walk, never crash or read past len
 * (run under valgrind/ASan to see the latter; here each buffer is an
 * exactly-sized allocation). */
static void fuzz(void)
{
	unsigned seed = 12345;
	int errors = 0, walked = 0;

	nbody = 1;
	for (int it = 0; it < 20000; it++) {
		size_t len = (size_t)(rand_r(&seed) % 600);
		unsigned char *b = malloc(len ? len : 1);

		if (it % 2 && len >= 200) {
			/* a valid buffer with a few bytes flipped */
			size_t max = px_dfl_max_sample_size(0, 1);
			int dbl_fmt = it % 4 == 1;

			if (dbl_fmt)
				px_dbl_init(b, len & ~7ul, 0, max);
			else
				px_dfl_init(b, len & ~7ul, 0, max);
			for (int i = 0; i < 6; i++) {
				struct px_sample s = mk((uint64_t)i);

				if (dbl_fmt)
					px_dbl_append(b, max, &s);
				else
					px_dfl_append(b, max, &s);
			}
			for (int k = rand_r(&seed) % 4; k > 0; k--)
				b[(size_t)rand_r(&seed) % len] ^= (unsigned char)(1 + rand_r(&seed) % 255);
		} else {
			for (size_t i = 0; i < len; i++)
				b[i] = (unsigned char)rand_r(&seed);
		}
		int r1 = px_dfl_read(b, len, body, NULL, NULL, NULL);
		int r2 = px_dbl_read(b, len, -1, body, NULL, NULL, NULL);

		errors += (r1 < 0) + (r2 < 0);
		walked += !r1 + !r2;
		if ((r1 && r1 != -EINVAL && r1 != -EPROTO) ||
		    (r2 && r2 != -EINVAL && r2 != -EPROTO)) {
			ok(0, "fuzz: unexpected return %d/%d", r1, r2);
			free(b);
			return;
		}
		free(b);
	}
	ok(1, "fuzz: 20000 buffers, %d rejected, %d walked, no crash", errors, walked);
	ok(walked > 0 && errors > 0, "fuzz reached both outcomes");
}

/* A callchain sample as callchain() writes it: its frames, and its
 * registers and stack when it has them. */
static int chain_ok(void *arg, const struct px_sample *s)
{
	int *bad = arg;
	const unsigned char *st = s->stack;

	*bad += s->nr_kernel != 1 || s->nr_user != 2 || s->frames[0] != 0xffffffff81000010ull ||
		s->frames[2] != 0x401100;
	if (s->stack_size) {
		*bad += s->stack_size != 20 || s->regs[7] != 0x7ff000 || st[19] != 19;
		*bad += st[20] != 0;	/* the padding is zero */
	} else {
		*bad += s->regs[7] != 0;	/* no stack: zero registers */
	}
	return 0;
}

/* The callchain format: samples with frames, registers and a stack copy
 * read back as written; the header checks it shares with the default
 * format, and its own entry checks. */
static void callchain(void)
{
	uint32_t flags = PFM_CC_SMPL_KERNEL | PFM_CC_SMPL_USER | PFM_CC_SMPL_USER_STACK;
	uint64_t frames[3] = { 0xffffffff81000010ull, 0x401000, 0x401100 };
	uint64_t regs[PFM_CC_NREGS] = { 0 };
	unsigned char stack[20];
	size_t max = px_cc_max_sample_size(flags, 2, 8, 24), size = 40 + 4 * max;
	unsigned char *buf = calloc(1, size), *copy = malloc(size);
	struct pfm_dfl_smpl_hdr *h = (void *)buf;
	struct px_sample x = mk(0x401000);
	struct seen w = { 0 };

	for (size_t i = 0; i < sizeof(stack); i++)
		stack[i] = (unsigned char)i;
	regs[7] = 0x7ff000;
	x.nr_kernel = 1;
	x.nr_user = 2;
	x.frames = frames;
	x.regs = regs;
	x.stack = stack;
	x.stack_size = sizeof(stack);
	is_int(sizeof(struct pfm_cc_smpl_entry), 56, "cc entry size");
	is_int(px_cc_init(buf, size, flags, max), 0, "init");
	is_int(px_cc_append(buf, max, &x), 0, "append with a chain and a stack");
	x.regs = NULL;
	is_int(px_cc_append(buf, max, &x), 0, "append without a stack");
	is_int(px_cc_read(buf, size, collect, &w), 0, "read back");
	is_int(w.n, 2, "two samples");
	is_int(w.bad, 0, "their bodies");
	w.bad = 0;
	is_int(px_cc_read(buf, size, chain_ok, &w.bad), 0, "read the chains");
	is_int(w.bad, 0, "frames, registers, stack and padding as written");
	memcpy(copy, buf, size);
	is_int(px_cc_read(copy, 39, NULL, NULL), -EINVAL, "shorter than header");
	is_int(px_cc_read(copy, size - 8, NULL, NULL), -EINVAL, "truncated");
	h = (void *)copy;
	h->hdr_version = (PFM_CC_SMPL_VERSION_MAJ + 1) << 16;
	is_int(px_cc_read(copy, size, NULL, NULL), -EPROTO, "other major version");
	memcpy(copy, buf, size);
	h->hdr_flags = 0;
	is_int(px_cc_read(copy, size, NULL, NULL), -EPROTO, "no chain flag");
	memcpy(copy, buf, size);
	h->hdr_count = 3;
	is_int(px_cc_read(copy, size, NULL, NULL), -EPROTO, "count too high");
	memcpy(copy, buf, size);
	((struct pfm_cc_smpl_entry *)(copy + 40))->reserved2 = 1;
	is_int(px_cc_read(copy, size, NULL, NULL), -EPROTO, "reserved not zero");
	memcpy(copy, buf, size);
	((struct pfm_cc_smpl_entry *)(copy + 40))->nr_user = 400;
	is_int(px_cc_read(copy, size, NULL, NULL), -EPROTO, "frames past the samples");
	free(buf);
	free(copy);
}

int main(void)
{
	layout();
	bytes();
	full_boundary();
	flags_variants();
	corrupt();
	dbl();
	callchain();
	fuzz();
	return done_testing();
}
