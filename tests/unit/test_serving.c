/* Issue 4 physics: KV plan, quantization work, MoE, parallelism, speculative decoding, prefix
 * caching, disaggregation, crossovers: hand-derived numbers and invariants. */
#include "test.h"

#include "core/serving.h"

#include <string.h>

static void
setup(const char *gpu, const char *model, struct hw_profile **hw, struct mdl_profile **m,
      struct roof_config *c)
{
    *hw = test_hw(gpu);
    *m = test_model(model);
    roof_config_init(c, *hw, *m, ROOF_DECODE);
}

TEST(serving_kv_plan_blocks_and_pool)
{
    struct hw_profile *hw;
    struct mdl_profile *m;
    struct roof_config c;
    setup("h100-sxm", "llama-3-8b", &hw, &m, &c);
    struct roof_kv_plan p;
    /* 4096 tokens x 131072 B = 536,870,912 B per sequence; blocks of 16 divide it exactly */
    CHECK(roof_kv_plan(&c, 4096, 16, &p) == 0);
    CHECK_NEAR(p.bytes_per_token, 131072, 0);
    CHECK_NEAR(p.bytes_per_seq, 4096.0 * 131072, 1e-12);
    CHECK_NEAR(p.bytes_per_block, 16.0 * 131072, 0);
    /* 4100 tokens round up to 257 blocks = 4112 tokens */
    CHECK(roof_kv_plan(&c, 4100, 16, &p) == 0);
    CHECK_NEAR(p.bytes_per_seq, 4112.0 * 131072, 1e-12);
    /* pool = 84.94 GB (the 79.11 GiB the H100 reports) - 16.06 GB weights - 8.49 GB reserve
     * (10%) - fixed activations */
    const double cap = 79.11 * 1073741824.0;
    CHECK_NEAR(p.reserve_bytes, 0.1 * cap, 1e-12);
    CHECK(p.pool_bytes < cap - 16.060522496e9 - 0.1 * cap + 1 && p.pool_bytes > 60.2e9);
    CHECK_NEAR(p.max_seqs, floor(p.pool_bytes / (p.bytes_per_seq + p.act_bytes_per_seq)), 0);
    /* fp8 KV halves the bytes and about doubles the sequences */
    c.kv = DT_FP8;
    struct roof_kv_plan q;
    roof_kv_plan(&c, 4100, 16, &q);
    CHECK_NEAR(q.bytes_per_seq, p.bytes_per_seq / 2, 1e-12);
    CHECK(q.max_seqs >= 2 * p.max_seqs - 1);
    hw_free(hw);
    mdl_free(m);
}

/* Data-parallel attention (docs/physics.md#data-parallel-attention): DeepSeek-V3 fp8 on 8
 * H200s keeps one latent cache of 61 x 576 B a token per sequence; under tp 8 every device
 * holds every sequence's, under attention dp 8 each device its own rank's, so the instance holds
 * 8 pools' worth of sequences (less the whole attention's weights, 9.99 GB a device more) */
TEST(serving_kv_plan_attn_dp)
{
    struct hw_profile *hw;
    struct mdl_profile *m;
    struct roof_config c;
    setup("h200", "deepseek-v3", &hw, &m, &c);
    c.weights = c.act = c.kv = DT_FP8;
    c.tp = 8;
    struct roof_kv_plan t, d;
    CHECK(roof_kv_plan(&c, 4096, 16, &t) == 0);
    c.attn_dp = 8;
    CHECK(roof_kv_plan(&c, 4096, 16, &d) == 0);
    CHECK_NEAR(t.bytes_per_token, 61 * 576.0, 0);
    CHECK_NEAR(d.bytes_per_token, 61 * 576.0, 0);
    CHECK_NEAR(t.ranks, 1, 0);
    CHECK_NEAR(d.ranks, 8, 0);
    CHECK_NEAR(d.weights_bytes - t.weights_bytes, 9989554176.0, 1e-12);
    CHECK_NEAR(d.pool_blocks, 8 * floor(d.pool_bytes / d.bytes_per_block), 0);
    CHECK_NEAR(d.max_seqs, 8 * floor(d.pool_bytes / (d.bytes_per_seq + d.act_bytes_per_seq)), 0);
    CHECK(d.pool_bytes < t.pool_bytes);
    CHECK(d.max_seqs > 6 * t.max_seqs);
    hw_free(hw);
    mdl_free(m);
}

