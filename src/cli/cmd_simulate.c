/* roofline simulate: run a serving scenario through the discrete-event simulator and print
 * latency percentiles, throughput, goodput and the analytic estimate beside them; or, with
 * --max-rate, the highest Poisson rate that meets the SLOs. docs/simulate.md */
#include "cli/caldata.h"
#include "cli/cli.h"
#include "cli/out.h"
#include "io/scenario.h"
#include "sim/sim.h"
#include "util/afile.h"
#include "util/units.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#ifndef ROOFLINE_VERSION
#define ROOFLINE_VERSION "0.1"
#endif

/* Stable field names (docs/simulate.md#output). Wide fields are CSV/JSON only: the table shows
 * latencies in their own table. */
static const struct out_field SUM_FIELDS[] = {
    {"scenario", NULL, OUT_SHOW_TEXT, 0, true},
    {"model", NULL, OUT_SHOW_TEXT, 0, true},
    {"hardware", NULL, OUT_SHOW_TEXT, 0, true},
    {"engine", NULL, OUT_SHOW_TEXT, 0, true},
    {"policy", NULL, OUT_SHOW_TEXT, 0, true},
    {"admission", NULL, OUT_SHOW_TEXT, 0, true},
    {"instances", NULL, OUT_SHOW_NUM, 0, true},
    {"seed", NULL, OUT_SHOW_NUM, 0, true},
    {"requests", "requests arrived", OUT_SHOW_NUM, 0, false},
    {"completed", NULL, OUT_SHOW_NUM, 0, false},
    {"rejected", NULL, OUT_SHOW_NUM, 0, false},
    {"rejected_empty", "  empty", OUT_SHOW_NUM, 0, false},
    {"rejected_context", "  over the context", OUT_SHOW_NUM, 0, false},
    {"rejected_kv", "  over the KV pool", OUT_SHOW_NUM, 0, false},
    {"rejected_budget", "  over the step budget", OUT_SHOW_NUM, 0, false},
    {"measured", "measured (after warm-up)", OUT_SHOW_NUM, 0, false},
    {"makespan_s", "simulated time", OUT_SHOW_TIME, 0, false},
    {"window_s", "measurement window", OUT_SHOW_TIME, 0, false},
    {"arrivals_s", "  of it during arrivals", OUT_SHOW_TIME, 0, false},
    {"arrivals_req_per_s", "during arrivals: requests/s", OUT_SHOW_NUM, 3, false},
    {"arrivals_input_tokens_per_s", "during arrivals: input tokens/s", OUT_SHOW_NUM, 1, false},
    {"arrivals_output_tokens_per_s", "during arrivals: output tokens/s", OUT_SHOW_NUM, 1, false},
    {"throughput_req_per_s", "including drain: requests/s", OUT_SHOW_NUM, 3, false},
    {"input_tokens_per_s", "including drain: input tokens/s", OUT_SHOW_NUM, 1, false},
    {"output_tokens_per_s", "including drain: output tokens/s", OUT_SHOW_NUM, 1, false},
    {"goodput_req_per_s", "goodput requests/s", OUT_SHOW_NUM, 3, false},
    {"slo_attainment", "SLO attainment", OUT_SHOW_PCT, 2, false},
    {"preemptions", NULL, OUT_SHOW_NUM, 0, false},
    {"preemptions_per_request", "preemptions per request", OUT_SHOW_NUM, 3, false},
    {"swapped_blocks", "blocks swapped out", OUT_SHOW_NUM, 0, false},
    {"steps", "engine steps", OUT_SHOW_NUM, 0, false},
    {"step_time_mean_s", "mean step time", OUT_SHOW_TIME, 0, false},
    {"busy_fraction", "engines busy in the window", OUT_SHOW_PCT, 1, false},
    {"batch_mean", "batch mean (over time)", OUT_SHOW_NUM, 1, false},
    {"batch_p50", "batch p50", OUT_SHOW_NUM, 0, false},
    {"batch_p90", "batch p90", OUT_SHOW_NUM, 0, false},
    {"batch_p99", "batch p99", OUT_SHOW_NUM, 0, false},
    {"batch_max", "batch max", OUT_SHOW_NUM, 0, false},
    {"kv_occupancy_mean", "KV occupancy mean (over time)", OUT_SHOW_PCT, 1, false},
    {"kv_occupancy_p50", "KV occupancy p50", OUT_SHOW_PCT, 1, false},
    {"kv_occupancy_p90", "KV occupancy p90", OUT_SHOW_PCT, 1, false},
    {"kv_occupancy_p99", "KV occupancy p99", OUT_SHOW_PCT, 1, false},
    {"kv_occupancy_max", "KV occupancy max", OUT_SHOW_PCT, 1, false},
    {"kv_blocks", "KV blocks per instance", OUT_SHOW_NUM, 0, false},
    {"kv_block_bytes", "KV block (per device)", OUT_SHOW_BYTES, 0, false},
    {"kv_pool_bytes", "KV pool (per device)", OUT_SHOW_BYTES, 0, false},
    {"littles_l", "Little: mean in system", OUT_SHOW_NUM, 4, false},
    {"littles_lambda_w", "Little: rate x mean time", OUT_SHOW_NUM, 4, false},
#define LAT(m)                                                                                     \
    {m "_mean_s", NULL, OUT_SHOW_TIME, 0, true}, {m "_p50_s", NULL, OUT_SHOW_TIME, 0, true},       \
        {m "_p90_s", NULL, OUT_SHOW_TIME, 0, true}, {m "_p99_s", NULL, OUT_SHOW_TIME, 0, true},    \
    {                                                                                              \
        m "_max_s", NULL, OUT_SHOW_TIME, 0, true                                                   \
    }
    LAT("ttft"),
    LAT("itl"),
    LAT("tpot"),
    LAT("e2e"),
    LAT("queue"),
#undef LAT
    {"model_stable", "analytic: stable", OUT_SHOW_TEXT, 0, false},
    {"model_rate_per_s", "analytic: rate per queue", OUT_SHOW_NUM, 3, false},
    {"model_batch", "analytic: mean batch", OUT_SHOW_NUM, 1, false},
    {"model_slots", "analytic: slots", OUT_SHOW_NUM, 0, false},
    {"model_utilisation", "analytic: utilisation", OUT_SHOW_PCT, 1, false},
    {"model_prefill_s", "analytic: prefill pass", OUT_SHOW_TIME, 0, false},
    {"model_step_s", "analytic: decode step", OUT_SHOW_TIME, 0, false},
    {"model_capacity_req_per_s", "analytic: capacity requests/s", OUT_SHOW_NUM, 3, false},
    {"model_ttft_mean_s", NULL, OUT_SHOW_TIME, 0, true},
    {"model_ttft_p99_s", NULL, OUT_SHOW_TIME, 0, true},
    {"model_tpot_mean_s", NULL, OUT_SHOW_TIME, 0, true},
    {"model_e2e_mean_s", NULL, OUT_SHOW_TIME, 0, true},
    {"model_e2e_p99_s", NULL, OUT_SHOW_TIME, 0, true},
    {"model_queue_mean_s", NULL, OUT_SHOW_TIME, 0, true},
    {"model_queue_p99_s", NULL, OUT_SHOW_TIME, 0, true},
    /* added later, so at the end (the table shows them beside the preemptions: TABLE_AFTER) */
    {"recomputed_tokens", "tokens recomputed", OUT_SHOW_NUM, 0, false},
    {"recomputed_tokens_per_request", "tokens recomputed per request", OUT_SHOW_NUM, 1, false},
    {"async_scheduling", "asynchronous scheduling", OUT_SHOW_TEXT, 0, false},
};
#define N_SUM ((int)(sizeof SUM_FIELDS / sizeof SUM_FIELDS[0]))
/* the fields from N_SUM - TABLE_MOVED on are shown in the table after this one */
#define TABLE_AFTER "preemptions_per_request"
#define TABLE_MOVED 3

