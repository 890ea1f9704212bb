/* Flame graphs as SVG (px_flamegraph_write): boxes, counts and shares of
 * known stacks, merged paths, escaping, empty and several graphs, write
 * errors, 100,000 stacks; every file read back by Python's XML parser.
 *
 * With --folded it is instead the driver of tests/cli/flamegraph_render.py
 * (and a way to look at a graph):
 *	build/tests/unit/test_flamegraph --folded < STACKS > out.svg
 * STACKS: one stack a line, "outer;inner;leaf COUNT" (brendangregg's
 * folded format); a line "# TITLE" starts another graph. */
#include "tap.h"

#include "error.h"
#include "flamegraph.h"
#include "grow.h"

#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* A graph under construction, from folded lines. */
struct fgraph {
	const char *title;
	struct px_flame_stack *stacks;
	char **lines;		/* the frames point into them */
	size_t n, cap, lines_cap;
};

/* A stack from a folded line "a;b;c 12", which it splits in place; " 12"
 * has no frames.  -1 when malformed. */
static int folded_stack(char *line, struct px_flame_stack *s)
{
	char *sp = strrchr(line, ' '), *end, *p;
	const char **frames;
	size_t n = 1;

	if (!sp)
		return -1;
	*sp = '\0';
	errno = 0;
	s->count = strtoull(sp + 1, &end, 10);
	if (end == sp + 1 || *end || errno)
		return -1;
	s->frames = NULL;
	s->n = 0;
	if (!*line)
		return 0;
	for (p = line; *p; p++)
		n += *p == ';';
	frames = malloc(n * sizeof(*frames));
	if (!frames)
		return -1;
	for (p = line;; p++) {
		frames[s->n++] = p;
		if (!(p = strchr(p, ';')))
			break;
		*p = '\0';
	}
	s->frames = frames;
	return 0;
}

static int fgraph_add(struct fgraph *g, const char *folded)
{
	char *line = strdup(folded);

	if (!line ||
	    px_grow((void **)&g->stacks, &g->cap, g->n, 1, sizeof(*g->stacks), 16) ||
	    px_grow((void **)&g->lines, &g->lines_cap, g->n, 1, sizeof(*g->lines), 16) ||
	    folded_stack(line, &g->stacks[g->n])) {
		free(line);
		return -1;
	}
	g->lines[g->n++] = line;
	return 0;
}

static struct px_flame_graph fgraph_graph(const struct fgraph *g)
{
	return (struct px_flame_graph){ g->title, g->stacks, g->n, false };
}

static void fgraph_free(struct fgraph *g)
{
	for (size_t i = 0; i < g->n; i++) {
		free((void *)g->stacks[i].frames);
		free(g->lines[i]);
	}
	free(g->stacks);
	free(g->lines);
	memset(g, 0, sizeof(*g));
}

/* A graph of folded lines (a NULL ends them). */
static struct fgraph make(const char *title, const char *const *folded)
{
	struct fgraph g = { .title = title };

	for (; *folded; folded++)
		if (fgraph_add(&g, *folded))
			diag("cannot add '%s'", *folded);
	return g;
}

static char *render(const struct px_flame_graph *graphs, size_t n, int *ret)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	*ret = px_flamegraph_write(f, graphs, n);
	fclose(f);
	return buf;
}

/* What Python's XML parser reads in svg, a line each: "T " and every
 * <title>, "H " and every heading, "E " and every "no samples" line; NULL
 * when it refuses the file (not well-formed XML). */
