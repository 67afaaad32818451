/* Workload generation: inter-arrival times, think times and token lengths from GSL's random
 * distributions (gsl_ran_exponential, gsl_ran_gamma, gsl_ran_lognormal) on mt19937. */
#include "sim/sim_int.h"

#include <gsl/gsl_cdf.h>
#include <gsl/gsl_randist.h>
#include <math.h>
#include <stdlib.h>

int
sim_gen_init(struct sim_gen *g, const struct sim_workload *w, unsigned long seed)
{
    g->w = w;
    g->arrivals = gsl_rng_alloc(gsl_rng_mt19937);
    g->lengths = gsl_rng_alloc(gsl_rng_mt19937);
    if (!g->arrivals || !g->lengths) {
        sim_gen_release(g);
        return -1;
    }
    gsl_rng_set(g->arrivals, seed);
    /* a fixed odd offset keeps the two streams apart for every seed */
    gsl_rng_set(g->lengths, seed + 0x9E3779B97F4A7C15UL);
    return 0;
}

void
sim_gen_release(struct sim_gen *g)
{
    if (g->arrivals)
        gsl_rng_free(g->arrivals);
    if (g->lengths)
        gsl_rng_free(g->lengths);
    g->arrivals = g->lengths = NULL;
}

double
sim_gen_interarrival(struct sim_gen *g)
{
    const struct sim_workload *w = g->w;
    double mean = 1.0 / w->rate_per_s;
    switch (w->process) {
    case SIM_POISSON:
        return gsl_ran_exponential(g->arrivals, mean);
    case SIM_GAMMA: {
        /* shape k = 1 / cv^2 and scale mean / k: mean 1/rate, coefficient of variation cv */
        double k = 1.0 / (w->cv * w->cv);
        return gsl_ran_gamma(g->arrivals, k, mean / k);
    }
    case SIM_CONSTANT:
        return mean;
    case SIM_CLOSED:
    case SIM_TRACE:
        break;
    }
    return mean;
}

double
sim_gen_think(struct sim_gen *g)
{
    double m = g->w->think_time_s;
    return m > 0 ? gsl_ran_exponential(g->arrivals, m) : 0.0;
}

/* lognormal parameters from the mean m and standard deviation s of the variable itself:
 * sigma^2 = ln(1 + s^2/m^2), mu = ln m - sigma^2 / 2 */
static void
lognormal_params(double m, double s, double *mu, double *sigma)
{
    double s2 = log(1.0 + (s * s) / (m * m));
    *sigma = sqrt(s2);
    *mu = log(m) - s2 / 2.0;
}

static long
clamp_len(double x, const struct sim_dist *d)
{
    double lo = d->min >= 1 ? d->min : 1.0;
    if (x < lo)
        x = lo;
    if (d->max > 0 && x > d->max)
        x = d->max;
    return x > (double)SIM_MAX_TOKENS ? SIM_MAX_TOKENS : (long)x;
}

long
sim_dist_draw(const struct sim_dist *d, gsl_rng *r)
{
    switch (d->kind) {
    case SIM_DIST_FIXED:
        return (long)d->value;
    case SIM_DIST_UNIFORM: {
        unsigned long span = (unsigned long)(d->max - d->min) + 1UL;
        return (long)d->min + (long)gsl_rng_uniform_int(r, span);
    }
    case SIM_DIST_LOGNORMAL: {
        if (!(d->sd > 0))
            return clamp_len(floor(d->mean + 0.5), d);
        double mu, sigma;
        lognormal_params(d->mean, d->sd, &mu, &sigma);
        return clamp_len(floor(gsl_ran_lognormal(r, mu, sigma) + 0.5), d);
    }
    case SIM_DIST_TRACE:
        break;
    }
    return 1;
}

void
sim_gen_lengths(struct sim_gen *g, long id, long *prompt, long *output)
{
    const struct sim_workload *w = g->w;
    const struct sim_trace *t = w->trace;
    const struct sim_trace_row *row = t && t->n > 0 ? &t->rows[id % t->n] : NULL;
    /* always two draws per request in the same order, whatever the kinds */
    *prompt = w->prompt.kind == SIM_DIST_TRACE ? (row ? row->prompt_tokens : 0)
                                               : sim_dist_draw(&w->prompt, g->lengths);
    *output = w->output.kind == SIM_DIST_TRACE ? (row ? row->output_tokens : 0)
                                               : sim_dist_draw(&w->output, g->lengths);
}

