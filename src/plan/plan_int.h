/* Internals shared by the planner's files (docs/plan.md#method); not part of the library's
 * interface. One candidate goes: plan.c enumerates it, screen.c screens it and brackets its rate
 * with the analytic estimate, price.c sizes and prices its fleet, size.c confirms it in the
 * simulator and fills the figures at the planned load, launch.c writes its engine's launch
 * line; plan.c ranks and sweeps. config.c is the one adapter to the simulator's config. */
#ifndef ROOFLINE_PLAN_PLAN_INT_H
#define ROOFLINE_PLAN_PLAN_INT_H

#include "plan/plan.h"

#include <stdbool.h>
#include <stddef.h>

/* One candidate: a hardware type (and, disaggregated on two types, its prefill type), formats,
 * parallelism and scheduler knobs. */
struct plan_cand {
    int index;
    const struct hw_profile *hw, *pf_hw; /* pf_hw: disaggregated prefill hardware */
    struct plan_format fmt;
    int tp, pp;
    int attn_dp; /* data-parallel attention ranks (1 = none) */
    enum sim_policy policy;
    long max_batch, mtps;
    int np, nd; /* disaggregated unit */
};

/* One candidate's evaluation through both stages. */
struct plan_eval {
    bool feasible;            /* passed the screens */
    struct plan_option op;    /* when feasible (or an unloaded-SLO near miss kept for "closest") */
    bool keep_op;             /* op is meaningful (feasible, or a missed option kept) */
    struct plan_rejected rej; /* when rejected */
    bool rejected;
    double prelim_cost; /* stage 1 objective value for choosing what to simulate */
    int planned_rc;     /* plan_planned_load's return, and its error when -1 */
    char planned_err[PLAN_TEXT];
};

/* ---- config.c: the one adapter to the simulator (re-point here when sim.h changes) ---- */

/* The scheduler one instance of `c` runs: the simulator's defaults for its policy, the engine
 * profile's serving defaults over them (as `roofline simulate` applies them), the candidate's
 * own knobs (the question's) over both. `eng` (may be NULL) gets the engine's memory reserve. */
void plan_cand_sched(const struct plan_question *q, const struct plan_opts *o,
                     const struct plan_cand *c, struct roof_config *eng, struct sim_sched *sched);
/* A simulator config for one instance (a disaggregated unit: np + nd instances) of `c`, at
 * `rate_per_s` per instance. A unit on two device types (c->pf_hw) runs prefill on pf_hw and
 * decode on c->hw when `decode` (the decode engine's storage, borrowed by cfg) is given; NULL:
 * all on c->hw. The scheduler is c->hw's. Returns 0, or -1 when the engine tuning is
 * unavailable. */
int plan_cand_sim_config(const struct plan_question *q, const struct plan_opts *o,
                         const struct plan_cand *c, double rate_per_s, struct sim_config *cfg,
                         struct roof_config *decode);
/* The mean length (a question's trace: the rows' mean, io/question.c). */
double plan_len_mean(const struct sim_dist *d);
/* A duration for a reason ("2.40 s", "inf"). */
void plan_fmt_time(double s, char *b, size_t n);
/* The rejection of `c` of kind `k` with the reason `why`. */
void plan_fill_rej(const struct plan_cand *c, enum plan_reject_kind k, const char *why,
                   struct plan_rejected *r);

/* ---- bisect.c: the analytic bracket's search ---- */

/* One test of a rate for plan_bisect_rate: 1 when it meets the SLO, else 0; *margin (set only
 * to guide the search, never to decide): the worst figure over its bound, INFINITY when the
 * estimate is unstable. */
typedef int (*plan_rate_test)(void *ctx, double rate, double *margin);
/* The largest rate that the plain bisection in log rate finds: from [lo, hi] with lo known to
 * meet (its margin `lo_margin`, or NAN), mid = sqrt(lo hi) while i < max_iter and
 * hi / lo > tol, lo = mid where `test` meets, else hi = mid. Where meeting is monotone in the
 * rate it asks `test` at fewer rates and returns the same double (elsewhere a rate that meets
 * next to one that does not on the same grid). *evals (may be NULL): the tests run. */
