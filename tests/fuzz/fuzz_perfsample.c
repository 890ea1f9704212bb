/* The perf sampler's decoder of its samples' ring (lib/backend/perf/
 * sampler_perf.c: decode, static, so the file is included here): sample,
 * lost and throttle records as the ring hands them over, through the
 * formats' accounting to the tool's on_sample.  The first 4 bytes shape
 * the sampler (its PMDs, which of them sample, the group's values read
 * with each sample, the call graph, the format, the frames per chain);
 * the rest is the records, each a perf_event_header and its body. */
#include "fuzz.h"
#include "../../lib/backend/perf/sampler_perf.c"

#define NPMDS 4

static volatile uint64_t sink;

/* Read what a tool reads of each sample: its values, frames and stack. */
static int on_sample(void *arg, const struct px_sample *x)
{
	uint64_t sum = x->ip;

	(void)arg;
	for (unsigned i = 0; i < x->nvalues; i++)
		sum += x->values[i];
	for (unsigned i = 0; i < x->nr_kernel + x->nr_user; i++)
		sum += x->frames[i];
	if (x->stack_size) {
		const unsigned char *st = x->stack;

		sum += st[0] + st[x->stack_size - 1] + x->regs[0];
	}
	sink = sum;
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const enum px_smpl_format formats[] = {
		PX_SMPL_DEFAULT, PX_SMPL_DOUBLE_BUFFER, PX_SMPL_CALLCHAIN,
	};
	static struct px_sampler s;
	struct pmd_state pmd[NPMDS];
	uint64_t ids[NPMDS];
	int fds[NPMDS];
	struct ring r;
	struct ring_ctx ctx = { &s, &r };
	size_t off = 4;

	if (size < off)
		return 0;
	memset(&s, 0, sizeof(s));
	memset(pmd, 0, sizeof(pmd));
	memset(&r, 0, sizeof(r));
	s.n = 1 + data[0] % NPMDS;
	s.read_group = data[0] & 4;
	s.o.callgraph = (enum px_callgraph)(data[1] % 3);
	s.o.format = formats[data[1] / 3 % 3];
	s.o.entries = 1 + data[2] % 64;
	s.o.mask_when_full = data[2] & 64;
	s.max_frames = 1 + data[2] % PX_CALLGRAPH_MAX_FRAMES;
	s.o.on_sample = on_sample;
	for (size_t i = 0; i < s.n; i++) {
		/* PMD 0 samples; the others as the bits say.  Fixed periods:
		 * no change to tell a kernel that is not there */
		pmd[i].cfg.long_period = !i || data[3] >> i & 1 ? 1000 : 0;
		pmd[i].cfg.smpl_pmds = data[3] >> 4;
		pmd[i].cfg.notify = data[0] & 8;
		pmd[i].cur_period = pmd[i].kperiod = 1000;
		pmd[i].nbody = (unsigned)__builtin_popcount(data[3] >> 4 & ((1u << s.n) - 1));
		pmd[i].same_as = -1;
		ids[i] = i + 1;
		fds[i] = -1;
	}
	s.pmd = pmd;
	r.ids = ids;
	r.fds = fds;
	s.rings = &r;
	s.nrings = 1;
	if (init_buffer(&s))
		goto out;
	/* the records, each copied whole and aligned as the ring's are,
	 * into memory of its size alone: a read past it is a finding */
	while (size - off >= sizeof(struct perf_event_header)) {
		struct perf_event_header h;
		uint64_t *rec;
		int ret;

		memcpy(&h, data + off, sizeof(h));
		if (h.size < sizeof(h) || h.size > size - off || h.size % 8)
			break;
		if (!(rec = malloc(h.size)))
			abort();
		memcpy(rec, data + off, h.size);
		ret = decode(&ctx, off, (const unsigned char *)rec, h.size);
		free(rec);
		if (ret < 0)
			break;
		off += h.size;
	}
out:
	free(s.buf);
	return 0;
}
