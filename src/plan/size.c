/* The planner's second stage (docs/plan.md#method): the simulator confirms the best candidates'
 * analytic bracket by bisection over the rate with common random numbers (closed loops of whole
 * users for a users question), measures the saturation throughput, and gives the figures at
 * the planned load of every priced option. */
#include "plan/plan_int.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

/* ---- closed loops (docs/plan.md#concurrent-users) ---- */

/* Concurrent users are sized as a closed loop; everything else by the rate. */
bool
plan_closed_sizing(const struct plan_question *q)
{
    return q->workload == PLAN_WL_USERS;
}

double
plan_users_at_knee(const struct plan_question *q, double sat_rate_per_s, double r0_s)
{
    double n = sat_rate_per_s * (q->think_time_s + r0_s);
    return n >= 1 ? n : 1;
}

/* Turn `cfg` into a closed loop of `users` users with the question's think time; at least ten
 * requests per user, a tenth of them warm-up. */
void
plan_closed_loop(const struct plan_question *q, struct sim_config *cfg, long users)
{
    cfg->work.process = SIM_CLOSED;
    cfg->work.users = users;
    cfg->work.think_time_s = q->think_time_s;
    if (cfg->work.requests < 10 * users)
        cfg->work.requests = 10 * users;
    cfg->work.warmup_requests = cfg->work.requests / 10;
}

/* The most users per instance worth searching for: the sweep's and the growth's largest
 * traffic on one instance (a capacity beyond it changes no answer). */
static long
users_cap(const struct plan_question *q)
{
    double f = q->volume_max > 1 ? q->volume_max : 1;
    if (q->growth_per_month > 0) {
        double g = pow(1.0 + q->growth_per_month, q->horizon_months);
        f = g > f ? g : f;
    }
    double c = ceil((double)q->users * f) + 1;
    return c < 100000 ? (long)c : 100000;
}

/* The analytic users per instance: the response time law N = X (Z + R) at the analytic max
 * rate X with its mean response time R (an open loop queues more than the closed one, so this
 * errs low and the simulator's search starts below the answer). */
double
plan_users_at_rate(const struct plan_question *q, double rate_per_s, double e2e_mean_s)
{
    double n = floor(rate_per_s * (q->think_time_s + e2e_mean_s) + 1e-9);
    return n >= 1 ? n : 1;
}

/* The largest whole n in [0, cap] with meets(n), searched from `start` (>= 1): steps of 1.3x
 * (2x after four) up or 0.7x down to bracket, then bisection to one user. -1 when meets fails
 * to run. */
static long
users_search(long start, long cap, int (*meets)(void *ctx, long n), void *ctx)
{
    long lo = 0, hi = 0, n = start < cap ? start : cap;
    int m = meets(ctx, n);
    if (m < 0)
        return -1;
    if (m) {
        lo = n;
        for (int i = 0; lo < cap; i++) {
            n = (long)ceil((double)lo * (i < 4 ? 1.3 : 2.0));
            n = n > lo ? n : lo + 1;
            n = n < cap ? n : cap;
            if ((m = meets(ctx, n)) < 0)
                return -1;
            if (!m) {
                hi = n;
                break;
            }
            lo = n;
        }
        if (hi == 0)
            return lo;
    } else {
        hi = n;
        while (hi > 1) {
            n = (long)floor((double)hi * 0.7);
            n = n < hi ? n : hi - 1;
            n = n >= 1 ? n : 1;
            if ((m = meets(ctx, n)) < 0)
                return -1;
            if (m) {
                lo = n;
                break;
            }
            hi = n;
        }
        if (lo == 0)
            return 0;
    }
    while (hi - lo > 1) {
        long mid = lo + (hi - lo) / 2;
        if ((m = meets(ctx, mid)) < 0)
            return -1;
        if (m)
            lo = mid;
        else
            hi = mid;
    }
    return lo;
}

/* The figures of one simulation. */
struct probe {
    bool meets;
    double attainment, ttft_p99, tpot_p99, e2e_p99, ttft_p50, tpot_p50, e2e_mean;
    double out_tok_s, req_s;
    long rejected;
};

static _Thread_local char sim_error[PLAN_TEXT];

const char *
plan_sim_error(void)
{
    return sim_error;
}

