#!/bin/sh
# Engines without a profile: validate predicts them with the generic kernel model and a warning,
# with a band at least as wide as a profiled engine's on the same row; ollama uses llama.cpp's
# profile; an unknown name is an error.
. "$(dirname "$0")/lib.sh"
top=$(cd "$(dirname "$0")/../.." && pwd)
cd "$top" || exit 1
M=tests/data/measurements/unknown-engines.yaml

run engines-validate 0 -- "$ROOFLINE" validate --measurements "$M" -o csv
expect_err engines-warn-lmdeploy "no engine profile for 'lmdeploy': predicted with the generic kernel model"
expect_no engines-sglang-profiled "no engine profile for 'sglang'"
expect_no engines-tgi-profiled "no engine profile for 'tgi'"
expect_no engines-habana-profiled "no engine profile for 'optimum-habana'"
expect_err engines-alias-ollama "engine 'ollama' runs llama.cpp's kernels"
# every row has a finite, positive prediction and no reason
if awk -F, 'NR > 1 && ($6 == "" || $6 + 0 <= 0 || $11 != "" || tolower($6) ~ /nan|inf/) { bad = 1 }
    END { exit bad }' "$T/out"; then echo "ok engines-all-predicted"; else
    echo "not ok engines-all-predicted"; sed 's/^/  /' "$T/out"; fi
# the lmdeploy row repeats the vllm row: its band (relative to its prediction) is wider
if awk -F, '$1 == "vllm-row" { v = log($10 / $9) } $1 == "lmdeploy-row" { s = log($10 / $9) }
    END { exit !(v > 0 && s > v * 1.2) }' "$T/out"; then echo "ok engines-generic-band-wider"; else
    echo "not ok engines-generic-band-wider"; sed 's/^/  /' "$T/out"; fi
# the band of a generic row contains the prediction
if awk -F, '$1 == "lmdeploy-row" || $1 == "mlc-row" { if (!($9 <= $6 && $6 <= $10)) bad = 1 }
    END { exit bad }' "$T/out"; then echo "ok engines-band-contains"; else
    echo "not ok engines-band-contains"; fi

# like: takes the kernel overhead and the two multipliers of the profile it names, and the step
# overhead unless the file gives its own. vLLM V1 (vllm.yaml) and SGLang are like tensorrt-llm:
# their decode step is TensorRT-LLM's with V1's 430.0 us and SGLang's 3 us for its 572.5 us step
# overhead: 8 / tok/s(e) = 8 / tok/s(trt) - (0.0005725 - step(e)). TGI is like vllm-v0 without
# V0's 100 us per sampled token: 8 / tok/s(tgi) = 8 / tok/s(v0) - 8 x 0.0001 s. V1 adds its
# greedy sampler after the graph (sampler_kernels 3, docs/physics.md#logits-and-sampler): 8 x
# 128256 logits, 8 x 128256 x (2 + 4 + 4) + 8 x 4 = 10,260,512 B at the H100's 3.35 TB/s x
# 0.8852 (datacenter-gpu) x 0.8795 (tensorrt-llm), and 3 x (628.4 ns + 1.616 us): 10.667 us
if awk -F, '$1 == "trt-decode" { r = 8 / $6 } $1 == "vllm-decode" { v = 8 / $6 }
    $1 == "sglang-decode" { s = 8 / $6 } $1 == "tgi-decode" { t = 8 / $6 }
    $1 == "vllm-v0-decode" { w = 8 / $6 }
    END { smp = 10260512 / (3.35e12 * 0.8852 * 0.8795) + 3 * (628.4e-9 + 1.616e-6);
        a = r - v - (0.0005725 - 0.00043) + smp; b = r - s - (0.0005725 - 0.000003);
        c = w - t - 0.0008;
        exit !(r > 0 && a * a < 1e-14 && b * b < 1e-14 && c * c < 1e-14) }' "$T/out"; then
    echo "ok engines-like-basis"; else echo "not ok engines-like-basis"; grep decode "$T/out"; fi
