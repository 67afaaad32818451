/* libFuzzer harness: scenarios from memory (scenario_parse; profiles named by id come from the
 * data directory, relative trace paths from the current directory). */
#include "fuzz_common.h"

#include "io/scenario.h"

static void
check(const char *text, size_t size, struct err_list *errs)
{
    scenario_free(scenario_parse("fuzz.yaml", text, size, errs));
}

FUZZ_TEXT(check)