TEST(serving_attention_variants_kv)
{
    /* MQA: one KV head; MLA: the latent (512 + 64) per layer */
    struct mdl_profile *m = test_model("llama-3-8b");
    m->num_kv_heads = 1;
    CHECK_NEAR(mdl_kv_bytes_per_token(m, 2.0), 32.0 * 2 * 1 * 128 * 2, 0);
    m->num_kv_heads = 32; /* MHA */
    CHECK_NEAR(mdl_kv_bytes_per_token(m, 2.0), 32.0 * 2 * 32 * 128 * 2, 0);
    mdl_free(m);
    /* Gemma-2: sliding window on every other layer: a 8192-token sequence stores
     * 21 x 4096 + 21 x 8192 tokens of KV (42 layers) */
    struct hw_profile *hw;
    struct roof_config c;
    setup("h100-sxm", "gemma-2-9b", &hw, &m, &c);
    CHECK(mdl_layer_window(m, 0) == 4096 && mdl_layer_window(m, 1) == 0 &&
          m->sliding_window == 4096);
    struct roof_kv_plan p;
    roof_kv_plan(&c, 8192, 16, &p);
    double per_layer_token = 2.0 * 8 * 256 * 2;
    CHECK_NEAR(p.bytes_per_seq, (21.0 * 4096 + 21.0 * 8192) * per_layer_token, 1e-12);
    hw_free(hw);
    mdl_free(m);
}

TEST(serving_quantization_bytes_and_dequant)
{
    struct hw_profile *hw;
    struct mdl_profile *m;
    struct roof_config c;
    setup("h100-sxm", "llama-3-8b", &hw, &m, &c);
    c.weights = DT_INT4;
    c.act = DT_FP16;
    c.kv = DT_FP16;
    struct roof_result r;
    roof_evaluate(&c, &r);
    /* mlp_up weights: 32 layers x 4096 x 14336 at 0.5 B; dequant 3 ops per weight */
    CHECK_NEAR(r.ops[ROOF_OP_MLP_UP].bytes_weights, 32.0 * 4096 * 14336 * 0.5, 1e-12);
    CHECK_NEAR(r.ops[ROOF_OP_MLP_UP].dequant_flops, 32.0 * 4096 * 14336 * 3, 1e-12);
    CHECK(r.gemm_dtype == DT_FP16); /* weight-only: the fp16 roof */
    /* W8A8 on the int8 roof, no dequantization */
    c.weights = DT_INT8;
    c.act = DT_INT8;
    roof_evaluate(&c, &r);
    CHECK(r.gemm_dtype == DT_INT8);
    CHECK_NEAR(r.ops[ROOF_OP_MLP_UP].dequant_flops, 0, 0);
    /* fp8 x fp8 on an A100 (no fp8 roof): falls back to fp16 tensor cores */
    struct hw_profile *a100 = test_hw("a100-sxm-80gb");
    c.hw = a100;
    c.weights = c.act = DT_FP8;
    roof_evaluate(&c, &r);
    CHECK(r.gemm_dtype == DT_FP16 || r.gemm_dtype == DT_BF16);
    hw_free(a100);
    hw_free(hw);
    mdl_free(m);
}

TEST(serving_moe_all_experts_equals_dense)
{
    struct hw_profile *hw;
    struct mdl_profile *m;
    struct roof_config c;
    setup("h100-sxm", "mixtral-8x7b", &hw, &m, &c);
    c.batch = 4;
    /* every token uses all 8 experts of I = 14336 ... */
    struct mdl_profile all = *m;
    all.experts_per_token = all.n_experts;
    /* ... which is the dense MLP of intermediate 8 x 14336 */
    struct mdl_profile dense = *m;
    dense.n_experts = 0;
    dense.experts_per_token = 0;
    dense.intermediate_size = 8 * 14336;
    struct roof_result ra, rd;
    c.model = &all;
    roof_evaluate(&c, &ra);
    c.model = &dense;
    roof_evaluate(&c, &rd);
    enum roof_op ops[3] = {ROOF_OP_MLP_GATE, ROOF_OP_MLP_UP, ROOF_OP_MLP_DOWN};
    for (int i = 0; i < 3; i++) {
        CHECK_NEAR(ra.ops[ops[i]].flops, rd.ops[ops[i]].flops, 1e-12);
        CHECK_NEAR(ra.ops[ops[i]].bytes_weights, rd.ops[ops[i]].bytes_weights, 1e-12);
    }
    hw_free(hw);
    mdl_free(m);
}

