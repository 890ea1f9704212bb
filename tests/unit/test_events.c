/* Event parsing on the tables every machine has (libpfm4's perf and
 * perf_raw): perf names, pmu::NAME, :u/:k, raw encodings, breakpoints,
 * lists and every error path. */
#include "tap.h"

#include "error.h"
#include "events.h"

#include <errno.h>
#include <linux/perf_event.h>
#include <stdlib.h>

static const struct {
	int line;
	const char *spec;
	uint32_t type;
	uint64_t config;
	bool excl_user, excl_kernel, priv_explicit;
	const char *encoded_prefix;
} good[] = {
	{ ROW, "page-faults", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_PAGE_FAULTS,
	  false, false, false, "perf::PERF_COUNT_SW_PAGE_FAULTS" },
	{ ROW, "PAGE-FAULTS", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_PAGE_FAULTS,
	  false, false, false, "perf::PERF_COUNT_SW_PAGE_FAULTS" },
	{ ROW, "task-clock", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_TASK_CLOCK,
	  false, false, false, "perf::PERF_COUNT_SW_TASK_CLOCK" },
	{ ROW, "context-switches", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CONTEXT_SWITCHES,
	  false, false, false, "perf::PERF_COUNT_SW_CONTEXT_SWITCHES" },
	{ ROW, "cpu-migrations", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CPU_MIGRATIONS,
	  false, false, false, "perf::PERF_COUNT_SW_CPU_MIGRATIONS" },
	{ ROW, "cpu-clock", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CPU_CLOCK,
	  false, false, false, "perf::PERF_COUNT_SW_CPU_CLOCK" },
	{ ROW, "cycles", PERF_TYPE_HARDWARE, PERF_COUNT_HW_CPU_CYCLES,
	  false, false, false, "perf::PERF_COUNT_HW_CPU_CYCLES" },
	{ ROW, "instructions", PERF_TYPE_HARDWARE, PERF_COUNT_HW_INSTRUCTIONS,
	  false, false, false, "perf::PERF_COUNT_HW_INSTRUCTIONS" },
	{ ROW, "branch-misses", PERF_TYPE_HARDWARE, PERF_COUNT_HW_BRANCH_MISSES,
	  false, false, false, "perf::PERF_COUNT_HW_BRANCH_MISSES" },
	/* libpfm4's full names */
	{ ROW, "perf::PERF_COUNT_SW_PAGE_FAULTS", PERF_TYPE_SOFTWARE,
	  PERF_COUNT_SW_PAGE_FAULTS, false, false, false,
	  "perf::PERF_COUNT_SW_PAGE_FAULTS" },
	{ ROW, "PERF_COUNT_SW_CONTEXT_SWITCHES", PERF_TYPE_SOFTWARE,
	  PERF_COUNT_SW_CONTEXT_SWITCHES, false, false, false,
	  "perf::PERF_COUNT_SW_CONTEXT_SWITCHES" },
	{ ROW, "perf::page-faults", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_PAGE_FAULTS,
	  false, false, false, "perf::PERF_COUNT_SW_PAGE_FAULTS" },
	/* privilege-level modifiers */
	{ ROW, "page-faults:u", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_PAGE_FAULTS,
	  false, true, true, "perf::PERF_COUNT_SW_PAGE_FAULTS:u=1:k=0" },
	{ ROW, "page-faults:k", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_PAGE_FAULTS,
	  true, false, true, "perf::PERF_COUNT_SW_PAGE_FAULTS:u=0:k=1" },
	{ ROW, "perf::PERF_COUNT_SW_TASK_CLOCK:u", PERF_TYPE_SOFTWARE,
	  PERF_COUNT_SW_TASK_CLOCK, false, true, true,
	  "perf::PERF_COUNT_SW_TASK_CLOCK:u=1:k=0" },
	{ ROW, "instructions:u", PERF_TYPE_HARDWARE, PERF_COUNT_HW_INSTRUCTIONS,
	  false, true, true, "perf::PERF_COUNT_HW_INSTRUCTIONS:u=1:k=0" },
	/* raw encodings: perfex's 0xHEX and libpfm4's rHEX */
	{ ROW, "0x1234", PERF_TYPE_RAW, 0x1234, false, false, false, "perf_raw::" },
	{ ROW, "0X00c0", PERF_TYPE_RAW, 0xc0, false, false, false, "perf_raw::" },
	{ ROW, "r1234", PERF_TYPE_RAW, 0x1234, false, false, false, "perf_raw::" },
	{ ROW, "r5300c0", PERF_TYPE_RAW, 0x5300c0, false, false, false, "perf_raw::" },
	{ ROW, "0x1234:u", PERF_TYPE_RAW, 0x1234, false, true, true, "perf_raw::" },
};

