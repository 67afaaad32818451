/* The report of a capacity-planning question: the planner's result (plan/plan.h) laid out answer
 * first: the answer, the question and its assumptions, the options compared, why (the chosen
 * hardware's roofline), the serving simulation of the chosen plan, cost against volume, how far
 * to trust it, provenance. The sensitivity section is report_sens.c; the rest stays in one file
 * (about 1,100 lines) because every section is a static function over the same plan result and
 * shares the lookups and names (find_hw, rp_format_name, opt_name). docs/report.md */
#include "cli/report_plan.h"
#include "cli/caldata.h"
#include "cli/cli.h"
#include "cli/explain.h"
#include "cli/plan_cli.h"
#include "cli/report_parts.h"
#include "core/calib.h"
#include "io/profiles.h"
#include "plan/plan.h"
#include "render/chart_plan.h"
#include "render/chart_sim.h"
#include "render/charts.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifndef ROOFLINE_VERSION
#define ROOFLINE_VERSION "0.1"
#endif

#define CHART_H 260.0

static const char *
tm(double s)
{
    if (!isfinite(s))
        return "-";
    return T(s);
}

/* A time to three significant digits ("758 ms", "1.17 s"), for the wide options table. */
static const char *
tm3(double s)
{
    if (!isfinite(s))
        return "-";
    char *b = ex_ring();
    if (s < 1)
        snprintf(b, 64, "%.3g ms", s * 1e3);
    else
        snprintf(b, 64, "%.3g s", s);
    return b;
}

const char *
rp_format_name(const struct plan_format *f)
{
    char *b = ex_ring();
    const char *mk = f->moe_marlin ? " (Marlin MoE)" : "";
    if (f->kv == f->weights || f->kv == roof_default_kv(f->weights))
        snprintf(b, 64, "%s%s", dtype_name(f->weights), mk);
    else
        snprintf(b, 64, "%s, KV %s%s", dtype_name(f->weights), dtype_name(f->kv), mk);
    return b;
}

/* "l40s TP 1 fp8 chunked": an option as the volume chart's legend names it. */
static const char *
opt_name(const struct plan_option *op)
{
    char *b = ex_ring(), dp[16] = "";
    if (op->attn_dp > 1)
        snprintf(dp, sizeof dp, " DP %d", op->attn_dp);
    if (snprintf(b, 64, "%s TP %d%s %s %s", op->hw_id, op->tp, dp, rp_format_name(&op->format),
                 sim_policy_name(op->policy)) >= 64)
        b[60] = b[61] = b[62] = '.'; /* a very long id: cut, and marked as cut */
    return b;
}

static const char *
policy_words(enum sim_policy p)
{
    return p == SIM_CHUNKED         ? "chunked prefill"
           : p == SIM_CONTINUOUS    ? "continuous batching"
           : p == SIM_STATIC        ? "static batching"
           : p == SIM_DISAGGREGATED ? "disaggregated prefill/decode"
                                    : sim_policy_name(p);
}

#define find_hw plan_find_hw

/* "2 x b200 (TP 4, fp8, chunked prefill, max batch 256) = 8 devices"; without the fleet (an
 * option that meets nothing has none): "b200 (TP 4, ...)" */
static void
describe_as(const struct plan_option *op, bool fleet, struct sb *b)
{
    if (fleet)
        sb_printf(b, "%d x ", op->instances);
    char dp[32], rk[40] = "";
    roof_parallel_words(0, op->attn_dp, true, dp, sizeof dp);
    if (op->attn_dp > 1) /* each data-parallel attention rank's share */
        snprintf(rk, sizeof rk, ", %ld a rank", sim_rank_share(op->max_batch, op->attn_dp));
    if (op->policy == SIM_DISAGGREGATED)
        sb_printf(b, "(%d prefill%s%s + %d decode) %s (TP %d%s, PP %d, %s, disaggregated)",
                  op->prefill_instances, op->prefill_hw_id[0] ? " on " : "",
                  rp_esc(op->prefill_hw_id), op->decode_instances, rp_esc(op->hw_id), op->tp, dp,
                  op->pp, rp_format_name(&op->format));
    else
        sb_printf(b, "%s (TP %d%s%s%.0d, %s, %s, max batch %ld%s)", rp_esc(op->hw_id), op->tp, dp,
                  op->pp > 1 ? ", PP " : "", op->pp > 1 ? op->pp : 0, rp_format_name(&op->format),
                  policy_words(op->policy), op->max_batch, rk);
    if (fleet)
        sb_printf(b, " = %d device%s", op->devices, op->devices == 1 ? "" : "s");
}

static void
describe(const struct plan_option *op, struct sb *b)
{
    describe_as(op, op->instances > 0, b);
}

static void
slo_words(const struct plan_result *r, struct sb *b)
{
    if (!r->has_slo) {
        sb_printf(b, "no latency SLO (offline: throughput)");
        return;
    }
    sb_printf(b, "p%g", 100 * r->slo.target);
    const char *sep = " ";
    if (r->slo.ttft_s > 0) {
        sb_printf(b, "%sTTFT %s", sep, tm(r->slo.ttft_s));
        sep = ", ";
    }
    if (r->slo.itl_s > 0) {
        sb_printf(b, "%sITL %s", sep, tm(r->slo.itl_s));
        sep = ", ";
    }
    if (r->slo.e2e_s > 0)
        sb_printf(b, "%sE2E %s", sep, tm(r->slo.e2e_s));
}

/* The 80% band of the engine's calibrated errors on the device's class: log ratios of measured
 * over predicted time, per phase (0 decode, 1 prefill). False when none. */
static bool
bands_of(const struct plan_question *q, const struct hw_profile *hw, double band[4][2])
{
    memset(band, 0, sizeof(double) * 8);
    if (!q->engine || !hw)
        return false;
    struct roof_tuning tu;
    if (caldata_tuning(hw, q->engine, NULL, &tu, band) != 0)
        return false;
    return band[0][0] != 0 || band[0][1] != 0 || band[1][0] != 0 || band[1][1] != 0;
}

static const char *
band_range(double v, const double lr[2], bool inverse, const char *unit, int prec)
{
    if (!(lr[0] != 0 || lr[1] != 0) || !isfinite(v))
        return "-";
    double lo = inverse ? v * exp(-lr[1]) : v * exp(lr[0]);
    double hi = inverse ? v * exp(-lr[0]) : v * exp(lr[1]);
    char *b = ex_ring();
    if (strcmp(unit, "s") == 0) {
        char x[32], y[32];
        snprintf(b, 64, "%s .. %s", ex_time(x, sizeof x, lo), ex_time(y, sizeof y, hi));
    } else {
        snprintf(b, 64, "%.*g .. %.*g%s", prec, lo, prec, hi, unit);
    }
    return b;
}

/* ---- 1 the answer ---- */

