/* The JSON outputs of perfex and pfmon (lib/report), read with json-c.
 * A file may hold rows on lines of their own before the final report
 * (interval lines of --print-interval, region lines of perfex --regions):
 * the last object that is not such a row is the report. */
#include "merge.h"
#include "error.h"
#include "row.h"

#include <errno.h>
#include <json-c/json.h>
#include <math.h>
#include <string.h>

static struct json_object *member(struct json_object *o, const char *key, enum json_type t)
{
	struct json_object *v;

	if (!o || !json_object_object_get_ex(o, key, &v) || !json_object_is_type(v, t))
		return NULL;
	return v;
}

static const char *string_of(struct json_object *o, const char *key)
{
	struct json_object *v = member(o, key, json_type_string);

	return v ? json_object_get_string(v) : NULL;
}

/* A number member (int or double) in *v; false when absent or null. */
static bool number_of(struct json_object *o, const char *key, double *v)
{
	struct json_object *n;

	if (!o || !json_object_object_get_ex(o, key, &n))
		return false;
	if (!json_object_is_type(n, json_type_int) && !json_object_is_type(n, json_type_double))
		return false;
	*v = json_object_get_double(n);
	return true;
}

static int bad(const char *path, const char *what)
{
	return px_fail(EPROTO, "%s: %s", path, what);
}

/* "rank", "size", "host", "job" at the top of every report. */
static int read_run(const char *path, struct json_object *top, struct px_merge_input *in)
{
	double rank, size;
	const char *host = string_of(top, "host"), *job = string_of(top, "job");

	if (!number_of(top, "rank", &rank) || !number_of(top, "size", &size) || !host)
		return bad(path, "no rank, size and host: not written by this version of perfex or pfmon (0.1.0 or later)");
	if (!px_merge_whole(rank, 0, PX_MERGE_ID_MAX) || !px_merge_whole(size, 1, PX_MERGE_ID_MAX) ||
	    rank >= size)
		return bad(path, "its rank and size do not make sense");
	in->rank = (long)rank;
	in->size = (long)size;
	in->host = strdup(host);
	in->job = job ? strdup(job) : NULL;
	if (!in->host || (job && !in->job))
		return px_fail(ENOMEM, "out of memory");
	return 0;
}

/* "events":[rows of lib/report/row.h]: perfex's and pfmon's counts (the
 * aggregate over units), or a sampling report's samples. */
static int read_events(const char *path, struct json_object *top, struct px_merge_input *in)
{
	struct json_object *evs = member(top, "events", json_type_array);
	const char *key = in->kind == PX_MERGE_SAMPLING ? "raw" : "value";

	if (!evs)
		return bad(path, "an output without its events");
	for (size_t i = 0; i < json_object_array_length(evs); i++) {
		struct json_object *e = json_object_array_get_idx(evs, i);
		const char *name = string_of(e, "name");
		double v = 0, set = 0;
		bool counted = number_of(e, key, &v);

		if (!name)
			return bad(path, "an event without its name");
		number_of(e, "set", &set);	/* perfex: none, set 0 */
		if (!px_merge_whole(set, 0, PX_MERGE_ID_MAX))
			return bad(path, "an event whose set is not a set's number");
		if (in->kind == PX_MERGE_SAMPLING && !counted)
			return bad(path, "a sampling event without its samples (raw)");
		if (px_merge_add_event(in, name, (long)set, counted, v))
			return -ENOMEM;
	}
	return 0;
}

/* pfmon sampling: "profile":[{"event","samples","rows","entries":[rows
 * with symbol, module and value]}] */
static int read_profiles(const char *path, struct json_object *top, struct px_merge_input *in)
{
	struct json_object *profs = member(top, "profile", json_type_array);

	if (!profs)
		return bad(path, "sampling report without its profile");
	for (size_t i = 0; i < json_object_array_length(profs); i++) {
		struct json_object *p = json_object_array_get_idx(profs, i);
		struct json_object *rows = member(p, "entries", json_type_array);
		const char *event = string_of(p, "event");
		double samples = 0, nrows = 0, set = 0;

		if (!event || !rows || !number_of(p, "samples", &samples) ||
		    !number_of(p, "rows", &nrows))
			return bad(path, "a profile without its event, samples, rows or entries");
		number_of(p, "set", &set);
		if (!px_merge_whole(set, 0, PX_MERGE_ID_MAX) ||
		    !px_merge_whole(samples, 0, PX_MERGE_COUNT_MAX) ||
		    !px_merge_whole(nrows, 0, PX_MERGE_COUNT_MAX))
			return bad(path, "a profile whose set, samples or rows are not counts");
		if (px_merge_add_prof(in, event, (long)set, (uint64_t)samples, (size_t)nrows))
			return -ENOMEM;
		for (size_t r = 0; r < json_object_array_length(rows); r++) {
			struct json_object *row = json_object_array_get_idx(rows, r);
			const char *name = string_of(row, "symbol"), *module = string_of(row, "module");
			double n = 0;

			if (!name || !module || !number_of(row, "value", &n))
				return bad(path, "a profile entry without its symbol, module or value");
			if (!px_merge_whole(n, 0, PX_MERGE_COUNT_MAX))
				return bad(path, "a profile entry whose value is not a count");
			if (px_merge_add_row(in, name, module, (uint64_t)n))
				return -ENOMEM;
		}
	}
	return 0;
}

