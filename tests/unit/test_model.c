/* Parameter counts and KV-cache sizes from model shapes. */
#include "test.h"

#include "core/model.h"
#include "io/profiles.h"

#include "core/roof.h"
#include "core/serving.h"
#include "sim/sim.h"
#include "util/err.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* A tiny model computed by hand: hidden 8, MLP 16, 2 layers, 2 heads, 1 KV head of dim 4,
 * vocab 10, untied. */
void tiny_model(struct mdl_profile *m);
void
tiny_model(struct mdl_profile *m)
{
    memset(m, 0, sizeof *m);
    m->hidden_size = 8;
    m->intermediate_size = 16;
    m->num_layers = 2;
    m->num_heads = 2;
    m->num_kv_heads = 1;
    m->head_dim = 4;
    m->vocab_size = 10;
}

TEST(model_tiny_param_count)
{
    struct mdl_profile m;
    tiny_model(&m);
    struct mdl_params p;
    mdl_param_count(&m, &p);
    /* embedding 10x8 = 80; attention q 8x8 + k 8x4 + v 8x4 + o 8x8 = 192 per layer;
     * MLP 3 x 8 x 16 = 384; norms 2 x 8 = 16; two layers: 1184; final norm 8; LM head 80 */
    CHECK_NEAR(p.embedding, 80, 0);
    CHECK_NEAR(p.attention, 384, 0);
    CHECK_NEAR(p.mlp_dense, 768, 0);
    CHECK_NEAR(p.norms, 40, 0);
    CHECK_NEAR(p.lm_head, 80, 0);
    CHECK_NEAR(p.total, 1352, 0);
    /* KV: 2 layers x 2 (K, V) x 1 head x 4 dims x 2 bytes = 32 B per token */
    CHECK_NEAR(mdl_kv_bytes_per_token(&m, 2.0), 32, 0);
    m.tie_word_embeddings = true;
    mdl_param_count(&m, &p);
    CHECK_NEAR(p.total, 1272, 0);
}

TEST(model_llama3_8b_exact)
{
    struct mdl_profile *m = test_model("llama-3-8b");
    struct mdl_params p;
    mdl_param_count(m, &p);
    /* 2 x 128256 x 4096 + 32 x (4096 x (4096 + 2 x 1024 + 4096) + 3 x 4096 x 14336 + 2 x 4096)
     * + 4096 = 8,030,261,248 (the safetensors count) */
    CHECK_NEAR(p.total, 8030261248.0, 0);
    /* KV per token at bf16: 32 x 2 x 8 x 128 x 2 = 131072 B */
    CHECK_NEAR(mdl_kv_bytes_per_token(m, 2.0), 131072, 0);
    mdl_free(m);
}

TEST(model_deepseek_v3_mla_and_moe)
{
    struct mdl_profile *m = test_model("deepseek-v3");
    CHECK(mdl_is_mla(m));
    CHECK(!mdl_layer_is_moe(m, 2));
    CHECK(mdl_layer_is_moe(m, 3));
    /* latent cache: 61 x (512 + 64) x 2 B = 70272 B per token */
    CHECK_NEAR(mdl_kv_bytes_per_token(m, 2.0), 70272, 0);
    struct mdl_params p;
    mdl_param_count(m, &p);
    CHECK_NEAR(p.total, 671e9, 0.01);
    CHECK_NEAR(p.active, 37e9, 0.03); /* paper: 37B activated */
    mdl_free(m);
}

/* DeepSeek-V2-Lite by hand (its config.json: hidden 2048, 27 layers, the first dense, MLA without
 * a query rank). A layer's attention: q_proj 2048 x 16 x (128 + 64) = 6,291,456,
 * kv_a_proj_with_mqa 2048 x (512 + 64) = 1,179,648, kv_a_layernorm 512, kv_b_proj 512 x 16 x
 * (128 + 128) = 2,097,152, o_proj 2048 x 2048 = 4,194,304: 13,763,072, x 27 = 371,602,944. The
 * dense MLP 3 x 2048 x 10944 = 67,239,936. 26 MoE layers of 64 experts of 3 x 2048 x 1408 =
 * 8,650,752 (553,648,128 a layer, 14,394,851,328 in all), 2 shared ones (449,839,104) and a router
 * of 64 x 2048 = 131,072 with no score bias: its topk_method is "greedy", and vLLM's and
 * SGLang's DeepSeek code make e_score_correction_bias only for "noaux_tc" (3,407,872). Norms 27 x
 * 2 x 2048 + 2048 = 112,640, embedding and head 2 x 102400 x 2048 = 419,430,400. Total
 * 15,706,484,224 (published 15.7B); active 209,715,200 x 2 + 371,602,944 + 67,239,936 + 26 x (6 x
 * 8,650,752 + 17,301,504 + 131,072) + 112,640 = 2,661,150,208. DeepSeek-V3's router does have the
 * bias: 58 x (256 x 7168 + 256) = 106,445,312. */
TEST(model_deepseek_v2_lite_by_hand)
{
    struct mdl_profile *m = test_model("deepseek-v2-lite");
    CHECK(!m->router_bias);
    struct mdl_params p;
    mdl_param_count(m, &p);
    CHECK_NEAR(p.attention, 371602944.0, 0);
    CHECK_NEAR(p.attn_out, 27 * 4194304.0, 0);
    CHECK_NEAR(p.mlp_experts, 14394851328.0, 0);
    CHECK_NEAR(p.router, 3407872.0, 0);
    CHECK_NEAR(p.total, 15706484224.0, 0);
    CHECK_NEAR(p.active, 2661150208.0, 0);
    mdl_free(m);
    m = test_model("deepseek-v3");
    CHECK(m->router_bias);
    mdl_param_count(m, &p);
    CHECK_NEAR(p.router, 106445312.0, 0);
    mdl_free(m);
}