static void
why_lost(const struct plan_question *q, const struct plan_option *best,
         const struct plan_option *op, struct sb *b)
{
    if (op->status == PLAN_SLO_NEAR_MISS || op->status == PLAN_SLO_MISSED) {
        sb_printf(b, "misses the SLO: %s", rp_esc(op->miss));
        return;
    }
    double vb, vo;
    const char *what;
    switch (q->objective) {
    case PLAN_MIN_COST_PER_MTOK:
    case PLAN_MAX_TOKENS_PER_DOLLAR:
        vb = best->cost_per_mtok_output, vo = op->cost_per_mtok_output;
        what = "per million output tokens";
        break;
    case PLAN_MIN_DEVICES:
        vb = best->devices, vo = op->devices;
        what = "devices";
        break;
    default:
        vb = best->cost_per_hour, vo = op->cost_per_hour;
        what = "per hour";
    }
    if (vo > vb * (1 + 1e-9)) {
        if (q->objective == PLAN_MIN_DEVICES)
            sb_printf(b, "needs %d devices, %d more", op->devices, op->devices - best->devices);
        else
            sb_printf(b, "costs %.1f%% more %s (%.2f against %.2f %s)", 100 * (vo / vb - 1), what,
                      vo, vb, q->currency);
        return;
    }
    double cb = (best->instances - best->spares) * best->rate_per_s;
    double co = (op->instances - op->spares) * op->rate_per_s;
    sb_printf(b, "same %s; less SLO-meeting capacity: %.3g requests/s against %.3g", what, co, cb);
}

/* Page 1's growth sentence, answer first: how long the chosen fleet covers the question's growth
 * and what it takes then. The planner's rules (plan.c): the fleet runs out in the first month
 * whose traffic exceeds its SLO-meeting capacity, (instances - spares) x the rate per instance
 * (closed loops: x users per instance); a fleet is sized at the planned utilisation plus spares.
 * The question has no start date, so months count from today. */
static void
growth_words(const struct plan_question *q, const struct plan_option *op, struct sb *b)
{
    bool users = q->workload == PLAN_WL_USERS && q->has_slo && op->users_per_instance >= 1;
    double today = users ? (double)q->users : q->rate_per_s, g = 1.0 + q->growth_per_month;
    const char *unit = users ? "users" : "requests/s";
    sb_printf(b,
              "\n<b>Growth</b> of %.0f%% a month from today's %.4g %s: ", 100 * q->growth_per_month,
              today, unit);
    int m = op->exhaust_month;
    if (m <= 0) {
        sb_printf(b, "this fleet <b>covers the whole %d-month horizon</b> (%.4g %s in month %d).",
                  q->horizon_months, today * pow(g, q->horizon_months), unit, q->horizon_months);
        return;
    }
    double at = today * pow(g, m);
    double per = users ? floor(op->users_per_instance * q->utilisation + 1e-9)
                       : op->rate_per_s * q->utilisation;
    int need = (int)ceil(at / (per >= 1e-12 ? per : 1e-12) - 1e-9) + q->spares;
    if (m == 1)
        sb_printf(b, "this fleet <b>covers today's traffic only</b>");
    else
        sb_printf(b, "this fleet <b>covers growth until month %d</b> (%.4g %s)", m - 1,
                  today * pow(g, m - 1), unit);
    sb_printf(b,
              "; in month %d (%.4g %s) it runs out: then add %d instance%s (%d in all, at the "
              "planned %.0f%% utilisation%s).",
              m, at, unit, need - op->instances, need - op->instances == 1 ? "" : "s", need,
              100 * q->utilisation, q->spares > 0 ? " with the spares" : "");
}