static char *parsed(const char *svg)
{
	static const char py[] =
		"import sys, xml.etree.ElementTree as E\n"
		"ns = \"{http://www.w3.org/2000/svg}\"\n"
		"out = sys.stdout.buffer\n"
		"for e in E.parse(sys.argv[1]).iter():\n"
		"    cls = e.get(\"class\")\n"
		"    if e.tag == ns + \"title\": out.write(b\"T \" + e.text.encode() + b\"\\n\")\n"
		"    if cls == \"heading\": out.write(b\"H \" + (e.text or \"\").encode() + b\"\\n\")\n"
		"    if cls == \"empty\": out.write(b\"E \" + e.text.encode() + b\"\\n\")\n";
	char path[] = "/tmp/px-flame-XXXXXX", cmd[sizeof(py) + 64], *out = NULL, buf[4096];
	size_t len = 0, got;
	int fd = mkstemp(path), status;
	FILE *p, *o;

	if (fd < 0)
		return NULL;
	if (write(fd, svg, strlen(svg)) != (ssize_t)strlen(svg)) {
		close(fd);
		unlink(path);
		return NULL;
	}
	close(fd);
	snprintf(cmd, sizeof(cmd), "python3 -c '%s' %s", py, path);
	p = popen(cmd, "r");
	o = open_memstream(&out, &len);
	while (p && (got = fread(buf, 1, sizeof(buf), p)))
		fwrite(buf, 1, got, o);
	fclose(o);
	status = p ? pclose(p) : -1;
	unlink(path);
	if (status != 0) {
		free(out);
		return NULL;
	}
	return out;
}

/* How many lines of text are exactly line. */
static int lines_equal(const char *text, const char *line)
{
	size_t len = strlen(line);
	int n = 0;

	for (const char *p = text; p && *p; p = strchr(p, '\n'), p = p ? p + 1 : NULL)
		n += !strncmp(p, line, len) && (p[len] == '\n' || !p[len]);
	return n;
}

static int occurrences(const char *text, const char *s)
{
	int n = 0;

	for (const char *p = text; (p = strstr(p, s)); p++)
		n++;
	return n;
}

/* The SVG text of the box whose <title> is title (as written, escaped),
 * up to its end, in a static buffer; "" when there is none. */
static const char *box(const char *svg, const char *title)
{
	static char buf[8192];
	char want[1024];
	const char *t, *start, *end;

	snprintf(want, sizeof(want), "<title>%s</title>", title);
	t = strstr(svg, want);
	if (!t)
		return "";
	for (start = t; start > svg && strncmp(start, "<g ", 3); start--)
		;
	end = strstr(t, "</g>");
	snprintf(buf, sizeof(buf), "%.*s", (int)(end - start), start);
	return buf;
}

/* Attribute name="..." of the first element in s that has it. */
static const char *attr(const char *s, const char *name)
{
	static char buf[256];
	char want[64];
	const char *p;

	snprintf(want, sizeof(want), " %s=\"", name);
	p = strstr(s, want);
	if (!p)
		return "";
	p += strlen(want);
	snprintf(buf, sizeof(buf), "%.*s", (int)strcspn(p, "\""), p);
	return buf;
}

/* Whether the boxes titled t1 and t2 have the same fill. */
static bool same_fill(const char *svg, const char *t1, const char *t2)
{
	char fill[256];

	snprintf(fill, sizeof(fill), "%s", attr(box(svg, t1), "fill"));
	return *fill && !strcmp(fill, attr(box(svg, t2), "fill"));
}

/* The label of box text b (what its <text> holds). */
static const char *label(const char *b)
{
	static char buf[1024];
	const char *p = strstr(b, "<text ");

	if (!p || !(p = strchr(p, '>')))
		return "";
	p++;
	snprintf(buf, sizeof(buf), "%.*s", (int)strcspn(p, "<"), p);
	return buf;
}

static const char *const basic[] = {
	"main;a;leaf 30", "main;b 20", "main;a;other 10", "main;a;leaf 5", NULL,
};