/* Simulate `base` at `rate` per instance (0, or -1 with sim_error). */
static int
sim_probe(const struct plan_question *q, const struct sim_config *base, double rate,
          struct probe *p)
{
    struct sim_config c = *base;
    c.work.rate_per_s = rate;
    struct sim_result r;
    struct err_list e = {0};
    int rc = sim_run(&c, &r, &e);
    snprintf(sim_error, sizeof sim_error, "%s", e.n ? e.items[0].msg : "unknown");
    err_list_release(&e);
    if (rc != 0)
        return -1;
    memset(p, 0, sizeof *p);
    p->attainment = r.slo_attainment;
    p->ttft_p99 = r.ttft.p99;
    p->tpot_p99 = r.tpot.p99;
    p->e2e_p99 = r.e2e.p99;
    p->ttft_p50 = r.ttft.p50;
    p->tpot_p50 = r.tpot.p50;
    p->e2e_mean = r.e2e.mean;
    p->out_tok_s = r.output_tokens_per_s;
    p->req_s = r.throughput_req_per_s;
    p->rejected = r.rejected;
    p->meets = q->has_slo ? r.slo_attainment >= q->slo.target && r.rejected == 0 : true;
    sim_result_release(&r);
    return 0;
}

/* An open-loop probe that meets the SLOs is confirmed by a run long enough for its load: at
 * least PLAN_RUN_IN_FLIGHT times the requests in flight (Little's law: the rate x the probe's
 * mean E2E), so the last arrivals meet a queue in steady state and not the empty system of the
 * first ones (a short run admits every request at once and passes at any rate). At most
 * PLAN_RUN_MAX requests; the warm-up stays a tenth. */
#define PLAN_RUN_IN_FLIGHT 8.0
#define PLAN_RUN_MAX 200000L

static int
rate_probe(const struct plan_question *q, const struct sim_config *base, double rate,
           struct probe *p)
{
    if (sim_probe(q, base, rate, p) != 0)
        return -1;
    double need = ceil(PLAN_RUN_IN_FLIGHT * rate * p->e2e_mean);
    if (!q->has_slo || !p->meets || base->work.trace || !(need > (double)base->work.requests))
        return 0;
    struct sim_config c = *base;
    c.work.requests = need < (double)PLAN_RUN_MAX ? (long)need : PLAN_RUN_MAX;
    c.work.warmup_requests = c.work.requests / 10;
    return sim_probe(q, &c, rate, p);
}

/* The simulator's closed loop of n users on one instance; keeps the largest meeting one. */
struct users_probe {
    const struct plan_question *q;
    const struct sim_config *cfg;
    struct probe last, best;
    long best_n;
};

static int
users_meet(void *ctx, long n)
{
    struct users_probe *u = ctx;
    struct sim_config c = *u->cfg;
    plan_closed_loop(u->q, &c, n);
    if (sim_probe(u->q, &c, 1.0, &u->last) != 0)
        return -1;
    if (u->last.meets && n > u->best_n) {
        u->best = u->last;
        u->best_n = n;
    }
    return u->last.meets;
}

/* Stage 2 for concurrent users: the most users one instance serves within the SLOs, by the
 * simulator's closed loop, searched from the analytic X (Z + R). Fills rate_per_s with the
 * closed loop's throughput there; 1 = rejected (ev filled), 0, or -1 (simulator failure). */
static int
stage2_users(const struct plan_question *q, const struct plan_cand *c, const struct sim_config *cfg,
             struct plan_eval *ev)
{
    struct plan_option *op = &ev->op;
    struct users_probe u = {q, cfg, {0}, {0}, 0};
    long n = users_search((long)op->users_per_instance, users_cap(q), users_meet, &u);
    if (n < 0)
        return -1;
    op->simulated = true;
    op->users_per_instance = (double)n;
    if (n == 0 || u.best_n != n) {
        char why[PLAN_TEXT], x[32];
        plan_fmt_time(u.last.ttft_p99, x, sizeof x);
        snprintf(why, sizeof why,
                 "the simulator misses the SLO even with one user per instance (attainment "
                 "%.1f%%, TTFT p99 %s; the analytic estimate allowed %.0f users)",
                 100 * u.last.attainment, x, plan_users_at_rate(q, op->analytic_rate_per_s, 0));
        plan_fill_rej(c, PLAN_REJ_RATE, why, &ev->rej);
        return 1;
    }
    op->rate_per_s = u.best.req_s;
    return 0;
}

/* Stage 2: the simulator's bisection over the rate, bracketed by the analytic rate, and the
 * figures at the planned load. */
