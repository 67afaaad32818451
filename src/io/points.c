/* The measured-points format: {"points": [{"label", "intensity_flop_per_byte", "flops_per_s"}]}
 * (docs/charts.md), or a roofline bench -o json report read as its points. The writer is
 * bench_render_points (bench/report.c). Nothing printed: problems go to the error list. */
#include "io/points.h"

#include "io/ycheck.h"
#include "io/ytree.h"
#include "util/strs.h"

#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void
points_free(struct chart_measured *m, size_t n)
{
    if (!m)
        return;
    for (size_t i = 0; i < n; i++)
        free(m[i].label);
    free(m);
}

static double
node_num(const struct ynode *map, const char *key)
{
    double v;
    const struct ynode *n = map ? ynode_get(map, key) : NULL;
    return n && ynode_double(n, &v) == 0 ? v : NAN;
}

static bool
is_bench_report(const struct ynode *root)
{
    if (root->kind != YNODE_MAP)
        return false;
    const struct ynode *tool = ynode_get(root, "tool"), *cmd = ynode_get(root, "command");
    return tool && cmd && tool->kind == YNODE_SCALAR && cmd->kind == YNODE_SCALAR &&
           strcmp(tool->value, "roofline") == 0 && strcmp(cmd->value, "bench") == 0;
}

/* Appends a bench point when intensity and rate are positive and finite (cases with no FLOPs,
 * such as STREAM copy, have no place on a FLOP/s roofline). */
static int
bench_point(struct chart_measured **pts, size_t *np, size_t *cap, const char *label, double x,
            double y)
{
    if (!(x > 0 && isfinite(x) && y > 0 && isfinite(y)))
        return 0;
    if (*np == *cap) {
        size_t nc = *cap ? 2 * *cap : 32;
        struct chart_measured *m = realloc(*pts, nc * sizeof *m);
        if (!m)
            return -1;
        *pts = m;
        *cap = nc;
    }
    struct chart_measured *m = &(*pts)[*np];
    m->label = str_dup(label);
    if (!m->label)
        return -1;
    m->intensity_flop_per_byte = x;
    m->flops_per_s = y;
    (*np)++;
    return 0;
}

/* The points of a `roofline bench -o json` report, as `bench --points` writes them: the
 * intensity sweep at its median rates, then every case with FLOPs at flops / median time. */
static int
bench_report_points(const char *path, const struct ynode *root, struct chart_measured **out,
                    size_t *n, struct err_list *e)
{
    struct chart_measured *pts = NULL;
    size_t np = 0, cap = 0;
    int rc = 0;
    const struct ynode *sw = ynode_get(root, "intensity_sweep");
    const struct ynode *list = sw && sw->kind == YNODE_MAP ? ynode_get(sw, "points") : NULL;
    for (size_t i = 0; rc == 0 && list && list->kind == YNODE_SEQ && i < list->n; i++) {
        const struct ynode *it = list->items[i];
        double x = node_num(it, "intensity_flop_per_byte");
        double y = node_num(it, "flops_per_s_median");
        if (!isfinite(y))
            y = node_num(it, "flops_per_s");
        char label[64];
        snprintf(label, sizeof label, "ERT %g FLOP/B", x);
        rc = bench_point(&pts, &np, &cap, label, x, y);
    }
    const struct ynode *cases = ynode_get(root, "cases");
    for (size_t i = 0; rc == 0 && cases && cases->kind == YNODE_SEQ && i < cases->n; i++) {
        const struct ynode *it = cases->items[i];
        if (it->kind != YNODE_MAP)
            continue;
        const struct ynode *id = ynode_get(it, "id");
        const struct ynode *t = ynode_get(it, "time_s");
        double flops = node_num(it, "flops"), bytes = node_num(it, "bytes");
        double med = t && t->kind == YNODE_MAP ? node_num(t, "median") : NAN;
        rc = bench_point(&pts, &np, &cap, id && id->kind == YNODE_SCALAR ? id->value : "",
                         flops / bytes, flops / med);
    }
    if (rc == 0 && np == 0) {
        err_add(e, path, root->line, root->col, ERR_ERROR,
                "the bench report holds no measured points with FLOPs (run roofline bench "
                "with the intensity or kernels parts)");
        rc = -1;
    } else if (rc != 0)
        err_add(e, path, root->line, root->col, ERR_ERROR, "out of memory");
    if (rc != 0) {
        points_free(pts, np);
        return -1;
    }
    *out = pts;
    *n = np;
    return 0;
}

