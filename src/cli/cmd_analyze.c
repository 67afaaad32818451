/* roofline analyze: prefill and/or decode in a few lines (phase times, tokens/s, bound, memory,
 * top operators); --ops, CSV and JSON give the per-operator table and every summary field. */
#include "cli/caldata.h"
#include "cli/cli.h"
#include "cli/fit_advice.h"
#include "cli/out.h"
#include "cli/report_parts.h"
#include "io/profiles.h"
#include "util/array.h"
#include "util/units.h"

#include <math.h>
#include <string.h>

/* Stable field names: docs/output.md */
static const struct out_field OP_FIELDS[] = {
    {"phase", NULL, OUT_SHOW_TEXT, 0, false},
    {"op", NULL, OUT_SHOW_TEXT, 0, false},
    {"instances", "n", OUT_SHOW_NUM, 0, false},
    {"flops", "FLOPs", OUT_SHOW_FLOPS, 0, false},
    {"bytes_weights", "weights", OUT_SHOW_BYTES, 0, false},
    {"bytes_act_in", "act in", OUT_SHOW_BYTES, 0, true},
    {"bytes_act_out", "act out", OUT_SHOW_BYTES, 0, true},
    {"bytes_act", "act", OUT_SHOW_BYTES, 0, false},
    {"bytes_kv_read", "KV read", OUT_SHOW_BYTES, 0, false},
    {"bytes_kv_write", "KV write", OUT_SHOW_BYTES, 0, false},
    {"bytes", NULL, OUT_SHOW_BYTES, 0, true},
    {"intensity_flop_per_byte", "FLOP/B", OUT_SHOW_SIG, 0, false},
    {"roof", NULL, OUT_SHOW_TEXT, 0, false},
    {"peak_flops_per_s", NULL, OUT_SHOW_RATE, 0, true},
    {"compute_time_s", "t_compute", OUT_SHOW_TIME, 0, false},
    {"memory_time_s", "t_memory", OUT_SHOW_TIME, 0, false},
    {"time_s", "time", OUT_SHOW_TIME, 0, false},
    {"time_share", "share", OUT_SHOW_PCT, 1, false},
    {"bound", NULL, OUT_SHOW_TEXT, 0, false},
    {"bound_ratio", "by", OUT_SHOW_SIG, 0, false},
    {"dequant_flops", NULL, OUT_SHOW_FLOPS, 0, true},
    {"link_bytes", NULL, OUT_SHOW_BYTES, 0, true},
    {"link_time_s", NULL, OUT_SHOW_TIME, 0, true},
};
#define N_OP_FIELDS ((int)ARRAY_SIZE(OP_FIELDS))

