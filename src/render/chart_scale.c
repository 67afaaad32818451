/* The numbers of a chart's axes (declared in render/chart.h): engineering labels with SI
 * prefixes, "nice" linear and log ranges, the map from data to pixels, ticks and their thinning
 * where labels would collide. Pure; no Cairo, no printing. */
#include "render/chart.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void
chart_format_si(double v, int sig, const char *unit, bool sub_unit, char *buf, size_t size)
{
    static const char *const PREFIX[] = {"p", "n", "\xc2\xb5", "m", "", "k",
                                         "M", "G", "T",        "P", "E"};
    const char *u = unit ? unit : "";
    if (sig < 1)
        sig = 1;
    if (!isfinite(v)) {
        snprintf(buf, size, "n/a");
        return;
    }
    if (v == 0) {
        snprintf(buf, size, "0");
        return;
    }
    double a = fabs(v);
    if (sub_unit && a >= 999.5) { /* times: "5530 s", not "5.53 ks" */
        snprintf(buf, size, "%.0f%s%s", v, *u ? " " : "", u);
        return;
    }
    if (!sub_unit && a < 999.5) {
        char num[48];
        snprintf(num, sizeof num, "%.*g", sig, v);
        /* rounding may reach 1000: fall through to prefixes */
        if (fabs(strtod(num, NULL)) < 1000) {
            snprintf(buf, size, "%s%s%s", num, *u ? " " : "", u);
            return;
        }
    }
    int e3 = (int)floor(log10(a) / 3.0 + 1e-9) * 3;
    for (int pass = 0; pass < 2; pass++) {
        if (e3 < -12)
            e3 = -12;
        if (e3 > 18)
            e3 = 18;
        double m = v / pow(10.0, e3);
        char num[48];
        snprintf(num, sizeof num, "%.*g", sig, m);
        if (fabs(strtod(num, NULL)) >= 1000 && e3 < 18 && pass == 0) {
            e3 += 3;
            continue;
        }
        const char *pre = PREFIX[(e3 + 12) / 3];
        if (!*pre && !*u)
            snprintf(buf, size, "%s", num);
        else
            snprintf(buf, size, "%s %s%s", num, pre, u);
        return;
    }
}

int
chart_log_bounds(double lo, double hi, double pad, double *min, double *max)
{
    if (!(lo > 0) || !(hi >= lo) || !isfinite(hi) || !(pad >= 1) || !isfinite(pad))
        return -1;
    lo /= pad;
    hi *= pad;
    double e = floor(log10(lo));
    double m = lo / pow(10.0, e) * (1 + 1e-9);
    double s = m >= 5 ? 5 : m >= 3 ? 3 : m >= 2 ? 2 : m >= 1 ? 1 : 0.5;
    *min = s * pow(10.0, e);
    e = floor(log10(hi));
    m = hi / pow(10.0, e) * (1 - 1e-9);
    s = m <= 1 ? 1 : m <= 2 ? 2 : m <= 3 ? 3 : m <= 5 ? 5 : 10;
    *max = s * pow(10.0, e);
    return 0;
}

static double
nice_step(double raw)
{
    double mag = pow(10.0, floor(log10(raw)));
    double r = raw / mag;
    return (r <= 1 + 1e-9 ? 1 : r <= 2 + 1e-9 ? 2 : r <= 5 + 1e-9 ? 5 : 10) * mag;
}

int
chart_linear_bounds(double lo, double hi, int target, double *min, double *max, double *step)
{
    if (!isfinite(lo) || !isfinite(hi) || hi < lo || target < 1)
        return -1;
    if (hi == lo) {
        double d = lo != 0 ? fabs(lo) * 0.1 : 1;
        lo -= d;
        hi += d;
    }
    double s = nice_step((hi - lo) / target);
    *min = floor(lo / s + 1e-9) * s;
    *max = ceil(hi / s - 1e-9) * s;
    *step = s;
    return 0;
}

