/* Builds the chart model of each kind from the engine: the roofline with every operator, the decode
 * regime paths, throughput against batch, TTFT against prompt, decode time against context and
 * output length, and the memory footprint. Physics comes from core/roof.h only; no drawing.
 * Over 1,000 lines until it is split into one file per chart kind (issue 12, item 2). */
#include "render/charts.h"

#include "core/dtype.h"
#include "core/hw.h"
#include "io/ycheck.h"
#include "io/ytree.h"
#include "util/array.h"
#include "util/strs.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define SAMPLES 96
#define DOT "  \xc2\xb7  " /* separator in subtitles */

/* Devices in overlay order: black, then Okabe-Ito hues that stay apart from the phase colours. */
static const uint32_t GPU_RGB[CHART_MAX_GPUS] = {CHART_BLACK, CHART_GREEN, CHART_PURPLE,
                                                 CHART_ORANGE, CHART_SKY};
static const enum chart_marker GPU_MARKER[CHART_MAX_GPUS] = {
    CHART_MARKER_CIRCLE, CHART_MARKER_SQUARE, CHART_MARKER_TRIANGLE, CHART_MARKER_DIAMOND,
    CHART_MARKER_DOWN};
static const enum chart_dash BATCH_DASH[] = {CHART_SOLID, CHART_DASHED, CHART_DASHDOT,
                                             CHART_DOTTED};
#define PREFILL_RGB CHART_VERMILLION
#define DECODE_RGB CHART_BLUE
/* Faded: the configuration does not fit in device memory. */
#define FADED 0.3

static const char *const KIND_NAMES[CHART_KIND_COUNT] = {"roofline", "regime", "batch",
                                                         "prefill",  "decode", "memory"};

const char *
chart_kind_name(enum chart_kind k)
{
    return k >= 0 && k < CHART_KIND_COUNT ? KIND_NAMES[k] : "?";
}

int
chart_kind_parse(const char *name, enum chart_kind *out)
{
    for (int i = 0; i < CHART_KIND_COUNT; i++)
        if (strcmp(name, KIND_NAMES[i]) == 0) {
            *out = (enum chart_kind)i;
            return 0;
        }
    return -1;
}

/* ---- shared helpers ---- */

