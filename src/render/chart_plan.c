/* The planner's chart (docs/plan.md#chart): left, the Pareto front of output tokens/s per device
 * against tokens/s per user, one curve per hardware and format (each option's load swept with
 * the analytic estimate from 5% to 100% of its SLO-free capacity); right, cost per million output
 * tokens against p99 TTFT at the planned load, one point per option. No drawing, no printing. */
#include "render/chart_plan.h"

#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define DOT "  \xc2\xb7  "
#define MAX_GROUPS 7
#define SWEEP 10
#define MAX_PTS 2048

static const uint32_t COLOURS[MAX_GROUPS] = {
    CHART_BLUE, CHART_VERMILLION, CHART_GREEN, CHART_ORANGE, CHART_PURPLE, CHART_SKY, CHART_BLACK};
static const enum chart_marker MARKERS[MAX_GROUPS] = {
    CHART_MARKER_CIRCLE, CHART_MARKER_SQUARE, CHART_MARKER_TRIANGLE, CHART_MARKER_DIAMOND,
    CHART_MARKER_DOWN,   CHART_MARKER_CROSS,  CHART_MARKER_PLUS};

struct pt {
    double x, y;
};

static int
cmp_pt(const void *a, const void *b)
{
    const struct pt *p = a, *q = b;
    if (p->x != q->x)
        return p->x > q->x ? -1 : 1;
    return (p->y < q->y) - (p->y > q->y);
}

/* Upper-right Pareto front (maximise both): sorted by x descending, keep rising y. Returns the
 * count, the front in ascending x in pts. */
static int
pareto(struct pt *pts, int n)
{
    qsort(pts, (size_t)n, sizeof *pts, cmp_pt);
    int k = 0;
    double best = -INFINITY;
    for (int i = 0; i < n; i++)
        if (pts[i].y > best) {
            best = pts[i].y;
            pts[k++] = pts[i];
        }
    for (int i = 0; i < k / 2; i++) {
        struct pt t = pts[i];
        pts[i] = pts[k - 1 - i];
        pts[k - 1 - i] = t;
    }
    return k;
}

static struct chart_style
style(int g, bool line)
{
    struct chart_style s = {0};
    s.rgb = COLOURS[g];
    s.line_px = line ? 2.5 : 1.5;
    s.alpha = 1;
    s.marker = MARKERS[g];
    s.marker_px = line ? 9 : 12;
    s.filled = !line;
    s.fill_rgb = COLOURS[g];
    s.fill_alpha = 0.55;
    return s;
}

static bool
same_group(const struct plan_option *a, const struct plan_option *b)
{
    return strcmp(a->hw_id, b->hw_id) == 0 && a->format.weights == b->format.weights &&
           a->format.kv == b->format.kv && a->format.moe_marlin == b->format.moe_marlin;
}

/* One option's load swept from 5% to 99% of its SLO-free analytic capacity: SWEEP points of
 * (tokens/s per user, output tokens/s per device), the unstable ones left out. */
struct sweep_pts {
    int n;
    struct pt p[SWEEP];
};

struct sweep {
    const struct plan_question *q;
    const struct plan_opts *o;
    const struct plan_result *r;
    double mo;             /* mean output tokens */
    struct sweep_pts *out; /* per option */
    int *todo, n_todo, next;
    pthread_mutex_t mu;
};

static void
sweep_one(const struct sweep *w, int i)
{
    const struct plan_option *op = &w->r->options[i];
    struct sweep_pts *out = &w->out[i];
    struct sim_config cfg;
    if (plan_option_sim_config(w->q, w->o, op, 1.0, &cfg) != 0)
        return;
    memset(&cfg.slo, 0, sizeof cfg.slo);
    struct sim_analytic a;
    cfg.work.rate_per_s = 1e-6;
    if (sim_analytic(&cfg, &a) != 0 || !(a.capacity_req_per_s > 0))
        return;
    double cap = op->policy == SIM_DISAGGREGATED ? a.capacity_req_per_s
                                                 : a.capacity_req_per_s / (double)cfg.instances;
    for (int k = 0; k < SWEEP; k++) {
        double rate = cap * (0.05 + 0.94 * k / (SWEEP - 1));
        cfg.work.rate_per_s = rate;
        if (sim_analytic(&cfg, &a) != 0 || !a.stable || !(a.tpot_mean_s > 0))
            continue;
        out->p[out->n].x = 1.0 / a.tpot_mean_s;
        out->p[out->n].y = rate * w->mo / op->devices_per_instance;
        out->n++;
    }
}

static void *
sweep_worker(void *arg)
{
    struct sweep *w = arg;
    for (;;) {
        pthread_mutex_lock(&w->mu);
        int k = w->next < w->n_todo ? w->next++ : -1;
        pthread_mutex_unlock(&w->mu);
        if (k < 0)
            return NULL;
        sweep_one(w, w->todo[k]);
    }
}

