/* Report content: builds sections of a rep_doc from the engine's results. Numbers are formatted
 * the way `explain` and `analyze` print them, so a reader can find them in either. One file
 * (about 1,100 lines) because its sections (why, trust, provenance, handout) are shared by the
 * three documents (analysis report, plan report, explain handout) through report_parts.h and
 * share static helpers (evaluate, system_name, build_chart); report_plan.c holds the plan's. */
#include "cli/report_parts.h"
#include "bench/bench.h"
#include "bench/predict.h"

#include "cli/caldata.h"
#include "cli/explain.h"
#include "core/calib.h"
#include "io/profiles.h"
#include "render/chart.h"
#include "render/charts.h"
#include "sim/sim.h"
#include "util/units.h"

#include <errno.h>
#include <glib.h>
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifndef ROOFLINE_VERSION
#define ROOFLINE_VERSION "0.1"
#endif

#define CHART_H_PT 270.0
/* a chart of stacked panels (batch): at CHART_H_PT its legend did not fit inside them and
 * squeezed the plots into 60% of the width */
#define STACKED_H_PT 380.0

/* The height to draw chart `c` at: taller for panels stacked in one column. */
static double
chart_height_pt(const struct chart *c)
{
    return c && c->n_panels > 1 && c->cols <= 1 ? STACKED_H_PT : CHART_H_PT;
}

static void
sb_vprintf(struct sb *b, const char *fmt, va_list ap)
{
    if (b->failed)
        return;
    va_list ap2;
    va_copy(ap2, ap);
    int k = vsnprintf(NULL, 0, fmt, ap);
    if (k < 0) {
        b->failed = 1;
        va_end(ap2);
        return;
    }
    if (b->n + (size_t)k + 1 > b->cap) {
        size_t nc = b->cap ? b->cap : 256;
        while (nc < b->n + (size_t)k + 1)
            nc *= 2;
        char *np = realloc(b->p, nc);
        if (!np) {
            b->failed = 1;
            va_end(ap2);
            return;
        }
        b->p = np;
        b->cap = nc;
    }
    vsnprintf(b->p + b->n, (size_t)k + 1, fmt, ap2);
    va_end(ap2);
    b->n += (size_t)k;
}

void
sb_printf(struct sb *b, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    sb_vprintf(b, fmt, ap);
    va_end(ap);
}

void
rp_paraf(struct rep_doc *d, const char *fmt, ...)
{
    struct sb b = {0};
    va_list ap;
    va_start(ap, fmt);
    sb_vprintf(&b, fmt, ap);
    va_end(ap);
    rep_para(d, sb_str(&b));
    sb_release(&b);
}

const char *
sb_str(const struct sb *b)
{
    return b->p && !b->failed ? b->p : "";
}

void
sb_reset(struct sb *b)
{
    b->n = 0;
    if (b->p)
        b->p[0] = '\0';
}

void
sb_release(struct sb *b)
{
    free(b->p);
    memset(b, 0, sizeof *b);
}

const char *
rp_esc(const char *s)
{
    static char ring[8][512];
    static unsigned next;
    char *o = ring[next++ % 8];
    size_t n = 0;
    for (; s && *s && n + 7 < 512; s++) {
        const char *r = *s == '&' ? "&amp;" : *s == '<' ? "&lt;" : *s == '>' ? "&gt;" : NULL;
        if (r) {
            size_t k = strlen(r);
            memcpy(o + n, r, k);
            n += k;
        } else {
            o[n++] = *s;
        }
    }
    o[n] = '\0';
    return o;
}

long long
rp_epoch(void)
{
    const char *s = getenv("SOURCE_DATE_EPOCH");
    if (s && *s) {
        char *end;
        errno = 0;
        long long v = strtoll(s, &end, 10);
        if (errno == 0 && *end == '\0' && v >= 0 && v < 253402300800LL)
            return v;
    }
    return 1704067200LL; /* 2024-01-01T00:00:00Z */
}

int
rp_sha256_file(const char *path, char *out, size_t size)
{
    gchar *data = NULL;
    gsize len = 0;
    if (!path || !g_file_get_contents(path, &data, &len, NULL))
        return -1;
    gchar *hex = g_compute_checksum_for_data(G_CHECKSUM_SHA256, (const guchar *)data, len);
    g_free(data);
    if (!hex)
        return -1;
    snprintf(out, size, "%s", hex);
    g_free(hex);
    return 0;
}

/* A path shown relative to the data directory when it lies inside it, so that two clones give
 * the same report. */
static const char *
rel_path(const char *path)
{
    const char *dir = prof_data_dir();
    size_t n = strlen(dir);
    if (path && n > 0 && strncmp(path, dir, n) == 0 && path[n] == '/')
        return path + n + 1;
    return path ? path : "";
}

static const char *
source_of(char **keys, char **texts, int n, const char *key)
{
    for (int i = 0; i < n; i++)
        if (strcmp(keys[i], key) == 0)
            return texts[i];
    size_t k = strlen(key);
    for (int i = 0; i < n; i++)
        if (strncmp(keys[i], key, k) == 0 && keys[i][k] == '.')
            return texts[i];
    return NULL;
}

static const char *
hw_source(const struct hw_profile *hw, const char *key)
{
    const char *s = source_of(hw->source_keys, hw->source_texts, hw->n_sources, key);
    return s ? s : "(no source in the profile)";
}

/* ---- the numbers ---- */

struct phase_pair {
    struct roof_result pre, dec;
    double crit, cross;
    long max_batch;
    double band[4][2]; /* log ratios per phase (0 decode, 1 prefill); zeros when none */
    bool have_band;
};

static int
evaluate(const struct rp_ctx *ctx, const struct hw_profile *hw, struct phase_pair *pp, bool bands)
{
    memset(pp, 0, sizeof *pp);
    struct roof_config c = ctx->base;
    c.hw = hw;
    if (ctx->engine && hw != ctx->hws[0]) {
        /* the engine's tuning depends on the device class */
        struct roof_tuning tu;
        double b[4][2];
        if (caldata_tuning(hw, ctx->engine, NULL, &tu, b) == 0)
            c.tuning = tu;
    }
    c.phase = ROOF_PREFILL;
    if (roof_evaluate(&c, &pp->pre) != 0)
        return -1;
    c.phase = ROOF_DECODE;
    if (roof_evaluate(&c, &pp->dec) != 0)
        return -1;
    if (roof_critical_batch(&c, &pp->crit) < 0)
        pp->crit = NAN;
    if (roof_prefill_crossover(&c, &pp->cross) < 0)
        pp->cross = NAN;
    pp->max_batch = roof_max_batch(&c);
    if (bands && ctx->engine) {
        struct roof_tuning tu;
        if (caldata_tuning(hw, ctx->engine, NULL, &tu, pp->band) == 0)
            pp->have_band = pp->band[0][0] != 0 || pp->band[0][1] != 0 || pp->band[1][0] != 0 ||
                            pp->band[1][1] != 0;
    }
    return 0;
}

