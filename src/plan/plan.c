/* The planner's search (docs/plan.md#method): enumerate the candidates, run the analytic screen
 * on all of them (screen.c), price them (price.c), confirm the best in the simulator
 * (size.c), then rank, sweep volume and list the assumptions. Threads share the candidates;
 * shards take a deterministic slice. Deterministic for any number of threads and shards. */
#include "plan/plan_int.h"

#include "core/calib.h"
#include "plan/cost.h"
#include "util/alloc.h"
#include "util/units.h"

#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- enumeration ---- */

/* Format f is a Marlin twin: Marlin's MoE with the same formats also listed on the engine's
 * kernel (moe_kernel_formats in io/question.c). */
static bool
marlin_twin(const struct plan_question *q, int f)
{
    const struct plan_format *a = &q->formats[f];
    if (!a->moe_marlin)
        return false;
    for (int i = 0; i < q->n_formats; i++) {
        const struct plan_format *b = &q->formats[i];
        if (!b->moe_marlin && b->weights == a->weights && b->act == a->act && b->kv == a->kv)
            return true;
    }
    return false;
}

/* Whether the question's engine runs data-parallel attention: its profile's attn_dp is not
 * none (SGLang --enable-dp-attention, vLLM V1's data parallelism, TensorRT-LLM
 * enable_attention_dp; the kernel model; docs/physics.md#data-parallel-attention). No engine
 * (the datasheet roofline) has no engine to refuse it. */
static bool
engine_has_attn_dp(const struct plan_question *q, const struct plan_opts *o)
{
    struct roof_tuning t;
    if (!q->engine || !o->tuning || q->n_hw < 1 ||
        o->tuning(q->hw[0], q->engine, &t, o->tuning_ctx))
        return true;
    return !t.no_attn_dp;
}

/* The data-parallel attention degrees tried at tensor-parallel degree tp (1 = none): the
 * question's that divide tp, or (auto) none and, where tp copies the KV cache (one latent
 * vector for all heads, or fewer KV heads than tp) on an engine that has it, tp. */
static int
attn_dp_degrees(const struct plan_question *q, bool has, int tp, int *out)
{
    int n = 0;
    if (q->attn_dp_auto) {
        const struct mdl_profile *m = q->model;
        out[n++] = 1;
        if (tp > 1 && has && (mdl_is_mla(m) || m->num_kv_heads < tp))
            out[n++] = tp;
        return n;
    }
    for (int i = 0; i < q->n_attn_dp; i++) {
        int d = q->attn_dp[i];
        bool seen = false;
        for (int j = 0; j < n; j++)
            seen = seen || out[j] == d;
        if (tp % d == 0 && !seen && (d == 1 || tp > 1))
            out[n++] = d;
    }
    return n;
}

static int
enumerate(const struct plan_question *q, const struct plan_opts *o, struct plan_cand **out)
{
    bool has_dp = engine_has_attn_dp(q, o);
    int cap = 256, n = 0;
    struct plan_cand *v = malloc((size_t)cap * sizeof *v);
    if (!v)
        return -1;
    for (int h = 0; h < q->n_hw; h++)
        for (int f = 0; f < q->n_formats; f++) {
            /* a Marlin twin runs only where Marlin's rate applies (its engine-kernel format is
             * the same candidate elsewhere) */
            if (marlin_twin(q, f) && !calib_hopper(q->hw[h]))
                continue;
            for (int t = 0; t < q->n_tp; t++) {
                int dps[PLAN_MAX_LIST + 1];
                int n_dp = attn_dp_degrees(q, has_dp, q->tp[t], dps);
                for (int d = 0; d < n_dp; d++)
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
                                                struct plan_cand *nv =
                                                    realloc(v, (size_t)cap * sizeof *nv);
                                                if (!nv) {
                                                    free(v);
                                                    return -1;
                                                }
                                                v = nv;
                                            }
                                            struct plan_cand *c = &v[n];
                                            memset(c, 0, sizeof *c);
                                            c->index = n;
                                            c->hw = q->hw[h];
                                            c->pf_hw = dis && q->n_prefill_hw > 0 &&
                                                               strcmp(q->prefill_hw[ph]->id,
                                                                      q->hw[h]->id) != 0
                                                           ? q->prefill_hw[ph]
                                                           : NULL;
                                            c->fmt = q->formats[f];
                                            c->tp = q->tp[t];
                                            c->attn_dp = dps[d];
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
            }
        }
    *out = v;
    return n;
}

