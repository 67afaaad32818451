/* Draws a laid-out chart model on a cairo_t: grid, bars, lines, points, labels, legend, axes and
 * titles. Text goes through Pango with hinting off so that output is stable across machines. */
#include "render/draw.h"
#include "util/alloc.h"

#include <math.h>
#include <pango/pangocairo.h>
#include <stdlib.h>
#include <string.h>

#define FONT_FAMILY "DejaVu Sans"
#define PI 3.14159265358979323846

struct text {
    cairo_t *cr;
    PangoContext *pc;
    PangoLayout *layout;
    PangoFontDescription *desc;
};

static void
text_set(struct text *t, const char *s, double px, bool bold)
{
    pango_font_description_set_absolute_size(t->desc, px * PANGO_SCALE);
    pango_font_description_set_weight(t->desc, bold ? PANGO_WEIGHT_BOLD : PANGO_WEIGHT_NORMAL);
    pango_layout_set_font_description(t->layout, t->desc);
    pango_layout_set_text(t->layout, s, -1);
}

static void
measure(void *ctx, const char *s, double px, bool bold, double *w, double *h)
{
    struct text *t = ctx;
    PangoRectangle logical;
    text_set(t, s, px, bold);
    pango_layout_get_extents(t->layout, NULL, &logical);
    *w = (double)logical.width / PANGO_SCALE;
    *h = (double)logical.height / PANGO_SCALE;
}

static void
set_rgb(cairo_t *cr, uint32_t rgb, double alpha)
{
    cairo_set_source_rgba(cr, ((rgb >> 16) & 0xff) / 255.0, ((rgb >> 8) & 0xff) / 255.0,
                          (rgb & 0xff) / 255.0, alpha > 0 ? alpha : 1.0);
}

/* Text with its logical box's top-left at (x, y); `align` 0 left, 0.5 centre, 1 right of x. */
static void
show(struct text *t, const char *s, double px, bool bold, uint32_t rgb, double x, double y,
     double align)
{
    double w, h;
    measure(t, s, px, bold, &w, &h);
    pango_layout_set_alignment(t->layout, align >= 0.75   ? PANGO_ALIGN_RIGHT
                                          : align >= 0.25 ? PANGO_ALIGN_CENTER
                                                          : PANGO_ALIGN_LEFT);
    set_rgb(t->cr, rgb, 1);
    cairo_move_to(t->cr, x - align * w, y);
    pango_cairo_update_layout(t->cr, t->layout);
    pango_cairo_show_layout(t->cr, t->layout);
    pango_layout_set_alignment(t->layout, PANGO_ALIGN_LEFT);
}

static void
set_dash(cairo_t *cr, enum chart_dash d, double lw)
{
    double u = lw > 1 ? lw : 1;
    double dashed[] = {6 * u, 4 * u}, dotted[] = {1.2 * u, 3 * u},
           dashdot[] = {7 * u, 3 * u, 1.5 * u, 3 * u};
    switch (d) {
    case CHART_SOLID:
        cairo_set_dash(cr, NULL, 0, 0);
        break;
    case CHART_DASHED:
        cairo_set_dash(cr, dashed, 2, 0);
        break;
    case CHART_DOTTED:
        cairo_set_dash(cr, dotted, 2, 0);
        break;
    case CHART_DASHDOT:
        cairo_set_dash(cr, dashdot, 4, 0);
        break;
    }
}

