/* pfmon-report's merge: the readers (JSON, CSV with any separator and
 * quoted fields, interval lines), the statistics, the merged profile and
 * every refusal, on files written here. */
#include "tap.h"
#include "error.h"
#include "merge.h"

#include <errno.h>
#include <stdlib.h>
#include <unistd.h>

static char dir[] = "/tmp/test_merge.XXXXXX";

static const char *put(const char *name, const char *text)
{
	static char path[8][128];
	static int k;
	char *p = path[k++ % 8];
	FILE *f;

	snprintf(p, sizeof(path[0]), "%s/%s", dir, name);
	f = fopen(p, "w");
	fputs(text, f);
	fclose(f);
	return p;
}

#define RUN(r, n, job) "\"schema\":3,\"rank\":" #r ",\"size\":" #n ",\"host\":\"h\",\"job\":" job

/* The schema's columns (docs/schema.md), in order. */
static const char *const columns[] = {
	"schema", "record", "unit", "pid", "tid", "cpu", "set", "name", "value",
	"raw", "active_pct", "status", "ci95_pct", "runs", "stddev", "min", "max",
	"seconds", "share_pct", "self", "self_pct", "position", "rows", "depth",
	"symbol", "module", "process", "root", "mean", "imbalance", "min_rank",
	"max_rank", "ranks", "cut_ranks", "rank", "size", "host", "job",
};
#define NCOLUMNS (sizeof(columns) / sizeof(columns[0]))

/* Append to text the header with sep (kv NULL) or a row: kv holds
 * "column=value" pairs split by '|' (the value as written, quotes and
 * all); the other columns are empty, schema is 3 unless kv says. */
static void csv_line(char *text, size_t len, const char *sep, const char *kv)
{
	size_t at = strlen(text);

	for (size_t c = 0; c < NCOLUMNS; c++) {
		const char *v = kv ? "" : columns[c];
		size_t vlen = strlen(v), cl = strlen(columns[c]);

		if (kv && c == 0)
			v = "3", vlen = 1;
		for (const char *k = kv; k && *k; k += strcspn(k, "|"), k += *k == '|') {
			if (!strncmp(k, columns[c], cl) && k[cl] == '=') {
				v = k + cl + 1;
				vlen = strcspn(v, "|");
			}
		}
		at += (size_t)snprintf(text + at, len - at, "%s%.*s", c ? sep : "", (int)vlen, v);
	}
	snprintf(text + at, len - at, "\n");
}

/* A CSV file of the header and the rows (NULL-terminated), with sep. */
static const char *put_csv(const char *name, const char *sep, const char *const *rows)
{
	static char text[8192];

	text[0] = '\0';
	csv_line(text, sizeof(text), sep, NULL);
	for (size_t i = 0; rows[i]; i++)
		csv_line(text, sizeof(text), sep, rows[i]);
	return put(name, text);
}

static const char *perfex_json(int rank, double pf)
{
	static char buf[4][512];
	static int k;
	char *b = buf[k++ % 4];

	snprintf(b, sizeof(buf[0]), "{\"schema\":3,\"tool\":\"perfex\",\"rank\":%d,\"size\":4,\"host\":\"n%d\",\"job\":\"9\","
		 "\"command\":[\"x\"],\"events\":[{\"name\":\"page-faults\",\"status\":\"counted\",\"value\":%.0f},"
		 "{\"name\":\"cycles\",\"status\":\"not supported\",\"value\":null}]}\n",
		 rank, rank % 2, pf);
	return b;
}

/* Read the files and merge them; 0 or the error. */
static int merge_files(const char *const *paths, size_t n, struct px_merge *m)
{
	struct px_merge_input *in = calloc(n, sizeof(*in));
	int ret;

	for (size_t i = 0; i < n; i++) {
		ret = px_merge_read(paths[i], &in[i]);
		if (ret) {
			for (size_t k = 0; k <= i; k++)
				px_merge_input_free(&in[k]);
			free(in);
			memset(m, 0, sizeof(*m));
			return ret;
		}
	}
	return px_merge_build(in, n, m);
}

