#!/bin/bash
# Benchmark of call graphs: perf record -g + perf report --stdio --children
# against pfmon --call-graph on the same workload (tests/workloads/callgraph,
# the known tree) and the same period, in one run:
#   fp     the build with frame pointers, --call-graph=fp for both
#   dwarf  the build without them, --call-graph=dwarf for both (perf
#          unwinds with libdw too, one Dwfl per sample; pfmon one per
#          process)
# Figures, all measured here (hyperfine medians over RUNS runs):
#  1. the whole job: perf record then perf report, against one pfmon run
#     that samples and prints its profile with children;
#  2. the resolution step: perf report alone on one recording, against
#     pfmon's own (pfmon -v prints its wall time; median over RUNS runs),
#     and beside it what pfmon read ahead during the run on another thread
#     (kallsyms, compressed debug files inflated for file:line and inline
#     chains), which figure 1 includes and figure 2 does not;
#  3. unknown frames: perf's [unknown] in perf script of a recording,
#     pfmon's ?? (its summary) on a run of the same length, medians over
#     RUNS runs each.
#  4. the exports (fp build): each export's own work against the rest of
#     the resolution step, both timed inside the same pfmon run (pfmon -v
#     prints them: the clock read around the exports' calls, not two
#     runs compared, whose resolution times swing more than 10% apart on
#     a loaded machine), medians over RUNS runs of each export; and the
#     gzipped pprof profile's size beside the sample file's
#     (--smpl-outfile) of one run.
# Target (issue 14): pfmon 5x faster or more, and fewer unknown frames;
# (issue 27) the export adds 10% or less to the resolution step, and the
# profile is no larger than the sample file.
# Never fails on a figure.  PERIOD (ns, default 100000), ROUNDS (50), RUNS (5).
set -u
cd "$(dirname "$0")/.." || exit 1

PERIOD=${PERIOD:-100000}
ROUNDS=${ROUNDS:-50}
RUNS=${RUNS:-5}
PFMON=$PWD/build/bin/pfmon
CG=$PWD/build/tests/workloads/callgraph

for t in perf hyperfine; do
	command -v "$t" >/dev/null || { echo "bench-callgraph: $t is missing (scripts/install-deps.sh installs it)" >&2; exit 1; }
done
make -s all || exit 1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

median() {
	sort -g | awk '{ v[NR] = $1 } END { if (NR % 2) print v[(NR + 1) / 2]; else print (v[NR / 2] + v[NR / 2 + 1]) / 2 }'
}

# hyperfine's median of command $2 (named $1) in seconds
hf_median() {
	hyperfine -N --warmup 1 --runs "$RUNS" --style none --export-json "$tmp/hf.json" \
		"$2" >/dev/null 2>&1 || { echo "nan"; return; }
	python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["results"][0]["median"])' "$tmp/hf.json"
}

ratio() {
	awk -v a="$1" -v b="$2" 'BEGIN { if (b > 0) printf "%.1f", a / b; else print "nan" }'
}

