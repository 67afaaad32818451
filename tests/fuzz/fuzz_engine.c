/* libFuzzer harness: engine profiles (engine_load through a scratch file). */
#include "fuzz_common.h"

#include "io/measure.h"

static void
check(const char *path, struct err_list *errs)
{
    engine_profile_free(engine_load(path, errs));
}

FUZZ_FILE(".yaml", check)
