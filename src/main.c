/* main(): GSL's abort-on-error handler off, then dispatch to a command. */
#include "cli/cli.h"

#include <gsl/gsl_errno.h>

int
main(int argc, char **argv)
{
    gsl_set_error_handler_off();
    return cli_main(argc, argv);
}