static const char *
bound_word(const struct roof_result *r)
{
    return roof_bound_name(r->bound);
}

/* "4 x NVIDIA H100 (TP 4)" or "NVIDIA H100" */
static void
system_name(const struct rp_ctx *ctx, const struct hw_profile *hw, char *buf, size_t size)
{
    int tp = ctx->base.tp > 0 ? ctx->base.tp : 1, pp = ctx->base.pp > 0 ? ctx->base.pp : 1;
    int gpus = ctx->base.gpus > 0 ? ctx->base.gpus : tp * pp;
    char extra[64];
    roof_parallel_extras(&ctx->base, true, extra, sizeof extra);
    if (gpus > 1)
        snprintf(buf, size, "%d x %s (TP %d%s%s%.0d)", gpus, hw->name, tp, extra,
                 pp > 1 ? ", PP " : "", pp > 1 ? pp : 0);
    else
        snprintf(buf, size, "%s", hw->name);
}

static const char *
band_text(const struct phase_pair *pp, int phase_index, double t)
{
    if (!pp->have_band || (pp->band[phase_index][0] == 0 && pp->band[phase_index][1] == 0))
        return "-";
    char *buf = ex_ring();
    char a[32], b[32];
    snprintf(buf, 64, "%s .. %s", ex_time(a, sizeof a, t * exp(pp->band[phase_index][0])),
             ex_time(b, sizeof b, t * exp(pp->band[phase_index][1])));
    return buf;
}

/* ---- the answer ---- */

static void
answer(struct rep_doc *d, struct rp_ctx *ctx, const struct phase_pair *pp)
{
    const struct hw_profile *hw = ctx->hws[0];
    const struct roof_result *pre = &pp->pre, *dec = &pp->dec;
    const struct roof_config *c = &ctx->base;
    char sys[256];
    system_name(ctx, hw, sys, sizeof sys);
    struct sb b = {0};
    /* the MoE kernel where it is not the engine's default (docs/physics.md#moe-kernels) */
    bool marlin = roof_moe_marlin(&pre->cfg);
    sb_printf(&b,
              "<b>%s on %s</b> (weights %s, KV cache %s, %s%s%s): a prompt of %.0f tokens takes "
              "<b>%s</b> to prefill (TTFT, %s-bound) and every further token <b>%s</b> (ITL, "
              "%s-bound), so one sequence gets <b>%.1f tokens/s</b>",
              rp_esc(ctx->model->id), rp_esc(sys), dtype_name(c->weights), dtype_name(c->kv),
              ctx->engine ? rp_esc(ctx->engine) : "datasheet roofline",
              marlin ? ", experts through Marlin" : "",
              c->ep > 1 ? ", experts in expert-parallel groups" : "", c->prompt, T(pre->ttft_s),
              bound_word(pre), T(dec->itl_s), bound_word(dec), dec->tokens_per_s_per_seq);
    if (c->batch > 1)
        sb_printf(&b, " and a batch of %.0f gets <b>%.0f tokens/s</b> in all", c->batch,
                  dec->tokens_per_s_total);
    sb_printf(&b, ".\n");
    const struct roof_memory *m = &dec->mem;
    if (m->fits)
        sb_printf(&b,
                  "Memory: <b>%s of %s</b> per device used at context %.0f (weights %s, KV cache "
                  "%s, engine reserve %s): fits; at most %ld sequences of this context fit.",
                  Q(m->total_bytes, "B", 3), Q(m->capacity_bytes, "B", 3), c->context,
                  Q(m->weights_bytes, "B", 3), Q(m->kv_bytes, "B", 3), Q(m->reserve_bytes, "B", 3),
                  pp->max_batch);
    else
        sb_printf(&b,
                  "<span foreground='#D55E00'><b>Does not fit:</b></span> %s needed per device, "
                  "%s available (weights %s, KV cache %s, engine reserve %s); the times above "
                  "assume it did.",
                  Q(m->total_bytes, "B", 3), Q(m->capacity_bytes, "B", 3),
                  Q(m->weights_bytes, "B", 3), Q(m->kv_bytes, "B", 3), Q(m->reserve_bytes, "B", 3));
    rep_box(d, sb_str(&b));
    snprintf(ctx->answer, sizeof ctx->answer,
             "%s on %s: TTFT %s (%.0f-token prompt, %s-bound), ITL %s (%s-bound), %.1f tokens/s "
             "per sequence, %.0f tokens/s at batch %.0f; memory %s of %s per device (%s)",
             ctx->model->id, sys, T(pre->ttft_s), c->prompt, bound_word(pre), T(dec->itl_s),
             bound_word(dec), dec->tokens_per_s_per_seq, dec->tokens_per_s_total, c->batch,
             Q(m->total_bytes, "B", 3), Q(m->capacity_bytes, "B", 3),
             m->fits ? "fits" : "does not fit");
    sb_release(&b);

    static const char *const H[] = {"quantity", "value", "how", "80% band"};
    struct rep_table *t = rep_table(d, 4, H, "lrll");
    const char *how = ctx->engine ? "analytic, tuned" : "analytic";
    char q[128];
    snprintf(q, sizeof q, "TTFT (prefill of %.0f tokens x %.0f)", c->prompt, c->batch);
    const char *r1[] = {q, T(pre->ttft_s), how, band_text(pp, 1, pre->ttft_s)};
    rep_table_row(t, r1);
    snprintf(q, sizeof q, "ITL (decode step at context %.0f)", c->context);
    const char *r2[] = {q, T(dec->itl_s), how, band_text(pp, 0, dec->itl_s)};
    rep_table_row(t, r2);
    char v[64];
    snprintf(v, sizeof v, "%.1f", dec->tokens_per_s_per_seq);
    const char *r3[] = {"tokens/s per sequence", v, how, "-"};
    rep_table_row(t, r3);
    char v2[64];
    snprintf(v2, sizeof v2, "%.1f", dec->tokens_per_s_total);
    snprintf(q, sizeof q, "tokens/s in all (batch %.0f)", c->batch);
    const char *r4[] = {q, v2, how, "-"};
    rep_table_row(t, r4);
    char v3[64];
    snprintf(v3, sizeof v3, "prefill %s, decode %s", bound_word(pre), bound_word(dec));
    const char *r5[] = {"bound", v3, "roofline", "-"};
    rep_table_row(t, r5);
    char v4[64];
    snprintf(v4, sizeof v4, "%s of %s", Q(m->total_bytes, "B", 3), Q(m->capacity_bytes, "B", 3));
    const char *r6[] = {"memory per device", v4, "analytic", "-"};
    rep_table_row(t, r6);
    char v5[64];
    snprintf(v5, sizeof v5, "%ld", pp->max_batch);
    snprintf(q, sizeof q, "largest batch that fits (context %.0f)", c->context);
    const char *r7[] = {q, v5, "analytic", "-"};
    rep_table_row(t, r7);
    if (isfinite(pp->crit)) {
        char v6[64];
        snprintf(v6, sizeof v6, "%.0f", pp->crit);
        const char *r8[] = {"batch where decode turns compute-bound", v6, "analytic", "-"};
        rep_table_row(t, r8);
    }
    rep_table_caption(t, ctx->engine
                             ? "80% band: the 10th to 90th percentile of the held-out errors of "
                               "this engine's predictions on this device class (calibration)."
                             : "No band: give --engine to tune the model to an engine and get "
                               "the 80% band of its calibrated errors.");
}

