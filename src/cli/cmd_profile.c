/* roofline profile: measure a live completion server the way the seeds time a llama-server
 * (TTFT against prompt length, the gaps between tokens against context), fit both with GSL,
 * say the verdict in words, and with --gpu/--model put the roofline's prediction beside every
 * figure. --concurrency/--rate measure percentiles and throughput against load (with --scenario,
 * beside the simulator's). docs/profile.md. */
#include "cli/cli.h"
#include "cli/out.h"
#include "cli/profile.h"
#include "io/profiles.h"
#include "io/scenario.h"
#include "sim/sim.h"
#include "util/afile.h"
#include "util/strs.h"
#include "util/units.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static const struct cli_opt SPEC[] = {
    OPT_VALUE("url", "URL", "the server's completion endpoint"),
    OPT_VALUE("api", "openai|llama.cpp", "request and stream format"),
    OPT_VALUE("model", "NAME", "model profile for the prediction (with --gpu)"),
    OPT_VALUE("served-model", "NAME", "the model name sent to the server"),
    OPT_VALUE("prompts", "N,N,...", "prompt lengths in tokens"),
    OPT_VALUE("outputs", "N,N,...", "output lengths in tokens"),
    OPT_VALUE("repeats", "N", "requests per point"),
    OPT_VALUE("concurrency", "N,N,...", "closed-loop users per load point"),
    OPT_VALUE("rate", "R", "Poisson arrivals per second"),
    OPT_VALUE("requests", "N", "requests per load point"),
    OPT_VALUE("timeout", "S", "seconds before a request is abandoned"),
    OPT_VALUE("gpu", "ID", "hardware profile for the prediction"),
    OPT_VALUE("weights", "F", "weight format of the prediction"),
    OPT_VALUE("engine", "E", "engine profile of the prediction"),
    OPT_VALUE("moe-kernel", "auto|marlin", "MXFP4 experts of the prediction: vLLM's Marlin MoE"),
    OPT_VALUE("tp", "N", "tensor-parallel devices of the prediction"),
    OPT_VALUE("ep", "N", "expert-parallel groups of the prediction's tp devices"),
    OPT_VALUE("attn-dp", "N", "data-parallel attention ranks of the prediction's tp devices"),
    OPT_VALUE("scenario", "FILE", "simulate the same load and print it beside"),
    OPT_VALUE("seed", "S", "random seed"),
    OPT_VALUE("output", "table|csv|json", "output format (-o)"),
    OPT_VALUE("measurements-out", "FILE", "write the results as measurement rows"),
    OPT_VALUE("hardware", "ID", "hardware id written into the measurement rows"),
};
#define NF(a) ((int)(sizeof(a) / sizeof((a)[0])))

static int run(int argc, char **argv);

const struct cli_cmd cmd_profile = {
    "profile",
    "measure a live completion server (TTFT, every inter-token gap, load) and fit prefill and "
    "decode; with --gpu/--model beside the prediction (docs/profile.md)",
    "roofline profile --url URL [--api openai|llama.cpp] [--model NAME] [--served-model NAME]\n"
    "         [--prompts 128,512,2048] [--outputs 16,64,256] [--repeats N]\n"
    "         [--concurrency 1,4,16 | --rate R [--requests N]] [--timeout S]\n"
    "         [--gpu G --model M [--weights F] [--tp N [--ep N] [--attn-dp N]]\n"
    "          [--engine E [--moe-kernel auto|marlin]]]\n"
    "         [--scenario FILE] [--seed S]\n"
    "         [-o table|csv|json] [--measurements-out FILE] [--hardware ID]",
    run, CLI_OPTS(SPEC)};
#define MAX_LIST 16
#define MAX_REQS 4096

/* ---- small helpers ---- */

