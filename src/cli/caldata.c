/* Measurement files with resolved profiles, and the calibration parameter files. */
#include "cli/caldata.h"

#include "cli/cli.h"
#include "io/profiles.h"
#include "io/ycheck.h"
#include "util/strs.h"
#include "util/units.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

static const char *const PHASE_KEYS[] = {"decode", "prefill", "e2e", "kernel"};

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
    if (e)
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

/* calibration/device-classes.yaml: classes (fitted parameters) and bands */
static int load_classes(struct caldata *d, const char *path);

int
caldata_tuning(const struct hw_profile *hw, const char *engine, const char *params_dir,
               struct roof_tuning *out, double band[4][2])
{
    struct caldata d;
    memset(&d, 0, sizeof d);
    for (int c = 0; c < DEV_CLASS_COUNT; c++)
        dev_params_default((enum dev_class)c, &d.params.dev[c]);
    char p[PATH_MAX + 64];
    snprintf(p, sizeof p, "%s/calibration/device-classes.yaml",
             params_dir ? params_dir : prof_data_dir());
    if (load_classes(&d, p) != 0)
        return -1;
    struct err_list errs = {0};
    struct engine_profile *e = engine_find_in(params_dir, engine, &errs);
    cli_print_errs(&errs);
    err_list_release(&errs);
    if (!e)
        return -1;
    enum dev_class k = dev_class_of(hw);
    calib_tuning(hw, &d.params.dev[k], e, out);
    if (band)
        for (int ph = 0; ph < 4; ph++) {
            band[ph][0] = d.bands[ph][k][0];
            band[ph][1] = d.bands[ph][k][1];
        }
    engine_profile_free(e);
    return 0;
}

static int
load_classes(struct caldata *d, const char *path)
{
    struct stat st;
    if (stat(path, &st) != 0)
        return 0; /* no file: the documented defaults */
    struct err_list errs = {0};
    struct ynode *root = ynode_load(path, &errs);
    struct ycheck y;
    ycheck_init(&y, path, &errs);
    if (root && ycheck_map(&y, root, "device classes")) {
        static const char *const TOP[] = {"classes", "bands", "provenance", "sources"};
        ycheck_keys(&y, root, "", TOP, 4);
        const struct ynode *cl = ynode_get(root, "classes");
        if (cl && ycheck_map(&y, cl, "classes"))
            for (size_t i = 0; i + 1 < cl->n; i += 2) {
                int k = -1;
                for (int c = 0; c < DEV_CLASS_COUNT; c++)
                    if (strcmp(cl->items[i]->value, dev_class_name((enum dev_class)c)) == 0)
                        k = c;
                if (k < 0) {
                    ycheck_error(&y, cl->items[i], "unknown device class '%s'",
                                 cl->items[i]->value);
                    continue;
                }
                const struct ynode *v = cl->items[i + 1];
                if (!ycheck_map(&y, v, cl->items[i]->value))
                    continue;
                static const char *const KEYS[] = {"memory_efficiency", "compute_efficiency",
                                                   "memory_latency", "compute_units"};
                ycheck_keys(&y, v, cl->items[i]->value, KEYS, 4);
                struct dev_params *dp = &d->params.dev[k];
                ycheck_num(&y, v, cl->items[i]->value, "memory_efficiency", false,
                           &dp->memory_efficiency);
                ycheck_num(&y, v, cl->items[i]->value, "compute_efficiency", false,
                           &dp->compute_efficiency);
                ycheck_qty(&y, v, cl->items[i]->value, "memory_latency", UNIT_SECONDS, false,
                           &dp->memory_latency_s);
                ycheck_num(&y, v, cl->items[i]->value, "compute_units", false, &dp->compute_units);
            }
        const struct ynode *bd = ynode_get(root, "bands");
        if (bd && ycheck_map(&y, bd, "bands")) {
            for (size_t i = 0; i + 1 < bd->n; i += 2) {
                int ph = -1;
                for (int p = 0; p < 4; p++)
                    if (strcmp(bd->items[i]->value, PHASE_KEYS[p]) == 0)
                        ph = p;
                const struct ynode *v = bd->items[i + 1];
                if (ph < 0 || v->kind != YNODE_MAP) {
                    ycheck_error(&y, bd->items[i], "bands: unknown phase '%s'",
                                 bd->items[i]->value);
                    continue;
                }
                for (size_t j = 0; j + 1 < v->n; j += 2) {
                    int k = -1;
                    for (int c = 0; c < DEV_CLASS_COUNT; c++)
                        if (strcmp(v->items[j]->value, dev_class_name((enum dev_class)c)) == 0)
                            k = c;
                    const struct ynode *q = v->items[j + 1];
                    double lo, hi;
                    if (k < 0 || q->kind != YNODE_SEQ || q->n != 2 ||
                        ynode_double(q->items[0], &lo) || ynode_double(q->items[1], &hi)) {
                        ycheck_error(&y, v->items[j], "bands: expected 'CLASS: [q10, q90]'");
                        continue;
                    }
                    d->bands[ph][k][0] = lo;
                    d->bands[ph][k][1] = hi;
                    d->have_bands = true;
                }
            }
        }
    }
    ycheck_release(&y);
    ynode_free(root);
    size_t n = cli_print_errs(&errs);
    err_list_release(&errs);
    return n ? -1 : 0;
}

