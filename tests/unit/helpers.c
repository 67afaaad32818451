/* Shared test helpers: loading the shipped profiles from the source tree. */
#include "test.h"

#include "io/profiles.h"

#include <stdlib.h>

const char *
test_data_dir(void)
{
    const char *d = getenv("ROOFLINE_DATA");
    return d && *d ? d : ".";
}

struct hw_profile *
test_hw(const char *id)
{
    prof_set_data_dir(test_data_dir());
    struct err_list errs = {0};
    struct hw_profile *hw = hw_find(id, &errs);
    if (!hw) {
        fprintf(stderr, "cannot load hardware profile '%s' (%zu errors)\n", id, errs.n);
        exit(2);
    }
    err_list_release(&errs);
    return hw;
}

struct mdl_profile *
test_model(const char *id)
{
    prof_set_data_dir(test_data_dir());
    struct err_list errs = {0};
    struct mdl_profile *m = mdl_find(id, &errs);
    if (!m) {
        fprintf(stderr, "cannot load model profile '%s' (%zu errors)\n", id, errs.n);
        exit(2);
    }
    err_list_release(&errs);
    return m;
}