# vLLM V1's prefill by hand: the qkv projection of an 8192-token Llama-3-8B prompt, 32 layers x 2 x
# 8192 x 6144 x 4096 = 13,194,139,533,312 FLOPs, on the datacenter-gpu class (0.5626) times
# TensorRT-LLM's compute multiplier (1.2720, like: tensorrt-llm), plus 32 launches of 1.616 us:
# H100 989.4 TFLOPS x 0.71563 = 708.04 TFLOPS, 18.6347 + 0.0517 = 18.6864 ms; the MI300X's
# GEMMs reach 0.640 of that fraction (gemm_vs_class): 1307.4 x 0.71563 x 0.640 = 598.79 TFLOPS,
# 22.0346 + 0.0517 = 22.0863 ms
for g in h100-sxm:989.4e12:1 mi300x:1307.4e12:0.640; do
    gpu=${g%%:*} rest=${g#*:}
    run "engines-vllm-prefill-$gpu" 0 -- "$ROOFLINE" analyze --gpu "$gpu" --model llama-3-8b \
        --phase prefill --prompt 8192 --engine vllm -o csv
    if awk -F, -v peak="${rest%%:*}" -v f="${rest#*:}" '$2 == "qkv_proj" {
        want = 13194139533312 / (peak * 0.5626 * 1.2720 * f) + 32 * 1.616e-6; got = $17 }
        END { d = (got - want) / want; exit !(got > 0 && d * d < 1e-16) }' "$T/out"; then
        echo "ok engines-vllm-prefill-$gpu-by-hand"
    else echo "not ok engines-vllm-prefill-$gpu-by-hand"; grep qkv_proj "$T/out"; fi
done
# the generic model averages the engines fitted on their own rows (llama.cpp, vllm-v0,
# tensorrt-llm, deepspeed), not V1's vllm.yaml (TensorRT-LLM's numbers): its step overhead is
# the geometric mean of 162.3, 99.3, 572.5 and 2000 us
run engines-generic-step 0 -- "$ROOFLINE" analyze --gpu h100-sxm --model llama-3-8b --phase decode \
    --batch 8 --engine lmdeploy -o csv
if awk -F, '$1 == "decode" && $2 == "step_overhead" { t = $17 } END {
    d = t - exp((log(162.3) + log(99.3) + log(572.5) + log(2000)) / 4) * 1e-6;
    exit !(t > 0 && d < 1e-12 && d > -1e-12) }' "$T/out"; then echo "ok engines-generic-averages-v0"
else echo "not ok engines-generic-averages-v0"; grep step_overhead "$T/out"; fi
# engine_profiles/vllm-v0.yaml: its fit's 99.3 us step plus 100 us of host work per sampled
# token (vLLM issue #6801: 20 ms between steps at batch 200): at batch 8 its step operator is
# 99.3 us + 8 x 100 us = 899.3 us
run engines-v0-step 0 -- "$ROOFLINE" analyze --gpu h100-sxm --model llama-3-8b --phase decode \
    --batch 8 --engine vllm-v0 -o csv
if awk -F, '$1 == "decode" && $2 == "step_overhead" { t = $17 } END { d = t - 0.0008993;
    exit !(d < 1e-12 && d > -1e-12) }' "$T/out"; then echo "ok engines-v0-token-overhead"; else
    echo "not ok engines-v0-token-overhead"; grep step_overhead "$T/out"; fi
run engines-analyze-generic 0 -- "$ROOFLINE" analyze --gpu h100-sxm --model llama-3-8b \
    --phase decode --engine lmdeploy -o csv
expect_err engines-analyze-warn "no engine profile for 'lmdeploy'"
run engines-analyze-sglang 0 -- "$ROOFLINE" analyze --gpu h100-sxm --model llama-3-8b \
    --phase decode --engine sglang
