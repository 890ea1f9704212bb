#!/usr/bin/python3
"""Read the per-rank outputs of perfex and pfmon, and pfmon-report's merge
of them, for the per-rank tests (tests/cli/mpi.bats, tests/cli/slurm.bats).

usage: tests/cli/ranks.py COMMAND ARG...

Per-rank files (perfex --json or -x, pfmon --json or -x, counting or
sampling; the kind is told from the content):
  context FILE        "RANK SIZE HOST JOB" as the file records them (JOB
                      "-" when the file says there is none)
  get FILE KEY        a top-level member of a JSON file ("null" for none)
  count FILE EVENT    EVENT's count (perfex's value, pfmon's total over
                      the threads it counted), or its samples in a pfmon
                      sampling output
  profile FILE        the first profile of a pfmon sampling output, best
                      first: "SAMPLES NAME" per line

pfmon-report's JSON (--json) or CSV (-x,), as pfmon-report(1) describes
them (man/pfmon-report.1.scd):
  report-context FILE "RANKS SIZE HOSTS JOB" (JOB "-" when none)
  report-inputs FILE  "RANK HOST FILE" per file read
  report-counts FILE EVENT
                      "SUM MIN MEAN MAX MAX_RANK IMBALANCE MIN_RANK" of
                      EVENT (over counts, or over the samples of sampling
                      reports)
  report-profile FILE the merged profile of the first event, best first:
                      "SAMPLES NAME"
  report-ranks FILE NAME
                      NAME's share of that profile per rank: "RANK
                      SAMPLES PCT" (PCT: the rank's % of NAME's samples)

pfmon-report's text, for people, whose layout may change; its figures
must be there:
  line-has FILE WORD NUMBER[~TOLERANCE]...
                      some line of FILE holds WORD (as a word) and each
                      NUMBER among its numbers, exactly or to within
                      TOLERANCE (a mean or an imbalance, printed rounded)
  first-of FILE NAME...
                      the NAME (whole word) that a line of FILE holds
                      first: "on top" of a profile whatever its layout

Exit status: 0, 1 when what is asked for is not there (said on standard
error), 2 for a usage error.
"""
import csv
import json
import re
import sys


class Missing(Exception):
    pass


def load(path):
    with open(path, encoding="utf-8") as f:
        text = f.read()
    if text.lstrip().startswith("{"):
        return "json", json.loads(text)
    return "csv", list(csv.reader(text.splitlines()))


def header_rows(rows):
    """The rows of a CSV with a header, as dicts."""
    if not rows:
        raise Missing("empty CSV")
    head = rows[0]
    return [dict(zip(head, r)) for r in rows[1:] if len(r) == len(head)]


def context(path):
    kind, d = load(path)
    if kind == "json":
        ctx = [d.get("rank"), d.get("size"), d.get("host"), d.get("job")]
    elif d and d[0] and d[0][0] == "run":
        # pfmon sampling: run,rank,N / run,size,N / run,host,H / run,job,J
        run = {r[1]: r[2] for r in d if len(r) >= 3 and r[0] == "run"}
        ctx = [run.get("rank"), run.get("size"), run.get("host"), run.get("job")]
    else:
        # counts: the last four columns of every row, header included
        if d[0][-4:] != ["rank", "size", "host", "job"]:
            raise Missing("no rank,size,host,job columns in the header: %s" % d[0])
        ctx = d[1][-4:]
        for r in d[1:]:
            if r[-4:] != ctx:
                raise Missing("rows disagree on rank,size,host,job: %s" % r)
    if None in ctx[:3]:
        raise Missing("no rank, size or host")
    if ctx[3] in (None, ""):
        ctx[3] = "-"
    return " ".join(str(x) for x in ctx)


def get(path, key):
    kind, d = load(path)
    if kind != "json":
        raise Missing("not JSON")
    v = d.get(key)
    return v if isinstance(v, str) else json.dumps(v)


def count(path, event):
    kind, d = load(path)
    if kind == "json" and "profile" in d:
        # pfmon sampling: the samples of the event
        for e in d["events"]:
            if e.get("event") == event:
                return e["samples"]
    elif kind == "json":
        if d.get("tool") == "perfex":
            evs = d["events"]
        else:
            evs = d["aggregate"]["events"]
        for e in evs:
            if e.get("name") == event:
                return e["value"]
    elif d[0][:2] == ["kind", "name"]:
        for r in header_rows(d):
            if r["kind"] == "event" and r["name"] == event:
                return r["value"]
    elif d[0][:1] == ["unit"]:
        for r in header_rows(d):
            if r["unit"] == "all" and r["event"] == event:
                return r["value"]
    else:
        # pfmon sampling: samples,EVENT,SET,SAMPLES,...
        for r in d:
            if len(r) > 3 and r[0] == "samples" and r[1] == event:
                return r[3]
    raise Missing("no count of %s" % event)


def profile(path):
    kind, d = load(path)
    if kind == "json":
        return [(e["samples"], e["name"]) for e in d["profile"][0]["entries"]]
    rows = [r for r in d if r and r[0] == "profile"]
    if not rows:
        raise Missing("no profile rows")
    first = rows[0][1]
    # profile,EVENT,RANK,SAMPLES,PCT,NAME,MODULE,...
    return [(int(r[3]), r[5]) for r in rows if r[1] == first]


