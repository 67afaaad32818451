/* The chart model and its pure layout: building panels, collision-avoiding label placement and
 * the layout of panels, margins and legends. No Cairo, no printing. The numbers of an axis
 * ("nice" ranges, ticks, log mapping, engineering labels) are chart_scale.c; the chart kinds
 * that fill a chart live in chart_<kind>.c (table in charts.c). */
#include "render/chart.h"
#include "util/alloc.h"
#include "util/array.h"

#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- building ---- */

struct chart *
chart_new(void)
{
    struct chart *c = calloc(1, sizeof *c);
    if (c)
        c->cols = 1;
    return c;
}

static void
axis_release(struct chart_axis *ax)
{
    for (int i = 0; i < ax->n_categories; i++)
        free(ax->categories[i]);
    free(ax->categories);
    ax->categories = NULL;
    ax->n_categories = 0;
}

void
chart_free(struct chart *c)
{
    if (!c)
        return;
    for (int i = 0; i < c->n_panels; i++) {
        struct chart_panel *p = &c->panels[i];
        axis_release(&p->x);
        axis_release(&p->y);
        for (size_t j = 0; j < p->n_lines; j++) {
            free(p->lines[j].x);
            free(p->lines[j].y);
        }
        free(p->lines);
        free(p->points);
        free(p->bars);
        for (size_t j = 0; j < p->n_labels; j++)
            free(p->labels[j].text);
        free(p->labels);
        for (size_t j = 0; j < p->n_legend; j++)
            free(p->legend[j].text);
        free(p->legend);
    }
    free(c);
}

/* Grows *arr (of elements of `size`) to hold one more; returns the new slot or NULL. */
static void *
grow(void **arr, size_t *n, size_t *cap, size_t size)
{
    if (*n == *cap) {
        size_t nc = *cap ? *cap * 2 : 8;
        void *na = realloc(*arr, nc * size);
        if (!na) {
            alloc_note_failure();
            return NULL;
        }
        *arr = na;
        *cap = nc;
    }
    void *slot = (char *)*arr + *n * size;
    memset(slot, 0, size);
    (*n)++;
    return slot;
}

static char *
dup_text(const char *s)
{
    size_t n = strlen(s) + 1;
    char *d = malloc(n);
    if (d)
        memcpy(d, s, n);
    return d;
}

struct chart_panel *
chart_add_panel(struct chart *c)
{
    if (c->n_panels >= CHART_MAX_PANELS)
        return NULL;
    struct chart_panel *p = &c->panels[c->n_panels++];
    memset(p, 0, sizeof *p);
    chart_axis_set(&p->x, CHART_LINEAR, 0, 1, "", "");
    chart_axis_set(&p->y, CHART_LINEAR, 0, 1, "", "");
    return p;
}

void
chart_axis_set(struct chart_axis *ax, enum chart_scale scale, double min, double max,
               const char *title, const char *unit)
{
    ax->scale = scale;
    ax->min = min;
    ax->max = max;
    ax->sub_unit = false;
    snprintf(ax->title, sizeof ax->title, "%s", title ? title : "");
    snprintf(ax->unit, sizeof ax->unit, "%s", unit ? unit : "");
}

void
chart_axis_categories(struct chart *c, struct chart_axis *ax, const char *const *labels, int n)
{
    if (c->failed)
        return;
    axis_release(ax);
    ax->scale = CHART_CATEGORY;
    ax->min = -0.5;
    ax->max = n - 0.5;
    ax->categories = calloc(n > 0 ? (size_t)n : 1, sizeof *ax->categories);
    if (!ax->categories) {
        c->failed = true;
        return;
    }
    ax->n_categories = n;
    for (int i = 0; i < n; i++)
        if (!(ax->categories[i] = dup_text(labels[i])))
            c->failed = true;
}

static bool
shows(const struct chart_axis *ax, double v)
{
    return isfinite(v) && (ax->scale != CHART_LOG || v > 0);
}

int
chart_add_line(struct chart *c, struct chart_panel *p, const struct chart_style *s, const double *x,
               const double *y, size_t n)
{
    if (c->failed)
        return -1;
    double *xs = malloc((n ? n : 1) * sizeof *xs), *ys = malloc((n ? n : 1) * sizeof *ys);
    struct chart_line *l =
        xs && ys ? grow((void **)&p->lines, &p->n_lines, &p->cap_lines, sizeof *p->lines) : NULL;
    if (!l) {
        free(xs);
        free(ys);
        c->failed = true;
        return -1;
    }
    size_t k = 0;
    for (size_t i = 0; i < n; i++) {
        if (!shows(&p->x, x[i]) || !shows(&p->y, y[i]))
            continue;
        xs[k] = x[i];
        ys[k] = y[i];
        k++;
    }
    l->x = xs;
    l->y = ys;
    l->n = k;
    l->style = *s;
    return 0;
}

