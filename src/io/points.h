/* The measured-points file of `roofline chart roofline --measured` (io/points.c). */
#ifndef ROOFLINE_IO_POINTS_H
#define ROOFLINE_IO_POINTS_H

#include "util/err.h"

#include <stddef.h>

/* One measured point on a roofline chart. */
struct chart_measured {
    char *label; /* owned; may be empty */
    double intensity_flop_per_byte, flops_per_s;
};

/* Reads measured points from a JSON (or YAML) file:
 *   {"points": [{"label": "...", "intensity_flop_per_byte": X, "flops_per_s": Y}, ...]}
 * X and Y positive numbers, label optional; or from a `roofline bench -o json` report (its
 * intensity sweep and every case with FLOPs, at median rates, as `bench --points` writes them).
 * Every problem is added to `errs` with its position. Returns 0 and sets *out (caller frees with
 * points_free) and *n, or -1. */
int points_load(const char *path, struct chart_measured **out, size_t *n, struct err_list *errs);
/* The model a `roofline bench -o json` report ran (its model.id) into id; -1 when `path` is not
 * such a report. */
int points_bench_model(const char *path, char *id, size_t size);
void points_free(struct chart_measured *m, size_t n);

#endif
