/* roofline validate --measurements (cli_validate_measurements) and roofline calibrate: predict
 * published measurements, fit the kernel-model and engine parameters, cross-validate by
 * leaving each device (then each vendor) out, and derive error bands. docs/calibration.md. */
#include "cli/caldata.h"
#include "cli/cli.h"
#include "cli/out.h"
#include "io/profiles.h"
#include "util/array.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static const struct out_field ROW_FIELDS[] = {
    {"id", NULL, OUT_SHOW_TEXT, 0, false},
    {"phase", NULL, OUT_SHOW_TEXT, 0, false},
    {"hardware", NULL, OUT_SHOW_TEXT, 0, false},
    {"engine", NULL, OUT_SHOW_TEXT, 0, false},
    {"metric", NULL, OUT_SHOW_TEXT, 0, false},
    {"predicted", NULL, OUT_SHOW_SIG, 0, false},
    {"measured", NULL, OUT_SHOW_SIG, 0, false},
    {"error_pct", "error %", OUT_SHOW_NUM, 1, false},
    {"band_low", "band lo", OUT_SHOW_SIG, 0, true},
    {"band_high", "band hi", OUT_SHOW_SIG, 0, true},
    {"reason", NULL, OUT_SHOW_TEXT, 0, false},
};
#define N_ROW ((int)ARRAY_SIZE(ROW_FIELDS))

static const struct out_field SUM_FIELDS[] = {
    {"group", NULL, OUT_SHOW_TEXT, 0, false},
    {"count", NULL, OUT_SHOW_NUM, 0, false},
    {"median_abs_error_pct", "median |err| %", OUT_SHOW_NUM, 1, false},
    {"p90_abs_error_pct", "P90 |err| %", OUT_SHOW_NUM, 1, false},
    {"mean_error_pct", "mean err %", OUT_SHOW_NUM, 1, false},
    {"band_coverage", "in 80% band", OUT_SHOW_PCT, 0, false},
};
#define N_SUM ((int)ARRAY_SIZE(SUM_FIELDS))

static const char *const METRIC_NAMES[] = {"tokens_per_s", "time_ms", "latency_s"};

/* Bands are stored as log(measured time / predicted time); a throughput metric inverts them. */
static double
time_log_ratio(const struct fit_case *c, double pred)
{
    double r = log(c->measured / pred);
    return c->pc->metric == PRED_TOKENS_PER_S ? -r : r;
}

static void
band_of(const struct caldata *d, const struct fit_case *c, double pred, double *lo, double *hi)
{
    *lo = *hi = NAN;
    if (!d->bands.have)
        return;
    int ph = (int)c->pc->phase;
    enum dev_class k = dev_class_of(c->hw);
    double q10 = d->bands.q[ph][k][0], q90 = d->bands.q[ph][k][1];
    if (q10 == 0 && q90 == 0)
        return;
    double base_lo = pred, base_hi = pred;
    const struct engine_profile *e = c->engine >= 0 ? &d->params.engine[c->engine] : NULL;
    if (e && e->generic) {
        /* an engine without a profile could behave like any profiled one: the band starts from
         * the fastest and the slowest combination of their overheads and efficiencies */
        for (int side = 0; side < 2; side++) {
            struct calib_params p = d->params;
            struct engine_profile *g = &p.engine[c->engine];
            /* side 0: the smallest overheads and the largest efficiencies; side 1: the reverse */
            const double *ovh = side ? e->span_max : e->span_min;
            const double *eff = side ? e->span_min : e->span_max;
            g->kernel_overhead_s = ovh[0];
            g->step_overhead_s = ovh[1];
            g->memory_efficiency = eff[2];
            g->compute_efficiency = eff[3];
            double v;
            if (fit_predict(&p, c, &v, NULL) == 0 && v > 0 && isfinite(v)) {
                base_lo = v < base_lo ? v : base_lo;
                base_hi = v > base_hi ? v : base_hi;
            }
        }
    }
    if (c->pc->metric == PRED_TOKENS_PER_S) {
        *lo = base_lo * exp(-q90);
        *hi = base_hi * exp(-q10);
    } else {
        *lo = base_lo * exp(q10);
        *hi = base_hi * exp(q90);
    }
}

