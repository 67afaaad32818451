/* A queueing approximation of the serving system, no event loop (docs/simulate.md#analytic).
 * Each instance is a G/G/c queue: c slots (the max batch, or fewer when the KV pool holds
 * fewer mean sequences), a request holds one for S = prefill + (output - 1) decode steps, and
 * the decode step is evaluated at the mean batch b given by Little's law, b = rate x S (a fixed
 * point). Waiting: Allen-Cunneen, Wq = C(c, a) / (c/S - rate) x (ca^2 + cs^2) / 2 (Allen 1990),
 * which is Kingman's formula for c = 1 and exact for M/G/1 (Pollaczek-Khinchine); its tail is
 * taken as exponential with the same mean given a wait. */
#include "sim/sim_int.h"

#include <math.h>
#include <string.h>

struct model {
    struct sim_cost *cost;
    double P, O;  /* mean prompt and output */
    double past;  /* mean past tokens of a decode step over a request's life */
    double slots; /* c */
    double b0;    /* the fixed point's start (sim_analytic_from) */
};

static double
prefill_s(struct model *m, double prompt)
{
    struct roof_seq q = {1, prompt > 1 ? prompt : 1, 0, true};
    return sim_cost_step(m->cost, &q, 1);
}

static double
decode_s(struct model *m, double b)
{
    struct roof_seq q = {b > 1 ? b : 1, 1, m->past, true};
    return sim_cost_step(m->cost, &q, 1);
}

/* a chunked step: b decodes plus `tokens` of prompt in one chunk */
static double
mixed_s(struct model *m, double b, double tokens)
{
    struct roof_seq q[2] = {{b > 1 ? b : 1, 1, m->past, true}, {1, tokens, 0, false}};
    return sim_cost_step(m->cost, q, tokens >= 1 ? 2 : 1);
}

/* The mean batch's fixed point b = g(b) (Little's law). The models step b <- g(b) from b = 1:
 * where g increases (a larger batch, longer steps, more requests in flight) the steps climb to
 * the smallest fixed point without passing it (b < b* gives g(b) < g(b*) = b*), the point the
 * damped step b <- (b + g(b)) / 2 the models took before converges to, but at the rate
 * g'(b*) instead of (1 + g'(b*)) / 2: about 5-10 steps where the damped one took 30 (each a
 * model's step costs). A step that passes a fixed point (h = g - b changes sign: g decreases
 * there) switches to the damped step for the rest. The models stop where |h| <= 1e-9 b, as
 * before, and keep that point's figures. */
bool sim_analytic_damped = false;

struct fixpt {
    double ph;   /* the previous h, 0: none yet */
    bool damped; /* a step passed a fixed point */
};

static void
fixpt_init(struct fixpt *fp)
{
    *fp = (struct fixpt){0, false};
}

/* the next point after b, whose map gives g */
static double
fixpt_next(struct fixpt *fp, double b, double g)
{
    double h = g - b;
    if ((h > 0 && fp->ph < 0) || (h < 0 && fp->ph > 0))
        fp->damped = true;
    fp->ph = h;
    return fp->damped || sim_analytic_damped ? b + 0.5 * h : g;
}

/* beyond capacity: no steady state, so no waits or latencies (the capacity and the step times
 * stay) */
static void
unstable(struct sim_analytic *out)
{
    out->stable = false;
    out->wait_prob = 1;
    out->queue_mean_s = out->queue_p99_s = INFINITY;
    out->ttft_mean_s = out->ttft_p99_s = out->e2e_mean_s = out->e2e_p99_s = INFINITY;
}

/* Erlang C: the probability that an arrival waits in M/M/c with offered load a (Erlang B by
 * the stable recursion B_k = a B_{k-1} / (k + a B_{k-1}), then C = c B / (c - a (1 - B))). */
static double
erlang_c(double c, double a)
{
    if (a >= c)
        return 1.0;
    double b = 1.0;
    long n = (long)c;
    for (long k = 1; k <= n; k++)
        b = a * b / ((double)k + a * b);
    double cc = c * b / (c - a * (1.0 - b));
    return cc < 1.0 ? cc : 1.0;
}

/* Allen-Cunneen mean wait and the 99th percentile of an exponential tail with that mean */
static void
gg_c(double rate, double service, double c, double ca2, double cs2, double *pw, double *wq,
     double *w99)
{
    double a = rate * service;
    double gap = c / service - rate; /* c mu - lambda */
    if (!(gap > 0)) {
        *pw = 1;
        *wq = *w99 = INFINITY;
        return;
    }
    *pw = erlang_c(c, a);
    double v = (ca2 + cs2) / 2.0;
    *wq = *pw / gap * v;
    double theta = gap / (v > 0 ? v : 1e-12);
    *w99 = *pw > 0.01 ? log(*pw / 0.01) / theta : 0.0;
}

