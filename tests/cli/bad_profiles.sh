#!/bin/sh
# The bad-input catalogue (issue 17): every tests/data/bad/X.{yaml,json,args} must fail with exit
# 1 (or the code in X.exit: 2 for usage errors), print exactly X.err on stderr (all problems of
# the file, positioned) and nothing on stdout. The prefix says what X is:
#   hw-* a GPU profile (show gpu)      model-* a model profile (show model)
#   scen-* a scenario (simulate; scen-trace-* with its trace scen-trace-*.csv)
#   meas-* measurements (validate)     q-* a capacity question (plan)
#   pts-* measured points (chart roofline --measured)   cli-* a command line, one argument a line
. "$(dirname "$0")/lib.sh"
top=$(cd "$(dirname "$0")/../.." && pwd)
cd "$top" || exit 1
n=0
files=$(ls tests/data/bad/*.yaml tests/data/bad/*.json tests/data/bad/*.args)
set -f
nl='
'
for f in $files; do
    [ -f "$f" ] || continue
    n=$((n + 1))
    base=${f%.*}
    want=1
    [ -f "$base.exit" ] && want=$(cat "$base.exit")
    case $(basename "$f") in
    model-*) set -- show model "$f" ;;
    scen-*) set -- simulate --scenario "$f" ;;
    meas-*) set -- validate --measurements "$f" ;;
    q-*) set -- plan --question "$f" ;;
    pts-*) set -- chart roofline --gpu h100-sxm --model llama-3-8b --measured "$f" -o "$T/chart.svg" ;;
    cli-*) IFS=$nl && set -- $(cat "$f") && unset IFS ;;
    *) set -- show gpu "$f" ;;
    esac
    timeout 60 "$ROOFLINE" "$@" >"$T/out" 2>"$T/err"
    rc=$?
    if [ "$rc" != "$want" ]; then
        echo "not ok bad/$(basename "$f"): expected exit $want, got $rc"
        head -n 3 "$T/err"
    elif ! diff -u "$base.err" "$T/err" >"$T/diff"; then
        echo "not ok bad/$(basename "$f"): stderr differs"
        cat "$T/diff"
    elif [ -s "$T/out" ]; then
        echo "not ok bad/$(basename "$f"): printed to stdout"
    else
        echo "ok bad/$(basename "$f")"
    fi
done
if [ "$n" -ge 150 ]; then echo "ok bad catalogue has $n cases"; else echo "not ok bad catalogue has only $n cases"; fi
