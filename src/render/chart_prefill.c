/* The prefill chart (docs/charts.md#kinds): time to first token against prompt length per device
 * and batch, with the prompt length where prefill turns compute-bound. No drawing, no printing. */
#include "render/chart_kinds.h"

#include "core/dtype.h"
#include "core/hw.h"
#include "util/array.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

int
chart_fill_prefill(struct chart *c, const struct chart_request *req, struct err_list *errs)
{
    struct chart_panel *p = chart_add_panel(c);
    double bl[4], grid[SAMPLES];
    int nbl;
    kind_batch_list(req, bl, &nbl);
    size_t n = kind_int_grid(16, kind_model_max_context(req), 64, grid);
    double t[CHART_MAX_GPUS][4][SAMPLES];
    bool fits[CHART_MAX_GPUS][4][SAMPLES];
    double cross[CHART_MAX_GPUS][4], cross_t[CHART_MAX_GPUS][4];
    struct kind_range xr = {0, 0}, yr = {0, 0};
    for (size_t i = 0; i < n; i++)
        kind_range_add(&xr, grid[i]);
    for (int g = 0; g < req->n_hws; g++)
        for (int b = 0; b < nbl; b++) {
            struct roof_config cfg = kind_gpu_cfg(req, g, ROOF_PREFILL);
            cfg.batch = bl[b];
            struct roof_result r;
            for (size_t i = 0; i < n; i++) {
                cfg.prompt = grid[i];
                if (kind_evaluate(&cfg, &r, errs) != 0)
                    return -1;
                t[g][b][i] = r.ttft_s;
                fits[g][b][i] = r.mem.fits;
                kind_range_add(&yr, r.ttft_s);
            }
            double x;
            cross[g][b] = NAN;
            if (roof_prefill_crossover(&cfg, &x) == 0 && x >= grid[0] && x <= grid[n - 1]) {
                cfg.prompt = x;
                if (kind_evaluate(&cfg, &r, errs) != 0)
                    return -1;
                cross[g][b] = x;
                cross_t[g][b] = r.ttft_s;
            }
        }
    if (kind_set_log_axis(&p->x, &xr, 1, 1, "prompt length (tokens per sequence)", "", false) ||
        kind_set_log_axis(&p->y, &yr, 1.3, 1.6, "time to first token (TTFT)", "s", true)) {
        err_add(errs, NULL, 0, 0, ERR_ERROR, "nothing to plot");
        return -1;
    }
    char text[200], num[32];
    for (int g = 0; g < req->n_hws; g++)
        for (int b = 0; b < nbl; b++) {
            struct chart_style s = chart_line_style(KIND_GPU_RGB[g], 2.8, KIND_BATCH_DASH[b]);
            kind_add_split_line(c, p, &s, grid, t[g][b], fits[g][b], n);
            kind_series_name(req, g, bl[b], nbl, text, sizeof text);
            chart_add_legend(c, p, text, &s, false);
            if (!isfinite(cross[g][b]))
                continue;
            struct chart_style ms =
                chart_marker_style(CHART_MARKER_DIAMOND, 17, KIND_GPU_RGB[g], 2, CHART_YELLOW, 1);
            chart_add_point(c, p, cross[g][b], cross_t[g][b], &ms);
            kind_fmt_count(cross[g][b], num, sizeof num);
            snprintf(text, sizeof text, "compute-bound from %s tokens", num);
            struct chart_label *l = chart_add_label(c, p, text, cross[g][b], cross_t[g][b],
                                                    250 - g * 4 - b, KIND_GPU_RGB[g]);
            if (l) {
                static const enum chart_dir D[] = {CHART_NW, CHART_SE, CHART_N,  CHART_W,
                                                   CHART_S,  CHART_E,  CHART_NE, CHART_SW};
                chart_label_dirs(l, D, 8);
                chart_label_leader(l, 11, 5, true);
            }
        }
    struct chart_style s =
        chart_marker_style(CHART_MARKER_DIAMOND, 17, CHART_BLACK, 2, CHART_YELLOW, 1);
    chart_add_legend(c, p, "prefill turns compute-bound", &s, false);
    bool misfit = false;
    for (int g = 0; g < req->n_hws; g++)
        for (int b = 0; b < nbl; b++)
            misfit |= kind_any_false(fits[g][b], n);
    if (misfit)
        kind_faded_legend(c, p);
    kind_set_titles(c, req, "Time to first token against prompt length", true, false, false);
    return 0;
}