static int
stage2(const struct plan_question *q, const struct plan_opts *o, const struct plan_cand *c,
       struct plan_eval *ev)
{
    struct plan_option *op = &ev->op;
    struct sim_config cfg;
    struct roof_config decode;
    if (plan_cand_sim_config(q, o, c, 1.0, &cfg, &decode) != 0)
        return -1;
    struct probe p;
    double ra = op->analytic_rate_per_s;
    if (!q->has_slo) {
        /* offline: throughput at saturation (offered 1.5x the analytic capacity) */
        if (sim_probe(q, &cfg, 1.5 * ra, &p) != 0)
            return -1;
        op->rate_per_s = p.req_s;
        op->saturation_output_tokens_per_s = p.out_tok_s;
        op->simulated = true;
        if (plan_closed_sizing(q)) {
            /* users: the knee of the closed loop, with R0 from one user's closed loop */
            struct sim_config one = cfg;
            struct probe u;
            plan_closed_loop(q, &one, 1);
            if (sim_probe(q, &one, 1.0, &u) != 0)
                return -1;
            op->users_per_instance = plan_users_at_knee(q, p.req_s, u.e2e_mean);
        }
        return 0;
    }
    double lo = 0, hi = 0;
    if (plan_closed_sizing(q)) {
        int rc = stage2_users(q, c, &cfg, ev);
        if (rc < 0)
            return -1;
        if (rc > 0) {
            ev->rejected = true;
            ev->feasible = false;
            ev->keep_op = false;
            return 0;
        }
        lo = op->rate_per_s;
        goto saturation;
    }
    if (rate_probe(q, &cfg, ra, &p) != 0)
        return -1;
    if (p.meets) {
        lo = ra;
        for (int i = 0; i < 16; i++) {
            double r = lo * (i < 4 ? 1.3 : 2.0);
            if (rate_probe(q, &cfg, r, &p) != 0)
                return -1;
            if (!p.meets) {
                hi = r;
                break;
            }
            lo = r;
        }
    } else {
        hi = ra;
        for (int i = 0; i < 12; i++) {
            double r = hi * 0.7;
            if (rate_probe(q, &cfg, r, &p) != 0)
                return -1;
            if (p.meets) {
                lo = r;
                break;
            }
            hi = r;
        }
    }
    if (lo > 0 && hi > 0)
        for (int i = 0; i < 10 && hi / lo > 1.03; i++) {
            double mid = sqrt(lo * hi);
            if (rate_probe(q, &cfg, mid, &p) != 0)
                return -1;
            if (p.meets)
                lo = mid;
            else
                hi = mid;
        }
    op->simulated = true;
    op->rate_per_s = lo;
    if (!(lo > 0)) {
        char why[PLAN_TEXT], x[32];
        plan_fmt_time(p.ttft_p99, x, sizeof x);
        snprintf(why, sizeof why,
                 "the simulator misses the SLO even at %.3g requests/s per instance (attainment "
                 "%.1f%%, TTFT p99 %s; the analytic estimate allowed %.3g)",
                 hi, 100 * p.attainment, x, ra);
        plan_fill_rej(c, PLAN_REJ_RATE, why, &ev->rej);
        ev->rejected = true;
        ev->feasible = false;
        ev->keep_op = false;
        return 0;
    }
saturation:;
    /* saturation throughput: offered 2x the max SLO-meeting rate */
    struct probe s;
    struct sim_config sc = cfg;
    memset(&sc.slo, 0, sizeof sc.slo);
    if (sim_probe(q, &sc, 2.0 * lo > ra ? 2.0 * lo : ra, &s) == 0)
        op->saturation_output_tokens_per_s = s.out_tok_s;
    return 0;
}