/* Qwen2-MoE's shared expert (shared_expert_intermediate_size, one MLP of that width beside the
 * routed ones, scaled by a 1 x hidden sigmoid gate), by hand for Qwen1.5-MoE-A2.7B: a layer is
 * attention 3 x (2048 x 2048 + 2048) + 2048 x 2048 = 16,783,360, experts 60 x 3 x 2048 x 1408 =
 * 519,045,120, shared 3 x 2048 x 5632 = 34,603,008, router 60 x 2048 = 122,880, shared gate
 * 2048, norms 4096: 570,560,512 (the model print with 4 experts gives 86,003,712 a layer, the
 * same sum with 4 experts); x 24, plus embedding and head 2 x 151936 x 2048 and the final norm:
 * 14,315,784,192 (published 14.3B). Active: 24 x (16,783,360 + 4 x 8,650,752 + 34,603,008 +
 * 122,880 + 2048 + 4096) + 622,329,856 + 2048 = 2,689,173,504 (published 2.7B). */
TEST(model_qwen2_moe_shared_expert_by_hand)
{
    struct mdl_profile *m = test_model("qwen1.5-moe-a2.7b");
    CHECK(m->n_shared_experts == 1);
    CHECK(m->shared_intermediate_size == 5632);
    CHECK(m->shared_expert_gate);
    struct mdl_params p;
    mdl_param_count(m, &p);
    CHECK_NEAR(p.total, 14315784192.0, 0);
    CHECK_NEAR(p.active, 2689173504.0, 0);
    CHECK_NEAR(p.mlp_shared, 24 * 34603008.0, 0);
    /* decode at one token reads its 4 experts and the shared one whole: gate 24 x (4 x 2048 x
     * 1408 + 2048 x 5632) x 2 B = 1,107,296,256 B; at tp 2 each device half of both */
    struct hw_profile *hw = test_hw("h100-sxm");
    struct roof_config c;
    roof_config_init(&c, hw, m, ROOF_DECODE);
    c.weights = DT_BF16;
    c.batch = 1;
    c.context = 512;
    struct roof_result r;
    CHECK(roof_evaluate(&c, &r) == 0);
    CHECK_NEAR(r.ops[ROOF_OP_MLP_GATE].bytes_weights, 1107296256.0, 1e-12);
    CHECK_NEAR(r.ops[ROOF_OP_MLP_GATE].flops, 1107296256.0, 1e-12);
    c.tp = 2;
    CHECK(roof_evaluate(&c, &r) == 0);
    CHECK_NEAR(r.ops[ROOF_OP_MLP_GATE].bytes_weights, 553648128.0, 1e-12);
    hw_free(hw);
    mdl_free(m);
}

/* Write `text` to a temporary file ending in `suffix` and load it as a model profile. */
static struct mdl_profile *
load_text(const char *text, const char *suffix, struct err_list *errs)
{
    char path[] = "/tmp/roofline-model-XXXXXX";
    int fd = mkstemp(path);
    if (fd < 0)
        return NULL;
    size_t n = strlen(text);
    bool ok = write(fd, text, n) == (ssize_t)n;
    close(fd);
    char named[64];
    snprintf(named, sizeof named, "%s%s", path, suffix);
    ok = ok && rename(path, named) == 0;
    struct mdl_profile *m = ok ? mdl_load(named, errs) : NULL;
    unlink(ok ? named : path);
    return m;
}

/* load_text for a config that must load without an error or a warning */
static struct mdl_profile *
load_clean(const char *text)
{
    struct err_list errs = {0};
    struct mdl_profile *m = load_text(text, ".json", &errs);
    CHECK(m != NULL);
    CHECK(err_count(&errs, ERR_ERROR) == 0);
    CHECK(err_count(&errs, ERR_WARNING) == 0);
    err_list_release(&errs);
    return m;
}

/* Which layers are MoE: DeepSeek's first_k_dense_replace and moe_layer_freq, Qwen2-MoE's
 * decoder_sparse_step ((l + 1) % step == 0) and mlp_only_layers, read from a config.json */
TEST(model_moe_layers_by_config)
{
    static const char cfg[] =
        "{\"model_type\": \"qwen2_moe\", \"hidden_size\": 64, \"intermediate_size\": 128,\n"
        " \"num_hidden_layers\": 6, \"num_attention_heads\": 4, \"num_key_value_heads\": 4,\n"
        " \"vocab_size\": 100, \"num_experts\": 8, \"num_experts_per_tok\": 2,\n"
        " \"moe_intermediate_size\": 32, \"shared_expert_intermediate_size\": 96,\n"
        " \"decoder_sparse_step\": 2, \"mlp_only_layers\": [3]}\n";
    struct mdl_profile *m = load_clean(cfg);
    if (!m)
        return;
    /* step 2: layers 1, 3, 5 are sparse; 3 is named dense */
    bool want[6] = {false, true, false, false, false, true};
    for (long l = 0; l < 6; l++)
        CHECK(mdl_layer_is_moe(m, l) == want[l]);
    struct mdl_params p;
    mdl_param_count(m, &p);
    CHECK_NEAR(p.mlp_experts, 2 * 8 * 3 * 64 * 32.0, 0);
    CHECK_NEAR(p.mlp_shared, 2 * 3 * 64 * 96.0, 0);
    CHECK_NEAR(p.mlp_dense, 4 * 3 * 64 * 128.0, 0);
    mdl_free(m);
    /* DeepSeek's rule where no step is given: dense below first_k_dense, then every freq-th */
    struct mdl_profile d;
    tiny_model(&d);
    d.num_layers = 6;
    d.n_experts = 4;
    d.experts_per_token = 1;
    d.first_k_dense = 1;
    d.moe_layer_freq = 2;
    bool ds[6] = {false, false, true, false, true, false};
    for (long l = 0; l < 6; l++)
        CHECK(mdl_layer_is_moe(&d, l) == ds[l]);
}