static const struct out_field LAT_FIELDS[] = {
    {"metric", NULL, OUT_SHOW_TEXT, 0, false},
    {"n", NULL, OUT_SHOW_NUM, 0, false},
    {"mean_s", "mean", OUT_SHOW_TIME, 0, false},
    {"p50_s", "p50", OUT_SHOW_TIME, 0, false},
    {"p90_s", "p90", OUT_SHOW_TIME, 0, false},
    {"p99_s", "p99", OUT_SHOW_TIME, 0, false},
    {"max_s", "max", OUT_SHOW_TIME, 0, false},
    {"model_mean_s", "model mean", OUT_SHOW_TIME, 0, false},
    {"model_p99_s", "model p99", OUT_SHOW_TIME, 0, false},
};
#define N_LAT ((int)(sizeof LAT_FIELDS / sizeof LAT_FIELDS[0]))

static const struct out_field PROBE_FIELDS[] = {
    {"rate_per_s", "rate/s", OUT_SHOW_NUM, 4, false},
    {"slo_attainment", "attainment", OUT_SHOW_PCT, 2, false},
    {"goodput_req_per_s", "goodput/s", OUT_SHOW_NUM, 3, false},
    {"ttft_p99_s", "TTFT p99", OUT_SHOW_TIME, 0, false},
    {"tpot_p99_s", "TPOT p99", OUT_SHOW_TIME, 0, false},
    {"e2e_p99_s", "E2E p99", OUT_SHOW_TIME, 0, false},
    {"meets_target", "meets", OUT_SHOW_TEXT, 0, false},
};
#define N_PROBE ((int)(sizeof PROBE_FIELDS / sizeof PROBE_FIELDS[0]))

