#!/bin/sh
# Hostile and absurd input (issue 17): integer options that used to truncate, non-regular and
# oversized input files, warnings for implausible values, duplicate checks on large files.
. "$(dirname "$0")/lib.sh"
top=$(cd "$(dirname "$0")/../.." && pwd)
cd "$top" || exit 1

# CLI integers: 4294967297 ran as tp 1, 4294967298 as pp 2, 2147483648 GPUs as 1 replica
for a in "tp 4294967297" "tp 1e12" "pp 4294967298" "gpus 2147483648"; do
    set -- $a
    run "cli-int-$1-$2" 2 -- "$ROOFLINE" analyze --gpu h100-sxm --model llama-3-8b "--$1" "$2"
    expect_err "cli-int-$1-$2-msg" "error: --$1: must be at most 2147483647, got '$2'"
done
run cli-int-fraction 2 -- "$ROOFLINE" analyze --gpu h100-sxm --model llama-3-8b --batch 2.5
expect_err cli-int-fraction-msg "error: --batch: expected a whole number, got '2.5'"
run cli-int-max 0 -- "$ROOFLINE" analyze --gpu h100-sxm --model llama-3-8b --context 2147483647

# implausible but possible: a warning, and the profile still loads
sed -e 's|bandwidth: 3.35 TBs|bandwidth: 200 TB/s|' -e 's|^  fp16: 989.4 TFLOPS|  fp32: 66.9 TFLOPS\n  fp16: 989.4 TFLOPS|' tests/data/bad/hw-bad-unit.yaml >"$T/fast.yaml"
run warn-bandwidth 0 -- "$ROOFLINE" show gpu "$T/fast.yaml"
expect_err warn-bandwidth-msg "$T/fast.yaml:6:14: warning: 'memory.bandwidth' is '200 TB/s', above 100 TB/s: check the unit"

