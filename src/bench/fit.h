/* Fitting the roofline min(P, B x I) to measured (intensity, FLOP/s) points with GSL nonlinear
 * least squares, as the Empirical Roofline Toolkit derives its ceilings from a sweep. */
#ifndef ROOFLINE_BENCH_FIT_H
#define ROOFLINE_BENCH_FIT_H

#define BENCH_FIT_MAX_POINTS 64
#define BENCH_FIT_MAX_ITER 200

struct bench_roof_point {
    double intensity_flop_per_byte, flops_per_s;
};

struct bench_roof_fit {
    double peak_flops_per_s, bandwidth_bytes_per_s, ridge_flop_per_byte;
    /* 1-sigma of the two parameters (relative, from the Jacobian at the optimum); NaN when the
     * points do not determine them (e.g. none on one side of the ridge) */
    double peak_rel_sigma, bandwidth_rel_sigma;
    int n;
    double residual_log[BENCH_FIT_MAX_POINTS]; /* log(measured / fitted) per point */
    double rms_log_residual;
    int iterations;
    int gsl_status; /* GSL_SUCCESS or GSL_EMAXITER (iteration cap reached, best point kept) */
};

/* Fit log y = log min(P, B x I) over n points (2 <= n <= BENCH_FIT_MAX_POINTS, all positive),
 * parameters log P and log B so both stay positive; at most BENCH_FIT_MAX_ITER iterations.
 * Returns 0 and fills *out, or -1 on bad input or a GSL failure (out->gsl_status tells). */
int bench_fit_roofline(const struct bench_roof_point *pts, int n, struct bench_roof_fit *out);

#endif
