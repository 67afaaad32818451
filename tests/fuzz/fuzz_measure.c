/* libFuzzer harness: measurement files (meas_load through a scratch file). */
#include "fuzz_common.h"

#include "io/measure.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const char *path = fuzz_scratch(".yaml");
    if (fuzz_write(path, data, size) != 0)
        return 0;
    struct err_list errs = {0};
    struct meas_set *s = meas_load(path, &errs);
    if (s) {
        for (int i = 0; i < s->n; i++)
            if (s->rows[i].pc.count < 1 || s->rows[i].pc.tp < 0)
                abort();
    }
    meas_set_free(s);
    err_list_release(&errs);
    return 0;
}
