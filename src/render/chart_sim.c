/* The simulator's chart (docs/charts.md#kinds): four panels, the latency CDFs of the measured
 * requests with the SLO bounds and p99s, then a timeline of the requests waiting and running,
 * the batch of every step and the KV-cache occupancy, all from one sim_result. */
#include "render/chart_sim.h"

#include "core/hw.h"
#include "core/model.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define DOT "  \xc2\xb7  "
#define CDF_POINTS 400

static int
cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

long
chart_sim_cdf(const double *v, long n, double *x, double *y, long max_pts)
{
    if (n <= 0 || max_pts < 2)
        return 0;
    double *s = malloc((size_t)n * sizeof *s);
    if (!s)
        return -1;
    long m = 0;
    for (long i = 0; i < n; i++)
        if (isfinite(v[i]))
            s[m++] = v[i];
    if (m == 0) {
        free(s);
        return 0;
    }
    qsort(s, (size_t)m, sizeof *s, cmp_double);
    /* half the points for probabilities 0 .. 0.9, half for 0.9 .. 1 */
    long half = max_pts / 2, k = 0, last = -1;
    for (long j = 0; j < max_pts; j++) {
        double p = j < half ? 0.9 * (double)j / (double)half
                            : 0.9 + 0.1 * (double)(j - half + 1) / (double)(max_pts - half);
        long idx = (long)ceil(p * (double)m) - 1;
        if (idx < 0)
            idx = 0;
        if (idx > m - 1 || j == max_pts - 1)
            idx = m - 1;
        if (idx <= last)
            continue;
        x[k] = s[idx];
        y[k] = (double)(idx + 1) / (double)m;
        k++;
        last = idx;
    }
    free(s);
    return k;
}

struct metric {
    const char *name;
    uint32_t rgb;
    enum chart_dash dash;
    double slo; /* 0: none */
    double *v;
    long n;
};

/* The sample of one latency over the measured, completed requests. */
static double
req_value(const struct sim_request *q, int which)
{
    switch (which) {
    case 0:
        return q->ttft_s;
    case 1:
        return q->tpot_s;
    case 2:
        return q->e2e_s;
    default:
        return q->queue_s;
    }
}