static const struct cli_opt SPEC[] = {
    OPT_VALUE("scenario", "FILE", "the serving scenario (docs/simulate.md)"),
    OPT_VALUE("seed", "N", "the random seed (default the scenario's)"),
    CLI_OPT_FORMAT,
    OPT_VALUE("requests-out", "FILE", "write one row per request (CSV)"),
    OPT_FLAG("max-rate", "the highest arrival rate that meets the scenario's SLOs"),
    OPT_VALUE("target", "F", "with --max-rate: the fraction of requests within SLO (0.99)"),
};

static void
put_stat(struct out_value *v, const struct sim_stat *s)
{
    v[0].x = s->mean;
    v[1].x = s->p50;
    v[2].x = s->p90;
    v[3].x = s->p99;
    v[4].x = s->max;
}

static void
fill_summary(const struct scenario *sc, const struct sim_config *cfg, const struct sim_result *r,
             const struct sim_analytic *a, bool have_a, struct out_value *v)
{
    int i = 0;
    for (int k = 0; k < N_SUM; k++) {
        v[k].s = NULL;
        v[k].x = NAN;
    }
    v[i++].s = sc->path;
    v[i++].s = sc->model->id;
    v[i++].s = sc->hw->id;
    v[i++].s = sc->engine ? sc->engine : "kernel";
    v[i++].s = sim_policy_name(cfg->sched.policy);
    v[i++].s = sim_admission_name(cfg->sched.admission);
    v[i++].x = cfg->instances;
    v[i++].x = (double)cfg->seed;
    v[i++].x = (double)r->arrived;
    v[i++].x = (double)r->completed;
    v[i++].x = (double)r->rejected;
    v[i++].x = (double)r->rejected_by[SIM_REJ_EMPTY];
    v[i++].x = (double)r->rejected_by[SIM_REJ_CONTEXT];
    v[i++].x = (double)r->rejected_by[SIM_REJ_KV];
    v[i++].x = (double)r->rejected_by[SIM_REJ_BUDGET];
    v[i++].x = (double)r->measured;
    v[i++].x = r->makespan_s;
    v[i++].x = r->window_end_s - r->window_start_s;
    v[i++].x = r->arrivals_end_s - r->window_start_s;
    v[i++].x = r->arrivals_req_per_s;
    v[i++].x = r->arrivals_input_tokens_per_s;
    v[i++].x = r->arrivals_output_tokens_per_s;
    v[i++].x = r->throughput_req_per_s;
    v[i++].x = r->input_tokens_per_s;
    v[i++].x = r->output_tokens_per_s;
    v[i++].x = r->goodput_req_per_s;
    v[i++].x = r->slo_attainment;
    v[i++].x = (double)r->preemptions;
    v[i++].x = r->preemptions_per_request;
    v[i++].x = (double)r->swapped_blocks;
    v[i++].x = (double)r->steps;
    v[i++].x = r->step_time.mean;
    v[i++].x = r->busy_fraction;
    v[i++].x = r->batch.mean;
    v[i++].x = r->batch.p50;
    v[i++].x = r->batch.p90;
    v[i++].x = r->batch.p99;
    v[i++].x = r->batch.max;
    v[i++].x = r->kv_occupancy.mean;
    v[i++].x = r->kv_occupancy.p50;
    v[i++].x = r->kv_occupancy.p90;
    v[i++].x = r->kv_occupancy.p99;
    v[i++].x = r->kv_occupancy.max;
    v[i++].x = r->kv_blocks;
    v[i++].x = r->kv_block_bytes;
    v[i++].x = r->kv_pool_bytes;
    v[i++].x = r->littles_l;
    v[i++].x = r->littles_lambda_w;
    const struct sim_stat *st[5] = {&r->ttft, &r->itl, &r->tpot, &r->e2e, &r->queue};
    for (int k = 0; k < 5; k++) {
        put_stat(&v[i], st[k]);
        i += 5;
    }
    if (!have_a)
        return;
    v[i++].s = a->stable ? "yes" : "no (offered load above capacity)";
    v[i++].x = a->rate_per_s;
    v[i++].x = a->batch;
    v[i++].x = a->servers;
    v[i++].x = a->utilisation;
    v[i++].x = a->prefill_s;
    v[i++].x = a->step_s;
    v[i++].x = a->capacity_req_per_s;
    v[i++].x = a->ttft_mean_s;
    v[i++].x = a->ttft_p99_s;
    v[i++].x = a->tpot_mean_s;
    v[i++].x = a->e2e_mean_s;
    v[i++].x = a->e2e_p99_s;
    v[i++].x = a->queue_mean_s;
    v[i++].x = a->queue_p99_s;
}