static void
compare_devices(struct rep_doc *d, const struct rp_ctx *ctx)
{
    if (ctx->n_hws < 2)
        return;
    rep_section(d, 2, "The devices side by side", false);
    static const char *const H[] = {"device",       "TTFT",   "ITL", "tokens/s in all",
                                    "decode bound", "memory", "fits"};
    struct rep_table *t = rep_table(d, 7, H, "lrrrlrl");
    for (int g = 0; g < ctx->n_hws; g++) {
        struct phase_pair pp;
        if (evaluate(ctx, ctx->hws[g], &pp, false) != 0)
            continue;
        char tot[32], mem[64];
        snprintf(tot, sizeof tot, "%.0f", pp.dec.tokens_per_s_total);
        snprintf(mem, sizeof mem, "%s of %s", Q(pp.dec.mem.total_bytes, "B", 3),
                 Q(pp.dec.mem.capacity_bytes, "B", 3));
        const char *row[] = {rp_esc(ctx->hws[g]->name),
                             T(pp.pre.ttft_s),
                             T(pp.dec.itl_s),
                             tot,
                             bound_word(&pp.dec),
                             mem,
                             pp.dec.mem.fits ? "yes" : "<b>no</b>"};
        rep_table_row(t, row);
    }
}

/* ---- why ---- */

static struct chart *
build_chart(const struct rp_ctx *ctx, enum chart_kind kind, bool all_devices)
{
    struct chart_request req;
    memset(&req, 0, sizeof req);
    req.kind = kind;
    req.n_hws = all_devices ? ctx->n_hws : 1;
    for (int g = 0; g < req.n_hws; g++)
        req.hws[g] = ctx->hws[g];
    req.base = ctx->base;
    if (kind == CHART_KIND_ROOFLINE || kind == CHART_KIND_REGIME) {
        req.batches[0] = ctx->base.batch;
        req.n_batches = 1;
    }
    struct err_list errs = {0};
    struct chart *c = chart_build(&req, &errs);
    if (!c)
        cli_print_errs(&errs);
    err_list_release(&errs);
    return c;
}

int
rp_ops_by_time(const struct roof_result *r, int *idx)
{
    int n = 0;
    for (int i = 0; i < ROOF_OP_COUNT; i++)
        if (r->ops[i].present && r->ops[i].time_s > 0)
            idx[n++] = i;
    /* insertion sort: 20 operators */
    for (int i = 1; i < n; i++)
        for (int j = i; j > 0 && r->ops[idx[j]].time_s > r->ops[idx[j - 1]].time_s; j--) {
            int t = idx[j];
            idx[j] = idx[j - 1];
            idx[j - 1] = t;
        }
    return n;
}

double
rp_len_mean(const struct sim_dist *d)
{
    return d->kind == SIM_DIST_TRACE ? d->mean : sim_dist_mean(d);
}

const char *
rp_op_bound(const struct roof_op_result *o)
{
    return o->link_time_s > 0                      ? "link"
           : o->compute_time_s >= o->memory_time_s ? "compute"
                                                   : "memory";
}

static void
op_table(struct rep_doc *d, const struct roof_result *r, const char *phase)
{
    int idx[ROOF_OP_COUNT];
    int n = rp_ops_by_time(r, idx);
    static const char *const H[] = {"operator", "FLOPs", "bytes", "FLOP/B",
                                    "time",     "share", "bound"};
    struct rep_table *t = rep_table(d, 7, H, "lrrrrrl");
    int show = n < 7 ? n : 6;
    for (int k = 0; k < show; k++) {
        const struct roof_op_result *o = &r->ops[idx[k]];
        char ai[32], share[32];
        snprintf(ai, sizeof ai, "%.3g", roof_op_intensity(o));
        snprintf(share, sizeof share, "%.1f%%", 100 * o->time_s / r->time_s);
        const char *row[] = {roof_op_name((enum roof_op)idx[k]),
                             Q(o->flops, "FLOP", 3),
                             Q(roof_op_bytes(o), "B", 3),
                             ai,
                             T(o->time_s),
                             share,
                             rp_op_bound(o)};
        rep_table_row(t, row);
    }
    if (n > show) {
        double tt = 0, fl = 0, by = 0;
        for (int k = show; k < n; k++) {
            tt += r->ops[idx[k]].time_s;
            fl += r->ops[idx[k]].flops;
            by += roof_op_bytes(&r->ops[idx[k]]);
        }
        char name[48], share[32];
        snprintf(name, sizeof name, "%d others", n - show);
        snprintf(share, sizeof share, "%.1f%%", 100 * tt / r->time_s);
        const char *row[] = {name, Q(fl, "FLOP", 3), Q(by, "B", 3), "", T(tt), share, ""};
        rep_table_row(t, row);
    }
    char ai[32];
    snprintf(ai, sizeof ai, "%.3g", r->flops / r->bytes);
    const char *row[] = {
        "<b>pass</b>", Q(r->flops, "FLOP", 3),   Q(r->bytes, "B", 3), ai, T(r->time_s),
        "100%",        roof_bound_name(r->bound)};
    rep_table_row(t, row);
    char cap[256];
    snprintf(cap, sizeof cap,
             "%s: the operators that take the most time, per device (analyze --ops lists all "
             "with every field).",
             phase);
    rep_table_caption(t, cap);
}