static struct chart_style
marker_style(enum chart_marker m, double px, uint32_t stroke, double stroke_px, uint32_t fill,
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

static struct roof_config
gpu_cfg(const struct chart_request *req, int g, enum roof_phase phase)
{
    struct roof_config c = req->base;
    c.hw = req->hws[g];
    c.phase = phase;
    /* the engine reserve is the same fraction of every device's memory */
    if (req->base.hw && req->base.hw->memory_capacity_bytes > 0)
        c.reserve_bytes = req->base.reserve_bytes / req->base.hw->memory_capacity_bytes *
                          c.hw->memory_capacity_bytes;
    return c;
}

/* Whole counts (tokens, sequences): "25", "327", "8.19 k". */
static void
fmt_count(double v, char *buf, size_t n)
{
    chart_format_si(fabs(v) < 1000 ? round(v) : v, 3, "", false, buf, n);
}

/* "weights bf16 · activations bf16 · KV bf16" plus the lengths the kind depends on. */
static void
set_titles(struct chart *c, const struct chart_request *req, const char *what, bool batch,
           bool prompt, bool context)
{
    const struct roof_config *b = &req->base;
    char gpus[200] = "";
    for (int g = 0; g < req->n_hws; g++) {
        size_t l = strlen(gpus);
        snprintf(gpus + l, sizeof gpus - l, "%s%s", g ? ", " : "", req->hws[g]->id);
    }
    snprintf(c->title, sizeof c->title, "%s: %s on %s", what, b->model->id, gpus);
    char s[512], num[32];
    int n = snprintf(s, sizeof s, "weights %s" DOT "activations %s" DOT "KV cache %s",
                     dtype_name(b->weights), dtype_name(b->act), dtype_name(b->kv));
    if (batch && n > 0 && (size_t)n < sizeof s) {
        if (req->n_batches > 1) {
            n += snprintf(s + n, sizeof s - (size_t)n, DOT "batch ");
            for (int i = 0; i < req->n_batches && n > 0 && (size_t)n < sizeof s; i++) {
                fmt_count(req->batches[i], num, sizeof num);
                n += snprintf(s + n, sizeof s - (size_t)n, "%s%s", i ? ", " : "", num);
            }
        } else {
            fmt_count(b->batch, num, sizeof num);
            n += snprintf(s + n, sizeof s - (size_t)n, DOT "batch %s", num);
        }
    }
    if (prompt && n > 0 && (size_t)n < sizeof s) {
        fmt_count(b->prompt, num, sizeof num);
        n += snprintf(s + n, sizeof s - (size_t)n, DOT "prompt %s", num);
    }
    if (context && n > 0 && (size_t)n < sizeof s) {
        fmt_count(b->context, num, sizeof num);
        n += snprintf(s + n, sizeof s - (size_t)n, DOT "context %s", num);
    }
    if (n > 0 && (size_t)n < sizeof s && b->tp > 1)
        n += snprintf(s + n, sizeof s - (size_t)n, DOT "TP %d", b->tp);
    if (n > 0 && (size_t)n < sizeof s && b->pp > 1)
        n += snprintf(s + n, sizeof s - (size_t)n, "%sPP %d", b->tp > 1 ? ", " : DOT, b->pp);
    if (n > 0 && (size_t)n < sizeof s && b->tuning.step_overhead_s > 0)
        n += snprintf(s + n, sizeof s - (size_t)n, DOT "engine-tuned");
    if (n > 0 && (size_t)n < sizeof s)
        snprintf(s + n, sizeof s - (size_t)n, DOT "flash attention %s",
                 b->flash_attention ? "on" : "off");
    snprintf(c->subtitle, sizeof c->subtitle, "%s", s);
}

/* Appends a line to the footnote. */
static void
note(struct chart *c, const char *text)
{
    size_t l = strlen(c->footnote);
    snprintf(c->footnote + l, sizeof c->footnote - l, "%s%s", l ? "\n" : "", text);
}

/* n values from lo to hi evenly spaced in log, rounded to whole numbers, unique, ascending. */
static size_t
int_grid(double lo, double hi, size_t n, double *out)
{
    size_t k = 0;
    if (lo < 1)
        lo = 1;
    if (hi < lo)
        hi = lo;
    for (size_t i = 0; i < n; i++) {
        double v = n > 1 ? lo * pow(hi / lo, (double)i / (double)(n - 1)) : lo;
        v = i + 1 == n ? floor(hi) : round(v);
        if (v < lo)
            v = ceil(lo);
        if (k == 0 || v > out[k - 1])
            out[k++] = v;
    }
    return k;
}

/* Inserts v into the ascending whole-number grid if it is not already there (cap entries). */
static size_t
grid_insert(double *grid, size_t n, size_t cap, double v)
{
    v = round(v);
    if (!(v >= 1) || n >= cap)
        return n;
    size_t i = 0;
    while (i < n && grid[i] < v)
        i++;
    if (i < n && grid[i] == v)
        return n;
    memmove(grid + i + 1, grid + i, (n - i) * sizeof *grid);
    grid[i] = v;
    return n + 1;
}

static bool
any_false(const bool *v, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (!v[i])
            return true;
    return false;
}

static void
faded_legend(struct chart *c, struct chart_panel *p)
{
    struct chart_style s = chart_line_style(CHART_GREY, 2.8, CHART_SOLID);
    s.alpha = FADED;
    chart_add_legend(c, p, "does not fit in memory", &s, false);
}

/* A polyline drawn solid where it fits in memory and faded where it does not. */
static void
add_split_line(struct chart *c, struct chart_panel *p, const struct chart_style *s, const double *x,
               const double *y, const bool *fits, size_t n)
{
    size_t start = 0;
    while (start + 1 < n) {
        bool faded = !fits[start + 1];
        size_t end = start + 1;
        while (end + 1 < n && !fits[end + 1] == faded)
            end++;
        struct chart_style st = *s;
        if (faded)
            st.alpha = FADED;
        chart_add_line(c, p, &st, x + start, y + start, end - start + 1);
        start = end;
    }
}

static double
log_mid(double a, double b, double f)
{
    return a * pow(b / a, f);
}

/* Bounds tracking for log axes. */
struct range {
    double lo, hi;
};
static void
range_add(struct range *r, double v)
{
    if (!(v > 0) || !isfinite(v))
        return;
    if (r->lo == 0 || v < r->lo) /* {0, 0} is the empty range */
        r->lo = v;
    if (v > r->hi)
        r->hi = v;
}

static int
set_log_axis(struct chart_axis *ax, const struct range *r, double pad_lo, double pad_hi,
             const char *title, const char *unit, bool sub_unit)
{
    double mn, mx, dummy;
    if (!(r->lo > 0) || chart_log_bounds(r->lo / pad_lo, r->hi * pad_hi, 1, &mn, &mx) != 0 ||
        chart_log_bounds(r->lo, r->hi, 1, &dummy, &dummy) != 0)
        return -1;
    chart_axis_set(ax, CHART_LOG, mn, mx, title, unit);
    ax->sub_unit = sub_unit;
    return 0;
}

/* Shortens "mlp_gate", "mlp_up", "mlp_down" to "mlp_gate/up/down". */
static void
join_names(const int *ops, int n, char *buf, size_t size)
{
    buf[0] = '\0';
    const char *first = roof_op_name((enum roof_op)ops[0]);
    const char *us = strchr(first, '_');
    size_t pre = us ? (size_t)(us - first) + 1 : 0;
    for (int i = 0; i < n; i++) {
        const char *name = roof_op_name((enum roof_op)ops[i]);
        if (i > 0 && pre && strncmp(name, first, pre) == 0)
            name += pre;
        size_t l = strlen(buf);
        snprintf(buf + l, size - l, "%s%s", i ? "/" : "", name);
    }
}

/* Name of merged operators: "mlp_gate/up/down", or "weight GEMMs" when the list is long. */
static void
group_label(const struct roof_result *r, const int *ops, int n, char *buf, size_t size)
{
    join_names(ops, n, buf, size);
    if (strlen(buf) <= 30)
        return;
    bool weights = true;
    for (int q = 0; q < n; q++)
        weights &= r->ops[ops[q]].bytes_weights > 0 && r->ops[ops[q]].is_matmul;
    snprintf(buf, size, "%s (%d operators)", weights ? "weight GEMMs" : "operators", n);
}

static bool
near_rel(double a, double b)
{
    return fabs(a - b) <= 1e-3 * fmax(fabs(a), fabs(b));
}

/* Decode (or prefill) operators as roofline points, coincident ones merged. */
struct op_point {
    double x, y, share;
    int ops[ROOF_OP_COUNT];
    int n_ops;
};

static int
op_points(const struct roof_result *r, bool matmul_only, struct op_point *pts, unsigned *skipped)
{
    int n = 0;
    for (int i = 0; i < ROOF_OP_COUNT; i++) {
        const struct roof_op_result *o = &r->ops[i];
        if (!o->present || (matmul_only && !o->is_matmul))
            continue;
        double x = roof_op_intensity(o), y = o->time_s > 0 ? o->flops / o->time_s : 0;
        if (!(o->flops > 0) || !(roof_op_bytes(o) > 0) || !(y > 0)) {
            if (skipped)
                *skipped |= 1u << i;
            continue;
        }
        int j = 0;
        while (j < n && !(near_rel(pts[j].x, x) && near_rel(pts[j].y, y)))
            j++;
        if (j == n) {
            memset(&pts[n], 0, sizeof pts[n]);
            pts[n].x = x;
            pts[n].y = y;
            n++;
        }
        pts[j].ops[pts[j].n_ops++] = i;
        pts[j].share += r->time_s > 0 ? o->time_s / r->time_s : 0;
    }
    return n;
}

static int
evaluate(const struct roof_config *cfg, struct roof_result *r, struct err_list *errs)
{
    if (roof_evaluate(cfg, r) == 0)
        return 0;
    err_add(errs, NULL, 0, 0, ERR_ERROR, "cannot evaluate %s of '%s' on '%s' (batch %g)",
            roof_phase_name(cfg->phase), cfg->model->id, cfg->hw->id, cfg->batch);
    return -1;
}

/* Distinct compute roofs of a device, highest first; equal peaks share a roof ("fp16/bf16"). */
struct roof_group {
    double peak;
    char names[64];
    bool has[DT_COUNT];
};

static int
roof_groups(const struct hw_profile *hw, struct roof_group *out)
{
    int n = 0;
    for (int d = DT_ROOF_FIRST; d <= DT_ROOF_LAST; d++) {
        double pk = hw->peak_flops_per_s[d];
        if (!(pk > 0))
            continue;
        int j = 0;
        while (j < n && fabs(out[j].peak - pk) > 0.005 * pk)
            j++;
        if (j == n) {
            memset(&out[n], 0, sizeof out[n]);
            out[n++].peak = pk;
        }
        size_t l = strlen(out[j].names);
        snprintf(out[j].names + l, sizeof out[j].names - l, "%s%s", l ? "/" : "",
                 dtype_name((enum dtype)d));
        out[j].has[d] = true;
    }
    for (int i = 1; i < n; i++)
        for (int j = i; j > 0 && out[j].peak > out[j - 1].peak; j--) {
            struct roof_group t = out[j];
            out[j] = out[j - 1];
            out[j - 1] = t;
        }
    return n;
}

/* Draws the memory roof and compute roofs of device g (all formats, or only the GEMM's) with
 * their labels, and marks the ridge point of the GEMM format. */
static void
add_roofs(struct chart *c, struct chart_panel *p, const struct chart_request *req, int g,
          bool all_formats, bool ridge_mark)
{
    const struct hw_profile *hw = req->hws[g];
    double bw = hw->memory_bandwidth_bytes_per_s, x0 = p->x.min, x1 = p->x.max;
    uint32_t rgb = GPU_RGB[g];
    enum dtype used;
    double gemm_peak = hw_peak(hw, dtype_gemm_compute(req->base.weights, req->base.act), &used);
    struct roof_group groups[DT_COUNT];
    int ng = roof_groups(hw, groups);
    if (ng == 0 || !(bw > 0))
        return;
    double top = all_formats ? groups[0].peak : gemm_peak;
    char num[48], text[160];
    /* memory roof: bandwidth x intensity up to the highest roof drawn */
    double dx[2] = {x0, top / bw}, dy[2] = {bw * x0, top};
    struct chart_style s = chart_line_style(rgb, 2.6, CHART_SOLID);
    chart_add_line(c, p, &s, dx, dy, 2);
    chart_format_si(bw, 3, "B/s", false, num, sizeof num);
    snprintf(text, sizeof text, "%s%s%s", req->n_hws > 1 ? hw->id : "memory",
             req->n_hws > 1 ? " " : " ", num);
    struct chart_label *l = chart_add_label(c, p, text, log_mid(x0, top / bw, 0.5),
                                            bw * log_mid(x0, top / bw, 0.5), 150 - g, rgb);
    if (l) {
        static const double F[] = {0.4, 0.6, 0.3, 0.7, 0.2, 0.8, 0.1};
        l->n_anchors = 0;
        for (size_t k = 0; k < ARRAY_SIZE(F); k++) {
            double x = log_mid(x0, top / bw, F[k]);
            chart_label_anchor(l, x, bw * x);
        }
        static const enum chart_dir D[] = {CHART_NW, CHART_SE};
        chart_label_dirs(l, D, 2);
        l->gap_px = 3;
        l->rings = 5;
        l->leader = true;
    }
    /* compute roofs */
    for (int k = 0; k < ng; k++) {
        const struct roof_group *rg = &groups[k];
        bool is_used = rg->has[used] || fabs(rg->peak - gemm_peak) <= 0.005 * gemm_peak;
        if (!all_formats && !is_used)
            continue;
        if (rg->peak > top * 1.0001)
            continue;
        double hx[2] = {rg->peak / bw, x1}, hy[2] = {rg->peak, rg->peak};
        struct chart_style hs = is_used ? chart_line_style(rgb, 2.6, CHART_SOLID)
                                        : chart_line_style(rgb, 1.4, CHART_DASHED);
        chart_add_line(c, p, &hs, hx, hy, 2);
        chart_format_si(rg->peak, 3, "FLOP/s", false, num, sizeof num);
        snprintf(text, sizeof text, "%s %s", rg->names, num);
        l = chart_add_label(c, p, text, x1, rg->peak, (is_used ? 300 : 280 - k) - g, rgb);
        if (l)
            l->margin = true;
    }
    /* ridge of the format the GEMMs run in */
    if (gemm_peak > 0 && ridge_mark) {
        double rx = gemm_peak / bw;
        struct chart_style ms = marker_style(CHART_MARKER_CIRCLE, 14, rgb, 2.4, 0xFFFFFF, 1);
        chart_add_point(c, p, rx, gemm_peak, &ms);
        chart_format_si(rx, 3, "", false, num, sizeof num);
        snprintf(text, sizeof text, "ridge %s FLOP/B", num);
        l = chart_add_label(c, p, text, rx, gemm_peak, 298 - g, rgb);
        if (l) {
            static const enum chart_dir D[] = {CHART_SE, CHART_S, CHART_E, CHART_SW,
                                               CHART_NW, CHART_N, CHART_W, CHART_NE};
            chart_label_dirs(l, D, 8);
            l->gap_px = 10;
            l->rings = 6;
            l->leader = true;
        }
    }
}

/* Intensities and rates of the roofs of every device, for the axis ranges. */
static void
roof_ranges(const struct chart_request *req, bool all_formats, struct range *xr, struct range *yr)
{
    for (int g = 0; g < req->n_hws; g++) {
        const struct hw_profile *hw = req->hws[g];
        double bw = hw->memory_bandwidth_bytes_per_s;
        enum dtype used;
        double gp = hw_peak(hw, dtype_gemm_compute(req->base.weights, req->base.act), &used);
        range_add(xr, gp / bw);
        range_add(yr, gp);
        if (!all_formats)
            continue;
        for (int d = DT_ROOF_FIRST; d <= DT_ROOF_LAST; d++)
            range_add(yr, hw->peak_flops_per_s[d]);
    }
}

static void
gpu_legend(struct chart *c, struct chart_panel *p, const struct chart_request *req, bool markers)
{
    for (int g = 0; g < req->n_hws; g++) {
        struct chart_style s = chart_line_style(GPU_RGB[g], 2.6, CHART_SOLID);
        if (markers) {
            s.marker = GPU_MARKER[g];
            s.marker_px = 11;
            s.filled = true;
            s.fill_rgb = 0xFFFFFF;
            s.fill_alpha = 1;
        }
        chart_add_legend(c, p, req->hws[g]->id, &s, false);
    }
}

/* ---- roofline ---- */

static int
build_roofline(struct chart *c, const struct chart_request *req, struct err_list *errs)
{
    struct chart_panel *p = chart_add_panel(c);
    struct op_point pts[CHART_MAX_GPUS][2][ROOF_OP_COUNT];
    struct roof_result res[CHART_MAX_GPUS][2];
    int npts[CHART_MAX_GPUS][2];
    unsigned skipped = 0;
    struct range xr = {0, 0}, yr = {0, 0};
    for (int g = 0; g < req->n_hws; g++) {
        for (int ph = 0; ph < 2; ph++) {
            struct roof_config cfg = gpu_cfg(req, g, ph == 0 ? ROOF_PREFILL : ROOF_DECODE);
            if (evaluate(&cfg, &res[g][ph], errs) != 0)
                return -1;
            npts[g][ph] = op_points(&res[g][ph], false, pts[g][ph], g == 0 ? &skipped : NULL);
            for (int i = 0; i < npts[g][ph]; i++) {
                range_add(&xr, pts[g][ph][i].x);
                range_add(&yr, pts[g][ph][i].y);
            }
        }
    }
    for (size_t i = 0; i < req->n_measured; i++) {
        range_add(&xr, req->measured[i].intensity_flop_per_byte);
        range_add(&yr, req->measured[i].flops_per_s);
    }
    /* three or more devices: only the roofs the weight GEMMs use (every format of five devices
     * gave 27 stacked roof labels) */
    bool many = req->n_hws >= 3;
    roof_ranges(req, !many, &xr, &yr);
    struct range xr2 = xr;
    range_add(&xr2, xr.hi * 4); /* the roofs run on right of the last ridge */
    if (set_log_axis(&p->x, &xr2, 2, 1, "arithmetic intensity (FLOP/byte)", "", false) ||
        set_log_axis(&p->y, &yr, 2.5, 3, "attainable performance (FLOP/s)", "", false)) {
        err_add(errs, NULL, 0, 0, ERR_ERROR, "no operator has both FLOPs and bytes to plot");
        return -1;
    }
    for (int g = 0; g < req->n_hws; g++)
        add_roofs(c, p, req, g, !many, true);
    /* operators: fill by phase, marker shape by device, area by share of the phase's time */
    for (int g = 0; g < req->n_hws; g++) {
        for (int ph = 0; ph < 2; ph++) {
            uint32_t rgb = ph == 0 ? PREFILL_RGB : DECODE_RGB;
            for (int i = 0; i < npts[g][ph]; i++) {
                const struct op_point *o = &pts[g][ph][i];
                double d = fmax(7.0, 70.0 * sqrt(o->share));
                struct chart_style s =
                    marker_style(GPU_MARKER[g], d, req->n_hws > 1 ? GPU_RGB[g] : rgb,
                                 req->n_hws > 1 ? 2.0 : 1.4, rgb, 0.7);
                chart_add_point(c, p, o->x, o->y, &s);
                if (g != 0 || o->share < 0.03)
                    continue;
                char names[128], text[180];
                group_label(&res[g][ph], o->ops, o->n_ops, names, sizeof names);
                snprintf(text, sizeof text, "%s %.0f%%", names, o->share * 100);
                struct chart_label *l =
                    chart_add_label(c, p, text, o->x, o->y, 100 + (int)(o->share * 100), rgb);
                if (l) {
                    l->gap_px = d / 2 + 3;
                    l->rings = 10;
                    l->leader = true;
                }
            }
        }
    }
    for (size_t i = 0; i < req->n_measured; i++) {
        const struct chart_measured *m = &req->measured[i];
        struct chart_style s = marker_style(CHART_MARKER_CROSS, 16, CHART_BLACK, 3, 0, 0);
        chart_add_point(c, p, m->intensity_flop_per_byte, m->flops_per_s, &s);
        if (m->label && m->label[0]) {
            struct chart_label *l = chart_add_label(c, p, m->label, m->intensity_flop_per_byte,
                                                    m->flops_per_s, 150, CHART_BLACK);
            if (l) {
                l->gap_px = 11;
                l->bold = true;
                l->rings = 5;
                l->leader = true;
            }
        }
    }
    struct chart_style s =
        marker_style(CHART_MARKER_CIRCLE, 15, PREFILL_RGB, 1.4, PREFILL_RGB, 0.7);
    chart_add_legend(c, p, "prefill operators", &s, false);
    s.rgb = s.fill_rgb = DECODE_RGB;
    chart_add_legend(c, p, "decode operators", &s, false);
    if (req->n_hws > 1) {
        gpu_legend(c, p, req, true);
        s = chart_line_style(CHART_GREY, 1.4, CHART_DASHED);
        if (!many)
            chart_add_legend(c, p, "roofs of formats the GEMMs do not use", &s, false);
    } else {
        s = chart_line_style(CHART_BLACK, 2.6, CHART_SOLID);
        chart_add_legend(c, p, "roofs used by the weight GEMMs", &s, false);
        s = chart_line_style(CHART_BLACK, 1.4, CHART_DASHED);
        chart_add_legend(c, p, "roofs of other formats", &s, false);
    }
    s = marker_style(CHART_MARKER_CIRCLE, 14, CHART_BLACK, 2.4, 0xFFFFFF, 1);
    chart_add_legend(c, p, "ridge point", &s, false);
    if (req->n_measured) {
        s = marker_style(CHART_MARKER_CROSS, 16, CHART_BLACK, 3, 0, 0);
        chart_add_legend(c, p, "measured", &s, false);
    }
    set_titles(c, req, "Roofline", true, true, true);
    note(c, "Marker area is proportional to the operator's share of its phase's time; "
            "labels show the largest shares (first device).");
    if (many)
        note(c, "Only the compute roofs the weight GEMMs use are drawn for three or more "
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
        note(c, buf);
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
        note(c, buf);
    }
    return 0;
}

/* ---- regime ---- */

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

static double
kv_read_bytes(const struct roof_result *r)
{
    double s = 0;
    for (int i = 0; i < ROOF_OP_COUNT; i++)
        if (r->ops[i].present)
            s += r->ops[i].bytes_kv_read;
    return s;
}

/* Context at which a decode step reads as many KV-cache bytes as weight bytes (bisection in log
 * context; docs/charts.md#kinds). Returns 0 and sets *out, or -1 when it does not happen below
 * `cap` tokens. */
/* geometric bisection of [1, cap] to half a token: log2(log2(cap) / 0.5) < 8 steps; the cap is a
 * guard against a non-monotone byte count */
#define KV_BISECT_MAX_ITER 200
static int
kv_crossover(const struct roof_config *cfg, double cap, double *out)
{
    struct roof_config k = *cfg;
    struct roof_result r;
    k.phase = ROOF_DECODE;
    k.context = cap;
    if (roof_evaluate(&k, &r) != 0 || kv_read_bytes(&r) < r.bytes_weights)
        return -1;
    double lo = 1, hi = cap;
    for (int it = 0; it < KV_BISECT_MAX_ITER && hi - lo > 0.5; it++) {
        double mid = sqrt(lo * hi);
        k.context = mid;
        if (roof_evaluate(&k, &r) != 0)
            return -1;
        if (kv_read_bytes(&r) >= r.bytes_weights)
            hi = mid;
        else
            lo = mid;
    }
    *out = hi;
    return 0;
}

static const uint32_t OP_RGB[] = {CHART_VERMILLION, CHART_BLUE,   CHART_GREEN,
                                  CHART_PURPLE,     CHART_ORANGE, CHART_SKY};
#define N_OP_RGB ARRAY_SIZE(OP_RGB)

static int
build_regime(struct chart *c, const struct chart_request *req, struct err_list *errs)
{
    struct chart_panel *p = chart_add_panel(c);
    /* paths per device: op groups (matmuls) and the whole step, over batch */
    enum { MAXB = 32 };
    double bx[CHART_MAX_GPUS][ROOF_OP_COUNT + 1][MAXB], by[CHART_MAX_GPUS][ROOF_OP_COUNT + 1][MAXB];
    int groups[ROOF_OP_COUNT][ROOF_OP_COUNT], n_groups = 0;
    char group_names[ROOF_OP_COUNT][64];
    int nb[CHART_MAX_GPUS] = {0};
    double batches[CHART_MAX_GPUS][MAXB];
    double cx[CHART_MAX_GPUS][SAMPLES], cy[CHART_MAX_GPUS][SAMPLES], cctx[CHART_MAX_GPUS][SAMPLES];
    int nc[CHART_MAX_GPUS] = {0};
    double crit[CHART_MAX_GPUS], crit_x[CHART_MAX_GPUS], crit_y[CHART_MAX_GPUS];
    double kvc[CHART_MAX_GPUS], kv_x[CHART_MAX_GPUS], kv_y[CHART_MAX_GPUS];
    long maxb[CHART_MAX_GPUS];
    struct range xr = {0, 0}, yr = {0, 0};
    char text[200], num[48], num2[48];

    for (int g = 0; g < req->n_hws; g++) {
        struct roof_config cfg = gpu_cfg(req, g, ROOF_DECODE);
        maxb[g] = roof_max_batch(&cfg);
        crit[g] = kvc[g] = NAN;
        if (maxb[g] < 1) {
            snprintf(text, sizeof text, "%s: the model does not fit at context %g.",
                     req->hws[g]->id, cfg.context);
            note(c, text);
            continue;
        }
        double top = (double)maxb[g];
        for (double b = 1; b < top && nb[g] < MAXB - 1; b *= 2)
            batches[g][nb[g]++] = b;
        batches[g][nb[g]++] = top;
        for (int i = 0; i < nb[g]; i++) {
            cfg.batch = batches[g][i];
            struct roof_result r;
            if (evaluate(&cfg, &r, errs) != 0)
                return -1;
            if (g == 0 && i == 0) {
                struct op_point pts[ROOF_OP_COUNT];
                int n = op_points(&r, true, pts, NULL);
                for (int k = 0; k < n; k++) {
                    memcpy(groups[k], pts[k].ops, sizeof pts[k].ops);
                    group_label(&r, pts[k].ops, pts[k].n_ops, group_names[k],
                                sizeof group_names[k]);
                }
                n_groups = n;
            }
            for (int k = 0; k < n_groups; k++) {
                const struct roof_op_result *o = &r.ops[groups[k][0]];
                bx[g][k][i] = roof_op_intensity(o);
                by[g][k][i] = o->time_s > 0 ? o->flops / o->time_s : NAN;
                range_add(&xr, bx[g][k][i]);
                range_add(&yr, by[g][k][i]);
            }
            bx[g][n_groups][i] = r.flops / r.bytes;
            by[g][n_groups][i] = r.flops / r.time_s;
            range_add(&xr, bx[g][n_groups][i]);
            range_add(&yr, by[g][n_groups][i]);
        }
        /* critical batch: weight GEMMs reach the ridge */
        cfg.batch = req->base.batch;
        double b;
        if (roof_critical_batch(&cfg, &b) == 0) {
            crit[g] = b;
            struct roof_config k = cfg;
            k.batch = b;
            struct roof_result r;
            if (evaluate(&k, &r, errs) != 0)
                return -1;
            /* the group with the most weight bytes carries the mark */
            int best = 0;
            double wb = -1;
            for (int q = 0; q < n_groups; q++)
                if (r.ops[groups[q][0]].bytes_weights > wb) {
                    wb = r.ops[groups[q][0]].bytes_weights;
                    best = q;
                }
            const struct roof_op_result *o = &r.ops[groups[best][0]];
            crit_x[g] = roof_op_intensity(o);
            crit_y[g] = o->flops / o->time_s;
        }
        /* context path at the requested batch */
        double cap = req->base.model->max_position_embeddings > 0
                         ? (double)req->base.model->max_position_embeddings
                         : 131072;
        double cmax = max_context(&cfg, 128, cap);
        if (cmax >= 128) {
            double grid[SAMPLES];
            size_t n = int_grid(128, cmax, 24, grid);
            for (size_t i = 0; i < n; i++) {
                struct roof_config k = cfg;
                k.context = grid[i];
                struct roof_result r;
                if (evaluate(&k, &r, errs) != 0)
                    return -1;
                cctx[g][nc[g]] = grid[i];
                cx[g][nc[g]] = r.flops / r.bytes;
                cy[g][nc[g]] = r.flops / r.time_s;
                range_add(&xr, cx[g][nc[g]]);
                range_add(&yr, cy[g][nc[g]]);
                nc[g]++;
            }
        }
        double cstar;
        /* bytes only: the same context on every device */
        if (kv_crossover(&cfg, cap, &cstar) != 0) {
            if (g == 0) {
                fmt_count(cap, num, sizeof num);
                fmt_count(cfg.batch, num2, sizeof num2);
                snprintf(text, sizeof text,
                         "KV-cache reads stay below weight reads up to the model's longest "
                         "context (%s) at batch %s.",
                         num, num2);
                note(c, text);
            }
        } else {
            kvc[g] = cstar;
            struct roof_config k = cfg;
            k.context = cstar;
            struct roof_result r;
            if (evaluate(&k, &r, errs) != 0)
                return -1;
            kv_x[g] = r.flops / r.bytes;
            kv_y[g] = r.flops / r.time_s;
            if (cstar > cmax) {
                fmt_count(cstar, num, sizeof num);
                snprintf(text, sizeof text,
                         "%s: KV reads would overtake weight reads at context %s, beyond the "
                         "memory limit.",
                         req->hws[g]->id, num);
                note(c, text);
                kvc[g] = NAN;
            }
        }
    }
    bool any_fits = false;
    for (int g = 0; g < req->n_hws; g++)
        any_fits |= nb[g] > 0;
    if (!any_fits) {
        err_add(errs, NULL, 0, 0, ERR_ERROR,
                "'%s' does not fit on any of the devices at context %g (try a shorter --context "
                "or smaller --weights/--kv)",
                req->base.model->id, req->base.context);
        return -1;
    }
    roof_ranges(req, false, &xr, &yr);
    struct range xr2 = xr;
    range_add(&xr2, xr.hi * 4);
    if (set_log_axis(&p->x, &xr2, 2, 1, "arithmetic intensity (FLOP/byte)", "", false) ||
        set_log_axis(&p->y, &yr, 2.5, 3, "attainable performance (FLOP/s)", "", false)) {
        err_add(errs, NULL, 0, 0, ERR_ERROR, "the model does not fit on any of the devices");
        return -1;
    }
    for (int g = 0; g < req->n_hws; g++)
        add_roofs(c, p, req, g, false, false);
    for (int g = 0; g < req->n_hws; g++) {
        if (nb[g] == 0)
            continue;
        /* the whole step underneath, the operators on top (smaller markers show inside) */
        struct chart_style s = chart_line_style(CHART_BLACK, 3.0, CHART_SOLID);
        s.marker = GPU_MARKER[g];
        s.marker_px = 11;
        s.filled = true;
        s.fill_rgb = CHART_BLACK;
        s.fill_alpha = 1;
        s.arrow = true;
        chart_add_line(c, p, &s, bx[g][n_groups], by[g][n_groups], (size_t)nb[g]);
        for (int k = 0; k < n_groups; k++) {
            struct chart_style os = chart_line_style(OP_RGB[k % N_OP_RGB], 2.2, CHART_SOLID);
            os.marker = GPU_MARKER[g];
            os.marker_px = 7;
            os.filled = true;
            os.fill_rgb = OP_RGB[k % N_OP_RGB];
            os.fill_alpha = 1;
            os.arrow = true;
            chart_add_line(c, p, &os, bx[g][k], by[g][k], (size_t)nb[g]);
            bool still = near_rel(bx[g][k][0], bx[g][k][nb[g] - 1]);
            if (still && g == 0) {
                char t[96];
                snprintf(t, sizeof t, "%s (any batch)", group_names[k]);
                struct chart_label *sl =
                    chart_add_label(c, p, t, bx[g][k][0], by[g][k][0], 185, OP_RGB[k % N_OP_RGB]);
                if (sl) {
                    sl->gap_px = 8;
                    sl->rings = 5;
                    sl->leader = true;
                }
            }
        }
        struct chart_label *l = g ? NULL
                                  : chart_add_label(c, p, "batch 1", bx[g][n_groups][0],
                                                    by[g][n_groups][0], 220, CHART_BLACK);
        if (l) {
            l->gap_px = 8;
            l->rings = 5;
            l->leader = true;
        }
        fmt_count((double)maxb[g], num, sizeof num);
        snprintf(text, sizeof text, "batch %s (memory limit)", num);
        l = chart_add_label(c, p, text, bx[g][n_groups][nb[g] - 1], by[g][n_groups][nb[g] - 1],
                            230 - g, GPU_RGB[g]);
        if (l) {
            l->gap_px = 8;
            l->rings = 9;
            l->leader = true;
        }
        if (nc[g] >= 2 && g == 0) {
            struct chart_style cs = chart_line_style(CHART_GREY, 2.4, CHART_DASHED);
            cs.marker = GPU_MARKER[g];
            cs.marker_px = 7;
            cs.filled = true;
            cs.fill_rgb = 0xFFFFFF;
            cs.fill_alpha = 1;
            cs.arrow = true;
            chart_add_line(c, p, &cs, cx[g], cy[g], (size_t)nc[g]);
            fmt_count(cctx[g][0], num, sizeof num);
            fmt_count(cctx[g][nc[g] - 1], num2, sizeof num2);
            snprintf(text, sizeof text, "context %s", num);
            l = chart_add_label(c, p, text, cx[g][0], cy[g][0], 190 - g, CHART_GREY);
            if (l) {
                l->gap_px = 7;
                l->rings = 5;
                l->leader = true;
            }
            snprintf(text, sizeof text, "context %s", num2);
            l = chart_add_label(c, p, text, cx[g][nc[g] - 1], cy[g][nc[g] - 1], 195 - g,
                                CHART_GREY);
            if (l) {
                l->gap_px = 7;
                l->rings = 5;
                l->leader = true;
            }
        }
        if (isfinite(crit[g])) {
            struct chart_style ms =
                marker_style(CHART_MARKER_DIAMOND, 17, GPU_RGB[g], 2, CHART_YELLOW, 1);
            chart_add_point(c, p, crit_x[g], crit_y[g], &ms);
            fmt_count(crit[g], num, sizeof num);
            char ridge[32];
            chart_format_si(
                hw_ridge(req->hws[g], dtype_gemm_compute(req->base.weights, req->base.act)), 3, "",
                false, ridge, sizeof ridge);
            snprintf(text, sizeof text, "critical batch %s%s\n(ridge %s FLOP/B)", num,
                     crit[g] > (double)maxb[g] ? ", beyond memory" : "", ridge);
            l = chart_add_label(c, p, text, crit_x[g], crit_y[g], 260 - g, GPU_RGB[g]);
            if (l) {
                l->gap_px = 12;
                l->bold = true;
                l->rings = 6;
                l->leader = true;
            }
        }
        if (isfinite(kvc[g])) {
            struct chart_style ms =
                marker_style(CHART_MARKER_SQUARE, 16, GPU_RGB[g], 2, CHART_YELLOW, 1);
            chart_add_point(c, p, kv_x[g], kv_y[g], &ms);
            fmt_count(kvc[g], num, sizeof num);
            snprintf(text, sizeof text, "KV read = weight read\nat context %s", num);
            l = chart_add_label(c, p, text, kv_x[g], kv_y[g], 250 - g, GPU_RGB[g]);
            if (l) {
                l->gap_px = 11;
                l->bold = true;
                l->rings = 6;
                l->leader = true;
            }
        }
    }
    for (int k = 0; k < n_groups; k++) {
        const char *names = group_names[k];
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
    fmt_count(req->base.batch, num, sizeof num);
    snprintf(text, sizeof text, "whole step as context grows (batch %s)", num);
    chart_add_legend(c, p, text, &s, false);
    if (req->n_hws > 1)
        gpu_legend(c, p, req, true);
    set_titles(c, req, "Decode regime as batch and context grow", true, false, true);
    note(c, "Arrows point to larger batch or longer context. Element-wise operators keep their "
            "intensity at any batch and are left out.");
    return 0;
}

/* ---- batch ---- */

static int
build_batch(struct chart *c, const struct chart_request *req, struct err_list *errs)
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
    struct range xr = {0, 0}, tr = {0, 0}, ir = {0, 0};
    double hi = 16;
    for (int g = 0; g < req->n_hws; g++) {
        struct roof_config cfg = gpu_cfg(req, g, ROOF_DECODE);
        maxb[g] = roof_max_batch(&cfg);
        double b;
        crit[g] = roof_critical_batch(&cfg, &b) == 0 ? b : NAN;
        hi = fmax(hi, fmax((double)maxb[g], isfinite(crit[g]) ? crit[g] : 0) * 2);
    }
    hi = fmin(hi, 1e6);
    for (int g = 0; g < req->n_hws; g++) {
        struct roof_config cfg = gpu_cfg(req, g, ROOF_DECODE);
        if (req->n_batches > 1) {
            n[g] = 0;
            for (int i = 0; i < req->n_batches; i++)
                n[g] = grid_insert(grid[g], n[g], SAMPLES + 8, req->batches[i]);
        } else {
            n[g] = int_grid(1, hi, SAMPLES - 8, grid[g]);
            if (maxb[g] >= 1)
                n[g] = grid_insert(grid[g], n[g], SAMPLES + 8, (double)maxb[g]);
        }
        for (size_t i = 0; i < n[g]; i++) {
            cfg.batch = grid[g][i];
            struct roof_result r;
            if (evaluate(&cfg, &r, errs) != 0)
                return -1;
            tps[g][i] = r.tokens_per_s_total;
            itl[g][i] = r.itl_s;
            fits[g][i] = r.mem.fits;
            range_add(&xr, grid[g][i]);
            range_add(&tr, tps[g][i]);
            range_add(&ir, itl[g][i]);
        }
    }
    if (set_log_axis(&top->x, &xr, 1, 1.2, "", "", false) ||
        set_log_axis(&bot->x, &xr, 1, 1.2, "batch (sequences decoded together)", "", false) ||
        set_log_axis(&top->y, &tr, 1.3, 1.6, "tokens/s", "", false) ||
        set_log_axis(&bot->y, &ir, 1.3, 1.6, "seconds per step", "s", true)) {
        err_add(errs, NULL, 0, 0, ERR_ERROR, "nothing to plot");
        return -1;
    }
    char text[256], num[48];
    for (int g = 0; g < req->n_hws; g++) {
        uint32_t rgb = GPU_RGB[g];
        struct chart_style s = chart_line_style(rgb, 2.8, CHART_SOLID);
        if (req->n_batches > 1) {
            s.marker = GPU_MARKER[g];
            s.marker_px = 9;
            s.filled = true;
            s.fill_rgb = rgb;
            s.fill_alpha = 1;
        }
        add_split_line(c, top, &s, grid[g], tps[g], fits[g], n[g]);
        add_split_line(c, bot, &s, grid[g], itl[g], fits[g], n[g]);
        bool shared = false; /* an earlier device has the same limit: one label names both */
        for (int e = 0; e < g; e++)
            shared |= maxb[e] == maxb[g];
        if (maxb[g] >= 1 && !shared) {
            double mb = (double)maxb[g];
            fmt_count(mb, num, sizeof num);
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
                        chart_label_anchor(l, mb, log_mid(p->y.max, p->y.min, 0.05 + a * 0.1));
                    static const enum chart_dir D[] = {CHART_W, CHART_E};
                    chart_label_dirs(l, D, 2);
                    l->gap_px = 5;
                    l->rings = 1;
                }
            }
        }
        if (isfinite(crit[g]) && crit[g] <= top->x.max) {
            struct roof_config cfg = gpu_cfg(req, g, ROOF_DECODE);
            cfg.batch = crit[g];
            struct roof_result r;
            if (evaluate(&cfg, &r, errs) != 0)
                return -1;
            fmt_count(crit[g], num, sizeof num);
            snprintf(text, sizeof text, "critical batch %s%s", num,
                     crit[g] > (double)maxb[g] ? " (beyond memory)" : "");
            struct chart_style ms = marker_style(CHART_MARKER_DIAMOND, 17, rgb, 2, CHART_YELLOW, 1);
            for (int k = 0; k < 2; k++) {
                struct chart_panel *p = k ? bot : top;
                double y = k ? r.itl_s : r.tokens_per_s_total;
                chart_add_point(c, p, crit[g], y, &ms);
                struct chart_label *l = chart_add_label(c, p, text, crit[g], y, 250 - g, rgb);
                if (l) {
                    static const enum chart_dir D[] = {CHART_SE, CHART_NW, CHART_S,  CHART_N,
                                                       CHART_E,  CHART_W,  CHART_SW, CHART_NE};
                    chart_label_dirs(l, D, 8);
                    l->gap_px = 11;
                    l->bold = true;
                    l->rings = 9;
                    l->leader = true;
                }
            }
        }
    }
    gpu_legend(c, top, req, req->n_batches > 1);
    bool misfit = false;
    for (int g = 0; g < req->n_hws; g++)
        misfit |= any_false(fits[g], n[g]);
    if (misfit)
        faded_legend(c, top);
    struct chart_style s = chart_line_style(CHART_GREY, 1.8, CHART_DOTTED);
    chart_add_legend(c, top, "memory limit (largest batch that fits)", &s, false);
    s = marker_style(CHART_MARKER_DIAMOND, 17, CHART_BLACK, 2, CHART_YELLOW, 1);
    chart_add_legend(c, top, "critical batch (weight GEMMs reach the ridge)", &s, false);
    set_titles(c, req, "Decode throughput and step time against batch", false, false, true);
    return 0;
}

