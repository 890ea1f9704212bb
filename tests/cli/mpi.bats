#!/usr/bin/env bats
# Per-rank runs under a real MPI launcher: Open MPI's mpirun (Debian's
# openmpi-bin) runs 4 ranks of tests/workloads/mpi/ranks on this machine,
# each under perfex or pfmon.  Every rank writes its own file (%r, %h,
# %p, %j in its name) recording its rank, the job's size, the host and the
# job; pfmon-report merges them.  Rank R of the workload does R+1 units of
# work, so each rank's count, the rank of the max and the imbalance are
# known (tests/cli/ranks.bash).
bats_require_minimum_version 1.5.0

setup_file() {
	# the run's place is Open MPI's alone: nothing from a Slurm job or
	# another launcher these tests may themselves run under
	unset "${!SLURM_@}" PMI_RANK PMI_SIZE
	command -v mpirun >/dev/null ||
		{ echo "# mpirun not found: scripts/install-deps.sh installs openmpi-bin" >&3; return 1; }
}

setup() {
	load helpers
	load ranks
	T=$BATS_TEST_TMPDIR
}

# The launcher runs that several tests read are made once per file, by
# the first test that needs them, into $BATS_FILE_TMPDIR/NAME (the ranks'
# standard output, sorted, in NAME.stdout; NAME.done: the run is whole).
# Each sets D to its folder.
#
# once NAME: D set; succeeds when NAME's run is to be made (D empty).
once() {
	D=$BATS_FILE_TMPDIR/$1
	[ -e "$D.done" ] && return 1
	rm -rf "$D" && mkdir -p "$D"
}
# made NAME: the ranks' standard output ($output) kept, the run whole.
made() {
	sort <<<"$output" >"$BATS_FILE_TMPDIR/$1.stdout"
	touch "$BATS_FILE_TMPDIR/$1.done"
}

# 4 ranks under perfex --json -o counts.%r.json, touching pages.
perfex_counts() {
	once perfex || return 0
	launch mpirun_np 4 "$PERFEX" -e page-faults -o "$D/counts.%r.json" --json \
		"$RANKS" "$PAGES" 0
	made perfex
}

# 4 ranks under pfmon -x, --outfile %h.%r.csv, touching pages.
pfmon_counts() {
	once pfmon || return 0
	launch mpirun_np 4 "$PFMON" -x, -e page-faults --outfile "$D/%h.%r.csv" \
		"$RANKS" "$PAGES" 0
	made pfmon
}

# 4 ranks sampled by pfmon (task-clock, every 1 ms of the rank's CPU
# time) spinning in rank_work(), the profile in FORMAT ($1: json, or
# csv with -x,) in smpl.%r.FORMAT.
pfmon_samples() {
	local fmt=$1 opt=--json
	once "smpl-$fmt" || return 0
	[ "$fmt" = csv ] && opt=-x,
	launch mpirun_np 4 "$PFMON" -e task-clock --long-smpl-periods=1000000 \
		--profile-top=0 "$opt" --outfile "$D/smpl.%r.$fmt" "$RANKS" 0 "$MS"
	made "smpl-$fmt"
}

# The files of ranks 0..3 of run folder $D: PREFIX.R.SUFFIX.
rank_files() {
	local r
	for r in 0 1 2 3; do echo "$D/$1.$r.$2"; done
}

# The job every file of FILE... records, when they all record the same
# one, a number (Open MPI's job id).
common_job() {
	local f jobs
	jobs=$(for f; do "$RPY" context "$f" | cut -d' ' -f4; done | sort -u)
	echo "jobs recorded: $jobs" >&2
	[[ $jobs =~ ^[0-9]+$ ]] && echo "$jobs"
}

@test "mpirun -np 4 perfex -o counts.%r.json --json: one file per rank, with its rank, size 4, the host and the job" {
	perfex_counts
	# the ranks ran as one MPI job of 4 (not 4 jobs of 1)
	diff <(ranks_lines 4 "$PAGES" 0) "$D.stdout"
	run -0 ls "$D"
	assert_output "$(printf 'counts.%d.json\n' 0 1 2 3)"
	mapfile -t files < <(rank_files counts json)
	job=$(common_job "${files[@]}")
	for r in 0 1 2 3; do
		check_context "${files[r]}" "$r" 4 "$job"
		run -0 "$RPY" get "${files[r]}" tool
		assert_output perfex
	done
}