TEST(serving_custom_allreduce_by_message_size)
{
    /* vLLM's custom all-reduce (csrc/custom_all_reduce.cuh), 448 GB/s per direction, 2 us:
     * one stage at 8 devices below 256 KiB: 7 x 16384 B / 448e9 + 2 x 2 us = 4.256 us */
    CHECK_NEAR(roof_allreduce_custom_s(16384, 8, 448e9, 2e-6), 4.256e-6, 1e-12);
    /* two stages at 8 devices from 256 KiB: 2 x 7/8 x 1 MiB / 448e9 + 4 us = 8.096 us */
    CHECK_NEAR(roof_allreduce_custom_s(1048576, 8, 448e9, 2e-6), 8.096e-6, 1e-12);
    /* 300 KiB at 4 devices is under the 512 KiB one-stage limit: 3 x 307200 / 448e9 + 4 us */
    CHECK_NEAR(roof_allreduce_custom_s(307200, 4, 448e9, 2e-6), 3.0 * 307200 / 448e9 + 4e-6, 1e-15);
    /* two devices always one stage: 4 MiB / 448e9 + 4 us = 13.362 us */
    CHECK_NEAR(roof_allreduce_custom_s(4194304, 2, 448e9, 2e-6), 4194304 / 448e9 + 4e-6, 1e-15);
    CHECK_NEAR(roof_allreduce_custom_s(16384, 1, 448e9, 2e-6), 0, 0);
    struct hw_profile *mi = test_hw("mi300x"), *l40s = test_hw("l40s");
    struct roof_tuning tu;
    memset(&tu, 0, sizeof tu);
    double ring = roof_allreduce_time_s(16384, 8, 448e9, 2e-6); /* 28.05 us */
    CHECK_NEAR(ring, 1.75 * 16384 / 448e9 + 28e-6, 1e-15);
    /* no custom kernel: the ring */
    CHECK_NEAR(roof_allreduce_engine_s(mi, &tu, 16384, 8, 448e9, 2e-6), ring, 0);
    tu.custom_allreduce_max_bytes = 8.0 * 1024 * 1024;
    CHECK_NEAR(roof_allreduce_engine_s(mi, &tu, 16384, 8, 448e9, 2e-6), 4.256e-6, 1e-12);
    /* the engine's measured barrier (custom_allreduce_latency 2.92 us, vLLM PR #24111) replaces
     * the link's 2 us in the custom kernel: 7 x 16384 / 448e9 + 2 x 2.92 us = 6.096 us; the
     * ring keeps the link's latency (over PCIe, l40s, below) */
    tu.custom_allreduce_latency_s = 2.92e-6;
    CHECK_NEAR(roof_allreduce_engine_s(mi, &tu, 16384, 8, 448e9, 2e-6), 6.096e-6, 1e-12);
    /* gpt-oss-120b at 4 sequences: 4 x 2880 x 2 B = 23040 B over H100's 450 GB/s each way,
     * 7 x 23040 / 450e9 + 5.84 us = 6.1984 us (4.3584 us with the link's 2 us) */
    CHECK_NEAR(roof_allreduce_custom_s(23040, 8, 450e9, 2.92e-6), 6.1984e-6, 1e-12);
    CHECK_NEAR(roof_allreduce_engine_s(l40s, &tu, 16384, 8, 448e9, 2e-6), ring, 0);
    tu.custom_allreduce_latency_s = 0;
    /* at or above max_size, over PCIe (l40s) and at 3 devices: the ring */
    CHECK_NEAR(roof_allreduce_engine_s(mi, &tu, 8388608, 8, 448e9, 2e-6),
               roof_allreduce_time_s(8388608, 8, 448e9, 2e-6), 0);
    CHECK_NEAR(roof_allreduce_engine_s(l40s, &tu, 16384, 8, 448e9, 2e-6), ring, 0);
    /* ... the ring at 3 devices of a full mesh runs over the 2 peers' links, 2 x 64 GB/s
     * (mi300x.yaml per_peer): 2 x 2/3 x 16384 / 128e9 + 4 x 2 us = 8.1707 us */
    CHECK_NEAR(roof_allreduce_engine_s(mi, &tu, 16384, 3, 448e9, 2e-6),
               roof_allreduce_time_s(16384, 3, 128e9, 2e-6), 0);
    CHECK_NEAR(roof_allreduce_engine_s(mi, &tu, 16384, 3, 448e9, 2e-6),
               4.0 / 3.0 * 16384 / 128e9 + 8e-6, 1e-15);
    /* a decode step of Llama-3-70B at tp 8 on MI300X, fp8 activations, batch 1: 160
     * all-reduces of 8192 16-bit elements (16384 B), each 7 x 16384 / 448e9 + 4 us = 4.256 us:
     * 680.96 us in all, where the ring takes 160 x (1.75 x 16384 / 448e9 + 28 us) = 4.4902 ms */
    struct mdl_profile *m = test_model("llama-3-70b");
    struct roof_config c;
    roof_config_init(&c, mi, m, ROOF_DECODE);
    c.weights = DT_FP8;
    c.act = roof_default_act(DT_FP8);
    c.tp = 8;
    struct roof_result r;
    CHECK(roof_evaluate(&c, &r) == 0);
    CHECK_NEAR(r.link_time_s, 160 * (1.75 * 16384 / 448e9 + 28e-6), 1e-12);
    c.tuning.custom_allreduce_max_bytes = 8.0 * 1024 * 1024;
    CHECK(roof_evaluate(&c, &r) == 0);
    CHECK_NEAR(r.link_time_s, 680.96e-6, 1e-12);
    hw_free(mi);
    hw_free(l40s);
    mdl_free(m);
}

