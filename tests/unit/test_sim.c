/* The serving simulator: closed forms (M/D/1 waiting time, the saturation throughput of the
 * step-time bound), Little's law on every run, determinism, rejections, and the analytic
 * estimate against the simulation. docs/simulate.md#tests explains the tolerances. */
#include "test.h"

#include "core/calib.h"
#include "core/fits.h"
#include "core/hw.h"
#include "core/model.h"
#include "core/serving.h"
#include "io/scenario.h"
#include "render/chart_sim.h"
#include "sim/heap.h"
#include "sim/sim.h"
#include "sim/sim_int.h"

#include <stdlib.h>

static struct hw_profile *H100;
static struct mdl_profile *LLAMA8B;

static void
base_config(struct sim_config *c, enum sim_policy policy)
{
    if (!H100) {
        H100 = test_hw("h100-sxm");
        LLAMA8B = test_model("llama-3-8b");
    }
    memset(c, 0, sizeof *c);
    roof_config_init(&c->engine, H100, LLAMA8B, ROOF_DECODE);
    c->engine.weights = DT_BF16;
    c->engine.act = DT_BF16;
    c->engine.kv = DT_BF16;
    c->instances = 1;
    sim_sched_defaults(&c->sched, policy, LLAMA8B);
    c->work.process = SIM_POISSON;
    c->work.rate_per_s = 1;
    c->work.prompt.kind = SIM_DIST_FIXED;
    c->work.prompt.value = 128;
    c->work.output.kind = SIM_DIST_FIXED;
    c->work.output.value = 32;
    c->work.requests = 200;
    c->seed = 1;
    c->slo.target = 0.99;
}

/* Little's law holds exactly when the run ends empty: the integral of N(t) equals the sum of
 * the times in the system (only rounding differs). */
static void
check_little(const struct sim_result *r)
{
    CHECK_NEAR(r->littles_l, r->littles_lambda_w, 1e-9);
}

/* The requests of `tr` (arrival, prompt, output per row) as the workload, lengths included. */
static void
use_trace(struct sim_config *c, struct sim_trace *tr)
{
    c->work.process = SIM_TRACE;
    c->work.prompt.kind = c->work.output.kind = SIM_DIST_TRACE;
    c->work.trace = tr;
    c->work.requests = 0;
}

/* decode step time of `count` sequences after `past` tokens, and a prefill of `prompt` */
static double
step_of(const struct sim_config *c, double count, double new_tokens, double past)
{
    struct sim_cost *cost = sim_cost_new(&c->engine);
    struct roof_seq q = {count, new_tokens, past, true};
    double t = sim_cost_step(cost, &q, 1);
    sim_cost_free(cost);
    return t;
}

TEST(sim_heap_order)
{
    struct sim_heap h;
    sim_heap_init(&h);
    double t[] = {5, 1, 3, 1, 4, 0, 2, 3};
    for (int i = 0; i < 8; i++)
        CHECK(sim_heap_push(&h, t[i], SIM_EV_ARRIVAL, 0, i) == 0);
    struct sim_event e;
    double last = -1;
    long last_sub = -1;
    int n = 0;
    while (sim_heap_pop(&h, &e) == 0) {
        CHECK(e.time_s >= last);
        if (e.time_s == last)
            CHECK(e.subject > last_sub); /* ties in insertion order */
        last = e.time_s;
        last_sub = e.subject;
        n++;
    }
    CHECK(n == 8);
    sim_heap_release(&h);
}

/* M/D/1: Poisson arrivals, one request at a time (max batch 1), fixed lengths, so a constant
 * service time S. Mean wait Wq = rho S / (2 (1 - rho)) (Pollaczek-Khinchine with zero service
 * variance). The tolerance is four standard errors of the simulated mean, estimated by batch
 * means over 20 batches of consecutive requests (waits are autocorrelated, so the i.i.d.
 * formula would understate it). */
TEST(sim_md1_waiting_time)
{
    struct sim_config c;
    base_config(&c, SIM_CONTINUOUS);
    c.sched.max_batch = 1;
    c.work.prompt.value = 64;
    c.work.output.value = 4;
    c.work.requests = 40000;
    c.work.warmup_requests = 1000;
    /* service: one prefill pass, then 3 decode steps after 64, 65, 66 tokens */
    double S = step_of(&c, 1, 64, 0) + step_of(&c, 1, 1, 64) + step_of(&c, 1, 1, 65) +
               step_of(&c, 1, 1, 66);
    double rho = 0.6;
    c.work.rate_per_s = rho / S;
    struct sim_result r;
    CHECK(sim_run(&c, &r, NULL) == 0);
    double wq = rho * S / (2.0 * (1.0 - rho));
    /* batch means */
    long nb = 20, per = (r.n_requests - c.work.warmup_requests) / nb;
    double bm[20], mean = 0;
    for (long b = 0; b < nb; b++) {
        double s = 0;
        for (long i = 0; i < per; i++)
            s += r.requests[c.work.warmup_requests + b * per + i].queue_s;
        bm[b] = s / (double)per;
        mean += bm[b] / (double)nb;
    }
    double var = 0;
    for (long b = 0; b < nb; b++)
        var += (bm[b] - mean) * (bm[b] - mean) / (double)(nb - 1);
    double se = sqrt(var / (double)nb);
    CHECK(se < 0.05 * wq); /* enough requests for the test to mean something */
    CHECK(fabs(r.queue.mean - wq) <= 4.0 * se);
    /* every request's service is S: e2e - queue */
    CHECK_NEAR(r.requests[5].e2e_s - r.requests[5].queue_s, S, 1e-9);
    check_little(&r);
    /* the analytic model is exact for the M/D/1 mean */
    struct sim_analytic a;
    CHECK(sim_analytic(&c, &a) == 0);
    CHECK_NEAR(a.service_s, S, 1e-9);
    CHECK_NEAR(a.queue_mean_s, wq, 1e-6);
    CHECK_NEAR(r.queue.mean, a.queue_mean_s, 4.0 * se / wq);
    /* the p99 from Kingman's exponential tail with the exact mean: the true M/D/1 tail decays
     * faster (rate theta with lambda (e^(theta S) - 1) = theta), so the estimate runs about 10%
     * high at rho = 0.6; 20% leaves room for the p99's own sampling error (a few %) */
    CHECK_NEAR(a.queue_p99_s, r.queue.p99, 0.20);
    sim_result_release(&r);
}

/* Saturation: every request arrives at time 0 (a trace), fixed lengths, so the engine runs
 * whole batches of B back to back: prefill of B prompts, then output - 1 decode steps.
 * Throughput = B / (batch time), from roof_step alone; static and continuous batching agree
 * because nothing joins a running batch. Exact up to rounding. */
TEST(sim_saturation_throughput)
{
    enum sim_policy pol[2] = {SIM_STATIC, SIM_CONTINUOUS};
    for (int k = 0; k < 2; k++) {
        struct sim_config c;
        base_config(&c, pol[k]);
        long B = 8, P = 128, O = 32, batches = 25;
        c.sched.max_batch = B;
        struct sim_trace_row rows[200];
        for (long i = 0; i < B * batches; i++) {
            rows[i].arrival_s = 0;
            rows[i].prompt_tokens = P;
            rows[i].output_tokens = O;
        }
        struct sim_trace tr = {rows, B * batches};
        c.work.process = SIM_TRACE;
        c.work.trace = &tr;
        c.work.requests = 0;
        double tb = step_of(&c, (double)B, (double)P, 0);
        /* a batch of B prompts is B groups of one: the same as count B */
        for (long j = 0; j < O - 1; j++)
            tb += step_of(&c, (double)B, 1, (double)(P + j));
        struct sim_result r;
        CHECK(sim_run(&c, &r, NULL) == 0);
        CHECK_NEAR(r.throughput_req_per_s, (double)B / tb, 1e-9);
        CHECK_NEAR(r.output_tokens_per_s, (double)(B * O) / tb, 1e-9);
        CHECK(r.batch.max == (double)B);
        CHECK(r.preemptions == 0);
        check_little(&r);
        sim_result_release(&r);
    }
}

static void
lognormal_lengths(struct sim_config *c)
{
    c->work.prompt.kind = SIM_DIST_LOGNORMAL;
    c->work.prompt.mean = 200;
    c->work.prompt.sd = 200;
    c->work.prompt.max = 4096;
    c->work.output.kind = SIM_DIST_LOGNORMAL;
    c->work.output.mean = 180;
    c->work.output.sd = 150;
    c->work.output.max = 2048;
}

/* Every scheduler, both preemption modes, a memory-starved pool: Little's law, conservation
 * of requests and tokens, determinism. */
TEST(sim_every_scheduler_invariants)
{
    enum sim_policy pol[4] = {SIM_STATIC, SIM_CONTINUOUS, SIM_CHUNKED, SIM_DISAGGREGATED};
    for (int k = 0; k < 4; k++)
        for (int pre = 0; pre < 2; pre++) {
            struct sim_config c;
            base_config(&c, pol[k]);
            lognormal_lengths(&c);
            c.instances = pol[k] == SIM_DISAGGREGATED ? 3 : 2;
            c.sched.preempt = pre ? SIM_PREEMPT_SWAP : SIM_PREEMPT_RECOMPUTE;
            /* about 3,000 blocks of 16 tokens: a few dozen sequences, so preemption happens */
            c.sched.kv_fraction = 0.01;
            c.work.rate_per_s = 12;
            c.work.requests = 1500;
            c.work.warmup_requests = 100;
            c.slo.ttft_s = 1.0;
            c.slo.itl_s = 0.05;
            struct sim_result r, r2;
            CHECK(sim_run(&c, &r, NULL) == 0);
            check_little(&r);
            CHECK(r.arrived == 1500);
            CHECK(r.completed + r.rejected == r.arrived);
            CHECK(r.measured == 1400);
            long toks = 0;
            for (long i = 0; i < r.n_requests; i++) {
                const struct sim_request *q = &r.requests[i];
                if (q->status != SIM_REQ_DONE)
                    continue;
                toks += q->output_tokens;
                CHECK(q->ttft_s >= q->queue_s);
                CHECK(q->e2e_s >= q->ttft_s);
                CHECK(q->queue_s >= 0);
            }
            CHECK(toks > 0);
            if (pol[k] != SIM_STATIC && pol[k] != SIM_DISAGGREGATED)
                CHECK(r.preemptions > 0);
            CHECK(r.kv_occupancy.max <= 1.0);
            CHECK(r.slo_attainment >= 0 && r.slo_attainment <= 1);
            CHECK(sim_run(&c, &r2, NULL) == 0);
            CHECK(r2.n_requests == r.n_requests);
            CHECK(memcmp(r.requests, r2.requests, (size_t)r.n_requests * sizeof *r.requests) == 0);
            CHECK(r.steps == r2.steps);
            sim_result_release(&r);
            sim_result_release(&r2);
        }
}

/* The analytic estimate against the simulation, per scheduler: Poisson arrivals at 30% and 60%
 * of the estimated capacity, 5,000 requests (500 warm-up). The sampling error of a mean is then
 * about 2%, of a p99 5-10%, so the tolerances bound the approximation's own error, measured over
 * loads 0.2-0.8 (docs/simulate.md#analytic). Below saturation the throughput equals the arrival
 * rate within the sampling error of 4,500 Poisson arrivals (1/sqrt(4500) = 1.5%: 5%) where the
 * run is long against its drain tail (continuous batching here: 60-120 s of arrivals). */
struct analytic_tol {
    double ttft, ttft_p99, tpot, e2e, e2e_p99;
    bool throughput; /* check throughput = rate: only where the drain tail is short against the
                      * run (the window counts it, as vLLM's benchmark does) */
};

static void
analytic_vs_sim(struct sim_config *c, double load, const struct analytic_tol *t)
{
    int failed_before = test_current_failed;
    test_current_failed = 0;
    c->work.requests = 5000;
    c->work.warmup_requests = 500;
    struct sim_analytic a;
    CHECK(sim_analytic(c, &a) == 0);
    c->work.rate_per_s = load * a.capacity_req_per_s;
    CHECK(sim_analytic(c, &a) == 0);
    CHECK(a.stable);
    struct sim_result r;
    if (sim_run(c, &r, NULL) != 0) {
        FAIL_AT("the simulation failed");
        return;
    }
    CHECK_NEAR(a.ttft_mean_s, r.ttft.mean, t->ttft);
    CHECK_NEAR(a.ttft_p99_s, r.ttft.p99, t->ttft_p99);
    CHECK_NEAR(a.tpot_mean_s, r.tpot.mean, t->tpot);
    CHECK_NEAR(a.e2e_mean_s, r.e2e.mean, t->e2e);
    CHECK_NEAR(a.e2e_p99_s, r.e2e.p99, t->e2e_p99);
    if (t->throughput)
        CHECK_NEAR(r.throughput_req_per_s, c->work.rate_per_s, 0.05);
    check_little(&r);
    if (test_current_failed)
        fprintf(stderr, "  (in: %s, load %.1f, prompt %s mean %.0f)\n",
                sim_policy_name(c->sched.policy), load,
                c->work.prompt.kind == SIM_DIST_FIXED ? "fixed" : "lognormal",
                c->work.prompt.kind == SIM_DIST_FIXED ? c->work.prompt.value : c->work.prompt.mean);
    test_current_failed |= failed_before;
    sim_result_release(&r);
}

static void
fixed_lengths(struct sim_config *c)
{
    c->work.prompt.value = 200;
    c->work.output.value = 180;
}

/* long prompts, widely spread, so that some span several steps of chunked prefill */
static void
long_prompts(struct sim_config *c)
{
    lognormal_lengths(c);
    c->work.prompt.mean = 1000;
    c->work.prompt.sd = 1200;
    c->work.prompt.max = 7000;
    c->work.output.mean = 250;
    c->work.output.sd = 200;
}

/* Continuous batching, fixed and ShareGPT-like lengths: TPOT and E2E means within 10% (one
 * decode step at the mean batch and context stands for all), the TTFT mean within 20% (it rests
 * on the residual of the step in progress, the crudest part), p99s within 30% (an exponential
 * tail added to the p99 prompt and output). Under no_evict a step prefills or decodes (the
 * colocated model); under vllm decodes and whole prompts share the step, as in vLLM v1 (the
 * chunked model's prompt server). */
TEST(sim_analytic_vs_simulation)
{
    const struct analytic_tol tol = {0.20, 0.30, 0.10, 0.10, 0.30, true};
    enum sim_admission adm[2] = {SIM_ADMIT_NO_EVICT, SIM_ADMIT_VLLM};
    for (int a = 0; a < 2; a++)
        for (int k = 0; k < 2; k++)
            for (int fixed = 0; fixed < 2; fixed++) {
                struct sim_config c;
                base_config(&c, SIM_CONTINUOUS);
                c.sched.admission = adm[a];
                if (fixed)
                    fixed_lengths(&c);
                else
                    lognormal_lengths(&c);
                analytic_vs_sim(&c, k == 0 ? 0.3 : 0.6, &tol);
            }
}

