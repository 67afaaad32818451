#!/bin/sh
# The whole suite: C unit tests, then CLI cases (tests/cli/*.sh and the bad-profile catalogue).
# Prints every failure as it happens, on stderr, as one line "not ok NAME: reason" (a unit case
# as "not ok unit NAME", a CLI script that dies or times out as "not ok SCRIPT: ..."), and ends
# with exactly one line on stdout, "N passed, N failed", followed when anything failed by
# " (failed: NAME, ...)", so that the last line alone says which tests failed.
# Environment: ROOFLINE (the binary), UNIT (the unit-test binary), CLI_SKIP (scripts to skip),
# TEST_TIMEOUT (seconds one script or the unit binary may take, default 1800: a hang is
# reported by name instead of blocking the run).
set -u
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/.." && pwd)
ROOFLINE=${ROOFLINE:-$top/roofline}
UNIT=${UNIT:-$top/build/rel/unit_tests}
export ROOFLINE ROOFLINE_DATA="$top"
limit=${TEST_TIMEOUT:-1800}
passed=0
failed=0
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# timeout(1) runs its command in a process group of its own, which a terminal's ^C does not
# reach: limited CMD... runs it in the background and waits, and ^C or a TERM to this script
# stops it (timeout passes the TERM on to the whole group)
tpid=""
trap '[ -n "$tpid" ] && kill -TERM "$tpid" 2>/dev/null; exit 130' INT TERM HUP
limited() {
    timeout -k 10 "$limit" "$@" &
    tpid=$!
    wait "$tpid"
    rc=$?
    tpid=""
}
: >"$tmp/failed"

# note NAME REASON: one failure, on stderr now and in the closing line
note() {
    echo "not ok $1: $2" >&2
    echo "$1" >>"$tmp/failed"
}

# why RC: an exit status in words (timeout(1) gives 124, or 128 + 9 after its KILL)
why() {
    case $1 in
    124) echo "timed out after $limit s (TEST_TIMEOUT)" ;;
    137) echo "killed by signal 9 (SIGKILL: the timeout's second signal after $limit s?)" ;;
    1[3-9][0-9] | 2[0-5][0-9]) echo "killed by signal $(($1 - 128))" ;;
    *) echo "exit $1" ;;
    esac
}

# 1. unit tests
limited sh -c 'cd "$1" && exec "$2"' unit "$top" "$UNIT" >"$tmp/unit.out" 2>"$tmp/unit.err"
line=$(grep -E '^unit: [0-9]+ passed, [0-9]+ failed$' "$tmp/unit.out" | tail -n 1)
if [ -n "$line" ]; then
    up=$(echo "$line" | sed -E 's/^unit: ([0-9]+) passed, ([0-9]+) failed$/\1/')
    uf=$(echo "$line" | sed -E 's/^unit: ([0-9]+) passed, ([0-9]+) failed$/\2/')
    passed=$((passed + up))
    failed=$((failed + uf))
fi
if [ -z "$line" ] || [ "${uf:-0}" != 0 ]; then
    # every message, then one "not ok" line per failed case ("FAIL name: reason")
    grep -v '^FAIL ' "$tmp/unit.err" >&2
    sed -n 's/^FAIL \([^:]*\): \(.*\)$/\1 \2/p' "$tmp/unit.err" | while read -r name reason; do
        note "unit $name" "$reason"
    done
fi
if [ -z "$line" ]; then
    # the binary died before its count line: its "FAIL" lines (the last names the case it died
    # in), or one failure outside any case
    nf=$(grep -c '^FAIL ' "$tmp/unit.err")
    failed=$((failed + (nf > 0 ? nf : 1)))
    if [ "$nf" = 0 ]; then
        note "unit tests" "$(why $rc) before the count line, outside any case"
    else
        echo "  (the unit binary $(why $rc) before its count line)" >&2
    fi
fi

# 2. CLI cases: each script prints "ok NAME" or "not ok NAME" lines
for t in "$here"/cli/*.sh; do
    [ -f "$t" ] || continue
    s=$(basename "$t")
    [ "$s" = lib.sh ] && continue
    # CLI_SKIP: space-separated script names to leave out (partial local builds)
    case " ${CLI_SKIP:-} " in *" $s "*) continue ;; esac
    limited sh "$t" >"$tmp/cli.out" 2>&1
    p=$(grep -c '^ok ' "$tmp/cli.out")
    f=$(grep -c '^not ok ' "$tmp/cli.out")
    passed=$((passed + p))
    failed=$((failed + f))
    if [ "$f" != 0 ] || [ "$rc" != 0 ]; then
        echo "== $s ($(why $rc))" >&2
        grep -v '^ok ' "$tmp/cli.out" >&2
        # the names of the failed checks, for the closing line
        sed -n 's/^not ok \([^:]*\).*$/\1/p' "$tmp/cli.out" | cut -c1-60 | sed "s|^|$s |" >>"$tmp/failed"
    fi
    if [ "$rc" != 0 ]; then
        # a script that stops early (exit, a signal, the timeout) is a failure of its own,
        # named with the last check it passed
        last=$(grep '^ok ' "$tmp/cli.out" | tail -n 1 | sed "s/^ok \(.*\)$/'ok \1'/")
        failed=$((failed + 1))
        note "$s" "$(why $rc) after ${last:-no check} ($p passed, $f failed before)"
    fi
done

names=$(awk 'NR <= 10 { printf "%s%s", (NR > 1 ? ", " : ""), $0 } END { if (NR > 10) printf ", and %d more", NR - 10 }' "$tmp/failed")
echo "$passed passed, $failed failed${names:+ (failed: $names)}"
[ "$failed" = 0 ]
