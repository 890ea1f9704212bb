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

pfmon-report's JSON (--json):
  report-counts FILE EVENT
                      "SUM MIN MEAN MAX MAX_RANK IMBALANCE" of EVENT (over
                      counts, or over sample counts for sampling reports)
  report-profile FILE
                      the merged profile, best first: "SAMPLES NAME"
  report-ranks FILE NAME
                      NAME's per-rank figures in the merged profile, one
                      line "RANK VALUE" per rank, VALUE as the report gives
                      it (samples, or a share in % or as a fraction);
                      the first line says which: "# samples", "# share of
                      the function" (the ranks' values add up to the
                      whole) or "# share of the rank"

Text or CSV, what pfmon-report prints without --json (its layout is not
fixed by the interface, its figures are):
  line-has FILE WORD NUMBER[~TOLERANCE]...
                      some line of FILE holds WORD (as a word) and each
                      NUMBER among its numbers, exactly or to within
                      TOLERANCE (a mean or an imbalance, printed rounded)
  first-of FILE NAME...
                      the NAME (whole word) that a line of FILE holds
                      first: "on top" of a profile whatever its layout

The interface (rank, size, host and job in every output) is issue 15's;
the report's JSON keys assumed here are the spec's words: per event
"sum", "min", "mean", "max", the rank of the max ("max_rank", or
"rank_of_max") and "imbalance"; a profile entry's "name" and "samples",
its per-rank figures in a member whose key holds "rank".  Exit status: 0,
1 when what is asked for is not there (said on standard error), 2 for a
usage error.
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


def walk(x):
    """Every dict in a JSON document."""
    if isinstance(x, dict):
        yield x
        for v in x.values():
            yield from walk(v)
    elif isinstance(x, list):
        for v in x:
            yield from walk(v)


def report_json(path):
    kind, d = load(path)
    if kind != "json":
        raise Missing("not JSON")
    return d


def report_counts(path, event):
    for o in walk(report_json(path)):
        if event in (o.get("name"), o.get("event")) and "imbalance" in o:
            rank = o.get("max_rank", o.get("rank_of_max"))
            vals = [o.get(k) for k in ("sum", "min", "mean", "max")] + [rank, o["imbalance"]]
            if None in vals:
                raise Missing("%s: not every one of sum, min, mean, max, "
                              "max_rank, imbalance: %s" % (event, o))
            return " ".join(str(v) for v in vals)
    raise Missing("no figures (with an imbalance) of %s" % event)


def profile_entries(d):
    """The merged profile's entries: the first list of dicts with a name
    and samples under a key "profile"."""
    for o in walk(d):
        p = o.get("profile")
        if p is None:
            continue
        for q in walk(p):
            for v in q.values() if isinstance(q, dict) else []:
                if (isinstance(v, list) and v and isinstance(v[0], dict)
                        and "name" in v[0] and "samples" in v[0]):
                    return v
        if isinstance(p, list) and p and "name" in p[0] and "samples" in p[0]:
            return p
    raise Missing("no profile")


def report_profile(path):
    return [(e["samples"], e["name"]) for e in profile_entries(report_json(path))]


def report_ranks(path, name):
    for e in profile_entries(report_json(path)):
        if e.get("name") != name:
            continue
        per = [v for k, v in e.items() if "rank" in k and isinstance(v, (list, dict))]
        if not per:
            raise Missing("%s: no per-rank member in %s" % (name, e))
        per, what = per[0], None
        if isinstance(per, dict):		# {"RANK": VALUE}
            items = sorted((int(k), v) for k, v in per.items())
        elif per and isinstance(per[0], dict):	# [{"rank": R, KEY: VALUE}]
            key = next(k for k in ("samples", "share", "pct") if k in per[0])
            what = "samples" if key == "samples" else None
            items = sorted((r.get("rank", i), r[key]) for i, r in enumerate(per))
        else:					# [VALUE], by rank
            items = list(enumerate(per))
        if what is None:
            if all(isinstance(v, int) for _, v in items):
                what = "samples"
            else:
                total = sum(v for _, v in items)
                whole = abs(total - 100) < 0.5 or abs(total - 1) < 0.005
                what = "share of the function" if whole else "share of the rank"
        return ["# " + what] + ["%s %s" % (r, v) for r, v in items]
    raise Missing("no profile entry %s" % name)


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
        "report-counts": (2, lambda a: print(report_counts(a[0], a[1]))),
        "report-profile": (1, lambda a: print("\n".join("%s %s" % p for p in report_profile(a[0])))),
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