static void
marker_path(cairo_t *cr, enum chart_marker m, double x, double y, double d)
{
    double r = d / 2;
    switch (m) {
    case CHART_MARKER_NONE:
        break;
    case CHART_MARKER_CIRCLE:
        cairo_new_sub_path(cr);
        cairo_arc(cr, x, y, r, 0, 2 * PI);
        break;
    case CHART_MARKER_SQUARE:
        r *= 0.886; /* same area as the circle */
        cairo_rectangle(cr, x - r, y - r, 2 * r, 2 * r);
        break;
    case CHART_MARKER_TRIANGLE:
    case CHART_MARKER_DOWN: {
        double s = m == CHART_MARKER_TRIANGLE ? 1 : -1;
        r *= 1.2;
        cairo_move_to(cr, x, y - s * r);
        cairo_line_to(cr, x + r * 0.866, y + s * r * 0.5);
        cairo_line_to(cr, x - r * 0.866, y + s * r * 0.5);
        cairo_close_path(cr);
        break;
    }
    case CHART_MARKER_DIAMOND:
        r *= 1.1;
        cairo_move_to(cr, x, y - r);
        cairo_line_to(cr, x + r, y);
        cairo_line_to(cr, x, y + r);
        cairo_line_to(cr, x - r, y);
        cairo_close_path(cr);
        break;
    case CHART_MARKER_CROSS:
        r *= 0.75;
        cairo_move_to(cr, x - r, y - r);
        cairo_line_to(cr, x + r, y + r);
        cairo_move_to(cr, x - r, y + r);
        cairo_line_to(cr, x + r, y - r);
        break;
    case CHART_MARKER_PLUS:
        cairo_move_to(cr, x - r, y);
        cairo_line_to(cr, x + r, y);
        cairo_move_to(cr, x, y - r);
        cairo_line_to(cr, x, y + r);
        break;
    }
}

static void
draw_marker(cairo_t *cr, const struct chart_style *s, double scale, double x, double y)
{
    if (s->marker == CHART_MARKER_NONE || !isfinite(x) || !isfinite(y))
        return;
    bool open = s->marker == CHART_MARKER_CROSS || s->marker == CHART_MARKER_PLUS;
    cairo_new_path(cr);
    marker_path(cr, s->marker, x, y, s->marker_px * scale);
    cairo_set_dash(cr, NULL, 0, 0);
    if (s->filled && !open) {
        set_rgb(cr, s->fill_rgb, s->fill_alpha);
        cairo_fill_preserve(cr);
    }
    if (s->line_px > 0) {
        set_rgb(cr, s->rgb, 1);
        cairo_set_line_width(cr, s->line_px * scale);
        cairo_stroke(cr);
    }
    cairo_new_path(cr);
}

static void
draw_line(cairo_t *cr, const struct chart_panel *p, const struct chart_line *l, double scale)
{
    const struct chart_style *s = &l->style;
    if (s->line_px > 0 && l->n >= 2) {
        cairo_new_path(cr);
        bool pen = false;
        for (size_t i = 0; i < l->n; i++) {
            double x = chart_px_x(p, l->x[i]), y = chart_px_y(p, l->y[i]);
            if (!isfinite(x) || !isfinite(y)) {
                pen = false;
                continue;
            }
            if (pen)
                cairo_line_to(cr, x, y);
            else
                cairo_move_to(cr, x, y);
            pen = true;
        }
        set_rgb(cr, s->rgb, s->alpha);
        cairo_set_line_width(cr, s->line_px * scale);
        cairo_set_line_join(cr, CAIRO_LINE_JOIN_ROUND);
        cairo_set_line_cap(cr,
                           s->dash == CHART_DOTTED ? CAIRO_LINE_CAP_ROUND : CAIRO_LINE_CAP_BUTT);
        set_dash(cr, s->dash, s->line_px * scale);
        cairo_stroke(cr);
        cairo_set_dash(cr, NULL, 0, 0);
        if (s->arrow) {
            double x0 = chart_px_x(p, l->x[l->n - 2]), y0 = chart_px_y(p, l->y[l->n - 2]);
            double x1 = chart_px_x(p, l->x[l->n - 1]), y1 = chart_px_y(p, l->y[l->n - 1]);
            double a = atan2(y1 - y0, x1 - x0), len = (5 + 3 * s->line_px) * scale;
            if (isfinite(a) && (x1 != x0 || y1 != y0)) {
                cairo_move_to(cr, x1, y1);
                cairo_line_to(cr, x1 - len * cos(a - 0.4), y1 - len * sin(a - 0.4));
                cairo_line_to(cr, x1 - len * cos(a + 0.4), y1 - len * sin(a + 0.4));
                cairo_close_path(cr);
                set_rgb(cr, s->rgb, s->alpha);
                cairo_fill(cr);
            }
        }
    }
    for (size_t i = 0; i < l->n; i++)
        draw_marker(cr, s, scale, chart_px_x(p, l->x[i]), chart_px_y(p, l->y[i]));
}

