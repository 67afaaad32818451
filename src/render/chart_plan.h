/* The capacity planner's chart (docs/plan.md#chart): Pareto fronts of output tokens/s per device
 * against tokens/s per user, one curve per hardware and format, and cost per million output
 * tokens against p99 TTFT. No drawing and no printing. */
#ifndef ROOFLINE_RENDER_CHART_PLAN_H
#define ROOFLINE_RENDER_CHART_PLAN_H

#include "plan/plan.h"
#include "render/chart.h"
#include "util/err.h"

/* Builds the chart of an answered question (`o` gives the engine tuning hook for the analytic
 * sweeps). Returns a chart the caller frees with chart_free, or NULL with the reason in `errs`
 * (no option meets the SLOs at any rate, out of memory). */
struct chart *chart_build_plan(const struct plan_question *q, const struct plan_opts *o,
                               const struct plan_result *r, struct err_list *errs);

#endif
