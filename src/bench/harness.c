/* Timer calibration, repeated measurement with statistics, and the pinned thread pool of the
 * host benchmark. Pinning needs the GNU affinity calls, hence _GNU_SOURCE in this file only. */
#define _GNU_SOURCE
#include "bench/harness.h"

#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

double
bench_now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static int
cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

int
bench_timer_calibrate(struct bench_timer *t, double floor_s)
{
    memset(t, 0, sizeof *t);
    struct timespec res;
    if (clock_getres(CLOCK_MONOTONIC, &res) != 0)
        return -1;
    t->resolution_s = (double)res.tv_sec + 1e-9 * (double)res.tv_nsec;
    /* the observed tick: smallest nonzero difference between consecutive readings */
    double tick = INFINITY;
    double calls[64];
    for (int i = 0; i < 64; i++) {
        double a = bench_now_s(), b;
        long spins = 0;
        do {
            b = bench_now_s();
        } while (b == a && ++spins < 10000000L);
        if (b > a && b - a < tick)
            tick = b - a;
        double c0 = bench_now_s();
        for (int j = 0; j < 16; j++)
            (void)bench_now_s();
        calls[i] = (bench_now_s() - c0) / 17.0;
    }
    if (!isfinite(tick))
        return -1;
    qsort(calls, 64, sizeof calls[0], cmp_double);
    t->tick_s = tick;
    t->call_s = 0.5 * (calls[31] + calls[32]);
    double unit = t->resolution_s > t->tick_s ? t->resolution_s : t->tick_s;
    t->min_sample_s = BENCH_MIN_TICKS * unit;
    if (floor_s > t->min_sample_s)
        t->min_sample_s = floor_s;
    return 0;
}

void
bench_stats_compute(const double *x, int n, struct bench_stats *out)
{
    out->n = n;
    if (n <= 0 || n > BENCH_MAX_SAMPLES) {
        out->min = out->median = out->max = out->mean = NAN;
        return;
    }
    double s[BENCH_MAX_SAMPLES];
    memcpy(s, x, (size_t)n * sizeof *s);
    qsort(s, (size_t)n, sizeof s[0], cmp_double);
    double sum = 0;
    for (int i = 0; i < n; i++)
        sum += s[i];
    out->min = s[0];
    out->max = s[n - 1];
    out->median = n % 2 ? s[n / 2] : 0.5 * (s[n / 2 - 1] + s[n / 2]);
    out->mean = sum / n;
}

double
bench_quantile(const double *x, int n, double q)
{
    if (n <= 0 || n > 4096)
        return NAN;
    double *s = malloc((size_t)n * sizeof *s);
    if (!s)
        return NAN;
    memcpy(s, x, (size_t)n * sizeof *s);
    qsort(s, (size_t)n, sizeof s[0], cmp_double);
    double h = (n - 1) * (q < 0 ? 0 : q > 1 ? 1 : q);
    int lo = (int)floor(h);
    int hi = lo + 1 < n ? lo + 1 : lo;
    double v = s[lo] + (h - lo) * (s[hi] - s[lo]);
    free(s);
    return v;
}

static double
timed(bench_fn fn, void *ctx, long reps)
{
    double t0 = bench_now_s();
    fn(ctx, reps);
    return bench_now_s() - t0;
}

int
bench_measure_run(const struct bench_plan *plan, bench_fn fn, void *ctx, struct bench_measure *out)
{
    memset(out, 0, sizeof *out);
    if (plan->samples < 1 || plan->samples > BENCH_MAX_SAMPLES || !(plan->min_sample_s > 0))
        return -1;
    long reps = 1;
    /* calibration: each run is also a discarded warm-up; grow the count from the last run's
     * time, at most 16x per step so that a noisy first run cannot overshoot wildly */
    for (int guard = 0; guard < 64; guard++) {
        double t = timed(fn, ctx, reps);
        out->n_warmup++;
        if (t >= plan->min_sample_s || (plan->max_reps > 0 && reps >= plan->max_reps))
            break;
        double want = t > 0 ? 1.25 * plan->min_sample_s / t * (double)reps : 16.0 * (double)reps;
        long next = want > 16.0 * (double)reps ? 16 * reps : (long)ceil(want);
        if (next <= reps)
            next = reps + 1;
        if (plan->max_reps > 0 && next > plan->max_reps)
            next = plan->max_reps;
        reps = next;
    }
    out->reps = reps;
    for (int i = 0; i < plan->samples; i++)
        out->samples_s[i] = timed(fn, ctx, reps) / (double)reps;
    out->n_samples = plan->samples;
    bench_stats_compute(out->samples_s, out->n_samples, &out->s);
    return 0;
}

