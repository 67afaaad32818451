/* The explain topics beyond prefill/decode: KV cache, batching, quantization, MoE, tensor
 * parallelism, speculative decoding, prefix caching, disaggregation. Each prints the formula,
 * the values with units and the result, step by step, for the chosen GPU and model. */
#include "cli/explain.h"
#include "cli/fit_advice.h"

#include "core/serving.h"
#include "io/profiles.h"
#include "util/array.h"
#include "util/strs.h"
#include "util/units.h"

#include <math.h>
#include <string.h>

static double
opt_num(const struct cli_args *a, const char *name, double def)
{
    const char *v = cli_get(a, name);
    double x;
    if (!v)
        return def;
    if (str_to_double(v, &x) != 0)
        return NAN;
    return x;
}

static int
bad_opt(const char *name, const char *v, const char *want)
{
    fprintf(stderr, "error: --%s: expected %s, got '%s'\n", name, want, v ? v : "");
    return -2; /* a usage error: exit 2 */
}

static double
kv_read(const struct roof_result *r)
{
    double b = 0;
    for (int i = 0; i < ROOF_OP_COUNT; i++)
        b += r->ops[i].bytes_kv_read;
    return b;
}

static void
header(const char *topic, const struct roof_config *c)
{
    printf("%s: %s on the %s (%s), weights %s, KV cache %s.\n\n", topic, c->model->id, c->hw->name,
           c->hw->id, dtype_name(c->weights), dtype_name(c->kv));
}