static void test_basic(void)
{
	struct fgraph fg = make("cpu-clock", basic);
	struct px_flame_graph g = fgraph_graph(&fg);
	char *svg, *p;
	int ret;

	svg = render(&g, 1, &ret);
	is_int(ret, 0, "basic: written");
	p = parsed(svg);
	ok(p, "basic: well-formed XML");
	if (!p)
		p = strdup("");
	is_int(lines_equal(p, "T all (65 samples, 100.00%)"), 1, "basic: the root holds every sample");
	is_int(lines_equal(p, "T main (65 samples, 100.00%)"), 1, "basic: main");
	is_int(lines_equal(p, "T a (45 samples, 69.23%)"), 1, "basic: a, inclusive");
	is_int(lines_equal(p, "T leaf (35 samples, 53.85%)"), 1,
	       "basic: main;a;leaf twice is one box, its counts added");
	is_int(lines_equal(p, "T other (10 samples, 15.38%)"), 1, "basic: other");
	is_int(lines_equal(p, "T b (20 samples, 30.77%)"), 1, "basic: b");
	is_int(occurrences(p, "T "), 6, "basic: six boxes");
	is_int(lines_equal(p, "H cpu-clock"), 1, "basic: the heading");

	/* alphabetical siblings from the left; depth from the root */
	is_str(attr(box(svg, "a (45 samples, 69.23%)"), "data-x"), "0", "basic: a leftmost");
	is_str(attr(box(svg, "b (20 samples, 30.77%)"), "data-x"), "45", "basic: b after a");
	is_str(attr(box(svg, "leaf (35 samples, 53.85%)"), "data-x"), "0", "basic: leaf before other");
	is_str(attr(box(svg, "other (10 samples, 15.38%)"), "data-x"), "35", "basic: other after leaf");
	is_str(attr(box(svg, "leaf (35 samples, 53.85%)"), "data-d"), "3", "basic: leaf at depth 3");
	/* classic orientation: the root at the bottom, 16 px a level */
	is_str(attr(box(svg, "all (65 samples, 100.00%)"), "y"), "108", "basic: root at the bottom");
	is_str(attr(box(svg, "leaf (35 samples, 53.85%)"), "y"), "60", "basic: leaf on top");
	is_str(attr(box(svg, "all (65 samples, 100.00%)"), "width"), "1180.00", "basic: root full width");
	is_str(attr(box(svg, "leaf (35 samples, 53.85%)"), "width"), "635.38",
	       "basic: leaf's width its share");
	is_str(label(box(svg, "leaf (35 samples, 53.85%)")), "leaf", "basic: a label that fits");

	/* self-contained: the one URL is the SVG namespace; script and style inline */
	is_int(occurrences(svg, "http"), 1, "basic: no external resource");
	ok(strstr(svg, "<script type=\"text/ecmascript\"><![CDATA["), "basic: inline script");
	ok(strstr(svg, "<style type=\"text/css\"><![CDATA["), "basic: inline style");
	ok(strstr(svg, "window.pxFlame"), "basic: the script's interface for tests");
	free(p);

	/* the same stacks in another order give the same file */
	{
		struct px_flame_stack s = fg.stacks[0];
		char *again;

		fg.stacks[0] = fg.stacks[3];
		fg.stacks[3] = s;
		s = fg.stacks[1];
		fg.stacks[1] = fg.stacks[2];
		fg.stacks[2] = s;
		again = render(&g, 1, &ret);
		ok(!strcmp(svg, again), "basic: deterministic, whatever the order of the stacks");
		free(again);
	}
	free(svg);
	fgraph_free(&fg);
}

static const char *const paths[] = {
	"x;f 1", "y;f 3", "y;g;f 4", " 2", "y 2", NULL,
};

