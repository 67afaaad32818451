/* The planner's search (docs/plan.md#method): enumerate candidates, screen each by memory and
 * by the SLO unloaded, bracket its max SLO-meeting rate with the analytic estimate, confirm the
 * best by bisection in the simulator with common random numbers, then size, price and rank the
 * fleets. Deterministic for any number of threads and shards. */
#include "plan/plan.h"

#include "plan/cost.h"
#include "util/alloc.h"
#include "util/units.h"

#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct cand {
    int index;
    const struct hw_profile *hw, *pf_hw; /* pf_hw: disaggregated prefill hardware */
    struct plan_format fmt;
    int tp, pp;
    enum sim_policy policy;
    long max_batch, mtps;
    int np, nd; /* disaggregated unit */
};

/* ---- the one adapter to the simulator (re-point here when sim.h changes) ---- */

/* The scheduler one instance of `c` runs: the simulator's defaults for its policy, the engine
 * profile's serving defaults over them (as `roofline simulate` applies them), the candidate's
 * own knobs (the question's) over both. `eng` (may be NULL) gets the engine's memory reserve. */
static void
plan_sched(const struct plan_question *q, const struct plan_opts *o, const struct cand *c,
           struct roof_config *eng, struct sim_sched *sched)
{
    sim_sched_defaults(sched, c->policy, q->model);
    if (o->serving && q->engine)
        o->serving(c->hw, q->engine, eng, sched, o->serving_ctx);
    if (c->max_batch > 0)
        sched->max_batch = c->max_batch;
    if (c->mtps > 0)
        sched->max_tokens_per_step = c->mtps;
}

/* The engine of `c` on `hw`: formats, parallelism, the engine's tuning and memory reserve.
 * Returns 0, or -1 when the engine tuning is unavailable. */
static int
plan_engine(const struct plan_question *q, const struct plan_opts *o, const struct cand *c,
            const struct hw_profile *hw, struct roof_config *eng)
{
    roof_config_init(eng, hw, q->model, ROOF_DECODE);
    eng->weights = c->fmt.weights;
    eng->act = c->fmt.act;
    eng->kv = c->fmt.kv;
    eng->tp = c->tp;
    eng->pp = c->pp;
    if (o->tuning && q->engine && o->tuning(hw, q->engine, &eng->tuning, o->tuning_ctx))
        return -1;
    if (o->serving && q->engine) {
        struct sim_sched sd;
        sim_sched_defaults(&sd, c->policy, q->model);
        o->serving(hw, q->engine, eng, &sd, o->serving_ctx);
    }
    return 0;
}

/* A simulator config for one instance (a disaggregated unit: np + nd instances) of `c`, at
 * `rate_per_s` per instance. A unit on two device types (c->pf_hw) runs prefill on pf_hw and
 * decode on c->hw when `decode` (the decode engine's storage, borrowed by cfg) is given; NULL:
 * all on c->hw. The scheduler is c->hw's. Returns 0, or -1 when the engine tuning is
 * unavailable. */
static int
plan_sim_config(const struct plan_question *q, const struct plan_opts *o, const struct cand *c,
                double rate_per_s, struct sim_config *cfg, struct roof_config *decode)
{
    memset(cfg, 0, sizeof *cfg);
    bool two = c->pf_hw && decode;
    if (plan_engine(q, o, c, two ? c->pf_hw : c->hw, &cfg->engine) != 0)
        return -1;
    if (two) {
        if (plan_engine(q, o, c, c->hw, decode) != 0)
            return -1;
        cfg->decode_engine = decode;
    }
    cfg->instances = c->policy == SIM_DISAGGREGATED ? c->np + c->nd : 1;
    plan_sched(q, o, c, NULL, &cfg->sched);
    cfg->sched.prefill_instances = c->policy == SIM_DISAGGREGATED ? c->np : 0;
    cfg->work.process = q->process;
    cfg->work.cv = q->cv;
    cfg->work.rate_per_s = rate_per_s;
    cfg->work.prompt = q->prompt;
    cfg->work.output = q->output;
    cfg->work.trace = q->trace;
    cfg->work.requests = q->sim_requests;
    cfg->work.warmup_requests = q->sim_requests / 10;
    cfg->slo = q->slo;
    if (!q->has_slo)
        memset(&cfg->slo, 0, sizeof cfg->slo);
    cfg->seed = q->seed;
    cfg->timeline_points = 2;
    return 0;
}

/* ---- closed loops (docs/plan.md#concurrent-users) ---- */

/* Concurrent users with an SLO are sized as a closed loop; everything else by the rate. */
static bool
closed_sizing(const struct plan_question *q)
{
    return q->workload == PLAN_WL_USERS && q->has_slo;
}

/* Turn `cfg` into a closed loop of `users` users with the question's think time; at least ten
 * requests per user, a tenth of them warm-up. */
static void
closed_loop(const struct plan_question *q, struct sim_config *cfg, long users)
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
static double
users_at_rate(const struct plan_question *q, double rate_per_s, double e2e_mean_s)
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

/* ---- small helpers ---- */

/* The mean length (a question's trace: the rows' mean, io/question.c). */
static double
len_mean(const struct sim_dist *d)
{
    return d->kind == SIM_DIST_TRACE ? d->mean : sim_dist_mean(d);
}

/* The longest length the workload can draw (lognormal without a cap: mean + 4 sd; a trace: its
 * longest row). */
static double
dist_max(const struct sim_dist *d)
{
    switch (d->kind) {
    case SIM_DIST_FIXED:
        return d->value;
    case SIM_DIST_TRACE:
        return d->max;
    case SIM_DIST_UNIFORM:
        return d->max;
    case SIM_DIST_LOGNORMAL:
        return d->max > 0 ? d->max : ceil(d->mean + 4 * d->sd);
    default:
        return 0;
    }
}

static void
fmt_time(double s, char *b, size_t n)
{
    if (!isfinite(s))
        snprintf(b, n, "inf");
    else
        unit_format_time(s, 3, b, n);
}

static void
fmt_bytes(double x, char *b, size_t n)
{
    unit_format_short(x, "B", 3, b, n);
}

static void
fill_ident(const struct cand *c, struct plan_option *op)
{
    memset(op, 0, sizeof *op);
    op->index = c->index;
    snprintf(op->hw_id, sizeof op->hw_id, "%s", c->hw->id);
    if (c->pf_hw)
        snprintf(op->prefill_hw_id, sizeof op->prefill_hw_id, "%s", c->pf_hw->id);
    op->tp = c->tp;
    op->pp = c->pp;
    op->format = c->fmt;
    op->policy = c->policy;
    op->max_batch = c->max_batch;
    op->max_tokens_per_step = c->mtps;
    op->prefill_instances = c->policy == SIM_DISAGGREGATED ? c->np : 0;
    op->decode_instances = c->policy == SIM_DISAGGREGATED ? c->nd : 0;
    op->devices_per_instance = c->tp * c->pp * (c->policy == SIM_DISAGGREGATED ? c->np + c->nd : 1);
    op->exhaust_month = -1;
    op->tco_per_year = NAN;
    op->capex = NAN;
    op->margin_ttft = op->margin_itl = op->margin_e2e = NAN;
    op->miss_factor = 1;
}

static void
fill_rej(const struct cand *c, enum plan_reject_kind k, const char *why, struct plan_rejected *r)
{
    memset(r, 0, sizeof *r);
    r->index = c->index;
    snprintf(r->hw_id, sizeof r->hw_id, "%s", c->hw->id);
    if (c->pf_hw)
        snprintf(r->prefill_hw_id, sizeof r->prefill_hw_id, "%s", c->pf_hw->id);
    r->tp = c->tp;
    r->pp = c->pp;
    r->format = c->fmt;
    r->policy = c->policy;
    r->kind = k;
    snprintf(r->reason, sizeof r->reason, "%s", why);
}

/* ---- enumeration ---- */