/* The Laplace transform A*(s) = E[exp(-s X)] of the gap X between arrivals at one of `split`
 * queues fed in turn from the scenario's process at `rate` per queue; -1 where it is not known
 * in closed form (a trace). Gamma gaps of shape 1/cv^2: `split` consecutive ones add up. */
struct lt_params {
    const struct sim_workload *w;
    double rate, split, mu;
};

static double
arrival_lt(const struct lt_params *p, double s)
{
    switch (p->w->process) {
    case SIM_POISSON:
    case SIM_CLOSED:
        return p->rate / (p->rate + s);
    case SIM_GAMMA: {
        double shape = p->split / (p->w->cv * p->w->cv);
        return pow(1.0 + s / (shape * p->rate), -shape);
    }
    case SIM_CONSTANT:
        return exp(-s / p->rate);
    case SIM_TRACE:
        break;
    }
    return -1.0;
}

/* GI/M/1: sigma, the root in (0, 1) of sigma = A*(mu (1 - sigma)) */
static double
gim1_root_f(double sigma, void *v)
{
    const struct lt_params *p = v;
    return sigma - arrival_lt(p, p->mu * (1.0 - sigma));
}

/* A single server (a prompt server) fed by the scenario's arrivals: the wait of GI/M/1, exact
 * for any renewal arrivals with exponential service (P(W > t) = sigma exp(-mu (1 - sigma) t)),
 * scaled by (ca^2 + cs^2) / (ca^2 + 1) for the service's variability, which makes it exact for
 * M/G/1 too (Pollaczek-Khinchine). Kingman's heavy-traffic formula, by contrast, misses most of
 * the wait of bursty arrivals at light load: a burst queues behind itself. A trace falls back
 * to Kingman. */
static void
gi_g_1(const struct sim_config *cfg, double rate, double split, double S, double ca2, double cs2,
       double *pw, double *wq, double *w99)
{
    struct lt_params p = {&cfg->work, rate, split > 1 ? split : 1, S > 0 ? 1.0 / S : 0};
    if (!(S > 0) || !(rate * S < 1) || arrival_lt(&p, 1.0) < 0) {
        gg_c(rate, S, 1, ca2, cs2, pw, wq, w99);
        return;
    }
    double sigma = rate * S; /* Poisson: sigma = rho exactly */
    if (cfg->work.process != SIM_POISSON && cfg->work.process != SIM_CLOSED &&
        roof_solve_brent(gim1_root_f, &p, 0.0, 1.0 - 1e-12, 1e-12, &sigma) != 0) {
        gg_c(rate, S, 1, ca2, cs2, pw, wq, w99);
        return;
    }
    double ca2s = cfg->work.process == SIM_GAMMA ? cfg->work.cv * cfg->work.cv / p.split : ca2;
    double scale = (ca2s + cs2) / (ca2s + 1.0);
    double decay = p.mu * (1.0 - sigma);
    *pw = sigma;
    *wq = sigma / decay * scale;
    *w99 = sigma > 0.01 ? log(sigma / 0.01) / decay * scale : 0.0;
}

static double
arrival_rate(const struct sim_config *cfg, double *ca2)
{
    const struct sim_workload *w = &cfg->work;
    switch (w->process) {
    case SIM_POISSON:
        *ca2 = 1.0;
        return w->rate_per_s;
    case SIM_GAMMA:
        *ca2 = w->cv * w->cv;
        return w->rate_per_s;
    case SIM_CONSTANT:
        *ca2 = 0.0;
        return w->rate_per_s;
    case SIM_CLOSED:
        *ca2 = 1.0;
        return NAN; /* solved below */
    case SIM_TRACE:
        break;
    }
    const struct sim_trace *t = w->trace;
    *ca2 = 1.0;
    if (!t || t->n < 2)
        return NAN;
    double span = t->rows[t->n - 1].arrival_s - t->rows[0].arrival_s;
    if (!(span > 0))
        return NAN;
    double mean = span / (double)(t->n - 1), s2 = 0;
    for (long i = 1; i < t->n; i++) {
        double d = t->rows[i].arrival_s - t->rows[i - 1].arrival_s - mean;
        s2 += d * d;
    }
    *ca2 = s2 / (double)(t->n - 1) / (mean * mean);
    return 1.0 / mean;
}