/* Chunked prefill, ShareGPT-like lengths and long prompts. Over loads 0.2-0.8 the errors were at
 * most: TTFT mean 21%, TTFT p99 22%, TPOT 11%, E2E mean 13%, E2E p99 14% (at 0.3 and 0.6: 13%,
 * 11%, 5%, 7%, 9%). The earlier form (a fluid share of prompt tokens in every step, no queue for
 * them) had TTFT means 3-13x low on llama-3-70b scenarios like scenarios/chunked.yaml. */
TEST(sim_analytic_chunked_vs_simulation)
{
    const struct analytic_tol tol = {0.20, 0.25, 0.10, 0.12, 0.15, false};
    for (int k = 0; k < 2; k++)
        for (int longp = 0; longp < 2; longp++) {
            struct sim_config c;
            base_config(&c, SIM_CHUNKED);
            if (longp)
                long_prompts(&c);
            else
                lognormal_lengths(&c);
            analytic_vs_sim(&c, k == 0 ? 0.3 : 0.6, &tol);
        }
}

/* Static batching, fixed and ShareGPT-like lengths. Over loads 0.2-0.8 the errors were at most
 * 3% (fixed) and: TTFT mean 10%, TTFT p99 10%, TPOT 2%, E2E 7%, E2E p99 7% (lognormal). The
 * earlier form (the residual of a batch taken as T / 2, the longest output as one quantile) had
 * TTFT means 42-64% low: a batch found in progress is a long one more often than not (the
 * inspection paradox). */
TEST(sim_analytic_static_vs_simulation)
{
    const struct analytic_tol tol = {0.15, 0.20, 0.05, 0.10, 0.15, false};
    for (int k = 0; k < 2; k++)
        for (int fixed = 0; fixed < 2; fixed++) {
            struct sim_config c;
            base_config(&c, SIM_STATIC);
            if (fixed)
                fixed_lengths(&c);
            else
                lognormal_lengths(&c);
            analytic_vs_sim(&c, k == 0 ? 0.3 : 0.6, &tol);
        }
}

/* Disaggregated serving, one prefill and two decode instances, fixed and ShareGPT-like lengths.
 * Over loads 0.2-0.6 the errors were at most: TTFT mean 11%, TTFT p99 16%, TPOT 6%, E2E 7%, E2E
 * p99 10%. The earlier form (the prefill side as a bulk server, residual T / 2) had TTFT means
 * 15-74% low. */
TEST(sim_analytic_disaggregated_vs_simulation)
{
    const struct analytic_tol tol = {0.20, 0.25, 0.10, 0.10, 0.15, false};
    for (int k = 0; k < 2; k++)
        for (int fixed = 0; fixed < 2; fixed++) {
            struct sim_config c;
            base_config(&c, SIM_DISAGGREGATED);
            c.instances = 3;
            c.sched.prefill_instances = 1;
            if (fixed)
                fixed_lengths(&c);
            else
                lognormal_lengths(&c);
            analytic_vs_sim(&c, k == 0 ? 0.3 : 0.6, &tol);
        }
}

/* Bursty arrivals (gamma, cv 3) at 30% load, ShareGPT-like lengths. Chunked prefill and
 * disaggregated serving: the prompt server's wait is GI/M/1's (exact for renewal arrivals with
 * exponential service) scaled for the service's variability; errors were within 10% (chunked:
 * TTFT -9%, TPOT -9%, E2E -10%, E2E p99 -14%). Continuous batching adds the excess of the
 * prompts' GI/G/1 wait for prefill over its M/G/1 value to the Poisson form: TTFT +8%, its p99
 * +21% (over loads 0.2-0.8: means +5..+14%, p99s +8..+48%). Kingman's formula, used before, left
 * the TTFT means 2x (chunked) to 3x (continuous) low: a burst queues behind itself even at
 * light load. */
TEST(sim_analytic_bursty_vs_simulation)
{
    const struct analytic_tol tol[3] = {{0.20, 0.25, 0.15, 0.15, 0.20, false},
                                        {0.20, 0.25, 0.15, 0.15, 0.20, false},
                                        {0.20, 0.35, 0.10, 0.10, 0.20, false}};
    enum sim_policy pol[3] = {SIM_CHUNKED, SIM_DISAGGREGATED, SIM_CONTINUOUS};
    for (int k = 0; k < 3; k++) {
        struct sim_config c;
        base_config(&c, pol[k]);
        if (pol[k] == SIM_DISAGGREGATED) {
            c.instances = 3;
            c.sched.prefill_instances = 1;
        }
        lognormal_lengths(&c);
        c.work.process = SIM_GAMMA;
        c.work.cv = 3;
        analytic_vs_sim(&c, 0.3, &tol[k]);
    }
}

/* The simulator's step cost evaluates everything but attention once per batch size: it must
 * equal roof_step at any context, on the first call for a size and on later ones. */
TEST(sim_cost_step_matches_roof_step)
{
    struct sim_config c;
    base_config(&c, SIM_CONTINUOUS);
    struct sim_cost *cost = sim_cost_new(&c.engine);
    CHECK(cost != NULL);
    if (!cost)
        return;
    struct roof_result *r = calloc(1, sizeof *r);
    double pasts[4] = {100, 5000, 100, 777};
    for (int i = 0; i < 4; i++) {
        struct roof_seq q[2] = {{12, 1, pasts[i], true}, {4, 1, pasts[i] / 2, true}};
        struct roof_seq copy[2] = {q[0], q[1]};
        c.engine.phase = ROOF_DECODE;
        CHECK(roof_step(&c.engine, q, 2, r) == 0);
        double t = sim_cost_step(cost, copy, 2);
        CHECK_NEAR(t, r->time_s, 1e-12);
    }
    free(r);
    sim_cost_free(cost);
}

/* Requests a real engine turns away are rejected at arrival and counted by reason; the rest
 * are served. */
TEST(sim_rejections)
{
    struct sim_config c;
    base_config(&c, SIM_CONTINUOUS);
    c.sched.max_tokens_per_step = 1024;
    /* 0.0005 of the pool, 84.94 GB (the H100's 79.11 GiB) - 16.06 GB of weights - 8.49 GB
     * reserve = 60.39 GB: 30.19 MB = 14 blocks of 16 x 131,072 B, 224 tokens per sequence */
    c.sched.kv_fraction = 0.0005;
    struct sim_trace_row rows[] = {
        {0.0, 0, 10},    /* empty prompt */
        {0.1, 10, 0},    /* no output */
        {0.2, 9000, 10}, /* over Llama-3's 8192 context */
        {0.3, 100, 10},  /* fine */
        {0.4, 1000, 10}, /* over the KV pool */
        {0.5, 150, 50},  /* fine */
    };
    struct sim_trace tr = {rows, 6};
    use_trace(&c, &tr);
    struct sim_result r;
    CHECK(sim_run(&c, &r, NULL) == 0);
    CHECK(r.kv_blocks == 14);
    CHECK(r.rejected == 4);
    CHECK(r.completed == 2);
    CHECK(r.rejected_by[SIM_REJ_EMPTY] == 2);
    CHECK(r.rejected_by[SIM_REJ_CONTEXT] == 1);
    CHECK(r.rejected_by[SIM_REJ_KV] == 1);
    CHECK(r.requests[0].status == SIM_REQ_REJECTED && isnan(r.requests[0].ttft_s));
    CHECK(r.requests[3].status == SIM_REQ_DONE);
    check_little(&r);
    sim_result_release(&r);
    /* without chunked prefill a prompt over the step budget is refused */
    rows[4].prompt_tokens = 150;
    c.sched.kv_fraction = 0.9;
    c.sched.max_tokens_per_step = 120;
    CHECK(sim_run(&c, &r, NULL) == 0);
    CHECK(r.rejected_by[SIM_REJ_BUDGET] == 2); /* 150 and 150 tokens */
    sim_result_release(&r);
    /* chunked prefill takes it in chunks */
    c.sched.policy = SIM_CHUNKED;
    CHECK(sim_run(&c, &r, NULL) == 0);
    CHECK(r.rejected_by[SIM_REJ_BUDGET] == 0);
    CHECK(r.completed == 3);
    sim_result_release(&r);
}

/* A closed loop keeps at most `users` requests in the system; gamma arrivals with cv 1 are
 * Poisson in distribution; tensor and pipeline parallelism run; different seeds differ. */
TEST(sim_closed_loop_and_parallel)
{
    struct sim_config c;
    base_config(&c, SIM_CHUNKED);
    lognormal_lengths(&c);
    c.work.process = SIM_CLOSED;
    c.work.users = 8;
    c.work.think_time_s = 0.5;
    c.work.requests = 400;
    struct sim_result r;
    CHECK(sim_run(&c, &r, NULL) == 0);
    check_little(&r);
    CHECK(r.littles_l <= 8.0);
    CHECK(r.arrived == 400);
    for (int i = 0; i < r.n_timeline; i++)
        CHECK(r.timeline[i].queued + r.timeline[i].running <= 8.0);
    CHECK(r.n_timeline > 10 && r.n_timeline <= 2 * SIM_TIMELINE_POINTS);
    sim_result_release(&r);

    base_config(&c, SIM_CONTINUOUS);
    c.engine.tp = 2;
    c.engine.pp = 2;
    c.instances = 2;
    c.work.process = SIM_GAMMA;
    c.work.cv = 1.0;
    c.work.rate_per_s = 20;
    struct sim_result r2;
    CHECK(sim_run(&c, &r, NULL) == 0);
    check_little(&r);
    CHECK(r.completed == 200);
    c.seed = 2;
    CHECK(sim_run(&c, &r2, NULL) == 0);
    CHECK(r.requests[10].arrival_s != r2.requests[10].arrival_s);
    sim_result_release(&r);
    sim_result_release(&r2);
    /* a failure is reported, not printed: no KV memory left */
    c.sched.kv_fraction = 0.9;
    c.engine.tp = c.engine.pp = 1;
    c.engine.reserve_bytes = 79e9;
    struct err_list errs = {0};
    CHECK(sim_run(&c, &r, &errs) == -1);
    CHECK(errs.n == 1);
    if (errs.n)
        CHECK_CONTAINS(errs.items[0].msg, "no memory for the KV cache");
    err_list_release(&errs);
}

/* --max-rate: bisection finds a rate that passes, and a few percent above it fails. */
TEST(sim_max_rate_brackets)
{
    struct sim_config c;
    base_config(&c, SIM_CONTINUOUS);
    lognormal_lengths(&c);
    c.work.requests = 1000;
    c.work.warmup_requests = 100;
    c.slo.ttft_s = 0.05;
    c.slo.itl_s = 0.02;
    struct sim_maxrate m;
    CHECK(sim_max_rate(&c, 0.95, 0.01, &m, NULL) == 0);
    CHECK(m.rate_per_s > 0);
    CHECK(m.slo_attainment >= 0.95);
    double lowest_fail = INFINITY;
    for (int i = 0; i < m.n_probes; i++)
        if (!m.probes[i].meets && m.probes[i].rate_per_s < lowest_fail)
            lowest_fail = m.probes[i].rate_per_s;
    CHECK(lowest_fail > m.rate_per_s);
    CHECK(lowest_fail <= m.rate_per_s * 1.011);
    c.slo.ttft_s = c.slo.itl_s = 0;
    struct err_list errs = {0};
    CHECK(sim_max_rate(&c, 0.95, 0.01, &m, &errs) == -1);
    err_list_release(&errs);
}

/* The shipped example scenarios load and run, with Little's law. */
TEST(sim_example_scenarios)
{
    const char *names[] = {"static", "continuous", "chunked", "disaggregated"};
    for (int i = 0; i < 4; i++) {
        char path[512];
        snprintf(path, sizeof path, "%s/scenarios/%s.yaml", test_data_dir(), names[i]);
        struct err_list errs = {0};
        struct scenario *s = scenario_load(path, &errs);
        CHECK(s != NULL);
        for (size_t k = 0; k < errs.n; k++)
            FAIL_AT("%s: %s", path, errs.items[k].msg);
        err_list_release(&errs);
        if (!s)
            continue;
        struct sim_config c;
        scenario_sim_config(s, &c);
        CHECK((int)c.sched.policy == i);
        struct sim_result r;
        CHECK(sim_run(&c, &r, NULL) == 0);
        check_little(&r);
        CHECK(r.completed > 0);
        sim_result_release(&r);
        scenario_free(s);
    }
}

/* Disaggregated serving: the timeline says which kind of instance took each step (both kinds
 * appear; every other policy mixes), and the chart's batch panel draws the prefill and the
 * decode instances' steps as two series holding every timeline sample between them. */
TEST(sim_timeline_step_kinds)
{
    char path[512];
    snprintf(path, sizeof path, "%s/scenarios/disaggregated.yaml", test_data_dir());
    struct err_list errs = {0};
    struct scenario *s = scenario_load(path, &errs);
    CHECK(s != NULL);
    err_list_release(&errs);
    if (!s)
        return;
    struct sim_config c;
    scenario_sim_config(s, &c);
    c.work.requests = 600;
    c.work.warmup_requests = 50;
    struct sim_result r;
    CHECK(sim_run(&c, &r, NULL) == 0);
    int n[3] = {0, 0, 0};
    for (int i = 0; i < r.n_timeline; i++)
        if (r.timeline[i].kind <= SIM_STEP_DECODE)
            n[r.timeline[i].kind]++;
    CHECK(n[SIM_STEP_MIXED] == 0);
    CHECK(n[SIM_STEP_PREFILL] > 0);
    CHECK(n[SIM_STEP_DECODE] > 0);
    CHECK(n[SIM_STEP_PREFILL] + n[SIM_STEP_DECODE] == r.n_timeline);
    struct chart *ch = chart_build_simulate(&c, &r, NULL, &errs);
    CHECK(ch != NULL);
    if (ch) {
        const struct chart_panel *b = &ch->panels[2];
        size_t pre = 0, dec = 0;
        for (size_t i = 0; i < b->n_lines; i++) {
            pre += b->lines[i].style.rgb == CHART_VERMILLION ? b->lines[i].n : 0;
            dec += b->lines[i].style.rgb == CHART_BLUE ? b->lines[i].n : 0;
        }
        CHECK(pre == (size_t)n[SIM_STEP_PREFILL]);
        CHECK(dec == (size_t)n[SIM_STEP_DECODE]);
        CHECK(b->n_legend >= 2);
        CHECK_CONTAINS(b->legend[0].text, "decode");
        CHECK_CONTAINS(b->legend[1].text, "prefill");
        chart_free(ch);
    }
    sim_result_release(&r);
    /* a mixed policy: every step mixed, one batch series */
    base_config(&c, SIM_CONTINUOUS);
    CHECK(sim_run(&c, &r, NULL) == 0);
    for (int i = 0; i < r.n_timeline; i++)
        CHECK(r.timeline[i].kind == SIM_STEP_MIXED);
    ch = chart_build_simulate(&c, &r, NULL, &errs);
    CHECK(ch != NULL);
    if (ch) {
        CHECK_CONTAINS(ch->panels[2].legend[0].text, "sequences in the step");
        chart_free(ch);
    }
    CHECK(err_count(&errs, ERR_ERROR) == 0);
    err_list_release(&errs);
    sim_result_release(&r);
    scenario_free(s);
}

