/* roofline list gpus|models|engines: one line per shipped profile. */
#include "cli/cli.h"
#include "cli/out.h"
#include "io/measure.h"
#include "io/profiles.h"

#include <dirent.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const struct out_field GPU_FIELDS[] = {
    {"id", NULL, OUT_SHOW_TEXT, 0, false},
    {"name", NULL, OUT_SHOW_TEXT, 0, false},
    {"memory_bytes", "memory", OUT_SHOW_BYTES, 0, false},
    {"bandwidth_bytes_per_s", "bandwidth", OUT_SHOW_BW, 0, false},
    {"fp16_flops_per_s", "fp16 peak", OUT_SHOW_RATE, 0, false},
    {"ridge_fp16_flop_per_byte", "ridge fp16", OUT_SHOW_NUM, 0, false},
    {"tdp_w", "TDP W", OUT_SHOW_NUM, 0, false},
    {"cloud_usd_per_device_hour_min", "min $/dev-h", OUT_SHOW_NUM, 2, false},
    {"purchase_usd_min", "min buy $", OUT_SHOW_NUM, 0, false},
};
#define N_GPU_FIELDS (int)(sizeof GPU_FIELDS / sizeof GPU_FIELDS[0])

/* The lowest rental per device-hour and the lowest purchase price of a profile; NAN when none. */
static double
cheapest_cloud(const struct hw_profile *hw)
{
    double best = NAN;
    for (int i = 0; i < hw->n_cloud; i++)
        if (isnan(best) || hw->cloud[i].usd_per_hour < best)
            best = hw->cloud[i].usd_per_hour;
    return best;
}

static double
cheapest_purchase(const struct hw_profile *hw)
{
    double best = NAN;
    for (int i = 0; i < hw->n_purchase; i++)
        if (isnan(best) || hw->purchase[i].usd < best)
            best = hw->purchase[i].usd;
    return best;
}

static const struct out_field MODEL_FIELDS[] = {
    {"id", NULL, OUT_SHOW_TEXT, 0, false},
    {"parameters", "params", OUT_SHOW_SIG, 0, false},
    {"active_parameters", "active", OUT_SHOW_SIG, 0, false},
    {"layers", NULL, OUT_SHOW_NUM, 0, false},
    {"hidden_size", "hidden", OUT_SHOW_NUM, 0, false},
    {"heads", NULL, OUT_SHOW_NUM, 0, false},
    {"kv_heads", "kv heads", OUT_SHOW_NUM, 0, false},
    {"attention", NULL, OUT_SHOW_TEXT, 0, false},
    {"kv_bytes_per_token_fp16", "KV/token fp16", OUT_SHOW_BYTES, 0, false},
};

static const char *
attention_kind(const struct mdl_profile *m)
{
    if (mdl_is_mla(m))
        return "MLA";
    if (m->num_kv_heads == 1)
        return "MQA";
    if (m->num_kv_heads < m->num_heads)
        return "GQA";
    return "MHA";
}

static const struct out_field ENGINE_FIELDS[] = {
    {"id", NULL, OUT_SHOW_TEXT, 0, false},
    {"default", NULL, OUT_SHOW_TEXT, 0, false},
    {"kernel_overhead_s", "per kernel", OUT_SHOW_TIME, 0, false},
    {"step_overhead_s", "per step", OUT_SHOW_TIME, 0, false},
    {"memory_efficiency", "memory x", OUT_SHOW_NUM, 3, false},
    {"compute_efficiency", "compute x", OUT_SHOW_NUM, 3, false},
    {"admission", NULL, OUT_SHOW_TEXT, 0, false},
    {"max_batch", "max batch", OUT_SHOW_NUM, 0, false},
    {"reserve_fraction", "reserve", OUT_SHOW_PCT, 0, false},
    {"token_overhead_s", "per token", OUT_SHOW_TIME, 0, false},
    {"attn_dp", "attn dp", OUT_SHOW_TEXT, 0, false},
};
#define N_ENGINE_FIELDS (int)(sizeof ENGINE_FIELDS / sizeof ENGINE_FIELDS[0])

/* By file name, NAME.yaml (the listing's order: vllm-v0 before vllm). */
static int
cmp_file(const void *x, const void *y)
{
    char a[300], b[300];
    snprintf(a, sizeof a, "%s.yaml", *(char *const *)x);
    snprintf(b, sizeof b, "%s.yaml", *(char *const *)y);
    return strcmp(a, b);
}