static int
build_cdfs(struct chart *c, struct chart_panel *p, const struct sim_config *cfg,
           const struct sim_result *r, long *n_measured, struct err_list *errs)
{
    struct metric m[4] = {
        {"TTFT", CHART_ORANGE, CHART_SOLID, cfg->slo.ttft_s, NULL, 0},
        {"TPOT", CHART_BLUE, CHART_SOLID, cfg->slo.itl_s, NULL, 0},
        {"E2E", CHART_BLACK, CHART_SOLID, cfg->slo.e2e_s, NULL, 0},
        {"queue", CHART_GREEN, CHART_DASHED, 0, NULL, 0},
    };
    int rc = -1;
    double *x = malloc(CDF_POINTS * sizeof *x), *y = malloc(CDF_POINTS * sizeof *y);
    for (int k = 0; k < 4; k++)
        m[k].v = malloc(((size_t)r->n_requests + 1) * sizeof *m[k].v);
    if (!x || !y || !m[0].v || !m[1].v || !m[2].v || !m[3].v) {
        err_add(errs, NULL, 0, 0, ERR_ERROR, "out of memory");
        goto out;
    }
    long zero_queue = 0;
    for (long i = 0; i < r->n_requests; i++) {
        const struct sim_request *q = &r->requests[i];
        if (q->warmup || q->status != SIM_REQ_DONE)
            continue;
        for (int k = 0; k < 4; k++) {
            double v = req_value(q, k);
            /* a log axis cannot show 0: a request that never waited is counted, not drawn */
            if (k == 3 && !(v > 0)) {
                zero_queue++;
                v = 0;
            }
            if (isfinite(v))
                m[k].v[m[k].n++] = v;
        }
    }
    *n_measured = m[2].n;
    if (m[2].n == 0) {
        err_add(errs, NULL, 0, 0, ERR_ERROR,
                "no request completed after the warm-up: nothing to chart (more requests or "
                "a shorter warm-up)");
        goto out;
    }
    double lo = INFINITY, hi = 0;
    for (int k = 0; k < 4; k++)
        for (long i = 0; i < m[k].n; i++)
            if (m[k].v[i] > 0) {
                lo = fmin(lo, m[k].v[i]);
                hi = fmax(hi, m[k].v[i]);
            }
    for (int k = 0; k < 3; k++)
        if (m[k].slo > 0) {
            lo = fmin(lo, m[k].slo);
            hi = fmax(hi, m[k].slo);
        }
    double xmin, xmax;
    if (chart_log_bounds(lo, hi, 1.3, &xmin, &xmax) != 0) {
        err_add(errs, NULL, 0, 0, ERR_ERROR, "latencies not positive: nothing to chart");
        goto out;
    }
    chart_axis_set(&p->x, CHART_LOG, xmin, xmax, "latency", "s");
    p->x.sub_unit = true;
    /* a little above 100% so that the p99 dots (at 99%) are not clipped by the frame */
    chart_axis_set(&p->y, CHART_LINEAR, 0, 104, "requests at or below (%)", "");
    snprintf(p->title, sizeof p->title, "latency CDFs of the %ld measured requests", m[2].n);
    char text[160], num[32], foot[400] = "";
    int flen = 0;
    for (int k = 0; k < 4; k++) {
        long np = chart_sim_cdf(m[k].v, m[k].n, x, y, CDF_POINTS);
        if (np < 0) {
            err_add(errs, NULL, 0, 0, ERR_ERROR, "out of memory");
            goto out;
        }
        if (np == 0)
            continue;
        for (long i = 0; i < np; i++)
            y[i] *= 100;
        struct chart_style s = chart_line_style(m[k].rgb, 3, m[k].dash);
        chart_add_line(c, p, &s, x, y, (size_t)np);
        /* p99 marked on the curve, SLO as a dotted line; their values go in the footnote */
        struct sim_stat st = k == 0 ? r->ttft : k == 1 ? r->tpot : k == 2 ? r->e2e : r->queue;
        if (isfinite(st.p99) && st.p99 > 0) {
            chart_format_si(st.p99, 3, "s", true, num, sizeof num);
            flen += snprintf(foot + flen, sizeof foot - (size_t)flen, "%s%s %s",
                             flen ? ", " : "p99: ", m[k].name, num);
            if (k < 3) {
                struct chart_style d =
                    chart_marker_style(CHART_MARKER_CIRCLE, 13, CHART_BLACK, 1.5, m[k].rgb, 1);
                chart_add_point(c, p, st.p99, 99, &d);
            }
        }
        if (m[k].slo > 0) {
            chart_format_si(m[k].slo, 3, "s", true, num, sizeof num);
            flen += snprintf(foot + flen, sizeof foot - (size_t)flen, " (SLO %s)", num);
            double sx[2] = {m[k].slo, m[k].slo}, sy[2] = {0, 100};
            struct chart_style ss = chart_line_style(m[k].rgb, 2, CHART_DOTTED);
            chart_add_line(c, p, &ss, sx, sy, 2);
        }
        if ((size_t)flen >= sizeof foot)
            flen = (int)sizeof foot - 1;
        /* direct label beside the curve, at one of its quantiles */
        struct chart_label *l =
            chart_add_label(c, p, m[k].name, x[np / 2], y[np / 2], 100 - k, m[k].rgb);
        if (l) {
            static const double Q[] = {0.35, 0.65, 0.2, 0.8, 0.1};
            for (int q = 0; q < 5; q++) {
                long i = (long)(Q[q] * (double)(np - 1));
                chart_label_anchor(l, x[i], y[i]);
            }
            static const enum chart_dir D[] = {CHART_E, CHART_W, CHART_SE, CHART_NW};
            chart_label_dirs(l, D, 4);
            l->bold = true;
            l->rings = 3;
        }
    }
    if (flen > 0 && (size_t)flen + 80 < sizeof foot)
        snprintf(foot + flen, sizeof foot - (size_t)flen, "%s",
                 cfg->slo.ttft_s > 0 || cfg->slo.itl_s > 0 || cfg->slo.e2e_s > 0
                     ? " (dots on the curves; SLO bounds dotted)"
                     : " (dots on the curves)");
    chart_note(c, foot);
    if (zero_queue > 0) {
        snprintf(text, sizeof text,
                 "%.1f%% of the measured requests were scheduled on arrival (queueing delay 0, "
                 "at the left edge of its CDF).",
                 100.0 * (double)zero_queue / (double)m[3].n);
        chart_note(c, text);
    }
    rc = 0;
out:
    free(x);
    free(y);
    for (int k = 0; k < 4; k++)
        free(m[k].v);
    return rc;
}

