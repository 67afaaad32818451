#!/bin/sh
# Run roofline bench and likwid-bench side by side on this host and print the ratios: STREAM
# triad bandwidth (all threads, arrays of the size roofline uses) and peak fp32 FLOP/s.
# Both sides report their best of REPEAT alternating rounds; likwid's figure is a mean over its run,
# so roofline's median sample is compared. Targets: triad within 5%, fp32 peak within 10%.
#
# usage: scripts/compare-likwid.sh [--quick]
# environment: ROOFLINE (default ./roofline), REPEAT (rounds, default 3),
#              THREADS (default: every CPU, as roofline bench uses)
set -eu
ROOFLINE=${ROOFLINE:-./roofline}
REPEAT=${REPEAT:-3}
quick=""
[ "${1:-}" = "--quick" ] && quick="--quick"

if ! command -v likwid-bench >/dev/null 2>&1; then
    echo "compare-likwid: likwid-bench not found (Debian: apt-get install likwid)" >&2
    exit 1
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

threads=${THREADS:-$(nproc)}

# the likwid kernels for this CPU's vector width
likwid-bench -a >"$tmp/list" 2>&1 || { cat "$tmp/list" >&2; exit 1; }
suffix=""
for s in avx512_fma avx_fma; do
    if grep -q "^triad_$s " "$tmp/list" && grep -q "^peakflops_sp_$s " "$tmp/list"; then
        case $s in
        avx512_fma) grep -qw avx512f /proc/cpuinfo && suffix=$s ;;
        avx_fma) grep -qw fma /proc/cpuinfo && suffix=$s ;;
        esac
    fi
    [ -n "$suffix" ] && break
done
if [ -z "$suffix" ]; then
    echo "compare-likwid: no triad/peakflops_sp kernel with FMA for this CPU in likwid-bench -a" >&2
    exit 1
fi

# one likwid test; prints the figure after FIELD ("MByte/s:", "MFlops/s:")
likwid_run() {
    if ! likwid-bench -t "$1" -W "N:$2:$threads" >"$tmp/lw.out" 2>&1; then
        echo "compare-likwid: likwid-bench -t $1 -W N:$2:$threads failed:" >&2
        cat "$tmp/lw.out" >&2
        exit 1
    fi
    awk -v f="$3" '$1 == f {print $2}' "$tmp/lw.out" | tail -n 1
}

max() { awk -v a="$1" -v b="$2" 'BEGIN {print (b > a) ? b : a}'; }

# Rounds alternate the two tools: DRAM bandwidth on this kind of host moves with where each
# fresh allocation lands and with the neighbours' traffic, so each side gets the same chances
# and the best of each is compared.
rl_triad=0 rl_triad_med=0 rl_fp32=0 rl_fp32_med=0 lw_triad=0 lw_stream=0 lw_peak=0
round=1
while [ "$round" -le "$REPEAT" ]; do
    echo "round $round/$REPEAT: roofline bench $quick --parts stream,peak --threads $threads" >&2
    "$ROOFLINE" bench $quick --threads "$threads" --parts stream,peak -o json >"$tmp/rl.json" \
        2>"$tmp/rl.err" || { cat "$tmp/rl.err" >&2; exit 1; }
    # best and median triad (all threads), array size, best and median fp32 peak
    python3 - "$tmp/rl.json" "$threads" >"$tmp/rl.txt" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
t = int(sys.argv[2])
tri = [s for s in d["memory"]["stream"] if s["kernel"] == "triad" and s["threads"] == t][0]
pk = [p for p in d["compute"]["peaks"] if p["dtype"] == "fp32" and p["threads"] == t][0]
print(tri["bandwidth_bytes_per_s"], tri["bandwidth_median_bytes_per_s"], tri["array_bytes"],
      pk["flops_per_s"], pk["flops_per_s_median"], d["build"]["isa"])
