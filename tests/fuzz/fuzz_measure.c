/* libFuzzer harness: measurement files (meas_load through a scratch file); a loaded row never
 * has fewer than one device. */
#include "fuzz_common.h"

#include "io/measure.h"

static void
check(const char *path, struct err_list *errs)
{
    struct meas_set *s = meas_load(path, errs);
    for (int i = 0; s && i < s->n; i++)
        if (s->rows[i].pc.count < 1 || s->rows[i].pc.tp < 0)
            abort();
    meas_set_free(s);
}

FUZZ_FILE(".yaml", check)
