/* roofline plan: answer a capacity-planning question (docs/plan.md): the recommendation in
 * words first, then the ranked options, verification, growth, cost against volume, launch lines,
 * rejected candidates with reasons, the SLOs and every assumption with its source. Also the
 * sharded form (--shard I/N writes one slice as JSON) and `plan merge` of the slices. */
#include "cli/caldata.h"
#include "cli/cli.h"
#include "cli/plan_cli.h"
#include "io/measure.h"
#include "io/scenario.h"
#include "plan/plan.h"
#include "render/chart_plan.h"
#include "render/surface.h"
#include "util/strs.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static const struct cli_opt OPTS[] = {
    OPT_VALUE("question", "FILE", "the question: model, workload, SLOs, candidates, money"),
    CLI_OPT_FORMAT,
    OPT_VALUE("jobs", "N", "threads evaluating candidates (the result does not depend on N)"),
    OPT_VALUE("shard", "I/N", "evaluate slice I of N (0-based) for plan merge; needs -o json"),
    OPT_VALUE("power-budget-kw", "KW", "cap the fleet's power"),
};

/* ---- tuning and progress hooks ---- */

struct progress {
    struct timespec t0;
    double last;
    bool shown, stage2;
};

static void
progress_hook(int done, int total, void *ctx)
{
    struct progress *p = ctx;
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    double dt = (double)(t.tv_sec - p->t0.tv_sec) + 1e-9 * (double)(t.tv_nsec - p->t0.tv_nsec);
    if ((dt < 1.0 || dt - p->last < 0.25) && done != total)
        return;
    if (dt < 1.0 && !p->shown)
        return;
    p->shown = true;
    p->last = dt;
    fprintf(stderr, "\rplan: %d of %d %s (%.1f s)", done, total,
            p->stage2 ? "simulations" : "candidates", dt);
    if (done == total) {
        fprintf(stderr, "\n");
        p->stage2 = true;
    }
}

/* ---- commands ---- */

static struct plan_question *
load_question(const char *path, const char *budget_kw)
{
    struct err_list errs = {0};
    struct plan_question *q = plan_question_load(path, &errs);
    cli_print_errs(&errs);
    err_list_release(&errs);
    if (q && budget_kw) {
        double kw;
        if (str_to_double(budget_kw, &kw) != 0 || !(kw > 0)) {
            fprintf(stderr, "error: --power-budget-kw: expected a power in kW above 0, got '%s'\n",
                    budget_kw);
            plan_question_free(q);
            return NULL;
        }
        q->power_budget_w = kw * 1000;
    }
    return q;
}

/* plan merge: the shards' evaluations, ranked and priced as one unsharded run. */
static int
merge(int argc, char **argv, enum out_fmt fmt)
{
    struct plan_result r;
    memset(&r, 0, sizeof r);
    struct plan_question *q = NULL;
    char *qpath = NULL;
    int rc = cli_plan_json_read_shards(argc, argv, &r, &qpath);
    if (rc == CLI_OK && !(q = load_question(qpath, NULL)))
        rc = CLI_FAIL;
    if (rc == CLI_OK) {
        struct err_list errs = {0};
        if (plan_finish(q, &r, &errs) != 0)
            rc = CLI_FAIL;
        cli_print_errs(&errs);
        err_list_release(&errs);
        if (rc == CLI_OK)
            cli_plan_print(q, &r, fmt);
    }
    plan_result_release(&r);
    plan_question_free(q);
    free(qpath);
    return rc;
}

/* --shard I/N: 0, or -1 after printing a usage error. */
static int
parse_shard(const struct cli_ctx *c, int *shard, int *n_shards)
{
    *shard = 0;
    *n_shards = 1;
    if (!cli_has(&c->a, "shard"))
        return 0;
    const char *s = cli_get(&c->a, "shard");
    char extra;
    if (sscanf(s, "%d/%d%c", shard, n_shards, &extra) != 2 || *n_shards < 1 || *n_shards > 1024 ||
        *shard < 0 || *shard >= *n_shards) {
        cli_usage_error(&cmd_plan, "--shard: expected I/N with 0 <= I < N <= 1024, got '%s'", s);
        return -1;
    }
    if (cli_has(&c->a, "output") && c->fmt != OUT_JSON) {
        cli_usage_error(&cmd_plan, "--shard writes JSON for 'plan merge': use -o json");
        return -1;
    }
    return 0;
}

/* The planner's hooks into the engine calibrations and profiles (released by the caller with
 * engine_profile_free(o->serving_ctx)). */
