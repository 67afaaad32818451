#!/bin/sh
# roofline bench and validate --host: one quick run (about 20 s on 2 cores) writes the JSON, the
# hardware profile and the chart points; everything else reads those files. No speed is checked.
. "$(dirname "$0")/lib.sh"
top=$(cd "$(dirname "$0")/../.." && pwd)

# usage errors first: they cost nothing
run bench-bad-format 2 -- "$ROOFLINE" bench -o csv
expect_err bench-bad-format-msg "error: -o: expected table or json"
run bench-bad-threads 2 -- "$ROOFLINE" bench --threads 0
expect_err bench-bad-threads-msg "error: --threads: must be at least 1, got '0'"
run bench-bad-rounds 2 -- "$ROOFLINE" bench --rounds 9
expect_err bench-bad-rounds-msg "error: --rounds: must be at most 8, got 9"
run bench-zero-rounds 2 -- "$ROOFLINE" bench --rounds 0
expect_err bench-zero-rounds-msg "error: --rounds: must be at least 1"
run bench-bad-parts 2 -- "$ROOFLINE" bench --parts stream,gpu
expect_err bench-bad-parts-msg "error: --parts: unknown part 'gpu'"
run bench-extra-arg 2 -- "$ROOFLINE" bench now
expect_err bench-extra-arg-msg "error: unexpected argument 'now'"
run validate-host-and-measurements 2 -- "$ROOFLINE" validate --host --measurements x.yaml
expect_err validate-modes-msg "error: --host and --measurements are separate modes"
run validate-missing-bench 1 -- "$ROOFLINE" validate --host --bench "$T/none.json"
expect_err validate-missing-bench-msg "none.json"
printf '{"tool": "roofline", "command": "analyze"}\n' >"$T/other.json"
run validate-not-bench 1 -- "$ROOFLINE" validate --host --bench "$T/other.json"
expect_err validate-not-bench-msg "not a 'roofline bench -o json' report"

# the one measuring run
run bench-quick 0 -- "$ROOFLINE" bench --quick -o json --write-profile "$T/host.yaml" \
    --points "$T/points.json"
cp "$T/out" "$T/bench.json"
cp "$T/err" "$T/bench.err"
expect_out bench-json-tool '"tool": "roofline"'
expect_out bench-json-command '"command": "bench"'
expect_out bench-json-samples '"samples": ['
expect_out bench-json-fit '"fit": {'
expect_out bench-json-model '"id": "bench-small"'
expect_out bench-json-checks '"validation": "ok"'
expect_err bench-progress "] memory: STREAM triad"
expect_err bench-progress-model "] model: round 3/3: bench-small_decode_2048"
expect_out bench-json-rounds '"rounds": 3'
# round-robin rounds (docs/bench.md#shared-noisy-hosts): every LLM case visited in each round it
# has samples due (--quick: 3 samples, 1 per round; prefill 2, none in round 3), its samples
# tagged with their rounds, its probe within its rounds' probes (the mean of two when the median
# falls between samples of two rounds)
python3 - "$T/bench.json" <<'PY' && echo "ok bench-json-round-robin" || echo "not ok bench-json-round-robin"
import json, sys
d = json.load(open(sys.argv[1]))
llm = [c for c in d["cases"] if c["kind"] != "stream" and not c.get("calibration")]
assert len(llm) == 10, len(llm)
for c in llm:
    n = len(c["time_s"]["samples"])
    want = [1, 2] if c["phase"] == "prefill" else [1, 2, 3]
    assert c["rounds"] == len(want) and n == len(want), c["id"]
    assert sorted(c["sample_rounds"]) == want, c["id"]
    p = [x for x in c["round_probes_bytes_per_s"] if x > 0]
    assert len(p) == len(want), c["id"]
    assert min(p) <= c["probe_bandwidth_bytes_per_s"] <= max(p), c["id"]
PY
expect_err bench-wrote-profile "wrote $T/host.yaml"
# --rounds 1: the former protocol, every sample of a case in one visit (kernels only, about 5 s)
run bench-one-round 0 -- "$ROOFLINE" bench --quick --parts kernels --rounds 1 -o json
python3 - "$T/out" <<'PY' && echo "ok bench-one-round-samples" || echo "not ok bench-one-round-samples"
import json, sys
d = json.load(open(sys.argv[1]))
assert d["rounds"] == 1 and len(d["cases"]) == 6
for c in d["cases"]:
    assert c["rounds"] == 1 and c["sample_rounds"] == [1, 1, 1], c["id"]
