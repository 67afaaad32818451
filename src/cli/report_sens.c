/* Section 6 of the plan report (report_plan.c): the sensitivity tornado of the chosen option,
 * each input moved alone and the option re-planned analytically with the rate scaled to page 1's
 * simulated one, so the base is the answer. docs/report.md */
#include "cli/explain.h"
#include "cli/report_parts.h"
#include "cli/report_plan.h"
#include "plan/plan.h"
#include "render/chart_tornado.h"

#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>

#define PM "\xc2\xb1" /* plus-minus sign */

/* The engine tuning with its efficiencies scaled (the tornado's efficiency inputs). */
struct sens_hook {
    const struct plan_opts *o;
    double mem_f, comp_f;
};

static int
sens_tuning(const struct hw_profile *hw, const char *engine, struct roof_tuning *out, void *ctx)
{
    const struct sens_hook *h = ctx;
    if (h->o->tuning(hw, engine, out, h->o->tuning_ctx) != 0)
        return -1;
    out->memory_efficiency = fmin(1.0, out->memory_efficiency * h->mem_f);
    out->compute_efficiency = fmin(1.0, out->compute_efficiency * h->comp_f);
    if (out->vector_efficiency > 0)
        out->vector_efficiency = fmin(1.0, out->vector_efficiency * h->comp_f);
    return 0;
}

static void
scale_dist(struct sim_dist *dd, double f)
{
    dd->value *= f, dd->min *= f, dd->max *= f, dd->mean *= f, dd->sd *= f;
}

enum sens_input {
    SENS_MEM,
    SENS_COMP,
    SENS_PROMPT,
    SENS_OUTPUT,
    SENS_RATE,
    SENS_PRICE,
    SENS_LIFE,
    SENS_PUE,
    SENS_KWH,
    SENS_COUNT
};

/* The chosen option alone, analytic, with one input scaled by f: its devices and cost per
 * million output tokens (NaN when it can no longer serve the load). Page 1's rate is the
 * simulator's when the option was simulated, so every point's analytic rate is scaled by the
 * option's simulated/analytic ratio k (the base then is page 1's answer): the fleet for rate R
 * at k x the analytic rate is the fleet for R / k at the analytic rate, and its cost per token
 * is the one computed for R / k divided by k. */
static void
sens_eval(const struct plan_question *q, const struct hw_profile *chosen_hw,
          const struct plan_option *op, const struct plan_opts *o, enum sens_input in, double f,
          double *devices, double *mtok)
{
    *devices = *mtok = NAN;
    struct hw_profile *hw = (struct hw_profile *)chosen_hw;
    struct plan_question c = *q;
    c.hw = &hw;
    c.n_hw = 1;
    c.tp[0] = op->tp, c.n_tp = 1;
    c.attn_dp[0] = op->attn_dp > 1 ? op->attn_dp : 1, c.n_attn_dp = 1, c.attn_dp_auto = false;
    c.pp[0] = op->pp, c.n_pp = 1;
    c.formats[0] = op->format, c.n_formats = 1;
    c.policies[0] = op->policy, c.n_policies = 1;
    c.max_batch[0] = op->max_batch, c.n_max_batch = 1;
    c.max_tokens_per_step[0] = op->max_tokens_per_step, c.n_max_tokens_per_step = 1;
    c.n_prefill_hw = 0;
    c.growth_per_month = 0;
    /* Users with think time are sized by simulated closed loops of whole users, with an SLO
     * (the most users that meet it) or without (the knee of the closed loop), so their points
     * simulate the one option as page 1 did and need no scaling; every other workload uses the
     * analytic estimate scaled by k. */
    bool closed = q->workload == PLAN_WL_USERS && op->simulated;
    c.confirm_top = closed ? 1 : 0;
    double k = !closed && op->simulated && op->analytic_rate_per_s > 0 && op->rate_per_s > 0
                   ? op->rate_per_s / op->analytic_rate_per_s
                   : 1.0;
    c.rate_per_s /= k;
    c.tokens_per_month /= k;
    c.offline_requests /= k;
    struct sens_hook h = {o, 1, 1};
    struct plan_opts oc = *o;
    oc.progress = NULL;
    oc.jobs = 1;
    if (o->tuning) {
        oc.tuning = sens_tuning;
        oc.tuning_ctx = &h;
    }
    switch (in) {
    case SENS_MEM:
        h.mem_f = f;
        break;
    case SENS_COMP:
        h.comp_f = f;
        break;
    case SENS_PROMPT:
        scale_dist(&c.prompt, f);
        break;
    case SENS_OUTPUT:
        scale_dist(&c.output, f);
        break;
    case SENS_RATE:
        c.rate_per_s *= f;
        c.tokens_per_month *= f;
        c.users = (long)llround((double)c.users * f);
        c.offline_requests *= f;
        break;
    case SENS_LIFE:
        c.tco.life_years *= f;
        break;
    case SENS_PUE:
        c.tco.pue = fmax(1.0, c.tco.pue * f); /* facility power never below IT power */
        break;
    case SENS_KWH:
        c.tco.price_per_kwh *= f;
        break;
    default:
        break;
    }
    struct plan_result r;
    memset(&r, 0, sizeof r);
    struct err_list errs = {0};
    if (plan_run(&c, &oc, &r, &errs) == 0 && r.n_options > 0 && r.options[0].instances > 0 &&
        r.options[0].status != PLAN_SLO_MISSED) {
        *devices = r.options[0].devices;
        *mtok = r.options[0].cost_per_mtok_output / k;
    }
    err_list_release(&errs);
    plan_result_release(&r);
}

