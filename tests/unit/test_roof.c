/* The roofline engine against hand-computed numbers, the seeds' numbers, and invariants. */
#include "test.h"

#include "core/model.h"
#include "core/roof.h"
#include "io/calparams.h"
#include "util/err.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

void tiny_model(struct mdl_profile *m);

/* A device with round numbers: 1000 B/s, 4000 FLOP/s at fp16, 1000 FLOP/s at fp32 */
static void
round_hw(struct hw_profile *hw)
{
    memset(hw, 0, sizeof *hw);
    hw->id = "round";
    hw->memory_bandwidth_bytes_per_s = 1000;
    hw->memory_capacity_bytes = 1e6;
    hw->peak_flops_per_s[DT_FP16] = 4000;
    hw->peak_flops_per_s[DT_FP32] = 1000;
}

TEST(roof_attainable_and_ridge_continuity)
{
    /* attainable = min(peak, bandwidth x intensity) */
    CHECK_NEAR(roof_attainable(4000, 1000, 1), 1000, 0);
    CHECK_NEAR(roof_attainable(4000, 1000, 10), 4000, 0);
    /* continuous at the ridge (4 FLOP/B): both sides approach the peak */
    CHECK_NEAR(roof_attainable(4000, 1000, 4 - 1e-9), 4000, 1e-9);
    CHECK_NEAR(roof_attainable(4000, 1000, 4 + 1e-9), 4000, 1e-12);
    CHECK_NEAR(roof_attainable(4000, 1000, 4), 4000, 0);
}

TEST(roof_tiny_decode_by_hand)
{
    struct hw_profile hw;
    round_hw(&hw);
    struct mdl_profile m;
    tiny_model(&m);
    m.id = "tiny";
    struct roof_config c;
    roof_config_init(&c, &hw, &m, ROOF_DECODE);
    c.weights = c.act = c.kv = DT_FP16;
    c.batch = 1;
    c.context = 3;
    struct roof_result r;
    CHECK(roof_evaluate(&c, &r) == 0);
    const struct roof_op_result *qkv = &r.ops[ROOF_OP_QKV];
    /* per layer: FLOPs 2 x 1 x 8 x (8 + 2 x 4) = 256; weights 8 x 16 x 2 B = 256 B;
     * act in 8 x 2 = 16 B, Q out 8 x 2 = 16 B, K and V written 2 x 4 x 2 = 16 B; two layers */
    CHECK_NEAR(qkv->instances, 2, 0);
    CHECK_NEAR(qkv->flops, 512, 0);
    CHECK_NEAR(qkv->bytes_weights, 512, 0);
    CHECK_NEAR(qkv->bytes_act_in, 32, 0);
    CHECK_NEAR(qkv->bytes_act_out, 32, 0);
    CHECK_NEAR(qkv->bytes_kv_write, 32, 0);
    /* per layer t_compute = 256 / 4000 = 0.064 s, t_memory = 304 / 1000 = 0.304 s */
    CHECK_NEAR(qkv->compute_time_s, 0.128, 1e-12);
    CHECK_NEAR(qkv->memory_time_s, 0.608, 1e-12);
    CHECK_NEAR(qkv->time_s, 0.608, 1e-12);
    /* scores: the new token sees 3 cached + itself = 4 keys; 2 heads x dim 4:
     * FLOPs 2 x 4 x 2 x 4 = 64 per layer; K read 4 tokens x 4 x 2 B = 32 B; Q in 16 B */
    const struct roof_op_result *sc = &r.ops[ROOF_OP_ATTN_SCORE];
    CHECK_NEAR(sc->flops, 128, 0);
    CHECK_NEAR(sc->bytes_kv_read, 64, 0);
    CHECK_NEAR(sc->bytes_act_in, 32, 0);
    /* LM head: 2 x 10 x 8 = 160 FLOPs, 160 B of weights, once */
    CHECK_NEAR(r.ops[ROOF_OP_LM_HEAD].flops, 160, 0);
    CHECK_NEAR(r.ops[ROOF_OP_LM_HEAD].bytes_weights, 160, 0);
    /* the embedding gathers one row: 8 x 2 B */
    CHECK_NEAR(r.ops[ROOF_OP_EMBEDDING].bytes_weights, 16, 0);
    /* the pass time is the sum of the operators' times, each at least its roofline */
    double sum = 0;
    for (int i = 0; i < ROOF_OP_COUNT; i++) {
        const struct roof_op_result *o = &r.ops[i];
        if (!o->present)
            continue;
        sum += o->time_s;
        CHECK(o->time_s >= o->compute_time_s - 1e-15 && o->time_s >= o->memory_time_s - 1e-15);
    }
    CHECK_NEAR(r.time_s, sum, 1e-12);
    CHECK_NEAR(r.itl_s, r.time_s, 0);
    CHECK_NEAR(r.tokens_per_s_total, 1.0 / r.time_s, 1e-12);
    /* memory: 1352 params x 2 B + KV 4 tokens x 32 B */
    CHECK_NEAR(r.mem.weights_bytes, 2704, 0);
    CHECK_NEAR(r.mem.kv_bytes, 128, 0);
}

TEST(roof_tiny_prefill_causal_pairs)
{
    struct hw_profile hw;
    round_hw(&hw);
    struct mdl_profile m;
    tiny_model(&m);
    m.id = "tiny";
    struct roof_config c;
    roof_config_init(&c, &hw, &m, ROOF_PREFILL);
    c.weights = c.act = c.kv = DT_FP16;
    c.batch = 2;
    c.prompt = 5;
    struct roof_result r;
    CHECK(roof_evaluate(&c, &r) == 0);
    /* causal pairs of a 5-token prompt: 1+2+3+4+5 = 15 per head per sequence;
     * scores 2 x 15 x 2 heads x 4 dims x 2 sequences = 480 FLOPs per layer */
    CHECK_NEAR(r.ops[ROOF_OP_ATTN_SCORE].flops, 960, 0);
    /* logits only at the last position of each sequence: 2 rows */
    CHECK_NEAR(r.ops[ROOF_OP_LM_HEAD].flops, 2 * 2 * 10 * 8, 0);
    CHECK_NEAR(r.tokens, 10, 0);
    CHECK_NEAR(r.ttft_s, r.time_s, 0);
    /* sliding window of 2: pairs = 1 + 2 + 2 + 2 + 2 = 9 */
    m.sliding_window = 2;
    CHECK(roof_evaluate(&c, &r) == 0);
    CHECK_NEAR(r.ops[ROOF_OP_ATTN_SCORE].flops, 2 * 2.0 * 9 * 2 * 4 * 2, 0);
}

TEST(roof_seed_nominal_decode)
{
    struct hw_profile *hw = test_hw("h100-sxm");
    struct roof_nominal n;
    /* 8B parameters at fp16 = 16 GB; 16 GB / 3.35 TB/s = 4.776 ms; 1 / 4.776 ms = 209 tokens/s */
    roof_nominal(hw, 8e9, DT_FP16, DT_FP16, 1, &n);
    CHECK_NEAR(n.weight_bytes, 16e9, 0);
    CHECK_NEAR(n.memory_time_s, 16e9 / 3.35e12, 1e-12);
    CHECK_NEAR(n.memory_time_s * 1e3, 4.78, 0.001);
    CHECK_NEAR(n.tokens_per_s, 209.375, 1e-9);
    CHECK(n.bound == ROOF_BOUND_MEMORY);
    /* intensity at decode: 2 x 8e9 FLOPs / 16e9 B = 1 FLOP/B */
    CHECK_NEAR(n.intensity, 1.0, 1e-12);
    /* the seed's 6-token prefill: 2 x 8e9 x 6 = 96 GFLOP, 96e9 / 989.4e12 = 0.097 ms,
     * utilisation 0.097 / 4.776 = 2.0%, 6 / 4.776 ms = 1256 tokens/s */
    roof_nominal(hw, 8e9, DT_FP16, DT_FP16, 6, &n);
    CHECK_NEAR(n.flops, 96e9, 0);
    CHECK_NEAR(n.compute_time_s, 96e9 / 989.4e12, 1e-12);
    CHECK_NEAR(n.time_s, 16e9 / 3.35e12, 1e-12);
    CHECK_NEAR(n.utilisation, 0.0203155, 1e-4);
    CHECK_NEAR(n.tokens_per_s, 1256.25, 1e-9);
    hw_free(hw);
}

TEST(roof_seed_70b_int4)
{
    /* 70B at 4 bits = 35 GB; tokens/s = bandwidth / 35 GB */
    static const struct {
        const char *id;
        double tps;
    } CASES[] = {{"rtx-4090", 1008e9 / 35e9},
                 {"rtx-3090", 936e9 / 35e9},
                 {"a100-sxm-80gb", 2039e9 / 35e9},
                 {"m2-ultra-76c", 800e9 / 35e9}};
    static const double ROUNDED[] = {29, 27, 58, 23};
    for (size_t i = 0; i < 4; i++) {
        struct hw_profile *hw = test_hw(CASES[i].id);
        struct roof_nominal n;
        roof_nominal(hw, 70e9, DT_INT4, DT_FP16, 1, &n);
        CHECK_NEAR(n.weight_bytes, 35e9, 0);
        CHECK_NEAR(n.tokens_per_s, CASES[i].tps, 1e-9);
        CHECK_NEAR(n.tokens_per_s, ROUNDED[i], 0.5 / ROUNDED[i]);
        hw_free(hw);
    }
}

TEST(roof_llama3_8b_bf16_weights)
{
    struct hw_profile *hw = test_hw("h100-sxm");
    struct mdl_profile *m = test_model("llama-3-8b");
    struct roof_config c;
    roof_config_init(&c, hw, m, ROOF_DECODE);
    CHECK(c.weights == DT_BF16); /* torch_dtype in the config */
    struct roof_result r;
    CHECK(roof_evaluate(&c, &r) == 0);
    /* 8,030,261,248 x 2 B = 16.06 GB */
    CHECK_NEAR(r.mem.weights_bytes, 16.060522496e9, 1e-12);
    /* decode reads all weights but the embedding table (128256 x 4096 x 2 B = 1.05 GB),
     * of which it gathers one row */
    CHECK_NEAR(r.bytes_weights, 16.060522496e9 - 128256.0 * 4096 * 2 + 4096 * 2 - 2 * 4096 * 33,
               1e-3);
    CHECK(r.bound == ROOF_BOUND_MEMORY);
    hw_free(hw);
    mdl_free(m);
}

TEST(roof_batching_invariants)
{
    struct hw_profile *hw = test_hw("h100-sxm");
    struct mdl_profile *m = test_model("llama-3-8b");
    struct roof_config c;
    roof_config_init(&c, hw, m, ROOF_DECODE);
    c.context = 1024;
    double prev = 0, prev_t = 0;
    for (int b = 1; b <= 256; b *= 2) {
        c.batch = b;
        struct roof_result r;
        CHECK(roof_evaluate(&c, &r) == 0);
        /* more batch never lowers total tokens/s nor shortens the step */
        CHECK(r.tokens_per_s_total >= prev);
        CHECK(r.time_s >= prev_t);
        prev = r.tokens_per_s_total;
        prev_t = r.time_s;
    }
    hw_free(hw);
    mdl_free(m);
}

TEST(roof_critical_batch_is_where_gemms_balance)
{
    struct hw_profile *hw = test_hw("h100-sxm");
    struct mdl_profile *m = test_model("llama-3-8b");
    struct roof_config c;
    roof_config_init(&c, hw, m, ROOF_DECODE);
    double b;
    CHECK(roof_critical_batch(&c, &b) == 0);
    /* a bf16 GEMM of n x k weights at batch B: intensity 2Bnk / (2nk + 2B(n+k)) ~ B for
     * small B, so the crossing sits a little above the ridge (295 FLOP/B) */
    CHECK(b > 295 && b < 400);
    /* below it the weight GEMMs are memory-bound, above it compute-bound */
    struct roof_result r;
    c.batch = b * 0.9;
    roof_evaluate(&c, &r);
    CHECK(r.ops[ROOF_OP_MLP_UP].memory_time_s > r.ops[ROOF_OP_MLP_UP].compute_time_s);
    c.batch = b * 1.1;
    roof_evaluate(&c, &r);
    CHECK(r.ops[ROOF_OP_MLP_UP].compute_time_s > r.ops[ROOF_OP_MLP_UP].memory_time_s);
    /* prefill crossover: total compute time equals total memory time at the root */
    double p;
    c.batch = 1;
    CHECK(roof_prefill_crossover(&c, &p) == 0);
    c.phase = ROOF_PREFILL;
    c.prompt = p;
    roof_evaluate(&c, &r);
    CHECK_NEAR(r.compute_time_s, r.memory_time_s, 1e-6);
    hw_free(hw);
    mdl_free(m);
}

TEST(roof_max_batch_fits_exactly)
{
    struct hw_profile *hw = test_hw("rtx-4090");
    struct mdl_profile *m = test_model("llama-3-8b");
    struct roof_config c;
    roof_config_init(&c, hw, m, ROOF_DECODE);
    c.context = 4096;
    long b = roof_max_batch(&c);
    CHECK(b > 0);
    struct roof_memory mem;
    c.batch = (double)b;
    roof_memory(&c, &mem);
    CHECK(mem.fits);
    c.batch = (double)b + 1;
    roof_memory(&c, &mem);
    CHECK(!mem.fits);
    hw_free(hw);
    mdl_free(m);
}