static void counts(void)
{
	const char *paths[4];
	struct px_merge m;

	for (int r = 0; r < 4; r++) {
		char name[32];

		snprintf(name, sizeof(name), "c.%d.json", r);
		paths[3 - r] = put(name, perfex_json(r, 100.0 * (r + 1)));
	}
	is_int(merge_files(paths, 4, &m), 0, "four perfex JSON files merge");
	is_int(m.kind, PX_MERGE_PERFEX, "their kind");
	ok(m.nin == 4 && m.in[0].rank == 0 && m.in[3].rank == 3, "sorted by rank");
	is_int(m.nhosts, 2, "two hosts");
	is_str(m.job, "9", "the job");
	is_int(m.nstats, 2, "two events");
	is_num(m.stats[0].sum, 1000, 0, "sum");
	is_num(m.stats[0].min, 100, 0, "min");
	is_num(m.stats[0].mean, 250, 0, "mean");
	is_num(m.stats[0].max, 400, 0, "max");
	ok(m.stats[0].min_rank == 0 && m.stats[0].max_rank == 3, "ranks of min and max");
	is_num(m.stats[0].imbalance, 1.6, 1e-12, "imbalance = max / mean");
	is_int(m.stats[1].n, 0, "an event no rank counted has no statistics");
	px_merge_free(&m);
}

static void csv_forms(void)
{
	struct px_merge_input in;
	const char *p;

	/* perfex CSV, a two-character separator and a quoted event name */
	p = put_csv("p.csv", "::", (const char *const[]){
		"record=count|unit=all|set=0|name=\"cpu/a::b/\"|value=42|raw=42|status=counted|rank=2|size=4|host=h",
		"record=count|unit=all|set=0|name=cycles|status=not-supported|rank=2|size=4|host=h",
		"record=metric|name=x|value=1|status=derived|rank=2|size=4|host=h",
		"record=elapsed|name=seconds|value=0.1|rank=2|size=4|host=h", NULL });
	is_int(px_merge_read(p, &in), 0, "perfex CSV with :: and a quoted field");
	ok(in.kind == PX_MERGE_PERFEX, "perfex's: it ends with the elapsed row");
	ok(in.nevents == 2 && !strcmp(in.events[0].name, "cpu/a::b/") && in.events[0].value == 42 &&
	   in.events[0].counted && !in.events[1].counted, "its events, unquoted");
	ok(in.rank == 2 && in.size == 4 && !in.job, "its rank, size, no job");
	px_merge_input_free(&in);

	/* pfmon CSV: intervals, threads and the aggregate; a second set */
	p = put_csv("m.csv", ",", (const char *const[]){
		"record=interval|set=0|name=task-clock|value=5|seconds=0.1|rank=1|size=2|host=h|job=j",
		"record=count|unit=thread|pid=1|tid=1|set=0|name=task-clock|value=7|raw=7|status=counted|rank=1|size=2|host=h|job=j",
		"record=count|unit=all|set=0|name=task-clock|value=7|raw=7|status=counted|rank=1|size=2|host=h|job=j",
		"record=count|unit=all|set=1|name=page-faults|value=9|raw=4|status=scaled|rank=1|size=2|host=h|job=j",
		"record=elapsed|name=seconds|value=0.2|rank=1|size=2|host=h|job=j", NULL });
	is_int(px_merge_read(p, &in), 0, "pfmon counts CSV");
	ok(in.kind == PX_MERGE_PFMON, "pfmon's counts");
	ok(in.nevents == 2 && in.events[0].value == 7 && !strcmp(in.events[1].name, "page-faults") &&
	   in.events[1].set == 1 && in.events[1].value == 9, "the aggregate rows, each with its set");
	is_str(in.job, "j", "its job");
	px_merge_input_free(&in);

	/* pfmon JSON with interval lines before the report */
	p = put("m.json",
		"{\"schema\":3,\"record\":\"interval\",\"rank\":0,\"size\":1,\"host\":\"h\",\"job\":null,\"name\":\"task-clock\",\"set\":0,\"value\":1,\"seconds\":0.1}\n"
		"{\"tool\":\"pfmon\"," RUN(0, 1, "null") ",\"events\":[{\"set\":0,\"name\":\"task-clock\",\"status\":\"counted\",\"value\":5}]}\n");
	is_int(px_merge_read(p, &in), 0, "pfmon JSON after interval lines");
	ok(in.kind == PX_MERGE_PFMON && in.nevents == 1 && in.events[0].value == 5, "the report's count");
	px_merge_input_free(&in);
}