/* The KV-cache bytes of one sequence of `context` tokens in bf16 (roof_kv_plan's, windows
 * applied), on any device: the pool does not enter it */
static double
kv_bytes_bf16(struct mdl_profile *m, double context)
{
    struct hw_profile *hw = test_hw("h100-sxm");
    struct roof_config c;
    roof_config_init(&c, hw, m, ROOF_DECODE);
    c.kv = DT_BF16;
    struct roof_kv_plan kp;
    roof_kv_plan(&c, context, 16, &kp);
    hw_free(hw);
    return kp.bytes_per_seq;
}

/* A multimodal wrapper's text_config (google/gemma-3-4b-it's, as transcribed in mlx-community's
 * gemma-3-4b-it-4bit: hidden_size, intermediate_size, model_type, num_hidden_layers,
 * rope_scaling, sliding_window only) on Gemma3TextConfig's defaults: 8 heads, 4 KV heads of 256,
 * vocab 262,208, every sixth layer global (layers 5, 11, 17, 23, 29), the rest a 1024-token
 * window. A 8192-token sequence stores 5 x 8192 + 29 x 1024 = 70,656 token-layers of 2 x 4 x 256
 * x 2 B = 4096 B: 289,406,976 B. Parameters: embedding 262,208 x 2560 (tied); a layer q/o 2 x
 * 2560 x 2048, k/v 2 x 2560 x 1024, MLP 3 x 2560 x 10240, norms 4 x 2560: 94,382,080; x 34 +
 * 671,252,480 + 2560 = 3,880,245,760. */
TEST(model_gemma3_text_config_by_hand)
{
    static const char cfg[] =
        "{\"architectures\": [\"Gemma3ForConditionalGeneration\"], \"model_type\": \"gemma3\",\n"
        " \"boi_token_index\": 255999, \"eoi_token_index\": 256000, \"mm_tokens_per_image\": 256,\n"
        " \"image_token_index\": 262144, \"initializer_range\": 0.02,\n"
        " \"text_config\": {\"hidden_size\": 2560, \"intermediate_size\": 10240,\n"
        "   \"model_type\": \"gemma3_text\", \"num_hidden_layers\": 34,\n"
        "   \"rope_scaling\": {\"factor\": 8.0, \"rope_type\": \"linear\"}, \"sliding_window\": "
        "1024},\n"
        " \"torch_dtype\": \"bfloat16\",\n"
        " \"vision_config\": {\"hidden_size\": 1152, \"model_type\": \"siglip_vision_model\"}}\n";
    struct mdl_profile *m = load_clean(cfg);
    if (!m)
        return;
    CHECK(m->num_heads == 8 && m->num_kv_heads == 4 && m->head_dim == 256);
    CHECK(m->vocab_size == 262208 && m->tie_word_embeddings && m->extra_norms);
    for (long l = 0; l < 34; l++)
        CHECK(mdl_layer_window(m, l) == ((l + 1) % 6 == 0 ? 0 : 1024));
    struct mdl_params p;
    mdl_param_count(m, &p);
    CHECK_NEAR(p.total, 3880245760.0, 0);
    CHECK_NEAR(kv_bytes_bf16(m, 8192), 289406976.0, 1e-12);
    mdl_free(m);
    /* layer_types spelled out, not alternating: the full layers as listed */
    static const char lt[] =
        "{\"hidden_size\": 64, \"intermediate_size\": 128, \"num_hidden_layers\": 4,\n"
        " \"num_attention_heads\": 4, \"vocab_size\": 100, \"sliding_window\": 16,\n"
        " \"layer_types\": [\"full_attention\", \"sliding_attention\", \"sliding_attention\",\n"
        "   \"full_attention\"]}\n";
    m = load_clean(lt);
    if (!m)
        return;
    long want[4] = {0, 16, 16, 0};
    for (long l = 0; l < 4; l++)
        CHECK(mdl_layer_window(m, l) == want[l]);
    mdl_free(m);
    /* a linear-attention layer (Qwen3-Next) has no model: one warning, at the first */
    static const char lin[] =
        "{\"hidden_size\": 64, \"intermediate_size\": 128, \"num_hidden_layers\": 3,\n"
        " \"num_attention_heads\": 4, \"vocab_size\": 100,\n"
        " \"layer_types\": [\"full_attention\", \"linear_attention\", \"linear_attention\"]}\n";
    struct err_list errs = {0};
    m = load_text(lin, ".json", &errs);
    CHECK(m != NULL);
    CHECK(err_count(&errs, ERR_ERROR) == 0 && err_count(&errs, ERR_WARNING) == 1);
    err_list_release(&errs);
    mdl_free(m);
    /* Qwen2 with use_sliding_window on: the window from max_window_layers up */
    static const char q2[] =
        "{\"model_type\": \"qwen2\", \"hidden_size\": 64, \"intermediate_size\": 128,\n"
        " \"num_hidden_layers\": 4, \"num_attention_heads\": 4, \"vocab_size\": 100,\n"
        " \"sliding_window\": 32, \"use_sliding_window\": true, \"max_window_layers\": 3}\n";
    m = load_clean(q2);
    if (!m)
        return;
    for (long l = 0; l < 4; l++)
        CHECK(mdl_layer_window(m, l) == (l >= 3 ? 32 : 0));
    mdl_free(m);
}

/* A config's per-layer list of `layers` entries (without its brackets): `nth` on every n-th layer
 * ((l + 1) % n == 0), `other` elsewhere; cut short rather than past `size` */
