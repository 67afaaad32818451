/* roofline validate: `--host` predicts the host benchmark's kernels and the small transformer's
 * prefill and decode from a host hardware profile with the engine, and compares them with the
 * measured times (run here, or read from `roofline bench -o json`). `--measurements FILE`
 * (published measurements) is cli_validate_measurements in cmd_calibrate.c. */
#include "bench/bench.h"
#include "bench/predict.h"
#include "bench/report.h"
#include "cli/cli.h"
#include "cli/out.h"
#include "cli/report_parts.h"
#include "io/profiles.h"
#include "io/ytree.h"
#include "util/array.h"
#include "util/units.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define HOST_OPTS                                                                                  \
    OPT_FLAG("host", "predict this machine's kernels and compare with a measurement"),             \
        OPT_VALUE("profile", "FILE", "the host's hardware profile (default: from the benchmark)"), \
        OPT_VALUE("bench", "FILE", "a bench -o json report instead of measuring now"),             \
        OPT_FLAG("quick", "measure with fewer and shorter samples"),                               \
        OPT_VALUE("threads", "N", "worker threads when measuring"),                                \
        OPT_VALUE("model", "ID|PATH", "the model of the LLM kernels (default bench-small)")
static const struct cli_opt HOST_OPTS_TABLE[] = {HOST_OPTS, CLI_OPT_FORMAT};
/* the usage of both modes lists both modes' options */
static const struct cli_opt ALL_OPTS[] = {HOST_OPTS, CLI_OPT_MEASUREMENTS, CLI_OPT_PARAMS,
                                          CLI_OPT_FORMAT};

static int run(int argc, char **argv);
static int validate_host(int argc, char **argv);

const struct cli_cmd cmd_validate = {
    "validate",
    "predict measurements and report the errors: --host (this machine, docs/bench.md) "
    "or --measurements FILE (docs/calibration.md)",
    "roofline validate --host [--profile FILE] [--bench FILE] [options]\n"
    "       roofline validate --measurements FILE [--params DIR] [-o table|csv|json]",
    run, CLI_OPTS(ALL_OPTS)};

static const struct cli_cmd validate_host_cmd = {
    "validate", "predict this host's kernels and report the errors",
    "roofline validate --host [--profile FILE] [--bench FILE] [options]", validate_host,
    CLI_OPTS(HOST_OPTS_TABLE)};

static const struct out_field ROW_FIELDS[] = {
    {"id", NULL, OUT_SHOW_TEXT, 0, false},
    {"phase", NULL, OUT_SHOW_TEXT, 0, false},
    {"predicted", NULL, OUT_SHOW_TIME, 0, false},
    {"measured", NULL, OUT_SHOW_TIME, 0, false},
    {"error_pct", "error %", OUT_SHOW_NUM, 1, false},
    {"reason", NULL, OUT_SHOW_TEXT, 0, false},
};
static const struct out_field SUM_FIELDS[] = {
    {"class", NULL, OUT_SHOW_TEXT, 0, false},
    {"cases", NULL, OUT_SHOW_NUM, 0, false},
    {"median_abs_error_pct", "median |error| %", OUT_SHOW_NUM, 1, false},
    {"p90_abs_error_pct", "P90 |error| %", OUT_SHOW_NUM, 1, false},
    {"mean_error_pct", "mean error %", OUT_SHOW_NUM, 1, false},
};
#define NF(a) ((int)(ARRAY_SIZE(a)))

/* ---- reading a bench JSON report ---- */

static double
num_at(const struct ynode *map, const char *key)
{
    const struct ynode *n = map ? ynode_get(map, key) : NULL;
    double v;
    if (!n || n->kind != YNODE_SCALAR || ynode_double(n, &v) != 0)
        return NAN;
    return v;
}

static void
str_at(const struct ynode *map, const char *key, char *buf, size_t size)
{
    const struct ynode *n = map ? ynode_get(map, key) : NULL;
    snprintf(buf, size, "%s", n && n->kind == YNODE_SCALAR && n->value ? n->value : "");
}

static long
long_at(const struct ynode *map, const char *key)
{
    double v = num_at(map, key);
    return isfinite(v) ? (long)v : 0;
}

/* The parts of a report that validate needs: host, roofs, cases with their measured times.
 * Returns 0, or -1 after printing a positioned error. */
