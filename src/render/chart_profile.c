/* Profile chart: linear axes from zero (prefill time grows linearly with the prompt once it is
 * compute-bound; the decode step is nearly flat in the context), points for the measurements,
 * a dashed line for the fit, a solid line for the prediction (roof_evaluate at 48 points). */
#include "render/chart_profile.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#define PRED_POINTS 48

static double
max_of(const double *v, int n)
{
    double m = 0;
    for (int i = 0; i < n; i++)
        if (isfinite(v[i]) && v[i] > m)
            m = v[i];
    return m;
}

/* prediction of a batch-1 pass: prefill of `tokens`, or a decode step at context `tokens` */
static double
predict(const struct roof_config *base, bool prefill, double tokens)
{
    struct roof_config cfg = *base;
    cfg.phase = prefill ? ROOF_PREFILL : ROOF_DECODE;
    cfg.batch = 1;
    cfg.prompt = prefill ? tokens : 1;
    cfg.context = prefill ? 0 : tokens;
    struct roof_result r;
    if (roof_config_problem(&cfg) || roof_evaluate(&cfg, &r) != 0)
        return NAN;
    return r.time_s;
}

static void
panel(struct chart *c, struct chart_panel *p, const char *title, const char *xtitle,
      const char *ytitle, const double *x, const double *y, int n, bool fit, double c0, double c1,
      const struct roof_config *pred, bool prefill)
{
    snprintf(p->title, sizeof p->title, "%s", title);
    double xmax = max_of(x, n), ymax = max_of(y, n);
    double lo, hi, step;
    if (chart_linear_bounds(0, xmax * 1.05, 5, &lo, &hi, &step) != 0) {
        lo = 0;
        hi = 1;
    }
    chart_axis_set(&p->x, CHART_LINEAR, 0, hi, xtitle, "");
    double px[PRED_POINTS], py[PRED_POINTS];
    int np = 0;
    if (pred && pred->hw)
        for (int i = 0; i < PRED_POINTS; i++) {
            double t = prefill ? 1 + (hi - 1) * i / (PRED_POINTS - 1) : hi * i / (PRED_POINTS - 1);
            double v = predict(pred, prefill, t);
            if (isfinite(v)) {
                px[np] = t;
                py[np++] = v;
            }
        }
    ymax = fmax(ymax, max_of(py, np));
    if (fit)
        ymax = fmax(ymax, c0 + c1 * hi);
    if (chart_linear_bounds(0, ymax * 1.1, 5, &lo, &hi, &step) != 0) {
        lo = 0;
        hi = 1;
    }
    chart_axis_set(&p->y, CHART_LINEAR, 0, hi, ytitle, "s");
    p->y.sub_unit = true;
    p->legend_left = true;
    struct chart_style pts = {.rgb = CHART_BLUE,
                              .line_px = 1,
                              .marker = CHART_MARKER_CIRCLE,
                              .marker_px = 6,
                              .filled = true,
                              .fill_rgb = CHART_BLUE,
                              .fill_alpha = 0.35};
    for (int i = 0; i < n; i++)
        chart_add_point(c, p, x[i], y[i], &pts);
    chart_add_legend(c, p, prefill ? "measured (one request)" : "measured (median of 16 gaps)",
                     &pts, false);
    if (fit) {
        double fx[2] = {0, p->x.max}, fy[2] = {c0, c0 + c1 * p->x.max};
        struct chart_style fs = {.rgb = CHART_BLUE, .line_px = 1.5, .dash = CHART_DASHED};
        chart_add_line(c, p, &fs, fx, fy, 2);
        char lab[96];
        if (prefill)
            snprintf(lab, sizeof lab, "fit: %.3g ms + %.3g ms per token", 1e3 * c0, 1e3 * c1);
        else
            snprintf(lab, sizeof lab, "fit: %.3g ms + %.3g us per context token", 1e3 * c0,
                     1e6 * c1);
        chart_add_legend(c, p, lab, &fs, false);
    }
    if (np > 1) {
        struct chart_style ps = {.rgb = CHART_VERMILLION, .line_px = 2};
        chart_add_line(c, p, &ps, px, py, (size_t)np);
        char lab[160];
        snprintf(lab, sizeof lab, "predicted (%s, %s in %s)", pred->hw->id, pred->model->id,
                 dtype_name(pred->weights));
        chart_add_legend(c, p, lab, &ps, false);
    }
}

struct chart *
chart_build_profile(const struct chart_profile_data *d, struct err_list *errs)
{
    if (d->n_prefill < 1 && d->n_decode < 1) {
        err_add(errs, NULL, 0, 0, ERR_ERROR, "the profile has no measured point to draw");
        return NULL;
    }
    struct chart *c = chart_new();
    if (!c)
        return NULL;
    snprintf(c->title, sizeof c->title, "Prefill and decode of %s", d->url ? d->url : "a server");
    snprintf(c->subtitle, sizeof c->subtitle,
             "time to first token grows with the prompt (compute); the time between tokens "
             "barely moves with the context (the weights are read once per token)");
    snprintf(c->footnote, sizeof c->footnote,
             "measured by roofline profile; lines: GSL least-squares fits (dashed)%s",
             d->predict && d->predict->hw ? " and the roofline prediction at batch 1 (solid)" : "");
    c->cols = 2;
    if (d->n_prefill > 0)
        panel(c, chart_add_panel(c), "TTFT against prompt length", "prompt (tokens)",
              "time to first token", d->prompt, d->ttft_s, d->n_prefill, d->prefill_fit,
              d->prefill_c0, d->prefill_c1, d->predict, true);
    if (d->n_decode > 0)
        panel(c, chart_add_panel(c), "Inter-token latency against context", "context (tokens)",
              "time per output token", d->context, d->itl_s, d->n_decode, d->decode_fit,
              d->decode_c0, d->decode_c1, d->predict, false);
    if (c->failed) {
        chart_free(c);
        err_add(errs, NULL, 0, 0, ERR_ERROR, "out of memory");
        return NULL;
    }
    return c;
}
