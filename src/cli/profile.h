/* What cmd_profile.c (the command and its printing) and profile_measure.c (requests, loads,
 * predictions, fits) share. docs/profile.md. */
#ifndef ROOFLINE_CLI_PROFILE_H
#define ROOFLINE_CLI_PROFILE_H

#include "core/roof.h"
#include "net/client.h"

#include <stdbool.h>

/* One timed request: its targets, the words of its prompt and what the server answered. */
struct prof_req {
    long prompt_target, output_target;
    long words;
    int level; /* load level index; -1 for the single-request sweep */
    double start_s;
    struct net_result r;
};

/* quantile (type 7) of v[0..n) (sorted in place); NaN when n = 0 */
double prof_quantile(double *v, long n, double q);
/* A prompt of `words` words after a tag that makes it unique (no prefix-cache hits). Caller
 * frees; NULL when out of memory. */
char *prof_make_prompt(long words, long tag);
/* CLOCK_MONOTONIC in seconds. */
double prof_now_s(void);
/* Stream q (its prompt tagged `tag`) and record the start relative to t0 in q. */
void prof_run_one(const struct net_client *c, struct prof_req *q, long tag, double t0);
/* The n requests reqs[0..n) (tags tag_base + 1 ...) sent by `users` closed-loop users (each
 * sends its next request when the last one ends; at most 256), or with Poisson arrivals at
 * rate_per_s from a seeded generator. Return the wall time in seconds. */
double prof_closed_load(const struct net_client *c, struct prof_req *reqs, long n, long tag_base,
                        long users);
double prof_poisson_load(const struct net_client *c, struct prof_req *reqs, long n, long tag_base,
                         double rate_per_s, unsigned long seed);

/* The roofline's prediction of one request: the device, model, weight format and an engine's
 * tuning. */
struct prof_pred {
    const struct hw_profile *hw;
    const struct mdl_profile *model;
    enum dtype weights;
    struct roof_tuning tuning;
    bool tuned;
    bool mxfp4_marlin;   /* --moe-kernel marlin: vLLM's Marlin MoE (roof_config.mxfp4_marlin) */
    int tp, ep, attn_dp; /* --tp, --ep, --attn-dp (roof_config's; 0 or 1 = none) */
};
/* The time in seconds of a prefill of `tokens` prompt tokens or a decode step at context
 * `tokens` (batch 1, flash attention); NaN when the roofline cannot evaluate it. Sets
 * *bytes_weights (may be NULL) to the weight bytes read. */
double prof_predict(const struct prof_pred *p, bool prefill, double tokens, double *bytes_weights);

/* A straight line y = c0 + c1 x fitted by GSL (ok = false with fewer than 3 points or one x). */
struct prof_fit {
    int n;
    bool ok;
    double c0, c1, cov00, cov01, cov11, sumsq;
};
void prof_fit_line(const double *x, const double *y, int n, struct prof_fit *f);
/* The fit's value at x and its 1-sigma error. */
void prof_fit_at(const struct prof_fit *f, double x, double *y, double *sd);
/* Decode points: per request, the median of each block of PROF_GAP_BLOCK gaps at the block's
 * mean context (robust to a scheduler hiccup), into xs/ys (at most max). Returns the count. */
#define PROF_GAP_BLOCK 16
int prof_decode_points(const struct prof_req *reqs, long n, double *xs, double *ys, int max);

#endif
