#!/bin/bash
# A one-node Slurm cluster on this machine, for the per-rank tests
# (tests/cli/slurm.bats): its own munged, slurmctld and slurmd, run as
# root, with their configuration, munge key and socket, state, spool, pid
# files and logs in one scratch folder.  A system Slurm or munge (its
# /etc/slurm, /etc/munge, its daemons if they run) is neither read nor
# changed: the daemons and clients find this cluster through SLURM_CONF,
# the munge socket through AuthInfo in that file, and the ports are ones
# that were free.
#
#   scripts/slurm.sh up [DIR]     write the configuration into DIR (made;
#                                 empty if it exists), start munged,
#                                 slurmctld and slurmd, wait until sinfo
#                                 shows the node idle, print
#                                 SLURM_CONF=DIR/slurm.conf
#   scripts/slurm.sh down [DIR]   stop what up started in DIR, remove DIR
#
# DIR defaults to /tmp/px-slurm; it must be short (munge's socket lives
# in it) and every folder above it searchable by all (munged checks).
# Then, for example:
#   SLURM_CONF=DIR/slurm.conf srun -n 2 hostname
#
# The configuration is the least Slurm runs with: the node is this host as
# `slurmd -C` describes it (name, CPUs, memory), at 127.0.0.1; one
# partition; ProctrackType=proctrack/linuxproc and TaskPlugin=task/none,
# so no cgroup is made or needed (slurmd still loads its cgroup plugin,
# which makes nothing then); no accounting.  The munge key is made for
# the cluster, in DIR.  SLURM_UP_TIMEOUT
# (seconds, default 60) bounds the wait for the idle node: on a loaded
# machine the daemons take longer to start, never that long.
set -u

MARK=.px-slurm		# up's mark in DIR: down removes no folder without it

die() {
	echo "slurm.sh: $*" >&2
	exit 1
}

usage() {
	echo "usage: scripts/slurm.sh up|down [DIR]" >&2
	exit 2
}

# Two TCP ports nobody listens on (the kernel's choice): slurmctld's and
# slurmd's, so that this cluster runs beside a system one or another
# test run's.
free_ports() {
	python3 -c '
import socket
socks = [socket.socket() for _ in range(2)]
for s in socks:
    s.bind(("", 0))
print(*(s.getsockname()[1] for s in socks))'
}

