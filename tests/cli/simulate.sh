#!/bin/sh
# roofline simulate: the example scenarios in every format, determinism (same seed, same bytes),
# Little's law in the output, traces with requests an engine rejects, --max-rate, usage errors,
# and the bad-scenario catalogue (every tests/data/bad-scenarios/X.yaml fails with exit 1 and
# prints exactly X.err).
. "$(dirname "$0")/lib.sh"
top=$(cd "$(dirname "$0")/../.." && pwd)
cd "$top" || exit 1

# the examples, one per scheduler, in all three formats
for s in static continuous chunked disaggregated; do
    run sim-$s 0 -- "$ROOFLINE" simulate --scenario scenarios/$s.yaml
    expect_out sim-$s-policy "scheduler $s, admission "
    expect_out sim-$s-latency "model mean"
    expect_out sim-$s-throughput "during arrivals: output tokens/s"
    expect_out sim-$s-answer "  answer: "
    run sim-$s-csv 0 -- "$ROOFLINE" simulate --scenario scenarios/$s.yaml -o csv
    expect_out sim-$s-csv-header "scenario,model,hardware,engine,policy,admission,instances,seed,requests,"
    [ "$(wc -l <"$T/out")" = 2 ] && echo "ok sim-$s-csv-lines" || echo "not ok sim-$s-csv-lines"
    # Little's law: L = lambda W (equal to rounding: the run ends empty)
    awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i }
             NR == 2 { l = $c["littles_l"]; w = $c["littles_lambda_w"]; d = l - w; if (d < 0) d = -d
                       exit !(l > 0 && d <= 1e-6 * l) }' "$T/out" &&
        echo "ok sim-$s-little" || echo "not ok sim-$s-little"
    run sim-$s-json 0 -- "$ROOFLINE" simulate --scenario scenarios/$s.yaml -o json
    expect_out sim-$s-json-tool '"tool": "roofline"'
    expect_out sim-$s-json-seed '"seed": 1,'
    expect_out sim-$s-json-profiles '"profiles": {"model": '
    expect_out sim-$s-json-latency '"metric": "ttft"'
done

# the same seed gives byte-identical output and per-request files; another seed does not
"$ROOFLINE" simulate --scenario scenarios/chunked.yaml -o json --requests-out "$T/r1.csv" >"$T/a.json" 2>/dev/null
"$ROOFLINE" simulate --scenario scenarios/chunked.yaml -o json --requests-out "$T/r2.csv" >"$T/b.json" 2>/dev/null
cmp -s "$T/a.json" "$T/b.json" && echo "ok sim-deterministic" || echo "not ok sim-deterministic"
cmp -s "$T/r1.csv" "$T/r2.csv" && echo "ok sim-deterministic-requests" || echo "not ok sim-deterministic-requests"
"$ROOFLINE" simulate --scenario scenarios/chunked.yaml -o json --seed 7 >"$T/c.json" 2>/dev/null
cmp -s "$T/a.json" "$T/c.json" && echo "not ok sim-seed-matters" || echo "ok sim-seed-matters"
grep -q '"seed": 7,' "$T/c.json" && echo "ok sim-seed-in-json" || echo "not ok sim-seed-in-json"
head -n 1 "$T/r1.csv" | grep -qx 'id,arrival_s,prompt_tokens,output_tokens,status,reject,warmup,instance,queue_s,ttft_s,tpot_s,max_itl_s,e2e_s,finish_s,preemptions,slo_met,recomputed_tokens' &&
    echo "ok sim-requests-header" || echo "not ok sim-requests-header"
[ "$(wc -l <"$T/r1.csv")" = 2001 ] && echo "ok sim-requests-rows" || echo "not ok sim-requests-rows"
[ ! -e "$T/r1.csv.tmp" ] && echo "ok sim-requests-renamed" || echo "not ok sim-requests-renamed"

# each request's recomputed prompt tokens (the last column): under vllm admission on a small KV
# pool requests are preempted and their column sums to the summary's recomputed_tokens (every
# request leaves); with room for all nothing is preempted and the column is all 0
cat >"$T/pre.yaml" <<'EOF'
model: llama-3-8b
hardware: {id: h100-sxm}
scheduler:
  policy: continuous
  admission: vllm
  kv_fraction: 0.02
arrivals: {process: poisson, rate_per_s: 40}
lengths:
  prompt: {dist: fixed, value: 1000}
  output: {dist: fixed, value: 400}
