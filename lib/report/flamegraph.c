/* Flame graphs as SVG (flamegraph.h).
 *
 * The stacks are sorted frame by frame: the stacks under one path from
 * the root are then adjacent, and siblings come in alphabetical order.
 * One pass over them keeps the path that is open, closing the frames a
 * stack does not share with the one before it and opening its own; a
 * box's inclusive count is the samples seen between its opening and its
 * closing.  O(n log n) in the stacks; memory for the drawn boxes only. */
#include "flamegraph.h"
#include "error.h"
#include "grow.h"

#include <errno.h>
#include <math.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

/* The geometry, in SVG pixels. */
#define WIDTH 1200
#define PAD 10			/* left and right margins */
#define AREA (WIDTH - 2 * PAD)	/* the width of a graph's root */
#define ROW 16			/* one level of the stacks */
#define BAR 30			/* the controls' line; a graph's heading */
#define FOOT 24			/* a graph's details line */
#define GAP 10			/* between graphs */
#define CHAR_W 7.2		/* a 12px glyph's average width, for labels */
#define MIN_SHARE 0.001		/* narrower boxes are not drawn */

/* what XML cannot hold is written as U+FFFD */
#define REPLACEMENT "\xef\xbf\xbd"

struct box {
	const char *name;
	size_t depth;		/* 0: the root */
	uint64_t start;		/* the samples left of the box */
	uint64_t count;		/* inclusive */
	uint64_t base;		/* differential: the base's, inclusive */
};

/* The drawn boxes of one graph, each after the boxes above it. */
struct layout {
	struct box *boxes;
	size_t n, cap;
	size_t depth;		/* of the highest drawn box */
	uint64_t total;
	uint64_t base_total;	/* differential: the base's samples */
	double max_change;	/* differential: the largest |change|, points */
};

static const char *frame(const struct px_flame_stack *s, size_t i)
{
	return s->frames[i] ? s->frames[i] : "??";
}

static bool same_frame(const struct px_flame_stack *a,
		       const struct px_flame_stack *b, size_t i)
{
	const char *fa = frame(a, i), *fb = frame(b, i);

	return fa == fb || !strcmp(fa, fb);
}

/* Frame by frame from the root, a prefix before what extends it. */
static int stack_cmp(const void *pa, const void *pb)
{
	const struct px_flame_stack *a = *(const struct px_flame_stack *const *)pa;
	const struct px_flame_stack *b = *(const struct px_flame_stack *const *)pb;
	size_t n = a->n < b->n ? a->n : b->n;

	for (size_t i = 0; i < n; i++) {
		const char *fa = frame(a, i), *fb = frame(b, i);
		int c = fa == fb ? 0 : strcmp(fa, fb);

		if (c)
			return c;
	}
	return (a->n > b->n) - (a->n < b->n);
}

/* The number of frames a and b share from the root. */
static size_t shared_frames(const struct px_flame_stack *a,
			    const struct px_flame_stack *b)
{
	size_t n = a->n < b->n ? a->n : b->n, i = 0;

	while (i < n && same_frame(a, b, i))
		i++;
	return i;
}

/* A box's change of share from the base, in points. */
static double box_change(const struct layout *l, const struct box *b)
{
	return 100.0 * ((double)b->count / (double)l->total -
			(l->base_total ? (double)b->base / (double)l->base_total : 0));
}

/* Keep the box of samples [start, end) if it is wide enough to draw;
 * base: its base samples. */
static int layout_add(struct layout *l, const char *name, size_t depth,
		      uint64_t start, uint64_t end, uint64_t base)
{
	struct box *b;

	if ((double)(end - start) < MIN_SHARE * (double)l->total)
		return 0;
	if (px_grow((void **)&l->boxes, &l->cap, l->n, 1, sizeof(*l->boxes), 64))
		return -ENOMEM;
	b = &l->boxes[l->n++];
	*b = (struct box){ name, depth, start, end - start, base };
	if (depth > l->depth)
		l->depth = depth;
	if (fabs(box_change(l, b)) > l->max_change)
		l->max_change = fabs(box_change(l, b));
	return 0;
}

/* Where the sweep is: the samples so far, and the base's. */
struct sweep_pos {
	uint64_t count, base;
};