bench_mode() {
	local mode=$1 build=$2 cmd perf_job pfmon_job perf_res pfmon_res pfmon_ahead perf_unk pfmon_unk
	cmd="$CG/$build/cgmain $ROUNDS"
	echo "== call graphs, --call-graph=$mode on the $build build: cgmain $ROUNDS, cpu-clock every $PERIOD ns"
	perf_job=$(hf_median perf "sh -c 'perf record -q -e cpu-clock -c $PERIOD --call-graph=$mode -o $tmp/perf.data -- $cmd >/dev/null 2>&1 && perf report --stdio --children -i $tmp/perf.data >/dev/null 2>&1'")
	pfmon_job=$(hf_median pfmon "$PFMON -e cpu-clock --long-smpl-periods=$PERIOD --call-graph=$mode $cmd")
	perf record -q -e cpu-clock -c "$PERIOD" --call-graph="$mode" -o "$tmp/perf.data" -- $cmd >/dev/null 2>&1
	perf_res=$(hf_median "perf report" "perf report --stdio --children -i $tmp/perf.data")
	for _ in $(seq "$RUNS"); do
		"$PFMON" -v -e cpu-clock --long-smpl-periods="$PERIOD" --call-graph="$mode" $cmd 2>&1 >/dev/null
	done >"$tmp/verbose"
	pfmon_res=$(awk '/resolved .* samples in/ { print $(NF - 1) / 1000 }' "$tmp/verbose" | median)
	pfmon_ahead=$(awk '/read ahead during the run/ { print $(NF - 1) / 1000 }' "$tmp/verbose" | median)
	# unknown frames vary from run to run (samples taken during the exec,
	# frame pointers through code without them): medians over RUNS runs
	perf_unk=$(for _ in $(seq "$RUNS"); do
		perf record -q -e cpu-clock -c "$PERIOD" --call-graph="$mode" -o "$tmp/perf.data" -- $cmd >/dev/null 2>&1
		perf script -i "$tmp/perf.data" -F ip,sym 2>/dev/null | grep -c '\[unknown\]'
	done | median)
	pfmon_unk=$(for _ in $(seq "$RUNS"); do
		"$PFMON" -x, -e cpu-clock --long-smpl-periods="$PERIOD" --call-graph="$mode" $cmd |
			awk -F, '$1 == "schema" { for (i = 1; i <= NF; i++) c[$i] = i; next }
				$(c["record"]) == "summary" && $(c["name"]) == "unknown_frames" { print $(c["value"]) }'
	done | median)
	printf '  whole job       perf %8.3f s   pfmon %8.3f s   pfmon %sx faster\n' \
		"$perf_job" "$pfmon_job" "$(ratio "$perf_job" "$pfmon_job")"
	printf '  resolution      perf %8.3f s   pfmon %8.3f s   pfmon %sx faster\n' \
		"$perf_res" "$pfmon_res" "$(ratio "$perf_res" "$pfmon_res")"
	printf '  read ahead      pfmon %8.3f s during the run, on its own thread (kallsyms,\n' "$pfmon_ahead"
	printf '                  compressed debug files): in the whole job, not in its resolution\n'
	printf '  unknown frames  perf [unknown] %s   pfmon ?? %s   (medians of %s runs)\n' "$perf_unk" "$pfmon_unk" "$RUNS"
	# both jobs include the workload's own run time, which bounds that ratio
	awk -v r="$(ratio "$perf_res" "$pfmon_res")" -v u1="$perf_unk" -v u2="$pfmon_unk" 'BEGIN {
		print "  target (resolution 5x or more, no more unknown frames): " (r >= 5 && u2 <= u1 ? "met" : "NOT met") }'
}

# pfmon -v's resolution step (s) of one run with these options
# export_share OPTION: one run's exports' time over the rest of its
# resolution, in percent
export_share() {
	"$PFMON" -v -e cpu-clock --long-smpl-periods="$PERIOD" --call-graph=fp "$@" 2>&1 >/dev/null |
		awk '/resolved .* samples in .* of which exports/ {
			r = $(NF - 6); e = $(NF - 1); if (r > e) printf "%.2f\n", 100 * e / (r - e) }'
}

bench_exports() {
	local cmd="$CG/fp/cgmain $ROUNDS" opt share pprof_size smpl_size met=1
	echo "== exports, --call-graph=fp on the fp build: cgmain $ROUNDS, cpu-clock every $PERIOD ns"
	for opt in --pprof="$tmp/p.pb.gz" --perf-script="$tmp/p.txt" --speedscope="$tmp/s.json"; do
		share=$(for _ in $(seq "$RUNS"); do export_share "$opt" $cmd; done | median)
		printf '  %-14s adds %6s%% to the resolution step (its own time over the rest, median of %s runs)\n' \
			"${opt%%=*}" "$share" "$RUNS"
		awk -v s="$share" 'BEGIN { exit !(s != "" && s <= 10) }' || met=0
	done
	"$PFMON" -e cpu-clock --long-smpl-periods="$PERIOD" --call-graph=fp \
		--smpl-outfile="$tmp/s.txt" --pprof="$tmp/p.pb.gz" $cmd >/dev/null 2>&1
	pprof_size=$(stat -c %s "$tmp/p.pb.gz")
	smpl_size=$(stat -c %s "$tmp/s.txt")
	printf '  file sizes      --pprof %s bytes (gzipped)   --smpl-outfile %s bytes, one run\n' \
		"$pprof_size" "$smpl_size"
	[ "$pprof_size" -le "$smpl_size" ] || met=0
	echo "  target (each export +10% or less, profile no larger than the sample file): $([ $met = 1 ] && echo met || echo "NOT met")"
}

bench_mode fp fp
bench_mode dwarf nofp
bench_exports
