/* Measurement files with resolved profiles, and the calibration parameter files. */
#include "cli/caldata.h"

#include "cli/cli.h"
#include "io/calparams.h"
#include "io/profiles.h"
#include "util/strs.h"
#include "util/units.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

static struct hw_profile *
cached_hw(struct caldata *d, const char *id)
{
    for (int i = 0; i < d->n_hws; i++)
        if (strcmp(d->hws[i]->id, id) == 0)
            return d->hws[i];
    struct err_list errs = {0};
    struct hw_profile *hw = hw_find(id, &errs);
    err_list_release(&errs);
    if (!hw)
        return NULL;
    struct hw_profile **n = realloc(d->hws, (size_t)(d->n_hws + 1) * sizeof *n);
    if (!n) {
        hw_free(hw);
        return NULL;
    }
    d->hws = n;
    d->hws[d->n_hws++] = hw;
    return hw;
}

static struct mdl_profile *
cached_model(struct caldata *d, const char *id)
{
    for (int i = 0; i < d->n_models; i++)
        if (strcmp(d->models[i]->id, id) == 0)
            return d->models[i];
    struct err_list errs = {0};
    struct mdl_profile *m = mdl_find(id, &errs);
    err_list_release(&errs);
    if (!m)
        return NULL;
    struct mdl_profile **n = realloc(d->models, (size_t)(d->n_models + 1) * sizeof *n);
    if (!n) {
        mdl_free(m);
        return NULL;
    }
    d->models = n;
    d->models[d->n_models++] = m;
    return m;
}

static int
engine_index(struct caldata *d, const char *dir, const char *name, const char **reason)
{
    for (int i = 0; i < d->params.n_engines; i++)
        if (strcmp(d->params.engine[i].name, name) == 0)
            return i;
    if (d->params.n_engines >= CALIB_MAX_ENGINES) {
        *reason = "too many engines";
        return -1;
    }
    struct err_list errs = {0};
    struct engine_profile *e = engine_find_in(dir, name, &errs);
    if (e && !d->quiet)
        cli_print_errs(&errs); /* once per engine: a generic model or an alias */
    err_list_release(&errs);
    if (!e) {
        *reason = "no engine profile for this engine";
        return -1;
    }
    d->engines[d->params.n_engines] = e;
    d->params.engine[d->params.n_engines] = *e;
    return d->params.n_engines++;
}

static int load_classes(struct caldata *d, const char *path);

int
caldata_tuning(const struct hw_profile *hw, const char *engine, const char *params_dir,
               struct roof_tuning *out, double band[PRED_PHASE_COUNT][2])
{
    struct err_list errs = {0};
    int rc = calparams_tuning(hw, engine, params_dir, out, band, &errs);
    cli_print_errs(&errs);
    err_list_release(&errs);
    return rc;
}

int
caldata_plan_tuning(const struct hw_profile *hw, const char *engine, struct roof_tuning *out,
                    void *ctx)
{
    (void)ctx;
    return caldata_tuning(hw, engine, NULL, out, NULL);
}

/* calibration/device-classes.yaml into d, printing problems */
static int
load_classes(struct caldata *d, const char *path)
{
    struct err_list errs = {0};
    int rc = calparams_load(path, d->params.dev, &d->bands, &errs);
    cli_print_errs(&errs);
    err_list_release(&errs);
    return rc;
}

int
caldata_load(const char *path, const char *params_dir, bool quiet, struct caldata *d)
{
    memset(d, 0, sizeof *d);
    d->quiet = quiet;
    for (int c = 0; c < DEV_CLASS_COUNT; c++)
        dev_params_default((enum dev_class)c, &d->params.dev[c]);
    char p[PATH_MAX + 64];
    snprintf(p, sizeof p, "%s/calibration/device-classes.yaml",
             params_dir ? params_dir : prof_data_dir());
    if (load_classes(d, p) != 0)
        return -1;
    struct err_list errs = {0};
    d->set = meas_load(path, &errs);
    size_t bad = cli_print_errs(&errs);
    err_list_release(&errs);
    if (!d->set || bad)
        return -1;
    int n = d->set->n;
    d->cases = calloc((size_t)(n ? n : 1), sizeof *d->cases);
    d->reason = calloc((size_t)(n ? n : 1), sizeof *d->reason);
    if (!d->cases || !d->reason)
        return -1;
    for (int i = 0; i < n; i++) {
        struct meas_row *r = &d->set->rows[i];
        struct fit_case *c = &d->cases[i];
        c->pc = &r->pc;
        c->measured = r->value;
        c->hw = cached_hw(d, r->hardware);
        if (!c->hw) {
            d->reason[i] = "no hardware profile with this id";
            continue;
        }
        if (r->model) {
            c->model = cached_model(d, r->model);
            if (!c->model) {
                d->reason[i] = "no model profile with this id";
                c->hw = NULL;
                continue;
            }
        }
        const char *why = NULL;
        c->engine = engine_index(d, params_dir, r->engine, &why);
        if (c->engine < 0) {
            d->reason[i] = why;
            c->hw = NULL;
        }
    }
    return 0;
}

void
caldata_release(struct caldata *d)
{
    for (int i = 0; i < d->n_hws; i++)
        hw_free(d->hws[i]);
    free(d->hws);
    for (int i = 0; i < d->n_models; i++)
        mdl_free(d->models[i]);
    free(d->models);
    for (int i = 0; i < d->params.n_engines; i++)
        engine_profile_free(d->engines[i]);
    free(d->cases);
    free(d->reason);
    meas_set_free(d->set);
    memset(d, 0, sizeof *d);
}

int
caldata_write_params(const struct caldata *d, const char *dir, const char *provenance)
{
    struct err_list errs = {0};
    int rc = calparams_save(dir, d->params.dev, &d->bands, d->params.engine, d->params.n_engines,
                            provenance, &errs);
    cli_print_errs(&errs);
    err_list_release(&errs);
    return rc;
}