/* The chart's CDF reduction against hand-computed steps: 10 values 1..10 (shuffled, a NaN
 * skipped) at 4 points: probabilities 0 and 0.45 in the body (indices ceil(p n) - 1 = 0 and 4),
 * 0.95 and 1 in the tail (indices 9 and 9, the duplicate dropped). */
TEST(sim_chart_cdf_steps)
{
    double v[11] = {7, 3, NAN, 10, 1, 5, 9, 2, 8, 4, 6}, x[8], y[8];
    long n = chart_sim_cdf(v, 11, x, y, 4);
    CHECK(n == 3);
    CHECK_NEAR(x[0], 1, 1e-12);
    CHECK_NEAR(y[0], 0.1, 1e-12);
    CHECK_NEAR(x[1], 5, 1e-12);
    CHECK_NEAR(y[1], 0.5, 1e-12);
    CHECK_NEAR(x[2], 10, 1e-12);
    CHECK_NEAR(y[2], 1.0, 1e-12);
    /* a large sample: ascending, within [0, 1], ending at the maximum with y = 1 */
    double big[1000], bx[400], by[400];
    for (int i = 0; i < 1000; i++)
        big[i] = (double)((i * 7919) % 1000);
    long m = chart_sim_cdf(big, 1000, bx, by, 400);
    CHECK(m > 280 && m <= 400); /* 200 body points, the tail holds only 100 values */
    for (long i = 1; i < m; i++)
        CHECK(bx[i] > bx[i - 1] && by[i] > by[i - 1]);
    CHECK_NEAR(bx[m - 1], 999, 1e-12);
    CHECK_NEAR(by[m - 1], 1, 1e-12);
    double none[2] = {NAN, INFINITY};
    CHECK(chart_sim_cdf(none, 2, x, y, 4) == 0);
}

/* The simulate chart: four panels, a CDF per latency in the first, the timeline in the others;
 * a run with nothing measured is an error, not an empty chart. */
TEST(sim_chart_build)
{
    struct sim_config c;
    base_config(&c, SIM_CONTINUOUS);
    c.slo.ttft_s = 0.5;
    c.work.warmup_requests = 20;
    struct sim_result r;
    CHECK(sim_run(&c, &r, NULL) == 0);
    struct err_list errs = {0};
    struct chart *ch = chart_build_simulate(&c, &r, "test", &errs);
    CHECK(ch != NULL);
    if (ch) {
        CHECK(ch->n_panels == 4);
        /* four CDFs and the TTFT SLO line */
        CHECK(ch->panels[0].n_lines == 5);
        CHECK(ch->panels[0].n_points == 3); /* p99 of TTFT, TPOT, E2E */
        CHECK(ch->panels[1].n_lines >= 2);  /* waiting, running */
        CHECK(ch->panels[3].x.max == r.makespan_s);
        CHECK(strstr(ch->footnote, "p99: TTFT") != NULL);
        chart_free(ch);
    }
    CHECK(err_count(&errs, ERR_ERROR) == 0);
    c.work.warmup_requests = c.work.requests;
    sim_result_release(&r);
    CHECK(sim_run(&c, &r, NULL) == 0);
    CHECK(chart_build_simulate(&c, &r, "test", &errs) == NULL);
    CHECK(err_count(&errs, ERR_ERROR) == 1);
    err_list_release(&errs);
    sim_result_release(&r);
}

/* The simulate chart's subtitle names vLLM's Marlin MoE where the run's experts take it
 * (docs/physics.md#moe-kernels), and nothing where they do not. */
TEST(sim_chart_marlin_subtitle)
{
    struct hw_profile *hw = test_hw("h200");
    struct mdl_profile *m = test_model("gpt-oss-120b");
    struct sim_config c;
    base_config(&c, SIM_CONTINUOUS);
    roof_config_init(&c.engine, hw, m, ROOF_DECODE);
    c.engine.weights = DT_MXFP4_MOE_BF16;
    c.engine.act = DT_FP16;
    c.engine.kv = DT_FP16;
    sim_sched_defaults(&c.sched, SIM_CONTINUOUS, m);
    c.work.requests = 20;
    c.engine.tuning.marlin_moe_vs_peak = 0.32;
    for (int marlin = 0; marlin < 2; marlin++) {
        c.engine.mxfp4_marlin = marlin;
        struct sim_result r;
        CHECK(sim_run(&c, &r, NULL) == 0);
        struct chart *ch = chart_build_simulate(&c, &r, NULL, NULL);
        CHECK(ch != NULL);
        if (ch)
            CHECK((strstr(ch->subtitle, "gpt-oss-120b on 1 x h200, experts through Marlin") !=
                   NULL) == (marlin == 1));
        chart_free(ch);
        sim_result_release(&r);
    }
    hw_free(hw);
    mdl_free(m);
}

/* An admission policy on a pool of `blocks` KV blocks (a fraction above a whole number keeps the
 * rounding down exact) */
static void
admit_with_blocks(struct sim_config *c, enum sim_policy policy, enum sim_admission admission,
                  double blocks_wanted)
{
    base_config(c, policy);
    c->sched.admission = admission;
    double blocks, bb, pool;
    c->sched.kv_fraction = 1;
    CHECK(sim_kv_pool(c, &blocks, &bb, &pool) == 0);
    c->sched.kv_fraction = blocks_wanted / blocks;
}

/* vLLM admission (continuous batching) on a pool of `blocks` KV blocks */
static void
vllm_with_blocks(struct sim_config *c, double blocks_wanted)
{
    admit_with_blocks(c, SIM_CONTINUOUS, SIM_ADMIT_VLLM, blocks_wanted);
}

/* vllm admission (vLLM v1) by hand, without chunked prefill, on a pool of 9 blocks of 16 tokens:
 * A and B (prompt 64 = 4 blocks, output 40) arrive together and prefill in one step. In step 2
 * A's decode takes the last free block and B's finds none, so B preempts itself: its 4 blocks go
 * to the free queue in reverse order, and B waits for prompt + 1 token = 65 tokens (5 blocks,
 * more than the 4 free: the whole input must fit). A decodes alone (steps 2-40) and takes one
 * block at past 80 and one at past 96, from the head of the queue: B's last two. When A finishes,
 * B takes back its first 2 blocks as cache hits and computes 65 - 32 = 33 tokens (step 41), 32
 * of them again, then decodes its 38 remaining tokens (steps 42-79). */
TEST(sim_vllm_preempt_and_cache_hits_by_hand)
{
    struct sim_config c;
    vllm_with_blocks(&c, 9.5);
    struct sim_trace_row rows[] = {{0.0, 64, 40}, {0.0, 64, 40}};
    struct sim_trace tr = {rows, 2};
    use_trace(&c, &tr);
    struct sim_result r;
    CHECK(sim_run(&c, &r, NULL) == 0);
    CHECK(r.kv_blocks == 9);
    CHECK(r.completed == 2 && r.preemptions == 1);
    CHECK_NEAR(r.recomputed_tokens, 32, 1e-12); /* tokens 33-64 again; the 65th is new */
    struct sim_cost *cost = sim_cost_new(&c.engine);
    struct roof_seq two[2] = {{1, 64, 0, true}, {1, 64, 0, true}};
    double t = sim_cost_step(cost, two, 2), a_done;
    for (int k = 2; k <= 40; k++) {
        struct roof_seq d = {1, 1, 64 + (k - 2), true};
        t += sim_cost_step(cost, &d, 1);
    }
    a_done = t;
    struct roof_seq re = {1, 33, 32, true};
    t += sim_cost_step(cost, &re, 1);
    for (int k = 42; k <= 79; k++) {
        struct roof_seq d = {1, 1, 65 + (k - 42), true};
        t += sim_cost_step(cost, &d, 1);
    }
    sim_cost_free(cost);
    CHECK_NEAR(r.requests[0].e2e_s, a_done, 1e-9);
    CHECK_NEAR(r.requests[1].e2e_s, t, 1e-9);
    CHECK(r.requests[1].preemptions == 1);
    CHECK(r.requests[0].recomputed_tokens == 0 && r.requests[1].recomputed_tokens == 32);
    check_little(&r);
    sim_result_release(&r);
}

/* vllm admission (vLLM v1) by hand with three requests, without chunked prefill, on a pool of 13
 * blocks of 16 tokens: A (prompt 64, output 10), B (80, 30) and C (40, 30) arrive together;
 * each whole input fits when it is admitted (4, 5, 3 blocks), leaving 1 free, and they prefill
 * in one step. Step 2: A's decode (token 65) takes the free block; B's (token 81) finds none and
 * preempts the last of the running list, C, not itself (Scheduler.schedule: self.running.pop()).
 * C's 3 blocks go to the free queue in reverse order (KVCacheManager.free), so B takes C's last
 * block and C's first two survive. C waits: its input, prompt + 1 token = 41 tokens, needs 3
 * blocks and 2 are free. A finishes after step 10 and its 5 blocks go behind C's two. Step 11:
 * C comes back with its 2 surviving blocks as cache hits (at most (41 - 1) / 16 = 2) and
 * computes 41 - 32 = 9 tokens, 8 of them recomputed (its KV had reached 40), beside B's decode;
 * its third block is A's last. B takes A's next blocks at tokens 97 (step 18), C at 49 (step 19)
 * and 65 (step 35): no second preemption. B ends after step 30, C after step 39. */
TEST(sim_vllm_victim_is_last_by_hand)
{
    struct sim_config c;
    vllm_with_blocks(&c, 13.5);
    struct sim_trace_row rows[] = {{0.0, 64, 10}, {0.0, 80, 30}, {0.0, 40, 30}};
    struct sim_trace tr = {rows, 3};
    use_trace(&c, &tr);
    struct sim_result r;
    CHECK(sim_run(&c, &r, NULL) == 0);
    CHECK(r.kv_blocks == 13);
    CHECK(r.completed == 3 && r.preemptions == 1);
    CHECK(r.requests[0].preemptions == 0 && r.requests[1].preemptions == 0);
    CHECK(r.requests[2].preemptions == 1);
    CHECK_NEAR(r.recomputed_tokens, 8, 1e-12);
    CHECK(r.requests[0].recomputed_tokens == 0 && r.requests[1].recomputed_tokens == 0);
    CHECK(r.requests[2].recomputed_tokens == 8);
    struct sim_cost *cost = sim_cost_new(&c.engine);
    struct roof_seq three[3] = {{1, 64, 0, true}, {1, 80, 0, true}, {1, 40, 0, true}};
    double t = sim_cost_step(cost, three, 3), a_done, b_done;
    for (int k = 2; k <= 10; k++) {
        struct roof_seq ab[2] = {{1, 1, 64 + (k - 2), true}, {1, 1, 80 + (k - 2), true}};
        t += sim_cost_step(cost, ab, 2);
    }
    a_done = t;
    struct roof_seq back[2] = {{1, 1, 89, true}, {1, 9, 32, true}};
    t += sim_cost_step(cost, back, 2);
    for (int k = 12; k <= 30; k++) {
        struct roof_seq bc[2] = {{1, 1, 89 + (k - 11), true}, {1, 1, 41 + (k - 12), true}};
        t += sim_cost_step(cost, bc, 2);
    }
    b_done = t;
    for (int k = 31; k <= 39; k++) {
        struct roof_seq d = {1, 1, 41 + (k - 12), true};
        t += sim_cost_step(cost, &d, 1);
    }
    sim_cost_free(cost);
    CHECK_NEAR(r.requests[0].e2e_s, a_done, 1e-9);
    CHECK_NEAR(r.requests[1].e2e_s, b_done, 1e-9);
    CHECK_NEAR(r.requests[2].e2e_s, t, 1e-9);
    check_little(&r);
    sim_result_release(&r);
}

/* Device time of one step (the engine's host work left out: step and token overheads 0). */
static double
device_step(const struct sim_config *c, struct roof_seq *seqs, int n)
{
    struct sim_config d = *c;
    d.engine.tuning.step_overhead_s = 0;
    d.engine.tuning.token_overhead_s = 0;
    struct sim_cost *cost = sim_cost_new(&d.engine);
    double t = sim_cost_step(cost, seqs, n);
    sim_cost_free(cost);
    return t;
}

/* Overlapped host work (sim_cost_overlap_host): a step of 5 decodes and a 300-token prompt chunk
 * that samples nothing, at tp 1 and tp 2, costs max(device, host) with host by hand = step
 * overhead 1 ms + 5 sampling sequences x the token overhead: 2 ms (0.2 ms each, below the device
 * time) and 11 ms (2 ms each, above it); device = the step without the overheads. */
TEST(sim_cost_overlap_is_max_by_hand)
{
    struct sim_config c;
    base_config(&c, SIM_CHUNKED);
    double per_token[2] = {0.2e-3, 2e-3}, host[2] = {2e-3, 11e-3};
    for (int tp = 1; tp <= 2; tp++)
        for (int k = 0; k < 2; k++) {
            c.engine.tp = tp;
            c.engine.tuning.step_overhead_s = 0;
            c.engine.tuning.token_overhead_s = 0;
            struct roof_seq b[2] = {{5, 1, 100, true}, {1, 300, 0, false}};
            double device = device_step(&c, b, 2);
            CHECK(k == 0 ? device > host[k] : device < host[k]);
            c.engine.tuning.step_overhead_s = 1e-3;
            c.engine.tuning.token_overhead_s = per_token[k];
            struct sim_cost *cost = sim_cost_new(&c.engine);
            struct roof_seq b2[2] = {{5, 1, 100, true}, {1, 300, 0, false}};
            CHECK_NEAR(sim_cost_step(cost, b2, 2), device + host[k], 1e-9);
            sim_cost_overlap_host(cost, true);
            struct roof_seq b3[2] = {{5, 1, 100, true}, {1, 300, 0, false}};
            CHECK_NEAR(sim_cost_step(cost, b3, 2), k == 0 ? device : host[k], 1e-9);
            sim_cost_free(cost);
        }
}