TEST(roof_moe_reads_only_touched_experts)
{
    struct hw_profile *hw = test_hw("h100-sxm");
    struct mdl_profile *m = test_model("mixtral-8x7b");
    struct roof_config c;
    roof_config_init(&c, hw, m, ROOF_DECODE);
    c.weights = DT_BF16;
    struct roof_result r;
    c.batch = 1;
    roof_evaluate(&c, &r);
    /* one token touches 2 of 8 experts: expected distinct = 8 (1 - (6/8)^1) = 2;
     * gate weights read = 32 layers x 2 experts x 4096 x 14336 x 2 B */
    CHECK_NEAR(r.ops[ROOF_OP_MLP_GATE].bytes_weights, 32.0 * 2 * 4096 * 14336 * 2, 1e-12);
    /* a large batch touches all 8: 8 (1 - 0.75^512) ~ 8 */
    c.batch = 512;
    roof_evaluate(&c, &r);
    CHECK_NEAR(r.ops[ROOF_OP_MLP_GATE].bytes_weights, 32.0 * 8 * 4096 * 14336 * 2, 1e-9);
    hw_free(hw);
    mdl_free(m);
}

TEST(roof_flash_off_moves_the_score_matrix)
{
    struct hw_profile *hw = test_hw("h100-sxm");
    struct mdl_profile *m = test_model("llama-3-8b");
    struct roof_config c;
    roof_config_init(&c, hw, m, ROOF_PREFILL);
    c.prompt = 2048;
    struct roof_result on, off;
    roof_evaluate(&c, &on);
    c.flash_attention = false;
    roof_evaluate(&c, &off);
    /* scores written: 32 heads x 2048 x 2048 x 2 B = 268 MB per layer, read by softmax, ... */
    CHECK_NEAR(off.ops[ROOF_OP_ATTN_SCORE].bytes_act_out - on.ops[ROOF_OP_ATTN_SCORE].bytes_act_out,
               32.0 * 32 * 2048 * 2048 * 2, 1e-12);
    CHECK(off.time_s > on.time_s);
    hw_free(hw);
    mdl_free(m);
}

/* The engine's host work per pass: step_overhead once, token_overhead per sequence that samples
 * a token (a decode, a prompt's last chunk), none for a prompt chunk that does not finish. By
 * hand: 1 ms + 24 decodes x 100 us + one finishing chunk x 100 us = 3.5 ms; the non-finishing
 * chunk adds nothing; the other operators do not move. */
TEST(roof_token_overhead_by_hand)
{
    struct hw_profile *hw = test_hw("h100-sxm");
    struct mdl_profile *m = test_model("llama-3-8b");
    struct roof_config c;
    roof_config_init(&c, hw, m, ROOF_DECODE);
    c.tuning.step_overhead_s = 1e-3;
    struct roof_result *a = calloc(1, sizeof *a), *b = calloc(1, sizeof *b);
    struct roof_seq q[3] = {{24, 1, 500, true}, {1, 256, 0, true}, {1, 512, 0, false}};
    CHECK(roof_step(&c, q, 3, a) == 0);
    CHECK_NEAR(a->ops[ROOF_OP_STEP].time_s, 1e-3, 1e-15);
    c.tuning.token_overhead_s = 100e-6;
    CHECK(roof_step(&c, q, 3, b) == 0);
    CHECK_NEAR(b->ops[ROOF_OP_STEP].time_s, 3.5e-3, 1e-15);
    CHECK_NEAR(b->time_s - a->time_s, 2.5e-3, 1e-12);
    /* alone: the token overhead makes the step operator present without a step overhead */
    c.tuning.step_overhead_s = 0;
    CHECK(roof_step(&c, q, 1, b) == 0);
    CHECK(b->ops[ROOF_OP_STEP].present);
    CHECK_NEAR(b->ops[ROOF_OP_STEP].time_s, 2.4e-3, 1e-15);
    free(a);
    free(b);
    hw_free(hw);
    mdl_free(m);
}

/* Only the attention operators depend on the past tokens: a decode pass is the sum of the pass
 * restricted to attention and the pass without it, on dense, MoE, MLA and sliding-window models
 * (what the simulator relies on to evaluate the rest once per batch size). */
TEST(roof_step_ops_split_decode)
{
    const char *models[4] = {"llama-3-8b", "mixtral-8x7b", "deepseek-v3", "gemma-2-9b"};
    for (int k = 0; k < 4; k++) {
        struct hw_profile *hw = test_hw("h100-sxm");
        struct mdl_profile *m = test_model(models[k]);
        struct roof_config c;
        roof_config_init(&c, hw, m, ROOF_DECODE);
        c.tuning.step_overhead_s = 2e-4;
        c.tuning.kernel_overhead_s = 3e-6;
        struct roof_result *all = calloc(1, sizeof *all), *part = calloc(1, sizeof *part);
        double pasts[3] = {10, 3000, 9000};
        for (int i = 0; i < 3; i++) {
            struct roof_seq q[2] = {{24, 1, pasts[i], true}, {8, 1, 2 * pasts[i], true}};
            CHECK(roof_step(&c, q, 2, all) == 0);
            CHECK(roof_step_ops(&c, q, 2, ROOF_OPS_ALL & ~ROOF_OPS_ATTENTION, part) == 0);
            double rest = part->time_s;
            CHECK(!part->ops[ROOF_OP_ATTN_SCORE].present && part->ops[ROOF_OP_MLP_DOWN].present);
            CHECK(roof_step_ops(&c, q, 2, ROOF_OPS_ATTENTION, part) == 0);
            CHECK(part->ops[ROOF_OP_ATTN_SCORE].present && !part->ops[ROOF_OP_QKV].present);
            CHECK_NEAR(rest + part->time_s, all->time_s, 1e-12);
            /* the rest does not move with the context */
            struct roof_seq q0[2] = {{24, 1, 1, true}, {8, 1, 1, true}};
            CHECK(roof_step_ops(&c, q0, 2, ROOF_OPS_ALL & ~ROOF_OPS_ATTENTION, part) == 0);
            CHECK_NEAR(part->time_s, rest, 1e-12);
        }
        free(all);
        free(part);
        hw_free(hw);
        mdl_free(m);
    }
}

/* roof_step_time writes only the requested operators into a scratch result that other masks
 * and batches have left dirty, yet must return roof_step_ops' time_s bit for bit: every model
 * form (dense, MoE, MLA, sliding windows), both phases, the kernel model on and off, decode-only,
 * mixed and fractional batches, each mask the simulator uses. */
TEST(roof_step_time_bit_identical)
{
    const char *models[4] = {"llama-3-8b", "mixtral-8x7b", "deepseek-v3", "gemma-2-9b"};
    unsigned long masks[3] = {ROOF_OPS_ALL, ROOF_OPS_ATTENTION, ROOF_OPS_ALL & ~ROOF_OPS_ATTENTION};
    struct roof_seq batches[4][3] = {
        {{1, 1, 100, true}, {0, 0, 0, false}, {0, 0, 0, false}},
        {{24, 1, 3000, true}, {8, 1, 9000, true}, {0, 0, 0, false}},
        {{17.37, 1, 1234.5, true}, {1, 777.25, 0, false}, {0, 0, 0, false}},
        {{3, 1, 50, true}, {1, 512, 1024, true}, {1, 2000, 0, false}},
    };
    int nseq[4] = {1, 2, 2, 3};
    struct hw_profile *hw = test_hw("h100-sxm");
    struct roof_result *ref = calloc(1, sizeof *ref), *scratch = calloc(1, sizeof *scratch);
    int same = 0, n = 0;
    for (int k = 0; k < 4; k++) {
        struct mdl_profile *m = test_model(models[k]);
        for (int kernel = 0; kernel < 2; kernel++)
            for (int ph = 0; ph < 2; ph++) {
                struct roof_config c;
                roof_config_init(&c, hw, m, ph ? ROOF_PREFILL : ROOF_DECODE);
                c.tuning.step_overhead_s = 2e-4;
                c.tuning.kernel_overhead_s = 3e-6;
                if (kernel) {
                    c.tuning.compute_units = 132;
                    c.tuning.memory_latency_s = 6e-7;
                    c.tuning.inflight_bytes_per_unit = 40000;
                }
                for (int b = 0; b < 4; b++)
                    for (int i = 0; i < 3; i++) {
                        double t = 0;
                        CHECK(roof_step_ops(&c, batches[b], nseq[b], masks[i], ref) == 0);
                        CHECK(roof_step_time(&c, batches[b], nseq[b], masks[i], scratch, &t) == 0);
                        same += memcmp(&t, &ref->time_s, sizeof t) == 0 && t > 0;
                        n++;
                    }
            }
        mdl_free(m);
    }
    CHECK(same == n);
    /* an empty batch fails as roof_step_ops does, with the time at -1 */
    struct mdl_profile *m = test_model("llama-3-8b");
    struct roof_config c;
    roof_config_init(&c, hw, m, ROOF_DECODE);
    struct roof_seq none = {0, 1, 10, true};
    double t = 0;
    CHECK(roof_step_time(&c, &none, 1, ROOF_OPS_ALL, scratch, &t) == -1 && t == -1.0);
    mdl_free(m);
    hw_free(hw);
    free(ref);
    free(scratch);
}

TEST(roof_step_mixed_batches)
{
    struct hw_profile *hw = test_hw("h100-sxm");
    struct mdl_profile *m = test_model("mistral-7b"); /* sliding window on every layer */
    struct roof_config c;
    roof_config_init(&c, hw, m, ROOF_DECODE);
    c.batch = 4;
    c.context = 700;
    struct roof_result ev, st;
    roof_evaluate(&c, &ev);
    /* the same batch as 4 separate sequences gives the same costs */
    struct roof_seq four[4] = {
        {1, 1, 700, true}, {1, 1, 700, true}, {1, 1, 700, true}, {1, 1, 700, true}};
    CHECK(roof_step(&c, four, 4, &st) == 0);
    CHECK_NEAR(st.time_s, ev.time_s, 1e-12);
    CHECK_NEAR(st.flops, ev.flops, 1e-12);
    /* a prompt of 6000 in two chunks of 3000 does the same attention work as one pass:
     * pairs(0, 3000) + pairs(3000, 3000) = pairs(0, 6000), with and without the window */
    c.phase = ROOF_PREFILL;
    struct roof_seq whole = {1, 6000, 0, true};
    struct roof_seq first = {1, 3000, 0, false}, second = {1, 3000, 3000, true};
    struct roof_result a, b1, b2;
    roof_step(&c, &whole, 1, &a);
    roof_step(&c, &first, 1, &b1);
    roof_step(&c, &second, 1, &b2);
    CHECK_NEAR(b1.ops[ROOF_OP_ATTN_SCORE].flops + b2.ops[ROOF_OP_ATTN_SCORE].flops,
               a.ops[ROOF_OP_ATTN_SCORE].flops, 1e-12);
    /* Mistral's 4096 window: 6000 tokens see at most 4096 keys; pairs
     * = 4096 x 4097 / 2 + (6000 - 4096) x 4096 per head per layer */
    double pairs = 4096.0 * 4097 / 2 + (6000.0 - 4096) * 4096;
    CHECK_NEAR(a.ops[ROOF_OP_ATTN_SCORE].flops, 32.0 * 2 * pairs * 32 * 128, 1e-12);
    /* the first chunk samples no token: no LM head */
    CHECK(!b1.ops[ROOF_OP_LM_HEAD].present);
    /* a mixed step: one decode token and a 512-token chunk */
    struct roof_seq mixed[2] = {{1, 1, 1000, true}, {1, 512, 0, false}};
    CHECK(roof_step(&c, mixed, 2, &st) == 0);
    CHECK_NEAR(st.tokens, 513, 0);
    CHECK_NEAR(st.ops[ROOF_OP_LM_HEAD].flops, 2.0 * 4096 * 32000, 1e-12);
    struct roof_seq empty = {0, 0, 0, false};
    CHECK(roof_step(&c, &empty, 1, &st) != 0);
    hw_free(hw);
    mdl_free(m);
}

TEST(roof_mla_softmax_on_vector_units)
{
    /* softmax (exp, max, sum, scale) runs on the vector units in fp32 in the MLA branch as in
     * the standard one, not at the tensor-core peak. DeepSeek-V3 decode, batch 1, context 512,
     * on an H100 (fp32 vector peak 66.9 TFLOP/s): 513 keys x 128 heads x 5 FLOP = 328,320 FLOP
     * per layer, 61 layers: 61 x 328320 / 6.69e13 = 2.99365e-7 s */
    struct hw_profile *hw = test_hw("h100-sxm");
    struct mdl_profile *m = test_model("deepseek-v3");
    struct roof_config c;
    roof_config_init(&c, hw, m, ROOF_DECODE);
    c.batch = 1;
    c.context = 512;
    struct roof_result r;
    CHECK(roof_evaluate(&c, &r) == 0);
    const struct roof_op_result *sm = &r.ops[ROOF_OP_SOFTMAX];
    CHECK(!sm->is_matmul);
    CHECK(sm->roof_dtype == DT_FP32);
    CHECK_NEAR(sm->flops, 61.0 * 513 * 128 * 5, 1e-12);
    CHECK_NEAR(sm->peak_flops_per_s, 6.69e13, 1e-12);
    CHECK_NEAR(sm->compute_time_s, 61.0 * 328320 / 6.69e13, 1e-9);
    /* the same kernel in a standard-attention model is charged the same way */
    struct mdl_profile *l = test_model("llama-3-8b");
    roof_config_init(&c, hw, l, ROOF_DECODE);
    CHECK(roof_evaluate(&c, &r) == 0);
    CHECK(!r.ops[ROOF_OP_SOFTMAX].is_matmul);
    CHECK_NEAR(r.ops[ROOF_OP_SOFTMAX].peak_flops_per_s, 6.69e13, 1e-12);
    mdl_free(l);
    mdl_free(m);
    hw_free(hw);
}

/* GGUF MXFP4_MOE (ggml-org's gpt-oss GGUFs): routed experts in mxfp4 (17 B per 32 weights),
 * the router in f32, every other matrix in q8_0 (34 B per 32). A gpt-oss-120b decode step at
 * batch 1, by hand: experts 36 layers x 4 x 2880 x 2880 x 17/32 = 634,521,600 B per matrix
 * (gate, up, down); q/k/v 36 x 2880 x (4096 + 2 x 512) x 34/32 = 564,019,200; o 36 x 4096 x
 * 2880 x 34/32 = 451,215,360; router 36 x 128 x 2880 x 4 = 53,084,160; LM head 201088 x 2880 x
 * 34/32 = 615,329,280: 3,587,212,800 B of matrices, 1.40 x the 2.57 GB of a uniform fp4. */
