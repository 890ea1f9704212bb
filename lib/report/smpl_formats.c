/* --smpl-module-info: the sampling formats, their layouts and flags, and
 * those the perfmon module has loaded. */
#include "smpl_report.h"
#include "callchain/perfmon_cc_smpl.h"
#include "default/perfmon_dfl_smpl.h"
#include "double-buffer/perfmon_dbl_smpl.h"
#include "error.h"
#include "perfmon.h"
#include "sampler_module.h"

#include <stdio.h>

/* What the perfmon module has loaded: each format a module of its own
 * that registered with it (kernel/README.md). */
static void print_kernel_formats(FILE *f)
{
	struct px_module_format fmts[PX_MODULE_FORMATS_MAX];
	size_t n = 0;

	if (px_module_formats(fmts, PX_MODULE_FORMATS_MAX, &n)) {
		fprintf(f, "loaded in the kernel: none (%s)\n", px_last_error());
		return;
	}
	fprintf(f, "loaded in the kernel (perfmon.ko, --backend=module): %zu format%s\n",
		n, n == 1 ? "" : "s");
	for (size_t i = 0; i < n; i++) {
		fprintf(f, "  %-16s ", fmts[i].name);
		for (int b = 0; b < 16; b++)
			fprintf(f, "%02x%s", fmts[i].uuid[b],
				b == 3 || b == 5 || b == 7 || b == 9 ? "-" : "");
		fprintf(f, "%s\n", fmts[i].flags & PFM_FMTFL_NOSET ? "  set 0 only" : "");
	}
}

void px_smpl_formats_print(FILE *f)
{
	fprintf(f,
		"%s: spec section 3.6.  One buffer: a header (count, current offset,\n"
		"  buffer-full events) then samples, each an entry header (pid, tid, cpu,\n"
		"  set, overflowed PMD, last reset value, timestamp, IP) and the sampled\n"
		"  PMDs in increasing register order.  When fewer bytes than the largest\n"
		"  sample remain the buffer is full: with notification the tool takes the\n"
		"  samples and restarts it (nothing is lost); with --smpl-saturate recording\n"
		"  stops and the buffer keeps its first samples.\n"
		"  layout: formats/default/perfmon_dfl_smpl.h, version %d.%d\n",
		PFM_DFL_SMPL_NAME, PFM_DFL_SMPL_VERSION_MAJ, PFM_DFL_SMPL_VERSION_MIN);
	fprintf(f,
		"%s: spec section 6.3.1.  Two halves of --smpl-entries samples each:\n"
		"  when one fills the tool is notified and recording goes on in the other;\n"
		"  a restart frees the half the tool has read.  When the tool is late it\n"
		"  cycles in its own half (counted as overwritten), or with --smpl-saturate\n"
		"  (MASK_WHEN_FULL) stops until a half is freed.\n"
		"  layout: formats/double-buffer/perfmon_dbl_smpl.h, version %d.%d\n",
		PFM_DBL_SMPL_NAME, PFM_DBL_SMPL_VERSION_MAJ, PFM_DBL_SMPL_VERSION_MIN);
	fprintf(f,
		"%s: the default format's samples, each with its call chain: kernel\n"
		"  frames then user frames, innermost first, and with --call-graph=dwarf\n"
		"  (perf backend) the user registers and a copy of the user stack, unwound\n"
		"  after the run.  Chosen by --call-graph; notifies and saturates as the\n"
		"  default format does.\n"
		"  layout: formats/callchain/perfmon_cc_smpl.h, version %d.%d\n",
		PFM_CC_SMPL_NAME, PFM_CC_SMPL_VERSION_MAJ, PFM_CC_SMPL_VERSION_MIN);
	print_kernel_formats(f);
}