/* Close the open frames of stack s above the first `keep`, at pos; frame
 * d opened at open_at[d] and is drawn at depth d + 1. */
static int close_frames(struct layout *l, const struct px_flame_stack *s,
			const struct sweep_pos *open_at, size_t keep, struct sweep_pos pos)
{
	for (size_t d = s ? s->n : 0; d-- > keep;) {
		int ret = layout_add(l, frame(s, d), d + 1, open_at[d].count, pos.count,
				     pos.base - open_at[d].base);

		if (ret)
			return ret;
	}
	return 0;
}

/* The drawn boxes of graph g, in one pass over its sorted stacks (as the
 * file's first comment says); none when it has no samples. */
static int layout_graph(struct layout *l, const struct px_flame_graph *g)
{
	const struct px_flame_stack **order = NULL, *prev = NULL;
	struct sweep_pos *open_at = NULL, pos = { 0, 0 };
	size_t deepest = 1;
	int ret = 0;

	for (size_t i = 0; i < g->n; i++) {
		l->total += g->stacks[i].count;
		l->base_total += g->diff ? g->stacks[i].base : 0;
		if (g->stacks[i].n > deepest)
			deepest = g->stacks[i].n;
	}
	if (!l->total)
		return 0;
	order = malloc(g->n * sizeof(*order));
	open_at = malloc(deepest * sizeof(*open_at));
	if (!order || !open_at) {
		ret = px_fail(ENOMEM, "out of memory");
		goto out;
	}
	for (size_t i = 0; i < g->n; i++)
		order[i] = &g->stacks[i];
	qsort(order, g->n, sizeof(*order), stack_cmp);

	for (size_t i = 0; i < g->n && !ret; i++) {
		const struct px_flame_stack *s = order[i];
		size_t keep;

		if (!s->count && !(g->diff && s->base))
			continue;
		keep = prev ? shared_frames(prev, s) : 0;
		ret = close_frames(l, prev, open_at, keep, pos);
		for (size_t d = keep; d < s->n; d++)
			open_at[d] = pos;
		prev = s;
		pos.count += s->count;
		pos.base += g->diff ? s->base : 0;
	}
	if (!ret)
		ret = close_frames(l, prev, open_at, 0, pos);
	if (!ret)
		ret = layout_add(l, "all", 0, 0, pos.count, pos.base);
out:
	free(order);
	free(open_at);
	return ret;
}

/* The length of the UTF-8 sequence at s if XML can hold it as a character
 * (1 to 4), else 0: not UTF-8, a control character, U+FFFE or U+FFFF. */
static size_t xml_char_len(const unsigned char *s)
{
	static const uint32_t least[] = { 0, 0, 0x80, 0x800, 0x10000 };
	size_t len;
	uint32_t c;

	if (s[0] < 0x80)
		return s[0] >= 0x20 && s[0] != 0x7f;
	len = s[0] < 0xc2 ? 0 : s[0] < 0xe0 ? 2 : s[0] < 0xf0 ? 3 : s[0] < 0xf5 ? 4 : 0;
	if (!len)
		return 0;
	c = s[0] & (0x7f >> len);
	for (size_t i = 1; i < len; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return 0;
		c = c << 6 | (s[i] & 0x3f);
	}
	if (c < least[len] || c > 0x10ffff || (c >= 0xd800 && c <= 0xdfff) ||
	    c == 0xfffe || c == 0xffff)
		return 0;
	return len;
}

static const char *xml_entity(unsigned char c)
{
	switch (c) {
	case '&': return "&amp;";
	case '<': return "&lt;";
	case '>': return "&gt;";
	case '"': return "&quot;";
	case '\'': return "&apos;";
	default: return NULL;
	}
}

/* The first `max` characters of s as XML text (a byte XML cannot hold
 * counts as one character, written as U+FFFD). */
static void put_xml(FILE *f, const char *s, size_t max)
{
	const unsigned char *p = (const unsigned char *)s;

	for (; *p && max; max--) {
		size_t len = xml_char_len(p);
		const char *entity = xml_entity(*p);

		if (!len) {
			fputs(REPLACEMENT, f);
			len = 1;
		} else if (entity) {
			fputs(entity, f);
		} else {
			fwrite(p, 1, len, f);
		}
		p += len;
	}
}