/* ---- prefill ---- */

static double
model_max_context(const struct chart_request *req)
{
    long m = req->base.model->max_position_embeddings;
    return m > 0 ? fmin((double)m, 1048576) : 131072;
}

static void
batch_list(const struct chart_request *req, double *out, int *n)
{
    if (req->n_batches > 0) {
        *n = req->n_batches > 4 ? 4 : req->n_batches;
        memcpy(out, req->batches, (size_t)*n * sizeof *out);
    } else {
        *n = 1;
        out[0] = req->base.batch;
    }
}

static void
series_name(const struct chart_request *req, int g, double batch, int n_batches, char *buf,
            size_t size)
{
    char num[32];
    fmt_count(batch, num, sizeof num);
    if (n_batches > 1)
        snprintf(buf, size, "%s, batch %s", req->hws[g]->id, num);
    else
        snprintf(buf, size, "%s", req->hws[g]->id);
}

static int
build_prefill(struct chart *c, const struct chart_request *req, struct err_list *errs)
{
    struct chart_panel *p = chart_add_panel(c);
    double bl[4], grid[SAMPLES];
    int nbl;
    batch_list(req, bl, &nbl);
    size_t n = int_grid(16, model_max_context(req), 64, grid);
    double t[CHART_MAX_GPUS][4][SAMPLES];
    bool fits[CHART_MAX_GPUS][4][SAMPLES];
    double cross[CHART_MAX_GPUS][4], cross_t[CHART_MAX_GPUS][4];
    struct range xr = {0, 0}, yr = {0, 0};
    for (size_t i = 0; i < n; i++)
        range_add(&xr, grid[i]);
    for (int g = 0; g < req->n_hws; g++)
        for (int b = 0; b < nbl; b++) {
            struct roof_config cfg = gpu_cfg(req, g, ROOF_PREFILL);
            cfg.batch = bl[b];
            struct roof_result r;
            for (size_t i = 0; i < n; i++) {
                cfg.prompt = grid[i];
                if (evaluate(&cfg, &r, errs) != 0)
                    return -1;
                t[g][b][i] = r.ttft_s;
                fits[g][b][i] = r.mem.fits;
                range_add(&yr, r.ttft_s);
            }
            double x;
            cross[g][b] = NAN;
            if (roof_prefill_crossover(&cfg, &x) == 0 && x >= grid[0] && x <= grid[n - 1]) {
                cfg.prompt = x;
                if (evaluate(&cfg, &r, errs) != 0)
                    return -1;
                cross[g][b] = x;
                cross_t[g][b] = r.ttft_s;
            }
        }
    if (set_log_axis(&p->x, &xr, 1, 1, "prompt length (tokens per sequence)", "", false) ||
        set_log_axis(&p->y, &yr, 1.3, 1.6, "time to first token (TTFT)", "s", true)) {
        err_add(errs, NULL, 0, 0, ERR_ERROR, "nothing to plot");
        return -1;
    }
    char text[200], num[32];
    for (int g = 0; g < req->n_hws; g++)
        for (int b = 0; b < nbl; b++) {
            struct chart_style s = chart_line_style(GPU_RGB[g], 2.8, BATCH_DASH[b]);
            add_split_line(c, p, &s, grid, t[g][b], fits[g][b], n);
            series_name(req, g, bl[b], nbl, text, sizeof text);
            chart_add_legend(c, p, text, &s, false);
            if (!isfinite(cross[g][b]))
                continue;
            struct chart_style ms =
                marker_style(CHART_MARKER_DIAMOND, 17, GPU_RGB[g], 2, CHART_YELLOW, 1);
            chart_add_point(c, p, cross[g][b], cross_t[g][b], &ms);
            fmt_count(cross[g][b], num, sizeof num);
            snprintf(text, sizeof text, "compute-bound from %s tokens", num);
            struct chart_label *l = chart_add_label(c, p, text, cross[g][b], cross_t[g][b],
                                                    250 - g * 4 - b, GPU_RGB[g]);
            if (l) {
                static const enum chart_dir D[] = {CHART_NW, CHART_SE, CHART_N,  CHART_W,
                                                   CHART_S,  CHART_E,  CHART_NE, CHART_SW};
                chart_label_dirs(l, D, 8);
                l->gap_px = 11;
                l->bold = true;
                l->rings = 5;
                l->leader = true;
            }
        }
    struct chart_style s = marker_style(CHART_MARKER_DIAMOND, 17, CHART_BLACK, 2, CHART_YELLOW, 1);
    chart_add_legend(c, p, "prefill turns compute-bound", &s, false);
    bool misfit = false;
    for (int g = 0; g < req->n_hws; g++)
        for (int b = 0; b < nbl; b++)
            misfit |= any_false(fits[g][b], n);
    if (misfit)
        faded_legend(c, p);
    set_titles(c, req, "Time to first token against prompt length", true, false, false);
    return 0;
}

