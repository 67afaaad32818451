/* libFuzzer harness: 'roofline bench -o json' reports read by chart --measured (points_load
 * and points_bench_model through a scratch file; fuzz_points.h), from bench report seeds. */
#include "fuzz_common.h"
#include "fuzz_points.h"

FUZZ_FILE(".json", fuzz_check_points)