int
bench_measure_more(bench_fn fn, void *ctx, int samples, struct bench_measure *m)
{
    if (m->reps < 1 || samples < 0 || m->n_samples + samples > BENCH_MAX_SAMPLES)
        return -1;
    if (samples == 0)
        return 0;
    if (m->reps > 1) { /* a repetition of a one-repetition sample is the minimum sample long */
        (void)timed(fn, ctx, 1);
        m->n_warmup++;
    }
    for (int i = 0; i < samples; i++)
        m->samples_s[m->n_samples++] = timed(fn, ctx, m->reps) / (double)m->reps;
    bench_stats_compute(m->samples_s, m->n_samples, &m->s);
    return 0;
}

int
bench_round_order(int round, int n, int i)
{
    return round % 2 == 0 ? i : n - 1 - i;
}

int
bench_round_samples(int total, int rounds, int round)
{
    if (rounds < 1 || round < 0 || round >= rounds || total < 1)
        return 0;
    return total / rounds + (round < total % rounds ? 1 : 0);
}

/* the round of the k-th smallest sample */
static int
round_of_rank(const struct bench_measure *m, const struct bench_rounds_log *lg, int k)
{
    int idx[BENCH_MAX_SAMPLES];
    int n = m->n_samples;
    for (int i = 0; i < n; i++)
        idx[i] = i;
    for (int i = 1; i < n; i++) /* insertion sort by time, stable: ties keep measuring order */
        for (int j = i; j > 0 && m->samples_s[idx[j]] < m->samples_s[idx[j - 1]]; j--) {
            int t = idx[j];
            idx[j] = idx[j - 1];
            idx[j - 1] = t;
        }
    return lg->sample_round[idx[k]];
}

double
bench_rounds_median_probe(const struct bench_measure *m, const struct bench_rounds_log *lg)
{
    int n = m->n_samples;
    if (n < 1 || n > BENCH_MAX_SAMPLES)
        return 0;
    int a = round_of_rank(m, lg, (n - 1) / 2), b = round_of_rank(m, lg, n / 2);
    if (a < 0 || b < 0 || a >= BENCH_MAX_ROUNDS || b >= BENCH_MAX_ROUNDS)
        return 0;
    return 0.5 * (lg->probe[a] + lg->probe[b]);
}

int
bench_rounds_run(struct bench_rr_item *items, int n, int rounds, double (*probe)(void *),
                 void *probe_ctx)
{
    if (rounds < 1 || rounds > BENCH_MAX_ROUNDS)
        return -1;
    for (int i = 0; i < n; i++) {
        const struct bench_plan *p = items[i].plan;
        if (p->samples < 1 || p->samples > BENCH_MAX_SAMPLES || !(p->min_sample_s > 0))
            return -1;
        memset(items[i].meas, 0, sizeof *items[i].meas);
        memset(items[i].log, 0, sizeof *items[i].log);
        memset(items[i].log->sample_round, -1, sizeof items[i].log->sample_round);
    }
    for (int r = 0; r < rounds; r++)
        for (int j = 0; j < n; j++) {
            struct bench_rr_item *it = &items[bench_round_order(r, n, j)];
            int k = bench_round_samples(it->plan->samples, rounds, r);
            if (k == 0)
                continue;
            if (it->open && it->open(it->ctx, r) != 0)
                return -1;
            it->log->probe[r] = probe ? probe(probe_ctx) : 0;
            it->log->rounds++;
            int before = it->meas->n_samples;
            int rc;
            if (r == 0) {
                struct bench_plan p = *it->plan;
                p.samples = k;
                rc = bench_measure_run(&p, it->fn, it->ctx, it->meas);
            } else {
                rc = bench_measure_more(it->fn, it->ctx, k, it->meas);
            }
            for (int q = before; q < it->meas->n_samples; q++)
                it->log->sample_round[q] = (signed char)r;
            bool last = true;
            for (int q = r + 1; q < rounds; q++)
                if (bench_round_samples(it->plan->samples, rounds, q) > 0)
                    last = false;
            if (it->close && it->close(it->ctx, r, last) != 0)
                rc = -1;
            if (rc != 0)
                return -1;
        }
    return 0;
}

void
bench_split(long items, int tid, int n, long align, long *lo, long *hi)
{
    if (align < 1)
        align = 1;
    long units = (items + align - 1) / align;
    long a = units * tid / n, b = units * (tid + 1) / n;
    *lo = a * align < items ? a * align : items;
    *hi = b * align < items ? b * align : items;
}

/* ---- thread pool ---- */

struct worker {
    struct bench_pool *pool;
    int tid;
    pthread_t th;
};

struct bench_pool {
    int n;
    struct worker *w;
    int n_started;
    int pinned;
    bool restore_caller;
    cpu_set_t caller_mask;
    /* the current job: written by the caller before bumping `gen` (release) */
    bench_task_fn fn;
    void *ctx;
    int active;
    bool quit;
    atomic_ulong gen;
    atomic_int pending;
    unsigned long launches; /* jobs handed to the workers (bench_pool_launches) */
    pthread_mutex_t mu;
    pthread_cond_t cv;
};

/* Workers spin for this long after a job before sleeping on the condition variable: the forward
 * pass of a model issues a job every few microseconds, and a futex wake-up would cost more. */
