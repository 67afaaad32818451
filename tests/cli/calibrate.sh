#!/bin/sh
# validate --measurements, calibrate, cross-validation and bands through the CLI.
. "$(dirname "$0")/lib.sh"
top=$(cd "$(dirname "$0")/../.." && pwd)
cd "$top" || exit 1
M=calibration/measurements.yaml
# rows in the shipped file (one flow mapping per line); every one must get a prediction
N=$(grep -c '^- {id:' $M)

run validate-table 0 -- "$ROOFLINE" validate --measurements $M
expect_out validate-summary "median |err| %"
expect_out validate-rows "$N rows, $N predicted, 0 not modelled"
run validate-csv 0 -- "$ROOFLINE" validate --measurements $M -o csv
head -n 1 "$T/out" | grep -q '^id,phase,hardware,engine,metric,predicted,measured,error_pct,band_low,band_high,reason$' && echo "ok validate-csv-header" || echo "not ok validate-csv-header: $(head -n 1 "$T/out")"
[ "$(wc -l <"$T/out")" = $((N + 1)) ] && echo "ok validate-csv-rows" || echo "not ok validate-csv-rows"
# error_pct is (predicted - measured) / measured x 100, signed
awk -F, 'NR > 1 && $8 != "" { d = ($6 - $7) / $7 * 100 - $8; if (d > 1e-3 || d < -1e-3) bad++ } END { exit bad > 0 }' "$T/out" && echo "ok validate-error-sign" || echo "not ok validate-error-sign"
# vLLM's two engines as the loader sees them: every vLLM row published before V1's first release
# (2025-01-27: Argonne's 2024 runs, Oracle's post of 2024-10-10) and the 0.7.3 rows run on
# vllm-v0 (17 + 32 = 49 rows); the rows of vLLM 0.10 and 0.11 (V1) on vllm
awk -F, 'NR > 1 && $4 == "vllm-v0" { v0++ } NR > 1 && ($1 ~ /^(alcf|oci)-/ && $4 ~ /^vllm/ && $4 != "vllm-v0") { bad++ }
    NR > 1 && $1 ~ /-v01(00|01|02|11)-/ && $4 != "vllm" { bad++ } NR > 1 && $1 ~ /-v0111-/ { v1++ }
    END { exit !(v0 == 49 && v1 == 32 && bad == 0) }' "$T/out" && echo "ok validate-vllm-v0-split" || echo "not ok validate-vllm-v0-split"