static int
cmp_long(const void *a, const void *b)
{
    long x = *(const long *)a, y = *(const long *)b;
    return (x > y) - (x < y);
}

double
sim_dist_mean(const struct sim_dist *d)
{
    switch (d->kind) {
    case SIM_DIST_FIXED:
        return d->value;
    case SIM_DIST_UNIFORM:
        return 0.5 * (d->min + d->max);
    case SIM_DIST_LOGNORMAL:
        return d->mean;
    default:
        return 0;
    }
}

double
sim_dist_max(const struct sim_dist *d)
{
    switch (d->kind) {
    case SIM_DIST_FIXED:
        return d->value;
    case SIM_DIST_TRACE:
        return d->max;
    case SIM_DIST_UNIFORM:
        return d->max;
    case SIM_DIST_LOGNORMAL:
        return d->max > 0 ? d->max : ceil(d->mean + 4 * d->sd);
    default:
        return 0;
    }
}

double
sim_serving_context(long max_batch, const struct sim_dist *prompt, const struct sim_dist *output,
                    long *slots)
{
    long np = max_batch < 64 ? max_batch : 64;
    np = np > 1 ? np : 1;
    if (slots)
        *slots = np;
    return (sim_dist_max(prompt) + sim_dist_max(output)) * (double)np;
}

void
sim_dist_moments(const struct sim_dist *d, const struct sim_trace *t, int which, double *mean,
                 double *var, double *p99)
{
    *mean = *var = *p99 = 0;
    switch (d->kind) {
    case SIM_DIST_FIXED:
        *mean = *p99 = d->value;
        return;
    case SIM_DIST_UNIFORM: {
        double n = d->max - d->min + 1.0;
        *mean = (d->min + d->max) / 2.0;
        *var = (n * n - 1.0) / 12.0;
        *p99 = sim_dist_quantile(d, t, which, 0.99);
        return;
    }
    case SIM_DIST_LOGNORMAL: {
        /* the clamp and the rounding are ignored: they move the moments by far less than the
         * queueing approximation's own error */
        *mean = d->mean;
        *var = d->sd * d->sd;
        *p99 = sim_dist_quantile(d, t, which, 0.99);
        return;
    }
    case SIM_DIST_TRACE:
        break;
    }
    if (!t || t->n <= 0)
        return;
    long *v = malloc((size_t)t->n * sizeof *v);
    double s = 0, s2 = 0;
    for (long i = 0; i < t->n; i++) {
        long x = which == 0 ? t->rows[i].prompt_tokens : t->rows[i].output_tokens;
        s += (double)x;
        s2 += (double)x * (double)x;
        if (v)
            v[i] = x;
    }
    *mean = s / (double)t->n;
    *var = s2 / (double)t->n - *mean * *mean;
    if (*var < 0)
        *var = 0;
    if (v) {
        qsort(v, (size_t)t->n, sizeof *v, cmp_long);
        *p99 = (double)v[(long)floor(0.99 * (double)(t->n - 1))];
        free(v);
    } else {
        *p99 = *mean;
    }
}

double
sim_dist_quantile(const struct sim_dist *d, const struct sim_trace *t, int which, double q)
{
    switch (d->kind) {
    case SIM_DIST_FIXED:
        return d->value;
    case SIM_DIST_UNIFORM:
        return d->min + floor(q * (d->max - d->min + 1.0 - 1e-9));
    case SIM_DIST_LOGNORMAL: {
        if (!(d->sd > 0))
            return d->mean;
        double mu, sigma;
        lognormal_params(d->mean, d->sd, &mu, &sigma);
        double x = exp(mu + sigma * gsl_cdf_ugaussian_Pinv(q));
        if (d->max > 0 && x > d->max)
            x = d->max;
        return x < 1 ? 1 : x;
    }
    case SIM_DIST_TRACE:
        break;
    }
    if (!t || t->n <= 0)
        return 0;
    long *v = malloc((size_t)t->n * sizeof *v);
    if (!v)
        return 0;
    for (long i = 0; i < t->n; i++)
        v[i] = which == 0 ? t->rows[i].prompt_tokens : t->rows[i].output_tokens;
    qsort(v, (size_t)t->n, sizeof *v, cmp_long);
    double x = (double)v[(long)floor(q * (double)(t->n - 1))];
    free(v);
    return x;
}
