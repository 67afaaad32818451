/* The tornado chart (render/chart_tornado.h): horizontal bars drawn as thick butt-capped lines on
 * a category y axis, one colour for the low input and one for the high, a dashed line at the
 * base value, the input values labelled at the bar ends. */
#include "render/chart_tornado.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define LOW_RGB CHART_BLUE
#define HIGH_RGB CHART_ORANGE

double
tornado_swing(const struct tornado_row *r)
{
    if (!isfinite(r->low) || !isfinite(r->high))
        return INFINITY;
    return fabs(r->high - r->low);
}

static void
bar(struct chart *c, struct chart_panel *p, double y, double from, double to, uint32_t rgb,
    double px)
{
    if (!isfinite(from) || !isfinite(to))
        return;
    if (to == from) /* no swing: a thin tick so the row is not empty */
        to = from + (p->x.max - p->x.min) * 0.002;
    struct chart_style s = chart_line_style(rgb, px, CHART_SOLID);
    double x[2] = {from, to}, yy[2] = {y, y};
    chart_add_line(c, p, &s, x, yy, 2);
}

static void
end_label(struct chart *c, struct chart_panel *p, const char *in, double v, double base, double y,
          uint32_t rgb)
{
    char text[64];
    if (isfinite(v)) {
        snprintf(text, sizeof text, "%s", in);
    } else {
        snprintf(text, sizeof text, "%s: infeasible", in);
        v = base;
    }
    struct chart_label *l = chart_add_label(c, p, text, v, y, 10, rgb);
    if (!l)
        return;
    enum chart_dir d[] = {v < base ? CHART_W : CHART_E, v < base ? CHART_E : CHART_W};
    if (v == base) {
        /* no swing on this side: the low value goes left, the high right */
        d[0] = rgb == LOW_RGB ? CHART_W : CHART_E;
        d[1] = rgb == LOW_RGB ? CHART_E : CHART_W;
    }
    chart_label_dirs(l, d, 2);
    l->gap_px = 6;
    l->rings = 1;
    l->scale = 0.85;
}

static int
build_panel(struct chart *c, const struct tornado_panel *tp)
{
    int n = tp->n_rows < TORNADO_MAX_ROWS ? tp->n_rows : TORNADO_MAX_ROWS;
    if (!isfinite(tp->base) || n <= 0)
        return -1;
    struct chart_panel *p = chart_add_panel(c);
    if (!p)
        return -1;
    snprintf(p->title, sizeof p->title, "%s", tp->title);
    /* order: smallest swing first, so the largest is drawn on top (category n - 1) */
    int idx[TORNADO_MAX_ROWS];
    for (int i = 0; i < n; i++)
        idx[i] = i;
    for (int i = 1; i < n; i++)
        for (int j = i; j > 0; j--) {
            double a = tornado_swing(&tp->rows[idx[j - 1]]), b = tornado_swing(&tp->rows[idx[j]]);
            if (a > b || (a == b && idx[j - 1] < idx[j])) {
                int t = idx[j];
                idx[j] = idx[j - 1];
                idx[j - 1] = t;
            } else {
                break;
            }
        }
    const char *names[TORNADO_MAX_ROWS];
    double lo = tp->base, hi = tp->base;
    for (int k = 0; k < n; k++) {
        const struct tornado_row *r = &tp->rows[idx[k]];
        names[k] = r->name;
        if (isfinite(r->low))
            lo = fmin(lo, r->low), hi = fmax(hi, r->low);
        if (isfinite(r->high))
            lo = fmin(lo, r->high), hi = fmax(hi, r->high);
    }
    double span = hi - lo > 0 ? hi - lo : fmax(fabs(tp->base), 1) * 0.1;
    double x0, x1, step;
    /* room at both ends for the input-value labels */
    if (chart_linear_bounds(lo - 0.3 * span, hi + 0.3 * span, 5, &x0, &x1, &step) != 0)
        return -1;
    if (lo >= 0 && x0 < 0)
        x0 = 0;
    chart_axis_set(&p->x, CHART_LINEAR, x0, x1, tp->title, tp->unit ? tp->unit : "");
    chart_axis_categories(c, &p->y, names, n);
    double thick = n > 0 ? fmin(46, 520.0 / n) : 30;
    for (int k = 0; k < n; k++) {
        const struct tornado_row *r = &tp->rows[idx[k]];
        bar(c, p, k, tp->base, r->low, LOW_RGB, thick);
        bar(c, p, k, tp->base, r->high, HIGH_RGB, thick);
        end_label(c, p, r->low_in, r->low, tp->base, k, LOW_RGB);
        end_label(c, p, r->high_in, r->high, tp->base, k, HIGH_RGB);
    }
    struct chart_style bs = chart_line_style(CHART_BLACK, 2, CHART_DASHED);
    double bx[2] = {tp->base, tp->base}, by[2] = {-0.5, n - 0.5};
    chart_add_line(c, p, &bs, bx, by, 2);
    struct chart_style ls = chart_line_style(LOW_RGB, 12, CHART_SOLID);
    struct chart_style hs = chart_line_style(HIGH_RGB, 12, CHART_SOLID);
    ls.filled = hs.filled = true;
    ls.fill_rgb = LOW_RGB, hs.fill_rgb = HIGH_RGB;
    char base[96], bv[48];
    chart_format_si(tp->base, 4, tp->unit ? tp->unit : "", false, bv, sizeof bv);
    snprintf(base, sizeof base, "base %s", bv);
    /* below the plot: inside, any corner is some bar's row and hides its end label */
    p->legend_below = true;
    chart_add_legend(c, p, "input low", &ls, true);
    chart_add_legend(c, p, "input high", &hs, true);
    chart_add_legend(c, p, base, &bs, false);
    return 0;
}

struct chart *
chart_build_tornado(const char *title, const char *subtitle, const struct tornado_panel *panels,
                    int n_panels)
{
    if (n_panels < 1 || n_panels > CHART_MAX_PANELS)
        return NULL;
    struct chart *c = chart_new();
    if (!c)
        return NULL;
    snprintf(c->title, sizeof c->title, "%s", title ? title : "Sensitivity");
    snprintf(c->subtitle, sizeof c->subtitle, "%s", subtitle ? subtitle : "");
    c->cols = n_panels;
    for (int i = 0; i < n_panels; i++)
        if (build_panel(c, &panels[i]) != 0) {
            chart_free(c);
            return NULL;
        }
    if (c->failed) {
        chart_free(c);
        return NULL;
    }
    return c;
}
