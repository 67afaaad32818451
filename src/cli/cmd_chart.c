/* roofline chart: one chart kind (roofline, regime, batch, prefill, decode, memory) written to a
 * PNG, SVG or PDF file chosen by the output's extension. docs/charts.md */
#include "cli/caldata.h"
#include "cli/cli.h"
#include "core/dtype.h"
#include "io/scenario.h"
#include "render/chart_sim.h"
#include "render/charts.h"
#include "render/surface.h"
#include "util/array.h"
#include "util/strs.h"
#include "util/units.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define DEFAULT_W 1600
#define DEFAULT_H 1000

/* measured points labelled at most (the rest are drawn without their label) */
#define CHART_MAX_LABELLED 100

static const struct cli_opt OPTS[] = {
    OPT_VALUE("gpu", "ID[,ID...]", "up to 5 devices, compared on one chart"),
    OPT_VALUE("model", "ID|PATH", "the model (may be left out with --measured)"),
    OPT_VALUE("output", "FILE", "the chart: .png, .svg or .pdf (-o)"),
    OPT_VALUE("batch", "B[,B...]", "batch sizes (one for roofline and regime)"),
    OPT_VALUE("prompt", "P", "prompt tokens"),
    OPT_VALUE("context", "C", "tokens already in the KV cache"),
    OPT_VALUE("weights", "T", "weight format: fp16, bf16, fp8, int8, int4, q4_k_m, ..."),
    OPT_VALUE("act", "T", "activation format (default from --weights)"),
    OPT_VALUE("kv", "T", "KV-cache format (default from --weights)"),
    OPT_VALUE("flash", "on|off", "fused attention (FlashAttention)"),
    OPT_VALUE("size", "WxH", "pixels (default 1600x1000)"),
    OPT_VALUE("measured", "FILE.json",
              "roofline: add the points of roofline bench --points or -o json"),
    OPT_VALUE("scenario", "FILE", "simulate: the serving scenario (docs/simulate.md)"),
    OPT_VALUE("seed", "N", "simulate: the random seed (default the scenario's)"),
    OPT_VALUE("question", "FILE", "plan: the planner's question (docs/plan.md)"),
    OPT_VALUE("tp", "N", "tensor-parallel devices per instance"),
    OPT_VALUE("ep", "N", "expert-parallel groups of the tp devices (routed experts dealt whole)"),
    OPT_VALUE("attn-dp", "N", "data-parallel attention ranks of the tp devices (own sequences)"),
    OPT_VALUE("pp", "N", "pipeline stages per instance"),
    OPT_VALUE("gpus", "N", "devices in all (replicas = gpus / (tp x pp))"),
    OPT_VALUE("reserve", "SIZE|PCT", "memory kept off weights and KV cache"),
    OPT_VALUE("engine", "E", "kernel (default), vllm, ...: its calibrated model; datasheet"),
};
#define N_OPTS ((int)ARRAY_SIZE(OPTS))

static int run(int argc, char **argv);

const struct cli_cmd cmd_chart = {
    "chart",
    "draw a chart (roofline, regime, batch, prefill, decode, memory, simulate) to PNG, SVG or "
    "PDF",
    "roofline chart KIND --gpu ID[,ID...] --model ID|PATH -o FILE.png|svg|pdf [options]\n"
    "       roofline chart roofline --gpu host --measured BENCH.json -o FILE\n"
    "       roofline chart simulate --scenario FILE [--seed N] -o FILE [--size WxH]\n"
    "  KIND: roofline, regime, batch, prefill, decode, memory, simulate (docs/charts.md)",
    run, CLI_OPTS(OPTS)};

/* "1600x1000" -> 1600, 1000. */
static int
parse_size(const char *s, int *w, int *h)
{
    long a, b;
    char buf[64];
    const char *x = strchr(s, 'x');
    if (!x || (size_t)(x - s) >= sizeof buf)
        return -1;
    memcpy(buf, s, (size_t)(x - s));
    buf[x - s] = '\0';
    if (str_to_long(buf, &a) != 0 || str_to_long(x + 1, &b) != 0)
        return -1;
    if (a < 200 || b < 150 || a > 20000 || b > 20000)
        return -1;
    *w = (int)a;
    *h = (int)b;
    return 0;
}