int
ex_kv_cache(const struct roof_config *cfg, const struct cli_args *a)
{
    const struct mdl_profile *m = cfg->model;
    if (ex_options_check(a) != 0)
        return -2;
    double block = opt_num(a, "block-size", 16);
    double ctx = cli_has(a, "context") ? cfg->context : EX_KV_CONTEXT;
    header("KV cache", cfg);
    double kvb = dtype_bytes(cfg->kv);
    double elems = mdl_kv_elems_per_token_layer(m);
    printf("Step 1. KV bytes per token and layer\n");
    if (mdl_is_mla(m))
        printf("  MLA caches one latent vector per token: (kv_lora_rank + rope dim) x bytes = (%ld "
               "+ %ld) x %g B = %s\n",
               m->kv_lora_rank, m->qk_rope_head_dim, kvb, Q(elems * kvb, "B", 3));
    else
        printf("  K and V for every KV head: 2 x KV heads x head dim x bytes = 2 x %ld x %ld x %g "
               "B = %s%s\n",
               m->num_kv_heads, m->head_dim, kvb, Q(elems * kvb, "B", 3),
               m->num_kv_heads < m->num_heads
                   ? (m->num_kv_heads == 1 ? " (MQA: one KV head for all queries)"
                                           : " (GQA: query heads share KV heads)")
                   : " (MHA)");
    long kv_layers = mdl_kv_layers(m);
    printf("Step 2. Per token, all layers\n");
    printf("  %s x %ld layers = %s per token%s\n", Q(elems * kvb, "B", 3), kv_layers,
           Q(mdl_kv_bytes_per_token(m, kvb), "B", 3),
           mdl_linear_layers(m) > 0 ? " (the attention layers; the linear-attention ones keep no "
                                      "KV cache)"
                                    : "");
    struct roof_kv_plan p;
    if (roof_kv_plan(cfg, ctx, block, &p) != 0)
        return -1;
    printf("Step 3. Per sequence at %.0f tokens, in blocks of %.0f tokens\n", ctx, block);
    printf("  blocks = ceil(tokens / block) per layer%s; bytes = %s per sequence\n",
           m->sliding_window > 0 ? " (sliding-window layers keep at most the window)" : "",
           Q(p.bytes_per_seq, "B", 3));
    if (p.state_bytes_per_seq > 0)
        printf("  of which the %ld linear-attention (%s) layers' state, the same at any length: "
               "%ld x (%ld heads x %ld x %ld x %g B + the convolution's %ld past inputs) = %s "
               "(a device's share)\n",
               mdl_linear_layers(m), mdl_linear_kind_name(m), mdl_linear_layers(m),
               m->lin_value_heads, m->lin_key_dim, m->lin_value_dim, mdl_linear_state_elem_bytes(m),
               m->lin_conv_kernel - 1, Q(p.state_bytes_per_seq, "B", 3));
    /* no pool to divide when the weights alone overflow the device (it printed negative
     * memory, then advice about KV formats) */
    struct roof_fit_advice fit;
    if (roof_fit_advise(cfg, &fit) == 0 && !fit.fits) {
        printf("Step 4. The pool left for the KV cache: none\n");
        cli_fit_advice(stdout, cfg, "  ");
        printf("\nConclusion: %s does not fit on one %s, so there is no KV cache pool to size; "
               "see the changes above.\n",
               m->id, cfg->hw->id);
        return 0;
    }
    printf("Step 4. The pool left for the KV cache\n");
    printf("  pool = capacity - weights - engine reserve - activations = %s - %s - %s - %s = %s\n",
           Q(p.capacity_bytes, "B", 3), Q(p.weights_bytes, "B", 4), Q(p.reserve_bytes, "B", 3),
           Q(p.capacity_bytes - p.weights_bytes - p.reserve_bytes - p.pool_bytes, "B", 3),
           Q(p.pool_bytes, "B", 3));
    printf("  (the reserve defaults to 10%% of memory, as vLLM's gpu_memory_utilization 0.9; "
           "--reserve changes it)\n");
    if (cfg->hw->memory_reported_bytes > 0)
        printf("  (capacity: the %.2f GiB the %s reports to software, which engines size their "
               "memory from; its datasheet says %s)\n",
               cfg->hw->memory_reported_bytes / UNIT_GIB, cfg->hw->id,
               Q(cfg->hw->memory_capacity_bytes, "B", 3));
    printf("Step 5. Concurrent sequences\n");
    if (p.ranks > 1) /* data-parallel attention: every rank's devices hold their own */
        printf(
            "  max = ranks x floor(pool / (KV per sequence + activations per sequence)) = %.0f x "
            "floor(%s / (%s + %s)) = %.0f (each data-parallel attention rank keeps its own "
            "sequences' cache)\n",
            p.ranks, Q(p.pool_bytes, "B", 3), Q(p.bytes_per_seq, "B", 3),
            Q(p.act_bytes_per_seq, "B", 3), p.max_seqs);
    else
        printf(
            "  max = floor(pool / (KV per sequence + activations per sequence)) = floor(%s / (%s "
            "+ %s)) = %.0f\n",
            Q(p.pool_bytes, "B", 3), Q(p.bytes_per_seq, "B", 3), Q(p.act_bytes_per_seq, "B", 3),
            p.max_seqs);
    printf("Step 6. The same in other KV formats\n");
    printf("  %-6s %14s %16s %12s\n", "format", "per token", "per sequence", "max seqs");
    static const enum dtype KV[] = {DT_FP16, DT_FP8, DT_INT8, DT_INT4};
    for (size_t i = 0; i < 4; i++) {
        struct roof_config c = *cfg;
        c.kv = KV[i];
        struct roof_kv_plan q;
        roof_kv_plan(&c, ctx, block, &q);
        printf("  %-6s %14s %16s %12.0f\n", dtype_name(KV[i]),
               Q(mdl_kv_bytes_per_token(m, dtype_bytes(KV[i])), "B", 3), Q(q.bytes_per_seq, "B", 3),
               q.max_seqs);
    }
    struct roof_config c = *cfg;
    double cross;
    int rc = roof_kv_weight_crossover(&c, &cross);
    printf("Step 7. KV reads against weight reads in a decode step (batch %.0f)\n", c.batch);
    if (rc == 0)
        printf("  reading the KV cache overtakes reading the weights from a context of %.0f tokens "
               "(solved: KV bytes read = weight bytes read)\n",
               cross);
    else
        printf("  the KV reads stay below the weight reads at every context (windowed layers cap "
               "them)\n");
    printf("\nConclusion: at %.0f tokens each sequence holds %s of KV cache, so %.0f fit beside "
           "the weights; a smaller KV format or fewer KV heads buys concurrency.\n",
           ctx, Q(p.bytes_per_seq, "B", 3), p.max_seqs);
    return 0;
}