/* The residual stream between devices is 16-bit when the GEMMs take 8-bit or 4-bit activations
 * (a W8A8 GEMM returns its input's dtype, vLLM Fp8LinearOp.apply): Llama-3-70B fp8 at batch 128
 * all-reduces 128 x 8192 x 2 = 2,097,152 B, not 1,048,576; fp16 stays 2 B, fp32 4 B. */
TEST(allreduce_hidden_bytes_16_bit)
{
    CHECK_NEAR(roof_hidden_bytes(DT_FP8), 2.0, 0);
    CHECK_NEAR(roof_hidden_bytes(DT_INT8), 2.0, 0);
    CHECK_NEAR(roof_hidden_bytes(DT_INT4), 2.0, 0);
    CHECK_NEAR(roof_hidden_bytes(DT_FP16), 2.0, 0);
    CHECK_NEAR(roof_hidden_bytes(DT_BF16), 2.0, 0);
    CHECK_NEAR(roof_hidden_bytes(DT_FP32), 4.0, 0);
    CHECK_NEAR(128 * 8192 * roof_hidden_bytes(DT_FP8), 2097152.0, 0);
}

TEST(serving_tensor_and_pipeline_parallel)
{
    /* ring all-reduce: 2 (n-1)/n x bytes / bw + 2 (n-1) x latency;
     * 16384 B over 4 devices at 450 GB/s, 2 us: 5.46e-8 + 1.2e-5 s */
    CHECK_NEAR(roof_allreduce_time_s(16384, 4, 450e9, 2e-6), 2.0 * 3 / 4 * 16384 / 450e9 + 12e-6,
               1e-12);
    CHECK_NEAR(roof_allreduce_time_s(16384, 1, 450e9, 2e-6), 0, 0);
    struct hw_profile *hw;
    struct mdl_profile *m;
    struct roof_config c;
    setup("h100-sxm", "llama-3-70b", &hw, &m, &c);
    struct roof_result r1, r2, r4;
    roof_evaluate(&c, &r1);
    c.tp = 1;
    struct roof_result again;
    roof_evaluate(&c, &again);
    CHECK_NEAR(again.time_s, r1.time_s, 0); /* TP = 1 is the single device */
    c.tp = 2;
    roof_evaluate(&c, &r2);
    /* each device reads half of every GEMM's weights */
    CHECK_NEAR(r2.ops[ROOF_OP_MLP_UP].bytes_weights, r1.ops[ROOF_OP_MLP_UP].bytes_weights / 2,
               1e-12);
    /* 80 layers x 2 all-reduces of 1 x 8192 x 2 B */
    CHECK_NEAR(r2.ops[ROOF_OP_ALLREDUCE].instances, 160, 0);
    CHECK_NEAR(r2.link_time_s, 160 * roof_allreduce_time_s(16384, 2, 450e9, 2e-6), 1e-9);
    CHECK(r2.time_s < r1.time_s);
    c.tp = 4;
    roof_evaluate(&c, &r4);
    CHECK(r4.time_s < r2.time_s);
    CHECK(r4.mem.weights_bytes < r2.mem.weights_bytes);
    c.tp = 3; /* 64 heads are not divisible by 3 */
    CHECK(roof_config_problem(&c) != NULL);
    CHECK(roof_evaluate(&c, &r4) != 0);
    /* pipeline, decode batch 1: one microbatch, the token crosses both stages in turn;
     * half the devices idle */
    c.tp = 1;
    c.pp = 2;
    struct roof_result p2;
    roof_evaluate(&c, &p2);
    CHECK_NEAR(p2.microbatches, 1, 0);
    CHECK_NEAR(p2.pp_bubble_fraction, 0.5, 0);
    CHECK(p2.time_s >= r1.time_s * 0.99); /* no faster than one device at batch 1 */
    c.batch = 8;
    roof_evaluate(&c, &p2);
    CHECK_NEAR(p2.microbatches, 2, 0);
    CHECK_NEAR(p2.pp_bubble_fraction, 0, 0);
    /* replicas multiply throughput */
    c.pp = 1;
    c.gpus = 4;
    roof_evaluate(&c, &r1);
    CHECK(r1.replicas == 4);
    CHECK_NEAR(r1.tokens_per_s_all_replicas, 4 * r1.tokens_per_s_total, 1e-12);
    hw_free(hw);
    mdl_free(m);
}

