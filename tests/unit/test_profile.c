/* Profiles (px_profile_*): ranking and percentages on synthetic counts. */
#include "tap.h"

#include "error.h"
#include "profile.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

static void test_small(void)
{
	struct px_profile *p;
	struct px_profile_entry *v;
	size_t n;

	if (!is_int(px_profile_new(&p, PX_PROFILE_FUNCTIONS), 0, "small: new"))
		return;
	px_profile_add(p, "cpu-clock", "/bin/a", "f", 0, 3);
	px_profile_add(p, "cpu-clock", "/bin/a", "g", 0, 5);
	px_profile_add(p, "cpu-clock", "/lib/b.so", "f", 0, 1);	/* same name, other module */
	px_profile_add(p, "cpu-clock", "/bin/a", "f", 0, 3);
	px_profile_add(p, "page-faults", "/bin/a", "h", 0, 7);
	px_profile_add(p, "cpu-clock", NULL, NULL, 0, 1);

	is_int(px_profile_events(p), 2, "small: two events");
	is_str(px_profile_event(p, 0), "cpu-clock", "small: first event first");
	is_str(px_profile_event(p, 1), "page-faults", "small: second event");
	ok(px_profile_event(p, 2) == NULL, "small: no third event");
	is_int(px_profile_total(p, 0), 13, "small: cpu-clock total");
	is_int(px_profile_total(p, 1), 7, "small: page-faults total");

	if (is_int(px_profile_rank(p, 0, &v, &n), 0, "small: rank") &&
	    is_int(n, 4, "small: four keys")) {
		is_str(v[0].name, "f", "small: f first (6 samples)");
		is_str(v[0].module, "/bin/a", "small: ... in /bin/a");
		is_int(v[0].count, 6, "small: f counted twice");
		is_num(v[0].pct, 600.0 / 13, 1e-9, "small: f share");
		is_str(v[1].name, "g", "small: g second");
		is_num(v[1].pct, 500.0 / 13, 1e-9, "small: g share");
		/* ties: by name ("??" < "f"), then module */
		is_str(v[2].name, "??", "small: unknown counted as ??");
		is_str(v[2].module, "??", "small: ... in module ??");
		is_str(v[3].name, "f", "small: f of the other module last");
		is_str(v[3].module, "/lib/b.so", "small: ... in /lib/b.so");
	}
	free(v);
	if (is_int(px_profile_rank(p, 1, &v, &n), 0, "small: rank page-faults")) {
		is_int(n, 1, "small: one key");
		is_num(v[0].pct, 100, 1e-12, "small: all of it");
	}
	free(v);
	ok(px_profile_rank(p, 2, &v, &n) < 0, "small: ranking a missing event fails");
	px_profile_free(p);
}

static void test_locations(void)
{
	static const struct px_inline_frame in[] = {
		{ "hot_inline", "/src/w.c", 30, 0 },
	};
	const struct px_location a = {
		.ip = 0x1000, .module = "/bin/w", .func = "caller", .file = "/src/w.c",
		.line = 12, .n_inline = 1, .inlines = in,
	};
	const struct px_location b = {
		.ip = 0x1004, .module = "/bin/w", .func = "caller", .file = "/src/w.c",
		.line = 13,
	};
	struct px_profile *p;
	struct px_profile_entry *v;
	size_t n;

	px_profile_new(&p, PX_PROFILE_LINES);
	px_profile_add_location(p, "e", &a, 2);
	px_profile_add_location(p, "e", &b, 1);
	px_profile_rank(p, 0, &v, &n);
	if (is_int(n, 2, "lines: two lines")) {
		is_str(v[0].name, "/src/w.c:12", "lines: file:line label");
		is_str(v[1].name, "/src/w.c:13", "lines: second line");
	}
	free(v);
	px_profile_free(p);

	px_profile_new(&p, PX_PROFILE_FUNCTIONS);
	px_profile_add_location(p, "e", &a, 2);
	px_profile_add_location(p, "e", &b, 1);
	px_profile_rank(p, 0, &v, &n);
	if (is_int(n, 1, "functions: one function")) {
		is_str(v[0].name, "caller", "functions: the symbol");
		is_int(v[0].count, 3, "functions: both samples");
	}
	free(v);
	px_profile_free(p);

	px_profile_new(&p, PX_PROFILE_INLINED);
	px_profile_add_location(p, "e", &a, 2);
	px_profile_add_location(p, "e", &b, 1);
	px_profile_rank(p, 0, &v, &n);
	if (is_int(n, 2, "inlined: two functions")) {
		is_str(v[0].name, "hot_inline", "inlined: the inlined function");
		is_str(v[1].name, "caller", "inlined: the caller's own samples");
	}
	free(v);
	px_profile_free(p);
}

