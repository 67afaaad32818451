/* Chart model without Cairo: engineering labels, ranges, log mapping, decade ticks, tick
 * thinning, collision tests, label placement and whole layouts with a fake fixed-width font;
 * then the chart builders' invariants and the measured-points loader. */
#include "test.h"

#include "core/hw.h"
#include "core/model.h"
#include "core/roof.h"
#include "render/chart.h"
#include "render/charts.h"
#include "render/surface.h"
#include "util/array.h"

#include <stdlib.h>
#include <unistd.h>

/* Fake font: every character 0.6 em wide, lines 1.2 em high. */
static void
fake_measure(void *ctx, const char *text, double px, bool bold, double *w, double *h)
{
    (void)ctx;
    (void)bold;
    size_t longest = 0, cur = 0, lines = 1;
    for (const char *p = text; *p; p++) {
        if (*p == '\n') {
            lines++;
            cur = 0;
            continue;
        }
        if (((unsigned char)*p & 0xC0) != 0x80) /* count UTF-8 characters */
            cur++;
        if (cur > longest)
            longest = cur;
    }
    *w = 0.6 * px * (double)longest;
    *h = 1.2 * px * (double)lines;
}

TEST(chart_format_si)
{
    static const struct {
        double v;
        const char *unit;
        bool sub;
        const char *want;
    } cases[] = {
        {1e12, "", false, "1 T"},
        {1e13, "", false, "10 T"},
        {1e14, "", false, "100 T"},
        {1e15, "", false, "1 P"},
        {0.1, "", false, "0.1"},
        {0.01, "", false, "0.01"},
        {1, "", false, "1"},
        {100, "", false, "100"},
        {1000, "", false, "1 k"},
        {999.7, "", false, "1 k"},
        {295.34, "", false, "295"},
        {0, "B", false, "0"},
        {3.35e12, "B/s", false, "3.35 TB/s"},
        {989.4e12, "FLOP/s", false, "989 TFLOP/s"},
        {1978.9e12, "FLOP/s", false, "1.98 PFLOP/s"},
        {80e9, "B", false, "80 GB"},
        {-2e9, "B", false, "-2 GB"},
        {5, "B", false, "5 B"},
        {0.01, "s", true, "10 ms"},
        {0.5, "s", true, "500 ms"},
        {1e-6, "s", true, "1 \xc2\xb5s"},
        {2, "s", true, "2 s"},
        {1e-10, "s", true, "100 ps"},
        {5530.4, "s", true, "5530 s"},
        {1e4, "s", true, "10000 s"},
    };
    for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
        char buf[32];
        chart_format_si(cases[i].v, 3, cases[i].unit, cases[i].sub, buf, sizeof buf);
        CHECK_STR(buf, cases[i].want);
    }
}

TEST(chart_log_bounds)
{
    static const struct {
        double lo, hi, pad, min, max;
    } cases[] = {
        {0.25, 700, 1, 0.2, 1000},     {0.3, 250, 1, 0.3, 300}, {1, 10, 1, 1, 10},
        {0.17, 441, 2, 0.05, 1000},    {5, 5, 1, 5, 5},         {1.5e12, 2e15, 1, 1e12, 2e15},
        {2.9e-5, 0.04, 1, 2e-5, 0.05}, {12, 12, 2, 5, 30},
    };
    for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
        double mn, mx;
        CHECK(chart_log_bounds(cases[i].lo, cases[i].hi, cases[i].pad, &mn, &mx) == 0);
        CHECK_NEAR(mn, cases[i].min, 1e-12);
        CHECK_NEAR(mx, cases[i].max, 1e-12);
    }
    double mn, mx;
    CHECK(chart_log_bounds(0, 10, 1, &mn, &mx) == -1);
    CHECK(chart_log_bounds(10, 1, 1, &mn, &mx) == -1);
    CHECK(chart_log_bounds(1, INFINITY, 1, &mn, &mx) == -1);
}