int
ex_batching(const struct roof_config *cfg, const struct cli_args *a)
{
    (void)a;
    header("Batching", cfg);
    struct roof_config c = *cfg;
    c.phase = ROOF_DECODE;
    c.batch = 1;
    struct roof_result r1;
    if (roof_evaluate(&c, &r1) != 0)
        return -1;
    double kv1 = kv_read(&r1);
    printf("Step 1. One decode step at batch 1 (context %.0f)\n", c.context);
    printf("  bytes = weights + KV = %s + %s; t = %s; %.1f tokens/s\n", Q(r1.bytes_weights, "B", 4),
           Q(kv1, "B", 3), T(r1.time_s), r1.tokens_per_s_total);
    printf("Step 2. At batch B the weights are read once for all B sequences, the KV cache once "
           "per sequence\n");
    printf(
        "  t(B) ~ (weights + B x KV per sequence) / bandwidth while memory-bound; tokens/s = B / "
        "t(B)\n");
    long maxb = roof_max_batch(&c);
    double crit = NAN;
    roof_critical_batch(&c, &crit);
    printf("Step 3. The trade-off\n");
    printf("  %6s %10s %12s %12s %8s\n", "batch", "ITL", "tok/s/seq", "tok/s total", "bound");
    for (long b = 1; b <= (maxb > 0 ? maxb : 1); b *= 2) {
        c.batch = (double)b;
        struct roof_result r;
        if (roof_evaluate(&c, &r) != 0)
            break;
        printf("  %6ld %10s %12.1f %12.0f %8s\n", b, T(r.time_s), r.tokens_per_s_per_seq,
               r.tokens_per_s_total, roof_bound_name(r.bound));
    }
    printf("Step 4. Limits\n");
    printf("  memory: at most %ld sequences of %.0f tokens fit; compute: the weight GEMMs turn "
           "compute-bound at a batch of about %.0f\n",
           maxb, c.context, crit);
    printf("\nConclusion: batching multiplies total throughput almost for free while the weights "
           "dominate the bytes; each user's speed falls as the KV reads grow, and memory caps the "
           "batch at %ld here%s.\n",
           maxb,
           isfinite(crit) && crit < maxb ? ", after the compute roof"
                                         : ", before the compute roof");
    return 0;
}

int
ex_quantization(const struct roof_config *cfg, const struct cli_args *a)
{
    (void)a;
    printf("Quantization: %s on the %s (%s).\n\n", cfg->model->id, cfg->hw->name, cfg->hw->id);
    struct mdl_params p;
    mdl_param_count(cfg->model, &p);
    printf("Step 1. Bytes per weight\n");
    printf("  weights = parameters x bits / 8; GGUF blocks carry a 16-bit scale per 32 weights: "
           "q8_0 = 8.5 bits, q4_0 = 4.5, q4_1 = 5.0, q4_k_m ~ 4.85\n");
    printf("Step 2. Which compute roof applies\n");
    printf("  weight-only formats (int4, GGUF) are dequantized to the activation type: the fp16 "
           "roof, plus ~3-4 vector ops per weight per pass;\n  W8A8 uses the int8 roof and FP8 x "
           "FP8 the fp8 roof (docs/physics.md#data-types)\n");
    printf("Step 3. Decode (batch %.0f, context %.0f) and prefill (prompt %.0f) by format\n",
           cfg->batch, cfg->context, cfg->prompt);
    printf("  %-7s %5s %10s %12s %11s %9s %10s %5s\n", "weights", "bits", "bytes", "roof", "ITL",
           "tok/s", "TTFT", "fits");
    static const struct {
        enum dtype w, act;
    } F[] = {{DT_BF16, DT_BF16}, {DT_FP8, DT_FP8},   {DT_INT8, DT_INT8},   {DT_INT8, DT_FP16},
             {DT_Q8_0, DT_FP16}, {DT_INT4, DT_FP16}, {DT_Q4_K_M, DT_FP16}, {DT_Q4_0, DT_FP16}};
    for (size_t i = 0; i < ARRAY_SIZE(F); i++) {
        struct roof_config c = *cfg;
        c.weights = F[i].w;
        c.act = F[i].act;
        c.kv = roof_default_kv(F[i].w);
        struct roof_result d, pf;
        c.phase = ROOF_DECODE;
        if (roof_evaluate(&c, &d) != 0)
            continue;
        c.phase = ROOF_PREFILL;
        roof_evaluate(&c, &pf);
        char roof[32];
        snprintf(roof, sizeof roof, "%s%s", dtype_name(d.gemm_dtype),
                 F[i].w == DT_INT8 && F[i].act == DT_FP16 ? "(W8A16)" : "");
        printf("  %-7s %5.2f %10s %12s %11s %9.1f %10s %5s\n", dtype_name(F[i].w),
               dtype_bits(F[i].w), Q(p.total * dtype_bytes(F[i].w), "B", 3), roof, T(d.time_s),
               d.tokens_per_s_total, T(pf.time_s), d.mem.fits ? "yes" : "no");
    }
    printf("\nConclusion: decode time follows the bytes per weight (halve the bits, nearly halve "
           "the ITL); prefill follows the compute roof, which weight-only formats do not raise.\n");
    return 0;
}