static void
plan_hooks(const struct plan_question *q, struct plan_opts *o, struct err_list *errs)
{
    /* the engine's calibration (caldata prints its errors) */
    o->tuning = caldata_plan_tuning;
    /* the engine's serving defaults, as `roofline simulate` applies them */
    o->serving = engine_serving_hook;
    o->serving_ctx = q->engine ? engine_find(q->engine, errs) : NULL;
}

static int
run(int argc, char **argv)
{
    bool is_merge = argc > 1 && strcmp(argv[1], "merge") == 0;
    struct cli_ctx c;
    int rc;
    if (cli_begin(&c, &cmd_plan, CLI_POSITIONAL, argc - is_merge, argv + is_merge, &rc) != 0)
        return rc;
    struct plan_question *q = NULL;
    struct plan_result r;
    memset(&r, 0, sizeof r);
    struct plan_opts o;
    plan_opts_init(&o);
    struct err_list errs = {0};
    rc = CLI_OK;
    if (is_merge) {
        if (c.a.n_pos == 0 || cli_has(&c.a, "question") || cli_has(&c.a, "shard"))
            rc = cli_usage_error(&cmd_plan, "plan merge takes the shards' JSON files only");
        else
            rc = merge(c.a.n_pos, (char **)c.a.pos, c.fmt);
        goto out;
    }
    if (c.a.n_pos) {
        rc = cli_usage_error(&cmd_plan, "unexpected argument '%s'", c.a.pos[0]);
        goto out;
    }
    if (!cli_has(&c.a, "question")) {
        rc = cli_usage_error(&cmd_plan, "--question is required");
        goto out;
    }
    long jobs = 1;
    int shard, n_shards;
    if ((cli_has(&c.a, "jobs") && cli_long(&c.a, "jobs", 1, 1, &jobs) != 0) ||
        parse_shard(&c, &shard, &n_shards) != 0) {
        rc = CLI_USAGE;
        goto out;
    }
    q = load_question(cli_get(&c.a, "question"), cli_get(&c.a, "power-budget-kw"));
    if (!q) {
        rc = CLI_FAIL;
        goto out;
    }
    o.jobs = (int)jobs;
    struct progress pg = {{0, 0}, 0, false, false};
    clock_gettime(CLOCK_MONOTONIC, &pg.t0);
    o.progress = progress_hook;
    o.progress_ctx = &pg;
    plan_hooks(q, &o, &errs);
    if (cli_has(&c.a, "shard")) {
        o.shard = shard;
        o.n_shards = n_shards;
        if (plan_evaluate(q, &o, &r, &errs) != 0)
            rc = CLI_FAIL;
        else
            cli_plan_json_shard(q, &r, shard, n_shards);
    } else if (plan_run(q, &o, &r, &errs) != 0) {
        rc = CLI_FAIL;
    } else {
        cli_plan_print(q, &r, c.fmt);
    }
out:
    cli_print_errs(&errs);
    err_list_release(&errs);
    plan_result_release(&r);
    engine_profile_free(o.serving_ctx);
    plan_question_free(q);
    return cli_end(&c, rc);
}

int
cli_plan_chart(const char *question, const char *out, int width, int height)
{
    struct plan_question *q = load_question(question, NULL);
    if (!q)
        return CLI_FAIL;
    struct plan_opts o;
    plan_opts_init(&o);
    o.jobs = 2;
    struct plan_result r;
    struct err_list errs = {0};
    int rc = CLI_FAIL;
    plan_hooks(q, &o, &errs);
    if (plan_run(q, &o, &r, &errs) == 0) {
        struct chart *c = chart_build_plan(q, &o, &r, &errs);
        if (c && chart_save(c, out, width, height, &errs) == 0)
            rc = CLI_OK;
        chart_free(c);
        plan_result_release(&r);
    }
    cli_print_errs(&errs);
    err_list_release(&errs);
    engine_profile_free(o.serving_ctx);
    plan_question_free(q);
    return rc;
}

const struct cli_cmd cmd_plan = {
    "plan", "capacity plan: which hardware, how many, cost per hour and per million tokens",
    "roofline plan --question FILE [-o table|csv|json] [--jobs N] [--power-budget-kw KW]\n"
    "       roofline plan --question FILE --shard I/N -o json [--jobs N]\n"
    "       roofline plan merge SHARD.json... [-o table|csv|json]",
    run, CLI_OPTS(OPTS)};