TEST(chart_linear_bounds)
{
    double mn, mx, st;
    CHECK(chart_linear_bounds(0, 87, 5, &mn, &mx, &st) == 0);
    CHECK_NEAR(mn, 0, 0);
    CHECK_NEAR(mx, 100, 1e-12);
    CHECK_NEAR(st, 20, 1e-12);
    CHECK(chart_linear_bounds(0, 89.6e9, 5, &mn, &mx, &st) == 0); /* 80 GB device x 1.12 */
    CHECK_NEAR(mx, 100e9, 1e-12);
    CHECK_NEAR(st, 20e9, 1e-12);
    CHECK(chart_linear_bounds(-3, 7, 5, &mn, &mx, &st) == 0);
    CHECK_NEAR(mn, -4, 1e-12);
    CHECK_NEAR(mx, 8, 1e-12);
    CHECK_NEAR(st, 2, 1e-12);
    CHECK(chart_linear_bounds(3, 1, 5, &mn, &mx, &st) == -1);
}

TEST(chart_map_log_and_linear)
{
    struct chart_axis ax = {0};
    chart_axis_set(&ax, CHART_LOG, 0.1, 1000, "x", "");
    CHECK_NEAR(chart_map(&ax, 0.1, 0, 400), 0, 0);
    CHECK_NEAR(chart_map(&ax, 1, 0, 400), 100, 1e-12);
    CHECK_NEAR(chart_map(&ax, 10, 0, 400), 200, 1e-12);
    CHECK_NEAR(chart_map(&ax, 1000, 0, 400), 400, 1e-12);
    CHECK_NEAR(chart_map(&ax, sqrt(10), 0, 400), 150, 1e-12); /* half a decade */
    CHECK_NEAR(chart_map(&ax, 10, 400, 0), 200, 1e-12);       /* y axes run upwards */
    CHECK_NEAR(chart_map(&ax, 100, 500, 100), 200, 1e-12);
    CHECK(isnan(chart_map(&ax, 0, 0, 400)));
    CHECK(isnan(chart_map(&ax, -1, 0, 400)));
    chart_axis_set(&ax, CHART_LINEAR, 0, 100, "y", "");
    CHECK_NEAR(chart_map(&ax, 25, 0, 200), 50, 1e-12);
    CHECK_NEAR(chart_map(&ax, -10, 0, 200), -20, 1e-12);
    chart_axis_set(&ax, CHART_LOG, 10, 10, "bad", "");
    CHECK(isnan(chart_map(&ax, 10, 0, 100)));
}