static int
by_size(const void *a, const void *b)
{
    const struct chart_point *const *x = a, *const *y = b;
    double da = (*x)->style.marker_px, db = (*y)->style.marker_px;
    if (da != db)
        return da > db ? -1 : 1;
    return *x < *y ? -1 : *x > *y ? 1 : 0;
}

static void
draw_legend(struct text *t, const struct chart *c, const struct chart_panel *p)
{
    cairo_t *cr = t->cr;
    const struct chart_rect *b = &p->legend_box;
    double u = c->scale;
    cairo_rectangle(cr, b->x, b->y, b->w, b->h);
    set_rgb(cr, 0xFFFFFF, 0.92);
    cairo_fill_preserve(cr);
    set_rgb(cr, 0xBBBBBB, 1);
    cairo_set_line_width(cr, fmax(1, u));
    cairo_stroke(cr);
    for (size_t i = 0; i < p->n_legend; i++) {
        const struct chart_legend_item *it = &p->legend[i];
        double x = b->x + it->row.x, y = b->y + it->row.y, cy = y + it->row.h / 2;
        double sw = c->font_px * 2.2;
        const struct chart_style *s = &it->style;
        if (it->swatch_box) {
            double d = fmin(it->row.h * 0.75, sw);
            cairo_rectangle(cr, x + (sw - d) / 2, cy - d / 2, d, d);
            set_rgb(cr, s->fill_rgb, s->fill_alpha);
            cairo_fill(cr);
        } else {
            if (s->line_px > 0) {
                cairo_move_to(cr, x, cy);
                cairo_line_to(cr, x + sw, cy);
                set_rgb(cr, s->rgb, s->alpha);
                cairo_set_line_width(cr, s->line_px * u);
                set_dash(cr, s->dash, s->line_px * u);
                cairo_stroke(cr);
                cairo_set_dash(cr, NULL, 0, 0);
            }
            draw_marker(cr, s, u, x + sw / 2, cy);
        }
        double tw, th;
        measure(t, it->text, p->legend_px, false, &tw, &th);
        show(t, it->text, p->legend_px, false, 0x222222, x + sw + c->font_px * 0.4, cy - th / 2, 0);
    }
}