run: {requests: 300, warmup_requests: 20}
EOF
# the summary's value in column NAME of the CSV on stdin
sum_col() { awk -F, -v n="$1" 'NR == 1 { for (i = 1; i <= NF; i++) if ($i == n) c = i } NR == 2 { print $c }'; }
"$ROOFLINE" simulate --scenario "$T/pre.yaml" -o csv --requests-out "$T/pre.csv" >"$T/pre.sum" 2>/dev/null
want=$(sum_col recomputed_tokens <"$T/pre.sum")
got=$(awk -F, 'NR > 1 { s += $NF; n += ($NF > 0) } END { print s, n }' "$T/pre.csv")
if [ "$(sum_col preemptions <"$T/pre.sum")" -gt 0 ] && [ "${want:-0}" -gt 0 ] &&
    [ "${got% *}" = "$want" ] && [ "${got#* }" -gt 0 ]; then
    echo "ok sim-requests-recomputed-sum"
else echo "not ok sim-requests-recomputed-sum ($want vs $got)"; fi
sed 's/kv_fraction: 0.02/kv_fraction: 0.9/' "$T/pre.yaml" >"$T/nopre.yaml"
"$ROOFLINE" simulate --scenario "$T/nopre.yaml" -o csv --requests-out "$T/nopre.csv" >"$T/nopre.sum" 2>/dev/null
if [ "$(sum_col preemptions <"$T/nopre.sum")" = 0 ] && [ "$(wc -l <"$T/nopre.csv")" = 301 ] &&
    awk -F, 'NR > 1 && $NF != "0" { bad = 1 } END { exit bad }' "$T/nopre.csv"; then
    echo "ok sim-requests-recomputed-none"
else echo "not ok sim-requests-recomputed-none"; fi

# a trace with requests a real engine turns away: counted, the rest served
cat >"$T/trace.csv" <<'EOF'
arrival_s,prompt,output
# an empty prompt, a request without output, one over the 8192-token context
0.00,0,16
0.05,64,0
0.10,9000,16
0.20,128,32
0.20,256,16
0.90,64,64
EOF
cat >"$T/trace.yaml" <<EOF
model: llama-3-8b
hardware: {id: h100-sxm}
scheduler: {policy: continuous, max_tokens_per_step: 4096}
arrivals:
  process: trace
  trace: $T/trace.csv
EOF
run sim-trace 0 -- "$ROOFLINE" simulate --scenario "$T/trace.yaml" -o csv --requests-out "$T/tr.csv"
awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i }
         NR == 2 { exit !($c["requests"] == 6 && $c["completed"] == 3 && $c["rejected"] == 3 &&
                          $c["rejected_empty"] == 2 && $c["rejected_context"] == 1) }' "$T/out" &&
    echo "ok sim-trace-rejections" || echo "not ok sim-trace-rejections"
grep -q '^2,0.1,9000,16,rejected,context,0,,' "$T/tr.csv" && echo "ok sim-trace-rejected-row" ||
    echo "not ok sim-trace-rejected-row"

# --max-rate: bisection on the Poisson rate (a short run per probe)
sed -e 's/requests: 2000/requests: 400/' -e 's/warmup_requests: 100/warmup_requests: 40/' \
    scenarios/continuous.yaml >"$T/mr.yaml"
run sim-max-rate 0 -- "$ROOFLINE" simulate --scenario "$T/mr.yaml" --max-rate --target 0.95
expect_out sim-max-rate-answer "max rate: "
expect_out sim-max-rate-probes "attainment"
run sim-max-rate-json 0 -- "$ROOFLINE" simulate --scenario "$T/mr.yaml" --max-rate -o json
expect_out sim-max-rate-json-key '"max_rate_per_s": '
expect_out sim-max-rate-json-target '"target": 0.99,'
run sim-max-rate-csv 0 -- "$ROOFLINE" simulate --scenario "$T/mr.yaml" --max-rate -o csv
expect_out sim-max-rate-csv-header "rate_per_s,slo_attainment,goodput_req_per_s,ttft_p99_s,tpot_p99_s,e2e_p99_s,meets_target"
grep -v '^slo:' scenarios/static.yaml | grep -v '^  ttft:\|^  e2e:' >"$T/noslo.yaml"
run sim-max-rate-no-slo 1 -- "$ROOFLINE" simulate --scenario "$T/noslo.yaml" --max-rate
expect_err sim-max-rate-no-slo-msg "error: --max-rate needs an 'slo' section in the scenario"