@test "mpirun -np 4 perfex: rank R counts its (R+1) units of pages, within MPI's start-up allowance" {
	perfex_counts
	for r in 0 1 2 3; do
		check_faults "$D/counts.$r.json" "$r"
	done
}

# MPI_Init starts threads (Open MPI's progress threads): with the uprobe
# PMU's events inherited they failed with EFAULT and MPI_Init aborted.
@test "mpirun -np 4 perfex -e uprobe: MPI_Init and the ranks run unchanged, each rank counts its one rank_work call" {
	launch mpirun_np 4 "$PERFEX" -e "uprobe:$RANKS:rank_work" --json -o "$T/up.%r.json" \
		"$RANKS" 0 1
	diff <(ranks_lines 4 0 1) <(sort <<<"$output")
	for r in 0 1 2 3; do
		run -0 "$RPY" count "$T/up.$r.json" "uprobe:$RANKS:rank_work"
		assert_output 1
	done
}

@test "pfmon-report --json and -x, over the perfex ranks: sum, min, mean, max, the rank of the max (3) and the imbalance" {
	perfex_counts
	mapfile -t files < <(rank_files counts json)
	job=$(common_job "${files[@]}")
	for fmt in json csv; do
		opt=--json
		[ $fmt = csv ] && opt=-x,
		# in any order: the ranks are the files' own, not their places
		run -0 --separate-stderr "$REPORT" "$opt" "${files[3]}" "${files[1]}" "${files[0]}" "${files[2]}"
		echo "$output" >"$T/report.$fmt"
		check_report "$T/report.$fmt" page-faults "$job" "${files[@]}"
		read -r _ _ _ _ at imb _ <<<"$FIGURES"
		[ "$at" = 3 ]
	done
	# and the imbalance is the work's, 1.6 for 4 ranks, within what the
	# start-up allowance leaves: each rank adds 0 to MPI_STARTUP_FAULTS
	read -r lo hi < <(imbalance_band 4 "$PAGES" "$MPI_STARTUP_FAULTS")
	echo "known imbalance: between $lo and $hi"
	within "$imb" "$lo" "$hi"
}

@test "pfmon-report over the perfex ranks, text: what was merged, then the figures" {
	perfex_counts
	mapfile -t files < <(rank_files counts json)
	job=$(common_job "${files[@]}")
	read -r sum min mean max at imb minat < <(counts_figures page-faults "${files[@]}")
	run -0 --separate-stderr "$REPORT" "${files[@]}"
	echo "$output" >"$T/report.txt"
	cat "$T/report.txt"
	assert_line --index 0 "# pfmon-report: perfex counts of 4 ranks (the job has 4) on 1 host, job $job"
	"$RPY" line-has "$T/report.txt" page-faults "$sum" "$min" "$minat" "$mean~0.01" "$max" 3 "$imb~0.0006"
}

@test "pfmon-report -o FILE writes the report to FILE alone" {
	perfex_counts
	mapfile -t files < <(rank_files counts json)
	run -0 --separate-stderr "$REPORT" --json -o "$T/out.json" "${files[@]}"
	assert_output ""
	run -0 --separate-stderr "$REPORT" --json "${files[@]}"
	diff <(echo "$output") "$T/out.json"
}

@test "pfmon-report: the same rank twice (one file given twice under two names) is an error naming the file" {
	perfex_counts
	cp "$D/counts.2.json" "$T/again.json"
	run -1 --separate-stderr "$REPORT" "$D/counts.0.json" "$D/counts.2.json" "$T/again.json"
	echo "$stderr"
	[[ $stderr == *again.json* || $stderr == *counts.2.json* ]]
	assert_output ""
}

@test "mpirun -np 4 pfmon -x, --outfile %h.%r.csv: HOST.R.csv per rank, every row with rank, size, host and job" {
	pfmon_counts
	diff <(ranks_lines 4 "$PAGES" 0) "$D.stdout"
	run -0 ls "$D"
	assert_output "$(printf "$HOST.%d.csv\n" 0 1 2 3)"
	mapfile -t files < <(rank_files "$HOST" csv)
	job=$(common_job "${files[@]}")
	for r in 0 1 2 3; do
		check_context "${files[r]}" "$r" 4 "$job"
		check_faults "${files[r]}" "$r"
	done
}

