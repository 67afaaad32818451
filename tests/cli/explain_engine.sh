#!/bin/sh
# explain prints the physics bound (the worked steps, the seeds' numbers) and the time the
# default or named engine is expected to reach; --engine datasheet gives the bound alone.
. "$(dirname "$0")/lib.sh"

run dec-default 0 -- "$ROOFLINE" explain decode --gpu h100-sxm --model llama-3-8b --weights bf16
# answer first: the engine's time and the bound, each named
head -n 1 "$T/out" | grep -q '^Answer: ITL 10.11 ms expected with the kernel engine (its calibrated kernel model, the default); the bound the physics allows (the datasheet roofline) is 4.50 ms' &&
    echo "ok dec-default-answer-first" || { echo "not ok dec-default-answer-first"; head -n 1 "$T/out"; }
expect_out dec-default-bound "takes at least 4.50 ms (the bound) and is memory-bound"
expect_out dec-default-engine "Expected time, with the kernel engine, the default (its calibrated kernel model"
expect_out dec-default-ratio "x the bound of 4.50 ms above"
run dec-gguf 0 -- "$ROOFLINE" explain decode --gpu rtx-4090 --model llama-3-8b --weights q4_k_m
expect_out dec-gguf-engine "Expected time, with the kernel engine, the default"
run dec-gguf-llama 0 -- "$ROOFLINE" explain decode --gpu rtx-4090 --model llama-3-8b --weights q4_k_m --engine llama.cpp
expect_out dec-gguf-llama-engine "Expected time, with the llama.cpp engine (its calibrated kernel model"
run dec-datasheet 0 -- "$ROOFLINE" explain decode --gpu h100-sxm --model llama-3-8b --weights bf16 --engine datasheet
expect_out dec-datasheet-answer "Answer: ITL 4.50 ms, the bound the physics allows (the datasheet roofline; --engine datasheet, so no engine time)"
expect_out dec-datasheet-bound "takes at least 4.50 ms (the bound) and is memory-bound"
expect_no dec-datasheet-no-engine "Expected"
run dec-named 0 -- "$ROOFLINE" explain prefill --gpu a100-sxm-80gb --model llama-3-8b --engine tensorrt-llm
expect_out dec-named-answer "Answer: TTFT "
expect_out dec-named-engine "Expected time, with the tensorrt-llm engine (its calibrated kernel model"
# the seed stays reachable: 16 GB / 3.35 TB/s = 4.78 ms, 209 tokens/s
run seed 0 -- "$ROOFLINE" explain decode --gpu h100-sxm --params 8B --weights fp16
expect_out seed-bound "Times: the datasheet roofline bound, what the physics allows"
expect_out seed-time "4.78 ms"
expect_out seed-rate "209"
run analyze-datasheet 0 -- "$ROOFLINE" analyze --gpu h100-sxm --model llama-3-8b --phase decode --engine datasheet -o json
expect_out analyze-datasheet-engine '"engine": "datasheet"'

# disaggregation sizes pools with the engine's times; M/D/1 wait on the bound at 40 requests/s:
# rho = 40 / 59.79 = 0.669, wait = 0.669 / (2 x 59.79 x 0.331) = 16.9 ms
run disagg-default 0 -- "$ROOFLINE" explain disaggregation --gpu h100-sxm --model llama-3-8b
expect_out disagg-default-engine "Times: the kernel engine's calibrated kernel model, the default"
expect_out disagg-default-wait "mean queueing wait (M/D/1)"
run disagg-datasheet 0 -- "$ROOFLINE" explain disaggregation --gpu h100-sxm --model llama-3-8b --rate 40 --engine datasheet
expect_out disagg-ds-rho "prefill utilisation = 40.0 / (1 x 59.79) = 67%"
expect_out disagg-ds-wait "= 16.91 ms"
expect_no disagg-ds-no-engine "calibrated"
run disagg-overload 0 -- "$ROOFLINE" explain disaggregation --gpu h100-sxm --model llama-3-8b --rate 200 --engine datasheet
expect_out disagg-overload-bal "4 prefill"

# a profile written by roofline bench has measured roofs: without --engine its times are those
# roofs (the kernel engine's class fractions would count the efficiency twice), as --engine datasheet
H="$(cd "$(dirname "$0")/../.." && pwd)/tests/data/bench/host.yaml"
run host-default 0 -- "$ROOFLINE" analyze --gpu "$H" --model bench-small --weights fp32
expect_out host-default-times "Times: the roofline of this host's measured roofs"
grep -v '^Times:' "$T/out" >"$T/host-default.out"
run host-datasheet 0 -- "$ROOFLINE" analyze --gpu "$H" --model bench-small --weights fp32 --engine datasheet
grep -v '^Times:' "$T/out" | cmp -s - "$T/host-default.out" && echo "ok host-default-is-measured" ||
    echo "not ok host-default-is-measured"
