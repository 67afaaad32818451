/* Capacity-planning questions for `roofline plan` (docs/plan.md): the types and a strict YAML
 * loader that reports every problem of a file in one pass (`path:line:col: error: ...`) and
 * resolves the model and the candidate hardware profiles. The planner is src/plan/plan.h. */
#ifndef ROOFLINE_IO_QUESTION_H
#define ROOFLINE_IO_QUESTION_H

#include "core/dtype.h"
#include "core/hw.h"
#include "core/model.h"
#include "sim/sim.h"
#include "util/err.h"

#include <stdbool.h>
#include <stddef.h>

#define PLAN_MAX_FORMATS 8
#define PLAN_MAX_LIST 8 /* tp, pp, policies, max_batch, token budgets */
#define PLAN_NAME 64
#define PLAN_TEXT 512

enum plan_objective {
    PLAN_MIN_COST_PER_HOUR,
    PLAN_MIN_COST_PER_MTOK,
    PLAN_MIN_DEVICES,
    PLAN_MAX_TOKENS_PER_DOLLAR
};
enum plan_money { PLAN_RENT, PLAN_BUY };
/* How the workload was given: a request rate, tokens per month with a peak-to-mean factor,
 * concurrent users with a think time, or an offline job (a count of requests and a deadline). */
enum plan_workload { PLAN_WL_RATE, PLAN_WL_TOKENS_PER_MONTH, PLAN_WL_USERS, PLAN_WL_OFFLINE };
enum plan_slo_status { PLAN_SLO_MET, PLAN_SLO_NEAR_MISS, PLAN_SLO_MISSED, PLAN_SLO_NONE };
/* Where a device's $/h came from (docs/plan.md#costs). */
enum plan_price_origin {
    PLAN_PRICE_QUESTION, /* money.rent_per_hour / money.purchase.price_per_device */
    PLAN_PRICE_PROFILE,  /* the hardware profile's dated cloud or purchase entry */
    PLAN_PRICE_TIER,     /* SemiAnalysis InferenceMAX tier for the device class */
    PLAN_PRICE_NONE      /* no price: the option is ranked last on cost objectives */
};
/* The basis of a rental price (docs/plan.md#costs): rentals are ranked on one basis, the
 * question's `money.rental_basis` (on-demand unless it says); a device without a price on that
 * basis takes its closest one and the option is flagged. */
enum plan_rent_basis {
    PLAN_BASIS_ON_DEMAND,   /* pay as you go, no commitment */
    PLAN_BASIS_LIST,        /* a provider's list rental, commitment not stated */
    PLAN_BASIS_SHORT_TERM,  /* a short reservation (AWS capacity blocks) or spot */
    PLAN_BASIS_RESERVED_3Y, /* a multi-year contract (SemiAnalysis' 3-year rental tier) */
    PLAN_BASIS_OWNED,       /* an owner's cost tier (InferenceMAX hyperscaler-own), not a rental */
    PLAN_BASIS_ANY,         /* question only: the cheapest entry of any basis */
    PLAN_BASIS_COUNT
};
/* Why a candidate was rejected before or after the search. */
enum plan_reject_kind {
    PLAN_REJ_FORMAT,   /* the device has no roof for the format, or the model cannot use it */
    PLAN_REJ_PARALLEL, /* tp does not divide the heads, too many devices for the server ... */
    PLAN_REJ_MEMORY,   /* weights + reserve + one sequence of KV do not fit */
    PLAN_REJ_KV,       /* the KV pool holds fewer sequences of the maximum length than needed */
    PLAN_REJ_SLO,      /* the SLO is missed even unloaded (the reason names the numbers) */
    PLAN_REJ_RATE,     /* meets the SLO only below a useful rate, or the simulator disagrees */
    PLAN_REJ_PRICE,    /* over the question's max price filter */
    PLAN_REJ_POWER,    /* the fleet needs more than --power-budget-kw */
    PLAN_REJ_COUNT
};

/* A weight/activation/KV combination to try. */
struct plan_format {
    enum dtype weights, act, kv;
    /* MXFP4 experts through vLLM's Marlin MoE (roof_config.mxfp4_marlin): the question's
     * kernels.moe, or a twin the loader added beside the engine's-kernel format when kernels.moe
     * is not given, tried only where Marlin's rate applies (calib_hopper) */
    bool moe_marlin;
};

/* A per-device price the question sets (overrides the profile and the tier). 0 = not set. */
struct plan_price_override {
    char hw_id[PLAN_NAME];
    double rent_per_hour;       /* currency per device-hour */
    double purchase_per_device; /* currency, the device's share of a server */
};

/* Purchase (TCO) assumptions; docs/plan.md#costs gives the formula and the sources. */
struct plan_tco {
    double life_years;                /* amortisation life (default 4) */
    double residual_fraction;         /* resale value at the end of the life (default 0.2) */
    double cost_of_capital;           /* per year (default 0.08) */
    double maintenance_per_year;      /* fraction of the purchase price per year (default 0.05) */
    double pue;                       /* facility power / IT power (default 1.4) */
    double price_per_kwh;             /* currency per kWh (default 0.12) */
    double host_w_per_server;         /* CPUs, memory, NICs, fans per server (default 450 W) */
    double device_utilisation;        /* average device power / TDP (default 0.7) */
    double server_overhead;           /* server price / device prices - 1 (default 0.25) */
    double facility_per_server_month; /* rack, space, network (default 0) */
};

