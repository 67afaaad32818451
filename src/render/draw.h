/* Drawing a chart model on a caller's cairo_t, text set with Pango in "DejaVu Sans". Creates no
 * surfaces and no files (render/surface.c does). */
#ifndef ROOFLINE_RENDER_DRAW_H
#define ROOFLINE_RENDER_DRAW_H

#include "render/chart.h"

#include <cairo.h>

/* Lays `c` out on a width x height canvas (user-space units of `cr`) and draws it. Returns 0, or
 * -1 when the layout fails (canvas too small, unusable axis) or cairo_status(cr) reports an
 * error afterwards. */
int chart_draw(struct chart *c, cairo_t *cr, double width, double height);

#endif
