/* The capacity planner: costs by hand (one rental, one purchase), the loader, and the search's
 * invariants (self-consistency, monotonicity, reasons, an unmeetable question, threads). */
#include "io/calparams.h"
#include "io/measure.h"
#include "io/scenario.h"
#include "plan/cost.h"
#include "plan/plan.h"
#include "plan/plan_int.h"
#include "test.h"

#include <stdlib.h>

TEST(plan_cost_rental_by_hand)
{
    /* 2 instances of tp 4 on 8-GPU servers at $2.50 per GPU-hour: 8 devices, $20/h; at 1,000
     * output tokens/s that is 20 / (1000 x 3600 / 1e6) = $5.556 per million */
    struct plan_question q;
    memset(&q, 0, sizeof q);
    struct plan_price_override o = {"h100-sxm", 2.5, 0};
    q.prices = &o;
    q.n_prices = 1;
    struct hw_profile hw;
    memset(&hw, 0, sizeof hw);
    hw.id = "h100-sxm";
    enum plan_price_origin org;
    char basis[128];
    double p = plan_rent_per_hour(&q, &hw, &org, NULL, basis, sizeof basis);
    CHECK_NEAR(p, 2.5, 1e-12);
    CHECK(org == PLAN_PRICE_QUESTION);
    CHECK(plan_server_devices(&hw) == 8);
    CHECK_NEAR(plan_cost_per_mtok(8 * p, 1000), 20.0 / 3.6, 1e-12);
    CHECK(isnan(plan_cost_per_mtok(20, 0)));
    /* without an override nor a cloud entry: the InferenceMAX tier */
    q.n_prices = 0;
    enum plan_rent_basis cls;
    CHECK_NEAR(plan_rent_per_hour(&q, &hw, &org, &cls, basis, sizeof basis), 1.30, 1e-12);
    CHECK(org == PLAN_PRICE_TIER);
    CHECK(cls == PLAN_BASIS_OWNED);
}

TEST(plan_cost_rent_basis)
{
    /* the profiles' free-text bases, normalised */
    CHECK(plan_rent_basis_of("on-demand") == PLAN_BASIS_ON_DEMAND);
    CHECK(plan_rent_basis_of("on-demand, 8-GPU instance") == PLAN_BASIS_ON_DEMAND);
    CHECK(plan_rent_basis_of("serverless on-demand, per-second billing") == PLAN_BASIS_ON_DEMAND);
    CHECK(plan_rent_basis_of("capacity block") == PLAN_BASIS_SHORT_TERM);
    CHECK(plan_rent_basis_of("neocloud list rental") == PLAN_BASIS_LIST);
    CHECK(plan_rent_basis_of(NULL) == PLAN_BASIS_LIST);
    CHECK(plan_rent_basis_of("SemiAnalysis cost tier: 3-year neocloud rental, 25% upfront") ==
          PLAN_BASIS_RESERVED_3Y);
    /* mi325x's entries: a list rental 1.95 and the 3-year tier 1.80; mi300x adds on-demand 1.85 */
    struct hw_price_cloud c[] = {
        {.provider = "tensorwave",
         .usd_per_hour = 1.95,
         .date = "2026-05",
         .basis = "neocloud list rental"},
        {.provider = "inferencemax-tier",
         .usd_per_hour = 1.80,
         .date = "2026-04-03",
         .basis = "SemiAnalysis cost tier: 3-year neocloud rental, 25% upfront"},
        {.provider = "vultr", .usd_per_hour = 1.85, .date = "2026-05", .basis = "on-demand"},
    };
    struct plan_question q;
    memset(&q, 0, sizeof q);
    struct hw_profile hw;
    memset(&hw, 0, sizeof hw);
    hw.id = "mi325x";
    hw.cloud = c;
    hw.n_cloud = 2;
    enum plan_price_origin org;
    enum plan_rent_basis cls;
    char basis[256];
    /* on-demand asked (the default), none on offer: the closest basis, the list rental */
    CHECK(q.rent_basis == PLAN_BASIS_ON_DEMAND);
    CHECK_NEAR(plan_rent_per_hour(&q, &hw, &org, &cls, basis, sizeof basis), 1.95, 1e-12);
    CHECK(cls == PLAN_BASIS_LIST);
    CHECK(org == PLAN_PRICE_PROFILE);
    q.rent_basis = PLAN_BASIS_RESERVED_3Y;
    CHECK_NEAR(plan_rent_per_hour(&q, &hw, &org, &cls, basis, sizeof basis), 1.80, 1e-12);
    CHECK(cls == PLAN_BASIS_RESERVED_3Y);
    q.rent_basis = PLAN_BASIS_ANY;
    CHECK_NEAR(plan_rent_per_hour(&q, &hw, &org, &cls, basis, sizeof basis), 1.80, 1e-12);
    /* with an on-demand entry, on-demand wins over cheaper entries of other bases */
    hw.n_cloud = 3;
    q.rent_basis = PLAN_BASIS_ON_DEMAND;
    CHECK_NEAR(plan_rent_per_hour(&q, &hw, &org, &cls, basis, sizeof basis), 1.85, 1e-12);
    CHECK(cls == PLAN_BASIS_ON_DEMAND);
    CHECK(strstr(basis, "vultr on-demand 2026-05") != NULL);
}

TEST(plan_cost_purchase_by_hand)
{
    /* $30,000 per device + 25% server overhead = $37,500; 4 years, 20% residual, 8%: capital
     * recovery (37500 - 7500 x 1.08^-4) x 0.08 / (1 - 1.08^-4) = 9657.62; maintenance 5% = 1875;
     * power (700 W x 0.7 + 450 W / 8) x 1.4 = 764.75 W -> 0.76475 kW x $0.12 x 8760 h = 803.91 */
    struct plan_tco t = {4, 0.2, 0.08, 0.05, 1.4, 0.12, 450, 0.7, 0.25, 0};
    struct plan_tco_parts p;
    plan_tco_device_year(&t, 30000, 700, 8, &p);
    CHECK_NEAR(p.server_share, 37500, 1e-12);
    CHECK_NEAR(p.capital, 9657.624133621175, 1e-9);
    CHECK_NEAR(p.maintenance, 1875, 1e-12);
    CHECK_NEAR(p.power_w, 764.75, 1e-12);
    CHECK_NEAR(p.energy, 803.9052, 1e-9);
    CHECK_NEAR(p.total, 12336.529333621174, 1e-9);
    /* no cost of capital: straight line (37500 - 7500) / 4 */
    CHECK_NEAR(plan_capital_per_year(37500, 0.2, 0, 4), 7500, 1e-12);
}

