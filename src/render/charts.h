/* The chart kinds built from the engine for a chart_request (roofline, regime, batch, prefill,
 * decode, memory): one file each (render/chart_<kind>.c), one table of {name, build} in charts.c.
 * No drawing and no printing; docs/charts.md describes what each shows. */
#ifndef ROOFLINE_RENDER_CHARTS_H
#define ROOFLINE_RENDER_CHARTS_H

#include "core/roof.h"
#include "io/points.h"
#include "render/chart.h"
#include "util/err.h"

/* One value per line of the KINDS table (render/charts.c), in its order. */
enum chart_kind {
    CHART_KIND_ROOFLINE,
    CHART_KIND_REGIME,
    CHART_KIND_BATCH,
    CHART_KIND_PREFILL,
    CHART_KIND_DECODE,
    CHART_KIND_MEMORY,
    CHART_KIND_COUNT
};

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