/* The engine profiles (engine_profiles/NAME.yaml): the names --engine takes. */
static int
list_engines(enum out_fmt fmt)
{
    char dir[PATH_MAX];
    snprintf(dir, sizeof dir, "%s/engine_profiles", prof_data_dir());
    char **names;
    int n = prof_list(PROF_ENGINE, &names);
    if (n < 0) {
        fprintf(stderr, "error: cannot read engine profiles in '%s'\n", dir);
        return CLI_FAIL;
    }
    qsort(names, (size_t)n, sizeof names[0], cmp_file);
    struct out_table *t = out_table_new(fmt, NULL, ENGINE_FIELDS, N_ENGINE_FIELDS);
    int failed = 0;
    for (int i = 0; i < n; i++) {
        char path[PATH_MAX + 300];
        snprintf(path, sizeof path, "%s/%s.yaml", dir, names[i]);
        struct err_list errs = {0};
        struct engine_profile *ep = engine_load(path, &errs);
        failed += cli_print_errs(&errs) > 0 || !ep;
        err_list_release(&errs);
        if (ep) {
            const struct engine_serving *sv = &ep->serving;
            struct out_value v[N_ENGINE_FIELDS] = {
                {ep->name, 0},
                {strcmp(ep->name, CLI_DEFAULT_ENGINE) == 0 ? "yes" : "", 0},
                {NULL, ep->kernel_overhead_s},
                {NULL, ep->step_overhead_s > 0 ? ep->step_overhead_s : NAN},
                {NULL, ep->memory_efficiency},
                {NULL, ep->compute_efficiency},
                {sv->admission[0] ? sv->admission : "", 0},
                {NULL, sv->max_batch > 0 ? (double)sv->max_batch : NAN},
                {NULL, sv->reserve_fraction >= 0 ? sv->reserve_fraction : NAN},
                {NULL, ep->token_overhead_s > 0 ? ep->token_overhead_s : NAN},
                {sv->attn_dp[0] ? sv->attn_dp : "total", 0}};
            out_table_row(t, v);
            engine_profile_free(ep);
        }
    }
    prof_list_free(names, n);
    out_table_end(t, stdout, 0);
    if (fmt == OUT_JSON)
        putchar('\n');
    if (fmt == OUT_TABLE)
        printf("\n--engine NAME picks one (default " CLI_DEFAULT_ENGINE
               "); --engine datasheet is the "
               "pure roofline. Memory and compute multiply the device class's fractions "
               "(docs/calibration.md).\n");
    return cli_finish(failed ? CLI_FAIL : CLI_OK);
}

static const struct cli_opt OPTS[] = {CLI_OPT_FORMAT};

static int run(int argc, char **argv);

const struct cli_cmd cmd_list = {"list", "list the shipped GPU, model or engine profiles",
                                 "roofline list gpus|models|engines [-o table|csv|json]", run,
                                 CLI_OPTS(OPTS)};

static int
run(int argc, char **argv)
{
    struct cli_ctx c;
    int rc;
    if (cli_begin(&c, &cmd_list, CLI_POSITIONAL, argc, argv, &rc) != 0)
        return rc;
    const struct cli_args a = c.a;
    enum out_fmt fmt = c.fmt;
    if (a.n_pos == 1 && strcmp(a.pos[0], "engines") == 0)
        return list_engines(fmt);
    if (a.n_pos != 1 || (strcmp(a.pos[0], "gpus") != 0 && strcmp(a.pos[0], "models") != 0))
        return cli_usage_error(&cmd_list, "say what to list: 'gpus', 'models' or 'engines'");
    bool gpus = strcmp(a.pos[0], "gpus") == 0;
    char **ids;
    int n = prof_list(gpus ? PROF_HARDWARE : PROF_MODEL, &ids);
    if (n < 0) {
        fprintf(stderr, "error: cannot read profiles in '%s'\n", prof_data_dir());
        return CLI_FAIL;
    }
    struct out_table *t = gpus ? out_table_new(fmt, NULL, GPU_FIELDS, N_GPU_FIELDS)
                               : out_table_new(fmt, NULL, MODEL_FIELDS, 9);
    int failed = 0;
    char path[PATH_MAX + 64];
    const char *sub = gpus ? "hardware_profiles" : "model_profiles";
    for (int i = 0; i < n; i++) {
        /* by path: a broken or dangling file is reported as itself, not as an unknown id */
        snprintf(path, sizeof path, "%s/%s/%s.yaml", prof_data_dir(), sub, ids[i]);
        if (gpus) {
            struct hw_profile *hw = cli_load_hw(path);
            if (!hw) {
                failed++;
                continue;
            }
            double fp16 = hw_peak(hw, DT_FP16, NULL);
            struct out_value v[N_GPU_FIELDS] = {{hw->id, 0},
                                                {hw->name, 0},
                                                {NULL, hw->memory_capacity_bytes},
                                                {NULL, hw->memory_bandwidth_bytes_per_s},
                                                {NULL, fp16},
                                                {NULL, hw_ridge(hw, DT_FP16)},
                                                {NULL, hw->tdp_w > 0 ? hw->tdp_w : NAN},
                                                {NULL, cheapest_cloud(hw)},
                                                {NULL, cheapest_purchase(hw)}};
            out_table_row(t, v);
            hw_free(hw);
        } else {
            struct mdl_profile *m = cli_load_model(path);
            if (!m) {
                failed++;
                continue;
            }
            struct mdl_params p;
            mdl_param_count(m, &p);
            struct out_value v[9] = {{m->id, 0},
                                     {NULL, p.total},
                                     {NULL, p.active},
                                     {NULL, (double)m->num_layers},
                                     {NULL, (double)m->hidden_size},
                                     {NULL, (double)m->num_heads},
                                     {NULL, (double)m->num_kv_heads},
                                     {attention_kind(m), 0},
                                     {NULL, mdl_kv_bytes_per_token(m, 2.0)}};
            out_table_row(t, v);
            mdl_free(m);
        }
    }
    out_table_end(t, stdout, 0);
    if (fmt == OUT_JSON)
        putchar('\n');
    prof_list_free(ids, n);
    if (failed)
        fprintf(stderr, "error: %d of %d profiles in '%s/%s' did not load (see above)\n", failed, n,
                prof_data_dir(), sub);
    return cli_finish(failed ? CLI_FAIL : CLI_OK);
}
