#!/usr/bin/env bats
# Injected faults: nothing lost, nothing half-written.  A full file
# system (at open, mid-write, at the last flush), a failed rename, a
# read-only or vanished output folder, perfex or pfmon killed by SIGKILL,
# the measured command killed by a signal, files cut at every byte, and
# rank files of another schema.  Each fault gives a message that says
# what was wrong and a non-zero status, and leaves the old output file
# whole or the new one whole, never a part of one.
#
# Already covered elsewhere, not repeated here: a missing output folder,
# /proc and a folder as -o, a command that cannot run (errors.bats,
# pfmon_sampling.bats "nothing half-written", pfmon_exports.bats'
# errors); perfex's status on SIGTERM, SIGKILL and SIGABRT and on Ctrl-C
# (exit.bats); pfmon-report on a CSV cut after its second line and a JSON
# cut at byte 100 (pfmon_report.bats); the sample file reader on a file
# cut by one byte and mid-file (tests/unit/test_smpl_output.c).
#
# The file-system faults need root (mount); the suite runs as root.

bats_require_minimum_version 1.5.0

setup() {
	load helpers
	export_setup
	REPORT=${BIN:-$ROOT/build/bin}/pfmon-report
	# sampled every 0.1 ms of CPU, with call chains: every pfmon output
	# has something to write
	PF=(-e cpu-clock --long-smpl-periods=100000 --call-graph=fp --profile-top=0)
	# pfmon's output files, each of which takes the path after '='
	PF_OUTS=(--outfile --smpl-outfile --folded --flamegraph --pprof --perf-script --speedscope)
}

teardown() {
	px_end_background
	# the mounts a test made under T, innermost first
	awk -v t="$T/" 'index($2, t) == 1 { print $2 }' /proc/self/mounts | sort -r |
		while read -r m; do umount -l "$m"; done
	rm -rf "$T"
}

need_root() {
	[ "$(id -u)" = 0 ] || skip "mounting a file system needs root"
}

OLD='old results, whole'

# small_fs DIR FREE: a 64 KiB tmpfs at DIR holding the old output file
# DIR/out and a file DIR/fill that leaves FREE bytes free.
small_fs() {
	local avail
	mkdir -p "$1"
	mount -t tmpfs -o size=64k tmpfs "$1"
	echo "$OLD" >"$1/out"
	avail=$(($(df -B1 --output=avail "$1" | tail -1)))
	head -c $((avail - $2)) /dev/zero >"$1/fill"
	assert_equal "$(($(df -B1 --output=avail "$1" | tail -1)))" "$2"
}

# old_whole DIR NAMES: DIR/out is still the old file, and DIR holds NAMES
# (a space after each) and nothing else: no temporary file is left.
old_whole() {
	assert_equal "$(cat "$1/out")" "$OLD"
	assert_equal "$(ls -A "$1" | tr '\n' ' ')" "$2"
}

# pfmon_out OPTION PATH CMD...: pfmon sampling CMD, with OPTION=PATH.
pfmon_out() {
	local opt=$1 path=$2
	shift 2
	"$PFMON" "${PF[@]}" "$opt=$path" "$@"
}

# refused_at_open DIR REASON: perfex, pfmon with each output and
# pfmon-report, writing DIR/out, fail at open saying REASON, before the
# command runs, and leave the old file whole.
refused_at_open() {
	local F=$1 opt
	run -1 --separate-stderr "$PERFEX" -o "$F/out" -e task-clock touch "$T/ran"
	assert_regex "$stderr" "cannot open '$F/out': $2"
	[ ! -e "$T/ran" ] || fail "perfex ran the command though it could not open its output"
	old_whole "$F" "out "
	for opt in "${PF_OUTS[@]}"; do
		run -1 --separate-stderr pfmon_out "$opt" "$F/out" touch "$T/ran"
		assert_regex "$stderr" "cannot open '$F/out': $2"
		[ ! -e "$T/ran" ] || fail "pfmon $opt ran the command though it could not open its output"
		old_whole "$F" "out "
	done
	"$PERFEX" --json -o "$T/c.json" -e task-clock true
	run -1 --separate-stderr "$REPORT" -o "$F/out" "$T/c.json"
	assert_regex "$stderr" "cannot open '$F/out': $2"
	old_whole "$F" "out "
}