/* Static batching: a batch forms only when the previous one has drained and takes every
 * waiting request (up to the slots, and budget / P prompts in its prefill step). A batch of k
 * lasts T = prefill of k prompts + (longest output - 1) s(k); the longest of k outputs has the
 * quantile function Q(u^(1/k)), so T's moments come from a grid of u. The engine serves batch
 * after batch while busy, so k = rate x E[T] (a fixed point, 1 .. slots) and it is busy
 * rate x E[T] / k of the time. An arrival waits for the batch in progress: a renewal
 * process seen at a random time, so the mean residual is E[T^2] / (2 E[T]) (the inspection
 * paradox: long batches are more likely to be found), and P(residual > r) =
 * E[(T - r)+] / E[T]. Then its own batch's prefill gives its first token. */
#define STATIC_NQ 64

static void
static_moments(struct model *m, const struct sim_config *cfg, double k, double *tq, double *tpk,
               double *s, double *ET, double *ET2)
{
    *tpk = prefill_s(m, k * m->P);
    *s = decode_s(m, k);
    *ET = *ET2 = 0;
    for (int i = 0; i < STATIC_NQ; i++) {
        double u = pow(((double)i + 0.5) / STATIC_NQ, 1.0 / k);
        double om = sim_dist_quantile(&cfg->work.output, cfg->work.trace, 1, u);
        tq[i] = *tpk + (om > 1 ? (om - 1.0) * *s : 0);
        *ET += tq[i] / STATIC_NQ;
        *ET2 += tq[i] * tq[i] / STATIC_NQ;
    }
}

/* 0.01 - P(wait > r), increasing in r: busy x P(residual > r) = busy x E[(T - r)+] / E[T] */
struct resid_tail {
    const double *tq;
    double busy, ET;
};

static double
resid_tail_f(double r, void *v)
{
    const struct resid_tail *p = v;
    double tail = 0;
    for (int i = 0; i < STATIC_NQ; i++)
        tail += (p->tq[i] > r ? p->tq[i] - r : 0) / STATIC_NQ;
    return 0.01 - p->busy * tail / p->ET;
}

/* The admission delay of asynchronous scheduling (vLLM's AsyncScheduler; sim_async): step k + 1
 * is planned when step k starts, so a request that arrives while step k runs is first planned
 * into step k + 2 (docs/simulate.md#asynchronous-scheduling). Arriving at a uniform point of
 * step k it waits for the rest of it (half a step on average: the models' residual, as when
 * synchronous) and then for the whole of step k + 1, one mean step `step_s` more. The engine
 * steps with probability `busy`; an arrival at an idle engine is planned at once. */
static double
async_delay(const struct sim_config *cfg, double busy, double step_s)
{
    return sim_async(&cfg->sched) ? busy * step_s : 0.0;
}

/* The figures every model fills the same way: a request's prefill and service times, the
 * decode step, the mean batch and the utilisation of the servers. */
static void
set_service(struct sim_analytic *out, double prefill_s, double step_s, double service_s,
            double batch, double utilisation)
{
    out->prefill_s = prefill_s;
    out->step_s = step_s;
    out->service_s = service_s;
    out->batch = batch;
    out->utilisation = utilisation;
}

static void
static_batches(struct model *m, const struct sim_config *cfg, double rate, double O99,
               struct sim_analytic *out)
{
    /* a batch's prompts share one prefill step: at most budget / P of them */
    double kcap = floor((double)cfg->sched.max_tokens_per_step / m->P);
    if (kcap < m->slots)
        m->slots = kcap >= 1 ? kcap : 1;
    out->servers = m->slots;
    double tq[STATIC_NQ], tpk = 0, s = 0, ET = 0, ET2 = 0, k = 1;
    struct fixpt fp;
    fixpt_init(&fp);
    for (int it = 0; it < 200; it++) {
        static_moments(m, cfg, k, tq, &tpk, &s, &ET, &ET2);
        double nk = rate * ET;
        nk = nk < 1 ? 1 : nk > m->slots ? m->slots : nk;
        if (fabs(nk - k) <= 1e-9 * k)
            break;
        k = fixpt_next(&fp, k, nk);
    }
    static_moments(m, cfg, k, tq, &tpk, &s, &ET, &ET2);
    double busy = rate * ET / k; /* 1 while batches run back to back */
    if (busy > 1 && k < m->slots)
        busy = 1;
    /* capacity: full batches back to back */
    double tqB[STATIC_NQ], tpB, sB, ETB, ET2B;
    static_moments(m, cfg, m->slots, tqB, &tpB, &sB, &ETB, &ET2B);
    out->capacity_req_per_s = (double)cfg->instances * m->slots / ETB;
    set_service(out, tpk, s, ET, k, busy);
    out->tpot_mean_s = s;
    if (busy > 1 + 1e-9) {
        unstable(out);
        return;
    }
    out->wait_prob = busy;
    out->queue_mean_s = busy * ET2 / (2.0 * ET);
    /* p99 of the wait: busy x P(residual > r) = 0.01 */
    struct resid_tail rt = {tq, busy, ET};
    double q99 = 0;
    if (busy > 0.01 && roof_solve_brent(resid_tail_f, &rt, 0, tq[STATIC_NQ - 1], 1e-9, &q99) < 0)
        q99 = tq[STATIC_NQ - 1];
    out->queue_p99_s = q99;
    out->ttft_mean_s = out->queue_mean_s + tpk;
    out->ttft_p99_s = out->queue_p99_s + tpk;
    out->e2e_mean_s = out->ttft_mean_s + (m->O - 1.0) * s;
    /* the wait and the own output are independent: excesses over the means add as
     * root-sum-square, not as p99s */
    double xw = out->ttft_p99_s - out->ttft_mean_s, xo = (O99 > m->O ? (O99 - m->O) * s : 0);
    out->e2e_p99_s = out->e2e_mean_s + sqrt(xw * xw + xo * xo);
}

