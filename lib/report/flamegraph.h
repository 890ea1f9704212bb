/* Flame graphs as one self-contained, interactive SVG file.
 *
 * Classic orientation: the root ("all", every sample of the graph) at the
 * bottom, callees above their callers, leaves on top.  A box's width is
 * its inclusive sample count; siblings are in alphabetical (byte) order;
 * identical paths from the root make one box; colours are warm hues
 * chosen by a hash of the name, so a function has one colour everywhere.
 * Boxes narrower than 0.1% of the graph are not drawn (their samples
 * still count in their callers' boxes).
 *
 * Every box is a <g class="f"> with a <title> reading exactly
 * "NAME (N samples, P%)" (N inclusive, P its share of the graph with two
 * decimals), a <rect> and a <text> label cut to fit ("..").  Names are
 * written as XML text: & < > " ' escaped, bytes that are not UTF-8 and
 * control characters as U+FFFD.
 *
 * The file's script gives: hover shows a box's title in its graph's
 * details line; a click on a box zooms its graph to it ("Reset Zoom"
 * undoes); "Search" (or Ctrl-F) asks for a regular expression, colours the
 * boxes whose name matches and shows each graph's "Matched: P%" (samples
 * under matching boxes, nested matches counted once); "Reset Search"
 * undoes.  A URL parameter ?s=REGEX searches on load, and scripts (tests)
 * can call window.pxFlame.search(re), .resetSearch(), .zoom(box) and
 * .unzoom(graph).
 *
 * A differential graph (pfmon-report --diff) draws the new profile's
 * widths and colours each box by the change of its share from the base
 * profile's, in points: red where it grew, blue where it shrank, the
 * stronger the larger the change (the largest change of the graph the
 * strongest), near white where it held; each box's data-change attribute
 * gives the change with two decimals. */
#ifndef PX_FLAMEGRAPH_H
#define PX_FLAMEGRAPH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* One distinct call stack and its samples: frames[0] is the outermost
 * (e.g. the process or main), frames[n-1] the innermost (the leaf).  A
 * NULL frame reads "??"; a stack with no frames counts in the root only. */
struct px_flame_stack {
	const char *const *frames;
	size_t n;
	uint64_t count;
	uint64_t base;		/* differential graphs: its base samples */
};

/* One graph: a title (e.g. the event name) and its stacks (any order, a
 * stack may repeat: counts add up). */
struct px_flame_graph {
	const char *title;
	const struct px_flame_stack *stacks;
	size_t n;
	bool diff;		/* colour by the change from the stacks' base */
};

/* Write a self-contained SVG holding the graphs one below the other; a
 * graph without samples says so.
 * 0 or -errno (write error, ENOMEM) with px_last_error(). */
int px_flamegraph_write(FILE *f, const struct px_flame_graph *graphs, size_t n);

#endif
