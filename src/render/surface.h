/* The one place that creates Cairo surfaces and chart files: PNG (pixels), SVG and PDF (vector).
 * Files are written under a temporary name and renamed into place, so a failure never leaves a
 * half-written chart. */
#ifndef ROOFLINE_RENDER_SURFACE_H
#define ROOFLINE_RENDER_SURFACE_H

#include "render/chart.h"
#include "util/err.h"

enum chart_format { CHART_PNG, CHART_SVG, CHART_PDF };

/* The format named by the file's extension (.png, .svg, .pdf, any case). Returns 0, or -1 when
 * the extension is none of these. */
int chart_format_from_path(const char *path, enum chart_format *out);
const char *chart_format_name(enum chart_format f);

/* Lays out and draws `c` on a width_px x height_px canvas and writes it to `path` in the format
 * of its extension. PNG is width_px x height_px pixels; SVG and PDF draw the same layout at half
 * scale (1 px = 0.5 pt, a 1600 x 1000 chart is an 800 x 500 pt page). PDFs carry a fixed creation
 * date so that the same chart gives the same file. Returns 0, or -1 with a message in `errs`
 * (NULL: quiet); on failure `path` is left untouched. */
int chart_save(struct chart *c, const char *path, int width_px, int height_px,
               struct err_list *errs);

#endif