int
read_bench_json(const char *path, struct bench_report *r)
{
    struct err_list errs = {0};
    struct ynode *root = ynode_load(path, &errs);
    if (!root) {
        cli_print_errs(&errs);
        err_list_release(&errs);
        return -1;
    }
    err_list_release(&errs);
    int rc = -1;
    const struct ynode *cases = ynode_get(root, "cases"), *roofs = ynode_get(root, "roofs");
    char tool[32], cmd[32];
    str_at(root, "tool", tool, sizeof tool);
    str_at(root, "command", cmd, sizeof cmd);
    if (root->kind != YNODE_MAP || strcmp(tool, "roofline") != 0 || strcmp(cmd, "bench") != 0 ||
        !cases || cases->kind != YNODE_SEQ || !roofs || roofs->kind != YNODE_MAP) {
        fprintf(stderr,
                "%s:%d:%d: error: not a 'roofline bench -o json' report (needs 'tool', "
                "'command', 'roofs' and 'cases')\n",
                path, root->line, root->col);
        goto out;
    }
    memset(r, 0, sizeof *r);
    str_at(root, "date", r->date, sizeof r->date);
    str_at(root, "version", r->version, sizeof r->version);
    char mode[16];
    str_at(root, "mode", mode, sizeof mode);
    r->opt.quick = strcmp(mode, "quick") == 0;
    r->threads = (int)long_at(root, "threads");
    r->pinned = (int)long_at(root, "pinned_threads");
    const struct ynode *host = ynode_get(root, "host"), *build = ynode_get(root, "build");
    str_at(host, "cpu", r->host.cpu_model, sizeof r->host.cpu_model);
    str_at(host, "vendor_id", r->host.vendor_id, sizeof r->host.vendor_id);
    str_at(host, "vendor", r->host.vendor, sizeof r->host.vendor);
    str_at(host, "cache_source", r->host.cache_source, sizeof r->host.cache_source);
    r->host.online_cpus = (int)long_at(host, "online_cpus");
    r->host.allowed_cpus = (int)long_at(host, "allowed_cpus");
    r->host.memory_bytes = num_at(host, "memory_bytes");
    r->host.llc_bytes = num_at(host, "llc_bytes");
    str_at(build, "compiler", r->host.compiler, sizeof r->host.compiler);
    str_at(build, "cflags", r->host.cflags, sizeof r->host.cflags);
    str_at(build, "isa", r->isa, sizeof r->isa);
    str_at(build, "isa_target", r->isa_target, sizeof r->isa_target);
    str_at(build, "gemm", r->gemm_impl, sizeof r->gemm_impl);
    const struct ynode *mem = ynode_get(root, "memory");
    r->array_bytes = num_at(mem, "array_bytes");
    const struct ynode *rule = mem ? ynode_get(mem, "array_at_least_4x_llc") : NULL;
    bool b = false;
    r->array_rule_met = rule && ynode_bool(rule, &b) == 0 && b;
    r->roofs.dram_bandwidth_bytes_per_s = num_at(roofs, "dram_bandwidth_bytes_per_s");
    r->roofs.triad_bandwidth_bytes_per_s = num_at(roofs, "triad_bandwidth_bytes_per_s");
    str_at(roofs, "dram_kernel", r->roofs.dram_kernel, sizeof r->roofs.dram_kernel);
    double ts = num_at(roofs, "fp32_thread_scaling");
    r->roofs.fp32_thread_scaling = isfinite(ts) && ts > 0 ? ts : 0;
    const struct ynode *ov = ynode_get(root, "overlap");
    if (ov && ov->kind == YNODE_MAP) {
        const struct ynode *g1 = ynode_get(ov, "gemv_time_s"), *gm = ynode_get(ov, "gemm_time_s");
        r->overlap_rows = long_at(ov, "rows");
        r->overlap_bytes = num_at(ov, "bytes");
        r->overlap_flops_row = num_at(ov, "flops_per_row");
        r->overlap_gemv.n_samples = r->overlap_gemm.n_samples = 1;
        r->overlap_gemv.s.min = g1 ? num_at(g1, "min") : NAN;
        r->overlap_gemm.s.min = gm ? num_at(gm, "min") : NAN;
        const struct ynode *ga = ynode_get(ov, "attention_time_s");
        double ab = num_at(ov, "attention_bytes"), at = ga ? num_at(ga, "min") : NAN;
        if (isfinite(ab) && ab > 0 && isfinite(at) && at > 0) {
            r->attn_core_bytes = ab;
            r->attn_core.n_samples = 1;
            r->attn_core.s.min = at;
        }
        if (!(r->overlap_rows >= 2) || !isfinite(r->overlap_flops_row) ||
            !isfinite(r->overlap_gemv.s.min) || !isfinite(r->overlap_gemm.s.min))
            r->overlap_rows = 0; /* bench_report_overlap: not measured */
    }
    /* the LLC the stream sees (0 = not measured, as by older versions) */
    double lc = num_at(roofs, "llc_stream_bytes"), lr = num_at(roofs, "llc_retained_bytes"),
           lb = num_at(roofs, "llc_bandwidth_bytes_per_s");
    if (isfinite(lc) && lc > 0 && isfinite(lr) && lr >= 0 && lr <= lc && isfinite(lb) && lb > 0) {
        r->roofs.llc.size_bytes = lc;
        r->roofs.llc.retained_bytes = lr;
        r->roofs.llc.llc_bandwidth_bytes_per_s = lb;
        double rb = num_at(roofs, "dram_roof_bytes_per_s"),
               ra = num_at(roofs, "dram_roof_array_bytes");
        r->roofs.dram_roof_bytes_per_s = isfinite(rb) && rb > 0 ? rb : 0;
        r->roofs.dram_roof_array_bytes = isfinite(ra) && ra > 0 ? ra : 0;
    }
    const struct ynode *llc = ynode_get(root, "llc");
    const struct ynode *lp = llc && llc->kind == YNODE_MAP ? ynode_get(llc, "points") : NULL;
    for (size_t k = 0; lp && lp->kind == YNODE_SEQ && k < lp->n && r->n_llc < BENCH_LLC_MAX_POINTS;
         k++) {
        const struct ynode *tp = ynode_get(lp->items[k], "time_s");
        double pb = num_at(lp->items[k], "bytes"), tm = tp ? num_at(tp, "min") : NAN;
        if (!(isfinite(pb) && pb > 0 && isfinite(tm) && tm > 0))
            continue;
        struct bench_llc_point *q = &r->llc[r->n_llc++];
        q->bytes = pb;
        q->matrices = long_at(lp->items[k], "matrices");
        q->meas.n_samples = 1;
        q->meas.samples_s[0] = tm;
        bench_stats_compute(q->meas.samples_s, 1, &q->meas.s);
    }
    const struct ynode *lf = llc && llc->kind == YNODE_MAP ? ynode_get(llc, "fit") : NULL;
    double fp = lf ? num_at(lf, "points") : NAN,
           fd = lf ? num_at(lf, "dram_bandwidth_bytes_per_s") : NAN;
    r->roofs.llc.n_fit = isfinite(fp) ? (int)fp : 0;
    r->roofs.llc.dram_bandwidth_bytes_per_s = isfinite(fd) ? fd : 0;
    double ls = num_at(roofs, "launch_overhead_s");
    r->roofs.launch_s = isfinite(ls) && ls > 0 ? ls : 0;
    double ge = num_at(roofs, "gemm_efficiency");
    r->roofs.gemm_efficiency = isfinite(ge) && ge > 0 && ge <= 1 ? ge : 0;
    for (int d = DT_ROOF_FIRST; d <= DT_ROOF_LAST; d++) {
        char key[48];
        snprintf(key, sizeof key, "%s_flops_per_s", dtype_name((enum dtype)d));
        double v = num_at(roofs, key);
        r->roofs.peak_flops_per_s[d] = isfinite(v) ? v : 0;
    }
    static const char *const LV[3] = {"l1", "l2", "l3"};
    for (int l = 0; l < 3; l++) {
        char key[64];
        snprintf(key, sizeof key, "%s_bandwidth_bytes_per_s", LV[l]);
        double v = num_at(roofs, key);
        r->roofs.cache_bandwidth_bytes_per_s[l] = isfinite(v) ? v : 0;
        snprintf(key, sizeof key, "%s_bytes", LV[l]);
        v = num_at(roofs, key);
        r->roofs.cache_bytes[l] = isfinite(v) ? v : 0;
    }
    for (size_t i = 0; i < cases->n && r->n_cases < BENCH_MAX_CASES; i++) {
        const struct ynode *c = cases->items[i];
        struct bench_case *bc = &r->cases[r->n_cases];
        char kind[32], phase[32];
        str_at(c, "id", bc->id, sizeof bc->id);
        str_at(c, "kind", kind, sizeof kind);
        str_at(c, "phase", phase, sizeof phase);
        const struct ynode *t = c->kind == YNODE_MAP ? ynode_get(c, "time_s") : NULL;
        const struct ynode *samples = t ? ynode_get(t, "samples") : NULL;
        if (c->kind != YNODE_MAP || !bc->id[0] || bench_case_kind_parse(kind, &bc->kind) != 0 ||
            bench_phase_parse(phase, &bc->phase) != 0 || !samples || samples->kind != YNODE_SEQ ||
            samples->n == 0 || samples->n > BENCH_MAX_SAMPLES) {
            fprintf(stderr,
                    "%s:%d:%d: error: cases[%zu] needs id, kind, phase and time_s.samples\n", path,
                    c->line, c->col, i);
            goto out;
        }
        bc->threads = (int)long_at(c, "threads");
        bc->rows = long_at(c, "rows");
        bc->cols = long_at(c, "cols");
        bc->inner = long_at(c, "inner");
        bc->copies = long_at(c, "copies");
        bc->heads = long_at(c, "heads");
        bc->kv_heads = long_at(c, "kv_heads");
        bc->head_dim = long_at(c, "head_dim");
        bc->prompt = long_at(c, "prompt");
        bc->context = long_at(c, "context");
        bc->flops = num_at(c, "flops");
        bc->bytes = num_at(c, "bytes");
        double launches = num_at(c, "launches");
        bc->launches = isfinite(launches) && launches > 0 ? launches : 0;
        double probe = num_at(c, "probe_bandwidth_bytes_per_s");
        bc->probe_bandwidth_bytes_per_s = isfinite(probe) && probe > 0 ? probe : 0;
        /* the probes of the rounds it was measured in (they set the run's fastest probe) */
        const struct ynode *rp = ynode_get(c, "round_probes_bytes_per_s");
        for (size_t k = 0; rp && rp->kind == YNODE_SEQ && k < rp->n && k < BENCH_MAX_ROUNDS; k++) {
            double v;
            if (ynode_double(rp->items[k], &v) == 0 && isfinite(v) && v > 0) {
                bc->rr.probe[k] = v;
                bc->rr.rounds++;
            }
        }
        const struct ynode *cal = ynode_get(c, "calibration");
        bool is_cal = false;
        bc->calibration = cal && ynode_bool(cal, &is_cal) == 0 && is_cal;
        bc->meas.reps = long_at(t, "reps");
        for (size_t k = 0; k < samples->n; k++) {
            double v;
            if (ynode_double(samples->items[k], &v) != 0 || !(v > 0)) {
                fprintf(stderr, "%s:%d:%d: error: a sample must be a positive time in seconds\n",
                        path, samples->items[k]->line, samples->items[k]->col);
                goto out;
            }
            bc->meas.samples_s[bc->meas.n_samples++] = v;
        }
        bench_stats_compute(bc->meas.samples_s, bc->meas.n_samples, &bc->meas.s);
        r->n_cases++;
    }
    bench_derive_probes(r);
    rc = 0;
out:
    ynode_free(root);
    return rc;
}

