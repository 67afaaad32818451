#!/bin/sh
# Command-line behaviour: listings, show, analyze formats, usage errors, exit codes.
. "$(dirname "$0")/lib.sh"
top=$(cd "$(dirname "$0")/../.." && pwd)

run list-gpus 0 -- "$ROOFLINE" list gpus
expect_out list-gpus-h100 "h100-sxm"
expect_out list-gpus-m4 "m4-max-40c"
[ "$(wc -l <"$T/out")" -ge 43 ] && echo "ok list-gpus-count" || echo "not ok list-gpus-count"
run list-models 0 -- "$ROOFLINE" list models
expect_out list-models-dsv3 "deepseek-v3"
expect_out list-models-mla "MLA"
run list-bad 2 -- "$ROOFLINE" list gpu
expect_err list-bad-msg "error: say what to list: 'gpus', 'models' or 'engines'"

run show-gpu 0 -- "$ROOFLINE" show gpu h100-sxm
expect_out show-gpu-ridge "ridge   295.3 FLOP/B"
expect_out show-gpu-link "nvlink4, 900 GB/s bidirectional (450 GB/s per direction)"
expect_out show-gpu-sources "sources:"
run show-model 0 -- "$ROOFLINE" show model llama-3-8b
expect_out show-model-params "parameters    8.03e+09 total (published 8.03e+09: +0.00%)"
expect_out show-model-kv "KV cache      131.1 kB per token"
# a hybrid: the linear-attention layers' fixed state, the KV cache on the attention layers only
run show-hybrid 0 -- "$ROOFLINE" show model qwen3-next-80b-a3b
expect_out show-hybrid-linear "gated DeltaNet on 36 of 48 layers: 32 value heads, 16 query/key heads, dims 128/128, conv 4; state 39.52 MB a sequence at any length"
expect_out show-hybrid-kv "KV cache      24.58 kB per token at 16 bits (1024 elements per token per layer, on the 12 attention layers)"
run explain-hybrid 0 -- "$ROOFLINE" explain kv-cache --model qwen3-next-80b-a3b --gpu h200 --weights fp8 --kv bf16 --context 131072
expect_out explain-hybrid-state "of which the 36 linear-attention (gated DeltaNet) layers' state, the same at any length"
# a Mamba-2 hybrid of one-part layers
run show-mamba2 0 -- "$ROOFLINE" show model nemotron-3-nano-30b-a3b
expect_out show-mamba2-linear "Mamba-2 on 23 of 52 layers: 64 heads of 64, 8 groups, state size 128, conv 4; state 49.08 MB a sequence at any length (float32 recurrent state)"
expect_out show-mamba2-blocks "each layer one part: 29 mixers alone (6 attention, 23 Mamba-2), 23 MLPs alone (up, relu^2, down: no gate)"
run show-unknown 1 -- "$ROOFLINE" show gpu h100
expect_err show-unknown-hint "error: unknown gpu 'h100' (did you mean 'h100-nvl', 'h100-pcie' or 'h100-sxm'?)"
run show-typo 1 -- "$ROOFLINE" show model lama-3-8b
expect_err show-typo-hint "did you mean 'llama-3-8b'?"
run show-path 0 -- "$ROOFLINE" show gpu "$top/hardware_profiles/a100-sxm-80gb.yaml"
expect_out show-path-name "A100 SXM4 80GB"

# a real Hugging Face config.json loads unchanged (unknown architecture keys only warn)
mkdir -p "$T/Llama-Tiny"
cat >"$T/Llama-Tiny/config.json" <<'JSON'
{
  "architectures": ["LlamaForCausalLM"],
  "attention_bias": false,
  "bos_token_id": 1,
  "eos_token_id": 2,
  "hidden_act": "silu",
  "hidden_size": 2048,
  "initializer_range": 0.02,
  "intermediate_size": 5632,
  "max_position_embeddings": 2048,
  "model_type": "llama",
  "num_attention_heads": 32,
  "num_hidden_layers": 22,
  "num_key_value_heads": 4,
  "pretraining_tp": 1,
  "rms_norm_eps": 1e-05,
  "rope_scaling": null,
  "rope_theta": 10000.0,
  "tie_word_embeddings": false,
  "torch_dtype": "bfloat16",
  "transformers_version": "4.35.0",
  "use_cache": true,
  "some_new_architecture_flag": 3,
  "vocab_size": 32000
}
JSON
run json-config 0 -- "$ROOFLINE" analyze --gpu h100-sxm --model "$T/Llama-Tiny/config.json" --phase decode -o csv
expect_err json-config-warn "config.json:23:3: warning: ignoring key 'some_new_architecture_flag'"
expect_out json-config-total "decode,total,"
run json-show 0 -- "$ROOFLINE" show model "$T/Llama-Tiny/config.json"
expect_out json-show-id "Llama-Tiny"
expect_out json-show-params "1.1e+09 total"