static const struct {
	int line;
	const char *spec;
	uint64_t addr, len;
	uint32_t access;
	const char *encoded;
} breakpoints[] = {
	{ ROW, "mem:0x401000", 0x401000, 4, PX_BP_R | PX_BP_W, "mem:0x401000/4:rw" },
	{ ROW, "mem:0x401000:x", 0x401000, sizeof(long), PX_BP_X,
	  "mem:0x401000/8:x" },
	{ ROW, "mem:0x401000:r", 0x401000, 4, PX_BP_R, "mem:0x401000/4:r" },
	{ ROW, "mem:0x401000:w", 0x401000, 4, PX_BP_W, "mem:0x401000/4:w" },
	{ ROW, "mem:0x401000:rw", 0x401000, 4, PX_BP_R | PX_BP_W, "mem:0x401000/4:rw" },
	{ ROW, "mem:0x401000:wr", 0x401000, 4, PX_BP_R | PX_BP_W, "mem:0x401000/4:rw" },
	{ ROW, "mem:0x401000/1:w", 0x401000, 1, PX_BP_W, "mem:0x401000/1:w" },
	{ ROW, "mem:0x401000/2:r", 0x401000, 2, PX_BP_R, "mem:0x401000/2:r" },
	{ ROW, "mem:0x401000/8", 0x401000, 8, PX_BP_R | PX_BP_W, "mem:0x401000/8:rw" },
	{ ROW, "mem:4198400:x", 0x401000, sizeof(long), PX_BP_X, "mem:0x401000/8:x" },
};

/* Every error: the status and a piece of the message the user sees. */
static const struct {
	int line;
	const char *spec;
	int err;
	const char *message;
} bad[] = {
	{ ROW, "", EINVAL, "empty event name" },
	{ ROW, "no-such-event", ENOENT, "unknown event 'no-such-event'" },
	{ ROW, "page-fualts", ENOENT, "did you mean: PAGE-FAULTS" },
	{ ROW, "taskclock", ENOENT, "TASK-CLOCK" },
	{ ROW, "perf::NO_SUCH", ENOENT, "unknown event 'perf::NO_SUCH'" },
	{ ROW, "nopmu::page-faults", ENOENT, "unknown event" },
	{ ROW, "page-faults:bogus", EINVAL, "bad event 'page-faults:bogus'" },
	{ ROW, "mem:", EINVAL, "numeric address" },
	{ ROW, "mem:zz", EINVAL, "numeric address" },
	{ ROW, "mem:0x10/3", EINVAL, "use 1, 2, 4 or 8" },
	{ ROW, "mem:0x10/16:w", EINVAL, "use 1, 2, 4 or 8" },
	{ ROW, "mem:0x10/:w", EINVAL, "use 1, 2, 4 or 8" },
	{ ROW, "mem:0x10:q", EINVAL, "use r, w, rw or x" },
	{ ROW, "mem:0x10:", EINVAL, "use r, w, rw or x" },
	{ ROW, "mem:0x10:rx", EINVAL, "use r, w, rw or x" },
	{ ROW, "mem:0x10:wx", EINVAL, "use r, w, rw or x" },
	{ ROW, "mem:0x10junk", EINVAL, "expected mem:ADDR" },
};

static const struct {
	int line;
	const char *list;
	int err;		/* 0: parses */
	size_t n;		/* events appended */
	const char *message;
} lists[] = {
	{ ROW, "page-faults", 0, 1, NULL },
	{ ROW, "page-faults,task-clock,mem:0x1000:x", 0, 3, NULL },
	{ ROW, "", EINVAL, 0, "empty event name" },
	{ ROW, ",", EINVAL, 0, "empty event name in list ','" },
	{ ROW, "page-faults,", EINVAL, 0, "empty event name in list" },
	{ ROW, ",page-faults", EINVAL, 0, "empty event name in list" },
	{ ROW, "page-faults,,task-clock", EINVAL, 0, "empty event name in list" },
	{ ROW, "page-faults,nope", ENOENT, 1, "unknown event 'nope'" },
};

static bool starts_with(const char *s, const char *prefix)
{
	return !strncmp(s, prefix, strlen(prefix));
}