static void
draw_panel(struct text *t, const struct chart *c, const struct chart_panel *p)
{
    cairo_t *cr = t->cr;
    const struct chart_rect *r = &p->plot;
    double f = c->font_px, u = c->scale, tick_len = f * 0.35, tick_px = f * 0.85;
    double hair = fmax(1.0, u);

    /* grid */
    cairo_save(cr);
    cairo_rectangle(cr, r->x, r->y, r->w, r->h);
    cairo_clip(cr);
    cairo_set_line_width(cr, hair);
    for (int pass = 0; pass < 2; pass++) {
        const struct chart_axis *ax = pass == 0 ? &p->x : &p->y;
        if (ax->scale == CHART_CATEGORY)
            continue;
        for (int i = 0; i < ax->n_ticks; i++) {
            const struct chart_tick *tk = &ax->ticks[i];
            double v = pass == 0 ? chart_px_x(p, tk->value) : chart_px_y(p, tk->value);
            if (!isfinite(v))
                continue;
            v = floor(v) + 0.5;
            if (pass == 0) {
                cairo_move_to(cr, v, r->y);
                cairo_line_to(cr, v, r->y + r->h);
            } else {
                cairo_move_to(cr, r->x, v);
                cairo_line_to(cr, r->x + r->w, v);
            }
            set_rgb(cr, tk->major ? 0xDCDCDC : 0xF0F0F0, 1);
            cairo_stroke(cr);
        }
    }
    /* bars, lines, points */
    for (size_t i = 0; i < p->n_bars; i++) {
        const struct chart_bar *b = &p->bars[i];
        double x0 = chart_px_x(p, b->category - b->width / 2);
        double x1 = chart_px_x(p, b->category + b->width / 2);
        double y0 = chart_px_y(p, b->y0), y1 = chart_px_y(p, b->y1);
        if (!isfinite(x0) || !isfinite(x1) || !isfinite(y0) || !isfinite(y1))
            continue;
        cairo_rectangle(cr, x0, fmin(y0, y1), x1 - x0, fabs(y1 - y0));
        set_rgb(cr, b->rgb, 1);
        cairo_fill_preserve(cr);
        set_rgb(cr, 0xFFFFFF, 1);
        cairo_set_line_width(cr, hair);
        cairo_stroke(cr);
    }
    for (size_t i = 0; i < p->n_lines; i++)
        draw_line(cr, p, &p->lines[i], u);
    const struct chart_point **pts = malloc((p->n_points ? p->n_points : 1) * sizeof *pts);
    if (pts) {
        for (size_t i = 0; i < p->n_points; i++)
            pts[i] = &p->points[i];
        qsort(pts, p->n_points, sizeof *pts, by_size);
        for (size_t i = 0; i < p->n_points; i++)
            draw_marker(cr, &pts[i]->style, u, chart_px_x(p, pts[i]->x), chart_px_y(p, pts[i]->y));
        free(pts);
    } else {
        alloc_note_failure();
    }
    cairo_restore(cr);

    /* labels (with their leader lines) and legend */
    for (size_t i = 0; i < p->n_labels; i++) {
        const struct chart_label *l = &p->labels[i];
        if (!l->shown)
            continue;
        if (l->has_leader) {
            cairo_move_to(cr, l->lx0, l->ly0);
            cairo_line_to(cr, l->lx1, l->ly1);
            set_rgb(cr, l->rgb, 0.7);
            cairo_set_line_width(cr, hair);
            cairo_stroke(cr);
        }
        double px = f * 0.82 * (l->scale > 0 ? l->scale : 1);
        show(t, l->text, px, l->bold, l->rgb, l->box.x + f * 0.15, l->box.y, 0);
    }
    if (p->legend_shown)
        draw_legend(t, c, p);

    /* frame, ticks, tick labels */
    cairo_rectangle(cr, floor(r->x) + 0.5, floor(r->y) + 0.5, floor(r->w), floor(r->h));
    set_rgb(cr, 0x555555, 1);
    cairo_set_line_width(cr, hair);
    cairo_stroke(cr);
    double xlab_h = 0;
    for (int i = 0; i < p->x.n_ticks; i++) {
        const struct chart_tick *tk = &p->x.ticks[i];
        double x = chart_px_x(p, tk->value);
        if (!isfinite(x))
            continue;
        double len = tk->major ? tick_len : tick_len * 0.55;
        cairo_move_to(cr, floor(x) + 0.5, r->y + r->h);
        cairo_line_to(cr, floor(x) + 0.5, r->y + r->h + len);
        set_rgb(cr, 0x555555, 1);
        cairo_stroke(cr);
        if (tk->labelled && tk->label[0]) {
            double w, h;
            measure(t, tk->label, tick_px, false, &w, &h);
            xlab_h = fmax(xlab_h, h);
            show(t, tk->label, tick_px, false, 0x333333, x, r->y + r->h + tick_len + f * 0.2, 0.5);
        }
    }
    double ylab_w = 0;
    for (int i = 0; i < p->y.n_ticks; i++) {
        const struct chart_tick *tk = &p->y.ticks[i];
        double y = chart_px_y(p, tk->value);
        if (!isfinite(y))
            continue;
        double len = tk->major ? tick_len : tick_len * 0.55;
        cairo_move_to(cr, r->x, floor(y) + 0.5);
        cairo_line_to(cr, r->x - len, floor(y) + 0.5);
        set_rgb(cr, 0x555555, 1);
        cairo_stroke(cr);
        if (tk->labelled && tk->label[0]) {
            double w, h;
            measure(t, tk->label, tick_px, false, &w, &h);
            ylab_w = fmax(ylab_w, w);
            show(t, tk->label, tick_px, false, 0x333333, r->x - tick_len - f * 0.25, y - h / 2, 1);
        }
    }
    /* axis titles and panel title */
    double w, h;
    if (p->x.title[0]) {
        measure(t, p->x.title, f * 0.95, false, &w, &h);
        show(t, p->x.title, f * 0.95, false, 0x222222, r->x + r->w / 2,
             r->y + r->h + tick_len + f * 0.25 + xlab_h + f * 0.3, 0.5);
    }
    if (p->y.title[0]) {
        measure(t, p->y.title, f * 0.95, false, &w, &h);
        cairo_save(cr);
        cairo_translate(cr, p->cell.x, r->y + r->h / 2 + w / 2);
        cairo_rotate(cr, -PI / 2);
        show(t, p->y.title, f * 0.95, false, 0x222222, 0, 0, 0);
        cairo_restore(cr);
        pango_cairo_update_layout(cr, t->layout);
    }
    if (p->title[0]) {
        measure(t, p->title, f, true, &w, &h);
        show(t, p->title, f, true, 0x222222, r->x, r->y - h - f * 0.3, 0);
    }
}

