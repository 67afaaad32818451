/* roofline list gpus|models: one line per shipped profile. */
#include "cli/cli.h"
#include "cli/out.h"
#include "io/profiles.h"

#include <math.h>
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

static int
run(int argc, char **argv)
{
    static const struct cli_opt spec[] = {{"output", true}};
    struct cli_args a;
    const char *usage = cmd_list.usage;
    int pr = cli_parse(&a, spec, 1, argc, argv, usage);
    if (pr != 0)
        return pr > 0 ? cli_finish(CLI_OK) : CLI_USAGE;
    enum out_fmt fmt = OUT_TABLE;
    if (cli_has(&a, "output") && out_parse_fmt(cli_get(&a, "output"), &fmt) != 0) {
        fprintf(stderr, "error: -o: expected table, csv or json\n");
        return CLI_USAGE;
    }
    if (a.n_pos != 1 || (strcmp(a.pos[0], "gpus") != 0 && strcmp(a.pos[0], "models") != 0)) {
        fprintf(stderr, "error: say what to list: 'gpus' or 'models'\nusage: %s\n", usage);
        return CLI_USAGE;
    }
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
    for (int i = 0; i < n; i++) {
        if (gpus) {
            struct hw_profile *hw = cli_load_hw(ids[i]);
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
            struct mdl_profile *m = cli_load_model(ids[i]);
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
    return cli_finish(failed ? CLI_FAIL : CLI_OK);
}

const struct cli_cmd cmd_list = {"list", "list the shipped GPU or model profiles",
                                 "roofline list gpus|models [-o table|csv|json]", run};
