/* The measuring half of `roofline profile` (cli/cmd_profile.c prints): prompts of a target
 * length, one request timed at a time or many under a closed-loop or Poisson load, the roofline's
 * prediction for a request, and the GSL line fits of TTFT and inter-token gaps. Declared in
 * cli/profile.h; prints nothing. */
#include "cli/profile.h"

#include "util/alloc.h"

#include <gsl/gsl_fit.h>
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static int
cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* quantile (type 7) of v[0..n) (sorted in place); NaN when n = 0 */
double
prof_quantile(double *v, long n, double q)
{
    if (n <= 0)
        return NAN;
    qsort(v, (size_t)n, sizeof *v, cmp_double);
    double h = (double)(n - 1) * q;
    long i = (long)floor(h);
    return i + 1 < n ? v[i] + (h - (double)i) * (v[i + 1] - v[i]) : v[n - 1];
}

static const char *const WORDS[] = {"architecture", "system",    "design",  "cache", "pipeline",
                                    "model",        "inference", "latency", "batch", "throughput"};

/* A prompt of `words` words after a tag that makes it unique (no prefix-cache hits). Caller
 * frees. */
char *
prof_make_prompt(long words, long tag)
{
    size_t cap = (size_t)words * 14 + 32;
    char *p = malloc(cap);
    if (!p)
        return NULL;
    size_t n = (size_t)snprintf(p, cap, "q%ld", tag);
    for (long i = 0; i < words && n < cap; i++)
        n += (size_t)snprintf(p + n, cap - n, " %s", WORDS[i % 10]);
    return p;
}

struct load {
    const struct net_client *c;
    struct prof_req *reqs; /* the level's first request */
    long n, tag_base;
    long next; /* closed loop: next request to take */
    pthread_mutex_t mu;
    double t0;
};