int
chart_add_point(struct chart *c, struct chart_panel *p, double x, double y,
                const struct chart_style *s)
{
    if (c->failed)
        return -1;
    if (!shows(&p->x, x) || !shows(&p->y, y))
        return 0;
    struct chart_point *pt =
        grow((void **)&p->points, &p->n_points, &p->cap_points, sizeof *p->points);
    if (!pt) {
        c->failed = true;
        return -1;
    }
    pt->x = x;
    pt->y = y;
    pt->style = *s;
    return 0;
}

int
chart_add_bar(struct chart *c, struct chart_panel *p, double category, double y0, double y1,
              double width, uint32_t rgb)
{
    if (c->failed)
        return -1;
    struct chart_bar *b = grow((void **)&p->bars, &p->n_bars, &p->cap_bars, sizeof *p->bars);
    if (!b) {
        c->failed = true;
        return -1;
    }
    b->category = category;
    b->y0 = y0;
    b->y1 = y1;
    b->width = width;
    b->rgb = rgb;
    return 0;
}

static const enum chart_dir AROUND[] = {CHART_E, CHART_NE, CHART_SE, CHART_N,
                                        CHART_S, CHART_W,  CHART_NW, CHART_SW};

struct chart_label *
chart_add_label(struct chart *c, struct chart_panel *p, const char *text, double x, double y,
                int priority, uint32_t rgb)
{
    if (c->failed)
        return NULL;
    char *t = dup_text(text);
    struct chart_label *l =
        t ? grow((void **)&p->labels, &p->n_labels, &p->cap_labels, sizeof *p->labels) : NULL;
    if (!l) {
        free(t);
        c->failed = true;
        return NULL;
    }
    l->text = t;
    l->ax[0] = x;
    l->ay[0] = y;
    l->n_anchors = 1;
    l->gap_px = 4;
    chart_label_dirs(l, AROUND, 8);
    l->rings = 2;
    l->rgb = rgb;
    l->priority = priority;
    return l;
}

void
chart_label_anchor(struct chart_label *l, double x, double y)
{
    if (!l || l->n_anchors >= CHART_MAX_ANCHORS)
        return;
    l->ax[l->n_anchors] = x;
    l->ay[l->n_anchors] = y;
    l->n_anchors++;
}

void
chart_label_dirs(struct chart_label *l, const enum chart_dir *dirs, int n)
{
    if (!l)
        return;
    if (n > 8)
        n = 8;
    for (int i = 0; i < n; i++)
        l->dirs[i] = dirs[i];
    l->n_dirs = n;
}

void
chart_label_leader(struct chart_label *l, double gap_px, int rings, bool bold)
{
    if (!l)
        return;
    l->gap_px = gap_px;
    l->rings = rings;
    l->bold = bold;
    l->leader = true;
}

int
chart_add_legend(struct chart *c, struct chart_panel *p, const char *text,
                 const struct chart_style *s, bool swatch_box)
{
    if (c->failed)
        return -1;
    char *t = dup_text(text);
    struct chart_legend_item *it =
        t ? grow((void **)&p->legend, &p->n_legend, &p->cap_legend, sizeof *p->legend) : NULL;
    if (!it) {
        free(t);
        c->failed = true;
        return -1;
    }
    it->text = t;
    it->style = *s;
    it->swatch_box = swatch_box;
    return 0;
}

/* ---- placement ---- */

void
chart_obstacles_init(struct chart_obstacles *o, struct chart_rect bounds)
{
    memset(o, 0, sizeof *o);
    o->bounds = bounds;
}

void
chart_obstacles_release(struct chart_obstacles *o)
{
    free(o->rects);
    free(o->segs);
    memset(o, 0, sizeof *o);
}

int
chart_obstacles_rect(struct chart_obstacles *o, struct chart_rect r)
{
    struct chart_rect *s = grow((void **)&o->rects, &o->n_rects, &o->cap_rects, sizeof *o->rects);
    if (!s)
        return -1;
    *s = r;
    return 0;
}

int
chart_obstacles_segment(struct chart_obstacles *o, double x0, double y0, double x1, double y1)
{
    if (!isfinite(x0) || !isfinite(y0) || !isfinite(x1) || !isfinite(y1))
        return 0;
    struct chart_segment *s = grow((void **)&o->segs, &o->n_segs, &o->cap_segs, sizeof *o->segs);
    if (!s)
        return -1;
    *s = (struct chart_segment){x0, y0, x1, y1};
    return 0;
}