static int
enumerate(const struct plan_question *q, struct cand **out)
{
    int cap = 256, n = 0;
    struct cand *v = malloc((size_t)cap * sizeof *v);
    if (!v)
        return -1;
    for (int h = 0; h < q->n_hw; h++)
        for (int f = 0; f < q->n_formats; f++)
            for (int t = 0; t < q->n_tp; t++)
                for (int p = 0; p < q->n_pp; p++)
                    for (int s = 0; s < q->n_policies; s++)
                        for (int b = 0; b < q->n_max_batch; b++)
                            for (int k = 0; k < q->n_max_tokens_per_step; k++) {
                                bool dis = q->policies[s] == SIM_DISAGGREGATED;
                                int npf = dis && q->n_prefill_hw > 0 ? q->n_prefill_hw : 1;
                                int nr = dis ? q->n_pd_ratios : 1;
                                for (int ph = 0; ph < npf; ph++)
                                    for (int r = 0; r < nr; r++) {
                                        if (n == cap) {
                                            cap *= 2;
                                            struct cand *nv = realloc(v, (size_t)cap * sizeof *nv);
                                            if (!nv) {
                                                free(v);
                                                return -1;
                                            }
                                            v = nv;
                                        }
                                        struct cand *c = &v[n];
                                        memset(c, 0, sizeof *c);
                                        c->index = n;
                                        c->hw = q->hw[h];
                                        c->pf_hw =
                                            dis && q->n_prefill_hw > 0 &&
                                                    strcmp(q->prefill_hw[ph]->id, q->hw[h]->id) != 0
                                                ? q->prefill_hw[ph]
                                                : NULL;
                                        c->fmt = q->formats[f];
                                        c->tp = q->tp[t];
                                        c->pp = q->pp[p];
                                        c->policy = q->policies[s];
                                        c->max_batch = q->max_batch[b];
                                        c->mtps = q->max_tokens_per_step[k];
                                        if (dis) {
                                            double ra = q->pd_ratios[r];
                                            c->np = ra >= 1 ? (int)lround(ra) : 1;
                                            c->nd = ra >= 1 ? 1 : (int)lround(1.0 / ra);
                                        }
                                        n++;
                                    }
                            }
    *out = v;
    return n;
}

/* ---- per-candidate evaluation ---- */

struct eval {
    bool feasible;            /* passed the screens */
    struct plan_option op;    /* when feasible (or an unloaded-SLO near miss kept for "closest") */
    bool keep_op;             /* op is meaningful (feasible, or a missed option kept) */
    struct plan_rejected rej; /* when rejected */
    bool rejected;
    double prelim_cost; /* stage 1 objective value for choosing what to simulate */
};

/* Analytic check at `rate` per instance: does the estimate meet every bound? */
static bool
analytic_meets(const struct plan_question *q, struct sim_config *cfg, double rate,
               struct sim_analytic *a)
{
    cfg->work.rate_per_s = rate;
    if (sim_analytic(cfg, a) != 0 || !a->stable)
        return false;
    const struct sim_slo *s = &q->slo;
    return (!(s->ttft_s > 0) || a->ttft_p99_s <= s->ttft_s) &&
           (!(s->itl_s > 0) || a->tpot_mean_s <= s->itl_s) &&
           (!(s->e2e_s > 0) || a->e2e_p99_s <= s->e2e_s);
}

/* Simulate at `rate` per instance; fills the planned-load figures when `op` is given. */
struct probe {
    bool meets;
    double attainment, ttft_p99, tpot_p99, e2e_p99, ttft_p50, tpot_p50, e2e_mean;
    double out_tok_s, req_s;
    long rejected;
};

static _Thread_local char sim_error[PLAN_TEXT];

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

/* Prefill on one device type, decode on another (docs/plan.md#heterogeneous-disaggregation): the
 * simulator runs one device type, so the unit is composed from two analytic estimates of
 * homogeneous disaggregated units: TTFT from the prefill type's (its decode pool made 64 times
 * larger so that only prefill and transfer count), TPOT from the decode type's (its prefill pool
 * made 64 times larger); capacity the smaller of the two. */
struct hetero {
    struct sim_config a, b; /* prefill-side and decode-side configs */
};

static int
hetero_init(const struct plan_question *q, const struct plan_opts *o, const struct cand *c,
            struct hetero *h)
{
    struct cand ca = *c, cb = *c;
    ca.hw = c->pf_hw;
    ca.pf_hw = cb.pf_hw = NULL;
    ca.nd = c->nd * 64;
    cb.np = c->np * 64;
    if (plan_sim_config(q, o, &ca, 1.0, &h->a, NULL) != 0 ||
        plan_sim_config(q, o, &cb, 1.0, &h->b, NULL) != 0)
        return -1;
    return 0;
}

struct hetero_est {
    bool stable;
    double ttft_p99_s, ttft_mean_s, tpot_s, e2e_p99_s, e2e_mean_s, capacity_req_per_s;
    double prefill_s, step_s;
};

static int
hetero_eval(struct hetero *h, double rate, struct hetero_est *e)
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
hetero_meets(const struct plan_question *q, struct hetero *h, double rate)
{
    struct hetero_est e;
    if (hetero_eval(h, rate, &e) != 0 || !e.stable)
        return false;
    const struct sim_slo *s = &q->slo;
    return (!(s->ttft_s > 0) || e.ttft_p99_s <= s->ttft_s) &&
           (!(s->itl_s > 0) || e.tpot_s <= s->itl_s) &&
           (!(s->e2e_s > 0) || e.e2e_p99_s <= s->e2e_s);
}

static void
stage1_hetero(const struct plan_question *q, const struct plan_opts *o, const struct cand *c,
              struct eval *ev)
{
    char why[PLAN_TEXT];
    struct hetero h;
    if (hetero_init(q, o, c, &h) != 0) {
        snprintf(why, sizeof why, "no engine tuning for '%s' on %s or %s", q->engine, c->hw->id,
                 c->pf_hw->id);
        fill_rej(c, PLAN_REJ_FORMAT, why, &ev->rej);
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
            fill_rej(c, PLAN_REJ_PARALLEL, why, &ev->rej);
            ev->rejected = true;
            return;
        }
        if (hw_link_bytes_per_s_per_direction(hws[k]) <= 0) {
            snprintf(why, sizeof why,
                     "disaggregated serving moves the KV cache over a link; %s has none",
                     hws[k]->id);
            fill_rej(c, PLAN_REJ_PARALLEL, why, &ev->rej);
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
            fill_rej(c, PLAN_REJ_MEMORY, why, &ev->rej);
            ev->rejected = true;
            return;
        }
    }
    struct hetero_est e;
    struct plan_option *op = &ev->op;
    fill_ident(c, op);
    if (hetero_eval(&h, 1e-6, &e) != 0) {
        fill_rej(c, PLAN_REJ_RATE, "the analytic estimate failed for this configuration", &ev->rej);
        ev->rejected = true;
        return;
    }
    double cap = e.capacity_req_per_s;
    op->saturation_output_tokens_per_s = cap * len_mean(&q->output);
    if (q->has_slo) {
        if (!hetero_meets(q, &h, 1e-6 * cap)) {
            char x[32], y[32];
            fmt_time(e.ttft_p99_s, x, sizeof x);
            fmt_time(e.tpot_s, y, sizeof y);
            snprintf(why, sizeof why,
                     "misses the SLO even unloaded: TTFT p99 %s (prefill on %s), ITL %s (decode "
                     "on %s)",
                     x, c->pf_hw->id, y, c->hw->id);
            fill_rej(c, PLAN_REJ_SLO, why, &ev->rej);
            ev->rejected = true;
            return;
        }
        double lo = cap * 1e-6, hi = cap;
        for (int i = 0; i < 60 && hi / lo > 1.005; i++) {
            double mid = sqrt(lo * hi);
            if (hetero_meets(q, &h, mid))
                lo = mid;
            else
                hi = mid;
        }
        op->analytic_rate_per_s = lo;
    } else {
        op->analytic_rate_per_s = cap;
        op->status = PLAN_SLO_NONE;
    }
    op->rate_per_s = op->analytic_rate_per_s;
    if (closed_sizing(q))
        op->users_per_instance = hetero_eval(&h, op->rate_per_s, &e) == 0 && e.stable
                                     ? users_at_rate(q, op->rate_per_s, e.e2e_mean_s)
                                     : 1;
    ev->feasible = true;
    ev->keep_op = true;
}