/* "1,8,32" (K suffixes allowed) -> whole numbers >= 1. */
static int
parse_batches(const char *s, double *out, int max, int *n)
{
    *n = 0;
    char buf[256];
    if (strlen(s) >= sizeof buf)
        return -1;
    snprintf(buf, sizeof buf, "%s", s);
    char *save = NULL;
    for (char *tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
        double v;
        const char *why;
        if (*n >= max || unit_parse(tok, UNIT_COUNT_SUFFIX, &v, &why) != 0 || v < 1 ||
            v != floor(v) || v > 1e9)
            return -1;
        out[(*n)++] = v;
    }
    return *n > 0 ? 0 : -1;
}

/* -o FILE with a chart extension; prints the usage error and returns -1 when not. */
static int
check_output(const struct cli_args *a, const char **out)
{
    enum chart_format fmt;
    *out = cli_get(a, "output");
    if (!*out) {
        cli_usage_error(&cmd_chart, "-o FILE is required (.png, .svg or .pdf)");
        return -1;
    }
    if (chart_format_from_path(*out, &fmt) != 0) {
        cli_usage_error(&cmd_chart, "-o: '%s' does not end in .png, .svg or .pdf", *out);
        return -1;
    }
    return 0;
}

/* --size WxH (default 1600x1000); prints the usage error and returns -1 when malformed. */
static int
check_size(const struct cli_args *a, int *width, int *height)
{
    *width = DEFAULT_W;
    *height = DEFAULT_H;
    if (cli_has(a, "size") && parse_size(cli_get(a, "size"), width, height) != 0) {
        cli_usage_error(&cmd_chart,
                        "--size: expected WIDTHxHEIGHT between 200x150 and 20000x20000, got '%s'",
                        cli_get(a, "size"));
        return -1;
    }
    return 0;
}

/* chart simulate: run the scenario once and draw its latency CDFs and timeline. */
static int
run_simulate(const struct cli_args *a)
{
    static const char *const OWN[] = {"scenario", "seed", "output", "size"};
    for (int i = 0; i < N_OPTS; i++) {
        bool own = false;
        for (size_t k = 0; k < ARRAY_SIZE(OWN); k++)
            own |= strcmp(OPTS[i].name, OWN[k]) == 0;
        if (!own && a->value[i])
            return cli_usage_error(&cmd_chart,
                                   "--%s does not apply to the simulate chart (the scenario sets "
                                   "the model, hardware and formats)",
                                   OPTS[i].name);
    }
    if (!cli_has(a, "scenario"))
        return cli_usage_error(&cmd_chart, "chart simulate needs --scenario FILE");
    const char *out;
    int width, height;
    if (check_output(a, &out) != 0 || check_size(a, &width, &height) != 0)
        return CLI_USAGE;
    long seed = -1;
    if (cli_has(a, "seed") && cli_long(a, "seed", 1, 0, &seed) != 0)
        return CLI_USAGE;
    struct sim_config cfg;
    struct scenario *sc = cli_scenario_load(cli_get(a, "scenario"), seed, &cfg);
    if (!sc)
        return cli_finish(CLI_FAIL);
    struct err_list errs = {0};
    struct sim_result r;
    int rc = CLI_FAIL;
    if (sim_run(&cfg, &r, &errs) == 0) {
        struct chart *chart = chart_build_simulate(&cfg, &r, sc->name, &errs);
        if (chart && chart_save(chart, out, width, height, &errs) == 0)
            rc = CLI_OK;
        chart_free(chart);
        sim_result_release(&r);
    }
    cli_print_errs(&errs);
    err_list_release(&errs);
    scenario_free(sc);
    return cli_finish(rc);
}

/* chart plan: answer the question and draw its Pareto fronts and cost against latency. */
static int
run_plan(const struct cli_args *a)
{
    if (!cli_has(a, "question"))
        return cli_usage_error(&cmd_chart, "chart plan needs --question FILE");
    const char *out;
    int width, height;
    if (check_output(a, &out) != 0 || check_size(a, &width, &height) != 0)
        return CLI_USAGE;
    return cli_finish(cli_plan_chart(cli_get(a, "question"), out, width, height));
}

