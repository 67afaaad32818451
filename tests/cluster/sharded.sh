#!/bin/sh
# Sharded runs merged must equal one unsharded run byte for byte: each workload runs as a
# Slurm array job (sbatch --array --wait, one task per shard) on the cluster of slurm-local.sh
# and with GNU parallel, then its shards are merged and compared (cmp) with the unsharded
# output. Workloads: the capacity planner (plan --shard I/N -o json, plan merge) and a stand-in
# (standin.sh: roofline analyze over every GPU x two models, merged by a numeric sort) that
# tells a broken cluster from a planner whose shards disagree. Prints "ok NAME" / "not ok
# NAME", the timings, and last "N passed, N failed".
# Environment: ROOFLINE, SLURM_CONF, CLUSTER_DIR, CLUSTER_PARTITION (from slurm-local.sh);
# CLUSTER_SHARDS (default 4); PLAN_QUESTION (default reports/chat-service.yaml);
# CLUSTER_CORRUPT=I changes one digit of shard I after each run, to see the check fail (the
# stand-in numbers its shards 1..N, the planner 0..N-1: 1..N-1 hit both).
set -u
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
: "${ROOFLINE:?}" "${SLURM_CONF:?}" "${CLUSTER_DIR:?}" "${CLUSTER_PARTITION:?}"
ROOFLINE_DATA=${ROOFLINE_DATA:-$top}
export ROOFLINE ROOFLINE_DATA
n=${CLUSTER_SHARDS:-4}
case "$n" in
'' | *[!0-9]* | 0) echo "error: CLUSTER_SHARDS must be a count, got '$n'" >&2; exit 2 ;;
esac
corrupt=${CLUSTER_CORRUPT:-}
passed=0
failed=0

# bg COMMAND...: runs COMMAND as a child this shell can kill by its PID when stopped
# (slurm-local.sh stops this script with SIGTERM; a shell waiting on a foreground command
# would run its trap only after it, leaving an sbatch polling a cluster that is gone)
child=
trap '[ -n "$child" ] && kill -TERM "$child" 2>/dev/null; exit 143' TERM
trap '[ -n "$child" ] && kill -TERM "$child" 2>/dev/null; exit 130' INT
bg() {
    "$@" &
    child=$!
    wait "$child"
    bg_rc=$?
    child=
    return $bg_rc
}
now() { date +%s.%N; }
since() { awk -v a="$1" -v b="$(now)" 'BEGIN { printf "%.2f", b - a }'; }
ok() { echo "ok $1"; passed=$((passed + 1)); }
notok() {
    echo "not ok $1"
    failed=$((failed + 1))
}

# corrupt_shard FILE: add one to the last digit of the last line that has one (still valid
# CSV/JSON, different bytes); the merged result must then differ from the unsharded one
corrupt_shard() {
    [ -f "$1" ] || { echo "  (CLUSTER_CORRUPT: there is no $(basename "$1") here)"; return; }
    awk '{ l[NR] = $0 } /[0-9]/ { last = NR }
         END { s = l[last]; p = 0
               for (j = length(s); j > 0; j--) if (substr(s, j, 1) ~ /[0-9]/) { p = j; break }
               if (p) l[last] = substr(s, 1, p - 1) ((substr(s, p, 1) + 1) % 10) substr(s, p + 1)
               for (j = 1; j <= NR; j++) print l[j] }' "$1" >"$1.tmp" && mv "$1.tmp" "$1"
    echo "  (CLUSTER_CORRUPT: changed one digit of $(basename "$1"))"
}