# a data directory whose vllm.yaml is vllm-v0.yaml without its per-token host work (V0's fitted
# kernels and step, named vllm), so that the two differ by the token overhead alone
mkdir -p "$T/v0data/engine_profiles"
for d in hardware_profiles model_profiles calibration; do ln -s "$top/$d" "$T/v0data/$d"; done
cp engine_profiles/*.yaml "$T/v0data/engine_profiles/"
sed -e 's/^name: vllm-v0$/name: vllm/' -e '/^ *token_overhead:/d' engine_profiles/vllm-v0.yaml \
    >"$T/v0data/engine_profiles/vllm.yaml"
# a relabelled row predicts with vllm-v0: the same row as that vllm plus 100 us per sampled
# token, 128 passes (1 prefill, 127 decode steps) x 64 sequences x 100 us = 0.8192 s
grep '^- {id: alcf-h100-l2-7b-vllm-io128-b64,' $M >"$T/v0row.yaml"
sed 's/engine: vllm-v0,/engine: vllm,/; s/id: alcf-h100-l2-7b-vllm-io128-b64,/id: as-vllm,/' "$T/v0row.yaml" >>"$T/v0row.yaml"
run validate-v0-row 0 -- env ROOFLINE_DATA="$T/v0data" "$ROOFLINE" validate --measurements "$T/v0row.yaml" -o csv
awk -F, '$1 == "alcf-h100-l2-7b-vllm-io128-b64" && $4 == "vllm-v0" { a = $6 } $1 == "as-vllm" { b = $6 }
    END { d = a - b - 0.8192; exit !(b > 0 && d < 1e-6 && d > -1e-6) }' "$T/out" && echo "ok validate-v0-row-predicts-v0" || echo "not ok validate-v0-row-predicts-v0"
run validate-json 0 -- "$ROOFLINE" validate --measurements $M -o json
python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); assert len(d["rows"])==int(sys.argv[2]) and d["summary"][0]["group"]=="all"' "$T/out" "$N" && echo "ok validate-json" || echo "not ok validate-json"

# a row we cannot model is listed with its reason, never dropped
cat >"$T/mixed.yaml" <<'YAML'
- {id: ok1, source: "test", hardware: h100-sxm, model: llama-3-8b, weights: fp16, engine: llama.cpp, phase: decode, batch: 1, context: 512, metric: tokens_per_s, value: 100}
- {id: nohw, source: "test", hardware: h999, model: llama-3-8b, weights: fp16, engine: llama.cpp, phase: decode, batch: 1, context: 512, metric: tokens_per_s, value: 100}
- {id: ar, source: "test", hardware: h100-sxm, engine: kernel, phase: kernel, op: allreduce, bytes: 1000000, count: 8, metric: time_ms, value: 0.1, weights: fp16}
YAML
run validate-reasons 0 -- "$ROOFLINE" validate --measurements "$T/mixed.yaml" -o csv
expect_out validate-reason-hw "nohw,decode,h999,llama.cpp,tokens_per_s,,100,,,,no hardware profile with this id"
expect_out validate-reason-op "unsupported kernel op"

for f in tests/data/bad-measurements/*.yaml; do
    "$ROOFLINE" validate --measurements "$f" >"$T/out" 2>"$T/err"
    rc=$?
    if [ "$rc" = 1 ] && diff -u "${f%.yaml}.err" "$T/err" >/dev/null; then echo "ok bad-measurement $(basename "$f")"; else
        echo "not ok bad-measurement $(basename "$f") (exit $rc)"; diff -u "${f%.yaml}.err" "$T/err"; fi
done

# calibrate writes new profiles elsewhere and leaves the originals alone
before=$(cat engine_profiles/llama.cpp.yaml calibration/device-classes.yaml | cksum)
run calibrate-fit 0 -- "$ROOFLINE" calibrate --measurements $M --engine llama.cpp --output-dir "$T/cal"
expect_out calibrate-params "llama.cpp.step_overhead"
expect_out calibrate-sigma "1-sigma"
[ -f "$T/cal/engine_profiles/llama.cpp.yaml" ] && echo "ok calibrate-wrote" || echo "not ok calibrate-wrote"
# engines with no profile of their own (rows of mlx and gpt-fast use the generic kernel model)
# get no profile written: they were not fitted
[ ! -e "$T/cal/engine_profiles/mlx.yaml" ] && [ ! -e "$T/cal/engine_profiles/gpt-fast.yaml" ] &&
    echo "ok calibrate-no-generic-profiles" || echo "not ok calibrate-no-generic-profiles"
grep -q "provenance:" "$T/cal/engine_profiles/llama.cpp.yaml" && echo "ok calibrate-provenance" || echo "not ok calibrate-provenance"
after=$(cat engine_profiles/llama.cpp.yaml calibration/device-classes.yaml | cksum)
[ "$before" = "$after" ] && echo "ok calibrate-originals-untouched" || echo "not ok calibrate-originals-untouched"
# the written profiles load and give predictions
run calibrate-reload 0 -- "$ROOFLINE" validate --measurements $M --params "$T/cal"
expect_out calibrate-reload-rows "$N predicted"

# --fit: one engine parameter alone, the classes and the engine's other parameters held; with
# --max-batch only the rows of at most that many sequences. vLLM V1's rows at batch 1-4 (the
# 70B/405B fp8 runs on 8 x MI300X) leave no room for host time: from the shipped 430 us
# (measured, engine_profiles/vllm.yaml) the fit goes down, and nothing but the step is fitted
V1B4=$(grep -E 'engine: vllm[,}]' $M | grep -cE 'batch: [1-4],')
run calibrate-one-param 0 -- "$ROOFLINE" calibrate --measurements $M --engine vllm --max-batch 4 \
    --fit step_overhead
expect_out calibrate-one-param-rows "fitted 1 parameters to $V1B4 rows"
if awk '$1 == "vllm.step_overhead" { v = $2 } /\.(kernel_overhead|memory_efficiency|compute_efficiency)/ { bad = 1 }
    END { exit !(v > 0 && v < 430 && !bad) }' "$T/out"; then echo "ok calibrate-one-param-value"
else echo "not ok calibrate-one-param-value"; sed 's/^/  /' "$T/out" | head -8; fi
run calibrate-fit-unknown 1 -- "$ROOFLINE" calibrate --measurements $M --fit launch_overhead
expect_err calibrate-fit-unknown-msg "error: --fit takes step_overhead"
run calibrate-max-batch-bad 1 -- "$ROOFLINE" calibrate --measurements $M --max-batch 0
expect_err calibrate-max-batch-bad-msg "error: --max-batch needs"

run crossval 0 -- "$ROOFLINE" calibrate --measurements $M --cross-validate
expect_out crossval-title "leave-one-device-out"
expect_out crossval-decode "phase decode"
expect_out crossval-vendor-title "leave-one-vendor-out"
expect_out crossval-vendor-row "vendor apple"
expect_err crossval-vendor-held "cross-validation: held out vendor nvidia"
# leave-one-vendor-out on a made-up set: two NVIDIA devices (5 rows), one Apple device (2 rows)
# and a row no profile resolves; every Apple row is predicted by a fit on the 5 NVIDIA rows
cat >"$T/vendors.yaml" <<'YAML'
- {id: n1, source: "test", hardware: h100-sxm, weights: fp16, engine: kernel, phase: kernel, op: matmul, m: 64, n: 4096, k: 4096, metric: time_ms, value: 0.05}
- {id: n2, source: "test", hardware: h100-sxm, weights: fp16, engine: kernel, phase: kernel, op: matmul, m: 1024, n: 4096, k: 4096, metric: time_ms, value: 0.08}
- {id: n3, source: "test", hardware: a100-sxm-80gb, weights: fp16, engine: kernel, phase: kernel, op: matmul, m: 64, n: 4096, k: 4096, metric: time_ms, value: 0.06}
- {id: n4, source: "test", hardware: a100-sxm-80gb, weights: fp16, engine: kernel, phase: kernel, op: matmul, m: 1024, n: 4096, k: 4096, metric: time_ms, value: 0.20}
- {id: n5, source: "test", hardware: a100-sxm-80gb, weights: fp16, engine: kernel, phase: kernel, op: matmul, m: 4096, n: 4096, k: 4096, metric: time_ms, value: 0.75}
- {id: a1, source: "test", hardware: m2-ultra-76c, weights: fp16, engine: kernel, phase: kernel, op: matmul, m: 64, n: 4096, k: 4096, metric: time_ms, value: 0.9}
- {id: a2, source: "test", hardware: m2-ultra-76c, weights: fp16, engine: kernel, phase: kernel, op: matmul, m: 1024, n: 4096, k: 4096, metric: time_ms, value: 3.0}
- {id: x1, source: "test", hardware: h999, weights: fp16, engine: kernel, phase: kernel, op: matmul, m: 64, n: 4096, k: 4096, metric: time_ms, value: 0.05}
YAML
run crossval-vendors 0 -- "$ROOFLINE" calibrate --measurements "$T/vendors.yaml" --cross-validate
expect_err crossval-vendors-apple "cross-validation: held out vendor apple (trained on 5 rows)"
expect_err crossval-vendors-nvidia "cross-validation: held out vendor nvidia (trained on 2 rows)"
awk '/leave-one-vendor-out/ { v = 1 } v && $1 == "vendor" && $2 == "apple" && $3 == 2 { ok = 1 } END { exit !ok }' "$T/out" && echo "ok crossval-vendors-table" || echo "not ok crossval-vendors-table"
run crossval-vendors-json 0 -- "$ROOFLINE" calibrate --measurements "$T/vendors.yaml" --cross-validate -o json
python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); v=[g for g in d["leave_one_vendor_out"] if g["group"]=="vendor apple"]; assert len(d["leave_one_device_out"])>0 and v and v[0]["count"]==2' "$T/out" && echo "ok crossval-vendors-json" || echo "not ok crossval-vendors-json"
# the rows held out by vendor (--by vendor): the same rows as by device, but each NVIDIA row is
# predicted by a fit on the two Apple rows alone, so it moves; the default is --by device
run crossval-rows-device 0 -- "$ROOFLINE" calibrate --measurements "$T/vendors.yaml" --cross-validate -o csv
cp "$T/out" "$T/rows-default.csv"
run crossval-rows-device-explicit 0 -- "$ROOFLINE" calibrate --measurements "$T/vendors.yaml" --cross-validate -o csv --by device
cmp -s "$T/out" "$T/rows-default.csv" && echo "ok crossval-rows-by-device-default" || echo "not ok crossval-rows-by-device-default"
run crossval-rows-vendor 0 -- "$ROOFLINE" calibrate --measurements "$T/vendors.yaml" --cross-validate -o csv --by vendor
expect_err crossval-rows-vendor-held "cross-validation: held out vendor apple (trained on 5 rows)"
awk -F, 'NR == FNR { if ($1 != "id") d[$1] = $6; next } $1 != "id" { n++; if (!($1 in d)) bad = 1; if ($1 == "n1" && $6 != "" && $6 != d["n1"]) moved = 1; if ($1 == "a1" && $6 == "") bad = 1 } END { exit !(n == 8 && !bad && moved) }' "$T/rows-default.csv" "$T/out" && echo "ok crossval-rows-by-vendor" || echo "not ok crossval-rows-by-vendor"
run crossval-by-needs-csv 2 -- "$ROOFLINE" calibrate --measurements "$T/vendors.yaml" --cross-validate --by vendor
expect_err crossval-by-needs-csv-msg "error: --by needs --cross-validate -o csv"
run crossval-by-bad 2 -- "$ROOFLINE" calibrate --measurements "$T/vendors.yaml" --cross-validate -o csv --by chip
expect_err crossval-by-bad-msg "error: --by takes device or vendor"

run bands 0 -- "$ROOFLINE" analyze --gpu rtx-4090 --model llama-3-8b --weights q4_k_m --engine llama.cpp --bands --phase decode --ops
expect_out bands-low "80% band low"
# the default engine (kernel) has bands; the datasheet roofline has none
run bands-default 0 -- "$ROOFLINE" analyze --gpu rtx-4090 --model llama-3-8b --bands --phase decode --ops
expect_out bands-default-low "80% band low"
run bands-noengine 2 -- "$ROOFLINE" analyze --gpu rtx-4090 --model llama-3-8b --bands --engine datasheet
expect_err bands-noengine-msg "error: --bands needs an engine, not the datasheet roofline"
run engine-unknown 2 -- "$ROOFLINE" analyze --gpu rtx-4090 --model llama-3-8b --engine vllmm
expect_err engine-unknown-msg "unknown engine 'vllmm'"