TEST(roof_mxfp4_moe_decode_bytes_by_hand)
{
    struct hw_profile *hw = test_hw("m2-ultra-76c");
    struct mdl_profile *m = test_model("gpt-oss-120b");
    struct roof_config c;
    roof_config_init(&c, hw, m, ROOF_DECODE);
    c.weights = DT_MXFP4_MOE;
    c.act = roof_default_act(c.weights);
    c.kv = roof_default_kv(c.weights);
    c.batch = 1;
    c.context = 16;
    CHECK(roof_config_problem(&c) == NULL);
    struct roof_result r;
    CHECK(roof_evaluate(&c, &r) == 0);
    CHECK_NEAR(r.ops[ROOF_OP_MLP_GATE].bytes_weights, 634521600.0, 1e-12);
    CHECK_NEAR(r.ops[ROOF_OP_MLP_UP].bytes_weights, 634521600.0, 1e-12);
    CHECK_NEAR(r.ops[ROOF_OP_MLP_DOWN].bytes_weights, 634521600.0, 1e-12);
    CHECK_NEAR(r.ops[ROOF_OP_QKV].bytes_weights, 564019200.0, 1e-12);
    CHECK_NEAR(r.ops[ROOF_OP_O_PROJ].bytes_weights, 451215360.0, 1e-12);
    CHECK_NEAR(r.ops[ROOF_OP_ROUTER].bytes_weights, 53084160.0, 1e-12);
    CHECK_NEAR(r.ops[ROOF_OP_LM_HEAD].bytes_weights, 615329280.0, 1e-12);
    double matrices = 0;
    const enum roof_op MATS[] = {ROOF_OP_QKV,    ROOF_OP_O_PROJ,   ROOF_OP_ROUTER, ROOF_OP_MLP_GATE,
                                 ROOF_OP_MLP_UP, ROOF_OP_MLP_DOWN, ROOF_OP_LM_HEAD};
    for (size_t i = 0; i < sizeof MATS / sizeof MATS[0]; i++)
        matrices += r.ops[MATS[i]].bytes_weights;
    CHECK_NEAR(matrices, 3587212800.0, 1e-12);
    /* the experts dequantize as fp4 (3 ops per weight), the q8_0 matrices as q8_0 (2) */
    CHECK_NEAR(r.ops[ROOF_OP_MLP_GATE].dequant_flops, 36.0 * 4 * 2880 * 2880 * 3, 1e-12);
    CHECK_NEAR(r.ops[ROOF_OP_O_PROJ].dequant_flops, 36.0 * 4096 * 2880 * 2, 1e-12);
    /* a uniform fp4 (NVFP4) reads every matrix at 4.5 bits */
    struct roof_result u;
    c.weights = DT_FP4;
    CHECK(roof_evaluate(&c, &u) == 0);
    CHECK_NEAR(u.ops[ROOF_OP_QKV].bytes_weights, 36.0 * 2880 * 5120 * 0.5625, 1e-12);
    CHECK(r.time_s > u.time_s);
    hw_free(hw);
    mdl_free(m);
}

/* The expected distinct experts of a batch, E (1 - (1 - k/E)^B) per layer, at the mix's expert
 * width. gpt-oss-120b at batch 8: 128 (1 - (124/128)^8) = 28.7104 experts, x 36 layers x 2880 x
 * 2880 x 17/32 = 4,554,344,678 B per expert matrix; Qwen3-30B-A3B (q8_0) at batch 4:
 * 128 (1 - (120/128)^4) = 29.1230 experts, x 48 x 2048 x 768 x 34/32 = 2,336,136,192 B. */
TEST(roof_moe_distinct_experts_at_a_batch)
{
    struct hw_profile *hw = test_hw("dgx-spark");
    struct mdl_profile *m = test_model("gpt-oss-120b");
    struct roof_config c;
    roof_config_init(&c, hw, m, ROOF_DECODE);
    c.weights = DT_MXFP4_MOE;
    c.batch = 8;
    c.context = 528;
    struct roof_result r;
    CHECK(roof_evaluate(&c, &r) == 0);
    CHECK_NEAR(r.ops[ROOF_OP_MLP_DOWN].bytes_weights, 4554344677.957, 1e-9);
    mdl_free(m);
    m = test_model("qwen3-30b-a3b");
    roof_config_init(&c, hw, m, ROOF_DECODE);
    c.weights = DT_Q8_0;
    c.batch = 4;
    c.context = 528;
    CHECK(roof_evaluate(&c, &r) == 0);
    CHECK_NEAR(r.ops[ROOF_OP_MLP_GATE].bytes_weights, 2336136192.0, 1e-9);
    hw_free(hw);
    mdl_free(m);
}

/* llama.cpp's Metal experts (ggml_metal_op_mul_mat_id, docs/physics.md#moe-kernels) on
 * gpt-oss-20b (32 experts, 4 a token, 24 layers, 2880 x 2880 mxfp4 matrices of
 * 2880 x 2880 x 17/32 = 4,406,400 B). Batch 4 runs mul_mv_id: 4 x 4 = 16 pairs, each reading its
 * expert: 24 x 16 x 4,406,400 = 1,692,057,600 B per GEMM (uniform routing's distinct experts,
 * 32 (1 - (28/32)^4) = 13.1, would give 1.39 GB). At 31 tokens still 124 pairs; at 32 mul_mm_id:
 * 32 (1 - (28/32)^32) = 31.5539 experts read once, 24 x 31.5539 x 4,406,400 = 3,336,941,186 B,
 * each with 128 / 31.55 = 4.06 tokens in one 32-token tile: 31.5539 x 32 = 1009.73 columns paid,
 * 2 x 1009.73 x 2880 x 2880 x 24 FLOPs. */
TEST(roof_moe_metal_mul_mat_id)
{
    struct roof_tuning tu = {0};
    tu.metal.mm_above = 8;
    tu.metal.mm_tile = 32;
    tu.metal.mm_tile_rows = 64;
    tu.metal.mm_id_min = 32;
    struct roof_moe_choice mc;
    roof_moe_choose(&tu, 32, 4, 4, &mc);
    CHECK(mc.kernel == ROOF_MOE_METAL_MV_ID);
    CHECK(strcmp(roof_moe_kernel_name(mc.kernel), "mul_mv_id") == 0);
    CHECK_NEAR(mc.expert_reads, 16, 0);
    CHECK_NEAR(mc.paid_columns, 16, 0);
    roof_moe_choose(&tu, 32, 4, 31, &mc);
    CHECK(mc.kernel == ROOF_MOE_METAL_MV_ID);
    CHECK_NEAR(mc.expert_reads, 124, 0);
    roof_moe_choose(&tu, 32, 4, 32, &mc);
    CHECK(mc.kernel == ROOF_MOE_METAL_MM_ID);
    CHECK(strcmp(roof_moe_kernel_name(mc.kernel), "mul_mm_id") == 0);
    CHECK_NEAR(mc.expert_reads, 31.553925, 1e-7);
    CHECK_NEAR(mc.paid_columns, 1009.725607, 1e-8);
    CHECK_NEAR(mc.dequant_passes, 31.553925, 1e-7);
    /* 256 tokens: 1024 pairs on the 32 experts (all but 32 (28/32)^256 ~ 0 touched), 32 each:
     * one tile; 257: 1028 / 32 = 32.1 tokens, two tiles each */
    roof_moe_choose(&tu, 32, 4, 256, &mc);
    CHECK_NEAR(mc.paid_columns, 32 * 32, 1e-6);
    roof_moe_choose(&tu, 32, 4, 257, &mc);
    CHECK_NEAR(mc.paid_columns, 32 * 64, 1e-6);
    /* without the key (another backend): each touched expert once, the pairs' arithmetic */
    tu.metal.mm_id_min = 0;
    roof_moe_choose(&tu, 32, 4, 4, &mc);
    CHECK(mc.kernel == ROOF_MOE_READ_ONCE);
    CHECK_NEAR(mc.expert_reads, 32 * (1 - pow(28.0 / 32, 4)), 1e-9);
    CHECK_NEAR(mc.paid_columns, 16, 0);

    struct hw_profile *hw = test_hw("m2-ultra-76c");
    struct mdl_profile *m = test_model("gpt-oss-20b");
    struct roof_config c;
    roof_config_init(&c, hw, m, ROOF_DECODE);
    c.weights = DT_MXFP4_MOE;
    c.context = 528;
    c.batch = 4;
    c.tuning.metal = tu.metal;
    c.tuning.metal.mm_id_min = 32;
    struct roof_result r;
    CHECK(roof_evaluate(&c, &r) == 0);
    const struct roof_op_result *g = &r.ops[ROOF_OP_MLP_GATE];
    CHECK_NEAR(g->bytes_weights, 1692057600.0, 1e-12);
    CHECK_NEAR(g->flops, 24 * 2.0 * 16 * 2880 * 2880, 1e-12);
    /* memory-bound on the datasheet's 800 GB/s: weights, 16 x 2880 fp16 in and out a layer */
    CHECK_NEAR(g->memory_time_s, (1692057600.0 + 24 * 2 * 16 * 2880 * 2.0) / 800e9, 1e-9);
    c.batch = 32;
    CHECK(roof_evaluate(&c, &r) == 0);
    CHECK_NEAR(g->bytes_weights, 3336941185.595, 1e-9);
    CHECK_NEAR(g->flops, 24 * 2.0 * 1009.7256068734 * 2880 * 2880, 1e-9);
    /* the dense matrices are unchanged: the attention projections still read once */
    CHECK_NEAR(r.ops[ROOF_OP_QKV].bytes_weights / 24, 2880.0 * (64 * 64 + 2 * 8 * 64) * 34 / 32,
               1e-9);
    hw_free(hw);
    mdl_free(m);
}

/* ggml-metal's decode flash attention (kernel_flash_attn_ext_vec): one threadgroup per query
 * head, so a grouped-query cache crosses the cores' data path once per query head. Qwen3-30B-A3B
 * (32 query heads, 4 KV heads of 128) at 32769 keys, K and V f16 (512 B per token and KV head):
 * 32 x 32769 x 512 = 536,887,296 B a layer over the M2 Ultra's L2 (76 x 32 B x 1.398 GHz =
 * 3.400 TB/s in its profile, a measured rate: no efficiency): 536,887,296 / 3.4e12 = 157.908 us,
 * where the KV read once from memory, 4 x 32769 x 512 B in 260 CTAs of 65 partitions, is 3.42 waves
 * of 258,115.9 B at 800e9 x 0.8 / 76 B/s, 30.65 us each: 104.86 us. */
TEST(roof_metal_flash_attn_vec)
{
    struct hw_profile *hw = test_hw("m2-ultra-76c");
    CHECK_NEAR(hw->cache_bandwidth_bytes_per_s[HW_L2], 3.4e12, 1e-12);
    struct roof_tuning tu = {0};
    tu.memory_efficiency = 0.8;
    tu.metal.fa_vec_below = 20;
    double t = roof_metal_fa_vec_s(hw, &tu, 1, 1, 32, 4, 128, 32769, 512);
    CHECK_NEAR(t, 536887296.0 / 3.4e12, 1e-15);
    CHECK_NEAR(t, 157.908e-6, 1e-6);
    /* a measured rate: the class's memory efficiency does not scale it */
    tu.memory_efficiency = 0.5;
    CHECK_NEAR(roof_metal_fa_vec_s(hw, &tu, 1, 1, 32, 4, 128, 32769, 512), t, 1e-15);
    /* 16 sequences: 16 times the bytes */
    CHECK_NEAR(roof_metal_fa_vec_s(hw, &tu, 16, 1, 32, 4, 128, 32769, 512), 16 * t, 1e-15);
    /* not the vector kernel: 20 queries a sequence, a head of 80, no key, no L2 figure */
    CHECK(roof_metal_fa_vec_s(hw, &tu, 1, 20, 32, 4, 128, 32769, 512) < 0);
    CHECK(roof_metal_fa_vec_s(hw, &tu, 1, 1, 32, 4, 80, 32769, 320) < 0);
    tu.metal.fa_vec_below = 0;
    CHECK(roof_metal_fa_vec_s(hw, &tu, 1, 1, 32, 4, 128, 32769, 512) < 0);
    tu.metal.fa_vec_below = 20;
    /* the kernel's own stream (PR #26570's M2 Ultra master column: 0.4187 of 800 GB/s =
     * 334.96 GB/s): the 4 KV heads once, 4 x 32769 x 512 = 67,110,912 B / 334.96e9 = 200.355 us,
     * slower than the data path's 157.908 us, so it sets the time */
    tu.metal.fa_vec_kv_fraction = 0.4187;
    double tk = roof_metal_fa_vec_s(hw, &tu, 1, 1, 32, 4, 128, 32769, 512);
    CHECK_NEAR(tk, 67110912.0 / (0.4187 * 800e9), 1e-15);
    CHECK_NEAR(tk, 200.355e-6, 1e-6);
    /* 16 sequences stream 16 caches */
    CHECK_NEAR(roof_metal_fa_vec_s(hw, &tu, 16, 1, 32, 4, 128, 32769, 512), 16 * tk, 1e-15);
    /* at the full memory bandwidth the stream (83.889 us) is under the data path: 157.908 us */
    tu.metal.fa_vec_kv_fraction = 1.0;
    CHECK_NEAR(roof_metal_fa_vec_s(hw, &tu, 1, 1, 32, 4, 128, 32769, 512), t, 1e-15);
    tu.metal.fa_vec_kv_fraction = 0;

    /* in a decode step: the fused attention's memory side is the larger of the two */
    struct mdl_profile *m = test_model("qwen3-30b-a3b");
    struct roof_config c;
    roof_config_init(&c, hw, m, ROOF_DECODE);
    c.weights = DT_FP16;
    c.act = c.kv = DT_FP16;
    c.context = 32768;
    c.tuning.memory_efficiency = c.tuning.compute_efficiency = 0.8;
    c.tuning.compute_units = 76;
    c.tuning.memory_latency_s = 1e-6;
    c.tuning.metal.mm_above = 8;
    c.tuning.metal.mm_tile = 32;
    c.tuning.metal.mm_tile_rows = 64;
    c.tuning.metal.fa_vec_below = 20;
    struct roof_result r;
    CHECK(roof_evaluate(&c, &r) == 0);
    double both = r.ops[ROOF_OP_ATTN_SCORE].memory_time_s + r.ops[ROOF_OP_ATTN_AV].memory_time_s;
    CHECK_NEAR(both, 48 * 536887296.0 / 3.4e12, 1e-9);
    /* with the kernel's stream: 48 layers x 200.355 us */
    c.tuning.metal.fa_vec_kv_fraction = 0.4187;
    CHECK(roof_evaluate(&c, &r) == 0);
    both = r.ops[ROOF_OP_ATTN_SCORE].memory_time_s + r.ops[ROOF_OP_ATTN_AV].memory_time_s;
    CHECK_NEAR(both, 48 * 67110912.0 / (0.4187 * 800e9), 1e-9);
    c.tuning.metal.fa_vec_kv_fraction = 0;
    /* without the key (ggml-cuda): the KV once from memory, 3.42 waves of 30.65 us */
    c.tuning.metal.fa_vec_below = 0;
    CHECK(roof_evaluate(&c, &r) == 0);
    both = r.ops[ROOF_OP_ATTN_SCORE].memory_time_s + r.ops[ROOF_OP_ATTN_AV].memory_time_s;
    CHECK_NEAR(both, 48 * (260.0 / 76) * (32769.0 / 65 * 512) / (800e9 * 0.8 / 76), 1e-9);
    CHECK_NEAR(both, 48 * 104.86e-6, 1e-4);
    hw_free(hw);
    mdl_free(m);
}