static void test_paths(void)
{
	struct fgraph fg = make("paths", paths);
	struct px_flame_graph g = fgraph_graph(&fg);
	const char *frames[] = { "y", NULL };
	struct px_flame_stack null_frame[] = { { frames, 2, 4, 0 }, { frames, 1, 12, 0 } };
	char *svg, *p;
	int ret;

	svg = render(&g, 1, &ret);
	p = parsed(svg);
	ok(ret == 0 && p, "paths: written, well-formed");
	if (!p)
		p = strdup("");
	is_int(lines_equal(p, "T all (12 samples, 100.00%)"), 1,
	       "paths: a stack without frames counts in the root");
	is_int(lines_equal(p, "T f (1 samples, 8.33%)"), 1, "paths: x;f");
	is_int(lines_equal(p, "T f (3 samples, 25.00%)"), 1, "paths: y;f, another box");
	is_int(lines_equal(p, "T f (4 samples, 33.33%)"), 1, "paths: y;g;f, a third");
	is_int(lines_equal(p, "T y (9 samples, 75.00%)"), 1, "paths: y, its own samples and its callees'");
	ok(same_fill(svg, "f (1 samples, 8.33%)", "f (4 samples, 33.33%)"),
	   "paths: one name, one colour");
	ok(!same_fill(svg, "f (1 samples, 8.33%)", "g (4 samples, 33.33%)"),
	   "paths: another name, another colour");
	is_str(attr(box(svg, "x (1 samples, 8.33%)"), "data-x"), "2",
	       "paths: the frameless samples leftmost");
	free(p);
	free(svg);

	g = (struct px_flame_graph){ "null", null_frame, 2, false };
	svg = render(&g, 1, &ret);
	ok(strstr(svg, "<title>?? (4 samples, 25.00%)</title>"), "paths: a NULL frame reads ??");
	free(svg);
	fgraph_free(&fg);
}

static const struct {
	int line;
	const char *name;	/* as given */
	const char *written;	/* in the file */
	const char *read;	/* by an XML parser */
} names[] = {
	{ ROW, "std::vector<int, A&>::operator\"'()", "std::vector&lt;int, A&amp;&gt;::operator&quot;&apos;()",
	  "std::vector<int, A&>::operator\"'()" },
	{ ROW, "a]]>b", "a]]&gt;b", "a]]>b" },
	{ ROW, "[unknown]", "[unknown]", "[unknown]" },
	{ ROW, "??", "??", "??" },
	{ ROW, "[truncated]", "[truncated]", "[truncated]" },
	{ ROW, "caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80", "caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80",
	  "caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80" },
	/* what XML cannot hold: one U+FFFD a byte */
	{ ROW, "bad\xff\xfe", "bad\xef\xbf\xbd\xef\xbf\xbd", "bad\xef\xbf\xbd\xef\xbf\xbd" },
	{ ROW, "tab\tnl\ncr\rbel\a", "tab\xef\xbf\xbdnl\xef\xbf\xbd" "cr\xef\xbf\xbd" "bel\xef\xbf\xbd",
	  "tab\xef\xbf\xbdnl\xef\xbf\xbd" "cr\xef\xbf\xbd" "bel\xef\xbf\xbd" },
	{ ROW, "cut\xe2\x82", "cut\xef\xbf\xbd\xef\xbf\xbd", "cut\xef\xbf\xbd\xef\xbf\xbd" },
	{ ROW, "overlong\xc0\xaf", "overlong\xef\xbf\xbd\xef\xbf\xbd", "overlong\xef\xbf\xbd\xef\xbf\xbd" },
	{ ROW, "surrogate\xed\xa0\x80", "surrogate\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd",
	  "surrogate\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd" },
	{ ROW, "nonchar\xef\xbf\xbf", "nonchar\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd",
	  "nonchar\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd" },
};

