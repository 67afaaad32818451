/* What fuzz_measured and fuzz_bench_report check of a measured-points file or a bench report
 * (io/points.h, read by chart --measured): every point loaded is finite. */
#ifndef ROOFLINE_FUZZ_POINTS_H
#define ROOFLINE_FUZZ_POINTS_H

#include "io/points.h"

#include <math.h>
#include <stdlib.h>

static void
fuzz_check_points(const char *path, struct err_list *errs)
{
    struct chart_measured *pts = NULL;
    size_t n = 0;
    if (points_load(path, &pts, &n, errs) == 0) {
        for (size_t i = 0; i < n; i++)
            if (!isfinite(pts[i].intensity_flop_per_byte) || !isfinite(pts[i].flops_per_s))
                abort();
        points_free(pts, n);
    }
    char id[64];
    (void)points_bench_model(path, id, sizeof id);
}

#endif