static void
worked(struct rep_doc *d, const struct rp_ctx *ctx, const struct phase_pair *pp)
{
    const struct roof_result *dec = &pp->dec, *pre = &pp->pre;
    const struct hw_profile *hw = ctx->hws[0];
    double bw = hw->memory_bandwidth_bytes_per_s;
    struct sb b = {0};
    double tm = dec->bytes / bw, tc = dec->flops / dec->gemm_peak_flops_per_s;
    sb_printf(&b,
              "<b>Decode.</b> Every step reads all the weights once for the whole batch, plus "
              "each sequence's KV cache: %s of weight reads + %s of KV cache + %s of "
              "activation traffic = <b>%s</b> moved per device (bytes read and written per "
              "step, not held: the embedding table is only gathered, one row per token, and "
              "activations pass through kernels; the memory held is in the next section). At "
              "the %s of the %s:\n"
              "    t<sub>memory</sub> = %s \xc3\xb7 %s = <b>%s</b>\n"
              "The arithmetic is %s at the %s %s peak:\n"
              "    t<sub>compute</sub> = %s \xc3\xb7 %s = <b>%s</b>\n",
              Q(dec->bytes_weights, "B", 3), Q(dec->bytes_kv, "B", 3), Q(dec->bytes_act, "B", 3),
              Q(dec->bytes, "B", 3), Q(bw, "B/s", 3), rp_esc(hw->name), Q(dec->bytes, "B", 3),
              Q(bw, "B/s", 3), T(tm), Q(dec->flops, "FLOP", 3), dtype_name(dec->gemm_dtype),
              Q(dec->gemm_peak_flops_per_s, "FLOP/s", 3), Q(dec->flops, "FLOP", 3),
              Q(dec->gemm_peak_flops_per_s, "FLOP/s", 3), T(tc));
    if (tm > tc)
        sb_printf(&b,
                  "Moving the bytes takes %.0f times as long as the arithmetic: decode is "
                  "bandwidth-bound. Its intensity, %.3g FLOP/B, is far below the ridge of %.0f "
                  "FLOP/B (peak \xc3\xb7 bandwidth). ",
                  tm / tc, dec->flops / dec->bytes, dec->gemm_peak_flops_per_s / bw);
    else
        sb_printf(&b,
                  "The arithmetic takes longer than moving the bytes (%.3g FLOP/B against a "
                  "ridge of %.0f FLOP/B): at this batch decode is compute-bound. ",
                  dec->flops / dec->bytes, dec->gemm_peak_flops_per_s / bw);
    sb_printf(&b,
              "Summed per operator (each at its own roof%s) the step takes <b>%s</b>: the "
              "ITL.\n\n",
              ctx->engine || dec->link_time_s > 0 ? ", with the engine's overheads and the links"
                                                  : "",
              T(dec->itl_s));
    double pm = pre->bytes / bw, pc = pre->flops / pre->gemm_peak_flops_per_s;
    sb_printf(&b,
              "<b>Prefill.</b> The prompt's %.0f tokens x %.0f sequences go through the weights "
              "in one pass: %s at the %s peak, "
              "t<sub>compute</sub> = %s \xc3\xb7 %s = <b>%s</b>; the bytes, %s \xc3\xb7 %s = "
              "<b>%s</b>. ",
              ctx->base.prompt, ctx->base.batch, Q(pre->flops, "FLOP", 3),
              Q(pre->gemm_peak_flops_per_s, "FLOP/s", 3), Q(pre->flops, "FLOP", 3),
              Q(pre->gemm_peak_flops_per_s, "FLOP/s", 3), T(pc), Q(pre->bytes, "B", 3),
              Q(bw, "B/s", 3), T(pm));
    sb_printf(&b,
              "Prefill is %s-bound; summed per operator%s it takes <b>%s</b> (TTFT without "
              "queueing).",
              roof_bound_name(pre->bound),
              ctx->engine ? " at the engine's calibrated efficiencies and overheads" : "",
              T(pre->ttft_s));
    if (isfinite(pp->cross))
        sb_printf(&b,
                  " At a batch of %.0f, prefill turns compute-bound from prompts of %.0f "
                  "tokens.",
                  ctx->base.batch, pp->cross);
    rep_para(d, sb_str(&b));
    sb_release(&b);
}

int
rp_why(struct rep_doc *d, const struct rp_ctx *ctx)
{
    struct phase_pair pp;
    if (evaluate(ctx, ctx->hws[0], &pp, false) != 0) {
        fprintf(stderr, "error: cannot evaluate this configuration\n");
        return -1;
    }
    char sys[256];
    system_name(ctx, ctx->hws[0], sys, sizeof sys);
    rep_section(d, 1, "Why: where the time goes", true);
    rp_paraf(d,
             "Each operator of the model is placed on the roofline of the %s: its arithmetic "
             "intensity (FLOPs per byte moved) against the rate it can reach, the lower of the "
             "compute peak and bandwidth x intensity.",
             rp_esc(ctx->hws[0]->name));
    struct chart *c = build_chart(ctx, CHART_KIND_ROOFLINE, true);
    if (c)
        rep_chart(d, c, CHART_H_PT, "The roofline with the model's operators (decode).");
    rep_section(d, 2, "The operators", false);
    op_table(d, &pp.pre, "Prefill");
    op_table(d, &pp.dec, "Decode");
    rep_section(d, 2, "Worked example: bytes \xc3\xb7 bandwidth = time", false);
    worked(d, ctx, &pp);
    rep_section(d, 2, "Memory", false);
    struct sb b = {0};
    const struct roof_memory *m = &pp.dec.mem;
    sb_printf(&b,
              "Per device: weights %s, KV cache %s (%s per token), activations %s, engine "
              "reserve %s; %s of %s. ",
              Q(m->weights_bytes, "B", 3), Q(m->kv_bytes, "B", 3), Q(m->kv_bytes_per_token, "B", 3),
              Q(m->act_bytes, "B", 3), Q(m->reserve_bytes, "B", 3), Q(m->total_bytes, "B", 3),
              Q(m->capacity_bytes, "B", 3));
    if (m->state_bytes > 0)
        sb_printf(&b,
                  "Of the KV cache, %s is the linear-attention layers' state, a fixed size a "
                  "sequence whatever its length. ",
                  Q(m->state_bytes, "B", 3));
    sb_printf(&b, "At context %.0f at most %ld sequences fit.", ctx->base.context, pp.max_batch);
    rep_para(d, sb_str(&b));
    c = build_chart(ctx, CHART_KIND_MEMORY, true);
    if (c)
        rep_chart(d, c, CHART_H_PT, "Memory per device at this batch and context.");
    rep_section(d, 2, "Batching: throughput against latency", false);
    rep_para(d, "A larger batch shares each read of the weights among more sequences: total "
                "tokens/s grows almost in proportion while decode stays bandwidth-bound, and the "
                "time per token grows slowly until the batch reaches the critical batch, where "
                "the arithmetic catches up with the bytes.");
    c = build_chart(ctx, CHART_KIND_BATCH, true);
    if (c)
        rep_chart(d, c, chart_height_pt(c),
                  "Decode throughput and time per token against batch size.");
    sb_release(&b);
    return 0;
}

