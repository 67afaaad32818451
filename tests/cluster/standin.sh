#!/bin/sh
# Stand-in sharded workload for the cluster test: the work list is every GPU profile x two
# models; shard I of N evaluates items I, I+N, I+2N, ... with 'roofline analyze -o csv' and
# prints each output line prefixed by the item's number, so that a numeric sort of all shards'
# lines is exactly the unsharded run (standin.sh 1 1). Usage: standin.sh I N.
set -eu
: "${ROOFLINE:?}"
i=$1
n=$2
case "$i/$n" in
*[!0-9/]* | /* | */ | 0/* | */0) echo "standin: error: bad shard '$i/$n'" >&2; exit 2 ;;
esac
[ "$i" -le "$n" ] || { echo "standin: error: shard $i of $n" >&2; exit 2; }
gpus=$("$ROOFLINE" list gpus -o csv | tail -n +2 | cut -d, -f1)
[ -n "$gpus" ] || { echo "standin: error: no GPU profiles" >&2; exit 1; }
out=$(mktemp)
trap 'rm -f "$out"' EXIT
k=0
for model in llama-3-8b llama-3-70b; do
    for gpu in $gpus; do
        k=$((k + 1))
        [ $(((k - 1) % n)) = $((i - 1)) ] || continue
        "$ROOFLINE" analyze --gpu "$gpu" --model "$model" -o csv >"$out"
        sed "s/^/$k,$gpu,$model,/" "$out"
    done
done