# usage and output errors
run sim-no-scenario 2 -- "$ROOFLINE" simulate
expect_err sim-no-scenario-msg "error: --scenario is required"
run sim-target-alone 2 -- "$ROOFLINE" simulate --scenario scenarios/static.yaml --target 0.9
expect_err sim-target-alone-msg "error: --target goes with --max-rate"
run sim-bad-target 2 -- "$ROOFLINE" simulate --scenario scenarios/static.yaml --max-rate --target 2
run sim-bad-format 2 -- "$ROOFLINE" simulate --scenario scenarios/static.yaml -o xml
run sim-bad-option 2 -- "$ROOFLINE" simulate --scenari scenarios/static.yaml
expect_err sim-bad-option-hint "did you mean '--scenario'?"
run sim-missing-file 1 -- "$ROOFLINE" simulate --scenario "$T/none.yaml"
run sim-full 1 -- sh -c "'$ROOFLINE' simulate --scenario scenarios/static.yaml >/dev/full"
run sim-requests-out-bad 1 -- "$ROOFLINE" simulate --scenario scenarios/static.yaml --requests-out "$T/no/such/dir.csv"
run sim-help 0 -- "$ROOFLINE" help simulate
expect_out sim-help-usage "roofline simulate --scenario FILE"

# every engine profile runs in a scenario, and the output names the engine and its admission;
# without 'engine' the calibrated kernel model runs
for e in kernel vllm tensorrt-llm llama.cpp deepspeed; do
    { grep -v "^engine:" scenarios/chunked.yaml; echo "engine: $e"; } >"$T/eng.yaml"
    run sim-engine-$e 0 -- "$ROOFLINE" simulate --scenario "$T/eng.yaml"
    expect_out sim-engine-$e-named "engine $e"
done
# the engine's own limits when the scenario sets none (vLLM's on a device of 70 GiB or more)
{ grep -v -e "^engine:" -e "max_batch:" -e "max_tokens_per_step:" scenarios/chunked.yaml
  echo "engine: vllm"; } >"$T/eng.yaml"
run sim-engine-vllm-limits 0 -- "$ROOFLINE" simulate --scenario "$T/eng.yaml"
expect_out sim-engine-vllm-admission "admission vllm: max batch 1024, 8192 tokens per step"
# vLLM's asynchronous scheduling follows the engine (docs/simulate.md#asynchronous-scheduling):
# named in the header and in the summary's last column; scheduler.async_scheduling: false
# turns it off; other engines have none
expect_out sim-engine-vllm-async-header ", asynchronous scheduling"
run sim-engine-vllm-async-csv 0 -- "$ROOFLINE" simulate --scenario "$T/eng.yaml" -o csv
if head -n 1 "$T/out" | grep -q ',recomputed_tokens,recomputed_tokens_per_request,async_scheduling$' &&
    tail -n 1 "$T/out" | grep -q ',yes$'; then echo "ok sim-engine-vllm-async-csv-yes"; else
    echo "not ok sim-engine-vllm-async-csv-yes"; fi
sed 's/^scheduler:$/scheduler:\n  async_scheduling: false/' "$T/eng.yaml" >"$T/eng-sync.yaml"
run sim-engine-vllm-sync 0 -- "$ROOFLINE" simulate --scenario "$T/eng-sync.yaml" -o csv
tail -n 1 "$T/out" | grep -q ',no$' && echo "ok sim-engine-vllm-sync-no" ||
    echo "not ok sim-engine-vllm-sync-no"
{ grep -v "^engine:" scenarios/chunked.yaml; echo "engine: tensorrt-llm"; } >"$T/trt.yaml"
run sim-engine-trt-no-async 0 -- "$ROOFLINE" simulate --scenario "$T/trt.yaml"
grep -q '^asynchronous scheduling  *no$' "$T/out" && echo "ok sim-engine-trt-no-async-table" ||
    echo "not ok sim-engine-trt-no-async-table"
