/* The decode chart (docs/charts.md#kinds): time per decode step against context, and the time to
 * generate N tokens after the prompt, per device and batch, with the context where KV-cache
 * reads exceed weight reads. No drawing and no printing. */
#include "render/chart_kinds.h"

#include "core/dtype.h"
#include "core/hw.h"
#include "util/array.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

int
chart_fill_decode(struct chart *c, const struct chart_request *req, struct err_list *errs)
{
    struct chart_panel *left = chart_add_panel(c), *right = chart_add_panel(c);
    c->cols = 2;
    snprintf(left->title, sizeof left->title, "time per decode step");
    snprintf(right->title, sizeof right->title, "time to generate N tokens after the prompt");
    double bl[4], cgrid[SAMPLES], ngrid[SAMPLES];
    int nbl;
    kind_batch_list(req, bl, &nbl);
    double cap = kind_model_max_context(req);
    size_t nc = kind_int_grid(16, cap, 64, cgrid);
    double nmax = fmax(16, fmin(cap - req->base.prompt, 65536));
    size_t nn = kind_int_grid(1, nmax, 64, ngrid);
    double itl[CHART_MAX_GPUS][4][SAMPLES], tot[CHART_MAX_GPUS][4][SAMPLES];
    bool cfits[CHART_MAX_GPUS][4][SAMPLES], nfits[CHART_MAX_GPUS][4][SAMPLES];
    double kvc[CHART_MAX_GPUS][4], kv_t[CHART_MAX_GPUS][4];
    struct kind_range cxr = {0, 0}, nxr = {0, 0}, iyr = {0, 0}, tyr = {0, 0};
    for (size_t i = 0; i < nc; i++)
        kind_range_add(&cxr, cgrid[i]);
    for (size_t i = 0; i < nn; i++)
        kind_range_add(&nxr, ngrid[i]);
    for (int g = 0; g < req->n_hws; g++)
        for (int b = 0; b < nbl; b++) {
            struct roof_config cfg = kind_gpu_cfg(req, g, ROOF_DECODE);
            cfg.batch = bl[b];
            struct roof_result r;
            for (size_t i = 0; i < nc; i++) {
                cfg.context = cgrid[i];
                if (kind_evaluate(&cfg, &r, errs) != 0)
                    return -1;
                itl[g][b][i] = r.itl_s;
                cfits[g][b][i] = r.mem.fits;
                kind_range_add(&iyr, r.itl_s);
            }
            /* sum of step times over output tokens: trapezoid between grid points, exact where
             * the step time is linear in context (docs/charts.md#kinds) */
            double prev_n = 1, prev_t = 0, acc = 0;
            for (size_t i = 0; i < nn; i++) {
                double nk = ngrid[i];
                cfg.context = req->base.prompt + nk - 1;
                if (kind_evaluate(&cfg, &r, errs) != 0)
                    return -1;
                if (i == 0) {
                    acc = r.itl_s * nk;
                } else {
                    acc += (nk - prev_n) * (prev_t + r.itl_s) / 2;
                }
                prev_n = nk;
                prev_t = r.itl_s;
                tot[g][b][i] = acc;
                nfits[g][b][i] = r.mem.fits;
                kind_range_add(&tyr, acc);
            }
            double cstar;
            kvc[g][b] = NAN;
            cfg.context = req->base.context;
            if (kind_kv_crossover(&cfg, cap, &cstar) == 0) {
                cfg.context = cstar;
                if (kind_evaluate(&cfg, &r, errs) != 0)
                    return -1;
                kvc[g][b] = cstar;
                kv_t[g][b] = r.itl_s;
            }
        }
    if (kind_set_log_axis(&left->x, &cxr, 1, 1, "context (tokens already in the KV cache)", "",
                          false) ||
        kind_set_log_axis(&right->x, &nxr, 1, 1, "output tokens N", "", false) ||
        kind_set_log_axis(&left->y, &iyr, 1.3, 1.6, "inter-token latency", "s", true) ||
        kind_set_log_axis(&right->y, &tyr, 1.3, 1.6, "decode time", "s", true)) {
        err_add(errs, NULL, 0, 0, ERR_ERROR, "nothing to plot");
        return -1;
    }
    char text[200], num[32];
    bool any_kv = false;
    for (int g = 0; g < req->n_hws; g++)
        for (int b = 0; b < nbl; b++) {
            struct chart_style s = chart_line_style(KIND_GPU_RGB[g], 2.8, KIND_BATCH_DASH[b]);
            kind_add_split_line(c, left, &s, cgrid, itl[g][b], cfits[g][b], nc);
            kind_add_split_line(c, right, &s, ngrid, tot[g][b], nfits[g][b], nn);
            kind_series_name(req, g, bl[b], nbl, text, sizeof text);
            chart_add_legend(c, left, text, &s, false);
            char tv[64], bn[32];
            chart_format_si(tot[g][b][nn - 1], 3, "s", true, tv, sizeof tv);
            if (nbl > 1) {
                kind_fmt_count(bl[b], bn, sizeof bn);
                size_t tl = strlen(tv);
                snprintf(tv + tl, sizeof tv - tl, " (batch %s)", bn);
            }
            struct chart_label *l = chart_add_label(c, right, tv, ngrid[nn - 1], tot[g][b][nn - 1],
                                                    150 - g * 4 - b, KIND_GPU_RGB[g]);
            if (l)
                l->margin = true;
            if (!isfinite(kvc[g][b]))
                continue;
            struct chart_style ms =
                chart_marker_style(CHART_MARKER_SQUARE, 16, KIND_GPU_RGB[g], 2, CHART_YELLOW, 1);
            chart_add_point(c, left, kvc[g][b], kv_t[g][b], &ms);
            any_kv = true;
            if (g > 0) /* bytes only: the same context on every device, labelled once */
                continue;
            kind_fmt_count(kvc[g][b], num, sizeof num);
            snprintf(text, sizeof text, "KV read > weights from %s", num);
            l = chart_add_label(c, left, text, kvc[g][b], kv_t[g][b], 250 - g * 4 - b,
                                KIND_GPU_RGB[g]);
            if (l) {
                static const enum chart_dir D[] = {CHART_NW, CHART_SE, CHART_W,  CHART_N,
                                                   CHART_S,  CHART_E,  CHART_NE, CHART_SW};
                chart_label_dirs(l, D, 8);
                /* two rings: near its point or not at all (the legend names the marker) */
                chart_label_leader(l, 11, 2, true);
            }
            any_kv = true;
        }
    struct chart_style s;
    if (any_kv) {
        s = chart_marker_style(CHART_MARKER_SQUARE, 16, CHART_BLACK, 2, CHART_YELLOW, 1);
        chart_add_legend(c, left, "KV-cache reads exceed weight reads", &s, false);
    } else {
        kind_fmt_count(cap, num, sizeof num);
        snprintf(text, sizeof text,
                 "Left: KV-cache reads stay below weight reads up to the model's longest context "
                 "(%s).",
                 num);
        chart_note(c, text);
    }
    bool misfit = false;
    for (int g = 0; g < req->n_hws; g++)
        for (int b = 0; b < nbl; b++)
            misfit |= kind_any_false(cfits[g][b], nc) || kind_any_false(nfits[g][b], nn);
    if (misfit)
        kind_faded_legend(c, left);
    kind_set_titles(c, req, "Decode time", true, true, false);
    kind_fmt_count(req->base.prompt, num, sizeof num);
    snprintf(text, sizeof text,
             "Right: sum of the step times of N tokens generated after a %s-token prompt "
             "(prefill not included).",
             num);
    chart_note(c, text);
    return 0;
}
