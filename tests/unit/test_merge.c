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

#define RUN(r, n, job) "\"rank\":" #r ",\"size\":" #n ",\"host\":\"h\",\"job\":" job

static const char *perfex_json(int rank, double pf)
{
	static char buf[4][512];
	static int k;
	char *b = buf[k++ % 4];

	snprintf(b, sizeof(buf[0]), "{\"tool\":\"perfex\",\"rank\":%d,\"size\":4,\"host\":\"n%d\",\"job\":\"9\","
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
	p = put("p.csv",
		"kind::name::value::raw::running_pct::status::runs::stddev::min::max::rank::size::host::job\n"
		"event::\"cpu/a::b/\"::42::42::100.00::counted::1::0.00::42::42::2::4::h::\n"
		"event::cycles::::::::not supported::0::::::::2::4::h::\n"
		"elapsed::seconds::0.1::::::::1::0::0.1::0.1::2::4::h::\n");
	is_int(px_merge_read(p, &in), 0, "perfex CSV with :: and a quoted field");
	ok(in.nevents == 2 && !strcmp(in.events[0].name, "cpu/a::b/") && in.events[0].value == 42 &&
	   in.events[0].counted && !in.events[1].counted, "its events, unquoted");
	ok(in.rank == 2 && in.size == 4 && !in.job, "its rank, size, no job");
	px_merge_input_free(&in);

	/* pfmon CSV: threads, intervals and the aggregate; a second set */
	p = put("m.csv",
		"unit,pid,tid,cpu,set,event,value,raw,active_pct,status,seconds,ci95_pct,rank,size,host,job\n"
		"interval,,,,0,task-clock,5,,,,interval,0.1,,1,2,h,j\n"
		"thread,1,1,,0,task-clock,7,7,100.00,counted,0.2,0.00,1,2,h,j\n"
		"all,,,,0,task-clock,7,7,100.00,counted,0.2,0.00,1,2,h,j\n"
		"all,,,,1,page-faults,9,4,50.00,scaled,0.2,3.00,1,2,h,j\n");
	is_int(px_merge_read(p, &in), 0, "pfmon counts CSV");
	ok(in.nevents == 2 && in.events[0].value == 7 && !strcmp(in.events[1].name, "page-faults (set 1)") &&
	   in.events[1].value == 9, "the aggregate rows, the set named past set 0");
	is_str(in.job, "j", "its job");
	px_merge_input_free(&in);

	/* pfmon JSON with interval lines before the report */
	p = put("m.json",
		"{\"interval_seconds\":0.1," RUN(0, 1, "null") ",\"set\":0,\"name\":\"task-clock\",\"delta\":1,\"value\":1}\n"
		"{\"tool\":\"pfmon\"," RUN(0, 1, "null") ",\"aggregate\":{\"events\":[{\"set\":0,\"name\":\"task-clock\",\"status\":\"counted\",\"value\":5}]}}\n");
	is_int(px_merge_read(p, &in), 0, "pfmon JSON after interval lines");
	ok(in.kind == PX_MERGE_PFMON && in.nevents == 1 && in.events[0].value == 5, "the report's count");
	px_merge_input_free(&in);
}

static const char *sampling_csv(const char *name, int rank, int work, int other, int rows)
{
	char text[1024];

	snprintf(text, sizeof(text),
		 "run,rank,%d\nrun,size,2\nrun,host,h\nrun,job,\nsummary,samples,%d\n"
		 "samples,task-clock,0,%d,%d,100.00,0.00,1\n"
		 "profile_size,task-clock,%d,%d,2\n"
		 "profile,task-clock,1,%d,0,work,/bin/app,\n"
		 "profile,task-clock,2,%d,0,other,/bin/app,\n",
		 rank, work + other, work + other, work + other, rows, work + other, work, other);
	return put(name, text);
}

static void profiles(void)
{
	const char *paths[2] = { sampling_csv("s0.csv", 0, 30, 10, 2),
				 sampling_csv("s1.csv", 1, 90, 5, 3) };
	struct px_merge m;
	const struct px_merge_profile *p;

	is_int(merge_files(paths, 2, &m), 0, "two sampling reports merge");
	is_int(m.nprofiles, 1, "one profile");
	p = &m.profiles[0];
	ok(p->samples == 135 && p->nfuncs == 2, "135 samples, two functions");
	ok(!strcmp(p->funcs[0].name, "work") && p->funcs[0].samples == 120, "work first, 120 samples");
	ok(p->funcs[0].per_rank[0] == 30 && p->funcs[0].per_rank[1] == 90, "its samples per rank");
	is_int(p->cut, 1, "rank 1's profile was cut (2 of 3 rows)");
	is_num(m.stats[0].imbalance, 95.0 / 67.5, 1e-12, "the samples' imbalance");
	px_merge_free(&m);
}

static void refusals(void)
{
	static const struct { int line; const char *name, *text, *err; } rows[] = {
		{ ROW, "empty", "", "empty file" },
		{ ROW, "text", "\n perfex: counts for 'x'\n", "a text report?" },
		{ ROW, "cut.json", "{\"tool\":\"perfex\",\"rank\":0", "not valid JSON" },
		{ ROW, "two.json", "{\"tool\":\"perfex\"} x", "not valid JSON" },
		{ ROW, "norank.json", "{\"tool\":\"perfex\",\"events\":[]}", "no rank, size and host" },
		{ ROW, "badrank.json", "{\"tool\":\"perfex\"," RUN(4, 4, "null") ",\"events\":[]}", "do not make sense" },
		{ ROW, "other.json", "{\"a\":1}", "no \"tool\"" },
		{ ROW, "noend.csv", "kind,name,rank,size,host,job\nevent,x,0,1,h,", "the last line has no end" },
		{ ROW, "noelapsed.csv", "kind,name,value,rank,size,host,job\nevent,x,1,0,1,h,\n", "no elapsed row" },
		{ ROW, "oldcsv.csv", "kind,name,value\nelapsed,seconds,1\n", "no rank, size, host and job columns" },
		{ ROW, "quote.csv", "kind,name,rank,size,host,job\nevent,\"x,0,1,h,\n", "a quote that does not end" },
		{ ROW, "noall.csv", "unit,pid,rank,size,host,job\nthread,1,0,1,h,\n", "no aggregate (all) rows" },
		{ ROW, "cutprof.csv", "run,rank,0\nrun,size,1\nrun,host,h\nsamples,e,0,5,5,100,0,1\n"
				      "profile_size,e,3,5,3\nprofile,e,1,5,0,f,m,\n", "lists 1 of the 3 rows" },
		{ ROW, "norun.csv", "run,rank,0\nsamples,e,0,5,5,100,0,1\n", "no valid run,rank" },
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
	is_int(px_merge_read("/nonexistent/x.json", &in), -ENOENT, "a missing file");
	px_merge_input_free(&in);
}

static void mixed(void)
{
	static const struct { int line; const char *a, *b, *err; } rows[] = {
		{ ROW, "{\"tool\":\"perfex\"," RUN(0, 2, "\"9\"") ",\"events\":[{\"name\":\"a\",\"value\":1}]}",
		       "{\"tool\":\"pfmon\"," RUN(1, 2, "\"9\"") ",\"aggregate\":{\"events\":[{\"set\":0,\"name\":\"a\",\"value\":1}]}}",
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
