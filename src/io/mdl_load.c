/* Model profile loader: Hugging Face config.json keys (YAML or the JSON file as is). */
#include "io/profiles.h"

#include "io/ydoc.h"
#include "util/array.h"
#include "util/strs.h"

#include <stdlib.h>
#include <string.h>

#define N(a) (ARRAY_SIZE(a))

/* Keys the engine reads. */
static const char *const USED_KEYS[] = {
    "hidden_size",
    "intermediate_size",
    "num_hidden_layers",
    "num_attention_heads",
    "num_key_value_heads",
    "head_dim",
    "vocab_size",
    "tie_word_embeddings",
    "max_position_embeddings",
    "torch_dtype",
    "dtype",
    "model_type",
    "attention_bias",
    "mlp_bias",
    "sliding_window",
    "use_sliding_window",
    "num_local_experts",
    "num_experts",
    "num_experts_per_tok",
    "n_routed_experts",
    "n_shared_experts",
    "moe_intermediate_size",
    "shared_expert_intermediate_size",
    "decoder_sparse_step",
    "mlp_only_layers",
    "intermediate_size_mlp",
    "interleave_moe_layer_step",
    "attention_chunk_size",
    "no_rope_layers",
    "first_k_dense_replace",
    "moe_layer_freq",
    "q_lora_rank",
    "kv_lora_rank",
    "qk_nope_head_dim",
    "qk_rope_head_dim",
    "v_head_dim",
    "layer_types",
    "sliding_window_pattern",
    "max_window_layers",
    "linear_num_key_heads",
    "linear_num_value_heads",
    "linear_key_head_dim",
    "linear_value_head_dim",
    "linear_conv_kernel_dim",
    "full_attention_interval",
    "attn_output_gate",
    "mamba_ssm_dtype",
    "hybrid_override_pattern",
    "layers_block_type",
    "mamba_num_heads",
    "mamba_head_dim",
    "ssm_state_size",
    "n_groups",
    "conv_kernel",
    "use_conv_bias",
    "chunk_size",
    "mamba_ssm_cache_dtype",
    "moe_shared_expert_intermediate_size",
    "moe_latent_size",
    "attention_head_dim",
    "use_bias",
    "mamba_n_heads",
    "mamba_d_head",
    "mamba_d_state",
    "mamba_n_groups",
    "mamba_d_conv",
    "mamba_expand",
    "mamba_conv_bias",
    "mamba_proj_bias",
    "mamba_chunk_size",
    "shared_intermediate_size",
    "quantization_config",
    "text_config",
    "published_parameters",
    "sources",
};

/* Hugging Face keys that do not change the cost model (tokenizer ids, numerics, training-only
 * settings, RoPE parameters). Recognised so that real configs load without noise. */
static const char *const IGNORED_KEYS[] = {
    "_name_or_path",
    "architectures",
    "attention_dropout",
    "auto_map",
    "bos_token_id",
    "eos_token_id",
    "pad_token_id",
    "hidden_act",
    "hidden_activation",
    "initializer_range",
    "rms_norm_eps",
    "layer_norm_eps",
    "layer_norm_epsilon",
    "rope_theta",
    "rope_scaling",
    "pretraining_tp",
    "transformers_version",
    "use_cache",
    "attn_logit_softcapping",
    "final_logit_softcapping",
    "query_pre_attn_scalar",
    "cache_implementation",
    "output_router_logits",
    "router_aux_loss_coef",
    "router_jitter_noise",
    "embd_pdrop",
    "resid_pdrop",
    "original_max_position_embeddings",
    "n_group",
    "topk_group",
    "topk_method",
    "norm_topk_prob",
    "scoring_func",
    "routed_scaling_factor",
    "aux_loss_alpha",
    "seq_aux",
    "num_nextn_predict_layers",
    "ep_size",
    "partial_rotary_factor",
    "rope_interleave",
    "use_qk_norm",
    "attention_probs_dropout_prob",
    "hidden_dropout_prob",
    "tokenizer_class",
    "use_bfloat16",
    "is_decoder",
    "tie_encoder_decoder",
    "torchscript",
    "id2label",
    "label2id",
    "qkv_bias",
    "rope_type",
    "use_mrope",
    "sliding_window_size",
    "vision_config",
    "mm_tokens_per_image",
    "boi_token_index",
    "eoi_token_index",
    "image_token_index",
    "image_token_id",
    "rope_local_base_freq",
    "vision_feature_layer",
    "projector_hidden_act",
    "multimodal_projector_bias",
    "spatial_merge_size",
    "attn_temperature_tuning",
    "floor_scale",
    "attn_scale",
    "rope_parameters",
    "mtp_num_hidden_layers",
    "mtp_use_dedicated_embeddings",
    "mrope_section",
    "mrope_interleaved",
    "language_model_only",
    "video_token_id",
    "mamba_hidden_act",
    "mlp_hidden_act",
    "time_step_min",
    "time_step_max",
    "time_step_floor",
    "time_step_limit",
    "rescale_prenorm_residual",
    "residual_in_fp32",
    "use_mamba_kernels",
    "hidden_dropout",
    "num_logits_to_keep",
    "norm_eps",
    "expand",
    "mtp_layers_block_type",
    "moe_shared_expert_overlap",
    "embedding_multiplier",
    "logits_scaling",
    "residual_multiplier",
    "attention_multiplier",
    "position_embedding_type",
    "vision_start_token_id",
    "vision_end_token_id",
};

static bool
in_list(const char *k, const char *const *list, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (strcmp(k, list[i]) == 0)
            return true;
    return false;
}

/* Unknown keys: in YAML profiles an error; in a JSON config an error only when it looks like a
 * misspelling of a key the engine reads (a silent typo would change results), else a warning. */