static void test_escaping(void)
{
	struct px_flame_stack stacks[ARRAY_SIZE(names)];
	const char *frames[ARRAY_SIZE(names)][1];
	struct px_flame_graph g = { "events <&> \"'", stacks, ARRAY_SIZE(names), false };
	char *svg, *p, want[512];
	int ret;

	for (size_t i = 0; i < ARRAY_SIZE(names); i++) {
		frames[i][0] = names[i].name;
		stacks[i] = (struct px_flame_stack){ frames[i], 1, 1, 0 };
	}
	svg = render(&g, 1, &ret);
	is_int(ret, 0, "escaping: written");
	p = parsed(svg);
	ok(p, "escaping: well-formed XML");
	if (!p)
		p = strdup("");
	for (size_t i = 0; i < ARRAY_SIZE(names); i++) {
		snprintf(want, sizeof(want), "<title>%s (1 samples, 8.33%%)</title>", names[i].written);
		ok_at(names[i].line, strstr(svg, want), "escaping: row %zu written", i);
		snprintf(want, sizeof(want), "T %s (1 samples, 8.33%%)", names[i].read);
		is_int_at(names[i].line, lines_equal(p, want), 1, "escaping: row %zu read back", i);
	}
	ok(strstr(svg, ">events &lt;&amp;&gt; &quot;&apos;</text>"), "escaping: the heading");
	is_int(lines_equal(p, "H events <&> \"'"), 1, "escaping: the heading read back");
	free(p);
	free(svg);
}

static void test_labels(void)
{
	char long_name[301], half[400], want[301];
	const char *const tiny[] = { "main;wide 90", "main;narrow 1", "main;slivers 9", NULL };
	struct fgraph fg = make("labels", tiny);
	struct px_flame_graph g;
	const char *b;
	char *svg;
	int ret;

	memset(long_name, 'x', 300);
	long_name[300] = '\0';
	long_name[0] = '<';
	snprintf(half, sizeof(half), "%s 100", long_name);
	fgraph_add(&fg, half);
	g = fgraph_graph(&fg);
	svg = render(&g, 1, &ret);
	/* 590 px: (590 - 6) / 7.2 = 81 characters, 79 and ".." */
	b = box(svg, "all (200 samples, 100.00%)");
	ok(*b, "labels: the root");
	snprintf(want, sizeof(want), "&lt;%.78s..", long_name + 1);
	is_str(label(strstr(svg, "&lt;xxxxxxxxxx")), want, "labels: cut, '..' at the end");
	is_str(label(box(svg, "wide (90 samples, 45.00%)")), "wide", "labels: a short name whole");
	/* 1180 * 9 / 200 = 53.1 px: 6 characters */
	is_str(label(box(svg, "slivers (9 samples, 4.50%)")), "sliv..", "labels: a narrow box cut");
	/* 5.9 px: too narrow for three characters */
	is_str(label(box(svg, "narrow (1 samples, 0.50%)")), "", "labels: none in a box too narrow");
	free(svg);
	fgraph_free(&fg);
}

/* Boxes under 0.1% of the graph are not drawn; their samples stay in
 * their callers. */
static void test_narrow(void)
{
	const char *const lines[] = { "main;big 100000", "main;tiny 99", "main;small 101", NULL };
	struct fgraph fg = make("narrow", lines);
	struct px_flame_graph g = fgraph_graph(&fg);
	char *svg, *p;
	int ret;

	svg = render(&g, 1, &ret);
	p = parsed(svg);
	ok(ret == 0 && p, "narrow: written, well-formed");
	if (!p)
		p = strdup("");
	is_int(lines_equal(p, "T main (100200 samples, 100.00%)"), 1, "narrow: main counts every sample");
	is_int(occurrences(svg, "tiny"), 0, "narrow: a box under 0.1%% is not drawn");
	is_int(lines_equal(p, "T small (101 samples, 0.10%)"), 1, "narrow: one of 0.1%% is");
	free(p);
	free(svg);
	fgraph_free(&fg);
}