expect_out engines-analyze-sglang-times "Times: the sglang engine's calibrated kernel model"
# SGLang's reserve: 1 - mem_fraction_static 0.88 = 12% of the 79.11 GiB (84.94 GB) it reports
expect_out engines-analyze-sglang-reserve "engine reserve 10.2 GB"
run engines-analyze-tgi 0 -- "$ROOFLINE" analyze --gpu h100-sxm --model llama-3-8b --phase decode --engine tgi
expect_out engines-analyze-tgi-reserve "engine reserve 0 B"
# like: names a loadable profile beside the file, which has no like of its own
mkdir -p "$T/eng" && cp engine_profiles/tensorrt-llm.yaml engine_profiles/vllm.yaml "$T/eng/"
printf 'name: foo\nlike: nosuch\nsources: {}\n' >"$T/eng/foo.yaml"
printf 'name: bar\nlike: tensorrt-llm\nsources: {}\n' >"$T/eng/bar.yaml"
printf 'name: qux\nlike: vllm\nsources: {}\n' >"$T/eng/qux.yaml"
printf 'name: baz\nlike: bar\nsources: {}\n' >"$T/eng/baz.yaml"
run engines-like-missing 1 -- "$ROOFLINE" analyze --gpu h100-sxm --model llama-3-8b --engine "$T/eng/foo.yaml"
expect_err engines-like-missing-msg "foo.yaml:2:7: error: 'like': cannot load the engine profile 'nosuch'"
run engines-like-chain 1 -- "$ROOFLINE" analyze --gpu h100-sxm --model llama-3-8b --engine "$T/eng/baz.yaml"
expect_err engines-like-chain-msg "baz.yaml:2:7: error: 'like': cannot load the engine profile 'bar'"
# vllm.yaml is itself like tensorrt-llm: a like cannot chain through it
run engines-like-chain-vllm 1 -- "$ROOFLINE" analyze --gpu h100-sxm --model llama-3-8b --engine "$T/eng/qux.yaml"
expect_err engines-like-chain-vllm-msg "qux.yaml:2:7: error: 'like': cannot load the engine profile 'vllm'"
run engines-like-ok 0 -- "$ROOFLINE" analyze --gpu h100-sxm --model llama-3-8b --engine "$T/eng/bar.yaml" --phase decode
grep '^decode' "$T/out" >"$T/bar.itl"
run engines-like-trt-run 0 -- "$ROOFLINE" analyze --gpu h100-sxm --model llama-3-8b --engine tensorrt-llm --phase decode
grep '^decode' "$T/out" | cmp -s - "$T/bar.itl" && echo "ok engines-like-ok-itl" ||
    { echo "not ok engines-like-ok-itl"; cat "$T/bar.itl"; }
# the all-reduce: vLLM's custom kernel below custom_allreduce_max, inherited through like unless
# the file says `allreduce: ring`; Llama-3-70B fp8 decode at tp 8 on MI300X (448 GB/s per
# direction, 2 us), its 8192 elements in 16 bits (8-bit GEMMs return 16-bit outputs): 160 x (7 x
# 16384 B / 448e9 + 4 us) = 680.96 us custom, 160 x (1.75 x 16384 / 448e9 + 28 us) = 4490.24 us
# ring
mkdir -p "$T/ar" && cp engine_profiles/vllm-v0.yaml "$T/ar/base.yaml"
sed -i 's/^name: vllm-v0$/name: base/' "$T/ar/base.yaml"
printf 'custom_allreduce_max: 8 MiB\n' >>"$T/ar/base.yaml"
sed -i 's/^sources:$/sources:\n  custom_allreduce_max: "vllm csrc\/custom_all_reduce.cuh"/' "$T/ar/base.yaml"
printf 'name: child\nlike: base\nsources: {}\n' >"$T/ar/child.yaml"
printf 'name: ringy\nlike: base\nallreduce: ring\nsources: {allreduce: "NCCL"}\n' >"$T/ar/ringy.yaml"
printf 'name: bad\nallreduce: custom\nsources: {allreduce: "x"}\n' >"$T/ar/bad.yaml"
for e in base child ringy; do
    run "engines-ar-$e" 0 -- "$ROOFLINE" analyze --gpu mi300x --model llama-3-70b --phase decode \
        --tp 8 --weights fp8 --engine "$T/ar/$e.yaml" -o csv
    awk -F, '$2 == "allreduce" { print $17 }' "$T/out" >"$T/ar/$e.t"
done
if awk '{ d = $1 - 0.00068096; exit !(d < 1e-12 && d > -1e-12) }' "$T/ar/base.t" &&
    cmp -s "$T/ar/base.t" "$T/ar/child.t" &&
    awk '{ d = $1 - 0.00449024; exit !(d < 1e-11 && d > -1e-11) }' "$T/ar/ringy.t"; then
    echo "ok engines-allreduce-custom-like-ring"; else echo "not ok engines-allreduce-custom-like-ring"
    cat "$T/ar/base.t" "$T/ar/child.t" "$T/ar/ringy.t"; fi