/* A question from YAML text (NULL when it does not parse, its errors on stderr). */
static struct plan_question *
parse_q(const char *name, const char *text)
{
    struct err_list e = {0};
    struct plan_question *q = plan_question_parse(name, text, strlen(text), &e);
    for (size_t i = 0; i < e.n; i++)
        if (e.items[i].severity == ERR_ERROR)
            fprintf(stderr, "%s\n", e.items[i].msg);
    err_list_release(&e);
    return q;
}

/* The one-device question the by-hand cases share: llama-3-8b in bf16 on one h100-sxm at $2/h,
 * batch 1 (one server per instance), continuous batching; `workload` and `slo` are their
 * flow mappings (slo NULL: none), `plan_extra` more keys of `plan` after requests and
 * confirm_top 1 ("" for none). */
static void
batch1_text(char *text, size_t n, const char *workload, const char *slo, long requests,
            const char *plan_extra)
{
    snprintf(text, n,
             "model: llama-3-8b\n"
             "formats: [bf16]\n"
             "workload: %s\n"
             "%s%s%s"
             "candidates: {hardware: [h100-sxm], tp: [1], schedulers: [continuous], "
             "max_batch: [1]}\n"
             "money: {rent_per_hour: {h100-sxm: 2.0}}\n"
             "plan: {requests: %ld, confirm_top: 1%s}\n",
             workload, slo ? "slo: " : "", slo ? slo : "", slo ? "\n" : "", requests, plan_extra);
}

/* An option of `q`'s first format on `hw_id` (tp x pp, `policy`), as a ranked option names it. */
static void
option_on(struct plan_option *op, const struct plan_question *q, const char *hw_id, int tp, int pp,
          enum sim_policy policy)
{
    memset(op, 0, sizeof *op);
    snprintf(op->hw_id, sizeof op->hw_id, "%s", hw_id);
    op->tp = tp;
    op->pp = pp;
    op->format = q->formats[0];
    op->policy = policy;
}

static struct plan_question *
question(double rate, const char *ttft, const char *objective)
{
    char text[2048];
    snprintf(text, sizeof text,
             "model: llama-3-8b\n"
             "formats: [bf16]\n"
             "workload:\n"
             "  rate_per_s: %g\n"
             "  prompt: {dist: lognormal, mean: 512, sd: 300, max: 2048}\n"
             "  output: {dist: lognormal, mean: 128, sd: 80, max: 512}\n"
             "slo: {ttft: %s, itl: 40 ms}\n"
             "candidates: {hardware: [h100-sxm, l4], tp: [1, 2], schedulers: [continuous]}\n"
             "money: {rent_per_hour: {h100-sxm: 2.0, l4: 0.5}}\n"
             "plan: {utilisation: 1, requests: 500, confirm_top: 4, objective: %s}\n",
             rate, ttft, objective);
    return parse_q("q.yaml", text);
}

static int
solve(struct plan_question *q, int jobs, struct plan_result *r)
{
    struct plan_opts o;
    plan_opts_init(&o);
    o.jobs = jobs;
    struct err_list e = {0};
    int rc = plan_run(q, &o, r, &e);
    err_list_release(&e);
    return rc;
}

static double
attain(struct plan_question *q, const struct plan_option *op, double rate)
{
    struct plan_opts o;
    plan_opts_init(&o);
    struct sim_config cfg;
    if (plan_option_sim_config(q, &o, op, rate, &cfg) != 0)
        return -1;
    struct sim_result r;
    struct err_list e = {0};
    if (sim_run(&cfg, &r, &e) != 0) {
        err_list_release(&e);
        return -1;
    }
    double a = r.rejected ? 0 : r.slo_attainment;
    sim_result_release(&r);
    return a;
}

TEST(plan_self_consistent)
{
    struct plan_question *q = question(40, "500 ms", "min_cost_per_hour");
    CHECK(q != NULL);
    if (!q)
        return;
    struct plan_result r;
    CHECK(solve(q, 1, &r) == 0);
    CHECK(r.chosen >= 0);
    if (r.chosen >= 0) {
        const struct plan_option *op = &r.options[r.chosen];
        CHECK(op->simulated);
        CHECK(op->status == PLAN_SLO_MET);
        /* the chosen plan at its planned rate meets the SLO; one instance fewer does not, or,
         * where that rate lies inside the search's last bracket (lo meets, hi <= 1.03 lo
         * misses), the bracket's top does not */
        CHECK(attain(q, op, q->rate_per_s / op->instances) >= q->slo.target);
        double miss = 1.03 * op->rate_per_s;
        if (op->instances > 1 && q->rate_per_s / (op->instances - 1) > miss)
            miss = q->rate_per_s / (op->instances - 1);
        CHECK(attain(q, op, miss) < q->slo.target);
        CHECK(op->cost_per_hour > 0 && isfinite(op->cost_per_mtok_output));
        CHECK(op->launch[0] != '\0');
    }
    /* every rejected candidate has a reason */
    for (int i = 0; i < r.n_rejected; i++)
        CHECK(strlen(r.rejected[i].reason) > 10);
    /* the same answer with two threads */
    struct plan_result r2;
    CHECK(solve(q, 2, &r2) == 0);
    CHECK(r2.n_options == r.n_options && r2.chosen == r.chosen);
    for (int i = 0; i < r.n_options && i < r2.n_options; i++)
        CHECK(memcmp(&r.options[i], &r2.options[i], sizeof r.options[i]) == 0);
    plan_result_release(&r);
    plan_result_release(&r2);
    plan_question_free(q);
}

TEST(plan_monotone)
{
    struct plan_question *a = question(20, "500 ms", "min_devices"),
                         *b = question(60, "500 ms", "min_devices"),
                         *c = question(20, "2 s", "min_cost_per_hour"),
                         *d = question(20, "500 ms", "min_cost_per_hour");
    struct plan_result ra, rb, rc, rd;
    CHECK(a && b && c && d);
    if (!a || !b || !c || !d)
        return;
    CHECK(solve(a, 1, &ra) == 0 && solve(b, 1, &rb) == 0 && solve(c, 1, &rc) == 0 &&
          solve(d, 1, &rd) == 0);
    CHECK(ra.chosen >= 0 && rb.chosen >= 0 && rc.chosen >= 0 && rd.chosen >= 0);
    if (ra.chosen >= 0 && rb.chosen >= 0 && rc.chosen >= 0 && rd.chosen >= 0) {
        /* more traffic never needs fewer devices; a looser SLO never costs more */
        CHECK(rb.options[rb.chosen].devices >= ra.options[ra.chosen].devices);
        CHECK(rc.options[rc.chosen].cost_per_hour <= rd.options[rd.chosen].cost_per_hour);
    }
    plan_result_release(&ra);
    plan_result_release(&rb);
    plan_result_release(&rc);
    plan_result_release(&rd);
    plan_question_free(d);
    plan_question_free(a);
    plan_question_free(b);
    plan_question_free(c);
}