/* ---- decode ---- */

static int
build_decode(struct chart *c, const struct chart_request *req, struct err_list *errs)
{
    struct chart_panel *left = chart_add_panel(c), *right = chart_add_panel(c);
    c->cols = 2;
    snprintf(left->title, sizeof left->title, "time per decode step");
    snprintf(right->title, sizeof right->title, "time to generate N tokens after the prompt");
    double bl[4], cgrid[SAMPLES], ngrid[SAMPLES];
    int nbl;
    batch_list(req, bl, &nbl);
    double cap = model_max_context(req);
    size_t nc = int_grid(16, cap, 64, cgrid);
    double nmax = fmax(16, fmin(cap - req->base.prompt, 65536));
    size_t nn = int_grid(1, nmax, 64, ngrid);
    double itl[CHART_MAX_GPUS][4][SAMPLES], tot[CHART_MAX_GPUS][4][SAMPLES];
    bool cfits[CHART_MAX_GPUS][4][SAMPLES], nfits[CHART_MAX_GPUS][4][SAMPLES];
    double kvc[CHART_MAX_GPUS][4], kv_t[CHART_MAX_GPUS][4];
    struct range cxr = {0, 0}, nxr = {0, 0}, iyr = {0, 0}, tyr = {0, 0};
    for (size_t i = 0; i < nc; i++)
        range_add(&cxr, cgrid[i]);
    for (size_t i = 0; i < nn; i++)
        range_add(&nxr, ngrid[i]);
    for (int g = 0; g < req->n_hws; g++)
        for (int b = 0; b < nbl; b++) {
            struct roof_config cfg = gpu_cfg(req, g, ROOF_DECODE);
            cfg.batch = bl[b];
            struct roof_result r;
            for (size_t i = 0; i < nc; i++) {
                cfg.context = cgrid[i];
                if (evaluate(&cfg, &r, errs) != 0)
                    return -1;
                itl[g][b][i] = r.itl_s;
                cfits[g][b][i] = r.mem.fits;
                range_add(&iyr, r.itl_s);
            }
            /* sum of step times over output tokens: trapezoid between grid points, exact where
             * the step time is linear in context (docs/charts.md#kinds) */
            double prev_n = 1, prev_t = 0, acc = 0;
            for (size_t i = 0; i < nn; i++) {
                double nk = ngrid[i];
                cfg.context = req->base.prompt + nk - 1;
                if (evaluate(&cfg, &r, errs) != 0)
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
                range_add(&tyr, acc);
            }
            double cstar;
            kvc[g][b] = NAN;
            cfg.context = req->base.context;
            if (kv_crossover(&cfg, cap, &cstar) == 0) {
                cfg.context = cstar;
                if (evaluate(&cfg, &r, errs) != 0)
                    return -1;
                kvc[g][b] = cstar;
                kv_t[g][b] = r.itl_s;
            }
        }
    if (set_log_axis(&left->x, &cxr, 1, 1, "context (tokens already in the KV cache)", "", false) ||
        set_log_axis(&right->x, &nxr, 1, 1, "output tokens N", "", false) ||
        set_log_axis(&left->y, &iyr, 1.3, 1.6, "inter-token latency", "s", true) ||
        set_log_axis(&right->y, &tyr, 1.3, 1.6, "decode time", "s", true)) {
        err_add(errs, NULL, 0, 0, ERR_ERROR, "nothing to plot");
        return -1;
    }
    char text[200], num[32];
    bool any_kv = false;
    for (int g = 0; g < req->n_hws; g++)
        for (int b = 0; b < nbl; b++) {
            struct chart_style s = chart_line_style(GPU_RGB[g], 2.8, BATCH_DASH[b]);
            add_split_line(c, left, &s, cgrid, itl[g][b], cfits[g][b], nc);
            add_split_line(c, right, &s, ngrid, tot[g][b], nfits[g][b], nn);
            series_name(req, g, bl[b], nbl, text, sizeof text);
            chart_add_legend(c, left, text, &s, false);
            char tv[64], bn[32];
            chart_format_si(tot[g][b][nn - 1], 3, "s", true, tv, sizeof tv);
            if (nbl > 1) {
                fmt_count(bl[b], bn, sizeof bn);
                size_t tl = strlen(tv);
                snprintf(tv + tl, sizeof tv - tl, " (batch %s)", bn);
            }
            struct chart_label *l = chart_add_label(c, right, tv, ngrid[nn - 1], tot[g][b][nn - 1],
                                                    150 - g * 4 - b, GPU_RGB[g]);
            if (l)
                l->margin = true;
            if (!isfinite(kvc[g][b]))
                continue;
            struct chart_style ms =
                marker_style(CHART_MARKER_SQUARE, 16, GPU_RGB[g], 2, CHART_YELLOW, 1);
            chart_add_point(c, left, kvc[g][b], kv_t[g][b], &ms);
            any_kv = true;
            if (g > 0) /* bytes only: the same context on every device, labelled once */
                continue;
            fmt_count(kvc[g][b], num, sizeof num);
            snprintf(text, sizeof text, "KV read > weights from %s", num);
            l = chart_add_label(c, left, text, kvc[g][b], kv_t[g][b], 250 - g * 4 - b, GPU_RGB[g]);
            if (l) {
                static const enum chart_dir D[] = {CHART_NW, CHART_SE, CHART_W,  CHART_N,
                                                   CHART_S,  CHART_E,  CHART_NE, CHART_SW};
                chart_label_dirs(l, D, 8);
                l->gap_px = 11;
                l->bold = true;
                l->rings = 2; /* near its point or not at all: the legend names the marker */
                l->leader = true;
            }
            any_kv = true;
        }
    struct chart_style s;
    if (any_kv) {
        s = marker_style(CHART_MARKER_SQUARE, 16, CHART_BLACK, 2, CHART_YELLOW, 1);
        chart_add_legend(c, left, "KV-cache reads exceed weight reads", &s, false);
    } else {
        fmt_count(cap, num, sizeof num);
        snprintf(text, sizeof text,
                 "Left: KV-cache reads stay below weight reads up to the model's longest context "
                 "(%s).",
                 num);
        note(c, text);
    }
    bool misfit = false;
    for (int g = 0; g < req->n_hws; g++)
        for (int b = 0; b < nbl; b++)
            misfit |= any_false(cfits[g][b], nc) || any_false(nfits[g][b], nn);
    if (misfit)
        faded_legend(c, left);
    set_titles(c, req, "Decode time", true, true, false);
    fmt_count(req->base.prompt, num, sizeof num);
    snprintf(text, sizeof text,
             "Right: sum of the step times of N tokens generated after a %s-token prompt "
             "(prefill not included).",
             num);
    note(c, text);
    return 0;
}

