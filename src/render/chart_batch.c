/* The batch chart (docs/charts.md#kinds): decode throughput and step time against batch for each
 * device, with the memory limit and the critical batch. No drawing and no printing. */
#include "render/chart_kinds.h"

#include "core/dtype.h"
#include "core/hw.h"
#include "util/array.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

int
chart_fill_batch(struct chart *c, const struct chart_request *req, struct err_list *errs)
{
    struct chart_panel *top = chart_add_panel(c), *bot = chart_add_panel(c);
    snprintf(top->title, sizeof top->title, "decode throughput (all sequences)");
    snprintf(bot->title, sizeof bot->title, "time per decode step (inter-token latency)");
    long maxb[CHART_MAX_GPUS];
    double crit[CHART_MAX_GPUS];
    double grid[CHART_MAX_GPUS][SAMPLES + 8], tps[CHART_MAX_GPUS][SAMPLES + 8],
        itl[CHART_MAX_GPUS][SAMPLES + 8];
    bool fits[CHART_MAX_GPUS][SAMPLES + 8];
    size_t n[CHART_MAX_GPUS];
    struct kind_range xr = {0, 0}, tr = {0, 0}, ir = {0, 0};
    double hi = 16;
    for (int g = 0; g < req->n_hws; g++) {
        struct roof_config cfg = kind_gpu_cfg(req, g, ROOF_DECODE);
        maxb[g] = roof_max_batch(&cfg);
        double b;
        crit[g] = roof_critical_batch(&cfg, &b) == 0 ? b : NAN;
        hi = fmax(hi, fmax((double)maxb[g], isfinite(crit[g]) ? crit[g] : 0) * 2);
    }
    hi = fmin(hi, 1e6);
    for (int g = 0; g < req->n_hws; g++) {
        struct roof_config cfg = kind_gpu_cfg(req, g, ROOF_DECODE);
        if (req->n_batches > 1) {
            n[g] = 0;
            for (int i = 0; i < req->n_batches; i++)
                n[g] = kind_grid_insert(grid[g], n[g], SAMPLES + 8, req->batches[i]);
        } else {
            n[g] = kind_int_grid(1, hi, SAMPLES - 8, grid[g]);
            if (maxb[g] >= 1)
                n[g] = kind_grid_insert(grid[g], n[g], SAMPLES + 8, (double)maxb[g]);
        }
        for (size_t i = 0; i < n[g]; i++) {
            cfg.batch = grid[g][i];
            struct roof_result r;
            if (kind_evaluate(&cfg, &r, errs) != 0)
                return -1;
            tps[g][i] = r.tokens_per_s_total;
            itl[g][i] = r.itl_s;
            fits[g][i] = r.mem.fits;
            kind_range_add(&xr, grid[g][i]);
            kind_range_add(&tr, tps[g][i]);
            kind_range_add(&ir, itl[g][i]);
        }
    }
    if (kind_set_log_axis(&top->x, &xr, 1, 1.2, "", "", false) ||
        kind_set_log_axis(&bot->x, &xr, 1, 1.2, "batch (sequences decoded together)", "", false) ||
        kind_set_log_axis(&top->y, &tr, 1.3, 1.6, "tokens/s", "", false) ||
        kind_set_log_axis(&bot->y, &ir, 1.3, 1.6, "seconds per step", "s", true)) {
        err_add(errs, NULL, 0, 0, ERR_ERROR, "nothing to plot");
        return -1;
    }
    char text[256], num[48];
    for (int g = 0; g < req->n_hws; g++) {
        uint32_t rgb = KIND_GPU_RGB[g];
        struct chart_style s = chart_line_style(rgb, 2.8, CHART_SOLID);
        if (req->n_batches > 1) {
            s.marker = KIND_GPU_MARKER[g];
            s.marker_px = 9;
            s.filled = true;
            s.fill_rgb = rgb;
            s.fill_alpha = 1;
        }
        kind_add_split_line(c, top, &s, grid[g], tps[g], fits[g], n[g]);
        kind_add_split_line(c, bot, &s, grid[g], itl[g], fits[g], n[g]);
        bool shared = false; /* an earlier device has the same limit: one label names both */
        for (int e = 0; e < g; e++)
            shared |= maxb[e] == maxb[g];
        if (maxb[g] >= 1 && !shared) {
            double mb = (double)maxb[g];
            kind_fmt_count(mb, num, sizeof num);
            char who[160] = "";
            for (int e = g; e < req->n_hws && req->n_hws > 1; e++)
                if (maxb[e] == maxb[g]) {
                    size_t tl = strlen(who);
                    snprintf(who + tl, sizeof who - tl, "%s%s", tl ? ", " : "", req->hws[e]->id);
                }
            snprintf(text, sizeof text, "memory limit %s%s%s%s", num, who[0] ? "\n(" : "", who,
                     who[0] ? ")" : "");
            for (int k = 0; k < 2; k++) {
                struct chart_panel *p = k ? bot : top;
                double vx[2] = {mb, mb}, vy[2] = {p->y.min, p->y.max};
                struct chart_style vs = chart_line_style(rgb, 1.8, CHART_DOTTED);
                chart_add_line(c, p, &vs, vx, vy, 2);
                if (k)
                    continue;
                struct chart_label *l = chart_add_label(c, p, text, mb, p->y.max, 240 - g, rgb);
                if (l) {
                    l->n_anchors = 0;
                    for (int a = 0; a < 10; a++)
                        chart_label_anchor(l, mb, kind_log_mid(p->y.max, p->y.min, 0.05 + a * 0.1));
                    static const enum chart_dir D[] = {CHART_W, CHART_E};
                    chart_label_dirs(l, D, 2);
                    l->gap_px = 5;
                    l->rings = 1;
                }
            }
        }
        if (isfinite(crit[g]) && crit[g] <= top->x.max) {
            struct roof_config cfg = kind_gpu_cfg(req, g, ROOF_DECODE);
            cfg.batch = crit[g];
            struct roof_result r;
            if (kind_evaluate(&cfg, &r, errs) != 0)
                return -1;
            kind_fmt_count(crit[g], num, sizeof num);
            bool beyond = crit[g] > (double)maxb[g];
            snprintf(text, sizeof text, "critical batch %s%s", num,
                     beyond ? "\n(beyond memory)" : "");
            struct chart_style ms =
                chart_marker_style(CHART_MARKER_DIAMOND, 17, rgb, 2, CHART_YELLOW, 1);
            for (int k = 0; k < 2; k++) {
                struct chart_panel *p = k ? bot : top;
                double y = k ? r.itl_s : r.tokens_per_s_total;
                chart_add_point(c, p, crit[g], y, &ms);
                struct chart_label *l = chart_add_label(c, p, text, crit[g], y, 250 - g, rgb);
                if (l) {
                    /* on the side of the point away from the memory limit first, so that the
                     * label and its leader do not cross the limit's line or crowd its label */
                    static const enum chart_dir D[] = {CHART_SE, CHART_NW, CHART_S,  CHART_N,
                                                       CHART_E,  CHART_W,  CHART_SW, CHART_NE};
                    static const enum chart_dir RIGHT[] = {CHART_SE, CHART_NE, CHART_E,  CHART_S,
                                                           CHART_N,  CHART_SW, CHART_NW, CHART_W};
                    static const enum chart_dir LEFT[] = {CHART_NW, CHART_SW, CHART_W,  CHART_N,
                                                          CHART_S,  CHART_SE, CHART_NE, CHART_E};
                    bool near = maxb[g] >= 1 && fabs(log10(crit[g] / (double)maxb[g])) < 1.0;
                    chart_label_dirs(l, !near ? D : beyond ? RIGHT : LEFT, 8);
                    chart_label_leader(l, 11, 9, true);
                }
            }
        }
    }
    kind_gpu_legend(c, top, req, req->n_batches > 1);
    bool misfit = false;
    for (int g = 0; g < req->n_hws; g++)
        misfit |= kind_any_false(fits[g], n[g]);
    if (misfit)
        kind_faded_legend(c, top);
    struct chart_style s = chart_line_style(CHART_GREY, 1.8, CHART_DOTTED);
    chart_add_legend(c, top, "memory limit (largest batch that fits)", &s, false);
    s = chart_marker_style(CHART_MARKER_DIAMOND, 17, CHART_BLACK, 2, CHART_YELLOW, 1);
    chart_add_legend(c, top, "critical batch (weight GEMMs reach the ridge)", &s, false);
    kind_set_titles(c, req, "Decode throughput and step time against batch", false, false, true);
    return 0;
}
