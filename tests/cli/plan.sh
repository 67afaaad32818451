#!/bin/sh
# roofline plan: the example questions answer in all three formats, --jobs and --shard give the
# same bytes as one run (plan merge), usage errors, and the bad-question catalogue (every
# tests/data/bad-questions/X.yaml fails with exit 1 and prints exactly X.err).
. "$(dirname "$0")/lib.sh"
top=$(cd "$(dirname "$0")/../.." && pwd)
cd "$top" || exit 1
q=reports/growing-service.yaml

run plan-table 0 -- "$ROOFLINE" plan --question $q
head -n 1 "$T/out" | grep -q '^plan: growing service' && echo "ok plan-first-line" || echo "not ok plan-first-line"
sed -n 2p "$T/out" | grep -q '^answer: rent [0-9]* x ' && echo "ok plan-answer-first" || echo "not ok plan-answer-first"
expect_out plan-ranked "ranked options"
expect_out plan-verify "verify: benchmark one instance at"
expect_out plan-launch "chosen: vllm serve llama-3.1-8b"
expect_out plan-growth "growth 10%/month:"
expect_out plan-volume "cost per hour against volume"
expect_out plan-rejected "rejected:"
expect_out plan-presets "mlperf-interactive"
expect_out plan-assumptions "tco.pue"
cp "$T/out" "$T/one.txt"
run plan-csv 0 -- "$ROOFLINE" plan --question $q -o csv
head -n 1 "$T/out" | grep -q '^rank,hardware,tp,attn_dp,pp,format,scheduler,' && echo "ok plan-csv-header" || echo "not ok plan-csv-header"
run plan-json 0 -- "$ROOFLINE" plan --question $q -o json
expect_out plan-json-tool '"command": "plan"'
expect_out plan-json-assumption '"is_default": true'
cp "$T/out" "$T/one.json"

# threads and shards give the same bytes
"$ROOFLINE" plan --question $q -o json --jobs 2 >"$T/j2.json" 2>/dev/null
cmp -s "$T/one.json" "$T/j2.json" && echo "ok plan-jobs-identical" || echo "not ok plan-jobs-identical"
for i in 0 1 2; do "$ROOFLINE" plan --question $q --shard $i/3 -o json >"$T/s$i.json" 2>/dev/null; done
"$ROOFLINE" plan merge "$T/s2.json" "$T/s0.json" "$T/s1.json" -o json >"$T/m.json" 2>"$T/err"
cmp -s "$T/one.json" "$T/m.json" && echo "ok plan-shard-merge-identical" || echo "not ok plan-shard-merge-identical"
"$ROOFLINE" plan merge "$T/s0.json" "$T/s1.json" "$T/s2.json" >"$T/m.txt" 2>/dev/null
cmp -s "$T/one.txt" "$T/m.txt" && echo "ok plan-shard-merge-table" || echo "not ok plan-shard-merge-table"
run plan-merge-missing 1 -- "$ROOFLINE" plan merge "$T/s0.json" "$T/s1.json"
expect_err plan-merge-missing-msg "shard 2/3 is missing"

# every rejected candidate has a reason
awk '/"rejected": \[/ { on = 1; next } on && /"reason": ""/ { bad = 1 } END { exit bad }' "$T/one.json" &&
    echo "ok plan-reasons" || echo "not ok plan-reasons"

# a question no candidate meets names the closest and what they miss by
sed 's/preset: mlperf-interactive/ttft: 1 ms/' $q >"$T/hard.yaml"
run plan-unmeetable 0 -- "$ROOFLINE" plan --question "$T/hard.yaml"
expect_out plan-unmeetable-answer "answer: no candidate meets"
expect_out plan-unmeetable-closest "closest 1:"

# concurrent users are sized as a closed loop: 4 users with 30 s think time on one instance,
# whose simulated closed loop of 4 users meets the SLOs (the open-loop bound 4 / 30 s needed 2)
run plan-home 0 -- "$ROOFLINE" plan --question reports/home-workstation.yaml
sed -n 2p "$T/out" | grep -q '^answer: buy 1 x ' && echo "ok plan-home-one-instance" || echo "not ok plan-home-one-instance"
sed -n 4p "$T/out" | grep -q '^  meets .* for 4 users (30 s think time, closed loop): .*(simulated)$' &&
    echo "ok plan-home-closed-loop-met" || echo "not ok plan-home-closed-loop-met"