bool
chart_rects_overlap(struct chart_rect a, struct chart_rect b)
{
    return a.x < b.x + b.w && b.x < a.x + a.w && a.y < b.y + b.h && b.y < a.y + a.h;
}

/* Liang-Barsky: does any part of the segment lie inside the rectangle? */
bool
chart_rect_hits_segment(struct chart_rect r, struct chart_segment s)
{
    double dx = s.x1 - s.x0, dy = s.y1 - s.y0;
    double p[4] = {-dx, dx, -dy, dy};
    double q[4] = {s.x0 - r.x, r.x + r.w - s.x0, s.y0 - r.y, r.y + r.h - s.y0};
    double t0 = 0, t1 = 1;
    for (int i = 0; i < 4; i++) {
        if (p[i] == 0) {
            if (q[i] < 0)
                return false;
            continue;
        }
        double t = q[i] / p[i];
        if (p[i] < 0) {
            if (t > t1)
                return false;
            if (t > t0)
                t0 = t;
        } else {
            if (t < t0)
                return false;
            if (t < t1)
                t1 = t;
        }
    }
    return t0 <= t1;
}

bool
chart_rect_free(const struct chart_obstacles *o, struct chart_rect r)
{
    const struct chart_rect *b = &o->bounds;
    if (r.x < b->x || r.y < b->y || r.x + r.w > b->x + b->w || r.y + r.h > b->y + b->h)
        return false;
    for (size_t i = 0; i < o->n_rects; i++)
        if (chart_rects_overlap(r, o->rects[i]))
            return false;
    for (size_t i = 0; i < o->n_segs; i++)
        if (chart_rect_hits_segment(r, o->segs[i]))
            return false;
    return true;
}

struct chart_rect
chart_label_box(double x, double y, double w, double h, double gap, enum chart_dir d)
{
    switch (d) {
    case CHART_E:
        return (struct chart_rect){x + gap, y - h / 2, w, h};
    case CHART_NE:
        return (struct chart_rect){x + gap, y - gap - h, w, h};
    case CHART_N:
        return (struct chart_rect){x - w / 2, y - gap - h, w, h};
    case CHART_NW:
        return (struct chart_rect){x - gap - w, y - gap - h, w, h};
    case CHART_W:
        return (struct chart_rect){x - gap - w, y - h / 2, w, h};
    case CHART_SW:
        return (struct chart_rect){x - gap - w, y + gap, w, h};
    case CHART_S:
        return (struct chart_rect){x - w / 2, y + gap, w, h};
    case CHART_SE:
        return (struct chart_rect){x + gap, y + gap, w, h};
    }
    return (struct chart_rect){x, y, w, h};
}

/* chart_rect_free, with r also kept `pad` pixels from the rects from pad_from on. */
static bool
rect_free_spaced(const struct chart_obstacles *o, struct chart_rect r, double pad)
{
    if (!chart_rect_free(o, r))
        return false;
    struct chart_rect big = {r.x - pad, r.y - pad, r.w + 2 * pad, r.h + 2 * pad};
    for (size_t i = o->pad_from; pad > 0 && i < o->n_rects; i++)
        if (chart_rects_overlap(big, o->rects[i]))
            return false;
    return true;
}

bool
chart_place(struct chart_obstacles *o, const struct chart_place_req *q, struct chart_rect *out,
            int *anchor_used, int *ring_used)
{
    const double *ax = q->ax, *ay = q->ay, w = q->w, h = q->h, gap = q->gap;
    const enum chart_dir *dirs = q->dirs;
    int n_anchors = q->n_anchors, n_dirs = q->n_dirs, rings = q->rings;
    if (rings < 1)
        rings = 1;
    for (int spaced = o->label_pad > 0 ? 1 : 0; spaced >= 0; spaced--)
        for (int ring = 0; ring < (spaced && rings > 3 ? 3 : rings); ring++) {
            double g = gap + ring * h * 0.9;
            for (int a = 0; a < n_anchors; a++) {
                if (!isfinite(ax[a]) || !isfinite(ay[a]))
                    continue;
                for (int d = 0; d < n_dirs; d++) {
                    struct chart_rect r = chart_label_box(ax[a], ay[a], w, h, g, dirs[d]);
                    if (!rect_free_spaced(o, r, spaced ? o->label_pad : 0))
                        continue;
                    bool crossed = false;
                    if (ring >= 1) {
                        struct chart_segment s = {ax[a], ay[a], fmax(r.x, fmin(ax[a], r.x + r.w)),
                                                  fmax(r.y, fmin(ay[a], r.y + r.h))};
                        for (size_t i = o->n_fixed; i < o->n_rects && !crossed; i++)
                            crossed = chart_rect_hits_segment(o->rects[i], s);
                    }
                    if (!crossed) {
                        *out = r;
                        if (anchor_used)
                            *anchor_used = a;
                        if (ring_used)
                            *ring_used = ring;
                        return chart_obstacles_rect(o, r) == 0;
                    }
                }
            }
        }
    return false;
}