int
caldata_load(const char *path, const char *params_dir, struct caldata *d)
{
    memset(d, 0, sizeof *d);
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

static FILE *
open_tmp(const char *path, char *tmp, size_t size)
{
    snprintf(tmp, size, "%s.tmp", path);
    return fopen(tmp, "w");
}

static int
close_rename(FILE *f, const char *tmp, const char *path)
{
    int bad = ferror(f);
    if (fclose(f) != 0 || bad || rename(tmp, path) != 0) {
        remove(tmp);
        fprintf(stderr, "error: cannot write '%s'\n", path);
        return -1;
    }
    return 0;
}

int
caldata_write_params(const struct caldata *d, const char *dir, const char *provenance)
{
    char path[PATH_MAX + 64], tmp[PATH_MAX + 80];
    snprintf(path, sizeof path, "%s/calibration", dir);
    mkdir(dir, 0777);
    if (mkdir(path, 0777) != 0 && errno != EEXIST) {
        fprintf(stderr, "error: cannot create '%s'\n", path);
        return -1;
    }
    snprintf(path, sizeof path, "%s/calibration/device-classes.yaml", dir);
    FILE *f = open_tmp(path, tmp, sizeof tmp);
    if (!f) {
        fprintf(stderr, "error: cannot write '%s'\n", path);
        return -1;
    }
    fprintf(f, "# Device-class parameters of the kernel model (docs/physics.md#kernel-model).\n"
               "# Written by roofline calibrate; edit with care.\nclasses:\n");
    for (int c = 0; c < DEV_CLASS_COUNT; c++) {
        const struct dev_params *p = &d->params.dev[c];
        fprintf(f,
                "  %s: {memory_efficiency: %.4f, compute_efficiency: %.4f, memory_latency: %.1f "
                "ns, compute_units: %.0f}\n",
                dev_class_name((enum dev_class)c), p->memory_efficiency, p->compute_efficiency,
                p->memory_latency_s * 1e9, p->compute_units);
    }
    if (d->have_bands) {
        fprintf(f, "bands: # split-conformal 10th and 90th percentiles of log(measured time / "
                   "predicted time), held out\n");
        for (int ph = 0; ph < 4; ph++) {
            fprintf(f, "  %s:\n", PHASE_KEYS[ph]);
            for (int c = 0; c < DEV_CLASS_COUNT; c++)
                if (d->bands[ph][c][0] != 0 || d->bands[ph][c][1] != 0)
                    fprintf(f, "    %s: [%.4f, %.4f]\n", dev_class_name((enum dev_class)c),
                            d->bands[ph][c][0], d->bands[ph][c][1]);
        }
    }
    fprintf(f, "provenance:\n  fitted: \"%s\"\nsources:\n  classes: \"%s\"\n", provenance,
            provenance);
    if (close_rename(f, tmp, path) != 0)
        return -1;
    snprintf(path, sizeof path, "%s/engine_profiles", dir);
    if (mkdir(path, 0777) != 0 && errno != EEXIST) {
        fprintf(stderr, "error: cannot create '%s'\n", path);
        return -1;
    }
    for (int e = 0; e < d->params.n_engines; e++) {
        const struct engine_profile *ep = &d->params.engine[e];
        snprintf(path, sizeof path, "%s/engine_profiles/%s.yaml", dir, ep->name);
        f = open_tmp(path, tmp, sizeof tmp);
        if (!f) {
            fprintf(stderr, "error: cannot write '%s'\n", path);
            return -1;
        }
        fprintf(f,
                "# Engine profile (docs/physics.md#engine-overheads), written by roofline "
                "calibrate.\nname: %s\n",
                ep->name);
        if (ep->kernel_overhead_s > 0)
            fprintf(f, "kernel_overhead: %.3f us\n", ep->kernel_overhead_s * 1e6);
        if (ep->step_overhead_s > 0)
            fprintf(f, "step_overhead: %.1f us\n", ep->step_overhead_s * 1e6);
        fprintf(f, "memory_efficiency: %.4f\ncompute_efficiency: %.4f\n", ep->memory_efficiency,
                ep->compute_efficiency);
        if (ep->inflight_bytes_per_unit > 0)
            fprintf(f, "bytes_in_flight_per_unit: %.0f B\n", ep->inflight_bytes_per_unit);
        if (ep->dequant_scale > 0 && ep->dequant_scale != 1.0)
            fprintf(f, "dequant_scale: %.4f\n", ep->dequant_scale);
        if (ep->fp16_accumulate)
            fprintf(f, "fp16_accumulate: true\n");
        if (ep->dequant_buffer)
            fprintf(f, "dequant_buffer: true\n");
        if (ep->ubatch_tokens > 0)
            fprintf(f, "ubatch: %.0f\n", ep->ubatch_tokens);
        fprintf(f, "provenance:\n  fitted: \"%s\"\nsources:\n", provenance);
        if (ep->kernel_overhead_s > 0)
            fprintf(f, "  kernel_overhead: \"%s\"\n", provenance);
        if (ep->step_overhead_s > 0)
            fprintf(f, "  step_overhead: \"%s\"\n", provenance);
        fprintf(f, "  memory_efficiency: \"%s\"\n  compute_efficiency: \"%s\"\n", provenance,
                provenance);
        if (ep->inflight_bytes_per_unit > 0)
            fprintf(f, "  bytes_in_flight_per_unit: \"%s\"\n", provenance);
        if (ep->dequant_scale > 0 && ep->dequant_scale != 1.0)
            fprintf(f, "  dequant_scale: \"%s\"\n", provenance);
        /* facts that are not fitted keep their original source */
        for (int k = 0; k < ep->n_sources; k++)
            if (strcmp(ep->source_keys[k], "fp16_accumulate") == 0 ||
                strcmp(ep->source_keys[k], "dequant_buffer") == 0 ||
                strcmp(ep->source_keys[k], "ubatch") == 0)
                fprintf(f, "  %s: \"%s\"\n", ep->source_keys[k], ep->source_texts[k]);
        if (close_rename(f, tmp, path) != 0)
            return -1;
    }
    return 0;
}