PY
# the profile is in place and no temporary file is left beside it (whatever its name scheme)
if [ -f "$T/host.yaml" ] && [ -z "$(find "$T" -name 'host.yaml?*' -print)" ]; then
    echo "ok bench-profile-file"
else
    echo "not ok bench-profile-file: $(ls "$T")"
fi
grep -q '"points": \[' "$T/points.json" && echo "ok bench-points-file" ||
    echo "not ok bench-points-file"

run bench-profile-loads 0 -- "$ROOFLINE" show gpu "$T/host.yaml"
expect_out bench-profile-kind "kind cpu"
expect_out bench-profile-sources "measured by roofline bench on"
grep -q '^cache_bandwidth:' "$T/host.yaml" && echo "ok bench-profile-cache-bw" ||
    echo "not ok bench-profile-cache-bw"
# a fraction in (0, 1]: 1 when a neighbour's load depressed the peak measurement more than the GEMM
grep -Eq '^gemm_efficiency: (0\.[0-9]*[1-9][0-9]*|1(\.0*)?)$' "$T/host.yaml" && echo "ok bench-profile-gemm-efficiency" ||
    echo "not ok bench-profile-gemm-efficiency"
grep -q '^provenance:' "$T/host.yaml" && echo "ok bench-profile-provenance" ||
    echo "not ok bench-profile-provenance"

# validate --host from the saved run: CSV columns are a stable interface
run validate-host-csv 0 -- "$ROOFLINE" validate --host --bench "$T/bench.json" -o csv
head -n 1 "$T/out" >"$T/header"
if [ "$(cat "$T/header")" = "id,phase,predicted,measured,error_pct,reason" ]; then
    echo "ok validate-host-csv-header"
else
    echo "not ok validate-host-csv-header: $(cat "$T/header")"
fi
expect_out validate-host-csv-decode "bench-small_decode_2048,decode,"
expect_out validate-host-csv-prefill "bench-small_prefill_256,prefill,"
expect_out validate-host-csv-gemv ",kernel,"
expect_out validate-host-csv-gemm "gemm_64x4096x4096,kernel,"
if grep -q "gemm_calibration" "$T/out"; then
    echo "not ok validate-host-skips-calibration: the calibration GEMM is scored"
else echo "ok validate-host-skips-calibration"; fi
grep -q '"calibration": true' "$T/bench.json" && echo "ok bench-json-calibration" ||
    echo "not ok bench-json-calibration"
run validate-host-table 0 -- "$ROOFLINE" validate --host --bench "$T/bench.json" \
    --profile "$T/host.yaml"
expect_out validate-host-summary "median |error| %"
expect_out validate-host-memory "memory-bound"
run validate-host-json 0 -- "$ROOFLINE" validate --host --bench "$T/bench.json" -o json
expect_out validate-host-json-rows '"rows": ['
expect_out validate-host-json-p90 '"p90_abs_error_pct"'
grep -Eq '"gemm_efficiency": (0\.[0-9]+|1(\.0+)?)[,}[:space:]]' "$T/out" &&
    echo "ok validate-host-json-efficiency" || echo "not ok validate-host-json-efficiency"

# the pool's fork-join round trip is measured on more than one thread and charged per parallel
# kernel: on the fixed report, 37 fork-joins of 1 ms add 37 ms to the decode prediction
if [ "$(nproc)" -gt 1 ]; then
    grep -q '"fork_join": {"threads": ' "$T/bench.json" && echo "ok bench-json-fork-join" ||
        echo "not ok bench-json-fork-join"
    grep -Eq '"launch_overhead_s": [0-9.e+-]+' "$T/bench.json" && echo "ok bench-json-launch-overhead" ||
        echo "not ok bench-json-launch-overhead"
    grep -q '"id": "bench-small_decode_2048".*"launches": 37,' "$T/bench.json" &&
        echo "ok bench-json-decode-launches" || echo "not ok bench-json-decode-launches"
fi
python3 - "$top/tests/data/bench/report.json" "$T/fj.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
d["roofs"]["launch_overhead_s"] = 1e-3
for c in d["cases"]:
    if c["id"] == "bench-small_decode_2048":
        c["launches"] = 37
