/* Report speed: wall time to lay out and write (to memory) the analysis report of Llama-3.1-70B
 * (TP 4, vLLM, batch 16) on five devices overlaid, plus a 150-row table: at least 10 pages with
 * seven vector charts. A benchmark that prints figures, never a test: one discarded warm-up run,
 * then 5 timed runs; min, median and max. Target: at most 1 s.
 * Then `roofline report reports/chat-service.yaml` end to end (question to PDF bytes), split
 * into the planner (480 candidates, 20 simulated), the report's own work (its simulation of the
 * chosen plan, the sensitivity re-plans, the charts) and the PDF rendering: the first run (what
 * the CLI pays), then 2 runs, with the CPU time of all threads beside the wall time. Target for
 * the whole: at most 1 s of wall time on an idle two-core host. */
#include "bench/harness.h"
#include "cli/caldata.h"
#include "cli/report_parts.h"
#include "io/measure.h"
#include "io/profiles.h"
#include "io/question.h"
#include "io/scenario.h"
#include "plan/plan.h"
#include "render/charts.h"
#include "render/report.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define RUNS 5

static int
cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static int
count_bytes(void *closure, const unsigned char *data, unsigned int length)
{
    (void)data;
    *(size_t *)closure += length;
    return 0;
}

static int
tuning_hook(const struct hw_profile *hw, const char *engine, struct roof_tuning *out, void *ctx)
{
    (void)ctx;
    return caldata_tuning(hw, engine, NULL, out, NULL);
}

#define E2E_RUNS 2

/* the process's CPU time (all threads): on a shared host the wall time follows the load */
static double
cpu_s(void)
{
    struct timespec t;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

/* The chat-service question end to end, as cmd_report.c runs it. 0 or 1. */
static int
bench_question(const char *path)
{
    struct err_list errs = {0};
    struct plan_question *q = plan_question_load(path, &errs);
    if (!q) {
        fprintf(stderr, "bench_report: cannot load %s\n", path);
        err_list_release(&errs);
        return 1;
    }
    struct engine_profile *ep = q->engine ? engine_find(q->engine, NULL) : NULL;
    struct plan_opts o;
    plan_opts_init(&o);
    o.jobs = 2;
    o.tuning = tuning_hook;
    o.serving = engine_serving_hook;
    o.serving_ctx = ep;
    double tp[E2E_RUNS + 1], tr[E2E_RUNS + 1], tw[E2E_RUNS + 1], cpu[E2E_RUNS + 1];
    int pages = 0, rc = 0;
    for (int run = 0; run <= E2E_RUNS && rc == 0; run++) {
        struct plan_result r;
        double c0 = cpu_s(), t0 = bench_now_s();
        if (plan_run(q, &o, &r, &errs) != 0) {
            rc = 1;
            break;
        }
        double t1 = bench_now_s();
        struct rep_doc *d = rep_new(REP_A4);
        char *argv[] = {"report", (char *)path, NULL};
        struct rp_ctx ctx = {.argc = 2, .argv = argv};
        if (!d || rp_plan_report(d, q, &r, &o, &ctx, path) != 0)
            rc = 1;
        double t2 = bench_now_s();
        struct rep_stats st;
        size_t bytes = 0;
        if (rc == 0 && rep_render(d, count_bytes, &bytes, &st, &errs) != 0)
            rc = 1;
        double t3 = bench_now_s();
        pages = st.pages;
        rep_free(d);
        plan_result_release(&r);
        tp[run] = t1 - t0, tr[run] = t2 - t1, tw[run] = t3 - t2;
        cpu[run] = cpu_s() - c0;
    }
    if (rc == 0) {
        qsort(tp + 1, E2E_RUNS, sizeof tp[0], cmp_double);
        qsort(tr + 1, E2E_RUNS, sizeof tr[0], cmp_double);
        qsort(tw + 1, E2E_RUNS, sizeof tw[0], cmp_double);
        qsort(cpu + 1, E2E_RUNS, sizeof cpu[0], cmp_double);
        /* the first run pays what a process does once (profiles, calibrations), as the CLI */
        printf("report %s end to end: %d pages; first run %.2f s (planner %.2f s); then min of "
               "%d runs: planner %.2f s, report sections (simulation, sensitivity, charts) "
               "%.2f s, PDF %.2f s, total %.2f s; CPU (all threads) first run %.2f s, then "
               "min %.2f s\n",
               path, pages, tp[0] + tr[0] + tw[0], tp[0], E2E_RUNS, tp[1], tr[1], tw[1],
               tp[1] + tr[1] + tw[1], cpu[0], cpu[1]);
    } else {
        fprintf(stderr, "bench_report: %s failed\n", path);
    }
    engine_profile_free(ep);
    plan_question_free(q);
    err_list_release(&errs);
    return rc;
}

int
main(void)
{
    prof_set_data_dir(getenv("ROOFLINE_DATA") ? getenv("ROOFLINE_DATA") : ".");
    static const char *const GPUS[] = {"h100-sxm", "a100-sxm-80gb", "h200", "b200", "mi300x"};
    struct hw_profile *hws[5] = {0};
    struct err_list errs = {0};
    for (int i = 0; i < 5; i++)
        if (!(hws[i] = hw_find(GPUS[i], &errs))) {
            fprintf(stderr, "bench_report: cannot load %s (set ROOFLINE_DATA)\n", GPUS[i]);
            return 1;
        }
    struct mdl_profile *m = mdl_find("llama-3.1-70b", &errs);
    if (!m) {
        fprintf(stderr, "bench_report: cannot load llama-3.1-70b\n");
        return 1;
    }
    double t[RUNS + 1];
    int pages = 0;
    size_t bytes = 0;
    for (int run = 0; run <= RUNS; run++) {
        double t0 = bench_now_s();
        struct rep_doc *d = rep_new(REP_A4);
        char *argv[] = {"report", NULL};
        struct rp_ctx ctx = {.hws = (const struct hw_profile *const *)hws,
                             .n_hws = 5,
                             .model = m,
                             .engine = "vllm",
                             .argc = 1,
                             .argv = argv};
        roof_config_init(&ctx.base, hws[0], m, ROOF_DECODE);
        ctx.base.tp = 4;
        ctx.base.batch = 16;
        ctx.base.prompt = 2048;
        ctx.base.context = 2048;
        if (rp_analysis_report(d, &ctx) != 0)
            return 1;
        rep_section(d, 1, "A long table", true);
        static const char *const H[] = {"row", "value", "text"};
        struct rep_table *tb = rep_table(d, 3, H, "rrl");
        for (int i = 0; i < 150; i++) {
            char a[16], b[32];
            snprintf(a, sizeof a, "%d", i);
            snprintf(b, sizeof b, "%.4g", i * 1.37);
            const char *cells[] = {a, b, "a cell of text that wraps in a narrow column"};
            rep_table_row(tb, cells);
        }
        struct rep_stats st;
        bytes = 0;
        if (rep_render(d, count_bytes, &bytes, &st, &errs) != 0)
            return 1;
        pages = st.pages;
        rep_free(d);
        t[run] = bench_now_s() - t0;
    }
    qsort(t + 1, RUNS, sizeof t[0], cmp_double);
    printf("report: %d pages, %zu bytes of PDF: min %.3f s, median %.3f s, max %.3f s (%d runs; "
           "target <= 1 s)\n",
           pages, bytes, t[1], t[1 + RUNS / 2], t[RUNS], RUNS);
    for (int i = 0; i < 5; i++)
        hw_free(hws[i]);
    mdl_free(m);
    err_list_release(&errs);
    return bench_question("reports/chat-service.yaml");
}
