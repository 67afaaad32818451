#!/bin/sh
# explain prints the physics bound (the worked steps, the seeds' numbers) and the time the
# default or named engine is expected to reach; --engine datasheet gives the bound alone.
. "$(dirname "$0")/lib.sh"

run dec-default 0 -- "$ROOFLINE" explain decode --gpu h100-sxm --model llama-3-8b --weights bf16
expect_out dec-default-bound "takes 4.50 ms and is memory-bound"
expect_out dec-default-engine "Expected with vllm, the default engine, through the calibrated kernel model"
expect_out dec-default-ratio "x the bound of 4.50 ms above"
run dec-gguf 0 -- "$ROOFLINE" explain decode --gpu rtx-4090 --model llama-3-8b --weights q4_k_m
expect_out dec-gguf-engine "Expected with llama.cpp, the default engine"
run dec-datasheet 0 -- "$ROOFLINE" explain decode --gpu h100-sxm --model llama-3-8b --weights bf16 --engine datasheet
expect_out dec-datasheet-bound "takes 4.50 ms and is memory-bound"
expect_no dec-datasheet-no-engine "Expected"
run dec-named 0 -- "$ROOFLINE" explain prefill --gpu a100-sxm-80gb --model llama-3-8b --engine tensorrt-llm
expect_out dec-named-engine "Expected with tensorrt-llm, through the calibrated kernel model"
# the seed stays reachable: 16 GB / 3.35 TB/s = 4.78 ms, 209 tokens/s
run seed 0 -- "$ROOFLINE" explain decode --gpu h100-sxm --params 8B --weights fp16
expect_out seed-time "4.78 ms"
expect_out seed-rate "209"
run analyze-datasheet 0 -- "$ROOFLINE" analyze --gpu h100-sxm --model llama-3-8b --phase decode --engine datasheet -o json
expect_out analyze-datasheet-engine '"engine": "datasheet"'

# disaggregation sizes pools with the engine's times; M/D/1 wait on the bound at 40 requests/s:
# rho = 40 / 59.79 = 0.669, wait = 0.669 / (2 x 59.79 x 0.331) = 16.9 ms
run disagg-default 0 -- "$ROOFLINE" explain disaggregation --gpu h100-sxm --model llama-3-8b
expect_out disagg-default-engine "Times from vllm's calibrated kernel model"
expect_out disagg-default-wait "mean queueing wait (M/D/1)"
run disagg-datasheet 0 -- "$ROOFLINE" explain disaggregation --gpu h100-sxm --model llama-3-8b --rate 40 --engine datasheet
expect_out disagg-ds-rho "prefill utilisation = 40.0 / (1 x 59.79) = 67%"
expect_out disagg-ds-wait "= 16.91 ms"
expect_no disagg-ds-no-engine "calibrated"
run disagg-overload 0 -- "$ROOFLINE" explain disaggregation --gpu h100-sxm --model llama-3-8b --rate 200 --engine datasheet
expect_out disagg-overload-bal "4 prefill"