int
ex_moe(const struct roof_config *cfg, const struct cli_args *a)
{
    (void)a;
    const struct mdl_profile *m = cfg->model;
    if (m->n_experts <= 0) {
        fprintf(stderr,
                "error: explain moe needs a mixture-of-experts model (mixtral-8x7b, "
                "deepseek-v3), not '%s'\n",
                m->id);
        return -1;
    }
    header("Mixture of experts", cfg);
    struct mdl_params p;
    mdl_param_count(m, &p);
    double E = (double)m->n_experts, k = (double)m->experts_per_token;
    if (!cli_fit_advice(stdout, cfg, "")) {
        fprintf(stderr, "warning: %s in %s does not fit on one %s: the times below assume it did\n",
                cfg->model->id, dtype_name(cfg->weights), cfg->hw->id);
        printf("\n");
    }
    printf("Step 1. Parameters\n");
    printf("  total %s; each token uses %ld of %ld routed experts%s: %s active\n",
           ex_count(p.total), m->experts_per_token, m->n_experts,
           m->n_shared_experts > 0 ? " plus the shared expert" : "", ex_count(p.active));
    printf("Step 2. Experts a batch touches\n");
    printf("  with B tokens each choosing %g of %g experts: E[distinct] = E x (1 - (1 - k/E)^B)\n",
           k, E);
    int ep = cfg->ep > 1 ? cfg->ep : 0;
    if (ep)
        printf("  expert parallelism (--ep %d): each of %d groups holds %g whole experts and waits "
               "for the busiest; its touched experts are the expected largest of %d "
               "Binomial(%g, 1 - (1 - k/E)^B) counts (docs/physics.md#expert-parallelism), where "
               "tensor parallelism alone reads E[distinct] / %d experts' worth\n",
               ep, ep, E / ep, ep, E / ep, ep);
    printf("  %6s %10s", "batch", "experts");
    if (ep)
        printf(" %13s", "busiest group");
    printf(" %14s %10s %12s\n", "weights read", "ITL", "tok/s total");
    struct roof_config c = *cfg;
    c.phase = ROOF_DECODE;
    for (int b = 1; b <= 256; b *= 2) {
        c.batch = b;
        struct roof_result r;
        if (roof_evaluate(&c, &r) != 0)
            break;
        printf("  %6d %10.2f", b, E * (1.0 - pow(1.0 - k / E, b)));
        if (ep)
            printf(" %13.2f", roof_ep_touched_max(E, k, b, ep));
        printf(" %14s %10s %12.0f\n", Q(r.bytes_weights, "B", 3), T(r.time_s),
               r.tokens_per_s_total);
    }
    printf("Step 3. Router\n");
    printf("  a GEMM of tokens x hidden x experts: %ld x %ld weights per MoE layer, negligible "
           "bytes\n",
           m->hidden_size, m->n_experts);
    printf("\nConclusion: at batch 1 decode reads only the active experts (%s of %s), so it runs "
           "like a %s model; as the batch grows it reads all experts and the weight bytes approach "
           "the full %s.\n",
           ex_count(p.active), ex_count(p.total), ex_count(p.active), ex_count(p.total));
    return 0;
}

