/* roofline explain prefill|decode: a worked example, step by step: each formula, the values with
 * units, the result; then the dominant term, intensity against the ridge, and a conclusion. */
#include "cli/caldata.h"
#include "cli/cli.h"
#include "cli/explain.h"
#include "cli/fit_advice.h"
#include "cli/report_parts.h"
#include "io/profiles.h"
#include "render/charts.h"
#include "render/report.h"
#include "util/array.h"
#include "util/units.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#define TOPICS_IS_PHASE(t) (strcmp((t), "prefill") == 0 || strcmp((t), "decode") == 0)

static const char *
peak_label(enum dtype d)
{
    return d == DT_FP32                   ? "fp32 vector"
           : d == DT_INT8 || d == DT_INT4 ? "integer tensor"
                                          : "tensor";
}

/* Memory verdict shared by both paths; returns true when it fits. */
static bool
explain_fit(const struct hw_profile *hw, double params, enum dtype w, double weight_bytes,
            double other_bytes, const char *other_what, const struct roof_config *cfg)
{
    double cap = hw_memory_bytes(hw);
    double total = weight_bytes + other_bytes;
    char said[160] = "";
    if (hw->memory_reported_bytes > 0)
        snprintf(said, sizeof said,
                 "The memory is the %.1f GiB the device reports to software (its datasheet says "
                 "%s).\n",
                 hw->memory_reported_bytes / UNIT_GIB, Q(hw->memory_capacity_bytes, "B", 3));
    if (total <= cap) {
        if (other_bytes > 0)
            printf("Memory: %s of weights + %s of %s = %s in %s: fits, %s free.\n",
                   Q(weight_bytes, "B", 4), Q(other_bytes, "B", 3), other_what, Q(total, "B", 4),
                   Q(cap, "B", 3), Q(cap - total, "B", 3));
        else
            printf("Memory: %s of weights in %s: fits, %s left for the KV cache and "
                   "activations.\n",
                   Q(weight_bytes, "B", 4), Q(cap, "B", 3), Q(cap - total, "B", 3));
        fputs(said, stdout);
        return true;
    }
    printf("WARNING: this does not fit: %s of weights%s%s%s%s need more than the %s of memory "
           "on the %s.\n",
           Q(weight_bytes, "B", 4), other_bytes > 0 ? " + " : "",
           other_bytes > 0 ? Q(other_bytes, "B", 3) : "", other_bytes > 0 ? " of " : "",
           other_bytes > 0 ? other_what : "", Q(cap, "B", 3), hw->name);
    fputs(said, stdout);
    fprintf(stderr, "warning: %s does not fit in %s on %s\n", Q(total, "B", 4), Q(cap, "B", 3),
            hw->id);
    (void)params;
    (void)w;
    cli_fit_advice(stdout, cfg, "");
    return false;
}

static int
explain_nominal(const struct hw_profile *hw, double params, const struct roof_config *cfg)
{
    bool pre = cfg->phase == ROOF_PREFILL;
    double tokens = pre ? cfg->batch * cfg->prompt : cfg->batch;
    struct roof_nominal n;
    roof_nominal(hw, params, cfg->weights, cfg->act, tokens, &n);
    const char *w = dtype_name(cfg->weights);
    if (pre)
        printf("Prefill pass on the %s (%s): a nominal dense model of %s parameters, %s weights, "
               "batch %.0f, prompt %.0f tokens.\n",
               hw->name, hw->id, ex_count(params), w, cfg->batch, cfg->prompt);
    else
        printf("Decode step on the %s (%s): a nominal dense model of %s parameters, %s weights, "
               "batch %.0f.\n",
               hw->name, hw->id, ex_count(params), w, cfg->batch);
    printf("The pass reads every weight once from memory and does one multiply-add (2 FLOPs) per "
           "weight for each of its %.0f token%s.\n\n",
           tokens, tokens == 1 ? "" : "s");
    printf("Step 1. Bytes read from memory\n");
    printf("  bytes = parameters x bytes per weight\n");
    printf("        = %s x %g B (%s)\n", ex_sci(params), dtype_bytes(cfg->weights), w);
    printf("        = %s\n", Q(n.weight_bytes, "B", 3));
    printf("Step 2. Memory time\n");
    printf("  t_memory = bytes / memory bandwidth\n");
    printf("           = %s / %s\n", Q(n.weight_bytes, "B", 3),
           Q(n.bandwidth_bytes_per_s, "B/s", 4));
    printf("           = %s\n", T(n.memory_time_s));
    printf("Step 3. FLOPs\n");
    printf("  FLOPs = 2 x parameters x tokens\n");
    printf("        = 2 x %s x %.0f\n", ex_sci(params), tokens);
    printf("        = %s\n", Q(n.flops, "FLOP", 3));
    printf("Step 4. Compute time\n");
    printf("  t_compute = FLOPs / peak (%s %s, dense)\n", dtype_name(n.roof_dtype),
           peak_label(n.roof_dtype));
    printf("            = %s / %s\n", Q(n.flops, "FLOP", 3), Q(n.peak_flops_per_s, "FLOP/s", 4));
    printf("            = %s\n", T(n.compute_time_s));
    printf("Step 5. %s\n", pre ? "Pass time (the time to first token, before any queueing)"
                               : "Step time (the inter-token latency, ITL)");
    printf("  t = max(t_memory, t_compute) = max(%s, %s) = %s\n", T(n.memory_time_s),
           T(n.compute_time_s), T(n.time_s));
    printf("Step 6. Compute utilisation\n");
    printf("  utilisation = t_compute / t = %s / %s = %.1f%%\n", T(n.compute_time_s), T(n.time_s),
           100.0 * n.utilisation);
    printf("Step 7. Tokens per second\n");
    if (pre)
        printf("  tokens/s = tokens / t = %.0f / %s = %.0f tokens/s\n", tokens, T(n.time_s),
               n.tokens_per_s);
    else
        printf("  per sequence = 1 / t = 1 / %s = %.0f tokens/s; all %.0f sequences: %.0f "
               "tokens/s\n",
               T(n.time_s), 1.0 / n.time_s, cfg->batch, n.tokens_per_s);
    printf("\n");
    printf("Arithmetic intensity = FLOPs / bytes = %s / %s = %.2f FLOP/B\n", Q(n.flops, "FLOP", 3),
           Q(n.weight_bytes, "B", 3), n.intensity);
    printf("Ridge point (%s) = peak / bandwidth = %s / %s = %.0f FLOP/B\n",
           dtype_name(n.roof_dtype), Q(n.peak_flops_per_s, "FLOP/s", 4),
           Q(n.bandwidth_bytes_per_s, "B/s", 4), n.ridge);
    double ratio = n.bound == ROOF_BOUND_MEMORY ? n.memory_time_s / n.compute_time_s
                                                : n.compute_time_s / n.memory_time_s;
    if (n.bound == ROOF_BOUND_MEMORY)
        printf("Dominant term: memory. The intensity is %.0fx below the ridge point, so t_memory "
               "is %.0fx t_compute and the compute units idle %.1f%% of the time.\n",
               n.ridge / n.intensity, ratio, 100.0 * (1.0 - n.utilisation));
    else
        printf("Dominant term: compute. The intensity is %.1fx above the ridge point; t_compute is "
               "%.1fx t_memory.\n",
               n.intensity / n.ridge, ratio);
    /* prefill turns compute-bound when 2 N P / peak = N b / bw, i.e. P = ridge x b / 2 */
    double p_star = n.ridge * dtype_bytes(cfg->weights) / 2.0 / cfg->batch;
    printf("Crossover: the pass turns compute-bound when 2 x N x tokens / peak = N x bytes per "
           "weight / bandwidth, i.e. tokens = ridge x bytes per weight / 2 = %.0f x %g / 2 = %.0f "
           "tokens%s.\n",
           n.ridge, dtype_bytes(cfg->weights), n.ridge * dtype_bytes(cfg->weights) / 2.0,
           cfg->batch > 1 ? " in the batch" : "");
    (void)p_star;
    printf("\n");
    bool fits = explain_fit(hw, params, cfg->weights, n.weight_bytes, 0, NULL, cfg);
    printf("\nConclusion: %s of a %s-parameter model at %s on the %s is %s-bound: %s%s, %.0f "
           "tokens/s%s.\n",
           pre ? "a prefill pass" : "each decode step", ex_count(params), w, hw->name,
           roof_bound_name(n.bound), T(n.time_s), pre ? " to first token" : " per token",
           pre ? n.tokens_per_s : 1.0 / n.time_s, pre ? "" : " per sequence");
    if (!fits)
        printf("(These are the numbers the bandwidth would give; the weights do not fit, so this "
               "device cannot run it as configured.)\n");
    if (n.bound == ROOF_BOUND_MEMORY)
        printf("Only fewer bytes per weight (quantization) or more bandwidth make it faster%s.\n",
               pre ? "; a longer prompt costs almost nothing until the crossover"
                   : "; batching "
                     "serves more sequences with the same bytes");
    return fits ? 0 : 1;
}