/* ---- memory ---- */

static int
build_memory(struct chart *c, const struct chart_request *req, struct err_list *errs)
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
        struct roof_config cfg = gpu_cfg(req, 0, ROOF_DECODE);
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
    char names[MAXCAT][96], num[32];
    const char *labels[MAXCAT];
    struct roof_memory mem[MAXCAT];
    int ncat = 0;
    double ymax = 0;
    for (int g = 0; g < req->n_hws; g++)
        for (int b = 0; b < nbl; b++) {
            struct roof_config cfg = gpu_cfg(req, g, ROOF_DECODE);
            cfg.batch = bl[b];
            roof_memory(&cfg, &mem[ncat]);
            fmt_count(bl[b], num, sizeof num);
            /* several devices with several batches: every bar gets its batch (a device name
             * under each would not fit and every other label would be thinned away); the
             * devices are named on their capacity lines and in the axis title */
            if (req->n_hws > 1 && nbl > 1)
                snprintf(names[ncat], sizeof names[ncat], "%s", num);
            else if (req->n_hws > 1)
                snprintf(names[ncat], sizeof names[ncat], "%s", req->hws[g]->id);
            else
                snprintf(names[ncat], sizeof names[ncat], "batch %s%s", num,
                         limit > 0 && bl[b] == (double)limit ? "\n(memory limit)" : "");
            labels[ncat] = names[ncat];
            ymax = fmax(ymax, fmax(mem[ncat].total_bytes, mem[ncat].capacity_bytes));
            ncat++;
        }
    chart_axis_categories(c, &p->x, labels, ncat);
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
            l->gap_px = 4;
            l->bold = !m->fits;
            l->rings = 6;
            l->leader = true;
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
        if (req->n_hws > 1 && nbl > 1)
            snprintf(text, sizeof text, "%s: capacity %s", req->hws[i / nbl]->id, num);
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
    chart_add_legend(c, p, "device memory capacity", &s, false);
    set_titles(c, req, "Memory footprint of decoding", req->n_batches <= 1 && req->n_hws > 1, false,
               true);
    return 0;
}