TEST(plan_unmeetable)
{
    struct plan_question *q = question(10, "5 ms", "min_cost_per_hour");
    CHECK(q != NULL);
    if (!q)
        return;
    struct plan_result r;
    CHECK(solve(q, 1, &r) == 0);
    CHECK(r.chosen == -1);
    CHECK(r.n_shown > 0);
    /* the closest options say what they miss by */
    for (int i = 0; i < r.n_shown; i++) {
        CHECK(r.options[r.shown[i]].miss_factor > 1);
        CHECK_CONTAINS(r.options[r.shown[i]].miss, "TTFT");
    }
    CHECK(r.rejected_by[PLAN_REJ_SLO] > 0);
    plan_result_release(&r);
    plan_question_free(q);
}

TEST(plan_question_errors)
{
    const char *text = "model: llama-3-8b\nworkload: {rate_per_s: 1, prompt: 10, output: 10}\n"
                       "candidates: {hardware: [h100-sxm], schedulers: [continous]}\n"
                       "plan: {objectiv: min_devices}\n";
    struct err_list e = {0};
    struct plan_question *q = plan_question_parse("b.yaml", text, strlen(text), &e);
    CHECK(q == NULL);
    CHECK(e.n >= 2);
    bool sched = false, key = false;
    for (size_t i = 0; i < e.n; i++) {
        sched =
            sched || (strstr(e.items[i].msg, "did you mean 'continuous'") && e.items[i].line == 3);
        key = key || (strstr(e.items[i].msg, "objectiv") && e.items[i].line == 4);
    }
    CHECK(sched && key);
    err_list_release(&e);
}

static void
md1_question(char *text, size_t n, double e2e_s)
{
    char slo[64];
    snprintf(slo, sizeof slo, "{e2e: %.9f s, percentile: 50}", e2e_s);
    batch1_text(text, n, "{rate_per_s: 4, prompt: 64, output: 4}", slo, 4000, "");
}

static double
step_of(const struct sim_config *c, double count, double new_tokens, double past)
{
    struct sim_cost *cost = sim_cost_new(&c->engine);
    struct roof_seq s = {count, new_tokens, past, true};
    double t = sim_cost_step(cost, &s, 1);
    sim_cost_free(cost);
    return t;
}

/* The service time of one request of 64 prompt and 4 output tokens alone on one h100-sxm
 * (batch 1): one prefill step, then 3 decode steps; NaN when the config fails. */
static double
batch1_service_s(const struct plan_question *q)
{
    struct plan_opts o;
    plan_opts_init(&o);
    struct plan_option op;
    option_on(&op, q, "h100-sxm", 1, 1, SIM_CONTINUOUS);
    op.max_batch = 1;
    struct sim_config cfg;
    if (plan_option_sim_config(q, &o, &op, 1, &cfg) != 0)
        return NAN;
    return step_of(&cfg, 1, 64, 0) + step_of(&cfg, 1, 1, 64) + step_of(&cfg, 1, 1, 65) +
           step_of(&cfg, 1, 1, 66);
}

/* A case by hand: fixed lengths and batch 1 make each instance an M/D/1 queue with service S;
 * with an E2E bound just above S a request meets it only when it does not wait, and in M/D/1 a
 * Poisson arrival finds the server idle with probability 1 - rho (PASTA). At attainment 50% the
 * max rate per instance is therefore rho = 0.5: 0.5 / S; 4 requests/s need ceil(4 / (0.5 / S x
 * 0.9)) instances. */
TEST(plan_md1_by_hand)
{
    /* S from the engine's step cost: one prefill of 64 tokens, then 3 decode steps */
    char text[1024];
    md1_question(text, sizeof text, 1.0);
    struct plan_question *q = parse_q("md1.yaml", text);
    CHECK(q != NULL);
    if (!q)
        return;
    double S = batch1_service_s(q);
    CHECK(S > 0);
    plan_question_free(q);
    md1_question(text, sizeof text, S * 1.001);
    q = parse_q("md1.yaml", text);
    CHECK(q != NULL);
    if (!q)
        return;
    struct plan_result r;
    CHECK(solve(q, 1, &r) == 0);
    CHECK(r.chosen >= 0);
    if (r.chosen >= 0) {
        const struct plan_option *c = &r.options[r.chosen];
        CHECK(c->simulated);
        /* bisection to 3% plus the attainment's sampling error (sd 0.8% at 4000 requests) */
        CHECK_NEAR(c->rate_per_s, 0.5 / S, 0.06);
        CHECK(c->instances == (int)ceil(4.0 / (c->rate_per_s * 0.9) - 1e-9));
    }
    plan_result_release(&r);
    plan_question_free(q);
}

TEST(plan_tokens_per_month_by_hand)
{
    /* 1.2e9 input + output tokens a month, prompts of 1000 and outputs of 200 tokens: 1e6
     * requests a month; over 730 h x 3600 s = 2,628,000 s that is 0.380518 requests/s on
     * average, x the peak-to-mean 3 = 1.141553 requests/s (0.761035 with the default 2) */
    const char *text = "model: llama-3-8b\n"
                       "workload: {tokens_per_month: 1.2e9, peak_to_mean: 3, prompt: 1000, "
                       "output: 200}\n"
                       "candidates: {hardware: [h100-sxm]}\n"
                       "money: {rental_basis: reserved-3y}\n";
    struct err_list e = {0};
    struct plan_question *q = plan_question_parse("t.yaml", text, strlen(text), &e);
    CHECK(q != NULL);
    if (!q) {
        err_list_release(&e);
        return;
    }
    CHECK(q->workload == PLAN_WL_TOKENS_PER_MONTH);
    CHECK_NEAR(q->rate_per_s, 1.2e9 / 1200.0 / 2628000.0 * 3.0, 1e-12);
    CHECK_NEAR(q->rate_per_s, 1.141553, 1e-6);
    CHECK(q->rent_basis == PLAN_BASIS_RESERVED_3Y);
    plan_question_free(q);
    const char *t2 = "model: llama-3-8b\n"
                     "workload: {tokens_per_month: 1.2e9, prompt: 1000, output: 200}\n"
                     "candidates: {hardware: [h100-sxm]}\n";
    q = plan_question_parse("t2.yaml", t2, strlen(t2), &e);
    CHECK(q != NULL);
    if (q) {
        CHECK_NEAR(q->rate_per_s, 0.761035, 1e-6);
        CHECK(q->rent_basis == PLAN_BASIS_ON_DEMAND);
        plan_question_free(q);
    }
    err_list_release(&e);
}

