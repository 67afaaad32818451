/* The planner's first stage (docs/plan.md#method): screen each candidate by format,
 * parallelism, memory, KV pool and the SLO unloaded, saying why in words with the numbers when it
 * fails, and bracket the max SLO-meeting rate per instance by bisection of the analytic estimate
 * (sim/analytic.c); a heterogeneous disaggregated unit composes two estimates. No simulation. */
#include "plan/plan_int.h"

#include "plan/cost.h"
#include "util/units.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

static void
fmt_bytes(double x, char *b, size_t n)
{
    unit_format_short(x, "B", 3, b, n);
}

static void
fill_ident(const struct plan_cand *c, struct plan_option *op)
{
    bool dis = c->policy == SIM_DISAGGREGATED;
    *op = (struct plan_option){.index = c->index,
                               .tp = c->tp,
                               .pp = c->pp,
                               .attn_dp = c->attn_dp,
                               .format = c->fmt,
                               .policy = c->policy,
                               .max_batch = c->max_batch,
                               .max_tokens_per_step = c->mtps,
                               .prefill_instances = dis ? c->np : 0,
                               .decode_instances = dis ? c->nd : 0,
                               .devices_per_instance = c->tp * c->pp * (dis ? c->np + c->nd : 1),
                               .exhaust_month = -1,
                               .tco_per_year = NAN,
                               .capex = NAN,
                               .margin_ttft = NAN,
                               .margin_itl = NAN,
                               .margin_e2e = NAN,
                               .miss_factor = 1};
    snprintf(op->hw_id, sizeof op->hw_id, "%s", c->hw->id);
    if (c->pf_hw)
        snprintf(op->prefill_hw_id, sizeof op->prefill_hw_id, "%s", c->pf_hw->id);
}

/* The worst of the estimate's figures over its bound (for guiding the search only). */
static double
slo_margin(const struct sim_slo *s, double ttft_p99_s, double tpot_s, double e2e_p99_s)
{
    double f_t = s->ttft_s > 0 ? ttft_p99_s / s->ttft_s : 0;
    double f_i = s->itl_s > 0 ? tpot_s / s->itl_s : 0;
    double f_e = s->e2e_s > 0 ? e2e_p99_s / s->e2e_s : 0;
    return fmax(f_t, fmax(f_i, f_e));
}

/* Analytic check at `rate` per instance: does the estimate meet every bound? */
static bool
analytic_meets(const struct plan_question *q, struct sim_config *cfg, double rate, double b0,
               struct sim_analytic *a)
{
    cfg->work.rate_per_s = rate;
    if (sim_analytic_from(cfg, b0, a) != 0 || !a->stable)
        return false;
    const struct sim_slo *s = &q->slo;
    return (!(s->ttft_s > 0) || a->ttft_p99_s <= s->ttft_s) &&
           (!(s->itl_s > 0) || a->tpot_mean_s <= s->itl_s) &&
           (!(s->e2e_s > 0) || a->e2e_p99_s <= s->e2e_s);
}

/* the bisection's context; its estimates so far (rate, mean batch) start the next one's fixed
 * point at the batch of the highest lower rate (sim_analytic_from) */
#define MEETS_MEMO 64

struct meets_ctx {
    const struct plan_question *q;
    struct sim_config *cfg;
    int n;
    double rate[MEETS_MEMO], batch[MEETS_MEMO];
};

static int
analytic_test(void *ctx, double rate, double *margin)
{
    struct meets_ctx *m = ctx;
    struct sim_analytic a;
    double b0 = 1, below = 0;
    for (int i = 0; i < m->n; i++)
        if (m->rate[i] < rate && m->rate[i] > below) {
            below = m->rate[i];
            b0 = m->batch[i];
        }
    bool ok = analytic_meets(m->q, m->cfg, rate, b0, &a);
    if (a.stable && m->n < MEETS_MEMO) {
        m->rate[m->n] = rate;
        m->batch[m->n++] = a.batch;
    }
    *margin =
        a.stable ? slo_margin(&m->q->slo, a.ttft_p99_s, a.tpot_mean_s, a.e2e_p99_s) : INFINITY;
    return ok;
}