int
ex_tp(const struct roof_config *cfg, const struct cli_args *a)
{
    (void)a;
    header("Tensor parallelism", cfg);
    const struct hw_profile *hw = cfg->hw;
    double bw = hw_link_bytes_per_s_per_direction(hw);
    if (bw <= 0) {
        fprintf(stderr, "error: %s has no interconnect in its profile\n", hw->id);
        return -1;
    }
    double lat = roof_link_latency_s(cfg);
    double a_b = roof_hidden_bytes(cfg->act), h = (double)cfg->model->hidden_size;
    printf("Step 1. Split\n");
    printf("  each of N devices holds 1/N of every weight matrix (heads, MLP columns, vocabulary) "
           "and does 1/N of the FLOPs (Megatron-LM)\n");
    printf("Step 2. Communication\n");
    printf("  two all-reduces per layer of tokens x hidden x bytes = %.0f x %.0f x %g B = %s (the "
           "residual stream: 8-bit GEMMs return 16-bit outputs)\n",
           cfg->batch, h, a_b, Q(cfg->batch * h * a_b, "B", 3));
    printf("  ring all-reduce: t = 2 (N-1)/N x bytes / link bandwidth per direction + 2 (N-1) x "
           "latency, with %s per direction (%s) and %s per step\n",
           Q(bw, "B/s", 3), hw->link_kind, T(lat));
    if (cfg->tuning.custom_allreduce_max_bytes > 0) {
        double bar = cfg->tuning.custom_allreduce_latency_s > 0
                         ? cfg->tuning.custom_allreduce_latency_s
                         : lat;
        printf("  below %s on NVLink/xGMI at 2, 4, 6 or 8 devices the engine's own all-reduce: one "
               "stage (N-1) x bytes / bandwidth, or two 2 (N-1)/N x bytes / bandwidth, + 2 "
               "barriers of %s (docs/physics.md#custom-all-reduce)\n",
               Q(cfg->tuning.custom_allreduce_max_bytes, "B", 3), T(bar));
    }
    int dp = cfg->attn_dp > 1 ? cfg->attn_dp : 1;
    if (dp > 1) {
        double rank = ceil(cfg->batch / dp);
        printf("  with data-parallel attention (--attn-dp %d) each of %d ranks of N / %d devices "
               "attends its own sequences (docs/physics.md#data-parallel-attention): per layer an "
               "all-gather of every rank's rows padded to the busiest's before the MLP and a "
               "reduce-scatter after it, together one ring all-reduce of %d x %.0f rows x %.0f x "
               "%g B = %s%s\n",
               dp, dp, dp, dp, rank, h, a_b, Q(dp * rank * h * a_b, "B", 3),
               cfg->tp / dp > 1 ? ", and an all-reduce of a rank's rows among its devices" : "");
    }
    printf("Step 3. Decode (batch %.0f, context %.0f)\n", cfg->batch, cfg->context);
    if (dp > 1) /* the attention's split beside the collectives of a layer */
        printf("  %4s %9s %10s %14s %10s %12s %14s %5s\n", "N", "attention", "ITL", "per layer",
               "on links", "tok/s total", "memory/device", "fits");
    else
        printf("  %4s %10s %14s %10s %12s %14s %5s\n", "N", "ITL", "all-reduce", "on links",
               "tok/s total", "memory/device", "fits");
    /* each N with tensor-parallel attention, then with data-parallel attention where its ranks
     * divide N */
    for (int n = 1; n <= 8; n *= 2)
        for (int with_dp = 0; with_dp <= (dp > 1 && n > 1 && n % dp == 0); with_dp++) {
            struct roof_config c = *cfg;
            c.phase = ROOF_DECODE;
            c.tp = n;
            c.attn_dp = with_dp ? dp : 1;
            if (roof_config_problem(&c))
                continue;
            struct roof_result r;
            if (roof_evaluate(&c, &r) != 0)
                continue;
            double one = roof_allreduce_engine_s(hw, &c.tuning, c.batch * h * a_b, n, bw, lat);
            if (dp == 1) {
                printf("  %4d %10s %14s %10s %12.0f %14s %5s\n", n, T(r.time_s), T(one),
                       T(r.link_time_s), r.tokens_per_s_total, Q(r.mem.total_bytes, "B", 3),
                       r.mem.fits ? "yes" : "no");
                continue;
            }
            double bytes, layer = c.attn_dp > 1
                                      ? roof_attn_dp_links_s(&c, ceil(c.batch / c.attn_dp), &bytes)
                                      : 2.0 * one;
            char att[16] = "tp";
            if (c.attn_dp > 1)
                snprintf(att, sizeof att, "dp %d", c.attn_dp);
            printf("  %4d %9s %10s %14s %10s %12.0f %14s %5s\n", n, att, T(r.time_s), T(layer),
                   T(r.link_time_s), r.tokens_per_s_total, Q(r.mem.total_bytes, "B", 3),
                   r.mem.fits ? "yes" : "no");
        }
    printf("\nConclusion: N devices read N times the bandwidth, so decode speeds up until the "
           "all-reduce latency (%ld layers x 2 per step) takes over; TP=1 is the single-device "
           "result.%s\n",
           cfg->model->num_layers,
           dp > 1 ? " Data-parallel attention reads the whole attention on every device but only "
                    "its rank's KV cache, and holds every rank's sequences: slower for few "
                    "sequences, faster and far larger for many."
                  : "");
    return 0;
}

