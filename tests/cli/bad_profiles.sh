#!/bin/sh
# The bad-profile catalogue: every tests/data/bad/X.{yaml,json} must fail with exit 1 and print
# exactly X.err on stderr (all problems of the file, positioned). model-* files are models.
. "$(dirname "$0")/lib.sh"
top=$(cd "$(dirname "$0")/../.." && pwd)
cd "$top" || exit 1
n=0
for f in tests/data/bad/*.yaml tests/data/bad/*.json; do
    [ -f "$f" ] || continue
    n=$((n + 1))
    base=${f%.*}
    case $(basename "$f") in model-*) kind=model ;; *) kind=gpu ;; esac
    "$ROOFLINE" show "$kind" "$f" >"$T/out" 2>"$T/err"
    rc=$?
    if [ "$rc" != 1 ]; then
        echo "not ok bad/$(basename "$f"): expected exit 1, got $rc"
    elif ! diff -u "$base.err" "$T/err" >"$T/diff"; then
        echo "not ok bad/$(basename "$f"): stderr differs"
        cat "$T/diff"
    elif [ -s "$T/out" ]; then
        echo "not ok bad/$(basename "$f"): printed to stdout"
    else
        echo "ok bad/$(basename "$f")"
    fi
done
if [ "$n" -ge 25 ]; then echo "ok bad catalogue has $n cases"; else echo "not ok bad catalogue has only $n cases"; fi