double plan_bisect_rate(double lo, double hi, int max_iter, double tol, double lo_margin,
                        plan_rate_test test, void *ctx, int *evals);

/* ---- screen.c: the screens and the analytic bracket (stage 1) ---- */

/* Screen `c` (format, parallelism, memory, KV pool, the SLO unloaded) and bracket its max
 * SLO-meeting rate per instance with the analytic estimate; fills ev. */
void plan_screen(const struct plan_question *q, const struct plan_opts *o,
                 const struct plan_cand *c, struct plan_eval *ev);

/* Prefill on one device type, decode on another (docs/plan.md#heterogeneous-disaggregation),
 * estimated analytically: TTFT from the prefill type's homogeneous disaggregated unit (its
 * decode pool made 64 times larger so that only prefill and transfer count), TPOT from the
 * decode type's (its prefill pool made 64 times larger); capacity the smaller of the two. */
struct plan_hetero {
    struct sim_config a, b; /* prefill-side and decode-side configs */
};
struct plan_hetero_est {
    bool stable;
    double ttft_p99_s, ttft_mean_s, tpot_s, e2e_p99_s, e2e_mean_s, capacity_req_per_s;
    double prefill_s, step_s;
};
int plan_hetero_init(const struct plan_question *q, const struct plan_opts *o,
                     const struct plan_cand *c, struct plan_hetero *h);
int plan_hetero_eval(struct plan_hetero *h, double rate, struct plan_hetero_est *e);

/* ---- size.c: closed loops and the simulator (stage 2, the planned load) ---- */

/* Concurrent users are sized as a closed loop (docs/plan.md#concurrent-users); the rest by the
 * rate. */
bool plan_closed_sizing(const struct plan_question *q);
/* Without an SLO: the knee of one instance's closed loop, n* = X_sat (Z + R0) users (at least
 * 1), where X_sat is its saturation throughput and R0 the unloaded response time: below n* the
 * loop runs at n / (Z + R0), above it the instance is saturated (Lazowska et al., Quantitative
 * System Performance, ch. 5, asymptotic bounds). */
double plan_users_at_knee(const struct plan_question *q, double sat_rate_per_s, double r0_s);
/* Turn `cfg` into a closed loop of `users` users with the question's think time. */
void plan_closed_loop(const struct plan_question *q, struct sim_config *cfg, long users);
/* The analytic users per instance: N = X (Z + R), at least 1. */
double plan_users_at_rate(const struct plan_question *q, double rate_per_s, double e2e_mean_s);
/* Stage 2: the simulator confirms the analytic bracket by bisection (the users search for
 * closed loops); a simulator failure rejects the candidate with its reason. Returns 0. */
int plan_confirm(const struct plan_question *q, const struct plan_opts *o,
                 const struct plan_cand *c, struct plan_eval *ev);
/* The figures at the planned load of a priced option (the simulator for simulated options,
 * else the estimate). 0, or -1 with plan_sim_error() saying why. */
int plan_planned_load(const struct plan_question *q, const struct plan_opts *o,
                      const struct plan_cand *c, struct plan_option *op);
/* The first error of this thread's last simulation. */
const char *plan_sim_error(void);

/* ---- price.c: fleet size, costs and the ranking ---- */

/* Price the option's fleet at the question's rate (with offline: finish by the deadline). */
void plan_price_option(const struct plan_question *q, const struct hw_profile *hw,
                       struct plan_option *op);
/* The cost per million tokens, tokens per kW and joules per token of the option's fleet at
 * `req_per_s` requests/s in all. */
void plan_price_tokens(const struct plan_question *q, struct plan_option *op, double req_per_s);
/* The question's objective for `op` (smaller is better; INFINITY when not priced). */
double plan_objective_value(const struct plan_question *q, const struct plan_option *op);
/* Sort r->options best first: met, then near miss, then missed; by the objective. */
void plan_rank(const struct plan_question *q, struct plan_result *r);
/* The cost against volume of the shown options and where the best changes. */
void plan_sweep(const struct plan_question *q, struct plan_result *r);

/* ---- launch.c ---- */

/* The launch line of the engine the question assumes for `op` into b[n]. */
void plan_launch_line(const struct plan_question *q, const struct plan_cand *c,
                      const struct plan_option *op, char *b, size_t n);

#endif
