/* libFuzzer harness: request traces (scenario_read_trace through a scratch file). */
#include "fuzz_common.h"

#include "io/scenario.h"

static void
check(const char *path, struct err_list *errs)
{
    struct sim_trace tr;
    if (scenario_read_trace(path, &tr, errs) == 0)
        free(tr.rows);
}

FUZZ_FILE(".csv", check)