/* ---- trust ---- */

struct vgroup {
    char name[64];
    double *err;
    int n;
};

static void
validation_table(struct rep_doc *d, const struct rp_ctx *ctx)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/calibration/measurements.yaml", prof_data_dir());
    struct caldata cd;
    memset(&cd, 0, sizeof cd);
    FILE *probe = fopen(path, "r");
    if (!probe) {
        rep_para(d, "The published-measurement validation set (calibration/measurements.yaml) "
                    "was not found in the data directory: no validation summary.");
        return;
    }
    fclose(probe);
    if (caldata_load(path, NULL, true, &cd) != 0) {
        rep_para(d, "The validation set could not be read: no validation summary.");
        return;
    }
    int n = cd.set->n;
    double *err = calloc((size_t)(n ? n : 1), sizeof *err);
    int *ph = calloc((size_t)(n ? n : 1), sizeof *ph);
    bool *ok = calloc((size_t)(n ? n : 1), sizeof *ok);
    if (!err || !ph || !ok) {
        free(err);
        free(ph);
        free(ok);
        caldata_release(&cd);
        return;
    }
    for (int i = 0; i < n; i++) {
        double pred;
        const char *why = NULL;
        if (cd.reason[i] || fit_predict(&cd.params, &cd.cases[i], &pred, &why) != 0 ||
            !(pred > 0) || !isfinite(pred))
            continue;
        ok[i] = true;
        err[i] = (pred - cd.cases[i].measured) / cd.cases[i].measured * 100.0;
        ph[i] = (int)cd.cases[i].pc->phase;
    }
    static const char *const H[] = {"group", "rows", "median |error|", "P90 |error|", "mean error"};
    struct rep_table *t = rep_table(d, 5, H, "lrrrr");
    double *e = calloc((size_t)(n ? n : 1), sizeof *e);
    for (int g = 0; e && g < 8; g++) {
        char name[96];
        int k = 0;
        const char *hwid = ctx->n_hws > 0 ? ctx->hws[0]->id : "";
        enum dev_class cls = ctx->n_hws > 0 ? dev_class_of(ctx->hws[0]) : DEV_CLASS_COUNT;
        for (int i = 0; i < n; i++) {
            if (!ok[i])
                continue;
            bool pick = g == 0   ? true
                        : g <= 4 ? ph[i] == g - 1
                        : g == 5 ? ctx->engine && strcmp(cd.set->rows[i].engine, ctx->engine) == 0
                        : g == 6 ? cd.cases[i].hw && dev_class_of(cd.cases[i].hw) == cls
                                 : strcmp(cd.set->rows[i].hardware, hwid) == 0;
            if (pick)
                e[k++] = err[i];
        }
        if (k == 0)
            continue;
        if (g == 0)
            snprintf(name, sizeof name, "all");
        else if (g <= 4)
            snprintf(name, sizeof name, "phase %s", pred_phase_name((enum pred_phase)(g - 1)));
        else if (g == 5)
            snprintf(name, sizeof name, "engine %s", ctx->engine ? ctx->engine : "");
        else if (g == 6)
            snprintf(name, sizeof name, "device class %s", dev_class_name(cls));
        else
            snprintf(name, sizeof name, "this device (%s)", hwid);
        if (k == 0)
            continue;
        struct fit_stats s;
        fit_stats_of(e, k, &s);
        char cnt[32], med[32], p90[32], mean[32];
        snprintf(cnt, sizeof cnt, "%d", k);
        snprintf(med, sizeof med, "%.1f%%", s.median_abs_pct);
        snprintf(p90, sizeof p90, "%.1f%%", s.p90_abs_pct);
        snprintf(mean, sizeof mean, "%+.1f%%", s.mean_pct);
        const char *row[] = {rp_esc(name), cnt, med, p90, mean};
        rep_table_row(t, row);
    }
    char generic[256] = "";
    size_t gl = 0;
    for (int i = 0; i < cd.params.n_engines && gl < sizeof generic; i++)
        if (cd.params.engine[i].generic)
            gl += (size_t)snprintf(generic + gl, sizeof generic - gl, "%s%s", gl ? ", " : "",
                                   cd.params.engine[i].name);
    char cap[640];
    snprintf(cap, sizeof cap,
             "error = (predicted - measured) / measured over the published measurements in "
             "calibration/measurements.yaml, predicted with the shipped calibration (roofline "
             "validate --measurements shows every row).%s%s%s",
             generic[0] ? " Rows of engines with no profile of their own (" : "",
             generic[0] ? rp_esc(generic) : "",
             generic[0] ? ") are predicted with the generic kernel model." : "");
    rep_table_caption(t, cap);
    free(e);
    free(err);
    free(ph);
    free(ok);
    caldata_release(&cd);
}

#define LEAVES_OUT                                                                                 \
    "\xe2\x80\xa2 Kernel details beyond the roofline and the calibrated overheads: fusion "        \
    "choices, kernel selection by shape, clock and power limits.\n"                                \
    "\xe2\x80\xa2 Overlap of communication with computation (links are added, not overlapped), "   \
    "and host-side work beyond the engine's per-step cost.\n"                                      \
    "\xe2\x80\xa2 Speculative decoding, prefix caching and sampling costs (see roofline explain "  \
    "speculative, prefix-cache)."

/* --bench: the host bench report's cases predicted on the host profile it gives, as
 * `validate --host --bench FILE` does. */