# analyze: table, csv and json
# list engines: the names --engine takes, the default marked
run list-engines 0 -- "$ROOFLINE" list engines
expect_out list-engines-default "kernel          yes"
expect_out list-engines-sglang "sglang "
expect_out list-engines-tgi "tgi "
expect_out list-engines-v0-token "10%     100 us"
# how each engine reads its limits under data-parallel attention (its profile's attn_dp)
expect_out list-engines-attn-dp "1024      10%          -  per_rank"
expect_out list-engines-datasheet "--engine datasheet is the pure roofline"
run list-engines-csv 0 -- "$ROOFLINE" list engines -o csv
expect_out list-engines-csv-header "id,default,kernel_overhead_s,step_overhead_s,memory_efficiency,compute_efficiency,admission,max_batch,reserve_fraction,token_overhead_s"
run list-nothing 2 -- "$ROOFLINE" list engine
expect_err list-nothing-msg "say what to list: 'gpus', 'models' or 'engines'"
# show and help say what the default engine is
run show-default-engine 0 -- "$ROOFLINE" show gpu h100-sxm
expect_out show-default-engine-line "default engine (kernel, calibrated): streaming kernels reach"
run help-default-engine 0 -- "$ROOFLINE" help
expect_out help-default-engine-line "Times come from the kernel engine's calibrated kernel model"
# the datasheet roofline: 15.0 GB of weights / 3.35 TB/s = 4.48 ms + KV and activations
run analyze-table 0 -- "$ROOFLINE" analyze --gpu h100-sxm --model llama-3-8b --engine datasheet
expect_out analyze-short-head "llama-3-8b on h100-sxm: batch 1, prompt 512, context 512"
expect_out analyze-short-times "Times: the datasheet roofline bound"
expect_out analyze-short-prefill "prefill  TTFT 8.47 ms"
expect_out analyze-short-decode "decode   ITL 4.50 ms, 222.0 tokens/s per sequence"
# 16.06 GB of weights + 67 MB of KV + 8.49 GB reserve (10% of the 79.11 GiB = 84.94 GB it reports)
expect_out analyze-short-memory "memory   24.6 GB of 84.9 GB per device: fits"
expect_out analyze-short-top "decode   mlp_gate 25% (memory)"
[ "$(wc -l <"$T/out")" -le 12 ] && echo "ok analyze-short-lines" || echo "not ok analyze-short-lines: $(wc -l <"$T/out")"
expect_no analyze-nan "nan"
# the default is the kernel engine's calibrated model: the same as --engine kernel, slower than
# the bound (about 2.2x at batch 1: per-kernel overheads on 4.50 ms of streaming)
run analyze-default 0 -- "$ROOFLINE" analyze --gpu h100-sxm --model llama-3-8b
expect_out analyze-default-times "Times: the kernel engine's calibrated kernel model, the default"
expect_out analyze-default-decode "decode   ITL 10.1 ms, 99.0 tokens/s per sequence"
grep -v '^Times:' "$T/out" >"$T/default.out"
run analyze-kernel 0 -- "$ROOFLINE" analyze --gpu h100-sxm --model llama-3-8b --engine kernel
grep -v '^Times:' "$T/out" | cmp -s - "$T/default.out" && echo "ok analyze-default-is-kernel" ||
    echo "not ok analyze-default-is-kernel"
run analyze-ops-table 0 -- "$ROOFLINE" analyze --gpu h100-sxm --model llama-3-8b --ops
expect_out analyze-prefill "prefill of llama-3-8b on h100-sxm"
expect_out analyze-decode "decode of llama-3-8b on h100-sxm"
expect_out analyze-ops "mlp_down"
expect_out analyze-ttft "TTFT"
expect_no analyze-ops-nan "nan"
run analyze-csv 0 -- "$ROOFLINE" analyze --gpu h100-sxm --model llama-3-8b --phase decode -o csv
head -n 1 "$T/out" >"$T/hdr"
if grep -qx 'phase,op,instances,flops,bytes_weights,bytes_act_in,bytes_act_out,bytes_act,bytes_kv_read,bytes_kv_write,bytes,intensity_flop_per_byte,roof,peak_flops_per_s,compute_time_s,memory_time_s,time_s,time_share,bound,bound_ratio,dequant_flops,link_bytes,link_time_s' "$T/hdr"; then
    echo "ok analyze-csv-header"; else echo "not ok analyze-csv-header: $(cat "$T/hdr")"; fi
[ "$(wc -l <"$T/out")" = 18 ] && echo "ok analyze-csv-rows" || echo "not ok analyze-csv-rows: $(wc -l <"$T/out")"
run analyze-json 0 -- "$ROOFLINE" analyze --gpu h100-sxm --model mixtral-8x7b --batch 8 -o json
if command -v python3 >/dev/null 2>&1; then
    if python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); assert len(d["phases"])==2; s=d["phases"][1]["summary"]; assert s["phase"]=="decode" and s["itl_s"]>0; assert any(o["op"]=="moe_router" for o in d["phases"][1]["operators"])' "$T/out"; then
        echo "ok analyze-json-valid"; else echo "not ok analyze-json-valid"; fi