double
chart_map(const struct chart_axis *ax, double v, double p0, double p1)
{
    if (ax->scale == CHART_LOG) {
        if (!(v > 0) || !(ax->min > 0) || !(ax->max > ax->min))
            return NAN;
        double f = (log10(v) - log10(ax->min)) / (log10(ax->max) - log10(ax->min));
        return p0 + f * (p1 - p0);
    }
    if (!(ax->max > ax->min) || !isfinite(v))
        return NAN;
    return p0 + (v - ax->min) / (ax->max - ax->min) * (p1 - p0);
}

static void
add_tick(struct chart_axis *ax, double v, bool major)
{
    if (ax->n_ticks >= CHART_MAX_TICKS)
        return;
    struct chart_tick *t = &ax->ticks[ax->n_ticks++];
    t->value = v;
    t->major = major;
    t->labelled = major;
    t->label[0] = '\0';
    if (major)
        chart_format_si(v, 3, ax->unit, ax->sub_unit, t->label, sizeof t->label);
}

int
chart_axis_ticks(struct chart_axis *ax)
{
    ax->n_ticks = 0;
    if (ax->scale == CHART_CATEGORY) {
        for (int i = 0; i < ax->n_categories && ax->n_ticks < CHART_MAX_TICKS; i++) {
            struct chart_tick *t = &ax->ticks[ax->n_ticks++];
            t->value = i;
            t->major = t->labelled = true;
            snprintf(t->label, sizeof t->label, "%s", ax->categories[i]);
        }
        return ax->n_ticks;
    }
    if (ax->scale == CHART_LINEAR) {
        double lo, hi, step;
        if (!(ax->max > ax->min) || chart_linear_bounds(ax->min, ax->max, 5, &lo, &hi, &step))
            return 0;
        for (double k = ceil(ax->min / step - 1e-9); k * step <= ax->max * (1 + 1e-12) + 1e-300;
             k++) {
            double v = k * step;
            if (fabs(v) < step * 1e-9)
                v = 0;
            add_tick(ax, v, true);
            if (ax->n_ticks >= CHART_MAX_TICKS)
                break;
        }
        return ax->n_ticks;
    }
    if (!(ax->min > 0) || !(ax->max > ax->min))
        return 0;
    double lmin = log10(ax->min), lmax = log10(ax->max), span = lmax - lmin;
    int e0 = (int)floor(lmin + 1e-9), e1 = (int)ceil(lmax - 1e-9);
    int decades = 0;
    for (int e = e0; e <= e1; e++) {
        double v = pow(10.0, e);
        if (v >= ax->min * (1 - 1e-9) && v <= ax->max * (1 + 1e-9))
            decades++;
    }
    /* which mantissas carry labels: decades, or 1-2-5, or every integer on short axes */
    int label_set = decades >= 2 ? 0 : decades + (span > 0.7 ? 1 : 0) >= 2 ? 1 : 2;
    bool minors = span <= 8;
    for (int e = e0; e <= e1; e++) {
        for (int m = 1; m <= 9; m++) {
            double v = m * pow(10.0, e);
            if (v < ax->min * (1 - 1e-9) || v > ax->max * (1 + 1e-9))
                continue;
            bool major = m == 1 || (label_set == 1 && (m == 2 || m == 5)) || label_set == 2;
            if (!major && !minors)
                continue;
            add_tick(ax, v, major);
        }
    }
    return ax->n_ticks;
}

int
chart_thin_ticks(struct chart_tick *ticks, int n, const double *pos, const double *size,
                 double min_gap_px)
{
    int idx[CHART_MAX_TICKS], m = 0;
    for (int i = 0; i < n && m < CHART_MAX_TICKS; i++)
        if (ticks[i].major)
            idx[m++] = i;
    int k = 1;
    for (; k < m; k++) {
        bool ok = true;
        for (int j = k; j < m && ok; j += k) {
            int a = idx[j - k], b = idx[j];
            double room = fabs(pos[b] - pos[a]) - (size[a] + size[b]) / 2;
            if (!(room >= min_gap_px))
                ok = false;
        }
        if (ok)
            break;
    }
    if (k > m)
        k = m > 0 ? m : 1;
    for (int j = 0; j < m; j++)
        ticks[idx[j]].labelled = j % k == 0;
    return k;
}