TEST(plan_engine_serving_defaults_as_simulate)
{
    /* a question that leaves the batch limits to vLLM: the planner simulates what a scenario on
     * the same engine and device does (vllm.yaml on an 80 GB h100-sxm: vllm admission, 1024
     * sequences, 8192 tokens per chunked step, its KV share and memory reserve) */
    const char *qt = "model: llama-3-8b\n"
                     "engine: vllm\n"
                     "formats: [bf16]\n"
                     "workload:\n"
                     "  rate_per_s: 2\n"
                     "  prompt: {dist: fixed, value: 512}\n"
                     "  output: {dist: fixed, value: 128}\n"
                     "slo: {ttft: 1 s, itl: 40 ms}\n"
                     "candidates: {hardware: [h100-sxm], tp: [1], schedulers: [chunked]}\n"
                     "money: {rent_per_hour: {h100-sxm: 2.0}}\n";
    const char *st =
        "name: t\nmodel: llama-3-8b\nengine: vllm\n"
        "hardware: {id: h100-sxm, count: 1, tp: 1}\n"
        "dtypes: {weights: bf16}\n"
        "scheduler: {policy: chunked}\n"
        "arrivals: {process: poisson, rate_per_s: 2}\n"
        "lengths: {prompt: {dist: fixed, value: 512}, output: {dist: fixed, value: 128}}\n"
        "run: {requests: 100}\n";
    struct err_list e = {0};
    struct plan_question *q = plan_question_parse("q.yaml", qt, strlen(qt), &e);
    struct scenario *s = scenario_parse("s.yaml", st, strlen(st), &e);
    for (size_t i = 0; i < e.n; i++)
        fprintf(stderr, "%s\n", e.items[i].msg);
    err_list_release(&e);
    CHECK(q != NULL && s != NULL && s->eng != NULL);
    if (!q || !s || !s->eng) {
        plan_question_free(q);
        scenario_free(s);
        return;
    }
    struct plan_opts o;
    plan_opts_init(&o);
    o.serving = engine_serving_hook;
    o.serving_ctx = s->eng;
    struct plan_option op;
    option_on(&op, q, "h100-sxm", 1, 1, SIM_CHUNKED);
    struct sim_config pc, sc;
    CHECK(plan_option_sim_config(q, &o, &op, 2, &pc) == 0);
    scenario_sim_config(s, &sc);
    CHECK(pc.sched.max_batch == 1024 && sc.sched.max_batch == 1024);
    CHECK(pc.sched.max_tokens_per_step == 8192 && sc.sched.max_tokens_per_step == 8192);
    CHECK(pc.sched.admission == sc.sched.admission);
    CHECK(pc.sched.admission == SIM_ADMIT_VLLM);
    CHECK_NEAR(pc.sched.kv_fraction, sc.sched.kv_fraction, 0);
    CHECK(sc.engine.reserve_bytes > 0);
    CHECK_NEAR(pc.engine.reserve_bytes, sc.engine.reserve_bytes, 0);
    CHECK(pc.sched.policy == sc.sched.policy && pc.sched.preempt == sc.sched.preempt);
    CHECK(pc.sched.block_tokens == sc.sched.block_tokens);
    /* the planner's options show the resolved knobs (the launch lines print them) */
    struct plan_result r;
    o.jobs = 1;
    CHECK(plan_run(q, &o, &r, &e) == 0);
    err_list_release(&e);
    CHECK(r.n_options >= 1);
    if (r.n_options >= 1) {
        CHECK(r.options[0].max_batch == 1024);
        CHECK(r.options[0].max_tokens_per_step == 8192);
    }
    plan_result_release(&r);
    /* without the hook: the simulator's defaults, as before */
    plan_opts_init(&o);
    CHECK(plan_option_sim_config(q, &o, &op, 2, &pc) == 0);
    CHECK(pc.sched.max_batch == 256 && pc.sched.max_tokens_per_step == 2048);
    plan_question_free(q);
    scenario_free(s);
}

/* A closed loop of `users` on the batch-1 question (a `think_s` think time, no SLO when e2e_s is
 * 0). */
static struct plan_question *
closed_parse(long users, double think_s, double e2e_s, int spares)
{
    char text[1024], work[128], slo[64], extra[32];
    snprintf(work, sizeof work, "{users: %ld, think_time: %.9f s, prompt: 64, output: 4}", users,
             think_s);
    snprintf(slo, sizeof slo, "{e2e: %.9f s, percentile: 90}", e2e_s);
    extra[0] = '\0';
    if (spares >= 0)
        snprintf(extra, sizeof extra, ", spares: %d", spares);
    batch1_text(text, sizeof text, work, e2e_s > 0 ? slo : NULL, 1000, extra);
    return parse_q("closed.yaml", text);
}

/* Service time S of one request (fixed lengths, batch 1) on the closed questions' candidate. */
static double
closed_service_s(void)
{
    struct plan_question *q = closed_parse(1, 1, 1, 0);
    if (!q)
        return NAN;
    double S = batch1_service_s(q);
    plan_question_free(q);
    return S;
}

/* A closed loop by hand: batch 1 and fixed lengths make each instance one server of fixed
 * service time S; with an E2E bound just above S a request meets it only when it does not wait.
 * One user never waits (R = S, so the response time law gives X = 1 / (Z + S)); with two users
 * an arriving request finds the other in service with probability S / (Z + S) (the arrival
 * theorem: it sees the one-user system), so at Z = 4 S attainment is 80% < the 90% asked: an
 * instance serves one user, and 3 users need 3 instances (plus the N+1 spare), not the
 * open-loop 3 / Z requests/s. */