/* Launches of an eager prompt pass (sim_cost_launches) by hand. Llama-3-8B (32 dense layers):
 * 13 a layer (attention norm, QKV, scores, softmax, probabilities x V, output projection,
 * residual, MLP norm, gate, up, activation, down, residual) + embedding, final norm and LM head
 * = 419 at tp 1, + 2 all-reduces a layer = 483 at tp 2, whatever the prompt; piecewise: the 3
 * attention launches a layer = 96. DeepSeek-V3 at tp 8 (61 layers, the first 3 dense: 58 MoE
 * routers), the 1-token pass after 1 cached token of sglang PR #12160: 13 x 61 + 58 + 3 + 2 x 61
 * = 976; with SGLang's expert sum kernel 1034, and with its fused MoE's own launches 1266 (the
 * count behind engine_profiles/sglang.yaml's eager_launch). */
TEST(sim_eager_launches_by_hand)
{
    struct sim_config c;
    base_config(&c, SIM_CHUNKED);
    c.engine.phase = ROOF_PREFILL;
    for (int tp = 1; tp <= 2; tp++) {
        c.engine.tp = tp;
        struct sim_cost *cost = sim_cost_new(&c.engine);
        struct roof_seq a = {1, 300, 0, true}, b[2] = {{1, 2048, 0, true}, {3, 1, 90, true}};
        CHECK_NEAR(sim_cost_launches(cost, SIM_PREFILL_GRAPH_NONE, &a, 1), tp == 1 ? 419 : 483,
                   1e-6);
        CHECK_NEAR(sim_cost_launches(cost, SIM_PREFILL_GRAPH_NONE, b, 2), tp == 1 ? 419 : 483,
                   1e-6);
        CHECK_NEAR(sim_cost_launches(cost, SIM_PREFILL_GRAPH_PIECEWISE, &a, 1), 96, 1e-6);
        CHECK(sim_cost_launches(cost, SIM_PREFILL_GRAPH_FULL, &a, 1) == 0.0);
        sim_cost_free(cost);
    }
    struct hw_profile *hw = test_hw("h200");
    struct mdl_profile *m = test_model("deepseek-v3");
    struct roof_config e;
    roof_config_init(&e, hw, m, ROOF_PREFILL);
    e.weights = DT_FP8;
    e.act = DT_FP8;
    e.kv = DT_BF16;
    e.tp = 8;
    struct sim_cost *cost = sim_cost_new(&e);
    CHECK(cost != NULL);
    if (cost) {
        struct roof_seq one = {1, 1, 1, true}, k = {1, 1024, 0, true};
        CHECK_NEAR(sim_cost_launches(cost, SIM_PREFILL_GRAPH_NONE, &one, 1), 976, 1e-6);
        CHECK_NEAR(sim_cost_launches(cost, SIM_PREFILL_GRAPH_NONE, &k, 1), 976, 1e-6);
    }
    sim_cost_free(cost);
    /* SGLang's Triton fused MoE sums each token's expert rows in a kernel of its own
     * (moe_sum_kernel): one more a MoE layer, 976 + 58 = 1034 (the count behind
     * engine_profiles/sglang.yaml's eager_launch: 82.64 ms / 1034 = 79.9 us before its fused MoE
     * chain was counted) */
    e.tuning.moe_sum_kernel = true;
    cost = sim_cost_new(&e);
    CHECK(cost != NULL);
    if (cost) {
        struct roof_seq one = {1, 1, 1, true};
        CHECK_NEAR(sim_cost_launches(cost, SIM_PREFILL_GRAPH_NONE, &one, 1), 1034, 1e-6);
    }
    sim_cost_free(cost);
    /* and its Triton fused MoE's own chain (fused_moe_kernels 7, one quantisation before each
     * fp8 GEMM): 9 launches a MoE layer where the model's layer charges 5 (gate, up, activation,
     * down, sum), 4 more a MoE layer: 1034 + 4 x 58 = 1266, the count behind
     * engine_profiles/sglang.yaml's eager_launch: 82.64 ms / 1266 = 65.3 us */
    e.tuning.fused_moe_kernels = 7;
    e.tuning.fused_moe_quant_kernels = 1;
    cost = sim_cost_new(&e);
    CHECK(cost != NULL);
    if (cost) {
        struct roof_seq one = {1, 1, 1, true};
        CHECK_NEAR(sim_cost_launches(cost, SIM_PREFILL_GRAPH_NONE, &one, 1), 1266, 1e-6);
    }
    sim_cost_free(cost);
    mdl_free(m);
    /* gpt-oss-120b at tp 1, a 14002-token prompt (the context iterations of NVIDIA's
     * repro-gptoss-ttft log, docs/simulate.md#tensorrt-llms-pytorch-backend-checked-not-modelled):
     * 13 launches a layer x 36, 36 MoE routers, embedding, final norm and LM head, no all-reduce */
    m = test_model("gpt-oss-120b");
    roof_config_init(&e, hw, m, ROOF_PREFILL);
    e.tp = 1;
    cost = sim_cost_new(&e);
    CHECK(cost != NULL);
    if (cost) {
        struct roof_seq p = {1, 14002, 0, true};
        CHECK_NEAR(sim_cost_launches(cost, SIM_PREFILL_GRAPH_NONE, &p, 1), 36 * 13 + 36 + 3, 1e-6);
    }
    sim_cost_free(cost);
    hw_free(hw);
    mdl_free(m);
}

/* An eager prompt pass by hand (docs/simulate.md#eager-prefill): Llama-3-8B, a 300-token prompt
 * alone (L = 419 launches), step overhead h = 1 ms, device time D (the step without it, about
 * 8 ms). At 10 us a launch the host issues the pass in 4.19 ms < D: the step is h + D, as
 * graphed; at 50 us in 20.95 ms > D: h + 20.95 ms; with overlapped host work max(D, h + 20.95 ms).
 * A decode step is unchanged, and so is a step at pp 2. A lone request's TTFT is that step. */
TEST(sim_eager_prefill_step_by_hand)
{
    struct sim_config c;
    base_config(&c, SIM_CHUNKED);
    c.engine.tuning.step_overhead_s = 0;
    struct roof_seq a = {1, 300, 0, true};
    double D = device_step(&c, &a, 1), h = 1e-3;
    CHECK(D > 4.19e-3 && D < 20.95e-3);
    c.engine.tuning.step_overhead_s = h;
    struct sim_cost *cost = sim_cost_new(&c.engine);
    struct roof_seq d = {4, 1, 100, true};
    double decode = sim_cost_step(cost, &d, 1);
    sim_cost_eager_prefill(cost, SIM_PREFILL_GRAPH_NONE, 10e-6);
    CHECK_NEAR(sim_cost_step(cost, &a, 1), h + D, 1e-9);
    sim_cost_eager_prefill(cost, SIM_PREFILL_GRAPH_NONE, 50e-6);
    CHECK_NEAR(sim_cost_step(cost, &a, 1), h + 419 * 50e-6, 1e-9);
    CHECK_NEAR(sim_cost_step(cost, &d, 1), decode, 0);
    sim_cost_overlap_host(cost, true);
    CHECK_NEAR(sim_cost_step(cost, &a, 1), h + 419 * 50e-6, 1e-9);
    sim_cost_eager_prefill(cost, SIM_PREFILL_GRAPH_NONE, 1e-6);
    CHECK_NEAR(sim_cost_step(cost, &a, 1), D, 1e-9);
    sim_cost_free(cost);
    c.engine.pp = 2;
    cost = sim_cost_new(&c.engine);
    double pp2 = sim_cost_step(cost, &a, 1);
    sim_cost_eager_prefill(cost, SIM_PREFILL_GRAPH_NONE, 50e-6);
    CHECK_NEAR(sim_cost_step(cost, &a, 1), pp2, 0);
    sim_cost_free(cost);
    c.engine.pp = 1;

    struct sim_trace_row rows[] = {{0.0, 300, 2}};
    struct sim_trace tr = {rows, 1};
    use_trace(&c, &tr);
    c.sched.prefill_graph = SIM_PREFILL_GRAPH_NONE;
    c.sched.eager_launch_s = 50e-6;
    struct sim_result r;
    CHECK(sim_run(&c, &r, NULL) == 0);
    CHECK(r.completed == 1);
    CHECK_NEAR(r.requests[0].ttft_s, h + 419 * 50e-6, 1e-9);
    sim_result_release(&r);
}

/* The overlap scheduler hands out a step's first tokens after it has issued the next step
 * (docs/simulate.md#sglangs-time-to-first-token, SGLang's Scheduler.event_loop_overlap): A and B,
 * 300-token prompts of Llama-3-8B (output 3), both at 0, one prompt a step (300 tokens a step,
 * prompt steps alone as SGLang's), 1 ms of host work a step, eager prompt passes at 50 us a
 * launch (L = 419): each prompt step takes P = 1 ms + 20.95 ms (host-bound: its device time D is
 * about 8 ms). Planned ahead, B's prompt step is launched before A's first token is handed out,
 * which is then at P + P = 2P; B's at 2P too, the step after it being a decode (graphed: nothing
 * to issue). Synchronously A's is at P. With graphed prompt passes there is nothing to issue: A's
 * first token at the end of its step, D. */
TEST(sim_overlap_first_token_by_hand)
{
    struct sim_config c;
    base_config(&c, SIM_CHUNKED);
    const double h = 1e-3, P = h + 419 * 50e-6;
    struct roof_seq a = {1, 300, 0, true};
    double D = device_step(&c, &a, 1);
    CHECK(D > h && D < P);
    c.engine.tuning.step_overhead_s = h;
    c.sched.max_tokens_per_step = 300;
    c.sched.separate_prefill = true;
    c.sched.prefill_graph = SIM_PREFILL_GRAPH_NONE;
    c.sched.eager_launch_s = 50e-6;
    struct sim_trace_row rows[] = {{0.0, 300, 3}, {0.0, 300, 3}};
    struct sim_trace tr = {rows, 2};
    use_trace(&c, &tr);
    c.sched.async_scheduling = true;
    struct sim_result r;
    CHECK(sim_run(&c, &r, NULL) == 0);
    CHECK(r.completed == 2);
    CHECK_NEAR(r.requests[0].ttft_s, 2 * P, 1e-9);
    CHECK_NEAR(r.requests[1].ttft_s, 2 * P, 1e-9);
    check_little(&r);
    sim_result_release(&r);
    c.sched.async_scheduling = false;
    CHECK(sim_run(&c, &r, NULL) == 0);
    CHECK(r.completed == 2);
    CHECK_NEAR(r.requests[0].ttft_s, P, 1e-9);
    CHECK_NEAR(r.requests[1].ttft_s, 2 * P, 1e-9);
    sim_result_release(&r);
    c.sched.async_scheduling = true;
    c.sched.prefill_graph = SIM_PREFILL_GRAPH_FULL;
    CHECK(sim_run(&c, &r, NULL) == 0);
    CHECK(r.completed == 2);
    CHECK_NEAR(r.requests[0].ttft_s, D, 1e-9);
    sim_result_release(&r);
}

/* vLLM's asynchronous scheduling by hand (docs/simulate.md#asynchronous-scheduling), vllm
 * admission without chunked prefill, 10 ms of host work per step (step overhead H):
 * (1) arrivals: A (prompt 64, output 3) at 0, B (2048, 2) 1 us later, while A's prefill runs.
 * Step 2 was planned when step 1 started, before B arrived: A decodes alone. Step 3: A's last
 * decode and B's prompt; step 4: B's decode. Every step takes max(device, H): steps 1, 2 and 4
 * are shorter than H on the device (a 64-token prefill and decodes of one sequence, about 5 ms
 * each), step 3's 2048-token prompt longer (about 35 ms). Synchronously B's prompt goes with A's
 * first decode (step 2) and every step takes device + H.
 * (2) seats: max batch 2, A (64, 2), C (64, 6) and B (64, 2) all at 0, no host work. A finishes
 * in step 2, but step 3 was planned while step 2 ran: A still held its seat, so C decodes alone
 * and B's prompt comes in step 4 (synchronously in step 3); C ends after step 6 either way.
 * (3) blocks: the same with 256 seats and a pool of 10 blocks: A and C take 4 blocks each for
 * their prompts and a fifth for token 65 in step 2, filling the pool; B needs 4 free blocks and
 * A's are still held when step 3 is planned: the same steps as (2). */
