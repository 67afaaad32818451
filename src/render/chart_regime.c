/* The regime chart (docs/charts.md#kinds): the decode step and its weight GEMMs on the roofline as
 * batch grows (to the memory limit) and as context grows, with the critical batch and the
 * context where KV-cache reads overtake weight reads. No drawing and no printing. */
#include "render/chart_kinds.h"

#include "core/dtype.h"
#include "core/hw.h"
#include "util/array.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

/* Largest context (doubling from `from`, capped at `cap`) whose decode footprint fits. */
static double
max_context(const struct roof_config *cfg, double from, double cap)
{
    struct roof_config k = *cfg;
    struct roof_memory m;
    double ok = 0;
    for (double ctx = from; ctx <= cap; ctx *= 2) {
        k.context = ctx;
        roof_memory(&k, &m);
        if (!m.fits)
            break;
        ok = ctx;
    }
    return ok;
}

static const uint32_t OP_RGB[] = {CHART_VERMILLION, CHART_BLUE,   CHART_GREEN,
                                  CHART_PURPLE,     CHART_ORANGE, CHART_SKY};
#define N_OP_RGB ARRAY_SIZE(OP_RGB)

enum { MAXB = 32 }; /* batches on a path: 1, 2, 4 ... up to the memory limit */

/* The decode paths of every device: operator groups (matmuls, grouped on the first device) and the
 * whole step over batch, the whole step over context, and the two marks. */
struct regime {
    double bx[CHART_MAX_GPUS][ROOF_OP_COUNT + 1][MAXB], by[CHART_MAX_GPUS][ROOF_OP_COUNT + 1][MAXB];
    int groups[ROOF_OP_COUNT][ROOF_OP_COUNT], n_groups;
    char group_names[ROOF_OP_COUNT][64];
    int nb[CHART_MAX_GPUS];
    double batches[CHART_MAX_GPUS][MAXB];
    double cx[CHART_MAX_GPUS][SAMPLES], cy[CHART_MAX_GPUS][SAMPLES], cctx[CHART_MAX_GPUS][SAMPLES];
    int nc[CHART_MAX_GPUS];
    double crit[CHART_MAX_GPUS], crit_x[CHART_MAX_GPUS], crit_y[CHART_MAX_GPUS];
    double kvc[CHART_MAX_GPUS], kv_x[CHART_MAX_GPUS], kv_y[CHART_MAX_GPUS];
    long maxb[CHART_MAX_GPUS];
    struct kind_range xr, yr;
};