int
points_bench_model(const char *path, char *id, size_t size)
{
    struct ynode *root = ynode_load(path, NULL);
    int rc = -1;
    if (root && is_bench_report(root)) {
        const struct ynode *m = ynode_get(root, "model");
        const struct ynode *v = m && m->kind == YNODE_MAP ? ynode_get(m, "id") : NULL;
        if (v && v->kind == YNODE_SCALAR && strlen(v->value) < size) {
            snprintf(id, size, "%s", v->value);
            rc = 0;
        }
    }
    ynode_free(root);
    return rc;
}

int
points_load(const char *path, struct chart_measured **out, size_t *n, struct err_list *errs)
{
    *out = NULL;
    *n = 0;
    struct err_list local = {0};
    struct err_list *e = errs ? errs : &local;
    size_t before = err_count(e, ERR_ERROR);
    struct ynode *root = ynode_load(path, e);
    if (!root) {
        err_list_release(&local);
        return -1;
    }
    if (is_bench_report(root)) {
        int rc = bench_report_points(path, root, out, n, e);
        ynode_free(root);
        err_list_release(&local);
        return rc;
    }
    struct ycheck y;
    ycheck_init(&y, path, e);
    struct chart_measured *pts = NULL;
    size_t np = 0;
    static const char *const TOP[] = {"points"};
    static const char *const KEYS[] = {"label", "intensity_flop_per_byte", "flops_per_s"};
    if (ycheck_map(&y, root, "the measured-points file")) {
        ycheck_keys(&y, root, "", TOP, 1);
        const struct ynode *list = ynode_get(root, "points");
        if (!list)
            ycheck_error(&y, root, "missing key 'points' (a list of measured points)");
        else if (list->kind != YNODE_SEQ)
            ycheck_error(&y, list, "'points' must be a list, got %s", ynode_kind_name(list));
        else if (list->n > 0 && !(pts = calloc(list->n, sizeof *pts)))
            ycheck_error(&y, list, "out of memory");
        for (size_t i = 0; pts && i < list->n; i++) {
            const struct ynode *it = list->items[i];
            char prefix[32];
            snprintf(prefix, sizeof prefix, "points[%zu]", i);
            if (!ycheck_map(&y, it, prefix))
                continue;
            ycheck_keys(&y, it, prefix, KEYS, 3);
            const char *label = NULL;
            double x = NAN, v = NAN;
            ycheck_str(&y, it, prefix, "label", false, &label);
            bool okx = ycheck_num(&y, it, prefix, "intensity_flop_per_byte", true, &x);
            bool oky = ycheck_num(&y, it, prefix, "flops_per_s", true, &v);
            if (okx && !(x > 0 && isfinite(x)))
                ycheck_error(&y, ynode_get(it, "intensity_flop_per_byte"),
                             "'%s.intensity_flop_per_byte' must be positive", prefix);
            if (oky && !(v > 0 && isfinite(v)))
                ycheck_error(&y, ynode_get(it, "flops_per_s"), "'%s.flops_per_s' must be positive",
                             prefix);
            struct chart_measured *m = &pts[np++];
            m->intensity_flop_per_byte = x;
            m->flops_per_s = v;
            size_t len = label ? strlen(label) : 0;
            m->label = malloc(len + 1);
            if (!m->label)
                ycheck_error(&y, it, "out of memory");
            else {
                if (len)
                    memcpy(m->label, label, len);
                m->label[len] = '\0';
            }
        }
    }
    ycheck_release(&y);
    ynode_free(root);
    bool bad = err_count(e, ERR_ERROR) > before;
    err_list_release(&local);
    if (bad) {
        points_free(pts, np);
        return -1;
    }
    *out = pts;
    *n = np;
    return 0;
}