static void
layer_list(char *buf, size_t size, int layers, int n, const char *other, const char *nth)
{
    size_t at = 0;
    buf[0] = '\0';
    for (int l = 0; l < layers && at < size; l++)
        at +=
            (size_t)snprintf(buf + at, size - at, "%s%s", l ? "," : "", (l + 1) % n ? other : nth);
}

/* Llama-4 Scout's text_config (meta-llama/Llama-4-Scout-17B-16E, as transcribed in public test
 * fixtures): every layer MoE (interleave_moe_layer_step 1), 16 experts of 8192 and a shared one of
 * the same width, dense MLP width intermediate_size_mlp (none used here), chunked attention of
 * 8192 on the RoPE layers (no_rope_layers 1, three of four). A layer: attention 2 x 5120 x 5120 +
 * 2 x 5120 x 1024 = 62,914,560, experts 16 x 3 x 5120 x 8192 = 2,013,265,920, shared
 * 125,829,120, router 81,920, norms 10,240: 2,202,101,760; x 48 + 2 x 202,048 x 5120 + 5120 =
 * 107,769,861,120 (the published 109B counts the vision tower too). Active: 48 x (62,914,560 + 2
 * x 125,829,120 + 81,920 + 10,240) + 2,068,971,520 + 5120 = 17,172,894,720 (published 17B). A
 * 32768-token sequence stores 12 x 32768 + 36 x 8192 = 688,128 token-layers of 4096 B:
 * 2,818,572,288 B. */
TEST(model_llama4_text_config_by_hand)
{
    char nr[256];
    layer_list(nr, sizeof nr, 48, 4, "1", "0");
    char cfg[2048];
    snprintf(
        cfg, sizeof cfg,
        "{\"architectures\": [\"Llama4ForConditionalGeneration\"], \"model_type\": "
        "\"llama4\",\n \"tie_word_embeddings\": false, \"image_token_index\": 200092,\n"
        " \"text_config\": {\"model_type\": \"llama4_text\", \"hidden_size\": 5120,\n"
        "  \"intermediate_size\": 8192, \"intermediate_size_mlp\": 16384,\n"
        "  \"num_hidden_layers\": 48, \"num_attention_heads\": 40, \"num_key_value_heads\": 8,\n"
        "  \"head_dim\": 128, \"num_local_experts\": 16, \"num_experts_per_tok\": 1,\n"
        "  \"interleave_moe_layer_step\": 1, \"use_qk_norm\": true,\n"
        "  \"no_rope_layers\": [%s],\n"
        "  \"attention_chunk_size\": 8192, \"max_position_embeddings\": 10485760,\n"
        "  \"vocab_size\": 202048},\n"
        " \"vision_config\": {\"model_type\": \"llama4_vision_model\", \"hidden_size\": 1408}}\n",
        nr);
    struct mdl_profile *m = load_clean(cfg);
    if (!m)
        return;
    CHECK(m->n_shared_experts == 1 && m->moe_intermediate_size == 8192);
    CHECK(m->intermediate_size == 16384 && m->chunked_attention);
    struct mdl_params p;
    mdl_param_count(m, &p);
    CHECK_NEAR(p.total, 107769861120.0, 0);
    CHECK_NEAR(p.active, 17172894720.0, 0);
    CHECK_NEAR(kv_bytes_bf16(m, 32768), 2818572288.0, 1e-12);
    mdl_free(m);
}

/* Qwen3-Next-80B-A3B (model_profiles/qwen3-next-80b-a3b.yaml): 36 gated DeltaNet layers and 12
 * gated attention layers (every fourth, from full_attention_interval 4), all MoE. By hand:
 * - a DeltaNet layer: in_proj_qkvz 2048 x (2 x 2048 + 2 x 4096) = 25,165,824, in_proj_ba
 *   2048 x 64 = 131,072, conv1d 8192 x 4 = 32,768, A_log + dt_bias 64, norm 128, out_proj 4096 x
 *   2048 = 8,388,608: 33,718,464;
 * - a gated attention layer: q_proj 2048 x 8192 (queries and gate), k and v 2 x 2048 x 512, o
 *   4096 x 2048: 27,262,976 (the q/k norms, 512, are not counted);
 * - a MoE layer: 512 x 3 x 2048 x 512 + router 512 x 2048 + shared 3 x 2048 x 512 + its gate 2048
 *   = 1,614,809,088; norms 2 x 2048 a layer and the final 2048; embedding and head 2 x 151,936 x
 *   2048 = 622,329,856.
 * Total 622,329,856 + 36 x 33,718,464 + 12 x 27,262,976 + 48 x 1,614,809,088 + 198,656 =
 * 79,674,385,152 (card: 80B, 79B without the embeddings). Active: the MoE layer's 10 experts,
 * shared, router and gate, 35,653,632: 3,874,923,264 (card: 3B activated, without embeddings).
 * KV: 12 layers x 2 x 2 x 256 x 2 B = 24,576 B a token. State a sequence: 36 x (32 x 128 x 128 x
 * 2 B + 3 x 8192 x 2 B) = 36 x 1,097,728 = 39,518,208 B, whatever the length; in float32
 * (mamba_ssm_dtype) 36 x (2,097,152 + 49,152) = 77,266,944 B. */
