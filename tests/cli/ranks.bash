# Shared set-up of the per-rank tests (mpi.bats, slurm.bats): load with
# `load ranks` after `load helpers` in setup().
#
# tests/workloads/mpi/ranks PAGES MS: rank R touches (R+1)*PAGES fresh
# pages and spends (R+1)*MS ms of its CPU time in rank_work(), so what each
# rank counts, and the imbalance over the ranks, are known.

RANKS=$W/mpi/ranks
PFMON=$BIN/pfmon
REPORT=$BIN/pfmon-report
RPY=$ROOT/tests/cli/ranks.py
HOST=$(hostname)

# Pages per unit of work: rank R touches (R+1)*PAGES, 80000 at most for 4
# ranks (320 MiB, returned before the rank ends).  Large beside
# MPI_STARTUP_FAULTS, so the imbalance is close to the work's own.
PAGES=20000
# Milliseconds of CPU per unit of work: rank R spends (R+1)*MS in
# rank_work(), 2 s over 4 ranks; at the 1 ms task-clock period the tests
# sample with, 200 samples of rank_work() in rank 0, the least.
MS=200

# Page faults a rank of tests/workloads/mpi/ranks takes beyond its pages:
# the dynamic loader, libc, and Open MPI's start-up (its libraries, shared
# memory with the other ranks) and end.  Measured on Debian 12 (x86_64,
# Open MPI 4.1.4, 2 CPUs) with `ranks 0 0`: under perfex (every thread)
# 1342 to 1355 over 4 ranks, 3 runs; 1130 for 2 ranks; under pfmon (the
# main thread) 1305 to 1309.  The allowance doubles the measurement, as
# STARTUP_FAULTS does: a rank whose count is not its own work fails.
MPI_STARTUP_FAULTS=3000

# Time limit of one launcher run (seconds): under BATS_TEST_TIMEOUT (120),
# so that a hung launcher fails its test with its output.  A run takes 1
# to 3 s here, 2 to 5 s with two busy loops on the 2 CPUs: only a bound
# on a hang.
LAUNCH_TIMEOUT=90

# mpirun_np N ARG...: ARG... as N ranks of Open MPI's mpirun on this
# machine, as root (the tests run as root), more ranks than CPUs allowed.
# Nothing holds bats' output (fd 3) past the run.
mpirun_np() {
	local n=$1
	shift
	timeout -k 5 "$LAUNCH_TIMEOUT" mpirun --allow-run-as-root --oversubscribe -np "$n" "$@" 3>&-
}

# launch CMD...: run CMD (a launcher's run) as `run -0 --separate-stderr`
# does, its standard error shown when the test fails.
launch() {
	run --separate-stderr "$@"
	[ -z "$stderr" ] || echo "$stderr"
	echo "status $status"
	[ "$status" -eq 0 ]
}

# The ranks' lines of tests/workloads/mpi/ranks PAGES MS ($2, $3) for N
# ranks ($1), as they print them, sorted.
ranks_lines() {
	local r
	for ((r = 0; r < $1; r++)); do
		echo "rank $r of $1: $(((r + 1) * $2)) pages, $(((r + 1) * $3)) ms"
	done
}

# check_context FILE RANK SIZE JOB: FILE records this rank, size, this host
# and JOB ("-": none).
check_context() {
	run -0 "$RPY" context "$1"
	assert_output "$2 $3 $HOST $4"
}

# check_faults FILE RANK [UNIT]: page-faults in FILE are rank RANK's pages,
# (RANK+1)*UNIT (default PAGES), plus the start-up allowance.
check_faults() {
	local f=$1 r=$2 unit=${3:-$PAGES} v work
	v=$("$RPY" count "$f" page-faults)
	work=$(((r + 1) * unit))
	echo "rank $r: $v page faults, its work $work (allowance $MPI_STARTUP_FAULTS)"
	[ -n "$v" ] && [ "$v" -ge "$work" ] && [ "$v" -le $((work + MPI_STARTUP_FAULTS)) ]
}

# counts_figures EVENT FILE...: "SUM MIN MEAN MAX MAX_RANK IMBALANCE
# MIN_RANK" of EVENT (counts, or samples) over the per-rank FILEs, rank R's
# file being the Rth: what pfmon-report must find.  MEAN and IMBALANCE
# with 6 decimals.
counts_figures() {
	local ev=$1 f
	shift
	for f; do "$RPY" count "$f" "$ev" || return 1; done |
		awk '{ s += $1 }
			NR == 1 || $1 > max { max = $1; at = NR - 1 }
			NR == 1 || $1 < min { min = $1; minat = NR - 1 }
			END { printf "%d %d %.6f %d %d %.6f %d\n", s, min, s / NR, max, at, max / (s / NR), minat }'
}