/* A tornado point re-plans only when the input can move the chosen option's rate or fleet:
 * the device price (the device-hour cost when buying) scales the base cost per token and
 * leaves the devices, and an input its clamp leaves where it was (PUE 1 less 14%) is the
 * base. */
static bool
sens_replans(const struct plan_question *q, enum sens_input in, double f)
{
    bool same = (in == SENS_PUE && fmax(1.0, q->tco.pue * f) == q->tco.pue) ||
                (in == SENS_KWH && !(q->tco.price_per_kwh > 0));
    return !(in == SENS_PRICE || same);
}

/* The re-plans of the tornado's points, shared by the planner's threads (each plan_run on one
 * thread; each point writes its own slot). */
struct sens_task {
    enum sens_input in;
    double f, devices, mtok;
};

struct sens_pool {
    const struct plan_question *q;
    const struct hw_profile *hw;
    const struct plan_option *op;
    const struct plan_opts *o;
    struct sens_task *t;
    int n, next;
    pthread_mutex_t mu;
};

static void *
sens_worker(void *arg)
{
    struct sens_pool *p = arg;
    for (;;) {
        pthread_mutex_lock(&p->mu);
        int k = p->next < p->n ? p->next++ : -1;
        pthread_mutex_unlock(&p->mu);
        if (k < 0)
            return NULL;
        struct sens_task *t = &p->t[k];
        sens_eval(p->q, p->hw, p->op, p->o, t->in, t->f, &t->devices, &t->mtok);
    }
}

static void
sens_run(struct sens_pool *p)
{
    int jobs = p->o->jobs > 1 ? (p->o->jobs < 16 ? p->o->jobs : 16) : 1, started = 0;
    pthread_t th[16];
    for (int j = 1; j < jobs; j++)
        if (pthread_create(&th[started], NULL, sens_worker, p) == 0)
            started++;
    sens_worker(p);
    for (int j = 0; j < started; j++)
        pthread_join(th[j], NULL);
}

/* One tornado point: the task's re-plan, or the base where the input cannot move it. */
static void
sens_point(const struct plan_question *q, const struct sens_pool *p, enum sens_input in, double f,
           const double base[2], double *devices, double *mtok)
{
    if (!sens_replans(q, in, f)) {
        *devices = base[0];
        *mtok = in == SENS_PRICE ? base[1] * f : base[1];
        return;
    }
    *devices = *mtok = NAN;
    for (int k = 0; k < p->n; k++)
        if (p->t[k].in == in && p->t[k].f == f) {
            *devices = p->t[k].devices;
            *mtok = p->t[k].mtok;
        }
}