PY
    read -r t tm array_bytes p pm rl_isa <"$tmp/rl.txt"
    # working sets: likwid's triad (A = B C + D) has four arrays, its stream kernel (A = B s + C,
    # STREAM's triad) three; each array as long as roofline's
    kb=$(awk -v b="$array_bytes" 'BEGIN {printf "%d", b / 1024}')
    echo "round $round/$REPEAT: likwid-bench triad_$suffix, stream_$suffix, peakflops_sp_$suffix" >&2
    lt=$(likwid_run "triad_$suffix" "$((4 * kb))kB" "MByte/s:")
    ls=$(likwid_run "stream_$suffix" "$((3 * kb))kB" "MByte/s:")
    lp=$(likwid_run "peakflops_sp_$suffix" "$((32 * threads))kB" "MFlops/s:")
    printf "  roofline triad %.1f GB/s (median %.1f), fp32 %.1f GFLOP/s; likwid triad %.1f, stream %.1f GB/s, peak %.1f GFLOP/s\n" \
        "$(echo "$t" | awk '{print $1 / 1e9}')" "$(echo "$tm" | awk '{print $1 / 1e9}')" \
        "$(echo "$p" | awk '{print $1 / 1e9}')" "$(echo "$lt" | awk '{print $1 / 1e3}')" \
        "$(echo "$ls" | awk '{print $1 / 1e3}')" "$(echo "$lp" | awk '{print $1 / 1e3}')" >&2
    rl_triad=$(max "$rl_triad" "$t")
    rl_triad_med=$(max "$rl_triad_med" "$tm")
    rl_fp32=$(max "$rl_fp32" "$p")
    rl_fp32_med=$(max "$rl_fp32_med" "$pm")
    lw_triad=$(max "$lw_triad" "$lt")
    lw_stream=$(max "$lw_stream" "$ls")
    lw_peak=$(max "$lw_peak" "$lp")
    round=$((round + 1))
done

awk -v rt="$rl_triad" -v rtm="$rl_triad_med" -v rp="$rl_fp32" -v rpm="$rl_fp32_med" \
    -v lt="$lw_triad" -v ls="$lw_stream" -v lp="$lw_peak" -v isa="$rl_isa" -v sfx="$suffix" \
    -v th="$threads" -v ab="$array_bytes" 'BEGIN {
    printf "\nhost: %d threads, roofline kernels %s, likwid kernels *_%s, arrays %.0f MiB\n\n",
           th, isa, sfx, ab / 1048576
    printf "%-38s %14s %14s %8s  %s\n", "metric", "roofline", "likwid", "ratio", "target"
    printf "%-38s %9.1f GB/s %9.1f GB/s %8.3f  %s\n", "triad median vs triad_" sfx,
           rtm / 1e9, lt / 1e3, rtm / 1e9 / (lt / 1e3), "within 5%"
    printf "%-38s %9.1f GB/s %9.1f GB/s %8.3f  %s\n", "triad median vs stream_" sfx,
           rtm / 1e9, ls / 1e3, rtm / 1e9 / (ls / 1e3), "same kernel and byte count"
    printf "%-38s %9.1f GB/s %9.1f GB/s %8.3f  %s\n", "triad best sample vs triad_" sfx,
           rt / 1e9, lt / 1e3, rt / 1e9 / (lt / 1e3), "(best sample: not like for like)"
    printf "%-38s %6.1f GFLOP/s %6.1f GFLOP/s %8.3f  %s\n", "fp32 peak vs peakflops_sp_" sfx,
           rp / 1e9, lp / 1e3, rp / 1e9 / (lp / 1e3), "within 10%"
    printf "%-38s %6.1f GFLOP/s %14s %8.3f\n", "fp32 peak (roofline best median)", rpm / 1e9, "",
           rpm / 1e9 / (lp / 1e3)
    print ""
    print "byte counts: roofline counts STREAM bytes (triad a = b + s c: 24 B per element, no"
    print "write-allocate); likwid triad_* (A = B C + D) counts 32 B and stream_* 24 B, also"
    print "without write-allocate. With write-allocate the DRAM moves 32 B and 40 B, so at one DRAM"
    print "rate triad_* reports 0.8 / 0.75 = 1.07x roofline: a ratio of 0.94 there is a match;"
    print "stream_* is the like-for-like kernel."
    print "statistics: likwid reports bytes x iterations / total time, a mean over its run, so"
    print "the like-for-like roofline figure is the median sample (best round of each tool); the"
    print "best single sample is higher by the spread between samples."
}'
