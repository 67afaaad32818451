/* roofline show gpu|model ID|PATH: a profile's facts, what follows from them, and sources. */
#include "cli/caldata.h"
#include "cli/cli.h"
#include "io/profiles.h"
#include "util/array.h"
#include "util/units.h"

#include <string.h>

static void
show_gpu(const struct hw_profile *hw)
{
    char a[64], b[64];
    printf("%s (%s)\n", hw->name, hw->id);
    printf("  vendor %s, kind %s\n", hw->vendor, hw->kind);
    unit_format_short(hw->memory_capacity_bytes, "B", 4, a, sizeof a);
    unit_format_short(hw->memory_bandwidth_bytes_per_s, "B/s", 4, b, sizeof b);
    printf("  memory        %s%s%s at %s\n", a, hw->memory_type ? " " : "",
           hw->memory_type ? hw->memory_type : "", b);
    if (hw->memory_reported_bytes > 0)
        printf(
            "  reported      %.1f GiB (%.4g GB) to software: fits, reserves and KV pools use it\n",
            hw->memory_reported_bytes / UNIT_GIB, hw->memory_reported_bytes / 1e9);
    printf("  dense peaks and ridge points (peak / bandwidth):\n");
    for (int d = DT_ROOF_FIRST; d <= DT_ROOF_LAST; d++) {
        if (hw->peak_flops_per_s[d] <= 0)
            continue;
        unit_format_short(hw->peak_flops_per_s[d], d == DT_INT8 || d == DT_INT4 ? "OP/s" : "FLOP/s",
                          4, a, sizeof a);
        printf("    %-5s %16s   ridge %7.1f FLOP/B\n", dtype_name((enum dtype)d), a,
               hw->peak_flops_per_s[d] / hw->memory_bandwidth_bytes_per_s);
    }
    enum hw_vector_origin vo;
    double vec = hw_vector_peak(hw, &vo);
    if (vo != HW_VECTOR_DATASHEET) {
        char how[256];
        hw_vector_describe(hw, how, sizeof how);
        unit_format_short(vec, "FLOP/s", 4, a, sizeof a);
        printf("    %-5s %16s   ridge %7.1f FLOP/B  (vector units; %s)\n", "fp32", a,
               vec / hw->memory_bandwidth_bytes_per_s, how);
    }
    /* what the default engine's times assume this device reaches (docs/calibration.md) */
    struct roof_tuning tu;
    if (caldata_tuning(hw, CLI_DEFAULT_ENGINE, NULL, &tu, NULL) == 0)
        printf("  default engine (" CLI_DEFAULT_ENGINE ", calibrated): streaming kernels reach "
               "%.0f%% of the bandwidth, GEMMs %.0f%% of the dense peak; the times of every "
               "command use these unless --engine says otherwise (datasheet: 100%%)\n",
               100 * roof_tuned_bandwidth(hw, &tu, hw->memory_bandwidth_bytes_per_s) /
                   hw->memory_bandwidth_bytes_per_s,
               100 * tu.compute_efficiency);
    if (hw->gemm_efficiency > 0)
        printf("  GEMMs reach   %.1f%% of the fp32 peak (measured; the engine's compute "
               "efficiency)\n",
               100 * hw->gemm_efficiency);
    if (hw->llc_stream_bytes > 0) {
        char sz[32], kept[32], lb[32];
        unit_format_short(hw->llc_stream_bytes, "B", 3, sz, sizeof sz);
        unit_format_short(hw->llc_retained_bytes, "B", 3, kept, sizeof kept);
        unit_format_short(hw->llc_stream_bandwidth_bytes_per_s, "B/s", 3, lb, sizeof lb);
        printf("  LLC stream    %s of cache seen by a cyclic stream at %s; it retains %s of each "
               "pass beyond it (measured; validate --host)\n",
               sz, lb, hw->llc_retained_bytes > 0 ? kept : "nothing");
    }
    if (hw->gemm_vs_class > 0)
        printf("  GEMMs reach   %.2f x the fraction of peak of the %s class's devices (in the "
               "compute efficiency above)\n",
               hw->gemm_vs_class, dev_class_name(dev_class_of(hw)));
    if (hw->memory_vs_class > 0)
        printf("  bandwidth     %.2f x the fraction of its datasheet figure that the %s class's "
               "devices reach (in the memory efficiency above)\n",
               hw->memory_vs_class, dev_class_name(dev_class_of(hw)));
    if (hw->gemm_floor_s > 0)
        printf("  GEMM floor    %.2f us: no weight GEMM kernel takes less with an engine (its "
               "vendor's tuned kernels, measured)\n",
               hw->gemm_floor_s * 1e6);
    if (hw->gemm_bandwidth_bytes_per_s > 0) {
        char gb[64];
        unit_format_short(hw->gemm_bandwidth_bytes_per_s, "B/s", 3, gb, sizeof gb);
        printf("  GEMM stream   %s: weight GEMMs read their weights at no more than this with an "
               "engine (its vendor's kernels at decode, measured)\n",
               gb);
    }
    if (hw->compute_units > 0)
        printf("  compute units %.0f\n", hw->compute_units);
    if (hw->boost_clock_hz > 0) {
        unit_format_short(hw->boost_clock_hz, "Hz", 3, a, sizeof a);
        printf("  boost clock   %s\n", a);
    }
    static const char *const LV[] = {"l1", "l2", "l3", "llc"};
    for (int i = 0; i < 4; i++)
        if (hw->cache_bytes[i] > 0) {
            unit_format_short(hw->cache_bytes[i], "B", 3, a, sizeof a);
            printf("  cache %-7s %s\n", LV[i], a);
        }
    if (hw->link_kind) {
        unit_format_short(hw->link_bandwidth_bytes_per_s, "B/s", 4, a, sizeof a);
        unit_format_short(hw_link_bytes_per_s_per_direction(hw), "B/s", 4, b, sizeof b);
        printf("  interconnect  %s, %s %s (%s per direction)\n", hw->link_kind, a,
               hw->link_direction == HW_LINK_PER_DIRECTION ? "per direction" : "bidirectional", b);
        if (hw->link_per_peer_bytes_per_s > 0) {
            unit_format_short(hw->link_per_peer_bytes_per_s, "B/s", 4, a, sizeof a);
            printf("  full mesh     %s to each peer per direction: a group of n devices "
                   "reaches (n-1) x that, at most the total\n",
                   a);
        }
    }
    if (hw->tdp_w > 0)
        printf("  TDP           %.0f W\n", hw->tdp_w);
    for (int i = 0; i < hw->n_purchase; i++)
        printf("  price         $%.0f (%s%s%s)\n", hw->purchase[i].usd,
               hw->purchase[i].basis ? hw->purchase[i].basis : "",
               hw->purchase[i].basis ? ", " : "", hw->purchase[i].date);
    for (int i = 0; i < hw->n_cloud; i++)
        printf("  cloud         $%.3f per device-hour at %s (%s%s%s)\n", hw->cloud[i].usd_per_hour,
               hw->cloud[i].provider, hw->cloud[i].basis ? hw->cloud[i].basis : "",
               hw->cloud[i].basis ? ", " : "", hw->cloud[i].date);
    if (hw->server_devices > 0)
        printf("  server        %d device%s per server or baseboard\n", hw->server_devices,
               hw->server_devices == 1 ? "" : "s");
    if (hw->notes)
        printf("  notes         %s\n", hw->notes);
    printf("  sources:\n");
    for (int i = 0; i < hw->n_sources; i++)
        printf("    %s: %s\n", hw->source_keys[i], hw->source_texts[i]);
    for (int i = 0; i < hw->n_purchase; i++)
        printf("    price.purchase[%d]: %s\n", i, hw->purchase[i].source);
    for (int i = 0; i < hw->n_cloud; i++)
        printf("    price.cloud[%d]: %s\n", i, hw->cloud[i].source);
}