static void test_good(void)
{
	for (size_t i = 0; i < ARRAY_SIZE(good); i++) {
		struct px_event ev;
		int ln = good[i].line;
		const char *s = good[i].spec;

		if (!is_int_at(ln, px_event_parse(s, &ev), 0, "%s parses", s)) {
			diag("error: %s", px_last_error());
			continue;
		}
		is_str_at(ln, ev.name, s, "%s: name kept as typed", s);
		is_int_at(ln, ev.kind, PX_EVENT_GENERIC, "%s: generic kind", s);
		is_int_at(ln, ev.type, good[i].type, "%s: type", s);
		is_int_at(ln, ev.config, good[i].config, "%s: config", s);
		is_int_at(ln, ev.exclude_user, good[i].excl_user, "%s: exclude_user", s);
		is_int_at(ln, ev.exclude_kernel, good[i].excl_kernel, "%s: exclude_kernel", s);
		is_int_at(ln, ev.priv_explicit, good[i].priv_explicit, "%s: priv_explicit", s);
		ok_at(ln, starts_with(ev.encoded, good[i].encoded_prefix),
		      "%s: encoded '%s' starts with '%s'", s, ev.encoded,
		      good[i].encoded_prefix);
	}
}

/* Encoding may load libpfm4's perf table alone through LIBPFM_FORCE_PMU
 * (see events.c); the variable must not stay for commands started later. */
static void test_no_env_left(void)
{
	struct px_event ev;

	is_int(px_event_parse("page-faults", &ev), 0, "page-faults parses");
	ok(getenv("LIBPFM_FORCE_PMU") == NULL,
	   "LIBPFM_FORCE_PMU is not left in the environment");
}

static void test_breakpoints(void)
{
	for (size_t i = 0; i < ARRAY_SIZE(breakpoints); i++) {
		struct px_event ev;
		int ln = breakpoints[i].line;
		const char *s = breakpoints[i].spec;

		if (!is_int_at(ln, px_event_parse(s, &ev), 0, "%s parses", s)) {
			diag("error: %s", px_last_error());
			continue;
		}
		is_int_at(ln, ev.kind, PX_EVENT_BREAKPOINT, "%s: breakpoint kind", s);
		is_int_at(ln, ev.type, PERF_TYPE_BREAKPOINT, "%s: type", s);
		is_int_at(ln, ev.bp_addr, breakpoints[i].addr, "%s: address", s);
		is_int_at(ln, ev.bp_len, breakpoints[i].len, "%s: length", s);
		is_int_at(ln, ev.bp_type, breakpoints[i].access, "%s: access", s);
		is_str_at(ln, ev.encoded, breakpoints[i].encoded, "%s: encoded", s);
	}
}

static void test_bad(void)
{
	for (size_t i = 0; i < ARRAY_SIZE(bad); i++) {
		struct px_event ev;
		int ln = bad[i].line;
		const char *s = bad[i].spec;

		px_fail(0, "%s", "");
		is_int_at(ln, px_event_parse(s, &ev), -bad[i].err, "'%s' is refused", s);
		ok_at(ln, strstr(px_last_error(), bad[i].message),
		      "'%s': message '%s' says '%s'", s, px_last_error(),
		      bad[i].message);
	}
}

static void test_long_name(void)
{
	char name[PX_EVENT_NAME_MAX + 10];
	struct px_event ev;

	memset(name, 'a', sizeof(name) - 1);
	name[sizeof(name) - 1] = '\0';
	is_int(px_event_parse(name, &ev), -EINVAL, "a name too long is refused");
	ok(strstr(px_last_error(), "too long"), "and the message says so: %s",
	   px_last_error());
	is_int(px_event_parse(NULL, &ev), -EINVAL, "NULL is refused");
}

static void test_lists(void)
{
	for (size_t i = 0; i < ARRAY_SIZE(lists); i++) {
		struct px_event *evs = NULL;
		size_t n = 0;
		int ln = lists[i].line;
		const char *s = lists[i].list;

		px_fail(0, "%s", "");
		is_int_at(ln, px_event_parse_list(s, &evs, &n), -lists[i].err,
			  "list '%s': status", s);
		is_int_at(ln, n, lists[i].n, "list '%s': events appended", s);
		if (lists[i].message)
			ok_at(ln, strstr(px_last_error(), lists[i].message),
			      "list '%s': message '%s' says '%s'", s,
			      px_last_error(), lists[i].message);
		free(evs);
	}
}

