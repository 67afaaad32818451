/* The simulator's chart: latency CDFs of the measured requests and a timeline of the queue, the
 * batch and the KV-cache occupancy (docs/charts.md#kinds). No drawing and no printing. */
#ifndef ROOFLINE_RENDER_CHART_SIM_H
#define ROOFLINE_RENDER_CHART_SIM_H

#include "render/chart.h"
#include "sim/sim.h"
#include "util/err.h"

#include <stddef.h>

/* The empirical CDF of `n` values (any order; NaN and infinite values are skipped) reduced to at
 * most `max_pts` steps: x[] ascending sample values, y[] = fraction of the sample <= x. The
 * points are spread evenly in probability, with the upper tail (from p90) resolved at every
 * 1/max_pts of its own range and the largest value always kept. Returns the number of points
 * written (0 when no value is finite), or -1 when out of memory. */
long chart_sim_cdf(const double *v, long n, double *x, double *y, long max_pts);

/* Builds the chart of one simulation: `name` (the scenario) heads the title, `cfg` gives the
 * SLOs and setup. Returns a chart the caller frees with chart_free, or NULL with the reason in
 * `errs` (no completed request after warm-up). */
struct chart *chart_build_simulate(const struct sim_config *cfg, const struct sim_result *r,
                                   const char *name, struct err_list *errs);

#endif
