/* The chart kinds built from the engine for a chart_request (roofline, regime, batch, prefill,
 * decode, memory): one file each (render/chart_<kind>.c), one table of {name, build} in charts.c.
 * No drawing and no printing; docs/charts.md describes what each shows. */
#ifndef ROOFLINE_RENDER_CHARTS_H
#define ROOFLINE_RENDER_CHARTS_H

#include "core/roof.h"
#include "io/points.h"
#include "render/chart.h"
#include "util/err.h"

/* Every chart kind built from a chart_request, in order, as X(ENUM, name): the one list a new
 * kind is added to. The enum below, the builders' prototypes (render/chart_kinds.h) and the
 * table of {name, builder} in render/charts.c are made from it; a kind's builder is
 * chart_fill_<name> in render/chart_<name>.c. */
#define CHART_KINDS(X)                                                                             \
    X(ROOFLINE, roofline)                                                                          \
    X(REGIME, regime)                                                                              \
    X(BATCH, batch)                                                                                \
    X(PREFILL, prefill)                                                                            \
    X(DECODE, decode)                                                                              \
    X(MEMORY, memory)

/* clang-format off */
enum chart_kind {
#define CHART_KIND_ENUM(upper, name) CHART_KIND_##upper,
    CHART_KINDS(CHART_KIND_ENUM)
#undef CHART_KIND_ENUM
    CHART_KIND_COUNT
};
/* clang-format on */

#define CHART_MAX_GPUS 5
#define CHART_MAX_BATCHES 8

struct chart_request {
    enum chart_kind kind;
    const struct hw_profile *hws[CHART_MAX_GPUS]; /* devices to overlay, at least one */
    int n_hws;
    /* model, formats, prompt, context, flash attention and the first batch; hw is ignored */
    struct roof_config base;
    double batches[CHART_MAX_BATCHES]; /* --batch list; n_batches = 0: the kind's default */
    int n_batches;
    const struct chart_measured *measured; /* roofline only; may be NULL */
    size_t n_measured;
    /* an engine's tuning per device (it depends on the device class); n_tunings = 0: base's */
    struct roof_tuning tunings[CHART_MAX_GPUS];
    int n_tunings;
};

/* Name of a kind ("roofline") and the reverse; parse returns -1 for an unknown name. */
const char *chart_kind_name(enum chart_kind k);
int chart_kind_parse(const char *name, enum chart_kind *out);
/* Builds the chart for `req`. Returns a chart the caller frees with chart_free, or NULL with the
 * reason in `errs` (NULL: quiet), e.g. when the model does not fit any device. */
struct chart *chart_build(const struct chart_request *req, struct err_list *errs);

#endif