/* The charts that are not built from a chart_request (render/charts.c says why), each run with
 * its own input; every other kind is a line in render/charts.c's table. `chart profile` is
 * dispatched before the options are parsed, since it has options of its own. */
static const struct {
    const char *name;
    int (*run)(const struct cli_args *a);
} OWN_KINDS[] = {
    {"simulate", run_simulate},
    {"plan", run_plan},
};

/* An unknown kind: the closest name of every kind, or the list. */
static int
unknown_kind(const char *kind)
{
    const char *names[CHART_KIND_COUNT + ARRAY_SIZE(OWN_KINDS) + 1];
    size_t n = 0;
    for (int i = 0; i < CHART_KIND_COUNT; i++)
        names[n++] = chart_kind_name((enum chart_kind)i);
    for (size_t i = 0; i < ARRAY_SIZE(OWN_KINDS); i++)
        names[n++] = OWN_KINDS[i].name;
    names[n++] = "profile";
    const char *hint = str_closest(kind, names, n);
    if (hint) {
        fprintf(stderr, "error: unknown chart kind '%s' (did you mean '%s'?)\n", kind, hint);
        return CLI_USAGE;
    }
    char list[256] = "";
    for (size_t i = 0, l = 0; i < n && l < sizeof list; i++)
        l += (size_t)snprintf(list + l, sizeof list - l, "%s%s", i ? ", " : "", names[i]);
    fprintf(stderr, "error: unknown chart kind '%s' (%s)\n", kind, list);
    return CLI_USAGE;
}