static void
check_model_keys(struct ycheck *y, const struct ynode *root, bool lenient)
{
    const char *all[N(USED_KEYS) + N(IGNORED_KEYS)];
    size_t n = 0;
    for (size_t i = 0; i < N(USED_KEYS); i++)
        all[n++] = USED_KEYS[i];
    for (size_t i = 0; i < N(IGNORED_KEYS); i++)
        all[n++] = IGNORED_KEYS[i];
    ycheck_duplicates(y, root, "");
    for (size_t i = 0; i + 1 < root->n; i += 2) {
        const struct ynode *k = root->items[i];
        if (in_list(k->value, all, n))
            continue;
        const char *hint_used = str_closest(k->value, USED_KEYS, N(USED_KEYS));
        if (!lenient || hint_used) {
            const char *hint = hint_used ? hint_used : str_closest(k->value, all, n);
            if (hint)
                ycheck_error(y, k, "unknown key '%s' (did you mean '%s'?)", k->value, hint);
            else
                ycheck_error(y, k, "unknown key '%s'", k->value);
        } else {
            ycheck_warning(y, k, "ignoring key '%s' (not used by the cost model)", k->value);
        }
    }
}

/* No published model comes near these; beyond them the per-layer sums and the products of
 * shapes stop meaning anything (and 2^31 layers would keep the engine busy for minutes). */
#define MAX_LAYERS 10000L
#define MAX_DIM 1000000000L
/* published parameter counts (docs/profiles.md#ranges) */
#define MAX_PARAMS 1e15

static bool
shape_long(struct ycheck *y, const struct ynode *root, const char *key, bool required, long min,
           long max, long *out)
{
    long v = 0;
    if (!ycheck_long(y, root, "", key, required, min, &v))
        return false;
    if (v > max) {
        ycheck_error(y, ynode_get(root, key), "'%s' must be at most %ld, got %ld", key, max, v);
        return false;
    }
    *out = v;
    return true;
}

static bool
get_opt_long(struct ycheck *y, const struct ynode *root, const char *key, long min, long *out)
{
    return shape_long(y, root, key, false, min, MAX_DIM, out);
}

/* A per-layer bitset (mdl_mask_set) can name the first MDL_MAX_LAYER_MASK layers only: `what`
 * for a deeper model is an error at `at`. */
static bool
layer_mask_fits(struct ycheck *y, const struct ynode *at, const char *what,
                const struct mdl_profile *m)
{
    if (m->num_layers <= MDL_MAX_LAYER_MASK)
        return true;
    ycheck_error(y, at, "%s for more than %d layers is not supported", what, MDL_MAX_LAYER_MASK);
    return false;
}

/* Which layers keep a sliding window, as the bitset of the full-attention ones. Newer configs
 * spell it out, `layer_types` a layer each ("sliding_attention" or "full_attention",
 * transformers' configuration_utils layer_type_validation). Otherwise a pattern P makes every P-th
 * layer global: Gemma-3's `sliding_window_pattern` (modeling_gemma3.py: is_sliding =
 * bool((layer_idx + 1) % sliding_window_pattern)), `pattern` the architecture's default when the
 * key is left out (Gemma3TextConfig's 6; Gemma-2's alternation, even layers local, is 2); or
 * Qwen2's window, when use_sliding_window turns it on, on the layers from max_window_layers up
 * (Qwen2Config: sliding_attention where i >= max_window_layers). */
static void
load_window_layers(struct ycheck *y, const struct ynode *root, struct mdl_profile *m, long pattern)
{
    const struct ynode *lt = ynode_get(root, "layer_types");
    bool listed = lt && lt->kind == YNODE_SEQ, warned = false;
    for (size_t i = 0; listed && i < lt->n; i++) {
        const struct ynode *v = lt->items[i];
        if (v->kind != YNODE_SCALAR || ynode_is_null(v)) {
            ycheck_error(y, v,
                         "'layer_types' entries are texts such as \"sliding_attention\" or "
                         "\"full_attention\"");
            return;
        }
        /* a gated DeltaNet layer ("linear_attention" with the linear_* shape, load_linear) is
         * modelled; other linear-attention and state-space layers are not: said once, at the
         * first such layer */
        bool gdn = m->lin_value_heads > 0 && strcmp(v->value, "linear_attention") == 0;
        if (!gdn && !warned && !strstr(v->value, "sliding") && !strstr(v->value, "full")) {
            ycheck_warning(y, v,
                           "layer %zu is '%s': costed as full softmax attention (its KV cache and "
                           "attention are an upper bound)",
                           i, v->value);
            warned = true;
        }
    }
    if (listed && (long)lt->n != m->num_layers &&
        (m->sliding_window > 0 || m->lin_value_heads > 0)) {
        ycheck_error(y, lt, "'layer_types' has %zu entries for %ld layers", lt->n, m->num_layers);
        return;
    }
    if (m->lin_value_heads > 0 && listed && layer_mask_fits(y, lt, "'layer_types'", m))
        for (size_t i = 0; i < lt->n; i++)
            if (strcmp(lt->items[i]->value, "linear_attention") == 0)
                mdl_mask_set(m->linear_layers, (long)i);
    if (m->sliding_window <= 0)
        return;
    if (listed) {
        if (!layer_mask_fits(y, lt, "'layer_types'", m))
            return;
        m->window_by_layer = true;
        for (size_t i = 0; i < lt->n; i++)
            if (!strstr(lt->items[i]->value, "sliding"))
                mdl_mask_set(m->full_layers, (long)i);
        return;
    }
    get_opt_long(y, root, "sliding_window_pattern", 1, &pattern);
    long mwl = 0;
    bool qwen2 = pattern <= 1 && m->model_type && strncmp(m->model_type, "qwen2", 5) == 0 &&
                 get_opt_long(y, root, "max_window_layers", 0, &mwl) && mwl > 0;
    if (!(pattern > 1 || qwen2))
        return;
    if (!layer_mask_fits(y, qwen2 ? ynode_get(root, "max_window_layers") : root,
                         qwen2 ? "a window by layer" : "a sliding-window pattern", m))
        return;
    m->window_by_layer = true;
    for (long l = 0; l < m->num_layers; l++)
        if (qwen2 ? l < mwl : (l + 1) % pattern == 0)
            mdl_mask_set(m->full_layers, l);
}

