# Shared set-up for the perfex CLI suite: load with `load helpers` first
# thing in setup().
bats_load_library bats-support
bats_load_library bats-assert

ROOT=$(cd "$BATS_TEST_DIRNAME/../.." && pwd)
# The tools under test: PX_BIN=build/san/bin runs the suite against the
# sanitizers' build (tests/run-all.sh san)
BIN=$(cd "$ROOT" && realpath "${PX_BIN:-build/bin}")
PERFEX=$BIN/perfex
: "${PFMON:=$BIN/pfmon}"
W=$ROOT/build/tests/workloads

# Page faults a workload takes beyond its own work: the dynamic loader,
# libc and the stack.  Measured on Debian 12 (x86_64) with
# `perfex -e page-faults tests/workloads/touch_pages 0`: 51 to 54 over 20
# runs (perf stat: 50 to 51).  The allowance doubles the measurement, so
# a test fails when perfex counts something that is not the workload, yet
# tolerates a libc or kernel that faults a little more at start-up.
STARTUP_FAULTS=100

# The CSV of perfex, pfmon and pfmon-report (-x,): one header, the
# schema's columns (docs/schema.md), then rows
# that start with the schema's version and their record.
SCHEMA_HEADER=schema,record,unit,pid,tid,cpu,set,name,value,raw,active_pct,status,ci95_pct,runs,stddev,min,max,seconds,share_pct,self,self_pct,position,rows,depth,symbol,module,process,root,mean,imbalance,min_rank,max_rank,ranks,cut_ranks,base_pct,change_pct,p_value,rank,size,host,job