/* Stage 1: screens and the analytic bracket. */
static void
stage1(const struct plan_question *q, const struct plan_opts *o, const struct cand *c,
       struct eval *ev)
{
    memset(ev, 0, sizeof *ev);
    char why[PLAN_TEXT];
    struct sim_config cfg;
    if (c->pf_hw) {
        stage1_hetero(q, o, c, ev);
        return;
    }
    if (plan_sim_config(q, o, c, 1.0, &cfg, NULL) != 0) {
        snprintf(why, sizeof why, "no engine tuning for '%s' on %s", q->engine, c->hw->id);
        fill_rej(c, PLAN_REJ_FORMAT, why, &ev->rej);
        ev->rejected = true;
        return;
    }
    enum dtype used;
    if (hw_peak(c->hw, c->fmt.act, &used) <= 0) {
        snprintf(why, sizeof why, "no %s (or fallback) compute roof on %s", dtype_name(c->fmt.act),
                 c->hw->id);
        fill_rej(c, PLAN_REJ_FORMAT, why, &ev->rej);
        ev->rejected = true;
        return;
    }
    const char *prob = roof_config_problem(&cfg.engine);
    if (prob) {
        snprintf(why, sizeof why, "%s (tp %d, pp %d)", prob, c->tp, c->pp);
        fill_rej(c, PLAN_REJ_PARALLEL, why, &ev->rej);
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
        fill_rej(c, PLAN_REJ_PARALLEL, why, &ev->rej);
        ev->rejected = true;
        return;
    }
    if (c->policy == SIM_DISAGGREGATED && hw_link_bytes_per_s_per_direction(c->hw) <= 0) {
        snprintf(why, sizeof why,
                 "disaggregated serving moves the KV cache over a link; %s has none", c->hw->id);
        fill_rej(c, PLAN_REJ_PARALLEL, why, &ev->rej);
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
                 "does not fit: %s of %s weights + %s reserve per device in %s (tp %d, pp %d)", w,
                 dtype_name(c->fmt.weights), r, cap, c->tp, c->pp);
        fill_rej(c, PLAN_REJ_MEMORY, why, &ev->rej);
        ev->rejected = true;
        return;
    }
    double maxlen = dist_max(&q->prompt) + dist_max(&q->output);
    double seqs = blocks / ceil(maxlen / (double)cfg.sched.block_tokens);
    if (seqs < 1) {
        snprintf(why, sizeof why,
                 "KV pool holds %.2f sequences of the maximum length (%.0f tokens): %.0f blocks of "
                 "%ld tokens",
                 seqs, maxlen, blocks, cfg.sched.block_tokens);
        fill_rej(c, PLAN_REJ_KV, why, &ev->rej);
        ev->rejected = true;
        return;
    }
    /* capacity and the unloaded check */
    struct sim_analytic a;
    cfg.work.rate_per_s = 1e-6;
    if (sim_analytic(&cfg, &a) != 0) {
        fill_rej(c, PLAN_REJ_RATE, "the analytic estimate failed for this configuration", &ev->rej);
        ev->rejected = true;
        return;
    }
    double cap_rate = a.capacity_req_per_s / (double)cfg.instances;
    if (c->policy == SIM_DISAGGREGATED)
        cap_rate = a.capacity_req_per_s;
    struct plan_option *op = &ev->op;
    fill_ident(c, op);
    op->saturation_output_tokens_per_s = cap_rate * len_mean(&q->output);
    if (q->has_slo) {
        const struct sim_slo *s = &q->slo;
        double f_t = s->ttft_s > 0 ? a.ttft_p99_s / s->ttft_s : 0;
        double f_i = s->itl_s > 0 ? a.tpot_mean_s / s->itl_s : 0;
        double f_e = s->e2e_s > 0 ? a.e2e_p99_s / s->e2e_s : 0;
        double f = fmax(f_t, fmax(f_i, f_e));
        if (f > 1) {
            char x[32], y[32], z[32];
            if (f == f_t) {
                fmt_time(a.ttft_p99_s, x, sizeof x);
                fmt_time(s->ttft_s, y, sizeof y);
                fmt_time(a.prefill_s, z, sizeof z);
                snprintf(why, sizeof why,
                         "TTFT p99 %s > %s even unloaded: prefill of the mean %.0f-token prompt "
                         "takes %s and the longest (%.0f tokens) more (tp %d, %s)",
                         x, y, len_mean(&q->prompt), z, dist_max(&q->prompt), c->tp,
                         dtype_name(c->fmt.weights));
                snprintf(op->miss, sizeof op->miss, "TTFT p99 %s > %s", x, y);
            } else if (f == f_i) {
                fmt_time(a.tpot_mean_s, x, sizeof x);
                fmt_time(s->itl_s, y, sizeof y);
                fmt_time(a.step_s, z, sizeof z);
                snprintf(why, sizeof why,
                         "ITL %s > %s even unloaded because one decode step takes %s (tp %d, %s)",
                         x, y, z, c->tp, dtype_name(c->fmt.weights));
                snprintf(op->miss, sizeof op->miss, "ITL %s > %s", x, y);
            } else {
                fmt_time(a.e2e_p99_s, x, sizeof x);
                fmt_time(s->e2e_s, y, sizeof y);
                snprintf(why, sizeof why, "E2E p99 %s > %s even unloaded (%.0f output tokens)", x,
                         y, len_mean(&q->output));
                snprintf(op->miss, sizeof op->miss, "E2E p99 %s > %s", x, y);
            }
            fill_rej(c, PLAN_REJ_SLO, why, &ev->rej);
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
        double lo = cap_rate * 1e-4, hi = cap_rate;
        struct sim_analytic t;
        if (!analytic_meets(q, &cfg, lo, &t)) {
            op->analytic_rate_per_s = 0;
        } else {
            for (int i = 0; i < 40 && hi / lo > 1.005; i++) {
                double mid = sqrt(lo * hi);
                if (analytic_meets(q, &cfg, mid, &t))
                    lo = mid;
                else
                    hi = mid;
            }
            op->analytic_rate_per_s = lo;
        }
    } else {
        op->analytic_rate_per_s = cap_rate;
        op->status = PLAN_SLO_NONE;
    }
    if (!(op->analytic_rate_per_s > 0)) {
        fill_rej(c, PLAN_REJ_RATE, "meets the SLO only at a vanishing rate", &ev->rej);
        ev->rejected = true;
        return;
    }
    op->rate_per_s = op->analytic_rate_per_s;
    if (closed_sizing(q)) {
        struct sim_analytic t;
        cfg.work.rate_per_s = op->rate_per_s;
        op->users_per_instance = sim_analytic(&cfg, &t) == 0 && t.stable
                                     ? users_at_rate(q, op->rate_per_s, t.e2e_mean_s)
                                     : 1;
    }
    ev->feasible = true;
    ev->keep_op = true;
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
    closed_loop(u->q, &c, n);
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
stage2_users(const struct plan_question *q, const struct cand *c, const struct sim_config *cfg,
             struct eval *ev)
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
        fmt_time(u.last.ttft_p99, x, sizeof x);
        snprintf(why, sizeof why,
                 "the simulator misses the SLO even with one user per instance (attainment "
                 "%.1f%%, TTFT p99 %s; the analytic estimate allowed %.0f users)",
                 100 * u.last.attainment, x, users_at_rate(q, op->analytic_rate_per_s, 0));
        fill_rej(c, PLAN_REJ_RATE, why, &ev->rej);
        return 1;
    }
    op->rate_per_s = u.best.req_s;
    return 0;
}

/* Stage 2: the simulator's bisection over the rate, bracketed by the analytic rate, and the
 * figures at the planned load. */
