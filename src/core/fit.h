/* Fitting the calibration parameters (device-class efficiencies and latency, engine overheads)
 * to measurements by nonlinear least squares on log errors (GSL multifit_nlinear), and the
 * statistics of prediction errors. docs/calibration.md. */
#ifndef ROOFLINE_CORE_FIT_H
#define ROOFLINE_CORE_FIT_H

#include "core/calib.h"

struct fit_case {
    const struct pred_case *pc;
    const struct hw_profile *hw;
    const struct mdl_profile *model; /* NULL for matmul */
    int engine;                      /* index into calib_params.engine */
    double measured;
};

/* Predict one case with parameters `p`. */
int fit_predict(const struct calib_params *p, const struct fit_case *c, double *predicted,
                const char **reason);

/* The fitted parameters and their one-sigma uncertainty (in natural units). */
#define FIT_MAX_PARAMS 64
struct fit_report {
    int n_params, n_cases, iterations, status;
    char names[FIT_MAX_PARAMS][48];
    double value[FIT_MAX_PARAMS], sigma[FIT_MAX_PARAMS];
    double rms_log_error_before, rms_log_error_after;
};

/* Iteration cap of the trust-region fit; GSL_EMAXITER there still keeps the best point. */
#define FIT_MAX_ITER 200
/* Fit the parameters of the device classes and engines that appear in `cases` (others stay as
 * they are). Returns 0, or -1 when GSL fails (p unchanged). */
int fit_calibrate(struct calib_params *p, const struct fit_case *cases, int n,
                  struct fit_report *rep);
/* The same with the device classes held at their values in `p`: only the parameters of the
 * engines that appear in `cases` are fitted (calibrate --hold-classes). */
int fit_calibrate_engines(struct calib_params *p, const struct fit_case *cases, int n,
                          struct fit_report *rep);
/* One engine parameter alone ("kernel_overhead", "step_overhead", "memory_efficiency" or
 * "compute_efficiency") of the engines in `cases`; the classes and every other parameter keep
 * their values in `p` (calibrate --fit). -1 for an unknown name or a failed fit. */
int fit_calibrate_engine_param(struct calib_params *p, const struct fit_case *cases, int n,
                               const char *param, struct fit_report *rep);

/* One row's held-out prediction (fit_leave_group_out). */
struct fit_heldout {
    double pred;     /* in the row's metric */
    bool ok;         /* a finite, positive prediction */
    const char *why; /* static text when not ok and known, else NULL */
    int n_train;     /* rows seen by the fit that predicted this row */
    bool fit_ok;     /* that fit converged (false: the starting parameters predicted) */
};

/* Leave-one-group-out cross-validation: for every distinct label g >= 0 in `group` (a row
 * labelled < 0 takes no part), fit a copy of `p` on the rows whose label is not g and predict
 * the rows labelled g with it; the rows of a group are never seen by the fit that predicts
 * them. Groups are devices or vendors (docs/calibration.md#validation-and-bands). Fills out[i]
 * for every row. Returns the number of groups, or -1 when out of memory. */
int fit_leave_group_out(const struct calib_params *p, const struct fit_case *cases, int n,
                        const int *group, struct fit_heldout *out);

/* Summary statistics of signed percentage errors: count, median and P90 of |error|. */
struct fit_stats {
    int n;
    double median_abs_pct, p90_abs_pct, mean_pct;
};
void fit_stats_of(const double *err_pct, int n, struct fit_stats *out);
/* Quantile q in [0, 1] of an array (sorted copy; GSL's quantile_from_sorted_data). */
double fit_quantile(const double *x, int n, double q);

#endif
