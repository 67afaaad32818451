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
    double launch_s;  /* the fork-joins' share: launches x the round trip */
    double overlap_s; /* the core time the stream did not hide: (1 - overlap) min(core, stream) */
    double llc_bytes; /* bytes of the stream the LLC retained (host profiles' llc_stream); 0 */
    double flops, bytes;
    bool memory_bound;
    char reason[256]; /* "memory-bound: 1.0 GB at 41.2 GB/s", or why it cannot be predicted */
};

/* What the host adds to the roofline (docs/bench.md#core-time-and-the-stream): each fork-join
 * of a parallel kernel costs launch_s (0: none); a kernel's core time and its DRAM stream
 * overlap by `overlap` in [0, 1] (1: the roofline's max, 0: their sum). */
struct bench_host_terms {
    double launch_s;
    double overlap;
    /* decode attention's core rate, bytes of KV cache per second with the cache in L2 (0:
     * its FLOPs at the GEMM rate) */
    double attn_core_bytes_per_s;
};

/* Predict case `c` on `hw` (fp32 roof; model passes need `model`, may be NULL otherwise) with
 * the host terms `ht` (NULL: the pure roofline): the stream of W bytes (a case's bytes per
 * repetition) at W / t(W), the LLC's retained bytes (hw->llc_retained_bytes) at its rate and the
 * rest at the bandwidth (bench_llc_stream_s; exactly the bandwidth without retention); a kernel
 * takes max(core, stream) + (1 - overlap) min(core, stream), operator by operator for the model,
 * with the stream at the bandwidth that gives the weight stream (the roof's own GEMV) its measured
 * time, plus its c->launches fork-joins. Returns 0, or -1 with out->reason saying why not (no fp32
 * roof, no model, engine refusal). */
int bench_predict_case(const struct hw_profile *hw, const struct mdl_profile *model,
                       const struct bench_case *c, const struct bench_host_terms *ht,
                       struct bench_prediction *out);

/* The overlap of core time and stream from two passes over one stack of Q bytes: t1 by one
 * row (core time c1), tm by m rows (core time cm = m c1), each t = max(core, stream) + (1 -
 * overlap) min(core, stream) with the same stream time. Returns the overlap in [0, 1]; 1 when
 * the figures cannot say (non-positive, tm <= t1). */
double bench_overlap_fraction(double t1, double tm, double c1, double cm);
/* The report's overlap on `hw` (its fp32 peak x gemm_efficiency sets the core times), or 1
 * when the report has no overlap measurement. */
double bench_report_overlap(const struct bench_report *r, const struct hw_profile *hw);

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