/* The recurrent state's format from `key` (Qwen3.5's mamba_ssm_dtype, Nemotron-H's
 * mamba_ssm_cache_dtype): float32 4 bytes, bfloat16 and float16 2; absent, as it was */
static bool
load_ssm_dtype(struct ycheck *y, const struct ynode *shape, const char *key, struct mdl_profile *m)
{
    const struct ynode *sd = ynode_get(shape, key);
    if (!sd || ynode_is_null(sd))
        return true;
    const char *v = sd->kind == YNODE_SCALAR ? sd->value : "";
    if (strcmp(v, "float32") == 0) {
        m->lin_state_elem_bytes = 4.0;
    } else if (strcmp(v, "bfloat16") == 0 || strcmp(v, "float16") == 0) {
        m->lin_state_elem_bytes = 2.0;
    } else {
        ycheck_error(y, sd, "'%s' must be \"float32\", \"bfloat16\" or \"float16\", got '%s'", key,
                     v);
        return false;
    }
    return true;
}

/* Qwen3-Next's and Qwen3.5's gated DeltaNet layers (transformers configuration_qwen3_next.py,
 * modeling_qwen3_next.py Qwen3NextGatedDeltaNet): linear_num_key_heads x linear_key_head_dim
 * for q and k, linear_num_value_heads x linear_value_head_dim for v, a causal convolution of
 * linear_conv_kernel_dim taps (default 4). Which layers: layer_types (load_window_layers), else
 * every layer but each `full_attention_interval`-th (default 4: layers 3, 7, 11, ...). The full
 * layers are gated attention (attn_output_gate, on by default for these: vLLM's
 * Qwen3NextAttention reads getattr(config, "attn_output_gate", True)). The recurrent state is
 * kept in mamba_ssm_dtype when given (Qwen3.5: float32), else in the activations' format (vLLM's
 * mamba_ssm_cache_dtype "auto"). */
static void
load_linear(struct ycheck *y, const struct ynode *shape, struct mdl_profile *m)
{
    bool qwen_gdn = m->model_type && (strncmp(m->model_type, "qwen3_next", 10) == 0 ||
                                      strncmp(m->model_type, "qwen3_5", 7) == 0);
    m->attn_output_gate = qwen_gdn;
    ycheck_bool(y, shape, "", "attn_output_gate", &m->attn_output_gate);
    long vh = 0;
    if (!get_opt_long(y, shape, "linear_num_value_heads", 1, &vh))
        return;
    static const char *const dims[] = {"linear_num_key_heads", "linear_key_head_dim",
                                       "linear_value_head_dim"};
    long *out[] = {&m->lin_key_heads, &m->lin_key_dim, &m->lin_value_dim};
    for (size_t i = 0; i < N(dims); i++)
        if (!shape_long(y, shape, dims[i], true, 1, MAX_DIM, out[i]))
            return;
    m->lin_conv_kernel = 4;
    get_opt_long(y, shape, "linear_conv_kernel_dim", 1, &m->lin_conv_kernel);
    if (!load_ssm_dtype(y, shape, "mamba_ssm_dtype", m))
        return;
    m->lin_value_heads = vh;
    if (ynode_get(shape, "layer_types"))
        return; /* load_window_layers reads the list */
    long interval = 4;
    get_opt_long(y, shape, "full_attention_interval", 1, &interval);
    if (!layer_mask_fits(y, shape, "linear attention", m))
        return;
    for (long l = 0; l < m->num_layers; l++)
        if ((l + 1) % interval != 0)
            mdl_mask_set(m->linear_layers, l);
}

/* A Mamba-2 mixer's shape (transformers' NemotronHMamba2Mixer, GraniteMoeHybridMambaLayer;
 * vLLM's MambaMixer2), in the linear-attention terms of struct mdl_profile: `heads` heads of
 * `head_dim` (value heads and dim), `groups` groups of B and C of `state` (key heads and dim),
 * a causal convolution of `conv` taps with a bias when `conv_bias`, chunks of `chunk` tokens */
static void
set_mamba2(struct mdl_profile *m, long heads, long head_dim, long groups, long state, long conv,
           bool conv_bias, long chunk)
{
    m->lin_kind = MDL_LINEAR_MAMBA2;
    m->lin_value_heads = heads;
    m->lin_value_dim = head_dim;
    m->lin_key_heads = groups;
    m->lin_key_dim = state;
    m->lin_conv_kernel = conv;
    m->lin_conv_bias = conv_bias;
    m->lin_chunk = chunk;
}

/* Nemotron-H (transformers configuration_nemotron_h.py and modeling_nemotron_h.py, vLLM
 * nemotron_h.py): every layer one block of one part, named by a character of
 * `hybrid_override_pattern` (or a word of `layers_block_type`): M a Mamba-2 mixer, * attention
 * (no RoPE), - an MLP of up, relu^2 and down, E a MoE of such experts with a sigmoid router
 * and its score bias and a shared expert of moe_shared_expert_intermediate_size x
 * n_shared_experts. The mixer: mamba_num_heads of mamba_head_dim (its width their product, not
 * expand x hidden), n_groups of ssm_state_size, conv_kernel taps (use_conv_bias), chunks of
 * chunk_size; its state kept in mamba_ssm_cache_dtype, float32 by default (vLLM's
 * NemotronHForCausalLMConfig). */
