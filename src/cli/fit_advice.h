/* Printing roof_fit_advise (core/fits.h) for analyze, explain and simulate. */
#ifndef ROOFLINE_CLI_FIT_ADVICE_H
#define ROOFLINE_CLI_FIT_ADVICE_H

#include "core/fits.h"

#include <stdbool.h>
#include <stdio.h>

/* When `cfg` does not fit one device, print to `f` by how much and each change that would fit,
 * one a line after `indent`; print nothing when it fits. Returns whether it fits. */
bool cli_fit_advice(FILE *f, const struct roof_config *cfg, const char *indent);

#endif
