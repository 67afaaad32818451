/* A decoder-only transformer's shape, as given by a Hugging Face config.json, and what follows
 * from it: parameter counts and KV-cache bytes per token. docs/physics.md#model-shape */
#ifndef ROOFLINE_CORE_MODEL_H
#define ROOFLINE_CORE_MODEL_H

#include "core/dtype.h"

#include <stdbool.h>

/* The MoE FFN's graph in llama.cpp's build_moe_ffn by architecture (roof_moe_graph_kernels),
 * resolved from model_type once when the profile is read (mdl_moe_graph_of), so that an
 * evaluation compares no strings. */
enum mdl_moe_graph {
    MDL_MOE_GRAPH_PLAIN = 0,   /* softmax gating; weights neither normalized nor scaled */
    MDL_MOE_GRAPH_NORM,        /* softmax + norm_w: qwen3_moe, mixtral */
    MDL_MOE_GRAPH_GPT_OSS,     /* logits bias, softmax after the top-k, expert biases */
    MDL_MOE_GRAPH_DEEPSEEK_V2, /* softmax + scale_w */
    MDL_MOE_GRAPH_DEEPSEEK_V3, /* sigmoid, selection bias, groups, norm_w + scale_w */
};

/* layers a per-layer list (mlp_only_layers, layer_types) can name */
#define MDL_MAX_LAYER_MASK 512

/* A layer's bit in a per-layer bitset (full_layers, mlp_only); layers past the mask have none */
static inline void
mdl_mask_set(unsigned char *mask, long layer)
{
    if (layer >= 0 && layer < MDL_MAX_LAYER_MASK)
        mask[layer / 8] |= (unsigned char)(1u << (layer % 8));
}

static inline bool
mdl_mask_has(const unsigned char *mask, long layer)
{
    return layer >= 0 && layer < MDL_MAX_LAYER_MASK && ((mask[layer / 8] >> (layer % 8)) & 1);
}

/* A linear-attention layer's kind: Qwen3-Next's gated DeltaNet, or a Mamba-2 mixer (Nemotron-H,
 * Granite-4.0-H) */
enum mdl_linear_kind {
    MDL_LINEAR_GDN = 0,
    MDL_LINEAR_MAMBA2,
};