static double
weight_gemm_flops(const struct roof_result *r)
{
    double f = 0;
    for (int i = 0; i < ROOF_OP_COUNT; i++)
        if (r->ops[i].present && r->ops[i].is_matmul && r->ops[i].bytes_weights > 0)
            f += r->ops[i].flops;
    return f;
}

/* What the engine is expected to reach (its calibrated kernel model) for cfg: *out and the 80%
 * band's log offsets for cfg's phase (0, 0 when there is none). Prints the reason and returns -1
 * when it cannot. */
static int
expected_time(const struct roof_config *cfg, const char *engine, struct roof_result *out,
              double band_out[2])
{
    struct roof_config e = *cfg;
    double band[4][2] = {{0}};
    if (caldata_tuning(cfg->hw, engine, NULL, &e.tuning, band) != 0)
        return -1;
    if (roof_evaluate(&e, out) != 0 || !(out->time_s > 0) || !isfinite(out->time_s)) {
        fprintf(stderr, "error: the %s kernel model cannot evaluate this configuration\n", engine);
        return -1;
    }
    int ph = cfg->phase == ROOF_PREFILL ? PRED_PREFILL : PRED_DECODE;
    band_out[0] = band[ph][0];
    band_out[1] = band[ph][1];
    return 0;
}

/* The answer first: the bound the worked steps derive and the time the engine is expected to
 * reach (engine NULL: --engine datasheet, the bound alone). */
static void
explain_answer(const struct roof_result *bound, const char *engine, bool engine_named,
               const struct roof_result *expected, bool pre)
{
    const char *what = pre ? "TTFT" : "ITL";
    if (engine)
        printf("Answer: %s %s expected with the %s engine (its calibrated kernel model%s); the "
               "bound the physics allows (the datasheet roofline) is %s, derived step by step "
               "below.\n\n",
               what, T(expected->time_s), engine, engine_named ? "" : ", the default",
               T(bound->time_s));
    else
        printf("Answer: %s %s, the bound the physics allows (%s), derived step by step below.\n\n",
               what, T(bound->time_s),
               engine_named ? "the datasheet roofline; --engine datasheet, so no engine time"
                            : "the roofline of this host's measured roofs, a profile written by "
                              "roofline bench");
}

/* On Apple devices, the weight kernel llama.cpp's Metal backend runs for this pass's tokens
 * (docs/physics.md#metal-kernels): one line, none for other backends. */