static int
run(int argc, char **argv)
{
    if (argc > 1 && strcmp(argv[1], "profile") == 0)
        return cli_chart_profile(argc - 1, argv + 1);
    struct cli_ctx c;
    int rc;
    if (cli_begin(&c, &cmd_chart, CLI_POSITIONAL | CLI_NO_FORMAT, argc, argv, &rc) != 0)
        return rc;
    const struct cli_args a = c.a;
    if (a.n_pos == 0)
        return cli_usage_error(&cmd_chart,
                               "missing chart kind (roofline, regime, batch, prefill, decode, "
                               "memory or simulate)");
    if (a.n_pos > 1)
        return cli_usage_error(&cmd_chart, "unexpected argument '%s'", a.pos[1]);
    for (size_t i = 0; i < ARRAY_SIZE(OWN_KINDS); i++)
        if (strcmp(a.pos[0], OWN_KINDS[i].name) == 0)
            return OWN_KINDS[i].run(&a);
    if (cli_has(&a, "scenario") || cli_has(&a, "seed"))
        return cli_usage_error(&cmd_chart, "--scenario and --seed go with the simulate chart");
    struct chart_request req;
    memset(&req, 0, sizeof req);
    if (chart_kind_parse(a.pos[0], &req.kind) != 0)
        return unknown_kind(a.pos[0]);
    const char *out;
    if (check_output(&a, &out) != 0)
        return CLI_USAGE;
    /* roofline --measured BENCH.json: the model defaults to the one the bench ran, in fp32 */
    char bench_model[128];
    bool from_bench =
        !cli_has(&a, "model") && req.kind == CHART_KIND_ROOFLINE && cli_has(&a, "measured") &&
        points_bench_model(cli_get(&a, "measured"), bench_model, sizeof bench_model) == 0;
    if (!cli_has(&a, "gpu") || (!cli_has(&a, "model") && !from_bench))
        return cli_usage_error(&cmd_chart,
                               "--gpu and --model are required (--model may be left out with "
                               "--measured from roofline bench -o json)");
    const char *model_arg = from_bench ? bench_model : cli_get(&a, "model");
    int width, height;
    if (check_size(&a, &width, &height) != 0)
        return CLI_USAGE;
    if (cli_has(&a, "batch")) {
        if (parse_batches(cli_get(&a, "batch"), req.batches, CHART_MAX_BATCHES, &req.n_batches))
            return cli_usage_error(&cmd_chart,
                                   "--batch: expected whole numbers >= 1 separated by commas (at "
                                   "most 8), got '%s'",
                                   cli_get(&a, "batch"));
        if (req.n_batches > 1 && (req.kind == CHART_KIND_ROOFLINE || req.kind == CHART_KIND_REGIME))
            return cli_usage_error(&cmd_chart, "--batch: the %s chart takes one batch size",
                                   a.pos[0]);
    }
    if (cli_has(&a, "measured") && req.kind != CHART_KIND_ROOFLINE)
        return cli_usage_error(&cmd_chart, "--measured applies to the roofline chart, not '%s'",
                               a.pos[0]);

    /* engine options without --batch, which is a list here */
    struct cli_args engine = a;
    for (int i = 0; i < N_OPTS; i++)
        if (strcmp(OPTS[i].name, "batch") == 0)
            engine.value[i] = NULL;

    char gpus[512];
    if (strlen(cli_get(&a, "gpu")) >= sizeof gpus)
        return cli_usage_error(&cmd_chart, "--gpu: list too long");
    snprintf(gpus, sizeof gpus, "%s", cli_get(&a, "gpu"));
    struct hw_profile *hws[CHART_MAX_GPUS] = {0};
    struct mdl_profile *model = NULL;
    struct chart_measured *measured = NULL;
    size_t n_measured = 0;
    struct chart *chart = NULL;
    struct err_list errs = {0};
    rc = CLI_FAIL;
    char *save = NULL;
    for (char *tok = strtok_r(gpus, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
        if (req.n_hws == CHART_MAX_GPUS) {
            rc = cli_usage_error(&cmd_chart, "--gpu: at most 5 devices, got more at '%s'", tok);
            goto done;
        }
        if (!(hws[req.n_hws] = cli_load_hw(tok)))
            goto done;
        req.hws[req.n_hws] = hws[req.n_hws];
        req.n_hws++;
    }
    if (req.n_hws == 0) {
        rc = cli_usage_error(&cmd_chart, "--gpu: no device given");
        goto done;
    }
    if (!(model = cli_load_model(model_arg)))
        goto done;
    roof_config_init(&req.base, hws[0], model, ROOF_DECODE);
    if (from_bench) {
        /* the bench runs its transformer in fp32 */
        req.base.weights = DT_FP32;
        req.base.act = DT_FP32;
        req.base.kv = DT_FP32;
    }
    if ((rc = cli_engine_opts(&engine, &req.base)) != 0)
        goto done;
    rc = CLI_FAIL;
    /* the engine's tuning depends on each device's class */
    for (int g = 0; g < req.n_hws; g++, req.n_tunings++) {
        const char *eng = cli_engine(&a, hws[g]);
        struct roof_config own;
        roof_config_init(&own, hws[g], model, ROOF_DECODE);
        req.tunings[g] = own.tuning;
        if (eng && caldata_tuning(hws[g], eng, NULL, &req.tunings[g], NULL) != 0)
            goto done;
    }
    if (req.n_batches > 0)
        req.base.batch = req.batches[0];
    if (cli_has(&a, "measured")) {
        int mr = points_load(cli_get(&a, "measured"), &measured, &n_measured, &errs);
        cli_print_errs(&errs);
        err_list_release(&errs);
        if (mr != 0)
            goto done;
        /* labels are placed against every point and every placed label: 20k labelled points
         * took 20 s; more than a few dozen labels cannot be read on one chart anyway */
        size_t n_labelled = 0;
        for (size_t i = 0; i < n_measured; i++)
            if (measured[i].label && measured[i].label[0] && ++n_labelled > CHART_MAX_LABELLED)
                measured[i].label[0] = '\0';
        if (n_labelled > CHART_MAX_LABELLED)
            fprintf(stderr,
                    "warning: %s: %zu measured points have labels; only the first %d are "
                    "labelled on the chart\n",
                    cli_get(&a, "measured"), n_labelled, CHART_MAX_LABELLED);
        req.measured = measured;
        req.n_measured = n_measured;
    }
    chart = chart_build(&req, &errs);
    if (chart && chart_save(chart, out, width, height, &errs) == 0) {
        rc = CLI_OK;
        printf("wrote %s\n", out);
        cli_engine_line(stdout, cli_engine(&a, hws[0]), cli_has(&a, "engine"));
    }
    cli_print_errs(&errs);
    err_list_release(&errs);
done:
    chart_free(chart);
    points_free(measured, n_measured);
    mdl_free(model);
    for (int i = 0; i < CHART_MAX_GPUS; i++)
        hw_free(hws[i]);
    return cli_finish(rc);
}