/* ggml-cuda's experts on MMQ runs (build 6918): one token runs MMVQ with ids (the 4 experts of
 * gpt-oss-120b once: 36 x 4 x 4,406,400 B per GEMM); two or more MMQ, whose column tile is the
 * least multiple of 8 holding the tokens (mul_mat_q_case with ncols_max = tokens). Batch 2:
 * 128 (1 - (124/128)^2) = 7.875 experts read once, tiles of 8 paid: 2 x 7.875 x 8 x 2880^2 x 36
 * = 37,623,398,400 FLOPs on the int8 roof; batch 12 tiles of 16, 32 of 32, 200 of 128 (the
 * engine's widest). */
TEST(roof_moe_mmq_mul_mat_id)
{
    struct roof_tuning tu = {0};
    tu.mmq = true;
    tu.mmq_tile_tokens = 128;
    tu.mmq_tile_rows = 128;
    tu.mmq_above = 8;
    tu.mmq_id_above = 1;
    tu.mmq_tile_step = 8;
    struct roof_moe_choice mc;
    roof_moe_choose(&tu, 128, 4, 1, &mc);
    CHECK(mc.kernel == ROOF_MOE_MMVQ);
    CHECK_NEAR(mc.expert_reads, 4, 1e-12);
    roof_moe_choose(&tu, 128, 4, 2, &mc);
    CHECK(mc.kernel == ROOF_MOE_MMQ);
    CHECK(strcmp(roof_moe_kernel_name(mc.kernel), "mmq") == 0);
    CHECK_NEAR(mc.tile, 8, 0);
    CHECK_NEAR(mc.expert_reads, 7.875, 1e-12);
    CHECK_NEAR(mc.paid_columns, 63, 1e-12);
    roof_moe_choose(&tu, 128, 4, 12, &mc);
    CHECK_NEAR(mc.tile, 16, 0);
    roof_moe_choose(&tu, 128, 4, 32, &mc);
    CHECK_NEAR(mc.tile, 32, 0);
    roof_moe_choose(&tu, 128, 4, 200, &mc);
    CHECK_NEAR(mc.tile, 128, 0);

    struct hw_profile *hw = test_hw("dgx-spark");
    struct mdl_profile *m = test_model("gpt-oss-120b");
    struct roof_config c;
    roof_config_init(&c, hw, m, ROOF_DECODE);
    c.weights = DT_MXFP4_MOE;
    c.context = 528;
    c.tuning.mmq = true;
    c.tuning.mmq_tile_tokens = 128;
    c.tuning.mmq_tile_rows = 128;
    c.tuning.mmq_above = 8;
    c.tuning.mmq_id_above = 1;
    c.tuning.mmq_tile_step = 8;
    c.batch = 1;
    struct roof_result r;
    const struct roof_op_result *g = &r.ops[ROOF_OP_MLP_GATE];
    CHECK(roof_evaluate(&c, &r) == 0);
    CHECK_NEAR(g->bytes_weights, 36 * 4 * 4406400.0, 1e-12);
    CHECK(g->roof_dtype != DT_INT8);
    c.batch = 2;
    CHECK(roof_evaluate(&c, &r) == 0);
    CHECK(g->roof_dtype == DT_INT8);
    CHECK_NEAR(g->bytes_weights, 1249214400.0, 1e-12);
    CHECK_NEAR(g->flops, 37623398400.0, 1e-12);
    /* without mmq_id_above, the rule of the dense GEMMs on the routed rows (8 rows: MMVQ) */
    c.tuning.mmq_id_above = 0;
    CHECK(roof_evaluate(&c, &r) == 0);
    CHECK(g->roof_dtype != DT_INT8);
    hw_free(hw);
    mdl_free(m);
}

/* A mix stores routed experts apart: on a dense model there are none, and the configuration is
 * refused rather than silently read as q8_0. */
TEST(roof_mix_needs_experts)
{
    struct hw_profile *hw = test_hw("h100-sxm");
    struct mdl_profile *m = test_model("llama-3-8b");
    struct roof_config c;
    roof_config_init(&c, hw, m, ROOF_DECODE);
    c.weights = DT_MXFP4_MOE;
    CHECK(roof_config_problem(&c) != NULL);
    c.weights = DT_Q4_K_M;
    CHECK(roof_config_problem(&c) == NULL);
    hw_free(hw);
    mdl_free(m);
}

/* The MoE FFN's graph in llama.cpp (build_moe_ffn, docs/physics.md#moe-kernels), counted by
 * hand. Qwen3-30B-A3B (softmax, norm_w, k = 8): router, softmax, top-k, get_rows, sum_rows,
 * div (6), up, gate, swiglu, down (4), mul by the weights and 7 adds (8) = 18 kernels, 13
 * beyond the five operators the layer lists; on Metal the 7 adds are one kernel: 12 and 7.
 * gpt-oss (k = 4): router, logits bias, top-k, get_rows, softmax of the 4 (5), up, gate, swiglu,
 * down and three ADD_ID (7), mul and 3 adds (4) = 16, 11 beyond (Metal 14, 9). Mixtral (k = 2):
 * 6 + 4 + 2 = 12, 7 beyond either way. DeepSeek-V2-Lite (softmax, scale_w, k = 6, shared):
 * 5 + 4 + 6 + 5 = 20, 15 beyond (Metal 16, 11). DeepSeek-V3 (sigmoid, selection bias, 7 group
 * nodes, norm_w, scale_w, k = 8, shared): 15 + 4 + 8 + 5 = 32, 27 beyond (Metal 26, 21). */
TEST(roof_moe_graph_kernels_by_architecture)
{
    static const struct {
        const char *model;
        double total, uncharged, metal_total, metal_uncharged;
    } cases[] = {
        {"qwen3-30b-a3b", 18, 13, 12, 7},     {"gpt-oss-20b", 16, 11, 14, 9},
        {"gpt-oss-120b", 16, 11, 14, 9},      {"mixtral-8x7b", 12, 7, 12, 7},
        {"deepseek-v2-lite", 20, 15, 16, 11}, {"deepseek-v3", 32, 27, 26, 21},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        struct mdl_profile *m = test_model(cases[i].model);
        struct roof_moe_graph g;
        roof_moe_graph_kernels(m, 1, &g);
        CHECK_NEAR(g.total, cases[i].total, 0);
        CHECK_NEAR(g.uncharged, cases[i].uncharged, 0);
        roof_moe_graph_kernels(m, 8, &g);
        CHECK_NEAR(g.total, cases[i].metal_total, 0);
        CHECK_NEAR(g.uncharged, cases[i].metal_uncharged, 0);
        mdl_free(m);
    }
    struct mdl_profile *dense = test_model("qwen2.5-7b");
    struct roof_moe_graph g;
    roof_moe_graph_kernels(dense, 1, &g);
    CHECK_NEAR(g.total, 0, 0);
    mdl_free(dense);
}

/* The architecture is read once with the profile: the loader's kind is the one model_type names,
 * and a name it does not know (or none) is the plain softmax graph. */
TEST(mdl_moe_graph_resolved_at_load)
{
    struct mdl_profile *m = test_model("deepseek-v2-lite");
    CHECK(m->moe_graph == MDL_MOE_GRAPH_DEEPSEEK_V2);
    mdl_free(m);
    m = test_model("gpt-oss-20b");
    CHECK(m->moe_graph == MDL_MOE_GRAPH_GPT_OSS);
    mdl_free(m);
    CHECK(mdl_moe_graph_of("mixtral") == MDL_MOE_GRAPH_NORM);
    CHECK(mdl_moe_graph_of("qwen3_moe") == MDL_MOE_GRAPH_NORM);
    CHECK(mdl_moe_graph_of("deepseek_v3") == MDL_MOE_GRAPH_DEEPSEEK_V3);
    CHECK(mdl_moe_graph_of("qwen2_moe") == MDL_MOE_GRAPH_PLAIN);
    CHECK(mdl_moe_graph_of(NULL) == MDL_MOE_GRAPH_PLAIN);
}

/* Their cost, charged on Metal only: Qwen3-30B-A3B Q8_0 decoding one token on the M2 Ultra's
 * Metal (ADDs fused by 8):
 * 7 launches a layer beyond the router GEMM's, and their traffic at fp16 activations: 5
 * routing kernels x 2 x 128 x 2 B = 2,560 B, the weighted outputs 2 x 8 x 2048 x 2 = 65,536 B,
 * the one fused add kernel 2048 x 2 x (7 + 2) = 36,864 B: 104,960 B a layer. At 7.15 us a
 * launch, 48 layers add 48 x 7 x 7.15 = 2402.4 us of launches to the router operator. */
TEST(roof_moe_graph_kernels_time)
{
    struct hw_profile *hw = test_hw("m2-ultra-76c");
    struct mdl_profile *m = test_model("qwen3-30b-a3b");
    struct roof_config c;
    roof_config_init(&c, hw, m, ROOF_DECODE);
    c.weights = DT_Q8_0;
    c.context = 528;
    c.batch = 1;
    c.tuning.metal.mm_above = 8;
    c.tuning.metal.mm_tile = 32;
    c.tuning.metal.mm_tile_rows = 64;
    c.tuning.metal.mm_id_min = 32;
    struct roof_result r0, r1;
    CHECK(roof_evaluate(&c, &r0) == 0);
    c.tuning.kernel_overhead_s = 7.15e-6;
    CHECK(roof_evaluate(&c, &r1) == 0);
    const struct roof_op_result *a = &r0.ops[ROOF_OP_ROUTER], *b = &r1.ops[ROOF_OP_ROUTER];
    /* the router GEMM reads 1 x 2048 fp16 and writes 128: 4352 B a layer */
    CHECK_NEAR(a->bytes_act_in + a->bytes_act_out, 48 * (104960.0 + 4096 + 256), 1e-12);
    CHECK_NEAR(b->time_s - a->time_s, 48 * 8 * 7.15e-6, 1e-9);
    /* the other operators are unchanged by the count: gate pays one launch a layer */
    CHECK_NEAR(r1.ops[ROOF_OP_MLP_GATE].time_s - r0.ops[ROOF_OP_MLP_GATE].time_s, 48 * 7.15e-6,
               1e-9);
    /* elsewhere (no Metal keys: ggml-cuda's graph replay and fusions) the router GEMM alone */
    memset(&c.tuning.metal, 0, sizeof c.tuning.metal);
    c.tuning.kernel_overhead_s = 0;
    CHECK(roof_evaluate(&c, &r0) == 0);
    c.tuning.kernel_overhead_s = 7.15e-6;
    CHECK(roof_evaluate(&c, &r1) == 0);
    CHECK_NEAR(a->bytes_act_in + a->bytes_act_out, 48 * (4096.0 + 256), 1e-12);
    CHECK_NEAR(b->time_s - a->time_s, 48 * 7.15e-6, 1e-9);
    hw_free(hw);
    mdl_free(m);
}

/* vLLM's MXFP4 MoE through triton_kernels (engine_profiles/vllm.yaml triton_moe_kernels, the
 * hand count of gpt_oss_triton_kernels_moe.py and matmul_ogs.py: 17 launches a layer besides
 * the router GEMM), on the H100: the model's chain charges gate, up, activation and down, so
 * 17 - 4 = 13 more a layer go on the router. gpt-oss-120b, batch 4, fp16 activations: their
 * traffic is the logits 2 x 4 x 128 x 2 B = 2,048 B, the k rows read 4 x 4 x 2880 x 2 =
 * 92,160 B and the sums written 4 x 2880 x 2 = 23,040 B: 117,248 B a layer, besides the router
 * GEMM's 23,040 B in and 1,024 B out. At 1.616 us a launch, 36 layers add 36 x 14 x 1.616 us
 * to the router operator (its GEMM and the 13). Other weight formats, no count, or Metal: the
 * router GEMM alone. The device rule (select_mxfp4_moe_backend): 9.x, 11.x and 12.x take
 * triton_kernels, 10.x FlashInfer's kernels, below 9.0 Marlin. */
