/* What the chart kinds share: device colours and markers, the engine configuration per device,
 * titles and footnotes, whole-number grids, log-axis ranges, operator points and the roofs of a
 * device. Declared in render/chart_kinds.h; no drawing and no printing. */
#include "render/chart_kinds.h"

#include "core/dtype.h"
#include "core/hw.h"
#include "util/array.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

/* Devices in overlay order: black, then Okabe-Ito hues that stay apart from the phase colours. */
const uint32_t KIND_GPU_RGB[CHART_MAX_GPUS] = {CHART_BLACK, CHART_GREEN, CHART_PURPLE, CHART_ORANGE,
                                               CHART_SKY};
const enum chart_marker KIND_GPU_MARKER[CHART_MAX_GPUS] = {CHART_MARKER_CIRCLE, CHART_MARKER_SQUARE,
                                                           CHART_MARKER_TRIANGLE,
                                                           CHART_MARKER_DIAMOND, CHART_MARKER_DOWN};
const enum chart_dash KIND_BATCH_DASH[4] = {CHART_SOLID, CHART_DASHED, CHART_DASHDOT, CHART_DOTTED};

struct roof_config
kind_gpu_cfg(const struct chart_request *req, int g, enum roof_phase phase)
{
    struct roof_config c = req->base;
    c.hw = req->hws[g];
    c.phase = phase;
    if (g < req->n_tunings)
        c.tuning = req->tunings[g];
    /* the engine reserve is the same fraction of every device's memory */
    if (req->base.hw && hw_memory_bytes(req->base.hw) > 0)
        c.reserve_bytes =
            req->base.reserve_bytes / hw_memory_bytes(req->base.hw) * hw_memory_bytes(c.hw);
    return c;
}

/* Whole counts (tokens, sequences): "25", "327", "8.19 k". */
void
kind_fmt_count(double v, char *buf, size_t n)
{
    chart_format_si(fabs(v) < 1000 ? round(v) : v, 3, "", false, buf, n);
}

/* "weights bf16 · activations bf16 · KV bf16" plus the lengths the kind depends on. */
void
kind_set_titles(struct chart *c, const struct chart_request *req, const char *what, bool batch,
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
                kind_fmt_count(req->batches[i], num, sizeof num);
                n += snprintf(s + n, sizeof s - (size_t)n, "%s%s", i ? ", " : "", num);
            }
        } else {
            kind_fmt_count(b->batch, num, sizeof num);
            n += snprintf(s + n, sizeof s - (size_t)n, DOT "batch %s", num);
        }
    }
    if (prompt && n > 0 && (size_t)n < sizeof s) {
        kind_fmt_count(b->prompt, num, sizeof num);
        n += snprintf(s + n, sizeof s - (size_t)n, DOT "prompt %s", num);
    }
    if (context && n > 0 && (size_t)n < sizeof s) {
        kind_fmt_count(b->context, num, sizeof num);
        n += snprintf(s + n, sizeof s - (size_t)n, DOT "context %s", num);
    }
    if (n > 0 && (size_t)n < sizeof s && b->tp > 1)
        n += snprintf(s + n, sizeof s - (size_t)n, DOT "TP %d", b->tp);
    char extra[64];
    if (n > 0 && (size_t)n < sizeof s && b->tp > 1)
        n += snprintf(s + n, sizeof s - (size_t)n, "%s",
                      roof_parallel_extras(b, true, extra, sizeof extra));
    if (n > 0 && (size_t)n < sizeof s && b->pp > 1)
        n += snprintf(s + n, sizeof s - (size_t)n, "%sPP %d", b->tp > 1 ? ", " : DOT, b->pp);
    if (n > 0 && (size_t)n < sizeof s && b->tuning.step_overhead_s > 0)
        n += snprintf(s + n, sizeof s - (size_t)n, DOT "engine-tuned");
    if (n > 0 && (size_t)n < sizeof s)
        snprintf(s + n, sizeof s - (size_t)n, DOT "flash attention %s",
                 roof_flash_attention(b) ? "on" : "off");
    snprintf(c->subtitle, sizeof c->subtitle, "%s", s);
}

/* n values from lo to hi evenly spaced in log, rounded to whole numbers, unique, ascending. */
size_t
kind_int_grid(double lo, double hi, size_t n, double *out)
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
size_t
kind_grid_insert(double *grid, size_t n, size_t cap, double v)
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

bool
kind_any_false(const bool *v, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (!v[i])
            return true;
    return false;
}

void
kind_faded_legend(struct chart *c, struct chart_panel *p)
{
    struct chart_style s = chart_line_style(CHART_GREY, 2.8, CHART_SOLID);
    s.alpha = FADED;
    chart_add_legend(c, p, "does not fit in memory", &s, false);
}

/* A polyline drawn solid where it fits in memory and faded where it does not. */
void
kind_add_split_line(struct chart *c, struct chart_panel *p, const struct chart_style *s,
                    const double *x, const double *y, const bool *fits, size_t n)
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

double
kind_log_mid(double a, double b, double f)
{
    return a * pow(b / a, f);
}

void
kind_range_add(struct kind_range *r, double v)
{
    if (!(v > 0) || !isfinite(v))
        return;
    if (r->lo == 0 || v < r->lo) /* {0, 0} is the empty range */
        r->lo = v;
    if (v > r->hi)
        r->hi = v;
}

