/* The module sampler's buffer sizing: a buffer of
 * px_module_smpl_buf_size() bytes holds exactly `entries` samples (each
 * half, for double-buffer) under the module's post-check, which keeps
 * room for its largest sample (all 64 PMDs, and for the callchain format
 * max_frames frames).  The user-side writers of
 * formats/ apply the same rules as the kernel (kernel/pfm_smpl.c).
 * And the settings the module backend's sampling open() refuses before
 * it opens anything
 * (the sets at work are tested in the module suite, 72-smpl-sets). */
#include "tap.h"
#include "sampler_module.h"
#include "error.h"
#include "callchain/px_cc.h"
#include "default/px_dfl.h"
#include "double-buffer/px_dbl.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

/* samples of nbody values appended before the default buffer is full */
static long fill_dfl(size_t entries, unsigned nbody)
{
	uint64_t size = px_module_smpl_buf_size(PX_SMPL_DEFAULT, entries, nbody, 0);
	void *buf = calloc(1, size);
	struct px_sample s;
	long n = 0;
	int r;

	memset(&s, 0, sizeof(s));
	s.nvalues = nbody;
	if (!buf || px_dfl_init(buf, size, 0, PX_MODULE_MAX_SAMPLE))
		return -1;
	do {
		r = px_dfl_append(buf, PX_MODULE_MAX_SAMPLE, &s);
		n += r >= 0;
	} while (r == 0 && n < 1000000);
	free(buf);
	return r == 1 ? n : -1;
}

/* samples recorded in the first half before it is handed over */
static long fill_dbl(size_t entries, unsigned nbody)
{
	uint64_t size = px_module_smpl_buf_size(PX_SMPL_DOUBLE_BUFFER, entries, nbody, 0);
	void *buf = calloc(1, size);
	struct px_sample s;
	long n = 0;
	int r;

	memset(&s, 0, sizeof(s));
	s.nvalues = nbody;
	if (!buf || px_dbl_init(buf, size, 0, PX_MODULE_MAX_SAMPLE))
		return -1;
	do {
		r = px_dbl_append(buf, PX_MODULE_MAX_SAMPLE, &s);
		n += r >= 0;
	} while (r == PX_DBL_RECORDED && n < 1000000);
	free(buf);
	return r == PX_DBL_HALF_FULL ? n : -1;
}

/* samples of nbody values and max_frames frames (the largest chain the
 * perf backend's buffer is sized for) appended before the callchain
 * buffer is full, under the module's post-check */
static long fill_cc(size_t entries, unsigned nbody, unsigned max_frames)
{
	uint64_t size = px_module_smpl_buf_size(PX_SMPL_CALLCHAIN, entries,
						nbody, max_frames);
	size_t max = PX_MODULE_CC_MAX_SAMPLE(max_frames);
	uint64_t frames[PFM_CC_MAX_FRAMES] = { 0 };
	void *buf = calloc(1, size);
	struct px_sample s;
	long n = 0;
	int r;

	memset(&s, 0, sizeof(s));
	s.nvalues = nbody;
	s.nr_user = max_frames;
	s.frames = frames;
	if (!buf || px_cc_init(buf, size, PX_MODULE_CC_FLAGS, max))
		return -1;
	do {
		r = px_cc_append(buf, max, &s);
		n += r >= 0;
	} while (r == 0 && n < 1000000);
	free(buf);
	return r == 1 ? n : -1;
}

/* Two sets of one event each: set 0 a trigger, set 1 as given. */
static struct px_event evs[2];
static struct px_smpl_pmd pmds[2];
static struct px_event_set sets[65];
static const struct px_smpl_pmd *set_pmds[65];

static int open_sets(size_t nsets, uint64_t switch_ns, bool inherit,
		     enum px_callgraph cg)
{
	struct px_group_opts o = {
		.switch_ns = switch_ns, .pmds = set_pmds,
		.smpl = { .format = cg ? PX_SMPL_CALLCHAIN : PX_SMPL_DEFAULT,
			  .callgraph = cg },
	};
	struct px_target t = { .pid = 1, .cpu = -1, .inherit = inherit };
	struct px_group *s = NULL;
	int status[ARRAY_SIZE(sets)];
	int ret = px_backend_module.open(sets, nsets, &t, &o, status, &s);

	px_group_close(s);
	return ret;
}

static void set_up(void)
{
	memset(evs, 0, sizeof(evs));
	strcpy(evs[0].name, "e0");
	strcpy(evs[1].name, "e1");
	memset(pmds, 0, sizeof(pmds));
	pmds[0] = (struct px_smpl_pmd){ .long_period = 10, .switch_ovfls = 3 };
	pmds[1] = (struct px_smpl_pmd){ .long_period = 10 };
	for (size_t i = 0; i < ARRAY_SIZE(sets); i++) {
		sets[i] = (struct px_event_set){ .events = &evs[i % 2], .n = 1 };
		set_pmds[i] = &pmds[i % 2];
	}
}

