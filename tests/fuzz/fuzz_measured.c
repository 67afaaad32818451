/* libFuzzer harness: measured points files ({points: [...]}) read by chart --measured
 * (points_load and points_bench_model through a scratch file; fuzz_points.h). */
#include "fuzz_common.h"
#include "fuzz_points.h"

FUZZ_FILE(".json", fuzz_check_points)