# write_config DIR NODE_LINE CTLD_PORT SLURMD_PORT
write_config() {
	local dir=$1 node_line=$2 ctld_port=$3 slurmd_port=$4 node
	node=${node_line#NodeName=}
	node=${node%% *}
	cat >"$dir/slurm.conf" <<EOF
# written by scripts/slurm.sh up: a one-node cluster for the tests
ClusterName=pxtest
SlurmctldHost=$node(127.0.0.1)
SlurmctldPort=$ctld_port
SlurmdPort=$slurmd_port
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
AuthInfo=socket=$dir/munge/munge.socket
CredType=cred/munge
StateSaveLocation=$dir/state
SlurmdSpoolDir=$dir/spool
SlurmctldPidFile=$dir/slurmctld.pid
SlurmdPidFile=$dir/slurmd.pid
SlurmctldLogFile=$dir/slurmctld.log
SlurmdLogFile=$dir/slurmd.log
SlurmctldDebug=info
SlurmdDebug=info
PlugStackConfig=$dir/plugstack.conf
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
JobCompType=jobcomp/none
SwitchType=switch/none
MpiDefault=none
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU
ReturnToService=2
MailProg=/bin/true
$node_line NodeAddr=127.0.0.1 State=UNKNOWN
PartitionName=test Nodes=$node Default=YES MaxTime=INFINITE State=UP OverSubscribe=YES
EOF
	# read from slurm.conf's folder in place of /etc/slurm's: no cgroup
	# plugin is configured, so none is needed; should slurmd load one
	# where cgroup v2 is mounted without systemd, it makes its own scope
	cat >"$dir/cgroup.conf" <<EOF
IgnoreSystemdOnFailure=yes
EOF
	: >"$dir/plugstack.conf"
}

# wait_idle NODE LIMIT: until sinfo shows NODE idle, at most LIMIT s
# (IDLE_STATE: the last state it showed).
wait_idle() {
	local node=$1 limit=$2 start=$SECONDS
	IDLE_STATE=
	while ((SECONDS - start < limit)); do
		IDLE_STATE=$(sinfo -h -N -n "$node" -o %T 2>/dev/null)
		[[ $IDLE_STATE == idle ]] && return 0
		sleep 0.2
	done
	return 1
}

show_logs() {
	local f
	for f in "$1"/munged.log "$1"/slurmctld.log "$1"/slurmd.log "$1"/*.out; do
		[[ -s $f ]] || continue
		echo "slurm.sh: the end of $f:" >&2
		tail -n 15 "$f" | sed 's/^/  /' >&2
	done
}

up() {
	local dir=$1 node_line node ports
	[[ $(id -u) == 0 ]] || die "must run as root (the daemons run as root)"
	for c in munged mungekey slurmctld slurmd sinfo python3; do
		command -v "$c" >/dev/null ||
			die "$c not found (scripts/install-deps.sh installs munge and slurm-wlm)"
	done
	if [[ -e $dir ]]; then
		[[ -d $dir && -z $(ls -A "$dir") ]] || die "$dir exists and is not an empty folder"
	else
		mkdir -p "$dir" || exit 1
	fi
	touch "$dir/$MARK"
	# munged wants its socket's folders searchable by all and writable
	# by its owner only
	chmod 755 "$dir" || exit 1
	mkdir -m 755 "$dir/munge" &&
		mkdir -m 700 "$dir/state" "$dir/spool" || exit 1

	node_line=$(slurmd -C 2>/dev/null | grep '^NodeName=') ||
		die "slurmd -C did not describe this node"
	node=${node_line#NodeName=}
	node=${node%% *}
	ports=$(free_ports) || die "no free TCP ports"
	# shellcheck disable=SC2086 # two words
	write_config "$dir" "$node_line" $ports
	export SLURM_CONF=$dir/slurm.conf

	# the daemons' output goes to their logs, never to our caller's
	# files (bats waits for every holder of its output to close it)
	# this cluster's own key (the system's /etc/munge is not used)
	mungekey -c -k "$dir/munge/munge.key" >"$dir/mungekey.out" 2>&1 ||
		failed "$dir" "mungekey failed"
	munged --socket="$dir/munge/munge.socket" --key-file="$dir/munge/munge.key" \
		--pid-file="$dir/munge/munged.pid" --seed-file="$dir/munge/munged.seed" \
		--log-file="$dir/munged.log" </dev/null >"$dir/munged.out" 2>&1 ||
		failed "$dir" "munged failed to start"
	slurmctld </dev/null >"$dir/slurmctld.out" 2>&1 ||
		failed "$dir" "slurmctld failed to start"
	slurmd -N "$node" </dev/null >"$dir/slurmd.out" 2>&1 ||
		failed "$dir" "slurmd failed to start"
	wait_idle "$node" "${SLURM_UP_TIMEOUT:-60}" ||
		failed "$dir" "node $node is not idle after ${SLURM_UP_TIMEOUT:-60}s (state: ${IDLE_STATE:-none})"
	echo "SLURM_CONF=$SLURM_CONF"
}

# failed DIR MESSAGE: up did not get to the end: the logs shown, what it
# started stopped, DIR removed, MESSAGE, exit 1.
failed() {
	show_logs "$1"
	down "$1"
	die "$2"
}

# stop_pidfile FILE NAME: end the process FILE names if it is NAME
# (a number reused by another process is left alone).
stop_pidfile() {
	local pid
	pid=$(cat "$1" 2>/dev/null) || return 0
	[[ $pid =~ ^[0-9]+$ ]] || return 0
	stop_pid "$pid" "$2"
}

# ended PID: PID is gone, or a zombie not yet reaped (by init: the
# daemons are not our children) with all its threads ended.  (A daemon's
# main thread may end before the threads that finish its work: slurmctld
# saves its state on SIGTERM.)
ended() {
	local t state
	for t in /proc/"$1"/task/*/stat; do
		state=$(cat "$t" 2>/dev/null) || continue
		state=${state##*) }
		[[ ${state%% *} == [ZX] ]] || return 1
	done
	return 0
}

# stop_pid PID NAME: SIGTERM, up to 10 s to end, then SIGKILL.
stop_pid() {
	local pid=$1 name=$2 comm i
	comm=$(cat /proc/"$pid"/comm 2>/dev/null) || return 0
	[[ $comm == "$name" ]] || return 0
	kill -TERM "$pid" 2>/dev/null
	for ((i = 0; i < 100; i++)); do
		ended "$pid" && return 0
		sleep 0.1
	done
	echo "slurm.sh: $name ($pid) did not end on SIGTERM: killed" >&2
	kill -KILL "$pid" 2>/dev/null
}

# The step daemons slurmd started for this cluster (they carry its
# SLURM_CONF, which is ours alone), left behind by a step that hung.
own_stepds() {
	local conf="SLURM_CONF=$1/slurm.conf" p
	for p in /proc/[0-9]*; do
		[[ $(cat "$p/comm" 2>/dev/null) == slurmstepd ]] || continue
		{ tr '\0' '\n' <"$p/environ"; } 2>/dev/null | grep -qxF -- "$conf" &&
			echo "${p#/proc/}"
	done
}

down() {
	local dir=$1 pid
	[[ -e $dir ]] || return 0
	[[ -e $dir/$MARK ]] || die "$dir was not made by scripts/slurm.sh up: left alone"
	stop_pidfile "$dir/slurmd.pid" slurmd
	for pid in $(own_stepds "$dir"); do
		stop_pid "$pid" slurmstepd
	done
	stop_pidfile "$dir/slurmctld.pid" slurmctld
	stop_pidfile "$dir/munge/munged.pid" munged
	rm -rf "$dir"
}

# The daemons inherit our open files: none but the standard three, so
# that none of them holds a caller's pipe (bats' output) open.  (Not the
# one bash reads this script from.)
self=$(readlink -f "$0")
for fd in "/proc/$$/fd/"*; do
	fd=${fd##*/}
	((fd > 2)) || continue
	[[ $(readlink -f "/proc/$$/fd/$fd" 2>/dev/null) == "$self" ]] && continue
	eval "exec $fd>&-" 2>/dev/null
done

[[ $# -ge 1 && $# -le 2 ]] || usage
dir=${2:-/tmp/px-slurm}
case $1 in
up) up "$dir" ;;
down) down "$dir" ;;
*) usage ;;
esac