int
chart_dodge(const double *c, const double *h, const int *priority, int n, double lo, double hi,
            double gap, double *top)
{
    int idx[256], k = 0;
    for (int i = 0; i < n; i++)
        top[i] = NAN;
    for (int i = 0; i < n && k < 256; i++)
        if (isfinite(c[i]))
            idx[k++] = i;
    for (;;) {
        double need = 0;
        for (int j = 0; j < k; j++)
            need += h[idx[j]] + (j ? gap : 0);
        if (need <= hi - lo || k == 0)
            break;
        int drop = 0; /* lowest priority, the later one on ties */
        for (int j = 1; j < k; j++)
            if (priority[idx[j]] <= priority[idx[drop]])
                drop = j;
        memmove(idx + drop, idx + drop + 1, (size_t)(k - drop - 1) * sizeof *idx);
        k--;
    }
    for (int j = 1; j < k; j++) /* by wanted centre, stable */
        for (int q = j; q > 0 && c[idx[q]] < c[idx[q - 1]]; q--) {
            int t = idx[q];
            idx[q] = idx[q - 1];
            idx[q - 1] = t;
        }
    double bottom = lo - gap;
    for (int j = 0; j < k; j++) {
        int i = idx[j];
        top[i] = fmax(fmax(c[i] - h[i] / 2, lo), bottom + gap);
        bottom = top[i] + h[i];
    }
    double limit = hi;
    for (int j = k - 1; j >= 0; j--) {
        int i = idx[j];
        if (top[i] + h[i] > limit)
            top[i] = limit - h[i];
        limit = top[i] - gap;
    }
    return k;
}

/* ---- layout ---- */

double
chart_px_x(const struct chart_panel *p, double x)
{
    return chart_map(&p->x, x, p->plot.x, p->plot.x + p->plot.w);
}

double
chart_px_y(const struct chart_panel *p, double y)
{
    return chart_map(&p->y, y, p->plot.y + p->plot.h, p->plot.y);
}

struct fonts {
    double base, tick, axis_title, panel_title, label, legend;
};

static double
style_marker_half(const struct chart_style *s, double scale)
{
    return s->marker == CHART_MARKER_NONE ? 0 : (s->marker_px / 2 + s->line_px / 2) * scale + 1;
}

/* Points, line segments, markers and bars of a panel as obstacles (pixels). */
static int
panel_obstacles(const struct chart_panel *p, double scale, struct chart_obstacles *o)
{
    int rc = 0;
    for (size_t i = 0; i < p->n_points; i++) {
        const struct chart_point *pt = &p->points[i];
        double x = chart_px_x(p, pt->x), y = chart_px_y(p, pt->y),
               r = style_marker_half(&pt->style, scale);
        if (isfinite(x) && isfinite(y))
            rc |= chart_obstacles_rect(o, (struct chart_rect){x - r, y - r, 2 * r, 2 * r});
    }
    for (size_t i = 0; i < p->n_lines; i++) {
        const struct chart_line *l = &p->lines[i];
        double r = style_marker_half(&l->style, scale);
        for (size_t j = 0; j < l->n; j++) {
            double x = chart_px_x(p, l->x[j]), y = chart_px_y(p, l->y[j]);
            if (r > 0 && isfinite(x) && isfinite(y))
                rc |= chart_obstacles_rect(o, (struct chart_rect){x - r, y - r, 2 * r, 2 * r});
            if (j > 0 && l->style.line_px > 0)
                rc |= chart_obstacles_segment(o, chart_px_x(p, l->x[j - 1]),
                                              chart_px_y(p, l->y[j - 1]), x, y);
            /* a thick horizontal or vertical stroke is a bar (tornado): its whole width
             * is taken, not only its centre line */
            double hw = l->style.line_px * scale / 2;
            if (j > 0 && l->style.line_px >= 6 && isfinite(x) && isfinite(y)) {
                double px0 = chart_px_x(p, l->x[j - 1]), py0 = chart_px_y(p, l->y[j - 1]);
                if (py0 == y && isfinite(px0))
                    rc |= chart_obstacles_rect(
                        o, (struct chart_rect){fmin(px0, x), y - hw, fabs(x - px0), 2 * hw});
                else if (px0 == x && isfinite(py0))
                    rc |= chart_obstacles_rect(
                        o, (struct chart_rect){x - hw, fmin(py0, y), 2 * hw, fabs(y - py0)});
            }
        }
    }
    for (size_t i = 0; i < p->n_bars; i++) {
        const struct chart_bar *b = &p->bars[i];
        double x0 = chart_px_x(p, b->category - b->width / 2);
        double x1 = chart_px_x(p, b->category + b->width / 2);
        double y0 = chart_px_y(p, b->y0), y1 = chart_px_y(p, b->y1);
        if (isfinite(x0) && isfinite(x1) && isfinite(y0) && isfinite(y1))
            rc |= chart_obstacles_rect(
                o, (struct chart_rect){fmin(x0, x1), fmin(y0, y1), fabs(x1 - x0), fabs(y1 - y0)});
    }
    return rc ? -1 : 0;
}