/* Events by number: numbers in order of first appearance, the same number
 * for the same name, counting by number lands where counting by name
 * does, and a number that was never given is refused. */
static void test_event_ids(void)
{
	const struct px_location a = { .ip = 0x10, .module = "/bin/w", .func = "f" };
	struct px_profile *p;
	struct px_profile_entry *v;
	size_t n;

	px_profile_new(&p, PX_PROFILE_FUNCTIONS);
	is_int(px_profile_event_id(p, "cycles"), 0, "event ids: the first event is 0");
	is_int(px_profile_event_id(p, "faults"), 1, "event ids: the second is 1");
	is_int(px_profile_event_id(p, "cycles"), 0, "event ids: the same name, the same number");
	is_int(px_profile_count(p, 1, &a, 4), 0, "event ids: counted by number");
	is_int(px_profile_add_location(p, "faults", &a, 1), 0, "event ids: counted by name");
	px_profile_rank(p, 1, &v, &n);
	ok(n == 1 && v[0].count == 5, "event ids: both counts under faults' one entry");
	free(v);
	is_int(px_profile_total(p, 0), 0, "event ids: nothing counted under cycles");
	is_int(px_profile_count(p, 2, &a, 1), -EINVAL, "event ids: an unknown number is refused");
	px_profile_free(p);
}

/* A profile of processes: one resolved location (one serial) counts apart
 * in each process, processes of one name count together, and labels
 * alone (a process, a CPU) have no module. */
static void test_processes(void)
{
	const struct px_location a = { .ip = 0x10, .module = "/bin/w", .func = "f", .serial = 7 };
	const struct px_profile_proc p1 = { 100, "split" }, p2 = { 200, "bash" },
				     p3 = { 300, "split" };
	struct px_profile *p;
	struct px_profile_entry *v;
	size_t n;

	px_profile_new(&p, PX_PROFILE_FUNCTIONS);
	px_profile_event_id(p, "e");
	is_int(px_profile_count_in(p, 0, &p1, &a, 3), 0, "processes: counted in split");
	is_int(px_profile_count_in(p, 0, &p2, &a, 2), 0, "processes: counted in bash");
	is_int(px_profile_count_in(p, 0, &p3, &a, 1), 0, "processes: counted in another split");
	is_int(px_profile_count_in(p, 0, &p1, &a, 4), 0, "processes: split again, cached");
	px_profile_rank(p, 0, &v, &n);
	if (is_int((long)n, 2, "processes: one row per process name")) {
		is_str(v[0].process, "split", "processes: split first");
		ok(v[0].count == 8 && v[1].count == 2, "processes: 8 in split, 2 in bash");
		is_str(v[1].process, "bash", "processes: then bash");
		is_str(v[1].name, "f", "processes: the same function in both");
	}
	free(v);
	px_profile_free(p);

	px_profile_new(&p, PX_PROFILE_CPU);
	px_profile_event_id(p, "e");
	px_profile_count_label(p, 0, "cpu 1", 2);
	px_profile_count_label(p, 0, "cpu 0", 5);
	px_profile_count_label(p, 0, "cpu 1", 1);
	px_profile_rank(p, 0, &v, &n);
	if (is_int((long)n, 2, "labels: two CPUs")) {
		is_str(v[0].name, "cpu 0", "labels: cpu 0 first");
		ok(v[0].count == 5 && v[1].count == 3, "labels: 5 and 3");
		is_str(v[0].module, "", "labels: no module");
		is_str(v[0].process, "", "labels: no process");
	}
	free(v);
	is_int(px_profile_count_label(p, 3, "cpu 0", 1), -EINVAL, "labels: unknown event refused");
	px_profile_free(p);
}