# vLLM's hybrid KV cache manager (docs/simulate.md#sliding-window-layers-in-the-kv-pool): a model
# with sliding-window layers gets blocks of one layer group (twice as many for gpt-oss's 18 + 18
# layers), named in the header; scheduler.kv_window_blocks: false keeps every token in every layer
cat >"$T/swa.yaml" <<'EOS'
model: gpt-oss-20b
hardware: {id: h100-sxm}
dtypes: {weights: mxfp4_moe_bf16}
engine: vllm
scheduler: {policy: chunked}
arrivals: {process: closed, users: 4}
lengths: {prompt: 2000, output: 50}
run: {requests: 8}
EOS
run sim-kv-window 0 -- "$ROOFLINE" simulate --scenario "$T/swa.yaml" -o csv
cp "$T/out" "$T/swa.csv"
sed 's/^scheduler: {policy: chunked}$/scheduler: {policy: chunked, kv_window_blocks: false}/' "$T/swa.yaml" >"$T/swa-off.yaml"
run sim-kv-window-off 0 -- "$ROOFLINE" simulate --scenario "$T/swa-off.yaml" -o csv
awk -F, 'FNR == 1 { for (i = 1; i <= NF; i++) if ($i == "kv_blocks") k = i }
         FNR == 2 { v[++n] = $k } END { exit !(n == 2 && (v[1] == 2 * v[2] || v[1] == 2 * v[2] + 1)) }' \
    "$T/swa.csv" "$T/out" && echo "ok sim-kv-window-blocks-doubled" || echo "not ok sim-kv-window-blocks-doubled"
run sim-kv-window-header 0 -- "$ROOFLINE" simulate --scenario "$T/swa.yaml"
expect_out sim-kv-window-header-text "KV blocks of 16 tokens of 1/2 of the layers"
# hardware.ep (docs/physics.md#expert-parallelism): DeepSeek-V3's experts dealt whole over 8
# groups of the tp 8 devices, named in the header; at 4 users the busiest group's experts make
# every decode step longer than tp 8 alone, so the output tokens/s fall
cat >"$T/ep.yaml" <<'EOS'
model: deepseek-v3
hardware: {id: h200, count: 8, tp: 8, ep: 8}
dtypes: {weights: fp8}
engine: sglang
scheduler: {policy: chunked}
arrivals: {process: closed, users: 4}
lengths: {prompt: 1000, output: 20}
run: {requests: 8}
EOS
run sim-ep-header 0 -- "$ROOFLINE" simulate --scenario "$T/ep.yaml"
expect_out sim-ep-header-text "deepseek-v3 on 8 x h200 (tp 8, ep 8, pp 1: 1 instance)"
run sim-ep 0 -- "$ROOFLINE" simulate --scenario "$T/ep.yaml" -o csv
cp "$T/out" "$T/ep.csv"
sed 's/, ep: 8}$/}/' "$T/ep.yaml" >"$T/ep-off.yaml"
run sim-ep-off 0 -- "$ROOFLINE" simulate --scenario "$T/ep-off.yaml" -o csv
awk -F, 'FNR == 1 { for (i = 1; i <= NF; i++) if ($i == "output_tokens_per_s") k = i }
         FNR == 2 { v[++n] = $k } END { exit !(n == 2 && v[1] > 0 && v[1] < v[2]) }' \
    "$T/ep.csv" "$T/out" && echo "ok sim-ep-slower-at-4-users" || echo "not ok sim-ep-slower-at-4-users"
