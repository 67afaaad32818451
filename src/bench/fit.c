/* Roofline fit: residual r_i = log y_i - log min(P, B I_i) in (log P, log B); the Jacobian is
 * piecewise constant (-1 on the active roof), so it is given exactly rather than differenced. */
#include "bench/fit.h"

#include <gsl/gsl_blas.h>
#include <gsl/gsl_errno.h>
#include <gsl/gsl_multifit_nlinear.h>
#include <math.h>
#include <stdbool.h>
#include <string.h>

struct fit_data {
    const struct bench_roof_point *pts;
    int n;
};

static int
fit_f(const gsl_vector *x, void *params, gsl_vector *f)
{
    const struct fit_data *d = params;
    double lp = gsl_vector_get(x, 0), lb = gsl_vector_get(x, 1);
    for (int i = 0; i < d->n; i++) {
        double mem = lb + log(d->pts[i].intensity_flop_per_byte);
        gsl_vector_set(f, (size_t)i, log(d->pts[i].flops_per_s) - (lp < mem ? lp : mem));
    }
    return GSL_SUCCESS;
}

static int
fit_df(const gsl_vector *x, void *params, gsl_matrix *J)
{
    const struct fit_data *d = params;
    double lp = gsl_vector_get(x, 0), lb = gsl_vector_get(x, 1);
    for (int i = 0; i < d->n; i++) {
        double mem = lb + log(d->pts[i].intensity_flop_per_byte);
        bool compute = lp < mem;
        gsl_matrix_set(J, (size_t)i, 0, compute ? -1.0 : 0.0);
        gsl_matrix_set(J, (size_t)i, 1, compute ? 0.0 : -1.0);
    }
    return GSL_SUCCESS;
}

int
bench_fit_roofline(const struct bench_roof_point *pts, int n, struct bench_roof_fit *out)
{
    memset(out, 0, sizeof *out);
    out->peak_rel_sigma = out->bandwidth_rel_sigma = NAN;
    out->gsl_status = GSL_EINVAL;
    if (n < 2 || n > BENCH_FIT_MAX_POINTS)
        return -1;
    double ymax = 0, bmax = 0;
    for (int i = 0; i < n; i++) {
        double I = pts[i].intensity_flop_per_byte, y = pts[i].flops_per_s;
        if (!(I > 0) || !(y > 0) || !isfinite(I) || !isfinite(y))
            return -1;
        ymax = y > ymax ? y : ymax;
        bmax = y / I > bmax ? y / I : bmax;
    }
    struct fit_data d = {pts, n};
    gsl_multifit_nlinear_fdf fdf;
    memset(&fdf, 0, sizeof fdf);
    fdf.f = fit_f;
    fdf.df = fit_df;
    fdf.n = (size_t)n;
    fdf.p = 2;
    fdf.params = &d;
    gsl_multifit_nlinear_parameters fp = gsl_multifit_nlinear_default_parameters();
    gsl_multifit_nlinear_workspace *w =
        gsl_multifit_nlinear_alloc(gsl_multifit_nlinear_trust, &fp, (size_t)n, 2);
    gsl_vector *x = gsl_vector_alloc(2);
    gsl_matrix *cov = gsl_matrix_alloc(2, 2);
    int rc = -1;
    if (!w || !x || !cov) {
        out->gsl_status = GSL_ENOMEM;
        goto done;
    }
    /* start at the highest rate and the steepest memory slope seen */
    gsl_vector_set(x, 0, log(ymax));
    gsl_vector_set(x, 1, log(bmax));
    int info = 0;
    int status = gsl_multifit_nlinear_init(x, &fdf, w);
    if (status == GSL_SUCCESS)
        status = gsl_multifit_nlinear_driver(BENCH_FIT_MAX_ITER, 1e-10, 1e-10, 1e-10, NULL, NULL,
                                             &info, w);
    out->gsl_status = status;
    out->iterations = (int)gsl_multifit_nlinear_niter(w);
    if (status != GSL_SUCCESS && status != GSL_EMAXITER)
        goto done;
    const gsl_vector *best = gsl_multifit_nlinear_position(w);
    const gsl_vector *res = gsl_multifit_nlinear_residual(w);
    out->peak_flops_per_s = exp(gsl_vector_get(best, 0));
    out->bandwidth_bytes_per_s = exp(gsl_vector_get(best, 1));
    out->ridge_flop_per_byte = out->peak_flops_per_s / out->bandwidth_bytes_per_s;
    out->n = n;
    double ss = 0;
    for (int i = 0; i < n; i++) {
        out->residual_log[i] = gsl_vector_get(res, (size_t)i);
        ss += out->residual_log[i] * out->residual_log[i];
    }
    out->rms_log_residual = sqrt(ss / n);
    /* parameter uncertainty: s^2 (J^T J)^-1, in log units = relative; a column of zeros (no
     * point on that roof) leaves the parameter undetermined */
    int on_peak = 0, on_mem = 0;
    for (int i = 0; i < n; i++) {
        if (out->peak_flops_per_s < out->bandwidth_bytes_per_s * pts[i].intensity_flop_per_byte)
            on_peak++;
        else
            on_mem++;
    }
    if (on_peak > 0 && on_mem > 0 && n > 2 &&
        gsl_multifit_nlinear_covar(gsl_multifit_nlinear_jac(w), 0.0, cov) == GSL_SUCCESS) {
        double s2 = ss / (n - 2);
        out->peak_rel_sigma = sqrt(s2 * gsl_matrix_get(cov, 0, 0));
        out->bandwidth_rel_sigma = sqrt(s2 * gsl_matrix_get(cov, 1, 1));
    }
    rc = 0;
done:
    gsl_matrix_free(cov);
    gsl_vector_free(x);
    gsl_multifit_nlinear_free(w);
    return rc;
}
