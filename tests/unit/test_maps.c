/* A process's mappings as recorded over time (px_maps_insert in
 * lib/symbols/symbols.c): a later mapping cuts away what it covers of the
 * earlier ones and leaves the rest, with the file offsets of what is left
 * moved along. */
#include "tap.h"
#include "symbols.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct add {
	uint64_t start, len, pgoff;
	const char *path;
};

static int by_start(const void *a, const void *b)
{
	const struct px_map *x = a, *y = b;

	return x->start < y->start ? -1 : x->start > y->start;
}

/* "start-end@pgoff:path ..." in address order */
static void render(struct px_maps *m, char *out, size_t size)
{
	size_t pos = 0;

	qsort(m->v, m->n, sizeof(*m->v), by_start);
	out[0] = 0;
	for (size_t i = 0; i < m->n && pos < size; i++)
		pos += (size_t)snprintf(out + pos, size - pos, "%s%" PRIx64 "-%" PRIx64 "@%" PRIx64 ":%s",
					i ? " " : "", m->v[i].start, m->v[i].start + m->v[i].len,
					m->v[i].pgoff, m->v[i].path);
}

int main(void)
{
	static const struct {
		int line;
		struct add adds[4];
		const char *want;
	} rows[] = {
		/* arm64: the dynamic loader's first mapping spans its 64 KB
		 * aligned segments and the gap, where the [vdso] goes later */
		{ ROW, { { 0x10000, 0x42000, 0, "/lib/ld.so" }, { 0x4f000, 0x1000, 0, "[vdso]" } },
		  "10000-4f000@0:/lib/ld.so 4f000-50000@0:[vdso] 50000-52000@40000:/lib/ld.so" },
		{ ROW, { { 0x1000, 0x3000, 0x10, "/a" }, { 0x5000, 0x1000, 0, "/b" } },
		  "1000-4000@10:/a 5000-6000@0:/b" },
		{ ROW, { { 0x1000, 0x3000, 0, "/a" }, { 0x1000, 0x3000, 0x2000, "/b" } },
		  "1000-4000@2000:/b" },
		{ ROW, { { 0x2000, 0x1000, 0, "/a" }, { 0x1000, 0x3000, 0, "/b" } },
		  "1000-4000@0:/b" },
		{ ROW, { { 0x1000, 0x3000, 0, "/a" }, { 0x3000, 0x2000, 0, "/b" } },
		  "1000-3000@0:/a 3000-5000@0:/b" },
		{ ROW, { { 0x3000, 0x3000, 0x100000, "/a" }, { 0x1000, 0x3000, 0, "/b" } },
		  "1000-4000@0:/b 4000-6000@101000:/a" },
		{ ROW, { { 0x1000, 0x1000, 0, "/a" }, { 0x3000, 0x1000, 0, "/c" },
			 { 0x1800, 0x2000, 0, "/b" } },
		  "1000-1800@0:/a 1800-3800@0:/b 3800-4000@800:/c" },
	};

	for (size_t r = 0; r < sizeof(rows) / sizeof(rows[0]); r++) {
		struct px_maps m = { 0 };
		char got[512];
		int rc = 0;

		for (size_t i = 0; i < 4 && rows[r].adds[i].path; i++)
			rc |= px_maps_insert(&m, rows[r].adds[i].start, rows[r].adds[i].len,
					     rows[r].adds[i].pgoff, rows[r].adds[i].path);
		render(&m, got, sizeof(got));
		is_int(rc, 0, "line %d: inserted", rows[r].line);
		is_str(got, rows[r].want, "line %d: %s", rows[r].line, rows[r].want);
		px_maps_free(&m);
	}
	{
		struct px_maps m = { 0 };
		const struct px_map *at;

		px_maps_insert(&m, 0x10000, 0x42000, 0, "/lib/ld.so");
		px_maps_insert(&m, 0x4f000, 0x1000, 0, "[vdso]");
		at = px_maps_find(&m, 0x20000);
		ok(at && !strcmp(at->path, "/lib/ld.so"), "the loader's code is found in the loader");
		at = px_maps_find(&m, 0x4f800);
		ok(at && !strcmp(at->path, "[vdso]"), "the [vdso] inside its range is found as the [vdso]");
		px_maps_free(&m);
	}
	return done_testing();
}