json.dump(d, open(sys.argv[2], "w"))
PY
run validate-host-fixed 0 -- "$ROOFLINE" validate --host --bench "$top/tests/data/bench/report.json" -o csv
cp "$T/out" "$T/fixed.csv"
run validate-host-fork-join 0 -- "$ROOFLINE" validate --host --bench "$T/fj.json" -o csv
python3 - "$T/fixed.csv" "$T/out" <<'PY' && echo "ok validate-host-fork-join-charge" || echo "not ok validate-host-fork-join-charge"
import csv, sys
a = {r["id"]: float(r["predicted"]) for r in csv.DictReader(open(sys.argv[1]))}
b = {r["id"]: float(r["predicted"]) for r in csv.DictReader(open(sys.argv[2]))}
d = b["bench-small_decode_2048"] - a["bench-small_decode_2048"]
others = [k for k in a if k != "bench-small_decode_2048" and a[k] != b[k]]
sys.exit(0 if abs(d - 0.037) < 1e-6 and not others else 1)
PY
# the overlap of core time and stream: measured by every run with kernels; on the fixed report
# an 8-row pass as fast as the one-row pass hides all (predictions unchanged), one 8 x 4 ms
# slower hides nothing (every kernel pays its core time on top)
grep -q '"overlap": {"rows": 8, ' "$T/bench.json" && echo "ok bench-json-overlap" ||
    echo "not ok bench-json-overlap"
for ov in hidden exposed; do
    python3 - "$top/tests/data/bench/report.json" "$T/ov-$ov.json" "$ov" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
t1 = {"reps": 1, "warmup_runs": 1, "min": 0.02, "median": 0.02, "max": 0.02, "mean": 0.02, "samples": [0.02]}
t8 = dict(t1, min=0.02 if sys.argv[3] == "hidden" else 0.05)
d["overlap"] = {"rows": 8, "bytes": 2.7e8, "flops_per_row": 1.35e8, "gemv_time_s": t1, "gemm_time_s": t8}
json.dump(d, open(sys.argv[2], "w"))
PY
    run validate-host-overlap-$ov 0 -- "$ROOFLINE" validate --host --bench "$T/ov-$ov.json" -o csv
    cp "$T/out" "$T/ov-$ov.csv"
done
cmp -s "$T/fixed.csv" "$T/ov-hidden.csv" && echo "ok validate-host-overlap-hidden-unchanged" ||
    echo "not ok validate-host-overlap-hidden-unchanged"
grep -q '^gemm_8x4096x4096.*of core time not hidden' "$T/ov-exposed.csv" &&
    echo "ok validate-host-overlap-exposed" || echo "not ok validate-host-overlap-exposed"
run validate-host-overlap-json 0 -- "$ROOFLINE" validate --host --bench "$T/ov-exposed.json" -o json
expect_out validate-host-overlap-json-zero '"overlap": 0,'
# the LLC a cyclic stream sees (docs/bench.md#the-llc-scan): measured by every run with kernels;
# on the fixed report nothing retained leaves every prediction as it was, 100 MB retained at
# 20 GB/s over its 5.35 GB/s roof makes the memory-bound cases faster and says so
grep -q '"llc": {"kernel": "weights' "$T/bench.json" && echo "ok bench-json-llc" ||
    echo "not ok bench-json-llc"
grep -Eq '"llc_retained_bytes": [0-9.e+-]+' "$T/bench.json" && echo "ok bench-json-llc-retained" ||
    echo "not ok bench-json-llc-retained"
grep -q '] memory: LLC scan, weight stream over ' "$T/bench.err" && echo "ok bench-progress-llc" ||
    echo "not ok bench-progress-llc"
for kept in 0 1e8; do
    python3 - "$top/tests/data/bench/report.json" "$T/llc-$kept.json" "$kept" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
d["roofs"].update(llc_stream_bytes=2e8, llc_retained_bytes=float(sys.argv[3]),
                  llc_bandwidth_bytes_per_s=2e10)
json.dump(d, open(sys.argv[2], "w"))
PY
    run validate-host-llc-$kept 0 -- "$ROOFLINE" validate --host --bench "$T/llc-$kept.json" -o csv
    cp "$T/out" "$T/llc-$kept.csv"