TEST(sim_vllm_async_by_hand)
{
    struct sim_config c;
    base_config(&c, SIM_CONTINUOUS);
    c.sched.admission = SIM_ADMIT_VLLM;
    const double H = 0.010, tb = 1e-6;
    c.engine.tuning.step_overhead_s = H;
    struct roof_seq s1 = {1, 64, 0, true}, s2 = {1, 1, 64, true};
    struct roof_seq s3[2] = {{1, 1, 65, true}, {1, 2048, 0, true}}, s4 = {1, 1, 2048, true};
    double g1 = device_step(&c, &s1, 1), g2 = device_step(&c, &s2, 1);
    double g3 = device_step(&c, s3, 2), g4 = device_step(&c, &s4, 1);
    CHECK(g1 < H && g2 < H && g4 < H && g3 > H); /* both sides of the max are exercised */
    double t3 = H + H + g3, t4 = t3 + H;
    struct sim_trace_row rows[] = {{0.0, 64, 3}, {tb, 2048, 2}};
    struct sim_trace tr = {rows, 2};
    use_trace(&c, &tr);
    c.sched.async_scheduling = true;
    struct sim_result r;
    CHECK(sim_run(&c, &r, NULL) == 0);
    CHECK(r.completed == 2 && r.steps == 4 && r.preemptions == 0);
    CHECK_NEAR(r.requests[0].ttft_s, H, 1e-9);
    CHECK_NEAR(r.requests[0].e2e_s, t3, 1e-9);
    CHECK_NEAR(r.requests[1].ttft_s, t3 - tb, 1e-9);
    CHECK_NEAR(r.requests[1].e2e_s, t4 - tb, 1e-9);
    check_little(&r);
    sim_result_release(&r);
    /* synchronous: B's prompt in step 2 beside A's decode, each step device + host */
    c.sched.async_scheduling = false;
    struct roof_seq m2[2] = {{1, 1, 64, true}, {1, 2048, 0, true}};
    struct roof_seq m3[2] = {{1, 1, 65, true}, {1, 1, 2048, true}};
    double u2 = g1 + H + device_step(&c, m2, 2) + H, u3 = u2 + device_step(&c, m3, 2) + H;
    CHECK(sim_run(&c, &r, NULL) == 0);
    CHECK(r.completed == 2 && r.steps == 3);
    CHECK_NEAR(r.requests[1].ttft_s, u2 - tb, 1e-9);
    CHECK_NEAR(r.requests[0].e2e_s, u3, 1e-9);
    CHECK_NEAR(r.requests[1].e2e_s, u3 - tb, 1e-9);
    sim_result_release(&r);

    /* (2) a seat and (3) blocks held by a request that finished in the step that just ended */
    struct sim_trace_row rows2[] = {{0.0, 64, 2}, {0.0, 64, 6}, {0.0, 64, 2}};
    struct sim_trace tr2 = {rows2, 3};
    for (int v = 0; v < 2; v++) {
        if (v == 0) {
            base_config(&c, SIM_CONTINUOUS);
            c.sched.admission = SIM_ADMIT_VLLM;
            c.sched.max_batch = 2;
        } else {
            vllm_with_blocks(&c, 10.5);
        }
        use_trace(&c, &tr2);
        struct roof_seq p2[2] = {{1, 64, 0, true}, {1, 64, 0, true}};
        struct roof_seq d2[2] = {{1, 1, 64, true}, {1, 1, 64, true}};
        double t = device_step(&c, p2, 2) + device_step(&c, d2, 2);
        struct roof_seq c3 = {1, 1, 65, true};
        t += device_step(&c, &c3, 1);
        struct roof_seq cb4[2] = {{1, 1, 66, true}, {1, 64, 0, true}};
        t += device_step(&c, cb4, 2);
        double b_ttft = t;
        struct roof_seq cb5[2] = {{1, 1, 67, true}, {1, 1, 64, true}};
        t += device_step(&c, cb5, 2);
        double b_done = t;
        struct roof_seq c6 = {1, 1, 68, true};
        t += device_step(&c, &c6, 1);
        c.sched.async_scheduling = true;
        CHECK(sim_run(&c, &r, NULL) == 0);
        CHECK(r.completed == 3 && r.steps == 6 && r.preemptions == 0);
        CHECK(v == 0 || r.kv_blocks == 10);
        CHECK_NEAR(r.requests[2].ttft_s, b_ttft, 1e-9);
        CHECK_NEAR(r.requests[2].e2e_s, b_done, 1e-9);
        CHECK_NEAR(r.requests[1].e2e_s, t, 1e-9);
        check_little(&r);
        sim_result_release(&r);
        /* synchronous: B's prompt in step 3, B done after step 4 */
        c.sched.async_scheduling = false;
        struct roof_seq cb3[2] = {{1, 1, 65, true}, {1, 64, 0, true}};
        struct roof_seq cb4s[2] = {{1, 1, 66, true}, {1, 1, 64, true}};
        double s = device_step(&c, p2, 2) + device_step(&c, d2, 2) + device_step(&c, cb3, 2);
        CHECK(sim_run(&c, &r, NULL) == 0);
        CHECK_NEAR(r.requests[2].ttft_s, s, 1e-9);
        CHECK_NEAR(r.requests[2].e2e_s, s + device_step(&c, cb4s, 2), 1e-9);
        sim_result_release(&r);
    }
}

/* separate_prefill (SGLang's scheduler: a prefill batch runs alone whenever one can be formed):
 * A (64-token prompt, 4 outputs) arrives at 0, B (64, 2) just after A's prefill. Steps by hand:
 * A's prefill; A's first decode (B not yet there); B's prefill alone, A waiting; A and B decode
 * together (B done); A's last decode. With the steps mixed (the flag off) B's prefill shares
 * the third step with A's decode, so A ends one decode step sooner. */
TEST(sim_separate_prefill_by_hand)
{
    struct sim_config c;
    base_config(&c, SIM_CHUNKED);
    c.sched.admission = SIM_ADMIT_VLLM;
    struct sim_cost *cost = sim_cost_new(&c.engine);
    struct roof_seq pa = {1, 64, 0, true};
    double t1 = sim_cost_step(cost, &pa, 1), tb = t1 + 1e-6;
    struct roof_seq d2 = {1, 1, 64, true};
    double t2 = t1 + sim_cost_step(cost, &d2, 1);
    double t3 = t2 + sim_cost_step(cost, &pa, 1);
    struct roof_seq both[2] = {{1, 1, 65, true}, {1, 1, 64, true}};
    double t4 = t3 + sim_cost_step(cost, both, 2);
    struct roof_seq d4 = {1, 1, 66, true};
    double t5 = t4 + sim_cost_step(cost, &d4, 1);
    sim_cost_free(cost);
    struct sim_trace_row rows[] = {{0.0, 64, 4}, {tb, 64, 2}};
    struct sim_trace tr = {rows, 2};
    use_trace(&c, &tr);
    c.sched.separate_prefill = true;
    struct sim_result r;
    CHECK(sim_run(&c, &r, NULL) == 0);
    CHECK(r.completed == 2 && r.preemptions == 0);
    CHECK_NEAR(r.requests[0].ttft_s, t1, 1e-9);
    CHECK_NEAR(r.requests[1].ttft_s, t3 - tb, 1e-9);
    CHECK_NEAR(r.requests[1].e2e_s, t4 - tb, 1e-9);
    CHECK_NEAR(r.requests[0].e2e_s, t5, 1e-9);
    check_little(&r);
    double separate_a = r.requests[0].e2e_s;
    sim_result_release(&r);
    c.sched.separate_prefill = false;
    CHECK(sim_run(&c, &r, NULL) == 0);
    CHECK(r.completed == 2 && r.requests[0].e2e_s < separate_a - 1e-6);
    sim_result_release(&r);
}

/* recv_interval (SGLang's --scheduler-recv-interval, SchedulerRecvSkipper): the scheduler
 * polls its input after decode steps weighing 1 each, or one step with prompt work weighing
 * 1000, reach the interval; an idle one polls at once. Interval 3, chunked, vllm admission:
 * (1) A (64-token prompt, 8 outputs) arrives at 0 into an idle instance and is prefilled at
 * once (step 1, whose prompt work polls); B (64, 2) arrives just after, during A's first
 * decode (step 2), and is polled after the third decode step (steps 2-4 weigh 3), so its
 * prompt goes into step 5 beside A's decode at context 67: TTFT t5 - tb. With interval 1 it
 * joins step 3. (2) A (64, 2) ends in step 2 with B in the intake (count 1 of 3): nothing is
 * left to run, so the idle loop polls and B's prefill is step 3. */
TEST(sim_recv_interval_by_hand)
{
    struct sim_config c;
    base_config(&c, SIM_CHUNKED);
    c.sched.admission = SIM_ADMIT_VLLM;
    struct sim_cost *cost = sim_cost_new(&c.engine);
    struct roof_seq pa = {1, 64, 0, true};
    double t1 = sim_cost_step(cost, &pa, 1), tb = t1 + 1e-6;
    double t = t1;
    for (int k = 0; k < 3; k++) { /* steps 2-4: A decodes at context 64, 65, 66 */
        struct roof_seq d = {1, 1, 64 + k, true};
        t += sim_cost_step(cost, &d, 1);
    }
    struct roof_seq s5[2] = {{1, 1, 67, true}, {1, 64, 0, true}};
    double t5 = t + sim_cost_step(cost, s5, 2);
    struct roof_seq d2 = {1, 1, 64, true};
    double t2 = t1 + sim_cost_step(cost, &d2, 1);
    struct roof_seq s3[2] = {{1, 1, 65, true}, {1, 64, 0, true}};
    double t3 = t2 + sim_cost_step(cost, s3, 2);
    double t3_idle = t2 + sim_cost_step(cost, &pa, 1);
    sim_cost_free(cost);

    struct sim_trace_row rows[] = {{0.0, 64, 8}, {tb, 64, 2}};
    struct sim_trace tr = {rows, 2};
    use_trace(&c, &tr);
    c.sched.recv_interval = 3;
    struct sim_result r;
    CHECK(sim_run(&c, &r, NULL) == 0);
    CHECK(r.completed == 2 && r.preemptions == 0);
    CHECK_NEAR(r.requests[0].ttft_s, t1, 1e-9);
    CHECK_NEAR(r.requests[1].ttft_s, t5 - tb, 1e-9);
    check_little(&r);
    sim_result_release(&r);
    c.sched.recv_interval = 1;
    CHECK(sim_run(&c, &r, NULL) == 0);
    CHECK_NEAR(r.requests[1].ttft_s, t3 - tb, 1e-9);
    sim_result_release(&r);

    struct sim_trace_row rows2[] = {{0.0, 64, 2}, {tb, 64, 2}};
    struct sim_trace tr2 = {rows2, 2};
    use_trace(&c, &tr2);
    c.sched.recv_interval = 3;
    CHECK(sim_run(&c, &r, NULL) == 0);
    CHECK(r.completed == 2 && r.steps == 4);
    CHECK_NEAR(r.requests[0].e2e_s, t2, 1e-9);
    CHECK_NEAR(r.requests[1].ttft_s, t3_idle - tb, 1e-9);
    check_little(&r);
    sim_result_release(&r);
}

/* tokenisation (docs/simulate.md#tokenisation): the server tokenises a text prompt, 10 us a
 * token here, before its scheduler sees it, and TTFT counts from the client's send. A and B
 * (64-token prompts, 2 outputs) are sent together at 0, so each takes tau = 64 x 10 us = 0.64 ms.
 * Serial (one tokenizer, SGLang's TokenizerManager): A reaches the queue at tau and is prefilled
 * alone (step 1, t1, longer than tau); B, queued behind A's tokenising, reaches it at 2 tau,
 * during step 1, and its prompt joins A's first decode (step 2): TTFTs tau + t1 and tau + t2.
 * Parallel: both reach the queue at tau and share one prefill step: TTFT tau + t12. Without
 * tokenisation that step starts at 0: TTFT t12. */
TEST(sim_tokenize_by_hand)
{
    struct sim_config c;
    base_config(&c, SIM_CHUNKED);
    c.sched.admission = SIM_ADMIT_VLLM;
    struct sim_cost *cost = sim_cost_new(&c.engine);
    struct roof_seq pa = {1, 64, 0, true};
    double t1 = sim_cost_step(cost, &pa, 1);
    struct roof_seq s2[2] = {{1, 1, 64, true}, {1, 64, 0, true}};
    double t2 = t1 + sim_cost_step(cost, s2, 2);
    struct roof_seq both[2] = {{1, 64, 0, true}, {1, 64, 0, true}};
    double t12 = sim_cost_step(cost, both, 2);
    sim_cost_free(cost);
    double tau = 64 * 10e-6;
    CHECK(t1 > 2 * tau);

    struct sim_trace_row rows[] = {{0.0, 64, 2}, {0.0, 64, 2}};
    struct sim_trace tr = {rows, 2};
    use_trace(&c, &tr);
    c.sched.tokenize_per_token_s = 10e-6;
    c.sched.tokenize_serial = true;
    struct sim_result r;
    CHECK(sim_run(&c, &r, NULL) == 0);
    CHECK(r.completed == 2 && r.preemptions == 0);
    CHECK_NEAR(r.requests[0].ttft_s, tau + t1, 1e-9);
    CHECK_NEAR(r.requests[1].ttft_s, tau + t2, 1e-9);
    CHECK_NEAR(r.requests[0].queue_s, tau, 1e-9);
    CHECK_NEAR(r.requests[1].queue_s, tau + t1, 1e-9);
    check_little(&r);
    sim_result_release(&r);

    c.sched.tokenize_serial = false;
    CHECK(sim_run(&c, &r, NULL) == 0);
    CHECK(r.completed == 2);
    CHECK_NEAR(r.requests[0].ttft_s, tau + t12, 1e-9);
    CHECK_NEAR(r.requests[1].ttft_s, tau + t12, 1e-9);
    check_little(&r);
    sim_result_release(&r);

    c.sched.tokenize_per_token_s = 0;
    CHECK(sim_run(&c, &r, NULL) == 0);
    CHECK_NEAR(r.requests[0].ttft_s, t12, 1e-9);
    CHECK_NEAR(r.requests[1].ttft_s, t12, 1e-9);
    sim_result_release(&r);
}

/* Two instances: the requests being tokenised count in the router's load, so two prompts sent
 * together go to different instances and each tokenizer takes one: neither waits for the
 * other's tokenising. */
TEST(sim_tokenize_routes_by_hand)
{
    struct sim_config c;
    base_config(&c, SIM_CHUNKED);
    c.sched.admission = SIM_ADMIT_VLLM;
    c.instances = 2;
    struct sim_cost *cost = sim_cost_new(&c.engine);
    struct roof_seq pa = {1, 64, 0, true};
    double t1 = sim_cost_step(cost, &pa, 1);
    sim_cost_free(cost);
    double tau = 64 * 10e-6;
    struct sim_trace_row rows[] = {{0.0, 64, 2}, {0.0, 64, 2}};
    struct sim_trace tr = {rows, 2};
    use_trace(&c, &tr);
    c.sched.tokenize_per_token_s = 10e-6;
    c.sched.tokenize_serial = true;
    struct sim_result r;
    CHECK(sim_run(&c, &r, NULL) == 0);
    CHECK(r.completed == 2);
    CHECK(r.requests[0].instance != r.requests[1].instance);
    CHECK_NEAR(r.requests[0].ttft_s, tau + t1, 1e-9);
    CHECK_NEAR(r.requests[1].ttft_s, tau + t1, 1e-9);
    check_little(&r);
    sim_result_release(&r);
}

/* sglang admission on a pool of `blocks` KV blocks of 16 tokens (chunked, budget 2048) */
static void
sglang_with_blocks(struct sim_config *c, double blocks_wanted)
{
    admit_with_blocks(c, SIM_CHUNKED, SIM_ADMIT_SGLANG, blocks_wanted);
}

/* sglang admission by hand (SGLang's PrefillAdder, docs/simulate.md#admission). A (prompt 64,
 * output 100) arrives at 0 and is prefilled alone (step 1); B (64, 100) arrives during A's first
 * decode (step 2). When step 3 is planned A holds 5 blocks (65 tokens) and has 98 tokens to
 * come, new_token_ratio has decayed once to 0.7 - (0.7 - 0.098) / 600 = 0.698997, so the offset
 * is 98 x 0.698997 = 68.5 tokens, and B needs 64 + 100 = 164 tokens below the free ones less it:
 * on 20 blocks (15 free, 240 tokens) 164 < 171.5: B's prompt is step 3, alone (no decode beside
 * it), and the two outgrow the pool later (2 x 11 blocks > 20: one retraction); on 19 blocks (224
 * tokens) 164 >= 155.5: B waits, batch_is_full is set and no prefill is tried again until the
 * running batch shrinks, when A ends (step 100); B's prompt is step 101. vllm admission, which
 * needs only B's prompt blocks, would take it into step 3 either way. */