expect_out plan-home-verify "verify: benchmark one instance with 4 users (closed loop"

# usage
run plan-no-question 2 -- "$ROOFLINE" plan
run plan-bad-shard 2 -- "$ROOFLINE" plan --question $q --shard 3/3 -o json
run plan-bad-format 2 -- "$ROOFLINE" plan --question $q -o xml

# the bad-question catalogue
for f in tests/data/bad-questions/*.yaml; do
    n=$(basename "$f" .yaml)
    "$ROOFLINE" plan --question "$f" >"$T/out" 2>"$T/err"
    rc=$?
    if [ $rc = 1 ] && cmp -s "$T/err" "tests/data/bad-questions/$n.err"; then
        echo "ok bad-question-$n"
    else
        echo "not ok bad-question-$n (exit $rc)"
        diff "tests/data/bad-questions/$n.err" "$T/err" | head -n 5
    fi
done

# the chart renders to a PNG (looked at by hand: docs/plan.md#chart)
run plan-chart 0 -- "$ROOFLINE" chart plan --question $q -o "$T/plan.png"
[ -s "$T/plan.png" ] && head -c 8 "$T/plan.png" | grep -q PNG && echo "ok plan-chart-png" || echo "not ok plan-chart-png"
run plan-chart-no-question 2 -- "$ROOFLINE" chart plan -o "$T/plan.png"

# a power budget caps the fleet: 1 kW rejects every option for power
run plan-power 0 -- "$ROOFLINE" plan --question $q --power-budget-kw 1
expect_out plan-power-none "answer: no candidate meets"
expect_out plan-power-reason "over the 1.0 kW budget"
run plan-power-bad 1 -- "$ROOFLINE" plan --question $q --power-budget-kw -3
expect_err plan-power-bad-msg "--power-budget-kw: expected a power in kW above 0"

# the offline example: no SLO, sized on saturation, finishes within the deadline
run plan-offline 0 -- "$ROOFLINE" plan --question reports/offline-batch.yaml
expect_out plan-offline-answer "finishes 1e+07 documents in"
expect_out plan-offline-slo "no latency SLO (offline: maximise throughput)"

# like-for-like rental prices: mi325x has no on-demand price, so it takes its closest basis (a
# list rental) with a flag; `any` takes the cheapest entries and the answer says the bases differ
cat >"$T/basis.yaml" <<'Q'
model: llama-3.1-70b
formats: [fp8]
workload: {rate_per_s: 1, prompt: 512, output: 128}
slo: {ttft: 2 s, itl: 50 ms}
candidates: {hardware: [mi325x, mi300x], tp: [1], schedulers: [continuous]}
plan: {requests: 300, confirm_top: 2}
Q
run plan-basis 0 -- "$ROOFLINE" plan --question "$T/basis.yaml"
expect_out plan-basis-ondemand-winner "answer: rent 1 x mi300x"
expect_out plan-basis-flag "mi325x price basis: list rental, commitment not stated, not on-demand"
expect_out plan-basis-answer "price basis: on-demand; 1 runner up priced list rental"
# the report's answer on page 1 carries the same caveat (a forwarded report must not hide it)
run plan-basis-report 0 -- "$ROOFLINE" report "$T/basis.yaml" -o "$T/basis.pdf"
if pdftotext -f 1 -l 1 "$T/basis.pdf" - | tr '\n' ' ' | grep -q "Note: price basis: on-demand; 1 runner up priced list rental"; then
    echo "ok plan-basis-report-note"
else
    echo "not ok plan-basis-report-note"
    pdftotext -f 1 -l 1 "$T/basis.pdf" - | head -20 | sed 's/^/  /'
fi
run plan-basis-csv 0 -- "$ROOFLINE" plan --question "$T/basis.yaml" -o csv
expect_out plan-basis-csv-flag ",list*,"
printf 'money: {rental_basis: any}\n' >>"$T/basis.yaml"
run plan-basis-any 0 -- "$ROOFLINE" plan --question "$T/basis.yaml"
expect_out plan-basis-any-price "12.00 USD/hour"
expect_out plan-basis-any-differs "1 runner up priced 3-year reserved tier"
# the runner-up the answer points at is named by its hardware too
expect_out plan-basis-any-differs-hw "priced 3-year reserved tier (runner-up 1, mi325x)"

# the launch line names the token budget the simulator used (chunked prefill: its default 2048)
sed 's/schedulers: \[continuous\]/schedulers: [chunked]/' "$T/basis.yaml" >"$T/chunked.yaml"
run plan-launch-budget 0 -- "$ROOFLINE" plan --question "$T/chunked.yaml"
expect_out plan-launch-budget-line "--max-num-seqs 256 --max-num-batched-tokens 2048 --quantization fp8 --enable-chunked-prefill"
# whole prompts (continuous) on vLLM V1, which chunks by default, need chunking turned off
run plan-launch-whole 0 -- "$ROOFLINE" plan --question "$T/basis.yaml"
expect_out plan-launch-whole-line "--max-num-seqs 256 --quantization fp8 --no-enable-chunked-prefill"

# every engine profile plans, with its own launch line (flags from each engine's documentation,
# docs/plan.md#launch-lines); the batch and token budget are the engine profile's serving
# defaults on an MI300X (SGLang 4096 requests and 8192-token chunks, TGI 128 and 4145)
for e in sglang tgi deepspeed; do
    cat >"$T/eng-$e.yaml" <<Q
model: llama-3.1-70b
engine: $e
formats: [{weights: fp8, kv: fp8}]
workload: {rate_per_s: 1, prompt: 512, output: 128}
slo: {ttft: 2 s, itl: 50 ms}
candidates: {hardware: [mi300x], tp: [2], schedulers: [chunked, continuous]}
plan: {requests: 300, confirm_top: 2}
Q
    run plan-engine-$e 0 -- "$ROOFLINE" plan --question "$T/eng-$e.yaml"
    case $e in
    sglang)
        expect_out plan-launch-sglang-chunked "python -m sglang.launch_server --model-path llama-3.1-70b --tp 2 --max-running-requests 4096 --chunked-prefill-size 8192 --quantization fp8 --kv-cache-dtype fp8_e5m2"
        expect_out plan-launch-sglang-whole "--tp 2 --max-running-requests 4096 --chunked-prefill-size -1 --quantization fp8 --kv-cache-dtype fp8_e5m2" ;;
    tgi)
        expect_out plan-launch-tgi "text-generation-launcher --model-id llama-3.1-70b --num-shard 2 --max-concurrent-requests 128 --max-batch-prefill-tokens 4145 --quantize fp8 --kv-cache-dtype fp8_e5m2" ;;
    deepspeed)
        expect_out plan-launch-mii "python -m mii.entrypoints.openai_api_server --model llama-3.1-70b --tensor-parallel 2" ;;
    esac
done
sed -e 's/^engine: sglang/engine: optimum-habana/' -e 's/hardware: \[mi300x\]/hardware: [gaudi3]/' "$T/eng-sglang.yaml" >"$T/eng-oh.yaml"
run plan-engine-optimum-habana 0 -- "$ROOFLINE" plan --question "$T/eng-oh.yaml" -o json
expect_out plan-launch-optimum-habana "QUANT_CONFIG=./quantization_config/maxabs_quant.json python ../gaudi_spawn.py --use_deepspeed --world_size 2 run_generation.py --model_name_or_path llama-3.1-70b --use_hpu_graphs --use_kv_cache --bucket_size 128 --bucket_internal --batch_size"
sed 's/^engine: sglang/engine: sglanx/' "$T/eng-sglang.yaml" >"$T/eng-bad.yaml"
run plan-engine-unknown 1 -- "$ROOFLINE" plan --question "$T/eng-bad.yaml"
expect_err plan-engine-unknown-msg "sglanx"
# kernels: {moe: marlin} in a question (docs/plan.md): vLLM's Marlin MoE for gpt-oss's MXFP4
# experts on Hopper, its slower prefill in every candidate's rate, and its environment variable
# on the launch lines; with kernels: {moe: auto} the default triton_kernels path, and no variable
cat >"$T/q-marlin.yaml" <<'YAML'
name: gpt-oss-120b on Hopper with vLLM's Marlin MoE
model: gpt-oss-120b
engine: vllm
kernels: {moe: marlin}
formats: [mxfp4_moe_bf16]
workload: {rate_per_s: 4, prompt: 4000, output: 300}
slo: {ttft: 2 s, itl: 50 ms, percentile: 99}
candidates: {hardware: [h100-sxm], tp: [2]}
money: {mode: rent}
YAML
sed 's/^kernels: {moe: marlin}/kernels: {moe: auto}/' "$T/q-marlin.yaml" >"$T/q-triton.yaml"
run plan-marlin 0 -- "$ROOFLINE" plan --question "$T/q-marlin.yaml"
expect_out plan-marlin-launch "chosen: VLLM_MXFP4_USE_MARLIN=1 vllm serve gpt-oss-120b --tensor-parallel-size 2"
rate_m=$(sed -n 's/.*per instance up to \([0-9.]*\) requests\/s.*/\1/p' "$T/out")
run plan-marlin-triton 0 -- "$ROOFLINE" plan --question "$T/q-triton.yaml"
rate_t=$(sed -n 's/.*per instance up to \([0-9.]*\) requests\/s.*/\1/p' "$T/out")
expect_no plan-marlin-triton-no-variable "VLLM_MXFP4_USE_MARLIN=1"
if awk -v m="$rate_m" -v t="$rate_t" 'BEGIN { exit !(m > 0 && t > 1.5 * m) }'; then
    echo "ok plan-marlin-slower-prefill ($rate_m against $rate_t requests/s an instance)"; else
    echo "not ok plan-marlin-slower-prefill: '$rate_m' against '$rate_t'"; fi
