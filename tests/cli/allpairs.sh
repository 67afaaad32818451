#!/bin/sh
# Every shipped device x model: analyze (both phases) in the largest of bf16/fp8/int4 whose
# weights fit (a pair with none is skipped), and no n/a, NaN, inf, negative or zero time. explain
# decode/prefill and every chart kind run for each device with a model that fits and for each
# model on a device it fits (the charts take 5 devices at once). A missing roof (a profile with no
# fp32 peak) used to give n/a here.
. "$(dirname "$0")/lib.sh"
top=$(cd "$(dirname "$0")/../.." && pwd)
cd "$top" || exit 1

# Round by format: analyze every candidate pair, then one awk pass over the outputs sorts them into
# fitting (both phases "fits": "yes"), next format (weights at that format's size under the
# capacity in int4, the smallest) or none. Few processes: this runs ~1000 analyses.
mkdir -p "$T/a"
for gf in hardware_profiles/*.yaml; do
    for mf in model_profiles/*.yaml; do
        echo "$(basename "$gf" .yaml) $(basename "$mf" .yaml)"
    done
done >"$T/todo"
: >"$T/fits"
: >"$T/failed"
for w in bf16 fp8 int4; do
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
            else if (w != "int4") {
                r = (w == "bf16") ? 4 : 2   # int4 weights are a quarter of bf16, half of fp8
                if (wb / r <= cap) print p[1], p[2] >>todo
            }
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
    echo "ok allpairs analyze: $pairs device x model pairs finite and positive"
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