static void
legend_size(struct chart_panel *p, const struct fonts *f, double scale, chart_measure_fn measure,
            void *ctx, double *w, double *h)
{
    double sw = f->base * 2.2, pad = f->base * 0.5, tw = 0, y = pad * 0.8;
    p->legend_px = f->legend;
    for (size_t i = 0; i < p->n_legend; i++) {
        struct chart_legend_item *it = &p->legend[i];
        double iw, ih;
        measure(ctx, it->text, f->legend, false, &iw, &ih);
        double mh = it->style.marker != CHART_MARKER_NONE ? it->style.marker_px * scale : 0;
        double rh = fmax(ih, mh) + f->base * 0.2;
        it->row = (struct chart_rect){pad, y, sw + pad * 0.8 + iw, rh};
        if (iw > tw)
            tw = iw;
        y += rh;
    }
    *w = pad + sw + pad * 0.8 + tw + pad;
    *h = y + pad * 0.8;
}

static int
by_priority(const void *a, const void *b)
{
    const struct chart_label *const *x = a, *const *y = b;
    if ((*x)->priority != (*y)->priority)
        return (*x)->priority > (*y)->priority ? -1 : 1;
    return *x < *y ? -1 : *x > *y ? 1 : 0;
}

static void
thin_axis(struct chart_panel *p, struct chart_axis *ax, bool is_x, const struct fonts *f,
          chart_measure_fn measure, void *ctx)
{
    double pos[CHART_MAX_TICKS], size[CHART_MAX_TICKS];
    for (int i = 0; i < ax->n_ticks; i++) {
        double w = 0, h = 0;
        if (ax->ticks[i].major)
            measure(ctx, ax->ticks[i].label, f->tick, false, &w, &h);
        pos[i] = is_x ? chart_px_x(p, ax->ticks[i].value) : chart_px_y(p, ax->ticks[i].value);
        size[i] = is_x ? w : h;
    }
    chart_thin_ticks(ax->ticks, ax->n_ticks, pos, size, is_x ? f->base * 0.8 : f->base * 0.3);
}

/* Direct labels in the right margin: wanted at their anchor's height, dodged vertically, joined
 * to the plot edge by a leader. */
static void
place_margin_labels(struct chart_panel *p, const struct fonts *f, double leader_len,
                    chart_measure_fn measure, void *ctx)
{
    enum { MAXM = 128 };
    double c[MAXM] = {0}, h[MAXM] = {0}, w[MAXM] = {0}, top[MAXM];
    int pri[MAXM] = {0};
    struct chart_label *ls[MAXM];
    int n = 0;
    for (size_t i = 0; i < p->n_labels && n < MAXM; i++) {
        struct chart_label *l = &p->labels[i];
        if (!l->margin)
            continue;
        measure(ctx, l->text, f->label * (l->scale > 0 ? l->scale : 1), l->bold, &w[n], &h[n]);
        double y = chart_px_y(p, l->ay[0]);
        c[n] = y >= p->plot.y - 0.5 && y <= p->plot.y + p->plot.h + 0.5 ? y : NAN;
        pri[n] = l->priority;
        ls[n++] = l;
    }
    chart_dodge(c, h, pri, n, p->plot.y, p->plot.y + p->plot.h, f->base * 0.1, top);
    double x = p->plot.x + p->plot.w + leader_len;
    for (int i = 0; i < n; i++) {
        struct chart_label *l = ls[i];
        l->shown = isfinite(top[i]);
        if (!l->shown)
            continue;
        l->box = (struct chart_rect){x, top[i], w[i] + 2 * f->base * 0.15, h[i]};
        l->has_leader = true;
        l->lx0 = p->plot.x + p->plot.w + 2;
        l->ly0 = c[i];
        l->lx1 = x - 1;
        l->ly1 = top[i] + h[i] / 2;
    }
}