/* One timeline panel: the series picked by `which` (0 queued, 1 running, 2 batch, 3 KV %). */
static void
timeline_line(struct chart *c, struct chart_panel *p, const struct sim_result *r, int which,
              const struct chart_style *s, double *x, double *y, double *ymax)
{
    for (int i = 0; i < r->n_timeline; i++) {
        const struct sim_timeline_point *t = &r->timeline[i];
        x[i] = t->time_s;
        y[i] = which == 0   ? t->queued
               : which == 1 ? t->running
               : which == 2 ? t->batch
                            : 100 * t->kv_occupancy;
        if (y[i] > *ymax)
            *ymax = y[i];
    }
    chart_add_line(c, p, s, x, y, (size_t)r->n_timeline);
}

/* The batch of the steps taken by one kind of instance (disaggregated serving). */
static void
timeline_kind_line(struct chart *c, struct chart_panel *p, const struct sim_result *r,
                   enum sim_step_kind kind, const struct chart_style *s, double *x, double *y,
                   double *ymax)
{
    size_t n = 0;
    for (int i = 0; i < r->n_timeline; i++) {
        const struct sim_timeline_point *t = &r->timeline[i];
        if (t->kind != kind)
            continue;
        x[n] = t->time_s;
        y[n] = t->batch;
        if (y[n] > *ymax)
            *ymax = y[n];
        n++;
    }
    if (n > 0)
        chart_add_line(c, p, s, x, y, n);
}

static void
time_axis(struct chart_panel *p, const struct sim_result *r)
{
    double lo, hi, step;
    double end = r->makespan_s > 0 ? r->makespan_s : 1;
    chart_linear_bounds(0, end, 6, &lo, &hi, &step);
    chart_axis_set(&p->x, CHART_LINEAR, 0, end, "simulated time", "s");
    p->x.sub_unit = true;
}

static void
count_axis(struct chart_panel *p, double ymax, const char *title)
{
    double lo, hi, step;
    /* headroom above the data for the legend */
    if (chart_linear_bounds(0, fmax(ymax, 1) * 1.45, 5, &lo, &hi, &step) != 0)
        hi = fmax(ymax, 1) * 1.45;
    chart_axis_set(&p->y, CHART_LINEAR, 0, hi, title, "");
}

/* The end of the warm-up: the arrival of the first measured request. */
static double
warmup_end(const struct sim_result *r)
{
    for (long i = 0; i < r->n_requests; i++)
        if (!r->requests[i].warmup)
            return i > 0 ? r->requests[i].arrival_s : 0;
    return 0;
}

static void
warmup_marker(struct chart *c, struct chart_panel *p, double t, double ymax)
{
    if (!(t > 0))
        return;
    double x[2] = {t, t}, y[2] = {0, ymax};
    struct chart_style s = chart_line_style(CHART_GREY, 1.5, CHART_DASHED);
    chart_add_line(c, p, &s, x, y, 2);
}

