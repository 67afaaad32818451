#!/bin/sh
# Every shipped device x model: analyze (both phases) in the largest of bf16/fp8/int4 whose
# weights fit (a pair with none is skipped), and no n/a, NaN, inf, negative or zero time. explain
# decode/prefill and every chart kind run for each device with a model that fits and for each
# model on a device it fits (the charts take 5 devices at once). A missing roof (a profile with no
# fp32 peak) used to give n/a here.
. "$(dirname "$0")/lib.sh"
top=$(cd "$(dirname "$0")/../.." && pwd)
cd "$top" || exit 1

# Round by format: analyze the candidate pairs, then one awk pass over the outputs sorts them into
# fitting (both phases "fits": "yes"), next format (its weights under the capacity) or none. Few
# processes: about 600 analyses.
mkdir -p "$T/a"
# the largest format whose weights alone fit (parameters from `list models`, capacity from `list
# gpus`): the first format each pair is analyzed in; pairs whose int4 weights exceed the capacity
# are never run
"$ROOFLINE" list gpus >"$T/gpus"
"$ROOFLINE" list models >"$T/models"
awk 'function val(x, u) { u = substr(u, 1, 1)
        return x * (u == "T" ? 1e12 : u == "G" ? 1e9 : u == "M" ? 1e6 : u == "k" ? 1e3 : 1) }
    FNR == 1 { next }
    FILENAME ~ /gpus$/ {
        for (i = 2; i < NF; i++) if ($(i + 1) ~ /^[kMGT]?B$/) { cap[$1] = val($i, $(i + 1)); break }
        next
    }
    { p = val($2, $3)
      for (g in cap) {
        f = 2 * p <= cap[g] ? "bf16" : p <= cap[g] ? "fp8" : p / 2 <= cap[g] ? "int4" : ""
        if (f != "") print g, $1, f
    } }' "$T/gpus" "$T/models" >"$T/start"
: >"$T/fits"
: >"$T/failed"
: >"$T/todo"
for w in bf16 fp8 int4; do
    awk -v w="$w" '$3 == w { print $1, $2 }' "$T/start" >>"$T/todo"
    while read -r g m; do
        "$ROOFLINE" analyze --gpu "$g" --model "$m" --weights "$w" -o json \
            >"$T/a/$g@$m@$w.json" 2>"$T/a.err" || echo "$g $m $w $(head -n 1 "$T/a.err")" >>"$T/failed"
    done <"$T/todo"
    (cd "$T/a" && ls -- *"@$w.json" 2>/dev/null) | awk -v dir="$T/a" -v w="$w" \
        -v fits="$T/fits" -v todo="$T/todo.next" '
        BEGIN { printf "" >todo }
        {
            f = dir "/" $0; split($0, p, "@"); yes = 0; wb = 0; cap = 0
            while ((getline line <f) > 0) {
                if (line ~ /"fits": "yes"/) yes++
                if (!wb && line ~ /"mem_weights_bytes":/) { sub(/.*: /, "", line); wb = line + 0 }
                if (!cap && line ~ /"mem_capacity_bytes":/) { sub(/.*: /, "", line); cap = line + 0 }
            }
            close(f)
            if (yes == 2) print p[1], p[2], w >>fits
            else if (w == "bf16" && wb / 2 <= cap) print p[1], p[2] >>todo
            else if (w == "fp8" && wb / 2 <= cap) print p[1], p[2] >>todo
        }'
    mv "$T/todo.next" "$T/todo"