def report(path):
    """pfmon-report's output, JSON or CSV (-x,), as the JSON's members:
    {"ranks", "size", "hosts", "job", "inputs", "events", "profile"}."""
    kind, d = load(path)
    if kind == "json":
        if d.get("tool") != "pfmon-report":
            raise Missing("not pfmon-report's JSON")
        return d
    rep = {"inputs": [], "events": [], "profile": []}
    fn = None
    for r in d:
        k = r[0] if r else ""
        if k == "ranks":
            rep.update(ranks=int(r[1]), size=int(r[2]), hosts=int(r[3]), job=r[4] or None)
        elif k == "input":
            rep["inputs"].append({"rank": int(r[1]), "host": r[2], "file": r[3]})
        elif k == "event":
            rep["events"].append(dict(zip(
                ("name", "ranks", "sum", "min", "min_rank", "mean", "max", "max_rank",
                 "imbalance"), r[1:2] + [num(x) for x in r[2:10]])))
        elif k == "profile_size":
            rep["profile"].append({"event": r[1], "samples": int(r[2]),
                                   "functions_total": int(r[3]), "cut_ranks": int(r[4]),
                                   "functions": []})
        elif k == "profile":
            fn = {"name": r[5], "module": r[6], "samples": int(r[3]), "pct": float(r[4]),
                  "per_rank": []}
            rep["profile"][-1]["functions"].append(fn)
        elif k == "share":
            fn["per_rank"].append({"rank": int(r[3]), "samples": int(r[4]),
                                   "pct": float(r[5])})
        else:
            raise Missing("a row of unknown kind: %s" % r)
    return rep


def num(x):
    if x == "":
        return None
    return float(x) if "." in x else int(x)


def report_context(path):
    d = report(path)
    return "%s %s %s %s" % (d["ranks"], d["size"], d["hosts"], d["job"] or "-")


def report_inputs(path):
    return ["%s %s %s" % (i["rank"], i["host"], i["file"]) for i in report(path)["inputs"]]


def report_counts(path, event):
    for e in report(path)["events"]:
        if e["name"] == event:
            return " ".join(str(e[k]) for k in ("sum", "min", "mean", "max", "max_rank",
                                                "imbalance", "min_rank"))
    raise Missing("no event %s" % event)


def report_profile(path):
    return ["%s %s" % (f["samples"], f["name"]) for f in report(path)["profile"][0]["functions"]]


def report_ranks(path, name):
    for f in report(path)["profile"][0]["functions"]:
        if f["name"] == name:
            return ["%s %s %s" % (r["rank"], r["samples"], r["pct"]) for r in f["per_rank"]]
    raise Missing("no function %s in the profile" % name)


NUM = re.compile(r"-?\d+(?:\.\d+)?")


def line_has(path, word, numbers):
    want = []
    for n in numbers:
        v, _, tol = n.partition("~")
        want.append((float(v), float(tol or 0)))
    wre = re.compile(r"(?<![\w.:-])" + re.escape(word) + r"(?![\w.:-])")
    with open(path, encoding="utf-8") as f:
        for line in f:
            if not wre.search(line):
                continue
            got = [float(x) for x in NUM.findall(wre.sub(" ", line))]
            if all(any(abs(g - w) <= t for g in got) for w, t in want):
                return
    raise Missing("no line holds %s and %s" % (word, " ".join(numbers)))


def first_of(path, names):
    res = [re.compile(r"(?<![\w.])" + re.escape(n) + r"(?![\w.])") for n in names]
    with open(path, encoding="utf-8") as f:
        for line in f:
            for n, r in zip(names, res):
                if r.search(line):
                    return n
    raise Missing("none of %s" % " ".join(names))


def main(argv):
    cmds = {
        "context": (1, lambda a: print(context(a[0]))),
        "get": (2, lambda a: print(get(a[0], a[1]))),
        "count": (2, lambda a: print(count(a[0], a[1]))),
        "profile": (1, lambda a: print("\n".join("%s %s" % p for p in profile(a[0])))),
        "report-context": (1, lambda a: print(report_context(a[0]))),
        "report-inputs": (1, lambda a: print("\n".join(report_inputs(a[0])))),
        "report-counts": (2, lambda a: print(report_counts(a[0], a[1]))),
        "report-profile": (1, lambda a: print("\n".join(report_profile(a[0])))),
        "report-ranks": (2, lambda a: print("\n".join(report_ranks(a[0], a[1])))),
        "line-has": (-3, lambda a: line_has(a[0], a[1], a[2:])),
        "first-of": (-2, lambda a: print(first_of(a[0], a[1:]))),
    }
    if len(argv) < 2 or argv[1] not in cmds:
        print(__doc__.split("\n\n")[1], file=sys.stderr)
        return 2
    n, fn = cmds[argv[1]]
    args = argv[2:]
    if (n >= 0 and len(args) != n) or (n < 0 and len(args) < -n):
        print("ranks.py: wrong number of arguments to " + argv[1], file=sys.stderr)
        return 2
    try:
        fn(args)
    except (Missing, OSError, ValueError, KeyError, IndexError, TypeError) as e:
        print("ranks.py %s: %s: %s" % (argv[1], args[0], e), file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