int
chart_draw(struct chart *c, cairo_t *cr, double width, double height)
{
    struct text t = {cr, NULL, NULL, NULL};
    t.pc = pango_cairo_create_context(cr);
    cairo_font_options_t *fo = cairo_font_options_create();
    /* unhinted outlines: the same glyph positions on every machine and surface */
    cairo_font_options_set_hint_style(fo, CAIRO_HINT_STYLE_NONE);
    cairo_font_options_set_hint_metrics(fo, CAIRO_HINT_METRICS_OFF);
    cairo_font_options_set_antialias(fo, CAIRO_ANTIALIAS_GRAY);
    pango_cairo_context_set_font_options(t.pc, fo);
    cairo_font_options_destroy(fo);
    t.layout = pango_layout_new(t.pc);
    t.desc = pango_font_description_from_string(FONT_FAMILY);
    int rc = -1;
    if (t.layout && t.desc && chart_layout(c, width, height, measure, &t) == 0) {
        cairo_save(cr);
        cairo_rectangle(cr, 0, 0, width, height);
        set_rgb(cr, 0xFFFFFF, 1);
        cairo_fill(cr);
        cairo_set_line_cap(cr, CAIRO_LINE_CAP_BUTT);
        for (int i = 0; i < c->n_panels; i++)
            draw_panel(&t, c, &c->panels[i]);
        show(&t, c->title, c->title_px, true, 0x111111, c->title_box.x, c->title_box.y, 0);
        if (c->subtitle[0])
            show(&t, c->subtitle, c->subtitle_px, false, 0x444444, c->subtitle_box.x,
                 c->subtitle_box.y, 0);
        if (c->footnote[0])
            show(&t, c->footnote, c->footnote_px, false, 0x555555, c->footnote_box.x,
                 c->footnote_box.y, 0);
        cairo_restore(cr);
        rc = 0;
    }
    if (t.desc)
        pango_font_description_free(t.desc);
    if (t.layout)
        g_object_unref(t.layout);
    g_object_unref(t.pc);
    if (cairo_status(cr) != CAIRO_STATUS_SUCCESS)
        rc = -1;
    return rc;
}