static void
sens_value(enum sens_input in, const struct plan_question *q, const struct hw_profile *hw,
           const struct plan_opts *o, double f, char *buf, size_t size)
{
    struct roof_tuning tu;
    switch (in) {
    case SENS_MEM:
    case SENS_COMP:
        if (o->tuning && q->engine && hw && o->tuning(hw, q->engine, &tu, o->tuning_ctx) == 0) {
            double e = in == SENS_MEM ? tu.memory_efficiency : tu.compute_efficiency;
            snprintf(buf, size, "%.2f", fmin(1.0, e * f));
        } else {
            snprintf(buf, size, "x%.1f", f);
        }
        break;
    case SENS_PROMPT:
    case SENS_OUTPUT: {
        const struct sim_dist *dd = in == SENS_PROMPT ? &q->prompt : &q->output;
        double m = rp_len_mean(dd);
        snprintf(buf, size, "%.0f tok", m * f);
        break;
    }
    case SENS_RATE:
        snprintf(buf, size, "%.3g req/s", q->rate_per_s * f);
        break;
    case SENS_LIFE:
        snprintf(buf, size, "%.3g y", q->tco.life_years * f);
        break;
    case SENS_PUE:
        snprintf(buf, size, "PUE %.2f", fmax(1.0, q->tco.pue * f));
        break;
    case SENS_KWH:
        snprintf(buf, size, "%.3g/kWh", q->tco.price_per_kwh * f);
        break;
    default:
        snprintf(buf, size, "%+.0f%%", 100 * (f - 1));
    }
}

/* The inputs the tornado shows: purchase-only inputs when buying, the efficiencies only with
 * an engine's kernel model (the datasheet roofline has no efficiency to move). */
static bool
sens_shown(const struct plan_question *q, const struct plan_opts *o, bool buy, enum sens_input i)
{
    if (!buy && (i == SENS_LIFE || i == SENS_PUE || i == SENS_KWH))
        return false;
    return !((i == SENS_MEM || i == SENS_COMP) && !(o->tuning && q->engine));
}