run host-explain 0 -- "$ROOFLINE" explain decode --gpu "$H" --model bench-small --weights fp32
expect_out host-explain-answer "the roofline of this host's measured roofs, a profile written by roofline bench"
# llama.cpp on Apple GPUs: the Metal kernel for the pass's tokens, in one line (none elsewhere)
run metal-b8 0 -- "$ROOFLINE" explain decode --gpu m2-ultra-76c --model qwen2.5-7b --weights q8_0 --batch 8 --engine llama.cpp
expect_out metal-b8-line "Metal (llama.cpp on Apple GPUs): a weight GEMM of 8 tokens runs mul_mv_ext, 4 tokens per sweep: the weights are read 2 times."
expect_no metal-b8-no-occupancy-line "A core reaches its full rate"
run metal-b16 0 -- "$ROOFLINE" explain decode --gpu m2-ultra-76c --model qwen2.5-7b --weights q8_0 --batch 16 --engine llama.cpp
expect_out metal-b16-line "runs mul_mm in tiles of 32 tokens: it pays the arithmetic of 32 tokens, reads the weights once and dequantizes them 1 time"
# a GEMM of few tiles: one or two threadgroups a core, below the core's rate (76 cores x 6)
expect_out metal-b16-occupancy "A core reaches its full rate only with 6 of these threadgroups (4 simdgroups each) at once: a GEMM of fewer than 456 tiles (6 x 76 cores) runs its busiest core at 57% with 1, 79% with 2."
# a MoE model: its routed experts (MUL_MAT_ID) in a second line; a dense model has none
expect_no metal-dense-no-experts "routed experts (MUL_MAT_ID)"
run metal-moe-b4 0 -- "$ROOFLINE" explain decode --gpu m2-ultra-76c --model gpt-oss-20b --weights mxfp4_moe --batch 4 --engine llama.cpp
expect_out metal-moe-b4-line "Its routed experts (MUL_MAT_ID) run mul_mv_id, one mat-vec per (token, expert) pair: 16 expert matrices read per GEMM, where uniform routing touches 13.2 of 32"
# a mix's attention and dense matrices (q8_0 in mxfp4_moe) pick their kernel, and the line says so
expect_out metal-mix-line "a weight GEMM of 4 tokens on the q8_0 attention and dense matrices runs mul_mv_ext"
# flash attention's vector kernel at decode: the KV through L2 once per query head (M1/M2 only)
run metal-fa-vec 0 -- "$ROOFLINE" explain decode --gpu m2-ultra-76c --model qwen3-30b-a3b --weights q8_0 --context 32768 --flash on --engine llama.cpp
expect_out metal-fa-vec-line "Its decode attention runs flash_attn_ext_vec, one threadgroup per query head: the KV cache crosses the GPU's L2 (3.40 TB/s) 8 times, once per query head of a KV head"
# ... and the kernel's own stream of the cache (metal.fa_vec_kv_fraction 0.4187 of 800 GB/s)
expect_out metal-fa-vec-stream "and the kernel streams it from memory at 335 GB/s (42% of 800 GB/s), the slower of the two (docs/physics.md#metal-kernels)."
run metal-fa-off 0 -- "$ROOFLINE" explain decode --gpu m2-ultra-76c --model qwen3-30b-a3b --weights q8_0 --context 32768 --flash off --engine llama.cpp
expect_no metal-fa-off-none "flash_attn_ext_vec"
run metal-fa-m3 0 -- "$ROOFLINE" explain decode --gpu m3-max-40c --model qwen3-30b-a3b --weights q8_0 --context 32768 --flash on --engine llama.cpp
expect_no metal-fa-m3-none "flash_attn_ext_vec"
run metal-moe-b32 0 -- "$ROOFLINE" explain decode --gpu m2-ultra-76c --model gpt-oss-20b --weights mxfp4_moe --batch 32 --engine llama.cpp
expect_out metal-moe-b32-line "run mul_mm_id: each of the 31.6 of 32 experts touched (uniform routing) read once, in tiles of 32 of its tokens; the arithmetic of 1010 token-expert columns is paid for 128 pairs"
run metal-cuda 0 -- "$ROOFLINE" explain decode --gpu rtx-4090 --model qwen2.5-7b --weights q8_0 --batch 8 --engine llama.cpp
expect_no metal-cuda-none "Metal (llama.cpp"
run metal-spark 0 -- "$ROOFLINE" explain decode --gpu dgx-spark --model qwen2.5-7b --weights q8_0 --batch 8 --engine llama.cpp
expect_no metal-spark-none "Metal (llama.cpp"
# --moe-kernel marlin (docs/physics.md#moe-kernels): the answer is the Marlin pass, and a line
# says how its experts are timed and stored
run explain-marlin 0 -- "$ROOFLINE" explain prefill --gpu h200 --model gpt-oss-120b \
    --weights mxfp4_moe_bf16 --engine vllm --prompt 7244 --moe-kernel marlin
expect_out explain-marlin-answer "Answer: TTFT 255.05 ms expected with the vllm engine"
expect_out explain-marlin-line "Its routed experts run vLLM's Marlin MoE: issue-bound at 0.32 x the fp16 peak (317 TFLOP/s)"
expect_out explain-marlin-padded "its MXFP4 experts are stored padded, 3072 x 2944 for 2880 x 2880"