static void
load_nemotron_h(struct ycheck *y, const struct ynode *shape, struct mdl_profile *m)
{
    long heads = 128, hd = 64, state = 128, groups = 8, conv = 4, chunk = 128;
    get_opt_long(y, shape, "mamba_num_heads", 1, &heads);
    get_opt_long(y, shape, "mamba_head_dim", 1, &hd);
    get_opt_long(y, shape, "ssm_state_size", 1, &state);
    get_opt_long(y, shape, "n_groups", 1, &groups);
    get_opt_long(y, shape, "conv_kernel", 1, &conv);
    get_opt_long(y, shape, "chunk_size", 1, &chunk);
    bool conv_bias = true, bias = false;
    ycheck_bool(y, shape, "", "use_conv_bias", &conv_bias);
    if (ycheck_bool(y, shape, "", "use_bias", &bias) && bias)
        ycheck_error(y, ynode_get(shape, "use_bias"),
                     "'use_bias' true (biases in the Mamba-2 projections) is not modelled");
    set_mamba2(m, heads, hd, groups, state, conv, conv_bias, chunk);
    m->lin_state_elem_bytes = 4.0;
    load_ssm_dtype(y, shape, "mamba_ssm_cache_dtype", m);
    m->mlp_ungated = true;
    m->router_bias = true;
    m->part_layers = true;
    long shared = 0;
    if (get_opt_long(y, shape, "moe_shared_expert_intermediate_size", 1, &shared)) {
        long ns = m->n_shared_experts > 0 ? m->n_shared_experts : 1;
        m->shared_intermediate_size = shared * ns;
        m->n_shared_experts = 1;
    }
    const struct ynode *lat = ynode_get(shape, "moe_latent_size");
    if (lat && !ynode_is_null(lat))
        ycheck_warning(y, lat,
                       "'moe_latent_size': the experts' latent projections are not costed (the "
                       "experts are costed at the hidden size)");
    /* the pattern: a string, or a list of words (newer configs) */
    const struct ynode *pat = ynode_get(shape, "hybrid_override_pattern");
    const struct ynode *list = ynode_get(shape, "layers_block_type");
    if (!list)
        list = ynode_get(shape, "layer_types");
    const struct ynode *at = pat ? pat : list;
    size_t n = pat && pat->kind == YNODE_SCALAR          ? strlen(pat->value)
               : !pat && list && list->kind == YNODE_SEQ ? list->n
                                                         : 0;
    if (!at || n == 0) {
        ycheck_error(y, at ? at : shape,
                     "a Nemotron-H config needs 'hybrid_override_pattern' (a character a layer: "
                     "M, *, - or E)");
        return;
    }
    if ((long)n != m->num_layers) {
        ycheck_error(y, at, "the layer pattern has %zu layers for 'num_hidden_layers' %ld", n,
                     m->num_layers);
        return;
    }
    if (!layer_mask_fits(y, at, "a layer pattern", m))
        return;
    for (size_t l = 0; l < n; l++) {
        const char *w = pat                                    ? NULL
                        : list->items[l]->kind == YNODE_SCALAR ? list->items[l]->value
                                                               : "";
        char ch = pat                                                       ? pat->value[l]
                  : !strcmp(w, "mamba") || !strcmp(w, "linear_attention")   ? 'M'
                  : !strcmp(w, "attention") || !strcmp(w, "full_attention") ? '*'
                  : !strcmp(w, "mlp")                                       ? '-'
                  : !strcmp(w, "moe")                                       ? 'E'
                                                                            : '?';
        switch (ch) {
        case 'M':
            mdl_mask_set(m->linear_layers, (long)l);
            mdl_mask_set(m->no_ffn, (long)l);
            break;
        case '*':
            mdl_mask_set(m->no_ffn, (long)l);
            break;
        case '-':
            mdl_mask_set(m->no_mixer, (long)l);
            mdl_mask_set(m->mlp_only, (long)l);
            break;
        case 'E':
            mdl_mask_set(m->no_mixer, (long)l);
            break;
        default:
            ycheck_error(y, pat ? at : list->items[l],
                         "layer %zu of the pattern is '%s': Nemotron-H's layers are M (Mamba-2), * "
                         "(attention), - (MLP) or E (MoE)",
                         l, pat ? (char[2]){ch, 0} : w);
            return;
        }
    }
}

/* Granite-4.0-H (transformers configuration_granitemoehybrid.py and modeling, vLLM
 * granitemoehybrid.py): each layer a Mamba-2 mixer or attention (`layer_types` "mamba" or
 * "attention"; all Mamba without the list), then a gated MLP: `num_local_experts` experts of
 * `intermediate_size` beside a shared MLP of `shared_intermediate_size`, or that shared MLP
 * alone when there are no experts. The mixer: mamba_n_heads heads of mamba_d_head ("auto":
 * mamba_expand x hidden over the heads), mamba_n_groups of mamba_d_state, mamba_d_conv taps,
 * chunks of mamba_chunk_size; its state in the model's 16 bits (vLLM has no hook for it). */
