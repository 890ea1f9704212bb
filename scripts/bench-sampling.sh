#!/bin/bash
# Sampling cost, figures only (not a test).  On cpu-clock, for pfmon on
# the perf backend with the default format (blocking, and with
# --no-overflow-block) and the double-buffer format, every sample written
# to a sample file (--smpl-outfile), and `perf record` with the same event
# and period, writing its perf.data:
#  - the workload's slowdown at 1k, 10k and 100k samples per second
#    (periods of 1 ms, 100 us and 10 us of its CPU time): the span from
#    its first sample to its last over the unsampled run's median wall
#    time (hyperfine), which leaves out every tool's start-up; with the
#    samples taken, lost, the rate achieved (samples over that span), and
#    the median wall time of the whole sampled command (hyperfine) less
#    the tool's own start-up and finish (the same tool on a one-round
#    workload) over the unsampled median;
#  - the highest rate held with zero loss: periods halved from 1 ms until
#    a run loses samples or does not finish within the time limit.
# A run that does not finish within LIMIT seconds is ended (timeout -s
# INT: the workload dies, the tool reports what it took) and reported as
# such (a tool that does not end then is killed 5 s later, and its
# figures are lost): on virtual machines cpu-clock's hrtimer can fire faster than the
# guest handles it (a timer storm), and the workload barely runs.
# Usage: scripts/bench-sampling.sh [ROUNDS] [LIMIT]
#   ROUNDS: split workload rounds (default 4000, about a second here)
#   LIMIT: seconds allowed to one sampled run (default 15)
set -eu
cd "$(dirname "$0")/.."
make -s build/bin/pfmon build/tests/workloads/split >/dev/null
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
pfmon=$PWD/build/bin/pfmon
rounds=${1:-4000}
limit=${2:-15}
split=$PWD/build/tests/workloads/split
ev=cpu-clock
entries=4096
tools="default default-noblock double-buffer perf"

# the command of TOOL sampling at PERIOD the split workload of ROUNDS
cmd() { # tool period rounds
	local how
	case $1 in
	perf)	echo "perf record -q --no-buildid -o $tmp/p.data -e $ev -c $2 $split $3"
		return ;;
	default) how= ;;
	default-noblock) how=--no-overflow-block ;;
	double-buffer) how=--smpl-module=double-buffer ;;
	esac
	echo "$pfmon --backend=perf $how --smpl-entries=$entries -e $ev --long-smpl-periods=$2" \
		"--smpl-outfile=$tmp/s.txt --json --outfile=$tmp/sum.json $split $3"
}

# hyperfine's median wall time of a command, in seconds
median() { # runs command
	hyperfine -N --runs "$1" --export-json "$tmp/h.json" "$2" >/dev/null 2>&1 || return 1
	jq -r '.results[0].median' "$tmp/h.json"
}

# One run under the time limit: "samples lost span_ns finished wall_s"
count() { # tool period rounds
	local out rc wall
	rm -f "$tmp/p.data" "$tmp/p.data.old" "$tmp/sum.json" "$tmp/s.txt"
	set +e
	# shellcheck disable=SC2046
	out=$(/usr/bin/time -f %e -o "$tmp/wall" timeout -s INT -k 5 "$limit" $(cmd "$@") 2>"$tmp/err")
	rc=$?
	set -e
	wall=$(tail -n 1 "$tmp/wall" 2>/dev/null || echo 0)
	if [ "$1" = perf ]; then
		local samples lost dur
		samples=$(perf report -i "$tmp/p.data" --stats 2>/dev/null |
			awk '/SAMPLE events:/ { print $3; exit }')
		lost=$(perf report -i "$tmp/p.data" --stats 2>/dev/null |
			awk '/LOST_SAMPLES events:|LOST events:/ { if ($3 > n) n = $3 } END { print n + 0 }')
		# the first and the last sample's time, "SECONDS.USECS:"
		dur=$(perf script -i "$tmp/p.data" -F time 2>/dev/null | sed -n '1p;$p' |
			awk '{ sub(/:$/, "", $1); t[NR] = $1 } END { if (NR == 2) printf "%.0f", (t[2] - t[1]) * 1e9; else print 0 }')
		echo "${samples:-0} ${lost:-0} ${dur:-0} $([ $rc = 0 ] && echo yes || echo no) $wall"
	else
		# pfmon ends the command at timeout's SIGINT and reports: the
		# command's status (130) then says it did not finish
		if ! jq -e .summary "$tmp/sum.json" >/dev/null 2>&1; then	# killed (-k)
			echo "0 0 0 no $wall"
			sed 's/^/  pfmon: /' "$tmp/err" >&2
			return
		fi
		# the sample file (JSON Lines with --json): each sample's time (ns)
		echo "$(jq -r '"\(.summary.samples) \(.summary.lost)"' "$tmp/sum.json")" \
			"$(jq -r 'select(.tstamp) | .tstamp' "$tmp/s.txt" |
				awk 'NR == 1 { f = $1 } { l = $1 } END { printf "%.0f", l - f }')" \
			"$([ $rc = 0 ] && echo yes || echo no) $wall"
	fi
}