run engines-ar-bad 1 -- "$ROOFLINE" analyze --gpu mi300x --model llama-3-70b --engine "$T/ar/bad.yaml"
expect_err engines-ar-bad-msg "bad.yaml:2:12: error: 'allreduce: custom' needs 'custom_allreduce_max'"
# explain tp times the engine's all-reduce: SGLang's at tp 8 on MI300X is 7 x 16384 B / 448e9 +
# 2 x 2.92 us = 6.10 us (one stage, 16-bit elements, the kernel's measured barrier:
# custom_allreduce_latency, docs/physics.md#custom-all-reduce)
run engines-explain-tp 0 -- "$ROOFLINE" explain tp --gpu mi300x --model llama-3-70b --weights fp8 \
    --engine sglang
expect_out engines-explain-tp-custom "the engine's own all-reduce: one stage"
grep -Eq '^ +8 +[0-9.]+ ms +6\.10 us ' "$T/out" && echo "ok engines-explain-tp-time" ||
    { echo "not ok engines-explain-tp-time"; grep -E '^ +[0-9]+ ' "$T/out"; }
run engines-unknown 2 -- "$ROOFLINE" analyze --gpu h100-sxm --model llama-3-8b --engine vlm
expect_err engines-unknown-msg "unknown engine 'vlm'"
# --moe-kernel marlin: vLLM's Marlin MoE for MXFP4 experts (VLLM_MXFP4_USE_MARLIN=1), named in the
# header where its rate applies (vllm on Hopper: docs/physics.md#moe-kernels); its 7244-token
# pass of gpt-oss-120b on an H200 takes 255 ms against 132 on the default triton_kernels path, its
# experts stored padded (70.7 GB of weights against 65.2); an unknown kernel is a usage error
run engines-marlin 0 -- "$ROOFLINE" analyze --gpu h200 --model gpt-oss-120b \
    --weights mxfp4_moe_bf16 --engine vllm --phase prefill --prompt 7244 --moe-kernel marlin
expect_out engines-marlin-header "engine vllm, experts through Marlin"
expect_out engines-marlin-ttft "TTFT 255 ms"
expect_out engines-marlin-weights "weights 70.7 GB"
run engines-marlin-auto 0 -- "$ROOFLINE" analyze --gpu h200 --model gpt-oss-120b \
    --weights mxfp4_moe_bf16 --engine vllm --phase prefill --prompt 7244 --moe-kernel auto
expect_out engines-marlin-auto-ttft "TTFT 132 ms"
expect_no engines-marlin-auto-none "Marlin"
run engines-marlin-bad 2 -- "$ROOFLINE" analyze --gpu h200 --model gpt-oss-120b --moe-kernel cutlass
expect_err engines-marlin-bad-msg "error: --moe-kernel: expected 'auto' or 'marlin', got 'cutlass'"
# --ep 8: DeepSeek-V3's experts dealt whole over 8 groups (docs/physics.md#expert-parallelism):
# at 4 sequences the busiest group reads 6.56 whole experts where tp 8 alone reads 30.5 experts'
# eighths (3.82), so the decode step is longer; the header says so; a degree that does not divide
# tp, a model without routed experts, or llama.cpp (whose MUL_MAT_ID deals no experts) is a usage
# error
run engines-ep 0 -- "$ROOFLINE" analyze --gpu h200 --model deepseek-v3 --tp 8 --ep 8 --weights fp8 \
    --batch 4 --context 1000 --phase decode
expect_out engines-ep-header "deepseek-v3 on h200 (TP 8, EP 8, PP 1)"
expect_out engines-ep-itl "ITL 18.9 ms"
run engines-ep-off 0 -- "$ROOFLINE" analyze --gpu h200 --model deepseek-v3 --tp 8 --weights fp8 \
    --batch 4 --context 1000 --phase decode