int
ex_speculative(const struct roof_config *cfg, const struct cli_args *a)
{
    double k = opt_num(a, "draft-k", 4), acc = opt_num(a, "accept", 0.7);
    double self_cost = opt_num(a, "draft-cost", 0.05);
    if (ex_options_check(a) != 0)
        return -2;
    struct mdl_profile *dm = NULL;
    struct roof_config draft;
    if (cli_has(a, "draft")) {
        dm = cli_load_model(cli_get(a, "draft"));
        if (!dm)
            return -1;
        roof_config_init(&draft, cfg->hw, dm, ROOF_DECODE);
    }
    header("Speculative decoding", cfg);
    struct roof_spec s;
    if (roof_speculative(cfg, dm ? &draft : NULL, self_cost, k, acc, &s) != 0) {
        mdl_free(dm);
        return -1;
    }
    printf("Step 1. Expected tokens per verification\n");
    printf("  E = (1 - a^(k+1)) / (1 - a) = (1 - %g^%g) / (1 - %g) = %.3f (k = %g proposals, "
           "acceptance a = %g)\n",
           acc, k + 1, acc, s.expected_tokens, k, acc);
    printf("Step 2. Costs\n");
    if (dm)
        printf("  draft step (%s) = %s; ", dm->id, T(s.draft_step_s));
    else
        printf("  self-drafting step = %g x target step = %s; ", self_cost, T(s.draft_step_s));
    printf("verification of k + 1 = %g tokens = %s (a plain step: %s)\n", k + 1, T(s.verify_s),
           T(s.target_step_s));
    printf("  cycle = k x draft + verification = %g x %s + %s = %s\n", k, T(s.draft_step_s),
           T(s.verify_s), T(s.cycle_s));
    printf("Step 3. Speed-up\n");
    printf("  time per token = cycle / E = %s / %.3f = %s; speed-up = %s / %s = %.2fx\n",
           T(s.cycle_s), s.expected_tokens, T(s.time_per_token_s), T(s.target_step_s),
           T(s.time_per_token_s), s.speedup);
    printf("Step 4. Break-even\n");
    if (s.break_even_acceptance >= 1.0)
        printf("  even a = 1 does not pay: the cycle costs more than k + 1 plain steps\n");
    else
        printf("  below an acceptance of %.3f (solved: E(a) = cycle / plain step) speculation "
               "slows decode down\n",
               s.break_even_acceptance);
    printf("  %6s %8s %9s\n", "a", "E", "speed-up");
    for (double x = 0.0; x <= 0.951; x += 0.1) {
        struct roof_spec t;
        roof_speculative(cfg, dm ? &draft : NULL, self_cost, k, x, &t);
        printf("  %6.2f %8.3f %8.2fx\n", x, t.expected_tokens, t.speedup);
    }
    printf("\nConclusion: verifying %g tokens costs about as much as one memory-bound step, so "
           "accepted drafts are nearly free tokens: %.2fx at a = %g.\n",
           k + 1, s.speedup, acc);
    mdl_free(dm);
    return 0;
}