/* the vendor field of a row's hardware profile */
static const char *
row_vendor(const struct caldata *d, int i)
{
    const struct hw_profile *hw = d->cases[i].hw;
    return hw && hw->vendor ? hw->vendor : "unknown";
}

struct result_set {
    double *pred, *err;
    bool *ok;
    const char **why;
};

static int
predict_all(const struct caldata *d, const struct calib_params *p, struct result_set *r)
{
    int n = d->set->n;
    for (int i = 0; i < n; i++) {
        r->ok[i] = false;
        r->why[i] = d->reason[i];
        if (d->reason[i])
            continue;
        const char *why = NULL;
        if (fit_predict(p, &d->cases[i], &r->pred[i], &why) != 0 || !(r->pred[i] > 0) ||
            !isfinite(r->pred[i])) {
            r->why[i] = why ? why : "no finite prediction";
            continue;
        }
        r->ok[i] = true;
        r->err[i] = (r->pred[i] - d->cases[i].measured) / d->cases[i].measured * 100.0;
    }
    return 0;
}

static int
alloc_results(int n, struct result_set *r)
{
    size_t m = (size_t)(n ? n : 1);
    r->pred = calloc(m, sizeof *r->pred);
    r->err = calloc(m, sizeof *r->err);
    r->ok = calloc(m, sizeof *r->ok);
    r->why = calloc(m, sizeof *r->why);
    return r->pred && r->err && r->ok && r->why ? 0 : -1;
}

static void
free_results(struct result_set *r)
{
    free(r->pred);
    free(r->err);
    free(r->ok);
    free(r->why);
}

/* one summary row over the rows where `pick(i)` holds */
static void
summary_row(struct out_table *t, const char *group, const struct caldata *d,
            const struct result_set *r, bool (*pick)(const struct caldata *, int, const void *),
            const void *arg)
{
    int n = d->set->n, k = 0, inband = 0, banded = 0;
    double *e = malloc((size_t)(n ? n : 1) * sizeof *e);
    if (!e)
        return;
    for (int i = 0; i < n; i++) {
        if (!r->ok[i] || !pick(d, i, arg))
            continue;
        e[k++] = r->err[i];
        double lo, hi;
        band_of(d, &d->cases[i], r->pred[i], &lo, &hi);
        if (isfinite(lo)) {
            banded++;
            double m = d->cases[i].measured;
            if (m >= lo && m <= hi)
                inband++;
        }
    }
    if (k > 0) {
        struct fit_stats s;
        fit_stats_of(e, k, &s);
        struct out_value v[N_SUM] = {{group, 0},
                                     {NULL, (double)k},
                                     {NULL, s.median_abs_pct},
                                     {NULL, s.p90_abs_pct},
                                     {NULL, s.mean_pct},
                                     {NULL, banded ? (double)inband / banded : NAN}};
        out_table_row(t, v);
    }
    free(e);
}

static bool
pick_all(const struct caldata *d, int i, const void *arg)
{
    (void)d, (void)i, (void)arg;
    return true;
}

static bool
pick_phase(const struct caldata *d, int i, const void *arg)
{
    return (int)d->cases[i].pc->phase == *(const int *)arg;
}

static const char *
row_engine(const struct caldata *d, int i)
{
    return d->set->rows[i].engine;
}

static const char *
row_hardware(const struct caldata *d, int i)
{
    return d->set->rows[i].hardware;
}

/* A group of rows: those whose key (engine, hardware id, vendor) is `value`. */
struct group {
    const char *(*key)(const struct caldata *, int);
    const char *value;
};