@test "full file system at open: no room for the temporary file, every tool fails before the command runs, the old file whole" {
	need_root
	F=$T/full
	mkdir "$F"
	# two inodes: the root folder and the old file; room for data
	mount -t tmpfs -o size=64k,nr_inodes=2 tmpfs "$F"
	echo "$OLD" >"$F/out"
	run -1 touch "$F/x"
	refused_at_open "$F" "No space left on device"
}

# An output fails at the write that finds the disk full, midway when it is
# larger than one stdio buffer, else at the commit's flush: pfmon's folded
# stacks are either, by how many kernel stacks the run sampled.  Either
# way the message names the file.
@test "full file system with no room left: every output, small or large, fails naming the file, the old file whole, nothing left" {
	need_root
	F=$T/full
	small_fs "$F" 0
	"$PERFEX" --json -o "$T/c.json" -e task-clock true
	for fmt in "" "-x," --json; do
		run -1 --separate-stderr "$PERFEX" ${fmt:+"$fmt"} -o "$F/out" -e task-clock true
		assert_regex "$stderr" "cannot write '$F/out': No space left on device"
		old_whole "$F" "fill out "
	done
	# pfmon's counts, its folded stacks (some 3 to 5 KiB) and its pprof
	# profile (2 KiB)
	run -1 --separate-stderr "$PFMON" -e task-clock --outfile="$F/out" true
	assert_regex "$stderr" "cannot write '$F/out': No space left on device"
	old_whole "$F" "fill out "
	for opt in --folded --pprof; do
		run -1 --separate-stderr pfmon_out "$opt" "$F/out" "$CG/fp/cgmain" 2
		assert_regex "$stderr" "cannot write '$F/out': No space left on device"
		old_whole "$F" "fill out "
	done
	run -1 --separate-stderr "$REPORT" -o "$F/out" "$T/c.json"
	assert_regex "$stderr" "cannot write '$F/out': No space left on device"
	assert_equal "$output" ""
	old_whole "$F" "fill out "
}

@test "full file system mid-write: pfmon's large outputs fail at a write, the old file whole, nothing left" {
	need_root
	F=$T/full
	# one page free: the first 4 KiB buffer of the output is written,
	# the next write fails while pfmon writes its samples or report
	small_fs "$F" 4096
	for out in "--smpl-outfile" "--smpl-outfile --json" --flamegraph --perf-script --speedscope \
		   "--outfile --json"; do
		read -r opt json <<<"$out"
		run -1 --separate-stderr pfmon_out "$opt" "$F/out" ${json:+"$json"} "$CG/fp/cgmain" 5
		assert_regex "$stderr" "cannot write '$F/out': No space left on device"
		old_whole "$F" "fill out "
	done
	# the same runs on a file system with room write each file whole:
	# these outputs are larger than the room left above
	for opt in --smpl-outfile --flamegraph --perf-script --speedscope; do
		pfmon_out "$opt" "$T/big" "$CG/fp/cgmain" 5 >/dev/null
		(($(stat -c %s "$T/big") > 8192)) || fail "pfmon $opt wrote only $(stat -c %s "$T/big") bytes"
	done
}

@test "the rename fails (the target is a mount point): the old file whole, the temporary removed, the reason given" {
	need_root
	D=$T/d
	mkdir "$D"
	echo "$OLD" >"$D/out"
	# a file bind-mounted on itself cannot be replaced: rename(2) says
	# EBUSY once the new file is written whole
	mount --bind "$D/out" "$D/out"
	run -1 --separate-stderr "$PERFEX" -o "$D/out" -e task-clock true
	assert_regex "$stderr" "cannot replace '$D/out': Device or resource busy"
	old_whole "$D" "out "
	for opt in --smpl-outfile --outfile --speedscope; do
		run -1 --separate-stderr pfmon_out "$opt" "$D/out" "$CG/fp/cgmain" 2
		assert_regex "$stderr" "cannot replace '$D/out': Device or resource busy"
		old_whole "$D" "out "
	done
	"$PERFEX" --json -o "$T/c.json" -e task-clock true
	run -1 --separate-stderr "$REPORT" -o "$D/out" "$T/c.json"
	assert_regex "$stderr" "cannot replace '$D/out': Device or resource busy"
	old_whole "$D" "out "
}