TEST(sim_sglang_admission_by_hand)
{
    struct sim_config c;
    sglang_with_blocks(&c, 20.5);
    struct sim_cost *cost = sim_cost_new(&c.engine);
    struct roof_seq pa = {1, 64, 0, true};
    double prefill = sim_cost_step(cost, &pa, 1), t1 = prefill, tb = t1 + 1e-6;
    struct roof_seq d2 = {1, 1, 64, true};
    double t2 = t1 + sim_cost_step(cost, &d2, 1), t_a = t1;
    for (int k = 2; k <= 100; k++) { /* A decodes alone at past 64 .. 162 */
        struct roof_seq d = {1, 1, 62 + k, true};
        t_a += sim_cost_step(cost, &d, 1);
    }
    double b_rest = 0; /* B's 99 decodes at past 64 .. 162, alone */
    for (int j = 0; j < 99; j++) {
        struct roof_seq d = {1, 1, 64 + j, true};
        b_rest += sim_cost_step(cost, &d, 1);
    }
    sim_cost_free(cost);
    struct sim_trace_row rows[] = {{0.0, 64, 100}, {tb, 64, 100}};
    struct sim_trace tr = {rows, 2};
    use_trace(&c, &tr);
    struct sim_result r;
    CHECK(sim_run(&c, &r, NULL) == 0);
    CHECK(r.kv_blocks == 20);
    CHECK(r.completed == 2 && r.preemptions == 1); /* the two outgrow the 20 blocks later */
    CHECK_NEAR(r.requests[0].ttft_s, t1, 1e-9);
    CHECK_NEAR(r.requests[1].ttft_s, t2 + prefill - tb, 1e-9);
    check_little(&r);
    sim_result_release(&r);

    sglang_with_blocks(&c, 19.5);
    use_trace(&c, &tr);
    CHECK(sim_run(&c, &r, NULL) == 0);
    CHECK(r.kv_blocks == 19);
    CHECK(r.completed == 2 && r.preemptions == 0);
    CHECK_NEAR(r.requests[0].e2e_s, t_a, 1e-9);
    CHECK_NEAR(r.requests[1].ttft_s, t_a + prefill - tb, 1e-9);
    CHECK_NEAR(r.requests[1].e2e_s, t_a + prefill + b_rest - tb, 1e-9);
    check_little(&r);
    sim_result_release(&r);

    c.sched.admission = SIM_ADMIT_VLLM; /* B's 4 prompt blocks are free: step 3 */
    CHECK(sim_run(&c, &r, NULL) == 0);
    CHECK(r.completed == 2 && r.requests[1].ttft_s < t2 + 2 * prefill - tb);
    sim_result_release(&r);
}

/* sglang retraction by hand: A and B (64, 100) arrive together on 21 blocks and both are
 * admitted (164 < 336, then 164 < 336 - 164) and prefilled in step 1. They decode together and
 * take a block each at past 64, 80, ..., 144 (steps 2, 18, ..., 82: 12 of the 13 free blocks);
 * at step 98 (past 160) the two need 2 blocks and 1 is free, so the request with the fewest
 * outputs (a tie, 97 each; equal prompts: the later, B) is retracted (ScheduleBatch.retract_decode)
 * and the ratio re-estimated (A: (97 + 20) / 101, at most 1). A decodes alone (steps 98-100,
 * past 160-162); B's 64 + 97 = 161 tokens plus its 3 to come exceed the 10 free blocks less A's
 * 2 to come (164 >= 158), so B waits until A ends, recomputes its 161 tokens (step 101; 160 of
 * them computed before) and decodes its last 2 (steps 102-103, past 161 and 162). */
TEST(sim_sglang_retract_by_hand)
{
    struct sim_config c;
    sglang_with_blocks(&c, 21.5);
    struct sim_cost *cost = sim_cost_new(&c.engine);
    struct roof_seq two[2] = {{1, 64, 0, true}, {1, 64, 0, true}};
    double t = sim_cost_step(cost, two, 2);
    for (int k = 2; k <= 97; k++) {
        struct roof_seq d = {2, 1, 62 + k, true};
        t += sim_cost_step(cost, &d, 1);
    }
    for (int k = 98; k <= 100; k++) {
        struct roof_seq d = {1, 1, 62 + k, true};
        t += sim_cost_step(cost, &d, 1);
    }
    double t_a = t;
    struct roof_seq pb = {1, 161, 0, true};
    t += sim_cost_step(cost, &pb, 1);
    for (int j = 0; j < 2; j++) {
        struct roof_seq d = {1, 1, 161 + j, true};
        t += sim_cost_step(cost, &d, 1);
    }
    sim_cost_free(cost);
    struct sim_trace_row rows[] = {{0.0, 64, 100}, {0.0, 64, 100}};
    struct sim_trace tr = {rows, 2};
    use_trace(&c, &tr);
    struct sim_result r;
    CHECK(sim_run(&c, &r, NULL) == 0);
    CHECK(r.kv_blocks == 21);
    CHECK(r.completed == 2 && r.preemptions == 1);
    CHECK(r.requests[0].preemptions == 0 && r.requests[1].preemptions == 1);
    CHECK_NEAR(r.recomputed_tokens, 160, 1e-12);
    CHECK_NEAR(r.requests[0].e2e_s, t_a, 1e-9);
    CHECK_NEAR(r.requests[1].e2e_s, t, 1e-9);
    check_little(&r);
    sim_result_release(&r);
}

/* The step-time arithmetic of a saturated closed loop (docs/simulate.md#saturation): B
 * sequences decode together at the mean context P + O/2, and every request adds its prompt's
 * prefill. R tokens per request recomputed after preemptions are priced as prompt work. Where
 * prompts share steps with the decodes (chunked prefill, and vllm admission without it: vLLM v1
 * mixes whole prompts into decode steps) a prompt costs what it adds to a decode step of B, in
 * chunks of the step's spare budget or whole; prefill-only steps (continuous under no_evict) cost a
 * whole prefill pass. Tokens/s = B O / (O t_decode + B t_prompt (1 + R / P)). */
static double
saturation_tokens_per_s(const struct sim_config *c, double B, double P, double O, double R)
{
    struct sim_cost *cost = sim_cost_new(&c->engine);
    sim_cost_overlap_host(cost, c->sched.async_scheduling);
    double ctx = P + O / 2;
    struct roof_seq dec = {B, 1, ctx, true};
    double t_dec = sim_cost_step(cost, &dec, 1), t_prompt;
    if (c->sched.policy == SIM_CHUNKED) {
        double chunk = (double)c->sched.max_tokens_per_step - B;
        struct roof_seq mix[2] = {{B, 1, ctx, true}, {1, chunk, P / 2, false}};
        t_prompt = P / chunk * (sim_cost_step(cost, mix, 2) - t_dec);
    } else if (c->sched.admission == SIM_ADMIT_VLLM) {
        struct roof_seq mix[2] = {{B, 1, ctx, true}, {1, P, 0, true}};
        t_prompt = sim_cost_step(cost, mix, 2) - t_dec;
    } else {
        struct roof_seq pf = {1, P, 0, true};
        t_prompt = sim_cost_step(cost, &pf, 1);
    }
    sim_cost_free(cost);
    return B * O / (O * t_dec + B * t_prompt * (1 + R / P));
}

/* The batch the KV pool holds: no_evict promises prompt + output to each request; vllm holds
 * what the running requests have, P + O/2 on average. A linear-attention model's sequence holds
 * its state's blocks besides (S). */
static double
saturation_batch(const struct sim_config *c, double P, double O)
{
    double blocks, bb, pool;
    if (sim_kv_pool(c, &blocks, &bb, &pool) != 0)
        return NAN;
    struct sim_kv_shape kv;
    sim_kv_shape_of(c, &kv);
    double bt = (double)kv.block_tokens, S = (double)kv.state_blocks, B;
    if (c->sched.admission == SIM_ADMIT_NO_EVICT)
        B = floor(blocks / (ceil((P + O) / bt) + S));
    else
        B = floor(blocks / ((P + O / 2) / bt + S));
    return B < (double)c->sched.max_batch ? B : (double)c->sched.max_batch;
}

/* Closed loop, no think time, fixed lengths (issue 13's reproducers and a 70B tp 4 case): the
 * simulated output throughput during arrivals equals the step-time arithmetic within 5% for
 * no_evict (which never preempts) and for vllm, synchronous or with asynchronous scheduling
 * (no host work here: only the admission one step later; case 2 -7.81% instead of -7.92%),
 * except vllm on the second case, 7.9% under (bounded at 9%). That gap is recompute, vLLM v1's own:
 * fixed lengths finish in bursts, each burst admits as many fresh prompts as the freed blocks hold
 * now (half of their final size), the cohort outgrows the pool as it ages, and the victims (the
 * last of the running list) recompute 1513 tokens per request, 74% of a prompt, after their
 * prefix-cache hits. Priced as prompt work (R below) the arithmetic matches every case within 2%
 * (case 2: -1.0%). docs/simulate.md#saturation */
TEST(sim_saturation_matches_step_arithmetic)
{
    struct mdl_profile *m70 = test_model("llama-3.1-70b");
    struct mdl_profile *m8 = test_model("llama-3.1-8b");
    struct mdl_profile *next = test_model("qwen3-next-80b-a3b");
    struct {
        struct mdl_profile *m;
        int tp;
        enum sim_policy policy;
        long max_batch, users, requests, warmup;
        double P, O;
        long budget; /* tokens a step; 0 = the policy's default */
    } cases[] = {
        {m8, 1, SIM_CHUNKED, 256, 512, 1536, 512, 20000, 2000, 0},
        {m8, 1, SIM_CONTINUOUS, 2048, 2048, 6144, 2048, 2048, 2048, 0},
        {m70, 4, SIM_CHUNKED, 512, 1024, 10240, 1024, 4096, 1024, 0},
        /* a hybrid: the 36 linear-attention layers' state (202 blocks of fp8 KV a sequence at
         * tp 2) beside the 12 attention layers' KV; a step budget that lets the pool, not the
         * prompts' chunks, bound the batch (at 2048 a step admits 8000-token prompts for only
         * about 228 decoding sequences) */
        {next, 2, SIM_CHUNKED, 1024, 512, 1536, 512, 8000, 1000, 16384},
    };
    enum sim_admission adm[3] = {SIM_ADMIT_NO_EVICT, SIM_ADMIT_VLLM, SIM_ADMIT_VLLM};
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++)
        for (int a = 0; a < 3; a++) {
            struct sim_config c;
            base_config(&c, cases[k].policy);
            c.engine.model = cases[k].m;
            c.engine.weights = c.engine.kv = DT_FP8;
            c.engine.act = roof_default_act(DT_FP8);
            c.engine.tp = cases[k].tp;
            sim_sched_defaults(&c.sched, cases[k].policy, cases[k].m);
            c.sched.max_batch = cases[k].max_batch;
            if (cases[k].budget > 0)
                c.sched.max_tokens_per_step = cases[k].budget;
            c.sched.admission = adm[a];
            c.sched.async_scheduling = a == 2;
            c.work.process = SIM_CLOSED;
            c.work.users = cases[k].users;
            c.work.think_time_s = 0;
            c.work.prompt.value = cases[k].P;
            c.work.output.value = cases[k].O;
            c.work.requests = cases[k].requests;
            c.work.warmup_requests = cases[k].warmup;
            double B = saturation_batch(&c, cases[k].P, cases[k].O);
            double want = saturation_tokens_per_s(&c, B, cases[k].P, cases[k].O, 0);
            struct sim_result r;
            CHECK(sim_run(&c, &r, NULL) == 0);
            CHECK_NEAR(r.arrivals_output_tokens_per_s, want,
                       adm[a] == SIM_ADMIT_VLLM && k == 1 ? 0.09 : 0.05);
            /* the whole gap is the recompute: priced as prompt work, within 2% everywhere but
             * the hybrid (3%). Its 8000-token prompts are shorter than the step's spare budget
             * (about 15,900 tokens), so the arithmetic's prompt (a chunk of the spare budget at
             * the mean past, scaled) is not the steps the simulator runs (whole prompts, two to
             * a step, the second cut): 2.4% apart under no_evict, whose batch is the pool's
             * exactly (below) and which recomputes nothing */
            double with_recompute = saturation_tokens_per_s(&c, B, cases[k].P, cases[k].O,
                                                            r.recomputed_tokens_per_request);
            CHECK_NEAR(r.arrivals_output_tokens_per_s, with_recompute, k == 3 ? 0.03 : 0.02);
            if (k == 3 && adm[a] == SIM_ADMIT_NO_EVICT)
                CHECK_NEAR(r.batch.p50, B, 0);
            if (adm[a] == SIM_ADMIT_NO_EVICT)
                CHECK(r.preemptions_per_request < 0.1);
            check_little(&r);
            sim_result_release(&r);
        }
    mdl_free(m70);
    mdl_free(m8);
    mdl_free(next);
}

/* vLLM's hybrid allocator by hand (docs/simulate.md#linear-attention-state-in-the-pool):
 * Qwen3-Next at tp 2 with an fp8 cache. A KV layer holds 1 head of 256 a device, K and V, 512 B a
 * token; a DeltaNet layer's state is 16 heads of 128 x 128 in bf16 (524,288 B) and the conv's
 * (2 x 16 x 128 + 32 x 128) / 2 x 3 x 2 B = 24,576 B: 548,864 B, so the block is 16 x
 * ceil(548,864 / (16 x 512)) = 1072 tokens (no padding: 1072 x 512 = 548,864), a block of the 12
 * KV layers 6,586,368 B, and the 36 layers' state 3 blocks. With a bf16 cache: 16 x ceil(548,864
 * / 16,384) = 544 tokens, the state padded to 544 x 1024 = 557,056 B a layer, 36 x 557,056 /
 * (544 x 12,288) = 3 blocks. Nemotron-3-Nano (float32 state) at tp 1: 6144 x 3 x 2 B + 64 x 64 x
 * 128 x 4 B = 2,134,016 B a layer against 1024 B a token: 16 x 131 = 2096 tokens, 23 x 2096 x
 * 1024 / (2096 x 6 x 1024) = 3.83: 4 blocks. A block size set above the raise stays; a model
 * without linear layers keeps 16. */