static void
answer(struct rep_doc *d, const struct plan_question *q, const struct plan_result *r,
       struct rp_ctx *ctx)
{
    struct sb b = {0}, s = {0};
    slo_words(r, &s);
    const char *money = q->money == PLAN_BUY ? "Buy" : "Rent";
    if (r->chosen >= 0) {
        const struct plan_option *op = &r->options[r->chosen];
        sb_printf(&b, "<b>%s ", money);
        describe(op, &b);
        if (q->workload == PLAN_WL_USERS)
            sb_printf(&b, "</b> for %ld users of %s (about %.4g requests/s).\n", q->users,
                      rp_esc(r->model_id), r->rate_per_s);
        else
            sb_printf(&b, "</b> for %.4g requests/s of %s.\n", r->rate_per_s, rp_esc(r->model_id));
        sb_printf(&b,
                  "Cost: <b>%.2f %s per hour</b>, <b>%.3f %s per million output tokens</b> "
                  "(%.3f blended)",
                  op->cost_per_hour, q->currency, op->cost_per_mtok_output, q->currency,
                  op->cost_per_mtok_blended);
        if (isfinite(op->tco_per_year))
            sb_printf(&b, ", <b>TCO %.0f %s per year</b>", op->tco_per_year, q->currency);
        if (isfinite(op->power_w))
            sb_printf(&b, "; %.1f kW", op->power_w / 1000);
        sb_printf(&b, ".\n");
        struct strbuf note = {0};
        if (cli_plan_basis_note(q, r, &note) && !note.failed)
            sb_printf(&b, "<b>Note</b>: %s.\n", rp_esc(note.buf));
        strbuf_release(&note);
        if (r->has_slo) {
            sb_printf(&b, "At the planned load it meets %s: ", sb_str(&s));
            const char *sep = "";
            if (r->slo.ttft_s > 0) {
                sb_printf(&b, "TTFT p99 <b>%s</b> (bound \xc3\xb7 p99 = %.2f)", tm(op->ttft_p99_s),
                          op->margin_ttft);
                sep = ", ";
            }
            if (r->slo.itl_s > 0)
                sb_printf(&b, "%sITL p99 <b>%s</b> (%.2f)", sep, tm(op->itl_p99_s), op->margin_itl);
            sb_printf(&b, " (%s).", op->simulated ? "simulated" : "analytic estimate");
            if (r->slo.target < 0.99 &&
                (op->margin_ttft < 1 || op->margin_itl < 1 || op->margin_e2e < 1))
                sb_printf(&b,
                          " The SLO is at the %gth percentile, which it meets; the p99 "
                          "shown is the tail beyond it.",
                          100 * r->slo.target);
        } else if (q->workload == PLAN_WL_OFFLINE) {
            if (q->offline_requests >= 1e6)
                sb_printf(&b, "It finishes %.4g million documents", q->offline_requests / 1e6);
            else
                sb_printf(&b, "It finishes %.0f documents", q->offline_requests);
            sb_printf(&b, " in %.1f hours (deadline %.1f h).", op->offline_hours,
                      q->offline_deadline_s / 3600);
        }
        if (q->growth_per_month > 0)
            growth_words(q, op, &b);
        char dp[32];
        roof_parallel_words(0, op->attn_dp, false, dp, sizeof dp);
        snprintf(ctx->answer, sizeof ctx->answer,
                 "%s %d x %s (tp %d%s, %s, %s) = %d device%s: %.2f %s/hour, %.3f %s per million "
                 "output tokens",
                 q->money == PLAN_BUY ? "buy" : "rent", op->instances, op->hw_id, op->tp, dp,
                 rp_format_name(&op->format), sim_policy_name(op->policy), op->devices,
                 op->devices == 1 ? "" : "s", op->cost_per_hour, q->currency,
                 op->cost_per_mtok_output, q->currency);
    } else {
        sb_printf(&b,
                  "<span foreground='#D55E00'><b>No option meets %s at %.4g requests/s.</b></span> "
                  "%d candidates, %d rejected.%s\n",
                  sb_str(&s), r->rate_per_s, r->n_candidates, r->n_rejected,
                  r->n_shown ? " The closest:" : "");
        if (r->n_shown == 0) {
            sb_printf(&b, "Every candidate was rejected before the search:");
            const char *sep = " ";
            for (int k = 0; k < PLAN_REJ_COUNT; k++)
                if (r->rejected_by[k]) {
                    sb_printf(&b, "%s%s %ld", sep, plan_reject_kind_name((enum plan_reject_kind)k),
                              r->rejected_by[k]);
                    sep = ", ";
                }
            sb_printf(&b, ". For example:\n");
            for (int k = 0; k < r->n_rejected && k < 3; k++)
                sb_printf(&b, "%d. %s TP %d %s: %s\n", k + 1, rp_esc(r->rejected[k].hw_id),
                          r->rejected[k].tp, rp_format_name(&r->rejected[k].format),
                          rp_esc(r->rejected[k].reason));
        }
        for (int k = 0; k < r->n_shown && k < 3; k++) {
            const struct plan_option *op = &r->options[r->shown[k]];
            sb_printf(&b, "%d. ", k + 1);
            describe(op, &b);
            sb_printf(&b, " misses by %.2fx: %s\n", op->miss_factor,
                      op->miss[0] ? rp_esc(op->miss) : "no price");
        }
        if (r->n_shown > 0)
            snprintf(ctx->answer, sizeof ctx->answer,
                     "no option meets the SLO at %.4g requests/s; closest: %s tp %d (misses by "
                     "%.2fx)",
                     r->rate_per_s, r->options[r->shown[0]].hw_id, r->options[r->shown[0]].tp,
                     r->options[r->shown[0]].miss_factor);
        else
            snprintf(ctx->answer, sizeof ctx->answer,
                     "no option meets the SLO at %.4g requests/s: all %d candidates were "
                     "rejected (the report lists why)",
                     r->rate_per_s, r->n_candidates);
    }
    rep_box(d, sb_str(&b));
    if (r->chosen < 0) {
        sb_release(&b);
        sb_release(&s);
        return;
    }
    const struct plan_option *op = &r->options[r->chosen];
    double band[4][2];
    bool hb = bands_of(q, find_hw(q, op->hw_id), band);
    static const char *const H[] = {"key number", "value", "how", "80% band"};
    struct rep_table *t = rep_table(d, 4, H, "lrll");
    const char *how_lat = op->simulated ? "simulated" : "analytic";
    char v[64];
    snprintf(v, sizeof v, "%d", op->devices);
    const char *r0[] = {"devices (whole servers)", v, "planned", "-"};
    rep_table_row(t, r0);
    char c1[64];
    snprintf(c1, sizeof c1, "%.2f %s", op->cost_per_hour, q->currency);
    const char *r1[] = {"cost per hour", c1, "price x devices", "-"};
    rep_table_row(t, r1);
    char c2[64];
    snprintf(c2, sizeof c2, "%.3f %s", op->cost_per_mtok_output, q->currency);
    const char *r2[] = {"cost per million output tokens", c2, how_lat,
                        hb ? band_range(op->cost_per_mtok_output, band[0], false, "", 3) : "-"};
    rep_table_row(t, r2);
    if (isfinite(op->tco_per_year)) {
        char c3[64];
        snprintf(c3, sizeof c3, "%.0f %s", op->tco_per_year, q->currency);
        const char *r3[] = {"TCO per year", c3, "TCO model", "-"};
        rep_table_row(t, r3);
    }
    char c4[64];
    snprintf(c4, sizeof c4, "%.4g", op->rate_per_s);
    const char *r4[] = {"SLO-meeting requests/s per instance", c4, how_lat,
                        hb ? band_range(op->rate_per_s, band[0], true, "", 3) : "-"};
    rep_table_row(t, r4);
    if (r->has_slo) {
        const char *r5[] = {"TTFT p99 at the planned load", tm(op->ttft_p99_s), how_lat,
                            hb ? band_range(op->ttft_p99_s, band[1], false, "s", 0) : "-"};
        rep_table_row(t, r5);
        const char *r6[] = {"ITL p99 at the planned load", tm(op->itl_p99_s), how_lat,
                            hb ? band_range(op->itl_p99_s, band[0], false, "s", 0) : "-"};
        rep_table_row(t, r6);
    }
    if (isfinite(op->power_w)) {
        char c7[64];
        snprintf(c7, sizeof c7, "%.1f kW", op->power_w / 1000);
        const char *r7[] = {"power (with host and PUE)", c7, "TDP x utilisation", "-"};
        rep_table_row(t, r7);
    }
    rep_table_caption(
        t, hb ? "80% band: the 10th to 90th percentile of the held-out errors of the engine's "
                "predictions on this device class (decode for costs, rates and ITL, prefill for "
                "TTFT), applied to the number."
              : "No band: the question names no calibrated engine for this device class.");
    if (r->n_shown > 1) {
        static const char *const RH[] = {"runner-up", "devices", "cost/hour", "cost/Mtok out",
                                         "why it lost"};
        struct rep_table *u = rep_table(d, 5, RH, "lrrrl");
        for (int k = 1; k < r->n_shown && k < 3; k++) {
            const struct plan_option *ru = &r->options[r->shown[k]];
            struct sb x = {0}, y = {0};
            describe(ru, &x);
            why_lost(q, op, ru, &y);
            char dv[32], ch[32], cm[32];
            snprintf(dv, sizeof dv, "%d", ru->devices);
            snprintf(ch, sizeof ch, "%.2f", ru->cost_per_hour);
            snprintf(cm, sizeof cm, "%.3f", ru->cost_per_mtok_output);
            const char *row[] = {sb_str(&x), dv, ch, cm, sb_str(&y)};
            rep_table_row(u, row);
            sb_release(&x);
            sb_release(&y);
        }
    }
    sb_release(&b);
    sb_release(&s);
}

/* ---- 2 the question ---- */

static void
dist_words(const struct sim_dist *dd, struct sb *b)
{
    switch (dd->kind) {
    case SIM_DIST_FIXED:
        sb_printf(b, "%.0f tokens", dd->value);
        break;
    case SIM_DIST_UNIFORM:
        sb_printf(b, "uniform %.0f..%.0f tokens", dd->min, dd->max);
        break;
    case SIM_DIST_LOGNORMAL:
        sb_printf(b, "lognormal, mean %.0f, sd %.0f tokens", dd->mean, dd->sd);
        if (dd->max > 0)
            sb_printf(b, ", at most %.0f", dd->max);
        break;
    default:
        sb_printf(b, "from a trace, mean %.0f tokens, at most %.0f", dd->mean, dd->max);
    }
}