TEST(model_qwen3_next_by_hand)
{
    struct mdl_profile *m = test_model("qwen3-next-80b-a3b");
    CHECK(mdl_kv_layers(m) == 12);
    for (long l = 0; l < 8; l++)
        CHECK(mdl_layer_is_linear(m, l) == ((l + 1) % 4 != 0));
    CHECK(m->attn_output_gate);
    CHECK_NEAR(mdl_linear_params(m), 33718464.0, 0);
    struct mdl_params p;
    mdl_param_count(m, &p);
    CHECK_NEAR(p.total, 79674385152.0, 0);
    CHECK_NEAR(p.active, 3874923264.0, 0);
    CHECK_NEAR(mdl_kv_bytes_per_token(m, 2.0), 24576.0, 0);
    CHECK_NEAR(mdl_linear_state_bytes_per_seq(m), 39518208.0, 0);
    /* a sequence of 8192 tokens: its KV and its state */
    CHECK_NEAR(kv_bytes_bf16(m, 8192), 8192 * 24576.0 + 39518208.0, 1e-12);
    m->lin_state_elem_bytes = 4.0;
    CHECK_NEAR(mdl_linear_state_bytes_per_seq(m), 77266944.0, 0);
    mdl_free(m);
}

/* A decode step of Qwen3-Next at batch 4: each DeltaNet layer reads and writes each sequence's
 * state once (4 x 1,097,728 B), and spends 7 FLOP a state element a token (4 x 7 x 524,288) plus
 * the convolution, gates and norm (4 x (2 x 4 x 8192 + 10 x 32 + 8 x 4096) = 394,496): 15,074,560
 * FLOP a layer. At tp 2 each device holds half the heads and half the state. */
TEST(model_qwen3_next_decode_state_traffic)
{
    struct hw_profile *hw = test_hw("h100-sxm");
    struct mdl_profile *m = test_model("qwen3-next-80b-a3b");
    struct roof_config c;
    roof_config_init(&c, hw, m, ROOF_DECODE);
    c.weights = c.act = c.kv = DT_BF16;
    c.batch = 4;
    c.context = 1024;
    struct roof_result r;
    CHECK(roof_evaluate(&c, &r) == 0);
    const struct roof_op_result *o = &r.ops[ROOF_OP_LINEAR_ATTN];
    CHECK(o->present);
    CHECK_NEAR(o->instances, 36, 0);
    CHECK_NEAR(o->bytes_kv_read, 36 * 4 * 1097728.0, 1e-12);
    CHECK_NEAR(o->bytes_kv_write, 36 * 4 * 1097728.0, 1e-12);
    CHECK_NEAR(o->flops, 36 * 15074560.0, 1e-12);
    /* the attention's operators run on the 12 full layers only */
    CHECK_NEAR(r.ops[ROOF_OP_ATTN_SCORE].instances, 12, 0);
    c.tp = 2;
    CHECK(roof_evaluate(&c, &r) == 0);
    CHECK_NEAR(r.ops[ROOF_OP_LINEAR_ATTN].bytes_kv_read, 36 * 4 * 1097728.0 / 2, 1e-12);
    hw_free(hw);
    mdl_free(m);
}

/* A Qwen3.5 config as published (Qwen3.5-27B's text_config: layer_types listed, float32 state,
 * gated attention, dense MLP). By hand: embedding and head 2 x 248,320 x 5120 = 2,542,796,800;
 * a DeltaNet layer 5120 x 16,384 + 5120 x 96 + 10,240 x 4 + 96 + 128 + 6144 x 5120 =
 * 115,876,064; a gated attention layer 5120 x 12,288 + 2 x 5120 x 1024 + 6144 x 5120 =
 * 104,857,600; MLP 3 x 5120 x 17,408 = 267,386,880; norms 64 x 10,240 + 5120. Total 48 x
 * 115,876,064 + 16 x 104,857,600 + 64 x 267,386,880 + 2,542,796,800 + 660,480 =
 * 26,895,990,272. State: 48 x (48 x 128 x 128 x 4 + 3 x 10,240 x 2) = 153,944,064 B. */
TEST(model_qwen3_5_layer_types_by_hand)
{
    char lt[2048];
    layer_list(lt, sizeof lt, 64, 4, "\"linear_attention\"", "\"full_attention\"");
    char cfg[4096];
    snprintf(
        cfg, sizeof cfg,
        "{\"architectures\": [\"Qwen3_5ForConditionalGeneration\"], \"model_type\": "
        "\"qwen3_5\",\n \"text_config\": {\"attention_bias\": false, \"attn_output_gate\": "
        "true,\n  \"full_attention_interval\": 4, \"head_dim\": 256, \"hidden_size\": 5120,\n"
        "  \"intermediate_size\": 17408, \"layer_types\": [%s],\n"
        "  \"linear_conv_kernel_dim\": 4, \"linear_key_head_dim\": 128,\n"
        "  \"linear_num_key_heads\": 16, \"linear_num_value_heads\": 48,\n"
        "  \"linear_value_head_dim\": 128, \"mamba_ssm_dtype\": \"float32\",\n"
        "  \"max_position_embeddings\": 262144, \"model_type\": \"qwen3_5_text\",\n"
        "  \"mtp_num_hidden_layers\": 1, \"mtp_use_dedicated_embeddings\": false,\n"
        "  \"num_attention_heads\": 24, \"num_hidden_layers\": 64, \"num_key_value_heads\": 4,\n"
        "  \"tie_word_embeddings\": false, \"vocab_size\": 248320},\n"
        " \"vision_config\": {\"model_type\": \"qwen3_5\", \"hidden_size\": 1152}}\n",
        lt);
    struct mdl_profile *m = load_clean(cfg);
    if (!m)
        return;
    CHECK(mdl_kv_layers(m) == 16 && m->attn_output_gate);
    CHECK(mdl_layer_is_linear(m, 0) && !mdl_layer_is_linear(m, 63));
    struct mdl_params p;
    mdl_param_count(m, &p);
    CHECK_NEAR(p.total, 26895990272.0, 0);
    CHECK_NEAR(mdl_linear_state_bytes_per_seq(m), 153944064.0, 0);
    /* vLLM's block for it (docs/simulate.md#linear-attention-state-in-the-pool): a layer's state
     * 153,944,064 / 48 = 3,207,168 B against 4 x 256 x 2 x 2 = 4096 B of KV a token, 16 x
     * ceil(3,207,168 / 65,536) = 784 tokens, the size vLLM logs for Qwen3.6-27B (LMCache's recipe
     * values, as quoted in a public launch script) */
    struct hw_profile *hw = test_hw("h200");
    struct sim_config c;
    memset(&c, 0, sizeof c);
    roof_config_init(&c.engine, hw, m, ROOF_DECODE);
    c.engine.weights = c.engine.kv = c.engine.act = DT_BF16;
    c.sched.block_tokens = 16;
    c.sched.hybrid_block_align = 16;
    CHECK(sim_block_tokens(&c) == 784);
    hw_free(hw);
    mdl_free(m);
}

