/* The chart model: panels with axes, lines, points, bars, labels and legends in data units, and
 * the pure layout that turns them into pixel boxes (ranges, log mapping, decade ticks with
 * engineering labels, collision-avoiding label placement). No Cairo here: text is measured through
 * a callback so the layout is unit-tested with a fake font. Drawing is render/draw.c. */
#ifndef ROOFLINE_RENDER_CHART_H
#define ROOFLINE_RENDER_CHART_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Okabe-Ito colour-blind-safe palette (Okabe & Ito 2008, "Color Universal Design"), 0xRRGGBB. */
#define CHART_BLACK 0x000000u
#define CHART_ORANGE 0xE69F00u
#define CHART_SKY 0x56B4E9u
#define CHART_GREEN 0x009E73u
#define CHART_YELLOW 0xF0E442u
#define CHART_BLUE 0x0072B2u
#define CHART_VERMILLION 0xD55E00u
#define CHART_PURPLE 0xCC79A7u
/* Neutral greys for frames, grids and secondary text (not data colours). */
#define CHART_GREY 0x666666u
#define CHART_LIGHT 0xDDDDDDu

#define CHART_MAX_TICKS 96
#define CHART_MAX_PANELS 4
#define CHART_MAX_ANCHORS 12

enum chart_scale { CHART_LINEAR, CHART_LOG, CHART_CATEGORY };
enum chart_marker {
    CHART_MARKER_NONE,
    CHART_MARKER_CIRCLE,
    CHART_MARKER_SQUARE,
    CHART_MARKER_TRIANGLE,
    CHART_MARKER_DIAMOND,
    CHART_MARKER_DOWN, /* triangle pointing down */
    CHART_MARKER_CROSS,
    CHART_MARKER_PLUS,
};
enum chart_dash { CHART_SOLID, CHART_DASHED, CHART_DOTTED, CHART_DASHDOT };
/* Where a label box sits relative to its anchor (screen compass, north is up). */
enum chart_dir { CHART_E, CHART_NE, CHART_N, CHART_NW, CHART_W, CHART_SW, CHART_S, CHART_SE };

/* A rectangle in pixels, y down. */
struct chart_rect {
    double x, y, w, h;
};

/* How a line, point or legend swatch is drawn. Sizes are pixels on the reference 1600 x 1000
 * canvas; the layout scales them with the canvas (chart->scale). */
struct chart_style {
    uint32_t rgb;   /* stroke colour */
    double line_px; /* stroke width; 0 = no stroke (points: no outline) */
    enum chart_dash dash;
    double alpha; /* stroke opacity (1 = opaque); 0 is read as 1 */
    enum chart_marker marker;
    double marker_px; /* marker diameter */
    bool filled;      /* marker filled with fill_rgb at fill_alpha */
    uint32_t fill_rgb;
    double fill_alpha; /* 0 is read as 1 */
    bool arrow;        /* lines: arrow head at the last vertex */
};

struct chart_tick {
    double value;
    bool major;    /* decade (log) or step (linear): gridline and label candidate */
    bool labelled; /* after thinning */
    char label[32];
};

struct chart_axis {
    enum chart_scale scale;
    double min, max; /* shown range in data units; CATEGORY: -0.5 .. n - 0.5 */
    char title[128];
    char unit[16];     /* appended to tick labels: "s" gives "10 ms", "" gives "1 T" */
    bool sub_unit;     /* label values below 1 with m, u, n prefixes (times) */
    char **categories; /* CATEGORY: n_categories owned strings, may hold '\n' */
    int n_categories;
    /* layout */
    struct chart_tick ticks[CHART_MAX_TICKS];
    int n_ticks;
};

struct chart_line {
    double *x, *y; /* owned, n vertices in data units; markers at every vertex */
    size_t n;
    struct chart_style style;
};

struct chart_point {
    double x, y;
    struct chart_style style;
};

struct chart_bar {
    double category; /* index on a CATEGORY x axis */
    double y0, y1;
    double width; /* fraction of the category slot */
    uint32_t rgb;
};

struct chart_label {
    char *text;                                          /* owned; may hold '\n' */
    double ax[CHART_MAX_ANCHORS], ay[CHART_MAX_ANCHORS]; /* data anchors, tried in order */
    int n_anchors;
    double gap_px;          /* distance kept from the anchor, reference pixels */
    enum chart_dir dirs[8]; /* candidate sides, tried in order for every anchor */
    int n_dirs;
    int rings; /* candidate rings: k-th at gap_px + 0.9 k label heights */
    uint32_t rgb;
    bool bold;
    double scale; /* font relative to the label font; 0 is read as 1 */
    int priority; /* higher is placed first */
    bool margin;  /* direct label in the panel's right margin at the first anchor's height */
    bool leader;  /* may move up to `rings` rings out, joined to its anchor by a leader line */
    /* layout */
    bool shown;
    struct chart_rect box;
    bool has_leader;
    double lx0, ly0, lx1, ly1; /* leader line, pixels */
};

struct chart_legend_item {
    char *text;
    struct chart_style style;
    bool swatch_box; /* filled square (bars) instead of a line sample */
    /* layout: the row inside the legend box */
    struct chart_rect row;
};

