/* The tornado chart of a sensitivity analysis: for each input a horizontal bar from the output
 * at the input's low value to the output at its high value, around the base value's line, the
 * inputs sorted by swing (the largest on top), each bar end labelled with the input value. Pure
 * chart model (render/chart.h); one panel per output. */
#ifndef ROOFLINE_RENDER_CHART_TORNADO_H
#define ROOFLINE_RENDER_CHART_TORNADO_H

#include "render/chart.h"

#define TORNADO_MAX_ROWS 16

struct tornado_row {
    char name[48];                /* the input, e.g. "memory efficiency" */
    char low_in[32], high_in[32]; /* the input's low and high values in words, e.g. "0.64" */
    double low, high;             /* the output at the low and high input; NaN = infeasible */
};

struct tornado_panel {
    const char *title; /* the output, e.g. "devices" */
    const char *unit;  /* tick-label unit ("" for none) */
    double base;       /* the output at the base inputs */
    const struct tornado_row *rows;
    int n_rows; /* at most TORNADO_MAX_ROWS */
};

/* Swing of a row: |high - low| (an infeasible end counts as the largest swing). */
double tornado_swing(const struct tornado_row *r);
/* A chart of n_panels (1..CHART_MAX_PANELS) side by side; NULL when out of memory or a panel has
 * no finite base. */
struct chart *chart_build_tornado(const char *title, const char *subtitle,
                                  const struct tornado_panel *panels, int n_panels);

#endif