TEST(roof_triton_moe_kernels)
{
    CHECK(roof_triton_moe_device(9.0));
    CHECK(roof_triton_moe_device(12.0));
    CHECK(!roof_triton_moe_device(10.0));
    CHECK(!roof_triton_moe_device(10.3));
    CHECK(!roof_triton_moe_device(8.9));
    CHECK(!roof_triton_moe_device(0));
    CHECK_NEAR(roof_triton_moe_extra(17), 13, 0);
    CHECK_NEAR(roof_triton_moe_extra(4), 0, 0);
    CHECK_NEAR(roof_triton_moe_extra(0), 0, 0);
    struct hw_profile *hw = test_hw("h100-sxm");
    struct mdl_profile *m = test_model("gpt-oss-120b");
    struct roof_config c;
    roof_config_init(&c, hw, m, ROOF_DECODE);
    c.weights = DT_FP4;
    c.act = DT_FP16;
    c.context = 1024;
    c.batch = 4;
    c.tuning.triton_moe_kernels = 17;
    struct roof_result r0, r1;
    CHECK(roof_evaluate(&c, &r0) == 0);
    c.tuning.kernel_overhead_s = 1.616e-6;
    CHECK(roof_evaluate(&c, &r1) == 0);
    const struct roof_op_result *a = &r0.ops[ROOF_OP_ROUTER], *b = &r1.ops[ROOF_OP_ROUTER];
    CHECK_NEAR(a->bytes_act_in + a->bytes_act_out, 36 * (117248.0 + 23040 + 1024), 1e-12);
    CHECK_NEAR(b->time_s - a->time_s, 36 * 14 * 1.616e-6, 1e-9);
    CHECK_NEAR(r1.ops[ROOF_OP_MLP_GATE].time_s - r0.ops[ROOF_OP_MLP_GATE].time_s, 36 * 1.616e-6,
               1e-9);
    /* bf16 experts (or fp8): not the MXFP4 path */
    c.weights = DT_FP8;
    CHECK(roof_evaluate(&c, &r1) == 0);
    CHECK_NEAR(r1.ops[ROOF_OP_ROUTER].bytes_act_in + r1.ops[ROOF_OP_ROUTER].bytes_act_out,
               36 * (23040.0 + 1024), 1e-12);
    /* gpt-oss's own checkpoint: its experts are MXFP4 */
    c.weights = DT_MXFP4_MOE_BF16;
    CHECK(roof_evaluate(&c, &r1) == 0);
    CHECK_NEAR(r1.ops[ROOF_OP_ROUTER].bytes_act_in + r1.ops[ROOF_OP_ROUTER].bytes_act_out,
               36 * (117248.0 + 23040 + 1024), 1e-12);
    /* no count: the router GEMM alone */
    c.weights = DT_FP4;
    c.tuning.triton_moe_kernels = 0;
    CHECK(roof_evaluate(&c, &r1) == 0);
    CHECK_NEAR(r1.ops[ROOF_OP_ROUTER].bytes_act_in + r1.ops[ROOF_OP_ROUTER].bytes_act_out,
               36 * (23040.0 + 1024), 1e-12);
    hw_free(hw);
    mdl_free(m);
}

/* DeepSeek-V3 on 8 devices at tp 8, fp8 weights and activations, a bf16 cache (the
 * checkpoint's formats as SGLang serves it on Hopper) */
static void
dsv3_fp8_tp8(struct roof_config *c, const struct hw_profile *hw, const struct mdl_profile *m,
             enum roof_phase phase)
{
    roof_config_init(c, hw, m, phase);
    c->weights = DT_FP8;
    c->act = DT_FP8;
    c->kv = DT_BF16;
    c->tp = 8;
    c->gpus = 8;
}

/* DeepSeek-V3 (block-scaled FP8: quantization_config weight_block_size [128, 128]) prefill of
 * 4096 tokens at tp 8 on an H200, the pure roofline (efficiencies 1). Per device: 16 of the 128
 * heads, experts of 2048 / 8 = 256 columns, dense FFN 18432 / 8 = 2304.
 * - the attention runs in the wider of the activation and KV formats: fp8 activations with a
 *   bf16 cache attend at the bf16 rate, 989.4 TFLOPS; Q K^T is 2 x 4096 x 4097 / 2 query-key
 *   pairs x 16 heads x 192 (128 + 64) = 51.554 GFLOP a layer, 61 layers: 3.1784 ms at bf16;
 *   with an fp8 cache, 1978.9 TFLOPS, half that.
 * - the gate GEMMs: every layer 2 x 4096 x 2304 x 7168 = 135.29 GFLOP (the MoE layers' 8
 *   routed + 1 shared expert of 256 columns are the dense layers' 2304), at the fp8 roof
 *   61 x 135.29 GFLOP / 1978.9 TFLOPS = 4.1704 ms; with Triton's block-scaled MoE at 0.61 of
 *   bf16 the 58 MoE layers take 58 x 135.29 / (0.61 x 989.4) = 13.0016 ms and the 3 dense
 *   layers stay at fp8, 0.2051 ms: 13.2067 ms. A per-tensor fp8 checkpoint (no block size)
 *   keeps the fp8 roof. */
TEST(roof_block_fp8_moe_and_attention_format)
{
    struct hw_profile *hw = test_hw("h200");
    struct mdl_profile *m = test_model("deepseek-v3");
    struct mdl_profile *l = test_model("llama-3-8b");
    CHECK(m->fp8_weight_block == 128);
    CHECK(l->fp8_weight_block == 0);
    struct roof_config c;
    dsv3_fp8_tp8(&c, hw, m, ROOF_PREFILL);
    c.prompt = 4096;
    struct roof_result r0, r1;
    CHECK(roof_evaluate(&c, &r0) == 0);
    const struct roof_op_result *sc = &r0.ops[ROOF_OP_ATTN_SCORE];
    double score = 61 * 2.0 * (4096.0 * 4097 / 2) * 16 * 192;
    CHECK_NEAR(sc->flops, score, 1e-9);
    CHECK(sc->roof_dtype == DT_BF16);
    CHECK_NEAR(sc->compute_time_s, score / 989.4e12, 1e-9);
    CHECK_NEAR(sc->compute_time_s, 3.1784e-3, 1e-4);
    double gate = 2.0 * 4096 * 2304 * 7168;
    CHECK_NEAR(r0.ops[ROOF_OP_MLP_GATE].flops, 61 * gate, 1e-9);
    CHECK_NEAR(r0.ops[ROOF_OP_MLP_GATE].compute_time_s, 61 * gate / 1978.9e12, 1e-9);
    CHECK_NEAR(r0.ops[ROOF_OP_MLP_GATE].compute_time_s, 4.1704e-3, 1e-4);
    c.tuning.moe_block_fp8_vs_bf16 = 0.61;
    CHECK(roof_evaluate(&c, &r1) == 0);
    double moe = 58 * gate / (0.61 * 989.4e12), dense = 3 * gate / 1978.9e12;
    CHECK_NEAR(r1.ops[ROOF_OP_MLP_GATE].compute_time_s, moe + dense, 1e-9);
    CHECK_NEAR(r1.ops[ROOF_OP_MLP_GATE].compute_time_s, 13.2067e-3, 1e-4);
    CHECK_NEAR(r1.ops[ROOF_OP_MLP_DOWN].compute_time_s, moe + dense, 1e-9);
    /* the weights stay fp8: the same bytes */
    CHECK_NEAR(r1.ops[ROOF_OP_MLP_GATE].bytes_weights, r0.ops[ROOF_OP_MLP_GATE].bytes_weights, 0);
    /* the attention does not move with the experts' kernel */
    CHECK_NEAR(r1.ops[ROOF_OP_ATTN_SCORE].compute_time_s, sc->compute_time_s, 1e-12);
    /* an fp8 cache: fp8 attention */
    c.kv = DT_FP8;
    CHECK(roof_evaluate(&c, &r1) == 0);
    CHECK(r1.ops[ROOF_OP_ATTN_SCORE].roof_dtype == DT_FP8);
    CHECK_NEAR(r1.ops[ROOF_OP_ATTN_SCORE].compute_time_s, score / 1978.9e12, 1e-9);
    /* no block scales (a per-tensor fp8 checkpoint): the fp8 roof for the experts */
    c.kv = DT_BF16;
    m->fp8_weight_block = 0;
    CHECK(roof_evaluate(&c, &r1) == 0);
    CHECK_NEAR(r1.ops[ROOF_OP_MLP_GATE].compute_time_s, 61 * gate / 1978.9e12, 1e-9);
    /* bf16 weights: not the fp8 path */
    m->fp8_weight_block = 128;
    c.weights = DT_BF16;
    c.act = DT_BF16;
    CHECK(roof_evaluate(&c, &r1) == 0);
    CHECK_NEAR(r1.ops[ROOF_OP_MLP_GATE].compute_time_s, 61 * gate / 989.4e12, 1e-9);
    hw_free(hw);
    mdl_free(m);
    mdl_free(l);
}

/* SGLang's Triton fused MoE sums each token's k + S expert rows in a kernel of its own
 * (moe_sum_kernel; fused_experts_impl: the down GEMM writes intermediate_cache3, T x (k + S) x
 * hidden in the 16-bit activation type, then moe_sum_reduce). DeepSeek-V3 prefill of 16 x 512
 * = 8192 tokens at tp 8 on an H200, the pure roofline (4.8 TB/s, no latency or launch cost):
 * 8 routed + 1 fused shared expert, 73,728 rows of 7168 a MoE layer, read at 2 B (bf16 though
 * the GEMMs' activations are fp8): 1,056,964,608 B, the 8192 sums written 117,440,512 B,
 * 1,174,405,120 B in 244.668 us; 58 MoE layers 14.1907 ms; 528,482,304 adds a layer. Not the
 * 3 dense layers, not without the key, not MXFP4 experts (their triton_kernels path sums in
 * its own reduction), not a model of one expert a token. */
TEST(roof_moe_sum_kernel)
{
    struct hw_profile *hw = test_hw("h200");
    struct mdl_profile *m = test_model("deepseek-v3");
    struct roof_config c;
    roof_config_init(&c, hw, m, ROOF_PREFILL);
    c.weights = DT_FP8;
    c.act = DT_FP8;
    c.kv = DT_BF16;
    c.batch = 16;
    c.prompt = 512;
    c.tp = 8;
    c.gpus = 8;
    struct roof_result r0, r1;
    CHECK(roof_evaluate(&c, &r0) == 0);
    CHECK(!r0.ops[ROOF_OP_MOE_SUM].present);
    CHECK_NEAR(r0.ops[ROOF_OP_MOE_SUM].time_s, 0, 0);
    c.tuning.moe_sum_kernel = true;
    CHECK(roof_evaluate(&c, &r1) == 0);
    const struct roof_op_result *s = &r1.ops[ROOF_OP_MOE_SUM];
    CHECK(s->present);
    CHECK_NEAR(s->instances, 58, 0);
    CHECK_NEAR(s->bytes_act_in, 58 * 1056964608.0, 1e-12);
    CHECK_NEAR(s->bytes_act_out, 58 * 117440512.0, 1e-12);
    CHECK_NEAR(s->flops, 58 * 528482304.0, 1e-12);
    CHECK_NEAR(s->time_s, 58 * 1174405120.0 / 4.8e12, 1e-9);
    CHECK_NEAR(s->time_s, 14.1907e-3, 1e-5);
    /* the rest of the pass does not move */
    CHECK_NEAR(r1.time_s - s->time_s, r0.time_s, 1e-12);
    CHECK_NEAR(r1.ops[ROOF_OP_MLP_DOWN].time_s, r0.ops[ROOF_OP_MLP_DOWN].time_s, 0);
    /* fp32 activations: 4 B an element */
    c.act = DT_FP32;
    CHECK(roof_evaluate(&c, &r1) == 0);
    CHECK_NEAR(r1.ops[ROOF_OP_MOE_SUM].bytes_act_in, 58 * 2 * 1056964608.0, 1e-12);
    /* FP4 experts: not this path */
    c.act = DT_FP8;
    c.weights = DT_FP4;
    CHECK(roof_evaluate(&c, &r1) == 0);
    CHECK(!r1.ops[ROOF_OP_MOE_SUM].present);
    hw_free(hw);
    mdl_free(m);
    /* a dense model: no experts, no sum */
    hw = test_hw("h200");
    m = test_model("llama-3-8b");
    roof_config_init(&c, hw, m, ROOF_PREFILL);
    c.tuning.moe_sum_kernel = true;
    CHECK(roof_evaluate(&c, &r1) == 0);
    CHECK(!r1.ops[ROOF_OP_MOE_SUM].present);
    hw_free(hw);
    mdl_free(m);
}

/* *c for `phase` with the shipped `engine` profile's tuning, weights in `w`, activations and
 * cache in `a`. */
static void
engine_config(struct hw_profile *hw, struct mdl_profile *m, const char *engine,
              enum roof_phase phase, enum dtype w, enum dtype a, struct roof_config *c)
{
    roof_config_init(c, hw, m, phase);
    struct err_list e = {0};
    CHECK(calparams_tuning(hw, engine, NULL, &c->tuning, NULL, &e) == 0);
    err_list_release(&e);
    c->weights = w;
    c->act = a;
    c->kv = a;
}

/* A prefill pass of `prompt` tokens with the shipped `engine` profile's tuning, weights in `w`,
 * activations and cache in `a`, evaluated into *r (the config in *c). */
static void
engine_prefill(struct hw_profile *hw, struct mdl_profile *m, const char *engine, enum dtype w,
               enum dtype a, double prompt, struct roof_config *c, struct roof_result *r)
{
    engine_config(hw, m, engine, ROOF_PREFILL, w, a, c);
    c->prompt = prompt;
    CHECK(roof_evaluate(c, r) == 0);
}

