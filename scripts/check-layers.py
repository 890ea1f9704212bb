#!/usr/bin/env python3
"""Check that lib/'s layers point one way: a file includes headers of its
own layer or of layers below it, never above.

    base <- event <- backend <- session <- symbols <- profile <- report <- merge
         <- self

(merge, pfmon-report's reading of result files, sits on report's row
writer; self, libpx's counters and region markers for programs, on the
event parser, the perf system call and the row writer.)  Usage: check-layers.py [ROOT]; prints each include that points
up as FILE: includes HEADER (LAYER) and exits 1 when there is one."""
import os
import re
import sys

LAYERS = ["base", "event", "backend", "session", "symbols", "profile",
          "report", "merge", "self"]


def lib_files(lib):
    for folder, _, names in os.walk(lib):
        for name in names:
            if name.endswith((".c", ".h")):
                yield os.path.join(folder, name)


def layer_of(lib, path):
    return os.path.relpath(path, lib).split(os.sep)[0]


def main():
    root = sys.argv[1] if len(sys.argv) > 1 else "."
    lib = os.path.join(root, "lib")
    files = list(lib_files(lib))
    home = {os.path.basename(f): layer_of(lib, f) for f in files}
    unknown = sorted({layer_of(lib, f) for f in files} - set(LAYERS))
    if unknown:
        print("check-layers: folders of lib/ in no layer: " + ", ".join(unknown))
        return 1
    bad = 0
    for f in sorted(files):
        mine = LAYERS.index(layer_of(lib, f))
        with open(f, encoding="utf-8") as src:
            for line in src:
                m = re.match(r'\s*#\s*include\s+"([^"]+)"', line)
                header = m and os.path.basename(m.group(1))
                if header in home and LAYERS.index(home[header]) > mine:
                    print(f"{os.path.relpath(f, root)}: includes {header} ({home[header]})")
                    bad += 1
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
