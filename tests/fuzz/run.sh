#!/bin/sh
# Run one libFuzzer harness: sh tests/fuzz/run.sh NAME SECONDS (from the repository top, after
# `make fuzz-build`). Seeds come from the shipped files and the bad catalogues; the growing
# corpus and any crash/timeout/leak reproducer land in build/fuzz/ (crash-*, timeout-*, leak-*).
# Prints one summary line: NAME: N runs in S s (R exec/s), corpus C, result.
set -u
name=$1
secs=${2:-60}
top=$(cd "$(dirname "$0")/../.." && pwd)
cd "$top" || exit 1
bin=build/fuzz/fuzz_$name
seeds=build/fuzz/seeds/$name
corpus=build/fuzz/corpus/$name
mkdir -p "$seeds" "$corpus" build/fuzz/artifacts build/fuzz/tmp
# the harnesses' scratch files stay under build/
TMPDIR=$top/build/fuzz/tmp
export TMPDIR
add() { for f in "$@"; do [ -f "$f" ] && cp "$f" "$seeds/" 2>/dev/null; done; }
case $name in
hw) add hardware_profiles/*.yaml tests/data/bad/hw-*.yaml tests/data/hw-*.yaml tests/data/bench/host.yaml ;;
model) add model_profiles/*.yaml tests/data/bad/model-*.yaml ;;
hfconfig) add model_profiles/*.json tests/data/*.json tests/data/bad/*.json model_profiles/*.yaml ;;
measure) add calibration/measurements.yaml tests/data/bad-measurements/*.yaml ;;
engine) add engine_profiles/*.yaml ;;
scenario) add scenarios/*.yaml tests/data/bad-scenarios/*.yaml ;;
trace) add scenarios/*.csv tests/data/*.csv tests/data/bad-scenarios/*.csv ;;
measured) add tests/data/golden/measured.json tests/data/*points*.json ;;
bench_report) add tests/data/bench/report.json ;;
cli)
    printf -- '--tp\0004\000--batch\0008\000--context\0004k' >"$seeds/engine"
    printf -- '--gpus\00016\000--reserve\00010%%\000--weights\000fp8\000--seed\00042' >"$seeds/more"
    printf -- '--tp\0004294967297\000--pp\0001e12\000--flash\000on\000x' >"$seeds/big"
    ;;
*) echo "unknown harness '$name'" >&2; exit 2 ;;
esac
log=build/fuzz/$name.log
extra=
[ "$name" = cli ] && extra=-close_fd_mask=2 # the option readers print usage errors
# -timeout: an input taking 10 s is a hang; -rss_limit_mb: a memory blow-up is a finding
nice -n 10 "$bin" -max_total_time="$secs" -timeout=10 -rss_limit_mb=2048 -print_final_stats=1 $extra \
    -artifact_prefix=build/fuzz/artifacts/"$name"- "$corpus" "$seeds" >"$log" 2>&1
rc=$?
runs=$(grep -ao 'stat::number_of_executed_units: *[0-9]*' "$log" | grep -o '[0-9]*$')
rate=$(grep -ao 'stat::average_exec_per_sec: *[0-9]*' "$log" | grep -o '[0-9]*$')
n=$(ls "$corpus" | wc -l)
if [ "$rc" = 0 ]; then result="no finding"; else result="FINDING (exit $rc, see $log)"; fi
echo "$name: ${runs:-?} runs in ${secs} s (${rate:-?} exec/s), corpus $n, $result"
[ "$rc" = 0 ]