/* A colocated instance's slots: a request holds one for S = prefill + (O - 1) x TPOT; the
 * service variability comes from the lengths (prefill about linear in the prompt, decode in the
 * output). */
static void
slot_service(const struct model *m, double rate, double prefill, double tpot, double step, double S,
             double b, double VP, double VO, struct sim_analytic *out)
{
    double dtp = m->P > 0 ? prefill / m->P : 0;
    out->cs2 = S > 0 ? (dtp * dtp * VP + tpot * tpot * VO) / (S * S) : 0;
    set_service(out, prefill, step, S, b, rate * S / m->slots);
    out->servers = m->slots;
}

/* Colocated instance at per-instance rate `rate`: the fixed point and the queue. */
static void
colocated(struct model *m, const struct sim_config *cfg, double rate, double ca2, double VP,
          double VO, double P99, double O99, struct sim_analytic *out)
{
    double B = (double)cfg->sched.max_batch;
    double tp = prefill_s(m, m->P);
    double b = m->b0, s = decode_s(m, 1), f = 0, S = tp;
    struct fixpt fp;
    fixpt_init(&fp);
    out->stable = true;
    for (int it = 0; it < 200; it++) {
        s = decode_s(m, b);
        /* with more than one slot a decode also waits for the prefills of later arrivals
         * (vLLM runs them as steps of their own): stretch by 1 / (1 - rate x prefill) */
        f = B > 1 ? rate * tp : 0.0;
        if (f >= 1) {
            out->stable = false;
            break;
        }
        S = tp + (m->O - 1.0) * s / (1.0 - f);
        double nb = rate * S;
        if (nb > m->slots) {
            nb = m->slots;
        }
        if (fabs(nb - b) <= 1e-9 * (b > 1 ? b : 1))
            break;
        b = fixpt_next(&fp, b, nb);
    }
    double tpot = (m->O > 1 ? s / (1.0 - f) : 0.0);
    slot_service(m, rate, tp, tpot, s, S, b, VP, VO, out);
    /* saturation: the step-time bound with every slot busy */
    double sB = decode_s(m, m->slots);
    double per_req = prefill_s(m, m->P) + (m->O - 1.0) * sB / m->slots;
    out->capacity_req_per_s = (double)cfg->instances / per_req;
    if (!out->stable || out->utilisation >= 1.0 || rate * per_req >= 1.0) {
        unstable(out);
        /* past saturation of the prefills (f >= 1) the stretched TPOT has no meaning */
        out->tpot_mean_s = f < 1 ? tpot : NAN;
        return;
    }
    if (cfg->sched.policy == SIM_STATIC) {
        static_batches(m, cfg, rate, O99, out);
        return;
    }
    double pw, wq, w99;
    gg_c(rate, S, m->slots, ca2, out->cs2, &pw, &wq, &w99);
    /* with spare slots an arrival still waits for the step in progress: the engine steps
     * whenever any request is in, P(N > 0) = 1 - exp(-b) with N about Poisson (as in M/G/inf),
     * and the residual of a step is half of it */
    double busy = 1.0 - exp(-b);
    /* continuous: a fraction f of the engine's time goes to prefill steps, so the step in
     * progress is a prefill with that probability; the prompts that arrive meanwhile are
     * prefilled together with this one */
    double step_mix = (1.0 - f) * s + f * tp;
    double resid = m->slots > 1 ? busy * step_mix / 2.0 : 0.0;
    /* asynchronous scheduling: the step after the one in progress was planned when that one
     * started, so an arrival waits for it too (admitted in step k + 2, not k + 1): one more
     * whole step on average, on top of the residual (async_delay) */
    double late = m->slots > 1 ? async_delay(cfg, busy, step_mix) : 0.0;
    double tp_batch = prefill_s(m, (1.0 + rate * resid) * m->P);
    /* bursts: prompts that arrive together queue for prefill behind one another. The terms
     * above hold for Poisson arrivals (tested against the simulation); other arrivals add
     * the excess of the prompts' GI/G/1 wait for prefill work (service t_prefill per prompt)
     * over its M/G/1 value, nothing for Poisson */
    double xq = 0, xq99 = 0;
    if (cfg->work.process != SIM_POISSON && cfg->work.process != SIM_CLOSED && m->slots > 1 &&
        f < 1) {
        double cs2p = VP / (m->P * m->P), pw1, wq1, w991, pw0, wq0, w990;
        gi_g_1(cfg, rate, cfg->instances, tp, ca2, cs2p, &pw1, &wq1, &w991);
        gg_c(rate, tp, 1, 1.0, cs2p, &pw0, &wq0, &w990);
        xq = wq1 > wq0 ? wq1 - wq0 : 0;
        xq99 = w991 > w990 ? w991 - w990 : 0;
    }
    out->wait_prob = pw;
    out->queue_mean_s = wq + resid + late + xq;
    out->queue_p99_s = w99 + (m->slots > 1 ? busy * (s > tp ? s : tp) : 0.0) + late;
    if (xq99 > 0) { /* independent excesses over the means: root-sum-square */
        double a = out->queue_p99_s - (wq + resid + late), x = xq99 - xq;
        out->queue_p99_s = out->queue_mean_s + sqrt(a * a + (x > 0 ? x * x : 0));
    }
    out->ttft_mean_s = out->queue_mean_s + tp_batch;
    double tp99 = prefill_s(m, P99);
    out->ttft_p99_s = out->queue_p99_s + tp99;
    out->tpot_mean_s = tpot;
    out->e2e_mean_s = out->queue_mean_s + S;
    out->e2e_p99_s = out->queue_p99_s + tp99 + (O99 > 1 ? (O99 - 1.0) * tpot : 0);
}