static void
show_model(const struct mdl_profile *m)
{
    struct mdl_params p;
    mdl_param_count(m, &p);
    char a[64];
    printf("%s (%s%s%s)\n", m->id, m->model_type ? "model_type " : "",
           m->model_type ? m->model_type : "", "");
    printf("  layers %ld, hidden %ld, MLP %ld, vocab %ld, max context ", m->num_layers,
           m->hidden_size, m->intermediate_size, m->vocab_size);
    if (m->max_position_embeddings > 0)
        printf("%ld\n", m->max_position_embeddings);
    else
        printf("not given (no max_position_embeddings)\n");
    if (mdl_is_mla(m))
        printf("  attention     MLA: %ld heads, latent KV %ld + rope %ld, q rank %ld\n",
               m->num_heads, m->kv_lora_rank, m->qk_rope_head_dim, m->q_lora_rank);
    else
        printf("  attention     %ld query heads, %ld KV heads (%s), head dim %ld\n", m->num_heads,
               m->num_kv_heads,
               m->num_kv_heads == 1             ? "MQA"
               : m->num_kv_heads < m->num_heads ? "GQA"
                                                : "MHA",
               m->head_dim);
    if (m->attn_output_gate)
        printf("                gated (q_proj also gives an output gate: twice the queries' "
               "width)\n");
    long kv_layers = mdl_kv_layers(m), lin_layers = mdl_linear_layers(m);
    if (lin_layers > 0) {
        unit_format_short(mdl_linear_state_bytes_per_seq(m), "B", 4, a, sizeof a);
        if (m->lin_kind == MDL_LINEAR_MAMBA2)
            printf("  linear attn   Mamba-2 on %ld of %ld layers: %ld heads of %ld, %ld groups, "
                   "state size %ld, conv %ld; state %s a sequence at any length (%s)\n",
                   lin_layers, m->num_layers, m->lin_value_heads, m->lin_value_dim,
                   m->lin_key_heads, m->lin_key_dim, m->lin_conv_kernel, a,
                   m->lin_state_elem_bytes == 4.0 ? "float32 recurrent state"
                                                  : "16-bit recurrent state");
        else
            printf("  linear attn   gated DeltaNet on %ld of %ld layers: %ld value heads, %ld "
                   "query/key heads, dims %ld/%ld, conv %ld; state %s a sequence at any length "
                   "(%s)\n",
                   lin_layers, m->num_layers, m->lin_value_heads, m->lin_key_heads, m->lin_key_dim,
                   m->lin_value_dim, m->lin_conv_kernel, a,
                   m->lin_state_elem_bytes == 4.0 ? "float32 recurrent state"
                                                  : "16-bit recurrent state");
    }
    if (m->part_layers) {
        long mixers = 0, mlps = 0;
        for (long l = 0; l < m->num_layers; l++) {
            mixers += mdl_layer_has_mixer(m, l) && !mdl_layer_has_ffn(m, l);
            mlps += mdl_layer_has_ffn(m, l) && !mdl_layer_has_mixer(m, l);
        }
        printf("  blocks        each layer one part: %ld mixers alone (%ld attention, %ld %s), %ld "
               "MLPs alone%s\n",
               mixers, kv_layers, lin_layers, mdl_linear_kind_name(m), mlps,
               m->mlp_ungated ? " (up, relu^2, down: no gate)" : "");
    } else if (m->mlp_ungated) {
        printf("  MLP           up, relu^2, down (no gate)\n");
    }
    if (m->sliding_window > 0) {
        long windowed = 0;
        for (long l = 0; l < m->num_layers; l++)
            windowed += mdl_layer_window(m, l) > 0;
        printf("  %s %ld tokens on %ld of %ld layers\n",
               m->chunked_attention ? "chunked attention (costed as a window)" : "sliding window",
               m->sliding_window, windowed, m->num_layers);
    }
    if (m->n_experts > 0) {
        long dense = 0;
        for (long l = 0; l < m->num_layers; l++)
            dense += mdl_layer_has_ffn(m, l) && !mdl_layer_is_moe(m, l);
        printf("  experts       %ld routed (%ld per token), %ld shared", m->n_experts,
               m->experts_per_token, m->n_shared_experts);
        if (m->shared_intermediate_size > 0)
            printf(" (MLP %ld%s)", m->shared_intermediate_size,
                   m->shared_expert_gate ? ", gated" : "");
        printf(", expert MLP %ld, %ld dense layers\n",
               m->moe_intermediate_size > 0 ? m->moe_intermediate_size : m->intermediate_size,
               dense);
    }
    printf("  parameters    %.4g total", p.total);
    if (m->published_params > 0)
        printf(" (published %.4g: %+.2f%%)", m->published_params,
               100.0 * (p.total - m->published_params) / m->published_params);
    printf("\n");
    if (p.active < p.total)
        printf("  active/token  %.4g\n", p.active);
    printf("    embedding %.4g, attention %.4g, MLP %.4g, experts %.4g, shared %.4g, router "
           "%.4g, norms %.4g, LM head %.4g%s\n",
           p.embedding, p.attention, p.mlp_dense, p.mlp_experts, p.mlp_shared, p.router, p.norms,
           p.lm_head, m->tie_word_embeddings ? " (tied to the embedding)" : "");
    static const enum dtype W[] = {DT_BF16, DT_FP8, DT_INT4, DT_Q4_K_M};
    printf("  weights      ");
    for (size_t i = 0; i < ARRAY_SIZE(W); i++) {
        unit_format_short(p.total * dtype_bytes(W[i]), "B", 4, a, sizeof a);
        printf(" %s %s%s", dtype_name(W[i]), a, i + 1 < ARRAY_SIZE(W) ? "," : "\n");
    }
    unit_format_short(mdl_kv_bytes_per_token(m, 2.0), "B", 4, a, sizeof a);
    printf("  KV cache      %s per token at 16 bits (%.0f elements per token per layer", a,
           mdl_kv_elems_per_token_layer(m));
    if (kv_layers < m->num_layers)
        printf(", on the %ld attention layers", kv_layers);
    printf(")\n");
    if (m->n_sources > 0) {
        printf("  sources:\n");
        for (int i = 0; i < m->n_sources; i++)
            printf("    %s: %s\n", m->source_keys[i], m->source_texts[i]);
    }
}

static int
run(int argc, char **argv)
{
    struct cli_ctx c;
    int rc;
    if (cli_begin(&c, &cmd_show, CLI_POSITIONAL, argc, argv, &rc) != 0)
        return rc;
    const struct cli_args a = c.a;
    if (a.n_pos != 2 || (strcmp(a.pos[0], "gpu") != 0 && strcmp(a.pos[0], "model") != 0))
        return cli_usage_error(&cmd_show, "expected 'gpu ID' or 'model ID'");
    if (strcmp(a.pos[0], "gpu") == 0) {
        struct hw_profile *hw = cli_load_hw(a.pos[1]);
        if (!hw)
            return CLI_FAIL;
        show_gpu(hw);
        hw_free(hw);
    } else {
        struct mdl_profile *m = cli_load_model(a.pos[1]);
        if (!m)
            return CLI_FAIL;
        show_model(m);
        mdl_free(m);
    }
    return cli_finish(CLI_OK);
}

const struct cli_cmd cmd_show = {"show",
                                 "show a GPU or model profile and what follows from it",
                                 "roofline show gpu|model ID|PATH",
                                 run,
                                 NULL,
                                 0};
