#!/bin/sh
# Allocation failures (issue 17), run by `make alloc-test` on the ALLOC_HOOK build: for a few
# representative commands, fails each of roofline's own allocations in turn (ROOFLINE_FAIL_ALLOC
# = 1..N, N counted by a normal run) and checks that the run either exits 1 saying "out of
# memory (while WHAT)" or exits as the normal run does with the same stdout; never a signal,
# never a different exit, never exit 0 with other output. Also calibrate's all-or-none files under a
# failing rename (ROOFLINE_FAIL_RENAME). Ends with "N passed, N failed".
set -u
: "${ROOFLINE:?set ROOFLINE to a binary built with make ALLOC_HOOK=1}"
top=$(cd "$(dirname "$0")/../.." && pwd)
cd "$top" || exit 1
export ROOFLINE_DATA="$top"
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
passed=0
failed=0
sed 's/^memory:/memory:\n  capacity: 80 GB/' hardware_profiles/h100-sxm.yaml >"$T/dup.yaml"

# check NAME COMMAND...: one normal run, then one run per allocation with that allocation failed
# (with sample=K: about K of them, every STEP-th, so that a long run stays within a few minutes).
# Each failure must say "error: out of memory (while WHAT)"; each phrase of `expect` (separated
# by |) must be WHAT in at least one run.
sample=0
expect=
check() {
    name=$1
    shift
    # ALLOC_ONLY="analyze plan-tiny": only those checks (while working on them)
    case " ${ALLOC_ONLY:-$name} " in *" $name "*) ;; *) return ;; esac
    : >"$T/said"
    rm -f "$T/count"
    ROOFLINE_ALLOC_COUNT="$T/count" "$@" >"$T/ref.out" 2>"$T/ref.err"
    ref=$?
    if [ ! -s "$T/count" ]; then
        echo "not ok $name: no allocation count (is $ROOFLINE built with ALLOC_HOOK=1?)"
        failed=$((failed + 1))
        return
    fi
    n=$(cat "$T/count")
    bad=0
    i=1
    step=1
    [ "$sample" -gt 0 ] && step=$(((n + sample - 1) / sample))
    tried=0
    while [ "$i" -le "$n" ]; do
        ROOFLINE_FAIL_ALLOC=$i "$@" >"$T/out" 2>"$T/err"
        rc=$?
        why=
        if [ "$rc" -ge 128 ]; then
            why="signal $((rc - 128))"
        elif [ "$rc" = 1 ] && grep -q 'error: out of memory (while [^)]' "$T/err"; then
            grep -o 'error: out of memory.*' "$T/err" >>"$T/said"
        elif [ "$rc" = 1 ] && grep -q 'out of memory' "$T/err"; then
            why="'out of memory' without '(while ...)'"
        elif [ "$rc" != "$ref" ]; then
            why="exit $rc without 'error: out of memory'"
        elif ! cmp -s "$T/out" "$T/ref.out"; then
            why="exit $rc with different output"
        fi
        if [ -n "$why" ]; then
            bad=$((bad + 1))
            [ "$bad" -le "${ALLOC_SHOW:-5}" ] && echo "  $name: allocation $i failed: $why: $(head -c 200 "$T/err" | head -n 2)"
        fi
        tried=$((tried + 1))
        i=$((i + step))
    done
    missing=
    oldifs=$IFS
    IFS='|'
    for phrase in $expect; do
        grep -qF "$phrase" "$T/said" || missing="$missing '$phrase'"
    done
    IFS=$oldifs
    if [ -n "$missing" ]; then
        bad=$((bad + 1))
        echo "  $name: no failure said$missing"
    fi
    if [ "$bad" = 0 ]; then
        echo "ok $name ($tried of $n allocations failed in turn$([ "$step" -gt 1 ] && echo ", every ${step}th"))"
        passed=$((passed + 1))
    else
        echo "not ok $name: $bad of $tried failed allocations mishandled (of $n)"
        failed=$((failed + 1))
    fi
}