/* Chunked prefill (Sarathi-Serve) at per-instance rate `rate`. Prompts are served FCFS by a
 * "prompt server" that moves room = budget - b tokens per step: a queue of work in its own
 * right. Backed up, its steps are full, t_f = step(b decodes + room prompt tokens), and a prompt
 * of P tokens holds it for P / room x t_f (G/G/1: gi_g_1's wait, with the prompt lengths'
 * variability). Alone, a prompt takes floor(P / room) full steps and one partial step. The
 * decodes see every step: prompt-carrying ones while the prompt server is busy, decode-only
 * ones otherwise, so their mean step is 1 / (prompt steps per s + (1 - u) / t_d) with u the
 * share of time in prompt-carrying steps. Expectations over the prompt distribution are taken
 * at 16 quantiles, because a step's time is not linear in the prompt (floor, partial step). */
#define CHUNK_NQ 16

/* the steps that carry a prompt of P tokens: floor(P / room) full ones, then its last chunk in
 * a step shared with `with` tokens of other prompts (at most a full step) */
static double
own_steps_s(struct model *m, double b, double room, double tf, double P, double with)
{
    double k = floor(P / room), rem = P - k * room;
    if (rem < 1)
        return k * tf;
    /* a full last step is t_f itself (the same step cost, not evaluated again) */
    if (rem + with >= room)
        return k * tf + tf;
    double t = rem + with;
    /* b = 0: a prefill instance of disaggregated serving, no decodes in its steps */
    return k * tf + (b > 0 ? mixed_s(m, b, t) : prefill_s(m, t));
}

/* The prompts' expected own steps, alone and behind a backlog of `bk` tokens, over the prompt
 * distribution's quantiles `pq`; `nlone`: the steps a prompt takes alone. */
static void
own_steps_mean(struct model *m, const double *pq, double b, double room, double tf, double bk,
               double *lone, double *full, double *nlone)
{
    *lone = *full = *nlone = 0;
    double lo = 0, fu = 0;
    for (int i = 0; i < CHUNK_NQ; i++) {
        if (i == 0 || pq[i] != pq[i - 1]) { /* equal quantiles (a fixed prompt): equal steps */
            lo = own_steps_s(m, b, room, tf, pq[i], 0);
            fu = own_steps_s(m, b, room, tf, pq[i], bk);
        }
        *lone += lo / CHUNK_NQ;
        *nlone += ceil(pq[i] / room) / CHUNK_NQ;
        *full += fu / CHUNK_NQ;
    }
}

