/* The planner's one adapter to the simulator (re-point here when sim.h changes): a candidate's
 * scheduler, engine and simulator config, for the planner's own stages and for the report and
 * chart (plan_option_sim_config); and the small helpers every stage uses. */
#include "plan/plan_int.h"

#include "util/units.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

/* The scheduler one instance of `c` runs: the simulator's defaults for its policy, the engine
 * profile's serving defaults over them (as `roofline simulate` applies them), the candidate's
 * own knobs (the question's) over both. `eng` (may be NULL) gets the engine's memory reserve. */
void
plan_cand_sched(const struct plan_question *q, const struct plan_opts *o, const struct plan_cand *c,
                struct roof_config *eng, struct sim_sched *sched)
{
    sim_sched_defaults(sched, c->policy, q->model);
    sched->attn_dp_ranks = c->attn_dp;
    if (o->serving && q->engine)
        o->serving(c->hw, q->engine, NULL, 0, sched, o->serving_ctx);
    if (c->max_batch > 0)
        sched->max_batch = c->max_batch;
    if (c->mtps > 0)
        sched->max_tokens_per_step = c->mtps;
    if (eng && o->serving && q->engine) {
        /* the reserve of the engine launched for this batch and workload (its launch line's
         * context) */
        struct sim_sched sd;
        sim_sched_defaults(&sd, c->policy, q->model);
        sd.attn_dp_ranks = c->attn_dp;
        double ctx = sim_serving_context(sched->max_batch, &q->prompt, &q->output, NULL);
        o->serving(c->hw, q->engine, eng, ctx, &sd, o->serving_ctx);
    }
}

/* The engine of `c` on `hw`: formats, parallelism, the engine's tuning and memory reserve.
 * Returns 0, or -1 when the engine tuning is unavailable. */
static int
plan_engine(const struct plan_question *q, const struct plan_opts *o, const struct plan_cand *c,
            const struct hw_profile *hw, struct roof_config *eng)
{
    roof_config_init(eng, hw, q->model, ROOF_DECODE);
    eng->weights = c->fmt.weights;
    eng->act = c->fmt.act;
    eng->kv = c->fmt.kv;
    eng->tp = c->tp;
    eng->pp = c->pp;
    eng->attn_dp = c->attn_dp;
    eng->mxfp4_marlin = c->fmt.moe_marlin; /* kernels.moe, or the planner's Marlin twin */
    if (o->tuning && q->engine && o->tuning(hw, q->engine, &eng->tuning, o->tuning_ctx))
        return -1;
    struct plan_cand on = *c;
    on.hw = hw; /* the serving defaults of the device this engine runs on */
    struct sim_sched sd;
    plan_cand_sched(q, o, &on, eng, &sd);
    return 0;
}

/* A simulator config for one instance (a disaggregated unit: np + nd instances) of `c`, at
 * `rate_per_s` per instance. A unit on two device types (c->pf_hw) runs prefill on pf_hw and
 * decode on c->hw when `decode` (the decode engine's storage, borrowed by cfg) is given; NULL:
 * all on c->hw. The scheduler is c->hw's. Returns 0, or -1 when the engine tuning is
 * unavailable. */
int
plan_cand_sim_config(const struct plan_question *q, const struct plan_opts *o,
                     const struct plan_cand *c, double rate_per_s, struct sim_config *cfg,
                     struct roof_config *decode)
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
    plan_cand_sched(q, o, c, NULL, &cfg->sched);
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

/* ---- small helpers ---- */

/* The mean length (a question's trace: the rows' mean, io/question.c). */
double
plan_len_mean(const struct sim_dist *d)
{
    return d->kind == SIM_DIST_TRACE ? d->mean : sim_dist_mean(d);
}

void
plan_fmt_time(double s, char *b, size_t n)
{
    unit_format_time_or(s, 3, "inf", b, n);
}

void
plan_fill_rej(const struct plan_cand *c, enum plan_reject_kind k, const char *why,
              struct plan_rejected *r)
{
    *r = (struct plan_rejected){.index = c->index,
                                .tp = c->tp,
                                .pp = c->pp,
                                .attn_dp = c->attn_dp,
                                .format = c->fmt,
                                .policy = c->policy,
                                .kind = k};
    snprintf(r->hw_id, sizeof r->hw_id, "%s", c->hw->id);
    if (c->pf_hw)
        snprintf(r->prefill_hw_id, sizeof r->prefill_hw_id, "%s", c->pf_hw->id);
    snprintf(r->reason, sizeof r->reason, "%s", why);
}

int
plan_option_sim_config_pools(const struct plan_question *q, const struct plan_opts *o,
                             const struct plan_option *op, double rate_per_s,
                             struct sim_config *cfg, struct roof_config *decode)
{
    struct plan_cand c;
    memset(&c, 0, sizeof c);
    c.index = op->index;
    c.hw = plan_find_hw(q, op->hw_id);
    if (!c.hw)
        return -1;
    c.fmt = op->format;
    c.tp = op->tp;
    c.pp = op->pp;
    c.attn_dp = op->attn_dp > 1 ? op->attn_dp : 1;
    c.policy = op->policy;
    c.max_batch = op->max_batch;
    c.mtps = op->max_tokens_per_step;
    c.np = op->prefill_instances;
    c.nd = op->decode_instances;
    if (op->prefill_hw_id[0] && strcmp(op->prefill_hw_id, op->hw_id) != 0 &&
        !(c.pf_hw = plan_find_hw(q, op->prefill_hw_id)))
        return -1;
    return plan_cand_sim_config(q, o, &c, rate_per_s, cfg, decode);
}

int
plan_option_sim_config(const struct plan_question *q, const struct plan_opts *o,
                       const struct plan_option *op, double rate_per_s, struct sim_config *cfg)
{
    static _Thread_local struct roof_config decode;
    return plan_option_sim_config_pools(q, o, op, rate_per_s, cfg, &decode);
}
