/* libFuzzer harness: hardware profiles from memory (ynode_parse + hw_from_tree). */
#include "fuzz_common.h"

#include "core/hw.h"

static void
check(const struct ynode *root, const char *name, struct err_list *errs)
{
    hw_free(hw_from_tree(root, name, "fuzz", errs));
}

FUZZ_TREE("fuzz.yaml", check)
