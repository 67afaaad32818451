/* roofline report: a PDF report of a planning question (the planner's answer first) or of one
 * system's analysis (phase times, tokens/s, bound, memory; then why, how far to trust it,
 * provenance). Layout is render/report.c; docs/report.md describes the sections. */
#include "bench/report.h"
#include "cli/caldata.h"
#include "cli/cli.h"
#include "cli/explain.h"
#include "cli/report_parts.h"
#include "io/measure.h"
#include "io/profiles.h"
#include "io/scenario.h"
#include "plan/plan.h"
#include "render/charts.h"
#include "render/report.h"
#include "util/alloc.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>

static const struct cli_opt SPEC[] = {
    OPT_VALUE("gpu", "ID[,ID...]", "single-system report: the devices"),
    OPT_VALUE("model", "ID|PATH", "single-system report: the model"),
    OPT_VALUE("output", "FILE.pdf", "the report (-o; default reports/<question name>.pdf)"),
    OPT_VALUE("paper", "a4|letter", "paper size (default a4)"),
    OPT_VALUE("jobs", "N", "planner threads"),
    OPT_VALUE("bench", "FILE", "a roofline bench -o json report: host validation table"),
    CLI_ENGINE_OPTS,
};

/* --bench FILE: the host bench report, the host profile it gives and the model of its LLM
 * kernels (bench-small), for the host validation table. */
struct bench_in {
    struct bench_report *r;
    struct hw_profile *hw;
    struct mdl_profile *model;
};

static void
bench_free(struct bench_in *b)
{
    free(b->r);
    hw_free(b->hw);
    mdl_free(b->model);
}

/* 0 (nothing asked, or loaded into ctx), or -1 after printing. */
static int
bench_load(const struct cli_args *a, struct bench_in *b, struct rp_ctx *ctx)
{
    memset(b, 0, sizeof *b);
    if (!cli_has(a, "bench"))
        return 0;
    const char *path = cli_get(a, "bench");
    if (!(b->r = calloc(1, sizeof *b->r))) {
        cli_oom();
        return -1;
    }
    if (read_bench_json(path, b->r) != 0)
        return -1;
    if (!(b->hw = bench_profile_new(b->r))) {
        fprintf(stderr, "%s: error: the bench report lacks the DRAM bandwidth or the fp32 peak\n",
                path);
        return -1;
    }
    if (!(b->model = cli_load_model("bench-small")))
        return -1;
    ctx->bench = b->r;
    ctx->bench_hw = b->hw;
    ctx->bench_model = b->model;
    ctx->bench_path = path;
    return 0;
}

/* Writes the laid-out report to `out` (atomically) and prints the answer and the path;
 * CLI_OK or CLI_FAIL after printing the errors. */
static int
write_report(struct rep_doc *d, const char *out, const struct rp_ctx *ctx)
{
    struct err_list errs = {0};
    struct rep_stats st;
    int rc = CLI_FAIL;
    /* an allocation that failed on the way left a section out: write nothing (cli_main says
     * "out of memory (while ...)") rather than a report that reads as whole */
    if (alloc_failed())
        return CLI_FAIL;
    if (rep_write(d, out, &st, &errs) == 0) {
        rc = CLI_OK;
        printf("%s\nwrote %s (%d pages)\n", ctx->answer, out, st.pages);
    }
    cli_print_errs(&errs);
    err_list_release(&errs);
    return rc;
}

