/* The memory chart (docs/charts.md#kinds): the decode footprint (weights, KV cache, activations,
 * engine reserve) as stacked bars per device and batch against each device's capacity. No
 * drawing and no printing. */
#include "render/chart_kinds.h"

#include "core/dtype.h"
#include "core/hw.h"
#include "util/array.h"
#include "util/units.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

int
chart_fill_memory(struct chart *c, const struct chart_request *req, struct err_list *errs)
{
    (void)errs;
    struct chart_panel *p = chart_add_panel(c);
    double bl[CHART_MAX_BATCHES];
    int nbl;
    long limit = 0; /* single device, default list: the last bar is the memory limit */
    p->legend_left = true;
    if (req->n_batches > 0) {
        nbl = req->n_batches;
        memcpy(bl, req->batches, (size_t)nbl * sizeof *bl);
    } else if (req->n_hws == 1) {
        /* powers of four below the memory limit, then the limit itself */
        struct roof_config cfg = kind_gpu_cfg(req, 0, ROOF_DECODE);
        long mb = roof_max_batch(&cfg);
        nbl = 0;
        for (double b = 1; b < (double)mb && nbl < 5; b *= 4)
            bl[nbl++] = b;
        if (mb >= 1)
            bl[nbl++] = (double)(limit = mb);
        if (nbl == 0)
            bl[nbl++] = 1;
    } else {
        nbl = 1;
        bl[0] = req->base.batch;
    }
    enum { MAXCAT = CHART_MAX_GPUS * CHART_MAX_BATCHES };
    char names[MAXCAT][96], num[64];
    const char *labels[MAXCAT];
    struct roof_memory mem[MAXCAT];
    int ncat = 0;
    double ymax = 0;
    for (int g = 0; g < req->n_hws; g++)
        for (int b = 0; b < nbl; b++) {
            struct roof_config cfg = kind_gpu_cfg(req, g, ROOF_DECODE);
            cfg.batch = bl[b];
            roof_memory(&cfg, &mem[ncat]);
            kind_fmt_count(bl[b], num, sizeof num);
            /* several devices with several batches: every bar gets its batch (a device name
             * under each would not fit and every other label would be thinned away); the
             * devices are named on their capacity lines and in the axis title */
            if (req->n_hws > 1 && nbl > 1)
                snprintf(names[ncat], sizeof names[ncat], "%s", num);
            else if (req->n_hws > 1)
                snprintf(names[ncat], sizeof names[ncat], "%s", req->hws[g]->id);
            else if (nbl > 1) /* "batch" once in the axis title, so no label is thinned */
                snprintf(names[ncat], sizeof names[ncat], "%s%s", num,
                         limit > 0 && bl[b] == (double)limit ? "\n(memory limit)" : "");
            else
                snprintf(names[ncat], sizeof names[ncat], "batch %s", num);
            labels[ncat] = names[ncat];
            ymax = fmax(ymax, fmax(mem[ncat].total_bytes, mem[ncat].capacity_bytes));
            ncat++;
        }
    chart_axis_categories(c, &p->x, labels, ncat);
    if (req->n_hws == 1 && nbl > 1)
        snprintf(p->x.title, sizeof p->x.title, "batch (sequences decoded together)");
    if (req->n_hws > 1 && nbl > 1) {
        int n = snprintf(p->x.title, sizeof p->x.title, "batch, grouped by device: ");
        for (int g = 0; g < req->n_hws && n > 0 && (size_t)n < sizeof p->x.title; g++)
            n += snprintf(p->x.title + n, sizeof p->x.title - (size_t)n, "%s%s", g ? " | " : "",
                          req->hws[g]->id);
    }
    double lo, hi, step;
    chart_linear_bounds(0, ymax * 1.12, 5, &lo, &hi, &step);
    chart_axis_set(&p->y, CHART_LINEAR, 0, hi, "memory", "B");
    static const uint32_t PART_RGB[] = {CHART_BLUE, CHART_ORANGE, CHART_GREEN, CHART_GREY};
    static const char *const PART[] = {"weights", "KV cache", "activations", "engine reserve"};
    bool any_reserve = false;
    char text[160];
    for (int i = 0; i < ncat; i++) {
        const struct roof_memory *m = &mem[i];
        double parts[4] = {m->weights_bytes, m->kv_bytes, m->act_bytes, m->reserve_bytes};
        double y = 0;
        for (int k = 0; k < 4; k++) {
            if (!(parts[k] > 0))
                continue;
            chart_add_bar(c, p, i, y, y + parts[k], 0.62, PART_RGB[k]);
            y += parts[k];
        }
        any_reserve |= m->reserve_bytes > 0;
        chart_format_si(m->total_bytes, 3, "B", false, num, sizeof num);
        if (m->fits)
            snprintf(text, sizeof text, "%s", num);
        else
            snprintf(text, sizeof text, "%s\ndoes not fit", num);
        struct chart_label *l = chart_add_label(c, p, text, i, m->total_bytes, 230,
                                                m->fits ? 0x222222 : CHART_VERMILLION);
        if (l) {
            static const enum chart_dir D[] = {CHART_N, CHART_NW, CHART_NE};
            chart_label_dirs(l, D, 3);
            chart_label_leader(l, 4, 6, !m->fits);
        }
        /* capacity of this bar's device, once over all of its bars */
        if (i % nbl != 0)
            continue;
        double cx[2] = {i - 0.45, i + nbl - 1 + 0.45};
        double cy[2] = {m->capacity_bytes, m->capacity_bytes};
        if (req->n_hws == 1) {
            cx[0] = p->x.min;
            cx[1] = p->x.max;
        }
        struct chart_style s = chart_line_style(CHART_BLACK, 2.2, CHART_DASHED);
        chart_add_line(c, p, &s, cx, cy, 2);
        chart_format_si(m->capacity_bytes, 3, "B", false, num, sizeof num);
        const struct hw_profile *dev = req->n_hws > 0 ? req->hws[i / nbl] : req->base.hw;
        if (dev && dev->memory_reported_bytes > 0 && !(req->n_hws > 1 && nbl > 1)) {
            /* the figure drawn is what the device reports, not its datasheet's: say so */
            size_t k = strlen(num);
            snprintf(num + k, sizeof num - k, " = %.1f GiB reported",
                     dev->memory_reported_bytes / UNIT_GIB);
        }
        if (req->n_hws > 1 && nbl > 1)
            snprintf(text, sizeof text, "%s: %s", req->hws[i / nbl]->id, num);
        else
            snprintf(text, sizeof text, "capacity %s", num);
        l = chart_add_label(c, p, text, cx[1], m->capacity_bytes, 220 - i, CHART_BLACK);
        if (l) {
            static const enum chart_dir D[] = {CHART_NW, CHART_SW};
            chart_label_dirs(l, D, 2);
            l->gap_px = 4;
            l->rings = 1;
            for (int a = i + nbl - 1; a >= 0 && a >= (req->n_hws == 1 ? 0 : i); a--)
                chart_label_anchor(l, a + (req->n_hws == 1 ? 0.45 : -0.45), m->capacity_bytes);
        }
    }
    for (int k = 0; k < 4; k++) {
        if (k == 3 && !any_reserve)
            continue;
        struct chart_style s = {0};
        s.fill_rgb = PART_RGB[k];
        s.fill_alpha = 1;
        chart_add_legend(c, p, PART[k], &s, true);
    }
    struct chart_style s = chart_line_style(CHART_BLACK, 2.2, CHART_DASHED);
    /* the line is the memory each device reports to software where its profile gives it
     * (hw_memory_bytes), which is more than the datasheet's "GB" on most parts */
    bool reported = req->base.hw && req->base.hw->memory_reported_bytes > 0;
    for (int g = 0; g < req->n_hws; g++)
        reported = reported || req->hws[g]->memory_reported_bytes > 0;
    chart_add_legend(
        c, p, reported ? "device memory, as the device reports it" : "device memory capacity", &s,
        false);
    kind_set_titles(c, req, "Memory footprint of decoding", req->n_batches <= 1 && req->n_hws > 1,
                    false, true);
    return 0;
}