@test "pfmon-report -x, and --json over pfmon's per-rank CSV counts: the figures of the files, the max at rank 3" {
	pfmon_counts
	mapfile -t files < <(rank_files "$HOST" csv)
	job=$(common_job "${files[@]}")
	for opt in "-x," --json; do
		run -0 --separate-stderr "$REPORT" "$opt" "${files[@]}"
		echo "$output" >"$T/report"
		check_report "$T/report" page-faults "$job" "${files[@]}"
		read -r _ _ _ _ at _ _ <<<"$FIGURES"
		[ "$at" = 3 ]
	done
}

@test "mpirun -np 4 pfmon sampling --json: per-rank profiles with rank_work on top, its samples shared as the work" {
	pfmon_samples json
	diff <(ranks_lines 4 0 "$MS") "$D.stdout"
	mapfile -t files < <(rank_files smpl json)
	job=$(common_job "${files[@]}")
	for r in 0 1 2 3; do
		check_context "${files[r]}" "$r" 4 "$job"
		run -0 "$RPY" profile "${files[r]}"
		echo "rank $r: ${lines[0]}"
		[[ ${lines[0]} == *" rank_work" ]]
	done
	shares_follow_work rank_work "${files[@]}"
}

@test "pfmon-report --json over the sampled ranks: one profile, rank_work on top with every rank's samples, shares as the work" {
	pfmon_samples json
	mapfile -t files < <(rank_files smpl json)
	job=$(common_job "${files[@]}")
	run -0 --separate-stderr "$REPORT" --json "${files[@]}"
	echo "$output" >"$T/report.json"
	# per event, the figures over the ranks' samples: the most in rank 3
	check_report "$T/report.json" task-clock "$job" "${files[@]}"
	read -r _ _ _ _ at _ _ <<<"$FIGURES"
	[ "$at" = 3 ]
	# the profile: rank_work first, every rank's samples of it
	check_report_profile "$T/report.json" rank_work "${files[@]}"
}

@test "pfmon-report over the sampled ranks, text: rank_work heads the profile with all its samples" {
	pfmon_samples json
	mapfile -t files < <(rank_files smpl json)
	total=0
	for f in "${files[@]}"; do total=$((total + $(samples_of "$f" rank_work))); done
	# the other functions the ranks were sampled in
	mapfile -t others < <(for f in "${files[@]}"; do "$RPY" profile "$f"; done |
		awk '$2 != "rank_work" { print $2 }' | sort -u)
	run -0 --separate-stderr "$REPORT" "${files[@]}"
	echo "$output" >"$T/report.txt"
	cat "$T/report.txt"
	run -0 "$RPY" first-of "$T/report.txt" rank_work "${others[@]}"
	assert_output rank_work
	"$RPY" line-has "$T/report.txt" rank_work "$total"
}

@test "mpirun -np 4 pfmon sampling -x,: every row with rank, size, host and job; pfmon-report -x, merges the CSV profiles" {
	pfmon_samples csv
	mapfile -t files < <(rank_files smpl csv)
	job=$(common_job "${files[@]}")
	for r in 0 1 2 3; do
		check_context "${files[r]}" "$r" 4 "$job"
		# the header comes first, and every row has the rank, the
		# size, the host and the job (check_context)
		run -0 head -1 "${files[r]}"
		assert_output "$SCHEMA_HEADER"
		run -0 csv_get "$(<"${files[r]}")" rank,size,host,job summary name=samples
		assert_output "$r,4,$HOST,$job"
	done
	shares_follow_work rank_work "${files[@]}"
	run -0 --separate-stderr "$REPORT" -x, "${files[@]}"
	echo "$output" >"$T/report.csv"
	check_report "$T/report.csv" task-clock "$job" "${files[@]}"
	check_report_profile "$T/report.csv" rank_work "${files[@]}"
}

@test "pfmon-report: the ranks of two jobs together are an error naming the file of the other job" {
	perfex_counts
	mkdir "$T/other"
	launch mpirun_np 4 "$PERFEX" -e page-faults --json -o "$T/other/counts.%r.json" true
	run -1 --separate-stderr "$REPORT" "$D/counts.0.json" "$D/counts.1.json" "$D/counts.2.json" \
		"$T/other/counts.3.json"
	echo "$stderr"
	[[ $stderr == *other/counts.3.json* ]]
	assert_output ""
}