# no kernels.moe: the planner tries both kernels where Marlin runs (a Marlin twin of the MXFP4
# format, shown as +marlin) and picks by the objective: at 4000/300 tokens triton_kernels' faster
# prefill carries 14.02 requests/s an instance to Marlin's 6.60; on a B200 (no Marlin rate) the
# twin is not a candidate; JSON names the kernel
sed '/^kernels:/d; s/hardware: \[h100-sxm\]/hardware: [h100-sxm, b200]/' "$T/q-marlin.yaml" >"$T/q-both.yaml"
run plan-moe-both 0 -- "$ROOFLINE" plan --question "$T/q-both.yaml"
expect_out plan-moe-both-count "ranked options (3 evaluated of 3 candidates"
expect_out plan-moe-both-chosen "chosen: vllm serve gpt-oss-120b --tensor-parallel-size 2"
expect_out plan-moe-both-twin "h100-sxm   2   1  mxfp4_moe_bf16+marlin"
expect_out plan-moe-both-twin-rate "       6.60 "
expect_out plan-moe-both-launch ": VLLM_MXFP4_USE_MARLIN=1 vllm serve gpt-oss-120b --tensor-parallel-size 2"
# candidates.attn_dp (docs/plan.md, docs/physics.md#data-parallel-attention): by default (auto)
# an MLA model at tp 8 is tried with tensor- and with data-parallel attention; on 8 H200s
# DeepSeek-V3's latent cache, which tp 8 copies on every device, holds about 6x the sequences
# with attention dp 8, so an instance carries more requests/s (8.41 against 5.70) and the plan
# needs 3 instances, not 4; its launch line turns SGLang's DP attention on. A dense model with
# as many KV heads as tp (growing-service) is not tried with it; attn_dp: [1] turns it off; an
# engine without it (TGI) is refused with the reason
cat >"$T/q-dp.yaml" <<'YAML'
name: DeepSeek-V3 on 8 H200s at 20 requests/s
model: deepseek-v3
engine: sglang
formats: [fp8]
workload: {rate_per_s: 20, prompt: 1000, output: 1000}
slo: {ttft: 5 s, itl: 100 ms, percentile: 99}
candidates: {hardware: [h200], tp: [8], schedulers: [chunked]}
money: {mode: rent}
YAML
run plan-attn-dp 0 -- "$ROOFLINE" plan --question "$T/q-dp.yaml"
expect_out plan-attn-dp-answer "answer: rent 3 x h200 (tp 8, attention dp 8, pp 1, fp8, chunked"
expect_out plan-attn-dp-count "ranked options (2 evaluated of 2 candidates"
expect_out plan-attn-dp-column "#  hardware  tp  attn dp  pp"
expect_out plan-attn-dp-rate "        8.41     3"
expect_out plan-attn-dp-tp-rate "        5.70     4"
expect_out plan-attn-dp-launch "chosen: python -m sglang.launch_server --model-path deepseek-v3 --tp 8 --enable-dp-attention --dp 8 "
# the run's length follows its load (docs/plan.md#method): 600 requests, fewer than 8 x the ~500
# in flight, are lengthened to that, so the rate is the one 6000 give (a run of 600 alone
# admitted every request at once and passed at 57.8 requests/s, five times the saturation)
sed 's/^money: {mode: rent}$/money: {mode: rent}\nplan: {requests: 600}/' "$T/q-dp.yaml" >"$T/q-dp-600.yaml"
run plan-run-length 0 -- "$ROOFLINE" plan --question "$T/q-dp-600.yaml"
expect_out plan-run-length-rate "        8.41     3"
run plan-attn-dp-json 0 -- "$ROOFLINE" plan --question "$T/q-dp.yaml" -o json
expect_out plan-attn-dp-json-field '"attn_dp": 8'
sed 's/schedulers: \[chunked\]}/schedulers: [chunked], attn_dp: [1]}/' "$T/q-dp.yaml" >"$T/q-dp-off.yaml"
run plan-attn-dp-off 0 -- "$ROOFLINE" plan --question "$T/q-dp-off.yaml"
expect_out plan-attn-dp-off-count "ranked options (1 evaluated of 1 candidates"
expect_no plan-attn-dp-off-column "attn dp"
sed 's/^engine: sglang/engine: tgi/; s/schedulers: \[chunked\]}/schedulers: [chunked], attn_dp: [8]}/' \
    "$T/q-dp.yaml" >"$T/q-dp-tgi.yaml"