struct mdl_profile {
    char *id, *path, *model_type, *torch_dtype;
    enum mdl_moe_graph moe_graph; /* mdl_moe_graph_of(model_type); PLAIN when none */
    long hidden_size, intermediate_size, num_layers, num_heads, num_kv_heads, head_dim;
    long vocab_size, max_position_embeddings;
    bool tie_word_embeddings, qkv_bias, o_bias, mlp_bias;
    /* sliding-window attention: 0 = none; on every layer, or with `window_by_layer` on all but
     * the full-attention ones in `full_layers` (layer_types, Gemma-2's and Gemma-3's patterns) */
    long sliding_window;
    bool window_by_layer;
    bool chunked_attention; /* Llama-4's attention_chunk_size, costed as the window */
    unsigned char full_layers[MDL_MAX_LAYER_MASK / 8];
    /* linear attention (Qwen3-Next's and Qwen3.5's gated DeltaNet, Mamba-2): the layers in
     * `linear_layers` keep a fixed recurrent state a sequence in place of a KV cache; their
     * shape is lin_key_heads x lin_key_dim for q and k, lin_value_heads x lin_value_dim for v,
     * a depthwise causal convolution of lin_conv_kernel taps over q, k and v. 0 heads = none.
     * A Mamba-2 mixer in the same terms: value heads = its heads, value dim = its head dim, key
     * heads = n_groups, key dim = ssm_state_size (B and C are the keys and queries) */
    enum mdl_linear_kind lin_kind;
    long lin_key_heads, lin_value_heads, lin_key_dim, lin_value_dim, lin_conv_kernel;
    long lin_chunk;     /* the chunked scan's chunk in tokens (GDN 64, Mamba-2 chunk_size) */
    bool lin_conv_bias; /* Mamba-2's conv1d bias (use_conv_bias) */
    /* bytes an element of the recurrent state (mamba_ssm_dtype: 4 for float32); 0 = the
     * model's 16 bits (vLLM's mamba_ssm_cache_dtype "auto") */
    double lin_state_elem_bytes;
    unsigned char linear_layers[MDL_MAX_LAYER_MASK / 8];
    /* layers of one part (Nemotron-H: each a mixer alone or an MLP alone): those without a
     * mixer (attention or linear) and those without an MLP */
    unsigned char no_mixer[MDL_MAX_LAYER_MASK / 8], no_ffn[MDL_MAX_LAYER_MASK / 8];
    bool part_layers; /* some layer lacks a part (the masks above are not all empty) */
    /* MLPs of up, activation and down, no gate (Nemotron-H's relu^2): dense, experts, shared */
    bool mlp_ungated;
    /* a per-expert score bias beside the router (e_score_correction_bias: Nemotron-H's, and a
     * DeepSeek router's when topk_method is noaux_tc, as DeepSeek-V3's; not DeepSeek-V2's) */
    bool router_bias;
    /* gated attention (Qwen3-Next's attn_output_gate): q_proj also gives a sigmoid gate a query
     * element, so its width is twice the queries' */
    bool attn_output_gate;
    /* mixture of experts: n_experts = 0 for a dense model */
    long n_experts, experts_per_token, n_shared_experts, moe_intermediate_size;
    /* a shared expert's width where it differs from its routed experts' (Qwen2-MoE's
     * shared_expert_intermediate_size; a device's shard of it in shard_view); 0 = the same */
    long shared_intermediate_size;
    /* Qwen2-MoE's shared_expert_gate: a 1 x hidden weight scaling the shared expert a token */
    bool shared_expert_gate;
    /* which layers are MoE: DeepSeek's first_k_dense_replace and moe_layer_freq (l >=
     * first_k_dense and l % freq == 0), or Qwen2-MoE's decoder_sparse_step ((l + 1) % step ==
     * 0, when given) and mlp_only_layers (a bitset of the dense ones) */
    long first_k_dense, moe_layer_freq, sparse_step;
    unsigned char mlp_only[MDL_MAX_LAYER_MASK / 8];
    /* multi-head latent attention (DeepSeek-V2/V3): kv_lora_rank > 0 enables it */
    long q_lora_rank, kv_lora_rank, qk_nope_head_dim, qk_rope_head_dim, v_head_dim;
    bool extra_norms; /* Gemma-2: pre/post norms around attention and MLP (4 per layer) */
    /* a block-scaled FP8 checkpoint (quantization_config quant_method fp8 with
     * weight_block_size [n, k]: DeepSeek-V3's 128 x 128 weight blocks, activations scaled per
     * 1 x k group): k, the columns of one scale block; 0 = per-tensor or no FP8 scales */
    long fp8_weight_block;
    double published_params; /* 0 = unknown */
    char **source_keys, **source_texts;
    int n_sources;
};

/* Parameter counts by part. `active` counts what one token touches (routed experts: k of E). */
struct mdl_params {
    double embedding, attention, mlp_dense, mlp_experts, mlp_shared, router, norms, lm_head;
    double total, active, per_expert;
    double attn_out; /* the o_proj share of `attention` (weights and bias) */
};

void mdl_param_count(const struct mdl_profile *m, struct mdl_params *out);
/* Bytes of all weights stored in format `w`: each tensor class at its own width for a mix
 * (routed experts, router, attention q/kv and o projections, embedding and LM head, the rest:
 * dtype_part_format), parameters x bits / 8 otherwise. */
double mdl_weight_bytes(const struct mdl_profile *m, enum dtype w);
/* Query width (heads x head dim) and KV width (kv heads x head dim); for MLA the decompressed
 * per-head dims are used: q/k dim = nope + rope, v dim = v_head_dim. */