static void
explain_metal(const struct roof_result *r, bool pre)
{
    const struct roof_config *cfg = &r->cfg;
    const struct roof_metal *mt = &cfg->tuning.metal;
    if (!(mt->mm_above > 0))
        return;
    double T = r->tokens;
    double ub = cfg->tuning.ubatch_tokens;
    if (pre && ub > 0 && T > ub)
        T = ub; /* the tokens of one micro-batch */
    /* a mix's attention and dense matrices are stored in its other-tensors format (q8_0 in
     * mxfp4_moe), which picks the kernel */
    enum dtype w = dtype_part_format(cfg->weights, DT_PART_OTHER);
    struct roof_metal_choice mc;
    roof_metal_choose(mt, w, T, &mc);
    printf("  Metal (llama.cpp on Apple GPUs): a weight GEMM of %.0f token%s", mc.columns,
           mc.columns == 1 ? "" : "s");
    if (dtype_is_mix(cfg->weights))
        printf(" on the %s attention and dense matrices", dtype_name(w));
    printf(" runs %s", roof_metal_kernel_name(mc.kernel));
    if (mc.kernel == ROOF_METAL_MM)
        printf(" in tiles of %.0f tokens: it pays the arithmetic of %.0f tokens, reads the "
               "weights once and dequantizes them %.0f time%s (once per tile of tokens).\n",
               mt->mm_tile, mc.paid_columns, mc.dequant_passes, mc.dequant_passes == 1 ? "" : "s");
    else if (mc.kernel == ROOF_METAL_MV_EXT)
        printf(", %.0f tokens per sweep: the weights are read %.0f time%s.\n", mc.group,
               mc.weight_reads, mc.weight_reads == 1 ? "" : "s");
    else
        printf(", one token per sweep: the weights are read %.0f time%s.\n", mc.weight_reads,
               mc.weight_reads == 1 ? "" : "s");
    double cores = cfg->tuning.compute_units;
    if (mc.kernel == ROOF_METAL_MM && mt->occ_n > 0 && mt->mm_simdgroups > 0 && cores > 0) {
        double full = ceil(mt->core_simds[mt->occ_n - 1] / mt->mm_simdgroups);
        printf("  A core reaches its full rate only with %.0f of these threadgroups (%.0f "
               "simdgroups each) at once: a GEMM of fewer than %.0f tiles (%.0f x %.0f cores) "
               "runs its busiest core at %.0f%% with 1, %.0f%% with 2.\n",
               full, mt->mm_simdgroups, full * cores, full, cores,
               100.0 * roof_metal_core_util(mt, mt->mm_simdgroups),
               100.0 * roof_metal_core_util(mt, 2.0 * mt->mm_simdgroups));
    }
    const struct mdl_profile *m = cfg->model;
    /* decode attention: the vector kernel reads the KV once per query head through L2 */
    double hq = (double)m->num_heads, hkv = (double)m->num_kv_heads;
    if (!pre && roof_flash_attention(cfg) && hkv > 0 && !mdl_is_mla(m) &&
        roof_metal_fa_vec_s(cfg->hw, &cfg->tuning, 1, 1, hq, hkv, (double)m->head_dim, 1, 1) > 0) {
        printf("  Its decode attention runs flash_attn_ext_vec, one threadgroup per query head: "
               "the KV cache crosses the GPU's L2 (%.2f TB/s) %.0f times, once per query head "
               "of a KV head",
               cfg->hw->cache_bandwidth_bytes_per_s[HW_L2] / 1e12, hq / hkv);
        double f = cfg->tuning.metal.fa_vec_kv_fraction;
        if (f > 0)
            printf(", and the kernel streams it from memory at %.0f GB/s (%.0f%% of %.0f GB/s), "
                   "the slower of the two",
                   f * cfg->hw->memory_bandwidth_bytes_per_s / 1e9, 100.0 * f,
                   cfg->hw->memory_bandwidth_bytes_per_s / 1e9);
        printf(" (docs/physics.md#metal-kernels).\n");
    }
    if (!(mt->mm_id_min > 0) || !(m->n_experts > 0) || !(m->experts_per_token > 0))
        return;
    struct roof_moe_choice me;
    double E = (double)m->n_experts, k = (double)m->experts_per_token;
    roof_moe_choose(&cfg->tuning, E, k, T, &me);
    if (me.kernel == ROOF_MOE_METAL_MV_ID)
        printf("  Its routed experts (MUL_MAT_ID) run %s, one mat-vec per (token, expert) pair: "
               "%.0f expert matrices read per GEMM, where uniform routing touches %.1f of %.0f "
               "(docs/physics.md#moe-kernels).\n",
               roof_moe_kernel_name(me.kernel), me.expert_reads, me.distinct, E);
    else if (me.kernel == ROOF_MOE_METAL_MM_ID)
        printf("  Its routed experts (MUL_MAT_ID) run %s: each of the %.1f of %.0f experts "
               "touched (uniform routing) read once, in tiles of %.0f of its tokens; the "
               "arithmetic of %.0f token-expert columns is paid for %.0f pairs "
               "(docs/physics.md#moe-kernels).\n",
               roof_moe_kernel_name(me.kernel), me.distinct, E, me.tile, me.paid_columns, T * k);
}

/* vLLM's Marlin MoE (docs/physics.md#moe-kernels): one line where the engine runs it. */
static void
explain_marlin(const struct roof_result *r)
{
    const struct roof_config *cfg = &r->cfg;
    const struct mdl_profile *m = cfg->model;
    if (!roof_moe_marlin(cfg))
        return;
    enum dtype we = dtype_part_format(cfg->weights, DT_PART_EXPERTS);
    const struct roof_op_result *g = &r->ops[ROOF_OP_MLP_GATE];
    printf("  Its routed experts run vLLM's Marlin MoE: issue-bound at %.2f x the %s peak (%s), "
           "and not hidden behind their bytes, so each expert GEMM takes bytes / bandwidth + "
           "FLOPs / that rate (here %s of the pass)",
           cfg->tuning.marlin_moe_vs_peak, dtype_name(g->roof_dtype),
           Q(g->peak_flops_per_s, "FLOP/s", 3),
           Q(g->time_s + r->ops[ROOF_OP_MLP_UP].time_s + r->ops[ROOF_OP_MLP_DOWN].time_s, "s", 3));
    if (we == DT_MXFP4) {
        double h = (double)m->hidden_size,
               I = (double)(m->moe_intermediate_size > 0 ? m->moe_intermediate_size
                                                         : m->intermediate_size) /
                   (cfg->tp > 1 ? cfg->tp : 1);
        double hp, Ip;
        roof_marlin_dims(we, h, ceil(I), &hp, &Ip);
        printf("; its MXFP4 experts are stored padded, %.0f x %.0f for %.0f x %.0f", hp, Ip, h,
               ceil(I));
    }
    printf(" (docs/physics.md#moe-kernels).\n");
}

/* What the engine is expected to reach, beside the bound the worked steps derived. */
static void
explain_expected(const struct roof_result *bound, const char *engine, bool engine_named,
                 const struct roof_result *r, const double band[2], bool pre)
{
    printf(
        "\nExpected time, with the %s engine%s (its calibrated kernel model, docs/calibration.md): "
        "%s %s, %.1f tokens/s, %.2f x the bound of %s above",
        engine, engine_named ? "" : ", the default", pre ? "TTFT" : "ITL", T(r->time_s),
        r->tokens_per_s_total, r->time_s / bound->time_s, T(bound->time_s));
    if (band[0] != 0 || band[1] != 0)
        printf("; 80%% band %s-%s", T(r->time_s * exp(band[0])), T(r->time_s * exp(band[1])));
    printf(".\n  The bound is what the physics allows; the engine adds per-kernel and per-step "
           "overheads and reaches a fraction of the peaks (--engine NAME for another engine, "
           "--engine datasheet for the bound alone).\n");
    explain_metal(r, pre);
    explain_marlin(r);
}

/* The worked steps of prefill/decode on the bound `cfg` (the datasheet roofline); `ecfg` (NULL:
 * none) is the same configuration tuned for `engine`, whose crossovers are given beside the
 * bound's (the handout's chart draws the engine's). */
