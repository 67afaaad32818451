/* Serving scenarios for `roofline simulate` (docs/simulate.md): a strict YAML loader that
 * reports every problem of a file in one pass (`path:line:col: error: ...`), resolves the model
 * and hardware profiles and reads a trace CSV (arrival_s,prompt,output). The result fills the
 * simulator's config (sim/sim.h) except the engine tuning, which the caller applies. */
#ifndef ROOFLINE_IO_SCENARIO_H
#define ROOFLINE_IO_SCENARIO_H

#include "core/calib.h"
#include "core/hw.h"
#include "core/model.h"
#include "sim/sim.h"
#include "util/err.h"

struct scenario {
    char *path, *name;
    struct mdl_profile *model; /* owned */
    struct hw_profile *hw;     /* owned */
    int count, tp, pp;         /* devices, tensor and pipeline degrees */
    int ep; /* expert-parallel groups in the tp group (hardware.ep; 0 = none: roof_config.ep) */
    int attn_dp; /* data-parallel attention ranks (hardware.attn_dp; 0 = none: roof_config) */
    enum dtype weights, act, kv;
    double reserve_bytes;       /* per device; < 0 = the engine's (engine_reserve_bytes) */
    char *engine;               /* engine profile name; "kernel" when the file names none */
    struct engine_profile *eng; /* owned: its serving defaults were applied */
    bool mxfp4_marlin;          /* kernels.moe: marlin (roof_config.mxfp4_marlin) */
    struct sim_sched sched;
    struct sim_workload work; /* work.trace points at `trace` */
    struct sim_slo slo;
    bool has_slo;
    unsigned long seed;
    struct sim_trace trace; /* rows owned */
    char *trace_path;
};

/* The `kernels` section of a scenario or question at `root`: true for `moe: marlin` (vLLM's
 * Marlin MoE for MXFP4 experts, roof_config.mxfp4_marlin), false for `auto` or none; anything
 * else is an error with its position in `y`. */
struct ycheck;
struct ynode;
bool scenario_read_kernels(struct ycheck *y, const struct ynode *root);
/* Load and validate the scenario at `path` (relative profile and trace paths are relative to
 * the scenario's directory). Returns a scenario the caller frees with scenario_free, or NULL
 * with every problem in `errs`. */
struct scenario *scenario_load(const char *path, struct err_list *errs);
/* Same from memory; `name` is used in messages and for relative paths. */
struct scenario *scenario_parse(const char *name, const char *text, size_t len,
                                struct err_list *errs);
void scenario_free(struct scenario *s);
/* Fill a simulator config: the engine from the profiles and formats (tuning: the pure
 * roofline), instances = count / (tp x pp), scheduler, workload, SLO and seed. The config
 * borrows from the scenario. */
void scenario_sim_config(const struct scenario *s, struct sim_config *cfg);
/* The engine profile's scheduler defaults over `sched` (set by sim_sched_defaults for its policy;
 * docs/simulate.md#engines): admission, max batch and the step's token budget (by the device's
 * memory, `hw` may be NULL; the budget only for chunked prefill and disaggregated serving) and
 * the KV share. The one place both simulate's scenarios and the planner take them from. */
void engine_serving_sched(const struct engine_profile *e, const struct hw_profile *hw,
                          struct sim_sched *sched);
/* The planner's serving hook (plan_opts.serving) with `ctx` the engine profile (NULL: nothing
 * applied): engine_serving_sched over `sched`, and the reserve scenario_sim_config gives a
 * scenario without hardware.reserve into eng->reserve_bytes (`eng` may be NULL), for an engine
 * launched with `context_tokens` of context (0: the model's maximum). */
void engine_serving_hook(const struct hw_profile *hw, const char *engine, struct roof_config *eng,
                         double context_tokens, struct sim_sched *sched, void *ctx);
/* Read a trace CSV: an optional header "arrival_s,prompt,output", then one request a line;
 * '#' comments and blank lines are skipped; arrivals must not decrease. Returns 0, or -1 with
 * positioned errors. `rows` owned by the caller (free). */
int scenario_read_trace(const char *path, struct sim_trace *out, struct err_list *errs);

#endif
