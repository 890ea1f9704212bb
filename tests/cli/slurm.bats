#!/usr/bin/env bats
# Per-rank runs under Slurm: a one-node cluster on this machine, Debian's
# slurm-wlm and munge started for this file by scripts/slurm.sh (its own
# configuration, key, sockets and ports in a scratch folder) and stopped
# after it.  srun runs 2 tasks under pfmon or perfex, each writing its
# own file (%h, %r, %j) that records its rank, the size, the host and the
# Slurm job; pfmon-report merges them.  Task R does R+1 units of work
# (tests/cli/ranks.bash), so the rank of the max and the imbalance are
# known.
bats_require_minimum_version 1.5.0

setup_file() {
	# this file's cluster alone: nothing from a job or launcher these
	# tests may themselves run under
	unset "${!SLURM_@}" PMI_RANK PMI_SIZE
	# short, and searchable by all (munged's socket lives in it)
	SLURM_DIR=$(mktemp -d /tmp/px-slurm.XXXXXX)
	export SLURM_DIR
	timeout -k 5 120 "$BATS_TEST_DIRNAME/../../scripts/slurm.sh" up "$SLURM_DIR" 3>&- || {
		echo "# scripts/slurm.sh up failed (above)" >&3
		return 1
	}
	export SLURM_CONF=$SLURM_DIR/slurm.conf
}

teardown_file() {
	"$BATS_TEST_DIRNAME/../../scripts/slurm.sh" down "$SLURM_DIR" 3>&-
}

setup() {
	load helpers
	load ranks
	T=$BATS_TEST_TMPDIR
	# the tasks' working folder: nothing but what they write
	mkdir "$T/run" && cd "$T/run" || return 1
}

# srun_n N ARG...: ARG... as N tasks of one Slurm job step.
srun_n() {
	local n=$1
	shift
	timeout -k 5 "$LAUNCH_TIMEOUT" srun -n "$n" "$@" 3>&-
}

# A task's command, run by srun (bash -c "$TASK" TOOL ARG...): records the
# job's id and the task's pid in job.RANK ("JOB PID"), then becomes TOOL
# ARG... (the same process: %p is that pid).  TASK_SCALED does the same
# with its last argument N made N*(RANK+1), so that task R does R+1 units
# of a workload that is not an MPI program.
TASK='echo "$SLURM_JOB_ID $$" >"job.$SLURM_PROCID" && exec "$0" "$@"'
TASK_SCALED='echo "$SLURM_JOB_ID $$" >"job.$SLURM_PROCID" &&
	exec "$0" "${@:1:$#-1}" "$((${@: -1} * (SLURM_PROCID + 1)))"'

# The job id every task recorded, when they agree on one.
job_of_tasks() {
	local jobs
	jobs=$(cut -d' ' -f1 job.* | sort -u)
	echo "jobs recorded: $jobs" >&2
	[[ $jobs =~ ^[0-9]+$ ]] && echo "$jobs"
}

@test "slurm.sh up: the node is idle in its partition, srun -n 2 runs 2 tasks here" {
	run -0 sinfo -h -o '%P %T %D'
	assert_output "test* idle 1"
	launch srun_n 2 hostname
	assert_output "$(printf '%s\n%s' "$HOST" "$HOST")"
}

@test "srun -n 2 pfmon -x, --outfile=%h.%r.csv: two files, ranks 0 and 1 of 2, the host and the job's id in every row" {
	launch srun_n 2 bash -c "$TASK_SCALED" "$PFMON" -x, -e page-faults \
		--outfile=%h.%r.csv "$W/touch_pages" 3000
	job=$(job_of_tasks)
	run -0 ls
	assert_output "$(printf '%s\n' "$HOST.0.csv" "$HOST.1.csv" job.0 job.1 | sort)"
	for r in 0 1; do
		check_context "$HOST.$r.csv" "$r" 2 "$job"
		# touch_pages (r+1)*3000, within its own start-up allowance
		v=$("$RPY" count "$HOST.$r.csv" page-faults)
		echo "rank $r: $v page faults"
		[ "$v" -ge $(((r + 1) * 3000)) ] && [ "$v" -le $(((r + 1) * 3000 + STARTUP_FAULTS)) ]
	done
}