TEST(chart_ticks_decades)
{
    struct chart_axis ax = {0};
    chart_axis_set(&ax, CHART_LOG, 0.1, 1000, "", "");
    CHECK(chart_axis_ticks(&ax) == 5 + 4 * 8);
    const char *want[] = {"0.1", "1", "10", "100", "1 k"};
    int k = 0;
    for (int i = 0; i < ax.n_ticks; i++) {
        if (!ax.ticks[i].major)
            continue;
        CHECK(k < 5);
        if (k < 5)
            CHECK_STR(ax.ticks[i].label, want[k]);
        k++;
    }
    CHECK(k == 5);
    CHECK_NEAR(ax.ticks[1].value, 0.2, 1e-12); /* the first minor tick */

    chart_axis_set(&ax, CHART_LOG, 5e11, 5e15, "", "");
    chart_axis_ticks(&ax);
    const char *flops[] = {"1 T", "10 T", "100 T", "1 P"};
    k = 0;
    for (int i = 0; i < ax.n_ticks; i++)
        if (ax.ticks[i].major && k < 4)
            CHECK_STR(ax.ticks[i].label, flops[k++]);
    CHECK(k == 4);

    /* one decade inside: 1-2-5 labels */
    chart_axis_set(&ax, CHART_LOG, 200, 5000, "", "");
    chart_axis_ticks(&ax);
    const char *mid[] = {"200", "500", "1 k", "2 k", "5 k"};
    k = 0;
    for (int i = 0; i < ax.n_ticks; i++)
        if (ax.ticks[i].major && k < 5)
            CHECK_STR(ax.ticks[i].label, mid[k++]);
    CHECK(k == 5);

    /* no decade inside: every integer multiple */
    chart_axis_set(&ax, CHART_LOG, 200, 500, "", "");
    CHECK(chart_axis_ticks(&ax) == 4);
    CHECK_STR(ax.ticks[1].label, "300");

    /* times */
    chart_axis_set(&ax, CHART_LOG, 1e-4, 1, "", "s");
    ax.sub_unit = true;
    chart_axis_ticks(&ax);
    CHECK_STR(ax.ticks[0].label, "100 \xc2\xb5s");
    CHECK_STR(ax.ticks[ax.n_ticks - 1].label, "1 s");

    /* linear bytes */
    chart_axis_set(&ax, CHART_LINEAR, 0, 100e9, "", "B");
    CHECK(chart_axis_ticks(&ax) == 6);
    CHECK_STR(ax.ticks[0].label, "0");
    CHECK_STR(ax.ticks[1].label, "20 GB");
    CHECK_STR(ax.ticks[5].label, "100 GB");
}

TEST(chart_thin_ticks)
{
    struct chart_tick t[4] = {
        {1, true, true, "a"}, {2, true, true, "b"}, {3, true, true, "c"}, {4, true, true, "d"}};
    double pos[4] = {0, 50, 100, 150}, size[4] = {40, 40, 40, 40};
    CHECK(chart_thin_ticks(t, 4, pos, size, 8) == 1); /* 50 - 40 = 10 px of air */
    CHECK(t[1].labelled);
    CHECK(chart_thin_ticks(t, 4, pos, size, 20) == 2); /* 100 - 40 = 60 */
    CHECK(t[0].labelled && !t[1].labelled && t[2].labelled && !t[3].labelled);
    CHECK(chart_thin_ticks(t, 4, pos, size, 200) == 4);
    CHECK(t[0].labelled && !t[1].labelled && !t[2].labelled && !t[3].labelled);
}

TEST(chart_collisions)
{
    struct chart_rect r = {10, 10, 20, 10}; /* x 10..30, y 10..20 */
    CHECK(chart_rects_overlap(r, (struct chart_rect){25, 15, 10, 10}));
    CHECK(!chart_rects_overlap(r, (struct chart_rect){30, 10, 5, 5})); /* touching is free */
    CHECK(!chart_rects_overlap(r, (struct chart_rect){0, 0, 5, 5}));
    CHECK(chart_rect_hits_segment(r, (struct chart_segment){0, 0, 40, 30}));   /* through */
    CHECK(chart_rect_hits_segment(r, (struct chart_segment){15, 12, 20, 18})); /* inside */
    CHECK(!chart_rect_hits_segment(r, (struct chart_segment){0, 0, 40, 5}));   /* above */
    CHECK(!chart_rect_hits_segment(r, (struct chart_segment){0, 30, 10, 0}));  /* misses corner */
    CHECK(chart_rect_hits_segment(r, (struct chart_segment){20, 0, 20, 40}));  /* vertical */
    CHECK(!chart_rect_hits_segment(r, (struct chart_segment){35, 0, 35, 40}));
}