# check_report REPORT EVENT JOB FILE...: pfmon-report's JSON or CSV
# output REPORT over the per-rank FILEs (rank R's the Rth, all on this
# host) says so: the ranks read, the job's size (as many), 1 host, JOB;
# each file read with its rank; and EVENT's figures over them, as
# counts_figures finds them (the mean to 0.01, the imbalance printed with
# 4 decimals).  Sets FIGURES to pfmon-report's, "SUM MIN MEAN MAX
# MAX_RANK IMBALANCE MIN_RANK".
check_report() {
	local rep=$1 ev=$2 job=$3 n r sum min mean max at imb minat
	shift 3
	n=$#
	run -0 "$RPY" report-context "$rep"
	assert_output "$n $n 1 $job"
	run -0 "$RPY" report-inputs "$rep"
	assert_output "$(for ((r = 1; r <= n; r++)); do echo "$((r - 1)) $HOST ${!r}"; done)"
	read -r sum min mean max at imb minat < <(counts_figures "$ev" "$@")
	run -0 "$RPY" report-counts "$rep" "$ev"
	FIGURES=$output
	echo "$ev over the files: $sum $min $mean $max $at $imb $minat; pfmon-report: $FIGURES"
	read -r rsum rmin rmean rmax rat rimb rminat <<<"$FIGURES"
	[ "$rsum" = "$sum" ] && [ "$rmin" = "$min" ] && [ "$rmax" = "$max" ] &&
		[ "$rat" = "$at" ] && [ "$rminat" = "$minat" ]
	near "$rmean" "$mean" 0.01
	near "$rimb" "$imb" 0.0001
}

# check_report_profile REPORT NAME FILE...: the merged profile of
# pfmon-report's JSON or CSV output REPORT over the per-rank sampling
# FILEs (rank R's the Rth) has NAME on top with all its samples in the
# files, and shares them among the ranks as the files do.
check_report_profile() {
	local rep=$1 name=$2 total=0 f r s
	shift 2
	for f; do total=$((total + $(samples_of "$f" "$name"))); done
	run -0 "$RPY" report-profile "$rep"
	assert_equal "${lines[0]}" "$total $name"
	run -0 "$RPY" report-ranks "$rep" "$name"
	printf '%s\n' "${lines[@]}"
	[ "${#lines[@]}" = $# ]
	for ((r = 0; r < $#; r++)); do
		f=${*:r+1:1}
		s=$(samples_of "$f" "$name")
		read -r rr rs rpct <<<"${lines[r]}"
		[ "$rr" = "$r" ] && [ "$rs" = "$s" ]
		near "$rpct" "$(awk -v s="$s" -v t="$total" 'BEGIN { print 100 * s / t }')" 0.01
	done
}

# imbalance_band N UNIT ALLOWANCE: the imbalance (max/mean) that N ranks
# doing (R+1)*UNIT each can show when every rank adds between 0 and
# ALLOWANCE of its own: "LOW HIGH" around the work's 2N/(N+1).  Lowest
# when the last rank adds nothing and the others the allowance, highest
# the other way round.
imbalance_band() {
	awk -v n="$1" -v u="$2" -v a="$3" 'BEGIN {
		w = u * n * (n + 1) / 2
		printf "%.6f %.6f\n", n * u / ((w + (n - 1) * a) / n), (n * u + a) / ((w + a) / n) }'
}

# within X LOW HIGH
within() {
	awk -v x="$1" -v lo="$2" -v hi="$3" 'BEGIN { exit !(x >= lo && x <= hi) }'
}

# near X Y TOLERANCE: |X - Y| <= TOLERANCE
near() {
	awk -v x="$1" -v y="$2" -v t="$3" 'BEGIN { d = x - y; if (d < 0) d = -d; exit !(d <= t) }'
}

# samples_of FILE NAME: NAME's samples in the profile of a pfmon sampling
# output (0 when it has no row).
samples_of() {
	"$RPY" profile "$1" | awk -v n="$2" '$2 == n { s = $1 } END { print s + 0 }'
}

# shares_follow_work NAME FILE...: the samples of function NAME in the
# per-rank sampling outputs FILE... (rank R's the Rth) are shared among
# the ranks as their work, (R+1) units of N(N+1)/2, within 3 points.  The
# samples of a rank's rank_work are its CPU time in it (task-clock, the
# thread's own clock, whatever the load) over the period; what moves them
# is a sample or two lost at either end and the kernel's share of that
# time (a clock_gettime per 100000 iterations, interrupts): a few % of
# each rank's count, under half a point of its share.
shares_follow_work() {
	local name=$1 f
	shift
	for f; do samples_of "$f" "$name"; done |
		awk -v n=$# '{ s[NR - 1] = $1; t += $1 }
			END {
				bad = t < 100 * n
				for (r = 0; r < n; r++) {
					got = 100 * s[r] / t; want = 100 * (r + 1) / (n * (n + 1) / 2)
					printf "rank %d: %d samples, %.2f%% (work %.2f%%)\n", r, s[r], got, want
					d = got - want; if (d < 0) d = -d
					bad += d > 3
				}
				exit bad != 0 }'
}