static int
parse_list(const char *name, const char *v, long min, long max, long *out, int *n)
{
    *n = 0;
    char buf[512];
    snprintf(buf, sizeof buf, "%s", v);
    char *save = NULL;
    for (char *t = strtok_r(buf, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
        long x;
        if (*n >= MAX_LIST || str_to_long(t, &x) != 0 || x < min || x > max) {
            fprintf(stderr,
                    "error: --%s: expected up to %d whole numbers %ld..%ld separated by "
                    "commas, got '%s'\n",
                    name, MAX_LIST, min, max, v);
            return -1;
        }
        out[(*n)++] = x;
    }
    if (*n == 0) {
        fprintf(stderr, "error: --%s: empty list\n", name);
        return -1;
    }
    return 0;
}

/* ---- output ---- */

static const struct out_field GROUP_FIELDS[] = {
    {"prompt", "prompt", OUT_SHOW_NUM, 0, false},
    {"output", "output", OUT_SHOW_NUM, 0, false},
    {"requests", "n", OUT_SHOW_NUM, 0, false},
    {"ttft_s", "TTFT", OUT_SHOW_TIME, 0, false},
    {"ttft_predicted_s", "predicted", OUT_SHOW_TIME, 0, false},
    {"ttft_error_pct", "err %", OUT_SHOW_NUM, 1, false},
    {"itl_s", "ITL", OUT_SHOW_TIME, 0, false},
    {"itl_predicted_s", "predicted", OUT_SHOW_TIME, 0, false},
    {"itl_error_pct", "err %", OUT_SHOW_NUM, 1, false},
    {"e2e_s", "E2E", OUT_SHOW_TIME, 0, false},
    {"e2e_predicted_s", "predicted", OUT_SHOW_TIME, 0, false},
    {"e2e_error_pct", "err %", OUT_SHOW_NUM, 1, false},
};

static const struct out_field LOAD_FIELDS[] = {
    {"load", NULL, OUT_SHOW_TEXT, 0, false},
    {"source", NULL, OUT_SHOW_TEXT, 0, false},
    {"requests", "n", OUT_SHOW_NUM, 0, false},
    {"ttft_p50_s", "TTFT p50", OUT_SHOW_TIME, 0, false},
    {"ttft_p99_s", "TTFT p99", OUT_SHOW_TIME, 0, false},
    {"itl_p50_s", "ITL p50", OUT_SHOW_TIME, 0, false},
    {"itl_p99_s", "ITL p99", OUT_SHOW_TIME, 0, false},
    {"e2e_p50_s", "E2E p50", OUT_SHOW_TIME, 0, false},
    {"output_tokens_per_s", "tokens/s", OUT_SHOW_NUM, 1, false},
};

static const struct out_field REQ_FIELDS[] = {
    {"prompt_target", NULL, OUT_SHOW_NUM, 0, false},
    {"output_target", NULL, OUT_SHOW_NUM, 0, false},
    {"load", NULL, OUT_SHOW_TEXT, 0, false},
    {"prompt_tokens", NULL, OUT_SHOW_NUM, 0, false},
    {"completion_tokens", NULL, OUT_SHOW_NUM, 0, false},
    {"tokens_received", NULL, OUT_SHOW_NUM, 0, false},
    {"start_s", NULL, OUT_SHOW_TIME, 0, false},
    {"ttft_s", NULL, OUT_SHOW_TIME, 0, false},
    {"itl_median_s", NULL, OUT_SHOW_TIME, 0, false},
    {"e2e_s", NULL, OUT_SHOW_TIME, 0, false},
    {"error", NULL, OUT_SHOW_TEXT, 0, false},
};

static double
err_pct(double pred, double meas)
{
    return isfinite(pred) && meas > 0 ? (pred - meas) / meas * 100 : NAN;
}

/* ---- the command ---- */

struct opts {
    struct net_client c;
    long prompts[MAX_LIST], outputs[MAX_LIST], conc[MAX_LIST];
    int n_prompts, n_outputs, n_conc;
    long repeats, requests;
    double rate;
    unsigned long seed;
    enum out_fmt fmt;
    bool have_pred;
    struct prof_pred pred;
    const struct mdl_profile *model;
    const char *hw_id, *model_id, *engine;
};

static void
write_row(FILE *f, const char *id, const struct opts *o, const char *date, const char *phase,
          const char *key, long x, const char *extra, const char *metric, double value,
          const char *note)
{
    fprintf(f,
            "- id: %s\n  source: \"roofline profile %s (%s API) on %s\"\n  hardware: %s\n"
            "  model: %s\n  weights: %s\n  engine: %s\n  phase: %s\n  batch: 1\n  %s: %ld\n%s"
            "  metric: %s\n  value: %.6g\n  note: \"%s\"\n",
            id, o->c.url, o->c.api == NET_API_OPENAI ? "openai" : "llama.cpp", date, o->hw_id,
            o->model_id, dtype_name(o->pred.weights), o->engine, phase, key, x, extra, metric,
            value, note);
}

static int
write_measurements(const char *path, const struct opts *o, const struct prof_req *reqs, long n)
{
    struct afile af;
    struct err_list errs = {0};
    if (afile_open(&af, path, &errs) != 0) {
        cli_print_errs(&errs);
        err_list_release(&errs);
        return -1;
    }
    FILE *f = af.fp;
    char date[32];
    time_t t = time(NULL);
    struct tm tmv;
    gmtime_r(&t, &tmv);
    strftime(date, sizeof date, "%Y-%m-%d", &tmv);
    fprintf(f, "# measured by roofline profile (docs/profile.md): medians over the requests, one "
               "row per prompt length (prefill: TTFT) and per decode context (ITL)\n");
    int rows = 0;
    for (int pi = 0; pi < o->n_prompts; pi++) {
        double v[MAX_REQS];
        long m = 0, ptok = 0;
        for (long i = 0; i < n; i++)
            if (reqs[i].level < 0 && reqs[i].prompt_target == o->prompts[pi] &&
                reqs[i].r.fail == NET_OK && m < MAX_REQS) {
                v[m++] = reqs[i].r.ttft_s;
                ptok = reqs[i].r.prompt_tokens > 0 ? reqs[i].r.prompt_tokens : o->prompts[pi];
            }
        if (m == 0)
            continue;
        char id[64], note[96];
        snprintf(id, sizeof id, "profile-prefill-%ld", ptok);
        snprintf(note, sizeof note, "median TTFT of %ld requests", m);
        write_row(f, id, o, date, "prefill", "prompt", ptok, "", "time_ms",
                  1e3 * prof_quantile(v, m, 0.5), note);
        rows++;
        /* decode: the median gap of every request with this prompt, at its mean context */
        double g[MAX_REQS];
        long k = 0, ctx_sum = 0, out_sum = 0;
        for (long i = 0; i < n; i++) {
            const struct net_result *r = &reqs[i].r;
            if (reqs[i].level < 0 && reqs[i].prompt_target == o->prompts[pi] && r->fail == NET_OK &&
                r->n_gaps >= 4 && k < MAX_REQS) {
                double *tmpg = malloc((size_t)r->n_gaps * sizeof *tmpg);
                if (!tmpg)
                    continue;
                memcpy(tmpg, r->gaps_s, (size_t)r->n_gaps * sizeof *tmpg);
                g[k++] = prof_quantile(tmpg, r->n_gaps, 0.5);
                free(tmpg);
                ctx_sum += ptok + 1 + r->n_gaps / 2;
                out_sum += r->n_gaps + 1;
            }
        }
        if (k == 0)
            continue;
        long ctx = ctx_sum / k;
        snprintf(id, sizeof id, "profile-decode-%ld-%ld", ptok, ctx);
        snprintf(note, sizeof note, "median inter-token gap of %ld requests (%ld tokens)", k,
                 out_sum);
        write_row(f, id, o, date, "decode", "context", ctx, "", "time_ms",
                  1e3 * prof_quantile(g, k, 0.5), note);
        rows++;
    }
    if (afile_commit(&af, &errs) != 0) {
        cli_print_errs(&errs);
        err_list_release(&errs);
        return -1;
    }
    fprintf(stderr, "wrote %s (%d rows; check them with: roofline validate --measurements %s)\n",
            path, rows, path);
    return 0;
}

static void
load_stats(struct prof_req *reqs, long n, double wall_s, struct out_value *v)
{
    double *tt = malloc(sizeof(double) * (size_t)(n + 1)),
           *ee = malloc(sizeof(double) * (size_t)(n + 1));
    long gaps = 0;
    for (long i = 0; i < n; i++)
        gaps += reqs[i].r.fail == NET_OK ? reqs[i].r.n_gaps : 0;
    double *gg = malloc(sizeof(double) * (size_t)(gaps + 1));
    long m = 0, k = 0, toks = 0;
    for (long i = 0; tt && ee && gg && i < n; i++) {
        const struct net_result *r = &reqs[i].r;
        if (r->fail != NET_OK)
            continue;
        tt[m] = r->ttft_s;
        ee[m++] = r->e2e_s;
        memcpy(gg + k, r->gaps_s, (size_t)r->n_gaps * sizeof(double));
        k += r->n_gaps;
        toks += r->completion_tokens > 0 ? r->completion_tokens : r->tokens;
    }
    v[2].x = (double)m;
    v[3].x = prof_quantile(tt, m, 0.5);
    v[4].x = prof_quantile(tt, m, 0.99);
    v[5].x = prof_quantile(gg, k, 0.5);
    v[6].x = prof_quantile(gg, k, 0.99);
    v[7].x = prof_quantile(ee, m, 0.5);
    v[8].x = wall_s > 0 ? (double)toks / wall_s : NAN;
    free(tt);
    free(ee);
    free(gg);
}

/* simulate one load level with the scenario's hardware, model and scheduler */
static int
simulate_level(const char *path, const struct opts *o, long users, double rate, long nreq,
               struct out_value *v)
{
    struct sim_config cfg;
    struct scenario *sc = cli_scenario_load(path, (long)o->seed, &cfg);
    if (!sc)
        return -1;
    cfg.work.process = rate > 0 ? SIM_POISSON : SIM_CLOSED;
    cfg.work.rate_per_s = rate;
    cfg.work.users = users;
    cfg.work.think_time_s = 0;
    cfg.work.requests = nreq;
    cfg.work.duration_s = 0;
    cfg.work.warmup_requests = 0;
    cfg.work.warmup_s = 0;
    cfg.work.trace = NULL;
    cfg.work.prompt = (struct sim_dist){SIM_DIST_FIXED, (double)o->prompts[0], 0, 0, 0, 0};
    cfg.work.output = (struct sim_dist){SIM_DIST_FIXED, (double)o->outputs[0], 0, 0, 0, 0};
    struct sim_result res;
    struct err_list errs = {0};
    int rc = sim_run(&cfg, &res, &errs);
    cli_print_errs(&errs);
    err_list_release(&errs);
    if (rc == 0) {
        v[2].x = (double)res.completed;
        v[3].x = res.ttft.p50;
        v[4].x = res.ttft.p99;
        v[5].x = res.itl.p50;
        v[6].x = res.itl.p99;
        v[7].x = res.e2e.p50;
        v[8].x = res.output_tokens_per_s;
        sim_result_release(&res);
    }
    scenario_free(sc);
    return rc;
}

static int
run(int argc, char **argv)
{
    struct cli_ctx ctx;
    int rc;
    if (cli_begin(&ctx, &cmd_profile, 0, argc, argv, &rc) != 0)
        return rc;
    const struct cli_args *a = &ctx.a;
    struct opts o;
    memset(&o, 0, sizeof o);
    o.fmt = ctx.fmt;
    o.c.url = cli_get(a, "url");
    if (!o.c.url || strncmp(o.c.url, "http", 4) != 0)
        return cli_usage_error(&cmd_profile, "--url: expected the server's completion endpoint, "
                                             "e.g. http://127.0.0.1:8080/v1/completions");
    o.c.api = NET_API_OPENAI;
    const char *api = cli_get(a, "api");
    if (!api && strstr(o.c.url, "/v1/") == NULL && strstr(o.c.url, "/completion"))
        o.c.api = NET_API_LLAMACPP; /* llama.cpp's native /completion */
    if (api && strcmp(api, "openai") != 0 && strcmp(api, "llama.cpp") != 0) {
        fprintf(stderr, "error: --api: expected 'openai' or 'llama.cpp', got '%s'\n", api);
        return CLI_USAGE;
    }
    if (api)
        o.c.api = strcmp(api, "openai") == 0 ? NET_API_OPENAI : NET_API_LLAMACPP;
    long seed;
    if (parse_list("prompts", cli_has(a, "prompts") ? cli_get(a, "prompts") : "128,512,2048", 1,
                   1000000, o.prompts, &o.n_prompts) ||
        parse_list("outputs", cli_has(a, "outputs") ? cli_get(a, "outputs") : "16,64,256", 1,
                   100000, o.outputs, &o.n_outputs) ||
        (cli_has(a, "concurrency") &&
         parse_list("concurrency", cli_get(a, "concurrency"), 1, 256, o.conc, &o.n_conc)) ||
        cli_long(a, "repeats", 3, 1, &o.repeats) || cli_long(a, "requests", 32, 1, &o.requests) ||
        cli_long(a, "seed", 1, 0, &seed))
        return CLI_USAGE;
    o.seed = (unsigned long)seed;
    o.c.timeout_s = 120;
    const char *tv = cli_get(a, "timeout");
    if (tv &&
        (str_to_double(tv, &o.c.timeout_s) != 0 || !(o.c.timeout_s > 0) || o.c.timeout_s > 86400)) {
        fprintf(stderr, "error: --timeout: expected seconds (0 < S <= 86400), got '%s'\n", tv);
        return CLI_USAGE;
    }
    const char *rv = cli_get(a, "rate");
    if (rv && (str_to_double(rv, &o.rate) != 0 || !(o.rate > 0) || o.rate > 1e4)) {
        fprintf(stderr, "error: --rate: expected requests per second (0 < R <= 10000), got '%s'\n",
                rv);
        return CLI_USAGE;
    }
    if (rv && o.n_conc) {
        fprintf(stderr, "error: --concurrency (closed loop) and --rate (Poisson) are separate "
                        "loads; give one\n");
        return CLI_USAGE;
    }
    if (cli_has(a, "scenario") && !rv && !o.n_conc) {
        fprintf(stderr, "error: --scenario simulates a load: give --concurrency or --rate\n");
        return CLI_USAGE;
    }
    bool load = rv || o.n_conc;
    long total = 0;
    if (load)
        for (int i = 0; i < (rv ? 1 : o.n_conc); i++)
            total += rv ? o.requests : o.conc[i] * o.repeats;
    else
        total = (long)o.n_prompts * o.n_outputs * o.repeats;
    if (total > MAX_REQS) {
        fprintf(stderr, "error: %ld requests asked for; at most %d\n", total, MAX_REQS);
        return CLI_USAGE;
    }
    if (cli_has(a, "gpu") && !cli_has(a, "model")) {
        fprintf(stderr, "error: --gpu needs --model (the model profile the server runs)\n");
        return CLI_USAGE;
    }
    o.model_id = cli_get(a, "model");
    o.c.model = cli_has(a, "served-model") ? cli_get(a, "served-model") : o.model_id;
    o.engine = cli_has(a, "engine") ? cli_get(a, "engine") : "kernel";
    o.hw_id = cli_has(a, "hardware") ? cli_get(a, "hardware") : cli_get(a, "gpu");
    if (cli_has(a, "measurements-out") && (!o.hw_id || !o.model_id || load)) {
        fprintf(stderr, "error: --measurements-out writes the single-request sweep; it needs "
                        "--model and --gpu (or --hardware) for each row's ids, and no load\n");
        return CLI_USAGE;
    }
    struct hw_profile *hw = NULL;
    struct mdl_profile *model = NULL;
    rc = CLI_OK;
    if (o.model_id) {
        struct err_list errs = {0};
        model = mdl_find(o.model_id, &errs);
        if (cli_has(a, "gpu"))
            cli_print_errs(&errs); /* without --gpu the name may be the server's own */
        err_list_release(&errs);
        if (!model && cli_has(a, "gpu"))
            return CLI_FAIL;
    }
    o.model = model;
    o.pred.weights = model && strcmp(model->id, "bench-small") == 0 ? DT_FP32 : DT_BF16;
    if (cli_dtype(a, "weights", &o.pred.weights) != 0) {
        mdl_free(model);
        return CLI_USAGE;
    }
    if (cli_has(a, "moe-kernel") && !cli_has(a, "engine")) {
        fprintf(stderr, "error: --moe-kernel needs --engine (the engine whose MoE kernel it is)\n");
        mdl_free(model);
        return CLI_USAGE;
    }
    if (cli_has(a, "gpu")) {
        if (!(hw = cli_load_hw(cli_get(a, "gpu")))) {
            mdl_free(model);
            return CLI_FAIL;
        }
        o.pred.hw = hw;
        o.pred.model = model;
        o.have_pred = true;
        long tp = 1, ep = 1, adp = 1;
        if (cli_long(a, "tp", 1, 1, &tp) || cli_long(a, "ep", 1, 1, &ep) ||
            cli_long(a, "attn-dp", 1, 1, &adp)) {
            rc = CLI_USAGE;
            goto done_early;
        }
        o.pred.tp = (int)tp;
        o.pred.ep = (int)ep;
        o.pred.attn_dp = (int)adp;
        struct roof_config chk;
        roof_config_init(&chk, hw, model, ROOF_DECODE);
        chk.tp = o.pred.tp;
        chk.ep = o.pred.ep;
        chk.attn_dp = o.pred.attn_dp;
        const char *prob = model ? roof_config_problem(&chk) : NULL;
        if (prob) {
            fprintf(stderr, "error: %s (--tp %ld, --ep %ld, --attn-dp %ld, %s on %s)\n", prob, tp,
                    ep, adp, model->id, hw->id);
            rc = CLI_USAGE;
            goto done_early;
        }
        if (cli_has(a, "engine")) {
            struct roof_config tmp;
            roof_config_init(&tmp, hw, model, ROOF_DECODE);
            if (cli_engine_opts(a, &tmp) != 0) {
                rc = CLI_USAGE;
                goto done_early;
            }
            o.pred.tuning = tmp.tuning;
            o.pred.tuned = true;
            o.pred.mxfp4_marlin = tmp.mxfp4_marlin;
        }
    }
    if (net_client_global_init() != 0) {
        fprintf(stderr, "error: cannot initialise libcurl\n");
        rc = CLI_FAIL;
        goto done_early;
    }
    /* ---- prompts of the target lengths ---- */
    double tokens_per_word = NAN;
    char msg[320];
    long probe_tokens = 0;
    char *probe = prof_make_prompt(64, 0);
    bool tokenizer = probe &&
                     net_tokenize_remote(&o.c, probe, &probe_tokens, msg, sizeof msg) == 0 &&
                     probe_tokens > 0;
    const char *how;
    if (tokenizer) {
        tokens_per_word = (double)probe_tokens / 65.0;
        how = "the server's tokenizer";
    } else {
        /* calibrate words per token with a one-token request and its usage field; this is
         * also the discarded warm-up */
        struct net_result r;
        if (probe && net_stream(&o.c, probe, 1, &r) != 0) {
            fprintf(stderr, "error: %s\n", r.msg);
            net_result_release(&r);
            free(probe);
            rc = CLI_FAIL;
            goto done_curl;
        }
        if (r.prompt_tokens > 0) {
            tokens_per_word = (double)r.prompt_tokens / 65.0;
            how = "the usage field of a calibration request";
        } else {
            tokens_per_word = 1.3;
            how = "an assumed 1.3 tokens per word (no tokenizer, no usage field)";
        }
        net_result_release(&r);
    }
    free(probe);
    fprintf(stderr, "profile: %.3f tokens per word from %s\n", tokens_per_word, how);
    long words_for[MAX_LIST];
    for (int i = 0; i < o.n_prompts; i++) {
        long w = lround((double)o.prompts[i] / tokens_per_word) - 1;
        w = w < 0 ? 0 : w;
        for (int round = 0; tokenizer && round < 4; round++) {
            char *p = prof_make_prompt(w, 0);
            long n = 0;
            int trc = p ? net_tokenize_remote(&o.c, p, &n, msg, sizeof msg) : -1;
            free(p);
            if (trc != 0 || n == o.prompts[i])
                break;
            long step = lround((double)(o.prompts[i] - n) / tokens_per_word);
            w += step != 0 ? step : (n < o.prompts[i] ? 1 : -1);
            w = w < 0 ? 0 : w;
        }
        words_for[i] = w;
    }
    struct prof_req *reqs = calloc((size_t)total, sizeof *reqs);
    if (!reqs) {
        cli_oom();
        rc = CLI_FAIL;
        goto done_curl;
    }
    if (tokenizer) {
        /* the discarded warm-up */
        struct net_result r;
        char *p = prof_make_prompt(words_for[0], 0);
        if (p && net_stream(&o.c, p, 2, &r) != 0) {
            fprintf(stderr, "error: %s\n", r.msg);
            net_result_release(&r);
            free(p);
            free(reqs);
            rc = CLI_FAIL;
            goto done_curl;
        }
        net_result_release(&r);
        free(p);
    }
    /* ---- measure ---- */
    long nr = 0;
    int n_levels = load ? (rv ? 1 : o.n_conc) : 0;
    double level_wall[MAX_LIST];
    long level_first[MAX_LIST], level_n[MAX_LIST];
    if (!load) {
        for (int pi = 0; pi < o.n_prompts; pi++)
            for (int oi = 0; oi < o.n_outputs; oi++)
                for (long k = 0; k < o.repeats; k++) {
                    struct prof_req *q = &reqs[nr++];
                    q->prompt_target = o.prompts[pi];
                    q->output_target = o.outputs[oi];
                    q->words = words_for[pi];
                    q->level = -1;
                    fprintf(stderr, "[%ld/%ld] prompt %ld, output %ld ...", nr, total,
                            q->prompt_target, q->output_target);
                    prof_run_one(&o.c, q, nr, prof_now_s());
                    if (q->r.fail == NET_OK)
                        fprintf(stderr, " TTFT %.1f ms, %ld tokens in %.2f s\n", 1e3 * q->r.ttft_s,
                                q->r.tokens, q->r.e2e_s);
                    else
                        fprintf(stderr, " failed\n");
                }
    } else {
        for (int li = 0; li < n_levels; li++) {
            long n = rv ? o.requests : o.conc[li] * o.repeats;
            level_first[li] = nr;
            level_n[li] = n;
            for (long k = 0; k < n; k++) {
                struct prof_req *q = &reqs[nr + k];
                q->prompt_target = o.prompts[0];
                q->output_target = o.outputs[0];
                q->words = words_for[0];
                q->level = li;
            }
            if (rv) {
                fprintf(stderr, "load rate %s/s: %ld requests ...", rv, n);
                level_wall[li] = prof_poisson_load(&o.c, reqs + nr, n, nr, o.rate, o.seed);
            } else {
                fprintf(stderr, "load concurrency %ld: %ld requests ...", o.conc[li], n);
                level_wall[li] = prof_closed_load(&o.c, reqs + nr, n, nr, o.conc[li]);
            }
            nr += n;
            fprintf(stderr, " %.1f s\n", level_wall[li]);
        }
    }
    /* ---- failures (kept, reported) ---- */
    long failed = 0, ok_n = 0;
    for (long i = 0; i < nr; i++) {
        if (reqs[i].r.fail != NET_OK) {
            if (failed < 5)
                fprintf(stderr, "error: request %ld (prompt %ld, output %ld): %s\n", i + 1,
                        reqs[i].prompt_target, reqs[i].output_target, reqs[i].r.msg);
            failed++;
        } else {
            ok_n++;
        }
    }
    if (failed > 5)
        fprintf(stderr, "error: ... and %ld more failed requests\n", failed - 5);
    if (failed)
        fprintf(stderr,
                "profile: %ld of %ld requests failed; the results below are from the %ld "
                "that completed\n",
                failed, nr, ok_n);
    /* ---- fits ---- */
    double *px = malloc(sizeof(double) * (size_t)(nr + 1)),
           *py = malloc(sizeof(double) * (size_t)(nr + 1));
    int dmax = 0;
    for (long i = 0; i < nr; i++)
        dmax += (int)(reqs[i].r.n_gaps / PROF_GAP_BLOCK + 1);
    double *dx = malloc(sizeof(double) * (size_t)(dmax + 1)),
           *dy = malloc(sizeof(double) * (size_t)(dmax + 1));
    struct prof_fit pf = {0}, df = {0};
    int np = 0, nd = 0;
    if (px && py && dx && dy) {
        for (long i = 0; i < nr; i++)
            if (reqs[i].r.fail == NET_OK && reqs[i].level < 0) {
                px[np] = (double)(reqs[i].r.prompt_tokens > 0 ? reqs[i].r.prompt_tokens
                                                              : reqs[i].prompt_target);
                py[np++] = reqs[i].r.ttft_s;
            }
        prof_fit_line(px, py, np, &pf);
        struct prof_req *single = reqs;
        nd = load ? 0 : prof_decode_points(single, nr, dx, dy, dmax);
        prof_fit_line(dx, dy, nd, &df);
    }
    double ctx_mid = NAN;
    if (nd) {
        double *tmpx = malloc(sizeof(double) * (size_t)nd);
        if (tmpx) {
            memcpy(tmpx, dx, sizeof(double) * (size_t)nd);
            ctx_mid = prof_quantile(tmpx, nd, 0.5);
            free(tmpx);
        }
    }
    double dec_s = NAN, dec_sd = NAN, wbytes = NAN;
    if (df.ok)
        prof_fit_at(&df, ctx_mid, &dec_s, &dec_sd);
    double pred_dec = NAN, pred_pre_slope = NAN;
    if (model) {
        struct hw_profile *any = hw;
        /* the weight bytes of a decode step need only the model: any profile does */
        struct hw_profile *tmp = any ? NULL : cli_load_hw("h100-sxm");
        struct prof_pred pp = o.pred;
        pp.hw = any ? any : tmp;
        pp.model = model;
        if (pp.hw)
            prof_predict(&pp, false, isfinite(ctx_mid) ? ctx_mid : 0, &wbytes);
        hw_free(tmp);
    }
    if (o.have_pred && isfinite(ctx_mid))
        pred_dec = prof_predict(&o.pred, false, ctx_mid, NULL);
    if (o.have_pred && pf.ok) {
        double lo = px[0], hi = px[0];
        for (int i = 1; i < np; i++) {
            lo = px[i] < lo ? px[i] : lo;
            hi = px[i] > hi ? px[i] : hi;
        }
        pred_pre_slope =
            (prof_predict(&o.pred, true, hi, NULL) - prof_predict(&o.pred, true, lo, NULL)) /
            (hi - lo);
    }
    /* ---- report ---- */
    char url_api[600];
    snprintf(url_api, sizeof url_api, "%s (%s API)", o.c.url,
             o.c.api == NET_API_OPENAI ? "openai" : "llama.cpp");
    if (o.fmt == OUT_TABLE) {
        printf("roofline profile: %s, %ld requests, %ld failed\n", url_api, nr, failed);
        if (!load) {
            char line[600] = "";
            size_t L = 0;
            if (pf.ok && df.ok && pf.c1 > 0) {
                double cross = df.c0 / pf.c1;
                L += (size_t)snprintf(line + L, sizeof line - L,
                                      "verdict: prefill is compute-bound from about %.0f tokens "
                                      "(%.2f ms per prompt token); ",
                                      cross < 1 ? 1 : cross, 1e3 * pf.c1);
            } else {
                L += (size_t)snprintf(line + L, sizeof line - L,
                                      "verdict: prefill not fitted (needs 3 requests over 2 "
                                      "prompt lengths); ");
            }
            if (df.ok && isfinite(dec_s)) {
                if (isfinite(wbytes) && wbytes > 0) {
                    char bw[32], wb[32];
                    unit_format(wbytes / dec_s, "B/s", 3, bw, sizeof bw);
                    unit_format(wbytes, "B", 3, wb, sizeof wb);
                    snprintf(line + L, sizeof line - L,
                             "decode %.2f ms per token at context %.0f = %s effective if the "
                             "weights are %s (%s in %s)",
                             1e3 * dec_s, ctx_mid, bw, wb, model->id, dtype_name(o.pred.weights));
                } else {
                    snprintf(line + L, sizeof line - L,
                             "decode %.2f ms per token at context %.0f = %.2f GB/s for every GB "
                             "of weights (give --model for the weight size)",
                             1e3 * dec_s, ctx_mid, 1e-9 * 1e9 / dec_s);
                }
            } else {
                snprintf(line + L, sizeof line - L,
                         "decode not fitted (needs outputs of at least 5 tokens)");
            }
            printf("%s\n", line);
            if (o.have_pred) {
                printf("prediction (%s, %s in %s): decode %.2f ms per token at context %.0f "
                       "(measured %.2f, error %+.1f%%); prefill %.2f ms per prompt token "
                       "(measured %.2f, error %+.1f%%)\n",
                       hw->id, model->id, dtype_name(o.pred.weights), 1e3 * pred_dec, ctx_mid,
                       1e3 * dec_s, err_pct(pred_dec, dec_s), 1e3 * pred_pre_slope, 1e3 * pf.c1,
                       err_pct(pred_pre_slope, pf.c1));
            }
            printf("\nfits (GSL linear least squares, +- 1 sigma):\n");
            if (pf.ok)
                printf("  prefill: TTFT = %.3f ms (+- %.3f) + %.4f ms (+- %.4f) x prompt tokens, "
                       "%d requests\n",
                       1e3 * pf.c0, 1e3 * sqrt(pf.cov00), 1e3 * pf.c1, 1e3 * sqrt(pf.cov11), np);
            if (df.ok)
                printf("  decode:  ITL  = %.3f ms (+- %.3f) + %.6f ms (+- %.6f) x context tokens, "
                       "%d points (medians of %d gaps); at context %.0f: %.3f ms (+- %.3f)\n",
                       1e3 * df.c0, 1e3 * sqrt(df.cov00), 1e3 * df.c1, 1e3 * sqrt(df.cov11), nd,
                       PROF_GAP_BLOCK, ctx_mid, 1e3 * dec_s, 1e3 * dec_sd);
            printf("\n");
        }
    }
    if (!load) {
        struct out_table *t = out_table_new(o.fmt,
                                            o.fmt == OUT_TABLE ? "medians per prompt and "
                                                                 "output length:"
                                                               : NULL,
                                            GROUP_FIELDS, NF(GROUP_FIELDS));
        if (o.fmt == OUT_JSON) {
            printf("{\n  \"tool\": \"roofline\",\n  \"version\": ");
            out_json_string(stdout, roofline_version());
            printf(",\n  \"command\": \"profile\",\n  \"url\": ");
            out_json_string(stdout, o.c.url);
            printf(",\n  \"api\": \"%s\",\n  \"requests\": %ld,\n  \"failed\": %ld,\n",
                   o.c.api == NET_API_OPENAI ? "openai" : "llama.cpp", nr, failed);
            printf("  \"tokens_per_word\": ");
            out_json_number(stdout, tokens_per_word);
            printf(",\n  \"prefill_fit\": {\"ok\": %s, \"intercept_s\": ",
                   pf.ok ? "true" : "false");
            out_json_number(stdout, pf.ok ? pf.c0 : NAN);
            printf(", \"slope_s_per_token\": ");
            out_json_number(stdout, pf.ok ? pf.c1 : NAN);
            printf(", \"intercept_sd_s\": ");
            out_json_number(stdout, pf.ok ? sqrt(pf.cov00) : NAN);
            printf(", \"slope_sd_s_per_token\": ");
            out_json_number(stdout, pf.ok ? sqrt(pf.cov11) : NAN);
            printf(", \"points\": %d},\n  \"decode_fit\": {\"ok\": %s, \"intercept_s\": ", np,
                   df.ok ? "true" : "false");
            out_json_number(stdout, df.ok ? df.c0 : NAN);
            printf(", \"slope_s_per_token\": ");
            out_json_number(stdout, df.ok ? df.c1 : NAN);
            printf(", \"context\": ");
            out_json_number(stdout, ctx_mid);
            printf(", \"time_per_token_s\": ");
            out_json_number(stdout, dec_s);
            printf(", \"time_per_token_sd_s\": ");
            out_json_number(stdout, dec_sd);
            printf(", \"points\": %d},\n  \"prefill_points\": [", nd);
            for (int i = 0; i < np; i++) {
                printf("%s[", i ? ", " : "");
                out_json_number(stdout, px[i]);
                printf(", ");
                out_json_number(stdout, py[i]);
                printf("]");
            }
            printf("],\n  \"decode_points\": [");
            for (int i = 0; i < nd; i++) {
                printf("%s[", i ? ", " : "");
                out_json_number(stdout, dx[i]);
                printf(", ");
                out_json_number(stdout, dy[i]);
                printf("]");
            }
            printf("],\n  \"weights_bytes\": ");
            out_json_number(stdout, wbytes);
            printf(",\n  \"predicted_time_per_token_s\": ");
            out_json_number(stdout, pred_dec);
            printf(",\n  \"predicted_prefill_s_per_token\": ");
            out_json_number(stdout, pred_pre_slope);
            printf(",\n  \"groups\": ");
        }
        for (int pi = 0; pi < o.n_prompts; pi++)
            for (int oi = 0; oi < o.n_outputs; oi++) {
                double tt[MAX_REQS], ee[MAX_REQS], it[MAX_REQS];
                long m = 0;
                double ptok = 0;
                for (long i = 0; i < nr; i++) {
                    const struct net_result *r = &reqs[i].r;
                    if (reqs[i].prompt_target != o.prompts[pi] ||
                        reqs[i].output_target != o.outputs[oi] || r->fail != NET_OK)
                        continue;
                    tt[m] = r->ttft_s;
                    ee[m] = r->e2e_s;
                    double *g = malloc(sizeof(double) * (size_t)(r->n_gaps + 1));
                    if (g && r->n_gaps > 0) {
                        memcpy(g, r->gaps_s, sizeof(double) * (size_t)r->n_gaps);
                        it[m] = prof_quantile(g, r->n_gaps, 0.5);
                    } else {
                        it[m] = NAN;
                    }
                    free(g);
                    ptok = (double)(r->prompt_tokens > 0 ? r->prompt_tokens : o.prompts[pi]);
                    m++;
                }
                double mt = prof_quantile(tt, m, 0.5), me = prof_quantile(ee, m, 0.5),
                       mi = prof_quantile(it, m, 0.5);
                double pt = NAN, pi_ = NAN, pe = NAN;
                if (o.have_pred && m > 0) {
                    pt = prof_predict(&o.pred, true, ptok, NULL);
                    pi_ = prof_predict(&o.pred, false, ptok + (double)o.outputs[oi] / 2, NULL);
                    pe = pt + (double)(o.outputs[oi] - 1) * pi_;
                }
                struct out_value v[] = {{NULL, (double)o.prompts[pi]},
                                        {NULL, (double)o.outputs[oi]},
                                        {NULL, (double)m},
                                        {NULL, mt},
                                        {NULL, pt},
                                        {NULL, err_pct(pt, mt)},
                                        {NULL, mi},
                                        {NULL, pi_},
                                        {NULL, err_pct(pi_, mi)},
                                        {NULL, me},
                                        {NULL, pe},
                                        {NULL, err_pct(pe, me)}};
                out_table_row(t, v);
            }
        out_table_end(t, stdout, o.fmt == OUT_JSON ? 2 : 0);
        if (o.fmt == OUT_JSON)
            printf(",\n  \"requests_detail\": ");
    } else {
        if (o.fmt == OUT_TABLE) {
            printf("load: prompt %ld tokens, output %ld tokens; %s\n\n", o.prompts[0], o.outputs[0],
                   rv ? "Poisson arrivals"
                      : "closed loop (each user sends its next request "
                        "when the last one ends)");
        } else if (o.fmt == OUT_JSON) {
            printf("{\n  \"tool\": \"roofline\",\n  \"version\": ");
            out_json_string(stdout, roofline_version());
            printf(",\n  \"command\": \"profile\",\n  \"url\": ");
            out_json_string(stdout, o.c.url);
            printf(",\n  \"requests\": %ld,\n  \"failed\": %ld,\n  \"load\": ", nr, failed);
        }
        struct out_table *t = out_table_new(o.fmt, NULL, LOAD_FIELDS, NF(LOAD_FIELDS));
        for (int li = 0; li < n_levels; li++) {
            char name[48];
            if (rv)
                snprintf(name, sizeof name, "rate %g/s", o.rate);
            else
                snprintf(name, sizeof name, "concurrency %ld", o.conc[li]);
            struct out_value v[9] = {{name, 0}, {"measured", 0}};
            load_stats(reqs + level_first[li], level_n[li], level_wall[li], v);
            out_table_row(t, v);
            if (cli_has(a, "scenario")) {
                struct out_value sv[9] = {{name, 0}, {"simulated", 0}};
                if (simulate_level(cli_get(a, "scenario"), &o, rv ? 0 : o.conc[li], o.rate,
                                   level_n[li], sv) == 0)
                    out_table_row(t, sv);
                else
                    rc = CLI_FAIL;
            }
        }
        out_table_end(t, stdout, o.fmt == OUT_JSON ? 2 : 0);
        if (o.fmt == OUT_JSON)
            printf(",\n  \"requests_detail\": ");
    }
    if (o.fmt != OUT_TABLE) {
        if (o.fmt == OUT_CSV)
            printf("\n");
        struct out_table *t = out_table_new(o.fmt, NULL, REQ_FIELDS, NF(REQ_FIELDS));
        for (long i = 0; i < nr; i++) {
            const struct net_result *r = &reqs[i].r;
            double med = NAN;
            if (r->n_gaps > 0) {
                double *g = malloc(sizeof(double) * (size_t)r->n_gaps);
                if (g) {
                    memcpy(g, r->gaps_s, sizeof(double) * (size_t)r->n_gaps);
                    med = prof_quantile(g, r->n_gaps, 0.5);
                    free(g);
                }
            }
            char lv[32] = "single";
            if (reqs[i].level >= 0)
                snprintf(lv, sizeof lv, rv ? "rate" : "concurrency %ld",
                         rv ? 0 : o.conc[reqs[i].level]);
            struct out_value v[] = {
                {NULL, (double)reqs[i].prompt_target},
                {NULL, (double)reqs[i].output_target},
                {lv, 0},
                {NULL, r->prompt_tokens >= 0 ? (double)r->prompt_tokens : NAN},
                {NULL, r->completion_tokens >= 0 ? (double)r->completion_tokens : NAN},
                {NULL, (double)r->tokens},
                {NULL, reqs[i].start_s},
                {NULL, r->ttft_s},
                {NULL, med},
                {NULL, r->e2e_s},
                {r->fail == NET_OK ? NULL : r->msg, 0}};
            out_table_row(t, v);
        }
        out_table_end(t, stdout, o.fmt == OUT_JSON ? 2 : 0);
        if (o.fmt == OUT_JSON)
            printf("\n}\n");
    }
    if (cli_has(a, "measurements-out") &&
        write_measurements(cli_get(a, "measurements-out"), &o, reqs, nr) != 0)
        rc = CLI_FAIL;
    if (failed)
        rc = CLI_FAIL;
    for (long i = 0; i < nr; i++)
        net_result_release(&reqs[i].r);
    free(reqs);
    free(px);
    free(py);
    free(dx);
    free(dy);
done_curl:
    net_client_global_cleanup();
done_early:
    hw_free(hw);
    mdl_free(model);
    return cli_end(&ctx, rc);
}