#define POOL_SPIN_S 2e-3

static void *
worker_main(void *arg)
{
    struct worker *w = arg;
    struct bench_pool *p = w->pool;
    unsigned long seen = 0;
    for (;;) {
        unsigned long g = atomic_load_explicit(&p->gen, memory_order_acquire);
        if (g == seen) {
            double t0 = bench_now_s();
            long spins = 0;
            while ((g = atomic_load_explicit(&p->gen, memory_order_acquire)) == seen) {
                if (++spins % 1024 == 0 && bench_now_s() - t0 > POOL_SPIN_S) {
                    pthread_mutex_lock(&p->mu);
                    while ((g = atomic_load_explicit(&p->gen, memory_order_acquire)) == seen)
                        pthread_cond_wait(&p->cv, &p->mu);
                    pthread_mutex_unlock(&p->mu);
                    break;
                }
            }
        }
        seen = g;
        if (p->quit)
            break;
        if (w->tid < p->active)
            p->fn(p->ctx, w->tid, p->active);
        atomic_fetch_sub_explicit(&p->pending, 1, memory_order_release);
    }
    return NULL;
}

static int
pin_to(pthread_t th, int cpu)
{
    cpu_set_t set;
    CPU_ZERO(&set);
    CPU_SET(cpu, &set);
    return pthread_setaffinity_np(th, sizeof set, &set);
}

struct bench_pool *
bench_pool_new(int threads, bool pin)
{
    if (threads < 1)
        return NULL;
    struct bench_pool *p = calloc(1, sizeof *p);
    if (!p)
        return NULL;
    p->n = threads;
    p->w = calloc((size_t)threads, sizeof *p->w);
    if (!p->w || pthread_mutex_init(&p->mu, NULL) != 0) {
        free(p->w);
        free(p);
        return NULL;
    }
    if (pthread_cond_init(&p->cv, NULL) != 0) {
        pthread_mutex_destroy(&p->mu);
        free(p->w);
        free(p);
        return NULL;
    }
    atomic_init(&p->gen, 0);
    atomic_init(&p->pending, 0);
    /* the CPUs we may run on, in order */
    int cpus[CPU_SETSIZE];
    int n_cpus = 0;
    if (pin && sched_getaffinity(0, sizeof p->caller_mask, &p->caller_mask) == 0) {
        p->restore_caller = true;
        for (int c = 0; c < CPU_SETSIZE; c++)
            if (CPU_ISSET(c, &p->caller_mask))
                cpus[n_cpus++] = c;
    }
    for (int i = 0; i < threads; i++) {
        p->w[i].pool = p;
        p->w[i].tid = i;
    }
    if (n_cpus > 0 && pin_to(pthread_self(), cpus[0]) == 0)
        p->pinned++;
    for (int i = 1; i < threads; i++) {
        if (pthread_create(&p->w[i].th, NULL, worker_main, &p->w[i]) != 0) {
            bench_pool_free(p);
            return NULL;
        }
        p->n_started++;
        if (n_cpus > 0 && pin_to(p->w[i].th, cpus[i % n_cpus]) == 0)
            p->pinned++;
    }
    return p;
}

void
bench_pool_free(struct bench_pool *p)
{
    if (!p)
        return;
    pthread_mutex_lock(&p->mu);
    p->quit = true;
    atomic_fetch_add_explicit(&p->gen, 1, memory_order_release);
    pthread_cond_broadcast(&p->cv);
    pthread_mutex_unlock(&p->mu);
    for (int i = 1; i <= p->n_started; i++)
        pthread_join(p->w[i].th, NULL);
    if (p->restore_caller)
        pthread_setaffinity_np(pthread_self(), sizeof p->caller_mask, &p->caller_mask);
    pthread_cond_destroy(&p->cv);
    pthread_mutex_destroy(&p->mu);
    free(p->w);
    free(p);
}

int
bench_pool_threads(const struct bench_pool *p)
{
    return p->n;
}

int
bench_pool_pinned(const struct bench_pool *p)
{
    return p->pinned;
}

unsigned long
bench_pool_launches(const struct bench_pool *p)
{
    return p->launches;
}

void
bench_pool_run(struct bench_pool *p, int active, bench_task_fn fn, void *ctx)
{
    if (active > p->n)
        active = p->n;
    if (active <= 1 || p->n == 1) {
        fn(ctx, 0, 1);
        return;
    }
    p->launches++;
    p->fn = fn;
    p->ctx = ctx;
    p->active = active;
    atomic_store_explicit(&p->pending, p->n - 1, memory_order_relaxed);
    pthread_mutex_lock(&p->mu);
    atomic_fetch_add_explicit(&p->gen, 1, memory_order_release);
    pthread_cond_broadcast(&p->cv);
    pthread_mutex_unlock(&p->mu);
    fn(ctx, 0, active);
    long spins = 0;
    while (atomic_load_explicit(&p->pending, memory_order_acquire) > 0)
        if (++spins % 4096 == 0)
            sched_yield();
}
