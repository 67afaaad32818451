/* What fuzz_model and fuzz_hfconfig check of a loaded model: finite, positive sizes (a head_dim
 * of 0 once passed). Frees the model; NULL (refused) is fine. */
#ifndef ROOFLINE_FUZZ_MODEL_H
#define ROOFLINE_FUZZ_MODEL_H

#include "core/model.h"

#include <math.h>
#include <stdlib.h>

static inline void
fuzz_check_model(struct mdl_profile *m)
{
    if (!m)
        return;
    struct mdl_params p;
    mdl_param_count(m, &p);
    double kv = mdl_kv_bytes_per_token(m, 2.0);
    if (!(isfinite(p.total) && p.total > 0 && isfinite(kv) && kv > 0))
        abort();
    mdl_free(m);
}

#endif