struct chart_panel {
    char title[160];
    struct chart_axis x, y;
    struct chart_line *lines;
    size_t n_lines, cap_lines;
    struct chart_point *points;
    size_t n_points, cap_points;
    struct chart_bar *bars;
    size_t n_bars, cap_bars;
    struct chart_label *labels;
    size_t n_labels, cap_labels;
    struct chart_legend_item *legend;
    size_t n_legend, cap_legend;
    bool legend_left;  /* try the top-left corner first (default: top-right) */
    bool legend_below; /* below the plot, under the x-axis title, never inside the plot */
    /* layout */
    struct chart_rect cell, plot, legend_box;
    bool legend_shown;
    double legend_px; /* legend font size */
};

struct chart {
    char title[256];
    char subtitle[512];
    char footnote[768];
    struct chart_panel panels[CHART_MAX_PANELS];
    int n_panels;
    int cols;    /* panels per row (1 = stacked) */
    bool failed; /* sticky: an allocation failed while building; the chart is incomplete */
    /* layout */
    double width, height, font_px;
    double scale; /* style sizes are multiplied by this (1 on the reference canvas) */
    double title_px, subtitle_px, footnote_px;
    struct chart_rect title_box, subtitle_box, footnote_box;
};

/* Text measurement supplied by the drawing layer (Pango) or by tests: width and height in
 * pixels of `text` (which may hold '\n') at `font_px`. */
typedef void (*chart_measure_fn)(void *ctx, const char *text, double font_px, bool bold, double *w,
                                 double *h);

/* ---- building (allocation failures set chart->failed and make later calls no-ops) ---- */

/* A new empty chart; the caller frees with chart_free. NULL when out of memory. */
struct chart *chart_new(void);
/* Frees the chart and everything it owns; NULL is a no-op. */
void chart_free(struct chart *c);
/* Appends a panel (zeroed, linear axes 0..1); NULL when CHART_MAX_PANELS are in use. */
struct chart_panel *chart_add_panel(struct chart *c);
/* Sets an axis: scale, range in data units, title and tick-label unit (sub_unit off). */
void chart_axis_set(struct chart_axis *ax, enum chart_scale scale, double min, double max,
                    const char *title, const char *unit);
/* Makes `ax` a category axis of n labels (copied). */
void chart_axis_categories(struct chart *c, struct chart_axis *ax, const char *const *labels,
                           int n);
/* Adds a polyline (the arrays are copied). Vertices that are not finite, or not positive on a log
 * axis, are dropped. Returns 0 or -1 (out of memory). */
int chart_add_line(struct chart *c, struct chart_panel *p, const struct chart_style *s,
                   const double *x, const double *y, size_t n);
int chart_add_point(struct chart *c, struct chart_panel *p, double x, double y,
                    const struct chart_style *s);
int chart_add_bar(struct chart *c, struct chart_panel *p, double category, double y0, double y1,
                  double width, uint32_t rgb);
/* Adds a label anchored at (x, y) in data units, placed around it (E, NE, SE, N, S, W, NW, SW;
 * two rings). Returns the label to adjust (anchors, dirs, gap) before the next add, or NULL. */
struct chart_label *chart_add_label(struct chart *c, struct chart_panel *p, const char *text,
                                    double x, double y, int priority, uint32_t rgb);
/* Extra anchor for a label (tried after the earlier ones); ignored beyond CHART_MAX_ANCHORS. */
void chart_label_anchor(struct chart_label *l, double x, double y);
/* Replaces the candidate sides with the n given, in order of preference. */
void chart_label_dirs(struct chart_label *l, const enum chart_dir *dirs, int n);
/* Lets label l move up to `rings` rings out from its anchor (`gap_px` reference pixels at first),
 * joined to the anchor by a leader line, in bold if asked. NULL (a failed chart_add_label) is a
 * no-op, so the result of chart_add_label can be passed straight in. */
void chart_label_leader(struct chart_label *l, double gap_px, int rings, bool bold);
/* Appends a line to the chart's footnote (cut at its size). */
void chart_note(struct chart *c, const char *text);
int chart_add_legend(struct chart *c, struct chart_panel *p, const char *text,
                     const struct chart_style *s, bool swatch_box);

/* ---- pure helpers (unit-tested) ---- */

/* Value with an engineering (SI, powers of 1000) prefix and `sig` significant digits, trailing
 * zeros dropped: 1e12 -> "1 T", 3.35e12 with "B/s" -> "3.35 TB/s". Below 1000 without
 * `sub_unit` the number is written plainly ("0.1", "295"); with it (times), m/u/n prefixes are
 * used below 1 ("100 ms") and none from 1000 up ("5530 s"). Zero is "0". */
void chart_format_si(double v, int sig, const char *unit, bool sub_unit, char *buf, size_t size);
/* Outward snap of [lo, hi] to 1, 2, 3 or 5 times a power of ten for a log axis, after widening
 * by `pad` (>= 1) on each side: (0.25, 700, 1) -> (0.2, 1000). Returns -1 unless
 * 0 < lo <= hi finite. */