static const char *sampling_csv(const char *name, int rank, int work, int other, int rows)
{
	char r[8][160];

	snprintf(r[0], sizeof(r[0]), "record=interval|name=samples|value=3|seconds=0.1|rank=%d|size=2|host=h", rank);
	snprintf(r[1], sizeof(r[1]), "record=summary|name=samples|value=%d|rank=%d|size=2|host=h",
		 work + other, rank);
	snprintf(r[2], sizeof(r[2]), "record=samples|set=0|name=task-clock|value=%d|raw=%d|status=counted|rank=%d|size=2|host=h",
		 work + other, work + other, rank);
	/* the sampled event's count: not what is merged */
	snprintf(r[3], sizeof(r[3]), "record=count|unit=all|set=0|name=task-clock|value=999|raw=999|status=counted|rank=%d|size=2|host=h",
		 rank);
	snprintf(r[4], sizeof(r[4]), "record=profile_size|set=0|name=task-clock|value=%d|rows=%d|position=2|rank=%d|size=2|host=h",
		 work + other, rows, rank);
	snprintf(r[5], sizeof(r[5]), "record=profile|set=0|name=task-clock|position=1|value=%d|symbol=work|module=/bin/app|rank=%d|size=2|host=h",
		 work, rank);
	snprintf(r[6], sizeof(r[6]), "record=profile|set=0|name=task-clock|position=2|value=%d|symbol=other|module=/bin/app|rank=%d|size=2|host=h",
		 other, rank);
	snprintf(r[7], sizeof(r[7]), "record=elapsed|name=seconds|value=1|rank=%d|size=2|host=h", rank);
	return put_csv(name, ",", (const char *const[]){ r[0], r[1], r[2], r[3], r[4], r[5], r[6],
							 r[7], NULL });
}

static void profiles(void)
{
	const char *paths[2] = { sampling_csv("s0.csv", 0, 30, 10, 2),
				 sampling_csv("s1.csv", 1, 90, 5, 3) };
	struct px_merge m;
	const struct px_merge_profile *p;

	is_int(merge_files(paths, 2, &m), 0, "two sampling reports merge");
	is_int(m.kind, PX_MERGE_SAMPLING, "their kind");
	ok(m.nstats == 1 && m.stats[0].sum == 135, "the samples merged, not the sampled event's count");
	is_int(m.nprofiles, 1, "one profile");
	p = &m.profiles[0];
	ok(p->samples == 135 && p->nfuncs == 2, "135 samples, two functions");
	ok(!strcmp(p->funcs[0].name, "work") && p->funcs[0].samples == 120, "work first, 120 samples");
	ok(p->funcs[0].per_rank[0] == 30 && p->funcs[0].per_rank[1] == 90, "its samples per rank");
	is_int(p->cut, 1, "rank 1's profile was cut (2 of 3 rows)");
	is_num(m.stats[0].imbalance, 95.0 / 67.5, 1e-12, "the samples' imbalance");
	px_merge_free(&m);
}