/* The single-system analysis report. */
static int
run_analysis(const struct cli_args *a, int argc, char **argv)
{
    const char *out = cli_get(a, "output");
    if (!cli_has(a, "gpu") || !cli_has(a, "model"))
        return cli_usage_error(&cmd_report,
                               "--gpu and --model are required (or give a question file)");
    if (!out)
        return cli_usage_error(&cmd_report, "-o FILE.pdf is required");
    size_t ol = strlen(out);
    if (ol < 4 || strcasecmp(out + ol - 4, ".pdf") != 0)
        return cli_usage_error(&cmd_report, "-o: '%s' does not end in .pdf", out);
    enum rep_paper paper = REP_A4;
    if (cli_has(a, "paper") && rep_paper_parse(cli_get(a, "paper"), &paper) != 0)
        return cli_usage_error(&cmd_report, "--paper: expected a4 or letter, got '%s'",
                               cli_get(a, "paper"));
    char gpus[512];
    if (strlen(cli_get(a, "gpu")) >= sizeof gpus)
        return cli_usage_error(&cmd_report, "--gpu: list too long");
    snprintf(gpus, sizeof gpus, "%s", cli_get(a, "gpu"));
    struct hw_profile *hws[CHART_MAX_GPUS] = {0};
    int n_hws = 0, rc = CLI_FAIL;
    struct mdl_profile *model = NULL;
    struct rep_doc *d = NULL;
    struct bench_in bench = {0};
    char *save = NULL;
    for (char *tok = strtok_r(gpus, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
        if (n_hws == CHART_MAX_GPUS) {
            rc = cli_usage_error(&cmd_report, "--gpu: at most %d devices", CHART_MAX_GPUS);
            goto done;
        }
        if (!(hws[n_hws] = cli_load_hw(tok)))
            goto done;
        n_hws++;
    }
    if (n_hws == 0) {
        rc = cli_usage_error(&cmd_report, "--gpu: no device given");
        goto done;
    }
    if (!(model = cli_load_model(cli_get(a, "model"))))
        goto done;
    struct roof_config base;
    roof_config_init(&base, hws[0], model, ROOF_DECODE);
    if (cli_engine_opts(a, &base) != 0) {
        rc = CLI_USAGE;
        goto done;
    }
    if (!(d = rep_new(paper))) {
        cli_oom();
        goto done;
    }
    struct rp_ctx ctx = {.hws = (const struct hw_profile *const *)hws,
                         .n_hws = n_hws,
                         .model = model,
                         .base = base,
                         .engine = cli_engine(a, base.hw),
                         .argc = argc,
                         .argv = argv};
    if (bench_load(a, &bench, &ctx) != 0)
        goto done;
    if (rp_analysis_report(d, &ctx) != 0)
        goto done;
    rc = write_report(d, out, &ctx);
done:
    bench_free(&bench);
    rep_free(d);
    mdl_free(model);
    for (int i = 0; i < CHART_MAX_GPUS; i++)
        hw_free(hws[i]);
    return rc;
}

/* reports/<stem of the question file>.pdf, creating reports/ when it is missing. */
static int
default_output(const char *question, char *out, size_t size)
{
    const char *base = strrchr(question, '/');
    base = base ? base + 1 : question;
    size_t n = strlen(base);
    const char *dot = strrchr(base, '.');
    if (dot && dot != base)
        n = (size_t)(dot - base);
    if (mkdir("reports", 0777) != 0 && errno != EEXIST) {
        fprintf(stderr, "error: cannot create 'reports': %s\n", strerror(errno));
        return -1;
    }
    snprintf(out, size, "reports/%.*s.pdf", (int)n, base);
    return 0;
}

/* The report of a planning question: run the planner, lay its answer out. */
static int
run_question(const struct cli_args *a, int argc, char **argv)
{
    static const char *const NOT_HERE[] = {
        "gpu", "model", "batch",   "prompt", "context", "weights", "act",    "kv",        "flash",
        "tp",  "ep",    "attn-dp", "pp",     "gpus",    "reserve", "engine", "moe-kernel"};
    for (size_t i = 0; i < sizeof NOT_HERE / sizeof NOT_HERE[0]; i++)
        if (cli_has(a, NOT_HERE[i]))
            return cli_usage_error(&cmd_report,
                                   "--%s does not go with a question file (the question sets it)",
                                   NOT_HERE[i]);
    if (a->n_pos > 1)
        return cli_usage_error(&cmd_report, "unexpected argument '%s'", a->pos[1]);
    const char *qpath = a->pos[0];
    enum rep_paper paper = REP_A4;
    if (cli_has(a, "paper") && rep_paper_parse(cli_get(a, "paper"), &paper) != 0)
        return cli_usage_error(&cmd_report, "--paper: expected a4 or letter, got '%s'",
                               cli_get(a, "paper"));
    long jobs = 2;
    if (cli_has(a, "jobs") && cli_long(a, "jobs", 2, 1, &jobs) != 0)
        return CLI_USAGE;
    char outbuf[1024];
    const char *out = cli_get(a, "output");
    if (out) {
        size_t ol = strlen(out);
        if (ol < 4 || strcasecmp(out + ol - 4, ".pdf") != 0)
            return cli_usage_error(&cmd_report, "-o: '%s' does not end in .pdf", out);
    }
    struct err_list errs = {0};
    struct plan_question *q = plan_question_load(qpath, &errs);
    cli_print_errs(&errs);
    err_list_release(&errs);
    if (!q)
        return CLI_FAIL;
    if (!out) {
        if (default_output(qpath, outbuf, sizeof outbuf) != 0) {
            plan_question_free(q);
            return CLI_FAIL;
        }
        out = outbuf;
    }
    struct plan_opts o;
    plan_opts_init(&o);
    o.jobs = (int)jobs;
    o.tuning = caldata_plan_tuning;
    /* the engine's serving defaults, as `roofline simulate` applies them */
    struct engine_profile *ep = q->engine ? engine_find(q->engine, NULL) : NULL;
    o.serving = engine_serving_hook;
    o.serving_ctx = ep;
    struct plan_result r;
    memset(&r, 0, sizeof r);
    int rc = CLI_FAIL;
    struct rep_doc *d = NULL;
    struct bench_in bench = {0};
    if (plan_run(q, &o, &r, &errs) != 0) {
        cli_print_errs(&errs);
        err_list_release(&errs);
        goto done;
    }
    if (!(d = rep_new(paper))) {
        cli_oom();
        goto done;
    }
    struct rp_ctx ctx = {.argc = argc, .argv = argv};
    if (bench_load(a, &bench, &ctx) != 0)
        goto done;
    if (rp_plan_report(d, q, &r, &o, &ctx, q->path ? q->path : qpath) != 0)
        goto done;
    rc = write_report(d, out, &ctx);
done:
    bench_free(&bench);
    rep_free(d);
    plan_result_release(&r);
    engine_profile_free(ep);
    plan_question_free(q);
    return rc;
}

static int
run(int argc, char **argv)
{
    struct cli_ctx c;
    int rc;
    if (cli_begin(&c, &cmd_report, CLI_POSITIONAL | CLI_NO_FORMAT, argc, argv, &rc) != 0)
        return rc;
    if (c.a.n_pos > 0)
        rc = run_question(&c.a, argc, argv);
    else if (cli_has(&c.a, "jobs"))
        rc = cli_usage_error(&cmd_report, "--jobs goes with a question file");
    else
        rc = run_analysis(&c.a, argc, argv);
    return cli_end(&c, rc);
}

const struct cli_cmd cmd_report = {
    "report", "write a PDF report: the answer first, then why, how far to trust it and provenance",
    "roofline report QUESTION.yaml [-o FILE.pdf] [--paper a4|letter] [--jobs N] [--bench FILE]\n"
    "         (default output: reports/<question file name>.pdf)\n"
    "       roofline report --gpu ID[,ID...] --model ID|PATH -o FILE.pdf [--paper a4|letter]\n"
    "         [--batch B] [--prompt P] [--context C] [--weights T] [--act T] [--kv T]\n"
    "         [--flash on|off] [--tp N] [--ep N] [--attn-dp N] [--pp N] [--gpus N] [--reserve "
    "SIZE|PCT] "
    "[--engine E]\n"
    "         [--moe-kernel auto|marlin] [--bench FILE]\n"
    "  docs/report.md describes the sections",
    run, CLI_OPTS(SPEC)};