static double
margin_width(struct chart_panel *p, const struct fonts *f, double leader_len,
             chart_measure_fn measure, void *ctx)
{
    double mw = 0, w, h;
    for (size_t i = 0; i < p->n_labels; i++) {
        struct chart_label *l = &p->labels[i];
        if (!l->margin)
            continue;
        measure(ctx, l->text, f->label * (l->scale > 0 ? l->scale : 1), l->bold, &w, &h);
        mw = fmax(mw, w + 2 * f->base * 0.15 + leader_len + f->base * 0.2);
    }
    return mw;
}

/* Lays one panel out in its cell. force_left / force_right (> 0) move the plot's left edge right
 * and its right edge left, to line up panels of a column. */
static int
layout_panel(struct chart *c, struct chart_panel *p, const struct fonts *f,
             chart_measure_fn measure, void *ctx, double force_left, double force_right)
{
    if (chart_axis_ticks(&p->x) == 0 || chart_axis_ticks(&p->y) == 0)
        return -1;
    double ylab_w = 0, ylab_h = 0, xlab_h = 0, xlast_w = 0, w, h;
    for (int i = 0; i < p->y.n_ticks; i++) {
        if (!p->y.ticks[i].major)
            continue;
        measure(ctx, p->y.ticks[i].label, f->tick, false, &w, &h);
        ylab_w = fmax(ylab_w, w);
        ylab_h = fmax(ylab_h, h);
    }
    for (int i = 0; i < p->x.n_ticks; i++) {
        if (!p->x.ticks[i].major)
            continue;
        measure(ctx, p->x.ticks[i].label, f->tick, false, &w, &h);
        xlab_h = fmax(xlab_h, h);
        xlast_w = w;
    }
    double yth = 0, xth = 0, pth = 0;
    if (p->y.title[0])
        measure(ctx, p->y.title, f->axis_title, false, &w, &yth);
    if (p->x.title[0])
        measure(ctx, p->x.title, f->axis_title, false, &w, &xth);
    if (p->title[0])
        measure(ctx, p->title, f->panel_title, true, &w, &pth);
    double tick_len = f->base * 0.35, leader_len = f->base * 1.2;
    double margin_w = margin_width(p, f, leader_len, measure, ctx);
    struct chart_rect cell = p->cell;
    double left = cell.x + (yth > 0 ? yth + f->base * 0.5 : 0) + ylab_w + tick_len + f->base * 0.3;
    double top = cell.y + fmax(pth > 0 ? pth + f->base * 0.4 : 0, ylab_h / 2 + 2);
    double bottom = cell.y + cell.h -
                    (tick_len + f->base * 0.25 + xlab_h + (xth > 0 ? f->base * 0.35 + xth : 0));
    double right = cell.x + cell.w - fmax(margin_w, fmax(f->base * 0.6, xlast_w / 2 + 2));
    if (force_left > left)
        left = force_left;
    double natural_right = right;
    if (force_right > 0 && force_right < right)
        right = force_right;
    double outside_w = 0, lw = 0, lh = 0;
    if (p->n_legend)
        legend_size(p, f, c->scale, measure, ctx, &lw, &lh);
    p->legend_shown = false;
    if (p->n_legend && p->legend_below)
        bottom -= lh + f->base * 0.5;
    struct chart_obstacles o;
    size_t legend_rect = SIZE_MAX; /* the legend's index among o's rects when it is inside */
    for (int pass = 0; pass < 2; pass++) {
        double r = outside_w > 0 ? fmin(right, natural_right - outside_w) : right;
        p->plot = (struct chart_rect){left, top, r - left, bottom - top};
        if (p->plot.w < 40 || p->plot.h < 30)
            return -1;
        chart_axis_ticks(&p->x);
        chart_axis_ticks(&p->y);
        thin_axis(p, &p->x, true, f, measure, ctx);
        thin_axis(p, &p->y, false, f, measure, ctx);
        double in = 2;
        chart_obstacles_init(&o, (struct chart_rect){p->plot.x + in, p->plot.y + in,
                                                     p->plot.w - 2 * in, p->plot.h - 2 * in});
        if (panel_obstacles(p, c->scale, &o) != 0) {
            chart_obstacles_release(&o);
            c->failed = true;
            return -1;
        }
        if (!p->n_legend)
            break;
        if (p->legend_below) {
            p->legend_box =
                (struct chart_rect){p->plot.x + (p->plot.w - lw) / 2, cell.y + cell.h - lh, lw, lh};
            p->legend_shown = true;
            break;
        }
        if (outside_w > 0) {
            p->legend_box = (struct chart_rect){p->plot.x + p->plot.w + margin_w + f->base * 0.8,
                                                p->plot.y, lw, lh};
            p->legend_shown = true;
            break;
        }
        double m = f->base * 0.6, X = p->plot.x, Y = p->plot.y, W = p->plot.w, H = p->plot.h;
        const double cand[][2] = {
            {X + W - m - lw, Y + m},
            {X + m, Y + m},
            {X + W - m - lw, Y + H - m - lh},
            {X + m, Y + H - m - lh},
            {X + (W - lw) / 2, Y + m},
            {X + (W - lw) / 2, Y + H - m - lh},
            {X + W - m - lw, Y + (H - lh) / 2},
            {X + m, Y + (H - lh) / 2},
        };
        for (size_t j = 0; j < ARRAY_SIZE(cand); j++) {
            size_t k = p->legend_left && j < 2 ? 1 - j : j;
            struct chart_rect rr = {cand[k][0], cand[k][1], lw, lh};
            if (chart_rect_free(&o, rr)) {
                p->legend_box = rr;
                p->legend_shown = true;
                break;
            }
        }
        if (p->legend_shown) {
            legend_rect = o.n_rects;
            chart_obstacles_rect(&o, p->legend_box);
            break;
        }
        chart_obstacles_release(&o);
        outside_w = lw + f->base * 1.2;
    }
    o.n_fixed = o.n_rects;
    o.label_pad = f->label * 0.9;
    o.pad_from = legend_rect < o.n_rects ? legend_rect : o.n_fixed;
    place_margin_labels(p, f, leader_len, measure, ctx);
    /* labels inside the plot, most important first */
    struct chart_label **order = malloc((p->n_labels ? p->n_labels : 1) * sizeof *order);
    if (!order) {
        alloc_note_failure();
        chart_obstacles_release(&o);
        c->failed = true;
        return -1;
    }
    size_t n = 0;
    for (size_t i = 0; i < p->n_labels; i++)
        if (!p->labels[i].margin)
            order[n++] = &p->labels[i];
    qsort(order, n, sizeof *order, by_priority);
    for (size_t i = 0; i < n; i++) {
        struct chart_label *l = order[i];
        double tw, th, ax[CHART_MAX_ANCHORS], ay[CHART_MAX_ANCHORS];
        double px = f->label * (l->scale > 0 ? l->scale : 1);
        measure(ctx, l->text, px, l->bold, &tw, &th);
        for (int a = 0; a < l->n_anchors; a++) {
            ax[a] = chart_px_x(p, l->ax[a]);
            ay[a] = chart_px_y(p, l->ay[a]);
        }
        double padx = f->base * 0.15, gap = l->gap_px * c->scale;
        int rings = l->leader ? (l->rings > 2 ? l->rings : 2) : (l->rings > 2 ? 2 : l->rings);
        int au = 0, ru = 0;
        l->has_leader = false;
        struct chart_place_req req = {.ax = ax,
                                      .ay = ay,
                                      .n_anchors = l->n_anchors,
                                      .w = tw + 2 * padx,
                                      .h = th,
                                      .gap = gap,
                                      .dirs = l->dirs,
                                      .n_dirs = l->n_dirs,
                                      .rings = rings};
        l->shown = chart_place(&o, &req, &l->box, &au, &ru);
        if (l->shown && ru >= 1) {
            /* from the marker's edge to the nearest point of the box, when that is far */
            double x1 = fmax(l->box.x, fmin(ax[au], l->box.x + l->box.w));
            double y1 = fmax(l->box.y, fmin(ay[au], l->box.y + l->box.h));
            double dx = x1 - ax[au], dy = y1 - ay[au], d = hypot(dx, dy);
            double r0 = fmax(0, gap - 3 * c->scale);
            if (d > gap + th * 0.6 && (l->leader || ru >= 2)) {
                l->has_leader = true;
                l->lx0 = ax[au] + dx / d * r0;
                l->ly0 = ay[au] + dy / d * r0;
                l->lx1 = x1;
                l->ly1 = y1;
            }
        }
    }
    free(order);
    chart_obstacles_release(&o);
    return 0;
}