struct chart *
chart_build_plan(const struct plan_question *q, const struct plan_opts *o,
                 const struct plan_result *r, struct err_list *errs)
{
    struct chart *c = chart_new();
    struct pt *pts = malloc(MAX_PTS * sizeof *pts);
    if (!c || !pts) {
        chart_free(c);
        free(pts);
        err_add(errs, NULL, 0, 0, ERR_ERROR, "out of memory");
        return NULL;
    }
    c->cols = 2;
    struct chart_panel *pf = chart_add_panel(c), *cost = chart_add_panel(c);
    /* groups: hardware + format, in rank order of their best SLO-meeting option */
    int group_of[MAX_GROUPS], ng = 0;
    for (int i = 0; i < r->n_options && ng < MAX_GROUPS; i++) {
        const struct plan_option *op = &r->options[i];
        if (!(op->rate_per_s > 0))
            continue;
        bool seen = false;
        for (int g = 0; g < ng; g++)
            seen = seen || same_group(&r->options[group_of[g]], op);
        if (!seen)
            group_of[ng++] = i;
    }
    if (ng == 0) {
        chart_free(c);
        free(pts);
        err_add(errs, q->path, 0, 0, ERR_ERROR,
                "no option meets the SLOs at any rate: nothing to chart");
        return NULL;
    }
    double mo = 0;
    switch (q->output.kind) {
    case SIM_DIST_FIXED:
        mo = q->output.value;
        break;
    case SIM_DIST_UNIFORM:
        mo = 0.5 * (q->output.min + q->output.max);
        break;
    default:
        mo = q->output.mean;
    }
    /* every charted option's sweep, on the planner's threads */
    struct sweep sw = {q,
                       o,
                       r,
                       mo,
                       calloc((size_t)(r->n_options > 0 ? r->n_options : 1), sizeof *sw.out),
                       NULL,
                       0,
                       0,
                       PTHREAD_MUTEX_INITIALIZER};
    sw.todo = malloc((size_t)(r->n_options > 0 ? r->n_options : 1) * sizeof *sw.todo);
    if (!sw.out || !sw.todo) {
        free(sw.out), free(sw.todo), free(pts);
        chart_free(c);
        err_add(errs, NULL, 0, 0, ERR_ERROR, "out of memory");
        return NULL;
    }
    for (int i = 0; i < r->n_options; i++) {
        const struct plan_option *op = &r->options[i];
        bool charted = false;
        for (int g = 0; g < ng; g++)
            charted = charted || same_group(&r->options[group_of[g]], op);
        if (charted && op->rate_per_s > 0 && !op->prefill_hw_id[0])
            sw.todo[sw.n_todo++] = i;
    }
    int jobs = o && o->jobs > 1 ? (o->jobs < 64 ? o->jobs : 64) : 1, started = 0;
    pthread_t th[64];
    for (int j = 1; j < jobs; j++)
        if (pthread_create(&th[started], NULL, sweep_worker, &sw) == 0)
            started++;
    sweep_worker(&sw);
    for (int j = 0; j < started; j++)
        pthread_join(th[j], NULL);
    double xlo = INFINITY, xhi = 0, ylo = INFINITY, yhi = 0;
    for (int g = 0; g < ng; g++) {
        const struct plan_option *lead = &r->options[group_of[g]];
        int n = 0;
        for (int i = 0; i < r->n_options; i++) {
            if (!same_group(lead, &r->options[i]))
                continue;
            for (int k = 0; k < sw.out[i].n && n < MAX_PTS; k++)
                pts[n++] = sw.out[i].p[k];
        }
        n = pareto(pts, n);
        if (n == 0)
            continue;
        double *x = malloc((size_t)n * sizeof *x), *y = malloc((size_t)n * sizeof *y);
        if (!x || !y) {
            free(x);
            free(y);
            c->failed = true;
            break;
        }
        for (int k = 0; k < n; k++) {
            x[k] = pts[k].x;
            y[k] = pts[k].y;
            xlo = fmin(xlo, x[k]), xhi = fmax(xhi, x[k]);
            ylo = fmin(ylo, y[k]), yhi = fmax(yhi, y[k]);
        }
        struct chart_style s = style(g, true);
        chart_add_line(c, pf, &s, x, y, (size_t)n);
        char name[128];
        snprintf(name, sizeof name, "%s %s%s", lead->hw_id, dtype_name(lead->format.weights),
                 lead->format.moe_marlin ? " Marlin" : "");
        chart_add_legend(c, pf, name, &s, false);
        free(x);
        free(y);
    }
    double lo, hi;
    if (chart_log_bounds(xlo, xhi, 1.1, &lo, &hi) == 0)
        chart_axis_set(&pf->x, CHART_LOG, lo, hi, "output tokens/s per user (1 / TPOT)", "");
    if (chart_log_bounds(ylo, yhi, 1.1, &lo, &hi) == 0)
        chart_axis_set(&pf->y, CHART_LOG, lo, hi, "output tokens/s per device", "");
    snprintf(pf->title, sizeof pf->title, "throughput against interactivity (Pareto fronts)");
    if (q->has_slo && q->slo.itl_s > 0 && 1.0 / q->slo.itl_s > pf->x.min &&
        1.0 / q->slo.itl_s < pf->x.max) {
        double vx[2] = {1.0 / q->slo.itl_s, 1.0 / q->slo.itl_s}, vy[2] = {pf->y.min, pf->y.max};
        struct chart_style s = chart_line_style(CHART_GREY, 2, CHART_DASHED);
        chart_add_line(c, pf, &s, vx, vy, 2);
        chart_add_legend(c, pf, "ITL bound", &s, false);
    }
    /* cost against p99 TTFT at the planned load */
    xlo = ylo = INFINITY, xhi = yhi = 0;
    for (int i = 0; i < r->n_options; i++) {
        const struct plan_option *op = &r->options[i];
        int g = -1;
        for (int k = 0; k < ng; k++)
            if (same_group(&r->options[group_of[k]], op))
                g = k;
        if (g < 0 || !(op->cost_per_mtok_output > 0) || !(op->ttft_p99_s > 0) ||
            !isfinite(op->cost_per_mtok_output))
            continue;
        struct chart_style s = style(g, false);
        chart_add_point(c, cost, op->ttft_p99_s, op->cost_per_mtok_output, &s);
        xlo = fmin(xlo, op->ttft_p99_s), xhi = fmax(xhi, op->ttft_p99_s);
        ylo = fmin(ylo, op->cost_per_mtok_output), yhi = fmax(yhi, op->cost_per_mtok_output);
    }
    if (isfinite(xlo) && chart_log_bounds(xlo, xhi, 1.2, &lo, &hi) == 0) {
        chart_axis_set(&cost->x, CHART_LOG, lo, hi, "TTFT p99 at the planned load", "s");
        cost->x.sub_unit = true;
    }
    if (isfinite(ylo) && chart_log_bounds(ylo, yhi, 1.2, &lo, &hi) == 0)
        chart_axis_set(&cost->y, CHART_LOG, lo, hi,
                       q->money == PLAN_BUY ? "TCO per million output tokens"
                                            : "rent per million output tokens",
                       "");
    snprintf(cost->title, sizeof cost->title, "cost against latency (%s)", q->currency);
    if (r->chosen >= 0) {
        const struct plan_option *op = &r->options[r->chosen];
        char t[160];
        struct chart_style ring = {0};
        ring.rgb = CHART_BLACK;
        ring.line_px = 2.5;
        ring.alpha = 1;
        ring.marker = CHART_MARKER_CIRCLE;
        ring.marker_px = 26;
        chart_add_point(c, cost, op->ttft_p99_s, op->cost_per_mtok_output, &ring);
        char dp[16] = "";
        if (op->attn_dp > 1)
            snprintf(dp, sizeof dp, " dp %d", op->attn_dp);
        snprintf(t, sizeof t, "chosen: %d x %s tp %d%s", op->instances, op->hw_id, op->tp, dp);
        struct chart_label *l =
            chart_add_label(c, cost, t, op->ttft_p99_s, op->cost_per_mtok_output, 10, CHART_BLACK);
        /* clear of the 26 px ring, farther out with a leader when the points crowd it (home-
         * workstation's label was dropped) */
        chart_label_leader(l, 16, 8, true);
    }
    if (q->has_slo && q->slo.ttft_s > 0 && q->slo.ttft_s > cost->x.min &&
        q->slo.ttft_s < cost->x.max) {
        double vx[2] = {q->slo.ttft_s, q->slo.ttft_s}, vy[2] = {cost->y.min, cost->y.max};
        struct chart_style s = chart_line_style(CHART_GREY, 2, CHART_DASHED);
        chart_add_line(c, cost, &s, vx, vy, 2);
        chart_add_legend(c, cost, "TTFT bound", &s, false);
    }
    cost->legend_left = true;
    snprintf(c->title, sizeof c->title, "Capacity plan: %.200s", r->question);
    char load[64];
    if (q->workload == PLAN_WL_USERS)
        snprintf(load, sizeof load, "%ld users, %.3g s think time", q->users, q->think_time_s);
    else
        snprintf(load, sizeof load, "%.4g requests/s", r->rate_per_s);
    snprintf(c->subtitle, sizeof c->subtitle,
             "%s" DOT "%s" DOT "%d candidates, %d options, %d simulated" DOT
             "the %d best hardware and format pairs",
             r->model_id, load, r->n_candidates, r->n_options, r->n_simulated, ng);
    snprintf(c->footnote, sizeof c->footnote,
             "Left: each curve is the upper envelope over the pair's tensor-parallel degrees and "
             "schedulers, their load swept from 5%% to 99%% of capacity with the analytic "
             "estimate (no SLO).\nRight: one point per option at its planned load (simulated "
             "for the confirmed options), cost of the whole fleet per million output tokens; "
             "colours and "
             "markers as on the left.");
    free(pts);
    free(sw.out);
    free(sw.todo);
    if (c->failed) {
        chart_free(c);
        err_add(errs, NULL, 0, 0, ERR_ERROR, "out of memory");
        return NULL;
    }
    return c;
}