TEST(chart_place_labels)
{
    struct chart_obstacles o;
    chart_obstacles_init(&o, (struct chart_rect){0, 0, 100, 100});
    static const enum chart_dir AROUND[] = {CHART_E, CHART_NE, CHART_SE, CHART_N,
                                            CHART_S, CHART_W,  CHART_NW, CHART_SW};
    double ax = 50, ay = 50;
    struct chart_rect got;
    struct chart_place_req q = {.ax = &ax,
                                .ay = &ay,
                                .n_anchors = 1,
                                .w = 20,
                                .h = 10,
                                .gap = 5,
                                .dirs = AROUND,
                                .n_dirs = 8,
                                .rings = 1};
    /* free space: east of the anchor, vertically centred */
    CHECK(chart_place(&o, &q, &got, NULL, NULL));
    CHECK_NEAR(got.x, 55, 0);
    CHECK_NEAR(got.y, 45, 0);
    chart_obstacles_release(&o);

    /* an obstacle at x 55..85, y 40..60 blocks E, NE, SE, N and S: the label goes west */
    chart_obstacles_init(&o, (struct chart_rect){0, 0, 100, 100});
    chart_obstacles_rect(&o, (struct chart_rect){55, 40, 30, 20});
    CHECK(chart_place(&o, &q, &got, NULL, NULL));
    CHECK_NEAR(got.x, 25, 0);
    CHECK_NEAR(got.y, 45, 0);
    /* the placed label is now an obstacle: the same label again goes north-west */
    CHECK(chart_place(&o, &q, &got, NULL, NULL));
    CHECK_NEAR(got.x, 25, 0);
    CHECK_NEAR(got.y, 35, 0);
    chart_obstacles_release(&o);

    /* a line through the anchor's east side, and the plot edge on the west */
    chart_obstacles_init(&o, (struct chart_rect){40, 0, 60, 100});
    chart_obstacles_segment(&o, 50, 0, 100, 100);
    static const enum chart_dir EW[] = {CHART_E, CHART_W};
    q.dirs = EW;
    q.n_dirs = 2;
    CHECK(!chart_place(&o, &q, &got, NULL, NULL)); /* dropped */
    double ax2[2] = {50, 60}, ay2[2] = {50, 90};
    int au = -1, ru = -1;
    q.ax = ax2;
    q.ay = ay2;
    q.n_anchors = 2;
    CHECK(chart_place(&o, &q, &got, &au, &ru)); /* 2nd anchor */
    CHECK(au == 1 && ru == 0);
    CHECK_NEAR(got.x, 65, 0);
    CHECK_NEAR(got.y, 85, 0);
    chart_obstacles_release(&o);
}

TEST(chart_place_spacing)
{
    /* the first label goes east of (50, 50): 55..75 x 45..55 */
    struct chart_obstacles o;
    chart_obstacles_init(&o, (struct chart_rect){0, 0, 100, 100});
    static const enum chart_dir D[] = {CHART_E, CHART_NE, CHART_W};
    double ax = 50, ay = 50;
    struct chart_rect got;
    struct chart_place_req q = {.ax = &ax,
                                .ay = &ay,
                                .n_anchors = 1,
                                .w = 20,
                                .h = 10,
                                .gap = 5,
                                .dirs = D,
                                .n_dirs = 3,
                                .rings = 1};
    CHECK(chart_place(&o, &q, &got, NULL, NULL));
    CHECK_NEAR(got.x, 55, 0);
    CHECK_NEAR(got.y, 45, 0);
    /* north-east (55..75 x 35..45) touches it: with 4 px of spacing the second goes west
     * (25..45 x 45..55, 10 px away) */
    o.label_pad = 4;
    o.pad_from = 0;
    CHECK(chart_place(&o, &q, &got, NULL, NULL));
    CHECK_NEAR(got.x, 25, 0);
    CHECK_NEAR(got.y, 45, 0);
    /* east and west are taken: only the touching north-east is left, and the label takes it
     * rather than being dropped */
    CHECK(chart_place(&o, &q, &got, NULL, NULL));
    CHECK_NEAR(got.x, 55, 0);
    CHECK_NEAR(got.y, 35, 0);
    chart_obstacles_release(&o);
}