@test "read-only output folder (root included): every tool fails at open, before the command runs, the old file whole" {
	need_root
	F=$T/ro
	small_fs "$F" 8192
	rm "$F/fill"
	# chmod would not stop root: the file system itself is read-only
	mount -o remount,ro "$F"
	refused_at_open "$F" "Read-only file system"
}

@test "the output folder removed during the run: the tool fails at the end, saying so, and creates nothing" {
	# the command itself removes the folder, after a while: the fault
	# falls in the middle of the run, every time
	# shellcheck disable=SC2016  # sh's $0, not ours
	vanish=(sh -c 'sleep 0.2; rm -rf "$0"')
	mkdir "$T/d"
	echo "$OLD" >"$T/d/out"
	run -1 --separate-stderr "$PERFEX" -o "$T/d/out" -e task-clock "${vanish[@]}" "$T/d"
	assert_regex "$stderr" "cannot replace '$T/d/out': No such file or directory"
	[ ! -e "$T/d" ] || fail "perfex made $T/d again: $(ls -A "$T/d")"
	for opt in --smpl-outfile --outfile --perf-script; do
		mkdir "$T/d"
		run -1 --separate-stderr pfmon_out "$opt" "$T/d/out" "${vanish[@]}" "$T/d"
		assert_regex "$stderr" "cannot replace '$T/d/out': No such file or directory"
		[ ! -e "$T/d" ] || fail "pfmon $opt made $T/d again: $(ls -A "$T/d")"
	done
}

# killed_mid_run TOOL-ARGS...: TOOL-ARGS run on tests/workloads/stages
# spinning until told, killed by SIGKILL once it spins (and has sampled
# for a moment); the stages process, no longer measured, is then let go.
killed_mid_run() {
	local pid fifo=$T/stages.fifo out=$T/stages.out
	rm -f "$fifo" "$out"
	mkfifo "$fifo"
	"$@" "$W/stages" "$fifo" 0 s >"$out" 2>"$T/err" &
	pid=$!
	px_background "$pid"
	wait_for_line "$out" "^spin 1\$" "$pid"
	px_background "$(pgrep -P "$pid")"
	sleep 0.3
	kill -KILL "$pid"
	wait "$pid" || true
	echo go 1<>"$fifo"
}

@test "perfex or pfmon killed by SIGKILL mid-run: the target is the old file or absent, never a part" {
	for tool in perfex pfmon; do
		D=$T/$tool
		mkdir "$D"
		echo "$OLD" >"$D/old"
		if [ $tool = perfex ]; then
			killed_mid_run "$PERFEX" -e task-clock -o "$D/old"
			killed_mid_run "$PERFEX" -e task-clock -o "$D/new"
		else
			killed_mid_run "$PFMON" -e cpu-clock --long-smpl-periods=100000 \
				--smpl-outfile="$D/old" --outfile="$D/new"
		fi
		assert_equal "$(cat "$D/old")" "$OLD"
		[ ! -e "$D/new" ] || fail "$tool killed left $D/new: $(cat "$D/new")"
		# and nothing beside them: the temporary files have no name
		# until they are complete (O_TMPFILE, lib/base/outfile.h)
		[ "$(cd "$D" && ls -A)" = old ] ||
			fail "$tool killed left $(cd "$D" && ls -A | tr '\n' ' ')"
	done
}

