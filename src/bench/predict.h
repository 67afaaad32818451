/* Predicting the benchmark's cases from a hardware profile with the engine's rules: kernels as
 * max(FLOPs / peak, bytes / bandwidth), the transformer's passes with roof_evaluate. Compares
 * with the measured times for `roofline validate --host`. */
#ifndef ROOFLINE_BENCH_PREDICT_H
#define ROOFLINE_BENCH_PREDICT_H

#include "bench/bench.h"
#include "core/hw.h"
#include "core/model.h"

#include <stdbool.h>

struct bench_prediction {
    double predicted_s;
    double compute_s, memory_s;
    double launch_s; /* the fork-joins' share: launches x the round trip */
    double flops, bytes;
    bool memory_bound;
    char reason[160]; /* "memory-bound: 1.0 GB at 41.2 GB/s", or why it cannot be predicted */
};

/* Predict case `c` on `hw` (fp32 roof; model passes need `model`, may be NULL otherwise), each
 * of its c->launches fork-joins costing `launch_s` on top (0: none). Returns 0, or -1 with
 * out->reason saying why not (no fp32 roof, no model, engine refusal). */
int bench_predict_case(const struct hw_profile *hw, const struct mdl_profile *model,
                       const struct bench_case *c, double launch_s, struct bench_prediction *out);

/* Signed error in percent: (predicted - measured) / measured x 100. */
double bench_error_pct(double predicted, double measured);

struct bench_error_summary {
    int n;
    double median_abs_pct, p90_abs_pct, mean_pct;
};

/* Summary of n signed errors (percent): median and 90th percentile of |error| (quantile type 7)
 * and the mean signed error; NaN when n = 0. */
void bench_error_summarize(const double *err_pct, int n, struct bench_error_summary *out);

#endif
