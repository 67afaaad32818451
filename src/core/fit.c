/* Nonlinear least squares over bounded physical parameters (docs/calibration.md). */
#include "core/fit.h"

#include <gsl/gsl_blas.h>
#include <gsl/gsl_errno.h>
#include <gsl/gsl_multifit_nlinear.h>
#include <gsl/gsl_sort.h>
#include <gsl/gsl_statistics_double.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int
fit_predict(const struct calib_params *p, const struct fit_case *c, double *predicted,
            const char **reason)
{
    enum dev_class dc = dev_class_of(c->hw);
    struct engine_profile kernel;
    engine_profile_kernel(&kernel);
    const struct engine_profile *eng =
        c->engine >= 0 && c->engine < p->n_engines ? &p->engine[c->engine] : &kernel;
    struct roof_tuning tu;
    calib_tuning(c->hw, &p->dev[dc], eng, &tu);
    return pred_case_eval(c->pc, c->hw, c->model, &tu, predicted, reason);
}

/* Parameter vector layout: which physical parameter each slot maps to. Efficiencies go through
 * a logistic (0, 1) (engine multipliers: (0, 1.5)); times through exp (positive). */
enum slot_kind {
    S_DEV_MEM,
    S_DEV_COMP,
    S_DEV_LAT,
    S_ENG_KOVH,
    S_ENG_SOVH,
    S_ENG_MEM,
    S_ENG_COMP,
    S_ENG_INFLIGHT,
    S_ENG_DEQ
};

struct slot {
    enum slot_kind kind;
    int index; /* class or engine */
};

struct fit_ctx {
    struct calib_params *p;
    const struct fit_case *cases;
    int n;
    struct slot slots[FIT_MAX_PARAMS];
    double x0[FIT_MAX_PARAMS]; /* the starting (prior) values in the transformed space */
    int n_slots;
};

static double
logistic(double x, double hi)
{
    return hi / (1.0 + exp(-x));
}

static double
logit(double y, double hi)
{
    double f = y / hi;
    if (f < 1e-6)
        f = 1e-6;
    if (f > 1 - 1e-6)
        f = 1 - 1e-6;
    return log(f / (1 - f));
}

/* positive quantities are fitted as log(value / scale) */
static double
slot_scale(enum slot_kind k)
{
    switch (k) {
    case S_ENG_INFLIGHT:
        return 1024.0;
    case S_ENG_DEQ:
        return 1.0;
    default:
        return 1e-6;
    }
}

static double *
slot_ref(struct calib_params *p, const struct slot *s, double *hi, bool *is_time)
{
    *is_time = false;
    *hi = 1.0;
    switch (s->kind) {
    case S_DEV_MEM:
        return &p->dev[s->index].memory_efficiency;
    case S_DEV_COMP:
        return &p->dev[s->index].compute_efficiency;
    case S_DEV_LAT:
        *is_time = true;
        return &p->dev[s->index].memory_latency_s;
    case S_ENG_KOVH:
        *is_time = true;
        return &p->engine[s->index].kernel_overhead_s;
    case S_ENG_SOVH:
        *is_time = true;
        return &p->engine[s->index].step_overhead_s;
    case S_ENG_MEM:
        *hi = 1.5;
        return &p->engine[s->index].memory_efficiency;
    case S_ENG_COMP:
        *hi = 1.5;
        return &p->engine[s->index].compute_efficiency;
    case S_ENG_INFLIGHT:
        *is_time = true;
        return &p->engine[s->index].inflight_bytes_per_unit;
    case S_ENG_DEQ:
        *is_time = true;
        return &p->engine[s->index].dequant_scale;
    }
    return NULL;
}

static void
apply(struct fit_ctx *c, const gsl_vector *x)
{
    for (int i = 0; i < c->n_slots; i++) {
        double hi;
        bool is_time;
        double *ref = slot_ref(c->p, &c->slots[i], &hi, &is_time);
        double v = gsl_vector_get(x, (size_t)i);
        *ref = is_time ? slot_scale(c->slots[i].kind) * exp(v) : logistic(v, hi);
    }
}

static double
to_x(struct fit_ctx *c, int i)
{
    double hi;
    bool is_time;
    double *ref = slot_ref(c->p, &c->slots[i], &hi, &is_time);
    if (is_time) {
        double sc = slot_scale(c->slots[i].kind);
        return log((*ref > 1e-3 * sc ? *ref : 1e-3 * sc) / sc);
    }
    return logit(*ref, hi);
}