/* Every shown label lies inside its plot and clear of other labels, points and segments. */
static void
check_clear(const struct chart *c)
{
    for (int pi = 0; pi < c->n_panels; pi++) {
        const struct chart_panel *p = &c->panels[pi];
        for (size_t i = 0; i < p->n_labels; i++) {
            const struct chart_label *a = &p->labels[i];
            if (!a->shown)
                continue;
            if (a->margin) /* right of the plot, inside the cell */
                CHECK(a->box.x >= p->plot.x + p->plot.w && a->box.y >= p->plot.y &&
                      a->box.x + a->box.w <= p->cell.x + p->cell.w + 1e-9 &&
                      a->box.y + a->box.h <= p->plot.y + p->plot.h + 1e-9);
            else
                CHECK(a->box.x >= p->plot.x && a->box.y >= p->plot.y &&
                      a->box.x + a->box.w <= p->plot.x + p->plot.w &&
                      a->box.y + a->box.h <= p->plot.y + p->plot.h);
            for (size_t j = i + 1; j < p->n_labels; j++)
                if (p->labels[j].shown)
                    CHECK(!chart_rects_overlap(a->box, p->labels[j].box));
            for (size_t j = 0; j < p->n_points; j++) {
                const struct chart_point *pt = &p->points[j];
                double r = pt->style.marker_px * c->scale / 2;
                struct chart_rect m = {chart_px_x(p, pt->x) - r, chart_px_y(p, pt->y) - r, 2 * r,
                                       2 * r};
                CHECK(!chart_rects_overlap(a->box, m));
            }
            for (size_t j = 0; j < p->n_lines; j++) {
                const struct chart_line *l = &p->lines[j];
                for (size_t k = 1; k < l->n && l->style.line_px > 0; k++) {
                    struct chart_segment s = {chart_px_x(p, l->x[k - 1]),
                                              chart_px_y(p, l->y[k - 1]), chart_px_x(p, l->x[k]),
                                              chart_px_y(p, l->y[k])};
                    CHECK(!chart_rect_hits_segment(a->box, s));
                }
            }
            if (p->legend_shown)
                CHECK(!chart_rects_overlap(a->box, p->legend_box));
        }
        CHECK(p->plot.x > 0 && p->plot.y > 0 && p->plot.x + p->plot.w < c->width &&
              p->plot.y + p->plot.h < c->height);
    }
    CHECK(c->title_box.x >= 0 && c->title_box.x + c->title_box.w <= c->width);
}

TEST(chart_layout_fake_font)
{
    struct chart *c = chart_new();
    snprintf(c->title, sizeof c->title, "test chart");
    struct chart_panel *p = chart_add_panel(c);
    chart_axis_set(&p->x, CHART_LOG, 0.1, 1000, "intensity", "");
    chart_axis_set(&p->y, CHART_LOG, 1e11, 1e15, "rate", "");
    struct chart_style s = {0};
    s.marker = CHART_MARKER_CIRCLE;
    s.marker_px = 20;
    s.rgb = 0;
    s.line_px = 1;
    /* two points 1 decade apart and a diagonal line between them */
    chart_add_point(c, p, 1, 1e12, &s);
    chart_add_point(c, p, 10, 1e13, &s);
    double lx[2] = {0.1, 1000}, ly[2] = {1e11, 1e15};
    struct chart_style ls = {0};
    ls.line_px = 2;
    chart_add_line(c, p, &ls, lx, ly, 2);
    struct chart_label *l = chart_add_label(c, p, "first", 1, 1e12, 10, 0);
    CHECK(l != NULL);
    l = chart_add_label(c, p, "second", 10, 1e13, 5, 0);
    CHECK(l != NULL);
    /* the same anchor twice: the second copy must go elsewhere or be dropped */
    chart_add_label(c, p, "second", 10, 1e13, 4, 0);
    chart_add_legend(c, p, "points", &s, false);
    CHECK(chart_layout(c, 800, 500, fake_measure, NULL) == 0);
    CHECK_NEAR(c->scale, 800 / 76.0 / 21.0, 1e-12); /* base font: min(800 / 76, 500 / 47.5) */
    CHECK(p->labels[0].shown && p->labels[1].shown);
    CHECK(p->legend_shown);
    check_clear(c);
    /* decade ticks, mapped onto the plot */
    CHECK_NEAR(chart_px_x(p, 0.1), p->plot.x, 1e-9);
    CHECK_NEAR(chart_px_x(p, 1000), p->plot.x + p->plot.w, 1e-9);
    CHECK_NEAR(chart_px_y(p, 1e15), p->plot.y, 1e-9);
    CHECK(chart_layout(c, 100, 100, fake_measure, NULL) == -1); /* too small */
    chart_free(c);
    chart_free(NULL);
}

