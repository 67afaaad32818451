/* The roofline chart (docs/charts.md#kinds): every operator of prefill and decode as a point under
 * the memory and compute roofs of each device, marker area by share of its phase's time, with
 * measured points (roofline bench) on top. No drawing and no printing. */
#include "render/chart_kinds.h"

#include "core/dtype.h"
#include "core/hw.h"
#include "util/array.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

int
chart_fill_roofline(struct chart *c, const struct chart_request *req, struct err_list *errs)
{
    struct chart_panel *p = chart_add_panel(c);
    struct kind_op_point pts[CHART_MAX_GPUS][2][ROOF_OP_COUNT];
    struct roof_result res[CHART_MAX_GPUS][2];
    int npts[CHART_MAX_GPUS][2];
    unsigned skipped = 0;
    struct kind_range xr = {0, 0}, yr = {0, 0};
    for (int g = 0; g < req->n_hws; g++) {
        for (int ph = 0; ph < 2; ph++) {
            struct roof_config cfg = kind_gpu_cfg(req, g, ph == 0 ? ROOF_PREFILL : ROOF_DECODE);
            if (kind_evaluate(&cfg, &res[g][ph], errs) != 0)
                return -1;
            npts[g][ph] = kind_op_points(&res[g][ph], false, pts[g][ph], g == 0 ? &skipped : NULL);
            for (int i = 0; i < npts[g][ph]; i++) {
                kind_range_add(&xr, pts[g][ph][i].x);
                kind_range_add(&yr, pts[g][ph][i].y);
            }
        }
    }
    for (size_t i = 0; i < req->n_measured; i++) {
        kind_range_add(&xr, req->measured[i].intensity_flop_per_byte);
        kind_range_add(&yr, req->measured[i].flops_per_s);
    }
    /* three or more devices: only the roofs the weight GEMMs use (every format of five devices
     * gave 27 stacked roof labels) */
    bool many = req->n_hws >= 3;
    kind_roof_ranges(req, !many, &xr, &yr);
    struct kind_range xr2 = xr;
    kind_range_add(&xr2, xr.hi * 4); /* the roofs run on right of the last ridge */
    if (kind_set_log_axis(&p->x, &xr2, 2, 1, "arithmetic intensity (FLOP/byte)", "", false) ||
        kind_set_log_axis(&p->y, &yr, 2.5, 3, "attainable performance (FLOP/s)", "", false)) {
        err_add(errs, NULL, 0, 0, ERR_ERROR, "no operator has both FLOPs and bytes to plot");
        return -1;
    }
    for (int g = 0; g < req->n_hws; g++)
        kind_add_roofs(c, p, req, g, !many, true);
    /* operators: fill by phase, marker shape by device, area by share of the phase's time */
    for (int g = 0; g < req->n_hws; g++) {
        for (int ph = 0; ph < 2; ph++) {
            uint32_t rgb = ph == 0 ? PREFILL_RGB : DECODE_RGB;
            for (int i = 0; i < npts[g][ph]; i++) {
                const struct kind_op_point *o = &pts[g][ph][i];
                double d = fmax(7.0, 70.0 * sqrt(o->share));
                struct chart_style s = chart_marker_style(KIND_GPU_MARKER[g], d,
                                                          req->n_hws > 1 ? KIND_GPU_RGB[g] : rgb,
                                                          req->n_hws > 1 ? 2.0 : 1.4, rgb, 0.7);
                chart_add_point(c, p, o->x, o->y, &s);
                if (g != 0 || o->share < 0.03)
                    continue;
                char names[128], text[180];
                kind_group_label(&res[g][ph], o->ops, o->n_ops, names, sizeof names);
                snprintf(text, sizeof text, "%s %.0f%%", names, o->share * 100);
                struct chart_label *l =
                    chart_add_label(c, p, text, o->x, o->y, 100 + (int)(o->share * 100), rgb);
                chart_label_leader(l, d / 2 + 3, 10, false);
            }
        }
    }
    for (size_t i = 0; i < req->n_measured; i++) {
        const struct chart_measured *m = &req->measured[i];
        struct chart_style s = chart_marker_style(CHART_MARKER_CROSS, 16, CHART_BLACK, 3, 0, 0);
        chart_add_point(c, p, m->intensity_flop_per_byte, m->flops_per_s, &s);
        if (m->label && m->label[0]) {
            struct chart_label *l = chart_add_label(c, p, m->label, m->intensity_flop_per_byte,
                                                    m->flops_per_s, 150, CHART_BLACK);
            chart_label_leader(l, 11, 5, true);
        }
    }
    struct chart_style s =
        chart_marker_style(CHART_MARKER_CIRCLE, 15, PREFILL_RGB, 1.4, PREFILL_RGB, 0.7);
    chart_add_legend(c, p, "prefill operators", &s, false);
    s.rgb = s.fill_rgb = DECODE_RGB;
    chart_add_legend(c, p, "decode operators", &s, false);
    if (req->n_hws > 1) {
        kind_gpu_legend(c, p, req, true);
        s = chart_line_style(CHART_GREY, 1.4, CHART_DASHED);
        if (!many)
            chart_add_legend(c, p, "roofs of formats the GEMMs do not use", &s, false);
    } else {
        s = chart_line_style(CHART_BLACK, 2.6, CHART_SOLID);
        chart_add_legend(c, p, "roofs used by the weight GEMMs", &s, false);
        s = chart_line_style(CHART_BLACK, 1.4, CHART_DASHED);
        chart_add_legend(c, p, "roofs of other formats", &s, false);
    }
    s = chart_marker_style(CHART_MARKER_CIRCLE, 14, CHART_BLACK, 2.4, 0xFFFFFF, 1);
    chart_add_legend(c, p, "ridge point", &s, false);
    if (req->n_measured) {
        s = chart_marker_style(CHART_MARKER_CROSS, 16, CHART_BLACK, 3, 0, 0);
        chart_add_legend(c, p, "measured", &s, false);
    }
    kind_set_titles(c, req, "Roofline", true, true, true);
    chart_note(c, "Marker area is proportional to the operator's share of its phase's time; "
                  "labels show the largest shares (first device).");
    if (many)
        chart_note(c, "Only the compute roofs the weight GEMMs use are drawn for three or more "
                      "devices; chart one or two devices to see every format's roof.");
    /* measured points above the memory roof are not an error: their working set stayed in a
     * cache, whose bandwidth is higher than DRAM's (ERT, Yang et al.; Intel Advisor draws the
     * cache roofs for this reason) */
    int above = 0;
    double bw = req->hws[0]->memory_bandwidth_bytes_per_s;
    for (size_t i = 0; i < req->n_measured; i++)
        if (req->measured[i].flops_per_s > 1.05 * bw * req->measured[i].intensity_flop_per_byte)
            above++;
    if (above > 0) {
        char buf[300];
        snprintf(buf, sizeof buf,
                 "%d measured point%s above the memory roof: %s working set stayed in a cache "
                 "(cache-resident), whose bandwidth is higher than the DRAM roof drawn here.",
                 above, above == 1 ? " lies" : "s lie", above == 1 ? "its" : "their");
        chart_note(c, buf);
    }
    if (skipped) {
        char buf[256] = "Not shown (no FLOPs or no DRAM traffic):";
        int k = 0;
        for (int i = 0; i < ROOF_OP_COUNT; i++)
            if (skipped & (1u << i)) {
                size_t l = strlen(buf);
                snprintf(buf + l, sizeof buf - l, "%s %s", k++ ? "," : "",
                         roof_op_name((enum roof_op)i));
            }
        size_t l = strlen(buf);
        snprintf(buf + l, sizeof buf - l, ".");
        chart_note(c, buf);
    }
    return 0;
}