/* Soft-L1 (pseudo-Huber) loss on log errors: quadratic below FIT_ROBUST_SCALE, linear above, so
 * rows the model cannot represent do not drag the physical parameters (the residual returned
 * is sign(r) sqrt(rho(r)) so that least squares minimises rho). */
#define FIT_ROBUST_SCALE 0.25
static double
robust(double r)
{
    double z = r / FIT_ROBUST_SCALE;
    double rho = 2.0 * (sqrt(1.0 + z * z) - 1.0);
    return (r < 0 ? -1.0 : 1.0) * FIT_ROBUST_SCALE * sqrt(rho);
}

static int
residuals(const gsl_vector *x, void *data, gsl_vector *f)
{
    struct fit_ctx *c = data;
    apply(c, x);
    for (int i = 0; i < c->n; i++) {
        double pred;
        const char *why;
        double r = 0;
        if (fit_predict(c->p, &c->cases[i], &pred, &why) == 0 && pred > 0)
            r = log(pred / c->cases[i].measured);
        gsl_vector_set(f, (size_t)i, robust(r));
    }
    /* weak priors keep parameters the data cannot pin down at their documented defaults: a
     * ridge in the transformed space, small against log residuals of order 0.1 */
    for (int j = 0; j < c->n_slots; j++)
        gsl_vector_set(f, (size_t)(c->n + j), 0.05 * (gsl_vector_get(x, (size_t)j) - c->x0[j]));
    return GSL_SUCCESS;
}

static void
add_slot(struct fit_ctx *c, enum slot_kind k, int idx, const char *name)
{
    for (int i = 0; i < c->n_slots; i++)
        if (c->slots[i].kind == k && c->slots[i].index == idx)
            return;
    if (c->n_slots >= FIT_MAX_PARAMS)
        return;
    c->slots[c->n_slots].kind = k;
    c->slots[c->n_slots].index = idx;
    (void)name;
    c->n_slots++;
}

static void
slot_name(const struct fit_ctx *c, int i, char *buf, size_t size)
{
    const struct slot *s = &c->slots[i];
    static const char *const K[] = {
        "memory_efficiency", "compute_efficiency", "memory_latency",     "kernel_overhead",
        "step_overhead",     "memory_efficiency",  "compute_efficiency", "bytes_in_flight_per_unit",
        "dequant_scale"};
    if (s->kind <= S_DEV_LAT)
        snprintf(buf, size, "%s.%s", dev_class_name((enum dev_class)s->index), K[s->kind]);
    else
        snprintf(buf, size, "%s.%s", c->p->engine[s->index].name, K[s->kind]);
}

static int fit_run(struct calib_params *p, const struct fit_case *cases, int n,
                   struct fit_report *rep, bool classes, int only);

int
fit_calibrate(struct calib_params *p, const struct fit_case *cases, int n, struct fit_report *rep)
{
    return fit_run(p, cases, n, rep, true, -1);
}

int
fit_calibrate_engines(struct calib_params *p, const struct fit_case *cases, int n,
                      struct fit_report *rep)
{
    return fit_run(p, cases, n, rep, false, -1);
}

int
fit_calibrate_engine_param(struct calib_params *p, const struct fit_case *cases, int n,
                           const char *param, struct fit_report *rep)
{
    static const struct {
        const char *name;
        enum slot_kind kind;
    } P[] = {{"kernel_overhead", S_ENG_KOVH},
             {"step_overhead", S_ENG_SOVH},
             {"memory_efficiency", S_ENG_MEM},
             {"compute_efficiency", S_ENG_COMP}};
    for (size_t i = 0; i < sizeof P / sizeof P[0]; i++)
        if (strcmp(param, P[i].name) == 0)
            return fit_run(p, cases, n, rep, false, (int)P[i].kind);
    return -1;
}