TEST(sim_hybrid_block_by_hand)
{
    struct sim_config c;
    base_config(&c, SIM_CHUNKED);
    struct mdl_profile *next = test_model("qwen3-next-80b-a3b");
    struct mdl_profile *nano = test_model("nemotron-3-nano-30b-a3b");
    struct sim_kv_shape k;
    c.sched.hybrid_block_align = 16;
    CHECK(sim_block_tokens(&c) == 16); /* llama-3-8b */
    c.engine.model = next;
    c.engine.tp = 2;
    c.engine.weights = c.engine.kv = DT_FP8;
    c.engine.act = roof_default_act(DT_FP8);
    CHECK(sim_block_tokens(&c) == 1072);
    sim_kv_shape_of(&c, &k);
    CHECK(k.block_tokens == 1072 && k.state_blocks == 3);
    CHECK(sim_kv_peak(&k, 8000, 1000) == 9 + 3);
    CHECK(sim_kv_held(&k, 1071, 1072) == 1 + 3 && sim_kv_held(&k, 1072, 1073) == 2 + 3);
    c.engine.kv = DT_BF16;
    sim_kv_shape_of(&c, &k);
    CHECK(k.block_tokens == 544 && k.state_blocks == 3);
    c.sched.block_tokens = 2048;
    CHECK(sim_block_tokens(&c) == 2048);
    c.sched.block_tokens = 16;
    c.sched.hybrid_block_align = 0; /* the state in 16-token blocks of the KV layers */
    sim_kv_shape_of(&c, &k);
    CHECK(k.block_tokens == 16 && k.state_blocks == (long)ceil(36 * 1097728.0 / 2 / (16 * 12288)));
    c.engine.model = nano;
    c.engine.tp = 1;
    c.sched.hybrid_block_align = 16;
    sim_kv_shape_of(&c, &k);
    CHECK(k.block_tokens == 2096 && k.state_blocks == 4);
    mdl_free(next);
    mdl_free(nano);
}

/* "Does not fit" advice: by how much, and each fix fits while one step further does not. */
TEST(fit_advice_fixes)
{
    struct hw_profile *hw = test_hw("rtx-4090");
    struct mdl_profile *m = test_model("llama-3.1-8b");
    struct roof_config c;
    roof_config_init(&c, hw, m, ROOF_DECODE);
    c.batch = 16;
    c.context = 8192;
    struct roof_fit_advice a;
    CHECK(roof_fit_advise(&c, &a) == 0);
    struct roof_memory mem;
    roof_memory(&c, &mem);
    CHECK(!a.fits);
    CHECK_NEAR(a.need_bytes, mem.total_bytes, 1e-12);
    /* the RTX 4090's CUDA total, 25,386,352,640 B (memory.reported), not the datasheet's 24 GB */
    const double cap = 25386352640.0;
    CHECK_NEAR(a.over_bytes, mem.total_bytes - cap, 1e-9);
    bool kinds[ROOF_FIX_RESERVE + 1] = {false};
    for (int i = 0; i < a.n_fixes; i++) {
        const struct roof_fix *f = &a.fixes[i];
        kinds[f->kind] = true;
        CHECK(f->need_bytes <= cap * (1 + 1e-12));
        struct roof_config d = c;
        if (f->kind == ROOF_FIX_CONTEXT) {
            d.context = f->value + 1; /* one token more no longer fits */
            roof_memory(&d, &mem);
            CHECK(!mem.fits);
        } else if (f->kind == ROOF_FIX_BATCH) {
            d.batch = f->value + 1;
            roof_memory(&d, &mem);
            CHECK(!mem.fits);
        } else if (f->kind == ROOF_FIX_RESERVE) {
            /* by hand: the reserve that leaves need - reserve + r = capacity */
            CHECK_NEAR(f->value, cap - (a.need_bytes - c.reserve_bytes), 1e-9);
        }
    }
    /* 8B bf16 (16 GB) with 16 x 8192 tokens of KV (17 GB) on 24 GB: every kind but tp
     * heads allow, all five */
    CHECK(kinds[ROOF_FIX_FORMAT] && kinds[ROOF_FIX_TP] && kinds[ROOF_FIX_CONTEXT] &&
          kinds[ROOF_FIX_BATCH]);
    /* fits: no fixes */
    c.batch = 1;
    c.context = 100;
    CHECK(roof_fit_advise(&c, &a) == 0);
    CHECK(a.fits && a.n_fixes == 0);
    /* a model with as many KV heads as tp is not offered data-parallel attention */
    c.batch = 16;
    c.context = 8192;
    c.tp = 2;
    CHECK(roof_fit_advise(&c, &a) == 0);
    for (int i = 0; i < a.n_fixes; i++)
        CHECK(a.fixes[i].kind != ROOF_FIX_ATTN_DP);
    hw_free(hw);
    mdl_free(m);
}

/* DeepSeek-V3 fp8 at tp 8 on H200s, 1024 sequences of 2000 tokens: the latent cache every
 * device keeps whole (72 GB) overflows; data-parallel attention over 2 ranks halves it and fits
 * (the smallest degree that does), its footprint roof_memory's at attn_dp 2 */
TEST(fit_advice_attn_dp)
{
    struct hw_profile *hw = test_hw("h200");
    struct mdl_profile *m = test_model("deepseek-v3");
    struct roof_config c;
    roof_config_init(&c, hw, m, ROOF_DECODE);
    c.weights = c.act = c.kv = DT_FP8;
    c.tp = 8;
    c.batch = 1024;
    c.context = 2000;
    c.reserve_bytes = roof_default_reserve_bytes(hw);
    struct roof_fit_advice a;
    CHECK(roof_fit_advise(&c, &a) == 0);
    CHECK(!a.fits);
    const struct roof_fix *f = NULL;
    for (int i = 0; i < a.n_fixes; i++)
        if (a.fixes[i].kind == ROOF_FIX_ATTN_DP)
            f = &a.fixes[i];
    CHECK(f != NULL);
    if (f) {
        CHECK_NEAR(f->value, 2, 0);
        struct roof_config d = c;
        d.attn_dp = 2;
        struct roof_memory mem;
        roof_memory(&d, &mem);
        CHECK(mem.fits);
        CHECK_NEAR(f->need_bytes, mem.total_bytes, 1e-12);
        CHECK(strstr(f->text, "--attn-dp 2") != NULL);
    }
    hw_free(hw);
    mdl_free(m);
}

/* Engine reserves: vLLM 10% of memory, llama.cpp its compute buffers by hand:
 * 4 B x 512 x (max(128256, 2 x 14336) + 4096) for Llama-3.1-8B = 271,060,992 B. */
TEST(engine_reserve_by_engine)
{
    struct hw_profile *hw = test_hw("h100-sxm");
    struct mdl_profile *m = test_model("llama-3.1-8b");
    struct roof_config c;
    roof_config_init(&c, hw, m, ROOF_DECODE);
    c.flash_attention = true;
    struct engine_profile e;
    engine_profile_kernel(&e);
    CHECK(engine_reserve_bytes(&e, &c, 8192) < 0); /* names none */
    e.serving.reserve_fraction = 0.1;
    /* 10% of the 79.11 GiB the H100 reports (memory.reported), not of the datasheet's 80 GB */
    CHECK_NEAR(engine_reserve_bytes(&e, &c, 8192), 0.1 * 79.11 * 1073741824.0, 1e-12);
    e.serving.reserve_fraction = 0;
    e.serving.compute_buffers = true;
    e.ubatch_tokens = 512;
    CHECK_NEAR(engine_reserve_bytes(&e, &c, 8192), 4.0 * 512 * (128256 + 4096), 1e-12);
    c.flash_attention = false; /* the scores: 32 heads x 8192 = 262144 columns */
    CHECK_NEAR(engine_reserve_bytes(&e, &c, 8192), 4.0 * 512 * (262144 + 4096), 1e-12);
    hw_free(hw);
    mdl_free(m);
}

static int
cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

/* Streaming percentiles (exact_cap 1: every latency from the log-binned histogram) agree with
 * the exact order statistic at rank floor(q (n - 1)) within the stated 0.5% on the shipped
 * scenarios; the mean and max stay exact; discarding the requests and streaming them through
 * on_request changes nothing, and the same seed gives the same figures. */
static void
count_request(void *ctx, const struct sim_request *q)
{
    long *n = ctx;
    (*n) += q->status == SIM_REQ_DONE ? 1 : 1000000;
}

TEST(sim_streaming_percentiles)
{
    const char *names[] = {"static", "continuous", "chunked", "disaggregated"};
    for (int i = 0; i < 4; i++) {
        char path[512];
        snprintf(path, sizeof path, "%s/scenarios/%s.yaml", test_data_dir(), names[i]);
        struct scenario *s = scenario_load(path, NULL);
        CHECK(s != NULL);
        if (!s)
            continue;
        struct sim_config c;
        scenario_sim_config(s, &c);
        struct sim_result exact, binned, again;
        CHECK(sim_run(&c, &exact, NULL) == 0);
        c.exact_cap = 1;
        c.discard_requests = true;
        long seen = 0;
        c.on_request = count_request;
        c.on_request_ctx = &seen;
        CHECK(sim_run(&c, &binned, NULL) == 0);
        CHECK(sim_run(&c, &again, NULL) == 0);
        CHECK(binned.requests == NULL && binned.n_requests == 0);
        CHECK(seen == 2 * (exact.completed + 1000000 * exact.rejected));
        CHECK(memcmp(&binned.ttft, &again.ttft, sizeof binned.ttft) == 0);
        CHECK(memcmp(&binned.e2e, &again.e2e, sizeof binned.e2e) == 0);
        CHECK(binned.output_tokens_per_s == exact.output_tokens_per_s);
        /* the exact order statistics from the kept requests */
        double *v = malloc((size_t)exact.n_requests * sizeof *v);
        long n = 0;
        for (long k = 0; k < exact.n_requests; k++) {
            const struct sim_request *q = &exact.requests[k];
            if (!q->warmup && q->status == SIM_REQ_DONE)
                v[n++] = q->ttft_s;
        }
        qsort(v, (size_t)n, sizeof *v, cmp_double);
        CHECK(n == binned.ttft.n);
        double qs[3] = {0.50, 0.90, 0.99},
               got[3] = {binned.ttft.p50, binned.ttft.p90, binned.ttft.p99};
        for (int k = 0; k < 3; k++) {
            double want = v[(long)floor(qs[k] * (double)(n - 1))];
            CHECK(fabs(got[k] - want) <= 0.005 * want + 1e-7);
        }
        CHECK_NEAR(binned.ttft.mean, exact.ttft.mean, 1e-9);
        CHECK(binned.ttft.max == exact.ttft.max);
        free(v);
        sim_result_release(&exact);
        sim_result_release(&binned);
        sim_result_release(&again);
        scenario_free(s);
    }
}

/* The five scheduler cases of the fixed-point tests: static, continuous (no_evict and vllm),
 * chunked, and disaggregated on 1 prefill + 2 decode instances. k in 0..4. */
static void
policy_case(struct sim_config *c, int k)
{
    static const enum sim_policy pol[5] = {SIM_STATIC, SIM_CONTINUOUS, SIM_CONTINUOUS, SIM_CHUNKED,
                                           SIM_DISAGGREGATED};
    base_config(c, pol[k]);
    if (k == 2)
        c->sched.admission = SIM_ADMIT_VLLM;
    if (pol[k] == SIM_DISAGGREGATED) {
        c->instances = 3;
        c->sched.prefill_instances = 1;
    }
}

/* The fixed points' plain step b <- g(b) against the damped step b <- (b + g(b)) / 2 they took
 * before (sim/analytic.c, struct fixpt): every scheduler, fixed, ShareGPT-like and long
 * lengths, Poisson and bursty arrivals, loads from 5% to 120% of the capacity. Both stop where
 * |g(b) - b| <= 1e-9 b, so the two batches differ by up to 2e-9 b / (1 - g'(b)): near the
 * slots' cap g' comes close to 1 (1e-6 measured at 99% of the capacity, 5e-10 at most on the
 * four reports' plans), so 1e-5 here, 1e-4 for the waits (the queue amplifies it near
 * capacity). The capacity does not depend on b and stays bit for bit, and so does stability but
 * for one flaw of the damped step. */
TEST(sim_analytic_fixed_point_plain_vs_damped)
{
    const double load[6] = {0.05, 0.3, 0.6, 0.9, 0.99, 1.2};
    int stable = 0, unstable_n = 0;
    for (int k = 0; k < 5; k++)
        for (int len = 0; len < 3; len++)
            for (int gam = 0; gam < 2; gam++)
                for (int l = 0; l < 6; l++) {
                    struct sim_config c;
                    policy_case(&c, k);
                    if (len == 1)
                        lognormal_lengths(&c);
                    else if (len == 2)
                        long_prompts(&c);
                    if (gam) {
                        c.work.process = SIM_GAMMA;
                        c.work.cv = 3;
                    }
                    struct sim_analytic a, d;
                    CHECK(sim_analytic(&c, &a) == 0);
                    c.work.rate_per_s = load[l] * a.capacity_req_per_s;
                    CHECK(sim_analytic(&c, &a) == 0);
                    sim_analytic_damped = true;
                    CHECK(sim_analytic(&c, &d) == 0);
                    sim_analytic_damped = false;
                    /* static batching past capacity: the damped k only approached the
                     * slots (k < slots let busy > 1 pass as 1, "stable" at 120% of the
                     * capacity); the plain step reaches them */
                    if (c.sched.policy == SIM_STATIC && load[l] > 1)
                        CHECK(!a.stable);
                    else
                        CHECK(a.stable == d.stable);
                    CHECK(a.capacity_req_per_s == d.capacity_req_per_s);
                    if (load[l] > 1)
                        CHECK(!a.stable);
                    if (!a.stable || !d.stable) {
                        unstable_n++;
                        continue;
                    }
                    stable++;
                    CHECK_NEAR(a.batch, d.batch, 1e-5);
                    CHECK_NEAR(a.service_s, d.service_s, 1e-5);
                    CHECK_NEAR(a.tpot_mean_s, d.tpot_mean_s, 1e-5);
                    CHECK_NEAR(a.ttft_mean_s, d.ttft_mean_s, 1e-4);
                    CHECK_NEAR(a.ttft_p99_s, d.ttft_p99_s, 1e-4);
                    CHECK_NEAR(a.e2e_p99_s, d.e2e_p99_s, 1e-4);
                }
    CHECK(stable >= 100);    /* most cases are below capacity */
    CHECK(unstable_n >= 30); /* and 120% of it is not */
}

/* The continuous fixed point by hand: P = 128, O = 32 fixed, Poisson at 40 requests/s. The
 * step costs are the engine's (sim_cost_step), the rest is the formula of docs/simulate.md:
 * f = rate x t_prefill(128), S(b) = t_prefill + 31 s(b) / (1 - f) with s(b) a decode step of b
 * sequences at the mean context 128 + 30 / 2 = 143, and the returned batch solves b = rate S(b)
 * to 1e-9. */