/* Nemotron-H-8B-Base-8K (its config.json as transcribed by NVIDIA-NeMo/Megatron-Bridge's
 * nemotronh test): 52 layers of one part each, 24 Mamba-2 (M), 4 attention (*), 24 MLP (-). By
 * hand, a Mamba-2 mixer of 128 heads of 64 (I = 8192), 8 groups of 128 (2 G N = 2048), conv 4:
 * in_proj 4096 x (2 x 8192 + 2048 + 128) = 76,021,760, conv1d 10,240 x 4 + its bias 10,240 =
 * 51,200, A_log, D, dt_bias 384, norm 8192, out_proj 8192 x 4096 = 33,554,432: 109,635,968;
 * attention 2 x 4096 x 4096 + 2 x 4096 x 1024 = 41,943,040; an MLP of up and down 2 x 4096 x
 * 21,504 = 176,160,768; a norm a layer and the final one 53 x 4096; embedding and head 2 x
 * 131,072 x 4096. Total 24 x 109,635,968 + 4 x 41,943,040 + 24 x 176,160,768 + 217,088 +
 * 1,073,741,824 = 8,100,852,736 (a count of its safetensors gives the same). KV: 4 layers x 2 x 8
 * x 128 x 2 B = 16,384 B a token. State (float32 by default): 24 x (10,240 x 3 x 2 B + 128 x 64 x
 * 128 x 4 B) = 24 x 4,255,744 = 102,137,856 B. A decode step at batch 2: each Mamba layer reads
 * and writes 2 x 4,255,744 B and spends 2 x (5 x 1,048,576 + 2 x 4 x 10,240 + 10 x 128 + 8 x 8192)
 * = 10,783,232 FLOP; no gate GEMM; at tp 2 an all-reduce after each of the 52 blocks. */
static const char NEMOTRON_H_8B[] =
    "{\"architectures\": [\"NemotronHForCausalLM\"], \"attention_bias\": false,\n"
    " \"attention_head_dim\": 128, \"chunk_size\": 128, \"conv_kernel\": 4, \"expand\": 2,\n"
    " \"hidden_size\": 4096,\n"
    " \"hybrid_override_pattern\": \"M-M-M-M*-M-M-M-M-M*-M-M-M-M-M*-M-M-M-M-M*-M-M-M-M-M-\",\n"
    " \"intermediate_size\": 21504, \"layer_norm_epsilon\": 1e-05, \"mamba_head_dim\": 64,\n"
    " \"mamba_hidden_act\": \"silu\", \"mamba_num_heads\": 128, \"mamba_proj_bias\": false,\n"
    " \"max_position_embeddings\": 8192, \"mlp_bias\": false, \"mlp_hidden_act\": \"relu2\",\n"
    " \"model_type\": \"nemotron_h\", \"n_groups\": 8, \"num_attention_heads\": 32,\n"
    " \"num_hidden_layers\": 52, \"num_key_value_heads\": 8, \"rescale_prenorm_residual\": true,\n"
    " \"residual_in_fp32\": false, \"rms_norm_eps\": 1e-05, \"ssm_state_size\": 128,\n"
    " \"tie_word_embeddings\": false, \"torch_dtype\": \"bfloat16\", \"use_bias\": false,\n"
    " \"use_cache\": true, \"use_conv_bias\": true, \"use_mamba_kernels\": true,\n"
    " \"vocab_size\": 131072}\n";

TEST(model_nemotron_h_by_hand)
{
    struct mdl_profile *m = load_clean(NEMOTRON_H_8B);
    if (!m)
        return;
    CHECK(m->lin_kind == MDL_LINEAR_MAMBA2 && m->mlp_ungated && m->head_dim == 128);
    CHECK(mdl_linear_layers(m) == 24 && mdl_kv_layers(m) == 4 && mdl_sublayers(m) == 52);
    CHECK(mdl_layer_is_linear(m, 0) && !mdl_layer_has_ffn(m, 0) && !mdl_layer_has_mixer(m, 1));
    CHECK(!mdl_layer_has_ffn(m, 7) && !mdl_layer_is_linear(m, 7)); /* the first '*' */
    CHECK_NEAR(mdl_linear_params(m), 109635968.0, 0);
    struct mdl_params p;
    mdl_param_count(m, &p);
    CHECK_NEAR(p.total, 8100852736.0, 0);
    CHECK_NEAR(mdl_kv_bytes_per_token(m, 2.0), 16384.0, 0);
    CHECK_NEAR(mdl_linear_state_bytes_per_seq(m), 102137856.0, 0);
    struct hw_profile *hw = test_hw("h100-sxm");
    struct roof_config c;
    roof_config_init(&c, hw, m, ROOF_DECODE);
    c.weights = c.act = c.kv = DT_BF16;
    c.batch = 2;
    c.context = 1024;
    struct roof_result r;
    CHECK(roof_evaluate(&c, &r) == 0);
    const struct roof_op_result *o = &r.ops[ROOF_OP_LINEAR_ATTN];
    CHECK_NEAR(o->instances, 24, 0);
    CHECK_NEAR(o->bytes_kv_read, 24 * 2 * 4255744.0, 1e-12);
    CHECK_NEAR(o->flops, 24 * 10783232.0, 1e-12);
    CHECK(!r.ops[ROOF_OP_MLP_GATE].present);
    CHECK_NEAR(r.ops[ROOF_OP_MLP_UP].instances, 24, 0);
    CHECK_NEAR(r.ops[ROOF_OP_ATTN_SCORE].instances, 4, 0);
    CHECK_NEAR(r.ops[ROOF_OP_ATTN_NORM].instances, 28, 0);
    c.tp = 2;
    CHECK(roof_evaluate(&c, &r) == 0);
    CHECK_NEAR(r.ops[ROOF_OP_ALLREDUCE].instances, 52, 0);
    hw_free(hw);
    mdl_free(m);
}