/* The number of characters put_xml writes of s. */
static size_t xml_chars(const char *s)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t n = 0;

	for (; *p; n++) {
		size_t len = xml_char_len(p);

		p += len ? len : 1;
	}
	return n;
}

/* The label of a box w pixels wide: what fits by an average glyph width
 * (the script refits by measuring), ".." where cut, nothing under three
 * characters. */
static void put_label(FILE *f, const char *name, double w)
{
	size_t len = xml_chars(name), fit = w > 6 ? (size_t)((w - 6) / CHAR_W) : 0;

	if (fit < 3)
		return;
	if (len <= fit) {
		put_xml(f, name, len);
		return;
	}
	put_xml(f, name, fit - 2);
	fputs("..", f);
}

/* A warm colour (red high, green from none to much, little blue) from a
 * hash of the name: a function has the same colour in every graph. */
static void put_colour(FILE *f, const char *name)
{
	uint32_t h = 2166136261u;	/* FNV-1a, then murmur3's finaliser */

	for (const unsigned char *p = (const unsigned char *)name; *p; p++)
		h = (h ^ *p) * 16777619u;
	h ^= h >> 16;
	h *= 0x85ebca6bu;
	h ^= h >> 13;
	h *= 0xc2b2ae35u;
	h ^= h >> 16;
	fprintf(f, "rgb(%u,%u,%u)", 205 + (h & 0xff) * 50 / 255,
		(h >> 8 & 0xff) * 230 / 255, (h >> 16 & 0xff) * 55 / 255);
}

/* A differential box's colour: red as it grew, blue as it shrank, by
 * its change over the graph's largest (white: none). */
static void put_change_colour(FILE *f, const struct layout *l, const struct box *b)
{
	double c = box_change(l, b), k = l->max_change > 0 ? fabs(c) / l->max_change : 0;
	unsigned fade = (unsigned)(235 - 200 * k);

	if (c >= 0)
		fprintf(f, "rgb(250,%u,%u)", fade, fade);
	else
		fprintf(f, "rgb(%u,%u,250)", fade, fade);
}

/* Box b of a graph whose top row is at y0. */
static void write_box(FILE *f, const struct box *b, const struct layout *l, size_t y0,
		      bool diff)
{
	double scale = (double)AREA / (double)l->total;
	double x = PAD + (double)b->start * scale, w = (double)b->count * scale;
	size_t y = y0 + (l->depth - b->depth) * ROW;

	fprintf(f, "<g class=\"f\" data-x=\"%" PRIu64 "\" data-d=\"%zu\"", b->start, b->depth);
	if (diff)
		fprintf(f, " data-change=\"%+.2f\"", box_change(l, b));
	fputs("><title>", f);
	put_xml(f, b->name, SIZE_MAX);
	fprintf(f, " (%" PRIu64 " samples, %.2f%%)</title>", b->count,
		100.0 * (double)b->count / (double)l->total);
	fprintf(f, "<rect x=\"%.2f\" y=\"%zu\" width=\"%.2f\" height=\"%d\" rx=\"2\" ry=\"2\" fill=\"",
		x, y, w, ROW - 1);
	if (diff)
		put_change_colour(f, l, b);
	else
		put_colour(f, b->name);
	fprintf(f, "\"/><text x=\"%.2f\" y=\"%zu\">", x + 3, y + 11);
	put_label(f, b->name, w);
	fputs("</text></g>\n", f);
}

/* The height a graph takes. */
static size_t graph_height(const struct layout *l)
{
	return BAR + (l->total ? (l->depth + 1) * ROW : 0) + FOOT;
}

/* Graph number i at y: its heading, its boxes, its details line (where
 * the script shows the box under the mouse and the share searched). */
