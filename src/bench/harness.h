/* The timing harness of the host benchmark: timer calibration, repeated measurement (warm-up,
 * then N samples of at least 20 timer ticks each), statistics, and a pinned thread pool.
 * No printing, no global state; results go into caller-provided structs. */
#ifndef ROOFLINE_BENCH_HARNESS_H
#define ROOFLINE_BENCH_HARNESS_H

#include <stdbool.h>

#define BENCH_MAX_SAMPLES 32
#define BENCH_MIN_TICKS 20 /* each sample spans at least this many timer ticks (STREAM rule) */

struct bench_timer {
    double resolution_s; /* clock_getres(CLOCK_MONOTONIC) */
    double tick_s;       /* smallest observed nonzero step between two readings */
    double call_s;       /* median cost of one clock_gettime call */
    double min_sample_s; /* max(BENCH_MIN_TICKS x max(resolution, tick), floor asked for) */
};

/* Seconds on CLOCK_MONOTONIC. */
double bench_now_s(void);
/* Measures the clock: resolution, observed tick, call cost; sets min_sample_s to the larger of
 * BENCH_MIN_TICKS ticks and `floor_s`. Returns 0, or -1 when the clock is unusable. */
int bench_timer_calibrate(struct bench_timer *t, double floor_s);

struct bench_stats {
    int n;
    double min, median, max, mean;
};

/* Statistics of x[0..n-1] (n <= BENCH_MAX_SAMPLES; the input is not modified). n = 0 gives NaNs. */
void bench_stats_compute(const double *x, int n, struct bench_stats *out);
/* The q-quantile (0..1) of x[0..n-1] with linear interpolation between order statistics
 * (Hyndman and Fan type 7, R's default); n <= 4096; NaN when n = 0. */
double bench_quantile(const double *x, int n, double q);

/* One repeated measurement. Times are per repetition of the kernel (elapsed / reps). */
struct bench_measure {
    long reps;    /* kernel repetitions per sample */
    int n_warmup; /* discarded runs (calibration runs count as warm-up) */
    int n_samples;
    double samples_s[BENCH_MAX_SAMPLES]; /* per repetition, in the order measured */
    struct bench_stats s;
};

/* A kernel run `reps` times in a row. */
typedef void (*bench_fn)(void *ctx, long reps);

struct bench_plan {
    int samples;         /* N, 1..BENCH_MAX_SAMPLES */
    double min_sample_s; /* each sample at least this long (>= timer min_sample_s) */
    long max_reps;       /* cap on the repetition count (0 = none) */
};

/* Calibrate the repetition count by doubling until one run lasts min_sample_s (those runs, at
 * least one, are the discarded warm-up), then take `samples` samples. Returns 0, or -1 on a bad
 * plan. */
int bench_measure_run(const struct bench_plan *plan, bench_fn fn, void *ctx,
                      struct bench_measure *out);

/* More samples of a measurement whose repetition count is already calibrated (m->reps > 0):
 * one warm-up repetition when m->reps > 1 (the caches and TLB are cold after the other cases
 * ran; with one repetition per sample, itself at least the minimum sample time, a warm-up
 * would double the cost for a cold start that is a small part of it), then
 * `samples` samples of m->reps repetitions appended to m->samples_s; the statistics cover every
 * sample. Returns 0, or -1 when m is not calibrated or the samples would not fit. */
int bench_measure_more(bench_fn fn, void *ctx, int samples, struct bench_measure *m);

/* ---- round-robin rounds (docs/bench.md#shared-noisy-hosts) ----
 * A case's samples are spread over R passes through all cases, so that every case sees the same
 * mix of a shared host's quiet and busy moments. */
#define BENCH_MAX_ROUNDS 8

/* The item visited at step i (0..n-1) of round `round` (0-based): forward in even rounds,
 * backward in odd ones (0 1 2, 2 1 0, 0 1 2, ...). */
int bench_round_order(int round, int n, int i);
/* The samples of `total` taken in round `round` of `rounds`: total / rounds each, the first
 * total % rounds rounds one more (7 over 3: 3 2 2; 2 over 3: 1 1 0). */
int bench_round_samples(int total, int rounds, int round);

/* What the rounds left for one case: the bandwidth probe of each round it was visited in
 * (bytes/s; 0 = not visited or no probe) and the round of each sample of its measurement. */
struct bench_rounds_log {
    int rounds; /* rounds the case was visited in */
    double probe[BENCH_MAX_ROUNDS];
    signed char sample_round[BENCH_MAX_SAMPLES];
};

/* The probe beside the sample validate compares with, the median: the probe of the round of
 * the middle sample (n odd), the mean of the two middle samples' rounds' probes (n even);
 * 0 without samples or probes. */
double bench_rounds_median_probe(const struct bench_measure *m, const struct bench_rounds_log *lg);

/* One case of a round-robin run. `open` (optional) prepares the case before each visit and
 * `close` (optional) follows each visit (`last`: the case's last visit); each returns 0 or -1. */
struct bench_rr_item {
    const struct bench_plan *plan; /* plan->samples in all, spread over the rounds */
    bench_fn fn;
    void *ctx;
    int (*open)(void *ctx, int round);
    int (*close)(void *ctx, int round, bool last);
    struct bench_measure *meas;
    struct bench_rounds_log *log;
};

/* Measures n items in `rounds` rounds (1..BENCH_MAX_ROUNDS). In each round every item with
 * samples due (bench_round_samples) is visited in bench_round_order: open, `probe(probe_ctx)`
 * (NULL: none), its samples of the round (the first visit calibrates the repetition count as
 * bench_measure_run does), close. Returns 0, or -1 on a bad plan or a failed open/close (the
 * items measured so far keep their samples). */
int bench_rounds_run(struct bench_rr_item *items, int n, int rounds, double (*probe)(void *),
                     void *probe_ctx);

/* A pool of worker threads; the calling thread works as thread 0. Threads are pinned to the
 * CPUs of the process's affinity mask in order where the system allows it. */
struct bench_pool;
typedef void (*bench_task_fn)(void *ctx, int tid, int nthreads);

/* Starts threads - 1 workers. Returns NULL on failure (threads < 1 or thread creation). The
 * caller frees with bench_pool_free, which also restores the caller's affinity. */
struct bench_pool *bench_pool_new(int threads, bool pin);
void bench_pool_free(struct bench_pool *p);
int bench_pool_threads(const struct bench_pool *p);
/* Number of threads actually pinned (0 when pinning was not asked for or not possible). */
int bench_pool_pinned(const struct bench_pool *p);
/* Run fn(ctx, tid, active) on threads 0..active-1 and wait for all (active <= threads). With
 * one active thread it is a plain call; otherwise a fork-join: the workers are released and
 * the caller waits for every one of them. */
void bench_pool_run(struct bench_pool *p, int active, bench_task_fn fn, void *ctx);
/* Fork-joins so far: the bench_pool_run calls that ran on more than one thread (each pays the
 * pool's synchronisation, docs/bench.md#fork-join). */
unsigned long bench_pool_launches(const struct bench_pool *p);

/* The half-open range [lo, hi) of items thread `tid` of `n` handles, boundaries rounded to
 * multiples of `align` items. */
void bench_split(long items, int tid, int n, long align, long *lo, long *hi);

#endif
