/* pprof's main binary (lib/report/pprof_mapping.c): the mapping written
 * first is the command's program whatever order the samples reached the
 * files in: the kernel, an address in no known file ("??"), the loader
 * and libc before the program, the program mapped after a library of
 * another process; the program chosen by its mapping's time, then by the
 * order recorded (an attached task's /proc read, times of 0). */
#include "tap.h"
#include "pprof_int.h"

#include <stdlib.h>
#include <string.h>

#define PROG "/usr/bin/prog"
#define LIBC "/usr/lib/x86_64-linux-gnu/libc.so.6"
#define LDSO "/usr/lib/x86_64-linux-gnu/ld-linux-x86-64.so.2"
#define OTHER "/usr/bin/other"

static struct px_mapping map(const char *path, uint64_t start, uint64_t time)
{
	struct px_mapping m = { .pid = 1, .tid = 1, .start = start, .len = 0x1000, .time = time };

	snprintf(m.path, sizeof(m.path), "%s", path);
	return m;
}

/* The profile's mappings as the samples reached files, in order; the
 * name of the one to be written first. */
static const char *main_of(struct px_mapping *maps, size_t nmaps, const char *const *hits,
			   size_t nhits)
{
	static char name[64];
	struct px_smpl_session s = { .maps = maps, .nmaps = nmaps };
	struct px_pprof *p = calloc(1, sizeof(*p));
	uint64_t ip;

	p->session = &s;
	pp_string(p, "");
	for (size_t i = 0; i < nhits; i++) {
		ip = 0xffffffff81000000ull;
		for (size_t k = 0; k < nmaps; k++)
			if (!strcmp(maps[k].path, hits[i]))
				ip = maps[k].start + 0x10;
		pp_mapping_of(p, (uint32_t)pp_string(p, hits[i]), ip);
	}
	snprintf(name, sizeof(name), "%s", pp_string_at(p, p->mappings[pp_main_mapping(p)].file));
	free(p->chars);
	free(p->strings);
	px_hindex_free(&p->string_ix);
	free(p->mappings);
	free(p);
	return name;
}

int main(void)
{
	/* a command's run: the program mapped at its exec, then its loader
	 * and libc; the first samples in the kernel and at an unknown address */
	struct px_mapping run[] = { map(PROG, 0x555500000000, 100), map(LDSO, 0x7f0000001000, 101),
				    map(LIBC, 0x7f0000100000, 150) };
	const char *kernel_first[] = { "[kernel]", "??", LDSO, LIBC, PROG };

	is_str(main_of(run, 3, kernel_first, 5), PROG, "kernel, ?? and libraries first: the program");
	/* the records of another group drained first: a later program (the
	 * command's child exec'd another) and a library before it */
	struct px_mapping groups[] = { map(LIBC, 0x7f0000100000, 150), map(OTHER, 0x560000000000, 300),
				       map(PROG, 0x555500000000, 100) };
	const char *other_first[] = { OTHER, LIBC, PROG };

	is_str(main_of(groups, 3, other_first, 3), PROG, "the program mapped first, not the one recorded first");
	/* an attached task read from /proc: no times, its program first */
	struct px_mapping attached[] = { map(PROG, 0x400000, 0), map(LIBC, 0x7f0000100000, 0) };
	const char *libc_first[] = { LIBC, "[vdso]", PROG };

	is_str(main_of(attached, 2, libc_first, 3), PROG, "no times: the program recorded first");
	/* the samples never reached the program: the first program they
	 * reached, never "??" or the kernel */
	const char *no_prog[] = { "[kernel]", "??", LIBC, OTHER };

	is_str(main_of(run, 3, no_prog, 4), OTHER, "the first program the samples reached");
	return done_testing();
}