# hardware.attn_dp (docs/physics.md#data-parallel-attention): DeepSeek-V3 at 1024 users on 8
# H200s, each device attending its own eighth of the sequences: its latent cache holds only
# theirs, so the instance keeps about 6x the sequences of tp 8 alone (blocks in the header) and
# at saturation its output tokens/s are higher
cat >"$T/adp.yaml" <<'EOS'
model: deepseek-v3
hardware: {id: h200, count: 8, tp: 8, attn_dp: 8}
dtypes: {weights: fp8, kv: fp8}
engine: sglang
scheduler: {policy: chunked}
arrivals: {process: closed, users: 1024}
lengths: {prompt: 1000, output: 1000}
run: {requests: 2048}
EOS
run sim-attn-dp-header 0 -- "$ROOFLINE" simulate --scenario "$T/adp.yaml"
expect_out sim-attn-dp-header-text "deepseek-v3 on 8 x h200 (tp 8, attention dp 8, pp 1: 1 instance)"
expect_out sim-attn-dp-blocks "KV blocks of 16 tokens (530064 per instance)"
# a prompt is one rank's: SGLang's limits are the instance's, divided among the ranks
expect_out sim-attn-dp-rank-share "8192 tokens per step (a rank's share: 512 sequences, 1024 prompt tokens)"
# vLLM's are each rank's (its profile's attn_dp: per_rank): 8 engine cores of 1024 and 8192
sed 's/^engine: sglang$/engine: vllm/' "$T/adp.yaml" >"$T/adp-vllm.yaml"
run sim-attn-dp-vllm 0 -- "$ROOFLINE" simulate --scenario "$T/adp-vllm.yaml"
expect_out sim-attn-dp-vllm-per-rank "max batch 8192, 65536 tokens per step (a rank's share: 1024 sequences, 8192 prompt tokens)"
run sim-attn-dp 0 -- "$ROOFLINE" simulate --scenario "$T/adp.yaml" -o csv
cp "$T/out" "$T/adp.csv"
sed 's/, attn_dp: 8}$/}/' "$T/adp.yaml" >"$T/adp-off.yaml"
run sim-attn-dp-off 0 -- "$ROOFLINE" simulate --scenario "$T/adp-off.yaml"
expect_out sim-attn-dp-off-blocks "KV blocks of 16 tokens (84028 per instance)"
run sim-attn-dp-off-csv 0 -- "$ROOFLINE" simulate --scenario "$T/adp-off.yaml" -o csv
awk -F, 'FNR == 1 { for (i = 1; i <= NF; i++) if ($i == "output_tokens_per_s") k = i }
         FNR == 2 { v[++n] = $k } END { exit !(n == 2 && v[2] > 0 && v[1] > 1.4 * v[2]) }' \
    "$T/adp.csv" "$T/out" && echo "ok sim-attn-dp-faster-at-saturation" ||
    echo "not ok sim-attn-dp-faster-at-saturation"
# SGLang's receive interval (docs/simulate.md#receive-interval): named in the header; requests
# that arrive while others run wait for the poll, so the mean TTFT grows
sed 's/^scheduler:$/scheduler:\n  recv_interval: 30/' scenarios/chunked.yaml >"$T/recv.yaml"
run sim-recv-interval 0 -- "$ROOFLINE" simulate --scenario "$T/recv.yaml" -o csv
cp "$T/out" "$T/recv.csv"
run sim-recv-interval-one 0 -- "$ROOFLINE" simulate --scenario scenarios/chunked.yaml -o csv
awk -F, 'FNR == 1 { for (i = 1; i <= NF; i++) if ($i == "ttft_mean_s") k = i }
         FNR == 2 { v[++n] = $k } END { exit !(n == 2 && v[1] > v[2]) }' "$T/recv.csv" "$T/out" &&
    echo "ok sim-recv-interval-ttft" || echo "not ok sim-recv-interval-ttft"
