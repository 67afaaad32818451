/* libFuzzer harness: measured points files ({points: [...]}) read by chart --measured
 * (chart_measured_load and chart_bench_model through a scratch file). */
#include "fuzz_common.h"

#include "render/charts.h"

#include <math.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const char *path = fuzz_scratch(".json");
    if (fuzz_write(path, data, size) != 0)
        return 0;
    struct err_list errs = {0};
    struct chart_measured *pts = NULL;
    size_t n = 0;
    if (chart_measured_load(path, &pts, &n, &errs) == 0) {
        for (size_t i = 0; i < n; i++)
            if (!isfinite(pts[i].intensity_flop_per_byte) || !isfinite(pts[i].flops_per_s))
                abort();
        chart_measured_free(pts, n);
    }
    char id[64];
    (void)chart_bench_model(path, id, sizeof id);
    err_list_release(&errs);
    return 0;
}
