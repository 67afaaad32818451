#!/bin/sh
# The physics topics through the CLI: sweep and every explain topic, with values that follow
# from the profiles (comments show the arithmetic).
. "$(dirname "$0")/lib.sh"

run sweep-auto 0 -- "$ROOFLINE" sweep --gpu h100-sxm --model llama-3-8b --context 2048
expect_out sweep-first "    1     2048"
expect_out sweep-pareto "pareto"
run sweep-csv 0 -- "$ROOFLINE" sweep --gpu h100-sxm --model llama-3-8b --batch 1,8,64 --context 512,4096 -o csv
[ "$(wc -l <"$T/out")" = 7 ] && echo "ok sweep-csv-rows" || echo "not ok sweep-csv-rows: $(wc -l <"$T/out")"
expect_out sweep-csv-header "batch,context,prompt,itl_s,tokens_per_s_per_seq,tokens_per_s_total,ttft_s,mem_total_bytes,fits,bound,compute_utilisation,pareto"
run sweep-json 0 -- "$ROOFLINE" sweep --gpu rtx-4090 --model mistral-7b --batch 1,2 -o json
if python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); assert len(d["points"])==2 and d["points"][1]["tokens_per_s_total"]>d["points"][0]["tokens_per_s_total"]' "$T/out"; then echo "ok sweep-json"; else echo "not ok sweep-json"; fi
run sweep-bad 2 -- "$ROOFLINE" sweep --gpu h100-sxm --model llama-3-8b --batch 1,x
expect_err sweep-bad-msg "error: --batch: expected a comma-separated list of whole numbers or 'auto', got '1,x'"

# KV cache: 32 layers x 2 x 8 KV heads x 128 x 2 B = 131 kB per token; 4096 tokens = 537 MB
run kv 0 -- "$ROOFLINE" explain kv-cache --gpu h100-sxm --model llama-3-8b --context 4096
expect_out kv-layer "2 x 8 x 128 x 2 B = 4.1 kB"
expect_out kv-token "= 131 kB per token"
expect_out kv-seq "bytes = 537 MB per sequence"
# the H100 reports 79.11 GiB = 84.94 GB; 10% reserve 8.49 GB
expect_out kv-pool "84.9 GB - 16.06 GB - 8.49 GB"
expect_out kv-pool-reported "(capacity: the 79.11 GiB the h100-sxm reports to software"
run kv-mla 0 -- "$ROOFLINE" explain kv-cache --gpu mi300x --model deepseek-v3 --weights fp8
expect_out kv-mla-latent "(512 + 64) x 2 B = 1.15 kB"

run batching 0 -- "$ROOFLINE" explain batching --gpu h100-sxm --model llama-3-8b
expect_out batching-limits "Step 4. Limits"

# quantization: 8.03e9 x 0.5 B = 4.02 GB for int4
run quant 0 -- "$ROOFLINE" explain quantization --gpu rtx-4090 --model llama-3-8b
expect_out quant-int4 "int4     4.00    4.02 GB"
expect_out quant-w8a16 "fp16(W8A16)"

# MoE: one token touches 2 of 8 experts
run moe 0 -- "$ROOFLINE" explain moe
expect_out moe-active "12.9B active"
expect_out moe-b1 "     1       2.00"
run moe-dense 1 -- "$ROOFLINE" explain moe --model llama-3-8b
expect_err moe-dense-msg "explain moe needs a mixture-of-experts model"

run tp 0 -- "$ROOFLINE" explain tp --gpu h100-sxm --model llama-3-70b
expect_out tp-ring "450 GB/s per direction (nvlink4)"
expect_out tp-n8 "     8 "
run tp-bad 2 -- "$ROOFLINE" analyze --gpu h100-sxm --model llama-3-70b --tp 3
expect_err tp-bad-msg "error: the tensor-parallel degree must divide the number of attention heads"
run tp-nolink 2 -- "$ROOFLINE" analyze --gpu m2-ultra-76c --model llama-3-8b --tp 2
expect_err tp-nolink-msg "has no interconnect"

# a GGUF MoE mix (routed experts mxfp4, the rest q8_0): 63.2 GB of gpt-oss-120b, refused on a
# dense model
run mix 0 -- "$ROOFLINE" analyze --gpu m2-ultra-76c --model gpt-oss-120b --weights mxfp4_moe --engine llama.cpp
expect_out mix-weights "weights 63.2 GB"
run mix-dense 2 -- "$ROOFLINE" analyze --gpu h100-sxm --model llama-3-8b --weights mxfp4_moe
expect_err mix-dense-msg "error: a mixture-of-experts weight mix (mxfp4_moe, mxfp4_moe_bf16, nvfp4_attn_bf16, nvfp4_qkv_bf16: the routed experts in their own format) needs a model with routed experts"

# speculative: E = (1 - 0.7^5) / 0.3 = 2.773
run spec 0 -- "$ROOFLINE" explain speculative --gpu h100-sxm --model llama-3-8b --draft-k 4 --accept 0.7
expect_out spec-e "= 2.773"
expect_out spec-be "speculation slows decode down"
run spec-draft 0 -- "$ROOFLINE" explain speculative --gpu h100-sxm --model llama-3-70b --tp 1 --weights int4 --draft llama-3-8b --draft-k 3 --accept 0.8
expect_out spec-draft-name "draft step (llama-3-8b)"
run spec-bad 2 -- "$ROOFLINE" explain speculative --accept 1.5
expect_err spec-bad-msg "error: --accept: expected an acceptance rate from 0 to 1, got '1.5'"

# prefix cache: 0.5 x 1024 = 512 cached
run prefix 0 -- "$ROOFLINE" explain prefix-cache --gpu h100-sxm --model llama-3-8b --prompt 1024 --hit 0.5
expect_out prefix-cached "cached = hit x prompt = 0.5 x 1024 = 512"
expect_out prefix-kv "KV written 67.1 MB"

# disaggregation: 1024 x 131 kB = 134 MB
run disagg 0 -- "$ROOFLINE" explain disaggregation --gpu h100-sxm --model llama-3-8b --prompt 1024 --output 256 --rate 20
expect_out disagg-bytes "= 134 MB"
expect_out disagg-balance "decode devices per prefill device"

run analyze-tp 0 -- "$ROOFLINE" analyze --gpu h100-sxm --model llama-3-70b --tp 4 --gpus 8 --phase decode -o json
if python3 -c 'import json,sys; s=json.load(open(sys.argv[1]))["phases"][0]["summary"]; assert s["tp"]==4 and s["replicas"]==2 and s["link_time_s"]>0 and abs(s["tokens_per_s_all_replicas"]-2*s["tokens_per_s_total"])<1e-6' "$T/out"; then echo "ok analyze-tp-json"; else echo "not ok analyze-tp-json"; fi
