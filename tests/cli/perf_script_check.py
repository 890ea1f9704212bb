#!/usr/bin/env python3
"""Read a `perf script` text as its importers do, and print what they see.

The regular expressions are speedscope's (src/import/linux-tools-perf.ts:
the header, the time, the event, a frame) and FlameGraph's
stackcollapse-perf.pl (its header), so a file they would skip or misread
fails here.  Every event must be read whole: a header all of them match,
a time, an event name, and at least one frame.

usage: perf_script_check.py FILE leaves|stacks|threads
  leaves   each innermost frame's function and its samples, "NAME COUNT"
  stacks   each distinct stack, outermost frame first, "a;b;c"
  threads  each thread's samples, "COMM PID/TID COUNT"
"""
import collections
import re
import sys

# speedscope
EVENT_START = re.compile(r"^(\S.+?)\s+(\d+)(?:\/?(\d+))?\s+")
TIME = re.compile(r"\s+(\d+\.\d+):\s+")
EVENT_NAME = re.compile(r"(\S+):\s*$")
FRAME = re.compile(r"^\s*(\w+)\s*(.+) \((\S*)\)")
OFFSET = re.compile(r"\+0x[\da-f]+$")
# stackcollapse-perf.pl
COLLAPSE_START = re.compile(r"^(\S.+?)\s+(\d+)\/*(\d+)*\s+")


def events(text):
    for raw in text.split("\n\n"):
        if not raw.strip():
            continue
        lines = raw.split("\n")
        head = lines[0]
        start, time, name = EVENT_START.match(head), TIME.search(head), EVENT_NAME.search(head)
        if not (start and time and name and COLLAPSE_START.match(head)):
            sys.exit("unreadable header: %r" % head)
        if not start.group(3):
            sys.exit("no pid/tid in: %r" % head)
        stack = []
        for line in lines[1:]:
            m = FRAME.match(line)
            if not m:
                sys.exit("unreadable frame: %r" % line)
            stack.append(OFFSET.sub("", m.group(2)))
        if not stack:
            sys.exit("no frame: %r" % raw)
        yield start.group(1), start.group(2), start.group(3), name.group(1), stack


def main():
    path, what = sys.argv[1], sys.argv[2]
    count = collections.Counter()
    for comm, pid, tid, _event, stack in events(open(path).read()):
        if what == "leaves":
            count[stack[0]] += 1
        elif what == "stacks":
            count[";".join(reversed(stack))] += 1
        else:
            count["%s %s/%s" % (comm, pid, tid)] += 1
    for key in sorted(count):
        print(key if what == "stacks" else "%s %d" % (key, count[key]))


main()