void
rp_plan_sensitivity(struct rep_doc *d, const struct plan_question *q, const struct plan_result *r,
                    const struct plan_opts *o, const struct hw_profile *hw)
{
    if (r->chosen < 0 || !hw)
        return;
    const struct plan_option *op = &r->options[r->chosen];
    if (op->policy == SIM_DISAGGREGATED)
        return;
    static const char *const NAME[SENS_COUNT] = {
        "memory efficiency", "compute efficiency", "prompt length", "output length",
        "arrival rate",      "device price",       "life",          "PUE",
        "electricity price"};
    static const double LO[SENS_COUNT] = {0.8, 0.8, 0.5, 0.5, 0.5, 0.7, 0.75, 0.857, 0.5};
    static const double HI[SENS_COUNT] = {1.2, 1.2, 1.5, 1.5, 1.5, 1.3, 1.25, 1.143, 1.5};
    bool buy = q->money == PLAN_BUY;
    double bd, bm;
    sens_eval(q, hw, op, o, SENS_COUNT, 1, &bd, &bm);
    if (!isfinite(bd) || !isfinite(bm))
        return;
    rep_section(d, 1, "Sensitivity", true);
    struct sens_task tasks[2 * SENS_COUNT];
    struct sens_pool pool = {q, hw, op, o, tasks, 0, 0, PTHREAD_MUTEX_INITIALIZER};
    for (int i = 0; i < SENS_COUNT; i++) {
        if (!sens_shown(q, o, buy, (enum sens_input)i))
            continue;
        for (int side = 0; side < 2; side++) {
            double f = side ? HI[i] : LO[i];
            if (sens_replans(q, (enum sens_input)i, f))
                tasks[pool.n++] = (struct sens_task){(enum sens_input)i, f, NAN, NAN};
        }
    }
    sens_run(&pool);
    struct tornado_row dev[SENS_COUNT], cost[SENS_COUNT];
    int n = 0;
    for (int i = 0; i < SENS_COUNT; i++) {
        if (!sens_shown(q, o, buy, (enum sens_input)i))
            continue;
        struct tornado_row *a = &dev[n], *b = &cost[n];
        memset(a, 0, sizeof *a);
        /* buying: the whole device-hour cost (capital and power) moves, not the price alone */
        snprintf(a->name, sizeof a->name, "%s",
                 buy && i == SENS_PRICE ? "device-hour cost" : NAME[i]);
        sens_value((enum sens_input)i, q, hw, o, LO[i], a->low_in, sizeof a->low_in);
        sens_value((enum sens_input)i, q, hw, o, HI[i], a->high_in, sizeof a->high_in);
        *b = *a;
        const double base[2] = {bd, bm};
        sens_point(q, &pool, (enum sens_input)i, LO[i], base, &a->low, &b->low);
        sens_point(q, &pool, (enum sens_input)i, HI[i], base, &a->high, &b->high);
        n++;
    }
    char how[160];
    if (q->workload == PLAN_WL_USERS && op->simulated)
        snprintf(how, sizeof how, "with simulated closed loops of users, as page 1 sized it");
    else
        snprintf(how, sizeof how,
                 "with the planner's analytic rate estimate scaled by the ratio of the chosen "
                 "option's simulated to analytic rate (%.2f)",
                 op->simulated && op->analytic_rate_per_s > 0
                     ? op->rate_per_s / op->analytic_rate_per_s
                     : 1.0);
    struct sb s = {0};
    sb_printf(&s,
              "How the chosen plan's device count and cost per million output tokens move when "
              "one input moves and the others stay: %sprompt and output length " PM "50%%, "
              "arrival rate " PM "50%%, "
              "%s " PM "30%%%s. Each point re-plans the fleet of the chosen option "
              "(%s TP %d%s, %s) %s, so the base here, "
              "<b>%.0f device%s</b> and <b>%.3f %s</b> per million output tokens, is the answer "
              "on page 1. The other options are not re-ranked.",
              o->tuning && q->engine ? "memory and compute efficiency " PM "20%, " : "",
              buy ? "device-hour cost (TCO)" : "device price",
              buy ? ", life " PM "25%, PUE " PM "14% (not below 1) and electricity price " PM "50%"
                  : "",
              rp_esc(op->hw_id), op->tp, op->attn_dp > 1 ? " with data-parallel attention" : "",
              rp_format_name(&op->format), how, bd, bd == 1 ? "" : "s", bm, q->currency);
    rep_para(d, sb_str(&s));
    struct tornado_panel P[2] = {
        {"devices", "", bd, dev, n},
        {"cost per million output tokens", "", bm, cost, n},
    };
    char sub[256];
    snprintf(sub, sizeof sub,
             "%s TP %d%s, %s; bars from the base to the output at each input's "
             "low and high value",
             op->hw_id, op->tp, op->attn_dp > 1 ? " DP attention" : "",
             rp_format_name(&op->format));
    struct chart *c = chart_build_tornado("Sensitivity of the chosen plan", sub, P, 2);
    if (c)
        rep_chart(d, c, 300,
                  "Inputs sorted by swing, the largest on top; the dashed line is the base. "
                  "Labels at the bar ends give the input's low and high values.");
    static const char *const H[] = {"input", "low .. high",   "devices",
                                    "swing", "cost/Mtok out", "swing"};
    struct rep_table *t = rep_table(d, 6, H, "llrrrr");
    for (int k = 0; k < n; k++) {
        char rg[80], dv[48], ds[24], cm[48], cs[24];
        snprintf(rg, sizeof rg, "%s .. %s", dev[k].low_in, dev[k].high_in);
        char l1[16], h1[16], l2[16], h2[16];
        snprintf(l1, sizeof l1, isfinite(dev[k].low) ? "%.0f" : "-", dev[k].low);
        snprintf(h1, sizeof h1, isfinite(dev[k].high) ? "%.0f" : "-", dev[k].high);
        snprintf(l2, sizeof l2, isfinite(cost[k].low) ? "%.3f" : "-", cost[k].low);
        snprintf(h2, sizeof h2, isfinite(cost[k].high) ? "%.3f" : "-", cost[k].high);
        snprintf(dv, sizeof dv, "%s .. %s", l1, h1);
        snprintf(cm, sizeof cm, "%s .. %s", l2, h2);
        double sd = tornado_swing(&dev[k]), sc = tornado_swing(&cost[k]);
        snprintf(ds, sizeof ds, isfinite(sd) ? "%.0f" : "-", sd);
        snprintf(cs, sizeof cs, isfinite(sc) ? "%.3f" : "-", sc);
        const char *row[] = {rp_esc(dev[k].name), rp_esc(rg), dv, ds, cm, cs};
        rep_table_row(t, row);
    }
    rep_table_caption(t, "'-': the chosen option can no longer serve the load there (it does not "
                         "fit or misses the SLO at any rate). The device price (the device-hour "
                         "cost when buying) moves the cost only.");
    sb_release(&s);
}