TEST(sim_analytic_fixed_point_by_hand)
{
    struct sim_config c;
    base_config(&c, SIM_CONTINUOUS);
    c.work.rate_per_s = 40;
    struct sim_analytic a;
    c.sched.admission = SIM_ADMIT_NO_EVICT;
    CHECK(sim_analytic(&c, &a) == 0);
    CHECK(a.stable);
    struct sim_cost *cost = sim_cost_new(&c.engine);
    struct roof_seq p = {1, 128, 0, true}, q = {a.batch, 1, 143, true};
    double tp = sim_cost_step(cost, &p, 1), s = sim_cost_step(cost, &q, 1);
    sim_cost_free(cost);
    double f = 40 * tp, S = tp + 31.0 * s / (1.0 - f);
    CHECK(a.batch > 1);
    CHECK_NEAR(40 * S, a.batch, 1e-9);
    CHECK_NEAR(a.service_s, S, 1e-12);
    CHECK_NEAR(a.tpot_mean_s, s / (1.0 - f), 1e-12);
}

/* Asynchronous scheduling's admission delay in the analytic model by hand (sim/analytic.c,
 * async_delay): the case above (P = 128, O = 32, Poisson at 40 requests/s, no host work, so
 * the overlapped step is the synchronous one and the fixed point does not move). An arrival
 * while step k runs waits for its rest, busy x step / 2 as before, and then for step k + 1:
 * the TTFT, the queue and the E2E means grow by busy x step = (1 - e^-b) ((1 - f) s + f t_p),
 * f = 40 t_p, with b the batch and s its decode step; their p99s by as much; the TPOT not.
 * Here (2026-11-27 profiles) b = 7.2023, 1 - e^-b = 0.99926, s = 4.5447 ms, t_p = 4.8926 ms,
 * f = 0.19570: 0.99926 x (0.80430 x 4.5447 + 0.19570 x 4.8926) = 0.99926 x 4.6128 = 4.6093 ms. */
TEST(sim_analytic_async_delay_by_hand)
{
    struct sim_config c;
    base_config(&c, SIM_CONTINUOUS);
    c.work.rate_per_s = 40;
    c.sched.admission = SIM_ADMIT_NO_EVICT;
    CHECK(c.engine.tuning.step_overhead_s == 0 && c.engine.tuning.token_overhead_s == 0);
    struct sim_analytic sync, async;
    CHECK(sim_analytic(&c, &sync) == 0);
    c.sched.async_scheduling = true;
    CHECK(sim_analytic(&c, &async) == 0);
    CHECK(sync.stable && async.stable);
    CHECK(async.batch == sync.batch && async.tpot_mean_s == sync.tpot_mean_s);
    struct sim_cost *cost = sim_cost_new(&c.engine);
    struct roof_seq p = {1, 128, 0, true}, q = {sync.batch, 1, 143, true};
    double tp = sim_cost_step(cost, &p, 1), s = sim_cost_step(cost, &q, 1);
    sim_cost_free(cost);
    double f = 40 * tp, late = (1.0 - exp(-sync.batch)) * ((1.0 - f) * s + f * tp);
    CHECK_NEAR(late, 4.6093e-3, 1e-4);
    CHECK_NEAR(async.ttft_mean_s - sync.ttft_mean_s, late, 1e-12);
    CHECK_NEAR(async.queue_mean_s - sync.queue_mean_s, late, 1e-12);
    CHECK_NEAR(async.e2e_mean_s - sync.e2e_mean_s, late, 1e-12);
    CHECK_NEAR(async.ttft_p99_s - sync.ttft_p99_s, late, 1e-12);
    /* chunked prefill: only an arrival that finds no prompt backlog waits the extra step, at
     * most busy x t_d */
    base_config(&c, SIM_CHUNKED);
    c.work.rate_per_s = 40;
    CHECK(sim_analytic(&c, &sync) == 0);
    c.sched.async_scheduling = true;
    CHECK(sim_analytic(&c, &async) == 0);
    double d = async.ttft_mean_s - sync.ttft_mean_s;
    CHECK(d > 0 && d < (1.0 - exp(-sync.batch)) * sync.step_s + 1e-12);
    /* static batching and disaggregated serving have no asynchronous scheduling */
    for (int k = 0; k < 2; k++) {
        base_config(&c, k ? SIM_DISAGGREGATED : SIM_STATIC);
        if (k)
            c.instances = 2;
        CHECK(sim_analytic(&c, &sync) == 0);
        c.sched.async_scheduling = true;
        CHECK(sim_analytic(&c, &async) == 0);
        CHECK(memcmp(&sync, &async, sizeof sync) == 0);
    }
}

/* A warm start (sim_analytic_from, the planner's bisection) from the batch at a 10% lower rate
 * reaches the cold start's fixed point: within 1e-5 as above (both stop at |g(b) - b| <= 1e-9 b),
 * the same stability and capacity; static batching ignores it (bit for bit). */
TEST(sim_analytic_warm_start)
{
    const double load[5] = {0.1, 0.5, 0.8, 0.95, 1.05};
    int warm = 0;
    for (int k = 0; k < 5; k++)
        for (int len = 0; len < 2; len++)
            for (int l = 0; l < 5; l++) {
                struct sim_config c;
                policy_case(&c, k);
                if (len)
                    long_prompts(&c);
                struct sim_analytic a, lower, w;
                CHECK(sim_analytic(&c, &a) == 0);
                double rate = load[l] * a.capacity_req_per_s;
                c.work.rate_per_s = 0.9 * rate;
                CHECK(sim_analytic(&c, &lower) == 0);
                c.work.rate_per_s = rate;
                CHECK(sim_analytic(&c, &a) == 0);
                CHECK(sim_analytic_from(&c, lower.batch, &w) == 0);
                CHECK(a.stable == w.stable);
                CHECK(a.capacity_req_per_s == w.capacity_req_per_s);
                if (c.sched.policy == SIM_STATIC)
                    CHECK(memcmp(&a, &w, sizeof a) == 0);
                if (!a.stable)
                    continue;
                warm += lower.batch > 1;
                CHECK_NEAR(w.batch, a.batch, 1e-5);
                CHECK_NEAR(w.ttft_p99_s, a.ttft_p99_s, 1e-4);
                CHECK_NEAR(w.tpot_mean_s, a.tpot_mean_s, 1e-5);
                CHECK_NEAR(w.e2e_p99_s, a.e2e_p99_s, 1e-4);
            }
    CHECK(warm >= 20); /* most starts are above 1 */
}
/* vLLM's hybrid KV cache manager (docs/simulate.md#sliding-window-layers-in-the-kv-pool), by
 * hand for gpt-oss-120b: 36 layers, the even ones sliding (window 128), so two groups of 18 and a
 * block holds 16 tokens of one group. A 1000-token prompt computed in one step takes
 * ceil(1000 / 16) = 63 blocks in each group: 126. At its next step 1000 tokens are computed,
 * 1000 - 128 + 1 = 873 skipped, 873 / 16 = 54 window blocks freed: 63 + 9 = 72 for 1001 tokens.
 * The most at once for 1000 + 1000: max(126, 125 + 128 / 16 + 1) = 134. 72 blocks after 1000
 * computed tokens reach (72 + 54) / 2 = 63 blocks a group, 1008 tokens. Mistral-7B (every layer
 * sliding, window 4096): one group; at 10001 tokens 626 - (10000 - 4096 + 1) / 16 = 257 blocks. */
TEST(sim_kv_window_blocks_by_hand)
{
    struct sim_config c;
    base_config(&c, SIM_CHUNKED);
    c.sched.admission = SIM_ADMIT_VLLM;
    struct hw_profile *h200 = test_hw("h200");
    struct mdl_profile *oss = test_model("gpt-oss-120b"), *mistral = test_model("mistral-7b");
    c.engine.hw = h200;
    c.engine.model = oss;
    CHECK(dtype_parse("mxfp4_moe_bf16", &c.engine.weights) == 0);
    struct sim_kv_shape k;
    sim_kv_shape_of(&c, &k);
    CHECK(k.groups == 1 && k.full_groups == 1 && k.window_groups == 0);
    CHECK(sim_kv_held(&k, 1000, 1001) == 63);
    double b_off, bb_off, pool_off, b_on, bb_on, pool_on;
    CHECK(sim_kv_pool(&c, &b_off, &bb_off, &pool_off) == 0);

    c.sched.kv_window_blocks = true;
    sim_kv_shape_of(&c, &k);
    CHECK(k.groups == 2 && k.full_groups == 1 && k.window_groups == 1 && k.window == 128);
    CHECK(sim_kv_held(&k, 0, 1000) == 126);
    CHECK(sim_kv_held(&k, 1000, 1001) == 72);
    CHECK(sim_kv_peak(&k, 1000, 1000) == 134);
    CHECK(sim_kv_room(&k, 1000, 72) == 1008);
    CHECK(sim_kv_pool(&c, &b_on, &bb_on, &pool_on) == 0);
    CHECK_NEAR(bb_on, bb_off / 2, 1e-9);
    CHECK(b_on >= 2 * b_off && b_on <= 2 * b_off + 1);

    c.sched.admission = SIM_ADMIT_SGLANG; /* SGLang's pools are its own: not this rule */
    sim_kv_shape_of(&c, &k);
    CHECK(k.groups == 1 && k.window_groups == 0);

    c.sched.admission = SIM_ADMIT_VLLM;
    c.engine.model = mistral;
    sim_kv_shape_of(&c, &k);
    CHECK(k.groups == 1 && k.full_groups == 0 && k.window_groups == 1 && k.window == 4096);
    CHECK(sim_kv_held(&k, 0, 10000) == 625);
    CHECK(sim_kv_held(&k, 10000, 10001) == 257);
    hw_free(h200);
    mdl_free(oss);
    mdl_free(mistral);
}

/* The pool at saturation: gpt-oss-120b on an H200, 8000-token prompts and 2000 outputs, 400
 * users in a closed loop. Every layer keeping every token, a running sequence holds at least
 * ceil(8001 / 16) = 501 blocks, so at most floor(blocks / 501) run at once. With the window groups
 * freed, it holds at least 501 + 8 blocks of half the size: more fit, up to floor(blocks / 509);
 * at the end of their lives 625 + 9 (floor(blocks / 634) of them), about twice as many as before
 * at the same point (the one being admitted still takes 2 x 500). */
TEST(sim_kv_window_blocks_batch)
{
    struct sim_config c;
    base_config(&c, SIM_CHUNKED);
    c.sched.admission = SIM_ADMIT_VLLM;
    struct hw_profile *h200 = test_hw("h200");
    struct mdl_profile *oss = test_model("gpt-oss-120b");
    c.engine.hw = h200;
    c.engine.model = oss;
    CHECK(dtype_parse("mxfp4_moe_bf16", &c.engine.weights) == 0);
    c.sched.max_batch = 1024;
    c.sched.max_tokens_per_step = 8192;
    c.work.process = SIM_CLOSED;
    c.work.users = 400;
    c.work.prompt.value = 8000;
    c.work.output.value = 2000;
    c.work.requests = 800;
    struct sim_result off, on;
    CHECK(sim_run(&c, &off, NULL) == 0);
    c.sched.kv_window_blocks = true;
    CHECK(sim_run(&c, &on, NULL) == 0);
    CHECK(off.kv_block_groups == 1 && on.kv_block_groups == 2);
    double cap_off = floor(off.kv_blocks / 501), cap_on = floor(on.kv_blocks / 509);
    CHECK(off.batch.max <= cap_off + 1e-9);
    CHECK(on.batch.max <= cap_on + 1e-9);
    CHECK(on.batch.max >= floor(on.kv_blocks / 634));
    CHECK(on.batch.mean > 1.8 * off.batch.mean);
    CHECK(on.completed == 800 && off.completed == 800);
    sim_result_release(&off);
    sim_result_release(&on);
    hw_free(h200);
    mdl_free(oss);
}

/* The analytic estimate under window groups: a disaggregated KV transfer still moves a token's KV
 * in every layer (the pool's block holding one group must not halve it), and the sequences the
 * pool holds count the window groups at their window, as the simulator does. */
TEST(sim_kv_window_blocks_analytic)
{
    struct sim_config c;
    base_config(&c, SIM_DISAGGREGATED);
    struct hw_profile *h200 = test_hw("h200");
    struct mdl_profile *oss = test_model("gpt-oss-120b");
    c.engine.hw = h200;
    c.engine.model = oss;
    CHECK(dtype_parse("mxfp4_moe_bf16", &c.engine.weights) == 0);
    c.instances = 2;
    c.sched.prefill_instances = 1;
    c.sched.admission = SIM_ADMIT_VLLM;
    c.work.prompt.value = 8000;
    c.work.output.value = 2000;
    struct sim_analytic off, on;
    CHECK(sim_analytic(&c, &off) == 0);
    c.sched.kv_window_blocks = true;
    CHECK(sim_analytic(&c, &on) == 0);
    CHECK(off.transfer_s > 0);
    CHECK_NEAR(on.transfer_s, off.transfer_s, 1e-12);
    hw_free(h200);
    mdl_free(oss);
}

/* Data-parallel attention (docs/simulate.md#engines, attn_dp): a prompt is one rank's, so it
 * takes at most one rank's share of the step's budget a step (SGLang divides
 * --chunked-prefill-size by dp; vLLM and TensorRT-LLM give each rank its own). Llama-3-8B at
 * tp 4, a budget of 2048: a 4000-token prompt and 2 output tokens take ceil(4000 / 2048) = 2
 * prompt steps and one decode without it, ceil(4000 / 512) = 8 and one over 4 ranks, under
 * each chunking scheduler. Two such prompts arriving together share SGLang's prefill batches
 * over the ranks (one cut prompt a rank): 8 steps for both, then one decode step. */
TEST(sim_attn_dp_chunk_per_rank)
{
    static const enum sim_admission ADM[] = {SIM_ADMIT_VLLM, SIM_ADMIT_SGLANG, SIM_ADMIT_NO_EVICT};
    for (size_t a = 0; a < sizeof ADM / sizeof ADM[0]; a++)
        for (int dp = 1; dp <= 4; dp += 3)
            for (int n = 1; n <= 2; n++) {
                struct sim_config c;
                base_config(&c, SIM_CHUNKED);
                c.engine.tp = 4;
                c.engine.attn_dp = dp;
                c.sched.admission = ADM[a];
                c.sched.max_tokens_per_step = 2048;
                struct sim_trace_row rows[] = {{0.0, 4000, 2}, {0.0, 4000, 2}};
                struct sim_trace tr = {rows, n};
                use_trace(&c, &tr);
                struct sim_result r;
                CHECK(sim_run(&c, &r, NULL) == 0);
                CHECK(r.completed == n);
                if (n == 1)
                    CHECK(r.steps == (dp == 1 ? 3 : 9));
                else if (ADM[a] == SIM_ADMIT_SGLANG && dp == 4)
                    CHECK(r.steps == 9);
                sim_result_release(&r);
            }
}