/* ---- threads ---- */

struct work {
    const struct plan_question *q;
    const struct plan_opts *o;
    const struct plan_cand *cands;
    struct plan_eval *evals;
    const int *todo; /* candidate indices to run */
    int n_todo;
    int stage;
    int next, done;
    int failed;
    pthread_mutex_t mu;
};

/* Stage 3: price a kept option and fill its figures at the planned load. */
static void
planned(const struct plan_question *q, const struct plan_opts *o, const struct plan_cand *c,
        struct plan_eval *ev)
{
    plan_price_option(q, c->hw, &ev->op);
    ev->planned_rc = ev->feasible ? plan_planned_load(q, o, c, &ev->op) : 0;
    if (ev->planned_rc != 0)
        snprintf(ev->planned_err, sizeof ev->planned_err, "%s", plan_sim_error());
}

/* Take the next candidate of `w` and run its stage; false when none is left. */
static bool
run_one(struct work *w, int *done)
{
    pthread_mutex_lock(&w->mu);
    int k = w->next < w->n_todo ? w->next++ : -1;
    pthread_mutex_unlock(&w->mu);
    if (k < 0)
        return false;
    int i = w->todo[k], rc = 0;
    if (w->stage == 1)
        plan_screen(w->q, w->o, &w->cands[i], &w->evals[i]);
    else if (w->stage == 2)
        rc = plan_confirm(w->q, w->o, &w->cands[i], &w->evals[i]);
    else
        planned(w->q, w->o, &w->cands[i], &w->evals[i]);
    pthread_mutex_lock(&w->mu);
    *done = ++w->done;
    if (rc)
        w->failed = 1;
    pthread_mutex_unlock(&w->mu);
    return true;
}

static void *
worker(void *arg)
{
    int done;
    while (run_one(arg, &done))
        ;
    return NULL;
}