static void
load_granite_hybrid(struct ycheck *y, const struct ynode *shape, struct mdl_profile *m)
{
    long heads = 128, state = 256, groups = 1, conv = 4, chunk = 256, expand = 2, hd = 0;
    get_opt_long(y, shape, "mamba_n_heads", 1, &heads);
    get_opt_long(y, shape, "mamba_d_state", 1, &state);
    get_opt_long(y, shape, "mamba_n_groups", 1, &groups);
    get_opt_long(y, shape, "mamba_d_conv", 1, &conv);
    get_opt_long(y, shape, "mamba_chunk_size", 1, &chunk);
    get_opt_long(y, shape, "mamba_expand", 1, &expand);
    long width = expand * m->hidden_size;
    const struct ynode *dh = ynode_get(shape, "mamba_d_head");
    if (dh && dh->kind == YNODE_SCALAR && strcmp(dh->value, "auto") != 0)
        get_opt_long(y, shape, "mamba_d_head", 1, &hd);
    else if (heads > 0)
        hd = width / heads;
    if (hd * heads != width) {
        ycheck_error(y, dh ? dh : ynode_get(shape, "mamba_n_heads"),
                     "'mamba_d_head' x 'mamba_n_heads' (%ld x %ld) must be 'mamba_expand' x "
                     "'hidden_size' (%ld)",
                     hd, heads, width);
        return;
    }
    bool conv_bias = true, proj_bias = false;
    ycheck_bool(y, shape, "", "mamba_conv_bias", &conv_bias);
    if (ycheck_bool(y, shape, "", "mamba_proj_bias", &proj_bias) && proj_bias)
        ycheck_error(y, ynode_get(shape, "mamba_proj_bias"),
                     "'mamba_proj_bias' true (biases in the Mamba-2 projections) is not modelled");
    set_mamba2(m, heads, hd, groups, state, conv, conv_bias, chunk);
    long shared = 0;
    get_opt_long(y, shape, "shared_intermediate_size", 0, &shared);
    if (m->n_experts > 0) {
        m->moe_intermediate_size = m->intermediate_size;
        if (shared > 0) {
            m->n_shared_experts = 1;
            m->shared_intermediate_size = shared;
        }
    } else if (shared > 0) {
        m->intermediate_size = shared; /* the shared MLP is the layer's MLP */
    }
    const struct ynode *lt = ynode_get(shape, "layer_types");
    if (!lt) {
        for (long l = 0; l < m->num_layers; l++)
            mdl_mask_set(m->linear_layers, l);
        return;
    }
    if (lt->kind != YNODE_SEQ || (long)lt->n != m->num_layers) {
        ycheck_error(y, lt, "'layer_types' must list %ld layers, each \"mamba\" or \"attention\"",
                     m->num_layers);
        return;
    }
    if (!layer_mask_fits(y, lt, "'layer_types'", m))
        return;
    for (size_t l = 0; l < lt->n; l++) {
        const struct ynode *v = lt->items[l];
        bool mamba = v->kind == YNODE_SCALAR && strcmp(v->value, "mamba") == 0;
        if (!mamba && !(v->kind == YNODE_SCALAR && strcmp(v->value, "attention") == 0)) {
            ycheck_error(y, v, "'layer_types' entries are \"mamba\" or \"attention\"");
            return;
        }
        if (mamba)
            mdl_mask_set(m->linear_layers, (long)l);
    }
}

/* Llama-4's text model (transformers modeling_llama4.py, configuration_llama4.py): MoE layers
 * every `interleave_moe_layer_step` (moe_layers = range(step - 1, L, step), the rule of
 * decoder_sparse_step), each with one shared expert of the routed experts' width
 * (`intermediate_size`; Llama4TextMoe.shared_expert), dense layers of `intermediate_size_mlp`,
 * and chunked local attention of `attention_chunk_size` tokens on the RoPE layers
 * (`no_rope_layers[l]` 1; by default all but every fourth), costed as a window of that size: a
 * chunk holds 1 to C tokens, a window C, so the KV and attention are an upper bound there. */
static void
load_llama4(struct ycheck *y, const struct ynode *shape, struct mdl_profile *m)
{
    long mlp = 0, chunk = 0;
    if (get_opt_long(y, shape, "intermediate_size_mlp", 1, &mlp) && m->n_experts > 0) {
        if (m->moe_intermediate_size == 0)
            m->moe_intermediate_size = m->intermediate_size;
        m->intermediate_size = mlp;
    }
    get_opt_long(y, shape, "interleave_moe_layer_step", 1, &m->sparse_step);
    if (m->model_type && strcmp(m->model_type, "llama4_text") == 0 && m->n_experts > 0 &&
        m->n_shared_experts == 0)
        m->n_shared_experts = 1;
    if (!get_opt_long(y, shape, "attention_chunk_size", 1, &chunk) || m->num_layers <= 0)
        return;
    if (!layer_mask_fits(y, ynode_get(shape, "attention_chunk_size"), "chunked attention", m))
        return;
    const struct ynode *nr = ynode_get(shape, "no_rope_layers");
    bool listed = nr && nr->kind == YNODE_SEQ && nr->n > 0;
    if (listed && (long)nr->n < m->num_layers) {
        ycheck_error(y, nr, "'no_rope_layers' has %zu entries for %ld layers", nr->n,
                     m->num_layers);
        return;
    }
    m->sliding_window = chunk;
    m->window_by_layer = true;
    m->chunked_attention = true;
    memset(m->full_layers, 0, sizeof m->full_layers);
    for (long l = 0; l < m->num_layers; l++) {
        long rope = (l + 1) % 4 != 0;
        if (listed && ynode_long(nr->items[l], &rope) != 0) {
            ycheck_error(y, nr->items[l], "'no_rope_layers' entries are 1 (RoPE) or 0 (NoPE)");
            return;
        }
        if (!rope)
            mdl_mask_set(m->full_layers, l);
    }
}

/* mlp_only_layers (Qwen2-MoE, Qwen3-MoE): the layers that keep a dense MLP in a MoE model, a list
 * of layer indices, each below num_hidden_layers (read first) and MDL_MAX_LAYER_MASK. */