/* A model that does not fit a device even at batch 1 is said in the chart (a line in its title
 * area) and as a warning, so that nobody reads an all-faded chart as an answer. */
static void
misfit_warning(struct chart *c, const struct chart_request *req, struct err_list *errs)
{
    char line[256] = "";
    size_t n = 0;
    for (int g = 0; g < req->n_hws; g++) {
        struct roof_config cfg = gpu_cfg(req, g, ROOF_DECODE);
        cfg.batch = 1;
        struct roof_memory m;
        roof_memory(&cfg, &m);
        if (m.fits)
            continue;
        char need[32], cap[32];
        chart_format_si(m.total_bytes, 3, "B", false, need, sizeof need);
        chart_format_si(m.capacity_bytes, 3, "B", false, cap, sizeof cap);
        err_add(errs, NULL, 0, 0, ERR_WARNING,
                "%s does not fit on %s even at batch 1: %s needed per device, %s available "
                "(try --tp, smaller --weights/--kv or a shorter --context)",
                req->base.model->id, req->hws[g]->id, need, cap);
        if (n < sizeof line)
            n += (size_t)snprintf(line + n, sizeof line - n, "%s%s: %s needed, %s available",
                                  n ? "; " : "DOES NOT FIT  ", req->hws[g]->id, need, cap);
    }
    if (n > 0) {
        size_t l = strlen(c->subtitle);
        snprintf(c->subtitle + l, sizeof c->subtitle - l, "\n%s", line);
        /* and in red across the first panel, where the eye goes */
        struct chart_panel *p = &c->panels[0];
        double x = p->x.scale == CHART_LOG ? sqrt(p->x.min * p->x.max) : (p->x.min + p->x.max) / 2;
        double y = p->y.scale == CHART_LOG ? sqrt(p->y.min * p->y.max) : (p->y.min + p->y.max) / 2;
        struct chart_label *lb =
            chart_add_label(c, p, "does not fit in memory", x, y, 100, CHART_VERMILLION);
        if (lb) {
            static const enum chart_dir D[] = {CHART_N, CHART_S, CHART_E, CHART_W};
            chart_label_dirs(lb, D, 4);
            lb->bold = true;
            lb->scale = 1.6;
            lb->rings = 4;
        }
    }
}