/* The sum kernel against its published timing: sgl-project/sglang PR #13193 (2025-11-13, on an
 * H200) times SGLang's Triton moe_sum_reduce (TritonKernel_ori) on a tensor of T x 8 x 2048
 * bf16 (the PR's tuning_moe_sum_reduce.py: WORKLOAD_SPECS (8, 2048, bfloat16), Qwen3-30B-A3B's
 * top-8 and hidden size) at 44.48, 78.75 and 145.22 us for T = 4096, 8192 and 16384. The model
 * under the shipped sglang profile on the h200, per layer of Qwen3-30B-A3B (48 MoE layers,
 * bf16): 151.0, 302.0 and 604.0 MB at the profile's bandwidth plus one latency and launch:
 * 42.65, 83.06 and 163.9 us (-4%, +5%, +13%: the kernel streams faster the larger it is, the
 * model's bandwidth is one fraction). The PR states no tolerance; within 10% at 4096 and 8192,
 * 15% at 16384. */
TEST(roof_moe_sum_kernel_vs_sglang_pr13193)
{
    struct hw_profile *hw = test_hw("h200");
    struct mdl_profile *m = test_model("qwen3-30b-a3b");
    const double tokens[3] = {4096, 8192, 16384}, us[3] = {44.48, 78.75, 145.22};
    const double tol[3] = {0.10, 0.10, 0.15};
    for (int i = 0; i < 3; i++) {
        struct roof_config c;
        struct roof_result r;
        engine_prefill(hw, m, "sglang", DT_BF16, DT_BF16, tokens[i], &c, &r);
        CHECK(c.tuning.moe_sum_kernel);
        const struct roof_op_result *s = &r.ops[ROOF_OP_MOE_SUM];
        CHECK_NEAR(s->instances, 48, 0);
        CHECK_NEAR(s->bytes_act_in + s->bytes_act_out, 48 * 9.0 * tokens[i] * 2048 * 2, 1e-12);
        CHECK_NEAR(s->time_s / 48, us[i] * 1e-6, tol[i]);
    }
    hw_free(hw);
    mdl_free(m);
}

/* vLLM's Marlin MoE against its timing on a full Hopper GPU (flagos-ai/FlagGems PR #4350, the
 * 'vLLM ms' column of its first Mixtral table: E 8, hidden 4096, intermediate 14336, top 2, GPTQ
 * int4, the whole fused_marlin_moe call): 0.921453, 2.720316, 9.909706, 38.999008 and 78.786560
 * ms at 256, 1024, 4096, 16384 and 32768 tokens. The shipped vllm profile on the h100-sxm, a layer
 * of mixtral-8x7b in int4 (gate, up, activation, down): its bytes over the bandwidth plus its
 * FLOPs at 0.32 x 989.4 TFLOPS. The rate came from the two largest rows (engine_profiles/vllm.yaml
 * marlin_moe_vs_peak); the others check the rule that adds the weights' stream: within 5%. */
TEST(roof_marlin_moe_vs_flaggems_pr4350)
{
    struct hw_profile *hw = test_hw("h100-sxm");
    struct mdl_profile *m = test_model("mixtral-8x7b");
    const double tokens[5] = {256, 1024, 4096, 16384, 32768};
    const double ms[5] = {0.921453, 2.720316, 9.909706, 38.999008, 78.786560};
    for (int i = 0; i < 5; i++) {
        struct roof_config c;
        struct roof_result r;
        engine_prefill(hw, m, "vllm", DT_INT4, DT_FP16, tokens[i], &c, &r);
        CHECK_NEAR(c.tuning.marlin_moe_vs_peak, 0.32, 0);
        CHECK(roof_moe_marlin(&c));
        const struct roof_op_result *g = &r.ops[ROOF_OP_MLP_GATE];
        CHECK_NEAR(g->peak_flops_per_s, 0.32 * 989.4e12, 1e-12);
        CHECK_NEAR(g->flops, 32 * 2.0 * tokens[i] * 2 * 4096 * 14336, 1e-12);
        double t = r.ops[ROOF_OP_MLP_GATE].time_s + r.ops[ROOF_OP_MLP_UP].time_s +
                   r.ops[ROOF_OP_MLP_ACT].time_s + r.ops[ROOF_OP_MLP_DOWN].time_s;
        CHECK_NEAR(t / 32, ms[i] * 1e-3, 0.05);
    }
    hw_free(hw);
    mdl_free(m);
}

/* One MoE layer's Triton fused MoE at `tokens` decode tokens with the shipped `engine` profile's
 * tuning: the experts' ops (gate, up, activation, down, sum) and the router op's launches beyond
 * its GEMM (the router GEMM itself is not in a fused-MoE benchmark: it takes the logits), per
 * layer of `layers` (every layer a MoE one), at tensor parallelism `tp`. */
static double
fused_moe_layer_s(struct hw_profile *hw, struct mdl_profile *m, const char *engine, enum dtype w,
                  enum dtype a, double tokens, int layers, long tp)
{
    struct roof_config c;
    engine_config(hw, m, engine, ROOF_DECODE, w, a, &c);
    c.tp = tp;
    c.batch = tokens;
    c.context = 1;
    struct roof_result r, g;
    CHECK(roof_evaluate(&c, &r) == 0);
    c.tuning.fused_moe_kernels = 0; /* the router op without the chain: its GEMM alone */
    CHECK(roof_evaluate(&c, &g) == 0);
    const enum roof_op ops[] = {ROOF_OP_MLP_GATE, ROOF_OP_MLP_UP,  ROOF_OP_MLP_ACT,
                                ROOF_OP_MLP_DOWN, ROOF_OP_MOE_SUM, ROOF_OP_ROUTER};
    double t = -g.ops[ROOF_OP_ROUTER].time_s;
    for (size_t i = 0; i < sizeof ops / sizeof ops[0]; i++)
        t += r.ops[ops[i]].time_s;
    return t / layers;
}

/* The fused MoE's launches beyond the layer's own by hand: a chain of 7 with one quantisation
 * before each fp8 GEMM is 9 in fp8, 7 in 16 bits; the layer charges gate, up, activation and
 * down (4) and the sum kernel where the engine has one (5): 4 and 2 more, 5 and 3 without the
 * sum kernel; nothing without the key, nor when the chain is no longer than the layer's own. */
TEST(roof_fused_moe_extra_by_hand)
{
    struct roof_tuning t = {0};
    CHECK(roof_fused_moe_extra(&t, true, true) == 0);
    t.fused_moe_kernels = 7;
    t.fused_moe_quant_kernels = 1;
    CHECK_NEAR(roof_fused_moe_extra(&t, true, true), 4, 0);
    CHECK_NEAR(roof_fused_moe_extra(&t, false, true), 2, 0);
    CHECK_NEAR(roof_fused_moe_extra(&t, true, false), 5, 0);
    CHECK_NEAR(roof_fused_moe_extra(&t, false, false), 3, 0);
    t.fused_moe_kernels = 4;
    CHECK(roof_fused_moe_extra(&t, false, true) == 0);
}

/* Triton's fused MoE against its timing at decode sizes on a named GPU: vllm-project/vllm PR
 * #24700 (mgoin, 2025-09-11, 'Benchmarks on H100': benchmarks/kernels/benchmark_moe.py
 * --model=Qwen/Qwen3-30B-A3B -tp=1 --dtype=fp8_w8a8, the whole fused_experts call with its top-k,
 * replayed in a CUDA graph), the PR's column: 40.44, 56.15, 78.10, 118.64, 164.64, 193.48 and
 * 210.07 us at 1, 2, 4, 8, 16, 24 and 32 tokens (E 128, top 8, K 2048, N 768). The shipped vllm
 * profile on the h100-sxm, a layer of qwen3-30b-a3b in fp8 (48 layers, all MoE): within 15% at
 * every size with the chain's launches (fused_moe_kernels, fused_moe_quant_kernels); 1-4 tokens
 * were 18-36% short without them. The model's count is the block-scaled checkpoints' one
 * activation quantisation; this per-tensor benchmark quantises dynamically, two launches more
 * each, so the model stays under it at small sizes. */
TEST(roof_fused_moe_vs_vllm_pr24700)
{
    struct hw_profile *hw = test_hw("h100-sxm");
    struct mdl_profile *m = test_model("qwen3-30b-a3b");
    const double tokens[7] = {1, 2, 4, 8, 16, 24, 32};
    const double us[7] = {40.44, 56.15, 78.10, 118.64, 164.64, 193.48, 210.07};
    for (int i = 0; i < 7; i++) {
        double t = fused_moe_layer_s(hw, m, "vllm", DT_FP8, DT_FP8, tokens[i], 48, 1);
        CHECK_NEAR(t, us[i] * 1e-6, 0.15);
    }
    struct roof_config c;
    engine_config(hw, m, "vllm", ROOF_DECODE, DT_FP8, DT_FP8, &c);
    CHECK(c.tuning.fused_moe_kernels > 0 && c.tuning.fused_moe_quant_kernels > 0);
    hw_free(hw);
    mdl_free(m);
}

/* The same model against three more whole-layer timings of Triton's fused MoE at decode sizes,
 * each vLLM's benchmarks/kernels/benchmark_moe.py (the fused_experts call with its top-k, ten
 * calls in a CUDA graph): gpt-oss-120b's experts in bf16 on an H100 at tp 1 (vllm-project/vllm
 * PR #39902, 2026-04-15, the default config before the PR's tuning: 89.02 us at 1 token, 562.57
 * at 8; E 128, top 4, K 2880, N 2880); Qwen3-Next-80B-A3B's in block fp8 on an H200 at tp 1 (PR
 * #36559, 2026-03-09, main before the PR: 29.97, 33.00 and 46.43 us at 1, 2 and 4 tokens; E 512,
 * top 10, K 2048, N 512) and on an H100 at tp 4 (PR #44830, 2026-06-08, 29.45 us at 1 token, N
 * 128). The model: 92.1 and 564 us (+3%, +0.3%); 28.7, 37.0 and 53.1 us (-4%, +12%, +14%); 23.3
 * us (-21%). Qwen3-Next's shared expert is not in the benchmark and is taken out here. Not
 * tested: Qwen3-Next on the H200 at 8 and 16 tokens, where the model is 34% and 38% slow (62.29
 * and 99.91 us measured: 435 MB of experts at 16 tokens in 99.91 us is 4.35 TB/s, 91% of the
 * H200's peak, where the model streams them at 78%) (docs/physics.md#moe-kernels). */
TEST(roof_fused_moe_vs_vllm_benchmarks)
{
    struct hw_profile *h100 = test_hw("h100-sxm"), *h200 = test_hw("h200");
    struct mdl_profile *m = test_model("gpt-oss-120b");
    CHECK_NEAR(fused_moe_layer_s(h100, m, "vllm", DT_BF16, DT_BF16, 1, 36, 1), 89.02e-6, 0.10);
    CHECK_NEAR(fused_moe_layer_s(h100, m, "vllm", DT_BF16, DT_BF16, 8, 36, 1), 562.57e-6, 0.10);
    mdl_free(m);
    m = test_model("qwen3-next-80b-a3b");
    m->n_shared_experts = 0;
    m->shared_intermediate_size = 0;
    const double us[3] = {29.97, 33.00, 46.43};
    for (int i = 0; i < 3; i++)
        CHECK_NEAR(fused_moe_layer_s(h200, m, "vllm", DT_FP8, DT_FP8, 1 << i, 48, 1), us[i] * 1e-6,
                   0.15);
    CHECK_NEAR(fused_moe_layer_s(h100, m, "vllm", DT_FP8, DT_FP8, 1, 48, 4), 29.45e-6, 0.25);
    mdl_free(m);
    hw_free(h100);
    hw_free(h200);
}

/* Marlin by hand: gpt-oss-120b's MXFP4 experts on one H200 under vllm with kernels.moe marlin.
 * vLLM allocates them for Marlin on hidden 2880 -> 3072 (a multiple of 256) and intermediate
 * 2880 -> 2944 (of 128): 36 layers x 128 experts x 3 x (3072 x 2944 - 2880 x 2880) = 36 x 128 x 3
 * x 749,568 = 10,362,028,032 weights more at 4.25 bits, 5,504,827,392 B (the checkpoint's 60.77
 * GiB became 66.14 GiB in vLLM's own log, docs/simulate.md). A 1000-token pass: each of gate, up
 * and down does 2 x 1000 x 4 x 3072 x 2944 FLOPs a layer at 0.32 x 989.4 TFLOPS, after its bytes
 * at the tuned bandwidth: time = bytes / bw + FLOPs / rate + the launch. Without the choice, or
 * on a B200 (no Marlin rate there), nothing moves. */