struct chart *
chart_build_simulate(const struct sim_config *cfg, const struct sim_result *r, const char *name,
                     struct err_list *errs)
{
    struct chart *c = chart_new();
    if (!c) {
        err_add(errs, NULL, 0, 0, ERR_ERROR, "out of memory");
        return NULL;
    }
    c->cols = 2;
    struct chart_panel *cdf = chart_add_panel(c), *queue = chart_add_panel(c),
                       *batch = chart_add_panel(c), *kv = chart_add_panel(c);
    long measured = 0;
    if (build_cdfs(c, cdf, cfg, r, &measured, errs) != 0) {
        chart_free(c);
        return NULL;
    }
    int nt = r->n_timeline;
    double *x = malloc(((size_t)nt + 1) * sizeof *x), *y = malloc(((size_t)nt + 1) * sizeof *y);
    if (!x || !y) {
        free(x);
        free(y);
        chart_free(c);
        err_add(errs, NULL, 0, 0, ERR_ERROR, "out of memory");
        return NULL;
    }
    double wu = warmup_end(r);
    /* requests waiting and running */
    double qmax = 0;
    struct chart_style sq = chart_line_style(CHART_VERMILLION, 2, CHART_SOLID);
    struct chart_style sr = chart_line_style(CHART_BLUE, 2, CHART_SOLID);
    timeline_line(c, queue, r, 0, &sq, x, y, &qmax);
    timeline_line(c, queue, r, 1, &sr, x, y, &qmax);
    time_axis(queue, r);
    count_axis(queue, qmax, "requests");
    snprintf(queue->title, sizeof queue->title, "requests waiting and running");
    chart_add_legend(c, queue, "waiting", &sq, false);
    chart_add_legend(c, queue, "running", &sr, false);
    warmup_marker(c, queue, wu, queue->y.max);
    /* batch of every step */
    double bmax = (double)cfg->sched.max_batch;
    struct chart_style sb = chart_line_style(CHART_BLACK, 1.5, CHART_SOLID);
    double bseen = 0;
    int n_pre = 0, n_dec = 0;
    for (int i = 0; i < nt; i++) {
        n_pre += r->timeline[i].kind == SIM_STEP_PREFILL;
        n_dec += r->timeline[i].kind == SIM_STEP_DECODE;
    }
    struct chart_style sbp = chart_line_style(CHART_VERMILLION, 1.5, CHART_SOLID);
    struct chart_style sbd = chart_line_style(CHART_BLUE, 1.5, CHART_SOLID);
    if (n_pre > 0 || n_dec > 0) {
        /* disaggregated: prefill and decode instances' steps are two series (interleaved
         * they would draw a comb between a prompt batch and a decode batch) */
        timeline_kind_line(c, batch, r, SIM_STEP_DECODE, &sbd, x, y, &bseen);
        timeline_kind_line(c, batch, r, SIM_STEP_PREFILL, &sbp, x, y, &bseen);
    } else {
        timeline_line(c, batch, r, 2, &sb, x, y, &bseen);
    }
    time_axis(batch, r);
    bool show_cap = bmax > 0 && bmax <= 2.5 * fmax(bseen, 1);
    count_axis(batch, show_cap ? fmax(bseen, bmax) : bseen, "sequences in the step");
    snprintf(batch->title, sizeof batch->title, "batch of each engine step");
    if (n_pre > 0 || n_dec > 0) {
        chart_add_legend(c, batch, "decode instances' steps", &sbd, false);
        chart_add_legend(c, batch, "prefill instances' steps", &sbp, false);
    } else {
        chart_add_legend(c, batch, "sequences in the step", &sb, false);
    }
    if (show_cap) {
        double hx[2] = {0, batch->x.max}, hy[2] = {bmax, bmax};
        struct chart_style sc = chart_line_style(CHART_GREY, 2, CHART_DASHED);
        chart_add_line(c, batch, &sc, hx, hy, 2);
        chart_add_legend(c, batch, "max batch", &sc, false);
    }
    warmup_marker(c, batch, wu, batch->y.max);
    /* KV occupancy */
    double kmax = 0;
    struct chart_style sk = chart_line_style(CHART_PURPLE, 2, CHART_SOLID);
    timeline_line(c, kv, r, 3, &sk, x, y, &kmax);
    time_axis(kv, r);
    double khi = kmax > 50 ? 100 / 1.45 : fmax(kmax, 1);
    count_axis(kv, khi, "KV blocks in use (%)");
    if (kmax > 50) {
        double hx[2] = {0, kv->x.max}, hy[2] = {100, 100};
        struct chart_style sc = chart_line_style(CHART_GREY, 2, CHART_DASHED);
        chart_add_line(c, kv, &sc, hx, hy, 2);
        chart_add_legend(c, kv, "pool full", &sc, false);
    }
    snprintf(kv->title, sizeof kv->title, "KV-cache occupancy (all instances)");
    chart_add_legend(c, kv, "blocks in use", &sk, false);
    warmup_marker(c, kv, wu, kv->y.max);
    free(x);
    free(y);
    if (wu > 0) {
        struct chart_style sw = chart_line_style(CHART_GREY, 1.5, CHART_DASHED);
        chart_add_legend(c, queue, "end of the warm-up", &sw, false);
    }