static bool
pick_group(const struct caldata *d, int i, const void *arg)
{
    const struct group *g = arg;
    return strcmp(g->key(d, i), g->value) == 0;
}

/* One summary row per distinct key, in order of first appearance (at most 64 groups);
 * `resolved_only`: keys of rows that could be modelled (a vendor needs the row's profile). */
static void
summary_groups(struct out_table *t, const char *label, const struct caldata *d,
               const struct result_set *r, const char *(*key)(const struct caldata *, int),
               bool resolved_only)
{
    const char *seen[64];
    int ns = 0;
    for (int i = 0; i < d->set->n && ns < 64; i++) {
        if (resolved_only && d->reason[i])
            continue;
        const char *v = key(d, i);
        bool dup = false;
        for (int j = 0; j < ns; j++)
            dup |= strcmp(seen[j], v) == 0;
        if (dup)
            continue;
        seen[ns++] = v;
        char name[80];
        snprintf(name, sizeof name, "%s %s", label, v);
        struct group g = {key, v};
        summary_row(t, name, d, r, pick_group, &g);
    }
}

static void
print_summary(enum out_fmt fmt, const struct caldata *d, const struct result_set *r,
              const char *title)
{
    struct out_table *t = out_table_new(fmt, title, SUM_FIELDS, N_SUM);
    summary_row(t, "all", d, r, pick_all, NULL);
    for (int ph = 0; ph < PRED_PHASE_COUNT; ph++) {
        char g[48];
        snprintf(g, sizeof g, "phase %s", pred_phase_name((enum pred_phase)ph));
        summary_row(t, g, d, r, pick_phase, &ph);
    }
    summary_groups(t, "engine", d, r, row_engine, false);
    summary_groups(t, "device", d, r, row_hardware, false);
    summary_groups(t, "vendor", d, r, row_vendor, true);
    out_table_end(t, stdout, 2);
}

static void
print_rows(enum out_fmt fmt, const struct caldata *d, const struct result_set *r)
{
    struct out_table *t = out_table_new(fmt, NULL, ROW_FIELDS, N_ROW);
    for (int i = 0; i < d->set->n; i++) {
        const struct meas_row *m = &d->set->rows[i];
        double lo = NAN, hi = NAN;
        if (r->ok[i])
            band_of(d, &d->cases[i], r->pred[i], &lo, &hi);
        struct out_value v[N_ROW] = {
            {m->id, 0},
            {pred_phase_name(m->pc.phase), 0},
            {m->hardware, 0},
            {m->engine, 0},
            {METRIC_NAMES[m->pc.metric], 0},
            {NULL, r->ok[i] ? r->pred[i] : NAN},
            {NULL, m->value},
            {NULL, r->ok[i] ? r->err[i] : NAN},
            {NULL, lo},
            {NULL, hi},
            {r->ok[i] ? "" : r->why[i], 0},
        };
        out_table_row(t, v);
    }
    out_table_end(t, stdout, 2);
}

static const struct cli_opt VOPTS[] = {
    CLI_OPT_MEASUREMENTS,
    CLI_OPT_PARAMS,
    CLI_OPT_FORMAT,
};

/* validate --measurements: its own options (cmd_validate dispatches here) */
static const struct cli_cmd validate_measurements = {
    "validate", "predict published measurements and report the errors",
    "roofline validate --measurements FILE [--params DIR] [-o table|csv|json]",
    cli_validate_measurements, CLI_OPTS(VOPTS)};