TEST(serving_speculative)
{
    /* E = (1 - a^(k+1)) / (1 - a): k = 4, a = 0.7: (1 - 0.16807) / 0.3 = 2.7731 */
    CHECK_NEAR(roof_spec_expected_tokens(4, 0.7), 2.7731, 1e-12);
    CHECK_NEAR(roof_spec_expected_tokens(4, 0.0), 1.0, 0);
    CHECK_NEAR(roof_spec_expected_tokens(4, 1.0), 5.0, 0);
    struct hw_profile *hw;
    struct mdl_profile *m;
    struct roof_config c;
    setup("h100-sxm", "llama-3-8b", &hw, &m, &c);
    struct roof_spec s;
    CHECK(roof_speculative(&c, NULL, 0.05, 4, 0.7, &s) == 0);
    CHECK_NEAR(s.cycle_s, 4 * s.draft_step_s + s.verify_s, 1e-12);
    CHECK_NEAR(s.speedup, s.target_step_s * s.expected_tokens / s.cycle_s, 1e-12);
    /* acceptance 0 gives no gain: one token per cycle that costs more than a step */
    CHECK(roof_speculative(&c, NULL, 0.05, 4, 0.0, &s) == 0);
    CHECK(s.speedup < 1.0);
    /* at the break-even acceptance the speed-up is 1 */
    double be = s.break_even_acceptance;
    CHECK(be > 0 && be < 1);
    CHECK(roof_speculative(&c, NULL, 0.05, 4, be, &s) == 0);
    CHECK_NEAR(s.speedup, 1.0, 1e-6);
    /* a real draft model */
    struct mdl_profile *d = test_model("llama-2-7b");
    struct roof_config dc;
    roof_config_init(&dc, hw, d, ROOF_DECODE);
    CHECK(roof_speculative(&c, &dc, 0, 4, 0.7, &s) == 0);
    CHECK(s.draft_step_s > 0.5 * s.target_step_s); /* a 7B draft for an 8B target does not pay */
    CHECK(s.speedup < 1.0);
    mdl_free(d);
    hw_free(hw);
    mdl_free(m);
}

