#!/usr/bin/python3
"""Check a flame graph SVG (lib/report/flamegraph.c) in headless Chromium.

usage: tests/cli/flamegraph_render.py [--graph TITLE] SVG NAME COUNT OUTDIR

Opens SVG in headless Chromium with its script run, and checks in the
rendered page that:
  - the script ran (window.pxFlame) and every drawn label fits its box;
  - a box named NAME exists, is drawn with a positive width and its title
    reads "NAME (COUNT samples, P%)", P its share of its graph with two
    decimals (the first graph with such a box, or the graph headed TITLE);
  - hovering over it shows that title in the graph's details line;
  - clicking its parent box zooms: NAME's box gets wider, to COUNT / the
    parent's count of the graph's width, the parent's callers stay full
    width and dimmed, boxes outside the parent are hidden; "Reset Zoom"
    gives NAME its first width back.  (When the parent holds every sample
    no zoom can widen NAME: the click goes to NAME's own box instead.)
  - searching for ^NAME$ (pxFlame.search, and the URL parameter ?s=)
    colours NAME's boxes and shows "Matched: P%": the samples under boxes
    named NAME (nested ones once) over the graph's total; COUNT / total
    when NAME has one box.
It also saves OUTDIR/flamegraph.png (a 1200x800 screenshot of the SVG, for
a person to look at), OUTDIR/flamegraph_check.html (the page that ran the
checks), OUTDIR/flamegraph_check.txt (their results) and
OUTDIR/chromium.log (Chromium's messages).

Exit status: 0 when every check passed; 1 when one failed (each failure on
standard error, "flamegraph_render: ..."); 2 for a usage error or when
Chromium is missing or did not finish (scripts/install-deps.sh installs
it).  Each Chromium run is limited to FLAMEGRAPH_RENDER_TIMEOUT seconds
(default 50), in its own process group, ended whole on time-out.

Chromium: $CHROMIUM, else /usr/bin/chromium, else chromium on the PATH; it
runs with --no-sandbox (as root it needs it), no GPU, and a temporary
profile, so it never touches ~/.  No network is used.

A demonstration on a graph built from folded stacks:
    printf 'main;work;leaf 30\\nmain;work;other 10\\nmain;idle 20\\n' |
        build/tests/unit/test_flamegraph --folded > /tmp/fg.svg
    tests/cli/flamegraph_render.py /tmp/fg.svg leaf 30 /tmp/fg
"""
import argparse
import html
import json
import os
import pathlib
import re
import shutil
import signal
import subprocess
import sys
import tempfile
from urllib.parse import quote

ME = "flamegraph_render"