int
cli_validate_measurements(int argc, char **argv)
{
    struct cli_ctx c;
    int rc;
    if (cli_begin(&c, &validate_measurements, CLI_POSITIONAL, argc, argv, &rc) != 0)
        return rc;
    const struct cli_args a = c.a;
    enum out_fmt fmt = c.fmt;
    if (!cli_has(&a, "measurements"))
        return cli_usage_error(&validate_measurements, "--measurements FILE is required");
    struct caldata d;
    if (caldata_load(cli_get(&a, "measurements"), cli_get(&a, "params"), false, &d) != 0) {
        caldata_release(&d);
        return CLI_FAIL;
    }
    struct result_set r;
    if (alloc_results(d.set->n, &r) != 0) {
        caldata_release(&d);
        return CLI_FAIL;
    }
    predict_all(&d, &d.params, &r);
    if (fmt == OUT_JSON) {
        printf("{\n  \"tool\": \"roofline\",\n  \"measurements\": ");
        out_json_string(stdout, cli_get(&a, "measurements"));
        printf(",\n  \"rows\": ");
        print_rows(fmt, &d, &r);
        printf(",\n  \"summary\": ");
        print_summary(fmt, &d, &r, NULL);
        printf("\n}\n");
    } else if (fmt == OUT_CSV) {
        print_rows(fmt, &d, &r);
    } else {
        print_rows(fmt, &d, &r);
        printf("\n");
        print_summary(fmt, &d, &r, "summary (error = (predicted - measured) / measured):");
        int unmodelled = 0;
        for (int i = 0; i < d.set->n; i++)
            unmodelled += !r.ok[i];
        printf("\n%d rows, %d predicted, %d not modelled (reason column)%s\n", d.set->n,
               d.set->n - unmodelled, unmodelled,
               d.bands.have ? "; bands: 10th-90th percentile of held-out log errors" : "");
    }
    free_results(&r);
    caldata_release(&d);
    return cli_finish(CLI_OK);
}

/* What a cross-validation holds out at a time: one device, or every device of one vendor. */
enum cv_by { CV_DEVICE, CV_VENDOR };

static const char *
cv_label(const struct caldata *d, int i, enum cv_by by)
{
    return by == CV_VENDOR ? row_vendor(d, i) : d->set->rows[i].hardware;
}

/* Leave-one-group-out: for every device (or vendor), fit on the rows of all the others and
 * predict its rows (fit_leave_group_out). */
static int
cross_validate(struct caldata *d, struct result_set *r, bool quiet, enum cv_by by)
{
    int n = d->set->n;
    int *group = malloc((size_t)(n ? n : 1) * sizeof *group);
    const char **names = malloc((size_t)(n ? n : 1) * sizeof *names);
    struct fit_heldout *h = malloc((size_t)(n ? n : 1) * sizeof *h);
    if (!group || !names || !h) {
        free(group);
        free(names);
        free(h);
        return -1;
    }
    int ng = 0;
    for (int i = 0; i < n; i++) {
        group[i] = -1;
        if (d->reason[i])
            continue;
        const char *lab = cv_label(d, i, by);
        int g = 0;
        while (g < ng && strcmp(names[g], lab) != 0)
            g++;
        if (g == ng)
            names[ng++] = lab;
        group[i] = g;
    }
    /* Holding out a vendor, every device class starts from its documented default
     * (dev_params_default), not from the shipped values the held-out rows helped fit: a class
     * no training row informs (Apple's soc when Apple is held out) predicts from the defaults.
     * Engine parameters no training row informs keep their shipped values. */
    struct calib_params start = d->params;
    if (by == CV_VENDOR)
        for (int c = 0; c < DEV_CLASS_COUNT; c++)
            dev_params_default((enum dev_class)c, &start.dev[c]);
    int rc = fit_leave_group_out(&start, d->cases, n, group, h) < 0 ? -1 : 0;
    for (int i = 0; i < n; i++) {
        r->ok[i] = false;
        r->why[i] = d->reason[i];
        if (rc != 0 || d->reason[i])
            continue;
        if (h[i].ok) {
            r->ok[i] = true;
            r->pred[i] = h[i].pred;
            r->err[i] = (h[i].pred - d->cases[i].measured) / d->cases[i].measured * 100.0;
        } else {
            r->why[i] = h[i].why ? h[i].why : "no finite prediction";
        }
    }
    for (int g = 0; g < ng && rc == 0 && !quiet; g++) {
        int i = 0;
        while (group[i] != g)
            i++;
        const char *what = by == CV_VENDOR ? "vendor " : "";
        if (!h[i].fit_ok)
            fprintf(stderr, "warning: fit without %s%s failed; defaults used\n", what, names[g]);
        fprintf(stderr, "cross-validation: held out %s%s (trained on %d rows)\n", what, names[g],
                h[i].n_train);
    }
    free(group);
    free(names);
    free(h);
    return rc;
}