@test "a command killed by SIGTERM, SIGINT, SIGKILL, SIGSEGV or SIGABRT: status 128+N, the counts printed, the outputs whole" {
	# perfex's SIGTERM, SIGKILL and SIGABRT are in exit.bats: SIGSEGV here
	run -139 --separate-stderr "$PERFEX" --json -o "$T/c.json" -e page-faults sh -c 'kill -SEGV $$'
	run -0 python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); assert d["exit_status"] == 139 and d["events"][0]["value"] > 0, d' "$T/c.json"
	n=0
	for sig in TERM:143 INT:130 KILL:137 SEGV:139 ABRT:134; do
		want=${sig#*:}
		sig=${sig%:*}
		# pfmon counting: the status, and the counts in text and JSON
		run -"$want" --separate-stderr "$PFMON" -e task-clock sh -c "kill -$sig \$\$"
		assert_regex "$output" "[0-9.]+ msec  task-clock"
		run -"$want" --separate-stderr "$PFMON" --json -e task-clock sh -c "kill -$sig \$\$"
		run -0 python3 -c 'import json,sys; d=json.loads(sys.argv[1]); assert d["exit_status"] == int(sys.argv[2]), d' \
			"$output" "$want"
		# pfmon sampling: the sample file and the report written whole
		run -"$want" --separate-stderr "$PFMON" -e cpu-clock --long-smpl-periods=100000 \
			--smpl-outfile="$T/s.$sig" --outfile="$T/o.$sig" -x, \
			sh -c "i=0; while [ \$i -lt 20000 ]; do i=\$((i+1)); done; kill -$sig \$\$"
		run -0 tail -n1 "$T/s.$sig"
		assert_output --regexp '^# end [1-9][0-9]* samples$'
		n=$(summary "$(cat "$T/o.$sig")" samples)
		assert_equal "$output" "# end $n samples"
	done
}

@test "a command killed by a signal is named on standard error, as perf stat names it" {
	run -139 --separate-stderr "$PERFEX" -e task-clock sh -c 'kill -SEGV $$'
	assert_regex "$stderr" "Segmentation fault|SIGSEGV"
	run -139 --separate-stderr "$PFMON" -e task-clock sh -c 'kill -SEGV $$'
	assert_regex "$stderr" "Segmentation fault|SIGSEGV"
}

# The loops over cut files run in a plain bash (plain FUNCTION ARG...),
# away from bats' per-command traps, which made them ten times slower;
# each function prints what went wrong and fails, or succeeds silently.
plain() {
	T=$T REPORT=$REPORT bash -c "$(declare -f cuts cut_to "$1"); \"\$@\"" plain "$@"
}

# cut_to FILE N OUT: the first N bytes of FILE, a text file, into OUT,
# without a process (half the processes of a cut check were head's).
cut_to() {
	local LC_ALL=C	# offsets in bytes, not characters
	if [ "${cut_file-}" != "$1" ]; then
		IFS= read -r -d '' cut_data <"$1" || true
		cut_file=$1
	fi
	printf '%s' "${cut_data:0:$2}" >"$3"
}

# cuts FILE: the byte offsets to cut FILE at: every one of the first and
# last 200 bytes, every 97th between, and the whole size.
cuts() {
	awk -v n="$(stat -c %s "$1")" \
		'BEGIN { for (i = 0; i <= n; i++) if (i <= 200 || i >= n - 200 || i % 97 == 0) print i }'
}

# smpl_cut_check READER FILE WANT: READER (smpl_read) over FILE cut at
# every offset of cuts(): only the whole file reads, as WANT ("N
# samples"); any cut fails with status 1 and says truncated.
smpl_cut_check() {
	local rd=$1 src=$2 want=$3 size i st
	size=$(stat -c %s "$src")
	for i in $(cuts "$src"); do
		cut_to "$src" "$i" "$T/cut"
		st=0
		"$rd" "$T/cut" >"$T/out" 2>"$T/err" || st=$?
		if ((st == 0)); then
			((i == size)) || { echo "cut at $i of $size read: $(cat "$T/out")"; return 1; }
			[ "$(cat "$T/out")" = "$want" ] || { echo "the whole file read as $(cat "$T/out")"; return 1; }
		elif ((st != 1)) || ! grep -qE "^smpl_read: $T/cut(:[0-9]+)?: truncated" "$T/err"; then
			echo "cut at $i of $size: status $st: $(cat "$T/err")"
			return 1
		fi
	done
}

