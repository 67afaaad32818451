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
sed 's|bandwidth: 3.35 TBs|bandwidth: 200 TB/s|' tests/data/bad/hw-bad-unit.yaml >"$T/fast.yaml"
run warn-bandwidth 0 -- "$ROOFLINE" show gpu "$T/fast.yaml"
expect_err warn-bandwidth-msg "$T/fast.yaml:6:14: warning: 'memory.bandwidth' is '200 TB/s', above 100 TB/s: check the unit"