/* Split-conformal band edge (Vovk et al.; Lei et al. 2018): for n held-out log ratios the
 * ceil((n + 1) 0.9)-th smallest is the upper edge of a band that covers at least 80% of new
 * rows in two-sided use with 10% in each tail (the lower edge symmetrically); clamped to the
 * sample. */
static double
conformal(const double *x, int n, bool lower)
{
    double *s = malloc((size_t)n * sizeof *s);
    if (!s)
        return 0;
    memcpy(s, x, (size_t)n * sizeof *s);
    for (int i = 1; i < n; i++) { /* insertion sort: n is small */
        double v = s[i];
        int j = i;
        while (j > 0 && s[j - 1] > v) {
            s[j] = s[j - 1];
            j--;
        }
        s[j] = v;
    }
    int k = lower ? (int)floor((n + 1) * 0.1) : (int)ceil((n + 1) * 0.9);
    if (k < 1)
        k = 1;
    if (k > n)
        k = n;
    double v = s[k - 1];
    free(s);
    return v;
}

/* bands from held-out log errors: per phase and device class, split-conformal 10th and 90th
 * percentiles of log(measured / predicted); classes with fewer than 5 rows use the phase's
 * pooled band */
static void
derive_bands(struct caldata *d, const struct result_set *r)
{
    int n = d->set->n;
    double *x = malloc((size_t)(n ? n : 1) * sizeof *x);
    if (!x)
        return;
    memset(d->bands.q, 0, sizeof d->bands.q);
    for (int ph = 0; ph < PRED_PHASE_COUNT; ph++) {
        int k = 0;
        for (int i = 0; i < n; i++)
            if (r->ok[i] && (int)d->cases[i].pc->phase == ph)
                x[k++] = time_log_ratio(&d->cases[i], r->pred[i]);
        if (k == 0)
            continue;
        double pooled_lo = conformal(x, k, true), pooled_hi = conformal(x, k, false);
        for (int c = 0; c < DEV_CLASS_COUNT; c++) {
            int m = 0;
            for (int i = 0; i < n; i++)
                if (r->ok[i] && (int)d->cases[i].pc->phase == ph &&
                    (int)dev_class_of(d->cases[i].hw) == c)
                    x[m++] = time_log_ratio(&d->cases[i], r->pred[i]);
            if (m == 0)
                continue;
            d->bands.q[ph][c][0] = m >= 5 ? conformal(x, m, true) : pooled_lo;
            d->bands.q[ph][c][1] = m >= 5 ? conformal(x, m, false) : pooled_hi;
        }
    }
    d->bands.have = true;
    free(x);
}

static const struct cli_opt COPTS[] = {
    CLI_OPT_MEASUREMENTS,
    OPT_VALUE("gpu", "ID", "fit only the rows of this device"),
    OPT_VALUE("engine", "E", "fit only the rows of this engine"),
    OPT_FLAG("hold-classes", "fit only the engines' parameters; device classes keep their values"),
    OPT_VALUE("fit", "PARAM",
              "fit only this engine parameter (step_overhead, kernel_overhead, "
              "memory_efficiency, compute_efficiency); classes and the rest held"),
    OPT_VALUE("max-batch", "N", "fit only the rows of at most N sequences"),
    OPT_VALUE("output-dir", "DIR", "write calibration/ and engine_profiles/ there"),
    CLI_OPT_PARAMS,
    OPT_FLAG("cross-validate", "leave-one-device-out, then leave-one-vendor-out tables"),
    OPT_VALUE("output", "table|csv|json", "with --cross-validate: output format (-o)"),
    OPT_VALUE("by", "device|vendor",
              "with --cross-validate -o csv: the rows held out by device (default) or by vendor"),
};