TEST(roof_marlin_mxfp4_by_hand)
{
    double hp, Ip;
    roof_marlin_dims(DT_MXFP4, 2880, 2880, &hp, &Ip);
    CHECK_NEAR(hp, 3072, 0);
    CHECK_NEAR(Ip, 2944, 0);
    roof_marlin_dims(DT_MXFP4, 2880, 360, &hp, &Ip); /* tp 8 */
    CHECK_NEAR(Ip, 384, 0);
    roof_marlin_dims(DT_INT4, 4096, 14336, &hp, &Ip);
    CHECK_NEAR(hp, 4096, 0);
    CHECK_NEAR(Ip, 14336, 0);
    struct hw_profile *hw = test_hw("h200");
    struct hw_profile *b200 = test_hw("b200");
    struct mdl_profile *m = test_model("gpt-oss-120b");
    struct roof_config c;
    engine_config(hw, m, "vllm", ROOF_PREFILL, DT_MXFP4_MOE_BF16, DT_FP16, &c);
    c.prompt = 1000;
    struct roof_result plain, r;
    CHECK(roof_evaluate(&c, &plain) == 0);
    CHECK(!roof_moe_marlin(&c));
    c.mxfp4_marlin = true;
    CHECK(roof_moe_marlin(&c));
    CHECK(roof_evaluate(&c, &r) == 0);
    CHECK_NEAR(r.mem.weights_bytes - plain.mem.weights_bytes, 5504827392.0, 1e-12);
    const struct roof_op_result *g = &r.ops[ROOF_OP_MLP_GATE];
    CHECK_NEAR(g->flops, 36 * 2.0 * 1000 * 4 * 3072 * 2944, 1e-12);
    CHECK(g->dequant_flops == 0);
    double bw = roof_tuned_bandwidth(hw, &c.tuning, hw->memory_bandwidth_bytes_per_s);
    double bytes = g->bytes_weights + g->bytes_act_in + g->bytes_act_out + g->bytes_kv_read +
                   g->bytes_kv_write;
    double one = bytes / 36 / bw + c.tuning.memory_latency_s +
                 2.0 * 1000 * 4 * 3072 * 2944 / (0.32 * 989.4e12) + c.tuning.kernel_overhead_s;
    CHECK_NEAR(g->time_s / 36, one, 1e-9);
    CHECK(r.ops[ROOF_OP_MLP_GATE].time_s > 2.0 * plain.ops[ROOF_OP_MLP_GATE].time_s);
    /* the default triton_kernels path pads the intermediate size to 64 only: 2880 at tp 1
     * unchanged, 360 -> 384 at tp 8 (36 x 128 x 3 x 2880 x 24 = 955,514,880 weights more a device,
     * 4.25 bits: 507,617,280 B; 2 x 1000 x 4 x 2880 x 384 FLOPs a layer for gate) */
    c.mxfp4_marlin = false;
    struct roof_config c8 = c;
    c8.tp = 8;
    c8.gpus = 8;
    struct roof_result t8, k8;
    CHECK(roof_evaluate(&c8, &t8) == 0);
    CHECK_NEAR(t8.ops[ROOF_OP_MLP_GATE].flops, 36 * 2.0 * 1000 * 4 * 2880 * 384, 1e-12);
    c8.tuning.triton_moe_kernels = 0; /* not that path: no padding */
    CHECK(roof_evaluate(&c8, &k8) == 0);
    CHECK_NEAR(t8.mem.weights_bytes - k8.mem.weights_bytes, 507617280.0, 1e-12);
    CHECK_NEAR(k8.ops[ROOF_OP_MLP_GATE].flops, 36 * 2.0 * 1000 * 4 * 2880 * 360, 1e-12);
    CHECK_NEAR(plain.ops[ROOF_OP_MLP_GATE].flops, 36 * 2.0 * 1000 * 4 * 2880 * 2880, 1e-12);
    /* no Marlin rate on Blackwell: the choice changes nothing there */
    struct roof_config cb = c;
    cb.hw = b200;
    cb.mxfp4_marlin = true;
    struct err_list e = {0};
    CHECK(calparams_tuning(b200, "vllm", NULL, &cb.tuning, NULL, &e) == 0);
    err_list_release(&e);
    CHECK(cb.mxfp4_marlin); /* the choice survives the re-tuning */
    CHECK(!roof_moe_marlin(&cb));
    hw_free(hw);
    hw_free(b200);
    mdl_free(m);
}

/* vLLM V1's logits path after the decode graph (engine_profiles/vllm.yaml sampler_kernels 3,
 * docs/physics.md#logits-and-sampler): gpt-oss-120b (vocabulary 201,088) at batch 4 with fp16
 * activations on 8 H100s. Each device's LM head gives 4 x 25,136 logits; the ring all-gather
 * passes 7 blocks of 4 x 25,136 x 2 B = 1,407,616 B in 7 x 4 x 25,136 x 2 / 450e9 + 7 x 2 us =
 * 17.128 us; the copy into place reads and writes 4 x 201,088 x 2 = 1,608,704 B each; the
 * sampler reads 4 x 201,088 x (2 + 4) = 4,826,112 B and writes 4 x 201,088 x 4 + 4 x 4 =
 * 3,217,424 B: 11,260,944 B more on the LM head, and 4 launches (copy and 3) more at 1.616 us.
 * At tp 1 no gather and no copy: 8,043,536 B and 3 launches. */
TEST(roof_logits_gather_and_sampler)
{
    CHECK_NEAR(roof_logits_gather_s(4, 25136, 2, 8, 450e9, 2e-6),
               7.0 * 4 * 25136 * 2 / 450e9 + 14e-6, 1e-15);
    CHECK_NEAR(roof_logits_gather_s(4, 25136, 2, 8, 450e9, 2e-6), 17.128036e-6, 1e-7);
    CHECK_NEAR(roof_logits_gather_s(4, 201088, 2, 1, 450e9, 2e-6), 0, 0);
    struct hw_profile *hw = test_hw("h100-sxm");
    struct mdl_profile *m = test_model("gpt-oss-120b");
    struct roof_config c;
    roof_config_init(&c, hw, m, ROOF_DECODE);
    c.weights = DT_FP8;
    c.act = DT_FP16;
    c.context = 1024;
    c.batch = 4;
    c.tp = 8;
    struct roof_result r0, r1;
    CHECK(roof_evaluate(&c, &r0) == 0);
    c.tuning.sampler_kernels = 3;
    CHECK(roof_evaluate(&c, &r1) == 0);
    const struct roof_op_result *a = &r0.ops[ROOF_OP_LM_HEAD], *b = &r1.ops[ROOF_OP_LM_HEAD];
    CHECK_NEAR(a->link_bytes, 0, 0);
    CHECK_NEAR(b->link_bytes, 1407616, 1e-6);
    CHECK_NEAR(b->link_time_s, 17.128036e-6, 1e-7);
    CHECK_NEAR((b->bytes_act_in + b->bytes_act_out) - (a->bytes_act_in + a->bytes_act_out),
               11260944, 1e-6);
    /* the launches: 5 on the LM head (GEMM, copy, 3) against 1 */
    c.tuning.kernel_overhead_s = 1.616e-6;
    struct roof_result r2;
    CHECK(roof_evaluate(&c, &r2) == 0);
    CHECK_NEAR(r2.ops[ROOF_OP_LM_HEAD].time_s - b->time_s, 5 * 1.616e-6, 1e-12);
    /* one device: the sampler alone */
    c.tp = 1;
    c.tuning.kernel_overhead_s = 0;
    CHECK(roof_evaluate(&c, &r1) == 0);
    c.tuning.sampler_kernels = 0;
    CHECK(roof_evaluate(&c, &r0) == 0);
    a = &r0.ops[ROOF_OP_LM_HEAD];
    b = &r1.ops[ROOF_OP_LM_HEAD];
    CHECK_NEAR(b->link_bytes, 0, 0);
    CHECK_NEAR((b->bytes_act_in + b->bytes_act_out) - (a->bytes_act_in + a->bytes_act_out), 8043536,
               1e-6);
    hw_free(hw);
    mdl_free(m);
}

/* DeepSeek-V3 decode at tp 4 on a B200 in NVIDIA's NVFP4 v2 checkpoint: the MLA q/kv projections
 * read in bf16, q_a and kv_a whole on every device, q_b and kv_b split 4 ways: 61 x (7168 x 1536
 * + 7168 x 576 + (1536 x 128 x 192 + 512 x 128 x 256) / 4) x 2 B = 3,509,977,088 B; o_proj in
 * fp4, 61 x 128 x 128 x 7168 / 4 x 0.5625 B = 1,007,419,392 B (v1: bf16, 3,581,935,616 B); the
 * LM head bf16, 129280 / 4 x 7168 x 2 = 463,339,520 B. */
TEST(roof_nvfp4_checkpoint_reads_attention_in_bf16)
{
    struct hw_profile *hw = test_hw("b200");
    struct mdl_profile *m = test_model("deepseek-v3");
    struct roof_config c;
    roof_config_init(&c, hw, m, ROOF_DECODE);
    c.weights = DT_NVFP4_QKV_BF16;
    c.act = DT_FP16;
    c.kv = DT_FP8;
    c.tp = 4;
    c.batch = 4;
    c.context = 1500;
    struct roof_result r;
    CHECK(roof_evaluate(&c, &r) == 0);
    CHECK_NEAR(r.ops[ROOF_OP_QKV].bytes_weights, 3509977088.0, 1e-12);
    CHECK_NEAR(r.ops[ROOF_OP_O_PROJ].bytes_weights, 1007419392.0, 1e-12);
    CHECK_NEAR(r.ops[ROOF_OP_LM_HEAD].bytes_weights, 463339520.0, 1e-12);
    c.weights = DT_NVFP4_ATTN_BF16;
    CHECK(roof_evaluate(&c, &r) == 0);
    CHECK_NEAR(r.ops[ROOF_OP_O_PROJ].bytes_weights, 3581935616.0, 1e-12);
    /* a dense model has no routed experts for the mix */
    struct mdl_profile *d = test_model("llama-3-8b");
    roof_config_init(&c, hw, d, ROOF_DECODE);
    c.weights = DT_NVFP4_QKV_BF16;
    CHECK(roof_evaluate(&c, &r) != 0);
    hw_free(hw);
    mdl_free(m);
    mdl_free(d);
}

/* Expert parallelism's expected maxima (docs/physics.md#expert-parallelism), by hand:
 *   the largest of n standard normals: 1 / sqrt(pi) = 0.5641896 at 2, 3 / (2 sqrt(pi)) =
 *   0.8462844 at 3, 1.4236003 at 8 (the integral by the trapezoid rule at 0.001);
 *   4 experts, 1 a token, 1 token, 2 groups of 2: each expert touched with p = 1/4, a group's
 *   count Binomial(2, 1/4) (F(0) = 0.5625, F(1) = 0.9375), the larger of two:
 *   (1 - 0.5625^2) + (1 - 0.9375^2) = 0.8046875, where the mean a group is 0.5;
 *   2 pairs over 2 groups, Binomial(2, 1/2) (F(0) = 0.25, F(1) = 0.75): 0.9375 + 0.4375 = 1.375;
 *   DeepSeek-V3 decode at 4 tokens (256 experts, 8 a token), 8 groups: p = 1 - (248/256)^4 =
 *   0.1192617, a group's 32 experts Binomial(32, p): the busiest 6.563485 against the mean
 *   3.816376 (30.531006 / 8); its 32 pairs Binomial(32, 1/8): the busiest 6.798732 against 4;
 *   8000 pairs over 8 groups (sd 29.58, the normal approximation): 1000 + 29.5804 x 1.4236003 =
 *   1042.1107. */
TEST(roof_ep_expected_max_by_hand)
{
    CHECK_NEAR(roof_normal_max_mean(1), 0, 0);
    CHECK_NEAR(roof_normal_max_mean(2), 0.5641896, 1e-6);
    CHECK_NEAR(roof_normal_max_mean(3), 0.8462844, 1e-6);
    CHECK_NEAR(roof_normal_max_mean(8), 1.4236003, 1e-6);
    CHECK_NEAR(roof_ep_touched_max(4, 1, 1, 2), 0.8046875, 1e-9);
    CHECK_NEAR(roof_ep_touched_max(4, 1, 1, 1), 1.0, 1e-12); /* no groups: E (1 - (1 - k/E)^T) */
    CHECK_NEAR(roof_ep_pairs_max(2, 2), 1.375, 1e-9);
    CHECK_NEAR(roof_ep_pairs_max(2, 1), 2, 0);
    CHECK_NEAR(roof_ep_touched_max(256, 8, 4, 8), 6.563485, 1e-5);
    CHECK_NEAR(roof_ep_touched_max(256, 8, 4, 1) / 8, 3.816376, 1e-5);
    CHECK_NEAR(roof_ep_pairs_max(32, 8), 6.798732, 1e-5);
    CHECK_NEAR(roof_ep_pairs_max(8000, 8), 1042.1107, 1e-3);
    /* the exact sum and the normal approximation meet where the standard deviation passes 10
     * (400 pairs over 2 groups: sd 10, exact; 404: sd 10.05, normal): 2 pairs more of mean */
    double a = roof_ep_pairs_max(400, 2), b = roof_ep_pairs_max(404, 2);
    CHECK(b - a > 1.7 && b - a < 2.4);
    /* every expert touched (a long prompt): no group is busier than another */
    CHECK_NEAR(roof_ep_touched_max(256, 8, 16384, 8), 32, 1e-9);
}

/* DeepSeek-V3 decode at 4 sequences on 8 H200s, fp8, tp 8, the pure roofline. Per MoE layer and
 * device the gate GEMM reads, without expert parallelism, the 30.531006 touched experts' 1/8
 * slices (7168 x 256 B each) and the shared expert's; with ep 8 the busiest group's 6.563485
 * whole experts (7168 x 2048 B) and the same shared slice. Its FLOPs: 32 pairs on 256 columns
 * against the busiest group's 6.798732 pairs on 2048, plus the shared expert's 4 rows on 256.
 * The 3 dense layers (7168 x 2304 a device) do not move. */
