/* Parameter counting and KV-cache size from a model's shape (docs/physics.md#model-shape). */
#include "core/model.h"

#include <stdlib.h>
#include <string.h>

bool
mdl_is_mla(const struct mdl_profile *m)
{
    return m->kv_lora_rank > 0;
}

long
mdl_qk_head_dim(const struct mdl_profile *m)
{
    return mdl_is_mla(m) ? m->qk_nope_head_dim + m->qk_rope_head_dim : m->head_dim;
}

long
mdl_v_head_dim(const struct mdl_profile *m)
{
    return mdl_is_mla(m) ? m->v_head_dim : m->head_dim;
}

long
mdl_q_dim(const struct mdl_profile *m)
{
    return m->num_heads * mdl_qk_head_dim(m);
}

bool
mdl_layer_is_moe(const struct mdl_profile *m, long layer)
{
    if (m->n_experts <= 0 || mdl_mask_has(m->no_ffn, layer))
        return false;
    if (mdl_mask_has(m->mlp_only, layer))
        return false;
    if (m->sparse_step > 0)
        return (layer + 1) % m->sparse_step == 0;
    if (layer < m->first_k_dense)
        return false;
    long freq = m->moe_layer_freq > 0 ? m->moe_layer_freq : 1;
    return layer % freq == 0;
}

long
mdl_layer_window(const struct mdl_profile *m, long layer)
{
    if (m->sliding_window <= 0 || !mdl_layer_has_kv(m, layer))
        return 0;
    return m->window_by_layer && mdl_mask_has(m->full_layers, layer) ? 0 : m->sliding_window;
}

bool
mdl_layer_is_linear(const struct mdl_profile *m, long layer)
{
    return m->lin_value_heads > 0 && mdl_mask_has(m->linear_layers, layer);
}

bool
mdl_layer_has_mixer(const struct mdl_profile *m, long layer)
{
    return !mdl_mask_has(m->no_mixer, layer);
}

bool
mdl_layer_has_ffn(const struct mdl_profile *m, long layer)
{
    return !mdl_mask_has(m->no_ffn, layer);
}

bool
mdl_layer_has_kv(const struct mdl_profile *m, long layer)
{
    return mdl_layer_has_mixer(m, layer) && !mdl_layer_is_linear(m, layer);
}

long
mdl_kv_layers(const struct mdl_profile *m)
{
    long n = 0;
    for (long l = 0; l < m->num_layers; l++)
        n += mdl_layer_has_kv(m, l);
    return n;
}

long
mdl_linear_layers(const struct mdl_profile *m)
{
    long n = 0;
    for (long l = 0; m->lin_value_heads > 0 && l < m->num_layers; l++)
        n += mdl_layer_has_mixer(m, l) && mdl_layer_is_linear(m, l);
    return n;
}

const char *
mdl_linear_kind_name(const struct mdl_profile *m)
{
    return m->lin_kind == MDL_LINEAR_MAMBA2 ? "Mamba-2" : "gated DeltaNet";
}

long
mdl_sublayers(const struct mdl_profile *m)
{
    long n = 0;
    for (long l = 0; l < m->num_layers; l++)
        n += mdl_layer_has_mixer(m, l) + mdl_layer_has_ffn(m, l);
    return n;
}

double
mdl_norms_per_part(const struct mdl_profile *m)
{
    return (m->extra_norms ? 2.0 : 1.0) * (double)m->hidden_size;
}

/* transformers' Qwen3NextGatedDeltaNet: key_dim = Hk dk, value_dim = Hv dv, conv_dim = 2
 * key_dim + value_dim */
double
mdl_linear_conv_dim(const struct mdl_profile *m)
{
    return 2.0 * (double)m->lin_key_heads * (double)m->lin_key_dim +
           (double)m->lin_value_heads * (double)m->lin_value_dim;
}

