/* The chart kinds: each builds a chart model from the engine (roofline, regime, batch, prefill,
 * decode, memory). No drawing and no printing; docs/charts.md describes what each shows. */
#ifndef ROOFLINE_RENDER_CHARTS_H
#define ROOFLINE_RENDER_CHARTS_H

#include "core/roof.h"
#include "render/chart.h"
#include "util/err.h"

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

/* A measured point to overlay on a roofline chart. */
struct chart_measured {
    char *label; /* owned; may be empty */
    double intensity_flop_per_byte, flops_per_s;
};

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
};

/* Name of a kind ("roofline") and the reverse; parse returns -1 for an unknown name. */
const char *chart_kind_name(enum chart_kind k);
int chart_kind_parse(const char *name, enum chart_kind *out);
/* Builds the chart for `req`. Returns a chart the caller frees with chart_free, or NULL with the
 * reason in `errs` (NULL: quiet), e.g. when the model does not fit any device. */
struct chart *chart_build(const struct chart_request *req, struct err_list *errs);

/* Reads measured points from a JSON (or YAML) file:
 *   {"points": [{"label": "...", "intensity_flop_per_byte": X, "flops_per_s": Y}, ...]}
 * X and Y positive numbers, label optional; or from a `roofline bench -o json` report (its
 * intensity sweep and every case with FLOPs, at median rates, as `bench --points` writes them). Every problem is added to `errs` with its position.
 * Returns 0 and sets *out (caller frees with chart_measured_free) and *n, or -1. */
int chart_measured_load(const char *path, struct chart_measured **out, size_t *n,
                        struct err_list *errs);
/* The model a `roofline bench -o json` report ran (its model.id) into id; -1 when `path` is not
 * such a report. */
int chart_bench_model(const char *path, char *id, size_t size);
void chart_measured_free(struct chart_measured *m, size_t n);

#endif
