/* Planner speed: the whole hardware catalogue x TP 1, 2, 4, 8 x three formats (bf16, fp8, int4)
 * x three schedulers (continuous, chunked, disaggregated) for Llama-3.1-70B at 20 requests/s
 * under p99 TTFT 2 s and ITL 50 ms, with the vLLM engine profile: wall time of plan_run with 1
 * and 2 threads. A benchmark that prints figures, never a test: one discarded warm-up run, then
 * 3 timed runs; min, median and max. Target: at most 10 s on two cores. */
#include "bench/harness.h"
#include "cli/caldata.h"
#include "plan/plan.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define RUNS 3

static const char QUESTION[] = "name: bench, whole catalogue\n"
                               "model: llama-3.1-70b\n"
                               "engine: vllm\n"
                               "formats: [bf16, fp8, int4]\n"
                               "workload:\n"
                               "  rate_per_s: 20\n"
                               "  prompt: {dist: lognormal, mean: 1024, sd: 800, max: 8192}\n"
                               "  output: {dist: lognormal, mean: 256, sd: 200, max: 2048}\n"
                               "slo: {ttft: 2 s, itl: 50 ms, percentile: 99}\n"
                               "candidates:\n"
                               "  hardware: all\n"
                               "  tp: [1, 2, 4, 8]\n"
                               "  schedulers: [continuous, chunked, disaggregated]\n";

static int
cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static int
tuning(const struct hw_profile *hw, const char *engine, struct roof_tuning *out, void *ctx)
{
    (void)ctx;
    return caldata_tuning(hw, engine, NULL, out, NULL);
}

int
main(void)
{
    struct err_list e = {0};
    struct plan_question *q = plan_question_parse("bench.yaml", QUESTION, strlen(QUESTION), &e);
    if (!q) {
        for (size_t i = 0; i < e.n; i++)
            fprintf(stderr, "bench_plan: %s\n", e.items[i].msg);
        return 1;
    }
    printf("plan: %d hardware profiles x tp 1,2,4,8 x 3 formats x 3 schedulers, llama-3.1-70b\n",
           q->n_hw);
    for (int jobs = 1; jobs <= 2; jobs++) {
        struct plan_opts o;
        plan_opts_init(&o);
        o.jobs = jobs;
        o.tuning = tuning;
        double t[RUNS + 1], cpu[RUNS + 1];
        int cands = 0, sims = 0, opts = 0;
        for (int k = 0; k <= RUNS; k++) {
            struct plan_result r;
            double t0 = bench_now_s();
            clock_t c0 = clock();
            if (plan_run(q, &o, &r, &e) != 0) {
                fprintf(stderr, "bench_plan: plan_run failed\n");
                return 1;
            }
            t[k] = bench_now_s() - t0;
            cpu[k] = (double)(clock() - c0) / CLOCKS_PER_SEC;
            cands = r.n_candidates;
            sims = r.n_simulated;
            opts = r.n_options;
            plan_result_release(&r);
        }
        qsort(t + 1, RUNS, sizeof t[0], cmp_double);
        qsort(cpu + 1, RUNS, sizeof cpu[0], cmp_double);
        printf("  --jobs %d: %d candidates, %d options, %d simulated: wall min %.2f s, median "
               "%.2f s, max %.2f s; CPU (all threads) median %.2f s\n",
               jobs, cands, opts, sims, t[1], t[1 + RUNS / 2], t[RUNS], cpu[1 + RUNS / 2]);
    }
    err_list_release(&e);
    plan_question_free(q);
    return 0;
}