static int
explain_model(const struct roof_config *cfg, const struct roof_config *ecfg, const char *engine)
{
    const struct hw_profile *hw = cfg->hw;
    const struct mdl_profile *m = cfg->model;
    bool pre = cfg->phase == ROOF_PREFILL;
    struct roof_result r;
    if (roof_evaluate(cfg, &r) != 0) {
        fprintf(stderr, "error: cannot evaluate this configuration\n");
        return -1;
    }
    struct mdl_params p;
    mdl_param_count(m, &p);
    double wb = dtype_bytes(cfg->weights), kvb = dtype_bytes(cfg->kv);
    printf("%s of %s on the %s (%s): weights %s, activations %s, KV cache %s, batch %.0f, %s "
           "%.0f tokens.\n\n",
           pre ? "Prefill pass" : "Decode step", m->id, hw->name, hw->id, dtype_name(cfg->weights),
           dtype_name(cfg->act), dtype_name(cfg->kv), cfg->batch, pre ? "prompt" : "context",
           pre ? cfg->prompt : cfg->context);
    const char *att = mdl_is_mla(m)                    ? "MLA"
                      : m->num_kv_heads == 1           ? "MQA"
                      : m->num_kv_heads < m->num_heads ? "GQA"
                                                       : "MHA";
    printf("Model: %ld layers, hidden %ld, MLP %ld, %ld query heads and %ld KV heads (%s) of "
           "dimension %ld, vocabulary %ld",
           m->num_layers, m->hidden_size, m->intermediate_size, m->num_heads, m->num_kv_heads, att,
           mdl_qk_head_dim(m), m->vocab_size);
    if (m->n_experts > 0)
        printf(", %ld experts (%ld per token)", m->n_experts, m->experts_per_token);
    printf(".\n");
    printf("  parameters = %s%s%s%s; ", ex_sci(p.total),
           m->published_params > 0 ? " (published " : "",
           m->published_params > 0 ? ex_count(m->published_params) : "",
           m->published_params > 0 ? ")" : "");
    if (dtype_is_mix(cfg->weights)) {
        /* each tensor class at its own width (docs/physics.md#moe-and-gguf-mixed-precision) */
        enum dtype fe = dtype_part_format(cfg->weights, DT_PART_EXPERTS);
        enum dtype fr = dtype_part_format(cfg->weights, DT_PART_ROUTER);
        enum dtype fo = dtype_part_format(cfg->weights, DT_PART_OTHER);
        enum dtype fq = dtype_part_format(cfg->weights, DT_PART_ATTN_QKV);
        enum dtype fa = dtype_part_format(cfg->weights, DT_PART_ATTN_O);
        enum dtype fh = dtype_part_format(cfg->weights, DT_PART_HEAD);
        printf("weights = experts %s x %g B (%s) + router %s x %g B (%s)", ex_sci(p.mlp_experts),
               dtype_bytes(fe), dtype_name(fe), ex_sci(p.router), dtype_bytes(fr), dtype_name(fr));
        double rest = p.total - p.mlp_experts - p.router;
        if (fq != fo || fa != fo || fh != fo) {
            /* attention and head stored apart from the rest (NVIDIA's NVFP4 checkpoints) */
            double qkv = p.attention - p.attn_out, head = p.embedding + p.lm_head;
            printf(" + attention q/kv %s x %g B (%s) + o_proj %s x %g B (%s) + embedding and "
                   "head %s x %g B (%s)",
                   ex_sci(qkv), dtype_bytes(fq), dtype_name(fq), ex_sci(p.attn_out),
                   dtype_bytes(fa), dtype_name(fa), ex_sci(head), dtype_bytes(fh), dtype_name(fh));
            rest -= p.attention + head;
        }
        printf(" + the rest %s x %g B (%s) = %s\n\n", ex_sci(rest), dtype_bytes(fo), dtype_name(fo),
               Q(mdl_weight_bytes(m, cfg->weights), "B", 4));
    } else {
        printf("weights = %s x %g B = %s\n\n", ex_sci(p.total), wb, Q(p.total * wb, "B", 4));
    }

    double tokens = r.tokens;
    printf("Step 1. Weight bytes read\n");
    printf("  Every weight matrix is read once per pass; the embedding table is only gathered "
           "(%.0f row%s)%s.\n",
           tokens, tokens == 1 ? "" : "s",
           m->n_experts > 0 ? "; experts are read only if a token is routed to them" : "");
    printf("  bytes_weights = %s\n", Q(r.bytes_weights, "B", 4));
    double kv_tok = mdl_kv_bytes_per_token(m, kvb);
    printf("Step 2. KV-cache bytes\n");
    if (mdl_is_mla(m))
        printf("  KV per token = layers x (latent rank + rope dim) x bytes = %ld x (%ld + %ld) x "
               "%g B = %s\n",
               mdl_kv_layers(m), m->kv_lora_rank, m->qk_rope_head_dim, kvb, Q(kv_tok, "B", 3));
    else
        printf("  KV per token = layers x 2 x KV heads x head dim x bytes = %ld x 2 x %ld x %ld x "
               "%g B = %s%s\n",
               mdl_kv_layers(m), m->num_kv_heads, m->head_dim, kvb, Q(kv_tok, "B", 3),
               mdl_linear_layers(m) > 0 ? " (the attention layers; the linear-attention "
                                          "ones read and write a fixed state instead)"
                                        : "");
    double kv_read = 0, kv_write = 0;
    for (int i = 0; i < ROOF_OP_COUNT; i++) {
        kv_read += r.ops[i].bytes_kv_read;
        kv_write += r.ops[i].bytes_kv_write;
    }
    /* a linear-attention layer's state, read and written once a sequence (not a KV cache) */
    const struct roof_op_result *lin = &r.ops[ROOF_OP_LINEAR_ATTN];
    double st_read = lin->present ? lin->bytes_kv_read : 0.0;
    double st_write = lin->present ? lin->bytes_kv_write : 0.0;
    kv_read -= st_read;
    kv_write -= st_write;
    if (pre)
        printf("  written = batch x prompt x KV per token = %.0f x %.0f x %s = %s; read back by "
               "attention: %s\n",
               cfg->batch, cfg->prompt, Q(kv_tok, "B", 3), Q(kv_write, "B", 3), Q(kv_read, "B", 3));
    else
        printf("  read = batch x tokens attended x KV per token = %.0f x %.0f x %s = %s%s; "
               "written: %s\n",
               cfg->batch, cfg->context + 1, Q(kv_tok, "B", 3), Q(kv_read, "B", 3),
               m->sliding_window > 0 ? " (sliding-window layers read at most the window)" : "",
               Q(kv_write, "B", 3));
    if (st_read > 0)
        printf("  the linear-attention layers' state, read and written once a sequence whatever "
               "its length: batch x state = %.0f x %s = %s read, %s written\n",
               cfg->batch, Q(st_read / cfg->batch, "B", 3), Q(st_read, "B", 3),
               Q(st_write, "B", 3));
    printf("Step 3. Activation bytes (into and out of each kernel): %s\n", Q(r.bytes_act, "B", 3));
    printf("Step 4. Memory time\n");
    printf("  t_memory = bytes / bandwidth = (%s + %s + %s) / %s = %s\n",
           Q(r.bytes_weights, "B", 4), Q(r.bytes_kv, "B", 3), Q(r.bytes_act, "B", 3),
           Q(hw->memory_bandwidth_bytes_per_s, "B/s", 4),
           T(r.bytes / hw->memory_bandwidth_bytes_per_s));
    double gemm = weight_gemm_flops(&r);
    double attn = r.ops[ROOF_OP_ATTN_SCORE].flops + r.ops[ROOF_OP_ATTN_AV].flops;
    enum hw_vector_origin vo;
    printf("Step 5. FLOPs\n");
    printf("  weight GEMMs = 2 x weights used x tokens ~= %s\n", Q(gemm, "FLOP", 3));
    double lin_flops = lin->present ? lin->flops : 0.0;
    char lin_part[96] = "";
    if (lin_flops > 0)
        snprintf(lin_part, sizeof lin_part, " linear attention (the recurrence) = %s;",
                 Q(lin_flops, "FLOP", 3));
    printf("  attention (QK^T and PV) = %s;%s norms, softmax, activations: %s\n",
           Q(attn, "FLOP", 3), lin_part, Q(r.flops - gemm - attn - lin_flops, "FLOP", 3));
    printf("  t_compute = FLOPs / peak, each kernel on its roof (GEMMs: %s %s at %s) = %s\n",
           dtype_name(r.gemm_dtype), peak_label(r.gemm_dtype),
           Q(r.gemm_peak_flops_per_s, "FLOP/s", 4), T(r.compute_time_s));
    if (r.gemm_dtype != dtype_gemm_compute(cfg->weights, cfg->act))
        printf("  (the %s has no %s roof: the GEMMs run on its %s units)\n", hw->name,
               dtype_name(dtype_gemm_compute(cfg->weights, cfg->act)), dtype_name(r.gemm_dtype));
    else if (dtype_is_weight_only(cfg->weights))
        printf("  (%s is a weight-only format: weights are dequantized to %s, so the %s roof "
               "applies)\n",
               dtype_name(cfg->weights), dtype_name(cfg->act), dtype_name(r.gemm_dtype));
    if (hw_vector_peak(hw, &vo) > 0 && vo != HW_VECTOR_DATASHEET) {
        char how[256];
        hw_vector_describe(hw, how, sizeof how);
        printf("  (norms, softmax, residuals and activations run on the vector units at %s: %s)\n",
               Q(hw_vector_peak(hw, NULL), "FLOP/s", 4), how);
    }
    printf("Step 6. %s\n", pre ? "Pass time (time to first token, before queueing)"
                               : "Step time (inter-token latency)");
    printf("  t = sum over kernels of max(t_compute, t_memory) = %s\n", T(r.time_s));
    printf("  (a kernel waits for its own bottleneck; idle units in one kernel do not help the "
           "next)\n");
    printf("Step 7. Tokens per second\n");
    if (pre)
        printf("  prompt tokens/s = %.0f / %s = %.0f\n", tokens, T(r.time_s), r.tokens_per_s_total);
    else
        printf("  per sequence = 1 / %s = %.1f tokens/s; total = %.0f x %.1f = %.1f tokens/s\n",
               T(r.time_s), r.tokens_per_s_per_seq, cfg->batch, r.tokens_per_s_per_seq,
               r.tokens_per_s_total);
    printf("\n");
    double ai = r.flops / r.bytes;
    double ridge = r.gemm_peak_flops_per_s / hw->memory_bandwidth_bytes_per_s;
    printf("Arithmetic intensity = %s / %s = %.2f FLOP/B; ridge point (%s) = %.0f FLOP/B.\n",
           Q(r.flops, "FLOP", 3), Q(r.bytes, "B", 3), ai, dtype_name(r.gemm_dtype), ridge);
    double share_c = r.time_in_compute_bound_s / r.time_s;
    printf("Dominant term: %s. %.0f%% of the time is in memory-bound kernels, %.0f%% in "
           "compute-bound ones; compute utilisation %.1f%%.\n",
           roof_bound_name(r.bound), 100.0 * r.time_in_memory_bound_s / r.time_s, 100.0 * share_c,
           100.0 * r.compute_utilisation);
    /* top three kernels */
    int top[3] = {-1, -1, -1};
    for (int k = 0; k < 3; k++)
        for (int i = 0; i < ROOF_OP_COUNT; i++) {
            if (!r.ops[i].present || i == top[0] || i == top[1])
                continue;
            if (top[k] < 0 || r.ops[i].time_s > r.ops[top[k]].time_s)
                top[k] = i;
        }
    printf("Where the time goes:");
    for (int k = 0; k < 3; k++)
        if (top[k] >= 0)
            printf(" %s %.0f%% (%s-bound)%s", roof_op_name((enum roof_op)top[k]),
                   100.0 * r.ops[top[k]].time_s / r.time_s,
                   r.ops[top[k]].compute_time_s >= r.ops[top[k]].memory_time_s ? "compute"
                                                                               : "memory",
                   k < 2 ? "," : ".\n");
    double crit, cross, ecrit = NAN, ecross = NAN;
    int rc_crit = roof_critical_batch(cfg, &crit);
    int rc_cross = roof_prefill_crossover(cfg, &cross);
    if (ecfg && roof_critical_batch(ecfg, &ecrit) != 0)
        ecrit = NAN;
    if (ecfg && roof_prefill_crossover(ecfg, &ecross) != 0)
        ecross = NAN;
    /* the engine's crossover beside the bound's when they differ once rounded */
    char eb[96] = "", ep[96] = "";
    if (rc_crit == 0 && isfinite(ecrit) && lround(ecrit) != lround(crit))
        snprintf(eb, sizeof eb, "; about %.0f with the %s engine's efficiencies", ecrit, engine);
    if (rc_cross == 0 && isfinite(ecross) && lround(ecross) != lround(cross))
        snprintf(ep, sizeof ep, " (on the bound; about %.0f with the %s engine's efficiencies)",
                 ecross, engine);
    if (rc_crit == 0)
        printf("Decode's weight GEMMs turn compute-bound at a batch of about %.0f (solved: compute "
               "time = memory time%s).\n",
               crit, eb);
    if (rc_cross == 0)
        printf("Prefill (batch %.0f) turns compute-bound from a prompt of about %.0f tokens%s.\n",
               cfg->batch, cross, ep);
    printf("\n");
    /* name each part: the engine reserve is not KV cache */
    char other_what[192], kvq[32], actq[32], resq[32];
    snprintf(kvq, sizeof kvq, "%s", Q(r.mem.kv_bytes, "B", 3));
    snprintf(actq, sizeof actq, "%s", Q(r.mem.act_bytes, "B", 3));
    snprintf(resq, sizeof resq, "%s", Q(r.mem.reserve_bytes, "B", 3));
    if (r.mem.reserve_bytes > 0)
        snprintf(other_what, sizeof other_what,
                 "KV cache (%s), activations (%s) and engine reserve (%s)", kvq, actq, resq);
    else
        snprintf(other_what, sizeof other_what, "KV cache (%s) and activations (%s)", kvq, actq);
    bool fits =
        explain_fit(hw, p.total, cfg->weights, r.mem.weights_bytes,
                    r.mem.kv_bytes + r.mem.act_bytes + r.mem.reserve_bytes, other_what, cfg);
    long maxb = roof_max_batch(cfg);
    if (fits || r.mem.weights_bytes < hw_memory_bytes(hw))
        printf("Largest batch that fits at this %s: %ld.\n", pre ? "prompt" : "context", maxb);
    printf("\nConclusion: %s of %s on the %s takes at least %s (the bound) and is %s-bound%s.\n",
           pre ? "the prefill pass" : "each decode step", m->id, hw->name, T(r.time_s),
           roof_bound_name(r.bound),
           r.bound == ROOF_BOUND_MEMORY
               ? (pre ? ": the prompt is too short to reuse each weight enough"
                      : ": the time is the bytes read divided by the bandwidth")
               : (pre ? ": the time is the FLOPs divided by the peak"
                      : ": batching has used up the bandwidth headroom"));
    return fits ? 0 : 1;
}

