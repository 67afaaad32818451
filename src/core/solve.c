/* Crossovers found by GSL's Brent root finder on continuous batch or prompt length: where
 * compute time equals memory time (docs/physics.md#crossovers). */
#include "core/roof.h"

#include <gsl/gsl_errno.h>
#include <gsl/gsl_roots.h>
#include <math.h>

struct solve_ctx {
    struct roof_config cfg;
    bool gemm_only;
    bool vary_prompt;
};

/* log(compute time / memory time): monotone increasing in batch and prompt */
static double
balance(double x, void *p)
{
    struct solve_ctx *s = p;
    struct roof_config c = s->cfg;
    if (s->vary_prompt)
        c.prompt = x;
    else
        c.batch = x;
    struct roof_result r;
    if (roof_evaluate(&c, &r) != 0)
        return GSL_NAN;
    double tc = 0, tm = 0;
    for (int i = 0; i < ROOF_OP_COUNT; i++) {
        const struct roof_op_result *o = &r.ops[i];
        if (!o->present)
            continue;
        if (s->gemm_only && !(o->is_matmul && o->bytes_weights > 0))
            continue;
        tc += o->compute_time_s;
        tm += o->memory_time_s;
    }
    if (!(tc > 0) || !(tm > 0))
        return GSL_NAN;
    return log(tc / tm);
}

int
roof_solve_brent(double (*f)(double, void *), void *params, double lo, double hi, double tol_rel,
                 double *out)
{
    double flo = f(lo, params), fhi = f(hi, params);
    if (!isfinite(flo) || !isfinite(fhi))
        return -1;
    if (flo >= 0) {
        *out = lo;
        return 1;
    }
    if (fhi < 0) {
        *out = hi;
        return 1;
    }
    gsl_function F = {f, params};
    gsl_root_fsolver *solver = gsl_root_fsolver_alloc(gsl_root_fsolver_brent);
    if (!solver)
        return -1;
    if (gsl_root_fsolver_set(solver, &F, lo, hi) != GSL_SUCCESS) {
        gsl_root_fsolver_free(solver);
        return -1;
    }
    int status = GSL_CONTINUE;
    for (int iter = 0; iter < ROOF_SOLVE_MAX_ITER && status == GSL_CONTINUE; iter++) {
        if (gsl_root_fsolver_iterate(solver) != GSL_SUCCESS)
            break;
        double a = gsl_root_fsolver_x_lower(solver), b = gsl_root_fsolver_x_upper(solver);
        status = gsl_root_test_interval(a, b, 0.0, tol_rel);
    }
    double root = gsl_root_fsolver_root(solver);
    gsl_root_fsolver_free(solver);
    if (status != GSL_SUCCESS)
        return -1;
    *out = root;
    return 0;
}

int
roof_critical_batch(const struct roof_config *cfg, double *out)
{
    struct solve_ctx s = {*cfg, true, false};
    s.cfg.phase = ROOF_DECODE;
    return roof_solve_brent(balance, &s, 1.0, 1e7, 1e-9, out);
}

int
roof_prefill_crossover(const struct roof_config *cfg, double *out)
{
    struct solve_ctx s = {*cfg, false, true};
    s.cfg.phase = ROOF_PREFILL;
    return roof_solve_brent(balance, &s, 1.0, 1e7, 1e-9, out);
}