static const struct out_field SUM_FIELDS[] = {
    {"phase", NULL, OUT_SHOW_TEXT, 0, false},
    {"gpu", NULL, OUT_SHOW_TEXT, 0, false},
    {"model", NULL, OUT_SHOW_TEXT, 0, false},
    {"batch", NULL, OUT_SHOW_NUM, 0, false},
    {"prompt", NULL, OUT_SHOW_NUM, 0, false},
    {"context", NULL, OUT_SHOW_NUM, 0, false},
    {"weights", "weights format", OUT_SHOW_TEXT, 0, false},
    {"act", "activations format", OUT_SHOW_TEXT, 0, false},
    {"kv", "KV format", OUT_SHOW_TEXT, 0, false},
    {"flash_attention", "flash attention", OUT_SHOW_TEXT, 0, false},
    {"tokens", "tokens in pass", OUT_SHOW_NUM, 0, false},
    {"flops", "FLOPs", OUT_SHOW_FLOPS, 0, false},
    {"bytes", "bytes moved", OUT_SHOW_BYTES, 0, false},
    {"bytes_weights", "  weights", OUT_SHOW_BYTES, 0, false},
    {"bytes_kv", "  KV cache", OUT_SHOW_BYTES, 0, false},
    {"bytes_act", "  activations", OUT_SHOW_BYTES, 0, false},
    {"intensity_flop_per_byte", "intensity FLOP/B", OUT_SHOW_NUM, 2, false},
    {"gemm_roof", "GEMM roof", OUT_SHOW_TEXT, 0, false},
    {"gemm_peak_flops_per_s", "GEMM peak", OUT_SHOW_RATE, 0, false},
    {"bandwidth_bytes_per_s", "bandwidth", OUT_SHOW_BW, 0, false},
    {"ridge_flop_per_byte", "ridge FLOP/B", OUT_SHOW_NUM, 1, false},
    {"compute_time_s", "sum t_compute", OUT_SHOW_TIME, 0, false},
    {"memory_time_s", "sum t_memory", OUT_SHOW_TIME, 0, false},
    {"time_s", "pass time", OUT_SHOW_TIME, 0, false},
    {"ttft_s", "TTFT", OUT_SHOW_TIME, 0, false},
    {"itl_s", "ITL", OUT_SHOW_TIME, 0, false},
    {"tokens_per_s_per_seq", "tokens/s per seq", OUT_SHOW_NUM, 1, false},
    {"tokens_per_s_total", "tokens/s total", OUT_SHOW_NUM, 1, false},
    {"bound", NULL, OUT_SHOW_TEXT, 0, false},
    {"compute_utilisation", "compute util", OUT_SHOW_PCT, 1, false},
    {"bandwidth_utilisation", "bandwidth util", OUT_SHOW_PCT, 1, false},
    {"mem_weights_bytes", "mem weights", OUT_SHOW_BYTES, 0, false},
    {"mem_kv_bytes", "mem KV cache", OUT_SHOW_BYTES, 0, false},
    {"mem_act_bytes", "mem activations", OUT_SHOW_BYTES, 0, false},
    {"mem_total_bytes", "mem total", OUT_SHOW_BYTES, 0, false},
    {"mem_capacity_bytes", "mem capacity", OUT_SHOW_BYTES, 0, false},
    {"fits", NULL, OUT_SHOW_TEXT, 0, false},
    {"kv_bytes_per_token", "KV per token", OUT_SHOW_BYTES, 0, false},
    {"max_batch", "max batch (fits)", OUT_SHOW_NUM, 0, false},
    {"critical_batch", "critical batch", OUT_SHOW_NUM, 1, false},
    {"prefill_crossover_prompt", "prefill compute-bound from", OUT_SHOW_NUM, 0, false},
    {"tp", NULL, OUT_SHOW_NUM, 0, false},
    {"ep", NULL, OUT_SHOW_NUM, 0, false},
    {"attn_dp", NULL, OUT_SHOW_NUM, 0, false},
    {"pp", NULL, OUT_SHOW_NUM, 0, false},
    {"replicas", NULL, OUT_SHOW_NUM, 0, false},
    {"link_time_s", "time on links", OUT_SHOW_TIME, 0, false},
    {"pp_bubble_fraction", "pipeline idle", OUT_SHOW_PCT, 0, false},
    {"tokens_per_s_all_replicas", "tokens/s all replicas", OUT_SHOW_NUM, 1, false},
    {"reserve_bytes", "engine reserve", OUT_SHOW_BYTES, 0, false},
    {"engine", NULL, OUT_SHOW_TEXT, 0, false},
    {"time_band_low_s", "80% band low", OUT_SHOW_TIME, 0, false},
    {"time_band_high_s", "80% band high", OUT_SHOW_TIME, 0, false},
};
#define N_SUM_FIELDS ((int)ARRAY_SIZE(SUM_FIELDS))

static void
op_row(struct out_table *t, const char *phase, const char *name, const struct roof_op_result *o,
       double phase_time)
{
    double bytes = roof_op_bytes(o);
    bool compute = o->compute_time_s >= o->memory_time_s;
    double lo = compute ? o->memory_time_s : o->compute_time_s;
    double hi = compute ? o->compute_time_s : o->memory_time_s;
    struct out_value v[N_OP_FIELDS] = {
        {phase, 0},
        {name, 0},
        {NULL, o->instances},
        {NULL, o->flops},
        {NULL, o->bytes_weights},
        {NULL, o->bytes_act_in},
        {NULL, o->bytes_act_out},
        {NULL, o->bytes_act_in + o->bytes_act_out},
        {NULL, o->bytes_kv_read},
        {NULL, o->bytes_kv_write},
        {NULL, bytes},
        {NULL, roof_op_intensity(o)},
        {o->flops > 0 ? dtype_name(o->roof_dtype) : "-", 0},
        {NULL, o->peak_flops_per_s},
        {NULL, o->compute_time_s},
        {NULL, o->memory_time_s},
        {NULL, o->time_s},
        {NULL, o->time_s / phase_time},
        {rp_op_bound(o), 0},
        {NULL, o->link_time_s > 0 ? NAN
               : lo > 0           ? hi / lo
                                  : INFINITY},
        {NULL, o->dequant_flops},
        {NULL, o->link_bytes},
        {NULL, o->link_time_s},
    };
    out_table_row(t, v);
}