struct chart *
chart_build(const struct chart_request *req, struct err_list *errs)
{
    if (req->n_hws < 1 || req->n_hws > CHART_MAX_GPUS || !req->base.model) {
        err_add(errs, NULL, 0, 0, ERR_ERROR, "a chart needs 1 to %d devices and a model",
                CHART_MAX_GPUS);
        return NULL;
    }
    struct chart *c = chart_new();
    if (!c) {
        err_add(errs, NULL, 0, 0, ERR_ERROR, "out of memory");
        return NULL;
    }
    int rc = -1;
    switch (req->kind) {
    case CHART_KIND_ROOFLINE:
        rc = build_roofline(c, req, errs);
        break;
    case CHART_KIND_REGIME:
        rc = build_regime(c, req, errs);
        break;
    case CHART_KIND_BATCH:
        rc = build_batch(c, req, errs);
        break;
    case CHART_KIND_PREFILL:
        rc = build_prefill(c, req, errs);
        break;
    case CHART_KIND_DECODE:
        rc = build_decode(c, req, errs);
        break;
    case CHART_KIND_MEMORY:
        rc = build_memory(c, req, errs);
        break;
    case CHART_KIND_COUNT:
        break;
    }
    if (rc == 0 && c->failed) {
        err_add(errs, NULL, 0, 0, ERR_ERROR, "out of memory");
        rc = -1;
    }
    if (rc == 0)
        misfit_warning(c, req, errs);
    if (rc != 0) {
        chart_free(c);
        return NULL;
    }
    return c;
}

/* ---- measured points ---- */