static void
load_mlp_only(struct ycheck *y, const struct ynode *root, struct mdl_profile *m)
{
    const struct ynode *l = ynode_get(root, "mlp_only_layers");
    if (!l || ynode_is_null(l))
        return;
    if (l->kind != YNODE_SEQ) {
        ycheck_error(y, l, "'mlp_only_layers' must be a list of layer indices");
        return;
    }
    for (size_t i = 0; i < l->n; i++) {
        long v = -1;
        if (ynode_long(l->items[i], &v) != 0 || v < 0) {
            ycheck_error(y, l->items[i], "'mlp_only_layers': '%s' is not a layer index",
                         l->items[i]->value ? l->items[i]->value : "?");
        } else if (v >= m->num_layers || v >= MDL_MAX_LAYER_MASK) {
            ycheck_error(y, l->items[i],
                         "'mlp_only_layers': layer %ld is not below 'num_hidden_layers' (%ld)", v,
                         m->num_layers);
        } else {
            mdl_mask_set(m->mlp_only, v);
        }
    }
}

/* quantization_config of a Hugging Face config: only a block-scaled FP8 checkpoint
 * (quant_method "fp8" with weight_block_size [n, k], DeepSeek-V3's) changes the cost model
 * (docs/physics.md#moe-kernels); every other method and key is left as it was, ignored. */
static void
load_fp8_block(struct ycheck *y, const struct ynode *root, struct mdl_profile *m)
{
    const struct ynode *q = ynode_get(root, "quantization_config");
    if (!q || q->kind != YNODE_MAP)
        return;
    const struct ynode *meth = ynode_get(q, "quant_method");
    if (!meth || meth->kind != YNODE_SCALAR || !meth->value || strcmp(meth->value, "fp8") != 0)
        return;
    const struct ynode *b = ynode_get(q, "weight_block_size");
    if (!b || ynode_is_null(b))
        return;
    long v[2] = {0, 0};
    bool ok = b->kind == YNODE_SEQ && b->n == 2;
    for (size_t i = 0; ok && i < 2; i++)
        ok = ynode_long(b->items[i], &v[i]) == 0 && v[i] >= 1 && v[i] <= MAX_DIM;
    if (!ok) {
        ycheck_error(y, b,
                     "'quantization_config.weight_block_size' must be two whole numbers [n, k] "
                     "of at least 1 (the rows and columns of one scale block)");
        return;
    }
    m->fp8_weight_block = v[1];
}

/* What mdl_load and mdl_from_tree pass fill: the id and whether unknown keys are allowed. */
struct model_arg {
    const char *id;
    bool lenient;
};