static void
fill_summary(const struct roof_result *r, struct out_value *v, double crit, double cross,
             long max_batch, const char *engine, const double band[2])
{
    const struct roof_config *c = &r->cfg;
    double bw = c->hw->memory_bandwidth_bytes_per_s;
    bool pre = c->phase == ROOF_PREFILL;
    struct out_value vals[N_SUM_FIELDS] = {
        {roof_phase_name(c->phase), 0},
        {c->hw->id, 0},
        {c->model->id, 0},
        {NULL, c->batch},
        {NULL, pre ? c->prompt : NAN},
        {NULL, pre ? NAN : c->context},
        {dtype_name(c->weights), 0},
        {dtype_name(c->act), 0},
        {dtype_name(c->kv), 0},
        {roof_flash_attention(c) ? "on" : "off", 0},
        {NULL, r->tokens},
        {NULL, r->flops},
        {NULL, r->bytes},
        {NULL, r->bytes_weights},
        {NULL, r->bytes_kv},
        {NULL, r->bytes_act},
        {NULL, r->flops / r->bytes},
        {dtype_name(r->gemm_dtype), 0},
        {NULL, r->gemm_peak_flops_per_s},
        {NULL, bw},
        {NULL, r->gemm_peak_flops_per_s / bw},
        {NULL, r->compute_time_s},
        {NULL, r->memory_time_s},
        {NULL, r->time_s},
        {NULL, pre ? r->ttft_s : NAN},
        {NULL, pre ? NAN : r->itl_s},
        {NULL, r->tokens_per_s_per_seq},
        {NULL, r->tokens_per_s_total},
        {roof_bound_name(r->bound), 0},
        {NULL, r->compute_utilisation},
        {NULL, r->bytes / (bw * r->time_s)},
        {NULL, r->mem.weights_bytes},
        {NULL, r->mem.kv_bytes},
        {NULL, r->mem.act_bytes},
        {NULL, r->mem.total_bytes},
        {NULL, r->mem.capacity_bytes},
        {r->mem.fits ? "yes" : "no", 0},
        {NULL, r->mem.kv_bytes_per_token},
        {NULL, (double)max_batch},
        {NULL, crit},
        {NULL, cross},
        {NULL, (double)(c->tp > 0 ? c->tp : 1)},
        {NULL, (double)(c->ep > 1 ? c->ep : 1)},
        {NULL, (double)(c->attn_dp > 1 ? c->attn_dp : 1)},
        {NULL, (double)(c->pp > 0 ? c->pp : 1)},
        {NULL, (double)r->replicas},
        {NULL, r->link_time_s},
        {NULL, r->pp_bubble_fraction},
        {NULL, r->tokens_per_s_all_replicas},
        {NULL, r->mem.reserve_bytes},
        {engine ? engine : "datasheet", 0},
        {NULL, band ? r->time_s * exp(band[0]) : NAN},
        {NULL, band ? r->time_s * exp(band[1]) : NAN},
    };
    memcpy(v, vals, sizeof vals);
}

/* The default human output: the answer in a few lines (docs/output.md#roofline-analyze). */
struct short_phase {
    bool have;
    struct roof_result r;
    const double *band;
    long max_batch;
};

static const char *
fmt_short(double v, const char *unit, char *buf, size_t size)
{
    unit_format_short(v, unit, 3, buf, size);
    return buf;
}

static void
top_ops(const struct roof_result *r, char *buf, size_t size)
{
    int idx[ROOF_OP_COUNT];
    int n = rp_ops_by_time(r, idx);
    size_t used = 0;
    buf[0] = '\0';
    for (int k = 0; k < n && k < 3 && used < size; k++) {
        const struct roof_op_result *o = &r->ops[idx[k]];
        int w = snprintf(buf + used, size - used, "%s%s %.0f%% (%s)", k ? ", " : "",
                         roof_op_name((enum roof_op)idx[k]), 100 * o->time_s / r->time_s,
                         rp_op_bound(o));
        if (w < 0)
            break;
        used += (size_t)w;
    }
}