int
ex_prefix_cache(const struct roof_config *cfg, const struct cli_args *a)
{
    double hit = opt_num(a, "hit", 0.5);
    if (ex_options_check(a) != 0)
        return -2;
    header("Prefix caching", cfg);
    struct roof_prefix p;
    if (roof_prefix_cache(cfg, hit, &p) != 0)
        return -1;
    printf("Step 1. Cached tokens\n");
    printf("  cached = hit x prompt = %g x %.0f = %.0f; computed = %.0f\n", hit, cfg->prompt,
           p.cached_tokens, p.new_tokens);
    printf("Step 2. Prefill without the cache\n");
    printf("  TTFT = %s; KV written %s\n", T(p.ttft_cold_s), Q(p.kv_write_cold_bytes, "B", 3));
    printf("Step 3. Prefill with the cache\n");
    printf("  only the %.0f new tokens run, attending to the %.0f cached ones: TTFT = %s; KV "
           "written %s\n",
           p.new_tokens, p.cached_tokens, T(p.ttft_warm_s), Q(p.kv_write_warm_bytes, "B", 3));
    printf("Step 4. Effect\n");
    printf("  TTFT speed-up = %s / %s = %.2fx; prompt tokens served per second %.0f -> %.0f\n",
           T(p.ttft_cold_s), T(p.ttft_warm_s), p.speedup, p.prefill_tokens_per_s_cold,
           p.prefill_tokens_per_s_warm);
    printf("\nConclusion: a %.0f%% prefix hit removes that share of the prefill FLOPs and KV "
           "writes; the TTFT falls by %.2fx (less than 1 / (1 - hit) when the pass is "
           "memory-bound, since the weights are still read once).\n",
           100 * hit, p.speedup);
    return 0;
}

/* Every explain option's value, checked before anything is printed (a bad value is a usage
 * error, exit 2, with nothing on stdout); each topic checks its own again where it reads it. */
int
ex_options_check(const struct cli_args *a)
{
    double out_tokens = opt_num(a, "output", 256), rate = opt_num(a, "rate", 10);
    double pb = opt_num(a, "prefill-batch", 1);
    if (!(out_tokens >= 1 && out_tokens <= 1e7))
        return bad_opt("output", cli_get(a, "output"), "a number of generated tokens, 1 to 1e7");
    if (!(rate > 0 && rate <= 1e6))
        return bad_opt("rate", cli_get(a, "rate"), "requests per second, above 0 and up to 1e6");
    if (!(pb >= 1 && pb <= 1e6))
        return bad_opt("prefill-batch", cli_get(a, "prefill-batch"), "a batch, 1 to 1e6");
    double block = opt_num(a, "block-size", 16);
    if (!(block >= 1) || block != floor(block))
        return bad_opt("block-size", cli_get(a, "block-size"), "a whole number of tokens");
    double k = opt_num(a, "draft-k", 4), acc = opt_num(a, "accept", 0.7);
    double self_cost = opt_num(a, "draft-cost", 0.05);
    if (!(k >= 1 && k <= 64) || k != floor(k))
        return bad_opt("draft-k", cli_get(a, "draft-k"),
                       "a whole number of proposed tokens, 1 to 64");
    if (!(acc >= 0 && acc <= 1))
        return bad_opt("accept", cli_get(a, "accept"), "an acceptance rate from 0 to 1");
    if (!(self_cost > 0 && self_cost < 10))
        return bad_opt("draft-cost", cli_get(a, "draft-cost"),
                       "the cost of a draft step as a fraction of a target step");
    double hit = opt_num(a, "hit", 0.5);
    if (!(hit >= 0 && hit < 1))
        return bad_opt("hit", cli_get(a, "hit"), "a hit fraction from 0 to below 1");
    return 0;
}