static int
fit_run(struct calib_params *p, const struct fit_case *cases, int n, struct fit_report *rep,
        bool classes, int only)
{
    memset(rep, 0, sizeof *rep);
    struct fit_ctx c;
    memset(&c, 0, sizeof c);
    c.p = p;
    c.cases = cases;
    c.n = n;
    /* which classes and engines the data can inform */
    bool cls_kernel[DEV_CLASS_COUNT] = {false}, cls_any[DEV_CLASS_COUNT] = {false};
    for (int i = 0; i < n; i++) {
        enum dev_class dc = dev_class_of(cases[i].hw);
        cls_any[dc] = true;
        if (cases[i].engine < 0 || strcmp(p->engine[cases[i].engine].name, "kernel") == 0)
            cls_kernel[dc] = true;
    }
    for (int k = 0; k < DEV_CLASS_COUNT; k++) {
        if (!classes || !cls_any[k])
            continue;
        add_slot(&c, S_DEV_MEM, k, NULL);
        add_slot(&c, S_DEV_COMP, k, NULL);
        if (cls_kernel[k])
            add_slot(&c, S_DEV_LAT, k, NULL);
    }
    for (int i = 0; i < n; i++) {
        int e = cases[i].engine;
        if (e < 0)
            continue;
        if (only >= 0) {
            /* one engine parameter; every other keeps its loaded value */
            if (only != S_ENG_SOVH || strcmp(p->engine[e].name, "kernel") != 0)
                add_slot(&c, (enum slot_kind)only, e, NULL);
            continue;
        }
        /* kernels timed in isolation still pay the launch, and run the vendor libraries'
         * kernels, better or worse than what an engine reaches */
        add_slot(&c, S_ENG_KOVH, e, NULL);
        if (strcmp(p->engine[e].name, "kernel") == 0) {
            add_slot(&c, S_ENG_COMP, e, NULL);
            continue;
        }
        add_slot(&c, S_ENG_SOVH, e, NULL);
        add_slot(&c, S_ENG_MEM, e, NULL);
        add_slot(&c, S_ENG_COMP, e, NULL);
        if (p->engine[e].inflight_bytes_per_unit > 0)
            add_slot(&c, S_ENG_INFLIGHT, e, NULL);
        if (dtype_is_weight_only(cases[i].pc->weights))
            add_slot(&c, S_ENG_DEQ, e, NULL);
    }
    if (c.n_slots == 0 || n == 0)
        return -1;
    struct calib_params saved = *p;
    size_t np = (size_t)c.n_slots, nr = (size_t)n + np;
    gsl_vector *x = gsl_vector_alloc(np);
    if (!x)
        return -1;
    for (int i = 0; i < c.n_slots; i++) {
        c.x0[i] = to_x(&c, i);
        gsl_vector_set(x, (size_t)i, c.x0[i]);
    }
    gsl_multifit_nlinear_fdf fdf;
    memset(&fdf, 0, sizeof fdf);
    fdf.f = residuals;
    fdf.df = NULL; /* finite differences */
    fdf.n = nr;
    fdf.p = np;
    fdf.params = &c;
    gsl_multifit_nlinear_parameters fp = gsl_multifit_nlinear_default_parameters();
    gsl_multifit_nlinear_workspace *w =
        gsl_multifit_nlinear_alloc(gsl_multifit_nlinear_trust, &fp, nr, np);
    if (!w) {
        gsl_vector_free(x);
        return -1;
    }
    /* before */
    double ss = 0;
    for (int i = 0; i < n; i++) {
        double pred;
        const char *why;
        if (fit_predict(p, &cases[i], &pred, &why) == 0 && pred > 0)
            ss += log(pred / cases[i].measured) * log(pred / cases[i].measured);
    }
    rep->rms_log_error_before = sqrt(ss / n);
    int info = 0;
    int status = gsl_multifit_nlinear_init(x, &fdf, w);
    if (status == GSL_SUCCESS)
        status = gsl_multifit_nlinear_driver(FIT_MAX_ITER, 1e-8, 1e-8, 1e-8, NULL, NULL, &info, w);
    rep->status = status;
    rep->iterations = (int)gsl_multifit_nlinear_niter(w);
    if (status != GSL_SUCCESS && status != GSL_EMAXITER) {
        *p = saved;
        gsl_multifit_nlinear_free(w);
        gsl_vector_free(x);
        return -1;
    }
    const gsl_vector *best = gsl_multifit_nlinear_position(w);
    apply(&c, best);
    const gsl_vector *fres = gsl_multifit_nlinear_residual(w);
    ss = 0;
    double raw = 0;
    for (int i = 0; i < n; i++) {
        ss += gsl_vector_get(fres, (size_t)i) * gsl_vector_get(fres, (size_t)i);
        double pred;
        const char *why;
        if (fit_predict(p, &cases[i], &pred, &why) == 0 && pred > 0)
            raw += log(pred / cases[i].measured) * log(pred / cases[i].measured);
    }
    rep->rms_log_error_after = sqrt(raw / n);
    /* covariance in the transformed space, mapped to natural units by the derivative */
    gsl_matrix *cov = gsl_matrix_alloc(np, np);
    gsl_matrix *J = gsl_multifit_nlinear_jac(w);
    double dof = (double)n - (double)np;
    double s2 = dof > 0 ? ss / dof : 0;
    bool have_cov = cov && gsl_multifit_nlinear_covar(J, 0.0, cov) == GSL_SUCCESS;
    rep->n_params = c.n_slots;
    rep->n_cases = n;
    for (int i = 0; i < c.n_slots; i++) {
        double hi;
        bool is_time;
        double *ref = slot_ref(p, &c.slots[i], &hi, &is_time);
        slot_name(&c, i, rep->names[i], sizeof rep->names[i]);
        rep->value[i] = *ref;
        double xv = gsl_vector_get(best, (size_t)i);
        double deriv = is_time ? *ref : hi * exp(-xv) / ((1 + exp(-xv)) * (1 + exp(-xv)));
        (void)hi;
        rep->sigma[i] =
            have_cov ? sqrt(s2 * gsl_matrix_get(cov, (size_t)i, (size_t)i)) * deriv : NAN;
    }
    gsl_matrix_free(cov);
    gsl_multifit_nlinear_free(w);
    gsl_vector_free(x);
    return 0;
}