    const struct roof_config *e = &cfg->engine;
    if (name)
        snprintf(c->title, sizeof c->title, "Serving simulation: %s", name);
    else
        snprintf(c->title, sizeof c->title, "Serving simulation: %s on %d x %s", e->model->id,
                 cfg->instances * e->tp * e->pp, e->hw->id);
    char num[32], rate[64] = "";
    if (cfg->work.process == SIM_CLOSED)
        snprintf(rate, sizeof rate, "closed loop, %ld users", cfg->work.users);
    else if (cfg->work.process == SIM_TRACE)
        snprintf(rate, sizeof rate, "trace arrivals");
    else
        snprintf(rate, sizeof rate, "%s arrivals at %g requests/s",
                 sim_process_name(cfg->work.process), cfg->work.rate_per_s);
    /* the MoE kernel where it is not the engine's default (docs/physics.md#moe-kernels) */
    bool marlin = roof_moe_marlin(e);
    char epw[64];
    roof_parallel_extras(e, false, epw, sizeof epw);
    snprintf(c->subtitle, sizeof c->subtitle,
             "%s on %d x %s%s" DOT "%s scheduler" DOT "%d instance%s of tp %d%s, pp %d" DOT "%s" DOT
             "seed %lu",
             e->model->id, cfg->instances * e->tp * e->pp, e->hw->id,
             marlin ? ", experts through Marlin" : "", sim_policy_name(cfg->sched.policy),
             cfg->instances, cfg->instances == 1 ? "" : "s", e->tp, epw, e->pp, rate, cfg->seed);
    char text[300];
    if (isfinite(r->slo_attainment)) {
        chart_format_si(r->goodput_req_per_s, 3, "", false, num, sizeof num);
        snprintf(text, sizeof text,
                 "SLO attainment %.1f%% (goodput %s requests/s); throughput %.3g requests/s; "
                 "%ld preemptions; %ld rejected.",
                 100 * r->slo_attainment, num, r->throughput_req_per_s, r->preemptions,
                 r->rejected);
    } else {
        snprintf(text, sizeof text, "Throughput %.3g requests/s; %ld preemptions; %ld rejected.",
                 r->throughput_req_per_s, r->preemptions, r->rejected);
    }
    chart_note(c, text);
    snprintf(text, sizeof text,
             "CDFs: completed requests after the warm-up; TPOT is a request's mean time between "
             "tokens. Timeline: the system at the start of engine steps (%d samples of %ld).",
             r->n_timeline, r->steps);
    chart_note(c, text);
    (void)measured;
    if (c->failed) {
        chart_free(c);
        err_add(errs, NULL, 0, 0, ERR_ERROR, "out of memory");
        return NULL;
    }
    return c;
}