/* Evaluates the paths of device g into rg (notes in c's footnote); -1 when the engine fails. */
static int
regime_device(struct chart *c, const struct chart_request *req, int g, struct regime *rg,
              struct err_list *errs)
{
    char text[200], num[48], num2[48];
    struct roof_config cfg = kind_gpu_cfg(req, g, ROOF_DECODE);
    rg->maxb[g] = roof_max_batch(&cfg);
    rg->crit[g] = rg->kvc[g] = NAN;
    if (rg->maxb[g] < 1) {
        snprintf(text, sizeof text, "%s: the model does not fit at context %g.", req->hws[g]->id,
                 cfg.context);
        chart_note(c, text);
        return 0;
    }
    double top = (double)rg->maxb[g];
    for (double b = 1; b < top && rg->nb[g] < MAXB - 1; b *= 2)
        rg->batches[g][rg->nb[g]++] = b;
    rg->batches[g][rg->nb[g]++] = top;
    for (int i = 0; i < rg->nb[g]; i++) {
        cfg.batch = rg->batches[g][i];
        struct roof_result r;
        if (kind_evaluate(&cfg, &r, errs) != 0)
            return -1;
        if (g == 0 && i == 0) {
            struct kind_op_point pts[ROOF_OP_COUNT];
            int n = kind_op_points(&r, true, pts, NULL);
            for (int k = 0; k < n; k++) {
                memcpy(rg->groups[k], pts[k].ops, sizeof pts[k].ops);
                kind_group_label(&r, pts[k].ops, pts[k].n_ops, rg->group_names[k],
                                 sizeof rg->group_names[k]);
            }
            rg->n_groups = n;
        }
        for (int k = 0; k < rg->n_groups; k++) {
            const struct roof_op_result *o = &r.ops[rg->groups[k][0]];
            rg->bx[g][k][i] = roof_op_intensity(o);
            rg->by[g][k][i] = o->time_s > 0 ? o->flops / o->time_s : NAN;
            kind_range_add(&rg->xr, rg->bx[g][k][i]);
            kind_range_add(&rg->yr, rg->by[g][k][i]);
        }
        rg->bx[g][rg->n_groups][i] = r.flops / r.bytes;
        rg->by[g][rg->n_groups][i] = r.flops / r.time_s;
        kind_range_add(&rg->xr, rg->bx[g][rg->n_groups][i]);
        kind_range_add(&rg->yr, rg->by[g][rg->n_groups][i]);
    }
    /* critical batch: weight GEMMs reach the ridge */
    cfg.batch = req->base.batch;
    double b;
    if (roof_critical_batch(&cfg, &b) == 0) {
        rg->crit[g] = b;
        struct roof_config k = cfg;
        k.batch = b;
        struct roof_result r;
        if (kind_evaluate(&k, &r, errs) != 0)
            return -1;
        /* the group with the most weight bytes carries the mark */
        int best = 0;
        double wb = -1;
        for (int q = 0; q < rg->n_groups; q++)
            if (r.ops[rg->groups[q][0]].bytes_weights > wb) {
                wb = r.ops[rg->groups[q][0]].bytes_weights;
                best = q;
            }
        const struct roof_op_result *o = &r.ops[rg->groups[best][0]];
        rg->crit_x[g] = roof_op_intensity(o);
        rg->crit_y[g] = o->flops / o->time_s;
    }
    /* context path at the requested batch */
    double cap = req->base.model->max_position_embeddings > 0
                     ? (double)req->base.model->max_position_embeddings
                     : 131072;
    double cmax = max_context(&cfg, 128, cap);
    if (cmax >= 128) {
        double grid[SAMPLES];
        size_t n = kind_int_grid(128, cmax, 24, grid);
        for (size_t i = 0; i < n; i++) {
            struct roof_config k = cfg;
            k.context = grid[i];
            struct roof_result r;
            if (kind_evaluate(&k, &r, errs) != 0)
                return -1;
            rg->cctx[g][rg->nc[g]] = grid[i];
            rg->cx[g][rg->nc[g]] = r.flops / r.bytes;
            rg->cy[g][rg->nc[g]] = r.flops / r.time_s;
            kind_range_add(&rg->xr, rg->cx[g][rg->nc[g]]);
            kind_range_add(&rg->yr, rg->cy[g][rg->nc[g]]);
            rg->nc[g]++;
        }
    }
    double cstar;
    /* bytes only: the same context on every device */
    if (kind_kv_crossover(&cfg, cap, &cstar) != 0) {
        if (g == 0) {
            kind_fmt_count(cap, num, sizeof num);
            kind_fmt_count(cfg.batch, num2, sizeof num2);
            snprintf(text, sizeof text,
                     "KV-cache reads stay below weight reads up to the model's longest "
                     "context (%s) at batch %s.",
                     num, num2);
            chart_note(c, text);
        }
    } else {
        rg->kvc[g] = cstar;
        struct roof_config k = cfg;
        k.context = cstar;
        struct roof_result r;
        if (kind_evaluate(&k, &r, errs) != 0)
            return -1;
        rg->kv_x[g] = r.flops / r.bytes;
        rg->kv_y[g] = r.flops / r.time_s;
        if (cstar > cmax) {
            kind_fmt_count(cstar, num, sizeof num);
            snprintf(text, sizeof text,
                     "%s: KV reads would overtake weight reads at context %s, beyond the "
                     "memory limit.",
                     req->hws[g]->id, num);
            chart_note(c, text);
            rg->kvc[g] = NAN;
        }
    }
    return 0;
}