# same NAME WHOLE MERGED: the merged shards equal the unsharded run, byte for byte
same() {
    if cmp -s "$2" "$3"; then
        ok "$1: merged shards equal the unsharded run byte for byte ($(wc -c <"$2") bytes)"
    else
        notok "$1: merged shards differ from the unsharded run"
        # the first differing line of each, from 40 characters before the first difference
        line=$(cmp "$2" "$3" 2>&1 | sed -n -E 's/.* line ([0-9]+).*/\1/p')
        echo "  $(cmp "$2" "$3" 2>&1 | sed "s|$CLUSTER_DIR/||g")"
        if [ -n "$line" ]; then
            a=$(sed -n "${line}p" "$2")
            b=$(sed -n "${line}p" "$3")
            awk -v a="$a" -v b="$b" 'BEGIN {
                for (c = 1; substr(a, c, 1) == substr(b, c, 1); c++) ;
                s = c > 40 ? c - 40 : 1
                print "  unsharded: ..." substr(a, s, 80)
                print "  merged:    ..." substr(b, s, 80) }'
        fi
    fi
}

# workload KIND: KIND's three commands, written as scripts into $w (the workload's directory):
#   shard.sh I N (one slice to stdout), whole.sh (the unsharded run), merge.sh FILES...; and
#   $first, the first shard's number (the stand-in counts shards from 1, the planner from 0)
# shellcheck disable=SC2016 # the $ in these scripts are theirs, not this shell's
workload() {
    case "$1" in
    standin)
        first=1
        printf '#!/bin/sh\nexec sh "%s/standin.sh" "$1" "$2"\n' "$here" >"$w/shard.sh"
        printf '#!/bin/sh\nexec sh "%s/standin.sh" 1 1\n' "$here" >"$w/whole.sh"
        printf '#!/bin/sh\nset -e\nfor f; do [ -s "$f" ]; done\ncat "$@" | sort -s -t, -k1,1n\n' \
            >"$w/merge.sh"
        ;;
    plan)
        first=0
        printf '#!/bin/sh\nexec "$ROOFLINE" plan --question "%s" --shard "$1/$2" -o json\n' \
            "$question" >"$w/shard.sh"
        printf '#!/bin/sh\nexec "$ROOFLINE" plan --question "%s" -o json\n' "$question" \
            >"$w/whole.sh"
        printf '#!/bin/sh\nexec "$ROOFLINE" plan merge "$@" -o json\n' >"$w/merge.sh"
        ;;
    esac
}

# shards DIR: the shard files of DIR in index order (1..N, not 1, 10, 2)
shards() {
    i=$first
    while [ "$i" -le "$last" ]; do
        printf '%s ' "$1/shard-$i.out"
        i=$((i + 1))
    done
}