TEST(plan_closed_loop_by_hand)
{
    double S = closed_service_s();
    CHECK(S > 0);
    if (!(S > 0))
        return;
    struct plan_question *q = closed_parse(3, 4 * S, 1.001 * S, 1);
    CHECK(q != NULL);
    if (!q)
        return;
    struct plan_result r;
    CHECK(solve(q, 1, &r) == 0);
    CHECK(r.chosen >= 0);
    if (r.chosen >= 0) {
        const struct plan_option *c = &r.options[r.chosen];
        CHECK(c->simulated);
        CHECK_NEAR(c->users_per_instance, 1, 0);
        CHECK(c->instances == 3 + 1);
        /* X = N / (Z + R) with R = S: sampling error of ~900 cycles of mean 5 S, cv ~0.8 */
        CHECK_NEAR(c->rate_per_s * 5 * S, 1, 0.08);
        /* the verification block runs the same closed loop */
        CHECK(r.verify.users == 1);
        CHECK_NEAR(r.verify.think_time_s, 4 * S, 1e-6 * S);
        /* growth and volume count users: 10x is 30 users, 30 instances + 1 */
        CHECK(r.n_sweep == PLAN_MAX_SWEEP);
        CHECK(r.sweep[r.n_sweep - 1].instances[0] == 31);
    }
    plan_result_release(&r);
    plan_question_free(q);
    /* a think time of 40 S: two users wait with probability 1 / 41 < 10%, so 3 users fit in
     * fewer instances */
    q = closed_parse(3, 40 * S, 1.001 * S, 0);
    CHECK(q != NULL);
    if (!q)
        return;
    CHECK(solve(q, 1, &r) == 0);
    CHECK(r.chosen >= 0);
    if (r.chosen >= 0) {
        CHECK(r.options[r.chosen].users_per_instance >= 2);
        CHECK(r.options[r.chosen].instances < 3);
    }
    plan_result_release(&r);
    plan_question_free(q);
}

/* Users without an SLO, by hand: with batch 1 and fixed lengths an instance is one server of
 * service time S, so it saturates at X_sat = 1 / S and one user's response time is R0 = S; the
 * knee of its closed loop is n* = X_sat (Z + R0) = 2.5 users at Z = 1.5 S. At 90% utilisation an
 * instance takes floor(2.25) = 2 users, so 6 users need 3 instances, where the open-loop bound
 * (6 / Z = 4 / S requests/s over 0.9 / S per instance) asked for 5. */
TEST(plan_closed_loop_no_slo)
{
    double S = closed_service_s();
    CHECK(S > 0);
    if (!(S > 0))
        return;
    struct plan_question *q = closed_parse(6, 1.5 * S, 0, -1);
    CHECK(q != NULL);
    if (!q)
        return;
    CHECK(!q->has_slo);
    struct plan_result r;
    CHECK(solve(q, 1, &r) == 0);
    CHECK(r.chosen >= 0);
    if (r.chosen >= 0) {
        const struct plan_option *c = &r.options[r.chosen];
        CHECK(c->simulated);
        CHECK_NEAR(c->rate_per_s * S, 1, 0.02);
        CHECK_NEAR(c->users_per_instance, 2.5, 0.05);
        CHECK(c->instances == 3);
        /* the planned load and the verification block: closed loops of 2 users, which run at
         * X = 2 / (Z + R) with R between S and 2 S */
        CHECK(r.verify.users == 2);
        CHECK(c->planned_rate_per_instance_s * 2.5 * S >= 2 * 0.97 / 1.4 &&
              c->planned_rate_per_instance_s * 2.5 * S <= 2 * 1.03);
    }
    /* the analytic screen finds the same knee */
    if (r.n_options >= 1)
        CHECK_NEAR(r.options[0].analytic_rate_per_s * S, 1, 0.02);
    plan_result_release(&r);
    plan_question_free(q);
}

/* More users never need fewer devices. */
TEST(plan_closed_loop_monotone)
{
    double S = closed_service_s();
    CHECK(S > 0);
    if (!(S > 0))
        return;
    int prev = 0;
    for (long users = 1; users <= 9; users += 2) {
        struct plan_question *q = closed_parse(users, 10 * S, 1.5 * S, 0);
        CHECK(q != NULL);
        if (!q)
            return;
        struct plan_result r;
        CHECK(solve(q, 1, &r) == 0);
        CHECK(r.chosen >= 0);
        if (r.chosen >= 0) {
            CHECK(r.options[r.chosen].devices >= prev);
            prev = r.options[r.chosen].devices;
        }
        plan_result_release(&r);
        plan_question_free(q);
    }
    CHECK(prev > 1);
}

/* Prefill on one device type, decode on another, simulated: at a light load (0.2 requests/s
 * against a unit that serves one request in ~0.3 s) most requests find both instances idle, so
 * the median TTFT is the prefill step of the 512-token prompt on the prefill device (h100-sxm)
 * and the median TPOT the decode step on the decode device (a100-sxm-80gb), plus the KV
 * transfer spread over the 31 later tokens. */
TEST(plan_heterogeneous_simulated)
{
    const char *text = "model: llama-3-8b\n"
                       "formats: [bf16]\n"
                       "workload: {rate_per_s: 0.2, prompt: 512, output: 32}\n"
                       "slo: {ttft: 10 s, itl: 1 s, percentile: 50}\n"
                       "candidates: {hardware: [a100-sxm-80gb], prefill_hardware: [h100-sxm], "
                       "tp: [1], schedulers: [disaggregated], prefill_decode_ratios: [1], "
                       "max_batch: [1]}\n"
                       "money: {rent_per_hour: {h100-sxm: 2.0, a100-sxm-80gb: 1.0}}\n"
                       "plan: {requests: 400, confirm_top: 4}\n";
    struct plan_question *q = parse_q("het.yaml", text);
    CHECK(q != NULL);
    if (!q)
        return;
    struct plan_result r;
    CHECK(solve(q, 1, &r) == 0);
    CHECK(r.chosen >= 0);
    struct plan_opts o;
    plan_opts_init(&o);
    if (r.chosen >= 0) {
        const struct plan_option *c = &r.options[r.chosen];
        CHECK(strcmp(c->prefill_hw_id, "h100-sxm") == 0 && strcmp(c->hw_id, "a100-sxm-80gb") == 0);
        CHECK(c->simulated);
        /* the step costs by hand: homogeneous configs of each device */
        struct plan_option h = *c, a = *c;
        struct sim_config ch, ca;
        snprintf(h.hw_id, sizeof h.hw_id, "h100-sxm");
        a.prefill_hw_id[0] = '\0';
        CHECK(plan_option_sim_config(q, &o, &h, 1, &ch) == 0);
        CHECK(plan_option_sim_config(q, &o, &a, 1, &ca) == 0);
        CHECK(ch.decode_engine == NULL && ca.decode_engine == NULL);
        double pre_h = step_of(&ch, 1, 512, 0), pre_a = step_of(&ca, 1, 512, 0);
        double dec_h = step_of(&ch, 1, 1, 528), dec_a = step_of(&ca, 1, 1, 528);
        CHECK(pre_a > 1.3 * pre_h && dec_a > 1.3 * dec_h); /* the two devices differ */
        CHECK_NEAR(c->ttft_p50_s / pre_h, 1, 0.02);
        CHECK_NEAR(c->itl_p50_s / dec_a, 1, 0.1);
        /* the option's own config: prefill on the h100, decode on the a100, as the planner
         * simulated it: the same seed at the planned rate gives the planner's figures exactly */
        struct sim_config hc;
        struct roof_config dec;
        CHECK(plan_option_sim_config_pools(q, &o, c, c->planned_rate_per_instance_s, &hc, &dec) ==
              0);
        CHECK(strcmp(hc.engine.hw->id, "h100-sxm") == 0);
        CHECK(hc.decode_engine == &dec && strcmp(dec.hw->id, "a100-sxm-80gb") == 0);
        struct sim_result sr;
        struct err_list se = {0};
        CHECK(sim_run(&hc, &sr, &se) == 0);
        err_list_release(&se);
        CHECK(sr.ttft.p50 == c->ttft_p50_s && sr.tpot.p50 == c->itl_p50_s);
        sim_result_release(&sr);
    }
    plan_result_release(&r);
    plan_question_free(q);
}