/* Draws the paths and marks of device g. */
static void
regime_draw(struct chart *c, struct chart_panel *p, const struct chart_request *req, int g,
            const struct regime *rg)
{
    char text[200], num[48], num2[48];
    if (rg->nb[g] == 0)
        return;
    /* the whole step underneath, the operators on top (smaller markers show inside) */
    struct chart_style s = chart_line_style(CHART_BLACK, 3.0, CHART_SOLID);
    s.marker = KIND_GPU_MARKER[g];
    s.marker_px = 11;
    s.filled = true;
    s.fill_rgb = CHART_BLACK;
    s.fill_alpha = 1;
    s.arrow = true;
    chart_add_line(c, p, &s, rg->bx[g][rg->n_groups], rg->by[g][rg->n_groups], (size_t)rg->nb[g]);
    for (int k = 0; k < rg->n_groups; k++) {
        struct chart_style os = chart_line_style(OP_RGB[k % N_OP_RGB], 2.2, CHART_SOLID);
        os.marker = KIND_GPU_MARKER[g];
        os.marker_px = 7;
        os.filled = true;
        os.fill_rgb = OP_RGB[k % N_OP_RGB];
        os.fill_alpha = 1;
        os.arrow = true;
        chart_add_line(c, p, &os, rg->bx[g][k], rg->by[g][k], (size_t)rg->nb[g]);
        bool still = kind_near_rel(rg->bx[g][k][0], rg->bx[g][k][rg->nb[g] - 1]);
        if (still && g == 0) {
            char t[96];
            snprintf(t, sizeof t, "%s (any batch)", rg->group_names[k]);
            struct chart_label *sl = chart_add_label(c, p, t, rg->bx[g][k][0], rg->by[g][k][0], 185,
                                                     OP_RGB[k % N_OP_RGB]);
            chart_label_leader(sl, 8, 5, false);
        }
    }
    struct chart_label *l = g ? NULL
                              : chart_add_label(c, p, "batch 1", rg->bx[g][rg->n_groups][0],
                                                rg->by[g][rg->n_groups][0], 220, CHART_BLACK);
    chart_label_leader(l, 8, 5, false);
    kind_fmt_count((double)rg->maxb[g], num, sizeof num);
    snprintf(text, sizeof text, "batch %s (memory limit)", num);
    l = chart_add_label(c, p, text, rg->bx[g][rg->n_groups][rg->nb[g] - 1],
                        rg->by[g][rg->n_groups][rg->nb[g] - 1], 230 - g, KIND_GPU_RGB[g]);
    chart_label_leader(l, 8, 9, false);
    if (rg->nc[g] >= 2 && g == 0) {
        struct chart_style cs = chart_line_style(CHART_GREY, 2.4, CHART_DASHED);
        cs.marker = KIND_GPU_MARKER[g];
        cs.marker_px = 7;
        cs.filled = true;
        cs.fill_rgb = 0xFFFFFF;
        cs.fill_alpha = 1;
        cs.arrow = true;
        chart_add_line(c, p, &cs, rg->cx[g], rg->cy[g], (size_t)rg->nc[g]);
        kind_fmt_count(rg->cctx[g][0], num, sizeof num);
        kind_fmt_count(rg->cctx[g][rg->nc[g] - 1], num2, sizeof num2);
        snprintf(text, sizeof text, "context %s", num);
        l = chart_add_label(c, p, text, rg->cx[g][0], rg->cy[g][0], 190 - g, CHART_GREY);
        chart_label_leader(l, 7, 5, false);
        snprintf(text, sizeof text, "context %s", num2);
        l = chart_add_label(c, p, text, rg->cx[g][rg->nc[g] - 1], rg->cy[g][rg->nc[g] - 1], 195 - g,
                            CHART_GREY);
        chart_label_leader(l, 7, 5, false);
    }
    if (isfinite(rg->crit[g])) {
        struct chart_style ms =
            chart_marker_style(CHART_MARKER_DIAMOND, 17, KIND_GPU_RGB[g], 2, CHART_YELLOW, 1);
        chart_add_point(c, p, rg->crit_x[g], rg->crit_y[g], &ms);
        kind_fmt_count(rg->crit[g], num, sizeof num);
        char ridge[32];
        chart_format_si(hw_ridge(req->hws[g], dtype_gemm_compute(req->base.weights, req->base.act)),
                        3, "", false, ridge, sizeof ridge);
        snprintf(text, sizeof text, "critical batch %s%s\n(ridge %s FLOP/B)", num,
                 rg->crit[g] > (double)rg->maxb[g] ? ", beyond memory" : "", ridge);
        l = chart_add_label(c, p, text, rg->crit_x[g], rg->crit_y[g], 260 - g, KIND_GPU_RGB[g]);
        chart_label_leader(l, 12, 6, true);
    }
    if (isfinite(rg->kvc[g])) {
        struct chart_style ms =
            chart_marker_style(CHART_MARKER_SQUARE, 16, KIND_GPU_RGB[g], 2, CHART_YELLOW, 1);
        chart_add_point(c, p, rg->kv_x[g], rg->kv_y[g], &ms);
        kind_fmt_count(rg->kvc[g], num, sizeof num);
        snprintf(text, sizeof text, "KV read = weight read\nat context %s", num);
        l = chart_add_label(c, p, text, rg->kv_x[g], rg->kv_y[g], 250 - g, KIND_GPU_RGB[g]);
        chart_label_leader(l, 11, 6, true);
    }
}