/* the summary after the analytic fields (CSV and JSON order: fields are only appended) */
static void
fill_summary_tail(const struct sim_config *cfg, const struct sim_result *r, struct out_value *v)
{
    int i = N_SUM - 3;
    v[i++].x = r->recomputed_tokens;
    v[i++].x = r->recomputed_tokens_per_request;
    v[i++].s = sim_async(&cfg->sched) ? "yes" : "no";
}

/* The table's record: the summary with the recompute beside the preemptions. */
static void
table_record(const struct out_value *v)
{
    struct out_field f[N_SUM];
    struct out_value w[N_SUM];
    int n = 0;
    for (int k = 0; k < N_SUM - TABLE_MOVED; k++) {
        f[n] = SUM_FIELDS[k];
        w[n++] = v[k];
        if (strcmp(SUM_FIELDS[k].name, TABLE_AFTER) == 0)
            for (int j = N_SUM - TABLE_MOVED; j < N_SUM; j++) {
                f[n] = SUM_FIELDS[j];
                w[n++] = v[j];
            }
    }
    out_record(OUT_TABLE, stdout, f, n, w, 0);
}

static void
latency_rows(struct out_table *t, const struct sim_result *r, const struct sim_analytic *a,
             bool have_a)
{
    const char *names[5] = {"ttft", "itl", "tpot", "e2e", "queue"};
    const struct sim_stat *st[5] = {&r->ttft, &r->itl, &r->tpot, &r->e2e, &r->queue};
    double mm[5][2] = {{a->ttft_mean_s, a->ttft_p99_s},
                       {a->tpot_mean_s, NAN},
                       {a->tpot_mean_s, NAN},
                       {a->e2e_mean_s, a->e2e_p99_s},
                       {a->queue_mean_s, a->queue_p99_s}};
    for (int k = 0; k < 5; k++) {
        struct out_value v[N_LAT] = {
            {names[k], 0},
            {NULL, (double)st[k]->n},
            {NULL, st[k]->mean},
            {NULL, st[k]->p50},
            {NULL, st[k]->p90},
            {NULL, st[k]->p99},
            {NULL, st[k]->max},
            {NULL, have_a ? mm[k][0] : NAN},
            {NULL, have_a ? mm[k][1] : NAN},
        };
        out_table_row(t, v);
    }
}

static void
describe_dist(const struct sim_dist *d, char *buf, size_t n)
{
    switch (d->kind) {
    case SIM_DIST_FIXED:
        snprintf(buf, n, "%.0f", d->value);
        break;
    case SIM_DIST_UNIFORM:
        snprintf(buf, n, "uniform %.0f..%.0f", d->min, d->max);
        break;
    case SIM_DIST_LOGNORMAL:
        snprintf(buf, n, "lognormal (mean %g, sd %g)", d->mean, d->sd);
        break;
    case SIM_DIST_TRACE:
        snprintf(buf, n, "from the trace");
        break;
    }
}

