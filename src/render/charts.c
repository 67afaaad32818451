/* The chart kinds built from a chart_request, in one table of {name, builder}, and chart_build,
 * which runs a kind's builder and adds the warning when the model does not fit a device. Each
 * kind's builder is its own file (render/chart_<kind>.c); what they share is chart_kinds.c. */
#include "render/charts.h"

#include "render/chart_kinds.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

/* Every chart kind built from a chart_request, indexed by enum chart_kind, made from the
 * CHART_KINDS list (charts.h). The simulate, plan and profile charts are not in it: they draw a
 * simulation's result, an answered question and a measured server, not the engine for a
 * chart_request, so each has its own entry point (chart_sim.h, chart_plan.h, chart_profile.h)
 * that `roofline chart` calls by name (cli/cmd_chart.c). */
static const struct chart_kind_def {
    const char *name;
    int (*build)(struct chart *c, const struct chart_request *req, struct err_list *errs);
} KINDS[] = {
#define KIND_DEF(upper, name) [CHART_KIND_##upper] = {#name, chart_fill_##name},
    CHART_KINDS(KIND_DEF)
#undef KIND_DEF
};

const char *
chart_kind_name(enum chart_kind k)
{
    return k >= 0 && k < CHART_KIND_COUNT ? KINDS[k].name : "?";
}

int
chart_kind_parse(const char *name, enum chart_kind *out)
{
    for (int i = 0; i < CHART_KIND_COUNT; i++)
        if (strcmp(name, KINDS[i].name) == 0) {
            *out = (enum chart_kind)i;
            return 0;
        }
    return -1;
}

/* A model that does not fit a device even at batch 1 is said in the chart (a line in its title
 * area) and as a warning, so that nobody reads an all-faded chart as an answer. */
static void
misfit_warning(struct chart *c, const struct chart_request *req, struct err_list *errs)
{
    char line[256] = "";
    size_t n = 0;
    for (int g = 0; g < req->n_hws; g++) {
        struct roof_config cfg = kind_gpu_cfg(req, g, ROOF_DECODE);
        cfg.batch = 1;
        struct roof_memory m;
        roof_memory(&cfg, &m);
        if (m.fits)
            continue;
        char need[32], cap[32];
        chart_format_si(m.total_bytes, 3, "B", false, need, sizeof need);
        chart_format_si(m.capacity_bytes, 3, "B", false, cap, sizeof cap);
        err_add(errs, NULL, 0, 0, ERR_WARNING,
                "%s does not fit on %s even at batch 1: %s needed per device, %s available "
                "(try --tp, smaller --weights/--kv or a shorter --context)",
                req->base.model->id, req->hws[g]->id, need, cap);
        if (n < sizeof line)
            n += (size_t)snprintf(line + n, sizeof line - n, "%s%s: %s needed, %s available",
                                  n ? "; " : "DOES NOT FIT  ", req->hws[g]->id, need, cap);
    }
    if (n > 0) {
        size_t l = strlen(c->subtitle);
        snprintf(c->subtitle + l, sizeof c->subtitle - l, "\n%s", line);
        /* and in red across the first panel, where the eye goes */
        struct chart_panel *p = &c->panels[0];
        double x = p->x.scale == CHART_LOG ? sqrt(p->x.min * p->x.max) : (p->x.min + p->x.max) / 2;
        double y = p->y.scale == CHART_LOG ? sqrt(p->y.min * p->y.max) : (p->y.min + p->y.max) / 2;
        struct chart_label *lb =
            chart_add_label(c, p, "does not fit in memory", x, y, 100, CHART_VERMILLION);
        if (lb) {
            static const enum chart_dir D[] = {CHART_N, CHART_S, CHART_E, CHART_W};
            chart_label_dirs(lb, D, 4);
            lb->bold = true;
            lb->scale = 1.6;
            lb->rings = 4;
        }
    }
}

struct chart *
chart_build(const struct chart_request *req, struct err_list *errs)
{
    if (req->kind < 0 || req->kind >= CHART_KIND_COUNT) {
        err_add(errs, NULL, 0, 0, ERR_ERROR, "unknown chart kind %d", (int)req->kind);
        return NULL;
    }
    if (req->n_hws < 1 || req->n_hws > CHART_MAX_GPUS || !req->base.model) {
        err_add(errs, NULL, 0, 0, ERR_ERROR, "a chart needs 1 to %d devices and a model",
                CHART_MAX_GPUS);
        return NULL;
    }
    struct chart *c = chart_new();
    if (!c) {
        err_add(errs, NULL, 0, 0, ERR_ERROR, "out of memory");
        return NULL;
    }
    int rc = KINDS[req->kind].build(c, req, errs);
    if (rc == 0 && c->failed) {
        err_add(errs, NULL, 0, 0, ERR_ERROR, "out of memory");
        rc = -1;
    }
    if (rc == 0)
        misfit_warning(c, req, errs);
    if (rc != 0) {
        chart_free(c);
        return NULL;
    }
    return c;
}