expect="(while analyzing llama-3-8b on h100-sxm)|(while loading '$top/hardware_profiles/h100-sxm.yaml', analyzing|(while loading '$top/model_profiles/llama-3-8b.yaml', analyzing"
check analyze "$ROOFLINE" analyze --gpu h100-sxm --model llama-3-8b
expect="(while explaining 'decode')|(while loading '$top/model_profiles/llama-3-8b.yaml', explaining 'decode')"
check explain-decode "$ROOFLINE" explain decode --gpu h100-sxm --model llama-3-8b
expect="(while simulating scenario 'scenarios/static.yaml')|(while loading 'scenarios/static.yaml', simulating"
check simulate "$ROOFLINE" simulate --scenario scenarios/static.yaml
# plan: every allocation of a one-candidate question (its loading, one candidate's analytic and
# simulated evaluation, the answer), then a sample of an 8-candidate one (threads, ranking)
expect="(while planning 'tests/data/alloc/tiny-plan.yaml')|(while loading 'tests/data/alloc/tiny-plan.yaml', planning"
check plan-tiny "$ROOFLINE" plan --question tests/data/alloc/tiny-plan.yaml
sample=1000 expect="(while planning 'tests/data/report/small.yaml')"
check plan "$ROOFLINE" plan --question tests/data/report/small.yaml
# report: the single-system PDF (about 14,000 allocations: sections, charts, layout), sampled
sample=1000 expect="(while building the report, writing the report of llama-3-8b on h100-sxm)|(while loading '$top/calibration/measurements.yaml', writing the report of llama-3-8b on h100-sxm)"
check report "$ROOFLINE" report --gpu h100-sxm --model llama-3-8b -o "$T/r.pdf"
# plan merge reads the shards' records (cli/plan_json.c) and ranks them: 30 s
"$ROOFLINE" plan --question tests/data/report/small.yaml --shard 0/1 -o json >"$T/s0.json" 2>/dev/null
sample=0 expect="(while merging plans)"
check plan-merge "$ROOFLINE" plan merge "$T/s0.json"
sample=0 expect="(while drawing chart 'roofline')"
check chart-svg "$ROOFLINE" chart roofline --gpu h100-sxm --model llama-3-8b -o "$T/c.svg"
expect="(while loading '$T/dup.yaml', showing gpu)"
check profile-error "$ROOFLINE" show gpu "$T/dup.yaml"
# calibrate publishes its files all or none: a rename failing partway (the 3rd) puts back
# the old files already replaced, and a first calibration leaves no file at all
result() {
    if [ "$2" = 0 ]; then echo "ok $1"; passed=$((passed + 1)); else
        echo "not ok $1"; failed=$((failed + 1)); fi
}
cal() { "$ROOFLINE" calibrate --measurements calibration/measurements.yaml --engine llama.cpp --output-dir "$1"; }
cal "$T/cal" >/dev/null 2>&1
files=$(cd "$T/cal" && find . -type f | sort)
for f in $files; do echo "old $f" >"$T/cal/$f"; done
ROOFLINE_FAIL_RENAME=3 cal "$T/cal" >/dev/null 2>"$T/err"
rc=$?
ok=0
[ "$rc" = 1 ] && grep -q "error: cannot rename .* into place: Input/output error" "$T/err" || ok=1
for f in $files; do [ "$(cat "$T/cal/$f")" = "old $f" ] || ok=1; done
# the 3rd rename must fall partway: at least 4 files (7 with the engines of calibration/measurements.yaml)
[ "$(echo "$files" | wc -l)" -ge 4 ] && [ "$(cd "$T/cal" && find . -type f | sort)" = "$files" ] || ok=1
result "calibrate-rename-fails-old-files-back ($(echo "$files" | wc -l) files, exit $rc)" $ok
ROOFLINE_FAIL_RENAME=3 cal "$T/new" >/dev/null 2>&1
rc=$?
[ "$rc" = 1 ] && [ -z "$(find "$T/new" -type f)" ]
result "calibrate-rename-fails-new-files-removed" $?
cal "$T/cal" >/dev/null 2>&1 && ! grep -q '^old' "$T/cal/calibration/device-classes.yaml"
result "calibrate-after-rollback-writes" $?

echo "$passed passed, $failed failed"
[ "$failed" = 0 ]