/* NVIDIA-Nemotron-3-Nano-30B-A3B: 23 Mamba-2 (64 heads of 64, 8 groups of 128), 6 attention (32
 * heads, 2 KV heads of 128), 23 MoE layers (128 experts of 1856, 6 a token, a shared expert of
 * 3712, all up and relu^2 and down; a sigmoid router with its score bias). By hand: a Mamba-2
 * mixer 2688 x 10,304 + 6144 x 5 + 192 + 4096 + 4096 x 2688 = 38,742,208; attention 2 x 2688 x
 * 4096 + 2 x 2688 x 256 = 23,396,352; a MoE layer 128 x 2 x 2688 x 1856 + 2 x 2688 x 3712 + 128 x
 * 2688 + 128 = 1,297,465,472; norms 53 x 2688; embedding and head 2 x 131,072 x 2688. Total
 * 31,577,940,288 (published 31.6B). Active: 6 experts, the shared one and the router's weights,
 * 80,166,912 a MoE layer: 3,580,073,408 with the embedding and head (published about 3.5B). */
TEST(model_nemotron_3_nano_by_hand)
{
    static const char cfg[] =
        "{\"architectures\": [\"NemotronHForCausalLM\"], \"chunk_size\": 128, \"conv_kernel\": 4,\n"
        " \"head_dim\": 128, \"hidden_size\": 2688,\n"
        " \"hybrid_override_pattern\": "
        "\"MEMEM*EMEMEM*EMEMEM*EMEMEM*EMEMEM*EMEMEMEM*EMEMEMEME\",\n"
        " \"intermediate_size\": 1856, \"mamba_head_dim\": 64, \"mamba_num_heads\": 64,\n"
        " \"mamba_ssm_cache_dtype\": \"float32\", \"max_position_embeddings\": 262144,\n"
        " \"model_type\": \"nemotron_h\", \"moe_intermediate_size\": 1856,\n"
        " \"moe_shared_expert_intermediate_size\": 3712, \"n_group\": 1, \"n_groups\": 8,\n"
        " \"n_routed_experts\": 128, \"n_shared_experts\": 1, \"norm_topk_prob\": true,\n"
        " \"num_attention_heads\": 32, \"num_experts_per_tok\": 6, \"num_hidden_layers\": 52,\n"
        " \"num_key_value_heads\": 2, \"routed_scaling_factor\": 2.5, \"sliding_window\": null,\n"
        " \"ssm_state_size\": 128, \"tie_word_embeddings\": false, \"topk_group\": 1,\n"
        " \"use_bias\": false, \"use_conv_bias\": true, \"vocab_size\": 131072}\n";
    struct mdl_profile *m = load_clean(cfg);
    if (!m)
        return;
    long moe = 0;
    for (long l = 0; l < m->num_layers; l++)
        moe += mdl_layer_is_moe(m, l);
    CHECK(moe == 23 && mdl_linear_layers(m) == 23 && mdl_kv_layers(m) == 6);
    struct mdl_params p;
    mdl_param_count(m, &p);
    CHECK_NEAR(p.total, 31577940288.0, 0);
    CHECK_NEAR(p.active, 3580073408.0, 0);
    mdl_free(m);
}

/* ibm-granite/granite-4.0-h-tiny (its fields as transcribed, matching the GGUF's metadata): 36
 * Mamba-2 and 4 attention layers, each with 64 gated experts of 512 (6 a token) beside a shared
 * gated MLP of 1024; Mamba-2 of 48 heads of 64 (expand 2 x 1536), one group of 128. By hand: a
 * mixer 1536 x 6448 + 3328 x 5 + 144 + 3072 + 3072 x 1536 = 14,642,576; attention 2 x 1536 x
 * 1536 + 2 x 1536 x 512 = 6,291,456; a MoE layer 64 x 3 x 1536 x 512 + 3 x 1536 x 1024 + 64 x
 * 1536 = 155,811,840; norms 81 x 1536; the tied embedding 100,352 x 1536. Total 6,939,037,248
 * (published 7B), active 1,465,470,528 (1B). State in 16 bits (vLLM's default for it): 36 x (3328
 * x 3 x 2 + 48 x 64 x 128 x 2) = 29,030,400 B. */