static void
question(struct rep_doc *d, const struct plan_question *q, const struct plan_result *r)
{
    rep_section(d, 1, "The question and every assumption", true);
    struct sb b = {0};
    sb_printf(&b, "<b>Model</b> %s, engine %s. <b>Workload</b>: ", rp_esc(q->model->id),
              q->engine ? rp_esc(q->engine) : "none (datasheet roofline)");
    switch (q->workload) {
    case PLAN_WL_TOKENS_PER_MONTH:
        sb_printf(&b,
                  "%.4g tokens per month at a peak-to-mean factor of %.3g, planned at %.4g "
                  "requests/s; ",
                  q->tokens_per_month, q->peak_to_mean, r->rate_per_s);
        break;
    case PLAN_WL_USERS:
        sb_printf(&b, "%ld users with %s of think time, %.4g requests/s; ", q->users,
                  tm(q->think_time_s), r->rate_per_s);
        break;
    case PLAN_WL_OFFLINE:
        sb_printf(&b, "%.0f documents within %.1f hours (%.4g requests/s); ", q->offline_requests,
                  q->offline_deadline_s / 3600, r->rate_per_s);
        break;
    default:
        sb_printf(&b, "%.4g requests/s (%s%s); ", r->rate_per_s,
                  q->process == SIM_POISSON ? "Poisson" : "bursty, gamma cv ",
                  q->process == SIM_POISSON ? "" : ex_count(q->cv));
    }
    sb_printf(&b, "prompts ");
    dist_words(&q->prompt, &b);
    sb_printf(&b, "; outputs ");
    dist_words(&q->output, &b);
    sb_printf(&b, ".\n<b>SLO</b>: ");
    slo_words(r, &b);
    sb_printf(&b, " (%s%s%ssource: %s).\n", r->slo_preset[0] ? "preset " : "",
              rp_esc(r->slo_preset), r->slo_preset[0] ? "; " : "", rp_esc(r->slo_source));
    sb_printf(&b, "<b>Candidates</b>: %d devices (", q->n_hw);
    for (int i = 0; i < q->n_hw; i++)
        sb_printf(&b, "%s%s", i ? ", " : "", rp_esc(q->hw[i]->id));
    sb_printf(&b, "), TP ");
    for (int i = 0; i < q->n_tp; i++)
        sb_printf(&b, "%s%d", i ? ", " : "", q->tp[i]);
    /* data-parallel attention where the question lists it or the planner tried it */
    bool tried = !q->attn_dp_auto;
    for (int i = 0; i < r->n_options; i++)
        tried = tried || r->options[i].attn_dp > 1;
    if (tried && q->attn_dp_auto) {
        sb_printf(&b, " (with data-parallel attention at each TP, where TP copies the KV cache)");
    } else if (tried) {
        sb_printf(&b, ", attention DP ");
        for (int i = 0; i < q->n_attn_dp; i++)
            sb_printf(&b, "%s%d", i ? ", " : "", q->attn_dp[i]);
    }
    sb_printf(&b, ", formats ");
    for (int i = 0; i < q->n_formats; i++)
        sb_printf(&b, "%s%s", i ? ", " : "", rp_format_name(&q->formats[i]));
    sb_printf(&b, ", schedulers ");
    for (int i = 0; i < q->n_policies; i++)
        sb_printf(&b, "%s%s", i ? ", " : "", policy_words(q->policies[i]));
    sb_printf(&b,
              ": %d candidates in all.\n<b>Money</b>: %s, in %s; objective %s; planned at "
              "%.0f%% of each instance's SLO-meeting rate with %d spare instance%s per pool.",
              r->n_candidates, q->money == PLAN_BUY ? "purchase (TCO)" : "rental",
              rp_esc(q->currency), plan_objective_name(q->objective), 100 * q->utilisation,
              q->spares, q->spares == 1 ? "" : "s");
    rep_para(d, sb_str(&b));
    sb_release(&b);
    rep_section(d, 2, "Assumptions", false);
    static const char *const H[] = {"assumption", "value", "source"};
    struct rep_table *t = rep_table(d, 3, H, "lll");
    for (int i = 0; i < r->n_assumptions; i++) {
        const struct plan_assumption *a = &r->assumptions[i];
        char src[PLAN_TEXT + 32];
        snprintf(src, sizeof src, "%s%s", a->is_default ? "<i>default</i>: " : "",
                 rp_esc(a->source));
        const char *row[] = {rp_esc(a->key), rp_esc(a->value), src};
        rep_table_row(t, row);
    }
    rep_table_caption(t, "Values marked default were filled in by the planner; the others come "
                         "from the question.");
    rep_section(d, 2, "Prices of the options shown", false);
    static const char *const PH[] = {"option", "per device-hour", "basis"};
    struct rep_table *p = rep_table(d, 3, PH, "lrl");
    for (int k = 0; k < r->n_shown; k++) {
        const struct plan_option *op = &r->options[r->shown[k]];
        bool seen = false;
        for (int j = 0; j < k; j++)
            seen |= strcmp(r->options[r->shown[j]].hw_id, op->hw_id) == 0;
        if (seen)
            continue;
        char pr[48];
        snprintf(pr, sizeof pr, "%.3f %s", op->device_price_per_hour, q->currency);
        char name[96];
        snprintf(name, sizeof name, "%s (%s)", rp_esc(op->hw_id),
                 plan_price_origin_name(op->price_origin));
        const char *row[] = {name, pr, rp_esc(op->price_basis)};
        rep_table_row(p, row);
    }
}

/* ---- 3 options compared ---- */

static uint32_t
hw_colour(const struct plan_result *r, const char *hw_id, char ids[5][PLAN_NAME], int *n)
{
    static const uint32_t C[5] = {CHART_BLUE, CHART_VERMILLION, CHART_GREEN, CHART_PURPLE,
                                  CHART_ORANGE};
    (void)r;
    for (int i = 0; i < *n; i++)
        if (strcmp(ids[i], hw_id) == 0)
            return C[i];
    if (*n < 5) {
        snprintf(ids[*n], PLAN_NAME, "%s", hw_id);
        return C[(*n)++];
    }
    return CHART_GREY;
}

/* Points per option: (x, y) on log axes, coloured by hardware (the first five by rank), the
 * chosen option ringed. */