/* ---- host mode ---- */

struct row {
    const struct bench_case *c;
    struct bench_prediction p;
    bool ok;
    double err_pct;
};

static void
summarize(const struct row *rows, int n, int cls, struct out_value *v, const char *name)
{
    double e[BENCH_MAX_CASES];
    int m = 0;
    for (int i = 0; i < n; i++)
        if (rows[i].ok && (cls < 0 || (cls == 0) == rows[i].p.memory_bound))
            e[m++] = rows[i].err_pct;
    struct bench_error_summary s;
    bench_error_summarize(e, m, &s);
    v[0].s = name;
    v[1].x = m;
    v[2].x = s.median_abs_pct;
    v[3].x = s.p90_abs_pct;
    v[4].x = s.mean_pct;
}

/* validate --host: kept in its own function; --measurements is a separate mode */
static int
validate_host(int argc, char **argv)
{
    struct cli_ctx c;
    int rc;
    if (cli_begin(&c, &validate_host_cmd, 0, argc, argv, &rc) != 0)
        return rc;
    const struct cli_args a = c.a;
    enum out_fmt fmt = c.fmt;
    long threads = 0;
    struct bench_report *r = NULL;
    rc = CLI_USAGE;
    if (cli_long(&a, "threads", 0, 1, &threads) != 0)
        goto done;
    if (cli_has(&a, "bench") && (cli_has(&a, "quick") || cli_has(&a, "threads"))) {
        fprintf(stderr, "error: --quick and --threads apply when validate measures; with --bench "
                        "the measurements come from the file\n");
        goto done;
    }
    rc = CLI_FAIL;
    struct mdl_profile *model = c.model =
        cli_load_model(cli_has(&a, "model") ? cli_get(&a, "model") : "bench-small");
    if (!model)
        goto done;
    struct hw_profile *hw = NULL;
    if (cli_has(&a, "profile") && !(hw = c.hw = cli_load_hw(cli_get(&a, "profile"))))
        goto done;
    r = calloc(1, sizeof *r);
    rc = CLI_OK;
    if (!r) {
        cli_oom();
        rc = CLI_FAIL;
        goto done;
    }
    if (cli_has(&a, "bench")) {
        if (read_bench_json(cli_get(&a, "bench"), r) != 0) {
            rc = CLI_FAIL;
            goto done;
        }
    } else {
        struct bench_options o;
        bench_options_init(&o);
        o.quick = cli_has(&a, "quick");
        o.threads = (int)threads;
        o.model = model;
        o.parts =
            BENCH_PART_STREAM | BENCH_PART_KERNELS | BENCH_PART_MODEL | (hw ? 0 : BENCH_PART_PEAK);
        fprintf(stderr, "validate --host: measuring (progress on stderr)\n");
        struct err_list errs = {0};
        int brc = bench_run(&o, r, &errs);
        cli_print_errs(&errs);
        err_list_release(&errs);
        if (brc != 0) {
            rc = CLI_FAIL;
            goto done;
        }
        if (r->validation_failures > 0)
            fprintf(stderr, "warning: %d result check%s failed: %s\n", r->validation_failures,
                    r->validation_failures > 1 ? "s" : "", r->validation);
    }
    char why[400];
    if (bench_roofs_warning(r, why, sizeof why))
        fprintf(stderr, "warning: %s\n", why);
    if (bench_drift_warning(r, why, sizeof why))
        fprintf(stderr, "warning: %s\n", why);
    if (!hw && !(hw = c.hw = bench_profile_new(r))) {
        fprintf(stderr, "error: the measurements lack the DRAM bandwidth or the fp32 peak; give "
                        "--profile FILE\n");
        rc = CLI_FAIL;
        goto done;
    }
    /* the host terms: fork-join round trip and the overlap of core time and stream, the
     * latter on the profile's roofs (docs/bench.md#core-time-and-the-stream) */
    struct bench_host_terms terms = {r->roofs.launch_s, bench_report_overlap(r, hw),
                                     bench_rate_best(r->attn_core_bytes, &r->attn_core)};
    struct row rows[BENCH_MAX_CASES];
    int n = 0;
    for (int i = 0; i < r->n_cases; i++) {
        if (r->cases[i].calibration)
            continue; /* it set the GEMM efficiency: scoring it would predict itself */
        rows[n].c = &r->cases[i];
        /* the roof beside the case: the profile's, moved as the probe beside it moved */
        struct hw_profile beside = *hw;
        beside.memory_bandwidth_bytes_per_s =
            bench_case_bandwidth(r, &r->cases[i], hw->memory_bandwidth_bytes_per_s);
        rows[n].ok = bench_predict_case(&beside, model, &r->cases[i], &terms, &rows[n].p) == 0;
        rows[n].err_pct =
            rows[n].ok ? bench_error_pct(rows[n].p.predicted_s, r->cases[i].meas.s.median) : NAN;
        n++;
    }
    struct out_table *t = out_table_new(fmt, NULL, ROW_FIELDS, NF(ROW_FIELDS));
    for (int i = 0; i < n; i++) {
        struct out_value v[] = {{rows[i].c->id, 0},
                                {bench_phase_name(rows[i].c->phase), 0},
                                {NULL, rows[i].p.predicted_s},
                                {NULL, rows[i].c->meas.s.median},
                                {NULL, rows[i].err_pct},
                                {rows[i].p.reason, 0}};
        out_table_row(t, v);
    }
    struct out_value sv[3][5];
    memset(sv, 0, sizeof sv);
    summarize(rows, n, 0, sv[0], "memory-bound");
    summarize(rows, n, 1, sv[1], "compute-bound");
    summarize(rows, n, -1, sv[2], "all");
    char bw[32], pk[32];
    unit_format(hw->memory_bandwidth_bytes_per_s, "B/s", 4, bw, sizeof bw);
    unit_format(hw_peak(hw, DT_FP32, NULL), "FLOP/s", 4, pk, sizeof pk);
    if (fmt == OUT_JSON) {
        printf("{\n  \"tool\": \"roofline\",\n  \"mode\": \"host\",\n  \"profile\": ");
        out_json_string(stdout, hw->path ? hw->path : "measured by this run");
        printf(",\n  \"model\": ");
        out_json_string(stdout, model->id);
        printf(",\n  \"bandwidth_bytes_per_s\": ");
        out_json_number(stdout, hw->memory_bandwidth_bytes_per_s);
        printf(",\n  \"fp32_flops_per_s\": ");
        out_json_number(stdout, hw_peak(hw, DT_FP32, NULL));
        printf(",\n  \"launch_overhead_s\": ");
        out_json_number(stdout, r->roofs.launch_s);
        printf(",\n  \"overlap\": ");
        out_json_number(stdout, terms.overlap);
        printf(",\n  \"llc_stream_bytes\": ");
        out_json_number(stdout, hw->llc_stream_bytes);
        printf(",\n  \"llc_retained_bytes\": ");
        out_json_number(stdout, hw->llc_retained_bytes);
        printf(",\n  \"llc_bandwidth_bytes_per_s\": ");
        out_json_number(stdout, hw->llc_stream_bandwidth_bytes_per_s);
        printf(",\n  \"gemm_efficiency\": ");
        out_json_number(stdout, hw->gemm_efficiency > 0 ? hw->gemm_efficiency : 1);
        printf(",\n  \"measured\": ");
        out_json_string(stdout, cli_has(&a, "bench") ? cli_get(&a, "bench") : "this run");
        printf(",\n  \"rows\": ");
        out_table_end(t, stdout, 2);
        printf(",\n  \"summary\": [");
        for (int k = 0; k < 3; k++) {
            printf("%s\n    ", k ? "," : "");
            out_record(fmt, stdout, SUM_FIELDS, NF(SUM_FIELDS), sv[k], 4);
        }
        printf("\n  ]\n}\n");
    } else if (fmt == OUT_CSV) {
        out_table_end(t, stdout, 0);
    } else {
        char eff[96] = "";
        char fj[192] = "";
        size_t fn = 0;
        if (hw->gemm_efficiency > 0)
            snprintf(eff, sizeof eff, ", GEMMs at %.0f%% of it", 100 * hw->gemm_efficiency);
        if (r->roofs.launch_s > 0) {
            char u[32];
            unit_format_time(r->roofs.launch_s, 3, u, sizeof u);
            fn += (size_t)snprintf(fj, sizeof fj, ", %s per fork-join", u);
        }
        if (r->overlap_rows > 0 && fn < sizeof fj)
            fn +=
                (size_t)snprintf(fj + fn, sizeof fj - fn,
                                 ", %.0f%% of core time hidden by the stream", 100 * terms.overlap);
        if (hw->llc_stream_bytes > 0 && fn < sizeof fj) {
            char u[32];
            unit_format(hw->llc_retained_bytes, "B", 3, u, sizeof u);
            snprintf(fj + fn, sizeof fj - fn, ", the LLC retains %s of a stream",
                     hw->llc_retained_bytes > 0 ? u : "nothing");
        }
        printf("host validation: %s predicted from %s (bandwidth %s, fp32 peak %s%s%s) with "
               "the\nengine's roofline, against the median of the measured samples\n\n",
               model->id, hw->path ? hw->path : "the profile of this run's measurements", bw, pk,
               eff, fj);
        out_table_end(t, stdout, 0);
        printf("\n");
        struct out_table *s = out_table_new(
            fmt, "error = (predicted - measured) / measured:", SUM_FIELDS, NF(SUM_FIELDS));
        for (int k = 0; k < 3; k++)
            out_table_row(s, sv[k]);
        out_table_end(s, stdout, 0);
    }
done:
    free(r);
    return cli_end(&c, rc);
}

static int
run(int argc, char **argv)
{
    bool host = false, measurements = false;
    for (int i = 1; i < argc; i++) {
        host |= strcmp(argv[i], "--host") == 0;
        measurements |=
            strcmp(argv[i], "--measurements") == 0 || strncmp(argv[i], "--measurements=", 15) == 0;
    }
    if (host && measurements)
        return cli_usage_error(&cmd_validate, "--host and --measurements are separate modes");
    if (host)
        return validate_host(argc, argv);
    return cli_validate_measurements(argc, argv);
}