static void
fill(struct ycheck *y, const struct ynode *root, void *obj, const void *arg)
{
    const struct model_arg *a = arg;
    bool lenient = a->lenient;
    struct mdl_profile *m = obj;
    m->id = str_dup(a->id);
    m->path = str_dup(y->path);
    if (!m->id || !m->path) {
        ycheck_error(y, root, "out of memory (while reading the profile)");
        return;
    }
    check_model_keys(y, root, lenient);
    /* a multimodal wrapper (Gemma-3, Mistral-3 and the like) keeps the language model's shape in
     * text_config; the wrapper's own keys (vision_config, token ids) are recognised and left */
    const struct ynode *shape = root, *tc = ynode_get(root, "text_config");
    if (tc && tc->kind == YNODE_MAP && !ynode_get(root, "num_hidden_layers")) {
        check_model_keys(y, tc, true);
        shape = tc;
    }
    const char *s;
    if (ycheck_str(y, shape, "", "model_type", false, &s) ||
        (shape != root && ycheck_str(y, root, "", "model_type", false, &s)))
        m->model_type = str_dup(s);
    /* Gemma3TextConfig's defaults (transformers configuration_gemma3.py), which the published
     * text_configs lean on (google/gemma-3-4b-it gives only hidden_size, intermediate_size,
     * num_hidden_layers, sliding_window and rope_scaling): vocab 262,208, 8 heads, 4 KV heads of
     * 256, 131,072 positions, a 4096-token window every layer but each sixth */
    bool gemma3 = m->model_type && strncmp(m->model_type, "gemma3", 6) == 0;
    if (gemma3) {
        m->vocab_size = 262208;
        m->num_heads = 8;
        m->num_kv_heads = 4;
        m->head_dim = 256;
        m->max_position_embeddings = 131072;
        m->sliding_window = 4096;
    }
    m->moe_graph = mdl_moe_graph_of(m->model_type);
    if (ycheck_str(y, shape, "", "torch_dtype", false, &s) ||
        ycheck_str(y, shape, "", "dtype", false, &s))
        m->torch_dtype = str_dup(s);
    shape_long(y, shape, "hidden_size", true, 1, MAX_DIM, &m->hidden_size);
    shape_long(y, shape, "num_hidden_layers", true, 1, MAX_LAYERS, &m->num_layers);
    shape_long(y, shape, "num_attention_heads", !gemma3, 1, MAX_DIM, &m->num_heads);
    shape_long(y, shape, "vocab_size", !gemma3, 1, MAX_DIM, &m->vocab_size);
    shape_long(y, shape, "intermediate_size", true, 1, MAX_DIM, &m->intermediate_size);
    if (!gemma3)
        m->num_kv_heads = m->num_heads;
    get_opt_long(y, shape, "num_key_value_heads", 1, &m->num_kv_heads);
    if (m->num_heads > 0 && m->hidden_size > 0 && !gemma3)
        m->head_dim = m->hidden_size / m->num_heads;
    /* Nemotron-H-8B's config names it attention_head_dim */
    if (!get_opt_long(y, shape, "head_dim", 1, &m->head_dim) &&
        !get_opt_long(y, shape, "attention_head_dim", 1, &m->head_dim) && m->head_dim == 0 &&
        m->num_heads > 0 && m->hidden_size > 0)
        ycheck_error(y, ynode_get(shape, "hidden_size"),
                     "'hidden_size' (%ld) is smaller than 'num_attention_heads' (%ld): each head "
                     "would have 0 dimensions (give 'head_dim')",
                     m->hidden_size, m->num_heads);
    get_opt_long(y, shape, "max_position_embeddings", 1, &m->max_position_embeddings);
    /* transformers' default: Gemma configs tie the LM head to the embedding, Llama-family do not */
    m->tie_word_embeddings = m->model_type && strncmp(m->model_type, "gemma", 5) == 0;
    ycheck_bool(y, shape, "", "tie_word_embeddings", &m->tie_word_embeddings);
    bool ab = false;
    if (ycheck_bool(y, shape, "", "attention_bias", &ab))
        m->qkv_bias = m->o_bias = ab;
    ycheck_bool(y, shape, "", "mlp_bias", &m->mlp_bias);
    bool is_qwen2 = m->model_type && strncmp(m->model_type, "qwen2", 5) == 0;
    bool is_gemma2 = m->model_type && (strcmp(m->model_type, "gemma2") == 0);
    if (is_qwen2)
        m->qkv_bias = true; /* Qwen2 always has q/k/v biases (modeling_qwen2.py) */
    /* Gemma-2 and Gemma-3 norm before and after both attention and MLP (modeling_gemma2.py,
     * modeling_gemma3.py: pre_feedforward_layernorm, post_feedforward_layernorm) */
    if (is_gemma2 || gemma3)
        m->extra_norms = true;

    long sw = 0;
    if (get_opt_long(y, shape, "sliding_window", 1, &sw))
        m->sliding_window = sw;
    else if (ynode_is_null(ynode_get(shape, "sliding_window")))
        m->sliding_window = 0;
    bool use_sw = true;
    if (ycheck_bool(y, shape, "", "use_sliding_window", &use_sw) && !use_sw)
        m->sliding_window = 0;
    bool nemotron_h = m->model_type && strcmp(m->model_type, "nemotron_h") == 0;
    bool granite_h = m->model_type && strcmp(m->model_type, "granitemoehybrid") == 0;
    load_linear(y, shape, m);
    if (!nemotron_h && !granite_h) /* their lists name the mixers (load_nemotron_h, ...) */
        load_window_layers(y, shape, m, gemma3 ? 6 : is_gemma2 ? 2 : 0);
    /* mixture of experts (Granite-4.0-H's dense models give num_local_experts 0) */
    if (!get_opt_long(y, shape, "num_local_experts", granite_h ? 0 : 1, &m->n_experts))
        if (!get_opt_long(y, shape, "n_routed_experts", 1, &m->n_experts))
            get_opt_long(y, shape, "num_experts", 1, &m->n_experts);
    get_opt_long(y, shape, "num_experts_per_tok", 1, &m->experts_per_token);
    get_opt_long(y, shape, "n_shared_experts", 0, &m->n_shared_experts);
    get_opt_long(y, shape, "moe_intermediate_size", 1, &m->moe_intermediate_size);
    /* Qwen2-MoE's shared expert (modeling_qwen2_moe.py, Qwen2MoeSparseMoeBlock): one MLP of
     * shared_expert_intermediate_size beside the routed ones, whatever n_shared_experts says,
     * scaled by sigmoid(shared_expert_gate(x)), a 1 x hidden weight */
    long shared_i = 0;
    if (get_opt_long(y, shape, "shared_expert_intermediate_size", 0, &shared_i) && shared_i > 0) {
        m->shared_intermediate_size = shared_i;
        m->n_shared_experts = 1;
        m->shared_expert_gate = true;
    }
    get_opt_long(y, shape, "first_k_dense_replace", 0, &m->first_k_dense);
    get_opt_long(y, shape, "moe_layer_freq", 1, &m->moe_layer_freq);
    get_opt_long(y, shape, "decoder_sparse_step", 1, &m->sparse_step);
    load_llama4(y, shape, m);
    load_mlp_only(y, shape, m);
    if (nemotron_h)
        load_nemotron_h(y, shape, m);
    if (granite_h)
        load_granite_hybrid(y, shape, m);
    if (m->first_k_dense > m->num_layers && m->num_layers > 0)
        ycheck_error(y, ynode_get(shape, "first_k_dense_replace"),
                     "'first_k_dense_replace' (%ld) exceeds 'num_hidden_layers' (%ld)",
                     m->first_k_dense, m->num_layers);
    if (m->num_kv_heads > m->num_heads && m->num_heads > 0)
        ycheck_error(y, ynode_get(shape, "num_key_value_heads"),
                     "'num_key_value_heads' (%ld) exceeds 'num_attention_heads' (%ld)",
                     m->num_kv_heads, m->num_heads);
    if (m->n_experts > 0 && m->experts_per_token == 0)
        ycheck_error(y, shape, "a mixture-of-experts model needs 'num_experts_per_tok'");
    if (m->n_experts > 0 && m->experts_per_token > m->n_experts)
        ycheck_error(y, ynode_get(shape, "num_experts_per_tok"),
                     "'num_experts_per_tok' (%ld) exceeds the number of experts (%ld)",
                     m->experts_per_token, m->n_experts);
    /* multi-head latent attention */
    get_opt_long(y, shape, "q_lora_rank", 1, &m->q_lora_rank);
    get_opt_long(y, shape, "kv_lora_rank", 1, &m->kv_lora_rank);
    get_opt_long(y, shape, "qk_nope_head_dim", 1, &m->qk_nope_head_dim);
    get_opt_long(y, shape, "qk_rope_head_dim", 1, &m->qk_rope_head_dim);
    get_opt_long(y, shape, "v_head_dim", 1, &m->v_head_dim);
    /* the router's per-expert score bias (e_score_correction_bias): vLLM's and SGLang's DeepSeek
     * code make it only when topk_method is "noaux_tc" (DeepSeek-V3, Kimi-K2); DeepSeek-V2's
     * greedy routers have none. A deepseek_v3 config without the key routes noaux_tc
     * (transformers' DeepseekV3TopkRouter always has the bias). */
    if (ycheck_str(y, shape, "", "topk_method", false, &s))
        m->router_bias = m->router_bias || strcmp(s, "noaux_tc") == 0;
    else if (m->model_type && strcmp(m->model_type, "deepseek_v3") == 0)
        m->router_bias = true;
    if (m->kv_lora_rank > 0 &&
        (m->qk_nope_head_dim == 0 || m->qk_rope_head_dim == 0 || m->v_head_dim == 0))
        ycheck_error(y, shape,
                     "multi-head latent attention ('kv_lora_rank') needs "
                     "'qk_nope_head_dim', 'qk_rope_head_dim' and 'v_head_dim'");
    if (m->num_kv_heads > 0 && m->num_kv_heads <= m->num_heads &&
        m->num_heads % m->num_kv_heads != 0)
        ycheck_error(y, ynode_get(shape, "num_key_value_heads"),
                     "'num_attention_heads' (%ld) is not a multiple of 'num_key_value_heads' "
                     "(%ld)",
                     m->num_heads, m->num_kv_heads);
    load_fp8_block(y, ynode_get(shape, "quantization_config") ? shape : root, m);
    const struct ynode *pp = ynode_get(root, "published_parameters");
    if (pp && !ynode_is_null(pp)) {
        const char *why = "not a count";
        double v = 0;
        if (pp->kind != YNODE_SCALAR || unit_parse(pp->value, UNIT_COUNT_SUFFIX, &v, &why) != 0)
            ycheck_error(y, pp, "'published_parameters': cannot read '%s' as %s (%s)",
                         pp->kind == YNODE_SCALAR ? pp->value : "?",
                         unit_example(UNIT_COUNT_SUFFIX), why);
        else if (!(v > 0))
            ycheck_error(y, pp, "'published_parameters' must be positive");
        else if (v > MAX_PARAMS)
            ycheck_error(y, pp,
                         "'published_parameters' is '%s', above %gT (the largest published "
                         "models have about 2T)",
                         pp->value, MAX_PARAMS / 1e12);
        else
            m->published_params = v;
    }
    const struct ynode *src = ynode_get(root, "sources");
    if (src && !ynode_is_null(src) && ycheck_map(y, src, "sources")) {
        m->source_keys = calloc(src->n / 2 + 1, sizeof(char *));
        m->source_texts = calloc(src->n / 2 + 1, sizeof(char *));
        for (size_t i = 0; i + 1 < src->n && m->source_keys && m->source_texts; i += 2) {
            const struct ynode *v = src->items[i + 1];
            if (v->kind != YNODE_SCALAR || !v->value[0]) {
                ycheck_error(y, v, "'sources.%s' must be a non-empty text", src->items[i]->value);
                continue;
            }
            m->source_keys[m->n_sources] = str_dup(src->items[i]->value);
            m->source_texts[m->n_sources] = str_dup(v->value);
            m->n_sources++;
        }
    } else if (!lenient && !src) {
        ycheck_error(y, root, "missing required key 'sources' (where the config comes from)");
    }
    if (m->published_params > 0 && !(src && ynode_get(src, "published_parameters")))
        ycheck_error(y, pp,
                     "'published_parameters' has no source (add "
                     "'sources.published_parameters')");
}