TEST(roof_expert_parallel_decode)
{
    struct hw_profile *hw = test_hw("h200");
    struct mdl_profile *m = test_model("deepseek-v3");
    struct roof_config c;
    dsv3_fp8_tp8(&c, hw, m, ROOF_DECODE);
    c.batch = 4;
    c.context = 1000;
    struct roof_result r1, r8;
    CHECK(roof_evaluate(&c, &r1) == 0);
    c.ep = 8;
    CHECK(roof_config_problem(&c) == NULL);
    CHECK(roof_evaluate(&c, &r8) == 0);
    double h = 7168, dense = 3 * h * 2304, shared = h * 256;
    CHECK_NEAR(r1.ops[ROOF_OP_MLP_GATE].bytes_weights, 58 * (30.531006 * h * 256 + shared) + dense,
               1e-6);
    CHECK_NEAR(r8.ops[ROOF_OP_MLP_GATE].bytes_weights, 58 * (6.563485 * h * 2048 + shared) + dense,
               1e-6);
    CHECK_NEAR(r1.ops[ROOF_OP_MLP_GATE].flops,
               58 * 2 * (32 * h * 256 + 4 * h * 256) + 3 * 2 * 4 * h * 2304, 1e-9);
    CHECK_NEAR(r8.ops[ROOF_OP_MLP_GATE].flops,
               58 * 2 * (6.798732 * h * 2048 + 4 * h * 256) + 3 * 2 * 4 * h * 2304, 1e-6);
    /* the rest of the layer does not move */
    CHECK_NEAR(r8.ops[ROOF_OP_QKV].bytes_weights, r1.ops[ROOF_OP_QKV].bytes_weights, 0);
    CHECK_NEAR(r8.ops[ROOF_OP_ROUTER].bytes_weights, r1.ops[ROOF_OP_ROUTER].bytes_weights, 0);
    CHECK(r8.time_s > r1.time_s);
    /* the memory a device holds is the same: E / 8 whole experts or every expert's 1/8 */
    struct roof_memory m1, m8;
    c.ep = 1;
    roof_memory(&c, &m1);
    c.ep = 8;
    roof_memory(&c, &m8);
    CHECK_NEAR(m8.weights_bytes, m1.weights_bytes, 0);
    /* what is refused: a degree that does not divide tp or the experts, a dense model */
    c.ep = 3;
    CHECK(roof_config_problem(&c) != NULL);
    c.tp = 4;
    c.ep = 8;
    CHECK(roof_config_problem(&c) != NULL);
    struct mdl_profile *l = test_model("llama-3-8b");
    roof_config_init(&c, hw, l, ROOF_DECODE);
    c.tp = 2;
    c.ep = 2;
    CHECK(roof_config_problem(&c) != NULL);
    hw_free(hw);
    mdl_free(m);
    mdl_free(l);
}

/* Data-parallel attention with the dense parts on each rank (engine attn_dp_dense: rank; vLLM,
 * TensorRT-LLM; docs/physics.md#data-parallel-attention): DeepSeek-V3 fp8 at tp 8, attention dp
 * 8. Against SGLang's split, a device holds 7/8 more of the 3 dense MLPs (3 x 3 x 7168 x 18432),
 * the 58 shared experts (58 x 3 x 7168 x 2048) and the LM head (129,280 x 7168), each in its own
 * format; those run on its own rank's rows (2 of 16), the routed experts on all 16; a dense layer
 * gathers nothing (58 collectives, not 61) and the logits are the rank's own, unsplit */
TEST(roof_attn_dp_dense_rank_by_hand)
{
    struct hw_profile *hw = test_hw("h200");
    struct mdl_profile *m = test_model("deepseek-v3");
    struct roof_config sp, rk;
    dsv3_fp8_tp8(&sp, hw, m, ROOF_DECODE);
    sp.kv = DT_FP8;
    sp.batch = 16;
    sp.context = 2000;
    sp.attn_dp = 8;
    rk = sp;
    rk.tuning.attn_dp_dense_rank = true;
    CHECK(!roof_attn_dp_dense_rank(&sp) && roof_attn_dp_dense_rank(&rk));
    struct roof_memory ms, mr;
    roof_memory(&sp, &ms);
    roof_memory(&rk, &mr);
    double other = dtype_bytes(dtype_part_format(DT_FP8, DT_PART_OTHER));
    double head = dtype_bytes(dtype_part_format(DT_FP8, DT_PART_HEAD));
    double more = 7.0 / 8 * (3.0 * 3 * 7168 * 18432 + 58.0 * 3 * 7168 * 2048) * other +
                  7.0 / 8 * 129280.0 * 7168 * head;
    CHECK_NEAR(mr.weights_bytes - ms.weights_bytes, more, 1e-12);
    CHECK_NEAR(mr.kv_bytes, ms.kv_bytes, 1e-12);
    struct roof_result rs, rr;
    CHECK(roof_evaluate(&sp, &rs) == 0);
    CHECK(roof_evaluate(&rk, &rr) == 0);
    /* the LM head: the rank's 2 rows over the whole vocabulary, not 16 over an eighth of it */
    CHECK_NEAR(rr.ops[ROOF_OP_LM_HEAD].flops, rs.ops[ROOF_OP_LM_HEAD].flops, 1e-9);
    CHECK_NEAR(rr.ops[ROOF_OP_LM_HEAD].bytes_weights, 8 * rs.ops[ROOF_OP_LM_HEAD].bytes_weights,
               1e-12);
    /* the collectives: the 58 MoE layers' gather and scatter; a rank of one device has no
     * all-reduce of its own */
    double bytes;
    CHECK_NEAR(rr.ops[ROOF_OP_ALLREDUCE].instances, 58, 0);
    CHECK_NEAR(rr.ops[ROOF_OP_ALLREDUCE].link_time_s, 58 * roof_attn_dp_links_s(&rk, 2, &bytes),
               1e-12);
    CHECK_NEAR(roof_attn_dp_dense_links_s(&rk, 2, &bytes), 0, 0);
    CHECK(roof_attn_dp_dense_layers(&rk) == 3 && roof_attn_dp_dense_layers(&sp) == 0);
    /* the routed experts the same; the dense MLPs' and shared experts' gates read 8 x */
    CHECK_NEAR(rr.ops[ROOF_OP_MLP_GATE].bytes_weights - rs.ops[ROOF_OP_MLP_GATE].bytes_weights,
               7.0 / 8 * (3.0 * 7168 * 18432 + 58.0 * 7168 * 2048) * other, 1e-12);
    CHECK(rr.time_s > rs.time_s);
    /* attention dp 4: ranks of 2 devices split the dense parts 2 ways and all-reduce their
     * attention's and MLP's outputs in each of the 3 dense layers */
    struct roof_config r4 = rk, s4 = sp;
    r4.attn_dp = s4.attn_dp = 4;
    roof_memory(&r4, &mr);
    roof_memory(&s4, &ms);
    CHECK_NEAR(mr.weights_bytes - ms.weights_bytes, (1.0 / 2 - 1.0 / 8) / (7.0 / 8) * more, 1e-12);
    double bw = hw_link_bytes_per_s_per_direction(hw);
    CHECK_NEAR(roof_attn_dp_dense_links_s(&r4, 4, &bytes),
               2 * roof_allreduce_engine_s(hw, &r4.tuning, 4 * 7168 * 2.0, 2, bw,
                                           roof_link_latency_s(&r4)),
               1e-15);
    CHECK(roof_evaluate(&r4, &rr) == 0);
    CHECK_NEAR(rr.ops[ROOF_OP_ALLREDUCE].instances, 61, 0);
    hw_free(hw);
    mdl_free(m);
}

/* Data-parallel attention (docs/physics.md#data-parallel-attention), DeepSeek-V3 fp8 on 8 H200s,
 * attention dp 8: every device holds the whole attention of its own sequences.
 * - weights: q_b (1536 x 128 x 192), kv_b (512 x 128 x 256) and o_proj (128 x 128 x 7168) are
 *   171,966,464 parameters a layer; tp 8 keeps 1/8 of them, dp 8 all: 61 x 7/8 x 171,966,464 =
 *   9,178,710,016 bytes more at fp8, and the embedding whole, 7/8 x 129,280 x 7168 =
 *   810,844,160: 9,989,554,176 bytes in all.
 * - a decode step of 16 sequences: each rank attends 2, so the attention's operators are those
 *   of one device holding the whole model at batch 2; the MLP's are tp 8's at batch 16.
 * - the collectives: per layer one ring all-reduce's traffic of 16 rows x 7168 x 2 bytes (the
 *   all-gather and the reduce-scatter around the MLP) over 8 devices, 2 x 7/8 x 229,376 B at the
 *   group's link bandwidth + 14 steps of link latency, instead of tp's two all-reduces. */
TEST(roof_attn_dp_by_hand)
{
    struct hw_profile *hw = test_hw("h200");
    struct mdl_profile *m = test_model("deepseek-v3");
    struct roof_config tp, dp, one;
    dsv3_fp8_tp8(&tp, hw, m, ROOF_DECODE);
    tp.kv = DT_FP8;
    tp.batch = 16;
    tp.context = 2000;
    dp = tp;
    dp.attn_dp = 8;
    CHECK(roof_config_problem(&dp) == NULL);
    struct roof_memory mt, md;
    roof_memory(&tp, &mt);
    roof_memory(&dp, &md);
    CHECK_NEAR(md.weights_bytes - mt.weights_bytes, 9989554176.0, 1e-12);
    /* the KV cache of 2 sequences a device, not 16 */
    CHECK_NEAR(md.kv_bytes, mt.kv_bytes / 8, 1e-12);
    CHECK_NEAR(md.kv_bytes, 2 * 2001 * 61 * 576.0, 1e-12);
    /* sequences that fit: every rank's */
    long bt = roof_max_batch(&tp), bd = roof_max_batch(&dp);
    CHECK(bd % 8 == 0);
    CHECK(bd > 5 * bt);
    struct roof_result rt, rd, r1;
    CHECK(roof_evaluate(&tp, &rt) == 0);
    CHECK(roof_evaluate(&dp, &rd) == 0);
    one = tp;
    one.tp = 1;
    one.gpus = 1;
    one.batch = 2;
    CHECK(roof_evaluate(&one, &r1) == 0);
    static const enum roof_op ATT[] = {ROOF_OP_QKV, ROOF_OP_ATTN_SCORE, ROOF_OP_ATTN_AV,
                                       ROOF_OP_O_PROJ, ROOF_OP_ATTN_NORM};
    for (size_t i = 0; i < sizeof ATT / sizeof ATT[0]; i++) {
        CHECK_NEAR(rd.ops[ATT[i]].flops, r1.ops[ATT[i]].flops, 1e-12);
        CHECK_NEAR(roof_op_bytes(&rd.ops[ATT[i]]), roof_op_bytes(&r1.ops[ATT[i]]), 1e-12);
    }
    static const enum roof_op MLP[] = {ROOF_OP_MLP_GATE, ROOF_OP_MLP_UP, ROOF_OP_MLP_DOWN,
                                       ROOF_OP_ROUTER, ROOF_OP_LM_HEAD};
    for (size_t i = 0; i < sizeof MLP / sizeof MLP[0]; i++) {
        CHECK_NEAR(rd.ops[MLP[i]].flops, rt.ops[MLP[i]].flops, 1e-12);
        CHECK_NEAR(roof_op_bytes(&rd.ops[MLP[i]]), roof_op_bytes(&rt.ops[MLP[i]]), 1e-12);
    }
    /* one layer's gather and scatter: a ring all-reduce of 8 ranks x 2 rows */
    double bytes, bw = hw_link_group_bytes_per_s(hw, 8, hw_link_bytes_per_s_per_direction(hw));
    double lat = roof_link_latency_s(&dp);
    double t = roof_attn_dp_links_s(&dp, 2, &bytes);
    CHECK_NEAR(bytes, 16 * 7168 * 2.0, 1e-12);
    CHECK_NEAR(t, 2.0 * 7 / 8 * bytes / bw + 14 * lat, 1e-12);
    CHECK_NEAR(rd.ops[ROOF_OP_ALLREDUCE].link_time_s, 61 * t, 1e-12);
    CHECK_NEAR(rd.ops[ROOF_OP_ALLREDUCE].instances, 61, 0);
    /* one sequence: the whole attention's weights are read on every device, slower than tp;
     * 512 sequences: each device reads the KV cache of 64, not of all 512, faster */
    tp.batch = dp.batch = 1;
    CHECK(roof_evaluate(&tp, &rt) == 0 && roof_evaluate(&dp, &rd) == 0);
    CHECK(rd.time_s > rt.time_s);
    tp.batch = dp.batch = 512;
    CHECK(roof_evaluate(&tp, &rt) == 0 && roof_evaluate(&dp, &rd) == 0);
    CHECK(rd.time_s < 0.8 * rt.time_s);
    CHECK_NEAR(rd.ops[ROOF_OP_ATTN_SCORE].bytes_kv_read,
               rt.ops[ROOF_OP_ATTN_SCORE].bytes_kv_read / 8, 1e-12);
    /* the deal: 10 decodes over 4 ranks go 3, 3, 2, 2; a 100-token prompt joins the first of the
     * least loaded (rank 2): the busiest rank has 102 rows */
    struct roof_config d4 = dp;
    d4.attn_dp = 4;
    struct roof_seq seqs[11];
    for (int i = 0; i < 10; i++)
        seqs[i] = (struct roof_seq){1, 1, 100.0 * i, true};
    seqs[10] = (struct roof_seq){1, 100, 0, true};
    CHECK_NEAR(roof_attn_busiest_rows(&d4, seqs, 11), 102, 0);
    CHECK_NEAR(roof_attn_busiest_rows(&d4, seqs, 10), 3, 0);
    CHECK_NEAR(roof_attn_busiest_rows(&tp, seqs, 11), 110, 0);
    /* tp / 4 = 2 devices a rank: their heads split 2 ways, their output summed between them */
    t = roof_attn_dp_links_s(&d4, 3, &bytes);
    CHECK_NEAR(bytes, 4 * 3 * 7168 * 2.0, 1e-12);
    CHECK(t > 2.0 * 7 / 8 * bytes / bw + 14 * lat);
    /* refused: a degree that does not divide tp, a pipeline split, an engine without it */
    dp.attn_dp = 3;
    CHECK(roof_config_problem(&dp) != NULL);
    dp.attn_dp = 8;
    dp.pp = 2;
    dp.gpus = 16;
    CHECK(roof_config_problem(&dp) != NULL);
    dp.pp = 1;
    dp.gpus = 8;
    CHECK(roof_config_problem(&dp) == NULL);
    dp.tuning.no_attn_dp = true; /* its profile's attn_dp: none (llama.cpp) */
    CHECK(roof_config_problem(&dp) != NULL);
    hw_free(hw);
    mdl_free(m);
}