# The page that runs the checks: SVG twice in frames (the second with
# ?s=REGEX), checked when everything has loaded; the verdict goes into
# <pre id="verdict"> for --dump-dom: "PASS" or "FAIL" lines, then notes.
CHECK_PAGE = r"""<!DOCTYPE html>
<html><head><meta charset="utf-8"><title>flame graph check</title></head>
<body>
<pre id="verdict">pending: the checks did not run</pre>
<iframe id="plain" src="@PLAIN@" width="1220" height="900"></iframe>
<iframe id="searched" src="@SEARCHED@" width="1220" height="900"></iframe>
<script>
const P = @PARAMS@;
const lines = [];
const fail = msg => lines.push('FAIL ' + msg);
const note = msg => lines.push('note ' + msg);

// Every box of a graph element, read from the DOM (not from the script)
function boxesOf(graph) {
  return Array.from(graph.querySelectorAll('g.f'), el => {
    const title = el.querySelector('title').textContent, i = title.lastIndexOf(' (');
    return { el, title, name: title.slice(0, i), n: parseInt(title.slice(i + 2), 10),
             x: +el.getAttribute('data-x'), d: +el.getAttribute('data-d'),
             rect: el.querySelector('rect'), text: el.querySelector('text') };
  });
}

const shown = el => el.getClientRects().length > 0 && getComputedStyle(el).display !== 'none';
const width = b => b.rect.getBoundingClientRect().width;
const svgWidth = b => parseFloat(b.rect.getAttribute('width'));
const click = el => el.dispatchEvent(new MouseEvent('click', { bubbles: true }));

// The graph to check and the NAME box in it with COUNT samples
function findTarget(doc) {
  const seen = [];
  for (const graph of doc.querySelectorAll('g.graph')) {
    const heading = graph.querySelector('.heading').textContent;
    if (P.graph !== null && heading !== P.graph) continue;
    const boxes = boxesOf(graph), named = boxes.filter(b => b.name === P.name);
    named.forEach(b => seen.push(b.title + ' in "' + heading + '"'));
    const leaf = named.find(b => b.n === P.count);
    if (leaf) return { graph, heading, boxes, named, leaf, total: +graph.getAttribute('data-total') };
  }
  fail('no box "' + P.name + ' (' + P.count + ' samples, ...)"' +
       (P.graph !== null ? ' in the graph "' + P.graph + '"' : '') +
       (seen.length ? '; boxes of that name: ' + seen.join('; ') : '; no box of that name'));
  return null;
}

// Samples under boxes named NAME, a box inside another counted once
function namedShare(t) {
  const sorted = t.named.slice().sort((a, b) => a.x - b.x || b.n - a.n);
  let sum = 0, end = 0;
  for (const b of sorted) if (b.x >= end) { sum += b.n; end = b.x + b.n; }
  return (100 * sum / t.total).toFixed(2);
}

function checkBox(t) {
  const want = P.name + ' (' + P.count + ' samples, ' + (100 * P.count / t.total).toFixed(2) + '%)';
  if (t.leaf.title !== want) fail('the title reads "' + t.leaf.title + '", not "' + want + '"');
  if (!shown(t.leaf.rect) || !(width(t.leaf) > 0))
    fail('the box is not drawn (width ' + width(t.leaf) + ')');
  const fill = getComputedStyle(t.leaf.rect).fill;
  note('box "' + t.leaf.title + '" in "' + t.heading + '": ' + width(t.leaf).toFixed(2) +
       ' px wide, ' + fill);
}

function checkLabels(t) {
  for (const b of t.boxes) {
    if (!shown(b.rect) || !b.text.textContent) continue;
    const w = b.text.getComputedTextLength(), room = svgWidth(b) - 3;
    if (w > room + 0.5) fail('the label "' + b.text.textContent + '" (' + w.toFixed(1) +
                             ' px) overflows its box (' + room.toFixed(1) + ' px)');
    if (b.text.textContent !== b.name && !b.text.textContent.endsWith('..'))
      fail('the label "' + b.text.textContent + '" is cut without ".."');
  }
}

function checkHover(t) {
  const details = t.graph.querySelector('.details');
  t.leaf.rect.dispatchEvent(new MouseEvent('mouseover', { bubbles: true }));
  if (details.textContent !== t.leaf.title)
    fail('hovering shows "' + details.textContent + '", not the title');
  t.leaf.rect.dispatchEvent(new MouseEvent('mouseout', { bubbles: true }));
}

function checkZoom(t) {
  const parent = t.boxes.find(b => b.d === t.leaf.d - 1 && b.x <= t.leaf.x &&
                                   b.x + b.n >= t.leaf.x + t.leaf.n);
  if (!parent) { fail('the box has no parent box'); return; }
  const target = parent.n < t.total ? parent : t.leaf;
  if (target === t.leaf)
    note('the parent "' + parent.title + '" holds every sample: zooming on the box itself');
  const before = width(t.leaf), area = svgWidth(t.boxes.find(b => b.d === 0));
  click(target.rect);
  const after = width(t.leaf), want = area * t.leaf.n / target.n;
  note('zoom on "' + target.title + '": ' + before.toFixed(2) + ' -> ' + after.toFixed(2) + ' px');
  if (Math.abs(svgWidth(t.leaf) - want) > 0.02)
    fail('after the zoom the box is ' + svgWidth(t.leaf) + ' wide, not ' + want.toFixed(2));
  if (target.n < t.total && !(after > before))
    fail('the zoom did not widen the box (' + before + ' -> ' + after + ')');
  for (const b of t.boxes) {
    const below = b.d < target.d && b.x <= target.x && b.x + b.n >= target.x + target.n;
    const inside = b.d >= target.d && b.x >= target.x && b.x + b.n <= target.x + target.n;
    if (below && (!shown(b.rect) || Math.abs(svgWidth(b) - area) > 0.02 ||
                  getComputedStyle(b.el).opacity >= 1))
      fail('"' + b.title + '", under the zoomed box, is not full width and dimmed');
    if (!below && !inside && shown(b.rect))
      fail('"' + b.title + '", outside the zoomed box, is still shown');
  }
  const reset = t.graph.querySelector('.unzoom');
  if (target.d > 0 && !shown(reset)) fail('no "Reset Zoom" after a zoom');
  click(reset);
  if (Math.abs(width(t.leaf) - before) > 0.5)
    fail('"Reset Zoom" left the box ' + width(t.leaf) + ' wide, not ' + before);
  if (shown(reset)) fail('"Reset Zoom" still shown after a reset');
}

function matchedText(graph) {
  const m = graph.querySelector('.matched');
  return m && shown(m) ? m.textContent : '(none shown)';
}

function checkSearch(t, win) {
  const want = 'Matched: ' + namedShare(t) + '%';
  win.pxFlame.search(P.regex);
  const got = matchedText(t.graph), fill = getComputedStyle(t.leaf.rect).fill;
  note('search ' + P.regex + ': ' + got + ', the box ' + fill);
  if (got !== want) fail('searching ' + P.regex + ' shows "' + got + '", not "' + want + '"');
  if (fill !== 'rgb(230, 0, 230)') fail('the box found is not highlighted (' + fill + ')');
  const other = t.boxes.find(b => b.name !== P.name);
  if (other && getComputedStyle(other.rect).fill === 'rgb(230, 0, 230)')
    fail('"' + other.title + '" is highlighted without matching');
  win.pxFlame.resetSearch();
  if (matchedText(t.graph) !== '(none shown)') fail('"Matched" still shown after a reset');
  if (getComputedStyle(t.leaf.rect).fill === 'rgb(230, 0, 230)')
    fail('the box still highlighted after a reset');
  return want;
}

window.addEventListener('load', () => {
  try {
    const win = document.getElementById('plain').contentWindow;
    const doc = win.document;
    if (!win.pxFlame) {
      fail('the SVG\'s script did not run (no window.pxFlame)');
    } else {
      const t = findTarget(doc);
      if (t) {
        checkBox(t);
        checkLabels(t);
        checkHover(t);
        checkZoom(t);
        const want = checkSearch(t, win);
        const win2 = document.getElementById('searched').contentWindow;
        const t2 = findTarget(win2.document);
        const got = t2 ? matchedText(t2.graph) : '(no graph)';
        if (got !== want) fail('?s=' + P.regex + ' shows "' + got + '", not "' + want + '"');
      }
    }
  } catch (e) {
    fail('the checks threw: ' + e + (e.stack ? ' ' + e.stack.replace(/\n/g, ' ') : ''));
  }
  lines.unshift(lines.some(l => l.startsWith('FAIL')) ? 'FAIL' : 'PASS');
  document.getElementById('verdict').textContent = lines.join('\n');
});
</script>
</body></html>
"""