static void
host_validation(struct rep_doc *d, const struct rp_ctx *ctx)
{
    const struct bench_report *r = ctx->bench;
    rep_section(d, 2, "Validation on the benchmarked host", false);
    rp_paraf(d,
             "The cases of the host bench report <tt>%s</tt> (%s, roofline %s), each predicted "
             "by the roofline on the host profile the report gives (its measured bandwidth and "
             "fp32 peak) and compared with the median of the measured samples, as "
             "<tt>roofline validate --host --bench FILE</tt> does. Error = (predicted - "
             "measured) / measured.",
             rp_esc(ctx->bench_path), rp_esc(r->date), rp_esc(r->version));
    static const char *const H[] = {"case", "phase", "predicted", "measured", "error", "bound"};
    struct rep_table *t = rep_table(d, 6, H, "llrrrl");
    double abs_err[BENCH_MAX_CASES];
    int m = 0;
    for (int i = 0; i < r->n_cases; i++) {
        const struct bench_case *c = &r->cases[i];
        if (c->calibration)
            continue; /* it set the GEMM efficiency: scoring it would predict itself */
        struct bench_prediction p;
        struct bench_host_terms terms = {r->roofs.launch_s, bench_report_overlap(r, ctx->bench_hw),
                                         bench_rate_best(r->attn_core_bytes, &r->attn_core)};
        bool ok = bench_predict_case(ctx->bench_hw, ctx->bench_model, c, &terms, &p) == 0;
        double e = ok ? bench_error_pct(p.predicted_s, c->meas.s.median) : NAN;
        char pr[32], me[32], er[32];
        const char *row[] = {rp_esc(c->id),
                             bench_phase_name(c->phase),
                             ok ? ex_time(pr, sizeof pr, p.predicted_s) : "-",
                             ex_time(me, sizeof me, c->meas.s.median),
                             er,
                             ok ? (p.memory_bound ? "memory" : "compute") : rp_esc(p.reason)};
        if (isfinite(e)) {
            snprintf(er, sizeof er, "%+.1f%%", e);
            abs_err[m++] = fabs(e);
        } else {
            snprintf(er, sizeof er, "-");
        }
        rep_table_row(t, row);
    }
    struct bench_error_summary es;
    bench_error_summarize(abs_err, m, &es);
    char cap[160];
    snprintf(cap, sizeof cap, "%d cases predicted; median |error| %.1f%%, 90th percentile %.1f%%.",
             m, es.median_abs_pct, es.p90_abs_pct);
    rep_table_caption(t, cap);
}

void
rp_trust(struct rep_doc *d, const struct rp_ctx *ctx, bool planned)
{
    rep_section(d, 1, "How far to trust it", true);
    if (planned)
        rep_para(d, "The numbers come from three sources, each labelled where it appears: the "
                    "engine-tuned roofline (<b>analytic</b>), the serving simulator driven by it "
                    "(<b>simulated</b>), and the prices and power figures with their sources "
                    "(<b>priced</b>). None was measured on your system. The 80% bands on page 1 "
                    "come from the held-out errors of the engine's predictions on the device "
                    "class, below.");
    else
        rep_para(d, ctx->engine
                        ? "<b>Every number in this report is analytic</b>: the per-operator "
                          "roofline of the device's datasheet, tuned to the engine by the shipped "
                          "calibration (efficiencies, per-kernel and per-step overheads). None is "
                          "simulated or measured on your system. The 80% bands on page 1 come from "
                          "the held-out errors of this engine on this device class."
                        : "<b>Every number in this report is analytic</b>: the per-operator "
                          "roofline of the device's datasheet at full efficiency, with no engine "
                          "overheads, so times are lower bounds an engine approaches but does not "
                          "reach. Give --engine to tune the model to an engine. None is simulated "
                          "or measured.");
    rep_section(d, 2, "Validation against published measurements", false);
    validation_table(d, ctx);
    if (ctx->bench && ctx->bench_hw && ctx->bench_model)
        host_validation(d, ctx);
    rep_section(d, 2, "What the model leaves out", false);
    rep_para(
        d, planned ? "\xe2\x80\xa2 The simulator's engine is a model of vLLM-like "
                     "scheduling (admission, batching, chunking, KV blocks); a real engine's "
                     "scheduler, preemption and memory fragmentation differ in detail.\n" LEAVES_OUT
                   : "\xe2\x80\xa2 Queueing and scheduling: this is one pass at a fixed "
                     "batch. Arrivals, waiting and the batch an engine actually forms are "
                     "the serving simulator's job (roofline simulate).\n" LEAVES_OUT);
}

/* ---- provenance ---- */

static void
datasheet_rows(struct rep_table *t, const struct hw_profile *hw, enum dtype gemm)
{
    char v[96], q[128];
    snprintf(q, sizeof q, "%s memory capacity", rp_esc(hw->id));
    const char *r1[] = {q, Q(hw->memory_capacity_bytes, "B", 3), rp_esc(hw_source(hw, "memory"))};
    rep_table_row(t, r1);
    if (hw->memory_reported_bytes > 0) {
        /* the total fits and KV pools use (hw_memory_bytes), in the binary unit devices report */
        const char *rs =
            source_of(hw->source_keys, hw->source_texts, hw->n_sources, "memory.reported");
        snprintf(q, sizeof q, "%s memory as the device reports it (used for fits)", rp_esc(hw->id));
        snprintf(v, sizeof v, "%.1f GiB", hw->memory_reported_bytes / UNIT_GIB);
        const char *r3[] = {q, v, rp_esc(rs ? rs : hw_source(hw, "memory"))};
        rep_table_row(t, r3);
    }
    snprintf(q, sizeof q, "%s memory bandwidth", rp_esc(hw->id));
    const char *r2[] = {q, Q(hw->memory_bandwidth_bytes_per_s, "B/s", 3),
                        rp_esc(hw_source(hw, "memory"))};
    rep_table_row(t, r2);
    enum dtype used;
    double peak = hw_peak(hw, gemm, &used);
    snprintf(q, sizeof q, "%s %s peak", rp_esc(hw->id), dtype_name(used));
    snprintf(v, sizeof v, "%s", Q(peak, "FLOP/s", 4));
    const char *r3[] = {q, v, rp_esc(hw_source(hw, "compute"))};
    rep_table_row(t, r3);
    double fp32 = hw_peak(hw, DT_FP32, NULL);
    if (used != DT_FP32 && fp32 > 0) {
        snprintf(q, sizeof q, "%s fp32 peak (vector work)", rp_esc(hw->id));
        const char *r4[] = {q, Q(fp32, "FLOP/s", 4), rp_esc(hw_source(hw, "compute"))};
        rep_table_row(t, r4);
    }
    if (hw->link_kind && hw->link_bandwidth_bytes_per_s > 0) {
        snprintf(q, sizeof q, "%s link (%s)", rp_esc(hw->id), rp_esc(hw->link_kind));
        const char *r5[] = {q, Q(hw->link_bandwidth_bytes_per_s, "B/s", 3),
                            rp_esc(hw_source(hw, "interconnect"))};
        rep_table_row(t, r5);
    }
    if (hw->tdp_w > 0) {
        snprintf(q, sizeof q, "%s power", rp_esc(hw->id));
        const char *r6[] = {q, Q(hw->tdp_w, "W", 3), rp_esc(hw_source(hw, "power"))};
        rep_table_row(t, r6);
    }
}

static void
file_row(struct rep_table *t, const char *what, const char *path)
{
    char hash[80];
    if (rp_sha256_file(path, hash, sizeof hash) != 0)
        snprintf(hash, sizeof hash, "(cannot be read)");
    char tt[96];
    snprintf(tt, sizeof tt, "<tt>%s</tt>", hash);
    const char *row[] = {what, rp_esc(rel_path(path)), tt};
    rep_table_row(t, row);
}

