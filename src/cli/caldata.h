/* Shared by validate --measurements, calibrate and the cross-validation: a measurement file
 * with its profiles resolved, and the calibration parameters shipped in the data directory. */
#ifndef ROOFLINE_CLI_CALDATA_H
#define ROOFLINE_CLI_CALDATA_H

#include "core/fit.h"
#include "io/calparams.h"
#include "io/measure.h"

struct caldata {
    struct meas_set *set;
    struct fit_case *cases; /* one per row; hw NULL when unresolved */
    const char **reason;    /* per row: why it cannot be modelled, or NULL */
    struct hw_profile **hws;
    int n_hws;
    struct mdl_profile **models;
    int n_models;
    struct calib_params params; /* engines owned here */
    struct engine_profile *engines[CALIB_MAX_ENGINES];
    struct cal_bands bands; /* per phase and class: q10, q90 of log(meas/pred) */
    bool quiet;             /* leave out warnings (a generic engine model, an alias) */
};

/* Load the file, resolve hardware, model and engine of every row, and the shipped parameters
 * (calibration/device-classes.yaml, engine_profiles/). Rows that cannot be resolved keep a
 * reason. Returns 0, or -1 after printing errors (bad file). `quiet`: print errors only, not the
 * warnings that say which rows use a generic engine model (the report's validation summary,
 * which says so itself; validate and calibrate print them). */
int caldata_load(const char *path, const char *params_dir, bool quiet, struct caldata *d);
void caldata_release(struct caldata *d);
/* The tuning of `engine` on `hw` from the calibrated parameters in `params_dir` (NULL: the data
 * directory), and the device class's bands per phase (log ratios; zeros when none). 0, -2 when
 * no such engine exists (a usage error) or -1 when a data file does not load, after printing. */
int caldata_tuning(const struct hw_profile *hw, const char *engine, const char *params_dir,
                   struct roof_tuning *out, double band[PRED_PHASE_COUNT][2]);
/* The planner's tuning hook (plan_opts.tuning, `ctx` unused): caldata_tuning from the data
 * directory (plan, report and the plan chart share it). */
int caldata_plan_tuning(const struct hw_profile *hw, const char *engine, struct roof_tuning *out,
                        void *ctx);
/* Write device classes and engines to `dir` (files renamed into place) with provenance. */
int caldata_write_params(const struct caldata *d, const char *dir, const char *provenance);

#endif