static struct chart *
scatter(const struct plan_result *r, const char *title, const char *sub, const char *xt,
        const char *xu, const char *yt, const char *yu, double (*fx)(const struct plan_option *),
        double (*fy)(const struct plan_option *))
{
    struct chart *c = chart_new();
    if (!c)
        return NULL;
    snprintf(c->title, sizeof c->title, "%s", title);
    snprintf(c->subtitle, sizeof c->subtitle, "%s", sub);
    struct chart_panel *p = chart_add_panel(c);
    double xl = INFINITY, xh = 0, yl = INFINITY, yh = 0;
    for (int i = 0; i < r->n_options; i++) {
        double x = fx(&r->options[i]), y = fy(&r->options[i]);
        if (!(x > 0) || !(y > 0) || !isfinite(x) || !isfinite(y))
            continue;
        xl = fmin(xl, x), xh = fmax(xh, x), yl = fmin(yl, y), yh = fmax(yh, y);
    }
    double x0, x1, y0, y1;
    if (!(xh > 0) || chart_log_bounds(xl, xh, 1.3, &x0, &x1) != 0 ||
        chart_log_bounds(yl, yh, 1.3, &y0, &y1) != 0) {
        chart_free(c);
        return NULL;
    }
    chart_axis_set(&p->x, CHART_LOG, x0, x1, xt, xu);
    chart_axis_set(&p->y, CHART_LOG, y0, y1, yt, yu);
    char ids[5][PLAN_NAME];
    int n_ids = 0;
    /* colours by the rank of each hardware's best option; grey first so colours sit on top */
    for (int i = 0; i < r->n_options && n_ids < 5; i++)
        hw_colour(r, r->options[i].hw_id, ids, &n_ids);
    for (int pass = 0; pass < 2; pass++)
        for (int i = r->n_options - 1; i >= 0; i--) {
            const struct plan_option *op = &r->options[i];
            double x = fx(op), y = fy(op);
            if (!(x > 0) || !(y > 0) || !isfinite(x) || !isfinite(y))
                continue;
            int full = 5; /* lookup only: the table is full, unknown ids come back grey */
            uint32_t col = n_ids < 5 ? CHART_GREY : hw_colour(r, op->hw_id, ids, &full);
            if (n_ids < 5) {
                for (int k = 0; k < n_ids; k++)
                    if (strcmp(ids[k], op->hw_id) == 0)
                        col = hw_colour(r, op->hw_id, ids, &n_ids);
            }
            if ((col == CHART_GREY) != (pass == 0))
                continue;
            struct chart_style s = {.rgb = col,
                                    .line_px = 0,
                                    .marker =
                                        op->status == PLAN_SLO_MET || op->status == PLAN_SLO_NONE
                                            ? CHART_MARKER_CIRCLE
                                            : CHART_MARKER_CROSS,
                                    .marker_px = 16,
                                    .filled = true,
                                    .fill_rgb = col,
                                    .fill_alpha = 0.55};
            if (op->status != PLAN_SLO_MET && op->status != PLAN_SLO_NONE)
                s.line_px = 1.5;
            chart_add_point(c, p, x, y, &s);
        }
    /* legend: hardware by rank of its best option */
    for (int i = 0; i < n_ids; i++) {
        static const uint32_t C[5] = {CHART_BLUE, CHART_VERMILLION, CHART_GREEN, CHART_PURPLE,
                                      CHART_ORANGE};
        struct chart_style s = {.rgb = C[i],
                                .marker = CHART_MARKER_CIRCLE,
                                .marker_px = 16,
                                .filled = true,
                                .fill_rgb = C[i],
                                .fill_alpha = 0.55};
        chart_add_legend(c, p, ids[i], &s, false);
    }
    struct chart_style g = {.rgb = CHART_GREY,
                            .marker = CHART_MARKER_CIRCLE,
                            .marker_px = 16,
                            .filled = true,
                            .fill_rgb = CHART_GREY,
                            .fill_alpha = 0.55};
    chart_add_legend(c, p, "other hardware", &g, false);
    struct chart_style x = {
        .rgb = CHART_BLACK, .line_px = 1.5, .marker = CHART_MARKER_CROSS, .marker_px = 16};
    bool any_miss = false;
    for (int i = 0; i < r->n_options; i++)
        any_miss |= r->options[i].status != PLAN_SLO_MET && r->options[i].status != PLAN_SLO_NONE;
    if (any_miss)
        chart_add_legend(c, p, "misses the SLO", &x, false);
    if (r->chosen >= 0) {
        const struct plan_option *op = &r->options[r->chosen];
        struct chart_style ring = {
            .rgb = CHART_BLACK, .line_px = 2.5, .marker = CHART_MARKER_CIRCLE, .marker_px = 30};
        chart_add_point(c, p, fx(op), fy(op), &ring);
        struct chart_label *l = chart_add_label(c, p, "chosen", fx(op), fy(op), 10, CHART_BLACK);
        if (l)
            l->bold = true;
    }
    return c;
}

static double
px_user(const struct plan_option *o)
{
    return o->output_tokens_per_s_per_user;
}
static double
py_device(const struct plan_option *o)
{
    return o->output_tokens_per_s_planned * (o->policy == SIM_DISAGGREGATED ? 1 : 1) /
           (o->devices_per_instance > 0 ? o->devices_per_instance : 1);
}
static double
px_itl(const struct plan_option *o)
{
    return o->itl_p99_s;
}
static double
py_mtok(const struct plan_option *o)
{
    return o->cost_per_mtok_output;
}

#define REJ_PER_KIND 6

/* Which rejected candidates to list: per kind, up to REJ_PER_KIND, first one per device (the
 * first 40 in candidate order were 40 rows of one or two devices), then the next ones. Fills
 * pick[] with indices into r->rejected, grouped by kind; returns how many. */
static int
rejected_sample(const struct plan_result *r, int *pick)
{
    int n = 0;
    for (int k = 0; k < PLAN_REJ_COUNT; k++) {
        int start = n;
        for (int pass = 0; pass < 2; pass++)
            for (int i = 0; i < r->n_rejected && n - start < REJ_PER_KIND; i++) {
                const struct plan_rejected *j = &r->rejected[i];
                if ((int)j->kind != k)
                    continue;
                bool taken = false, same_hw = false;
                for (int m = start; m < n; m++) {
                    taken |= pick[m] == i;
                    same_hw |= strcmp(r->rejected[pick[m]].hw_id, j->hw_id) == 0;
                }
                if (!taken && (pass == 1 || !same_hw))
                    pick[n++] = i;
            }
    }
    return n;
}