@test "pfmon-report over the Slurm tasks' CSV files: the figures, the max at rank 1, in JSON, CSV and text" {
	launch srun_n 2 bash -c "$TASK_SCALED" "$PFMON" -x, -e page-faults \
		--outfile=%h.%r.csv "$W/touch_pages" 3000
	job=$(job_of_tasks)
	files=("$HOST.0.csv" "$HOST.1.csv")
	for opt in --json "-x,"; do
		run -0 --separate-stderr "$REPORT" "$opt" "${files[1]}" "${files[0]}"
		echo "$output" >"$T/report"
		check_report "$T/report" page-faults "$job" "${files[@]}"
		read -r _ _ _ _ at _ _ <<<"$FIGURES"
		[ "$at" = 1 ]
	done
	read -r sum min mean max at imb minat < <(counts_figures page-faults "${files[@]}")
	run -0 --separate-stderr "$REPORT" "${files[@]}"
	echo "$output" >"$T/report.txt"
	cat "$T/report.txt"
	assert_line --index 0 "# pfmon-report: pfmon counts of 2 ranks (the job has 2) on 1 host, job $job"
	"$RPY" line-has "$T/report.txt" page-faults "$sum" "$min" 0 "$mean~0.01" "$max" 1 "$imb~0.0006"
}

@test "srun --mpi=pmix -n 2 perfex -o counts.%j.%r.json: the MPI program's ranks are the tasks, %j the Slurm job" {
	launch srun_n 2 --mpi=pmix bash -c "$TASK" "$PERFEX" -e page-faults \
		-o 'counts.%j.%r.json' --json "$RANKS" "$PAGES" 0
	job=$(job_of_tasks)
	# MPI's ranks are the tasks: rank R touched (R+1)*PAGES pages
	run -0 sort <<<"$output"
	assert_output "$(ranks_lines 2 "$PAGES" 0)"
	for r in 0 1; do
		f=counts.$job.$r.json
		check_context "$f" "$r" 2 "$job"
		check_faults "$f" "$r"
	done
	run -0 --separate-stderr "$REPORT" --json "counts.$job.0.json" "counts.$job.1.json"
	echo "$output" >"$T/report.json"
	check_report "$T/report.json" page-faults "$job" "counts.$job.0.json" "counts.$job.1.json"
	read -r _ _ _ _ at imb _ <<<"$FIGURES"
	[ "$at" = 1 ]
	read -r lo hi < <(imbalance_band 2 "$PAGES" "$MPI_STARTUP_FAULTS")
	echo "imbalance $imb, known: between $lo and $hi"
	within "$imb" "$lo" "$hi"
}

@test "srun --mpi=pmix -n 2 pfmon sampling --outfile=%h.%r.json: rank_work on top, shared as the work; pfmon-report merges the profiles" {
	launch srun_n 2 --mpi=pmix bash -c "$TASK" "$PFMON" -e task-clock \
		--long-smpl-periods=1000000 --profile-top=0 --json --outfile=%h.%r.json "$RANKS" 0 "$MS"
	job=$(job_of_tasks)
	files=("$HOST.0.json" "$HOST.1.json")
	for r in 0 1; do
		check_context "${files[r]}" "$r" 2 "$job"
		run -0 "$RPY" profile "${files[r]}"
		echo "rank $r: ${lines[0]}"
		[[ ${lines[0]} == *" rank_work" ]]
	done
	shares_follow_work rank_work "${files[@]}"
	run -0 --separate-stderr "$REPORT" --json "${files[@]}"
	echo "$output" >"$T/report.json"
	check_report "$T/report.json" task-clock "$job" "${files[@]}"
	check_report_profile "$T/report.json" rank_work "${files[@]}"
}

@test "%p under srun is the tool's pid, %% a %" {
	launch srun_n 2 bash -c "$TASK" "$PERFEX" -e page-faults \
		-o '%p.100%%.%r.json' --json "$W/touch_pages" 10
	for r in 0 1; do
		read -r job pid <"job.$r"
		check_context "$pid.100%.$r.json" "$r" 2 "$job"
	done
}