done
cmp -s "$T/fixed.csv" "$T/llc-0.csv" && echo "ok validate-host-llc-none-unchanged" ||
    echo "not ok validate-host-llc-none-unchanged"
python3 - "$T/fixed.csv" "$T/llc-1e8.csv" <<'PY' && echo "ok validate-host-llc-faster" || echo "not ok validate-host-llc-faster"
import csv, sys
a = {r["id"]: r for r in csv.DictReader(open(sys.argv[1]))}
b = {r["id"]: r for r in csv.DictReader(open(sys.argv[2]))}
mem = [k for k in a if a[k]["reason"].startswith("memory-bound")]
ok = mem and all(float(b[k]["predicted"]) < float(a[k]["predicted"]) and
                 "100 MB of it from the LLC" in b[k]["reason"] for k in mem)
sys.exit(0 if ok else 1)
PY
run validate-host-llc-table 0 -- "$ROOFLINE" validate --host --bench "$T/llc-1e8.json"
expect_out validate-host-llc-header "the LLC retains 100 MB of a stream"
# the same from a profile: llc_stream read back, and refused where it contradicts itself
sed 's/^sources:/llc_stream:\n  size: 200 MB\n  retained: 100 MB\n  bandwidth: 20 GB\/s\nsources:\n  llc_stream: "test"/' \
    "$top/tests/data/bench/host.yaml" >"$T/llc-host.yaml"
run validate-host-llc-profile 0 -- "$ROOFLINE" validate --host --bench "$top/tests/data/bench/report.json" \
    --profile "$T/llc-host.yaml" -o csv
expect_out validate-host-llc-profile-reason "100 MB of it from the LLC"
sed 's/retained: 100 MB/retained: 300 MB/' "$T/llc-host.yaml" >"$T/llc-bad.yaml"
run validate-host-llc-bad 1 -- "$ROOFLINE" validate --host --bench "$top/tests/data/bench/report.json" \
    --profile "$T/llc-bad.yaml"
expect_err validate-host-llc-bad-msg "llc-bad.yaml:"
expect_err validate-host-llc-bad-msg2 "error: 'llc_stream.retained' (3e+08 B) must be at most 'llc_stream.size' (2e+08 B)"
run validate-host-fork-join-table 0 -- "$ROOFLINE" validate --host --bench "$T/fj.json"
expect_out validate-host-fork-join-reason "+ 37 fork-joins x 1.00 ms"
expect_out validate-host-fork-join-header "1.00 ms per fork-join"

# the chart reads the points file, or the bench report itself (the model then defaults to the
# one the bench ran, in fp32)
run bench-chart-points 0 -- "$ROOFLINE" chart roofline --gpu "$T/host.yaml" --model bench-small \
    --measured "$T/points.json" -o "$T/roof.png"
run bench-chart-report 0 -- "$ROOFLINE" chart roofline --gpu "$T/host.yaml" \
    --measured "$T/bench.json" -o "$T/roof.pdf"
# the labels are checked on a fixed report and profile (tests/data/bench/, from one quick run):
# which ERT points land inside this host's chart depends on its speeds
run bench-chart-fixed 0 -- "$ROOFLINE" chart roofline --gpu "$top/tests/data/bench/host.yaml" \
    --measured "$top/tests/data/bench/report.json" -o "$T/roof.pdf"
pdftotext "$T/roof.pdf" "$T/roof.txt"
for want in "bench-small on" "weights fp32" "ERT 64 FLOP/B" "gemm_"; do
    if grep -qF "$want" "$T/roof.txt"; then echo "ok bench-chart-report text '$want'"; else
        echo "not ok bench-chart-report text lacks '$want'"; fi
done
run bench-chart-no-model 2 -- "$ROOFLINE" chart roofline --gpu "$T/host.yaml" \
    --measured "$T/points.json" -o "$T/x.png"
expect_err bench-chart-no-model-msg "--model may be left out with --measured from roofline bench"

# before any bench run there is no host profile: say how to make one
mkdir -p "$T/nohost/hardware_profiles" "$T/nohost/model_profiles"
run no-host-profile 1 -- env ROOFLINE_DATA="$T/nohost" "$ROOFLINE" show gpu host
expect_err no-host-profile-hint "no profile of this machine yet: 'roofline bench --write-profile"