static void
options(struct rep_doc *d, const struct plan_question *q, const struct plan_result *r,
        const struct plan_opts *o)
{
    rep_section(d, 1, "Options compared", true);
    rp_paraf(d,
             "%d of %d candidates were evaluated; the analytic estimate bounded each one's "
             "SLO-meeting rate and the serving simulator confirmed the best %d. Ranked by %s "
             "(met first, then near misses within 1.2x, then misses).",
             r->n_options, r->n_candidates, r->n_simulated, plan_objective_name(q->objective));
    struct sb b = {0};
    static const char *const H[] = {"#",       "hardware", "TP",  "format", "scheduler",
                                    "inst",    "devices",  "$/h", "$/Mtok", "TTFT p99",
                                    "ITL p99", "status",   "by"};
    struct rep_table *t = rep_table(d, 13, H, "rlrllrrrrrrll");
    int lim = r->n_options < 20 ? r->n_options : 20;
    for (int i = 0; i < lim; i++) {
        const struct plan_option *op = &r->options[i];
        char rk[16], tp[32], in[16], dv[16], ch[32], cm[32];
        snprintf(rk, sizeof rk, "%d", i + 1);
        /* data-parallel attention beside the tp: "8, DP 8" */
        if (op->attn_dp > 1)
            snprintf(tp, sizeof tp, "%d, DP %d", op->tp, op->attn_dp);
        else
            snprintf(tp, sizeof tp, "%d", op->tp);
        /* an option that meets nothing has no fleet, one without a price no cost */
        snprintf(in, sizeof in, op->instances > 0 ? "%d" : "-", op->instances);
        snprintf(dv, sizeof dv, op->devices > 0 ? "%d" : "-", op->devices);
        snprintf(ch, sizeof ch, isfinite(op->cost_per_hour) ? "%.2f" : "-", op->cost_per_hour);
        snprintf(cm, sizeof cm, isfinite(op->cost_per_mtok_output) ? "%.3f" : "-",
                 op->cost_per_mtok_output);
        char hw[PLAN_NAME * 2 + 8];
        if (op->prefill_hw_id[0])
            snprintf(hw, sizeof hw, "%s / %s", op->prefill_hw_id, op->hw_id);
        else
            snprintf(hw, sizeof hw, "%s", op->hw_id);
        const char *row[] = {rk,
                             rp_esc(hw),
                             tp,
                             rp_format_name(&op->format),
                             sim_policy_name(op->policy),
                             in,
                             dv,
                             ch,
                             cm,
                             tm3(op->ttft_p99_s),
                             tm3(op->itl_p99_s),
                             plan_status_name(op->status),
                             op->simulated ? "sim" : "analytic"};
        rep_table_row(t, row);
    }
    sb_reset(&b);
    sb_printf(&b, "Costs in %s. The first %d of %d options; roofline plan -o csv lists all.",
              rp_esc(q->currency), lim, r->n_options);
    rep_table_caption(t, sb_str(&b));
    /* the planner's own chart (Pareto fronts per hardware and format from its analytic
     * sweeps, cost against latency); when it has none (no option meets the SLO at any rate),
     * each option at its planned load */
    struct err_list errs = {0};
    struct chart *c = chart_build_plan(q, o, r, &errs);
    err_list_release(&errs);
    if (c) {
        rep_chart(d, c, 400,
                  "Left: output tokens/s per device against tokens/s per user, one Pareto front "
                  "per hardware and format (up and right is better). Right: cost per million "
                  "output tokens against p99 TTFT (down and left is better). roofline chart "
                  "plan draws the same.");
    } else {
        c = scatter(r, "Throughput per device against speed per user",
                    "each option at its planned load; ringed: the chosen plan",
                    "output tokens/s per user (1 / TPOT)", "", "output tokens/s per device", "",
                    px_user, py_device);
        if (c)
            rep_chart(d, c, CHART_H,
                      "Up and right is better: options on the upper-right edge are the ones no "
                      "other option beats on both.");
        if (r->has_slo) {
            c = scatter(r, "Cost against latency", "cost per million output tokens against p99 ITL",
                        "ITL p99 at the planned load", "s", "cost per million output tokens", "",
                        px_itl, py_mtok);
            if (c) {
                c->panels[0].x.sub_unit = true;
                rep_chart(d, c, CHART_H, "Down and left is better.");
            }
        }
    }
    rep_section(d, 2, "Rejected candidates", false);
    if (r->n_rejected == 0) {
        rp_paraf(d, "None of the %d candidates was rejected.", r->n_candidates);
        sb_release(&b);
        return;
    }
    sb_reset(&b);
    sb_printf(&b, "%d of %d candidates were rejected: ", r->n_rejected, r->n_candidates);
    const char *sep = "";
    for (int k = 0; k < PLAN_REJ_COUNT; k++)
        if (r->rejected_by[k]) {
            sb_printf(&b, "%s%s %ld", sep, plan_reject_kind_name((enum plan_reject_kind)k),
                      r->rejected_by[k]);
            sep = ", ";
        }
    sb_printf(&b,
              ". Up to %d of each kind with the reason, one per device first (roofline "
              "plan -o json lists all):",
              REJ_PER_KIND);
    rep_para(d, sb_str(&b));
    static const char *const RH[] = {"candidate", "reason"};
    struct rep_table *u = rep_table(d, 2, RH, "ll");
    int pick[PLAN_REJ_COUNT * REJ_PER_KIND];
    int rl = rejected_sample(r, pick);
    for (int i = 0; i < rl; i++) {
        const struct plan_rejected *j = &r->rejected[pick[i]];
        char cand[160];
        char dp[16] = "";
        if (j->attn_dp > 1)
            snprintf(dp, sizeof dp, " DP %d", j->attn_dp);
        snprintf(cand, sizeof cand, "%s TP %d%s PP %d %s %s", j->hw_id, j->tp, dp, j->pp,
                 rp_format_name(&j->format), sim_policy_name(j->policy));
        const char *row[] = {rp_esc(cand), rp_esc(j->reason)};
        rep_table_row(u, row);
    }
    sb_release(&b);
}

/* ---- 5 the serving simulation ---- */

static void
simulation(struct rep_doc *d, const struct plan_question *q, const struct plan_result *r,
           const struct plan_opts *o)
{
    if (r->chosen < 0)
        return;
    const struct plan_option *op = &r->options[r->chosen];
    struct sim_config cfg;
    double rate = op->planned_rate_per_instance_s;
    /* the planner's own adapter (plan.h), so the report and the planner cannot drift */
    if (!(rate > 0) || op->policy == SIM_DISAGGREGATED ||
        plan_option_sim_config(q, o, op, rate, &cfg) != 0)
        return;
    cfg.timeline_points = 0; /* the full timeline for the chart */
    struct sim_workload open = cfg.work;
    int serving = op->instances - op->spares;
    bool users = q->workload == PLAN_WL_USERS && serving > 0;
    if (users) {
        /* as the planner simulates the planned load (plan.c planned_load): a closed loop of
         * the users spread evenly over the serving instances, each with its think time */
        cfg.work.process = SIM_CLOSED;
        cfg.work.users = (q->users + serving - 1) / serving;
        cfg.work.think_time_s = q->think_time_s;
    }
    rep_section(d, 1, "Serving simulation of the chosen plan", true);
    struct sim_result sr;
    struct err_list errs = {0};
    if (sim_run(&cfg, &sr, &errs) != 0) {
        rep_para(d, "The simulation of the chosen plan failed; see the planner's output.");
        err_list_release(&errs);
        return;
    }
    struct sb b = {0};
    if (users)
        sb_printf(&b,
                  "One instance of the chosen plan at its planned load: %ld of the %ld users "
                  "(a closed loop, %.3g s of think time between a reply and the next request; "
                  "about %.4g requests/s), %ld simulated requests with the question's seed. ",
                  cfg.work.users, q->users, q->think_time_s, rate, sr.completed);
    else
        sb_printf(&b,
                  "One instance of the chosen plan at its planned load, %.4g requests/s (the "
                  "fleet's %.4g requests/s over %d serving instances), %ld simulated requests "
                  "with the question's seed. ",
                  rate, r->rate_per_s, serving, sr.completed);
    /* an offline question has no latency SLO, so nothing to attain */
    bool attain = r->has_slo && isfinite(sr.slo_attainment);
    if (attain)
        sb_printf(&b, "Attainment of the SLO: %.1f%%.", 100 * sr.slo_attainment);
    else
        sb_printf(&b, "The question sets no latency SLO: throughput is what counts.");
    rep_para(d, sb_str(&b));
    struct chart *c = chart_build_simulate(&cfg, &sr, q->name, &errs);
    if (c)
        rep_chart(d, c, 330,
                  "Latency CDFs with the SLO lines; the queue, the batch and the KV "
                  "cache over time.");
    static const char *const H[] = {"latency", "p50", "p90", "p99", "max", "SLO"};
    struct rep_table *t = rep_table(d, 6, H, "lrrrrr");
    const struct sim_stat *st[] = {&sr.ttft, &sr.itl, &sr.tpot, &sr.e2e, &sr.queue};
    const char *names[] = {"TTFT", "ITL (every gap)", "TPOT (per request)", "E2E", "queueing"};
    double slo[] = {cfg.slo.ttft_s, 0, cfg.slo.itl_s, cfg.slo.e2e_s, 0};
    for (int i = 0; i < 5; i++) {
        char a[32], bb[32], cc[32], dd[32], ee[32];
        const char *row[] = {names[i],
                             ex_time(a, sizeof a, st[i]->p50),
                             ex_time(bb, sizeof bb, st[i]->p90),
                             ex_time(cc, sizeof cc, st[i]->p99),
                             ex_time(dd, sizeof dd, st[i]->max),
                             slo[i] > 0 ? ex_time(ee, sizeof ee, slo[i]) : "-"};
        rep_table_row(t, row);
    }
    rep_table_caption(t, "The planner's SLO bounds each request's mean time between tokens "
                         "(TPOT) at the percentile; ITL over every gap is shown for reference.");
    sim_result_release(&sr);
    /* attainment against load: where the headroom ends */
    rep_section(d, 2, "SLO attainment against load", false);
    static const double F[] = {0.5, 0.8, 1.0, 1.1, 1.25, 1.5};
    static const char *const AH[] = {"load",     "requests/s", "attainment",
                                     "TTFT p99", "TPOT p99",   "output tokens/s"};
    struct rep_table *a = rep_table(d, 6, AH, "rrrrrr");
    cfg.work = open; /* open-loop Poisson load, scaled */
    for (size_t k = 0; k < sizeof F / sizeof F[0]; k++) {
        cfg.work.rate_per_s = rate * F[k];
        if (sim_run(&cfg, &sr, &errs) != 0)
            break;
        char l[32], rr[32], at[32], ot[32], x[32], y[32];
        snprintf(l, sizeof l, "%.0f%%", 100 * F[k]);
        snprintf(rr, sizeof rr, "%.4g", cfg.work.rate_per_s);
        snprintf(at, sizeof at, attain && isfinite(sr.slo_attainment) ? "%.1f%%" : "-",
                 100 * sr.slo_attainment);
        snprintf(ot, sizeof ot, "%.0f", sr.output_tokens_per_s);
        const char *row[] = {
            l, rr, at, ex_time(x, sizeof x, sr.ttft.p99), ex_time(y, sizeof y, sr.tpot.p99), ot};
        rep_table_row(a, row);
        sim_result_release(&sr);
    }
    sb_reset(&b);
    sb_printf(&b,
              "Load relative to the planned load of one instance (100%% = %.4g requests/s%s). "
              "The plan keeps %.0f%% of the SLO-meeting rate, %.4g requests/s, in reserve.",
              rate,
              users ? ", offered as Poisson arrivals, burstier than the users' closed loop" : "",
              100 * (1 - q->utilisation), op->rate_per_s);
    rep_table_caption(a, sb_str(&b));
    err_list_release(&errs);
    sb_release(&b);
}