void
rp_provenance(struct rep_doc *d, const struct rp_ctx *ctx, const char *const *extra_files,
              int n_extra)
{
    rep_section(d, 1, "Provenance", true);
    rep_section(d, 2, "Datasheet numbers used", false);
    static const char *const H[] = {"quantity", "value", "source"};
    struct rep_table *t = rep_table(d, 3, H, "lrl");
    struct roof_result r;
    struct roof_config c = ctx->base;
    c.phase = ROOF_DECODE;
    enum dtype gemm = ctx->base.weights;
    if (ctx->n_hws > 0 && c.hw && c.model && roof_evaluate(&c, &r) == 0)
        gemm = r.gemm_dtype;
    for (int g = 0; g < ctx->n_hws; g++)
        datasheet_rows(t, ctx->hws[g], gemm);
    const struct mdl_profile *m = ctx->model;
    const char *msrc =
        m ? source_of(m->source_keys, m->source_texts, m->n_sources, "config") : NULL;
    char arch[256];
    if (!m)
        goto files;
    int na =
        snprintf(arch, sizeof arch, "%ld layers, hidden %ld, %ld heads (%ld KV), vocabulary %ld",
                 m->num_layers, m->hidden_size, m->num_heads, m->num_kv_heads, m->vocab_size);
    if (mdl_linear_layers(m) > 0 && na > 0 && (size_t)na < sizeof arch)
        snprintf(arch + na, sizeof arch - (size_t)na,
                 "; %ld linear-attention layers (%s) keep a fixed state, not a KV cache",
                 mdl_linear_layers(m), mdl_linear_kind_name(m));
    const char *mr[] = {rp_esc(m->id), arch, rp_esc(msrc ? msrc : "(no source in the profile)")};
    rep_table_row(t, mr);
    if (m->published_params > 0) {
        const char *ps =
            source_of(m->source_keys, m->source_texts, m->n_sources, "published_parameters");
        const char *pr[] = {"published parameters", ex_count(m->published_params),
                            rp_esc(ps ? ps : "(no source)")};
        rep_table_row(t, pr);
    }
files:
    rep_section(d, 2, "Files and their SHA-256", false);
    static const char *const FH[] = {"role", "path", "SHA-256"};
    struct rep_table *f = rep_table(d, 3, FH, "lll");
    for (int g = 0; g < ctx->n_hws; g++)
        file_row(f, "hardware profile", ctx->hws[g]->path);
    if (m)
        file_row(f, "model profile", m->path);
    char p[1024];
    if (ctx->engine) {
        snprintf(p, sizeof p, "%s/engine_profiles/%s.yaml", prof_data_dir(), ctx->engine);
        file_row(f, "engine profile", p);
        snprintf(p, sizeof p, "%s/calibration/device-classes.yaml", prof_data_dir());
        file_row(f, "calibration", p);
    }
    snprintf(p, sizeof p, "%s/calibration/measurements.yaml", prof_data_dir());
    file_row(f, "validation set", p);
    for (int i = 0; i < n_extra; i++)
        file_row(f, "input", extra_files[i]);
    rep_table_caption(f, "Paths inside the data directory are shown relative to it.");
    rep_section(d, 2, "Command and version", false);
    struct sb b = {0};
    sb_printf(&b, "roofline %s", ctx->command ? ctx->command : "report");
    for (int i = 1; i < ctx->argc; i++) { /* argv[0] is the command's name */
        const char *s = ctx->argv[i];
        bool plain = *s != '\0';
        for (const char *q = s; *q; q++)
            plain &= strchr(" \t'\"\\$`*?[]{}()<>|&;#~", *q) == NULL;
        if (plain) {
            sb_printf(&b, " %s", s);
        } else {
            sb_printf(&b, " '");
            for (const char *q = s; *q; q++)
                sb_printf(&b, *q == '\'' ? "'\\''" : "%c", *q);
            sb_printf(&b, "'");
        }
    }
    rep_code(d, sb_str(&b));
    sb_reset(&b);
    sb_printf(&b, "roofline version %s; data directory files as listed above.",
              rp_esc(ROOFLINE_VERSION));
    rep_para(d, sb_str(&b));
    sb_release(&b);
}

int
rp_analysis_report(struct rep_doc *d, struct rp_ctx *ctx)
{
    struct phase_pair pp;
    if (evaluate(ctx, ctx->hws[0], &pp, true) != 0) {
        fprintf(stderr, "error: cannot evaluate this configuration\n");
        return -1;
    }
    char sys[256], title[512], sub[1024];
    system_name(ctx, ctx->hws[0], sys, sizeof sys);
    snprintf(title, sizeof title, "%s on %s", ctx->model->id, sys);
    const struct roof_config *c = &ctx->base;
    snprintf(sub, sizeof sub,
             "Analysis report \xc2\xb7 batch %.0f, prompt %.0f, context %.0f \xc2\xb7 weights %s, "
             "activations %s, KV %s \xc2\xb7 %s \xc2\xb7 roofline %s",
             c->batch, c->prompt, c->context, dtype_name(c->weights), dtype_name(c->act),
             dtype_name(c->kv), ctx->engine ? rp_esc(ctx->engine) : "datasheet roofline",
             rp_esc(ROOFLINE_VERSION));
    char version[128];
    snprintf(version, sizeof version, "%s", ROOFLINE_VERSION);
    rep_set_meta(d, title, "LLM inference analysis: phase times, throughput, bound, memory",
                 "roofline, LLM inference", version, rp_epoch());
    rep_title(d, title, sub);
    rep_section(d, 1, "The answer", false);
    answer(d, ctx, &pp);
    compare_devices(d, ctx);
    rep_contents(d);
    if (rp_why(d, ctx) != 0)
        return -1;
    rp_trust(d, ctx, false);
    rp_provenance(d, ctx, NULL, 0);
    return 0;
}

/* ---- handouts ---- */

/* One line of a worked example in Pango markup: identifiers with an underscore get a subscript
 * (t_memory), a^(k+1) and x^5 a superscript, " x " a multiplication sign, " / " a division sign,
 * "~=" and " ~ " an approximately-equal sign, "->" an arrow. */