int
fit_leave_group_out(const struct calib_params *p, const struct fit_case *cases, int n,
                    const int *group, struct fit_heldout *out)
{
    struct fit_case *train = malloc((size_t)(n ? n : 1) * sizeof *train);
    bool *done = calloc((size_t)(n ? n : 1), sizeof *done); /* rows whose group is fitted */
    if (!train || !done) {
        free(train);
        free(done);
        return -1;
    }
    for (int i = 0; i < n; i++) {
        out[i].pred = NAN;
        out[i].ok = out[i].fit_ok = false;
        out[i].why = NULL;
        out[i].n_train = 0;
    }
    int groups = 0;
    for (int i = 0; i < n; i++) {
        if (group[i] < 0 || done[i])
            continue;
        int g = group[i];
        groups++;
        int nt = 0;
        for (int j = 0; j < n; j++)
            if (group[j] >= 0 && group[j] != g)
                train[nt++] = cases[j];
        struct calib_params q = *p;
        struct fit_report rep;
        bool fitted = nt > 0 && fit_calibrate(&q, train, nt, &rep) == 0;
        if (!fitted)
            q = *p;
        for (int j = i; j < n; j++) {
            if (group[j] != g)
                continue;
            done[j] = true;
            struct fit_heldout *o = &out[j];
            o->n_train = nt;
            o->fit_ok = fitted;
            const char *why = NULL;
            double v = NAN;
            if (fit_predict(&q, &cases[j], &v, &why) == 0 && v > 0 && isfinite(v)) {
                o->pred = v;
                o->ok = true;
            } else {
                o->why = why;
            }
        }
    }
    free(train);
    free(done);
    return groups;
}

double
fit_quantile(const double *x, int n, double q)
{
    if (n <= 0)
        return NAN;
    double *s = malloc((size_t)n * sizeof *s);
    if (!s)
        return NAN;
    memcpy(s, x, (size_t)n * sizeof *s);
    gsl_sort(s, 1, (size_t)n);
    double v = gsl_stats_quantile_from_sorted_data(s, 1, (size_t)n, q);
    free(s);
    return v;
}

void
fit_stats_of(const double *err, int n, struct fit_stats *out)
{
    memset(out, 0, sizeof *out);
    out->n = n;
    if (n <= 0) {
        out->median_abs_pct = out->p90_abs_pct = out->mean_pct = NAN;
        return;
    }
    double *a = malloc((size_t)n * sizeof *a);
    if (!a)
        return;
    double sum = 0;
    for (int i = 0; i < n; i++) {
        a[i] = fabs(err[i]);
        sum += err[i];
    }
    out->median_abs_pct = fit_quantile(a, n, 0.5);
    out->p90_abs_pct = fit_quantile(a, n, 0.9);
    out->mean_pct = sum / n;
    free(a);
}