static void
print_header(const struct scenario *sc, const struct sim_config *cfg, const struct sim_result *r)
{
    const struct sim_workload *w = &cfg->work;
    printf("simulate: %s (seed %lu)\n", sc->name ? sc->name : sc->path, cfg->seed);
    bool marlin = roof_moe_marlin(&cfg->engine);
    char epw[64];
    roof_parallel_extras(&cfg->engine, false, epw, sizeof epw);
    printf("  %s on %d x %s (tp %d%s, pp %d: %d instance%s), weights %s, KV %s, engine %s%s\n",
           sc->model->id, sc->count, sc->hw->id, sc->tp, epw, sc->pp, cfg->instances,
           cfg->instances == 1 ? "" : "s", dtype_name(sc->weights), dtype_name(sc->kv),
           sc->engine ? sc->engine : "kernel",
           marlin ? ", experts through Marlin (its issue-bound rate on Hopper)" : "");
    if (sc->mxfp4_marlin && !marlin)
        printf("  kernels.moe marlin: no effect here (Marlin's rate is the engine's on Hopper, "
               "for MXFP4 or int4 experts on 16-bit activations)\n");
    printf("  scheduler %s, admission %s: max batch %ld, %ld tokens per step",
           sim_policy_name(cfg->sched.policy), sim_admission_name(cfg->sched.admission),
           cfg->sched.max_batch, cfg->sched.max_tokens_per_step);
    if (cfg->engine.attn_dp > 1) { /* a prompt is one rank's: its share of the budget a step */
        int dp = cfg->engine.attn_dp;
        printf(" (a rank's share: %ld sequences, %ld prompt tokens)",
               sim_rank_share(cfg->sched.max_batch, dp),
               sim_rank_share(cfg->sched.max_tokens_per_step, dp));
    }
    long bt = sim_block_tokens(cfg);
    printf(", KV blocks of %ld tokens", bt);
    char why[128] = "";
    if (bt > cfg->sched.block_tokens) /* vLLM's hybrid allocator */
        snprintf(why, sizeof why,
                 "raised from %ld so that a KV layer's block holds a linear layer's state%s",
                 cfg->sched.block_tokens, r ? "; " : "");
    if (r && r->kv_block_groups > 1)
        printf(" of 1/%ld of the layers (%s%.0f per instance; sliding-window layers keep their "
               "window only)",
               r->kv_block_groups, why, r->kv_blocks);
    else if (r)
        printf(" (%s%.0f per instance)", why, r->kv_blocks);
    else if (why[0])
        printf(" (%s)", why);
    printf(", preemption %s", cfg->sched.preempt == SIM_PREEMPT_SWAP ? "swap" : "recompute");
    if (sim_async(&cfg->sched))
        printf(", asynchronous scheduling");
    if (cfg->sched.recv_interval > 1)
        printf(", input polled every %ld decode steps", cfg->sched.recv_interval);
    if (cfg->sched.prefill_graph != SIM_PREFILL_GRAPH_FULL && cfg->sched.eager_launch_s > 0)
        printf(", prompt passes %s (%.1f us a launch)",
               cfg->sched.prefill_graph == SIM_PREFILL_GRAPH_NONE ? "eager"
                                                                  : "with eager attention",
               cfg->sched.eager_launch_s * 1e6);
    if (cfg->sched.tokenize_per_token_s > 0)
        printf(", prompts tokenised %sat %.3g us a token",
               cfg->sched.tokenize_serial ? "one at a time " : "",
               cfg->sched.tokenize_per_token_s * 1e6);
    if (cfg->sched.policy == SIM_DISAGGREGATED)
        printf(", %d prefill + %d decode instances", cfg->sched.prefill_instances,
               cfg->instances - cfg->sched.prefill_instances);
    printf("\n  arrivals %s", sim_process_name(w->process));
    if (w->process == SIM_CLOSED)
        printf(" (%ld users, think time %g s)", w->users, w->think_time_s);
    else if (w->process == SIM_TRACE)
        printf(" (%s, %ld rows)", sc->trace_path, sc->trace.n);
    else
        printf(" at %g requests/s", w->rate_per_s);
    if (w->process == SIM_GAMMA)
        printf(" (cv %g)", w->cv);
    char p[96], o[96];
    describe_dist(&w->prompt, p, sizeof p);
    describe_dist(&w->output, o, sizeof o);
    printf("; prompt %s, output %s tokens\n", p, o);
    if (sc->has_slo) {
        char a[32] = "-", b[32] = "-", c[32] = "-";
        if (cfg->slo.ttft_s > 0)
            unit_format_time(cfg->slo.ttft_s, 3, a, sizeof a);
        if (cfg->slo.itl_s > 0)
            unit_format_time(cfg->slo.itl_s, 3, b, sizeof b);
        if (cfg->slo.e2e_s > 0)
            unit_format_time(cfg->slo.e2e_s, 3, c, sizeof c);
        printf("  SLO: TTFT <= %s, TPOT <= %s, E2E <= %s per request\n", a, b, c);
    }
}