static const struct cli_opt OPTS[] = {
    OPT_VALUE("gpu", "ID|PATH", "the device (default h100-sxm)"),
    OPT_VALUE("model", "ID|PATH", "the model (topics have a default)"),
    OPT_VALUE("params", "N", "prefill|decode: a nominal dense model of N parameters (8B, 70B)"),
    CLI_ENGINE_OPTS,
    OPT_VALUE("block-size", "N", "kv-cache: tokens per KV block (default 16)"),
    OPT_VALUE("draft", "MODEL", "speculative: the draft model"),
    OPT_VALUE("draft-k", "K", "speculative: tokens drafted per step (default 4)"),
    OPT_VALUE("accept", "P", "speculative: acceptance rate per token (default 0.7)"),
    OPT_VALUE("draft-cost", "R", "speculative: draft cost relative to the target (default 0.05)"),
    OPT_VALUE("hit", "F", "prefix-cache: fraction of the prompt already cached (default 0.5)"),
    OPT_VALUE("output", "N", "disaggregation: output tokens per request (default 256)"),
    OPT_VALUE("rate", "R", "disaggregation: requests per second (default 10)"),
    OPT_VALUE("prefill-batch", "N", "disaggregation: prompts per prefill pass (default 1)"),
    OPT_VALUE("pdf", "FILE.pdf", "the same worked example as a handout with its chart"),
    OPT_VALUE("paper", "a4|letter", "with --pdf: the paper size (default a4)"),
};