run plan-attn-dp-tgi 0 -- "$ROOFLINE" plan --question "$T/q-dp-tgi.yaml"
expect_out plan-attn-dp-tgi-reason "h200 tp 8, attention dp 8 pp 1 fp8 chunked: the engine (tgi) has no data-parallel attention; its profile says attn_dp: none (tp 8, attention dp 8, pp 1)"
# vLLM's --max-num-seqs and --max-num-batched-tokens are each rank's (its profile's attn_dp:
# per_rank): the defaults, 1024 and 8192 a rank, are the instance's 8192 and 65536
sed 's/^engine: sglang/engine: vllm/' "$T/q-dp.yaml" >"$T/q-dp-vllm.yaml"
run plan-attn-dp-vllm 0 -- "$ROOFLINE" plan --question "$T/q-dp-vllm.yaml"
expect_out plan-attn-dp-vllm-answer "attention dp 8, pp 1, fp8, chunked, max batch 8192, 1024 a rank)"
expect_out plan-attn-dp-vllm-launch "--data-parallel-size 8 --max-num-seqs 1024 --max-num-batched-tokens 8192 "
run plan-attn-dp-dense 0 -- "$ROOFLINE" plan --question $q -o csv
awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) if ($i == "attn_dp") k = i }
         NR > 1 && $k != 1 { bad = 1 } END { exit !(k > 0 && NR > 1 && !bad) }' "$T/out" &&
    echo "ok plan-attn-dp-dense-none" || echo "not ok plan-attn-dp-dense-none"
run plan-moe-both-json 0 -- "$ROOFLINE" plan --question "$T/q-both.yaml" -o json
expect_out plan-moe-both-json-field '"moe_marlin": true'
expect_out plan-moe-both-json-field-off '"moe_marlin": false'