# a broken file among the shipped profiles: the good ones are listed, each bad one reported,
# exit 1 at the end with a count
mkdir -p "$T/data" && cp -r hardware_profiles "$T/data/"
good=$(ls hardware_profiles/*.yaml | wc -l)
echo "name: [" >"$T/data/hardware_profiles/broken.yaml"
printf 'name: x\n' >"$T/data/hardware_profiles/schema.yaml"
mkfifo "$T/data/hardware_profiles/fifo.yaml"
ln -s /nonexistent "$T/data/hardware_profiles/dangling.yaml"
ROOFLINE_DATA="$T/data" run list-broken 1 -- "$ROOFLINE" list gpus -o csv
[ "$(grep -c '^[a-z0-9]' "$T/out")" = "$((good + 1))" ] && echo "ok list-broken-lists-good" ||
    { echo "not ok list-broken-lists-good: $(wc -l <"$T/out") lines for $good profiles"; }
expect_out list-broken-h100 "h100-sxm,"
expect_err list-broken-yaml "$T/data/hardware_profiles/broken.yaml:2:1: error: invalid YAML: did not find expected node content"
expect_err list-broken-schema "$T/data/hardware_profiles/schema.yaml:1:1: error: missing required key 'vendor'"
expect_err list-broken-fifo "$T/data/hardware_profiles/fifo.yaml: error: gpu profile is not a regular file"
expect_err list-broken-dangling "$T/data/hardware_profiles/dangling.yaml: error: no such gpu profile file (No such file or directory)"
expect_err list-broken-count "error: 4 of $((good + 4)) profiles in '$T/data/hardware_profiles' did not load (see above)"
[ "$(tail -n 1 "$T/err" | cut -c1-9)" = "error: 4 " ] && echo "ok list-broken-count-last" || echo "not ok list-broken-count-last"

# inputs must be regular files of at most 64 MiB: a FIFO blocked forever, /dev/zero read
# without limit, and the limit was really 128 MiB (the timeouts only stop a hang: refused at
# once, these take milliseconds, but a starved process on a loaded machine needs seconds)
mkfifo "$T/fifo.yaml"
run input-fifo 1 -- timeout 120 "$ROOFLINE" validate --measurements "$T/fifo.yaml"
expect_err input-fifo-msg "$T/fifo.yaml: error: not a regular file"
run input-dev-zero 1 -- timeout 120 "$ROOFLINE" validate --measurements /dev/zero
expect_err input-dev-zero-msg "/dev/zero: error: not a regular file"
run input-dir 1 -- "$ROOFLINE" validate --measurements "$T"
expect_err input-dir-msg "error: not a regular file"
truncate -s $((64 * 1024 * 1024 + 1)) "$T/big.yaml"
run input-64mib 1 -- "$ROOFLINE" validate --measurements "$T/big.yaml"
expect_err input-64mib-msg "$T/big.yaml: error: file larger than 64 MiB"
run input-missing 1 -- "$ROOFLINE" validate --measurements "$T/none.yaml"
expect_err input-missing-msg "$T/none.yaml: error: cannot open file: No such file or directory"

# duplicates among many keys and rows are found (a hash set; pairs took 17 s and 36 s at 80k)
{
    printf 'name: x\nvendor: nvidia\nkind: gpu\nmemory: {capacity: 80 GB, bandwidth: 3 TB/s}\n'
    printf 'compute: {fp16: 1 TFLOPS}\nsources: {memory: a, compute: b, cache_bandwidth: c}\n'
    printf 'cache_bandwidth:\n  l1: 1 TB/s\n  l2: 1 TB/s\n'
    i=0; while [ $i -lt 2000 ]; do printf '  l1: 1 TB/s\n'; i=$((i + 1)); done
} >"$T/keys.yaml"
run dup-keys 1 -- "$ROOFLINE" show gpu "$T/keys.yaml"
[ "$(grep -c "error: duplicate key 'cache_bandwidth.l1' (first at line 8)" "$T/err")" = 2000 ] &&
    echo "ok dup-keys-all" || echo "not ok dup-keys-all: $(grep -c duplicate "$T/err")"
row='source: "s", hardware: h100-sxm, model: llama-3-8b, weights: fp16, engine: llama.cpp, phase: decode, context: 512, metric: tokens_per_s, value: 100}'
i=0; while [ $i -lt 3000 ]; do echo "- {id: r$((i % 1500)), $row"; i=$((i + 1)); done >"$T/rows.yaml"
run dup-ids 1 -- "$ROOFLINE" validate --measurements "$T/rows.yaml"
[ "$(grep -c "error: duplicate id" "$T/err")" = 1500 ] && echo "ok dup-ids-all" || echo "not ok dup-ids-all"
expect_err dup-ids-msg "$T/rows.yaml:1501:8: error: duplicate id 'r0' (first at line 1)"

# a trace that is a FIFO or a device: refused at once, never read without end or waited on
mkfifo "$T/trace.fifo"
for tr in "$T/trace.fifo" /dev/zero; do
    printf 'name: t\nmodel: llama-3-8b\nhardware: {id: h100-sxm, count: 1}\nscheduler: {policy: continuous}\narrivals: {process: trace, trace: %s}\nlengths: {prompt: trace, output: trace}\n' "$tr" >"$T/trsc.yaml"
    run "trace-not-regular-$(basename "$tr")" 1 -- timeout 120 "$ROOFLINE" simulate --scenario "$T/trsc.yaml"
    expect_err "trace-not-regular-$(basename "$tr")-msg" "cannot read the trace '$tr': not a regular file"
done

# simulate --requests-out through util/afile: a unique temporary name (O_EXCL), never through a
# fixed path.tmp (a symlink there made simulate overwrite its target), devices written
# directly, strerror with the path, temporaries removed on SIGTERM and after kill -9
sc=scenarios/continuous.yaml
echo victim >"$T/victim"
ln -s "$T/victim" "$T/req.csv.tmp"
echo old >"$T/req.csv.tmp"1.0
echo stale >"$T/req.csv.tmp999999999.3"
run req-out-symlink 0 -- "$ROOFLINE" simulate --scenario "$sc" --requests-out "$T/req.csv"
[ "$(cat "$T/victim")" = victim ] && echo "ok req-out-symlink-victim" || echo "not ok req-out-symlink-victim"
head -n 1 "$T/req.csv" | grep -q '^id,arrival_s,' && echo "ok req-out-written" || echo "not ok req-out-written"
[ -f "$T/req.csv.tmp1.0" ] && echo "ok req-out-live-pid-kept" || echo "not ok req-out-live-pid-kept"
[ ! -e "$T/req.csv.tmp999999999.3" ] && echo "ok req-out-stale-removed" || echo "not ok req-out-stale-removed"
run req-out-dev-null 0 -- "$ROOFLINE" simulate --scenario "$sc" --requests-out /dev/null
[ -c /dev/null ] && echo "ok req-out-dev-null-still-device" || echo "not ok req-out-dev-null-still-device"
if [ -c /dev/full ]; then
    run req-out-dev-full 1 -- "$ROOFLINE" simulate --scenario "$sc" --requests-out /dev/full
    expect_err req-out-dev-full-msg "/dev/full: error: cannot write '/dev/full': No space left on device"
fi
"$ROOFLINE" simulate --scenario "$sc" --requests-out /dev/stdout 2>"$T/err" | cat >"$T/stdout.csv"
grep -q '^id,arrival_s,' "$T/stdout.csv" && echo "ok req-out-dev-stdout" || echo "not ok req-out-dev-stdout"
[ -L /dev/stdout ] || [ ! -e /dev/stdout ] && echo "ok req-out-dev-stdout-kept" || echo "not ok req-out-dev-stdout-kept"
run req-out-missing-dir 1 -- "$ROOFLINE" simulate --scenario "$sc" --requests-out "$T/none/r.csv"
expect_err req-out-missing-dir-msg "$T/none/r.csv: error: cannot create '$T/none/r.csv.tmp"
expect_err req-out-missing-dir-why "': No such file or directory"
sed -e 's/requests: [0-9]*/requests: 1000000/' -e 's/warmup_requests: .*/warmup_requests: 10/' "$sc" >"$T/long.yaml"
# (SIGINT is ignored by background jobs of a non-interactive shell: TERM and HUP here). The
# signal goes as soon as the temporary exists: a loaded machine can stop the process right after
# it created the file (that window left the file behind, util/afile.c). Waiting for the file
# has no deadline (a starved process took over 10 s to get there): it ends when the file
# appears or the process has ended; the runner's TEST_TIMEOUT stops a hang.
# wait_tmp PID GLOB: until a file matching GLOB exists or PID has ended; 0 when the file is there
wait_tmp() {
    while kill -0 "$1" 2>/dev/null; do
        ls $2 >/dev/null 2>&1 && return 0
        sleep 0.05
    done
    ls $2 >/dev/null 2>&1
}
for sig in TERM HUP; do
    rm -f "$T/sig.csv"*
    "$ROOFLINE" simulate --scenario "$T/long.yaml" --requests-out "$T/sig.csv" >/dev/null 2>&1 &
    pid=$!
    wait_tmp $pid "$T/sig.csv.tmp$pid.*" && seen=1 || seen=0
    kill -$sig $pid
    wait $pid
    rc=$?
    if [ $seen = 1 ] && [ $rc -gt 128 ] && ! ls "$T/sig.csv"* >/dev/null 2>&1; then
        echo "ok req-out-sig$sig-cleans"
    else
        echo "not ok req-out-sig$sig-cleans: rc $rc, temporary seen $seen, left: $(ls "$T" | grep sig.csv)"
    fi
done

# calibrate writes every file first, then renames them all: one that cannot be written (here a
# directory in the way of an engine profile) leaves the old device classes whole, no temporary
mkdir -p "$T/cal/calibration" "$T/cal/engine_profiles/llama.cpp.yaml"
echo old >"$T/cal/calibration/device-classes.yaml"
run cal-all-or-none 1 -- "$ROOFLINE" calibrate --measurements calibration/measurements.yaml --engine llama.cpp --output-dir "$T/cal"
expect_err cal-all-or-none-msg "$T/cal/engine_profiles/llama.cpp.yaml: error: cannot write '$T/cal/engine_profiles/llama.cpp.yaml': Is a directory"
[ "$(cat "$T/cal/calibration/device-classes.yaml")" = old ] && echo "ok cal-all-or-none-old-kept" || echo "not ok cal-all-or-none-old-kept"
[ -z "$(find "$T/cal" -name '*.tmp*')" ] && echo "ok cal-all-or-none-no-temp" || echo "not ok cal-all-or-none-no-temp"

# explain options with bounds (1e-300 parameters gave inf tokens/s, 1e300 drafted tokens n/a,
# 1e300 output tokens inf decode devices)
run ex-params-tiny 2 -- "$ROOFLINE" explain prefill --params 1e-300
expect_err ex-params-tiny-msg "error: --params: expected from 1M to 100T parameters, got '1e-300'"
run ex-draft-k-huge 2 -- "$ROOFLINE" explain speculative --draft-k 1e300
expect_err ex-draft-k-huge-msg "error: --draft-k: expected a whole number of proposed tokens, 1 to 64, got '1e300'"
run ex-output-huge 2 -- "$ROOFLINE" explain disaggregation --output 1e300
expect_err ex-output-huge-msg "error: --output: expected a number of generated tokens, 1 to 1e7, got '1e300'"
# every bad explain option value is a usage error (exit 2, as --params), before any output
for a in "speculative --draft-k 0" "speculative --draft-k 2.5" "speculative --accept 1.5" \
    "speculative --draft-cost 0" "disaggregation --output 0" "disaggregation --output x" \
    "disaggregation --rate 0" "disaggregation --prefill-batch 0.5" "prefix-cache --hit 1" \
    "kv-cache --block-size 0"; do
    set -- $a
    run "ex-usage-$1$2-$3" 2 -- "$ROOFLINE" explain "$1" "$2" "$3"
    expect_err "ex-usage-$1$2-$3-msg" "error: $2: expected "
    [ -s "$T/out" ] && echo "not ok ex-usage-$1$2-$3-no-output" || echo "ok ex-usage-$1$2-$3-no-output"
done
# a model that does not fit says so (it printed '80 GB - 1.342 TB - 8 GB - -1.27 TB = 0 B')
run ex-kv-no-fit 0 -- "$ROOFLINE" explain kv-cache --model deepseek-v3 --gpu h100-sxm
expect_out ex-kv-no-fit-says "does not fit: needs 1.35 TB per device, 1.27 TB more than the 84.9 GB of the h100-sxm"
grep -q -- '- -[0-9]' "$T/out" && echo "not ok ex-kv-no-fit-negative" || echo "ok ex-kv-no-fit-negative"
run ex-moe-no-fit 0 -- "$ROOFLINE" explain moe --model mixtral-8x7b --gpu h100-sxm
expect_out ex-moe-no-fit-says "does not fit: needs 102 GB per device"
expect_err ex-moe-no-fit-warn "warning: mixtral-8x7b in bf16 does not fit on one h100-sxm"

# bench --write-profile into a missing directory fails before measuring (it measured for 14 s):
# no progress line of a measurement on stderr. This was a wall-clock limit of 5 s, which a
# starved process on a loaded machine can miss (dup-ids-80k below took 30 s for 0.8 s of CPU);
# the timeout only stops a hang.
run bench-write-missing-dir 1 -- timeout 300 "$ROOFLINE" bench --quick --write-profile "$T/nodir/host.yaml"
expect_err bench-write-missing-dir-msg "$T/nodir/host.yaml: error: cannot write into '$T/nodir': No such file or directory"
grep -q '] [a-z]*: ' "$T/err" && echo "not ok bench-write-missing-dir-measured-nothing: $(grep -c '] [a-z]*: ' "$T/err") progress lines" ||
    echo "ok bench-write-missing-dir-measured-nothing"

# a chart that cannot be written says why, with the path (a full disk said "drawing failed", or
# for PDF "canvas too small for its text?"): /dev/full through a symlink (written directly), a
# file-size limit (SIGXFSZ ignored, so write() fails with EFBIG), a path under a file; and a
# canvas that really is too small
if [ -c /dev/full ]; then
    for e in png svg pdf; do
        ln -sf /dev/full "$T/full.$e"
        run "chart-full-$e" 1 -- "$ROOFLINE" chart roofline --gpu h100-sxm --model llama-3-8b -o "$T/full.$e"
        expect_err "chart-full-$e-msg" "$T/full.$e: error: cannot write the chart: No space left on device"
    done
fi
(trap '' XFSZ && ulimit -f 8 && exec "$ROOFLINE" chart roofline --gpu h100-sxm --model llama-3-8b -o "$T/big.png") >"$T/out" 2>"$T/err"
echo "exit $?" >>"$T/out"
expect_out chart-fsize-exit "exit 1"
expect_err chart-fsize-msg "$T/big.png: error: cannot write the chart: File too large"
ls "$T" | grep -q '^big\.png' && echo "not ok chart-fsize-nothing-left: $(ls "$T" | grep big)" || echo "ok chart-fsize-nothing-left"
run chart-under-file 1 -- "$ROOFLINE" chart roofline --gpu h100-sxm --model llama-3-8b -o /etc/passwd/x.png
expect_err chart-under-file-msg "/etc/passwd/x.png: error: cannot create '/etc/passwd/x.png.tmp"
expect_err chart-under-file-why "': Not a directory"
run chart-too-small 1 -- "$ROOFLINE" chart roofline --gpu h100-sxm --model llama-3-8b --size 200x150 -o "$T/small.png"
expect_err chart-too-small-msg "$T/small.png: error: cannot lay the chart out on 200x150 px (too small for its text)"
[ -e "$T/small.png" ] && echo "not ok chart-too-small-no-file" || echo "ok chart-too-small-no-file"

# two simulations writing one --requests-out file at once corrupted it in 20 of 20 rounds: each
# now writes its own temporary and renames it, so the file is always one whole copy of either
# (different seeds, so that a mix of the two shows)
sed -e 's/^  requests: [0-9]*/  requests: 20000/' scenarios/continuous.yaml >"$T/both1.yaml"
sed -e 's/^  seed: [0-9]*/  seed: 2/' "$T/both1.yaml" >"$T/both2.yaml"
"$ROOFLINE" simulate --scenario "$T/both1.yaml" --requests-out "$T/ref1.csv" >/dev/null 2>&1
"$ROOFLINE" simulate --scenario "$T/both2.yaml" --requests-out "$T/ref2.csv" >/dev/null 2>&1
bad=0
for round in 1 2 3 4 5 6 7 8 9 10; do
    "$ROOFLINE" simulate --scenario "$T/both1.yaml" --requests-out "$T/both.csv" >/dev/null 2>&1 &
    p1=$!
    "$ROOFLINE" simulate --scenario "$T/both2.yaml" --requests-out "$T/both.csv" >/dev/null 2>&1 &
    p2=$!
    wait $p1 && wait $p2 && { cmp -s "$T/ref1.csv" "$T/both.csv" || cmp -s "$T/ref2.csv" "$T/both.csv"; } ||
        bad=$((bad + 1))
done
[ "$(wc -l <"$T/ref1.csv")" = 20001 ] && ! cmp -s "$T/ref1.csv" "$T/ref2.csv" && [ $bad = 0 ] &&
    [ -z "$(ls "$T" | grep 'both\.csv\.')" ] &&
    echo "ok req-out-two-writers (10 rounds)" || echo "not ok req-out-two-writers: $bad of 10 rounds differ"

# kill -9 left out.pdf.tmp<PID> files (31 of 40 kills): the next write to the same path removes
# the temporaries of processes that no longer run
"$ROOFLINE" simulate --scenario "$T/long.yaml" --requests-out "$T/k9.csv" >/dev/null 2>&1 &
pid=$!
wait_tmp $pid "$T/k9.csv.tmp$pid.*"
kill -9 $pid
{ wait $pid; } 2>/dev/null
left=$(ls "$T" | grep -c "^k9\.csv\.tmp$pid\.")
"$ROOFLINE" simulate --scenario "$sc" --requests-out "$T/k9.csv" >/dev/null 2>&1
[ "$left" = 1 ] && [ -z "$(ls "$T" | grep '^k9\.csv\.tmp')" ] && [ -s "$T/k9.csv" ] &&
    echo "ok kill9-temp-removed-by-next-run" || echo "not ok kill9-temp-removed-by-next-run: left $left, now $(ls "$T" | grep k9)"

# 80,000 keys in one mapping, each a duplicate or unknown (the pairwise check took 17 s, then
# sorting 120k errors by insertion 11 s): both now take about a second of CPU (5 s under ASan).
# The limit is CPU time (ulimit -t: killed, exit 137 or 152), which a loaded machine does not
# stretch: a 30 s wall-clock limit killed the 0.8 s of work of dup-ids-80k after 30 s with the
# test at idle priority beside two busy loops. timeout only stops a hang.
# cpu_limit S CMD...: CMD with at most S seconds of CPU time and 600 s of wall-clock time
cpu_limit() {
    (ulimit -t "$1" && shift && exec timeout 600 "$@")
}
{
    printf 'name: x\nvendor: nvidia\nkind: gpu\nmemory: {capacity: 80 GB, bandwidth: 3 TB/s}\n'
    printf 'compute: {fp16: 1 TFLOPS}\nsources: {memory: a, compute: b, cache_bandwidth: c}\n'
    printf 'cache_bandwidth:\n  l1: 1 TB/s\n'
    awk 'BEGIN { for (i = 0; i < 80000; i++) printf "  k%d: 1 TB/s\n", i % 40000 }'
} >"$T/keys80k.yaml"
run dup-keys-80k 1 -- cpu_limit 30 "$ROOFLINE" show gpu "$T/keys80k.yaml"
[ "$(grep -c "error: duplicate key 'cache_bandwidth.k" "$T/err")" = 40000 ] && echo "ok dup-keys-80k-all" || echo "not ok dup-keys-80k-all"
expect_err dup-keys-80k-msg "$T/keys80k.yaml:40009:3: error: duplicate key 'cache_bandwidth.k0' (first at line 9)"
awk -v row="$row" 'BEGIN { for (i = 0; i < 80000; i++) printf "- {id: r%d, %s\n", i % 40000, row }' >"$T/rows80k.yaml"
run dup-ids-80k 1 -- cpu_limit 30 "$ROOFLINE" validate --measurements "$T/rows80k.yaml"
expect_err dup-ids-80k-msg "$T/rows80k.yaml:40001:8: error: duplicate id 'r0' (first at line 1)"

# chart --measured with 20,000 labelled points took 20 s and 2.3 GB: labels go to the first 100
awk 'BEGIN { printf "{\"points\": [\n"; for (i = 0; i < 20000; i++) printf "  {\"label\": \"p%d\", \"intensity_flop_per_byte\": %g, \"flops_per_s\": %g}%s\n", i, 0.01 * exp(i / 2000), 1e11 * exp(i / 3000), i < 19999 ? "," : ""; printf "]}\n" }' >"$T/many.json"
run chart-20k-points 0 -- cpu_limit 30 "$ROOFLINE" chart roofline --gpu h100-sxm --model llama-3-8b --measured "$T/many.json" -o "$T/many.png"
expect_err chart-20k-points-msg "warning: $T/many.json: 20000 measured points have labels; only the first 100 are labelled on the chart"