long mdl_q_dim(const struct mdl_profile *m);
long mdl_qk_head_dim(const struct mdl_profile *m);
long mdl_v_head_dim(const struct mdl_profile *m);
bool mdl_is_mla(const struct mdl_profile *m);
bool mdl_layer_is_moe(const struct mdl_profile *m, long layer);
/* Attention window of a layer in tokens (0 = full attention, or no attention). */
long mdl_layer_window(const struct mdl_profile *m, long layer);
/* A linear-attention layer (no KV cache; a fixed state a sequence) */
bool mdl_layer_is_linear(const struct mdl_profile *m, long layer);
/* A layer's two parts: its mixer (attention or linear) and its MLP (dense or MoE) */
bool mdl_layer_has_mixer(const struct mdl_profile *m, long layer);
bool mdl_layer_has_ffn(const struct mdl_profile *m, long layer);
/* Linear-attention layers (gated DeltaNet or Mamba-2 mixers) */
long mdl_linear_layers(const struct mdl_profile *m);
/* The linear layers' kind by name: "gated DeltaNet" or "Mamba-2" */
const char *mdl_linear_kind_name(const struct mdl_profile *m);
/* A layer with a KV cache: its mixer is attention */
bool mdl_layer_has_kv(const struct mdl_profile *m, long layer);
/* Layers with a KV cache */
long mdl_kv_layers(const struct mdl_profile *m);
/* Mixers and MLPs in all, each closed by a tensor-parallel all-reduce: 2 a layer but in
 * Nemotron-H */
long mdl_sublayers(const struct mdl_profile *m);
/* Parameters of one layer's attention norm (Gemma's pre and post norms: two) */
double mdl_norms_per_part(const struct mdl_profile *m);
/* A linear-attention layer's parameters: a gated DeltaNet's (in_proj_qkvz, in_proj_ba, conv1d,
 * A_log, dt_bias, the gated norm, out_proj) or a Mamba-2 mixer's (in_proj of z, x, B, C and dt,
 * conv1d with its bias, A_log, D, dt_bias, the gated norm, out_proj); 0 without */
double mdl_linear_params(const struct mdl_profile *m);
/* Elements of one linear layer's state a sequence: the recurrent state (value heads x key dim
 * x value dim) and the convolution's (kernel - 1 past inputs of q, k and v) */
double mdl_linear_state_elems(const struct mdl_profile *m);
double mdl_linear_conv_elems(const struct mdl_profile *m);
/* The convolution's channels: q, k and v (a Mamba-2 mixer's x, B and C), 2 Hk dk + Hv dv */
double mdl_linear_conv_dim(const struct mdl_profile *m);
/* Bytes an element of the recurrent state: lin_state_elem_bytes, else the model's 16 bits (vLLM's
 * mamba_ssm_cache_dtype "auto") */
double mdl_linear_state_elem_bytes(const struct mdl_profile *m);
/* Bytes of one linear layer's state of one sequence: the recurrent state at
 * mdl_linear_state_elem_bytes, the convolution's in 16 bits; and of every linear layer's */
double mdl_linear_state_bytes_per_layer(const struct mdl_profile *m);
double mdl_linear_state_bytes_per_seq(const struct mdl_profile *m);
/* KV-cache elements stored per token per layer: 2 x kv_heads x head_dim, or for MLA the latent
 * kv_lora_rank + qk_rope_head_dim. */
double mdl_kv_elems_per_token_layer(const struct mdl_profile *m);
/* KV-cache bytes per token summed over the layers with a KV cache at `bytes_per_elem`, ignoring
 * windows. */
double mdl_kv_bytes_per_token(const struct mdl_profile *m, double bytes_per_elem);
/* The MoE graph kind of a Hugging Face model_type (NULL or unknown: MDL_MOE_GRAPH_PLAIN). */
enum mdl_moe_graph mdl_moe_graph_of(const char *model_type);
void mdl_free(struct mdl_profile *m);

#endif
