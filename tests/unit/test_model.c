/* Parameter counts and KV-cache sizes from model shapes. */
#include "test.h"

#include "core/model.h"
#include "io/profiles.h"

#include <stdlib.h>
#include <string.h>

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
