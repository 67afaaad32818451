/* libFuzzer harness: request traces (scenario_read_trace through a scratch file). */
#include "fuzz_common.h"

#include "io/scenario.h"
#include "sim/sim.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const char *path = fuzz_scratch(".csv");
    if (fuzz_write(path, data, size) != 0)
        return 0;
    struct err_list errs = {0};
    struct sim_trace tr;
    if (scenario_read_trace(path, &tr, &errs) == 0)
        free(tr.rows);
    err_list_release(&errs);
    return 0;
}