static int run(int argc, char **argv);

const struct cli_cmd cmd_explain = {
    "explain", "a worked example, step by step: why prefill and decode take the time they do",
    "roofline explain prefill|decode [--gpu ID|PATH] (--model ID|PATH | --params N) [options]\n"
    "       roofline explain kv-cache|batching|quantization|moe|tp|speculative|prefix-cache|\n"
    "         disaggregation [--gpu ID] [--model ID] [options]",
    run, CLI_OPTS(OPTS)};

static const struct {
    const char *name;
    int (*run)(const struct roof_config *, const struct cli_args *);
    const char *default_model;
} TOPICS[] = {
    {"kv-cache", ex_kv_cache, "llama-3-8b"},
    {"batching", ex_batching, "llama-3-8b"},
    {"quantization", ex_quantization, "llama-3-8b"},
    {"moe", ex_moe, "mixtral-8x7b"},
    {"tp", ex_tp, "llama-3-70b"},
    {"speculative", ex_speculative, "llama-3-8b"},
    {"prefix-cache", ex_prefix_cache, "llama-3-8b"},
    {"disaggregation", ex_disaggregation, "llama-3-8b"},
};
#define N_TOPICS ARRAY_SIZE(TOPICS)

static int
run_topic(const struct cli_args *a, int topic)
{
    if (cli_has(a, "params")) {
        fprintf(stderr, "error: explain %s works on a real model: use --model\n",
                TOPICS[topic].name);
        return CLI_USAGE;
    }
    struct hw_profile *hw = cli_load_hw(cli_has(a, "gpu") ? cli_get(a, "gpu") : "h100-sxm");
    if (!hw)
        return CLI_FAIL;
    struct mdl_profile *m =
        cli_load_model(cli_has(a, "model") ? cli_get(a, "model") : TOPICS[topic].default_model);
    if (!m) {
        hw_free(hw);
        return CLI_FAIL;
    }
    struct roof_config cfg;
    roof_config_init(&cfg, hw, m, ROOF_DECODE);
    cfg.context = 1024;
    cfg.prompt = 1024;
    int rc = CLI_OK;
    /* every topic's times come from the default engine's calibrated kernel model (the
     * simulator's step costs are the same model), the bound alone with --engine datasheet */
    if ((rc = cli_engine_opts(a, &cfg)) != 0) {
        /* rc says usage or failure */
    } else if (ex_options_check(a) != 0) {
        rc = CLI_USAGE; /* before the engine line */
    } else {
        cli_engine_line(stdout, cli_engine(a, hw), cli_has(a, "engine"));
        int trc = TOPICS[topic].run(&cfg, a);
        if (trc != 0)
            rc = trc == -2 ? CLI_USAGE : CLI_FAIL;
    }
    hw_free(hw);
    mdl_free(m);
    return cli_finish(rc);
}

