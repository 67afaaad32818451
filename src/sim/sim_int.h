/* Internals shared by the simulator's files: the workload generator (GSL random streams) and
 * length-distribution moments. Not part of the library's interface. */
#ifndef ROOFLINE_SIM_SIM_INT_H
#define ROOFLINE_SIM_SIM_INT_H

#include "sim/sim.h"

#include <gsl/gsl_rng.h>

/* Tests only: the analytic estimate's fixed points take the damped step b <- (b + g(b)) / 2
 * throughout, as they did before the plain step (sim/analytic.c, struct fixpt), to compare the
 * two. Not thread-safe; false in the program. */
extern bool sim_analytic_damped;

/* Two independent mt19937 streams: arrivals (and think times) from `seed`, lengths from a
 * derived seed, so a change of rate leaves the drawn lengths unchanged. */
struct sim_gen {
    const struct sim_workload *w;
    gsl_rng *arrivals, *lengths;
};

int sim_gen_init(struct sim_gen *g, const struct sim_workload *w, unsigned long seed);
void sim_gen_release(struct sim_gen *g);
/* Time to the next open-loop arrival (poisson, gamma, constant) in seconds. */
double sim_gen_interarrival(struct sim_gen *g);
/* A closed-loop think time in seconds (exponential; 0 when the mean is 0). */
double sim_gen_think(struct sim_gen *g);
/* Lengths of the request with arrival index `id` (trace lengths: row id, cycling). */
void sim_gen_lengths(struct sim_gen *g, long id, long *prompt, long *output);
/* One draw from a non-trace distribution. */
long sim_dist_draw(const struct sim_dist *d, gsl_rng *r);
/* Mean, variance and 99th percentile of a length distribution (trace: of the column, `which`
 * 0 = prompt, 1 = output). */
void sim_dist_moments(const struct sim_dist *d, const struct sim_trace *t, int which, double *mean,
                      double *var, double *p99);
/* The q-quantile of a length distribution (trace: of the column `which`), q in (0, 1). */
double sim_dist_quantile(const struct sim_dist *d, const struct sim_trace *t, int which, double q);

#endif
