#!/bin/sh
# The seed documents' worked numbers, reproduced by `roofline explain`.
. "$(dirname "$0")/lib.sh"

# H100 SXM, 8B parameters at fp16 (16 GB): 4.78 ms per token, about 209 tokens/s, ~1 FLOP/B
run decode-8b-h100 0 -- "$ROOFLINE" explain decode --gpu h100-sxm --params 8B --weights fp16
expect_out decode-8b-bytes "= 16 GB"
expect_out decode-8b-time "= 4.78 ms"
expect_out decode-8b-rate "= 209 tokens/s"
expect_out decode-8b-intensity "= 1.00 FLOP/B"
expect_out decode-8b-ridge "= 295 FLOP/B"
expect_out decode-8b-bound "Dominant term: memory"

# the 6-token prefill pass: 4.78 ms, 0.10 ms of tensor-core compute (96 GFLOP), 2.0%, 1256 tok/s
run prefill-6-h100 0 -- "$ROOFLINE" explain prefill --gpu h100-sxm --params 8B --weights fp16 --prompt 6
expect_out prefill-6-flops "= 96 GFLOP"
expect_out prefill-6-compute "= 0.10 ms"
expect_out prefill-6-pass "= max(4.78 ms, 0.10 ms) = 4.78 ms"
expect_out prefill-6-util "= 2.0%"
expect_out prefill-6-rate "= 1256 tokens/s"
expect_out prefill-6-crossover "= 295 tokens"

# 70B at 4 bits (35 GB) on four devices; the 24 GB cards cannot hold it
run 70b-4090 0 -- "$ROOFLINE" explain decode --gpu rtx-4090 --params 70B --weights int4
expect_out 70b-4090-bytes "= 35 GB"
expect_out 70b-4090-rate "= 29 tokens/s"
# the 24 GB card reports 23.64 GiB = 25.4 GB to software: still short of 35 GB
expect_out 70b-4090-fit "WARNING: this does not fit: 35 GB of weights need more than the 25.4 GB"
expect_out 70b-4090-reported "The memory is the 23.6 GiB the device reports to software (its datasheet says 24 GB)."
expect_err 70b-4090-warn "warning: 35 GB does not fit in 25.4 GB on rtx-4090"
run 70b-3090 0 -- "$ROOFLINE" explain decode --gpu rtx-3090 --params 70B --weights int4
expect_out 70b-3090-rate "= 27 tokens/s"
expect_out 70b-3090-fit "does not fit"
run 70b-a100 0 -- "$ROOFLINE" explain decode --gpu a100-sxm-80gb --params 70B --weights int4
expect_out 70b-a100-rate "= 58 tokens/s"
expect_out 70b-a100-fits "Memory: 35 GB of weights in 85.1 GB: fits"
run 70b-m2ultra 0 -- "$ROOFLINE" explain decode --gpu m2-ultra-76c --params 70B --weights int4
expect_out 70b-m2ultra-rate "= 23 tokens/s"

# a real Llama-3-8B profile at bf16 on the H100 SXM: 16.06 GB of weights
run llama3-8b-bf16 0 -- "$ROOFLINE" explain decode --gpu h100-sxm --model llama-3-8b --weights bf16
expect_out llama3-8b-weights "= 16.06 GB"
expect_out llama3-8b-kv "32 x 2 x 8 x 128 x 2 B = 131 kB"
expect_out llama3-8b-bound "Dominant term: memory"
expect_no llama3-8b-nan "nan"