int
plan_hetero_init(const struct plan_question *q, const struct plan_opts *o,
                 const struct plan_cand *c, struct plan_hetero *h)
{
    struct plan_cand ca = *c, cb = *c;
    ca.hw = c->pf_hw;
    ca.pf_hw = cb.pf_hw = NULL;
    ca.nd = c->nd * 64;
    cb.np = c->np * 64;
    if (plan_cand_sim_config(q, o, &ca, 1.0, &h->a, NULL) != 0 ||
        plan_cand_sim_config(q, o, &cb, 1.0, &h->b, NULL) != 0)
        return -1;
    return 0;
}

int
plan_hetero_eval(struct plan_hetero *h, double rate, struct plan_hetero_est *e)
{
    struct sim_analytic a, b;
    h->a.work.rate_per_s = rate;
    h->b.work.rate_per_s = rate;
    if (sim_analytic(&h->a, &a) != 0 || sim_analytic(&h->b, &b) != 0)
        return -1;
    e->stable = a.stable && b.stable;
    e->ttft_p99_s = a.ttft_p99_s;
    e->ttft_mean_s = a.ttft_mean_s;
    e->tpot_s = b.tpot_mean_s;
    e->e2e_p99_s = b.e2e_p99_s - b.ttft_p99_s + a.ttft_p99_s;
    e->e2e_mean_s = b.e2e_mean_s - b.ttft_mean_s + a.ttft_mean_s;
    e->capacity_req_per_s = fmin(a.capacity_req_per_s, b.capacity_req_per_s);
    e->prefill_s = a.prefill_s;
    e->step_s = b.step_s;
    return 0;
}

static bool
hetero_meets(const struct plan_question *q, struct plan_hetero *h, double rate, double *margin)
{
    struct plan_hetero_est e;
    *margin = INFINITY;
    if (plan_hetero_eval(h, rate, &e) != 0 || !e.stable)
        return false;
    const struct sim_slo *s = &q->slo;
    *margin = slo_margin(s, e.ttft_p99_s, e.tpot_s, e.e2e_p99_s);
    return (!(s->ttft_s > 0) || e.ttft_p99_s <= s->ttft_s) &&
           (!(s->itl_s > 0) || e.tpot_s <= s->itl_s) &&
           (!(s->e2e_s > 0) || e.e2e_p99_s <= s->e2e_s);
}

struct hetero_ctx {
    const struct plan_question *q;
    struct plan_hetero *h;
};

static int
hetero_test(void *ctx, double rate, double *margin)
{
    struct hetero_ctx *m = ctx;
    return hetero_meets(m->q, m->h, rate, margin);
}