int
kind_set_log_axis(struct chart_axis *ax, const struct kind_range *r, double pad_lo, double pad_hi,
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
void
kind_group_label(const struct roof_result *r, const int *ops, int n, char *buf, size_t size)
{
    join_names(ops, n, buf, size);
    if (strlen(buf) <= 30)
        return;
    bool weights = true;
    for (int q = 0; q < n; q++)
        weights &= r->ops[ops[q]].bytes_weights > 0 && r->ops[ops[q]].is_matmul;
    snprintf(buf, size, "%s (%d operators)", weights ? "weight GEMMs" : "operators", n);
}

bool
kind_near_rel(double a, double b)
{
    return fabs(a - b) <= 1e-3 * fmax(fabs(a), fabs(b));
}

int
kind_op_points(const struct roof_result *r, bool matmul_only, struct kind_op_point *pts,
               unsigned *skipped)
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
        while (j < n && !(kind_near_rel(pts[j].x, x) && kind_near_rel(pts[j].y, y)))
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

int
kind_evaluate(const struct roof_config *cfg, struct roof_result *r, struct err_list *errs)
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
void
kind_add_roofs(struct chart *c, struct chart_panel *p, const struct chart_request *req, int g,
               bool all_formats, bool ridge_mark)
{
    const struct hw_profile *hw = req->hws[g];
    double bw = hw->memory_bandwidth_bytes_per_s, x0 = p->x.min, x1 = p->x.max;
    uint32_t rgb = KIND_GPU_RGB[g];
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
    struct chart_label *l = chart_add_label(c, p, text, kind_log_mid(x0, top / bw, 0.5),
                                            bw * kind_log_mid(x0, top / bw, 0.5), 150 - g, rgb);
    if (l) {
        static const double F[] = {0.4, 0.6, 0.3, 0.7, 0.2, 0.8, 0.1};
        l->n_anchors = 0;
        for (size_t k = 0; k < ARRAY_SIZE(F); k++) {
            double x = kind_log_mid(x0, top / bw, F[k]);
            chart_label_anchor(l, x, bw * x);
        }
        static const enum chart_dir D[] = {CHART_NW, CHART_SE};
        chart_label_dirs(l, D, 2);
        chart_label_leader(l, 3, 5, false);
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
        struct chart_style ms = chart_marker_style(CHART_MARKER_CIRCLE, 14, rgb, 2.4, 0xFFFFFF, 1);
        chart_add_point(c, p, rx, gemm_peak, &ms);
        chart_format_si(rx, 3, "", false, num, sizeof num);
        snprintf(text, sizeof text, "ridge %s FLOP/B", num);
        l = chart_add_label(c, p, text, rx, gemm_peak, 298 - g, rgb);
        if (l) {
            static const enum chart_dir D[] = {CHART_SE, CHART_S, CHART_E, CHART_SW,
                                               CHART_NW, CHART_N, CHART_W, CHART_NE};
            chart_label_dirs(l, D, 8);
            chart_label_leader(l, 10, 6, false);
        }
    }
}

/* Intensities and rates of the roofs of every device, for the axis ranges. */
void
kind_roof_ranges(const struct chart_request *req, bool all_formats, struct kind_range *xr,
                 struct kind_range *yr)
{
    for (int g = 0; g < req->n_hws; g++) {
        const struct hw_profile *hw = req->hws[g];
        double bw = hw->memory_bandwidth_bytes_per_s;
        enum dtype used;
        double gp = hw_peak(hw, dtype_gemm_compute(req->base.weights, req->base.act), &used);
        kind_range_add(xr, gp / bw);
        kind_range_add(yr, gp);
        if (!all_formats)
            continue;
        for (int d = DT_ROOF_FIRST; d <= DT_ROOF_LAST; d++)
            kind_range_add(yr, hw->peak_flops_per_s[d]);
    }
}

void
kind_gpu_legend(struct chart *c, struct chart_panel *p, const struct chart_request *req,
                bool markers)
{
    for (int g = 0; g < req->n_hws; g++) {
        struct chart_style s = chart_line_style(KIND_GPU_RGB[g], 2.6, CHART_SOLID);
        if (markers) {
            s.marker = KIND_GPU_MARKER[g];
            s.marker_px = 11;
            s.filled = true;
            s.fill_rgb = 0xFFFFFF;
            s.fill_alpha = 1;
        }
        chart_add_legend(c, p, req->hws[g]->id, &s, false);
    }
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
int
kind_kv_crossover(const struct roof_config *cfg, double cap, double *out)
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

double
kind_model_max_context(const struct chart_request *req)
{
    long m = req->base.model->max_position_embeddings;
    return m > 0 ? fmin((double)m, 1048576) : 131072;
}

void
kind_batch_list(const struct chart_request *req, double *out, int *n)
{
    if (req->n_batches > 0) {
        *n = req->n_batches > 4 ? 4 : req->n_batches;
        memcpy(out, req->batches, (size_t)*n * sizeof *out);
    } else {
        *n = 1;
        out[0] = req->base.batch;
    }
}

void
kind_series_name(const struct chart_request *req, int g, double batch, int n_batches, char *buf,
                 size_t size)
{
    char num[32];
    kind_fmt_count(batch, num, sizeof num);
    if (n_batches > 1)
        snprintf(buf, size, "%s, batch %s", req->hws[g]->id, num);
    else
        snprintf(buf, size, "%s", req->hws[g]->id);
}