int
ex_disaggregation(const struct roof_config *cfg, const struct cli_args *a)
{
    if (ex_options_check(a) != 0)
        return -2;
    double out_tokens = opt_num(a, "output", 256), rate = opt_num(a, "rate", 10);
    double pb = opt_num(a, "prefill-batch", 1);
    header("Disaggregated prefill and decode", cfg);
    struct roof_config p = *cfg, d = *cfg;
    p.batch = pb;
    if (!cli_has(a, "batch"))
        d.batch = 32; /* a decode pool runs batched */
    struct roof_disagg r;
    if (roof_disaggregate(&p, &d, cfg->prompt, out_tokens, rate, &r) != 0)
        return -1;
    printf("Step 1. KV cache to move per request\n");
    printf("  prompt x KV per token = %.0f x %s = %s\n", cfg->prompt,
           Q(mdl_kv_bytes_per_token(cfg->model, dtype_bytes(cfg->kv)), "B", 3),
           Q(r.kv_bytes, "B", 3));
    printf("Step 2. Transfer\n");
    printf("  bytes / link bandwidth per direction + latency = %s / %s = %s\n",
           Q(r.kv_bytes, "B", 3), Q(hw_link_bytes_per_s_per_direction(cfg->hw), "B/s", 3),
           T(r.transfer_s));
    printf("Step 3. Pools\n");
    printf("  prefill device: %.0f prompt%s per pass: TTFT = pass + transfer = %s; %.2f "
           "requests/s\n",
           pb, pb == 1 ? "" : "s", T(r.ttft_s), r.prefill_req_per_s);
    printf("  decode device: batch %.0f, %.0f tokens each at ITL %s: %.2f requests/s\n", d.batch,
           out_tokens, T(r.itl_s), r.decode_req_per_s);
    printf("Step 4. Balance\n");
    printf("  decode devices per prefill device = %.2f / %.2f = %.2f; for %.1f requests/s: %.0f "
           "prefill + %.0f decode devices\n",
           r.prefill_req_per_s, r.decode_req_per_s, r.decode_per_prefill, rate, r.prefill_devices,
           r.decode_devices);
    /* each prefill device sees rate / devices requests/s with a deterministic pass: the M/D/1
     * mean wait rho / (2 mu (1 - rho)) (Pollaczek-Khinchine) before its TTFT starts */
    double mu = r.prefill_req_per_s, rho = rate / (r.prefill_devices * mu);
    if (rho < 1)
        printf("  prefill utilisation = %.1f / (%.0f x %.2f) = %.0f%%; mean queueing wait (M/D/1) "
               "= rho / (2 mu (1 - rho)) = %s, so the TTFT is about %s\n",
               rate, r.prefill_devices, mu, 100 * rho, T(rho / (2 * mu * (1 - rho))),
               T(r.ttft_s + rho / (2 * mu * (1 - rho))));
    else
        printf("  prefill utilisation = %.1f / (%.0f x %.2f) = %.0f%%: the prompts queue without "
               "bound; add prefill devices\n",
               rate, r.prefill_devices, mu, 100 * rho);
    printf("\nConclusion: separate pools let prefill run compute-bound and decode run at its best "
           "batch without prefill stalls; the KV transfer adds %s to the TTFT.\n",
           T(r.transfer_s));
    return 0;
}