TEST(chart_label_leader)
{
    struct chart *c = chart_new();
    struct chart_panel *p = chart_add_panel(c);
    struct chart_label *l = chart_add_label(c, p, "x", 1, 1, 0, CHART_BLACK);
    CHECK(l && !l->leader && !l->bold);
    chart_label_leader(l, 7, 5, true);
    CHECK(l->leader && l->bold && l->rings == 5);
    CHECK_NEAR(l->gap_px, 7, 0);
    chart_label_leader(NULL, 7, 5, true); /* a failed chart_add_label passes NULL: no-op */
    chart_free(c);
}

TEST(chart_kind_names)
{
    enum chart_kind k;
    CHECK(chart_kind_parse("regime", &k) == 0 && k == CHART_KIND_REGIME);
    CHECK(chart_kind_parse("memory", &k) == 0 && k == CHART_KIND_MEMORY);
    CHECK(chart_kind_parse("roof", &k) == -1);
    CHECK_STR(chart_kind_name(CHART_KIND_BATCH), "batch");
    for (int i = 0; i < CHART_KIND_COUNT; i++) /* every line of the table names its own kind */
        CHECK(chart_kind_parse(chart_kind_name((enum chart_kind)i), &k) == 0 && (int)k == i);
    CHECK_STR(chart_kind_name(CHART_KIND_COUNT), "?");
    enum chart_format f;
    CHECK(chart_format_from_path("a/b.PNG", &f) == 0 && f == CHART_PNG);
    CHECK(chart_format_from_path("x.svg", &f) == 0 && f == CHART_SVG);
    CHECK(chart_format_from_path("x.pdf", &f) == 0 && f == CHART_PDF);
    CHECK(chart_format_from_path("x.jpg", &f) == -1);
    CHECK(chart_format_from_path("dir.png/file", &f) == -1);
}

/* Every kind builds, lays out with the fake font and keeps labels clear; roofline points lie on
 * their roof (the default tuning is the pure roofline). */