expect_out engines-ep-off-itl "ITL 17.3 ms"
run engines-ep-divisor 2 -- "$ROOFLINE" analyze --gpu h200 --model deepseek-v3 --tp 8 --ep 3
expect_err engines-ep-divisor-msg "error: the expert-parallel degree must divide the tensor-parallel degree"
run engines-ep-dense 2 -- "$ROOFLINE" analyze --gpu h100-sxm --model llama-3-8b --tp 2 --ep 2
expect_err engines-ep-dense-msg "error: expert parallelism needs a model with routed experts"
run engines-ep-llama-cpp 2 -- "$ROOFLINE" analyze --gpu h100-sxm --model qwen3-30b-a3b --tp 2 --ep 2 \
    --engine llama.cpp
expect_err engines-ep-llama-cpp-msg "error: expert parallelism is not an option of llama.cpp's MoE kernels"
# --attn-dp 8 (docs/physics.md#data-parallel-attention): each device attends its own eighth of
# DeepSeek-V3's 1024 sequences; tp 8 keeps every sequence's latent cache on every device, which
# does not fit, and reads it all every step; a degree that does not divide tp, a pipeline split
# or llama.cpp is a usage error
run engines-attn-dp 0 -- "$ROOFLINE" analyze --gpu h200 --model deepseek-v3 --tp 8 --attn-dp 8 \
    --weights fp8 --kv fp8 --batch 1024 --context 2000 --phase decode
expect_out engines-attn-dp-header "deepseek-v3 on h200 (TP 8, attention DP 8, PP 1)"
expect_out engines-attn-dp-itl "ITL 45.7 ms"
expect_out engines-attn-dp-fits "fits (weights 94.8 GB, KV cache 9 GB"
run engines-attn-dp-off 0 -- "$ROOFLINE" analyze --gpu h200 --model deepseek-v3 --tp 8 --weights fp8 \
    --kv fp8 --batch 1024 --context 2000 --phase decode
expect_out engines-attn-dp-off-itl "ITL 66.8 ms"
expect_err engines-attn-dp-off-fits "does not fit in 150 GB on h200"
run engines-attn-dp-json 0 -- "$ROOFLINE" analyze --gpu h200 --model deepseek-v3 --tp 8 --attn-dp 8 \
    --weights fp8 --batch 16 --phase decode -o json
expect_out engines-attn-dp-json-field '"attn_dp": 8'
run engines-attn-dp-divisor 2 -- "$ROOFLINE" analyze --gpu h200 --model deepseek-v3 --tp 8 --attn-dp 3
expect_err engines-attn-dp-divisor-msg "error: the data-parallel attention degree must divide the tensor-parallel degree"
run engines-attn-dp-pp 2 -- "$ROOFLINE" analyze --gpu h200 --model deepseek-v3 --tp 8 --attn-dp 8 \
    --pp 2 --gpus 16
expect_err engines-attn-dp-pp-msg "error: data-parallel attention with a pipeline split is not modelled"
run engines-attn-dp-llama-cpp 2 -- "$ROOFLINE" analyze --gpu h100-sxm --model qwen3-30b-a3b --tp 2 \
    --attn-dp 2 --engine llama.cpp
expect_err engines-attn-dp-llama-cpp-msg "error: the engine (llama.cpp) has no data-parallel attention; its profile says attn_dp: none"
# explain: the KV pool of every rank (8 x floor(40.2 GB / (144 MB + 593 kB)) = 2224 sequences of
# 4096 tokens), and tp's table with the same 8 devices' tensor- and data-parallel attention
run engines-attn-dp-explain-kv 0 -- "$ROOFLINE" explain kv-cache --gpu h200 --model deepseek-v3 \
    --tp 8 --attn-dp 8 --weights fp8 --kv fp8
expect_out engines-attn-dp-explain-kv-ranks "max = ranks x floor(pool / (KV per sequence + activations per sequence)) = 8 x floor(40.2 GB / (144 MB + 593 kB)) = 2224"
run engines-attn-dp-explain-tp 0 -- "$ROOFLINE" explain tp --gpu h200 --model deepseek-v3 --tp 8 \
    --attn-dp 8 --weights fp8 --kv fp8 --batch 256
expect_out engines-attn-dp-explain-tp-row "     8      dp 8   36.80 ms"
expect_out engines-attn-dp-explain-tp-tp "     8        tp   39.53 ms"