fi
expect_no analyze-json-nan "nan"

# every shipped pair evaluates without NaN or infinity
for m in deepseek-v3 gemma-2-9b phi-3-mini qwen2.5-7b llama-3.1-405b; do
    run "analyze-$m" 0 -- "$ROOFLINE" analyze --gpu mi300x --model "$m" -o csv
    expect_no "analyze-$m-nan" "nan"
    expect_no "analyze-$m-inf" "inf"
done

# usage errors exit 2, bad values get a clear message
run analyze-missing 2 -- "$ROOFLINE" analyze --gpu h100-sxm
expect_err analyze-missing-msg "error: --gpu and --model are required"
run analyze-badopt 2 -- "$ROOFLINE" analyze --gpu h100-sxm --model llama-3-8b --bach 4
expect_err analyze-badopt-hint "unknown option '--bach' (did you mean '--batch'?)"
run analyze-badbatch 2 -- "$ROOFLINE" analyze --gpu h100-sxm --model llama-3-8b --batch 0
expect_err analyze-badbatch-msg "error: --batch: must be at least 1, got '0'"
run analyze-badfmt 2 -- "$ROOFLINE" analyze --gpu h100-sxm --model llama-3-8b --weights fp12
expect_err analyze-badfmt-msg "error: --weights: unknown format 'fp12'"
run unknown-cmd 2 -- "$ROOFLINE" analyse
expect_err unknown-cmd-hint "unknown command 'analyse' (did you mean 'analyze'?)"
run explain-both 2 -- "$ROOFLINE" explain decode --model llama-3-8b --params 8B
run explain-topic 2 -- "$ROOFLINE" explain everything --params 8B

# options are declared once: the usage lists each with its help (cli.h OPT_*)
run help-sweep 0 -- "$ROOFLINE" help sweep
expect_out help-sweep-summary "the batching trade-off"
expect_out help-sweep-reserve "--reserve SIZE|PCT"
expect_out help-sweep-format "-o, --output table|csv|json"
run analyze-help 0 -- "$ROOFLINE" analyze --help
expect_out analyze-help-bands "--bands"
run analyze-pos 2 -- "$ROOFLINE" analyze --gpu h100-sxm --model llama-3-8b extra
expect_err analyze-pos-msg "error: unexpected argument 'extra'"
expect_err analyze-pos-usage "--engine E"
# an engine name that exists nowhere is a usage error (2); an engine file that does not load
# is a failure (1), not a usage error
run engine-none 2 -- "$ROOFLINE" sweep --gpu h100-sxm --model llama-3-8b --engine nosuch
printf 'name: [unclosed\n' >"$T/bad-engine.yaml"
run engine-badfile 1 -- "$ROOFLINE" analyze --gpu h100-sxm --model llama-3-8b --engine "$T/bad-engine.yaml"
expect_err engine-badfile-msg "bad-engine.yaml:"

# writing to a full device fails with exit 1
if [ -w /dev/full ]; then
    run dev-full 1 -- sh -c "\"$ROOFLINE\" list gpus >/dev/full"
    expect_err dev-full-msg "error: cannot write to standard output"
fi

# the main job: no arguments answers the shipped purchase question and writes its report
mkdir -p "$T/mainjob"
run main-job 0 -- sh -c "cd '$T/mainjob' && '$ROOFLINE'"
head -n 1 "$T/out" | grep -q '^rent [0-9]* x .* devices\{0,1\}: [0-9.]* USD/hour, [0-9.]* USD per million output tokens$' &&
    echo "ok main-job-answer-first" || { echo "not ok main-job-answer-first"; head -n 2 "$T/out" | sed 's/^/  /'; }
expect_out main-job-report "wrote reports/chat-service.pdf ("
# nothing before the answer on a terminal: no warnings on stderr (the report's validation summary
# says itself which published rows use the generic engine model)
[ ! -s "$T/err" ] && echo "ok main-job-quiet-stderr" ||
    { echo "not ok main-job-quiet-stderr"; head -n 3 "$T/err" | sed 's/^/  stderr: /'; }
[ -s "$T/mainjob/reports/chat-service.pdf" ] && echo "ok main-job-pdf" || echo "not ok main-job-pdf"
# the worked explanation stays reachable
run demo 0 -- "$ROOFLINE" demo
expect_out demo-explain "Decode step of llama-3-8b"
expect_out demo-answer "Answer: ITL 10.11 ms expected with the kernel engine"
expect_out demo-bound "the bound the physics allows (the datasheet roofline) is 4.50 ms"
expect_out demo-analyze "decode   ITL 10.2 ms"