/* The header, and a row's end with its run (rank 0 of 1 on h), for the
 * refusals' hand-made rows. */
#define HEADER "schema,record,unit,pid,tid,cpu,set,name,value,raw,active_pct,status,ci95_pct," \
	"runs,stddev,min,max,seconds,share_pct,self,self_pct,position,rows,depth,symbol,module," \
	"process,root,mean,imbalance,min_rank,max_rank,ranks,cut_ranks,rank,size,host,job\n"
#define ROW_END ",,,,,,,,,,,,,,,,,,,,,,,,,,,,,0,1,h,\n"

/* A CSV of these rows is refused, naming the file, with err. */
static void refused_rows(const char *name, const char *const *rows, const char *err)
{
	struct px_merge_input in;
	const char *p = put_csv(name, ",", rows);

	ok(px_merge_read(p, &in) < 0, "%s refused", name);
	ok(strstr(px_last_error(), err) && strstr(px_last_error(), p), "names the file and says: %s",
	   px_last_error());
	px_merge_input_free(&in);
}

static void refusals(void)
{
	static const struct { int line; const char *name, *text, *err; } rows[] = {
		{ ROW, "empty", "", "empty file" },
		{ ROW, "text", "\n perfex: counts for 'x'\n", "a text report?" },
		{ ROW, "cut.json", "{\"tool\":\"perfex\",\"rank\":0", "not valid JSON" },
		{ ROW, "two.json", "{\"tool\":\"perfex\"} x", "not valid JSON" },
		{ ROW, "norank.json", "{\"schema\":3,\"tool\":\"perfex\",\"events\":[]}", "no rank, size and host" },
		{ ROW, "badrank.json", "{\"tool\":\"perfex\"," RUN(4, 4, "null") ",\"events\":[]}", "do not make sense" },
		{ ROW, "other.json", "{\"a\":1}", "no \"tool\"" },
		{ ROW, "noend.csv", HEADER "3,count,all,,,,0,x,1", "the last line has no end" },
		{ ROW, "oldcsv.csv", "kind,name,value,raw,running_pct\nevent,x,1,1,100\n", "not a JSON or CSV output of perfex or pfmon of schema 3" },
		{ ROW, "schema1.csv", HEADER "1,count,all,,,,0,x,1" ROW_END, "schema 1: this pfmon-report reads schema 3" },
		{ ROW, "fewcols.csv", "schema,record,name,value\n2,count,x,1\n", "no schema, record, name and value columns" },
		{ ROW, "quote.csv", HEADER "3,count,all,,,,0,\"x,1" ROW_END, "a quote that does not end" },
		{ ROW, "schema1.json", "{\"schema\":1,\"tool\":\"perfex\",\"rank\":0,\"size\":1,\"host\":\"h\",\"events\":[]}",
		  "schema 1: this pfmon-report reads schema 3" },
	};
	struct px_merge_input in;

	for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		const char *p = put(rows[i].name, rows[i].text);
		int ret = px_merge_read(p, &in);

		ok_at(rows[i].line, ret < 0, "%s refused", rows[i].name);
		ok_at(rows[i].line, strstr(px_last_error(), rows[i].err) && strstr(px_last_error(), p),
		      "names the file and says: %s", px_last_error());
		px_merge_input_free(&in);
	}
	refused_rows("noelapsed.csv", (const char *const[]){
		"record=count|unit=all|set=0|name=x|value=1|rank=0|size=1|host=h", NULL },
		"no elapsed row");
	refused_rows("afterend.csv", (const char *const[]){
		"record=count|unit=all|set=0|name=x|value=1|rank=0|size=1|host=h",
		"record=elapsed|name=seconds|value=1|rank=0|size=1|host=h",
		"record=count|unit=all|set=0|name=y|value=1|rank=0|size=1|host=h", NULL },
		"a row after the elapsed row");
	refused_rows("cutprof.csv", (const char *const[]){
		"record=summary|name=samples|value=5|rank=0|size=1|host=h",
		"record=samples|set=0|name=e|value=5|raw=5|rank=0|size=1|host=h",
		"record=profile_size|name=e|value=5|rows=3|position=3|rank=0|size=1|host=h",
		"record=profile|name=e|position=1|value=5|symbol=f|module=m|rank=0|size=1|host=h",
		"record=elapsed|name=seconds|value=1|rank=0|size=1|host=h", NULL },
		"lists 1 of the 3 rows");
	refused_rows("norun.csv", (const char *const[]){
		"record=count|unit=all|set=0|name=x|value=1",
		"record=elapsed|name=seconds|value=1", NULL },
		"no valid rank, size and host");
	is_int(px_merge_read("/nonexistent/x.json", &in), -ENOENT, "a missing file");
	px_merge_input_free(&in);
}