static int
run_text(const struct cli_args *ap)
{
    struct cli_ctx c;
    memset(&c, 0, sizeof c);
    c.cmd = &cmd_explain;
    c.a = *ap;
    int rc = CLI_OK;
    const struct cli_args a = c.a;
    int topic = -1;
    if (a.n_pos == 1)
        for (size_t i = 0; i < N_TOPICS; i++)
            if (strcmp(a.pos[0], TOPICS[i].name) == 0)
                topic = (int)i;
    if (a.n_pos != 1 ||
        (topic < 0 && strcmp(a.pos[0], "prefill") != 0 && strcmp(a.pos[0], "decode") != 0))
        return cli_usage_error(&cmd_explain,
                               "say which topic: prefill, decode, kv-cache, batching, "
                               "quantization, moe, tp, speculative, prefix-cache, "
                               "disaggregation");
    if (topic >= 0)
        return run_topic(&a, topic);
    enum roof_phase phase = strcmp(a.pos[0], "prefill") == 0 ? ROOF_PREFILL : ROOF_DECODE;
    if (cli_has(&a, "model") == cli_has(&a, "params"))
        return cli_usage_error(&cmd_explain, "give exactly one of --model and --params");
    const char *gpu = cli_has(&a, "gpu") ? cli_get(&a, "gpu") : "h100-sxm";
    struct hw_profile *hw = c.hw = cli_load_hw(gpu);
    rc = CLI_FAIL;
    if (!hw)
        goto out;
    struct mdl_profile *m = NULL;
    if (cli_has(&a, "model") && !(m = c.model = cli_load_model(cli_get(&a, "model"))))
        goto out;
    struct roof_config cfg;
    roof_config_init(&cfg, hw, m, phase);
    if (!m)
        cfg.prompt = 512;
    double params = 0;
    if ((rc = cli_engine_opts(&a, &cfg)) != 0)
        goto out;
    if (cli_count(&a, "params", &params) != 0) {
        rc = CLI_USAGE;
    } else if (cli_has(&a, "params") && !(params >= 1e6 && params <= 1e14)) {
        /* a nominal model from 1M to 100T parameters (1e-300 gave inf tokens/s) */
        fprintf(stderr, "error: --params: expected from 1M to 100T parameters, got '%s'\n",
                cli_get(&a, "params"));
        rc = CLI_USAGE;
    } else if (m) {
        /* the worked steps derive the bound (the datasheet roofline); the answer line and the
         * last paragraph give the time the engine is expected to reach beside it */
        const char *engine = cli_engine(&a, hw);
        struct roof_config bound, ecfg = cfg; /* ecfg keeps the engine's tuning */
        roof_config_init(&bound, hw, m, phase);
        /* the bound of the engine's kernels: its attention (llama.cpp's unfused) stays */
        cfg.flash_attention = roof_flash_attention(&cfg);
        cfg.tuning = bound.tuning;
        struct roof_result rb, re = {0};
        double band[2] = {0, 0};
        if (roof_evaluate(&cfg, &rb) != 0) {
            fprintf(stderr, "error: cannot evaluate this configuration\n");
            rc = CLI_FAIL;
            goto out;
        }
        if (engine && expected_time(&cfg, engine, &re, band) != 0) {
            rc = CLI_FAIL;
            goto out;
        }
        explain_answer(&rb, engine, cli_has(&a, "engine"), &re, phase == ROOF_PREFILL);
        if (explain_model(&cfg, engine ? &ecfg : NULL, engine) < 0)
            rc = CLI_FAIL;
        else if (engine)
            explain_expected(&rb, engine, cli_has(&a, "engine"), &re, band, phase == ROOF_PREFILL);
    } else {
        printf("Times: the datasheet roofline bound, what the physics allows (a nominal --params "
               "model has no architecture for an engine's kernel model; --model M adds the time "
               "the engine is expected to reach).\n\n");
        explain_nominal(hw, params, &cfg);
    }
out:
    return cli_end(&c, rc);
}

/* The chart that goes with a topic, or -1. */
static int
topic_chart(const char *topic)
{
    static const struct {
        const char *topic;
        enum chart_kind kind;
    } K[] = {
        {"prefill", CHART_KIND_PREFILL},       {"decode", CHART_KIND_DECODE},
        {"kv-cache", CHART_KIND_MEMORY},       {"batching", CHART_KIND_BATCH},
        {"quantization", CHART_KIND_ROOFLINE}, {"moe", CHART_KIND_ROOFLINE},
        {"tp", CHART_KIND_ROOFLINE},           {"prefix-cache", CHART_KIND_PREFILL},
        {"disaggregation", CHART_KIND_REGIME},
    };
    for (size_t i = 0; i < sizeof K / sizeof K[0]; i++)
        if (strcmp(K[i].topic, topic) == 0)
            return (int)K[i].kind;
    return -1;
}

/* The memory one device of `c` needs at its batch, and whether it fits; -1 when `c` cannot be
 * evaluated (e.g. the tp degree does not divide the heads). */
static int
split_fits(const struct roof_config *c, struct roof_memory *mem)
{
    if (roof_config_problem(c))
        return -1;
    roof_memory(c, mem);
    return mem->fits ? 1 : 0;
}

/* tp and moe explain a model split across devices: their handout's chart is drawn for the split
 * that holds the model (--tp when given; else the smallest of tp 1, 2, 4, 8 that fits, the
 * degrees tp's Step 3 tabulates), with a caption (markup) that says which. When no split holds
 * it, the single device stays, and its chart and the caption say it does not fit. */