static void write_graph(FILE *f, const struct px_flame_graph *g,
			const struct layout *l, size_t i, size_t y)
{
	size_t foot = y + graph_height(l) - FOOT + 16;

	fprintf(f, "<g class=\"graph\" id=\"px-graph-%zu\" data-total=\"%" PRIu64 "\">\n",
		i, l->total);
	fprintf(f, "<text class=\"heading\" x=\"%d\" y=\"%zu\">", WIDTH / 2, y + 20);
	put_xml(f, g->title ? g->title : "", SIZE_MAX);
	fprintf(f, "</text>\n<text class=\"ctl unzoom off\" x=\"%d\" y=\"%zu\">Reset Zoom</text>\n",
		PAD, y + 20);
	if (!l->total) {
		fprintf(f, "<text class=\"empty\" x=\"%d\" y=\"%zu\">no samples</text>\n</g>\n",
			PAD, foot);
		return;
	}
	for (size_t k = 0; k < l->n; k++)
		write_box(f, &l->boxes[k], l, y + BAR, g->diff);
	fprintf(f, "<text class=\"details\" x=\"%d\" y=\"%zu\"></text>\n", PAD, foot);
	fprintf(f, "<text class=\"matched off\" x=\"%d\" y=\"%zu\"></text>\n</g>\n",
		WIDTH - PAD, foot);
}

static const char style[] =
	"text { font-family: Verdana, \"DejaVu Sans\", sans-serif; font-size: 12px; fill: rgb(0,0,0); }\n"
	".heading { font-size: 17px; text-anchor: middle; }\n"
	".ctl { cursor: pointer; fill: rgb(40,40,160); }\n"
	".ctl:hover { text-decoration: underline; }\n"
	".matched, #px-search, #px-unsearch { text-anchor: end; }\n"
	".off, g.hide { display: none; }\n"
	"g.f { cursor: pointer; }\n"
	"g.f text { pointer-events: none; }\n"
	"g.f:hover rect { stroke: rgb(0,0,0); stroke-width: 0.5; }\n"
	"g.parent { opacity: 0.5; }\n"
	"g.m rect { fill: rgb(230,0,230); }\n";

static void write_head(FILE *f, size_t height)
{
	fprintf(f, "<?xml version=\"1.0\" encoding=\"UTF-8\" standalone=\"no\"?>\n"
		"<svg version=\"1.1\" xmlns=\"http://www.w3.org/2000/svg\" "
		"width=\"%d\" height=\"%zu\" viewBox=\"0 0 %d %zu\">\n",
		WIDTH, height, WIDTH, height);
	fprintf(f, "<style type=\"text/css\"><![CDATA[\n%s]]></style>\n", style);
	fputs("<defs><linearGradient id=\"px-bg\" x1=\"0\" y1=\"0\" x2=\"0\" y2=\"1\">"
	      "<stop offset=\"5%\" stop-color=\"rgb(238,238,238)\"/>"
	      "<stop offset=\"95%\" stop-color=\"rgb(238,238,176)\"/>"
	      "</linearGradient></defs>\n"
	      "<rect x=\"0\" y=\"0\" width=\"100%\" height=\"100%\" fill=\"url(#px-bg)\"/>\n", f);
	fprintf(f, "<text id=\"px-search\" class=\"ctl\" x=\"%d\" y=\"20\">Search</text>\n",
		WIDTH - PAD);
	fprintf(f, "<text id=\"px-unsearch\" class=\"ctl off\" x=\"%d\" y=\"20\">Reset Search</text>\n",
		WIDTH - PAD - 70);
}

/* The interaction (the body of a function that write_tail opens with the
 * layout's constants, so that nothing but window.pxFlame is global). */
