/* libFuzzer harness: scenarios from memory (scenario_parse; profiles named by id come from the
 * data directory, relative trace paths from the current directory). */
#include "fuzz_common.h"

#include "io/scenario.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    fuzz_setup();
    struct err_list errs = {0};
    struct scenario *s = scenario_parse("fuzz.yaml", (const char *)data, size, &errs);
    scenario_free(s);
    err_list_release(&errs);
    return 0;
}