run sim-recv-interval-table 0 -- "$ROOFLINE" simulate --scenario "$T/recv.yaml"
expect_out sim-recv-interval-header "input polled every 30 decode steps"
# SGLang's eager prefill (docs/simulate.md#eager-prefill): named in the header; TensorRT-LLM's
# profile has none
{ grep -v -e "^engine:" -e "preemption:" scenarios/chunked.yaml; echo "engine: sglang"; } >"$T/sgl.yaml"
run sim-eager-prefill-table 0 -- "$ROOFLINE" simulate --scenario "$T/sgl.yaml"
expect_out sim-eager-prefill-header ", prompt passes eager (65.3 us a launch)"
# and its overlap scheduler: the next batch formed while one runs (engine_profiles/sglang.yaml)
expect_out sim-sglang-async-header ", asynchronous scheduling, prompt passes eager"
# and its TokenizerManager: the prompts tokenised one at a time (docs/simulate.md#tokenisation)
expect_out sim-sglang-tokenize-header "prompts tokenised one at a time at 1.93 us a token"
# SGLang's admission is its profile's (docs/simulate.md#admission); scheduler.max_prefill_tokens
# (its --max-prefill-tokens) is a whole number of at least 1
expect_out sim-engine-sglang-admission "admission sglang: max batch 128"
sed 's/^scheduler:$/scheduler:\n  max_prefill_tokens: 32768/' "$T/sgl.yaml" >"$T/sgl-mpt.yaml"
run sim-max-prefill-tokens 0 -- "$ROOFLINE" simulate --scenario "$T/sgl-mpt.yaml"
sed 's/^scheduler:$/scheduler:\n  max_prefill_tokens: 0/' "$T/sgl.yaml" >"$T/sgl-mpt0.yaml"
run sim-max-prefill-tokens-zero 1 -- "$ROOFLINE" simulate --scenario "$T/sgl-mpt0.yaml"
expect_err sim-max-prefill-tokens-zero-msg "sgl-mpt0.yaml:15:23: error: 'scheduler.max_prefill_tokens' must be at least 1, got 0"
# vLLM's hybrid allocator (docs/simulate.md#linear-attention-state-in-the-pool): Qwen3-Next's
# DeltaNet state raises the block to 1072 tokens at tp 2 with an fp8 cache (548,864 B a layer
# against 512 B a token); a block size set above it stays
printf 'model: qwen3-next-80b-a3b\nhardware: {id: h100-sxm, count: 2, tp: 2}\ndtypes: {weights: fp8, kv: fp8}\nengine: vllm\nscheduler: {policy: chunked}\narrivals: {process: closed, users: 8, think_time: 0 s}\nlengths: {prompt: 512, output: 16}\nrun: {requests: 16}\n' >"$T/next.yaml"
run sim-hybrid-block 0 -- "$ROOFLINE" simulate --scenario "$T/next.yaml"
expect_out sim-hybrid-block-header "KV blocks of 1072 tokens (raised from 16 so that a KV layer's block holds a linear layer's state; "
sed 's/policy: chunked}/policy: chunked, block_size: 2048}/' "$T/next.yaml" >"$T/next2.yaml"
run sim-hybrid-block-set 0 -- "$ROOFLINE" simulate --scenario "$T/next2.yaml"
expect_out sim-hybrid-block-set-header "KV blocks of 2048 tokens ("
expect_no sim-hybrid-block-set-not-raised "raised"
# SGLang retracts and recomputes: swap preemption is refused with its position
{ grep -v "^engine:" scenarios/chunked.yaml; echo "engine: sglang"; } >"$T/sgl-swap.yaml"
run sim-sglang-swap 1 -- "$ROOFLINE" simulate --scenario "$T/sgl-swap.yaml"
expect_err sim-sglang-swap-msg "sgl-swap.yaml:20:15: error: 'scheduler.preemption: swap' does not apply to admission sglang"
run sim-eager-prefill-trt 0 -- "$ROOFLINE" simulate --scenario "$T/trt.yaml"
grep -q "prompt passes" "$T/out" && echo "not ok sim-eager-prefill-trt-none" ||
    echo "ok sim-eager-prefill-trt-none"
# vLLM's Marlin MoE for MXFP4 experts (kernels.moe: marlin, VLLM_MXFP4_USE_MARLIN=1,
# docs/physics.md#moe-kernels): named in the header where its rate applies (vllm on Hopper); its
# experts stored padded, so fewer KV blocks than the default kernel's; a note where it cannot apply
cat >"$T/marlin.yaml" <<'YAML'
model: gpt-oss-120b
hardware: {id: h200}
dtypes: {weights: mxfp4_moe_bf16}
engine: vllm
kernels: {moe: marlin}
scheduler: {policy: chunked}
arrivals: {process: closed, users: 4, think_time: 0 s}
lengths: {prompt: 1000, output: 50}
run: {requests: 12}
YAML
run sim-marlin 0 -- "$ROOFLINE" simulate --scenario "$T/marlin.yaml" -o csv
cp "$T/out" "$T/marlin.csv"
run sim-marlin-table 0 -- "$ROOFLINE" simulate --scenario "$T/marlin.yaml"
expect_out sim-marlin-header "engine vllm, experts through Marlin (its issue-bound rate on Hopper)"
sed 's/moe: marlin/moe: auto/' "$T/marlin.yaml" >"$T/marlin-auto.yaml"
run sim-marlin-auto 0 -- "$ROOFLINE" simulate --scenario "$T/marlin-auto.yaml" -o csv
if python3 - "$T/marlin.csv" "$T/out" <<'PY'
import csv, sys
m, a = (list(csv.DictReader(open(f)))[0] for f in sys.argv[1:])
# Marlin's slower prefill, and its padded experts (5.50 GB more) leave the pool less
assert float(m['ttft_p50_s']) > 1.5 * float(a['ttft_p50_s']), (m['ttft_p50_s'], a['ttft_p50_s'])
d = float(a['kv_pool_bytes']) - float(m['kv_pool_bytes'])
assert abs(d - 5504827392) < 0.01 * d, d
PY
then echo "ok sim-marlin-slower-prefill"; else echo "not ok sim-marlin-slower-prefill"; fi
sed 's/engine: vllm/engine: kernel/' "$T/marlin.yaml" >"$T/marlin-kernel.yaml"
run sim-marlin-no-effect 0 -- "$ROOFLINE" simulate --scenario "$T/marlin-kernel.yaml"
expect_out sim-marlin-no-effect-note "kernels.moe marlin: no effect here"
grep -v '^engine:' scenarios/chunked.yaml >"$T/noeng.yaml"
run sim-engine-default 0 -- "$ROOFLINE" simulate --scenario "$T/noeng.yaml"
expect_out sim-engine-default-kernel "engine kernel"
expect_out sim-engine-default-no-evict "admission no_evict"

