/* libFuzzer harness: engine profiles (engine_load through a scratch file). */
#include "fuzz_common.h"

#include "core/calib.h"
#include "io/measure.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const char *path = fuzz_scratch(".yaml");
    if (fuzz_write(path, data, size) != 0)
        return 0;
    struct err_list errs = {0};
    struct engine_profile *e = engine_load(path, &errs);
    engine_profile_free(e);
    err_list_release(&errs);
    return 0;
}
