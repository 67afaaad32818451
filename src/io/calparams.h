/* The calibration-parameter files that roofline calibrate writes and every prediction reads:
 * calibration/device-classes.yaml (the kernel model's device-class parameters and the error
 * bands) and engine_profiles/NAME.yaml (docs/calibration.md). Reader and writer side by side;
 * nothing printed: problems go to an error list. The measurement format is io/measure.c. */
#ifndef ROOFLINE_IO_CALPARAMS_H
#define ROOFLINE_IO_CALPARAMS_H

#include "core/calib.h"
#include "core/roof.h"
#include "util/err.h"
#include "util/strbuf.h"

#include <stdbool.h>

/* Split-conformal 10th and 90th percentiles of log(measured / predicted), per phase and class
 * (zeros: no band). */
struct cal_bands {
    double q[PRED_PHASE_COUNT][DEV_CLASS_COUNT][2];
    bool have;
};

/* Read calibration/device-classes.yaml at `path` into dev[] and bands (what the file leaves out
 * keeps its value). A missing file is not an error (the documented defaults stay): 0. -1 with
 * every problem in errs. */
int calparams_load(const char *path, struct dev_params dev[DEV_CLASS_COUNT],
                   struct cal_bands *bands, struct err_list *errs);
/* The same files as text (appended to out); 0, or -1 when out of memory. */
int calparams_classes_text(const struct dev_params dev[DEV_CLASS_COUNT],
                           const struct cal_bands *bands, const char *provenance,
                           struct strbuf *out);
int calparams_engine_text(const struct engine_profile *ep, const char *provenance,
                          struct strbuf *out);
/* The tuning of `engine` (a name or a path) on `hw` from the calibrated parameters in
 * `params_dir` (NULL: the data directory), and the device class's bands per phase (log ratios;
 * zeros when none; band may be NULL). 0; -2 when no such engine exists; -1 when a file does not
 * load; problems in errs. */
int calparams_tuning(const struct hw_profile *hw, const char *engine, const char *params_dir,
                     struct roof_tuning *out, double band[PRED_PHASE_COUNT][2],
                     struct err_list *errs);
/* Write dir/calibration/device-classes.yaml and dir/engine_profiles/NAME.yaml for each engine
 * (directories created, each file renamed into place). 0, or -1 with the reason in errs. */
int calparams_save(const char *dir, const struct dev_params dev[DEV_CLASS_COUNT],
                   const struct cal_bands *bands, const struct engine_profile *engines,
                   int n_engines, const char *provenance, struct err_list *errs);

#endif
