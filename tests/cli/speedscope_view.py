#!/usr/bin/python3
"""Open a profile in speedscope's own viewer, in headless Chromium, and
check that a function's name is on screen.

usage: tests/cli/speedscope_view.py RELEASE PROFILE NAME OUTDIR

RELEASE is speedscope's viewer (its npm package's dist/release: index.html
and its assets); PROFILE a file speedscope imports (pfmon's --speedscope
or --perf-script).  Both are served, with a check page, by an HTTP server
on 127.0.0.1 (a free port, in this process, stopped at the end).  The
check page opens RELEASE/index.html#profileURL=PROFILE in a frame, waits
for the profile to load, switches to the Sandwich view (speedscope's key
"3": the flame chart is drawn on a canvas, the Sandwich view is an HTML
table of the functions), and looks for NAME in that table's text.

Chromium runs as tests/cli/flamegraph_render.py runs it (its run_chromium:
headless, a throw-away profile, its own process group, a time limit).
Exit status: 0 when NAME is in the table; 1 when not (the page's text in
OUTDIR/speedscope_view.txt); 2 for a usage error or when Chromium is
missing or did not finish.
"""
import functools
import html
import http.server
import json
import os
import pathlib
import re
import shutil
import sys
import tempfile
import threading

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from flamegraph_render import chromium_path, run_chromium  # noqa: E402

ME = "speedscope_view"

# The verdict goes into <pre id="verdict"> for --dump-dom: "PASS ..." or
# "FAIL ...", then the text of the viewer's page.
CHECK_PAGE = r"""<!DOCTYPE html>
<html><head><meta charset="utf-8"><title>speedscope check</title></head>
<body>
<pre id="verdict">FAIL the checks did not run</pre>
<iframe id="view" src="viewer/index.html#profileURL=@URL@" width="1200" height="800"></iframe>
<script>
const NAME = @NAME@;
const out = document.getElementById('verdict');
const frame = document.getElementById('view');
let tries = 0;
// poll: the viewer fetches and imports the profile, then draws
function poll() {
  const doc = frame.contentDocument, text = doc && doc.body ? doc.body.innerText : '';
  const table = doc ? Array.from(doc.querySelectorAll('table'), t => t.innerText).join('\n') : '';
  if (table.split('\n').some(l => l.includes(NAME))) {
    out.textContent = 'PASS ' + NAME + ' in the Sandwich table\n' + table;
    return;
  }
  // loaded (the view's tabs are there): the Sandwich view, by its key
  if (/Sandwich/.test(text))
    frame.contentWindow.dispatchEvent(new KeyboardEvent('keypress', {key: '3', bubbles: true}));
  if (++tries > 200) {
    out.textContent = 'FAIL ' + NAME + ' is not in the Sandwich table\n' + text;
    return;
  }
  setTimeout(poll, 50);
}
frame.addEventListener('load', () => setTimeout(poll, 50));
</script>
</body></html>
"""


def die(status, msg):
    print(f"{ME}: {msg}", file=sys.stderr)
    sys.exit(status)


class QuietHandler(http.server.SimpleHTTPRequestHandler):
    def log_message(self, fmt, *args):
        pass


def main():
    if len(sys.argv) != 5:
        die(2, "usage: speedscope_view.py RELEASE PROFILE NAME OUTDIR")
    release, profile, name, outdir = sys.argv[1:]
    if not os.path.isfile(os.path.join(release, "index.html")):
        die(2, f"no speedscope viewer in '{release}' (scripts/install-deps.sh installs it)")
    if not os.path.isfile(profile):
        die(2, f"cannot read '{profile}'")
    chromium = chromium_path()
    out = pathlib.Path(outdir)
    out.mkdir(parents=True, exist_ok=True)

    with tempfile.TemporaryDirectory(prefix="px-speedscope-") as root:
        os.symlink(os.path.abspath(release), os.path.join(root, "viewer"))
        shutil.copy(profile, os.path.join(root, "profile"))
        handler = functools.partial(QuietHandler, directory=root)
        server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
        port = server.server_address[1]
        page = (CHECK_PAGE.replace("@URL@", f"http://127.0.0.1:{port}/profile")
                .replace("@NAME@", json.dumps(name).replace("</", "<\\/")))
        pathlib.Path(root, "check.html").write_text(page, encoding="utf-8")
        thread = threading.Thread(target=server.serve_forever, daemon=True)
        thread.start()
        try:
            with open(out / "chromium.log", "w") as log:
                dom = run_chromium(chromium, ["--virtual-time-budget=20000", "--dump-dom",
                                              f"http://127.0.0.1:{port}/check.html"], log)
        finally:
            server.shutdown()
            server.server_close()

    m = re.search(r'<pre id="verdict">(.*?)</pre>', dom, re.S)
    verdict = html.unescape(m.group(1)) if m else "FAIL no verdict in the page Chromium dumped"
    (out / "speedscope_view.txt").write_text(verdict + "\n", encoding="utf-8")
    if not verdict.startswith("PASS"):
        print(f"{ME}: {profile}: {verdict.splitlines()[0][5:]} (the page's text in "
              f"{out / 'speedscope_view.txt'})", file=sys.stderr)
        return 1
    print(f"{ME}: {profile}: '{name}' in speedscope's Sandwich table")
    return 0


if __name__ == "__main__":
    sys.exit(main())