# a data directory whose vllm.yaml is vllm-v0.yaml without its per-token host work (V0's fitted
# kernels and step, named vllm), so that the two differ by the token overhead alone; neither
# tokenises (docs/simulate.md#tokenisation: staggered arrivals would change the static batches)
mkdir -p "$T/v0data/engine_profiles"
for d in hardware_profiles model_profiles calibration; do ln -s "$top/$d" "$T/v0data/$d"; done
cp engine_profiles/*.yaml "$T/v0data/engine_profiles/"
sed -e '/^ *tokenize_/d' engine_profiles/vllm-v0.yaml >"$T/v0data/engine_profiles/vllm-v0.yaml"
sed -e 's/^name: vllm-v0$/name: vllm/' -e '/^ *token_overhead:/d' -e '/^ *tokenize_/d' \
    engine_profiles/vllm-v0.yaml >"$T/v0data/engine_profiles/vllm.yaml"
# vllm-v0 is that plus 100 us of host work per sampled token: 64 requests at once in one static
# batch, every step (the prefill and each decode) samples 64 tokens, so every step is 6.4 ms
# longer and the mean step differs by exactly that
for e in vllm vllm-v0; do
    printf 'model: llama-3-8b\nhardware: {id: h100-sxm}\nengine: %s\nscheduler: {policy: static, max_batch: 64}\narrivals: {process: closed, users: 64, think_time: 0 s}\nlengths: {prompt: 128, output: 32}\nrun: {requests: 64}\n' "$e" >"$T/v0-$e.yaml"
    ROOFLINE_DATA="$T/v0data" "$ROOFLINE" simulate --scenario "$T/v0-$e.yaml" -o csv >"$T/v0-$e.csv" 2>"$T/err" ||
        echo "not ok sim-v0-run-$e"
done
if awk -F, 'FNR == 1 { for (i = 1; i <= NF; i++) if ($i == "step_time_mean_s") c = i }
    FNR == 2 { if (FILENAME ~ /v0-vllm-v0/) b = $c; else a = $c; n++ }
    END { d = b - a - 0.0064; exit !(n == 2 && a > 0 && d < 1e-9 && d > -1e-9) }' \
    "$T/v0-vllm.csv" "$T/v0-vllm-v0.csv"; then echo "ok sim-v0-token-overhead-per-step"; else
    echo "not ok sim-v0-token-overhead-per-step"; cut -c1-300 "$T/v0-vllm.csv" "$T/v0-vllm-v0.csv"; fi

# the bad-scenario catalogue
n=0
for f in tests/data/bad-scenarios/*.yaml; do
    [ -f "$f" ] || continue
    n=$((n + 1))
    base=${f%.yaml}
    "$ROOFLINE" simulate --scenario "$f" >"$T/out" 2>"$T/err"
    rc=$?
    if [ "$rc" != 1 ]; then
        echo "not ok bad-scenario/$(basename "$f"): expected exit 1, got $rc"
    elif ! diff -u "$base.err" "$T/err" >"$T/diff"; then
        echo "not ok bad-scenario/$(basename "$f"): stderr differs"
        cat "$T/diff"
    elif [ -s "$T/out" ]; then
        echo "not ok bad-scenario/$(basename "$f"): printed to stdout"
    else
        echo "ok bad-scenario/$(basename "$f")"
    fi
done
if [ "$n" -ge 20 ]; then echo "ok bad-scenario catalogue has $n cases"; else
    echo "not ok bad-scenario catalogue has only $n cases"; fi
