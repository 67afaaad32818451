/* The capacity planner (docs/plan.md): a question (model, formats, workload, SLOs, candidate
 * hardware and parallelism, money, growth) in; ranked deployment options with device counts,
 * cost per hour and per million tokens, TCO, power, SLO margins, rejected candidates with their
 * reasons, a verification block, growth and a cost-versus-volume sweep out. Library code: no
 * printing, no exit. SI units inside (seconds, bytes, watts); money in the question's currency.
 *
 * Stable interface: `roofline report` reads struct plan_result. Add fields, never rename. */
#ifndef ROOFLINE_PLAN_PLAN_H
#define ROOFLINE_PLAN_PLAN_H

#include "core/roof.h"
#include "io/question.h"
#include "sim/sim.h"
#include "util/err.h"

#include <stdbool.h>

#define PLAN_MAX_SWEEP 10     /* cost-versus-volume points: 1x .. 10x */
#define PLAN_MAX_SHOWN 6      /* options carried through the sweep: chosen + runners-up */
#define PLAN_MAX_CROSSOVERS 8 /* changes of the best option along the sweep */

/* One named assumption with its value and where it came from (printed with every answer). */
struct plan_assumption {
    char key[PLAN_NAME];    /* e.g. "tco.pue" */
    char value[PLAN_NAME];  /* e.g. "1.4" */
    char source[PLAN_TEXT]; /* citation, or "question" when the question set it */
    bool is_default;        /* true: the planner's default; false: the question's value */
};

/* One feasible candidate, evaluated and priced. Rates are per instance (a disaggregated
 * instance is one prefill:decode unit); costs per hour of the whole fleet unless named. */
struct plan_option {
    int index;                     /* candidate number in enumeration order (stable) */
    char hw_id[PLAN_NAME];         /* decode (or only) hardware */
    char prefill_hw_id[PLAN_NAME]; /* disaggregated: prefill hardware; "" otherwise */
    int tp, pp;
    int attn_dp;              /* data-parallel attention ranks in the tp group (1 = none) */
    int devices_per_instance; /* tp x pp (disaggregated: prefill + decode devices) */
    int prefill_instances, decode_instances; /* disaggregated unit shape; 0 otherwise */
    struct plan_format format;
    enum sim_policy policy;
    long max_batch, max_tokens_per_step;

    double analytic_rate_per_s; /* analytic estimate of the max SLO-meeting rate */
    double rate_per_s;          /* max SLO-meeting rate (simulated when `simulated`) */
    bool simulated;
    /* concurrent users (workload.users): the most users one instance serves as a closed loop
     * within the SLOs (simulated when `simulated`, else X (Z + R) at the analytic rate: the
     * response time law); 0 for the other workloads */
    double users_per_instance;
    double saturation_output_tokens_per_s; /* per instance, no SLO (simulated when simulated) */
    double output_tokens_per_s_per_user;   /* 1 / TPOT at the planned load */

    /* fleet */
    int instances; /* ceil(rate / (rate_per_s x utilisation)) + spares; users: ceil(users /
                    * max(1, floor(users_per_instance x utilisation))) + spares */
    int spares;
    int devices;        /* all devices, spares included, rounded to whole servers */
    int server_devices; /* devices per server (0 = sold singly) */
    int servers;
    int stranded_devices;               /* bought or rented with the servers but not used */
    double planned_rate_per_instance_s; /* target rate / (instances - spares); users: the
                                         * closed loop's throughput per instance */

    /* money */
    double device_price_per_hour; /* per device-hour (rent, or TCO per hour when buying) */
    enum plan_price_origin price_origin;
    char price_basis[PLAN_TEXT];     /* e.g. "coreweave on-demand 2026-02, profile" */
    enum plan_rent_basis rent_basis; /* renting: the basis of the price used (decode pool) */
    bool basis_flag;      /* renting: a price (either pool) is not on the question's rental_basis */
    double cost_per_hour; /* whole fleet */
    double cost_per_mtok_output, cost_per_mtok_input, cost_per_mtok_blended;
    double tco_per_year; /* purchase: whole fleet; NaN when renting */
    double capex;        /* purchase: server prices of the fleet; NaN when renting */