/* ---- 6 volume ---- */

static void
volume(struct rep_doc *d, const struct plan_question *q, const struct plan_result *r)
{
    if (r->chosen < 0 || r->n_sweep < 2)
        return;
    rep_section(d, 1, "Cost against traffic volume", true);
    struct chart *c = chart_new();
    if (c) {
        snprintf(c->title, sizeof c->title, "Fleet cost per hour against traffic volume");
        snprintf(c->subtitle, sizeof c->subtitle, "x today's %.4g requests/s; %s", r->rate_per_s,
                 q->currency);
        struct chart_panel *p = chart_add_panel(c);
        double lo = INFINITY, hi = 0;
        for (int k = 0; k < r->n_sweep; k++)
            for (int s = 0; s < r->n_shown; s++)
                if (isfinite(r->sweep[k].cost_per_hour[s]) && r->sweep[k].cost_per_hour[s] > 0) {
                    lo = fmin(lo, r->sweep[k].cost_per_hour[s]);
                    hi = fmax(hi, r->sweep[k].cost_per_hour[s]);
                }
        double y0, y1, step;
        if (hi > 0 && chart_linear_bounds(0, hi * 1.05, 6, &y0, &y1, &step) == 0) {
            chart_axis_set(&p->x, CHART_LINEAR, 0.5, r->sweep[r->n_sweep - 1].volume + 0.5,
                           "traffic volume (x today)", "x");
            chart_axis_set(&p->y, CHART_LINEAR, y0, y1, "fleet cost per hour", "");
            static const uint32_t C[] = {CHART_BLUE,   CHART_VERMILLION, CHART_GREEN,
                                         CHART_PURPLE, CHART_ORANGE,     CHART_SKY};
            static const enum chart_marker M[] = {CHART_MARKER_CIRCLE,   CHART_MARKER_SQUARE,
                                                  CHART_MARKER_TRIANGLE, CHART_MARKER_DIAMOND,
                                                  CHART_MARKER_DOWN,     CHART_MARKER_PLUS};
            for (int s = 0; s < r->n_shown && s < 6; s++) {
                double x[PLAN_MAX_SWEEP], y[PLAN_MAX_SWEEP];
                for (int k = 0; k < r->n_sweep; k++) {
                    x[k] = r->sweep[k].volume;
                    y[k] = r->sweep[k].cost_per_hour[s];
                }
                struct chart_style st = {.rgb = C[s],
                                         .line_px = s == 0 ? 3 : 1.8,
                                         .marker = M[s],
                                         .marker_px = 8,
                                         .filled = true,
                                         .fill_rgb = C[s]};
                chart_add_line(c, p, &st, x, y, (size_t)r->n_sweep);
                const struct plan_option *op = &r->options[r->shown[s]];
                char lab[128];
                snprintf(lab, sizeof lab, "%s%s", s == 0 ? "chosen: " : "", opt_name(op));
                chart_add_legend(c, p, lab, &st, false);
            }
            p->legend_left = true;
            rep_chart(d, c, CHART_H,
                      "Each option's fleet, resized for the volume (whole servers, "
                      "the same utilisation and spares).");
        } else {
            chart_free(c);
        }
    }
    struct sb b = {0};
    if (r->n_crossovers == 0)
        sb_printf(&b, "The best of these options does not change up to %.0fx today's volume.",
                  q->volume_max);
    for (int k = 0; k < r->n_crossovers; k++) {
        const struct plan_option *f = &r->options[r->shown[r->crossovers[k].from]];
        const struct plan_option *to = &r->options[r->shown[r->crossovers[k].to]];
        sb_printf(&b, "%sAt %.1fx today's volume %s becomes cheaper than %s.", k ? " " : "",
                  r->crossovers[k].volume, rp_esc(opt_name(to)), rp_esc(opt_name(f)));
    }
    if (q->growth_per_month > 0) {
        sb_printf(&b, " With %.0f%% growth per month: ", 100 * q->growth_per_month);
        for (int s = 0; s < r->n_shown; s++) {
            const struct plan_option *op = &r->options[r->shown[s]];
            const char *who = rp_esc(opt_name(op));
            if (op->exhaust_month > 0)
                sb_printf(&b, "%s%s%s runs out in month %d", s ? "; " : "", s ? "" : "the chosen ",
                          who, op->exhaust_month);
            else
                sb_printf(&b, "%s%s%s lasts the %d-month horizon", s ? "; " : "",
                          s ? "" : "the chosen ", who, q->horizon_months);
        }
        sb_printf(&b, ".");
    }
    rep_para(d, sb_str(&b));
    sb_release(&b);
}