/* The answer in words first: what the engines delivered and how long a request took. */
static void
print_answer(const struct sim_result *r)
{
    bool arr = isfinite(r->arrivals_output_tokens_per_s);
    char ttft[32], tpot[32];
    unit_format_time(r->ttft.p50, 3, ttft, sizeof ttft);
    unit_format_time(r->tpot.p50, 3, tpot, sizeof tpot);
    char pre[96] = "n/a (none completed) preemptions";
    if (isfinite(r->preemptions_per_request) && r->recomputed_tokens > 0)
        snprintf(pre, sizeof pre, "%.3g preemptions and %.4g recomputed tokens",
                 r->preemptions_per_request, r->recomputed_tokens_per_request);
    else if (isfinite(r->preemptions_per_request))
        snprintf(pre, sizeof pre, "%.3g preemptions", r->preemptions_per_request);
    printf("  answer: %.4g output tokens/s, %.4g requests/s %s; TTFT p50 %s, TPOT p50 %s; "
           "engines busy %.1f%%, %s per request\n",
           arr ? r->arrivals_output_tokens_per_s : r->output_tokens_per_s,
           arr ? r->arrivals_req_per_s : r->throughput_req_per_s,
           arr ? "during arrivals" : "including drain", ttft, tpot, 100.0 * r->busy_fraction, pre);
}

static void
json_head(const struct scenario *sc, const struct sim_config *cfg)
{
    printf("{\n  \"tool\": \"roofline\",\n  \"version\": ");
    out_json_string(stdout, ROOFLINE_VERSION[0] ? ROOFLINE_VERSION : "0.1");
    printf(",\n  \"command\": \"simulate\",\n  \"scenario\": ");
    out_json_string(stdout, sc->path);
    printf(",\n  \"seed\": %lu,\n  \"profiles\": {\"model\": ", cfg->seed);
    out_json_string(stdout, sc->model->id);
    printf(", \"model_path\": ");
    out_json_string(stdout, sc->model->path);
    printf(", \"hardware\": ");
    out_json_string(stdout, sc->hw->id);
    printf(", \"hardware_path\": ");
    out_json_string(stdout, sc->hw->path);
    printf(", \"engine\": ");
    out_json_string(stdout, sc->engine);
    printf("}");
}

/* CSV text of one number: integers without a point, else 9 significant digits; NaN empty. */
static void
csv_num(FILE *f, double x)
{
    if (!isfinite(x))
        return;
    if (x == floor(x) && fabs(x) < 1e15)
        fprintf(f, "%.0f", x);
    else
        fprintf(f, "%.9g", x);
}

/* Per-request CSV, streamed as requests finish (completion order) to a unique temporary name
 * (util/afile) and renamed into place at the end; a device such as /dev/null is written
 * directly. */
struct req_out {
    struct afile af;
    FILE *f;
    bool has_slo;
};

static void
write_request(void *ctx, const struct sim_request *q)
{
    const struct req_out *o = ctx;
    FILE *f = o->f;
    fprintf(f, "%ld,", q->id);
    csv_num(f, q->arrival_s);
    fprintf(f, ",%ld,%ld,%s,%s,%d,", q->prompt_tokens, q->output_tokens,
            q->status == SIM_REQ_DONE ? "done" : "rejected", sim_reject_name(q->reject),
            q->warmup ? 1 : 0);
    if (q->instance >= 0)
        fprintf(f, "%d", q->instance);
    double t[6] = {q->queue_s, q->ttft_s, q->tpot_s, q->max_itl_s, q->e2e_s, q->finish_s};
    for (int k = 0; k < 6; k++) {
        fputc(',', f);
        csv_num(f, t[k]);
    }
    fprintf(f, ",%d,%s,%ld\n", q->preemptions, o->has_slo ? (q->slo_met ? "1" : "0") : "",
            q->recomputed_tokens);
}