    /* power */
    double power_w;             /* fleet at the planned load, with host and PUE */
    double tokens_per_s_per_kw; /* output tokens */
    double joules_per_token;    /* output tokens */

    /* latency at the planned load (simulated when `simulated`, else the analytic estimate);
     * itl is each request's mean time between tokens (TPOT), the quantity the SLO bounds */
    double ttft_p99_s, itl_p99_s, e2e_p99_s, attainment;
    double ttft_p50_s, itl_p50_s, e2e_mean_s;
    double output_tokens_per_s_planned;         /* per instance at the planned load */
    double margin_ttft, margin_itl, margin_e2e; /* bound / p99: > 1 = headroom; NaN = no bound */
    enum plan_slo_status status;
    double miss_factor;   /* worst p99 / bound when not met (1.15 = 15% over); 1 when met */
    char miss[PLAN_TEXT]; /* "TTFT p99 2.4 s > 2 s" when not met; "" */

    int exhaust_month;      /* growth: first month the fleet runs out; -1 = not within horizon */
    double offline_hours;   /* offline: hours to finish the job with this fleet */
    char launch[PLAN_TEXT]; /* launch line of the engine assumed */
};

struct plan_rejected {
    int index;
    char hw_id[PLAN_NAME], prefill_hw_id[PLAN_NAME];
    int tp, pp;
    int attn_dp;
    struct plan_format format;
    enum sim_policy policy;
    enum plan_reject_kind kind;
    char reason[PLAN_TEXT]; /* in words with the numbers; never empty */
};

/* Where to benchmark the chosen plan so the answer can be checked on the real deployment. */
struct plan_verification {
    double rate_per_instance_s; /* Poisson rate to offer one instance (users: the throughput) */
    long users;                 /* closed loop: users to run against one instance; 0 = open */
    double think_time_s;        /* closed loop: their mean think time */
    double concurrency;         /* mean requests in flight there (Little's law) */
    double ttft_p50_s, ttft_p99_s, itl_p50_s, itl_p99_s;
    double output_tokens_per_s; /* per instance */
    long requests;
    unsigned long seed;
};

/* Cost against traffic volume: `volume` x today's rate; per shown option its fleet cost per
 * hour (NaN when it cannot serve that volume, e.g. over the power budget). */
struct plan_volume_point {
    double volume;
    double rate_per_s;
    double cost_per_hour[PLAN_MAX_SHOWN];
    int instances[PLAN_MAX_SHOWN];
    int best; /* index into plan_result.shown, -1 = none */
};
struct plan_crossover {
    double volume; /* the first sweep volume at which `to` is cheaper than `from` */
    int from, to;  /* indices into plan_result.shown */
};

struct plan_result {
    char question[PLAN_TEXT], model_id[PLAN_NAME];
    struct plan_option *options; /* owned; ranked best first: met, then near miss, then missed */
    int n_options;
    struct plan_rejected *rejected; /* owned; in candidate order */
    int n_rejected;
    long rejected_by[PLAN_REJ_COUNT];
    int n_candidates, n_simulated;

    int chosen;                /* index into options; -1 when no option meets the SLOs */
    int shown[PLAN_MAX_SHOWN]; /* chosen + runners-up (or the closest when none meets) */
    int n_shown;
    struct plan_verification verify; /* of options[shown[0]] */

    struct plan_volume_point sweep[PLAN_MAX_SWEEP];
    int n_sweep;
    struct plan_crossover crossovers[PLAN_MAX_CROSSOVERS];
    int n_crossovers;

    /* the SLO used and its source, as the question gave or preset */
    struct sim_slo slo;
    bool has_slo;
    char slo_preset[PLAN_NAME];
    char slo_source[PLAN_TEXT];
    double rate_per_s; /* planning rate */