TEST(serving_prefix_cache)
{
    struct hw_profile *hw;
    struct mdl_profile *m;
    struct roof_config c;
    setup("h100-sxm", "llama-3-8b", &hw, &m, &c);
    c.prompt = 2048;
    struct roof_prefix p;
    CHECK(roof_prefix_cache(&c, 0.0, &p) == 0);
    CHECK_NEAR(p.speedup, 1.0, 1e-12); /* no hit: nothing changes */
    CHECK(roof_prefix_cache(&c, 0.75, &p) == 0);
    CHECK_NEAR(p.cached_tokens, 1536, 0);
    /* KV writes: only the 512 new tokens, 512 x 131072 B */
    CHECK_NEAR(p.kv_write_warm_bytes, 512.0 * 131072, 1e-12);
    CHECK_NEAR(p.kv_write_cold_bytes, 2048.0 * 131072, 1e-12);
    CHECK(p.speedup > 1.0 && p.speedup < 4.0);
    CHECK(roof_prefix_cache(&c, 1.0, &p) != 0);
    hw_free(hw);
    mdl_free(m);
}

TEST(serving_disaggregation)
{
    struct hw_profile *hw;
    struct mdl_profile *m;
    struct roof_config c;
    setup("h100-sxm", "llama-3-8b", &hw, &m, &c);
    struct roof_config d = c;
    d.batch = 32;
    struct roof_disagg r;
    CHECK(roof_disaggregate(&c, &d, 1024, 256, 10, &r) == 0);
    /* 1024 tokens x 131072 B = 134 MB over 450 GB/s per direction + 2 us */
    CHECK_NEAR(r.kv_bytes, 1024.0 * 131072, 1e-12);
    CHECK_NEAR(r.transfer_s, 1024.0 * 131072 / 450e9 + 2e-6, 1e-12);
    CHECK_NEAR(r.decode_per_prefill, r.prefill_req_per_s / r.decode_req_per_s, 1e-12);
    CHECK_NEAR(r.decode_req_per_s, 32.0 / (256 * r.itl_s), 1e-12);
    CHECK_NEAR(r.decode_devices, ceil(10 / r.decode_req_per_s), 0);
    hw_free(hw);
    mdl_free(m);
}

TEST(serving_crossovers)
{
    struct hw_profile *hw;
    struct mdl_profile *m;
    struct roof_config c;
    setup("h100-sxm", "llama-3-8b", &hw, &m, &c);
    /* KV reads equal weight reads when (C + 1) x 131072 B = the weights read per step */
    double ctx;
    CHECK(roof_kv_weight_crossover(&c, &ctx) == 0);
    struct roof_result r;
    c.context = ctx;
    roof_evaluate(&c, &r);
    CHECK_NEAR((ctx + 1) * 131072, r.bytes_weights, 1e-6);
    /* at batch 8 it comes 8 times sooner */
    c.batch = 8;
    double ctx8;
    CHECK(roof_kv_weight_crossover(&c, &ctx8) == 0);
    CHECK_NEAR(ctx8 + 1, (ctx + 1) / 8, 1e-3);
    /* prefill time equals the time to generate 256 tokens */
    c.batch = 1;
    double p;
    CHECK(roof_prefill_decode_crossover(&c, 256, &p) == 0);
    c.phase = ROOF_PREFILL;
    c.prompt = p;
    roof_evaluate(&c, &r);
    double ttft = r.time_s;
    c.phase = ROOF_DECODE;
    c.context = p + 128;
    roof_evaluate(&c, &r);
    CHECK_NEAR(ttft, 256 * r.time_s, 1e-6);
    hw_free(hw);
    mdl_free(m);
}