static int
requests_open(struct req_out *o, const char *path, bool has_slo)
{
    struct err_list errs = {0};
    o->has_slo = has_slo;
    if (afile_open(&o->af, path, &errs) != 0) {
        cli_print_errs(&errs);
        err_list_release(&errs);
        return -1;
    }
    o->f = o->af.fp;
    fprintf(o->f, "id,arrival_s,prompt_tokens,output_tokens,status,reject,warmup,instance,"
                  "queue_s,ttft_s,tpot_s,max_itl_s,e2e_s,finish_s,preemptions,slo_met,"
                  "recomputed_tokens\n");
    return 0;
}

/* close and rename into place (ok), or remove the temporary file */
static int
requests_close(struct req_out *o, bool ok)
{
    if (!ok) {
        afile_rollback(&o->af);
        return -1;
    }
    struct err_list errs = {0};
    int rc = afile_commit(&o->af, &errs);
    cli_print_errs(&errs);
    err_list_release(&errs);
    return rc;
}

static int
run_once(const struct scenario *sc, const struct sim_config *cfg, enum out_fmt fmt,
         const char *requests_out)
{
    struct err_list errs = {0};
    struct sim_result r;
    struct sim_config run = *cfg;
    struct req_out ro;
    run.discard_requests = true; /* the summary needs none; the CSV is streamed */
    if (requests_out) {
        if (requests_open(&ro, requests_out, sc->has_slo) != 0)
            return CLI_FAIL;
        run.on_request = write_request;
        run.on_request_ctx = &ro;
    }
    if (sim_run(&run, &r, &errs) != 0) {
        cli_print_errs(&errs);
        err_list_release(&errs);
        if (requests_out)
            requests_close(&ro, false);
        return CLI_FAIL;
    }
    err_list_release(&errs);
    int rc = CLI_OK;
    if (requests_out && requests_close(&ro, true) != 0)
        rc = CLI_FAIL;
    struct sim_analytic a;
    bool have_a = sim_analytic(cfg, &a) == 0;
    if (!have_a)
        memset(&a, 0, sizeof a);
    struct out_value v[N_SUM];
    fill_summary(sc, cfg, &r, &a, have_a, v);
    fill_summary_tail(cfg, &r, v);
    if (fmt == OUT_CSV) {
        out_record(fmt, stdout, SUM_FIELDS, N_SUM, v, 0);
    } else if (fmt == OUT_JSON) {
        json_head(sc, cfg);
        printf(",\n  \"summary\": ");
        out_record(fmt, stdout, SUM_FIELDS, N_SUM, v, 2);
        printf(",\n  \"latency\": ");
        struct out_table *t = out_table_new(fmt, NULL, LAT_FIELDS, N_LAT);
        latency_rows(t, &r, &a, have_a);
        out_table_end(t, stdout, 2);
        printf("\n}\n");
    } else {
        print_header(sc, cfg, &r);
        print_answer(&r);
        printf("\nlatency (model: the queueing approximation, docs/simulate.md#analytic)\n");
        struct out_table *t = out_table_new(fmt, NULL, LAT_FIELDS, N_LAT);
        latency_rows(t, &r, &a, have_a);
        out_table_end(t, stdout, 0);
        printf("\n");
        table_record(v);
    }
    sim_result_release(&r);
    return rc;
}

static int
run_max_rate(const struct scenario *sc, const struct sim_config *cfg, enum out_fmt fmt,
             double target)
{
    struct err_list errs = {0};
    struct sim_maxrate m;
    if (sim_max_rate(cfg, target, 0.01, &m, &errs) != 0) {
        cli_print_errs(&errs);
        err_list_release(&errs);
        return CLI_FAIL;
    }
    err_list_release(&errs);
    struct out_table *t = out_table_new(fmt, NULL, PROBE_FIELDS, N_PROBE);
    for (int i = 0; i < m.n_probes; i++) {
        const struct sim_probe *p = &m.probes[i];
        struct out_value v[N_PROBE] = {
            {NULL, p->rate_per_s},        {NULL, p->slo_attainment}, {NULL, p->goodput_req_per_s},
            {NULL, p->ttft_p99_s},        {NULL, p->tpot_p99_s},     {NULL, p->e2e_p99_s},
            {p->meets ? "yes" : "no", 0},
        };
        out_table_row(t, v);
    }
    if (fmt == OUT_JSON) {
        json_head(sc, cfg);
        printf(",\n  \"policy\": ");
        out_json_string(stdout, sim_policy_name(cfg->sched.policy));
        printf(",\n  \"target\": ");
        out_json_number(stdout, target);
        printf(",\n  \"max_rate_per_s\": ");
        out_json_number(stdout, m.rate_per_s);
        printf(",\n  \"slo_attainment\": ");
        out_json_number(stdout, m.rate_per_s > 0 ? m.slo_attainment : NAN);
        printf(",\n  \"probes\": ");
        out_table_end(t, stdout, 2);
        printf("\n}\n");
    } else if (fmt == OUT_CSV) {
        out_table_end(t, stdout, 0);
    } else {
        print_header(sc, cfg, NULL);
        if (cfg->work.requests > 0)
            printf("\nprobes (Poisson arrivals, %ld requests each, seed %lu; bisection to 1%%)\n",
                   cfg->work.requests, cfg->seed);
        else
            printf("\nprobes (Poisson arrivals for %g s each, seed %lu; bisection to 1%%)\n",
                   cfg->work.duration_s, cfg->seed);
        out_table_end(t, stdout, 0);
        if (m.rate_per_s > 0)
            printf("\nmax rate: %.4g requests/s (SLO attainment %.2f%% >= target %.2f%%)\n",
                   m.rate_per_s, 100.0 * m.slo_attainment, 100.0 * target);
        else
            printf("\nmax rate: none: the SLOs are missed even at the lowest rate tried\n");
    }
    return CLI_OK;
}