    struct plan_assumption *assumptions; /* owned */
    int n_assumptions;
};

/* Hooks the CLI gives the library (the layers below cli/ cannot read engine calibrations). */
struct plan_opts {
    int jobs;            /* threads (>= 1); the result does not depend on it */
    int shard, n_shards; /* evaluate candidates i with i % n_shards == shard; 0/1 = all */
    /* Fill the engine tuning for `engine` on `hw`; 0 or -1. NULL: the datasheet roofline. */
    int (*tuning)(const struct hw_profile *hw, const char *engine, struct roof_tuning *out,
                  void *ctx);
    void *tuning_ctx;
    /* Apply the serving defaults of `engine` (engine_serving_sched) over `sched`, and set
     * eng->reserve_bytes to its memory reserve per device when `eng` is not NULL, for an engine
     * launched with `context_tokens` of context (sim_serving_context; 0: the model's maximum).
     * NULL: the simulator's defaults, no engine reserve. */
    void (*serving)(const struct hw_profile *hw, const char *engine, struct roof_config *eng,
                    double context_tokens, struct sim_sched *sched, void *ctx);
    void *serving_ctx;
    /* Progress (done of total candidates), called from the calling thread; may be NULL. */
    void (*progress)(int done, int total, void *ctx);
    void *progress_ctx;
};

void plan_opts_init(struct plan_opts *o);

/* The two halves of plan_run, for sharding (--shard I/N, plan merge): plan_evaluate fills
 * `out` with the options and rejections of the candidates in the opts' slice (every shard
 * screens all candidates analytically, so all agree on which the simulator confirms);
 * plan_finish ranks, prices the fleet, sweeps volume and growth over evaluations gathered from
 * every slice (any order: it sorts by index). plan_run = plan_evaluate + plan_finish. */
int plan_evaluate(const struct plan_question *q, const struct plan_opts *o, struct plan_result *out,
                  struct err_list *errs);
int plan_finish(const struct plan_question *q, struct plan_result *r, struct err_list *errs);
/* Answer the question. Fills `out` (release with plan_result_release). Returns 0, or -1 with
 * errs (out of memory, a simulator failure). A question no option meets is not an error:
 * chosen = -1 and shown[] names the closest options. Deterministic for any jobs. */
int plan_run(const struct plan_question *q, const struct plan_opts *o, struct plan_result *out,
             struct err_list *errs);
void plan_result_release(struct plan_result *r);
/* The simulator config the planner uses for one instance of `op` at `rate_per_s` (for the
 * report's attainment-against-load curve, the chart and the tests). A disaggregated option on
 * two device types runs prefill on its prefill device (cfg->engine) and decode on its own
 * (cfg->decode_engine, which points to `decode`), as the planner simulates it; the analytic
 * estimate of such a config sees the prefill device alone. 0, or -1 (unknown hardware, tuning). */
int plan_option_sim_config_pools(const struct plan_question *q, const struct plan_opts *o,
                                 const struct plan_option *op, double rate_per_s,
                                 struct sim_config *cfg, struct roof_config *decode);
/* The same with the decode engine in storage of the calling thread: cfg->decode_engine is valid
 * until this thread's next call (keep two such configs with plan_option_sim_config_pools). */
int plan_option_sim_config(const struct plan_question *q, const struct plan_opts *o,
                           const struct plan_option *op, double rate_per_s, struct sim_config *cfg);

/* The question's candidate or prefill hardware with this id (borrowed), or NULL. */
const struct hw_profile *plan_find_hw(const struct plan_question *q, const char *id);

const char *plan_objective_name(enum plan_objective o);
const char *plan_status_name(enum plan_slo_status s);
const char *plan_reject_kind_name(enum plan_reject_kind k);
const char *plan_price_origin_name(enum plan_price_origin p);

#endif