double
mdl_linear_params(const struct mdl_profile *m)
{
    if (m->lin_value_heads <= 0)
        return 0.0;
    double h = (double)m->hidden_size, Hv = (double)m->lin_value_heads;
    double kd = (double)m->lin_key_heads * (double)m->lin_key_dim;
    double vd = Hv * (double)m->lin_value_dim, conv = mdl_linear_conv_dim(m);
    if (m->lin_kind == MDL_LINEAR_MAMBA2)     /* transformers' NemotronHMamba2Mixer */
        return h * (2.0 * vd + 2.0 * kd + Hv) /* in_proj: z, x, B, C, dt */
               + conv * (double)m->lin_conv_kernel + (m->lin_conv_bias ? conv : 0.0) +
               3.0 * Hv                        /* A_log, D, dt_bias */
               + vd                            /* the gated RMSNorm over all heads */
               + vd * h;                       /* out_proj */
    return h * (2.0 * kd + 2.0 * vd)           /* in_proj_qkvz */
           + h * 2.0 * Hv                      /* in_proj_ba */
           + conv * (double)m->lin_conv_kernel /* conv1d, no bias */
           + 2.0 * Hv                          /* A_log, dt_bias */
           + (double)m->lin_value_dim          /* the gated RMSNorm */
           + vd * h;                           /* out_proj */
}

double
mdl_linear_state_elems(const struct mdl_profile *m)
{
    return (double)m->lin_value_heads * (double)m->lin_key_dim * (double)m->lin_value_dim;
}

double
mdl_linear_conv_elems(const struct mdl_profile *m)
{
    return m->lin_conv_kernel > 1 ? (double)(m->lin_conv_kernel - 1) * mdl_linear_conv_dim(m) : 0.0;
}

double
mdl_linear_state_elem_bytes(const struct mdl_profile *m)
{
    return m->lin_state_elem_bytes > 0 ? m->lin_state_elem_bytes : 2.0;
}

double
mdl_linear_state_bytes_per_layer(const struct mdl_profile *m)
{
    return mdl_linear_state_elems(m) * mdl_linear_state_elem_bytes(m) +
           mdl_linear_conv_elems(m) * 2.0;
}

double
mdl_linear_state_bytes_per_seq(const struct mdl_profile *m)
{
    return (double)mdl_linear_layers(m) * mdl_linear_state_bytes_per_layer(m);
}

double
mdl_kv_elems_per_token_layer(const struct mdl_profile *m)
{
    if (mdl_is_mla(m))
        return (double)(m->kv_lora_rank + m->qk_rope_head_dim);
    return 2.0 * (double)m->num_kv_heads * (double)m->head_dim;
}

double
mdl_kv_bytes_per_token(const struct mdl_profile *m, double bytes_per_elem)
{
    return (double)mdl_kv_layers(m) * mdl_kv_elems_per_token_layer(m) * bytes_per_elem;
}

static double
attention_params(const struct mdl_profile *m)
{
    double h = (double)m->hidden_size, H = (double)m->num_heads;
    if (mdl_is_mla(m)) {
        double qk = (double)mdl_qk_head_dim(m), rope = (double)m->qk_rope_head_dim;
        double kvr = (double)m->kv_lora_rank, v = (double)m->v_head_dim;
        double q;
        if (m->q_lora_rank > 0) {
            double qr = (double)m->q_lora_rank;
            q = h * qr + qr /* q_a_layernorm */ + qr * H * qk;
        } else {
            q = h * H * qk;
        }
        double kv = h * (kvr + rope) + kvr /* kv_a_layernorm */ +
                    kvr * H * ((double)m->qk_nope_head_dim + v);
        return q + kv + H * v * h;
    }
    double d = (double)m->head_dim, kvh = (double)m->num_kv_heads;
    double qd = H * d, kvd = kvh * d;
    /* a gated attention's q_proj gives the gate too: twice the queries' width */
    double qw = m->attn_output_gate ? 2.0 * qd : qd;
    double p = h * qw + 2.0 * h * kvd + qd * h;
    if (m->qkv_bias)
        p += qw + 2.0 * kvd;
    if (m->o_bias)
        p += h;
    return p;
}