static void refusals(void)
{
	static const struct {
		int line;
		size_t nsets;
		uint64_t switch_ns;
		bool inherit;
		int counting;	/* set 1's event has no period */
		int trigger1;	/* ... and a trigger count */
		enum px_callgraph cg;
		int want;
		const char *msg;
	} rows[] = {
		{ ROW, 0, 1000000, false, 0, 0, 0, -EINVAL, "at least one event set" },
		{ ROW, 65, 1000000, false, 0, 0, 0, -EINVAL, "at most 64 event sets" },
		{ ROW, 2, 0, false, 0, 0, 0, -EINVAL, "cannot switch sets every 0 ns" },
		{ ROW, 2, (1ull << 62) + 1, false, 0, 0, 0, -EINVAL, "cannot switch sets every" },
		{ ROW, 2, 1000000, false, 1, 0, 0, -EINVAL, "no event has a sampling period" },
		{ ROW, 2, 1000000, false, 1, 1, 0, -EINVAL, "'e1' only counts" },
		{ ROW, 2, 1000000, true, 0, 0, 0, -EOPNOTSUPP, "children" },
		{ ROW, 1, 0, false, 0, 0, PX_CALLGRAPH_DWARF, -EOPNOTSUPP,
		  "--call-graph=dwarf needs the perf backend" },
	};

	for (size_t i = 0; i < ARRAY_SIZE(rows); i++) {
		int ret;

		set_up();
		if (rows[i].counting)
			pmds[1].long_period = 0;
		if (rows[i].trigger1)
			pmds[1].switch_ovfls = 2;
		ret = open_sets(rows[i].nsets, rows[i].switch_ns, rows[i].inherit,
				rows[i].cg);
		is_int_at(rows[i].line, ret, rows[i].want, "open_sets refuses: %s",
			  rows[i].msg);
		ok_at(rows[i].line, strstr(px_last_error(), rows[i].msg) != NULL,
		      "... saying so: %s", px_last_error());
	}
}

int main(void)
{
	static const struct { size_t entries; unsigned nbody; } rows[] = {
		{ 1, 0 }, { 2, 0 }, { 100, 0 }, { 4096, 0 }, { 100, 1 },
		{ 7, 3 }, { 50, 63 }, { 10, 64 }, { 1, 64 },
	};

	for (size_t i = 0; i < ARRAY_SIZE(rows); i++) {
		is_int(fill_dfl(rows[i].entries, rows[i].nbody), (long)rows[i].entries,
		       "default: %zu entries of %u values fill the buffer",
		       rows[i].entries, rows[i].nbody);
		is_int(fill_dbl(rows[i].entries, rows[i].nbody), (long)rows[i].entries,
		       "double-buffer: %zu entries of %u values fill a half",
		       rows[i].entries, rows[i].nbody);
	}
	static const struct { size_t entries; unsigned nbody, frames; } cc_rows[] = {
		{ 1, 0, 1 }, { 2, 0, 127 }, { 100, 1, 127 }, { 7, 3, 2 },
		{ 50, 64, 512 }, { 1, 64, 512 }, { 4096, 1, 16 },
	};

	for (size_t i = 0; i < ARRAY_SIZE(cc_rows); i++)
		is_int(fill_cc(cc_rows[i].entries, cc_rows[i].nbody, cc_rows[i].frames),
		       (long)cc_rows[i].entries,
		       "callchain: %zu entries of %u values and %u frames fill the buffer",
		       cc_rows[i].entries, cc_rows[i].nbody, cc_rows[i].frames);
	is_int(px_module_smpl_buf_size(PX_SMPL_CALLCHAIN, 1, 0, 127),
	       40 + 56 + 512 + 8 * 127,
	       "callchain: one entry is the module's minimum for 127 frames");
	is_int(px_module_smpl_buf_size(PX_SMPL_DEFAULT, 1, 0, 0) % 8, 0, "a multiple of 8");
	is_int(px_module_smpl_buf_size(PX_SMPL_DEFAULT, 1, 0, 0), 40 + 552,
	       "one entry: the header and the largest sample, the module's minimum");
	is_int(px_module_smpl_buf_size(PX_SMPL_DOUBLE_BUFFER, 1, 0, 0), 120 + 2 * 552,
	       "double-buffer: two halves of the largest sample, the module's minimum");
	refusals();
	return done_testing();
}