def die(status, msg):
    print(f"{ME}: {msg}", file=sys.stderr)
    sys.exit(status)


def chromium_path():
    for c in (os.environ.get("CHROMIUM"), "/usr/bin/chromium", shutil.which("chromium")):
        if c and os.access(c, os.X_OK):
            return c
    die(2, "chromium is not installed (scripts/install-deps.sh installs it)")


def run_chromium(chromium, args, log):
    """Chromium with args, headless, in a throw-away profile, in its own
    process group under a time limit; its standard output."""
    limit = float(os.environ.get("FLAMEGRAPH_RENDER_TIMEOUT", "50"))
    with tempfile.TemporaryDirectory(prefix="px-chromium-") as profile:
        cmd = [chromium, "--headless", "--no-sandbox", "--disable-gpu",
               "--disable-dev-shm-usage", "--no-first-run", "--no-default-browser-check",
               "--disable-extensions", "--disable-background-networking",
               "--hide-scrollbars", f"--user-data-dir={profile}"] + args
        # HOME and XDG too: it writes crash reports and dconf there otherwise
        env = dict(os.environ, HOME=profile, XDG_CONFIG_HOME=f"{profile}/config",
                   XDG_CACHE_HOME=f"{profile}/cache", XDG_DATA_HOME=f"{profile}/data")
        log.write(f"$ {' '.join(cmd)}\n")
        log.flush()
        p = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=log, env=env,
                             stdin=subprocess.DEVNULL, start_new_session=True)
        try:
            out, _ = p.communicate(timeout=limit)
        except subprocess.TimeoutExpired:
            os.killpg(p.pid, signal.SIGKILL)
            p.communicate()
            die(2, f"chromium did not finish within {limit:g} s (see {log.name})")
        finally:
            # what it left behind in its group (a renderer, a zygote)
            try:
                os.killpg(p.pid, signal.SIGKILL)
            except OSError:
                pass
        if p.returncode != 0:
            die(2, f"chromium failed with status {p.returncode} (see {log.name})")
        return out.decode("utf-8", "replace")