void
mdl_param_count(const struct mdl_profile *m, struct mdl_params *out)
{
    double h = (double)m->hidden_size, V = (double)m->vocab_size;
    struct mdl_params p = {0};
    p.embedding = V * h;
    p.lm_head = m->tie_word_embeddings ? 0.0 : V * h;
    double attn = attention_params(m);
    double attn_o = (double)m->num_heads * (double)mdl_v_head_dim(m) * h + (m->o_bias ? h : 0.0);
    /* a linear-attention layer in place of the attention: its out_proj is the o_proj share */
    double lin = mdl_linear_params(m);
    double lin_o = (double)m->lin_value_heads * (double)m->lin_value_dim * h;
    /* gate, up, down; without a gate (relu^2) up and down */
    double mats = m->mlp_ungated ? 2.0 : 3.0;
    double dense_mlp = mats * h * (double)m->intermediate_size;
    if (m->mlp_bias)
        dense_mlp += (mats - 1.0) * (double)m->intermediate_size + h;
    long moe_i = m->moe_intermediate_size > 0 ? m->moe_intermediate_size : m->intermediate_size;
    double expert = mats * h * (double)moe_i;
    double shared =
        m->shared_intermediate_size > 0 ? mats * h * (double)m->shared_intermediate_size : expert;
    p.per_expert = expert;
    double part_norms = mdl_norms_per_part(m);
    double active_mlp = 0.0;
    for (long l = 0; l < m->num_layers; l++) {
        if (mdl_layer_has_mixer(m, l)) {
            bool linear = mdl_layer_is_linear(m, l);
            p.attention += linear ? lin : attn;
            p.attn_out += linear ? lin_o : attn_o;
            p.norms += part_norms;
        }
        if (!mdl_layer_has_ffn(m, l))
            continue;
        p.norms += part_norms;
        if (mdl_layer_is_moe(m, l)) {
            double E = (double)m->n_experts;
            p.mlp_experts += E * expert;
            p.mlp_shared += (double)m->n_shared_experts * shared;
            /* router weight (E x h); DeepSeek-V3 and Nemotron-H add a per-expert score bias (E) */
            double gate = m->shared_expert_gate ? (double)m->n_shared_experts * h : 0.0;
            p.router += E * h + (m->router_bias ? E : 0.0) + gate;
            active_mlp += (double)m->experts_per_token * expert +
                          (double)m->n_shared_experts * shared + E * h + gate;
        } else {
            p.mlp_dense += dense_mlp;
            active_mlp += dense_mlp;
        }
    }
    p.norms += h; /* final norm */
    p.total = p.embedding + p.attention + p.mlp_dense + p.mlp_experts + p.mlp_shared + p.router +
              p.norms + p.lm_head;
    p.active = p.embedding + p.attention + active_mlp + p.norms + p.lm_head;
    *out = p;
}

double
mdl_weight_bytes(const struct mdl_profile *m, enum dtype w)
{
    struct mdl_params p;
    mdl_param_count(m, &p);
    if (!dtype_is_mix(w))
        return p.total * dtype_bytes(w);
    double experts = p.mlp_experts, router = p.router;
    double qkv = p.attention - p.attn_out, head = p.embedding + p.lm_head;
    double other = p.total - experts - router - p.attention - head;
    return experts * dtype_bytes(dtype_part_format(w, DT_PART_EXPERTS)) +
           router * dtype_bytes(dtype_part_format(w, DT_PART_ROUTER)) +
           qkv * dtype_bytes(dtype_part_format(w, DT_PART_ATTN_QKV)) +
           p.attn_out * dtype_bytes(dtype_part_format(w, DT_PART_ATTN_O)) +
           head * dtype_bytes(dtype_part_format(w, DT_PART_HEAD)) +
           other * dtype_bytes(dtype_part_format(w, DT_PART_OTHER));
}

/* norm_w / scale_w / gating per architecture as llama-model.cpp passes them to build_moe_ffn
 * (src/llama-graph.cpp at 434f71a5b4d1ff9c9c9b59e08326f0fe3d15193a; roof_moe_graph_kernels) */
enum mdl_moe_graph
mdl_moe_graph_of(const char *model_type)
{
    static const struct {
        const char *model_type;
        enum mdl_moe_graph kind;
    } kinds[] = {
        {"gpt_oss", MDL_MOE_GRAPH_GPT_OSS},
        {"deepseek_v3", MDL_MOE_GRAPH_DEEPSEEK_V3},
        {"deepseek_v2", MDL_MOE_GRAPH_DEEPSEEK_V2},
        {"qwen3_moe", MDL_MOE_GRAPH_NORM},
        {"mixtral", MDL_MOE_GRAPH_NORM},
    };
    for (size_t i = 0; model_type && i < sizeof kinds / sizeof kinds[0]; i++)
        if (strcmp(model_type, kinds[i].model_type) == 0)
            return kinds[i].kind;
    return MDL_MOE_GRAPH_PLAIN;
}

void
mdl_free(struct mdl_profile *m)
{
    if (!m)
        return;
    free(m->id);
    free(m->path);
    free(m->model_type);
    free(m->torch_dtype);
    for (int i = 0; i < m->n_sources; i++) {
        free(m->source_keys[i]);
        free(m->source_texts[i]);
    }
    free(m->source_keys);
    free(m->source_texts);
    free(m);
}