static void
band_str(const double *band, double t, char *buf, size_t size)
{
    buf[0] = '\0';
    if (!band)
        return;
    char a[32], b[32];
    unit_format_time(t * exp(band[0]), 3, a, sizeof a);
    unit_format_time(t * exp(band[1]), 3, b, sizeof b);
    snprintf(buf, size, ", 80%% band %s .. %s", a, b);
}

static void
print_short(const struct roof_config *base, const struct short_phase *ph, const char *engine,
            bool engine_named)
{
    const struct roof_config *c = base;
    int tp = c->tp > 0 ? c->tp : 1, pp = c->pp > 0 ? c->pp : 1;
    char par[96] = "", extra[64];
    roof_parallel_extras(c, true, extra, sizeof extra);
    if (tp > 1 || pp > 1 || extra[0])
        snprintf(par, sizeof par, " (TP %d%s, PP %d)", tp, extra, pp);
    bool marlin = roof_moe_marlin(c);
    printf("%s on %s%s: batch %.0f, prompt %.0f, context %.0f, weights %s, activations %s, KV "
           "%s%s%s%s\n",
           c->model->id, c->hw->id, par, c->batch, c->prompt, c->context, dtype_name(c->weights),
           dtype_name(c->act), dtype_name(c->kv), engine ? ", engine " : "", engine ? engine : "",
           marlin ? ", experts through Marlin" : "");
    cli_engine_line(stdout, engine, engine_named);
    printf("\n");
    char a[48], b[48], band[96];
    const struct roof_result *r = NULL;
    if (ph[0].have) {
        r = &ph[0].r;
        band_str(ph[0].band, r->ttft_s, band, sizeof band);
        unit_format_time(r->ttft_s, 3, a, sizeof a);
        printf("prefill  TTFT %s%s, %s prompt tokens/s, %s-bound (%.3g FLOP/B, ridge %.0f)\n", a,
               band, fmt_short(r->tokens_per_s_total, "", b, sizeof b), roof_bound_name(r->bound),
               r->flops / r->bytes, r->gemm_peak_flops_per_s / c->hw->memory_bandwidth_bytes_per_s);
    }
    if (ph[1].have) {
        r = &ph[1].r;
        band_str(ph[1].band, r->itl_s, band, sizeof band);
        unit_format_time(r->itl_s, 3, a, sizeof a);
        printf("decode   ITL %s%s, %.1f tokens/s per sequence, %.1f in all", a, band,
               r->tokens_per_s_per_seq, r->tokens_per_s_total);
        if (r->replicas > 1)
            printf(" (%.1f over %d replicas)", r->tokens_per_s_all_replicas, r->replicas);
        printf(", %s-bound (%.3g FLOP/B)\n", roof_bound_name(r->bound), r->flops / r->bytes);
    }
    const struct short_phase *mp = ph[1].have ? &ph[1] : &ph[0];
    const struct roof_memory *m = &mp->r.mem;
    char w[32], kv[32], act[32], res[32], tot[32], cap[32];
    printf("memory   %s of %s per device: %s (weights %s, KV cache %s, activations %s, engine "
           "reserve %s)",
           fmt_short(m->total_bytes, "B", tot, sizeof tot),
           fmt_short(m->capacity_bytes, "B", cap, sizeof cap), m->fits ? "fits" : "DOES NOT FIT",
           fmt_short(m->weights_bytes, "B", w, sizeof w),
           fmt_short(m->kv_bytes, "B", kv, sizeof kv),
           fmt_short(m->act_bytes, "B", act, sizeof act),
           fmt_short(m->reserve_bytes, "B", res, sizeof res));
    if (m->fits)
        printf("; at most %ld sequences of this %s fit", mp->max_batch,
               ph[1].have ? "context" : "prompt");
    printf("\n");
    if (!m->fits)
        fprintf(stderr, "warning: %s does not fit in %s on %s\n", tot, cap, c->hw->id);
    printf("\ntop operators\n");
    char ops[512];
    for (int p = 0; p < 2; p++) {
        if (!ph[p].have)
            continue;
        top_ops(&ph[p].r, ops, sizeof ops);
        printf("  %-8s %s\n", p == 0 ? "prefill" : "decode", ops);
    }
    printf("\nevery operator and field: add --ops (or -o csv, -o json)\n");
}