static void test_empty(void)
{
	const char *const zero[] = { "main;f 0", NULL };
	struct fgraph fg = make("zero", zero);
	struct px_flame_graph g[] = { { "nothing", NULL, 0, false }, fgraph_graph(&fg), { NULL, NULL, 0, false } };
	char *svg, *p;
	int ret;

	svg = render(g, 3, &ret);
	p = parsed(svg);
	ok(ret == 0 && p, "empty: written, well-formed");
	if (!p)
		p = strdup("");
	is_int(lines_equal(p, "E no samples"), 3, "empty: each graph says it has no samples");
	is_int(lines_equal(p, "H nothing"), 1, "empty: with its heading");
	is_int(lines_equal(p, "H zero"), 1, "empty: stacks of no samples are none");
	is_int(occurrences(svg, "<g class=\"f\""), 0, "empty: no box");
	free(p);
	free(svg);

	svg = render(NULL, 0, &ret);
	p = parsed(svg);
	ok(ret == 0 && p, "empty: no graph at all is a valid file too");
	free(p);
	free(svg);
	fgraph_free(&fg);
}

static void test_several(void)
{
	const char *const clock[] = { "main;spin 3", "main;wait 1", NULL };
	const char *const faults[] = { "main;touch 7", "main;spin 1", NULL };
	struct fgraph a = make("cpu-clock", clock), b = make("page-faults", faults);
	struct px_flame_graph g[] = { fgraph_graph(&a), fgraph_graph(&b) };
	char *svg, *p;
	int ret;

	svg = render(g, 2, &ret);
	p = parsed(svg);
	ok(ret == 0 && p, "several: written, well-formed");
	if (!p)
		p = strdup("");
	is_int(lines_equal(p, "H cpu-clock"), 1, "several: the first heading");
	is_int(lines_equal(p, "H page-faults"), 1, "several: the second heading");
	ok(strstr(p, "H cpu-clock\n") < strstr(p, "H page-faults\n"), "several: in their order");
	is_int(lines_equal(p, "T all (4 samples, 100.00%)"), 1, "several: the first graph's root");
	is_int(lines_equal(p, "T all (8 samples, 100.00%)"), 1, "several: the second graph's root");
	is_int(lines_equal(p, "T spin (3 samples, 75.00%)"), 1, "several: shares of the first graph");
	is_int(lines_equal(p, "T spin (1 samples, 12.50%)"), 1, "several: shares of the second");
	ok(strstr(svg, "id=\"px-graph-0\" data-total=\"4\"") &&
	   strstr(svg, "id=\"px-graph-1\" data-total=\"8\""), "several: two graphs, their totals");
	/* one below the other: the first from 30 (under the controls), 30 +
	 * 3 levels + 24 high, 10 apart; the second's root 30 + 2 levels lower */
	is_str(attr(box(svg, "all (8 samples, 100.00%)"), "y"), "204",
	       "several: the second graph below the first");
	ok(same_fill(svg, "spin (3 samples, 75.00%)", "spin (1 samples, 12.50%)"),
	   "several: spin's colour in both");
	free(p);
	free(svg);
	fgraph_free(&a);
	fgraph_free(&b);
}

static void test_write_error(void)
{
	const char *const lines[] = { "main;a 1", NULL };
	struct fgraph fg = make("full", lines);
	struct px_flame_graph g = fgraph_graph(&fg);
	FILE *f = fopen("/dev/full", "w");
	int ret;

	if (!ok(f, "write error: /dev/full opens"))
		return;
	ret = px_flamegraph_write(f, &g, 1);
	ok(ret == -ENOSPC || ret == -EIO, "write error: -ENOSPC or -EIO (%d)", ret);
	ok(strstr(px_last_error(), "cannot write the flame graph"), "write error: said (%s)",
	   px_last_error());
	fclose(f);
	fgraph_free(&fg);
}

/* 100,000 distinct stacks, 4 to 12 frames deep over 50 names, their
 * counts skewed so that boxes are drawn on several levels; the suite's
 * time limit is the test of speed (no quadratic work). */