done
pairs=$(wc -l <"$T/fits")
# the analyses of the chosen formats: finite, positive times and rates
bad=$(while read -r g m w; do echo "$T/a/$g@$m@$w.json"; done <"$T/fits" | xargs awk '
    tolower($0) ~ /(^|[^a-z_])(-?nan|-?inf|n\/a)([^a-z_]|$)/ { print FILENAME ": non-finite: " $0; next }
    {
        s = $0
        while (match(s, /"(time_s|tokens_per_s_per_seq|tokens_per_s_total)": [^,}]*/)) {
            kv = substr(s, RSTART, RLENGTH); s = substr(s, RSTART + RLENGTH)
            v = kv; sub(/.*: /, "", v)
            if (v == "null" || v + 0 <= 0) print FILENAME ": " kv
        }
    }' | sed "s|$T/a/||")
if [ -s "$T/failed" ]; then
    echo "not ok allpairs analyze failed:"
    sed 's/^/  /' "$T/failed"
elif [ -n "$bad" ]; then
    echo "not ok allpairs analyze:"
    echo "$bad" | head -n 20 | sed 's/^/  /'
elif [ "$pairs" -lt 500 ]; then
    echo "not ok allpairs analyze: only $pairs pairs fit"
else
    echo "ok allpairs analyze: $pairs device x model pairs finite and positive ($(ls "$T/a" | wc -l) analyses)"
fi

# bad_text FILE: the first line of a human explanation with a non-finite, zero or negative result
bad_text() {
    grep -iE '(^|[^a-z_])(-?nan%?|-?inf|n/a)([^a-z_]|$)|= 0\.0 tokens/s|takes 0\.00|-[0-9.]+ (ns|us|ms|s)( |$)' "$1" |
        head -n 1
}

# one pair per device (its first fitting model) and one per model (its first fitting device)
awk '!seen_g[$1]++' "$T/fits" >"$T/sel"
awk '!seen_m[$2]++' "$T/fits" >>"$T/sel"
sort -u "$T/sel" -o "$T/sel"
bad=0 n=0
while read -r g m w; do
    n=$((n + 1))
    for phase in decode prefill; do
        if ! "$ROOFLINE" explain "$phase" --gpu "$g" --model "$m" --weights "$w" >"$T/e.txt" \
            2>"$T/e.err"; then
            echo "not ok allpairs explain $phase $g $m $w: $(head -n 1 "$T/e.err")"
            bad=$((bad + 1))
            continue
        fi
        line=$(bad_text "$T/e.txt")
        if [ -n "$line" ]; then
            echo "not ok allpairs explain $phase $g $m $w: $line"
            bad=$((bad + 1))
        fi
    done
done <"$T/sel"
if [ "$bad" = 0 ] && [ "$n" -ge 42 ]; then echo "ok allpairs explain: $n pairs"; else
    echo "not ok allpairs explain: $bad bad of $n pairs"; fi

# charts: group the selected pairs by model and format, at most 5 devices per chart
sort -k2,2 -k3,3 "$T/sel" | awk '{
    key = $2 " " $3
    if (key != last || cnt == 5) { if (line != "") print line; line = key " " $1; cnt = 1; last = key }
    else { line = line "," $1; cnt++ }
} END { if (line != "") print line }' >"$T/groups"
bad=0 n=0
while read -r m w gl; do
    for kind in roofline regime batch prefill decode memory; do
        n=$((n + 1))
        if ! "$ROOFLINE" chart "$kind" --gpu "$gl" --model "$m" --weights "$w" -o "$T/c.svg" \
            >"$T/c.out" 2>"$T/c.err" || [ ! -s "$T/c.svg" ]; then
            echo "not ok allpairs chart $kind $gl $m $w: $(head -n 1 "$T/c.err")"
            bad=$((bad + 1))
        elif grep -qiE 'nothing to plot|nan|n/a' "$T/c.err"; then
            echo "not ok allpairs chart $kind $gl $m $w: $(head -n 1 "$T/c.err")"
            bad=$((bad + 1))
        fi
        rm -f "$T/c.svg"
    done
done <"$T/groups"
if [ "$bad" = 0 ] && [ "$n" -ge 6 ]; then echo "ok allpairs charts: $n charts"; else
    echo "not ok allpairs charts: $bad bad of $n"; fi