static const struct cli_opt OPTS[] = {
    OPT_VALUE("gpu", "ID|PATH", "the device: a profile id (roofline list gpus) or a YAML file"),
    OPT_VALUE("model", "ID|PATH", "the model: a profile id (roofline list models) or a YAML file"),
    OPT_VALUE("phase", "prefill|decode", "one phase only (default both)"),
    CLI_ENGINE_OPTS,
    OPT_FLAG("bands", "the engine's calibrated 10th..90th percentile band of the time"),
    OPT_FLAG("ops", "the per-operator table and every field (table output is a short summary)"),
    CLI_OPT_FORMAT,
};

static int run(int argc, char **argv);

const struct cli_cmd cmd_analyze = {
    "analyze", "per-operator FLOPs, bytes, intensity, bound and time; TTFT, ITL, memory",
    "roofline analyze --gpu ID|PATH --model ID|PATH [options]", run, CLI_OPTS(OPTS)};

static int
run(int argc, char **argv)
{
    struct cli_ctx c;
    int rc;
    if (cli_begin(&c, &cmd_analyze, CLI_GPU_MODEL, argc, argv, &rc) != 0)
        return rc;
    enum out_fmt fmt = c.fmt;
    const struct hw_profile *hw = c.hw;
    const struct mdl_profile *m = c.model;
    struct roof_config base;
    roof_config_init(&base, hw, m, ROOF_DECODE);
    if ((rc = cli_engine_opts(&c.a, &base)) != 0)
        goto out;
    double bands[PRED_PHASE_COUNT][2] = {{0}};
    bool want_bands = cli_has(&c.a, "bands");
    if (want_bands) {
        if (!cli_engine(&c.a, hw)) {
            fprintf(stderr, "error: --bands needs an engine, not the datasheet roofline (the "
                            "bands come from calibrating an engine's predictions)\n");
            rc = CLI_USAGE;
            goto out;
        }
        struct roof_tuning tu;
        if (caldata_tuning(hw, cli_engine(&c.a, hw), NULL, &tu, bands) != 0) {
            rc = CLI_FAIL;
            goto out;
        }
    }
    enum roof_phase phases[2] = {ROOF_PREFILL, ROOF_DECODE};
    int n_phases = 2, first = 0;
    if (cli_has(&c.a, "phase")) {
        first = base.phase == ROOF_PREFILL ? 0 : 1;
        n_phases = 1;
    }
    if (fmt == OUT_JSON)
        printf("{\n  \"tool\": \"roofline\",\n  \"gpu\": \"%s\",\n  \"model\": \"%s\",\n  "
               "\"phases\": [",
               hw->id, m->id);
    struct out_table *ops_csv =
        fmt == OUT_CSV ? out_table_new(fmt, NULL, OP_FIELDS, N_OP_FIELDS) : NULL;
    rc = CLI_OK;
    bool full = fmt != OUT_TABLE || cli_has(&c.a, "ops");
    struct short_phase sp[2];
    memset(sp, 0, sizeof sp);
    for (int p = first; p < first + n_phases; p++) {
        struct roof_config cfg = base;
        cfg.phase = phases[p];
        struct roof_result r;
        if (roof_evaluate(&cfg, &r) != 0) {
            fprintf(stderr, "error: cannot evaluate this configuration\n");
            rc = CLI_FAIL;
            break;
        }
        double crit = NAN, cross = NAN;
        if (roof_critical_batch(&cfg, &crit) < 0)
            crit = NAN;
        if (roof_prefill_crossover(&cfg, &cross) < 0)
            cross = NAN;
        long max_batch = roof_max_batch(&cfg);
        const char *ph = roof_phase_name(cfg.phase);
        if (!full) {
            int bi = cfg.phase == ROOF_DECODE ? 0 : 1;
            sp[p].have = true;
            sp[p].r = r;
            sp[p].max_batch = max_batch;
            if (want_bands && (bands[bi][0] != 0 || bands[bi][1] != 0))
                sp[p].band = bands[bi];
            else if (want_bands)
                fprintf(stderr, "warning: no calibrated band for %s on this device class\n", ph);
            continue;
        }
        struct out_table *t = ops_csv ? ops_csv : out_table_new(fmt, NULL, OP_FIELDS, N_OP_FIELDS);
        for (int i = 0; i < ROOF_OP_COUNT; i++)
            if (r.ops[i].present)
                op_row(t, ph, roof_op_name((enum roof_op)i), &r.ops[i], r.time_s);
        struct roof_op_result tot = {0};
        tot.present = true;
        tot.instances = 0;
        for (int i = 0; i < ROOF_OP_COUNT; i++) {
            const struct roof_op_result *o = &r.ops[i];
            tot.instances += o->instances;
            tot.flops += o->flops;
            tot.bytes_weights += o->bytes_weights;
            tot.bytes_act_in += o->bytes_act_in;
            tot.bytes_act_out += o->bytes_act_out;
            tot.bytes_kv_read += o->bytes_kv_read;
            tot.bytes_kv_write += o->bytes_kv_write;
            tot.compute_time_s += o->compute_time_s;
            tot.memory_time_s += o->memory_time_s;
            tot.time_s += o->time_s;
            tot.dequant_flops += o->dequant_flops;
            tot.link_bytes += o->link_bytes;
            tot.link_time_s += o->link_time_s;
        }
        tot.time_s = r.time_s;
        tot.roof_dtype = r.gemm_dtype;
        tot.peak_flops_per_s = r.gemm_peak_flops_per_s;
        op_row(t, ph, "total", &tot, r.time_s);
        struct out_value sv[N_SUM_FIELDS];
        /* bands: index 0 decode, 1 prefill (pred_phase order) */
        const double *band = NULL;
        int bi = cfg.phase == ROOF_DECODE ? 0 : 1;
        if (want_bands && (bands[bi][0] != 0 || bands[bi][1] != 0))
            band = bands[bi];
        else if (want_bands)
            fprintf(stderr, "warning: no calibrated band for %s on this device class\n", ph);
        fill_summary(&r, sv, crit, cross, max_batch, cli_engine(&c.a, hw), band);
        if (fmt == OUT_TABLE) {
            char title[512], epw[128] = "";
            int k = cfg.ep > 1 ? snprintf(epw, sizeof epw, ", experts in %d expert-parallel groups",
                                          cfg.ep)
                               : 0;
            if (cfg.attn_dp > 1)
                snprintf(epw + k, sizeof epw - (size_t)k, ", attention in %d data-parallel ranks",
                         cfg.attn_dp);
            snprintf(title, sizeof title,
                     "%s of %s on %s: batch %.0f, %s %.0f, weights %s, activations %s, KV %s%s%s",
                     ph, m->id, hw->id, cfg.batch, cfg.phase == ROOF_PREFILL ? "prompt" : "context",
                     cfg.phase == ROOF_PREFILL ? cfg.prompt : cfg.context, dtype_name(cfg.weights),
                     dtype_name(cfg.act), dtype_name(cfg.kv),
                     roof_moe_marlin(&cfg) ? ", experts through Marlin" : "", epw);
            if (p != first)
                printf("\n");
            else
                cli_engine_line(stdout, cli_engine(&c.a, hw), cli_has(&c.a, "engine"));
            printf("%s\n\n", title);
            out_table_end(t, stdout, 0);
            printf("\nsummary (%s):\n", ph);
            out_record(fmt, stdout, SUM_FIELDS, N_SUM_FIELDS, sv, 2);
            cli_fit_advice(stdout, &cfg, "");
        } else if (fmt == OUT_JSON) {
            printf("%s\n    {\n      \"summary\": ", p != first ? "," : "");
            out_record(fmt, stdout, SUM_FIELDS, N_SUM_FIELDS, sv, 6);
            printf(",\n      \"operators\": ");
            out_table_end(t, stdout, 6);
            printf("\n    }");
        }
    }
    if (!full && rc == CLI_OK)
        print_short(&base, sp, cli_engine(&c.a, hw), cli_has(&c.a, "engine"));
    if (ops_csv)
        out_table_end(ops_csv, stdout, 0);
    if (fmt == OUT_JSON)
        printf("\n  ]\n}\n");
out:
    return cli_end(&c, rc);
}
