/* The module sampler's buffer sizing: a buffer of
 * px_module_smpl_buf_size() bytes holds exactly `entries` samples (each
 * half, for double-buffer) under the module's post-check, which keeps
 * room for its largest sample (all 64 PMDs).  The user-side writers of
 * formats/ apply the same rules as the kernel (kernel/pfm_smpl.c). */
#include "tap.h"
#include "sampler_module.h"
#include "default/px_dfl.h"
#include "double-buffer/px_dbl.h"

#include <stdlib.h>
#include <string.h>

/* samples of nbody values appended before the default buffer is full */
static long fill_dfl(size_t entries, unsigned nbody)
{
	uint64_t size = px_module_smpl_buf_size(PX_SMPL_DEFAULT, entries, nbody);
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
	uint64_t size = px_module_smpl_buf_size(PX_SMPL_DOUBLE_BUFFER, entries, nbody);
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
	is_int(px_module_smpl_buf_size(PX_SMPL_DEFAULT, 1, 0) % 8, 0, "a multiple of 8");
	is_int(px_module_smpl_buf_size(PX_SMPL_DEFAULT, 1, 0), 40 + 552,
	       "one entry: the header and the largest sample, the module's minimum");
	is_int(px_module_smpl_buf_size(PX_SMPL_DOUBLE_BUFFER, 1, 0), 120 + 2 * 552,
	       "double-buffer: two halves of the largest sample, the module's minimum");
	return done_testing();
}