/* The figures at the planned load (the simulator for simulated options, else the estimate). */
int
plan_planned_load(const struct plan_question *q, const struct plan_opts *o,
                  const struct plan_cand *c, struct plan_option *op)
{
    if (!(op->rate_per_s > 0) || op->instances <= op->spares)
        return 0;
    struct sim_config cfg;
    struct roof_config decode;
    if (plan_cand_sim_config(q, o, c, 1.0, &cfg, &decode) != 0)
        return -1;
    double r = op->planned_rate_per_instance_s;
    const struct sim_slo *s = &q->slo;
    double t99, i99, e99, att = NAN;
    /* concurrent users: the planned load is a closed loop of the users spread evenly over the
     * serving instances, each with its think time; its throughput is the planned rate */
    int serving = op->instances - op->spares;
    bool closed = q->workload == PLAN_WL_USERS && (op->simulated || !c->pf_hw);
    if (closed)
        plan_closed_loop(q, &cfg, (q->users + serving - 1) / serving);
    if (op->simulated) {
        struct probe p;
        if ((closed ? sim_probe(q, &cfg, r, &p) : rate_probe(q, &cfg, r, &p)) != 0)
            return -1;
        if (closed)
            op->planned_rate_per_instance_s = p.req_s;
        t99 = p.ttft_p99, i99 = p.tpot_p99, e99 = p.e2e_p99;
        op->ttft_p50_s = p.ttft_p50;
        op->itl_p50_s = p.tpot_p50;
        op->output_tokens_per_s_planned = p.out_tok_s;
        att = q->has_slo ? p.attainment : NAN;
        op->e2e_mean_s = p.e2e_mean;
    } else if (c->pf_hw) {
        struct plan_hetero h;
        struct plan_hetero_est e;
        if (plan_hetero_init(q, o, c, &h) != 0 || plan_hetero_eval(&h, r, &e) != 0)
            return -1;
        t99 = e.ttft_p99_s, i99 = e.tpot_s, e99 = e.e2e_p99_s;
        op->ttft_p50_s = e.ttft_mean_s;
        op->itl_p50_s = e.tpot_s;
        op->output_tokens_per_s_planned = r * plan_len_mean(&q->output);
        op->e2e_mean_s = e.e2e_mean_s;
    } else {
        struct sim_analytic a;
        cfg.work.rate_per_s = r;
        if (sim_analytic(&cfg, &a) != 0)
            return -1;
        if (closed)
            op->planned_rate_per_instance_s = r = a.rate_per_s;
        t99 = a.ttft_p99_s, i99 = a.tpot_mean_s, e99 = a.e2e_p99_s;
        op->ttft_p50_s = a.ttft_mean_s;
        op->itl_p50_s = a.tpot_mean_s;
        op->output_tokens_per_s_planned = r * plan_len_mean(&q->output);
        op->e2e_mean_s = a.e2e_mean_s;
    }
    if (closed)
        plan_price_tokens(q, op, serving * op->planned_rate_per_instance_s);
    op->ttft_p99_s = t99;
    op->itl_p99_s = i99;
    op->e2e_p99_s = e99;
    op->attainment = att;
    op->output_tokens_per_s_per_user = op->itl_p50_s > 0 ? 1.0 / op->itl_p50_s : NAN;
    if (!q->has_slo) {
        op->status = PLAN_SLO_NONE;
        return 0;
    }
    op->margin_ttft = s->ttft_s > 0 ? s->ttft_s / t99 : NAN;
    op->margin_itl = s->itl_s > 0 ? s->itl_s / i99 : NAN;
    op->margin_e2e = s->e2e_s > 0 ? s->e2e_s / e99 : NAN;
    double worst = 0;
    const char *what = "";
    double got = 0, bound = 0;
    if (s->ttft_s > 0 && t99 / s->ttft_s > worst)
        worst = t99 / s->ttft_s, what = "TTFT", got = t99, bound = s->ttft_s;
    if (s->itl_s > 0 && i99 / s->itl_s > worst)
        worst = i99 / s->itl_s, what = "ITL", got = i99, bound = s->itl_s;
    if (s->e2e_s > 0 && e99 / s->e2e_s > worst)
        worst = e99 / s->e2e_s, what = "E2E", got = e99, bound = s->e2e_s;
    bool met = op->simulated ? att >= s->target : worst <= 1;
    if (met) {
        op->status = PLAN_SLO_MET;
        op->miss_factor = 1;
        op->miss[0] = '\0';
    } else {
        op->status = worst <= 1.2 ? PLAN_SLO_NEAR_MISS : PLAN_SLO_MISSED;
        op->miss_factor = worst > 1 ? worst : 1;
        char x[32], y[32];
        plan_fmt_time(got, x, sizeof x);
        plan_fmt_time(bound, y, sizeof y);
        snprintf(op->miss, sizeof op->miss,
                 "%s p99 %s > %s at the planned load (attainment %.1f%%)", what, x, y, 100 * att);
    }
    return 0;
}

/* A simulator failure (the step guard, out of memory) rejects the candidate with the reason. */
int
plan_confirm(const struct plan_question *q, const struct plan_opts *o, const struct plan_cand *c,
             struct plan_eval *ev)
{
    if (stage2(q, o, c, ev) == 0)
        return 0;
    char why[PLAN_TEXT];
    snprintf(why, sizeof why, "the simulator failed: %.400s", sim_error);
    plan_fill_rej(c, PLAN_REJ_RATE, why, &ev->rej);
    ev->rejected = true;
    ev->feasible = false;
    ev->keep_op = false;
    return 0;
}
