/* libFuzzer harness: Hugging Face config.json (lenient keys) from memory (ynode_parse +
 * mdl_from_tree), then the derived quantities the commands print (fuzz_model.h). */
#include "fuzz_common.h"
#include "fuzz_model.h"

static void
check(const struct ynode *root, const char *name, struct err_list *errs)
{
    fuzz_check_model(mdl_from_tree(root, name, "fuzz", true, errs));
}

FUZZ_TREE("config.json", check)