/* A named SLO preset (docs/plan.md#slo-presets). */
struct plan_slo_preset {
    const char *name;
    double ttft_s, itl_s, e2e_s; /* 0 = no bound */
    double target;               /* attainment, e.g. 0.99 for p99 */
    const char *source;
};
extern const struct plan_slo_preset PLAN_SLO_PRESETS[];
extern const int PLAN_N_SLO_PRESETS;

struct plan_question {
    char *path, *name;         /* owned */
    struct mdl_profile *model; /* owned */
    char *engine;              /* owned; engine profile for tuning and launch lines: "vllm",
                                * "tensorrt-llm", "llama.cpp", "kernel", or NULL (datasheet) */
    struct plan_format formats[PLAN_MAX_FORMATS];
    int n_formats;

    /* workload */
    enum plan_workload workload;
    double rate_per_s;         /* planning (peak) rate; derived for tokens/month, users, offline */
    double tokens_per_month;   /* PLAN_WL_TOKENS_PER_MONTH: input + output tokens per month */
    double peak_to_mean;       /* PLAN_WL_TOKENS_PER_MONTH: peak rate / mean rate (default 2) */
    long users;                /* PLAN_WL_USERS */
    double think_time_s;       /* PLAN_WL_USERS */
    double offline_requests;   /* PLAN_WL_OFFLINE: documents to process */
    double offline_deadline_s; /* PLAN_WL_OFFLINE: wall time allowed */
    enum sim_process process;  /* SIM_POISSON or SIM_GAMMA (burstiness) */
    double cv;                 /* SIM_GAMMA */
    struct sim_dist prompt, output;
    /* workload.trace (owned, NULL = none): its lengths (prompt/output kind SIM_DIST_TRACE with
     * the trace's mean and max), and when no other form is given its rate and burstiness */
    struct sim_trace *trace;

    /* SLOs: has_slo false = offline (maximise throughput) */
    bool has_slo;
    struct sim_slo slo;         /* target = attainment, e.g. 0.99 for p99 */
    char slo_preset[PLAN_NAME]; /* "" = none; else the preset the bounds came from */
    const char *slo_source;     /* static: the preset's source, or "question" */

    /* candidates */
    struct hw_profile **hw; /* owned (each and the array), sorted by id */
    int n_hw;
    int tp[PLAN_MAX_LIST], n_tp;
    /* data-parallel attention degrees, each tried where it divides the tp (1 = none); `auto`
     * (attn_dp_auto, the default): none, and also attn_dp = tp where tensor parallelism copies
     * the KV cache (plan.c) on an engine that has it */
    int attn_dp[PLAN_MAX_LIST], n_attn_dp;
    bool attn_dp_auto;
    int pp[PLAN_MAX_LIST], n_pp;
    enum sim_policy policies[PLAN_MAX_LIST];
    int n_policies;
    long max_batch[PLAN_MAX_LIST];
    int n_max_batch;
    long max_tokens_per_step[PLAN_MAX_LIST]; /* 0 = the scheduler's default */
    int n_max_tokens_per_step;
    /* disaggregated: prefill pool hardware (NULL = the same as decode), prefill:decode ratios */
    struct hw_profile **prefill_hw; /* owned; may be empty */
    int n_prefill_hw;
    double pd_ratios[PLAN_MAX_LIST]; /* prefill instances per decode instance, e.g. 0.5, 1 */
    int n_pd_ratios;
    double max_price_per_hour; /* filter: per device; 0 = none */
    double max_purchase;       /* filter: per device; 0 = none */

    /* money */
    enum plan_money money;
    char currency[16];                  /* label only, e.g. "USD" */
    struct plan_price_override *prices; /* owned */
    enum plan_rent_basis rent_basis;    /* money.rental_basis: on-demand (default), reserved-3y,
                                         * any */
    int n_prices;
    struct plan_tco tco;
    unsigned tco_given; /* bit i set: field i of struct plan_tco came from the question */

    /* planning */
    enum plan_objective objective;
    double utilisation;      /* planned load / max SLO-meeting rate (default 0.9) */
    int spares;              /* N+k: k spare instances per pool (default 0) */
    double growth_per_month; /* fraction, e.g. 0.1 = 10%/month (0 = none) */
    int horizon_months;      /* growth horizon (default 24) */
    double power_budget_w;   /* 0 = no cap */
    double volume_max;       /* sweep 1x .. this (default 10) */
    long sim_requests;       /* requests per simulated probe (default 1500) */
    int confirm_top;         /* candidates the simulator confirms (default 12) */
    unsigned long seed;      /* common random numbers for every probe (default 1) */
};

/* Load and validate a question. Relative profile paths are relative to the question's
 * directory. Returns a question the caller frees with plan_question_free, or NULL with every
 * problem in `errs` (path:line:col). */
struct plan_question *plan_question_load(const char *path, struct err_list *errs);
/* Same from memory; `name` is used in messages and for relative paths. */
struct plan_question *plan_question_parse(const char *name, const char *text, size_t len,
                                          struct err_list *errs);
void plan_question_free(struct plan_question *q);

#endif