static const char script[] =
	"const graphs = [];\n"
	"const unsearchCtl = document.getElementById('px-unsearch');\n"
	"\n"
	"// A box's name and count, from its title: NAME (N samples, P%)\n"
	"function readBox(el, G) {\n"
	"  const title = el.querySelector('title').textContent, i = title.lastIndexOf(' (');\n"
	"  el._box = { el, graph: G, title, name: title.slice(0, i),\n"
	"    n: parseInt(title.slice(i + 2), 10), x: +el.getAttribute('data-x'),\n"
	"    d: +el.getAttribute('data-d'), rect: el.querySelector('rect'),\n"
	"    text: el.querySelector('text') };\n"
	"  return el._box;\n"
	"}\n"
	"\n"
	"function readGraph(el) {\n"
	"  const G = { el, total: +el.getAttribute('data-total'),\n"
	"    details: el.querySelector('.details'), matched: el.querySelector('.matched'),\n"
	"    unzoomCtl: el.querySelector('.unzoom') };\n"
	"  G.boxes = Array.from(el.querySelectorAll('g.f'), b => readBox(b, G));\n"
	"  el._graph = G;\n"
	"  return G;\n"
	"}\n"
	"\n"
	"// The label that fits w pixels, measured: '..' where cut, none under 3 characters\n"
	"function fit(b, w) {\n"
	"  const room = w - 6, t = b.text;\n"
	"  let k = Math.floor(room / CHAR_W);\n"
	"  if (!b.chars) b.chars = Array.from(b.name);\n"
	"  const label = k => k >= b.chars.length ? b.name : b.chars.slice(0, k - 2).join('') + '..';\n"
	"  t.textContent = k < 3 ? '' : label(k);\n"
	"  while (k >= 3 && t.getComputedTextLength() > room)\n"
	"    t.textContent = --k < 3 ? '' : label(k);\n"
	"}\n"
	"\n"
	"// Show the samples [zx, zx + zn) of G full width, from depth zd up; the\n"
	"// boxes below that hold them full width and dimmed; hide the others\n"
	"function place(G, zx, zn, zd) {\n"
	"  for (const b of G.boxes) {\n"
	"    let x, w;\n"
	"    const parent = b.d < zd && b.x <= zx && b.x + b.n >= zx + zn;\n"
	"    if (parent) {\n"
	"      x = LEFT; w = AREA;\n"
	"    } else if (b.d >= zd && b.x >= zx && b.x + b.n <= zx + zn) {\n"
	"      x = LEFT + (b.x - zx) * AREA / zn; w = b.n * AREA / zn;\n"
	"    } else {\n"
	"      b.el.classList.add('hide');\n"
	"      continue;\n"
	"    }\n"
	"    b.el.classList.remove('hide');\n"
	"    b.el.classList.toggle('parent', parent);\n"
	"    b.rect.setAttribute('x', x.toFixed(2));\n"
	"    b.rect.setAttribute('width', w.toFixed(2));\n"
	"    b.text.setAttribute('x', (x + 3).toFixed(2));\n"
	"    fit(b, w);\n"
	"  }\n"
	"}\n"
	"\n"
	"function zoom(el) {\n"
	"  const b = el._box;\n"
	"  place(b.graph, b.x, b.n, b.d);\n"
	"  b.graph.unzoomCtl.classList.toggle('off', b.d === 0);\n"
	"}\n"
	"\n"
	"// g: a graph's number or its element\n"
	"function unzoom(g) {\n"
	"  const G = typeof g === 'number' ? graphs[g] : g._graph;\n"
	"  place(G, 0, G.total, 0);\n"
	"  G.unzoomCtl.classList.add('off');\n"
	"}\n"
	"\n"
	"// Colour the boxes whose name matches re (a RegExp or its source) and\n"
	"// show each graph's share of samples under them, nested matches once;\n"
	"// returns those shares ('12.34')\n"
	"function search(re) {\n"
	"  re = new RegExp(re instanceof RegExp ? re.source : re,\n"
	"                  re instanceof RegExp ? re.flags.replace(/[gy]/g, '') : '');\n"
	"  const shares = graphs.map(G => {\n"
	"    const hits = G.boxes.filter(b => re.test(b.name));\n"
	"    G.boxes.forEach(b => b.el.classList.remove('m'));\n"
	"    hits.forEach(b => b.el.classList.add('m'));\n"
	"    hits.sort((a, b) => a.x - b.x || b.n - a.n);\n"
	"    let sum = 0, end = 0;\n"
	"    for (const b of hits)\n"
	"      if (b.x >= end) { sum += b.n; end = b.x + b.n; }\n"
	"    const share = G.total ? (100 * sum / G.total).toFixed(2) : '0.00';\n"
	"    if (G.matched) {\n"
	"      G.matched.textContent = 'Matched: ' + share + '%';\n"
	"      G.matched.classList.remove('off');\n"
	"    }\n"
	"    return share;\n"
	"  });\n"
	"  unsearchCtl.classList.remove('off');\n"
	"  return shares;\n"
	"}\n"
	"\n"
	"function resetSearch() {\n"
	"  for (const G of graphs) {\n"
	"    G.boxes.forEach(b => b.el.classList.remove('m'));\n"
	"    if (G.matched) G.matched.classList.add('off');\n"
	"  }\n"
	"  unsearchCtl.classList.add('off');\n"
	"}\n"
	"\n"
	"function trySearch(s) {\n"
	"  try {\n"
	"    search(s);\n"
	"  } catch (e) {\n"
	"    for (const G of graphs)\n"
	"      if (G.details) G.details.textContent = 'cannot search: ' + e.message;\n"
	"  }\n"
	"}\n"
	"\n"
	"function ask() {\n"
	"  const s = prompt('Search for (a regular expression):', '');\n"
	"  if (s) trySearch(s);\n"
	"}\n"
	"\n"
	"function boxAt(e) {\n"
	"  const el = e.target.closest && e.target.closest('g.f');\n"
	"  return el && el._box;\n"
	"}\n"
	"\n"
	"document.addEventListener('mouseover', e => {\n"
	"  const b = boxAt(e);\n"
	"  if (b) b.graph.details.textContent = b.title;\n"
	"});\n"
	"document.addEventListener('mouseout', e => {\n"
	"  const b = boxAt(e);\n"
	"  if (b) b.graph.details.textContent = '';\n"
	"});\n"
	"document.addEventListener('click', e => {\n"
	"  const t = e.target, b = boxAt(e);\n"
	"  if (b) zoom(b.el);\n"
	"  else if (t.closest('.unzoom')) unzoom(t.closest('g.graph'));\n"
	"  else if (t.closest('#px-search')) ask();\n"
	"  else if (t.closest('#px-unsearch')) resetSearch();\n"
	"});\n"
	"document.addEventListener('keydown', e => {\n"
	"  if ((e.ctrlKey || e.metaKey) && e.key === 'f') {\n"
	"    e.preventDefault();\n"
	"    ask();\n"
	"  } else if (e.key === 'Escape') {\n"
	"    resetSearch();\n"
	"  }\n"
	"});\n"
	"\n"
	"document.querySelectorAll('g.graph').forEach(el => graphs.push(readGraph(el)));\n"
	"graphs.forEach(G => { if (G.total) unzoom(G.el); });\n"
	"const s = new URLSearchParams(document.location.search).get('s');\n"
	"if (s) trySearch(s);\n"
	"window.pxFlame = { graphs, search, resetSearch, zoom, unzoom };\n";