static int
run_pool(struct work *w)
{
    int jobs = w->o->jobs > 1 ? w->o->jobs : 1;
    if (jobs > 64)
        jobs = 64;
    pthread_t th[64];
    int started = 0, done;
    w->next = w->done = 0;
    for (int j = 1; j < jobs; j++)
        if (pthread_create(&th[started], NULL, worker, w) == 0)
            started++;
    /* the calling thread works too and reports progress between items (of stages 1 and 2) */
    while (run_one(w, &done))
        if (w->o->progress && w->stage < 3)
            w->o->progress(done, w->n_todo, w->o->progress_ctx);
    for (int j = 0; j < started; j++)
        pthread_join(th[j], NULL);
    return w->failed ? -1 : 0;
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

/* The engine tuning of each candidate device, looked up once per device instead of once per
 * simulator config (the hook reads the calibration files): filled before the threads start,
 * read-only after. The tuning depends on the device and the engine alone (the hook sees
 * nothing else), so the cached copy is the one every call would give. */
struct tuning_cache {
    const struct plan_opts *o;
    int n;
    const struct hw_profile **hw;
    int *rc;
    struct roof_tuning *t;
};

static int
cached_tuning(const struct hw_profile *hw, const char *engine, struct roof_tuning *out, void *ctx)
{
    struct tuning_cache *c = ctx;
    for (int i = 0; i < c->n; i++)
        if (c->hw[i] == hw) {
            if (c->rc[i] == 0)
                *out = c->t[i];
            return c->rc[i];
        }
    return c->o->tuning(hw, engine, out, c->o->tuning_ctx);
}

static void
tuning_cache_add(struct tuning_cache *c, const struct plan_question *q, const struct hw_profile *hw)
{
    for (int i = 0; i < c->n; i++)
        if (c->hw[i] == hw)
            return;
    struct roof_config eng;
    roof_config_init(&eng, hw, q->model, ROOF_DECODE);
    c->hw[c->n] = hw;
    c->rc[c->n] = c->o->tuning(hw, q->engine, &eng.tuning, c->o->tuning_ctx);
    c->t[c->n++] = eng.tuning;
}

/* `oc`: *o with the tuning hook behind a cache of `c` (release with tuning_cache_release);
 * *o itself when there is no hook or no memory for the cache. */
static void
tuning_cache_init(struct tuning_cache *c, const struct plan_question *q, const struct plan_opts *o,
                  struct plan_opts *oc)
{
    memset(c, 0, sizeof *c);
    *oc = *o;
    if (!o->tuning || !q->engine)
        return;
    size_t m = (size_t)(q->n_hw + q->n_prefill_hw);
    c->o = o;
    c->hw = malloc(m * sizeof *c->hw);
    c->rc = malloc(m * sizeof *c->rc);
    c->t = malloc(m * sizeof *c->t);
    if (!c->hw || !c->rc || !c->t)
        return;
    for (int i = 0; i < q->n_hw; i++)
        tuning_cache_add(c, q, q->hw[i]);
    for (int i = 0; i < q->n_prefill_hw; i++)
        tuning_cache_add(c, q, q->prefill_hw[i]);
    oc->tuning = cached_tuning;
    oc->tuning_ctx = c;
}

static void
tuning_cache_release(struct tuning_cache *c)
{
    free(c->hw);
    free(c->rc);
    free(c->t);
}

static int evaluate(const struct plan_question *q, const struct plan_opts *o,
                    struct plan_result *out, struct err_list *errs);

int
plan_evaluate(const struct plan_question *q, const struct plan_opts *o, struct plan_result *out,
              struct err_list *errs)
{
    struct tuning_cache c;
    struct plan_opts oc;
    tuning_cache_init(&c, q, o, &oc);
    int rc = evaluate(q, &oc, out, errs);
    tuning_cache_release(&c);
    return rc;
}

static int
evaluate(const struct plan_question *q, const struct plan_opts *o, struct plan_result *out,
         struct err_list *errs)
{
    memset(out, 0, sizeof *out);
    out->chosen = -1;
    struct plan_cand *cands;
    int n = enumerate(q, o, &cands);
    if (n < 0) {
        err_add(errs, q->path, 0, 0, ERR_ERROR, "out of memory");
        return -1;
    }
    out->n_candidates = n;
    /* the knobs the question leaves to the engine, resolved so that the options (launch lines)
     * show what is simulated */
    for (int i = 0; i < n; i++) {
        struct sim_sched sd;
        plan_cand_sched(q, o, &cands[i], NULL, &sd);
        cands[i].max_batch = sd.max_batch;
        if (cands[i].policy == SIM_CHUNKED || cands[i].policy == SIM_DISAGGREGATED)
            cands[i].mtps = sd.max_tokens_per_step;
    }
    struct plan_eval *ev = calloc((size_t)(n > 0 ? n : 1), sizeof *ev);
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
        plan_price_option(q, cands[i].hw, &ev[i].op);
        ev[i].prelim_cost = plan_objective_value(q, &ev[i].op);
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
    /* stage 3, the figures at the planned load of every kept option, shares the threads too */
    m = 0;
    for (int i = 0; i < n && rc == 0; i++)
        if (i % ns == shard && ev[i].keep_op)
            todo[m++] = i;
    w.n_todo = m;
    w.stage = 3;
    if (rc == 0)
        run_pool(&w);
    int ocap = 0, rcap = 0, oom = 0;
    for (int i = 0; i < n && rc == 0; i++) {
        if (i % ns != shard)
            continue;
        struct plan_cand *c = &cands[i];
        if (ev[i].keep_op) {
            struct plan_option *op = &ev[i].op;
            if (ev[i].feasible && ev[i].planned_rc != 0) {
                char why[PLAN_TEXT];
                snprintf(why, sizeof why, "the simulator failed at the planned load: %.400s",
                         ev[i].planned_err);
                plan_fill_rej(c, PLAN_REJ_RATE, why, &ev[i].rej);
                ev[i].rejected = true;
                ev[i].feasible = false;
                ev[i].keep_op = false;
                if (push_rej(out, &ev[i].rej, &rcap) != 0)
                    rc = oom = -1;
                continue;
            }
            if (ev[i].feasible && q->power_budget_w > 0 && op->power_w > q->power_budget_w) {
                char why[PLAN_TEXT];
                snprintf(why, sizeof why, "the fleet draws %.1f kW, over the %.1f kW budget",
                         op->power_w / 1000, q->power_budget_w / 1000);
                plan_fill_rej(c, PLAN_REJ_POWER, why, &ev[i].rej);
                ev[i].rejected = true;
                ev[i].feasible = false;
            }
            if (q->max_price_per_hour > 0 && q->money == PLAN_RENT && ev[i].feasible &&
                !(op->device_price_per_hour <= q->max_price_per_hour)) {
                char why[PLAN_TEXT];
                snprintf(why, sizeof why, "%.2f %s per device-hour is over the %.2f limit",
                         op->device_price_per_hour, q->currency, q->max_price_per_hour);
                plan_fill_rej(c, PLAN_REJ_PRICE, why, &ev[i].rej);
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
                    plan_fill_rej(c, PLAN_REJ_PRICE, why, &ev[i].rej);
                    ev[i].rejected = true;
                    ev[i].feasible = false;
                }
            }
            plan_launch_line(q, c, op, op->launch, sizeof op->launch);
            if (ev[i].feasible || ev[i].rej.kind == PLAN_REJ_SLO)
                if (push_option(out, op, &ocap) != 0)
                    rc = oom = -1;
        }
        if (ev[i].rejected) {
            if (push_rej(out, &ev[i].rej, &rcap) != 0)
                rc = oom = -1;
        }
    }
    if (oom)
        err_add(errs, q->path, 0, 0, ERR_ERROR, "out of memory");
    free(ev), free(todo), free(key), free(cands);
    return rc;
}