static void test_list_appends(void)
{
	struct px_event *evs = NULL;
	size_t n = 0;

	is_int(px_event_parse_list("page-faults", &evs, &n), 0, "first -e");
	is_int(px_event_parse_list("task-clock,cycles", &evs, &n), 0, "second -e");
	is_int(n, 3, "three events after two lists");
	if (n == 3) {
		is_str(evs[0].name, "page-faults", "order kept: first");
		is_str(evs[1].name, "task-clock", "order kept: second");
		is_str(evs[2].name, "cycles", "order kept: third");
	}
	free(evs);
}

static void count_event(const struct px_event_desc *d, void *arg)
{
	(void)d;
	(*(int *)arg)++;
}

static void test_foreach(void)
{
	int all = 0, some = 0, glob = 0, none = 0;

	px_event_foreach(NULL, count_event, &all);
	px_event_foreach("fault", count_event, &some);
	px_event_foreach("*PAGE_FAULTS*", count_event, &glob);
	px_event_foreach("zzz-no-such-zzz", count_event, &none);
	ok(all > 10, "the perf table has events (%d)", all);
	ok(some >= 1 && some < all, "a substring filters (%d)", some);
	ok(glob >= 1 && glob < all, "a glob filters (%d)", glob);
	is_int(none, 0, "a pattern that matches nothing visits nothing");
}

/* -u/-k and --priv-levels over sets: each row's levels, then what the
 * three events page-faults, task-clock:u, cycles (set 1) end with as
 * "u"/"k"/"uk" each. */
static const struct {
	int line;
	bool user, kernel;
	const char *levels;
	int err;
	const char *want[3];
	const char *message;
} level_rows[] = {
	{ ROW, false, false, NULL, 0, { "uk", "u", "uk" }, NULL },
	{ ROW, true, false, NULL, 0, { "u", "u", "u" }, NULL },
	{ ROW, false, true, NULL, 0, { "k", "u", "k" }, NULL },
	{ ROW, true, true, NULL, 0, { "uk", "u", "uk" }, NULL },
	{ ROW, false, false, "k,k,u", 0, { "k", "k", "u" }, NULL },
	{ ROW, false, false, "ku,uk,u", 0, { "uk", "uk", "u" }, NULL },
	{ ROW, true, false, "k", 0, { "k", "u", "u" }, NULL },
	{ ROW, false, false, "k,", 0, { "k", "u", "uk" }, NULL },
	{ ROW, false, false, "x", -EINVAL, { 0 }, "bad privilege level 'x'" },
	{ ROW, false, false, "u,,k", -EINVAL, { 0 }, "bad privilege level ''" },
	{ ROW, false, false, "uh", -EINVAL, { 0 }, "'uh'" },
	{ ROW, false, false, "u,u,u,u", -EINVAL, { 0 }, "more levels than there are events" },
};

static const char *levels_of(const struct px_event *ev)
{
	return ev->exclude_user ? (ev->exclude_kernel ? "none" : "k")
				: (ev->exclude_kernel ? "u" : "uk");
}

static void test_levels(void)
{
	for (size_t r = 0; r < ARRAY_SIZE(level_rows); r++) {
		struct px_event *a = NULL, *b = NULL;
		size_t na = 0, nb = 0;
		int ln = level_rows[r].line;

		if (px_event_parse_list("page-faults,task-clock:u", &a, &na) ||
		    px_event_parse_list("cycles", &b, &nb)) {
			ok_at(ln, false, "levels: events parse: %s", px_last_error());
			free(a);
			free(b);
			continue;
		}
		struct px_event_set sets[] = { { a, na }, { b, nb } };
		int ret = px_event_sets_levels(sets, 2, level_rows[r].user,
					       level_rows[r].kernel, level_rows[r].levels);

		is_int_at(ln, ret, level_rows[r].err, "levels '%s': status",
			  level_rows[r].levels ? level_rows[r].levels : "(none)");
		if (level_rows[r].message)
			ok_at(ln, strstr(px_last_error(), level_rows[r].message),
			      "levels: message '%s' says '%s'", px_last_error(),
			      level_rows[r].message);
		for (size_t i = 0; !ret && i < 3; i++)
			is_str_at(ln, levels_of(i < 2 ? &a[i] : &b[0]), level_rows[r].want[i],
				  "levels '%s': event %zu", level_rows[r].levels ?
				  level_rows[r].levels : "(none)", i);
		free(a);
		free(b);
	}
}

int main(void)
{
	unsetenv("LIBPFM_FORCE_PMU");
	test_no_env_left();	/* first: while only the perf table may be loaded */
	test_good();
	test_good();	/* again, now that raw codes loaded every table */
	test_breakpoints();
	test_bad();
	test_long_name();
	test_lists();
	test_list_appends();
	test_foreach();
	test_levels();
	return done_testing();
}