static void write_tail(FILE *f)
{
	fprintf(f, "<script type=\"text/ecmascript\"><![CDATA[\n'use strict';\n(function () {\n"
		"const AREA = %d, LEFT = %d, CHAR_W = %g;\n%s})();\n]]></script>\n</svg>\n",
		AREA, PAD, CHAR_W, script);
}

/* 0, or the write error: errno was 0 when the writing began, and only
 * stdio calls followed, so a failed write left its errno (stdio drops what
 * it could not write: the last flush may well succeed); EIO if none. */
static int write_status(FILE *f)
{
	int err;

	if (!fflush(f) && !ferror(f))
		return 0;
	err = errno ? errno : EIO;
	return px_fail(err, "cannot write the flame graph: %s", strerror(err));
}

int px_flamegraph_write(FILE *f, const struct px_flame_graph *graphs, size_t n)
{
	struct layout *ls = calloc(n ? n : 1, sizeof(*ls));
	size_t height = BAR, y = BAR;
	int ret = 0;

	if (!ls)
		return px_fail(ENOMEM, "out of memory");
	for (size_t i = 0; i < n && !ret; i++) {
		ret = layout_graph(&ls[i], &graphs[i]);
		height += graph_height(&ls[i]) + GAP;
	}
	if (!ret) {
		errno = 0;
		write_head(f, height);
		for (size_t i = 0; i < n && !ferror(f); i++) {
			write_graph(f, &graphs[i], &ls[i], i, y);
			y += graph_height(&ls[i]) + GAP;
		}
		write_tail(f);
		ret = write_status(f);
	}
	for (size_t i = 0; i < n; i++)
		free(ls[i].boxes);
	free(ls);
	return ret;
}