static void
stage1_hetero(const struct plan_question *q, const struct plan_opts *o, const struct plan_cand *c,
              struct plan_eval *ev)
{
    char why[PLAN_TEXT];
    struct plan_hetero h;
    if (plan_hetero_init(q, o, c, &h) != 0) {
        snprintf(why, sizeof why, "no engine tuning for '%s' on %s or %s", q->engine, c->hw->id,
                 c->pf_hw->id);
        plan_fill_rej(c, PLAN_REJ_FORMAT, why, &ev->rej);
        ev->rejected = true;
        return;
    }
    const struct hw_profile *hws[2] = {c->pf_hw, c->hw};
    const struct sim_config *cfgs[2] = {&h.a, &h.b};
    for (int k = 0; k < 2; k++) {
        const char *prob = roof_config_problem(&cfgs[k]->engine);
        if (hw_peak(hws[k], c->fmt.act, NULL) <= 0 || prob) {
            snprintf(why, sizeof why, "%s: %s (tp %d, pp %d)", hws[k]->id,
                     prob ? prob : "no compute roof for the format", c->tp, c->pp);
            plan_fill_rej(c, PLAN_REJ_PARALLEL, why, &ev->rej);
            ev->rejected = true;
            return;
        }
        if (hw_link_bytes_per_s_per_direction(hws[k]) <= 0) {
            snprintf(why, sizeof why,
                     "disaggregated serving moves the KV cache over a link; %s has none",
                     hws[k]->id);
            plan_fill_rej(c, PLAN_REJ_PARALLEL, why, &ev->rej);
            ev->rejected = true;
            return;
        }
        double blocks, bb, pool;
        if (sim_kv_pool(cfgs[k], &blocks, &bb, &pool) != 0) {
            struct roof_memory mem;
            roof_memory(&cfgs[k]->engine, &mem);
            char w[32], cap[32];
            fmt_bytes(mem.weights_bytes, w, sizeof w);
            fmt_bytes(mem.capacity_bytes, cap, sizeof cap);
            snprintf(why, sizeof why,
                     "does not fit on the %s side: %s of %s weights per device in %s",
                     k == 0 ? "prefill" : "decode", w, dtype_name(c->fmt.weights), cap);
            plan_fill_rej(c, PLAN_REJ_MEMORY, why, &ev->rej);
            ev->rejected = true;
            return;
        }
    }
    struct plan_hetero_est e;
    struct plan_option *op = &ev->op;
    fill_ident(c, op);
    if (plan_hetero_eval(&h, 1e-6, &e) != 0) {
        plan_fill_rej(c, PLAN_REJ_RATE, "the analytic estimate failed for this configuration",
                      &ev->rej);
        ev->rejected = true;
        return;
    }
    double cap = e.capacity_req_per_s;
    op->saturation_output_tokens_per_s = cap * plan_len_mean(&q->output);
    if (q->has_slo) {
        double g0;
        if (!hetero_meets(q, &h, 1e-6 * cap, &g0)) {
            char x[32], y[32];
            plan_fmt_time(e.ttft_p99_s, x, sizeof x);
            plan_fmt_time(e.tpot_s, y, sizeof y);
            snprintf(why, sizeof why,
                     "misses the SLO even unloaded: TTFT p99 %s (prefill on %s), ITL %s (decode "
                     "on %s)",
                     x, c->pf_hw->id, y, c->hw->id);
            plan_fill_rej(c, PLAN_REJ_SLO, why, &ev->rej);
            ev->rejected = true;
            return;
        }
        struct hetero_ctx hc = {q, &h};
        op->analytic_rate_per_s =
            plan_bisect_rate(cap * 1e-6, cap, 60, 1.005, g0, hetero_test, &hc, NULL);
    } else {
        op->analytic_rate_per_s = cap;
        op->status = PLAN_SLO_NONE;
    }
    op->rate_per_s = op->analytic_rate_per_s;
    if (plan_closed_sizing(q) && !q->has_slo)
        op->users_per_instance = plan_users_at_knee(q, cap, e.e2e_mean_s); /* e: unloaded */
    else if (plan_closed_sizing(q))
        op->users_per_instance = plan_hetero_eval(&h, op->rate_per_s, &e) == 0 && e.stable
                                     ? plan_users_at_rate(q, op->rate_per_s, e.e2e_mean_s)
                                     : 1;
    ev->feasible = true;
    ev->keep_op = true;
}