struct scenario *
cli_scenario_load(const char *path, long seed, struct sim_config *cfg)
{
    struct err_list errs = {0};
    struct scenario *sc = scenario_load(path, &errs);
    cli_print_errs(&errs);
    err_list_release(&errs);
    if (!sc)
        return NULL;
    scenario_sim_config(sc, cfg);
    if (seed >= 0)
        cfg->seed = (unsigned long)seed;
    if (sc->engine && caldata_tuning(sc->hw, sc->engine, NULL, &cfg->engine.tuning, NULL) != 0) {
        scenario_free(sc);
        return NULL;
    }
    return sc;
}

static int
run(int argc, char **argv)
{
    struct cli_ctx c;
    int rc;
    if (cli_begin(&c, &cmd_simulate, 0, argc, argv, &rc) != 0)
        return rc;
    const struct cli_args *a = &c.a;
    struct scenario *sc = NULL;
    bool max_rate = cli_has(a, "max-rate");
    long seed = -1;
    double target = -1;
    rc = CLI_USAGE;
    if (!cli_has(a, "scenario")) {
        cli_usage_error(&cmd_simulate, "--scenario is required");
        goto out;
    }
    if (!max_rate && cli_has(a, "target")) {
        cli_usage_error(&cmd_simulate, "--target goes with --max-rate");
        goto out;
    }
    if (max_rate && cli_has(a, "requests-out")) {
        fprintf(stderr, "error: --requests-out writes one run's requests; it does not go with "
                        "--max-rate\n");
        goto out;
    }
    if (cli_has(a, "seed") && cli_long(a, "seed", 1, 0, &seed) != 0)
        goto out;
    if (cli_has(a, "target")) {
        char *end;
        const char *tv = cli_get(a, "target");
        target = strtod(tv, &end);
        if (end == tv || *end || !(target > 0 && target <= 1)) {
            fprintf(stderr,
                    "error: --target: expected a fraction in (0, 1] such as 0.99, got "
                    "'%s'\n",
                    tv);
            goto out;
        }
    }
    struct sim_config cfg;
    rc = CLI_FAIL;
    sc = cli_scenario_load(cli_get(a, "scenario"), seed, &cfg);
    if (!sc)
        goto out;
    if (max_rate) {
        if (!sc->has_slo) {
            fprintf(stderr, "error: --max-rate needs an 'slo' section in the scenario (%s)\n",
                    sc->path);
            goto out;
        }
        rc = run_max_rate(sc, &cfg, c.fmt, target > 0 ? target : cfg.slo.target);
    } else {
        rc = run_once(sc, &cfg, c.fmt, cli_get(a, "requests-out"));
    }
out:
    scenario_free(sc);
    return cli_end(&c, rc);
}

const struct cli_cmd cmd_simulate = {
    "simulate",
    "serving simulation: TTFT, ITL, E2E percentiles, throughput, goodput; --max-rate for SLOs",
    "roofline simulate --scenario FILE [--seed N] [-o table|csv|json] [--requests-out FILE]\n"
    "       roofline simulate --scenario FILE --max-rate [--target 0.99] [--seed N]\n"
    "         [-o table|csv|json]",
    run, CLI_OPTS(SPEC)};