static void
free_model(void *m)
{
    mdl_free(m);
}

/* top-level keys: check_model_keys (fill), which knows the lenient form */
static const struct ydoc_format MODEL = {.what = "a model profile",
                                         .root = YNODE_MAP,
                                         .keys = NULL,
                                         .n_keys = 0,
                                         .size = sizeof(struct mdl_profile),
                                         .fill = fill,
                                         .free = free_model};

struct mdl_profile *
mdl_from_tree(const struct ynode *root, const char *path, const char *id, bool lenient,
              struct err_list *errs)
{
    struct model_arg a = {id, lenient};
    return ydoc_from_tree(&MODEL, root, path, &a, errs);
}

static bool
ends_with(const char *s, const char *suffix)
{
    size_t ls = strlen(s), lx = strlen(suffix);
    return ls >= lx && strcmp(s + ls - lx, suffix) == 0;
}

/* id: the file stem; for ".../NAME/config.json" the directory name */
static char *
model_id(const char *path)
{
    const char *base = strrchr(path, '/');
    const char *b = base ? base + 1 : path;
    if (strcmp(b, "config.json") == 0 && base) {
        const char *start = base;
        while (start > path && start[-1] != '/')
            start--;
        size_t n = (size_t)(base - start);
        char *id = malloc(n + 1);
        if (id) {
            memcpy(id, start, n);
            id[n] = '\0';
        }
        return id;
    }
    char *id = str_dup(b);
    if (id) {
        char *dot = strrchr(id, '.');
        if (dot && dot != id)
            *dot = '\0';
    }
    return id;
}

struct mdl_profile *
mdl_load(const char *path, struct err_list *errs)
{
    char *id = model_id(path);
    struct model_arg a = {id ? id : "?", ends_with(path, ".json")};
    struct mdl_profile *m = ydoc_load(&MODEL, path, &a, errs);
    free(id);
    return m;
}
