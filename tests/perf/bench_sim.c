/* Simulator speed: simulated requests per wall-clock second for a 100,000-request ShareGPT-like
 * scenario (prompt lognormal mean 200, output lognormal mean 180 tokens; Llama-3-8B bf16 on one
 * H100 SXM; Poisson arrivals at 70% of the analytic capacity) on one core, per scheduler.
 * A benchmark that prints figures, never a test: one discarded warm-up run, then 3 timed runs;
 * min, median and max. Target: the whole scenario in at most 1 s. Then memory: the peak RSS a
 * run of SIM_BENCH_REQUESTS (default 10^6) continuous-batching requests adds, with the
 * per-request results discarded (the CLI's mode) and kept (the library default), with its
 * speed in requests per second of wall-clock and of CPU time (the goal: 10^5). */
#include "bench/harness.h"
#include "io/profiles.h"
#include "sim/sim.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

#define REQUESTS 100000L
#define RUNS 3

/* CPU time of this process: on a shared machine the wall clock also counts the time other
 * jobs held the core */
static double
cpu_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static int
cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static void
bench(const struct hw_profile *hw, const struct mdl_profile *m, enum sim_policy policy)
{
    struct sim_config c;
    memset(&c, 0, sizeof c);
    roof_config_init(&c.engine, hw, m, ROOF_DECODE);
    c.engine.weights = c.engine.act = c.engine.kv = DT_BF16;
    c.instances = policy == SIM_DISAGGREGATED ? 2 : 1;
    sim_sched_defaults(&c.sched, policy, m);
    c.work.process = SIM_POISSON;
    c.work.rate_per_s = 1;
    c.work.prompt.kind = c.work.output.kind = SIM_DIST_LOGNORMAL;
    c.work.prompt.mean = 200;
    c.work.prompt.sd = 250;
    c.work.prompt.max = 4096;
    c.work.output.mean = 180;
    c.work.output.sd = 150;
    c.work.output.max = 2048;
    c.work.requests = REQUESTS;
    c.seed = 1;
    struct sim_analytic a;
    if (sim_analytic(&c, &a) != 0) {
        fprintf(stderr, "bench_sim: analytic model failed\n");
        exit(1);
    }
    c.work.rate_per_s = 0.7 * a.capacity_req_per_s;
    double t[RUNS + 1];
    long steps = 0;
    double sink = 0;
    for (int i = 0; i <= RUNS; i++) {
        struct sim_result r;
        double t0 = bench_now_s();
        if (sim_run(&c, &r, NULL) != 0) {
            fprintf(stderr, "bench_sim: simulation failed\n");
            exit(1);
        }
        t[i] = bench_now_s() - t0;
        /* consume the result so nothing is optimised away, and sanity-check it */
        if (r.completed + r.rejected != REQUESTS) {
            fprintf(stderr, "bench_sim: %ld of %ld requests accounted for\n",
                    r.completed + r.rejected, REQUESTS);
            exit(1);
        }
        steps = r.steps;
        sink += r.e2e.mean;
        sim_result_release(&r);
    }
    qsort(t + 1, RUNS, sizeof t[0], cmp_double); /* t[0] is the warm-up */
    printf("sim: %-13s %6ld requests at %5.1f/s, %7ld steps: %6.3f s median (min %.3f, max %.3f)"
           " = %8.0f requests/s, %6.2f us/step (checksum %.4g)\n",
           sim_policy_name(policy), REQUESTS, c.work.rate_per_s, steps, t[1 + RUNS / 2], t[1],
           t[RUNS], (double)REQUESTS / t[1 + RUNS / 2], 1e6 * t[1 + RUNS / 2] / (double)steps,
           sink);
}

static double
peak_rss_bytes(void)
{
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    return 1024.0 * (double)ru.ru_maxrss; /* Linux: kilobytes */
}

/* peak RSS growth of one run of n requests at 70% of capacity, discarding or keeping results */
static void
bench_memory(const struct hw_profile *hw, const struct mdl_profile *m, long n, bool discard)
{
    struct sim_config c;
    memset(&c, 0, sizeof c);
    roof_config_init(&c.engine, hw, m, ROOF_DECODE);
    c.engine.weights = c.engine.act = c.engine.kv = DT_BF16;
    c.instances = 1;
    sim_sched_defaults(&c.sched, SIM_CONTINUOUS, m);
    c.work.process = SIM_POISSON;
    c.work.rate_per_s = 1;
    c.work.prompt.kind = c.work.output.kind = SIM_DIST_LOGNORMAL;
    c.work.prompt.mean = 200;
    c.work.prompt.sd = 250;
    c.work.prompt.max = 4096;
    c.work.output.mean = 180;
    c.work.output.sd = 150;
    c.work.output.max = 2048;
    c.work.requests = n;
    c.seed = 1;
    c.discard_requests = discard;
    struct sim_analytic a;
    if (sim_analytic(&c, &a) != 0)
        exit(1);
    c.work.rate_per_s = 0.7 * a.capacity_req_per_s;
    double before = peak_rss_bytes(), t0 = bench_now_s(), c0 = cpu_s();
    struct sim_result r;
    if (sim_run(&c, &r, NULL) != 0) {
        fprintf(stderr, "bench_sim: simulation failed\n");
        exit(1);
    }
    double t = bench_now_s() - t0, tc = cpu_s() - c0, grew = peak_rss_bytes() - before;
    printf("sim memory: %ld continuous requests, results %s: %.2f s = %.0f requests/s (CPU %.2f s"
           " = %.0f requests/s), peak RSS +%.1f MB = %.1f bytes/request (checksum %.4g)\n",
           n, discard ? "discarded" : "kept    ", t, (double)n / t, tc, (double)n / tc, grew / 1e6,
           grew / (double)n, r.e2e.p99);
    sim_result_release(&r);
}

int
main(void)
{
    prof_set_data_dir(getenv("ROOFLINE_DATA") ? getenv("ROOFLINE_DATA") : ".");
    struct err_list errs = {0};
    struct hw_profile *hw = hw_find("h100-sxm", &errs);
    struct mdl_profile *m = mdl_find("llama-3-8b", &errs);
    err_list_release(&errs);
    if (!hw || !m) {
        fprintf(stderr, "bench_sim: cannot load h100-sxm / llama-3-8b\n");
        return 1;
    }
    enum sim_policy p[4] = {SIM_STATIC, SIM_CONTINUOUS, SIM_CHUNKED, SIM_DISAGGREGATED};
    for (int i = 0; i < 4; i++)
        bench(hw, m, p[i]);
    long n = getenv("SIM_BENCH_REQUESTS") ? atol(getenv("SIM_BENCH_REQUESTS")) : 1000000;
    if (n > 0) {
        /* discarded first: the peak it sets is below the kept run's */
        bench_memory(hw, m, n, true);
        bench_memory(hw, m, n, false);
    }
    hw_free(hw);
    mdl_free(m);
    return 0;
}