static int run(int argc, char **argv);

const struct cli_cmd cmd_calibrate = {
    "calibrate", "fit kernel-model and engine parameters to measurements; cross-validate",
    "roofline calibrate --measurements FILE [options]", run, CLI_OPTS(COPTS)};

static int
run(int argc, char **argv)
{
    struct cli_ctx c;
    int rc;
    if (cli_begin(&c, &cmd_calibrate, CLI_POSITIONAL, argc, argv, &rc) != 0)
        return rc;
    const struct cli_args a = c.a;
    enum out_fmt fmt = c.fmt;
    if (!cli_has(&a, "measurements"))
        return cli_usage_error(&cmd_calibrate, "--measurements FILE is required");
    struct caldata d;
    if (caldata_load(cli_get(&a, "measurements"), cli_get(&a, "params"), false, &d) != 0) {
        caldata_release(&d);
        return CLI_FAIL;
    }
    int n = d.set->n;
    struct result_set r;
    if (alloc_results(n, &r) != 0) {
        caldata_release(&d);
        return CLI_FAIL;
    }
    rc = CLI_OK;
    enum cv_by by = CV_DEVICE;
    if (cli_has(&a, "by")) {
        const char *v = cli_get(&a, "by");
        if (!cli_has(&a, "cross-validate") || fmt != OUT_CSV) {
            rc = cli_usage_error(&cmd_calibrate, "--by needs --cross-validate -o csv");
            goto out;
        }
        if (strcmp(v, "vendor") == 0)
            by = CV_VENDOR;
        else if (strcmp(v, "device") != 0) {
            rc = cli_usage_error(&cmd_calibrate, "--by takes device or vendor");
            goto out;
        }
    }
    if (cli_has(&a, "cross-validate")) {
        cross_validate(&d, &r, false, by);
        derive_bands(&d, &r);
        /* coverage of the bands on the same held-out predictions (each band is estimated with
         * the row itself in it: the reported coverage is in-sample for the band) */
        if (fmt == OUT_CSV) {
            print_rows(fmt, &d, &r); /* per row, held out by device (or by vendor: --by) */
            goto out;
        }
        /* the second table holds out every device of a vendor at once; its bands come from
         * its own held-out errors in the same way */
        struct result_set rv;
        if (alloc_results(n, &rv) != 0) {
            rc = CLI_FAIL;
            goto out;
        }
        if (fmt == OUT_JSON)
            printf("{\n  \"leave_one_device_out\": ");
        print_summary(fmt, &d, &r,
                      "leave-one-device-out: each device predicted by a fit on all the others");
        cross_validate(&d, &rv, false, CV_VENDOR);
        derive_bands(&d, &rv);
        if (fmt == OUT_JSON)
            printf(",\n  \"leave_one_vendor_out\": ");
        else
            printf("\n");
        print_summary(fmt, &d, &rv,
                      "leave-one-vendor-out: each vendor's devices predicted by a fit on the "
                      "other vendors' rows");
        if (fmt == OUT_JSON)
            printf("\n}\n");
        free_results(&rv);
        goto out;
    }
    /* select the rows to fit */
    const char *gpu = cli_get(&a, "gpu"), *eng = cli_get(&a, "engine");
    const char *only = cli_get(&a, "fit");
    double max_batch = 0;
    if (cli_has(&a, "max-batch")) {
        char *end = NULL;
        max_batch = strtod(cli_get(&a, "max-batch"), &end);
        if (!end || *end || !(max_batch >= 1)) {
            fprintf(stderr, "error: --max-batch needs a number of sequences of at least 1\n");
            rc = CLI_FAIL;
            goto out;
        }
    }
    if (only && strcmp(only, "kernel_overhead") != 0 && strcmp(only, "step_overhead") != 0 &&
        strcmp(only, "memory_efficiency") != 0 && strcmp(only, "compute_efficiency") != 0) {
        fprintf(stderr,
                "error: --fit takes step_overhead, kernel_overhead, memory_efficiency or "
                "compute_efficiency, not '%s'\n",
                only);
        rc = CLI_FAIL;
        goto out;
    }
    struct fit_case *sel = malloc((size_t)(n ? n : 1) * sizeof *sel);
    int ns = 0, nskip = 0;
    for (int i = 0; i < n && sel; i++) {
        if (d.reason[i]) {
            nskip++;
            continue;
        }
        if (gpu && strcmp(d.set->rows[i].hardware, gpu) != 0)
            continue;
        if (eng && strcmp(d.set->rows[i].engine, eng) != 0)
            continue;
        if (max_batch > 0 && d.cases[i].pc->batch > max_batch)
            continue;
        sel[ns++] = d.cases[i];
    }
    struct fit_report rep;
    bool hold = cli_has(&a, "hold-classes") || only;
    if (!sel || ns == 0 ||
        (only   ? fit_calibrate_engine_param(&d.params, sel, ns, only, &rep)
         : hold ? fit_calibrate_engines(&d.params, sel, ns, &rep)
                : fit_calibrate(&d.params, sel, ns, &rep)) != 0) {
        fprintf(stderr, "error: the fit failed (%d rows selected)\n", ns);
        free(sel);
        rc = CLI_FAIL;
        goto out;
    }
    free(sel);
    printf("fitted %d parameters to %d rows (%d rows could not be modelled); %d iterations\n",
           rep.n_params, rep.n_cases, nskip, rep.iterations);
    printf("rms log error: %.3f before, %.3f after\n\n", rep.rms_log_error_before,
           rep.rms_log_error_after);
    printf("%-36s %14s %14s\n", "parameter", "value", "1-sigma");
    for (int i = 0; i < rep.n_params; i++) {
        bool t = strstr(rep.names[i], "latency") || strstr(rep.names[i], "overhead");
        if (t)
            printf("%-36s %11.3f us %11.3f us\n", rep.names[i], rep.value[i] * 1e6,
                   rep.sigma[i] * 1e6);
        else
            printf("%-36s %14.4f %14.4f\n", rep.names[i], rep.value[i], rep.sigma[i]);
    }
    predict_all(&d, &d.params, &r);
    printf("\nresiduals (in sample):\n");
    print_summary(OUT_TABLE, &d, &r, NULL);
    if (cli_has(&a, "output-dir")) {
        /* bands from held-out errors of the same fit procedure */
        struct result_set cv;
        if (alloc_results(n, &cv) == 0) {
            cross_validate(&d, &cv, true, CV_DEVICE);
            derive_bands(&d, &cv);
            free_results(&cv);
        }
        char prov[512];
        time_t now = time(NULL);
        struct tm tmv;
        gmtime_r(&now, &tmv);
        char date[32];
        strftime(date, sizeof date, "%Y-%m-%d", &tmv);
        snprintf(
            prov, sizeof prov,
            "roofline calibrate on %s (%d rows%s%s%s%s%s), %s; bands from leave-one-device-out",
            cli_get(&a, "measurements"), rep.n_cases, gpu ? ", gpu " : "", gpu ? gpu : "",
            eng ? ", engine " : "", eng ? eng : "", hold ? ", device classes held" : "", date);
        if (caldata_write_params(&d, cli_get(&a, "output-dir"), prov) != 0)
            rc = CLI_FAIL;
        else
            printf("\nwrote %s/calibration/device-classes.yaml and %s/engine_profiles/\n",
                   cli_get(&a, "output-dir"), cli_get(&a, "output-dir"));
    }
out:
    free_results(&r);
    caldata_release(&d);
    return cli_finish(rc);
}