int
chart_layout(struct chart *c, double width, double height, chart_measure_fn measure, void *ctx)
{
    if (c->failed || !(width >= 200) || !(height >= 150) || c->n_panels < 1)
        return -1;
    c->width = width;
    c->height = height;
    double base = fmin(width / 76.0, height / 47.5);
    base = fmax(8.0, fmin(base, 48.0));
    c->font_px = base;
    c->scale = base / 21.0;
    struct fonts f = {base, base * 0.85, base * 0.95, base * 1.0, base * 0.82, base * 0.8};
    double pad = base * 0.8, avail = width - 2 * pad, w, h;

    c->title_px = base * 1.3;
    measure(ctx, c->title, c->title_px, true, &w, &h);
    if (w > avail && w > 0) {
        c->title_px = fmax(base * 0.8, c->title_px * avail / w);
        measure(ctx, c->title, c->title_px, true, &w, &h);
    }
    c->title_box = (struct chart_rect){pad, pad * 0.8, w, h};
    double y = c->title_box.y + h + base * 0.15;
    c->subtitle_px = base * 0.88;
    if (c->subtitle[0]) {
        measure(ctx, c->subtitle, c->subtitle_px, false, &w, &h);
        if (w > avail && w > 0) {
            c->subtitle_px = fmax(base * 0.6, c->subtitle_px * avail / w);
            measure(ctx, c->subtitle, c->subtitle_px, false, &w, &h);
        }
        c->subtitle_box = (struct chart_rect){pad, y, w, h};
        y += h;
    }
    y += base * 0.7;
    double bottom = height - pad * 0.6;
    c->footnote_px = base * 0.75;
    if (c->footnote[0]) {
        measure(ctx, c->footnote, c->footnote_px, false, &w, &h);
        if (w > avail && w > 0) {
            c->footnote_px = fmax(base * 0.55, c->footnote_px * avail / w);
            measure(ctx, c->footnote, c->footnote_px, false, &w, &h);
        }
        c->footnote_box = (struct chart_rect){pad, bottom - h, w, h};
        bottom -= h + base * 0.5;
    }
    int cols = c->cols >= 1 ? c->cols : 1;
    int rows = (c->n_panels + cols - 1) / cols;
    double gap_x = base * 1.6, gap_y = base * 1.2;
    double cw = (avail - (cols - 1) * gap_x) / cols, ch = (bottom - y - (rows - 1) * gap_y) / rows;
    if (cw < 60 || ch < 60)
        return -1;
    for (int i = 0; i < c->n_panels; i++) {
        struct chart_panel *p = &c->panels[i];
        int r = i / cols, k = i % cols;
        p->cell = (struct chart_rect){pad + k * (cw + gap_x), y + r * (ch + gap_y), cw, ch};
        if (layout_panel(c, p, &f, measure, ctx, 0, 0) != 0)
            return -1;
    }
    /* panels stacked in a column share their plot's left and right edges */
    for (int k = 0; k < cols && rows > 1; k++) {
        for (int iter = 0; iter < 3; iter++) {
            double L = 0, R = INFINITY;
            for (int i = k; i < c->n_panels; i += cols) {
                L = fmax(L, c->panels[i].plot.x);
                R = fmin(R, c->panels[i].plot.x + c->panels[i].plot.w);
            }
            bool aligned = true;
            for (int i = k; i < c->n_panels; i += cols)
                aligned &= fabs(c->panels[i].plot.x - L) < 0.5 &&
                           fabs(c->panels[i].plot.x + c->panels[i].plot.w - R) < 0.5;
            if (aligned)
                break;
            for (int i = k; i < c->n_panels; i += cols)
                if (layout_panel(c, &c->panels[i], &f, measure, ctx, L, R) != 0)
                    return -1;
        }
    }
    return c->failed ? -1 : 0;
}

struct chart_style
chart_line_style(uint32_t rgb, double px, enum chart_dash dash)
{
    struct chart_style s = {0};
    s.rgb = rgb;
    s.line_px = px;
    s.dash = dash;
    s.alpha = 1;
    return s;
}

struct chart_style
chart_marker_style(enum chart_marker m, double px, uint32_t stroke, double stroke_px, uint32_t fill,
                   double fill_alpha)
{
    struct chart_style s = {0};
    s.marker = m;
    s.marker_px = px;
    s.rgb = stroke;
    s.line_px = stroke_px;
    s.filled = fill_alpha > 0;
    s.fill_rgb = fill;
    s.fill_alpha = fill_alpha;
    s.alpha = 1;
    return s;
}

void
chart_note(struct chart *c, const char *text)
{
    size_t l = strlen(c->footnote);
    snprintf(c->footnote + l, sizeof c->footnote - l, "%s%s", l ? "\n" : "", text);
}