static void
write_text(const char *dir, const char *name, const char *text)
{
    char path[256];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    FILE *f = fopen(path, "w");
    if (f) {
        fputs(text, f);
        fclose(f);
    }
}

/* workload.trace: 4 requests at 0, 1, 2 and 4 s give 3 gaps over 4 s, a rate of 0.75 requests/s
 * and gaps of mean 4/3 s and sd sqrt(((1/3)^2 + (1/3)^2 + (2/3)^2) / 2) = 0.57735 s (cv
 * 0.43301); prompts 100..400 (mean 250, max 400), outputs 10..40 (mean 25, max 40); the path is
 * relative to the question. */
TEST(plan_trace_workload)
{
    char dir[] = "/tmp/roofline-plan-trace-XXXXXX";
    CHECK(mkdtemp(dir) != NULL);
    write_text(dir, "t.csv", "arrival_s,prompt,output\n0,100,10\n1,200,20\n2,300,30\n4,400,40\n");
    write_text(dir, "q.yaml",
               "model: llama-3-8b\nformats: [bf16]\nworkload: {trace: t.csv}\n"
               "slo: {ttft: 1 s, itl: 50 ms}\n"
               "candidates: {hardware: [h100-sxm], tp: [1], schedulers: [continuous]}\n"
               "money: {rent_per_hour: {h100-sxm: 2.0}}\nplan: {requests: 300}\n");
    write_text(dir, "bad.yaml",
               "model: llama-3-8b\nworkload: {trace: none.csv, cv: 2}\n"
               "candidates: {hardware: [h100-sxm]}\n");
    char path[256];
    snprintf(path, sizeof path, "%s/q.yaml", dir);
    struct err_list e = {0};
    struct plan_question *q = plan_question_load(path, &e);
    for (size_t i = 0; i < e.n; i++)
        fprintf(stderr, "%s\n", e.items[i].msg);
    err_list_release(&e);
    CHECK(q != NULL);
    if (q) {
        CHECK(q->trace != NULL && q->trace->n == 4);
        CHECK_NEAR(q->rate_per_s, 0.75, 1e-12);
        CHECK(q->process == SIM_GAMMA);
        CHECK_NEAR(q->cv, sqrt(1.0 / 3.0) / (4.0 / 3.0), 1e-12);
        CHECK(q->prompt.kind == SIM_DIST_TRACE && q->output.kind == SIM_DIST_TRACE);
        CHECK_NEAR(q->prompt.mean, 250, 0);
        CHECK_NEAR(q->output.max, 40, 0);
        struct plan_result r;
        CHECK(solve(q, 1, &r) == 0);
        CHECK(r.chosen >= 0);
        if (r.chosen >= 0) {
            const struct plan_option *op = &r.options[r.chosen];
            CHECK(op->simulated && op->status == PLAN_SLO_MET);
            /* tokens priced at the trace's mean lengths: 0.75 x 25 output tokens/s */
            CHECK_NEAR(op->cost_per_mtok_output, op->cost_per_hour / (0.75 * 25 * 3600 / 1e6),
                       1e-9);
            /* the simulator draws the trace's lengths */
            struct plan_opts o;
            plan_opts_init(&o);
            struct sim_config cfg;
            CHECK(plan_option_sim_config(q, &o, op, 0.75, &cfg) == 0);
            CHECK(cfg.work.trace == q->trace && cfg.work.prompt.kind == SIM_DIST_TRACE);
        }
        plan_result_release(&r);
        plan_question_free(q);
    }
    /* a missing trace is an error at the key; cv goes with a traffic form */
    snprintf(path, sizeof path, "%s/bad.yaml", dir);
    q = plan_question_load(path, &e);
    CHECK(q == NULL);
    bool missing = false, cv = false;
    for (size_t i = 0; i < e.n; i++) {
        missing = missing || (strstr(e.items[i].msg, "none.csv") && e.items[i].line == 2);
        cv = cv || (strstr(e.items[i].msg, "'workload.cv'") && e.items[i].line == 2);
    }
    CHECK(missing && cv);
    err_list_release(&e);
    const char *names[] = {"t.csv", "q.yaml", "bad.yaml"};
    for (int i = 0; i < 3; i++) {
        snprintf(path, sizeof path, "%s/%s", dir, names[i]);
        remove(path);
    }
    remove(dir);
}

/* The question's MoE kernel on its formats (io/question.c moe_kernel_formats): without
 * kernels.moe, vllm (Marlin's rate in its profile) gets a Marlin twin of each MXFP4-expert format
 * on 16-bit activations and nothing for the others; kernels.moe pins one kernel on the formats
 * it changes (no twins); an engine without Marlin's rate (sglang) gets none. */