def main():
    ap = argparse.ArgumentParser(prog="flamegraph_render.py",
                                 description="Check a flame graph SVG in headless Chromium.")
    ap.add_argument("--graph", help="check the graph with this heading (default: the "
                    "first with a box NAME of COUNT samples)")
    ap.add_argument("svg")
    ap.add_argument("name")
    ap.add_argument("count", type=int)
    ap.add_argument("outdir")
    a = ap.parse_args()

    svg = pathlib.Path(a.svg).resolve()
    if not svg.is_file():
        die(2, f"cannot read '{a.svg}'")
    chromium = chromium_path()
    out = pathlib.Path(a.outdir)
    out.mkdir(parents=True, exist_ok=True)

    regex = "^" + re.sub(r"[.*+?^${}()|\[\]\\/]", r"\\\g<0>", a.name) + "$"
    params = {"name": a.name, "count": a.count, "graph": a.graph, "regex": regex}
    page = (CHECK_PAGE.replace("@PLAIN@", html.escape(svg.as_uri()))
            .replace("@SEARCHED@", html.escape(svg.as_uri() + "?s=" + quote(regex, safe="")))
            .replace("@PARAMS@", json.dumps(params).replace("</", "<\\/")))
    check = out / "flamegraph_check.html"
    check.write_text(page, encoding="utf-8")

    with open(out / "chromium.log", "w") as log:
        dom = run_chromium(chromium, ["--allow-file-access-from-files",
                                      "--virtual-time-budget=10000", "--dump-dom",
                                      check.resolve().as_uri()], log)
        png = out / "flamegraph.png"
        png.unlink(missing_ok=True)
        run_chromium(chromium, [f"--screenshot={png.resolve()}", "--window-size=1200,800",
                                svg.as_uri()], log)

    m = re.search(r'<pre id="verdict">(.*?)</pre>', dom, re.S)
    verdict = html.unescape(m.group(1)) if m else "FAIL\nFAIL no verdict in the page Chromium dumped"
    (out / "flamegraph_check.txt").write_text(verdict + "\n", encoding="utf-8")
    failures = [l[5:] for l in verdict.splitlines()[1:] if l.startswith("FAIL ")]
    if not verdict.startswith("PASS") and not failures:
        failures = [verdict.splitlines()[0] if verdict else "empty verdict"]
    if not png.is_file() or png.read_bytes()[:8] != b"\x89PNG\r\n\x1a\n":
        failures.append(f"no screenshot: {png} is not a PNG")
    for msg in failures:
        print(f"{ME}: {msg}", file=sys.stderr)
    if failures:
        print(f"{ME}: {a.svg}: {len(failures)} check(s) failed (details in "
              f"{out / 'flamegraph_check.txt'})", file=sys.stderr)
        return 1
    print(f"{ME}: {a.svg}: '{a.name}' ({a.count} samples) drawn, zoomed and found; "
          f"screenshot {png}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