# schema_awk [AWK OPTION...] PROGRAM [FILE...]: awk -F, over such a CSV,
# its columns by name: v("NAME") is the row's column NAME.  Lines before
# the header (perfex's warnings on standard error) are skipped, and the
# header is no row.  A CSV without the header, or a name that is no
# column, fails (status 2, said on standard error) before PROGRAM's END.
# shellcheck disable=SC2016  # awk's $, not the shell's
SCHEMA_AWK='
function v(k) {
	if (!(k in C)) { printf "schema_awk: no column %s in the header\n", k > "/dev/stderr"; _err = 1; exit 2 }
	return $C[k]
}
$1 == "schema" && $2 == "record" { split("", C); for (i = 1; i <= NF; i++) C[$i] = i; _hdr = 1; next }
!_hdr { next }
END {
	if (_err) exit 2
	if (!_hdr) { print "schema_awk: no schema header in the CSV" > "/dev/stderr"; exit 2 }
}
'
schema_awk() {
	local opts=()
	while [[ $# -gt 1 && $1 == -* ]]; do
		opts+=("$1" "$2")
		shift 2
	done
	awk -F, "${opts[@]}" "$SCHEMA_AWK$1" "${@:2}"
}

# csv_get CSV COLUMNS RECORD [COLUMN=VALUE...]: of each row of CSV (the
# text) of record RECORD whose COLUMNs hold those VALUEs, the COLUMNS
# (names, a comma between them, printed the same way), a row a line.
csv_get() {
	local csv=$1 cols=$2 rec=$3
	shift 3
	schema_awk -v cols="$cols" -v rec="$rec" '
		BEGIN {
			nc = split(cols, K, ",")
			for (i = 1; i < ARGC; i++) {
				k = ARGV[i]; sub(/=.*/, "", k)
				W[k] = substr(ARGV[i], length(k) + 2)
				delete ARGV[i]
			}
			ARGC = 1
		}
		v("record") == rec {
			for (k in W) if (v(k) != W[k]) next
			s = v(K[1])
			for (i = 2; i <= nc; i++) s = s "," v(K[i])
			print s
		}' "$@" <<<"$csv"
}

# schema_row [-s SEP] COLUMN=VALUE...: the row of the schema's CSV (SEP
# between columns, default ,) with those columns, the schema's version (3)
# unless given, every other column empty.
schema_row() {
	local sep=,
	if [ "$1" = -s ]; then
		sep=$2
		shift 2
	fi
	awk -v head="$SCHEMA_HEADER" -v sep="$sep" 'BEGIN {
		n = split(head, H, ",")
		for (i = 1; i <= n; i++) known[H[i]] = 1
		R["schema"] = 3
		for (i = 1; i < ARGC; i++) {
			k = ARGV[i]; sub(/=.*/, "", k)
			if (!(k in known)) { print "schema_row: no column " k > "/dev/stderr"; exit 2 }
			R[k] = substr(ARGV[i], length(k) + 2)
		}
		s = R[H[1]]
		for (i = 2; i <= n; i++) s = s sep R[H[i]]
		print s
	}' "$@"
}

# perfex -x, output: the value of the count of event $2.
csv_value() {
	csv_get "$1" value count unit=all name="$2"
}

# pfmon -x, output: the value of sampling summary row $2 of output $1.
summary() {
	csv_get "$1" value summary name="$2"
}

# Does this machine count hardware events?  perf itself is the judge.
have_hw_pmu() {
	! perf stat -e instructions true 2>&1 | grep -q 'not supported'
}

# The value perf stat counts for one event over a command.
perf_stat_value() {
	local ev=$1
	shift
	perf stat -x, -e "$ev" "$@" 2>&1 >/dev/null | awk -F, 'NF > 2 { print $1; exit }'
}

# interval_coverage ALONE RECORD ROWS: pfmon -x, outputs on standard
# input (one header each); their RECORD rows (count rows of unit all, or
# samples rows) whose ci95_pct (a 95% interval in % of the value, the
# scaled estimate) is known.  Prints how many hold ALONE, the figure
# measured without multiplexing, within their interval, and succeeds when
# there are ROWS of them and 9 in 10 hold it.
interval_coverage() {
	schema_awk -v a="$1" -v rec="$2" -v rows="$3" '
		v("record") == rec && (rec != "count" || v("unit") == "all") && v("ci95_pct") != "" {
			d = v("value") - a; if (d < 0) d = -d
			n++; inside += d <= v("value") * v("ci95_pct") / 100; w += v("ci95_pct") }
		END {
			printf "alone %d: inside %d of %d, mean +- %.2f%%\n", a, inside, n, n ? w / n : 0
			exit !(n == rows && inside * 10 >= n * 9) }'
}

# counted_function's address in the calls workload (built without PIE).
counted_function_addr() {
	nm "$W/calls" | awk '$3 == "counted_function" { print "0x" $1 }'
}

# The per-test time limit.  tests/run-all.sh sets BATS_TEST_TIMEOUT
# (seconds) and bats fails a test that runs longer as "not ok N name #
# timeout after Ns", then goes on.  Bats before 1.13 (Debian 12 has 1.8.2)
# ends only the test's own children when that time comes (bats-core issue
# 1020): a test hung in `run CMD` or `$(CMD)`, where CMD is a grandchild,
# stays hung.  So a watchdog started here acts for bats a little earlier:
# it raises bats' time-out in the test (SIGABRT, the signal bats' trap
# waits for) and ends every process under the test, so the hung command
# returns and bats reports the test as timed out.
px_under() { # PID SKIP: the processes under PID, except SKIP and its own
	ps -e -o pid= -o ppid= | awk -v root="$1" -v skip="$2" '
		{ parent[$1] = $2 }
		END {
			for (p in parent) {
				q = p
				while (q != root && q != skip && q > 1 && (q in parent))
					q = parent[q]
				if (q == root && p != root)
					print p
			}
		}'
}

px_watchdog() { # PID LIMIT
	local pid=$1 limit=$2 me=$BASHPID stat start now pids
	((limit > 0)) || limit=1
	stat=$(</proc/"$pid"/stat) || return
	start=$(awk '{ print $20 }' <<<"${stat##*) }")
	while ((limit-- > 0)); do
		sleep 1
		# gone, or its number taken by another process since: done
		stat=$(</proc/"$pid"/stat) 2>/dev/null || return
		now=$(awk '{ print $20 }' <<<"${stat##*) }")
		[[ $now == "$start" ]] || return
	done
	kill -ABRT "$pid" || return
	mapfile -t pids < <(px_under "$pid" "$me")
	((${#pids[@]})) || return
	kill -TERM "${pids[@]}"
	sleep 2
	mapfile -t pids < <(px_under "$pid" "$me")
	((${#pids[@]} == 0)) || kill -KILL "${pids[@]}"
}

# Act 3 s before bats' own limit (counted from the test's start, before
# setup()): once bats has ended the test's children, theirs are no longer
# under the test (init adopts them) and could not be found.
if [[ -n ${BATS_TEST_TIMEOUT:-} && ${BATS_VERSION:-0} =~ ^1\.([0-9]|1[0-2])\. ]]; then
	(
		# hold none of bats' files open (its output, fd 3), so that
		# bats never waits for the watchdog
		for fd in "/proc/$BASHPID/fd/"*; do
			fd=${fd##*/}
			((fd > 2)) && eval "exec $fd>&-"
		done
		px_watchdog "$$" $((BATS_TEST_TIMEOUT - SECONDS - 3))
	) </dev/null >/dev/null 2>&1 &
fi

# Waiting for events instead of durations: tests/lib/procs.bash, shared
# with the module suite.
source "$BATS_TEST_DIRNAME/../lib/procs.bash"

# The call-graph exports' tests (pfmon_pprof.bats, pfmon_exports.bats):
# pfmon, the call-graph and symbols workloads, a temporary folder T, and
# SMPL, CPU time sampled every 0.5 ms.
export_setup() {
	PFMON=$BIN/pfmon
	CG=$ROOT/build/tests/workloads/callgraph
	SYM=$ROOT/tests/workloads/symbols
	T=$(mktemp -d)
	SMPL=(-e cpu-clock --long-smpl-periods=500000)
}
