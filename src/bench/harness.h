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
