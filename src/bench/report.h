/* The bench report: the JSON report, the measured-points file for `roofline chart roofline
 * --measured`, and a hardware profile of the host (hw_profile_text in io/ writes its YAML).
 * Everything goes into memory buffers; the CLI writes them to stdout or renames them into place. */
#ifndef ROOFLINE_BENCH_REPORT_H
#define ROOFLINE_BENCH_REPORT_H

#include "bench/bench.h"
#include "core/hw.h"
#include "util/strbuf.h"

#include <stdbool.h>
#include <stddef.h>

/* The whole report as a JSON document: tool version, date, host, compiler and flags, threads,
 * timer, every measurement with min/median/max and the raw samples, the fit with residuals, the
 * derived roofs. Returns 0, or -1 when out of memory. */
int bench_render_json(const struct bench_report *r, struct strbuf *out);

/* {"points": [{"label", "intensity_flop_per_byte", "flops_per_s"}, ...]}: every measured case
 * and intensity-sweep point with work on both axes, at its median rate. */
int bench_render_points(const struct bench_report *r, struct strbuf *out);

/* A hardware profile of the host from the report's roofs (kind cpu; vendor intel/amd/other;
 * memory capacity and measured DRAM bandwidth; measured peaks; cache sizes and bandwidths;
 * provenance; every number sourced as "measured by roofline bench on DATE"). Caller frees with
 * hw_free. NULL when the report has no DRAM bandwidth or no fp32 peak, or out of memory. */
struct hw_profile *bench_profile_new(const struct bench_report *r);

#endif
