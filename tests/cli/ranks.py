#!/usr/bin/python3
"""Read the per-rank outputs of perfex and pfmon, and pfmon-report's merge
of them, for the per-rank tests (tests/cli/mpi.bats, tests/cli/slurm.bats).

usage: tests/cli/ranks.py COMMAND ARG...

Per-rank files (perfex --json or -x, pfmon --json or -x, counting or
sampling; the kind is told from the content), in the output schema of
docs/schema.md (version 3; another is refused):
  context FILE        "RANK SIZE HOST JOB" as the file records them (JOB
                      "-" when the file says there is none)
  get FILE KEY        a top-level member of a JSON file ("null" for none)
  count FILE EVENT    EVENT's count (its count row of unit all: perfex's
                      value, pfmon's total over the threads it counted),
                      or its samples in a pfmon sampling output (the raw
                      of its samples row)
  profile FILE        the first profile of a pfmon sampling output, best
                      first: "SAMPLES NAME" per line

pfmon-report's JSON (--json) or CSV (-x,), as pfmon-report(1) describes
them (man/pfmon-report.1.scd):
  report-context FILE "RANKS SIZE HOSTS JOB" (JOB "-" when none; from the
                      CSV: the input rows, their hosts, and the size and
                      job every row holds)
  report-inputs FILE  "RANK HOST FILE" per file read
  report-counts FILE EVENT
                      "SUM MIN MEAN MAX MAX_RANK IMBALANCE MIN_RANK" of
                      EVENT (over counts, or over the samples of sampling
                      reports)
  report-profile FILE the merged profile of the first event, best first:
                      "SAMPLES NAME"
  report-ranks FILE NAME
                      NAME's share of that profile per rank (the share
                      rows of its profile row): "RANK SAMPLES PCT" (PCT:
                      the rank's % of NAME's samples)

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


SCHEMA = 3


def load(path):
    """("json", the document) or ("csv", its rows as dicts, by the header's
    column names: docs/schema.md)."""
    with open(path, encoding="utf-8") as f:
        text = f.read()
    if text.lstrip().startswith("{"):
        d = json.loads(text)
        if d.get("schema") != SCHEMA:
            raise Missing("schema %s, not %d" % (d.get("schema"), SCHEMA))
        return "json", d
    rows = list(csv.reader(text.splitlines()))
    if not rows or rows[0][:2] != ["schema", "record"]:
        raise Missing("no schema,record,... header")
    head = rows[0]
    out = []
    for r in rows[1:]:
        if len(r) != len(head):
            raise Missing("a row of %d columns under a header of %d: %s" % (len(r), len(head), r))
        row = dict(zip(head, r))
        if row["schema"] != str(SCHEMA):
            raise Missing("a row of schema %s: %s" % (row["schema"], r))
        out.append(row)
    return "csv", out


def records(rows, record, **cols):
    """The rows of RECORD whose columns hold the values given."""
    return [r for r in rows if r["record"] == record
            and all(r[k] == v for k, v in cols.items())]


def context(path):
    kind, d = load(path)
    if kind == "json":
        ctx = [d.get("rank"), d.get("size"), d.get("host"), d.get("job")]
    else:
        # every row has them, the same
        if not d:
            raise Missing("no rows")
        ctx = [d[0][k] for k in ("rank", "size", "host", "job")]
        for r in d:
            if [r[k] for k in ("rank", "size", "host", "job")] != ctx:
                raise Missing("rows disagree on rank,size,host,job: %s" % r)
        ctx = [x or None for x in ctx]
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
        # pfmon sampling: the samples of the event (its samples row's raw)
        for e in d["events"]:
            if e.get("name") == event:
                return e["raw"]
    elif kind == "json":
        # perfex's and pfmon's counts: the document's events (pfmon's
        # over the threads it counted; its units have their own)
        for e in d["events"]:
            if e.get("name") == event:
                return e["value"]
    elif records(d, "summary"):
        # pfmon sampling: the samples row's raw
        for r in records(d, "samples", name=event):
            return r["raw"]
    else:
        for r in records(d, "count", unit="all", name=event):
            return r["value"]
    raise Missing("no count of %s" % event)


def profile(path):
    kind, d = load(path)
    if kind == "json":
        return [(e["value"], e["symbol"]) for e in d["profile"][0]["entries"]]
    rows = records(d, "profile")
    if not rows:
        raise Missing("no profile rows")
    first = rows[0]["name"]
    return [(int(r["value"]), r["symbol"]) for r in rows if r["name"] == first]


def report(path):
    """pfmon-report's output, JSON or CSV (-x,), as the JSON's members:
    {"ranks", "size", "hosts", "job", "inputs", "events", "profile"}."""
    kind, d = load(path)
    if kind == "json":
        if d.get("tool") != "pfmon-report":
            raise Missing("not pfmon-report's JSON")
        return d
    # the CSV: the job's size and id on every row; the ranks and their
    # hosts are the inputs'
    job = {(r["size"], r["job"]) for r in d}
    if len(job) != 1:
        raise Missing("rows disagree on the job's size and id: %s" % sorted(job))
    size, jobid = job.pop()
    inputs = [{"rank": int(r["rank"]), "host": r["host"], "name": r["name"]}
              for r in records(d, "input")]
    rep = {"ranks": len(inputs), "size": int(size), "job": jobid or None,
           "hosts": len({i["host"] for i in inputs}), "inputs": inputs,
           "events": [], "profile": []}
    for r in d:
        k = r["record"]
        if k == "merged":
            rep["events"].append(dict(
                [("name", r["name"])] +
                [(c, num(r[c])) for c in ("value", "min", "max", "mean", "imbalance",
                                          "min_rank", "max_rank", "ranks")]))
        elif k == "profile_size":
            rep["profile"].append({"event": r["name"], "samples": int(r["value"]),
                                   "rows": int(r["rows"]), "cut_ranks": int(r["cut_ranks"]),
                                   "entries": [], "shares": []})
        elif k in ("profile", "share"):
            p = rep["profile"][-1]
            if r["name"] != p["event"]:
                raise Missing("a %s row of %s under the profile of %s" % (k, r["name"], p["event"]))
            row = {"value": int(r["value"]), "share_pct": float(r["share_pct"]),
                   "position": int(r["position"]), "symbol": r["symbol"], "module": r["module"]}
            if k == "share":
                row["rank"] = int(r["rank"])
            p["entries" if k == "profile" else "shares"].append(row)
        elif k != "input":
            raise Missing("a row of unknown record: %s" % r)
    return rep


def num(x):
    if x == "":
        return None
    return float(x) if "." in x else int(x)


def report_context(path):
    d = report(path)
    return "%s %s %s %s" % (d["ranks"], d["size"], d["hosts"], d["job"] or "-")


def report_inputs(path):
    return ["%s %s %s" % (i["rank"], i["host"], i["name"]) for i in report(path)["inputs"]]


def report_counts(path, event):
    for e in report(path)["events"]:
        if e["name"] == event:
            return " ".join(str(e[k]) for k in ("value", "min", "mean", "max", "max_rank",
                                                "imbalance", "min_rank"))
    raise Missing("no event %s" % event)


def report_profile(path):
    return ["%s %s" % (f["value"], f["symbol"]) for f in report(path)["profile"][0]["entries"]]


def report_ranks(path, name):
    p = report(path)["profile"][0]
    for f in p["entries"]:
        if f["symbol"] == name:
            return ["%s %s %s" % (s["rank"], s["value"], s["share_pct"])
                    for s in p["shares"] if s["position"] == f["position"]]
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