@test "pfmon-report: counts and sampling outputs together are an error naming a file" {
	perfex_counts
	counts=$D/counts.0.json
	pfmon_samples json
	run -1 --separate-stderr "$REPORT" "$counts" "$D/smpl.1.json"
	echo "$stderr"
	[[ $stderr == *counts.0.json* || $stderr == *smpl.1.json* ]]
	assert_output ""
}

@test "under mpirun: %j is Open MPI's job id, %p the tool's pid, %h the host, %% a %" {
	mkdir "$T/out"
	# sh records its pid and the job, then becomes perfex (same pid)
	launch mpirun_np 2 sh -c 'echo "$$ $OMPI_MCA_ess_base_jobid" >"$0/env.$OMPI_COMM_WORLD_RANK" &&
		exec "$1" -e page-faults --json -o "$0/%j.%p.%h.100%%.%r.json" true' "$T/out" "$PERFEX"
	for r in 0 1; do
		read -r pid job <"$T/out/env.$r"
		echo "rank $r: pid $pid, OMPI_MCA_ess_base_jobid $job"
		[[ $job =~ ^[0-9]+$ ]]
		f="$T/out/$job.$pid.$HOST.100%.$r.json"
		[ -s "$f" ]
		check_context "$f" "$r" 2 "$job"
	done
	# and nothing else
	run -0 ls "$T/out"
	[ "${#lines[@]}" = 4 ]
}

# (perfex's text, as perf stat's, opens with an empty line)
@test "under mpirun, the text reports of perfex and pfmon start with the rank's line" {
	launch mpirun_np 2 sh -c 'echo "$OMPI_MCA_ess_base_jobid" >"$0/job" &&
		"$1" -e page-faults -o "$0/perfex.%r.txt" true &&
		exec "$2" -e page-faults --outfile "$0/pfmon.%r.txt" true' "$T" "$PERFEX" "$PFMON"
	job=$(<"$T/job")
	for r in 0 1; do
		for tool in perfex pfmon; do
			run -0 grep -m1 . "$T/$tool.$r.txt"
			assert_output "# rank $r of 2 on $HOST, job $job"
		done
	done
}

@test "without a launcher: rank 0 of 1, no job, no rank line in the text" {
	local -a alone=(env -u OMPI_COMM_WORLD_RANK -u OMPI_COMM_WORLD_SIZE -u PMI_RANK -u PMI_SIZE
		-u SLURM_PROCID -u SLURM_NTASKS -u SLURM_JOB_ID -u OMPI_MCA_ess_base_jobid)
	run -0 "${alone[@]}" "$PERFEX" -e page-faults --json -o "$T/solo.%r.json" true
	check_context "$T/solo.0.json" 0 1 -
	run -0 --separate-stderr "${alone[@]}" "$PERFEX" -e page-faults true
	[[ $stderr != *"# rank"* ]]
	run -0 --separate-stderr "${alone[@]}" "$PFMON" -e page-faults true
	[[ $output != *"# rank"* ]]
}

@test "a bad file name pattern is a usage error: exit 2, the command not run, no file" {
	mkdir "$T/cwd" && cd "$T/cwd"
	for pat in 'c.%q' 'c.%' 'c.%j'; do
		for i in 0 1 2; do
			case $i in
			0) tool=("$PERFEX" -e page-faults -o) ;;
			1) tool=("$PFMON" -e page-faults --outfile) ;;
			2) tool=("$PFMON" -e task-clock --long-smpl-periods=1000000 --smpl-outfile) ;;
			esac
			run -2 --separate-stderr env -u SLURM_JOB_ID -u OMPI_MCA_ess_base_jobid \
				"${tool[@]}" "$pat" touch ran
			echo "${tool[*]} '$pat': $stderr"
			[[ $stderr == *"$pat"* ]]
			[ ! -e ran ]
		done
	done
	# the same under mpirun, whose status is the ranks'
	run -2 --separate-stderr mpirun_np 2 "$PERFEX" -e page-faults -o 'c.%q.%r' touch ran
	[ ! -e ran ]
	run -0 ls -A
	assert_output ""
}