static void
prompt_quantiles(const struct sim_config *cfg, double *pq)
{
    for (int i = 0; i < CHUNK_NQ; i++) {
        double p =
            sim_dist_quantile(&cfg->work.prompt, cfg->work.trace, 0, ((double)i + 0.5) / CHUNK_NQ);
        pq[i] = p >= 1 ? p : 1;
    }
}

static void
chunked(struct model *m, const struct sim_config *cfg, double rate, double ca2, double VP,
        double VO, double P99, double O99, struct sim_analytic *out)
{
    double budget = (double)cfg->sched.max_tokens_per_step;
    double pq[CHUNK_NQ];
    prompt_quantiles(cfg, pq);
    double b = m->b0, room = budget, td = 0, tf = 0, Sp = 0, rho = 0, own = 0, full = 0, s = 0,
           S = 0, u = 0, bk = 0, pw = 1, wq = INFINITY, w99 = INFINITY;
    struct fixpt fp;
    fixpt_init(&fp);
    out->stable = true;
    for (int it = 0; it < 200; it++) {
        room = budget - b > 1 ? budget - b : 1;
        td = decode_s(m, b);
        tf = mixed_s(m, b, room);
        Sp = m->P / room * tf;
        rho = rate * Sp;
        if (!(rho < 1)) {
            out->stable = false;
            break;
        }
        /* a prompt that finds the server busy shares its steps with the backlog: the mean
         * work found, given busy, is Wq / rho (M/G/1), bk tokens at room per t_f */
        gi_g_1(cfg, rate, cfg->instances, Sp, ca2, VP / (m->P * m->P), &pw, &wq, &w99);
        bk = rho > 0 ? wq / rho / tf * room : 0;
        bk = bk < room ? bk : room;
        double lone, nlone;
        own_steps_mean(m, pq, b, room, tf, bk, &lone, &full, &nlone);
        own = (1.0 - rho) * lone + rho * full;
        double prompt_steps = rate * ((1.0 - rho) * nlone + rho * m->P / room);
        u = rate * ((1.0 - rho) * lone + rho * Sp);
        if (!(u < 1)) {
            out->stable = false;
            break;
        }
        s = 1.0 / (prompt_steps + (1.0 - u) / td);
        S = own + (m->O - 1.0) * s;
        double nb = rate * S;
        if (nb > m->slots)
            nb = m->slots;
        if (fabs(nb - b) <= 1e-9 * (b > 1 ? b : 1))
            break;
        b = fixpt_next(&fp, b, nb);
    }
    double tpot = m->O > 1 ? s : 0.0;
    slot_service(m, rate, own, tpot, s, S, b, VP, VO, out);
    /* saturation: every slot decoding, prompt tokens at their marginal cost in full steps */
    double sB = decode_s(m, m->slots);
    double per_req = (m->O - 1.0) * sB / m->slots + (mixed_s(m, m->slots, m->P) - sB);
    out->capacity_req_per_s = (double)cfg->instances / per_req;
    out->tpot_mean_s = tpot;
    if (!out->stable || out->utilisation >= 1.0 || rate * per_req >= 1.0) {
        unstable(out);
        return;
    }
    /* waits: for the prompt server, and for a slot (rarely binding: c is the max batch) */
    double pws, wqs, w99s; /* the prompt server's pw, wq, w99 are the fixed point's */
    gg_c(rate, S, m->slots, ca2, out->cs2, &pws, &wqs, &w99s);
    /* finding the prompt server idle, a prompt waits for the decode step in progress */
    double busy = 1.0 - exp(-b);
    double resid = (1.0 - rho) * busy * td / 2.0;
    /* and, scheduled asynchronously, for the step planned while that one runs (async_delay);
     * behind a backlog the prompt waits for the backlog's steps either way */
    double late = (1.0 - rho) * async_delay(cfg, busy, td);
    double p99_steps = (1.0 - rho) * own_steps_s(m, b, room, tf, P99, 0) +
                       rho * own_steps_s(m, b, room, tf, P99, bk);
    out->wait_prob = pw > pws ? pw : pws;
    out->queue_mean_s = wq + wqs + resid + late;
    out->queue_p99_s = w99 + w99s + busy * td + late;
    out->ttft_mean_s = out->queue_mean_s + own;
    out->e2e_mean_s = out->queue_mean_s + S;
    /* the wait, the prompt's own steps and its decode steps are nearly independent: their
     * p99s do not add, their excesses over the means combine as root-sum-square */
    double xw = out->queue_p99_s - out->queue_mean_s, xp = p99_steps - own;
    double xo = (O99 > 1 ? (O99 - 1.0) : 0) * tpot - (m->O - 1.0) * tpot;
    xw = xw > 0 ? xw : 0;
    xp = xp > 0 ? xp : 0;
    xo = xo > 0 ? xo : 0;
    out->ttft_p99_s = out->ttft_mean_s + sqrt(xw * xw + xp * xp);
    out->e2e_p99_s = out->e2e_mean_s + sqrt(xw * xw + xp * xp + xo * xo);
}