int chart_log_bounds(double lo, double hi, double pad, double *min, double *max);
/* Nice linear range and step covering [lo, hi] with about `target` intervals (steps of 1, 2, 5
 * times a power of ten): (0, 87, 5) -> 0, 100, step 20. Returns -1 on bad input. */
int chart_linear_bounds(double lo, double hi, int target, double *min, double *max, double *step);
/* Position of data value v between pixel coordinates p0 (at ax->min) and p1 (at ax->max);
 * log axes map log10 linearly. NaN for values a log axis cannot show. */
double chart_map(const struct chart_axis *ax, double v, double p0, double p1);
/* Fills ax->ticks: log axes get decades (major, labelled) and 2..9 multiples (minor; labelled
 * 2 and 5 when the range spans less than two decades); linear axes nice steps; category axes one
 * tick per category. Returns the number of ticks. */
int chart_axis_ticks(struct chart_axis *ax);
/* Keeps every k-th labelled tick, k the smallest that leaves `min_gap_px` between neighbouring
 * labels given their pixel centres `pos` and extents `size` along the axis. Returns k. */
int chart_thin_ticks(struct chart_tick *ticks, int n, const double *pos, const double *size,
                     double min_gap_px);

/* Obstacles for label placement, in pixels. */
struct chart_segment {
    double x0, y0, x1, y1;
};
struct chart_obstacles {
    struct chart_rect bounds; /* labels must lie inside */
    struct chart_rect *rects;
    size_t n_rects, cap_rects;
    size_t n_fixed; /* rects before this index are not labels (leaders may cross them) */
    /* pixels a new label keeps from the rects from index pad_from on (the legend and the labels
     * placed before it) where it can: two labels that touch read as one. chart_place drops the
     * spacing only when no spaced place is free. */
    double label_pad;
    size_t pad_from;
    struct chart_segment *segs;
    size_t n_segs, cap_segs;
};
void chart_obstacles_init(struct chart_obstacles *o, struct chart_rect bounds);
void chart_obstacles_release(struct chart_obstacles *o);
int chart_obstacles_rect(struct chart_obstacles *o, struct chart_rect r);
int chart_obstacles_segment(struct chart_obstacles *o, double x0, double y0, double x1, double y1);
bool chart_rects_overlap(struct chart_rect a, struct chart_rect b);
bool chart_rect_hits_segment(struct chart_rect r, struct chart_segment s);
/* True when r lies inside the bounds and touches no obstacle. */
bool chart_rect_free(const struct chart_obstacles *o, struct chart_rect r);
/* Box of size w x h on side `d` of the anchor (x, y) at distance `gap`. */
struct chart_rect chart_label_box(double x, double y, double w, double h, double gap,
                                  enum chart_dir d);
/* An opaque line of `px` pixels (at scale 1) in colour `rgb` with `dash`. */
struct chart_style chart_line_style(uint32_t rgb, double px, enum chart_dash dash);
/* A marker of diameter px (at scale 1): outline stroke, stroke_px wide, filled with fill at
 * fill_alpha (0: hollow). */
struct chart_style chart_marker_style(enum chart_marker m, double px, uint32_t stroke,
                                      double stroke_px, uint32_t fill, double fill_alpha);
/* Tries each ring (ring k at gap + 0.9 k h) x each anchor (pixels) x each side; keeps the first
 * free box, records it as an obstacle and returns true with the anchor and ring used (either may
 * be NULL); false (label dropped) when none is free. From ring 1 on the label may get a leader
 * line from the anchor to the box's nearest point, which must cross no label placed before (rects
 * from index n_fixed on). With o->label_pad > 0 every place is first tried o->label_pad away
 * from the rects from o->pad_from on, then, when none is free, touching them. */
struct chart_place_req {
    const double *ax, *ay; /* anchors in pixels, n_anchors of them, tried in order */
    int n_anchors;
    double w, h, gap;           /* the label box and its distance from the anchor (pixels) */
    const enum chart_dir *dirs; /* the sides to try, in order */
    int n_dirs;
    int rings; /* at least 1 */
};
bool chart_place(struct chart_obstacles *o, const struct chart_place_req *q, struct chart_rect *out,
                 int *anchor_used, int *ring_used);
/* One-dimensional placement of n boxes of heights h[] along [lo, hi] as close as possible to
 * their wanted centres c[] (any order) without overlapping, `gap` apart. When they cannot all
 * fit, the lowest priority[] are dropped. Fills top[] (NaN for dropped). Returns the number kept.
 */
int chart_dodge(const double *c, const double *h, const int *priority, int n, double lo, double hi,
                double gap, double *top);

/* Lays the chart out on a width x height pixel canvas: fonts, title, panels, ticks, legend and
 * label placement. Results go into the chart's layout fields. Returns 0, or -1 when the canvas is
 * too small or an axis range is unusable. */
int chart_layout(struct chart *c, double width, double height, chart_measure_fn measure, void *ctx);
/* Pixel position of a data point in a laid-out panel (NaN when it cannot be shown). */
double chart_px_x(const struct chart_panel *p, double x);
double chart_px_y(const struct chart_panel *p, double y);

#endif
