#!/bin/sh
# A private single-node Slurm cluster on localhost for one command: its own munge key and
# munged, its own slurm.conf, spool, state and logs in a temporary directory, free ports so it
# never meets a system Slurm. Usage: slurm-local.sh COMMAND [ARGS...]. Runs COMMAND with
# SLURM_CONF, CLUSTER_DIR (a work directory), CLUSTER_PARTITION and CLUSTER_LOGS exported,
# then stops every daemon it started by its PID (also on failure, SIGINT and SIGTERM) and
# removes the directory. Exit status: COMMAND's, or 1 when the cluster does not come up.
# Needs slurm-wlm, munge and python3 (Debian 12: Slurm 22.05). Runs as root (CI) or as a
# plain user (SlurmUser and SlurmdUser are the caller); no systemd, no terminal.
# CLUSTER_KEEP=1 keeps the directory for a post-mortem.
# shellcheck disable=SC2317 # stop and cleanup run from the traps
set -u

[ $# -ge 1 ] || { echo "usage: slurm-local.sh COMMAND [ARGS...]" >&2; exit 2; }
for p in munged slurmctld slurmd sbatch sinfo squeue scancel python3; do
    command -v "$p" >/dev/null 2>&1 || [ -x "/usr/sbin/$p" ] || {
        echo "slurm-local: error: '$p' not found (run 'make deps': slurm-wlm, munge)" >&2
        exit 1
    }
done
PATH=$PATH:/usr/sbin:/sbin
now() { date +%s.%N; }
since() { awk -v a="$1" -v b="$(now)" 'BEGIN { printf "%.2f", b - a }'; }
# within START SECONDS: true while less than SECONDS have passed since START (the waits below
# poll until a deadline in time, not a count of polls: on a loaded machine each poll's own
# commands take long, and a start that takes a few seconds on an idle one can take tens)
within() { awk -v a="$1" -v b="$(now)" -v t="$2" 'BEGIN { exit !(b - a < t) }'; }
# how long munged and the node may take to come up
MUNGE_WAIT_S=${CLUSTER_MUNGE_WAIT_S:-60}
NODE_WAIT_S=${CLUSTER_NODE_WAIT_S:-120}
t_start=$(now)

# munged insists that every directory above its socket be searchable by all: 755, not 700
dir=$(mktemp -d "${TMPDIR:-/tmp}/roofline-slurm.XXXXXX") || exit 1
chmod 755 "$dir"
mkdir -p "$dir/munge" "$dir/state" "$dir/spool" "$dir/log" "$dir/work"
chmod 755 "$dir/munge" "$dir/spool" "$dir/work"
pid_munged=
pid_ctld=
pid_slurmd=
pid_cmd=
status=1
cluster_failed=0

# stop PID NAME: SIGTERM, up to 10 s for it to exit, then SIGKILL
stop() {
    [ -n "$1" ] || return 0
    kill -0 "$1" 2>/dev/null || return 0
    kill -TERM "$1" 2>/dev/null
    i=0
    while kill -0 "$1" 2>/dev/null && [ "$i" -lt 100 ]; do
        sleep 0.1
        i=$((i + 1))
    done
    if kill -0 "$1" 2>/dev/null; then
        echo "slurm-local: $2 (pid $1) ignored SIGTERM for 10 s: SIGKILL" >&2
        kill -KILL "$1" 2>/dev/null
    fi
    wait "$1" 2>/dev/null
}

# leftovers: the PIDs of processes started under this cluster that are still alive: job
# steps (slurmd starts slurmstepd in its own session, with slurmd's environment) and the jobs'
# processes (sbatch passes on the submitter's). All of them, and nothing else, were started
# with this cluster's SLURM_CONF; this script's own environment did not have it at exec.
leftovers() {
    for p in /proc/[0-9]*; do
        [ "${p#/proc/}" = $$ ] && continue
        grep -qzxF "SLURM_CONF=$dir/slurm.conf" "$p/environ" 2>/dev/null && echo "${p#/proc/}"
    done
}

cleanup() {
    # ignore further signals: timeout(1) signals the script and then its whole process group,
    # and a second SIGTERM must not cut the cleanup short (every step here is bounded)
    trap '' INT TERM
    trap - EXIT
    stop "$pid_cmd" "the command"
    if [ -n "$pid_ctld" ] && kill -0 "$pid_ctld" 2>/dev/null; then
        # cancel what is left so that no slurmstepd outlives its slurmd
        timeout 5 scancel --quiet --user="$(id -un)" 2>/dev/null
        i=0
        while [ -n "$(timeout 2 squeue -h -o %i 2>/dev/null)" ] && [ "$i" -lt 25 ]; do
            sleep 0.2
            i=$((i + 1))
        done
    fi
    stop "$pid_slurmd" slurmd
    stop "$pid_ctld" slurmctld
    stop "$pid_munged" munged
    # a step whose job was not cancelled (slurmctld already gone) waits for its slurmd for
    # ever and ignores SIGTERM: SIGTERM, then SIGKILL for what is left after 2 s
    left=$(leftovers)
    if [ -n "$left" ]; then
        echo "slurm-local: stopping what outlived the daemons: $(echo "$left" | tr "\n" " ")" >&2
        # shellcheck disable=SC2086
        kill -TERM $left 2>/dev/null
        sleep 2
        left=$(leftovers)
        # shellcheck disable=SC2086
        [ -z "$left" ] || kill -KILL $left 2>/dev/null
    fi
    if [ "$cluster_failed" = 1 ]; then
        for f in "$dir"/log/*.log; do
            [ -s "$f" ] || continue
            echo "== tail of $f" >&2
            tail -n 15 "$f" >&2
        done
    fi
    if [ "${CLUSTER_KEEP:-0}" = 1 ]; then
        echo "slurm-local: kept $dir" >&2
    else
        rm -rf "$dir"
    fi
    exit "$status"
}
trap cleanup EXIT
trap 'status=130; exit 130' INT
trap 'status=143; exit 143' TERM

fail() {
    echo "slurm-local: error: $*" >&2
    status=1
    cluster_failed=1
    exit 1
}

# 1. munge: a fresh key, munged in the foreground (so that $! is its PID) on its own socket
dd if=/dev/urandom of="$dir/munge/munge.key" bs=1024 count=1 2>/dev/null ||
    fail "cannot write a munge key"
chmod 600 "$dir/munge/munge.key"
sock="$dir/munge/munge.socket"
munged --foreground --socket="$sock" --key-file="$dir/munge/munge.key" \
    --pid-file="$dir/munge/munged.pid" --seed-file="$dir/munge/seed" \
    --log-file="$dir/log/munged.log" >"$dir/log/munged.log" 2>&1 &
pid_munged=$!
# up when a credential it encodes decodes again: polled, MUNGE_WAIT_S at most
t_munge=$(now)
until [ -S "$sock" ] &&
    timeout 5 munge -n -S "$sock" 2>/dev/null | timeout 5 unmunge -S "$sock" >/dev/null 2>&1; do
    kill -0 "$pid_munged" 2>/dev/null || fail "munged exited (log: $dir/log/munged.log)"
    within "$t_munge" "$MUNGE_WAIT_S" ||
        fail "munged does not answer on $sock after $MUNGE_WAIT_S s"
    sleep 0.1
done
echo "slurm-local: munged answered after $(since "$t_munge") s (at most $MUNGE_WAIT_S)"

# 2. slurm.conf: the node as slurmd sees it (CPUs, sockets, memory), two free TCP ports
node_hw=$(timeout 10 slurmd -C 2>/dev/null | head -n 1 | sed -E 's/^NodeName=[^ ]+ //')
case "$node_hw" in
*CPUs=*RealMemory=*) ;;
*) fail "'slurmd -C' did not describe this node: '$node_hw'" ;;
esac
user=$(id -un)
: >"$dir/plugstack.conf"
SLURM_CONF=$dir/slurm.conf
CLUSTER_DIR=$dir/work
CLUSTER_PARTITION="test"
CLUSTER_LOGS=$dir/log
export SLURM_CONF CLUSTER_DIR CLUSTER_PARTITION CLUSTER_LOGS

write_conf() {
    cat >"$dir/slurm.conf" <<EOF
# private test cluster written by tests/cluster/slurm-local.sh
ClusterName=roofline-test
SlurmctldHost=localhost(127.0.0.1)
SlurmctldPort=$port_ctld
SlurmdPort=$port_slurmd
SlurmUser=$user
SlurmdUser=$user
AuthType=auth/munge
CredType=cred/munge
AuthInfo=socket=$sock
StateSaveLocation=$dir/state
SlurmdSpoolDir=$dir/spool
SlurmctldPidFile=$dir/slurmctld.pid
SlurmdPidFile=$dir/slurmd.pid
SlurmctldLogFile=$dir/log/slurmctld.log
SlurmdLogFile=$dir/log/slurmd.log
SlurmctldDebug=info
SlurmdDebug=info
PlugStackConfig=$dir/plugstack.conf
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SwitchType=switch/none
MpiDefault=none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
JobCompType=jobcomp/none
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU
ReturnToService=2
MailProg=/bin/true
# keep finished jobs: sbatch --wait then polls every 2 s (not 2, 8, 32 s) and sees every exit
MinJobAge=0
SchedulerParameters=batch_sched_delay=0,sched_min_interval=0
NodeName=localnode NodeAddr=127.0.0.1 NodeHostname=localhost $node_hw State=UNKNOWN
PartitionName=test Nodes=localnode Default=YES MaxTime=60 State=UP
EOF
}

# 3. the daemons in the foreground of their own background jobs, so that $! is their PID;
# up when the node is idle: polled, NODE_WAIT_S at most. Returns 2 when a port was taken
# meanwhile (the ports are free when chosen, not reserved), after stopping both daemons.
start_slurm() {
    slurmctld -D -i >>"$dir/log/slurmctld.out" 2>&1 &
    pid_ctld=$!
    slurmd -D -N localnode >>"$dir/log/slurmd.out" 2>&1 &
    pid_slurmd=$!
    t_node=$(now)
    state=
    while within "$t_node" "$NODE_WAIT_S"; do
        if ! kill -0 "$pid_ctld" 2>/dev/null || ! kill -0 "$pid_slurmd" 2>/dev/null; then
            if grep -q -s 'Address already in use' "$dir"/log/slurm*; then
                stop "$pid_slurmd" slurmd
                stop "$pid_ctld" slurmctld
                pid_slurmd=
                pid_ctld=
                return 2
            fi
            kill -0 "$pid_ctld" 2>/dev/null ||
                fail "slurmctld exited ($(tail -n 3 "$dir/log/slurmctld.out"))"
            fail "slurmd exited ($(tail -n 3 "$dir/log/slurmd.out"))"
        fi
        state=$(timeout 5 sinfo -h -n localnode -o %t 2>/dev/null)
        if [ "$state" = idle ]; then
            echo "slurm-local: node idle after $(since "$t_node") s (at most $NODE_WAIT_S)"
            return 0
        fi
        sleep 0.2
    done
    fail "node not idle after $NODE_WAIT_S s (state '$state')"
}

for attempt in 1 2 3; do
    ports=$(timeout 10 python3 -c '
import socket
s = [socket.socket() for _ in range(2)]
for x in s:
    x.bind(("", 0))
print(*[x.getsockname()[1] for x in s])
for x in s:
    x.close()') || fail "cannot find free ports"
    port_ctld=${ports% *}
    port_slurmd=${ports#* }
    write_conf
    start_slurm && break
    echo "slurm-local: port $port_ctld or $port_slurmd taken meanwhile (attempt $attempt)" >&2
    rm -f "$dir"/log/slurm*
    [ $attempt = 3 ] && fail "no free ports in 3 attempts"
done
echo "slurm-local: cluster up in $(since "$t_start") s (slurmctld port $port_ctld, slurmd port \
$port_slurmd, node $(echo "$node_hw" | sed -E 's/.*(CPUs=[0-9]+).*(RealMemory=[0-9]+).*/\1 \2/'))"

# 5. the command, in the background so that a signal reaches the trap at once (a shell runs
# traps only between foreground commands); its status is the script's
"$@" &
pid_cmd=$!
wait "$pid_cmd"
status=$?
pid_cmd=
exit "$status"