static void
disaggregated(struct model *m, const struct sim_config *cfg, double rate, double ca2, double VP,
              double VO, double P99, double O99, double kv_token_bytes, struct sim_analytic *out)
{
    (void)VO;
    double np = (double)cfg->sched.prefill_instances;
    double nd = (double)(cfg->instances - cfg->sched.prefill_instances);
    double tp = prefill_s(m, m->P);
    double bw = hw_link_bytes_per_s_per_direction(cfg->engine.hw);
    double lat = roof_link_latency_s(&cfg->engine);
    double xfer = bw > 0 ? m->P * kv_token_bytes / bw + lat : INFINITY;
    double rd = rate / nd, b = m->b0, s = decode_s(m, 1);
    struct fixpt fp;
    fixpt_init(&fp);
    for (int it = 0; it < 200; it++) {
        s = decode_s(m, b);
        double nb = rd * (m->O - 1.0) * s;
        if (nb > m->slots)
            nb = m->slots;
        if (nb < 1)
            nb = 1;
        if (fabs(nb - b) <= 1e-9 * b)
            break;
        b = fixpt_next(&fp, b, nb);
    }
    /* the prefill instances run chunked prefill without decodes: the prompt server of
     * chunked() with b = 0, room = the whole budget (arrivals split evenly between them) */
    double rp = rate / np, room = (double)cfg->sched.max_tokens_per_step;
    double pq[CHUNK_NQ];
    prompt_quantiles(cfg, pq);
    double tf = prefill_s(m, room), Sp = m->P / room * tf, rho = rp * Sp;
    double pw = 1, wq = INFINITY, w99 = INFINITY, bk = 0, lone = tp, full = tp, nlone = 1;
    if (rho < 1) {
        gi_g_1(cfg, rp, np, Sp, ca2, VP / (m->P * m->P), &pw, &wq, &w99);
        bk = rho > 0 ? wq / rho / tf * room : 0;
        bk = bk < room ? bk : room;
        own_steps_mean(m, pq, 0, room, tf, bk, &lone, &full, &nlone);
    }
    double own = (1.0 - rho) * lone + rho * full;
    double own99 = (1.0 - rho) * own_steps_s(m, 0, room, tf, P99, 0) +
                   rho * own_steps_s(m, 0, room, tf, P99, bk);
    out->cs2 = 0;
    set_service(out, own, s, Sp, b, rho);
    out->servers = np;
    out->transfer_s = xfer;
    out->rate_per_s = rp;
    double sB = decode_s(m, m->slots);
    double cap_p = np / Sp;
    double cap_d = m->O > 1 ? nd * m->slots / ((m->O - 1.0) * sB) : INFINITY;
    out->capacity_req_per_s = cap_p < cap_d ? cap_p : cap_d;
    out->tpot_mean_s = m->O > 1 ? s : 0;
    out->stable = rate < out->capacity_req_per_s && rho < 1;
    if (!out->stable) {
        unstable(out);
        return;
    }
    out->wait_prob = pw;
    out->queue_mean_s = wq;
    out->queue_p99_s = w99;
    double x99 = bw > 0 ? P99 * kv_token_bytes / bw + lat : INFINITY;
    out->ttft_mean_s = wq + own + xfer;
    out->e2e_mean_s = out->ttft_mean_s + (m->O - 1.0) * s;
    /* independent parts: excesses over the means combine as root-sum-square */
    double xw = w99 - wq, xp = own99 > own ? own99 - own : 0, xx = x99 - xfer;
    double xo = O99 > m->O ? (O99 - m->O) * s : 0;
    out->ttft_p99_s = out->ttft_mean_s + sqrt(xw * xw + xp * xp + xx * xx);
    out->e2e_p99_s = out->e2e_mean_s + sqrt(xw * xw + xp * xp + xx * xx + xo * xo);
}

int
sim_analytic(const struct sim_config *cfg, struct sim_analytic *out)
{
    return sim_analytic_from(cfg, 1.0, out);
}