# report_cut_check FILE: pfmon-report over FILE cut at every offset of
# cuts(): the whole file's report, or status 1 naming the cut file and
# nothing on standard output; never a crash, never another report.
report_cut_check() {
	local src=$1 ext=${1##*.} size i st
	cp "$src" "$T/cut.$ext"
	"$REPORT" -x, "$T/cut.$ext" >"$T/whole" || { echo "the whole $src does not merge"; return 1; }
	size=$(stat -c %s "$src")
	for i in $(cuts "$src"); do
		cut_to "$src" "$i" "$T/cut.$ext"
		st=0
		"$REPORT" -x, "$T/cut.$ext" >"$T/out" 2>"$T/err" || st=$?
		if ((st == 0)); then
			cmp -s "$T/out" "$T/whole" ||
				{ echo "$src cut at $i of $size: another report:"; diff "$T/whole" "$T/out"; return 1; }
		elif ((st != 1)) || [ -s "$T/out" ] || ! grep -q "^pfmon-report: $T/cut.$ext" "$T/err"; then
			echo "$src cut at $i of $size: status $st, output $(wc -c <"$T/out") bytes: $(cat "$T/err")"
			return 1
		fi
	done
}

# folded_cut_check FILE: pfmon-report over folded stacks cut at every
# offset of cuts() and at every line's end: merged, with the total of
# the lines kept, exactly when the cut falls at a line's end; else
# status 1 naming the file.  Prints how many cuts merged.
folded_cut_check() {
	local src=$1 size i st at_end want merged=0
	size=$(stat -c %s "$src")
	for i in $({ cuts "$src"; awk '{ n += length($0) + 1; print n }' "$src"; } | sort -nu); do
		cut_to "$src" "$i" "$T/cut.folded"
		st=0
		"$REPORT" --top=0 "$T/cut.folded" >"$T/out" 2>"$T/err" || st=$?
		# (the substitution drops a last newline: "" at a line's end)
		at_end=
		((i > 0)) && [[ $(tail -c1 "$T/cut.folded") == "" ]] && at_end=y
		if ((st == 0)); then
			[ -n "$at_end" ] || { echo "cut at $i of $size, inside a line, merged: $(tail -n1 "$T/cut.folded")"; return 1; }
			want=$(awk '{ n += $NF } END { print n }' "$T/cut.folded")
			grep -q "^# profile of stacks over 1 ranks: $want samples\$" "$T/out" ||
				{ echo "cut at $i: not $want samples: $(cat "$T/out")"; return 1; }
			merged=$((merged + 1))
		elif [ -n "$at_end" ]; then
			echo "cut at $i, a line's end, refused: $(cat "$T/err")"
			return 1
		elif ((st != 1)) || ! grep -q "^pfmon-report: $T/cut.folded" "$T/err"; then
			echo "cut at $i of $size: status $st: $(cat "$T/err")"
			return 1
		fi
	done
	echo "$merged"
}

# bats test_tags=repeated
@test "a sample file cut at any byte: the reader refuses it as truncated, only the whole file reads" {
	# no front end reads sample files back (pfmon-report reads reports):
	# tests/cli/smpl_read.c calls the library's reader
	# shellcheck disable=SC2046  # the flags split into words
	run -0 cc -std=gnu11 -D_GNU_SOURCE $(find "$ROOT/lib" -name '*.h' -printf '-I%h\n' | sort -u) \
		-I"$ROOT/include" -I"$ROOT/kernel/uapi" -I"$ROOT/formats" \
		$(pkg-config --cflags popt libdw libelf zlib json-c) -o "$T/smpl_read" \
		"$ROOT/tests/cli/smpl_read.c" "$ROOT/build/libpx.a" \
		$(pkg-config --libs popt libdw libelf zlib json-c) -Wl,-Bstatic -lpfm -Wl,-Bdynamic -lm -lpthread
	for json in "" --json; do
		"$PFMON" "${PF[@]}" ${json:+"$json"} --smpl-outfile="$T/s" "$CG/fp/cgmain" 1 >"$T/o"
		if [ -n "$json" ]; then
			n=$(python3 -c 'import json,sys; print(json.load(sys.stdin)["summary"]["samples"])' <"$T/o")
		else
			n=$(awk '/^samples recorded / { print $3 }' "$T/o")
		fi
		run -0 "$T/smpl_read" "$T/s"
		assert_output "$n samples"
		run -0 plain smpl_cut_check "$T/smpl_read" "$T/s" "$n samples"
		# and pfmon-report, which reads reports, refuses it whole
		run -1 --separate-stderr "$REPORT" "$T/s"
		assert_regex "$stderr" "^pfmon-report: $T/s: not a"
	done
}

# bats test_tags=repeated
@test "pfmon-report over a perfex result cut at any byte: the whole file's report or a refusal naming it, never a crash or another total" {
	"$PERFEX" -x, -o "$T/c.csv" -e task-clock,page-faults true
	"$PERFEX" --json -o "$T/c.json" -e task-clock,page-faults true
	# JSON Lines: region lines, then the report
	"$PERFEX" --regions --json -o "$T/g.json" -e task-clock,page-faults "$ROOT/build/examples/regions" 100 1
	for f in c.csv c.json g.json; do
		run -0 plain report_cut_check "$T/$f"
	done
}

# bats test_tags=repeated
@test "pfmon-report over a pfmon result cut at any byte: the whole file's report or a refusal naming it, never a crash or another total" {
	"$PFMON" -x, -e task-clock,page-faults --outfile="$T/m.csv" true
	"$PFMON" --json -e task-clock,page-faults --outfile="$T/m.json" true
	"$PFMON" "${PF[@]}" -x, --outfile="$T/p.csv" "$CG/fp/cgmain" 1 >/dev/null
	"$PFMON" "${PF[@]}" --json --outfile="$T/p.json" "$CG/fp/cgmain" 1 >/dev/null
	for f in m.csv m.json p.csv p.json; do
		run -0 plain report_cut_check "$T/$f"
	done
}

# bats test_tags=repeated
@test "pfmon-report over folded stacks cut at any byte: a line's end gives those lines' total, any other cut is refused" {
	# folded stacks have no end line: a cut at a line's end is a whole
	# file of fewer stacks, and merges as one
	"$PFMON" "${PF[@]}" --folded="$T/f.folded" "$CG/fp/cgmain" 2 >/dev/null
	run -0 plain folded_cut_check "$T/f.folded"
	# each line's end merged, the whole file's last
	assert_output "$(wc -l <"$T/f.folded")"
}

@test "pfmon-report over ranks of another schema version: refused, naming the file and both versions; one schema in CSV and JSON merges" {
	for r in 0 1; do
		OMPI_COMM_WORLD_RANK=$r OMPI_COMM_WORLD_SIZE=2 OMPI_MCA_ess_base_jobid=7 \
			"$PERFEX" -e page-faults --json -o "$T/r$r.json" true
		OMPI_COMM_WORLD_RANK=$r OMPI_COMM_WORLD_SIZE=2 OMPI_MCA_ess_base_jobid=7 \
			"$PERFEX" -e page-faults -x, -o "$T/r$r.csv" true
	done
	# the same schema (3) in both kinds of file: merged, the sum right
	run -0 --separate-stderr "$REPORT" -x, "$T/r0.json" "$T/r1.csv"
	want=$(($(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["events"][0]["value"])' "$T/r0.json") + \
		$(csv_value "$(cat "$T/r1.csv")" page-faults)))
	assert_equal "$(csv_get "$output" value merged name=page-faults)" "$want"
	# another version: an older and a newer JSON, an older CSV, a CSV
	# with one row of another version, a JSON without its version
	sed 's/"schema":3,/"schema":2,/' "$T/r1.json" >"$T/v2.json"
	sed 's/"schema":3,/"schema":4,/' "$T/r1.json" >"$T/v4.json"
	sed 's/^3,/2,/' "$T/r1.csv" >"$T/v2.csv"
	sed '3s/^3,/4,/' "$T/r1.csv" >"$T/v4row.csv"
	sed 's/"schema":3,//' "$T/r1.json" >"$T/none.json"
	sed 's/"schema":3,/"schema":"3",/' "$T/r1.json" >"$T/text.json"
	for bad in "v2.json=: schema 2" "v4.json=: schema 4" "v2.csv=:2: schema 2" "v4row.csv=:3: schema 4"; do
		f=${bad%%=*}
		run -1 --separate-stderr "$REPORT" -o "$T/rep" "$T/r0.json" "$T/$f"
		assert_regex "$stderr" "^pfmon-report: $T/$f${bad#*=}: this pfmon-report reads schema 3 \\(write the files again with this version\\)"
		[ ! -e "$T/rep" ] || fail "a report of $f was written"
		assert_equal "$output" ""
	done
	for f in none.json text.json; do
		run -1 --separate-stderr "$REPORT" "$T/r0.json" "$T/$f"
		assert_regex "$stderr" "^pfmon-report: $T/$f: no \"schema\" number"
	done
}