double
prof_now_s(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

void
prof_run_one(const struct net_client *c, struct prof_req *q, long tag, double t0)
{
    char *p = prof_make_prompt(q->words, tag);
    q->start_s = prof_now_s() - t0;
    if (!p) {
        memset(&q->r, 0, sizeof q->r);
        q->r.fail = NET_OTHER;
        snprintf(q->r.msg, sizeof q->r.msg, "out of memory");
        alloc_note_failure();
        return;
    }
    net_stream(c, p, q->output_target, &q->r);
    free(p);
}

static void *
closed_worker(void *arg)
{
    struct load *L = arg;
    for (;;) {
        pthread_mutex_lock(&L->mu);
        long i = L->next < L->n ? L->next++ : -1;
        pthread_mutex_unlock(&L->mu);
        if (i < 0)
            return NULL;
        prof_run_one(L->c, &L->reqs[i], L->tag_base + i + 1, L->t0);
    }
}

struct open_arg {
    struct load *L;
    long i;
};

static void *
open_worker(void *arg)
{
    struct open_arg *a = arg;
    prof_run_one(a->L->c, &a->L->reqs[a->i], a->L->tag_base + a->i + 1, a->L->t0);
    return NULL;
}

static void
sleep_until(double t)
{
    double d = t - prof_now_s();
    if (d <= 0)
        return;
    struct timespec ts = {(time_t)d, (long)((d - floor(d)) * 1e9)};
    nanosleep(&ts, NULL);
}

double
prof_predict(const struct prof_pred *p, bool prefill, double tokens, double *bytes_weights)
{
    struct roof_config cfg;
    roof_config_init(&cfg, p->hw, p->model, prefill ? ROOF_PREFILL : ROOF_DECODE);
    cfg.weights = p->weights;
    cfg.act = roof_default_act(p->weights);
    cfg.kv = roof_default_kv(p->weights);
    cfg.batch = 1;
    cfg.prompt = prefill ? tokens : 1;
    cfg.context = prefill ? 0 : tokens;
    cfg.flash_attention = true;
    cfg.reserve_bytes = 0;
    if (p->tuned)
        cfg.tuning = p->tuning;
    cfg.mxfp4_marlin = p->mxfp4_marlin;
    cfg.tp = p->tp > 1 ? p->tp : 1;
    cfg.ep = p->ep;
    cfg.attn_dp = p->attn_dp;
    struct roof_result r;
    if (roof_config_problem(&cfg) || roof_evaluate(&cfg, &r) != 0)
        return NAN;
    if (bytes_weights)
        *bytes_weights = r.bytes_weights;
    return r.time_s;
}

void
prof_fit_line(const double *x, const double *y, int n, struct prof_fit *f)
{
    memset(f, 0, sizeof *f);
    f->n = n;
    bool spread = false;
    for (int i = 1; i < n; i++)
        spread |= x[i] != x[0];
    if (n < 3 || !spread)
        return;
    f->ok = gsl_fit_linear(x, 1, y, 1, (size_t)n, &f->c0, &f->c1, &f->cov00, &f->cov01, &f->cov11,
                           &f->sumsq) == 0 &&
            isfinite(f->c0) && isfinite(f->c1);
}

void
prof_fit_at(const struct prof_fit *f, double x, double *y, double *sd)
{
    *y = f->c0 + f->c1 * x;
    double v = f->cov00 + 2 * x * f->cov01 + x * x * f->cov11;
    *sd = v > 0 ? sqrt(v) : 0;
}

/* decode points: per request, the median of each block of 16 gaps at the block's mean
 * context (robust to a scheduler hiccup), appended to xs/ys */
int
prof_decode_points(const struct prof_req *reqs, long n, double *xs, double *ys, int max)
{
    int m = 0;
    for (long i = 0; i < n; i++) {
        const struct net_result *r = &reqs[i].r;
        if (r->fail != NET_OK)
            continue;
        long p = r->prompt_tokens > 0 ? r->prompt_tokens : reqs[i].prompt_target;
        for (long g = 0; g + 4 <= r->n_gaps && m < max; g += PROF_GAP_BLOCK) {
            long k = r->n_gaps - g < PROF_GAP_BLOCK ? r->n_gaps - g : PROF_GAP_BLOCK;
            double tmp[PROF_GAP_BLOCK];
            memcpy(tmp, r->gaps_s + g, (size_t)k * sizeof(double));
            ys[m] = prof_quantile(tmp, k, 0.5);
            /* gap j (0-based) is the decode step after context p + j + 1 tokens */
            xs[m] = (double)p + 1.0 + (double)g + (double)(k - 1) / 2.0;
            m++;
        }
    }
    return m;
}

double
prof_closed_load(const struct net_client *c, struct prof_req *reqs, long n, long tag_base,
                 long users)
{
    struct load L = {c, reqs, n, tag_base, 0, PTHREAD_MUTEX_INITIALIZER, prof_now_s()};
    pthread_t th[256];
    int started = 0;
    for (long t = 0; t < users && t < 256; t++)
        if (pthread_create(&th[started], NULL, closed_worker, &L) == 0)
            started++;
    if (started == 0)
        closed_worker(&L);
    for (int t = 0; t < started; t++)
        pthread_join(th[t], NULL);
    return prof_now_s() - L.t0;
}

double
prof_poisson_load(const struct net_client *c, struct prof_req *reqs, long n, long tag_base,
                  double rate_per_s, unsigned long seed)
{
    struct load L = {c, reqs, n, tag_base, 0, PTHREAD_MUTEX_INITIALIZER, prof_now_s()};
    /* exponential gaps from a seeded generator */
    pthread_t *th = calloc((size_t)n, sizeof *th);
    struct open_arg *args = calloc((size_t)n, sizeof *args);
    bool *ok = calloc((size_t)n, sizeof *ok);
    unsigned long s = seed * 2654435761UL + 12345;
    double t = L.t0;
    for (long k = 0; th && args && ok && k < n; k++) {
        s = s * 6364136223846793005UL + 1442695040888963407UL;
        double u = ((double)(s >> 11) + 0.5) / 9007199254740992.0;
        t += -log(u) / rate_per_s;
        sleep_until(t);
        args[k] = (struct open_arg){&L, k};
        ok[k] = pthread_create(&th[k], NULL, open_worker, &args[k]) == 0;
        if (!ok[k])
            open_worker(&args[k]);
    }
    for (long k = 0; th && ok && k < n; k++)
        if (ok[k])
            pthread_join(th[k], NULL);
    free(th);
    free(args);
    free(ok);
    return prof_now_s() - L.t0;
}
