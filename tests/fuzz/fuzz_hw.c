/* libFuzzer harness: hardware profiles from memory (ynode_parse + hw_from_tree). */
#include "fuzz_common.h"

#include "core/hw.h"
#include "io/ytree.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct err_list errs = {0};
    struct ynode *root = ynode_parse("fuzz.yaml", (const char *)data, size, &errs);
    if (root) {
        struct hw_profile *hw = hw_from_tree(root, "fuzz.yaml", "fuzz", &errs);
        hw_free(hw);
        ynode_free(root);
    }
    err_list_release(&errs);
    return 0;
}
