/* CSV fields and JSON strings as the printers write them. */
#include "tap.h"

#include "emit.h"

#include <stdlib.h>

static char *csv(const char *s, const char *sep)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	px_csv_field(f, s, sep);
	fclose(f);
	return buf;
}

static char *json(const char *s)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	px_json_string(f, s);
	fclose(f);
	return buf;
}

static const struct {
	int line;
	const char *in, *sep, *want;
} csv_rows[] = {
	{ ROW, "page-faults", ",", "page-faults" },
	{ ROW, "", ",", "" },
	{ ROW, "a,b", ",", "\"a,b\"" },
	{ ROW, "a,b", ";", "a,b" },
	{ ROW, "a;b", ";", "\"a;b\"" },
	{ ROW, "say \"hi\"", ",", "\"say \"\"hi\"\"\"" },
	{ ROW, "\"", ",", "\"\"\"\"" },
	{ ROW, "two\nlines", ",", "\"two\nlines\"" },
	{ ROW, "cr\rhere", ",", "\"cr\rhere\"" },
	{ ROW, "tab\there", ",", "tab\there" },
	{ ROW, "tab\there", "\t", "\"tab\there\"" },
	/* a multi-character separator quotes only where it occurs whole */
	{ ROW, "a::b", "::", "\"a::b\"" },
	{ ROW, "a:b", "::", "a:b" },
	{ ROW, "perf::PERF_COUNT_SW_PAGE_FAULTS", "::", "\"perf::PERF_COUNT_SW_PAGE_FAULTS\"" },
	{ ROW, "x, y", ", ", "\"x, y\"" },
	{ ROW, "x,y", ", ", "x,y" },
	{ ROW, "caf\xc3\xa9", ",", "caf\xc3\xa9" },
};

static const struct {
	int line;
	const char *in, *want;
} json_rows[] = {
	{ ROW, "page-faults", "\"page-faults\"" },
	{ ROW, "", "\"\"" },
	{ ROW, "say \"hi\"", "\"say \\\"hi\\\"\"" },
	{ ROW, "back\\slash", "\"back\\\\slash\"" },
	{ ROW, "new\nline", "\"new\\nline\"" },
	{ ROW, "cr\r", "\"cr\\r\"" },
	{ ROW, "tab\t", "\"tab\\t\"" },
	{ ROW, "\x01\x1f", "\"\\u0001\\u001f\"" },
	{ ROW, "bell\a", "\"bell\\u0007\"" },
	{ ROW, "esc\x1b[0m", "\"esc\\u001b[0m\"" },
	{ ROW, "del\x7f", "\"del\x7f\"" },
	{ ROW, "/slash", "\"/slash\"" },
	/* UTF-8 passes through byte for byte */
	{ ROW, "caf\xc3\xa9", "\"caf\xc3\xa9\"" },
	{ ROW, "\xe2\x82\xac 5", "\"\xe2\x82\xac 5\"" },
	{ ROW, "\xf0\x9f\x98\x80", "\"\xf0\x9f\x98\x80\"" },
};

int main(void)
{
	for (size_t i = 0; i < ARRAY_SIZE(csv_rows); i++) {
		char *got = csv(csv_rows[i].in, csv_rows[i].sep);

		is_str_at(csv_rows[i].line, got, csv_rows[i].want,
			  "csv field, row %zu (separator '%s')", i, csv_rows[i].sep);
		free(got);
	}
	for (size_t i = 0; i < ARRAY_SIZE(json_rows); i++) {
		char *got = json(json_rows[i].in);

		is_str_at(json_rows[i].line, got, json_rows[i].want,
			  "json string, row %zu", i);
		free(got);
	}
	return done_testing();
}