void
plan_screen(const struct plan_question *q, const struct plan_opts *o, const struct plan_cand *c,
            struct plan_eval *ev)
{
    memset(ev, 0, sizeof *ev);
    char why[PLAN_TEXT];
    struct sim_config cfg;
    if (c->pf_hw) {
        stage1_hetero(q, o, c, ev);
        return;
    }
    if (plan_cand_sim_config(q, o, c, 1.0, &cfg, NULL) != 0) {
        snprintf(why, sizeof why, "no engine tuning for '%s' on %s", q->engine, c->hw->id);
        plan_fill_rej(c, PLAN_REJ_FORMAT, why, &ev->rej);
        ev->rejected = true;
        return;
    }
    enum dtype used;
    if (hw_peak(c->hw, c->fmt.act, &used) <= 0) {
        snprintf(why, sizeof why, "no %s (or fallback) compute roof on %s", dtype_name(c->fmt.act),
                 c->hw->id);
        plan_fill_rej(c, PLAN_REJ_FORMAT, why, &ev->rej);
        ev->rejected = true;
        return;
    }
    char pb[160];
    const char *prob = roof_config_problem_named(&cfg.engine, q->engine, pb, sizeof pb);
    char adp[48];
    roof_parallel_extras(&cfg.engine, false, adp, sizeof adp);
    if (prob) {
        snprintf(why, sizeof why, "%s (tp %d%s, pp %d)", prob, c->tp, adp, c->pp);
        plan_fill_rej(c, PLAN_REJ_PARALLEL, why, &ev->rej);
        ev->rejected = true;
        return;
    }
    int sd = plan_server_devices(c->hw);
    if (c->tp * c->pp > (sd > 0 ? sd : 8) ||
        (c->tp > 1 && hw_link_bytes_per_s_per_direction(c->hw) <= 0 && sd == 0 &&
         strcmp(c->hw->kind ? c->hw->kind : "", "soc") == 0)) {
        snprintf(why, sizeof why, "tp x pp = %d devices do not fit in one %s server (%d)",
                 c->tp * c->pp, c->hw->id, sd > 0 ? sd : 8);
        if (c->tp * c->pp <= (sd > 0 ? sd : 8))
            snprintf(why, sizeof why, "%s machines have no link for tensor parallelism", c->hw->id);
        plan_fill_rej(c, PLAN_REJ_PARALLEL, why, &ev->rej);
        ev->rejected = true;
        return;
    }
    if (c->policy == SIM_DISAGGREGATED && hw_link_bytes_per_s_per_direction(c->hw) <= 0) {
        snprintf(why, sizeof why,
                 "disaggregated serving moves the KV cache over a link; %s has none", c->hw->id);
        plan_fill_rej(c, PLAN_REJ_PARALLEL, why, &ev->rej);
        ev->rejected = true;
        return;
    }
    double blocks, bb, pool;
    if (sim_kv_pool(&cfg, &blocks, &bb, &pool) != 0) {
        struct roof_memory mem;
        roof_memory(&cfg.engine, &mem);
        char w[32], cap[32], r[32];
        fmt_bytes(mem.weights_bytes, w, sizeof w);
        fmt_bytes(mem.capacity_bytes, cap, sizeof cap);
        fmt_bytes(cfg.engine.reserve_bytes, r, sizeof r);
        snprintf(why, sizeof why,
                 "does not fit: %s of %s weights + %s reserve per device in %s (tp %d%s, pp %d)", w,
                 dtype_name(c->fmt.weights), r, cap, c->tp, adp, c->pp);
        plan_fill_rej(c, PLAN_REJ_MEMORY, why, &ev->rej);
        ev->rejected = true;
        return;
    }
    double maxlen = sim_dist_max(&q->prompt) + sim_dist_max(&q->output);
    struct sim_kv_shape kv;
    sim_kv_shape_of(&cfg, &kv);
    double seqs = blocks / (double)sim_kv_peak(&kv, (long)sim_dist_max(&q->prompt),
                                               (long)sim_dist_max(&q->output));
    if (seqs < 1) {
        snprintf(why, sizeof why,
                 "KV pool holds %.2f sequences of the maximum length (%.0f tokens): %.0f blocks of "
                 "%ld tokens",
                 seqs, maxlen, blocks, kv.block_tokens);
        plan_fill_rej(c, PLAN_REJ_KV, why, &ev->rej);
        ev->rejected = true;
        return;
    }
    /* capacity and the unloaded check */
    struct sim_analytic a;
    cfg.work.rate_per_s = 1e-6;
    if (sim_analytic(&cfg, &a) != 0) {
        plan_fill_rej(c, PLAN_REJ_RATE, "the analytic estimate failed for this configuration",
                      &ev->rej);
        ev->rejected = true;
        return;
    }
    double cap_rate = a.capacity_req_per_s / (double)cfg.instances;
    if (c->policy == SIM_DISAGGREGATED)
        cap_rate = a.capacity_req_per_s;
    struct plan_option *op = &ev->op;
    fill_ident(c, op);
    op->saturation_output_tokens_per_s = cap_rate * plan_len_mean(&q->output);
    if (q->has_slo) {
        const struct sim_slo *s = &q->slo;
        double f_t = s->ttft_s > 0 ? a.ttft_p99_s / s->ttft_s : 0;
        double f_i = s->itl_s > 0 ? a.tpot_mean_s / s->itl_s : 0;
        double f_e = s->e2e_s > 0 ? a.e2e_p99_s / s->e2e_s : 0;
        double f = fmax(f_t, fmax(f_i, f_e));
        if (f > 1) {
            char x[32], y[32], z[32];
            if (f == f_t) {
                plan_fmt_time(a.ttft_p99_s, x, sizeof x);
                plan_fmt_time(s->ttft_s, y, sizeof y);
                plan_fmt_time(a.prefill_s, z, sizeof z);
                snprintf(why, sizeof why,
                         "TTFT p99 %s > %s even unloaded: prefill of the mean %.0f-token prompt "
                         "takes %s and the longest (%.0f tokens) more (tp %d, %s)",
                         x, y, plan_len_mean(&q->prompt), z, sim_dist_max(&q->prompt), c->tp,
                         dtype_name(c->fmt.weights));
                snprintf(op->miss, sizeof op->miss, "TTFT p99 %s > %s", x, y);
            } else if (f == f_i) {
                plan_fmt_time(a.tpot_mean_s, x, sizeof x);
                plan_fmt_time(s->itl_s, y, sizeof y);
                plan_fmt_time(a.step_s, z, sizeof z);
                snprintf(why, sizeof why,
                         "ITL %s > %s even unloaded because one decode step takes %s (tp %d, %s)",
                         x, y, z, c->tp, dtype_name(c->fmt.weights));
                snprintf(op->miss, sizeof op->miss, "ITL %s > %s", x, y);
            } else {
                plan_fmt_time(a.e2e_p99_s, x, sizeof x);
                plan_fmt_time(s->e2e_s, y, sizeof y);
                snprintf(why, sizeof why, "E2E p99 %s > %s even unloaded (%.0f output tokens)", x,
                         y, plan_len_mean(&q->output));
                snprintf(op->miss, sizeof op->miss, "E2E p99 %s > %s", x, y);
            }
            plan_fill_rej(c, PLAN_REJ_SLO, why, &ev->rej);
            ev->rejected = true;
            /* kept as a missed option so that an unmeetable question can name the closest */
            op->status = f <= 1.2 ? PLAN_SLO_NEAR_MISS : PLAN_SLO_MISSED;
            op->miss_factor = f;
            op->ttft_p99_s = a.ttft_p99_s;
            op->itl_p99_s = a.tpot_mean_s;
            op->e2e_p99_s = a.e2e_p99_s;
            ev->keep_op = true;
            return;
        }
        /* bisection of the analytic estimate in log rate between 0 and the capacity */
        struct meets_ctx mc = {q, &cfg, 0, {0}, {0}};
        double lo = cap_rate * 1e-4, g0;
        if (!analytic_test(&mc, lo, &g0))
            op->analytic_rate_per_s = 0;
        else
            op->analytic_rate_per_s =
                plan_bisect_rate(lo, cap_rate, 40, 1.005, g0, analytic_test, &mc, NULL);
    } else {
        op->analytic_rate_per_s = cap_rate;
        op->status = PLAN_SLO_NONE;
    }
    if (!(op->analytic_rate_per_s > 0)) {
        plan_fill_rej(c, PLAN_REJ_RATE, "meets the SLO only at a vanishing rate", &ev->rej);
        ev->rejected = true;
        return;
    }
    op->rate_per_s = op->analytic_rate_per_s;
    if (plan_closed_sizing(q) && !q->has_slo) {
        op->users_per_instance = plan_users_at_knee(q, cap_rate, a.e2e_mean_s); /* a: unloaded */
    } else if (plan_closed_sizing(q)) {
        struct sim_analytic t;
        cfg.work.rate_per_s = op->rate_per_s;
        op->users_per_instance = sim_analytic(&cfg, &t) == 0 && t.stable
                                     ? plan_users_at_rate(q, op->rate_per_s, t.e2e_mean_s)
                                     : 1;
    }
    ev->feasible = true;
    ev->keep_op = true;
}