TEST(model_granite_4_h_by_hand)
{
    char lt[1024];
    int at = 0;
    for (int l = 0; l < 40; l++)
        at += snprintf(lt + at, sizeof lt - (size_t)at, "%s\"%s\"", l ? "," : "",
                       l == 5 || l == 15 || l == 25 || l == 35 ? "attention" : "mamba");
    char cfg[2048];
    snprintf(
        cfg, sizeof cfg,
        "{\"model_type\": \"granitemoehybrid\", \"hidden_size\": 1536,\n"
        " \"num_hidden_layers\": 40, \"num_attention_heads\": 12, \"num_key_value_heads\": 4,\n"
        " \"intermediate_size\": 512, \"shared_intermediate_size\": 1024,\n"
        " \"num_local_experts\": 64, \"num_experts_per_tok\": 6, \"vocab_size\": 100352,\n"
        " \"tie_word_embeddings\": true, \"mamba_d_state\": 128, \"mamba_n_groups\": 1,\n"
        " \"mamba_n_heads\": 48, \"mamba_d_head\": 64, \"mamba_expand\": 2,\n"
        " \"mamba_d_conv\": 4, \"mamba_chunk_size\": 256,\n"
        " \"max_position_embeddings\": 131072, \"layer_types\": [%s]}\n",
        lt);
    struct mdl_profile *m = load_clean(cfg);
    if (!m)
        return;
    CHECK(mdl_linear_layers(m) == 36 && mdl_kv_layers(m) == 4 && !m->mlp_ungated);
    CHECK_NEAR(mdl_linear_params(m), 14642576.0, 0);
    struct mdl_params p;
    mdl_param_count(m, &p);
    CHECK_NEAR(p.total, 6939037248.0, 0);
    CHECK_NEAR(p.active, 1465470528.0, 0);
    CHECK_NEAR(mdl_linear_state_bytes_per_seq(m), 29030400.0, 0);
    mdl_free(m);
}

TEST(model_mixtral_active)
{
    struct mdl_profile *m = test_model("mixtral-8x7b");
    struct mdl_params p;
    mdl_param_count(m, &p);
    CHECK_NEAR(p.total, 46.7e9, 0.01);
    CHECK_NEAR(p.active, 12.9e9, 0.01); /* Mistral: 12.9B active per token */
    mdl_free(m);
}

TEST(model_every_shipped_profile_matches_published_count)
{
    char **ids;
    prof_set_data_dir(test_data_dir());
    int n = prof_list(PROF_MODEL, &ids);
    CHECK(n >= 16);
    for (int i = 0; i < n; i++) {
        struct mdl_profile *m = test_model(ids[i]);
        struct mdl_params p;
        mdl_param_count(m, &p);
        if (m->published_params <= 0) {
            FAIL_AT("%s has no published_parameters", ids[i]);
        } else if (fabs(p.total - m->published_params) > 0.01 * m->published_params) {
            FAIL_AT("%s: derived %.4g parameters, published %.4g (more than 1%% apart)", ids[i],
                    p.total, m->published_params);
        }
        mdl_free(m);
    }
    prof_list_free(ids, n);
}

/* The weights of ggml-org's gpt-oss-20b GGUF (MXFP4_MOE) by tensor class: experts 24 x 32 x 3 x
 * 2880 x 2880 = 19,110,297,600 x 17/32 = 10,152,345,600 B; router 24 x 32 x 2880 = 2,211,840 x
 * 4 = 8,847,360 B; the rest (embedding and LM head 2 x 579,133,440, attention with biases
 * 637,201,920, norms 141,120) 1,795,609,920 x 34/32 = 1,907,835,540 B: 12,069,028,500 B in all,
 * 0.3% below the file llama-bench reports (11.27 GiB = 12.10 GB; the file adds the experts'
 * f32 biases, 26.5 MB). A uniform format counts parameters x bits / 8. */
TEST(model_weight_bytes_of_a_mix)
{
    struct mdl_profile *m = test_model("gpt-oss-20b");
    CHECK_NEAR(mdl_weight_bytes(m, DT_MXFP4_MOE), 12069028500.0, 1e-12);
    CHECK_NEAR(mdl_weight_bytes(m, DT_MXFP4_MOE), 11.27 * 1073741824.0, 0.005);
    struct mdl_params p;
    mdl_param_count(m, &p);
    CHECK_NEAR(mdl_weight_bytes(m, DT_BF16), p.total * 2.0, 1e-15);
    CHECK_NEAR(mdl_weight_bytes(m, DT_Q4_K_M), p.total * 4.85 / 8.0, 1e-15);
    mdl_free(m);
}

/* DeepSeek-V3 in NVIDIA's NVFP4 checkpoints, by hand: routed experts 58 x 256 x 3 x 7168 x 2048
 * = 653,908,770,816; shared 58 x 3 x 7168 x 2048 = 2,554,331,136; dense FFN 3 x 3 x 7168 x
 * 18432 = 1,189,085,184; norms 61 x 2 x 7168 + 7168 = 881,664 (the rest, at fp4:
 * 3,744,297,984); router 58 x (256 x 7168 + 256) = 106,443,776; attention q/kv 61 x (7168 x
 * 1536 + 1536 + 1536 x 128 x 192 + 7168 x 576 + 512 + 512 x 128 x 256) = 4,249,675,776; o_proj
 * 61 x 128 x 128 x 7168 = 7,163,871,232; embedding and head 2 x 129280 x 7168 = 1,853,358,080.
 * At 0.5625 B (fp4) and 2 B (bf16): v2 (o_proj fp4) 386,378,487,104 B, v1 (o_proj bf16)
 * 396,676,552,000 B, all fp4 377,452,360,800 B. */
TEST(model_weight_bytes_of_nvfp4_checkpoints)
{
    struct mdl_profile *m = test_model("deepseek-v3");
    struct mdl_params p;
    mdl_param_count(m, &p);
    CHECK_NEAR(p.attn_out, 7163871232.0, 1e-15);
    CHECK_NEAR(p.attention - p.attn_out, 4249675776.0, 1e-15);
    CHECK_NEAR(mdl_weight_bytes(m, DT_NVFP4_QKV_BF16), 386378487104.0, 1e-12);
    CHECK_NEAR(mdl_weight_bytes(m, DT_NVFP4_ATTN_BF16), 396676552000.0, 1e-12);
    CHECK_NEAR(mdl_weight_bytes(m, DT_FP4), 377452360800.0, 1e-12);
    mdl_free(m);
}
