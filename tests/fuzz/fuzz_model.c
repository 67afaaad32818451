/* libFuzzer harness: model profiles (YAML, strict) from memory (ynode_parse +
 * mdl_from_tree), then the derived quantities the commands print. */
#include "fuzz_common.h"

#include "core/model.h"
#include "io/ytree.h"

#include <math.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct err_list errs = {0};
    struct ynode *root = ynode_parse("fuzz.yaml", (const char *)data, size, &errs);
    if (root) {
        struct mdl_profile *m = mdl_from_tree(root, "fuzz.yaml", "fuzz", false, &errs);
        if (m) {
            /* a loaded model gives finite, non-negative sizes (a head_dim of 0 once passed) */
            struct mdl_params p;
            mdl_param_count(m, &p);
            double kv = mdl_kv_bytes_per_token(m, 2.0);
            if (!(isfinite(p.total) && p.total > 0 && isfinite(kv) && kv > 0))
                abort();
            mdl_free(m);
        }
        ynode_free(root);
    }
    err_list_release(&errs);
    return 0;
}