static void test_many(void)
{
	enum { N = 100000 };
	static char names_buf[50][16];
	static const char *frames[N][12];
	static struct px_flame_stack stacks[N];
	struct px_flame_graph g = { "many", stacks, N, false };
	uint32_t seed = 12345;
	uint64_t total = 0, first = 0;	/* first: under main;fn00 */
	char *svg, *p, want[64];
	int ret;

	for (unsigned i = 0; i < 50; i++)
		snprintf(names_buf[i], sizeof(names_buf[i]), "fn%02u", i);
	for (size_t i = 0; i < N; i++) {
		seed = seed * 1103515245u + 12345u;
		stacks[i].n = 4 + (seed >> 16) % 9;
		frames[i][0] = "main";
		/* frames 1 to 3: the stack's number in base 50, which keeps
		 * every stack distinct */
		for (size_t d = 1, k = i; d < stacks[i].n; d++, k /= 50)
			frames[i][d] = names_buf[d < 4 ? k % 50 : (seed >> (d + 8)) % 50];
		stacks[i].frames = frames[i];
		stacks[i].count = 1 + 1000 / (1 + i % 50);
		total += stacks[i].count;
		first += i % 50 ? 0 : stacks[i].count;
	}
	svg = render(&g, 1, &ret);
	is_int(ret, 0, "many: written");
	p = parsed(svg);
	ok(p, "many: well-formed XML");
	if (!p)
		p = strdup("");
	snprintf(want, sizeof(want), "T main (%llu samples, 100.00%%)", (unsigned long long)total);
	is_int(lines_equal(p, want), 1, "many: main holds every sample");
	snprintf(want, sizeof(want), "T fn00 (%llu samples, %.2f%%)", (unsigned long long)first,
		 100.0 * (double)first / (double)total);
	is_int(lines_equal(p, want), 1, "many: main;fn00 holds its stacks' samples");
	diag("many: %zu bytes, %d boxes drawn", strlen(svg), occurrences(svg, "<g class=\"f\""));
	free(p);
	free(svg);
}

/* The folded lines of f as graphs (*n of them); -1 for a line that is
 * no folded stack, or no memory. */
static int read_folded(FILE *f, struct fgraph **graphs, size_t *n)
{
	size_t cap = 0, len = 0;
	char *line = NULL;
	int ret = 0;

	while (!ret && getline(&line, &len, f) > 0) {
		line[strcspn(line, "\n")] = '\0';
		if (!*line)
			continue;
		if (!*n || *line == '#') {
			if (px_grow((void **)graphs, &cap, *n, 1, sizeof(**graphs), 4)) {
				ret = -1;
				break;
			}
			(*graphs)[(*n)++] = (struct fgraph){ .title = strdup(*line == '#' ?
				line + 1 + strspn(line + 1, " ") : "samples") };
			if (*line == '#')
				continue;
		}
		ret = fgraph_add(&(*graphs)[*n - 1], line);
		if (ret)
			fprintf(stderr, "test_flamegraph: not a folded stack: '%s'\n", line);
	}
	free(line);
	return ret;
}

/* --folded: folded stacks on stdin to an SVG on stdout. */
static int folded_main(void)
{
	struct fgraph *graphs = NULL;
	struct px_flame_graph *g;
	size_t n = 0;
	int ret = read_folded(stdin, &graphs, &n);

	g = calloc(n + 1, sizeof(*g));
	if (!ret && g) {
		for (size_t i = 0; i < n; i++)
			g[i] = fgraph_graph(&graphs[i]);
		ret = px_flamegraph_write(stdout, g, n);
		if (ret)
			fprintf(stderr, "test_flamegraph: %s\n", px_last_error());
	}
	for (size_t i = 0; i < n; i++) {
		free((char *)graphs[i].title);
		fgraph_free(&graphs[i]);
	}
	free(graphs);
	free(g);
	return ret || !g ? 1 : 0;
}

int main(int argc, char **argv)
{
	if (argc > 1 && !strcmp(argv[1], "--folded"))
		return folded_main();
	test_basic();
	test_paths();
	test_escaping();
	test_labels();
	test_narrow();
	test_empty();
	test_several();
	test_write_error();
	test_many();
	return done_testing();
}