TEST(plan_moe_kernel_twins)
{
    char dir[] = "/tmp/roofline-plan-moe-XXXXXX";
    CHECK(mkdtemp(dir) != NULL);
    const char *base = "model: gpt-oss-120b\nworkload: {rate_per_s: 1, prompt: 100, output: 100}\n"
                       "candidates: {hardware: [h100-sxm]}\n"
                       "formats: [mxfp4_moe_bf16, bf16, {weights: mxfp4_moe_bf16, act: fp8}]\n";
    struct {
        const char *name, *extra;
        int n;
        bool marlin[4];
    } cases[] = {
        {"both.yaml", "engine: vllm\n", 4, {false, false, false, true}},
        {"pin-m.yaml", "engine: vllm\nkernels: {moe: marlin}\n", 3, {true, false, false}},
        {"pin-a.yaml", "engine: vllm\nkernels: {moe: auto}\n", 3, {false, false, false}},
        {"sglang.yaml", "engine: sglang\n", 3, {false, false, false}},
    };
    char path[256], text[512];
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        snprintf(text, sizeof text, "%s%s", base, cases[c].extra);
        write_text(dir, cases[c].name, text);
        snprintf(path, sizeof path, "%s/%s", dir, cases[c].name);
        struct err_list e = {0};
        struct plan_question *q = plan_question_load(path, &e);
        err_list_release(&e);
        CHECK(q != NULL);
        if (q) {
            CHECK(q->n_formats == cases[c].n);
            for (int i = 0; i < q->n_formats && i < 4; i++)
                CHECK(q->formats[i].moe_marlin == cases[c].marlin[i]);
            if (c == 0) /* the twin is the first format's, MXFP4 experts on bf16 */
                CHECK(q->formats[3].weights == q->formats[0].weights &&
                      q->formats[3].act == q->formats[0].act &&
                      q->formats[3].kv == q->formats[0].kv);
            plan_question_free(q);
        }
        remove(path);
    }
    remove(dir);
}

/* plan_bisect_rate against the plain bisection it replaces (screen.c), on monotone margins:
 * smooth power laws, a margin that jumps at a kink, and one unstable (INFINITY) above a
 * capacity: the same double, with fewer tests on the smooth ones. */
struct bis_case {
    double thr, p, jump, unstable;
    int calls;
};

static int
bis_margin(void *ctx, double rate, double *margin)
{
    struct bis_case *b = ctx;
    b->calls++;
    if (rate >= b->unstable) {
        *margin = INFINITY;
        return 0;
    }
    double g = pow(rate / b->thr, b->p);
    if (b->jump > 0 && rate > b->thr)
        g *= b->jump;
    *margin = g;
    return g <= 1.0;
}

static double
bis_plain(double lo, double hi, struct bis_case *b)
{
    for (int i = 0; i < 40 && hi / lo > 1.005; i++) {
        double mid = sqrt(lo * hi), g;
        if (bis_margin(b, mid, &g))
            lo = mid;
        else
            hi = mid;
    }
    return lo;
}

TEST(plan_bisect_same_as_plain)
{
    int plain_calls = 0, guided_calls = 0, n = 0;
    for (int k = 0; k < 400; k++) {
        double cap = 3.7;
        struct bis_case b = {.thr = cap * pow(10.0, -3.5 + 3.49 * k / 399.0),
                             .p = 0.3 + (k % 7) * 0.5,
                             .jump = k % 5 == 0 ? 1.3 : 0,
                             .unstable = k % 3 == 0 ? cap * 0.97 : INFINITY};
        double lo = cap * 1e-4, g0;
        if (!bis_margin(&b, lo, &g0))
            continue;
        b.calls = 0;
        double want = bis_plain(lo, cap, &b);
        plain_calls += b.calls;
        b.calls = 0;
        int evals = 0;
        double got = plan_bisect_rate(lo, cap, 40, 1.005, g0, bis_margin, &b, &evals);
        CHECK(got == want);
        CHECK(evals == b.calls);
        guided_calls += b.calls;
        n++;
    }
    CHECK(n > 300);
    /* about 11 tests a search plain; the guesses save at least a quarter of them */
    CHECK(guided_calls < 0.75 * plain_calls);
}

/* The planner's engine hook as `roofline plan` sets it: the engine's calibrated tuning. */
static int
llama_tuning(const struct hw_profile *hw, const char *engine, struct roof_tuning *out, void *ctx)
{
    (void)ctx;
    struct err_list e = {0};
    int rc = calparams_tuning(hw, engine, NULL, out, NULL, &e);
    err_list_release(&e);
    return rc;
}

/* A llama.cpp candidate steps as `analyze --engine llama.cpp` evaluates it: unfused attention
 * (flash_attention: false, 24 B per score), the prompt in 512-token micro-batches pipelined over
 * a layer split (pipeline_copies), the batch-1 token paying the LM head and host step once; and
 * its compute buffers sized for the context its launch line gives (docs/physics.md) */