static void
formula_markup(const char *line, struct sb *out)
{
    const char *p = line;
    while (*p) {
        if (strncmp(p, " x ", 3) == 0) {
            sb_printf(out, " \xc3\x97 ");
            p += 3;
        } else if (strncmp(p, " / ", 3) == 0) {
            sb_printf(out, " \xc3\xb7 ");
            p += 3;
        } else if (strncmp(p, "~=", 2) == 0) {
            sb_printf(out, "\xe2\x89\x88");
            p += 2;
        } else if (strncmp(p, " ~ ", 3) == 0) {
            sb_printf(out, " \xe2\x89\x88 ");
            p += 3;
        } else if (strncmp(p, "->", 2) == 0) {
            sb_printf(out, "\xe2\x86\x92");
            p += 2;
        } else if (*p == '^') {
            p++;
            sb_printf(out, "<sup>");
            if (*p == '(') {
                int depth = 0;
                const char *q = p;
                for (; *q; q++) {
                    depth += *q == '(' ? 1 : *q == ')' ? -1 : 0;
                    if (depth == 0)
                        break;
                }
                for (const char *r = p + 1; r < q; r++)
                    sb_printf(out, "%s",
                              *r == '<'   ? "&lt;"
                              : *r == '&' ? "&amp;"
                                          : (char[]){*r, 0});
                p = *q ? q + 1 : q;
            } else {
                while (*p && (g_ascii_isalnum(*p) || *p == '.'))
                    sb_printf(out, "%c", *p++);
            }
            sb_printf(out, "</sup>");
        } else if (g_ascii_isalpha(*p) && (p == line || !g_ascii_isalnum(p[-1]))) {
            /* a word: subscript after its first underscore */
            const char *q = p;
            while (*q && (g_ascii_isalnum(*q) || *q == '_'))
                q++;
            const char *us = memchr(p, '_', (size_t)(q - p));
            /* variables only (t_memory, bytes_weights), not operator names (mlp_gate) */
            static const char *const VARS[] = {"t", "bytes", "flops", "n", "E", "T"};
            bool var = false;
            for (size_t k = 0; us && k < sizeof VARS / sizeof VARS[0]; k++)
                var |= strlen(VARS[k]) == (size_t)(us - p) &&
                       strncmp(p, VARS[k], (size_t)(us - p)) == 0;
            if (var && us + 1 < q) {
                sb_printf(out, "<i>%.*s</i><sub>%.*s</sub>", (int)(us - p), p, (int)(q - us - 1),
                          us + 1);
            } else {
                sb_printf(out, "%.*s", (int)(q - p), p);
            }
            p = q;
        } else if (*p == '<') {
            sb_printf(out, "&lt;");
            p++;
        } else if (*p == '>') {
            sb_printf(out, "&gt;");
            p++;
        } else if (*p == '&') {
            sb_printf(out, "&amp;");
            p++;
        } else {
            sb_printf(out, "%c", *p++);
        }
    }
}

/* A text table of the handout in monospace, without the indent its lines share (each line lost
 * all its leading spaces before, which shifted right-aligned columns: explain moe's rows from
 * batch 16 on stood one column left of the rows above). */
static void
code_block(struct rep_doc *d, const struct sb *code)
{
    const char *t = sb_str(code);
    size_t common = SIZE_MAX;
    for (const char *l = t; *l;) {
        size_t n = strspn(l, " ");
        if (l[n] != '\n' && l[n] != '\0' && n < common)
            common = n;
        const char *nl = strchr(l, '\n');
        if (!nl)
            break;
        l = nl + 1;
    }
    if (common == SIZE_MAX)
        common = 0;
    struct sb out = {0};
    for (const char *l = t; *l;) {
        const char *nl = strchr(l, '\n');
        size_t len = nl ? (size_t)(nl - l) : strlen(l);
        size_t skip = len < common ? len : common;
        sb_printf(&out, "%s%.*s", out.n ? "\n" : "", (int)(len - skip), l + skip);
        if (!nl)
            break;
        l = nl + 1;
    }
    rep_code(d, sb_str(&out));
    sb_release(&out);
}

int
rp_handout(struct rep_doc *d, const char *topic, const char *text, struct chart *chart,
           const char *caption, const struct rp_ctx *ctx)
{
    char title[256], version[128];
    snprintf(title, sizeof title, "roofline explain %s", topic);
    snprintf(version, sizeof version, "%s", ROOFLINE_VERSION);
    rep_set_meta(d, title, "A worked example, step by step", "roofline, LLM inference", version,
                 rp_epoch());
    /* the first paragraph (up to a blank line) is the subtitle */
    const char *body = strstr(text, "\n\n");
    size_t head = body ? (size_t)(body - text) : strlen(text);
    struct sb b = {0};
    char first[1024];
    snprintf(first, sizeof first, "%.*s", (int)(head < 1000 ? head : 1000), text);
    rep_title(d, title, rp_esc(first));
    rep_section(d, 1, "The worked example", false);
    if (chart) /* the picture first, the numbers behind it after */
        rep_chart(d, chart, chart_height_pt(chart), caption);
    const char *p = body ? body + 2 : text + head;
    struct sb para = {0}, code = {0};
    while (*p) {
        const char *nl = strchr(p, '\n');
        size_t n = nl ? (size_t)(nl - p) : strlen(p);
        char *line = g_strndup(p, n);
        p += n + (nl ? 1 : 0);
        bool indented = line[0] == ' ';
        bool step = strncmp(line, "Step ", 5) == 0;
        const char *lead = line;
        while (*lead == ' ')
            lead++;
        /* an indented line with aligned columns (two spaces inside) is a text table: monospace */
        bool columns = indented && strstr(lead, "  ") != NULL;
        if (code.n > 0 && !columns) {
            code_block(d, &code);
            sb_reset(&code);
        }
        if (columns) {
            if (para.n > 0) {
                rep_para(d, sb_str(&para));
                sb_reset(&para);
            }
            /* the line keeps its spaces (right-aligned columns); the block's common indent
             * goes at the flush */
            sb_printf(&code, "%s%s", code.n ? "\n" : "", line);
            g_free(line);
            continue;
        }
        if (para.n > 0 && (n == 0 || indented || step)) {
            rep_para(d, sb_str(&para));
            sb_reset(&para);
        }
        if (n == 0) {
            g_free(line);
            continue;
        }
        sb_reset(&b);
        if (indented) {
            const char *q = line;
            while (*q == ' ')
                q++;
            formula_markup(q, &b);
            rep_formula(d, sb_str(&b));
        } else if (step) {
            formula_markup(line, &b);
            struct sb s2 = {0};
            sb_printf(&s2, "<b>%s</b>", sb_str(&b));
            rep_para(d, sb_str(&s2));
            sb_release(&s2);
        } else {
            formula_markup(line, &b);
            sb_printf(&para, "%s%s", para.n ? "\n" : "", sb_str(&b));
        }
        g_free(line);
    }
    if (code.n > 0)
        code_block(d, &code);
    if (para.n > 0)
        rep_para(d, sb_str(&para));
    sb_release(&para);
    sb_release(&code);
    sb_release(&b);
    if (ctx->n_hws > 0)
        rp_provenance(d, ctx, NULL, 0);
    return 0;
}