static void mixed(void)
{
	static const struct { int line; const char *a, *b, *err; } rows[] = {
		{ ROW, "{\"tool\":\"perfex\"," RUN(0, 2, "\"9\"") ",\"events\":[{\"name\":\"a\",\"value\":1}]}",
		       "{\"tool\":\"pfmon\"," RUN(1, 2, "\"9\"") ",\"events\":[{\"set\":0,\"name\":\"a\",\"value\":1}]}",
		       "merge outputs of one kind" },
		{ ROW, "{\"tool\":\"perfex\"," RUN(0, 2, "\"9\"") ",\"events\":[{\"name\":\"a\",\"value\":1}]}",
		       "{\"tool\":\"perfex\"," RUN(1, 2, "\"8\"") ",\"events\":[{\"name\":\"a\",\"value\":1}]}",
		       "merge the files of one job" },
		{ ROW, "{\"tool\":\"perfex\"," RUN(0, 2, "null") ",\"events\":[{\"name\":\"a\",\"value\":1}]}",
		       "{\"tool\":\"perfex\"," RUN(1, 3, "null") ",\"events\":[{\"name\":\"a\",\"value\":1}]}",
		       "says its job has 3 ranks" },
		{ ROW, "{\"tool\":\"perfex\"," RUN(1, 2, "null") ",\"events\":[{\"name\":\"a\",\"value\":1}]}",
		       "{\"tool\":\"perfex\"," RUN(1, 2, "null") ",\"events\":[{\"name\":\"a\",\"value\":1}]}",
		       "are both rank 1" },
		{ ROW, "{\"tool\":\"perfex\"," RUN(0, 2, "null") ",\"events\":[{\"name\":\"a\",\"value\":1}]}",
		       "{\"tool\":\"perfex\"," RUN(1, 2, "null") ",\"events\":[{\"name\":\"b\",\"value\":1}]}",
		       "has the event b where" },
		{ ROW, "{\"tool\":\"perfex\"," RUN(0, 2, "null") ",\"events\":[{\"name\":\"a\",\"value\":1},{\"name\":\"b\",\"value\":1}]}",
		       "{\"tool\":\"perfex\"," RUN(1, 2, "null") ",\"events\":[{\"name\":\"a\",\"value\":1}]}",
		       "lacks the event b" },
	};
	struct px_merge m;

	for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		const char *paths[2] = { put("a.json", rows[i].a), put("b.json", rows[i].b) };

		is_int_at(rows[i].line, merge_files(paths, 2, &m), -EINVAL, "refused");
		ok_at(rows[i].line, strstr(px_last_error(), rows[i].err) != NULL, "%s", px_last_error());
		px_merge_free(&m);
	}
}

int main(void)
{
	if (!mkdtemp(dir))
		return 1;
	counts();
	csv_forms();
	profiles();
	refusals();
	mixed();
	{
		char cmd[64];

		snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
		if (system(cmd) != 0)
			diag("could not remove %s", dir);
	}
	return done_testing();
}
