/* pfmon's option lists: --priv-levels ("u,k,uk,..."), and the sampling
 * specifications turned into the samplers' settings: --long-smpl-periods
 * and --short-smpl-periods ("N,..."), --smpl-periods-random
 * ("MASK:SEED,..."), --switch-ovfls, --call-graph ("fp", "dwarf,BYTES"),
 * --smpl-module.  The first byte picks the number of events, the buffer
 * and the chains' sizes and flags; the rest is the option values, one a
 * line in that order. */
#include "fuzz.h"
#include "events.h"
#include "smpl_spec.h"

#include <stdlib.h>
#include <string.h>

#define NFIELDS 7

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct px_event events[8];
	struct px_event_set set = { events, 0 };
	struct px_smpl_set_spec ss = { 0 };
	struct px_smpl_spec sp = { .sets = &ss, .nsets = 1 };
	struct px_smpl_pmd *pmds = NULL;
	struct px_smpl_opts o;
	const char *field[NFIELDS] = { 0 };
	char *s, *p;

	if (!size)
		return 0;
	set.n = 1 + data[0] % 8;
	memset(events, 0, sizeof(events));
	s = fuzz_string(data + 1, size - 1);
	p = s;
	for (size_t i = 0; i < NFIELDS && p; i++) {
		field[i] = *p ? p : NULL;
		if ((p = strchr(p, '\n')))
			*p++ = 0;
	}
	(void)px_event_sets_levels(&set, 1, data[0] & 8, data[0] & 16, field[0]);
	ss.long_periods = field[1] ? field[1] : "1000";
	ss.short_periods = field[2];
	ss.random = field[3];
	ss.switch_ovfls = field[4];
	sp.call_graph = field[5];
	sp.module = field[6];
	sp.entries = data[0] & 32 ? (long)(data[0] >> 6) - 1 : 0;
	sp.saturate = data[0] & 64;
	sp.no_block = data[0] & 128;
	sp.max_frames = (long)(data[0] % 200) - 10;
	memset(&o, 0, sizeof(o));
	if (!px_smpl_spec_build(&sp, 0, set.n, &pmds, &o))
		free(pmds);
	free(s);
	return 0;
}