/* Many random keys and counts: the ranking must be the sorted order of
 * what was added, and the shares must add up to 100. */
static void test_random(void)
{
	enum { NKEYS = 5000, NADD = 200000 };
	static uint64_t want[2][NKEYS];
	struct px_profile *p;
	struct px_profile_entry *v;
	uint64_t total[2] = { 0, 0 };
	unsigned seed = 12345;
	size_t n;
	char name[32];

	px_profile_new(&p, PX_PROFILE_FUNCTIONS);
	for (int i = 0; i < NADD; i++) {
		int ev = rand_r(&seed) & 1;
		/* skewed: a few hot keys, a long tail */
		int k = (int)((uint64_t)rand_r(&seed) * rand_r(&seed) % ((uint64_t)RAND_MAX + 1) % NKEYS);
		uint64_t c = 1 + rand_r(&seed) % 4;

		snprintf(name, sizeof(name), "fn%d", k);
		px_profile_add(p, ev ? "b" : "a", k % 3 ? "/bin/x" : "/lib/y.so", name, 0, c);
		want[ev][k] += c;
		total[ev] += c;
	}
	for (int ev = 0; ev < 2; ev++) {
		size_t nonzero = 0, wrong = 0, unsorted = 0, ix;
		double sum = 0;

		/* events are numbered in the order they first appeared */
		ix = strcmp(px_profile_event(p, 0), ev ? "b" : "a") ? 1 : 0;

		for (int k = 0; k < NKEYS; k++)
			nonzero += want[ev][k] != 0;
		is_int(px_profile_total(p, ix), total[ev], "random %d: total", ev);
		if (!is_int(px_profile_rank(p, ix, &v, &n), 0, "random %d: rank", ev))
			continue;
		is_int(n, nonzero, "random %d: every key once", ev);
		for (size_t i = 0; i < n; i++) {
			int k = atoi(v[i].name + 2);

			if (k < 0 || k >= NKEYS || want[ev][k] != v[i].count ||
			    strcmp(v[i].module, k % 3 ? "/bin/x" : "/lib/y.so"))
				wrong++;
			if (i && v[i - 1].count < v[i].count)
				unsorted++;
			sum += v[i].pct;
			if (fabs(v[i].pct - 100.0 * v[i].count / total[ev]) > 1e-9)
				wrong++;
		}
		is_int(wrong, 0, "random %d: counts, modules and shares match", ev);
		is_int(unsorted, 0, "random %d: most samples first", ev);
		is_num(sum, 100, 1e-6, "random %d: shares add up to 100", ev);
		free(v);
	}
	px_profile_free(p);
}

/* Every key parses to the profile whose rows reports name as listed,
 * and an unknown key is an error that names it. */
static void test_keys(void)
{
	static const struct { const char *key, *name; } keys[] = {
		{ "function", "functions" }, { "inlined", "inlined functions" },
		{ "line", "lines" }, { "comm", "processes" },
		{ "pid", "process ids" }, { "cpu", "cpus" },
	};
	enum px_profile_by by;

	for (size_t i = 0; i < sizeof(keys) / sizeof(keys[0]); i++) {
		if (!is_int(px_profile_by_parse(keys[i].key, &by), 0, "key %s parses", keys[i].key))
			continue;
		is_str(px_profile_by_name(by), keys[i].name, "key %s ranks %s", keys[i].key, keys[i].name);
	}
	is_int(px_profile_by_parse("functions", &by), -EINVAL, "a key not listed is refused");
	ok(strstr(px_last_error(), "not 'functions'") != NULL, "and the message names it");
}

int main(void)
{
	test_keys();
	test_small();
	test_locations();
	test_event_ids();
	test_processes();
	test_random();
	return done_testing();
}