rate_of() { # samples span_ns
	if [ "$2" -gt 0 ]; then awk -v n="$1" -v d="$2" 'BEGIN { printf "%.0f/s", n / (d / 1e9) }'
	else echo "-"; fi
}

echo "machine: $(nproc) CPUs, kernel $(uname -r), $(perf --version)"
echo "kernel.perf_event_max_sample_rate = $(cat /proc/sys/kernel/perf_event_max_sample_rate)," \
	"perf_cpu_time_max_percent = $(cat /proc/sys/kernel/perf_cpu_time_max_percent)"
bare=$(median 5 "$split $rounds")
printf 'workload: split %s, unsampled median %.3f s; event %s; pfmon buffer %s entries\n' \
	"$rounds" "$bare" "$ev" "$entries"
echo "start-up and finish of each tool (median on split 1, period 1 ms):"
declare -A fixed
for tool in $tools; do
	fixed[$tool]=$(median 5 "$(cmd $tool 1000000 1)")
	printf '  %-16s %.3f s\n' "$tool" "${fixed[$tool]}"
done

echo
printf '%-16s %-9s %9s %7s %10s %9s %10s %10s\n' tool rate samples lost achieved slowdown wall wall-net
for rate in 1000 10000 100000; do
	period=$((1000000000 / rate))
	for tool in $tools; do
		read -r samples lost span done wall <<<"$(count $tool $period $rounds)"
		if [ "$done" = yes ] && med=$(median 3 "$(cmd $tool $period $rounds)"); then
			slow=$(awk -v m="$med" -v f="${fixed[$tool]}" -v b="$bare" \
				'BEGIN { printf "%.3f", (m - f) / b }')
			printf '%-16s %-9s %9s %7s %10s %10s %8.3fs %10s\n' $tool "$rate/s" \
				"$samples" "$lost" "$(rate_of "$samples" "$span")" \
				"$(awk -v d="$span" -v b="$bare" 'BEGIN { printf "%.3f", d / 1e9 / b }')" \
				"$med" "$slow"
		else
			printf '%-16s %-9s %9s %7s %10s %10s %8.1fs %10s\n' $tool "$rate/s" \
				"$samples" "$lost" "$(rate_of "$samples" "$span")" unfinished "$wall" -
		fi
	done
done
echo "(slowdown: first to last sample of the sampled run over the unsampled median;"
echo " wall: hyperfine median of the whole sampled command; wall-net: (wall - the tool's"
echo " start-up) / unsampled median, which undercounts a tool whose start-up overlaps the"
echo " workload; unfinished: ended after $limit s, the achieved rate over the part that ran)"

echo
search=$((rounds / 4))
echo "highest rate held with zero loss (split $search; period halved from 1 ms until a loss or an unfinished run):"
for tool in $tools; do
	best=none period=1000000
	why="at 15625 ns, the last period before cpu-clock's 10 us minimum"
	while [ $period -ge 10000 ]; do
		read -r samples lost span done wall <<<"$(count $tool $period $search)"
		if [ "$done" != yes ]; then
			why="at $period ns: unfinished after $limit s ($samples samples, $(rate_of "$samples" "$span"))"
			break
		fi
		if [ "$lost" != 0 ]; then
			why="at $period ns: $lost of $((samples + lost)) lost"
			break
		fi
		best="period $period ns: $samples samples, achieved $(rate_of "$samples" "$span")"
		period=$((period / 2))
	done
	printf '%-16s %s; stopped %s\n' $tool "$best" "$why"
done
echo "kernel.perf_event_max_sample_rate after the runs = $(cat /proc/sys/kernel/perf_event_max_sample_rate)"