/* One more assumption; out of memory sets *cap to -1 and later calls do nothing. */
static void
add_assumption(struct plan_result *r, int *cap, const char *key, const char *value,
               const char *source, bool is_default)
{
    if (*cap < 0)
        return;
    struct plan_assumption *g = grow(r->assumptions, r->n_assumptions, cap, sizeof *g);
    if (!g) {
        *cap = -1;
        return;
    }
    r->assumptions = g;
    struct plan_assumption *a = &g[r->n_assumptions++];
    snprintf(a->key, sizeof a->key, "%s", key);
    snprintf(a->value, sizeof a->value, "%s", value);
    snprintf(a->source, sizeof a->source, "%s", is_default ? source : "question");
    a->is_default = is_default;
}

/* Every assumption with its source; 0, or -1 out of memory. */
static int
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
    return cap < 0 ? -1 : 0;
}

int
plan_finish(const struct plan_question *q, struct plan_result *r, struct err_list *errs)
{
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
    plan_rank(q, r);
    r->chosen = -1;
    r->n_shown = 0;
    for (int i = 0; i < r->n_options && r->n_shown < PLAN_MAX_SHOWN; i++) {
        const struct plan_option *op = &r->options[i];
        bool ok = (op->status == PLAN_SLO_MET || op->status == PLAN_SLO_NONE) &&
                  isfinite(plan_objective_value(q, op));
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
    plan_sweep(q, r);
    free(r->assumptions);
    r->assumptions = NULL;
    r->n_assumptions = 0;
    if (assumptions(q, r) != 0) {
        err_add(errs, q->path, 0, 0, ERR_ERROR, "out of memory");
        return -1;
    }
    return 0;
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
    memset(r, 0, sizeof *r);
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