TEST(plan_llama_cpp_step_as_analyze)
{
    const char *qt = "model: llama-3-8b\n"
                     "engine: llama.cpp\n"
                     "formats: [fp16]\n"
                     "workload:\n"
                     "  rate_per_s: 0.1\n"
                     "  prompt: {dist: fixed, value: 1024}\n"
                     "  output: {dist: fixed, value: 128}\n"
                     "slo: {ttft: 5 s, itl: 100 ms}\n"
                     "candidates: {hardware: [rtx-4090], pp: [2], schedulers: [continuous]}\n"
                     "money: {rent_per_hour: {rtx-4090: 0.5}}\n";
    struct err_list e = {0};
    struct plan_question *q = parse_q("q.yaml", qt);
    struct engine_profile *ep = engine_find("llama.cpp", &e);
    for (size_t i = 0; i < e.n; i++)
        fprintf(stderr, "%s\n", e.items[i].msg);
    err_list_release(&e);
    CHECK(q != NULL && ep != NULL);
    if (!q || !ep) {
        plan_question_free(q);
        engine_profile_free(ep);
        return;
    }
    struct plan_opts o;
    plan_opts_init(&o);
    o.tuning = llama_tuning;
    o.serving = engine_serving_hook;
    o.serving_ctx = ep;
    struct plan_option op;
    option_on(&op, q, "rtx-4090", 1, 2, SIM_CONTINUOUS);
    struct sim_config pc;
    CHECK(plan_option_sim_config(q, &o, &op, 0.1, &pc) == 0);
    /* analyze --gpu rtx-4090 --model llama-3-8b --weights fp16 --pp 2 --engine llama.cpp */
    struct roof_config a;
    roof_config_init(&a, pc.engine.hw, q->model, ROOF_PREFILL);
    a.weights = a.act = a.kv = DT_FP16;
    a.pp = 2;
    CHECK(llama_tuning(a.hw, "llama.cpp", &a.tuning, NULL) == 0);
    CHECK(!roof_flash_attention(&a) && !roof_flash_attention(&pc.engine));
    CHECK(a.tuning.ubatch_tokens == 512 && a.tuning.pipeline_inflight == 4);
    a.prompt = 1024;
    struct roof_result r;
    CHECK(roof_evaluate(&a, &r) == 0);
    struct sim_cost *sc = sim_cost_new(&pc.engine);
    CHECK(sc != NULL);
    if (!sc) {
        plan_question_free(q);
        engine_profile_free(ep);
        return;
    }
    struct roof_seq prompt = {1, 1024, 0, true};
    CHECK_NEAR(sim_cost_step(sc, &prompt, 1), r.time_s, 1e-12);
    /* by hand: two 512-token micro-batches on one device's 16 layers, t1 and t2 (the second
     * attends to the first), in flight on both devices: t1 + t2 + max(t1, t2), plus one send of
     * 1024 x 4096 x 2 B over the link */
    struct mdl_profile shard;
    struct roof_config dev;
    roof_shard_view(&a, &shard, &dev);
    CHECK(shard.num_layers == 16);
    struct roof_seq u1 = {1, 512, 0, false}, u2 = {1, 512, 512, true};
    struct roof_result r1, r2;
    CHECK(roof_step(&dev, &u1, 1, &r1) == 0 && roof_step(&dev, &u2, 1, &r2) == 0);
    CHECK(r2.time_s > r1.time_s);
    double bw = hw_link_bytes_per_s_per_direction(a.hw);
    double send = 1024.0 * 4096 * 2 / bw + roof_link_latency_default_s(a.hw);
    CHECK_NEAR(r.time_s, r1.time_s + 2 * r2.time_s + send, 1e-12);
    /* a decode step at batch 1: the token crosses both devices in turn and pays the embedding,
     * final norm, LM head and host step once */
    a.phase = ROOF_DECODE;
    a.context = 1000;
    CHECK(roof_evaluate(&a, &r) == 0);
    struct roof_seq tok = {1, 1, 1000, true};
    CHECK_NEAR(sim_cost_step(sc, &tok, 1), r.time_s, 1e-12);
    struct roof_result d;
    dev.phase = ROOF_DECODE;
    CHECK(roof_step(&dev, &tok, 1, &d) == 0);
    double once = d.ops[ROOF_OP_EMBEDDING].time_s + d.ops[ROOF_OP_FINAL_NORM].time_s +
                  d.ops[ROOF_OP_LM_HEAD].time_s + d.ops[ROOF_OP_STEP].time_s;
    CHECK(once > 0);
    double send1 = 4096.0 * 2 / bw + roof_link_latency_default_s(a.hw);
    CHECK_NEAR(r.time_s, 2 * d.time_s - once + send1, 1e-12);
    /* the scores of the 1001 keys go through memory, 24 B each over the three kernels, of which
     * the KQ GEMM writes 8: 16 layers x 32 heads x 1001 x 8 B */
    CHECK_NEAR(d.ops[ROOF_OP_ATTN_SCORE].bytes_act_out, 16.0 * 32 * 1001 * 8, 1e-12);
    sim_cost_free(sc);
    /* the compute buffers for llama-server -c 4608 -np 4 (1152 tokens a slot): the scores of a
     * 512-token micro-batch against 4608 keys in 32 heads are the widest f32 tensor (147456
     * columns, over the 128256 logits): 4 B x 512 x (147456 + 4096) = 310,378,496 B */
    CHECK(pc.sched.max_batch == 4);
    CHECK_NEAR(pc.engine.reserve_bytes, 310378496.0, 1e-12);
    char line[512];
    struct plan_cand c;
    memset(&c, 0, sizeof c);
    c.hw = pc.engine.hw;
    c.fmt = op.format;
    c.tp = 1;
    c.pp = 2;
    c.policy = SIM_CONTINUOUS;
    op.max_batch = 4;
    plan_launch_line(q, &c, &op, line, sizeof line);
    CHECK(strstr(line, "-c 4608 -np 4") != NULL);
    /* without an engine the format picks it: a GGUF's mix runs on llama.cpp, gpt-oss's own
     * checkpoint (mxfp4 experts, bf16 else) on vLLM */
    char *qe = q->engine;
    q->engine = NULL;
    c.pp = 1;
    c.fmt.weights = DT_MXFP4_MOE;
    plan_launch_line(q, &c, &op, line, sizeof line);
    CHECK(strstr(line, "llama-server -m llama-3-8b-mxfp4_moe.gguf") == line);
    c.fmt.weights = DT_MXFP4_MOE_BF16;
    plan_launch_line(q, &c, &op, line, sizeof line);
    CHECK(strstr(line, "vllm serve llama-3-8b") == line);
    q->engine = qe;
    c.pp = 2;
    c.fmt = op.format;
    /* a scenario of the same engine and lengths reserves the same, and simulates the same step */
    const char *st = "name: t\nmodel: llama-3-8b\nengine: llama.cpp\n"
                     "hardware: {id: rtx-4090, count: 2, pp: 2}\n"
                     "dtypes: {weights: fp16}\n"
                     "scheduler: {policy: continuous}\n"
                     "arrivals: {process: poisson, rate_per_s: 0.1}\n"
                     "lengths: {prompt: 1024, output: 128}\n"
                     "run: {requests: 10}\n";
    struct scenario *s = scenario_parse("s.yaml", st, strlen(st), &e);
    for (size_t i = 0; i < e.n; i++)
        fprintf(stderr, "%s\n", e.items[i].msg);
    err_list_release(&e);
    CHECK(s != NULL);
    if (s) {
        struct sim_config scfg;
        scenario_sim_config(s, &scfg);
        CHECK_NEAR(scfg.engine.reserve_bytes, 310378496.0, 1e-12);
        CHECK(llama_tuning(scfg.engine.hw, "llama.cpp", &scfg.engine.tuning, NULL) == 0);
        struct sim_cost *ss = sim_cost_new(&scfg.engine);
        CHECK(ss != NULL);
        if (ss) {
            a.phase = ROOF_PREFILL;
            CHECK(roof_evaluate(&a, &r) == 0);
            CHECK_NEAR(sim_cost_step(ss, &prompt, 1), r.time_s, 1e-12);
        }
        sim_cost_free(ss);
        scenario_free(s);
    }
    plan_question_free(q);
    engine_profile_free(ep);
}