/* A number member, NAN when absent, null or not a number. */
static double number_or_nan(struct json_object *o, const char *key)
{
	double v;

	return number_of(o, key, &v) ? v : NAN;
}

/* A region line of perfex --regions (line: where it starts), read into
 * in; its run is the report's. */
static int read_region(const char *path, unsigned long line, struct json_object *o,
		       struct px_merge_input *in)
{
	const struct px_merge_region_row g = {
		.symbol = string_of(o, "symbol"), .name = string_of(o, "name"),
		.status = string_of(o, "status"), .runs = number_or_nan(o, "runs"),
		.value = number_or_nan(o, "value"), .min = number_or_nan(o, "min"),
		.max = number_or_nan(o, "max"),
	};
	const char *fault = px_merge_region_fault(&g);

	if (fault)
		return px_fail(EPROTO, "%s:%lu: %s", path, line, fault);
	return px_merge_add_region(in, &g);
}

/* Each object of the file in turn: the region lines read into in, the
 * interval lines skipped, the last other object the report, or fail. */
static int read_objects(const char *path, const char *text, struct px_merge_input *in,
			struct json_object **out)
{
	struct json_tokener *tok = json_tokener_new();
	const char *p = text, *counted = text;
	unsigned long line = 1;
	int ret = 0;

	if (!tok)
		return px_fail(ENOMEM, "out of memory");
	*out = NULL;
	while (*(p += strspn(p, " \t\r\n"))) {
		struct json_object *o = json_tokener_parse_ex(tok, p, (int)strlen(p));
		enum json_tokener_error err = json_tokener_get_error(tok);
		const char *record;

		if (err != json_tokener_success || !json_object_is_type(o, json_type_object)) {
			ret = px_fail(EPROTO, "%s: not valid JSON (a truncated file?): %s", path,
				      err == json_tokener_continue ? "it ends inside an object" :
				      err != json_tokener_success ? json_tokener_error_desc(err) :
				      "not an object");
			json_object_put(o);
			break;
		}
		for (; counted < p; counted++)	/* the line the object starts on */
			line += *counted == '\n';
		p += json_tokener_get_parse_end(tok);
		json_tokener_reset(tok);
		record = string_of(o, "record");
		if (record && !strcmp(record, "region"))
			ret = read_region(path, line, o, in);
		if (record) {	/* a row on its own line: not the report */
			json_object_put(o);
			if (ret)
				break;
			continue;
		}
		json_object_put(*out);
		*out = o;
	}
	json_tokener_free(tok);
	if (ret) {
		json_object_put(*out);
		*out = NULL;
	} else if (!*out) {
		ret = bad(path, "no report in it, only interval or region lines");
	}
	return ret;
}

int px_merge_read_json(const char *path, const char *text, struct px_merge_input *in)
{
	struct json_object *top = NULL;
	const char *tool;
	double schema = 0;
	int ret = read_objects(path, text, in, &top);

	if (ret)
		return ret;
	tool = string_of(top, "tool");
	if (!tool || (strcmp(tool, "perfex") && strcmp(tool, "pfmon")))
		ret = bad(path, "not a perfex or pfmon output (no \"tool\")");
	else if (!number_of(top, "schema", &schema))
		ret = bad(path, "no \"schema\" number: not written by this version of perfex or pfmon");
	else if (schema != PX_SCHEMA)
		ret = px_fail(EPROTO, "%s: schema %g: this pfmon-report reads schema %d (write the files again with this version)",
			      path, schema, PX_SCHEMA);
	else if (!strcmp(tool, "perfex"))
		in->kind = PX_MERGE_PERFEX;
	else
		in->kind = member(top, "summary", json_type_object) ? PX_MERGE_SAMPLING :
							       PX_MERGE_PFMON;
	if (!ret)
		ret = read_run(path, top, in) ?: read_events(path, top, in);
	if (!ret && in->kind == PX_MERGE_SAMPLING)
		ret = read_profiles(path, top, in);
	json_object_put(top);
	return ret == -ENOMEM ? px_fail(ENOMEM, "out of memory") : ret;
}
