/* The analytic bracket's bisection (docs/plan.md#method, step 3) with fewer evaluations and the
 * same answer. The plain search halves [lo, hi] in log rate, mid = sqrt(lo hi), until
 * hi / lo <= tol, asking the estimate at every midpoint. When meeting the SLO is monotone in the
 * rate (a higher rate never meets where a lower one does not), the answer to a midpoint at or
 * below a rate known to meet is yes, and at or above a rate known not to is no, without asking:
 * so the search walks the plain path, answers from what it knows, and where it must ask, it asks
 * first at the end of the path that a guess of the threshold predicts (the secant of the log
 * margin against the log rate), which answers that midpoint and most of those after it. The
 * path, its midpoints (the same sqrt of the same products) and so its answer are the plain
 * search's; only the evaluations are fewer (about 8 instead of 11 for 1.005 over 10^4). It
 * asks only strictly between the highest rate known to meet and the lowest known not to, so it
 * cannot see a margin that is not monotone; there its answer, like the plain one, is a rate that
 * meets next to one that does not on the same grid, not necessarily the same one (the planner's
 * answers on every shipped question and on bench_plan's whole catalogue are the same). Each
 * midpoint costs at most two asks (a guess, then itself), so it ends within 2 max_iter. */
#include "plan/plan_int.h"

#include <math.h>
#include <stdbool.h>

#define BIS_PTS 64

struct bis {
    plan_rate_test test;
    void *ctx;
    double yes, no; /* the largest rate known to meet, the smallest known not to */
    /* the rates asked with a finite margin: log rate, log margin */
    double x[BIS_PTS], y[BIS_PTS];
    int n;
    int evals;
};

static void
note(struct bis *b, double r, double g)
{
    if (g > 0 && isfinite(g) && b->n < BIS_PTS) {
        b->x[b->n] = log(r);
        b->y[b->n] = log(g);
        b->n++;
    }
}

static void
ask(struct bis *b, double r)
{
    double g = INFINITY;
    int m = b->test(b->ctx, r, &g);
    b->evals++;
    if (m > 0 && r > b->yes)
        b->yes = r;
    else if (m <= 0 && r < b->no)
        b->no = r;
    note(b, r, g);
}

/* A guess of the threshold rate strictly inside (yes, no), or NAN: where the log margin
 * reaches 0 by inverse quadratic interpolation in the log rate through the three asked rates
 * nearest the bracket (Brent's step), else the secant of the two nearest, else the tangent of
 * the two top meeting rates (at most 4x beyond them). */
static double
guess(const struct bis *b)
{
    /* the three points nearest the bracket in log rate */
    double lyes = log(b->yes), lno = isfinite(b->no) ? log(b->no) : INFINITY;
    int best[3] = {-1, -1, -1};
    double dist[3] = {INFINITY, INFINITY, INFINITY};
    for (int i = 0; i < b->n; i++) {
        double d = b->x[i] <= lyes ? lyes - b->x[i] : b->x[i] >= lno ? b->x[i] - lno : 0;
        for (int k = 0; k < 3; k++)
            if (d < dist[k]) {
                for (int j = 2; j > k; j--)
                    best[j] = best[j - 1], dist[j] = dist[j - 1];
                best[k] = i, dist[k] = d;
                break;
            }
    }
    double x = NAN;
    if (best[2] >= 0) {
        double x0 = b->x[best[0]], x1 = b->x[best[1]], x2 = b->x[best[2]];
        double y0 = b->y[best[0]], y1 = b->y[best[1]], y2 = b->y[best[2]];
        if (y0 != y1 && y1 != y2 && y0 != y2)
            x = x0 * y1 * y2 / ((y0 - y1) * (y0 - y2)) + x1 * y0 * y2 / ((y1 - y0) * (y1 - y2)) +
                x2 * y0 * y1 / ((y2 - y0) * (y2 - y1));
    }
    if (!(x > lyes && x < lno) && best[1] >= 0) {
        double x0 = b->x[best[0]], x1 = b->x[best[1]], y0 = b->y[best[0]], y1 = b->y[best[1]];
        x = y0 != y1 ? x0 - y0 * (x1 - x0) / (y1 - y0) : NAN;
        if (!(lno < INFINITY) && x > lyes + log(4.0))
            x = NAN;
    }
    if (!(x > lyes && x < lno))
        return NAN;
    return exp(x);
}

double
plan_bisect_rate(double lo, double hi, int max_iter, double tol, double lo_margin,
                 plan_rate_test test, void *ctx, int *evals)
{
    struct bis b = {.test = test, .ctx = ctx, .yes = lo, .no = INFINITY};
    note(&b, lo, lo_margin);
    /* one guess per midpoint: where it did not answer it, the midpoint itself is asked (near
     * a kink of the margin the guesses stall; a plain step halves) */
    double tried = NAN;
    for (;;) {
        /* the plain path, answered from what is known, up to the first midpoint it cannot */
        double l = lo, h = hi, mid = NAN;
        int i = 0;
        for (; i < max_iter && h / l > tol; i++) {
            double m = sqrt(l * h);
            if (m <= b.yes) {
                l = m;
            } else if (m >= b.no) {
                h = m;
            } else {
                mid = m;
                break;
            }
        }
        if (isnan(mid))
            break;
        double r = mid == tried ? NAN : guess(&b);
        /* before the margin has a slope and nothing is known to fail: a prior, 0.6 of the top
         * of the bracket (the screen's hi is the capacity; thresholds lie mostly at 0.1-0.9 of
         * it), asks 7-20% fewer rates on the shipped questions (reports/) than plain steps there */
        if (isnan(r) && mid != tried && !isfinite(b.no) && 0.6 * hi > b.yes)
            r = 0.6 * hi;
        double at = mid;
        if (!isnan(r)) {
            /* the rest of the path as the guess predicts: its last yes or its last no */
            double l2 = l, h2 = h;
            for (int k = i; k < max_iter && h2 / l2 > tol; k++) {
                double m = sqrt(l2 * h2);
                if (m <= b.yes || (m < b.no && m < r))
                    l2 = m;
                else
                    h2 = m;
            }
            at = mid < r ? l2 : h2;
            if (!(at > b.yes && at < b.no))
                at = mid;
            tried = mid;
        }
        ask(&b, at);
    }
    /* replay once more for the answer (all known now) */
    double l = lo, h = hi;
    for (int i = 0; i < max_iter && h / l > tol; i++) {
        double m = sqrt(l * h);
        if (m <= b.yes)
            l = m;
        else
            h = m;
    }
    if (evals)
        *evals = b.evals;
    return l;
}