/* ---- 7 trust ---- */

static void
trust(struct rep_doc *d, const struct plan_question *q, const struct plan_result *r,
      const struct rp_ctx *ctx)
{
    rp_trust(d, ctx, true);
    if (r->chosen < 0)
        return;
    const struct plan_option *op = &r->options[r->chosen];
    rep_section(d, 2, "Where each key number comes from", false);
    rp_paraf(d,
             "<b>Simulated</b>%s: the SLO-meeting rate per instance, the p99 latencies at the "
             "planned load and the throughput behind the cost per token (the serving simulator, "
             "whose step times come from the engine-tuned roofline). <b>Analytic</b>: the "
             "memory fit, the other options marked 'analytic' in the ranking, the roofline "
             "section. <b>Priced</b>: cost per hour = device price x devices (the prices' "
             "sources are in section 2). <b>Measured</b>: nothing in this report was measured "
             "on your system; the verification below says how to measure it.",
             op->simulated ? "" : " (not for this option: analytic)");
    rep_section(d, 2, "Verification", false);
    const struct plan_verification *v = &r->verify;
    int serving = op->instances - op->spares;
    char load[256];
    if (q->workload == PLAN_WL_USERS && serving > 0)
        snprintf(load, sizeof load,
                 "with <b>%ld users</b> (a closed loop, %.3g s of think time; about %.4g "
                 "requests/s and %.1f requests in flight, as simulated)",
                 (q->users + serving - 1) / serving, q->think_time_s, v->rate_per_instance_s,
                 v->concurrency);
    else
        snprintf(load, sizeof load,
                 "at <b>%.4g requests/s</b> (Poisson; about %.1f requests in flight)",
                 v->rate_per_instance_s, v->concurrency);
    rp_paraf(d,
             "Benchmark one instance %s with the question's length distributions and expect "
             "TTFT p50 %s and p99 %s, ITL p50 %s and p99 %s, and %.4g output tokens/s. Start "
             "it with:",
             load, tm(v->ttft_p50_s), tm(v->ttft_p99_s), tm(v->itl_p50_s), tm(v->itl_p99_s),
             v->output_tokens_per_s);
    rep_code(d, op->launch);
    rep_para(d, "Then measure it at that load with <tt>roofline profile</tt>, which offers a "
                "Poisson load to the server's completion endpoint (replace the URL) and prints "
                "the measured TTFT and ITL percentiles beside the prediction:");
    char line[512], par[48] = "";
    /* the option's parallelism, so the prediction is the deployment's */
    int k = op->tp > 1 ? snprintf(par, sizeof par, " --tp %d", op->tp) : 0;
    if (op->attn_dp > 1)
        snprintf(par + k, sizeof par - (size_t)k, " --attn-dp %d", op->attn_dp);
    snprintf(line, sizeof line,
             "roofline profile --url http://localhost:8000/v1/completions --rate %.4g "
             "--requests %ld --seed %lu --gpu %s --model %s --weights %s%s%s%s%s",
             v->rate_per_instance_s, v->requests > 0 ? v->requests : 500L, v->seed, op->hw_id,
             q->model->id, dtype_name(op->format.weights), par, q->engine ? " --engine " : "",
             q->engine ? q->engine : "",
             q->engine && op->format.moe_marlin ? " --moe-kernel marlin" : "");
    rep_code(d, line);
}

int
rp_plan_report(struct rep_doc *d, const struct plan_question *q, const struct plan_result *r,
               const struct plan_opts *o, struct rp_ctx *ctx, const char *question_path)
{
    char version[128], sub[1024];
    snprintf(version, sizeof version, "%s", ROOFLINE_VERSION);
    rep_set_meta(d, r->question, "LLM inference capacity plan", "roofline, capacity plan", version,
                 rp_epoch());
    snprintf(sub, sizeof sub,
             "Capacity plan for %s \xc2\xb7 %d candidates, %d rejected, %d simulated \xc2\xb7 "
             "objective %s \xc2\xb7 roofline %s",
             rp_esc(q->model->id), r->n_candidates, r->n_rejected, r->n_simulated,
             plan_objective_name(q->objective), rp_esc(ROOFLINE_VERSION));
    rep_title(d, r->question, sub);
    ctx->model = q->model;
    ctx->engine = q->engine;
    ctx->n_hws = 0;
    rep_section(d, 1, "The answer", false);
    answer(d, q, r, ctx);
    rep_contents(d);
    question(d, q, r);
    options(d, q, r, o);
    /* the "why" of the chosen (or closest) option's hardware */
    const struct hw_profile *hws[PLAN_MAX_SHOWN];
    int n_hws = 0;
    for (int s = 0; s < r->n_shown && n_hws < CHART_MAX_GPUS; s++) {
        const struct hw_profile *hw = find_hw(q, r->options[r->shown[s]].hw_id);
        bool dup = false;
        for (int k = 0; k < n_hws; k++)
            dup |= hws[k] == hw;
        if (hw && !dup)
            hws[n_hws++] = hw;
    }
    if (n_hws > 0) {
        const struct plan_option *op = &r->options[r->shown[0]];
        ctx->hws = hws;
        ctx->n_hws = 1;
        ctx->model = q->model;
        ctx->engine = q->engine;
        roof_config_init(&ctx->base, hws[0], q->model, ROOF_DECODE);
        ctx->base.weights = op->format.weights;
        ctx->base.act = op->format.act;
        ctx->base.kv = op->format.kv;
        ctx->base.tp = op->tp;
        ctx->base.pp = op->pp;
        ctx->base.attn_dp = op->attn_dp;
        ctx->base.mxfp4_marlin = op->format.moe_marlin; /* kernels.moe or its twin */
        if (q->engine)
            caldata_tuning(hws[0], q->engine, NULL, &ctx->base.tuning, NULL);
        /* the typical request at the planned load: the mean prompt, half the mean output in
         * the cache, the mean number in flight as the batch */
        double pm = rp_len_mean(&q->prompt), om = rp_len_mean(&q->output);
        ctx->base.prompt = pm > 0 ? round(pm) : 1024;
        ctx->base.context = round((pm > 0 ? pm : 1024) + (om > 0 ? om / 2 : 128));
        double batch = r->chosen >= 0 ? round(r->verify.concurrency) : 1;
        ctx->base.batch = batch >= 1 ? fmin(batch, (double)op->max_batch) : 1;
        if (rp_why(d, ctx) != 0)
            return -1;
    }
    simulation(d, q, r, o);
    if (r->chosen >= 0)
        rp_plan_sensitivity(d, q, r, o, find_hw(q, r->options[r->chosen].hw_id));
    volume(d, q, r);
    trust(d, q, r, ctx);
    ctx->n_hws = n_hws;
    const char *extra[1] = {question_path};
    rp_provenance(d, ctx, extra, 1);
    return 0;
}