TEST(chart_build_kinds)
{
    struct hw_profile *h100 = test_hw("h100-sxm"), *a100 = test_hw("a100-sxm-80gb");
    struct mdl_profile *m = test_model("llama-3-8b");
    struct chart_request req;
    memset(&req, 0, sizeof req);
    req.hws[0] = h100;
    req.hws[1] = a100;
    req.n_hws = 2;
    roof_config_init(&req.base, h100, m, ROOF_DECODE);
    for (int k = 0; k < CHART_KIND_COUNT; k++) {
        req.kind = (enum chart_kind)k;
        struct err_list errs = {0};
        struct chart *c = chart_build(&req, &errs);
        CHECK(c != NULL);
        CHECK(errs.n == 0);
        err_list_release(&errs);
        if (!c)
            continue;
        CHECK_CONTAINS(c->title, "llama-3-8b");
        CHECK_CONTAINS(c->title, "a100-sxm-80gb");
        CHECK(chart_layout(c, 800, 500, fake_measure, NULL) == 0);
        check_clear(c);
        size_t shown = 0;
        for (int pi = 0; pi < c->n_panels; pi++)
            for (size_t i = 0; i < c->panels[pi].n_labels; i++)
                shown += c->panels[pi].labels[i].shown;
        CHECK(shown > 0);
        chart_free(c);
    }
    /* roofline: points never above min(peak, bandwidth x intensity) of the device's top roof */
    req.kind = CHART_KIND_ROOFLINE;
    req.n_hws = 1;
    struct chart *c = chart_build(&req, NULL);
    CHECK(c != NULL);
    if (c) {
        const struct chart_panel *p = &c->panels[0];
        size_t ops = 0;
        for (size_t i = 0; i < p->n_points; i++) {
            const struct chart_point *pt = &p->points[i];
            CHECK(pt->y <= roof_attainable(h100->peak_flops_per_s[DT_FP8],
                                           h100->memory_bandwidth_bytes_per_s, pt->x) *
                               1.000001);
            CHECK(pt->x >= p->x.min && pt->x <= p->x.max && pt->y >= p->y.min && pt->y <= p->y.max);
            ops += pt->style.fill_alpha < 1; /* operators are translucent */
        }
        CHECK(ops >= 10);
        CHECK_CONTAINS(c->footnote, "embedding");
        chart_free(c);
    }
    hw_free(h100);
    hw_free(a100);
    mdl_free(m);
}

static char *
write_temp(const char *text)
{
    char *path = malloc(64);
    snprintf(path, 64, "/tmp/roofline-chart-XXXXXX");
    int fd = mkstemp(path);
    if (fd < 0) {
        free(path);
        return NULL;
    }
    size_t n = strlen(text);
    CHECK(write(fd, text, n) == (ssize_t)n);
    close(fd);
    return path;
}

TEST(points_load)
{
    char *ok = write_temp("{\"points\": [{\"label\": \"gemm 4k\", \"intensity_flop_per_byte\": "
                          "120.5, \"flops_per_s\": 3.1e14},\n {\"intensity_flop_per_byte\": 0.5, "
                          "\"flops_per_s\": 1e12}]}\n");
    CHECK(ok != NULL);
    struct chart_measured *m = NULL;
    size_t n = 0;
    struct err_list errs = {0};
    CHECK(points_load(ok, &m, &n, &errs) == 0);
    CHECK(n == 2);
    if (n == 2) {
        CHECK_STR(m[0].label, "gemm 4k");
        CHECK_NEAR(m[0].intensity_flop_per_byte, 120.5, 0);
        CHECK_NEAR(m[0].flops_per_s, 3.1e14, 0);
        CHECK_STR(m[1].label, "");
    }
    points_free(m, n);
    err_list_release(&errs);

    /* every problem reported with its position */
    char *bad = write_temp("{\"points\": [{\"label\": \"x\", \"intensity\": 1, \"flops_per_s\": "
                           "-2},\n {\"intensity_flop_per_byte\": \"7\", \"flops_per_s\": 1}]}\n");
    CHECK(points_load(bad, &m, &n, &errs) == -1);
    CHECK(m == NULL && n == 0);
    char buf[512], all[2048] = "";
    for (size_t i = 0; i < errs.n; i++) {
        err_format(&errs.items[i], buf, sizeof buf);
        size_t l = strlen(all);
        snprintf(all + l, sizeof all - l, "%s\n", buf);
    }
    CHECK_CONTAINS(all, ":1:28: error: unknown key 'points[0].intensity'");
    CHECK_CONTAINS(all, "missing required key 'intensity_flop_per_byte' in 'points[0]'");
    CHECK_CONTAINS(all, "'points[0].flops_per_s' must be positive");
    CHECK_CONTAINS(all, ":2:");
    CHECK_CONTAINS(all, "must be a number");
    err_list_release(&errs);
    unlink(ok);
    unlink(bad);
    free(ok);
    free(bad);
}
