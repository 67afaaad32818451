/* What the chart kinds built from a chart_request share (render/chart_kinds.c), and each kind's
 * builder, one file each (render/chart_<kind>.c). Internal to render/: callers use charts.h. */
#ifndef ROOFLINE_RENDER_CHART_KINDS_H
#define ROOFLINE_RENDER_CHART_KINDS_H

#include "core/roof.h"
#include "render/charts.h"
#include "util/err.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define SAMPLES 96
#define DOT "  \xc2\xb7  " /* separator in subtitles */
#define PREFILL_RGB CHART_VERMILLION
#define DECODE_RGB CHART_BLUE
/* Faded: the configuration does not fit in device memory. */
#define FADED 0.3

/* Devices in overlay order (colour and marker), and the dash of each batch of a kind that draws
 * up to four batches per device. */
extern const uint32_t KIND_GPU_RGB[CHART_MAX_GPUS];
extern const enum chart_marker KIND_GPU_MARKER[CHART_MAX_GPUS];
extern const enum chart_dash KIND_BATCH_DASH[4];

/* ---- the builders: each fills the empty chart `c` for `req` (one device or more, a model) and
 * returns 0, or -1 with the reason in errs (NULL: quiet). chart_build (charts.c) calls them
 * through its table and frees the chart on failure. ---- */
#define CHART_FILL_DECL(upper, name)                                                               \
    int chart_fill_##name(struct chart *c, const struct chart_request *req, struct err_list *errs);
CHART_KINDS(CHART_FILL_DECL)
#undef CHART_FILL_DECL

/* ---- shared helpers ---- */

/* req->base on device g in `phase`, its engine reserve scaled to g's memory. */
struct roof_config kind_gpu_cfg(const struct chart_request *req, int g, enum roof_phase phase);
/* Whole counts (tokens, sequences): "25", "327", "8.19 k". */
void kind_fmt_count(double v, char *buf, size_t n);
/* Title "<what>: <model> on <devices>" and the subtitle of formats plus the lengths the kind
 * depends on (batch, prompt, context), parallelism and engine tuning. */
void kind_set_titles(struct chart *c, const struct chart_request *req, const char *what, bool batch,
                     bool prompt, bool context);
/* n values from lo to hi evenly spaced in log, rounded to whole numbers, unique, ascending;
 * returns how many were written to out. */
size_t kind_int_grid(double lo, double hi, size_t n, double *out);
/* Inserts v into the ascending whole-number grid if it is not already there (cap entries);
 * returns the new length. */
size_t kind_grid_insert(double *grid, size_t n, size_t cap, double v);
bool kind_any_false(const bool *v, size_t n);
/* The legend entry of faded lines ("does not fit in memory"). */
void kind_faded_legend(struct chart *c, struct chart_panel *p);
/* A polyline drawn solid where it fits in memory and faded where it does not. */
void kind_add_split_line(struct chart *c, struct chart_panel *p, const struct chart_style *s,
                         const double *x, const double *y, const bool *fits, size_t n);
/* The point a fraction f of the way from a to b on a log scale. */
double kind_log_mid(double a, double b, double f);

/* Bounds tracking for log axes; {0, 0} is the empty range. */
struct kind_range {
    double lo, hi;
};
/* Widens r to hold v; values that are not finite and positive are ignored. */
void kind_range_add(struct kind_range *r, double v);
/* A log axis over r widened by pad_lo below and pad_hi above (snapped to nice bounds); -1 when r
 * is empty or unusable. */
int kind_set_log_axis(struct chart_axis *ax, const struct kind_range *r, double pad_lo,
                      double pad_hi, const char *title, const char *unit, bool sub_unit);
/* Name of merged operators: "mlp_gate/up/down", or "weight GEMMs" when the list is long. */
void kind_group_label(const struct roof_result *r, const int *ops, int n, char *buf, size_t size);
/* a and b equal to 0.1 %. */
bool kind_near_rel(double a, double b);

/* Decode (or prefill) operators as roofline points, coincident ones merged. */
struct kind_op_point {
    double x, y, share;
    int ops[ROOF_OP_COUNT];
    int n_ops;
};
/* Fills pts (ROOF_OP_COUNT of them) with the operators of r (only matmuls if asked) and returns
 * their number; operators without FLOPs or bytes set their bit in *skipped (may be NULL). */
int kind_op_points(const struct roof_result *r, bool matmul_only, struct kind_op_point *pts,
                   unsigned *skipped);
/* roof_evaluate with the failure said in errs. */
int kind_evaluate(const struct roof_config *cfg, struct roof_result *r, struct err_list *errs);
/* Draws the memory roof and compute roofs of device g (all formats, or only the GEMM's) with
 * their labels, and marks the ridge point of the GEMM format when ridge_mark. */
void kind_add_roofs(struct chart *c, struct chart_panel *p, const struct chart_request *req, int g,
                    bool all_formats, bool ridge_mark);
/* Intensities and rates of the roofs of every device, for the axis ranges. */
void kind_roof_ranges(const struct chart_request *req, bool all_formats, struct kind_range *xr,
                      struct kind_range *yr);
/* One legend entry per device (line, with its marker if asked). */
void kind_gpu_legend(struct chart *c, struct chart_panel *p, const struct chart_request *req,
                     bool markers);
/* Context at which a decode step reads as many KV-cache bytes as weight bytes (bisection in log
 * context; docs/charts.md#kinds). Returns 0 and sets *out, or -1 when it does not happen below
 * `cap` tokens. */
int kind_kv_crossover(const struct roof_config *cfg, double cap, double *out);
/* The model's longest context (capped at 1 Mi tokens; 128 Ki when the profile has none). */
double kind_model_max_context(const struct chart_request *req);
/* The --batch list, at most four (the dashes), or the one batch of req->base. */
void kind_batch_list(const struct chart_request *req, double *out, int *n);
/* Legend name of a series: the device, with its batch when there are several. */
void kind_series_name(const struct chart_request *req, int g, double batch, int n_batches,
                      char *buf, size_t size);

#endif