# check KIND: unsharded, Slurm array + merge, GNU parallel + merge; compare; print timings
check() {
    kind=$1
    w=$CLUSTER_DIR/$kind
    mkdir -p "$w/slurm" "$w/parallel"
    workload "$kind"
    last=$((first + n - 1))

    t=$(now)
    if ! bg timeout 300 sh "$w/whole.sh" >"$w/whole.out" 2>"$w/whole.err"; then
        notok "$kind: unsharded run failed"
        sed 's/^/  /' "$w/whole.err" | head -n 5
        return
    fi
    t_whole=$(since "$t")

    # Slurm: one array task per shard, each records its ids and its own start and end time
    cat >"$w/job.sh" <<EOF
#!/bin/sh
set -eu
i=\$SLURM_ARRAY_TASK_ID
date +%s.%N >"$w/slurm/start-\$i"
sh "$w/shard.sh" "\$i" "$n" >"$w/slurm/shard-\$i.out"
echo "\$SLURM_ARRAY_JOB_ID \$SLURM_ARRAY_TASK_ID \$SLURM_ARRAY_TASK_COUNT" >"$w/slurm/ids-\$i"
date +%s.%N >"$w/slurm/end-\$i"
EOF
    t_submit=$(now)
    t=$t_submit
    # --foreground: sbatch stays in this process group, so a signal to the group reaches it
    bg timeout --foreground 300 sbatch --quiet --wait --array="$first-$last" \
        --partition="$CLUSTER_PARTITION" --job-name="roofline-$kind" --cpus-per-task=1 \
        --time=10 --chdir="$w/slurm" --output="$w/slurm/task-%a.log" "$w/job.sh" >"$w/slurm/sbatch.log" 2>&1
    rc=$?
    t_array=$(since "$t")
    ids=$(cat "$w"/slurm/ids-* 2>/dev/null | sort -u -k2,2n)
    want_ids=$(i=$first; while [ "$i" -le "$last" ]; do echo "$i $n"; i=$((i + 1)); done)
    if [ $rc != 0 ] || [ "$(echo "$ids" | cut -d' ' -f2-)" != "$want_ids" ] ||
        [ "$(echo "$ids" | cut -d' ' -f1 | sort -u | wc -l)" != 1 ]; then
        seen=$(echo "$ids" | cut -d' ' -f2 | tr '\n' ' ')
        notok "$kind: Slurm array job (sbatch exit $rc; tasks seen: ${seen:-none})"
        cat "$w/slurm/sbatch.log" "$w"/slurm/task-*.log 2>/dev/null | head -n 10 | sed 's/^/  /'
        grep -h -i -E 'error|fail' "${CLUSTER_LOGS:-/nonexistent}"/*.log 2>/dev/null |
            grep -v -E 'pmix|state file|backup state' | tail -n 10 | sed 's/^/  log: /'
        return
    fi
    ok "$kind: Slurm array job $(echo "$ids" | head -n 1 | cut -d' ' -f1) ran tasks $first-$last"
    span=$(cat "$w"/slurm/start-* "$w"/slurm/end-* |
        awk 'NR == 1 || $1 < lo { lo = $1 } NR == 1 || $1 > hi { hi = $1 }
             END { printf "%.2f", hi - lo }')
    wait_s=$(cat "$w"/slurm/start-* | awk -v t="$t_submit" 'NR == 1 || $1 < lo { lo = $1 }
             END { printf "%.2f", lo - t }')
    [ -n "$corrupt" ] && corrupt_shard "$w/slurm/shard-$corrupt.out"
    t=$(now)
    # shellcheck disable=SC2046
    if ! bg timeout 120 sh "$w/merge.sh" $(shards "$w/slurm") >"$w/slurm/merged.out" \
        2>"$w/slurm/merge.err"; then
        notok "$kind: merging the Slurm shards failed"
        sed 's/^/  /' "$w/slurm/merge.err" | head -n 5
    else
        t_merge=$(since "$t")
        same "$kind: Slurm" "$w/whole.out" "$w/slurm/merged.out"
    fi

    # GNU parallel: the same shards, one job per shard on this machine's cores
    t=$(now)
    # shellcheck disable=SC2046
    if ! bg timeout 300 parallel --will-cite --halt now,fail=1 --joblog "$w/parallel/joblog" \
        sh "$w/shard.sh" "{}" "$n" ">" "$w/parallel/shard-{}.out" ::: $(seq "$first" "$last") \
        2>"$w/parallel/err"; then
        notok "$kind: GNU parallel run failed"
        sed 's/^/  /' "$w/parallel/err" | head -n 5
        return
    fi
    t_par=$(since "$t")
    [ -n "$corrupt" ] && corrupt_shard "$w/parallel/shard-$corrupt.out"
    # shellcheck disable=SC2046
    if ! bg timeout 120 sh "$w/merge.sh" $(shards "$w/parallel") >"$w/parallel/merged.out" \
        2>"$w/parallel/merge.err"; then
        notok "$kind: merging the GNU parallel shards failed"
        sed 's/^/  /' "$w/parallel/merge.err" | head -n 5
    else
        same "$kind: GNU parallel" "$w/whole.out" "$w/parallel/merged.out"
    fi
    echo "timing $kind, $n shards: unsharded $t_whole s; Slurm array job $t_array s wall" \
        "(sbatch --wait polls every 2 s): first task started after $wait_s s," \
        "all ran within $span s; merge" \
        "${t_merge:-?} s; GNU parallel $t_par s"
}

check standin

question=${PLAN_QUESTION:-$top/reports/chat-service.yaml}
if ! "$ROOFLINE" help plan 2>&1 | grep -q 'plan merge'; then
    notok "plan: this roofline has no 'plan merge'"
elif [ ! -f "$question" ]; then
    notok "plan: question file '$question' not found"
else
    check plan
fi

echo "$passed passed, $failed failed"
[ "$failed" = 0 ]