static void
split_chart(struct roof_config *cfg, const char *topic, bool tp_given, char *caption, size_t size)
{
    struct roof_config one = *cfg;
    struct roof_memory m1, m;
    one.tp = 1;
    one.pp = 1;
    if (tp_given || split_fits(&one, &m1) != 0)
        return; /* the user's split, or one device holds it: the chart is what the text times */
    char need[32], cap[32], per[32];
    ex_qty(need, sizeof need, m1.total_bytes, "B", 3);
    ex_qty(cap, sizeof cap, m1.capacity_bytes, "B", 3);
    for (int n = 2; n <= 8; n *= 2) {
        struct roof_config c = one;
        c.tp = n;
        if (split_fits(&c, &m) != 1)
            continue;
        ex_qty(per, sizeof per, m.total_bytes, "B", 3);
        *cfg = c;
        if (strcmp(topic, "tp") == 0)
            snprintf(caption, size,
                     "Drawn at tp %d (%d x %s, %s per device), the smallest split in Step 3 that "
                     "holds %s: one device would need %s, more than its %s.",
                     n, n, cfg->hw->id, per, cfg->model->id, need, cap);
        else
            snprintf(caption, size,
                     "Drawn at tp %d (%d x %s, %s per device), the smallest split that holds %s: "
                     "one device would need %s, more than its %s. The table's times are one "
                     "device's, as if it held the model.",
                     n, n, cfg->hw->id, per, cfg->model->id, need, cap);
        return;
    }
    snprintf(caption, size,
             "<b>Does not fit:</b> %s needs %s on one %s (%s), and no split up to tp 8 holds it; "
             "the chart shows one device to say so.",
             cfg->model->id, need, cfg->hw->id, cap);
}

/* explain TOPIC --pdf FILE: the text output, captured, set as a handout with its chart. */
static int
run_pdf(const struct cli_args *a, int argc, char **argv)
{
    const char *out = cli_get(a, "pdf");
    size_t ol = strlen(out);
    enum rep_paper paper = REP_A4;
    if (ol < 4 || strcasecmp(out + ol - 4, ".pdf") != 0) {
        fprintf(stderr, "error: --pdf: '%s' does not end in .pdf\nusage: %s\n", out,
                cmd_explain.usage);
        return CLI_USAGE;
    }
    if (cli_has(a, "paper") && rep_paper_parse(cli_get(a, "paper"), &paper) != 0) {
        fprintf(stderr, "error: --paper: expected a4 or letter, got '%s'\n", cli_get(a, "paper"));
        return CLI_USAGE;
    }
    /* the worked example is the text command's output, captured from stdout */
    FILE *cap = tmpfile();
    int saved = cap ? dup(STDOUT_FILENO) : -1;
    if (!cap || saved < 0 || fflush(stdout) != 0 || dup2(fileno(cap), STDOUT_FILENO) < 0) {
        fprintf(stderr, "error: cannot capture the explanation: %s\n", strerror(errno));
        if (saved >= 0)
            close(saved);
        if (cap)
            fclose(cap);
        return CLI_FAIL;
    }
    int rc = run_text(a);
    fflush(stdout);
    clearerr(stdout);
    dup2(saved, STDOUT_FILENO);
    close(saved);
    char *text = NULL;
    long len = ftell(cap);
    if (rc == CLI_OK && len >= 0 && (text = calloc((size_t)len + 1, 1)) != NULL) {
        rewind(cap);
        if (fread(text, 1, (size_t)len, cap) != (size_t)len)
            rc = CLI_FAIL;
    } else if (rc == CLI_OK) {
        rc = CLI_FAIL;
    }
    fclose(cap);
    if (rc != CLI_OK) {
        free(text);
        return rc;
    }
    /* the profiles again, for the chart and the provenance */
    const char *topic = a->pos[0];
    struct hw_profile *hw = cli_load_hw(cli_has(a, "gpu") ? cli_get(a, "gpu") : "h100-sxm");
    const char *mid = cli_get(a, "model");
    for (size_t i = 0; !mid && i < N_TOPICS; i++)
        if (strcmp(TOPICS[i].name, topic) == 0)
            mid = TOPICS[i].default_model;
    struct mdl_profile *m = hw && mid ? cli_load_model(mid) : NULL;
    struct rep_doc *d = rep_new(paper);
    struct chart *chart = NULL;
    rc = CLI_FAIL;
    if (!hw || (mid && !m) || !d)
        goto done;
    struct roof_config cfg;
    roof_config_init(&cfg, hw, m, strcmp(topic, "prefill") == 0 ? ROOF_PREFILL : ROOF_DECODE);
    if (!TOPICS_IS_PHASE(topic)) {
        cfg.context = 1024;
        cfg.prompt = 1024;
    }
    if (cli_engine_opts(a, &cfg) != 0)
        goto done;
    if (strcmp(topic, "kv-cache") == 0 && !cli_has(a, "context"))
        cfg.context = EX_KV_CONTEXT; /* the chart at the text's context: 104 sequences, not 416 */
    int kind = topic_chart(topic);
    char caption[512] = "";
    if (m && (strcmp(topic, "tp") == 0 || strcmp(topic, "moe") == 0))
        split_chart(&cfg, topic, cli_has(a, "tp"), caption, sizeof caption);
    if (m && kind >= 0) {
        struct chart_request req;
        memset(&req, 0, sizeof req);
        req.kind = (enum chart_kind)kind;
        req.hws[0] = hw;
        req.n_hws = 1;
        req.base = cfg;
        if (kind == CHART_KIND_ROOFLINE || kind == CHART_KIND_REGIME) {
            req.batches[0] = cfg.batch;
            req.n_batches = 1;
        }
        struct err_list errs = {0};
        chart = chart_build(&req, &errs);
        cli_print_errs(&errs); /* a chart that cannot be drawn leaves the handout without it */
        err_list_release(&errs);
    }
    const struct hw_profile *hws[1] = {hw};
    struct rp_ctx ctx = {.hws = hws,
                         .n_hws = 1,
                         .model = m,
                         .base = cfg,
                         .engine = cli_engine(a, hw),
                         .argc = argc,
                         .argv = argv,
                         .command = "explain"};
    if (rp_handout(d, topic, text, chart, caption[0] ? caption : NULL, &ctx) != 0)
        goto done;
    chart = NULL; /* the document owns it */
    struct err_list errs = {0};
    struct rep_stats st;
    if (rep_write(d, out, &st, &errs) == 0) {
        rc = CLI_OK;
        printf("wrote %s (%d pages)\n", out, st.pages);
    }
    cli_print_errs(&errs);
    err_list_release(&errs);
done:
    chart_free(chart);
    rep_free(d);
    mdl_free(m);
    hw_free(hw);
    free(text);
    return cli_finish(rc);
}

static int
run(int argc, char **argv)
{
    struct cli_ctx c;
    int rc;
    if (cli_begin(&c, &cmd_explain, CLI_POSITIONAL | CLI_NO_FORMAT, argc, argv, &rc) != 0)
        return rc;
    if (cli_has(&c.a, "pdf") && c.a.n_pos == 1)
        return run_pdf(&c.a, argc, argv);
    if (cli_has(&c.a, "paper"))
        return cli_usage_error(&cmd_explain, "--paper goes with --pdf FILE");
    return run_text(&c.a);
}