static int
stage2(const struct plan_question *q, const struct plan_opts *o, const struct cand *c,
       struct eval *ev)
{
    struct plan_option *op = &ev->op;
    struct sim_config cfg;
    struct roof_config decode;
    if (plan_sim_config(q, o, c, 1.0, &cfg, &decode) != 0)
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
        return 0;
    }
    double lo = 0, hi = 0;
    if (closed_sizing(q)) {
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
    if (sim_probe(q, &cfg, ra, &p) != 0)
        return -1;
    if (p.meets) {
        lo = ra;
        for (int i = 0; i < 16; i++) {
            double r = lo * (i < 4 ? 1.3 : 2.0);
            if (sim_probe(q, &cfg, r, &p) != 0)
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
            if (sim_probe(q, &cfg, r, &p) != 0)
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
            if (sim_probe(q, &cfg, mid, &p) != 0)
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
        fmt_time(p.ttft_p99, x, sizeof x);
        snprintf(why, sizeof why,
                 "the simulator misses the SLO even at %.3g requests/s per instance (attainment "
                 "%.1f%%, TTFT p99 %s; the analytic estimate allowed %.3g)",
                 hi, 100 * p.attainment, x, ra);
        fill_rej(c, PLAN_REJ_RATE, why, &ev->rej);
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

/* Instances for `volume` x today's traffic given the option's capacity per instance: the rate
 * at the planned utilisation, or (closed loops) the users per instance at the planned
 * utilisation, rounded down to whole users and at least one. */
static int
instances_for(const struct plan_question *q, const struct plan_option *op, double volume)
{
    if (!(op->rate_per_s > 0))
        return 0;
    double n;
    if (closed_sizing(q) && op->users_per_instance >= 1) {
        double per = floor(op->users_per_instance * q->utilisation + 1e-9);
        n = ceil((double)q->users * volume / (per >= 1 ? per : 1) - 1e-9);
    } else {
        n = ceil(q->rate_per_s * volume / (op->rate_per_s * q->utilisation) - 1e-9);
    }
    return (int)(n < 1 ? 1 : n) + q->spares;
}

/* The cost per million tokens, tokens per kW and joules per token of the option's fleet at
 * `req_per_s` requests/s in all. */
static void
price_tokens(const struct plan_question *q, struct plan_option *op, double req_per_s)
{
    double out_tok = req_per_s * len_mean(&q->output);
    double in_tok = req_per_s * len_mean(&q->prompt);
    op->cost_per_mtok_output = plan_cost_per_mtok(op->cost_per_hour, out_tok);
    op->cost_per_mtok_input = plan_cost_per_mtok(op->cost_per_hour, in_tok);
    op->cost_per_mtok_blended = plan_cost_per_mtok(op->cost_per_hour, in_tok + out_tok);
    op->tokens_per_s_per_kw = isfinite(op->power_w) ? out_tok / (op->power_w / 1000.0) : NAN;
    op->joules_per_token = isfinite(op->power_w) ? op->power_w / out_tok : NAN;
}

struct fleet {
    int instances, devices, servers, stranded;
    double cost_per_hour, power_w, tco_per_year, capex;
};

/* One pool of `used` devices of `hw` serving `instances` instances, added to `f`. */
static void
pool_cost(const struct plan_question *q, const struct hw_profile *hw, int used, int instances,
          struct fleet *f)
{
    int sd = plan_server_devices(hw), servers, devices;
    if (sd > 0) {
        servers = (used + sd - 1) / sd;
        devices = servers * sd;
    } else {
        servers = instances; /* one host per instance */
        devices = used;
    }
    f->servers += servers;
    f->devices += devices;
    f->stranded += devices - used;
    enum plan_price_origin org;
    char basis[PLAN_TEXT];
    struct plan_tco_parts parts;
    double price = plan_purchase_price(q, hw, &org, basis, sizeof basis);
    plan_tco_device_year(&q->tco, price, hw->tdp_w, sd, &parts);
    /* wall power: devices at the assumed utilisation plus hosts, with PUE */
    f->power_w += hw->tdp_w > 0 ? (devices * hw->tdp_w * q->tco.device_utilisation +
                                   servers * q->tco.host_w_per_server) *
                                      q->tco.pue
                                : NAN;
    double tco = price > 0 ? parts.total * devices : NAN;
    double capex = price > 0 ? parts.server_share * devices : NAN;
    f->tco_per_year += tco;
    f->capex += capex;
    if (q->money == PLAN_BUY) {
        f->cost_per_hour += tco / PLAN_HOURS_PER_YEAR;
    } else {
        double rent = plan_rent_per_hour(q, hw, &org, NULL, basis, sizeof basis);
        f->cost_per_hour += rent > 0 ? rent * devices : NAN;
    }
}

/* The fleet of `instances` instances of `op` (a disaggregated unit on two device types: both
 * pools, each in whole servers of its own kind). */
static void
fleet_cost(const struct plan_question *q, const struct hw_profile *hw, const struct plan_option *op,
           int instances, struct fleet *f)
{
    memset(f, 0, sizeof *f);
    f->instances = instances;
    const struct hw_profile *pf = op->prefill_hw_id[0] ? plan_find_hw(q, op->prefill_hw_id) : NULL;
    if (pf) {
        int per = op->tp * op->pp;
        pool_cost(q, pf, instances * op->prefill_instances * per, instances * op->prefill_instances,
                  f);
        pool_cost(q, hw, instances * op->decode_instances * per, instances * op->decode_instances,
                  f);
    } else {
        pool_cost(q, hw, instances * op->devices_per_instance, instances, f);
    }
}

static double
objective_value(const struct plan_question *q, const struct plan_option *op)
{
    double v;
    switch (q->objective) {
    case PLAN_MIN_COST_PER_HOUR:
        v = op->cost_per_hour;
        break;
    case PLAN_MIN_COST_PER_MTOK:
        v = op->cost_per_mtok_blended;
        break;
    case PLAN_MIN_DEVICES:
        v = op->devices + 1e-9 * (isfinite(op->cost_per_hour) ? op->cost_per_hour : 1e12);
        break;
    case PLAN_MAX_TOKENS_PER_DOLLAR:
        v = op->cost_per_mtok_output; /* fewest dollars per token = most tokens per dollar */
        break;
    default:
        v = op->cost_per_hour;
    }
    return isfinite(v) ? v : INFINITY;
}

/* Price the option's fleet at the question's rate (with offline: finish by the deadline). */
static void
price_option(const struct plan_question *q, const struct hw_profile *hw, struct plan_option *op)
{
    op->spares = q->spares;
    op->server_devices = plan_server_devices(hw);
    enum plan_price_origin org;
    if (q->money == PLAN_BUY) {
        op->device_price_per_hour =
            plan_purchase_price(q, hw, &org, op->price_basis, sizeof op->price_basis);
        struct plan_tco_parts parts;
        plan_tco_device_year(&q->tco, op->device_price_per_hour, hw->tdp_w, op->server_devices,
                             &parts);
        op->device_price_per_hour =
            op->device_price_per_hour > 0 ? parts.total / PLAN_HOURS_PER_YEAR : 0;
        op->rent_basis = q->rent_basis;
    } else {
        op->device_price_per_hour = plan_rent_per_hour(q, hw, &org, &op->rent_basis,
                                                       op->price_basis, sizeof op->price_basis);
        op->basis_flag = q->rent_basis != PLAN_BASIS_ANY && op->rent_basis != q->rent_basis;
    }
    op->price_origin = org;
    const struct hw_profile *pf = op->prefill_hw_id[0] ? plan_find_hw(q, op->prefill_hw_id) : NULL;
    if (pf) {
        char pb[PLAN_TEXT], both[2 * PLAN_TEXT + 64];
        enum plan_price_origin o2;
        enum plan_rent_basis b2;
        if (q->money == PLAN_BUY) {
            plan_purchase_price(q, pf, &o2, pb, sizeof pb);
        } else {
            plan_rent_per_hour(q, pf, &o2, &b2, pb, sizeof pb);
            op->basis_flag |= q->rent_basis != PLAN_BASIS_ANY && b2 != q->rent_basis;
        }
        snprintf(both, sizeof both, "decode %s: %s; prefill %s: %s", hw->id, op->price_basis,
                 pf->id, pb);
        snprintf(op->price_basis, sizeof op->price_basis, "%.500s", both);
    }
    if (!(op->rate_per_s > 0)) {
        op->cost_per_hour = op->cost_per_mtok_output = op->cost_per_mtok_input =
            op->cost_per_mtok_blended = op->power_w = op->tokens_per_s_per_kw =
                op->joules_per_token = NAN;
        return;
    }
    int n = instances_for(q, op, 1.0);
    struct fleet f;
    fleet_cost(q, hw, op, n, &f);
    op->instances = f.instances;
    op->devices = f.devices;
    op->servers = f.servers;
    op->stranded_devices = f.stranded;
    op->cost_per_hour = f.cost_per_hour;
    op->tco_per_year = f.tco_per_year;
    op->capex = f.capex;
    op->power_w = f.power_w;
    op->planned_rate_per_instance_s = q->rate_per_s / (double)(n - q->spares);
    price_tokens(q, op, q->rate_per_s);
    if (q->workload == PLAN_WL_OFFLINE)
        op->offline_hours = q->offline_requests / ((n - q->spares) * op->rate_per_s) / 3600.0;
    /* growth: the first month whose traffic exceeds the fleet's max SLO-meeting rate */
    op->exhaust_month = -1;
    if (q->growth_per_month > 0) {
        bool users = closed_sizing(q) && op->users_per_instance >= 1;
        double capacity = (n - q->spares) * (users ? op->users_per_instance : op->rate_per_s);
        double today = users ? (double)q->users : q->rate_per_s;
        for (int m = 1; m <= q->horizon_months; m++)
            if (today * pow(1.0 + q->growth_per_month, m) > capacity) {
                op->exhaust_month = m;
                break;
            }
    }
}

/* The figures at the planned load (the simulator for simulated options, else the estimate). */
static int
planned_load(const struct plan_question *q, const struct plan_opts *o, const struct cand *c,
             struct plan_option *op)
{
    if (!(op->rate_per_s > 0) || op->instances <= op->spares)
        return 0;
    struct sim_config cfg;
    struct roof_config decode;
    if (plan_sim_config(q, o, c, 1.0, &cfg, &decode) != 0)
        return -1;
    double r = op->planned_rate_per_instance_s;
    const struct sim_slo *s = &q->slo;
    double t99, i99, e99, att = NAN;
    /* concurrent users: the planned load is a closed loop of the users spread evenly over the
     * serving instances, each with its think time; its throughput is the planned rate */
    int serving = op->instances - op->spares;
    bool closed = q->workload == PLAN_WL_USERS && (op->simulated || !c->pf_hw);
    if (closed)
        closed_loop(q, &cfg, (q->users + serving - 1) / serving);
    if (op->simulated) {
        struct probe p;
        if (sim_probe(q, &cfg, r, &p) != 0)
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
        struct hetero h;
        struct hetero_est e;
        if (hetero_init(q, o, c, &h) != 0 || hetero_eval(&h, r, &e) != 0)
            return -1;
        t99 = e.ttft_p99_s, i99 = e.tpot_s, e99 = e.e2e_p99_s;
        op->ttft_p50_s = e.ttft_mean_s;
        op->itl_p50_s = e.tpot_s;
        op->output_tokens_per_s_planned = r * len_mean(&q->output);
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
        op->output_tokens_per_s_planned = r * len_mean(&q->output);
        op->e2e_mean_s = a.e2e_mean_s;
    }
    if (closed)
        price_tokens(q, op, serving * op->planned_rate_per_instance_s);
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
        fmt_time(got, x, sizeof x);
        fmt_time(bound, y, sizeof y);
        snprintf(op->miss, sizeof op->miss,
                 "%s p99 %s > %s at the planned load (attainment %.1f%%)", what, x, y, 100 * att);
    }
    return 0;
}

/* ---- launch lines ---- */

static void
launch_line(const struct plan_question *q, const struct cand *c, const struct plan_option *op,
            char *b, size_t n)
{
    const char *eng = q->engine;
    bool apple = c->hw->vendor && strcmp(c->hw->vendor, "apple") == 0;
    bool gguf = dtype_is_weight_only(c->fmt.weights) && c->fmt.weights != DT_INT4;
    if (!eng || strcmp(eng, "kernel") == 0)
        eng = apple || gguf ? "llama.cpp" : "vllm";
    const char *m = q->model->id;
    double ctx = dist_max(&q->prompt) + dist_max(&q->output);
    if (strcmp(eng, "llama.cpp") == 0) {
        long np = op->max_batch < 64 ? op->max_batch : 64;
        snprintf(b, n, "llama-server -m %s-%s.gguf -c %.0f -np %ld -ngl 999%s", m,
                 dtype_name(c->fmt.weights), ctx * (double)np, np,
                 c->tp > 1 ? " --split-mode row" : "");
        return;
    }
    /* the token budget simulated: the question's, else (chunked prefill) the simulator's
     * default, which is not the engine's (vLLM: 8192 on large devices) */
    long budget = c->mtps;
    if (budget <= 0 && c->policy == SIM_CHUNKED) {
        struct sim_sched sd;
        sim_sched_defaults(&sd, c->policy, q->model);
        budget = sd.max_tokens_per_step;
    }
    char tok[48] = "";
    if (budget > 0)
        snprintf(tok, sizeof tok, " %s %ld",
                 strcmp(eng, "vllm") == 0 ? "--max-num-batched-tokens" : "--max_num_tokens",
                 budget);
    if (strcmp(eng, "tensorrt-llm") == 0) {
        snprintf(b, n, "trtllm-serve %s --tp_size %d --pp_size %d --max_batch_size %ld%s", m, c->tp,
                 c->pp, c->max_batch, tok);
        return;
    }
    const char *quant = "";
    if (c->fmt.weights == DT_FP8)
        quant = " --quantization fp8";
    else if (c->fmt.weights == DT_INT4)
        quant = " --quantization awq";
    else if (c->fmt.weights == DT_INT8)
        quant = " --quantization w8a8";
    int w = snprintf(b, n, "vllm serve %s --tensor-parallel-size %d%s --max-num-seqs %ld%s%s%s%s",
                     m, c->tp, c->pp > 1 ? " --pipeline-parallel-size N" : "", c->max_batch, tok,
                     quant, c->fmt.kv == DT_FP8 ? " --kv-cache-dtype fp8" : "",
                     c->policy == SIM_CHUNKED ? " --enable-chunked-prefill" : "");
    if (c->pp > 1 && w > 0) {
        char *s = strstr(b, "--pipeline-parallel-size N");
        if (s)
            s[25] = (char)('0' + (c->pp < 10 ? c->pp : 9));
    }
    if (c->policy == SIM_DISAGGREGATED && w > 0 && (size_t)w < n)
        snprintf(b + w, n - (size_t)w,
                 " (x%d prefill%s%s + x%d decode instances%s%s with --kv-transfer-config)",
                 op->prefill_instances, c->pf_hw ? " on " : "", c->pf_hw ? c->pf_hw->id : "",
                 op->decode_instances, c->pf_hw ? " on " : "", c->pf_hw ? c->hw->id : "");
}

/* A simulator failure (the step guard, out of memory) rejects the candidate with the reason. */
static int
stage2_or_reject(const struct plan_question *q, const struct plan_opts *o, const struct cand *c,
                 struct eval *ev)
{
    if (stage2(q, o, c, ev) == 0)
        return 0;
    char why[PLAN_TEXT];
    snprintf(why, sizeof why, "the simulator failed: %.400s", sim_error);
    fill_rej(c, PLAN_REJ_RATE, why, &ev->rej);
    ev->rejected = true;
    ev->feasible = false;
    ev->keep_op = false;
    return 0;
}

/* ---- threads ---- */

struct work {
    const struct plan_question *q;
    const struct plan_opts *o;
    const struct cand *cands;
    struct eval *evals;
    const int *todo; /* candidate indices to run */
    int n_todo;
    int stage;
    int next, done;
    int failed;
    pthread_mutex_t mu;
};

static void *
worker(void *arg)
{
    struct work *w = arg;
    for (;;) {
        pthread_mutex_lock(&w->mu);
        int k = w->next < w->n_todo ? w->next++ : -1;
        pthread_mutex_unlock(&w->mu);
        if (k < 0)
            return NULL;
        int i = w->todo[k];
        int rc = 0;
        if (w->stage == 1)
            stage1(w->q, w->o, &w->cands[i], &w->evals[i]);
        else
            rc = stage2_or_reject(w->q, w->o, &w->cands[i], &w->evals[i]);
        pthread_mutex_lock(&w->mu);
        w->done++;
        if (rc)
            w->failed = 1;
        pthread_mutex_unlock(&w->mu);
    }
}

static int
run_pool(struct work *w)
{
    int jobs = w->o->jobs > 1 ? w->o->jobs : 1;
    if (jobs > 64)
        jobs = 64;
    pthread_t th[64];
    int started = 0;
    w->next = w->done = 0;
    for (int j = 1; j < jobs; j++)
        if (pthread_create(&th[started], NULL, worker, w) == 0)
            started++;
    /* the calling thread works too and reports progress between items */
    for (;;) {
        pthread_mutex_lock(&w->mu);
        int k = w->next < w->n_todo ? w->next++ : -1;
        pthread_mutex_unlock(&w->mu);
        if (k < 0)
            break;
        int i = w->todo[k];
        int rc = 0;
        if (w->stage == 1)
            stage1(w->q, w->o, &w->cands[i], &w->evals[i]);
        else
            rc = stage2_or_reject(w->q, w->o, &w->cands[i], &w->evals[i]);
        pthread_mutex_lock(&w->mu);
        w->done++;
        if (rc)
            w->failed = 1;
        int d = w->done;
        pthread_mutex_unlock(&w->mu);
        if (w->o->progress)
            w->o->progress(d, w->n_todo, w->o->progress_ctx);
    }
    for (int j = 0; j < started; j++)
        pthread_join(th[j], NULL);
    return w->failed ? -1 : 0;
}

/* ---- ranking ---- */

static const struct plan_question *g_rank_q; /* qsort has no context; set under plan_finish */

static int
status_rank(enum plan_slo_status s)
{
    return s == PLAN_SLO_MET || s == PLAN_SLO_NONE ? 0 : s == PLAN_SLO_NEAR_MISS ? 1 : 2;
}

static int
cmp_option(const void *a, const void *b)
{
    const struct plan_option *x = a, *y = b;
    int sx = status_rank(x->status), sy = status_rank(y->status);
    if (sx != sy)
        return sx - sy;
    if (sx == 0 && x->simulated != y->simulated) /* confirmed by the simulator first */
        return x->simulated ? -1 : 1;
    if (sx > 0) { /* not met: the closest first */
        if (x->miss_factor != y->miss_factor)
            return x->miss_factor < y->miss_factor ? -1 : 1;
        return x->index - y->index;
    }
    double vx = objective_value(g_rank_q, x), vy = objective_value(g_rank_q, y);
    if (vx != vy)
        return vx < vy ? -1 : 1;
    /* equal cost (whole servers): the fleet with more SLO-meeting capacity first */
    double cx = (x->instances - x->spares) * x->rate_per_s;
    double cy = (y->instances - y->spares) * y->rate_per_s;
    if (cx != cy)
        return cx > cy ? -1 : 1;
    return x->index - y->index;
}

static int
cmp_rej(const void *a, const void *b)
{
    return ((const struct plan_rejected *)a)->index - ((const struct plan_rejected *)b)->index;
}

/* ---- public ---- */

void
plan_opts_init(struct plan_opts *o)
{
    memset(o, 0, sizeof *o);
    o->jobs = 1;
    o->n_shards = 1;
}

/* Room for one more of `n` items of `size` bytes in `a` (capacity *cap): `a`, or its larger
 * reallocation, or NULL (out of memory; `a` untouched). */
static void *
grow(void *a, int n, int *cap, size_t size)
{
    if (n < *cap)
        return a;
    int nc = *cap ? 2 * *cap : 64;
    void *g = realloc(a, (size_t)nc * size);
    if (g)
        *cap = nc;
    else
        alloc_note_failure(); /* an option or assumption dropped: the command ends in error */
    return g;
}

static int
push_option(struct plan_result *r, const struct plan_option *op, int *cap)
{
    struct plan_option *g = grow(r->options, r->n_options, cap, sizeof *g);
    if (!g)
        return -1;
    r->options = g;
    g[r->n_options++] = *op;
    return 0;
}

static int
push_rej(struct plan_result *r, const struct plan_rejected *x, int *cap)
{
    struct plan_rejected *g = grow(r->rejected, r->n_rejected, cap, sizeof *g);
    if (!g)
        return -1;
    r->rejected = g;
    g[r->n_rejected++] = *x;
    return 0;
}

const struct hw_profile *
plan_find_hw(const struct plan_question *q, const char *id)
{
    for (int i = 0; i < q->n_hw; i++)
        if (strcmp(q->hw[i]->id, id) == 0)
            return q->hw[i];
    for (int i = 0; i < q->n_prefill_hw; i++)
        if (strcmp(q->prefill_hw[i]->id, id) == 0)
            return q->prefill_hw[i];
    return NULL;
}

int
plan_evaluate(const struct plan_question *q, const struct plan_opts *o, struct plan_result *out,
              struct err_list *errs)
{
    memset(out, 0, sizeof *out);
    out->chosen = -1;
    struct cand *cands;
    int n = enumerate(q, &cands);
    if (n < 0) {
        err_add(errs, q->path, 0, 0, ERR_ERROR, "out of memory");
        return -1;
    }
    out->n_candidates = n;
    /* the knobs the question leaves to the engine, resolved so that the options (launch lines)
     * show what is simulated */
    for (int i = 0; i < n; i++) {
        struct sim_sched sd;
        plan_sched(q, o, &cands[i], NULL, &sd);
        cands[i].max_batch = sd.max_batch;
        if (cands[i].policy == SIM_CHUNKED || cands[i].policy == SIM_DISAGGREGATED)
            cands[i].mtps = sd.max_tokens_per_step;
    }
    struct eval *ev = calloc((size_t)(n > 0 ? n : 1), sizeof *ev);
    int *todo = malloc((size_t)(n > 0 ? n : 1) * sizeof *todo);
    double *key = malloc((size_t)(n > 0 ? n : 1) * sizeof *key);
    if (!ev || !todo || !key) {
        free(ev), free(todo), free(key), free(cands);
        err_add(errs, q->path, 0, 0, ERR_ERROR, "out of memory");
        return -1;
    }
    struct work w = {q, o, cands, ev, todo, n, 1, 0, 0, 0, PTHREAD_MUTEX_INITIALIZER};
    for (int i = 0; i < n; i++)
        todo[i] = i;
    run_pool(&w);
    /* stage 1 prices with the analytic rate; the best `confirm_top` go to the simulator. Every
     * shard computes this on all candidates, so all agree. */
    int nf = 0;
    for (int i = 0; i < n; i++) {
        if (!ev[i].feasible)
            continue;
        price_option(q, cands[i].hw, &ev[i].op);
        ev[i].prelim_cost = objective_value(q, &ev[i].op);
        todo[nf++] = i;
    }
    for (int i = 0; i < nf; i++)
        key[i] = ev[todo[i]].prelim_cost;
    /* the simulator confirms the best `confirm_top` in the final ranking's order (objective,
     * then SLO-meeting capacity, then index) by the analytic figures */
    for (int i = 0; i < nf && i < q->confirm_top; i++) {
        int best = i;
        for (int j = i + 1; j < nf; j++) {
            const struct plan_option *x = &ev[todo[j]].op, *y = &ev[todo[best]].op;
            double cx = (x->instances - x->spares) * x->rate_per_s;
            double cy = (y->instances - y->spares) * y->rate_per_s;
            if (key[j] < key[best] ||
                (key[j] == key[best] && (cx > cy || (cx == cy && todo[j] < todo[best]))))
                best = j;
        }
        int ti = todo[i];
        double tk = key[i];
        todo[i] = todo[best], key[i] = key[best];
        todo[best] = ti, key[best] = tk;
    }
    int top = nf < q->confirm_top ? nf : q->confirm_top;
    int shard = o->n_shards > 1 ? o->shard : 0, ns = o->n_shards > 1 ? o->n_shards : 1;
    int m = 0;
    for (int i = 0; i < top; i++)
        if (todo[i] % ns == shard)
            todo[m++] = todo[i];
    w.n_todo = m;
    w.stage = 2;
    int rc = run_pool(&w);
    if (rc != 0)
        err_add(errs, q->path, 0, 0, ERR_ERROR, "the simulator failed on a candidate");
    out->n_simulated = m;
    int ocap = 0, rcap = 0;
    for (int i = 0; i < n && rc == 0; i++) {
        if (i % ns != shard)
            continue;
        struct cand *c = &cands[i];
        if (ev[i].keep_op) {
            struct plan_option *op = &ev[i].op;
            price_option(q, c->hw, op);
            if (ev[i].feasible && planned_load(q, o, c, op) != 0) {
                char why[PLAN_TEXT];
                snprintf(why, sizeof why, "the simulator failed at the planned load: %.400s",
                         sim_error);
                fill_rej(c, PLAN_REJ_RATE, why, &ev[i].rej);
                ev[i].rejected = true;
                ev[i].feasible = false;
                ev[i].keep_op = false;
                if (push_rej(out, &ev[i].rej, &rcap) != 0)
                    rc = -1;
                continue;
            }
            if (ev[i].feasible && q->power_budget_w > 0 && op->power_w > q->power_budget_w) {
                char why[PLAN_TEXT];
                snprintf(why, sizeof why, "the fleet draws %.1f kW, over the %.1f kW budget",
                         op->power_w / 1000, q->power_budget_w / 1000);
                fill_rej(c, PLAN_REJ_POWER, why, &ev[i].rej);
                ev[i].rejected = true;
                ev[i].feasible = false;
            }
            if (q->max_price_per_hour > 0 && q->money == PLAN_RENT && ev[i].feasible &&
                !(op->device_price_per_hour <= q->max_price_per_hour)) {
                char why[PLAN_TEXT];
                snprintf(why, sizeof why, "%.2f %s per device-hour is over the %.2f limit",
                         op->device_price_per_hour, q->currency, q->max_price_per_hour);
                fill_rej(c, PLAN_REJ_PRICE, why, &ev[i].rej);
                ev[i].rejected = true;
                ev[i].feasible = false;
            }
            if (q->max_purchase > 0 && ev[i].feasible) {
                enum plan_price_origin org;
                char basis[PLAN_TEXT];
                double p = plan_purchase_price(q, c->hw, &org, basis, sizeof basis);
                if (!(p <= q->max_purchase)) {
                    char why[PLAN_TEXT];
                    snprintf(why, sizeof why, "purchase price %.0f %s is over the %.0f limit", p,
                             q->currency, q->max_purchase);
                    fill_rej(c, PLAN_REJ_PRICE, why, &ev[i].rej);
                    ev[i].rejected = true;
                    ev[i].feasible = false;
                }
            }
            launch_line(q, c, op, op->launch, sizeof op->launch);
            if (ev[i].feasible || ev[i].rej.kind == PLAN_REJ_SLO)
                if (push_option(out, op, &ocap) != 0)
                    rc = -1;
        }
        if (ev[i].rejected) {
            if (push_rej(out, &ev[i].rej, &rcap) != 0)
                rc = -1;
        }
    }
    free(ev), free(todo), free(key), free(cands);
    return rc;
}

static void
add_assumption(struct plan_result *r, int *cap, const char *key, const char *value,
               const char *source, bool is_default)
{
    struct plan_assumption *g = grow(r->assumptions, r->n_assumptions, cap, sizeof *g);
    if (!g)
        return;
    r->assumptions = g;
    struct plan_assumption *a = &g[r->n_assumptions++];
    snprintf(a->key, sizeof a->key, "%s", key);
    snprintf(a->value, sizeof a->value, "%s", value);
    snprintf(a->source, sizeof a->source, "%s", is_default ? source : "question");
    a->is_default = is_default;
}

static void
assumptions(const struct plan_question *q, struct plan_result *r)
{
    int cap = 0;
    char v[PLAN_NAME];
    snprintf(v, sizeof v, "%g", q->utilisation);
    add_assumption(r, &cap, "plan.utilisation", v,
                   "planning capacity 90% (Red Hat ConfigIQ default; llm-d uses x1.2)",
                   q->utilisation == 0.9);
    snprintf(v, sizeof v, "N+%d", q->spares);
    add_assumption(r, &cap, "plan.spares", v, "none unless asked (N+k per pool)", q->spares == 0);
    snprintf(v, sizeof v, "%ld requests, seed %lu", q->sim_requests, q->seed);
    add_assumption(r, &cap, "plan.simulation", v,
                   "roofline default: 1500 requests per probe, 10% warm-up, common random numbers",
                   q->sim_requests == 1500);
    if (q->workload == PLAN_WL_TOKENS_PER_MONTH) {
        snprintf(v, sizeof v, "%g", q->peak_to_mean);
        add_assumption(r, &cap, "workload.peak_to_mean", v,
                       "ConfigIQ converts monthly tokens to a peak rate with a peak/average "
                       "factor; 2 is roofline's default",
                       false);
    }
    static const char *const SRC[] = {
        "4 years (SemiAnalysis AI cloud TCO model)",
        "20% (shared/reference/planning-anchors.md: public sizing tools)",
        "8%/year (shared/reference/planning-anchors.md: ConfigIQ)",
        "5%/year of the purchase price (shared/reference/planning-anchors.md: ConfigIQ)",
        "1.4 (ConfigIQ; Uptime Institute industry average 1.56-1.58 is the pessimistic case)",
        "0.12/kWh (EIA US industrial 2024 ~0.08; ConfigIQ 0.12)",
        "450 W per server (ConfigIQ)",
        "0.7 of TDP (roofline default; serving rarely holds the TDP)",
        "25% of the device prices for the server (roofline default; 8xH100 ~$285k per ConfigIQ)",
        "0 per server-month (ConfigIQ uses $200)",
    };
    static const char *const KEYS[] = {"tco.life_years",
                                       "tco.residual",
                                       "tco.cost_of_capital",
                                       "tco.maintenance",
                                       "tco.pue",
                                       "tco.price_per_kwh",
                                       "tco.host_power",
                                       "tco.device_utilisation",
                                       "tco.server_overhead",
                                       "tco.facility_per_server_month"};
    const double vals[] = {q->tco.life_years,
                           q->tco.residual_fraction,
                           q->tco.cost_of_capital,
                           q->tco.maintenance_per_year,
                           q->tco.pue,
                           q->tco.price_per_kwh,
                           q->tco.host_w_per_server,
                           q->tco.device_utilisation,
                           q->tco.server_overhead,
                           q->tco.facility_per_server_month};
    for (int i = 0; i < 10; i++) {
        snprintf(v, sizeof v, i == 6 ? "%g W" : "%g", vals[i]);
        add_assumption(r, &cap, KEYS[i], v, SRC[i], !(q->tco_given & (1u << i)));
    }
    add_assumption(r, &cap, "cost.per_mtok", "$/h / (tokens/s x 3600 / 1e6)",
                   "SemiAnalysis InferenceMAX cost formula, at the planned traffic", true);
    if (q->money == PLAN_RENT) {
        add_assumption(r, &cap, "money.rental_basis", plan_rent_basis_name(q->rent_basis),
                       "rentals are ranked on one basis; a device without a price on it takes "
                       "its closest basis and is flagged (docs/plan.md#costs)",
                       q->rent_basis == PLAN_BASIS_ON_DEMAND);
    }
    add_assumption(r, &cap, "price.rent", "question > closest basis > tier",
                   "the question's price, else the profile's cheapest dated cloud price on the "
                   "basis asked or the closest one, else the InferenceMAX owned tier (2026-04-03)",
                   true);
    add_assumption(r, &cap, "slo.attainment", "TTFT, TPOT and E2E all within bounds",
                   "a request meets the SLO when all its figures do (DistServe's SLO attainment; "
                   "roofline simulate --max-rate); the percentile is the share that must",
                   true);
}

int
plan_finish(const struct plan_question *q, struct plan_result *r, struct err_list *errs)
{
    (void)errs;
    snprintf(r->question, sizeof r->question, "%s", q->name ? q->name : q->path);
    snprintf(r->model_id, sizeof r->model_id, "%s", q->model->id);
    r->rate_per_s = q->rate_per_s;
    r->slo = q->slo;
    r->has_slo = q->has_slo;
    snprintf(r->slo_preset, sizeof r->slo_preset, "%s", q->slo_preset);
    snprintf(r->slo_source, sizeof r->slo_source, "%s", q->slo_source ? q->slo_source : "");
    memset(r->rejected_by, 0, sizeof r->rejected_by);
    if (r->n_rejected > 1)
        qsort(r->rejected, (size_t)r->n_rejected, sizeof *r->rejected, cmp_rej);
    for (int i = 0; i < r->n_rejected; i++)
        r->rejected_by[r->rejected[i].kind]++;
    g_rank_q = q;
    if (r->n_options > 1)
        qsort(r->options, (size_t)r->n_options, sizeof *r->options, cmp_option);
    r->chosen = -1;
    r->n_shown = 0;
    for (int i = 0; i < r->n_options && r->n_shown < PLAN_MAX_SHOWN; i++) {
        const struct plan_option *op = &r->options[i];
        bool ok = (op->status == PLAN_SLO_MET || op->status == PLAN_SLO_NONE) &&
                  isfinite(objective_value(q, op));
        if (ok && r->chosen < 0)
            r->chosen = i;
        if (r->chosen >= 0 ? ok : true)
            r->shown[r->n_shown++] = i;
        if (r->chosen < 0 && r->n_shown >= 3)
            break;
    }
    if (r->chosen >= 0) {
        /* shown: the chosen and the runners-up only among met options */
        int k = 0;
        for (int i = 0; i < r->n_shown; i++)
            if (r->shown[i] >= r->chosen)
                r->shown[k++] = r->shown[i];
        r->n_shown = k;
    }
    memset(&r->verify, 0, sizeof r->verify);
    if (r->chosen >= 0) {
        const struct plan_option *op = &r->options[r->chosen];
        r->verify.rate_per_instance_s = op->planned_rate_per_instance_s;
        if (q->workload == PLAN_WL_USERS && (op->simulated || !op->prefill_hw_id[0])) {
            int serving = op->instances - op->spares;
            r->verify.users = (q->users + serving - 1) / serving;
            r->verify.think_time_s = q->think_time_s;
        }
        r->verify.concurrency = op->planned_rate_per_instance_s * op->e2e_mean_s;
        r->verify.ttft_p50_s = op->ttft_p50_s;
        r->verify.ttft_p99_s = op->ttft_p99_s;
        r->verify.itl_p50_s = op->itl_p50_s;
        r->verify.itl_p99_s = op->itl_p99_s;
        r->verify.output_tokens_per_s = op->output_tokens_per_s_planned;
        r->verify.requests = q->sim_requests;
        r->verify.seed = q->seed;
    }
    /* cost against volume */
    r->n_sweep = 0;
    r->n_crossovers = 0;
    if (r->chosen >= 0) {
        int pts = PLAN_MAX_SWEEP;
        for (int k = 0; k < pts; k++) {
            struct plan_volume_point *pt = &r->sweep[r->n_sweep++];
            pt->volume = pts > 1 ? 1.0 + (q->volume_max - 1.0) * k / (pts - 1) : 1.0;
            pt->rate_per_s = q->rate_per_s * pt->volume;
            pt->best = -1;
            double best = INFINITY;
            for (int s = 0; s < r->n_shown; s++) {
                const struct plan_option *op = &r->options[r->shown[s]];
                const struct hw_profile *hw = plan_find_hw(q, op->hw_id);
                pt->cost_per_hour[s] = NAN;
                pt->instances[s] = 0;
                if (!hw)
                    continue;
                int n = instances_for(q, op, pt->volume);
                struct fleet f;
                fleet_cost(q, hw, op, n, &f);
                pt->instances[s] = n;
                if (q->power_budget_w > 0 && f.power_w > q->power_budget_w)
                    continue;
                pt->cost_per_hour[s] = f.cost_per_hour;
                if (f.cost_per_hour < best) {
                    best = f.cost_per_hour;
                    pt->best = s;
                }
            }
            int prev = k > 0 ? r->sweep[k - 1].best : -1;
            if (prev >= 0 && pt->best >= 0 && pt->best != prev &&
                !(pt->cost_per_hour[prev] <= pt->cost_per_hour[pt->best]) &&
                r->n_crossovers < PLAN_MAX_CROSSOVERS) {
                struct plan_crossover *c = &r->crossovers[r->n_crossovers++];
                c->volume = pt->volume;
                c->from = r->sweep[k - 1].best;
                c->to = pt->best;
            }
        }
    }
    free(r->assumptions);
    r->assumptions = NULL;
    r->n_assumptions = 0;
    assumptions(q, r);
    return 0;
}

int
plan_option_sim_config(const struct plan_question *q, const struct plan_opts *o,
                       const struct plan_option *op, double rate_per_s, struct sim_config *cfg)
{
    struct cand c;
    memset(&c, 0, sizeof c);
    c.index = op->index;
    c.hw = plan_find_hw(q, op->hw_id);
    if (!c.hw)
        return -1;
    c.fmt = op->format;
    c.tp = op->tp;
    c.pp = op->pp;
    c.policy = op->policy;
    c.max_batch = op->max_batch;
    c.mtps = op->max_tokens_per_step;
    c.np = op->prefill_instances;
    c.nd = op->decode_instances;
    return plan_sim_config(q, o, &c, rate_per_s, cfg, NULL);
}

int
plan_run(const struct plan_question *q, const struct plan_opts *o, struct plan_result *out,
         struct err_list *errs)
{
    struct plan_opts one = *o;
    one.shard = 0;
    one.n_shards = 1;
    if (plan_evaluate(q, &one, out, errs) != 0) {
        plan_result_release(out);
        return -1;
    }
    return plan_finish(q, out, errs);
}

void
plan_result_release(struct plan_result *r)
{
    free(r->options);
    free(r->rejected);
    free(r->assumptions);
    r->options = NULL;
    r->rejected = NULL;
    r->assumptions = NULL;
    r->n_options = r->n_rejected = r->n_assumptions = 0;
}

const char *
plan_objective_name(enum plan_objective o)
{
    static const char *const N[] = {"min_cost_per_hour", "min_cost_per_mtok", "min_devices",
                                    "max_tokens_per_dollar"};
    return (unsigned)o < 4 ? N[o] : "?";
}

const char *
plan_status_name(enum plan_slo_status s)
{
    static const char *const N[] = {"met", "near miss", "missed", "no SLO"};
    return (unsigned)s < 4 ? N[s] : "?";
}

const char *
plan_reject_kind_name(enum plan_reject_kind k)
{
    static const char *const N[] = {"format", "parallelism", "memory", "kv",
                                    "slo",    "rate",        "price",  "power"};
    return (unsigned)k < PLAN_REJ_COUNT ? N[k] : "?";
}

const char *
plan_price_origin_name(enum plan_price_origin p)
{
    static const char *const N[] = {"question", "profile", "tier", "none"};
    return (unsigned)p < 4 ? N[p] : "?";
}