int
sim_analytic_from(const struct sim_config *cfg, double b0, struct sim_analytic *out)
{
    memset(out, 0, sizeof *out);
    double blocks, block_bytes, pool_bytes;
    if (sim_kv_pool(cfg, &blocks, &block_bytes, &pool_bytes) != 0)
        return -1;
    struct model m;
    m.cost = sim_cost_new(&cfg->engine);
    if (!m.cost)
        return -1;
    sim_cost_overlap_host(m.cost, sim_async(&cfg->sched));
    sim_cost_eager_prefill(m.cost, cfg->sched.prefill_graph, cfg->sched.eager_launch_s);
    double VP, VO, P99, O99;
    sim_dist_moments(&cfg->work.prompt, cfg->work.trace, 0, &m.P, &VP, &P99);
    sim_dist_moments(&cfg->work.output, cfg->work.trace, 1, &m.O, &VO, &O99);
    if (m.P < 1)
        m.P = 1;
    if (m.O < 1)
        m.O = 1;
    /* decode contexts run from P to P + O - 2: their mean */
    m.past = m.P + (m.O - 2.0) / 2.0;
    if (m.past < m.P)
        m.past = m.P;
    /* slots: the max batch, or the mean sequences the KV pool holds (each at about
     * P + O / 2 tokens over its life, its window groups' old blocks freed), whichever is
     * smaller */
    double B = (double)cfg->sched.max_batch;
    struct sim_kv_shape kv;
    sim_kv_shape_of(cfg, &kv);
    double bt = (double)kv.block_tokens;
    long mid = (long)ceil(m.P + m.O / 2.0);
    double per_seq = (double)sim_kv_held(&kv, mid - 1, mid);
    double kv_slots = floor(blocks / per_seq);
    m.slots = kv_slots < B ? (kv_slots >= 1 ? kv_slots : 1) : B;
    m.b0 =
        b0 > 1 && b0 < m.slots && cfg->sched.policy != SIM_STATIC && cfg->work.process != SIM_CLOSED
            ? b0
            : 1.0;
    double ca2;
    double rate = arrival_rate(cfg, &ca2);
    out->ca2 = ca2;
    bool dis = cfg->sched.policy == SIM_DISAGGREGATED;
    /* vllm admission without chunked prefill shares each step between the decodes and whole
     * prompts (vLLM v1): the chunked model's prompt server, whose chunks are whole prompts
     * (with one seat a step holds one sequence, as with prefill-only steps) */
    bool mixed = cfg->sched.policy == SIM_CHUNKED ||
                 (cfg->sched.policy == SIM_CONTINUOUS && cfg->sched.admission == SIM_ADMIT_VLLM &&
                  cfg->sched.max_batch > 1);
    /* a token's KV in every layer (the pool's block may hold one layer group) */
    double kv_token_bytes = block_bytes * (double)kv.groups / bt;
    if (cfg->work.process == SIM_CLOSED) {
        /* N users cycling through think + response: rate = N / (think + E2E(rate)) */
        double r = (double)cfg->work.users / (cfg->work.think_time_s + 1e-3);
        for (int it = 0; it < 100; it++) {
            struct sim_analytic a;
            memset(&a, 0, sizeof a);
            if (dis)
                disaggregated(&m, cfg, r, ca2, VP, VO, P99, O99, kv_token_bytes, &a);
            else if (mixed)
                chunked(&m, cfg, r / cfg->instances, ca2, VP, VO, P99, O99, &a);
            else
                colocated(&m, cfg, r / cfg->instances, ca2, VP, VO, P99, O99, &a);
            double e2e = a.stable ? a.e2e_mean_s : INFINITY;
            double nr = (double)cfg->work.users / (cfg->work.think_time_s + e2e);
            if (!(nr > 0) || !isfinite(nr))
                nr = 0.999 * a.capacity_req_per_s;
            if (nr > 0.999 * a.capacity_req_per_s)
                nr = 0.999 * a.capacity_req_per_s;
            if (fabs(nr - r) <= 1e-9 * r)
                break;
            r = 0.5 * r + 0.5 * nr;
        }
        rate = r;
    }
    if (!(rate > 0)) {
        sim_cost_free(m.cost);
        return -1;
    }
    if (dis) {
        disaggregated(&m, cfg, rate, ca2, VP, VO, P99, O99, kv_token_bytes, out);
    } else {
        out->rate_per_s = rate / cfg->instances;
        if (mixed)
            chunked(&m, cfg, out->rate_per_s, ca2, VP, VO, P99, O99, out);
        else
            colocated(&m, cfg, out->rate_per_s, ca2, VP, VO, P99, O99, out);
    }
    out->ca2 = ca2;
    sim_cost_free(m.cost);
    return 0;
}