int
chart_fill_regime(struct chart *c, const struct chart_request *req, struct err_list *errs)
{
    struct chart_panel *p = chart_add_panel(c);
    struct regime regime = {0}, *rg = &regime;
    char text[200], num[48];
    for (int g = 0; g < req->n_hws; g++)
        if (regime_device(c, req, g, rg, errs) != 0)
            return -1;
    bool any_fits = false;
    for (int g = 0; g < req->n_hws; g++)
        any_fits |= rg->nb[g] > 0;
    if (!any_fits) {
        err_add(errs, NULL, 0, 0, ERR_ERROR,
                "'%s' does not fit on any of the devices at context %g (try a shorter --context "
                "or smaller --weights/--kv)",
                req->base.model->id, req->base.context);
        return -1;
    }
    kind_roof_ranges(req, false, &rg->xr, &rg->yr);
    struct kind_range xr2 = rg->xr;
    kind_range_add(&xr2, rg->xr.hi * 4);
    if (kind_set_log_axis(&p->x, &xr2, 2, 1, "arithmetic intensity (FLOP/byte)", "", false) ||
        kind_set_log_axis(&p->y, &rg->yr, 2.5, 3, "attainable performance (FLOP/s)", "", false)) {
        err_add(errs, NULL, 0, 0, ERR_ERROR, "the model does not fit on any of the devices");
        return -1;
    }
    for (int g = 0; g < req->n_hws; g++)
        kind_add_roofs(c, p, req, g, false, false);
    for (int g = 0; g < req->n_hws; g++)
        regime_draw(c, p, req, g, rg);
    for (int k = 0; k < rg->n_groups; k++) {
        const char *names = rg->group_names[k];
        struct chart_style s = chart_line_style(OP_RGB[k % N_OP_RGB], 2.2, CHART_SOLID);
        s.marker = CHART_MARKER_CIRCLE;
        s.marker_px = 8;
        s.filled = true;
        s.fill_rgb = OP_RGB[k % N_OP_RGB];
        s.fill_alpha = 1;
        chart_add_legend(c, p, names, &s, false);
    }
    struct chart_style s = chart_line_style(CHART_BLACK, 3.0, CHART_SOLID);
    s.marker = CHART_MARKER_CIRCLE;
    s.marker_px = 9;
    s.filled = true;
    s.fill_alpha = 1;
    chart_add_legend(c, p, "whole decode step, batch 1, 2, 4 ...", &s, false);
    s = chart_line_style(CHART_GREY, 2.4, CHART_DASHED);
    s.marker = CHART_MARKER_CIRCLE;
    s.marker_px = 7;
    s.filled = true;
    s.fill_rgb = 0xFFFFFF;
    s.fill_alpha = 1;
    kind_fmt_count(req->base.batch, num, sizeof num);
    snprintf(text, sizeof text, "whole step as context grows (batch %s)", num);
    chart_add_legend(c, p, text, &s, false);
    if (req->n_hws > 1)
        kind_gpu_legend(c, p, req, true);
    kind_set_titles(c, req, "Decode regime as batch and context grow", true, false, true);
    chart_note(c,
               "Arrows point to larger batch or longer context. Element-wise operators keep their "
               "intensity at any batch and are left out.");
    return 0;
}
