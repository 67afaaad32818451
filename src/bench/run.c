/* The benchmark run: the roofs' measurements (working-set sweep, STREAM, the weight stream and
 * its probe, FMA peaks, intensity sweep) and the whole run; the LLM kernels and the model are in
 * run_llm.c, the roofs derived from the measurements in roofs.c.
 * Each part allocates its data, times it with the harness, checks the results after timing (so
 * the timed code is known to have computed the right thing and nothing is optimised away) and
 * frees it before the next part, so at most one part's arrays are live. */
#include "bench/bench.h"

#include "bench/kern.h"
#include "bench/linalg.h"
#include "bench/llc.h"
#include "bench/run_int.h"
#include "util/version.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

void
bench_options_init(struct bench_options *o)
{
    memset(o, 0, sizeof *o);
    o->pin = true;
    o->parts = BENCH_PART_ALL;
    o->seed = BENCH_DEFAULT_SEED;
}

double
bench_rate_best(double work, const struct bench_measure *m)
{
    return m->n_samples > 0 && m->s.min > 0 ? work / m->s.min : 0;
}

double
bench_rate_median(double work, const struct bench_measure *m)
{
    return m->n_samples > 0 && m->s.median > 0 ? work / m->s.median : 0;
}

static const char *const KIND_NAMES[] = {"stream", "gemv", "gemm", "attention", "model"};
static const char *const PHASE_NAMES[] = {"kernel", "prefill", "decode"};

const char *
bench_case_kind_name(enum bench_case_kind k)
{
    return (unsigned)k < 5 ? KIND_NAMES[k] : "?";
}

const char *
bench_phase_name(enum bench_phase p)
{
    return (unsigned)p < 3 ? PHASE_NAMES[p] : "?";
}

int
bench_case_kind_parse(const char *s, enum bench_case_kind *out)
{
    for (int i = 0; i < 5; i++)
        if (strcmp(s, KIND_NAMES[i]) == 0) {
            *out = (enum bench_case_kind)i;
            return 0;
        }
    return -1;
}

int
bench_phase_parse(const char *s, enum bench_phase *out)
{
    for (int i = 0; i < 3; i++)
        if (strcmp(s, PHASE_NAMES[i]) == 0) {
            *out = (enum bench_phase)i;
            return 0;
        }
    return -1;
}

/* ---- run state ---- */

void
bench_run_progress(struct run *s, const char *fmt, ...)
{
    s->step++;
    if (!s->o->progress)
        return;
    char what[256];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(what, sizeof what, fmt, ap);
    va_end(ap);
    s->o->progress(s->o->progress_user, s->stage, what, s->step, s->total);
}

void
bench_run_check(struct run *s, bool ok, const char *fmt, ...)
{
    if (ok)
        return;
    if (s->r->validation_failures++ == 0) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(s->r->validation, sizeof s->r->validation, fmt, ap);
        va_end(ap);
    }
}

double
bench_run_sink_total(struct run *s)
{
    double t = 0;
    for (int i = 0; i < s->T; i++) {
        t += s->sink[i * SINK_STRIDE];
        s->sink[i * SINK_STRIDE] = 0;
    }
    return t;
}

void
bench_run_consume(struct run *s, double v)
{
    /* a checksum that is printed keeps every result live; non-finite values are a failure */
    if (isfinite(v))
        s->r->checksum += v;
    else
        bench_run_check(s, false, "a kernel produced a non-finite result");
}

/* Cheap deterministic fill for kernel inputs (speed does not depend on values; the model uses
 * the GSL generator): a multiplicative hash mapped to [-0.5, 0.5). */
float
bench_hash01(unsigned long i)
{
    unsigned long h = (i + 1) * 0x9E3779B97F4A7C15UL;
    return (float)((h >> 40) & 0xffffff) / 16777216.0f - 0.5f;
}

int
bench_run_add_case(struct run *s, struct bench_case **out)
{
    if (s->r->n_cases >= BENCH_MAX_CASES)
        return -1;
    *out = &s->r->cases[s->r->n_cases];
    memset(*out, 0, sizeof **out);
    (*out)->threads = s->T;
    return 0;
}

/* ---- working-set sweep ---- */

struct sweep_ctx {
    struct run *s;
    double *buf[MAX_THREADS];
    long n; /* doubles per thread */
    long reps;
};

static void
sweep_init_task(void *ctx, int tid, int n)
{
    (void)n;
    struct sweep_ctx *c = ctx;
    for (long i = 0; i < c->n; i++)
        c->buf[tid][i] = 1.0 / (double)(i % 64 + 1);
}

static void
sweep_task(void *ctx, int tid, int n)
{
    (void)n;
    struct sweep_ctx *c = ctx;
    double acc = 0;
    for (long r = 0; r < c->reps; r++)
        acc += c->s->kn->read(c->buf[tid], c->n);
    c->s->sink[tid * SINK_STRIDE] += acc;
}

static void
sweep_fn(void *ctx, long reps)
{
    struct sweep_ctx *c = ctx;
    c->reps = reps;
    bench_pool_run(c->s->pool, c->s->T, sweep_task, c);
}

static double
effective_cache(const struct bench_host *h, int level, int threads)
{
    for (int i = 0; i < h->n_caches; i++) {
        const struct bench_cache *c = &h->caches[i];
        if (c->level != level)
            continue;
        /* per thread: a shared cache is split among the threads that share it */
        int share = c->shared_cpus > 0 ? c->shared_cpus : level >= 3 ? threads : 1;
        if (share > threads)
            share = threads;
        return c->size_bytes / (share > 0 ? share : 1);
    }
    return 0;
}

static int
run_sweep(struct run *s, double max_total_bytes)
{
    struct bench_report *r = s->r;
    double per_thread_max = max_total_bytes / s->T;
    double step = s->o->quick ? 2.0 : sqrt(2.0);
    double sizes[BENCH_MAX_SWEEP];
    int n = 0;
    for (double b = 16384; b <= per_thread_max * 1.0001 && n < BENCH_MAX_SWEEP; b *= step)
        sizes[n++] = floor(b / 512) * 512;
    struct sweep_ctx c = {0};
    c.s = s;
    c.n = (long)(sizes[n - 1] / sizeof(double));
    for (int t = 0; t < s->T; t++) {
        c.buf[t] = bench_alloc((size_t)c.n * sizeof(double));
        if (!c.buf[t]) {
            for (int u = 0; u < t; u++)
                free(c.buf[u]);
            err_add(s->errs, NULL, 0, 0, ERR_ERROR, "out of memory for the working-set sweep");
            return -1;
        }
    }
    bench_pool_run(s->pool, s->T, sweep_init_task, &c);
    for (int i = 0; i < n; i++) {
        c.n = (long)(sizes[i] / sizeof(double));
        struct bench_sweep_point *p = &r->sweep[r->n_sweep];
        p->bytes_per_thread = sizes[i];
        p->threads = s->T;
        p->bytes = sizes[i] * s->T;
        if (bench_measure_run(&s->plan_sweep, sweep_fn, &c, &p->meas) != 0)
            break;
        r->n_sweep++;
        char sz[32];
        snprintf(sz, sizeof sz, sizes[i] >= MiB ? "%.0f MiB" : "%.0f KiB",
                 sizes[i] >= MiB ? sizes[i] / MiB : sizes[i] / 1024);
        bench_run_progress(s, "read sweep %s per thread, %d threads: %.1f GB/s", sz, s->T,
                           bench_rate_median(p->bytes, &p->meas) / 1e9);
    }
    bench_run_consume(s, bench_run_sink_total(s));
    for (int t = 0; t < s->T; t++)
        free(c.buf[t]);
    double cache[3];
    for (int l = 0; l < 3; l++)
        cache[l] = effective_cache(&r->host, l + 1, s->T);
    r->n_levels = bench_levels_from_sweep(r->sweep, r->n_sweep, cache, r->levels);
    return 0;
}

/* ---- STREAM ---- */

enum { ST_COPY, ST_SCALE, ST_ADD, ST_TRIAD, ST_READ, ST_COUNT };
static const char *const ST_NAMES[ST_COUNT] = {"copy", "scale", "add", "triad", "read"};
/* STREAM's byte and FLOP counts per element (no write-allocate traffic) */
static const double ST_BYTES[ST_COUNT] = {16, 16, 24, 24, 8};
static const double ST_FLOPS[ST_COUNT] = {0, 1, 1, 2, 1};
#define STREAM_SCALAR 3.0

struct stream_ctx {
    struct run *s;
    double *a, *b, *c;
    long n;
    int kernel, active;
    long reps;
};

static void
stream_init_task(void *ctx, int tid, int n)
{
    struct stream_ctx *c = ctx;
    long lo, hi;
    bench_split(c->n, tid, n, 64, &lo, &hi);
    for (long i = lo; i < hi; i++) {
        c->a[i] = 1.0;
        c->b[i] = 2.0;
        c->c[i] = 0.0;
    }
}

static void
stream_task(void *ctx, int tid, int n)
{
    struct stream_ctx *c = ctx;
    const struct bench_kernels *kn = c->s->kn;
    long lo, hi;
    bench_split(c->n, tid, n, 64, &lo, &hi);
    long len = hi - lo;
    double acc = 0;
    for (long r = 0; r < c->reps; r++) {
        switch (c->kernel) {
        case ST_COPY:
            kn->copy(c->c + lo, c->a + lo, len);
            break;
        case ST_SCALE:
            kn->scale(c->b + lo, c->c + lo, STREAM_SCALAR, len);
            break;
        case ST_ADD:
            kn->add(c->c + lo, c->a + lo, c->b + lo, len);
            break;
        case ST_TRIAD:
            kn->triad(c->a + lo, c->b + lo, c->c + lo, STREAM_SCALAR, len);
            break;
        default:
            acc += kn->read(c->a + lo, len);
            break;
        }
    }
    c->s->sink[tid * SINK_STRIDE] += acc;
}

static void
stream_fn(void *ctx, long reps)
{
    struct stream_ctx *c = ctx;
    c->reps = reps;
    bench_pool_run(c->s->pool, c->active, stream_task, c);
}

/* STREAM-style check: every kernel is idempotent given its inputs, so after copy, scale, add,
 * triad in that order from a = 1, b = 2, c = 0 the arrays hold closed-form values. */
static void
stream_expect(double *a, double *b, double *c, int rounds)
{
    for (int i = 0; i < rounds; i++) {
        *c = *a;
        *b = STREAM_SCALAR * *c;
        *c = *a + *b;
        *a = *b + STREAM_SCALAR * *c;
    }
}

static int
run_stream(struct run *s)
{
    struct bench_report *r = s->r;
    struct stream_ctx c = {0};
    c.s = s;
    c.n = (long)(r->array_bytes / sizeof(double)) / 512 * 512;
    c.a = bench_alloc((size_t)c.n * sizeof(double));
    c.b = bench_alloc((size_t)c.n * sizeof(double));
    c.c = bench_alloc((size_t)c.n * sizeof(double));
    if (!c.a || !c.b || !c.c) {
        free(c.a);
        free(c.b);
        free(c.c);
        err_add(s->errs, NULL, 0, 0, ERR_ERROR,
                "out of memory for the STREAM arrays (3 x %.0f MiB)", r->array_bytes / MiB);
        return -1;
    }
    /* first touch by the threads that use the data */
    bench_pool_run(s->pool, s->T, stream_init_task, &c);
    int counts[2] = {1, s->T};
    int n_counts = s->T > 1 ? 2 : 1;
    int rounds = 0;
    for (int ti = 0; ti < n_counts; ti++) {
        c.active = counts[ti];
        for (int k = 0; k < ST_COUNT; k++) {
            c.kernel = k;
            struct bench_stream *st = &r->stream[r->n_stream];
            snprintf(st->kernel, sizeof st->kernel, "%s", ST_NAMES[k]);
            st->threads = c.active;
            st->array_bytes = (double)c.n * sizeof(double);
            st->bytes = ST_BYTES[k] * (double)c.n;
            st->flops = ST_FLOPS[k] * (double)c.n;
            if (bench_measure_run(&s->plan_long, stream_fn, &c, &st->meas) != 0)
                return -1;
            r->n_stream++;
            struct bench_case *bc;
            if (c.active == s->T && bench_run_add_case(s, &bc) == 0) {
                /* all-thread kernels at DRAM size are cases validate predicts */
                snprintf(bc->id, sizeof bc->id, "stream_%s", ST_NAMES[k]);
                bc->kind = BENCH_CASE_STREAM;
                bc->phase = BENCH_PHASE_KERNEL;
                bc->rows = c.n;
                bc->flops = st->flops;
                bc->bytes = st->bytes;
                bc->meas = st->meas;
                r->n_cases++;
            }
            bench_run_progress(s, "STREAM %s, %d thread%s, 3 x %.0f MiB arrays: %.1f GB/s (best)",
                               ST_NAMES[k], c.active, c.active > 1 ? "s" : "",
                               st->array_bytes / MiB, bench_rate_best(st->bytes, &st->meas) / 1e9);
        }
        rounds++;
    }
    double ea = 1, eb = 2, ec = 0;
    stream_expect(&ea, &eb, &ec, rounds);
    long bad = 0;
    for (long i = 0; i < c.n; i++)
        bad += c.a[i] != ea || c.b[i] != eb || c.c[i] != ec;
    bench_run_check(s, bad == 0, "STREAM arrays differ from the expected values at %ld elements",
                    bad);
    bench_run_consume(s, bench_run_sink_total(s) + c.a[c.n / 2] + c.b[c.n / 3] + c.c[c.n - 1]);
    free(c.a);
    free(c.b);
    free(c.c);
    return 0;
}

/* ---- the weight stream ---- */

/* The decode's own access pattern as a bandwidth kernel: one row against a stack of distinct
 * packed k x n matrices (bench-small's MLP shape), each streamed panel by panel, read-only, on 1
 * and on all threads. A STREAM kernel is one long array; a decode step is dozens of separately
 * allocated matrices read in turn, and on a VM where pages are not alike their rate differs
 * (docs/bench.md#memory-roofs). 2 FLOPs per 4 bytes keep it far below the ridge. */

static void
wstream_task(void *ctx, int tid, int n)
{
    struct wstream_ctx *c = ctx;
    for (long r = 0; r < c->reps; r++)
        for (long i = 0; i < c->copies; i++) {
            long p0, p1;
            bench_split(c->w[i].panels, tid, n, 1, &p0, &p1);
            if (p1 > p0)
                bench_linear_part(c->s->kn, &c->w[i], c->x, c->w[i].k, 1, c->y + i * c->ldy, c->ldy,
                                  false, p0, p1, NULL);
        }
}

static void
wstream_fn(void *ctx, long reps)
{
    struct wstream_ctx *c = ctx;
    c->reps = reps;
    bench_pool_run(c->s->pool, c->active, wstream_task, c);
}

void
bench_run_fill_task(void *ctx, int tid, int n)
{
    struct bench_fill *c = ctx;
    for (long i = tid; i < c->copies; i += n) {
        size_t len = (size_t)c->w[i].panels * (size_t)c->w[i].k * BENCH_NR;
        for (size_t j = 0; j < len; j++)
            c->w[i].w[j] = bench_hash01((unsigned long)i * 7919UL + j) * 0.05f;
    }
}

static void wstream_release(struct wstream_ctx *c);

/* A stack of packed k x n matrices of at least `bytes` in all, filled; 0 or -1 (out of memory,
 * with what was made released). */
static int
wstream_init(struct run *s, struct wstream_ctx *c, long k, long n, double bytes)
{
    memset(c, 0, sizeof *c);
    c->s = s;
    c->active = s->T;
    double one = 4.0 * (double)k * (double)n;
    long copies = (long)ceil(bytes / one);
    c->copies = copies < 1 ? 1 : copies > 4096 ? 4096 : copies;
    c->ldy = bench_round_nr(n);
    c->w = calloc((size_t)c->copies, sizeof(struct bench_linear));
    c->x = bench_alloc((size_t)k * sizeof(float));
    c->y = bench_alloc((size_t)(c->copies * c->ldy) * sizeof(float));
    long made = 0;
    if (c->w && c->x && c->y)
        for (; made < c->copies; made++)
            if (bench_linear_init(&c->w[made], k, n) != 0)
                break;
    if (made < c->copies) {
        c->copies = made;
        wstream_release(c);
        return -1;
    }
    struct bench_fill f = {c->w, c->copies};
    bench_pool_run(s->pool, s->T, bench_run_fill_task, &f);
    for (long i = 0; i < k; i++)
        c->x[i] = bench_hash01((unsigned long)i + 4242UL);
    return 0;
}

static void
wstream_release(struct wstream_ctx *c)
{
    bench_linears_free(c->w, c->copies);
    free(c->x);
    free(c->y);
    memset(c, 0, sizeof *c);
}

static int
run_weight_stream(struct run *s, const struct bench_tfm_shape *sh)
{
    struct bench_report *r = s->r;
    long k = sh->hidden, n = sh->intermediate;
    struct wstream_ctx c;
    if (wstream_init(s, &c, k, n, r->array_bytes) != 0) {
        err_add(s->errs, NULL, 0, 0, ERR_ERROR, "out of memory for the weight stream");
        return -1;
    }
    int counts[2] = {1, s->T}, rc = 0;
    for (int ti = 0; ti < (s->T > 1 ? 2 : 1) && r->n_stream < BENCH_MAX_STREAM; ti++) {
        c.active = counts[ti];
        struct bench_stream *st = &r->stream[r->n_stream];
        snprintf(st->kernel, sizeof st->kernel, "weights");
        st->threads = c.active;
        st->array_bytes = 4.0 * (double)k * (double)n * (double)c.copies;
        st->bytes = st->array_bytes;
        st->flops = 2.0 * (double)k * (double)n * (double)c.copies;
        if ((rc = bench_measure_run(&s->plan_long, wstream_fn, &c, &st->meas)) != 0)
            break;
        r->n_stream++;
        struct bench_case *bc;
        if (c.active == s->T && bench_run_add_case(s, &bc) == 0) {
            *bc = (struct bench_case){.id = "stream_weights",
                                      .kind = BENCH_CASE_STREAM,
                                      .phase = BENCH_PHASE_KERNEL,
                                      .threads = s->T,
                                      .rows = 1,
                                      .cols = n,
                                      .inner = k,
                                      .copies = c.copies,
                                      .flops = st->flops,
                                      .bytes = st->bytes,
                                      .meas = st->meas};
            r->n_cases++;
        }
        bench_run_progress(s,
                           "weight stream (1 x %ld x %ld GEMV over %ld matrices, %.0f MiB), "
                           "%d thread%s: %.1f GB/s (best)",
                           k, n, c.copies, st->array_bytes / MiB, c.active, c.active > 1 ? "s" : "",
                           bench_rate_best(st->bytes, &st->meas) / 1e9);
    }
    /* one output of the last matrix against a double sum */
    double got = c.y[(c.copies - 1) * c.ldy + n - 1];
    bench_run_check(s, bench_linear_col_error(&c.w[c.copies - 1], c.x, n - 1, got) <= 1e-4,
                    "weight stream: output differs from the reference");
    bench_run_consume(s, got + c.y[0]);
    wstream_release(&c);
    return rc;
}

/* The bandwidth probe beside each LLM case (docs/bench.md#shared-noisy-hosts): the weight
 * stream on all threads over a stack of at least the STREAM array size, three short samples,
 * allocated once for the kernels and the model. */
int
bench_run_probe_init(struct run *s, const struct bench_tfm_shape *sh)
{
    s->probe = calloc(1, sizeof *s->probe);
    if (!s->probe || wstream_init(s, s->probe, sh->hidden, sh->intermediate, s->r->array_bytes)) {
        free(s->probe);
        s->probe = NULL;
        err_add(s->errs, NULL, 0, 0, ERR_ERROR, "out of memory for the bandwidth probe");
        return -1;
    }
    return 0;
}

void
bench_run_probe_release(struct run *s)
{
    if (s->probe)
        wstream_release(s->probe);
    free(s->probe);
    s->probe = NULL;
}

double
bench_run_probe_cb(void *run)
{
    return bench_run_probe(run);
}

double
bench_run_probe(struct run *s)
{
    if (!s->probe)
        return 0;
    struct bench_measure m;
    s->probe->active = s->T;
    /* the first probe calibrates the repetition count (warm-up, three samples); later ones,
     * taken once per case and round, keep it and take two samples (a warm-up repetition only
     * when a sample holds more than one), so that three rounds of probes cost about what one
     * probe per case did */
    if (s->probe_reps == 0) {
        struct bench_plan plan = {.samples = 3, .min_sample_s = s->r->timer.min_sample_s};
        if (bench_measure_run(&plan, wstream_fn, s->probe, &m) != 0)
            return 0;
        s->probe_reps = m.reps;
    } else {
        memset(&m, 0, sizeof m);
        m.reps = s->probe_reps;
        if (bench_measure_more(wstream_fn, s->probe, 2, &m) != 0)
            return 0;
    }
    return bench_rate_best(
        4.0 * (double)s->probe->w[0].k * (double)s->probe->w[0].n * (double)s->probe->copies, &m);
}

/* ---- the last-level cache the stream sees ---- */

/* One working set of the scan: the first `copies` matrices of the scan's stack. */
struct llc_item {
    struct wstream_ctx w;
};

/* Before each later visit, one untimed pass: the cache then holds what a pass over this working
 * set leaves in it, not what the previous (other) working set left (a pass over a larger prefix
 * after a smaller one would otherwise find the smaller one's matrices in the cache). The first
 * visit's calibration runs are its warm-up. */
static int
llc_open(void *ctx, int round)
{
    if (round > 0)
        wstream_fn(ctx, 1);
    return 0;
}

/* Cyclic passes of the weight stream over prefixes of one stack, 1, 2, 4, ... matrices up to
 * the whole stack (4x the LLC sysfs reports, at least the probe's stack, capped at 2 GiB and a
 * tenth of memory; 1 GiB with --quick), all threads, in round-robin rounds whose order
 * alternates; bench_llc_fit reads the cache the stream sees and what it retains off the
 * best times (docs/bench.md#the-llc-scan). The probe's
 * matrices are the stack's first ones; the others are allocated here and freed after. */
static int
run_llc(struct run *s)
{
    struct bench_report *r = s->r;
    struct wstream_ctx *p = s->probe;
    double one = 4.0 * (double)p->w[0].k * (double)p->w[0].n;
    double llc = r->host.llc_bytes > 0 ? r->host.llc_bytes : 32 * MiB;
    double cap = s->o->quick ? 1 * GiB : 2 * GiB;
    if (r->host.memory_bytes > 0 && cap > r->host.memory_bytes / 10)
        cap = r->host.memory_bytes / 10;
    long n0 = p->copies, n = (long)ceil(fmin(4 * llc, cap) / one);
    if (n < n0)
        n = n0;
    struct wstream_ctx big = *p;
    big.w = calloc((size_t)n, sizeof *big.w);
    big.y = bench_alloc((size_t)(n * p->ldy) * sizeof(float));
    long made = n0;
    if (big.w && big.y) {
        memcpy(big.w, p->w, (size_t)n0 * sizeof *big.w);
        for (; made < n; made++)
            if (bench_linear_init(&big.w[made], p->w[0].k, p->w[0].n) != 0)
                break;
    }
    int rc = -1;
    if (made < n || !big.w || !big.y) {
        err_add(s->errs, NULL, 0, 0, ERR_ERROR, "out of memory for the LLC scan (%.0f MiB)",
                (double)n * one / MiB);
        goto out;
    }
    struct bench_fill f = {big.w + n0, n - n0};
    bench_pool_run(s->pool, s->T, bench_run_fill_task, &f);
    struct llc_item items[BENCH_LLC_MAX_POINTS];
    struct bench_rounds_log logs[BENCH_LLC_MAX_POINTS];
    struct bench_rr_item rr[BENCH_LLC_MAX_POINTS];
    int m = 0;
    for (long c = 1; m < BENCH_LLC_MAX_POINTS; c = c * 2 < n ? c * 2 : n) {
        items[m].w = big;
        items[m].w.copies = c;
        items[m].w.active = s->T;
        rr[m] = (struct bench_rr_item){&s->plan_long, wstream_fn,      &items[m].w, llc_open,
                                       NULL,          &r->llc[m].meas, &logs[m]};
        r->llc[m].matrices = c;
        r->llc[m].bytes = one * (double)c;
        m++;
        if (c == n)
            break;
    }
    if (bench_rounds_run(rr, m, bench_run_rounds(s->o), NULL, NULL) != 0) {
        err_add(s->errs, NULL, 0, 0, ERR_ERROR, "cannot time the LLC scan");
        goto out;
    }
    r->n_llc = m;
    struct bench_llc_fit fit;
    bench_llc_fit_report(r, &fit);
    double b0 = r->llc[0].bytes, b1 = r->llc[m - 1].bytes;
    bench_run_progress(
        s,
        "LLC scan, weight stream over %.0f MB to %.0f MB (%d sizes, %d threads): "
        "best %.1f, largest %.1f GB/s; the stream sees %.0f MB of cache, retains %.0f MB of "
        "each pass beyond it (resolution %.0f MB)",
        b0 / 1e6, b1 / 1e6, m, s->T, fit.llc_bandwidth_bytes_per_s / 1e9,
        bench_rate_best(b1, &r->llc[m - 1].meas) / 1e9, fit.size_bytes / 1e6,
        fit.retained_bytes / 1e6, fit.resolution_bytes / 1e6);
    /* the whole stack's last pass: one output of its last matrix against a double sum */
    long cols = p->w[0].n;
    double got = big.y[(n - 1) * p->ldy + cols - 1];
    bench_run_check(s, bench_linear_col_error(&big.w[n - 1], p->x, cols - 1, got) <= 1e-4,
                    "LLC scan: output differs from the reference");
    bench_run_consume(s, got);
    rc = 0;
out:
    if (big.w)
        for (long i = n0; i < made; i++)
            bench_linear_release(&big.w[i]);
    free(big.w);
    free(big.y);
    return rc;
}

/* ---- the pool's fork-join ---- */

static void
empty_task(void *ctx, int tid, int n)
{
    (void)ctx;
    (void)tid;
    (void)n;
}

static void
launch_fn(void *ctx, long reps)
{
    struct run *s = ctx;
    for (long r = 0; r < reps; r++)
        bench_pool_run(s->pool, s->T, empty_task, NULL);
}

/* What every parallel kernel pays besides its work (docs/bench.md#fork-join): the round trip of
 * an empty kernel on all threads, back to back as a forward pass issues them (the workers
 * spinning between jobs). */
static int
run_launch(struct run *s)
{
    int rc = bench_measure_run(&s->plan, launch_fn, s, &s->r->launch);
    if (rc != 0) {
        err_add(s->errs, NULL, 0, 0, ERR_ERROR, "cannot time the fork-join round trip");
        return -1;
    }
    bench_run_progress(s,
                       "fork-join of an empty kernel on %d threads: %.2f us (best), %.2f us "
                       "(median)",
                       s->T, s->r->launch.s.min * 1e6, s->r->launch.s.median * 1e6);
    return 0;
}

/* ---- the overlap of core time and the stream ---- */

#define OVERLAP_ROWS 8
#define ATTN_CORE_CTX 256

struct overlap_ctx {
    struct run *s;
    long m;
    float *x, *y, *work;
};

static void
overlap_fn(void *ctx, long reps)
{
    struct overlap_ctx *c = ctx;
    struct wstream_ctx *w = c->s->probe;
    for (long r = 0; r < reps; r++)
        for (long i = 0; i < w->copies; i++)
            bench_linear_forward(c->s->pool, c->s->kn, &w->w[i], c->x, w->w[i].k, c->m, c->y,
                                 w->ldy, false, c->work);
}

/* Decode attention with its KV cache in L2 (256 positions: 1 MB for bench-small's 4 KV heads,
 * spread over the threads): the kernel's own time per byte of keys and values, which its
 * FLOPs at the GEMM rate understate (three query rows in the 4-row micro-kernel, a 128-deep
 * tile per 32 keys, the softmax) */
static int
run_attn_core(struct run *s, const struct bench_tfm_shape *sh)
{
    struct bench_attn c;
    int rc = -1;
    if (bench_run_attn_init(s, &c, sh->heads, sh->kv_heads, sh->head_dim, ATTN_CORE_CTX, 1) != 0 ||
        bench_measure_run(&s->plan, bench_run_attn_fn, &c, &s->r->attn_core) != 0)
        goto out;
    s->r->attn_core_bytes =
        2.0 * (double)(ATTN_CORE_CTX + 1) * (double)sh->kv_heads * (double)sh->head_dim * 4;
    bench_run_consume(s, c.out[0]);
    rc = 0;
out:
    bench_run_attn_release(&c);
    if (rc != 0)
        err_add(s->errs, NULL, 0, 0, ERR_ERROR, "out of memory for the attention core rate");
    return rc;
}

/* The probe's stack (separately allocated weight matrices, the STREAM array size in all)
 * through bench_linear_forward with 8 rows and with one, one job per matrix as a model does:
 * the 8-row pass has 7 more rows of core work per byte, so how much longer it takes than the
 * one-row pass says how much of the core's time the stream hides (bench_overlap_fraction).
 * Measured one row, 8 rows, one row again; the best samples count. */
static int
run_overlap(struct run *s, const struct bench_tfm_shape *sh)
{
    struct wstream_ctx *w = s->probe;
    long k = w->w[0].k;
    struct overlap_ctx c = {s, 1, bench_alloc((size_t)(OVERLAP_ROWS * k) * sizeof(float)),
                            bench_alloc((size_t)(OVERLAP_ROWS * w->ldy) * sizeof(float)),
                            bench_alloc((size_t)(BENCH_GEMM_WORK_FLOATS * s->T) * sizeof(float))};
    int rc = -1;
    struct bench_report *r = s->r;
    struct bench_measure again;
    if (!c.x || !c.y || !c.work)
        goto out;
    for (long i = 0; i < OVERLAP_ROWS * k; i++)
        c.x[i] = bench_hash01((unsigned long)i + 4242UL);
    if (bench_measure_run(&s->plan, overlap_fn, &c, &r->overlap_gemv) != 0)
        goto out;
    c.m = OVERLAP_ROWS;
    if (bench_measure_run(&s->plan, overlap_fn, &c, &r->overlap_gemm) != 0)
        goto out;
    c.m = 1;
    if (bench_measure_run(&s->plan, overlap_fn, &c, &again) != 0)
        goto out;
    if (again.s.min < r->overlap_gemv.s.min)
        r->overlap_gemv = again;
    r->overlap_rows = OVERLAP_ROWS;
    r->overlap_bytes = 4.0 * (double)k * (double)w->w[0].n * (double)w->copies;
    r->overlap_flops_row = 2.0 * (double)k * (double)w->w[0].n * (double)w->copies;
    bench_run_consume(s, c.y[0]);
    if (run_attn_core(s, sh) != 0) {
        rc = -2; /* run_attn_core said why */
        goto out;
    }
    bench_run_progress(s,
                       "overlap: the weight stack by 1 and by %d rows: %.1f and %.1f GB/s; "
                       "decode attention in L2: %.1f GB/s (best)",
                       OVERLAP_ROWS, bench_rate_best(r->overlap_bytes, &r->overlap_gemv) / 1e9,
                       bench_rate_best(r->overlap_bytes, &r->overlap_gemm) / 1e9,
                       bench_rate_best(r->attn_core_bytes, &r->attn_core) / 1e9);
    rc = 0;
out:
    free(c.x);
    free(c.y);
    free(c.work);
    if (rc == -1)
        err_add(s->errs, NULL, 0, 0, ERR_ERROR, "out of memory for the overlap measurement");
    return rc < 0 ? -1 : 0;
}

/* ---- peaks ---- */

#define PEAK_ITERS 2048L /* FMA rounds per repetition */

struct peak_ctx {
    struct run *s;
    enum dtype dt;
    int active;
    long reps;
};

static void
peak_task(void *ctx, int tid, int n)
{
    (void)n;
    struct peak_ctx *c = ctx;
    const struct bench_kernels *kn = c->s->kn;
    long iters = c->reps * PEAK_ITERS;
    double v;
    if (c->dt == DT_FP32)
        v = kn->fma_f32(iters, 0.9999999f, 1e-7f);
    else if (c->dt == DT_FP64)
        v = kn->fma_f64(iters, 0.999999999999, 1e-12);
    else
        v = kn->dp_bf16(iters);
    c->s->sink[tid * SINK_STRIDE] += v;
}

static void
peak_fn(void *ctx, long reps)
{
    struct peak_ctx *c = ctx;
    c->reps = reps;
    bench_pool_run(c->s->pool, c->active, peak_task, c);
}

static int
run_peaks(struct run *s, int round)
{
    struct bench_report *r = s->r;
    const struct bench_kernels *kn = s->kn;
    enum dtype dts[3] = {DT_FP64, DT_FP32, DT_BF16};
    int counts[2] = {1, s->T};
    int n_counts = s->T > 1 ? 2 : 1;
    for (int d = 0; d < 3; d++) {
        if (dts[d] == DT_BF16 && (!kn->dp_bf16 || !bench_cpu_has_bf16()))
            continue;
        double lanes = kn->vector_bytes / (dts[d] == DT_FP64 ? 8.0 : 4.0);
        double per_round = kn->fma_acc * lanes * (dts[d] == DT_BF16 ? 4.0 : 2.0);
        for (int ti = 0; ti < n_counts; ti++) {
            struct peak_ctx c = {s, dts[d], counts[ti], 0};
            if (r->n_peaks >= BENCH_MAX_PEAKS)
                return 0;
            struct bench_peak *p = &r->peaks[r->n_peaks];
            p->round = round;
            p->dt = dts[d];
            p->threads = counts[ti];
            p->flops = per_round * PEAK_ITERS * counts[ti];
            if (bench_measure_run(&s->plan, peak_fn, &c, &p->meas) != 0)
                return -1;
            r->n_peaks++;
            bench_run_progress(
                s, "peak %s (%s FMA, %d accumulators), %d thread%s%s: %.1f GFLOP/s (best)",
                dtype_name(dts[d]), kn->name, kn->fma_acc, counts[ti], counts[ti] > 1 ? "s" : "",
                round > 1 ? ", again" : "", bench_rate_best(p->flops, &p->meas) / 1e9);
        }
    }
    bench_run_consume(s, bench_run_sink_total(s));
    return 0;
}

/* ---- arithmetic-intensity sweep (Empirical Roofline Toolkit) ---- */

struct ert_ctx {
    struct run *s;
    double *a;
    long n;
    int fmas;
    long reps;
};

static void
ert_init_task(void *ctx, int tid, int n)
{
    struct ert_ctx *c = ctx;
    long lo, hi;
    bench_split(c->n, tid, n, 64, &lo, &hi);
    for (long i = lo; i < hi; i++)
        c->a[i] = 1.0 + (double)(i % 7);
}

static void
ert_task(void *ctx, int tid, int n)
{
    struct ert_ctx *c = ctx;
    long lo, hi;
    bench_split(c->n, tid, n, 64, &lo, &hi);
    for (long r = 0; r < c->reps; r++)
        c->s->kn->ert(c->a + lo, hi - lo, c->fmas, 0.5, 0.5);
}

static void
ert_fn(void *ctx, long reps)
{
    struct ert_ctx *c = ctx;
    c->reps = reps;
    bench_pool_run(c->s->pool, c->s->T, ert_task, c);
}

static int
run_ai(struct run *s)
{
    struct bench_report *r = s->r;
    struct ert_ctx c = {0};
    c.s = s;
    c.n = (long)(r->ai_array_bytes / sizeof(double)) / 512 * 512;
    c.a = bench_alloc((size_t)c.n * sizeof(double));
    if (!c.a) {
        err_add(s->errs, NULL, 0, 0, ERR_ERROR, "out of memory for the intensity sweep");
        return -1;
    }
    bench_pool_run(s->pool, s->T, ert_init_task, &c);
    /* 1/16 FLOP/B (one add per 16 B) to 64 FLOP/B (512 FMAs) */
    int fmas_full[] = {0, 1, 2, 4, 8, 16, 32, 64, 128, 256, 512};
    int fmas_quick[] = {0, 2, 8, 32, 128, 512};
    const int *fm = s->o->quick ? fmas_quick : fmas_full;
    int nf = s->o->quick ? 6 : 11;
    struct bench_roof_point pts[BENCH_MAX_AI];
    for (int i = 0; i < nf; i++) {
        c.fmas = fm[i];
        struct bench_ai_point *p = &r->ai[r->n_ai];
        p->fmas = fm[i];
        p->bytes = 16.0 * (double)c.n;
        p->flops = (fm[i] == 0 ? 1.0 : 2.0 * fm[i]) * (double)c.n;
        p->intensity_flop_per_byte = p->flops / p->bytes;
        if (bench_measure_run(&s->plan_long, ert_fn, &c, &p->meas) != 0)
            break;
        pts[r->n_ai].intensity_flop_per_byte = p->intensity_flop_per_byte;
        pts[r->n_ai].flops_per_s = bench_rate_best(p->flops, &p->meas);
        r->n_ai++;
        bench_run_progress(
            s, "intensity %g FLOP/B (%d FMA per element), %d threads: %.1f GFLOP/s (best)",
            p->intensity_flop_per_byte, fm[i], s->T, pts[r->n_ai - 1].flops_per_s / 1e9);
    }
    long bad = 0;
    for (long i = 0; i < c.n; i += 997)
        bad += !isfinite(c.a[i]);
    bench_run_check(s, bad == 0, "intensity sweep produced non-finite values");
    bench_run_consume(s, c.a[0] + c.a[c.n - 1]);
    free(c.a);
    /* fitted after measuring, never inside the timed loop */
    if (r->n_ai >= 2)
        r->have_fit = bench_fit_roofline(pts, r->n_ai, &r->fit) == 0;
    return 0;
}

/* ---- the whole run ---- */

static int
count_steps(const struct run *s, double sweep_bytes)
{
    const struct bench_options *o = s->o;
    int T = s->T;
    int n = 0;
    if (o->parts & BENCH_PART_SWEEP)
        n += (int)ceil(log(sweep_bytes / T / 16384) / log(o->quick ? 2.0 : sqrt(2.0))) + 1;
    if (o->parts & BENCH_PART_STREAM)
        n += (ST_COUNT + 1) * (T > 1 ? 2 : 1);
    if (o->parts & BENCH_PART_PEAK)
        n += (3 * (T > 1 ? 2 : 1) + 1) * (o->parts != BENCH_PART_PEAK ? 2 : 1);
    if (o->parts & BENCH_PART_AI)
        n += o->quick ? 6 : 11;
    n += bench_run_llm_steps(s, (o->parts & BENCH_PART_KERNELS) != 0,
                             (o->parts & BENCH_PART_MODEL) && o->model);
    if (T > 1 && (o->parts & (BENCH_PART_KERNELS | BENCH_PART_MODEL)))
        n++; /* the fork-join round trip */
    if (o->parts & (BENCH_PART_KERNELS | BENCH_PART_MODEL))
        n += 2; /* the LLC scan, the overlap */
    return n;
}

int
bench_run(const struct bench_options *o, struct bench_report *r, struct err_list *errs)
{
    double t_start = bench_now_s();
    memset(r, 0, sizeof *r);
    r->opt = *o;
    snprintf(r->validation, sizeof r->validation, "ok");
    snprintf(r->version, sizeof r->version, "%s", roofline_version());
    time_t now = time(NULL);
    struct tm tmv;
    if (gmtime_r(&now, &tmv))
        strftime(r->date, sizeof r->date, "%Y-%m-%dT%H:%M:%SZ", &tmv);
    bench_host_probe(&r->host);
    struct run s;
    memset(&s, 0, sizeof s);
    s.o = o;
    s.r = r;
    s.errs = errs;
    s.kn = bench_kernels_for(bench_isa_best());
    snprintf(r->isa, sizeof r->isa, "%s", s.kn->name);
    snprintf(r->isa_target, sizeof r->isa_target, "%s", s.kn->target);
    snprintf(r->gemm_impl, sizeof r->gemm_impl,
             "roofline's packed GEMM (%s, %d x %d micro-kernel, KC %d, MC %d); no BLAS", s.kn->name,
             s.kn->gemm_mr, BENCH_NR, BENCH_KC, BENCH_MC);
    s.T = o->threads > 0 ? o->threads : r->host.allowed_cpus;
    if (s.T < 1 || s.T > MAX_THREADS) {
        err_add(errs, NULL, 0, 0, ERR_ERROR, "threads must be between 1 and %d, got %d",
                MAX_THREADS, s.T);
        return -1;
    }
    if (bench_timer_calibrate(&r->timer, o->quick ? 5e-3 : 10e-3) != 0) {
        err_add(errs, NULL, 0, 0, ERR_ERROR, "CLOCK_MONOTONIC is unusable");
        return -1;
    }
    s.pool = bench_pool_new(s.T, o->pin);
    if (!s.pool) {
        err_add(errs, NULL, 0, 0, ERR_ERROR, "cannot start %d threads", s.T);
        return -1;
    }
    r->threads = s.T;
    r->pinned = bench_pool_pinned(s.pool);
    s.plan.samples = o->quick ? 3 : 7;
    s.plan.min_sample_s = o->quick ? 10e-3 : 20e-3;
    s.plan_long = s.plan;
    s.plan_long.samples = o->quick ? 3 : 5;
    s.plan_sweep = s.plan;
    s.plan_sweep.samples = o->quick ? 3 : 5;
    s.plan_sweep.min_sample_s = r->timer.min_sample_s;
    for (struct bench_plan *p = &s.plan; p; p = p == &s.plan ? &s.plan_long : NULL)
        if (p->min_sample_s < r->timer.min_sample_s)
            p->min_sample_s = r->timer.min_sample_s;
    /* STREAM rule: each array at least 4x the last-level cache; capped at 2 GiB and a tenth of
     * memory each (256 MiB in --quick, where the rule may then not hold: array_rule_met says) */
    double llc = r->host.llc_bytes > 0 ? r->host.llc_bytes : 32 * MiB;
    double want = fmax(4 * llc, 64 * MiB);
    double cap = o->quick ? 256 * MiB : 2 * GiB;
    if (r->host.memory_bytes > 0 && cap > r->host.memory_bytes / 10)
        cap = r->host.memory_bytes / 10;
    r->array_bytes = floor(fmin(want, cap) / (4096.0 * 64)) * 4096.0 * 64;
    r->array_rule_met = r->array_bytes >= 4 * llc;
    r->ai_array_bytes =
        o->quick ? fmin(r->array_bytes, 128 * MiB) : fmin(r->array_bytes, 512 * MiB);
    struct bench_tfm_shape sh = {6, 1536, 12, 4, 128, 4096, 32000};
    if (o->model) {
        const char *why;
        struct bench_tfm_shape ms;
        if (bench_tfm_shape_of(o->model, &ms, &why) != 0) {
            err_add(errs, o->model->path, 0, 0, ERR_ERROR, "%s", why);
            bench_pool_free(s.pool);
            return -1;
        }
        sh = ms;
        snprintf(r->model_id, sizeof r->model_id, "%s", o->model->id);
        r->model_params = bench_tfm_params(&sh);
    }
    s.total = count_steps(&s, r->array_bytes);
    int rc = 0;
    if (rc == 0 && (o->parts & BENCH_PART_SWEEP)) {
        s.stage = "caches";
        rc = run_sweep(&s, r->array_bytes);
    }
    if (rc == 0 && (o->parts & BENCH_PART_STREAM)) {
        s.stage = "memory";
        rc = run_stream(&s);
        if (rc == 0)
            rc = run_weight_stream(&s, &sh);
    }
    if (rc == 0 && (o->parts & BENCH_PART_PEAK)) {
        s.stage = "compute";
        rc = run_peaks(&s, 1);
        if (rc == 0)
            rc = bench_run_gemm_calibration(&s, 1);
    }
    if (rc == 0 && (o->parts & BENCH_PART_AI)) {
        s.stage = "intensity";
        rc = run_ai(&s);
    }
    if (rc == 0 && (o->parts & (BENCH_PART_KERNELS | BENCH_PART_MODEL)))
        rc = bench_run_probe_init(&s, &sh);
    if (rc == 0 && (o->parts & (BENCH_PART_KERNELS | BENCH_PART_MODEL))) {
        s.stage = "memory";
        rc = run_llc(&s);
    }
    if (rc == 0 && s.T > 1 && (o->parts & (BENCH_PART_KERNELS | BENCH_PART_MODEL))) {
        s.stage = "kernels";
        rc = run_launch(&s);
    }
    if (rc == 0 && (o->parts & (BENCH_PART_KERNELS | BENCH_PART_MODEL))) {
        s.stage = "kernels";
        rc = run_overlap(&s, &sh);
    }
    if (rc == 0 && (o->parts & BENCH_PART_KERNELS || ((o->parts & BENCH_PART_MODEL) && o->model)))
        rc = bench_run_llm(&s, &sh, (o->parts & BENCH_PART_KERNELS) != 0,
                           (o->parts & BENCH_PART_MODEL) && o->model);
    /* the peaks once more at the end: a roof is a ceiling, and on a shared machine a
     * neighbour can hold a core for a whole round of samples (the best of both is kept) */
    if (rc == 0 && (o->parts & BENCH_PART_PEAK) && o->parts != BENCH_PART_PEAK) {
        s.stage = "compute";
        rc = run_peaks(&s, 2);
        if (rc == 0)
            rc = bench_run_gemm_calibration(&s, 2);
    }
    bench_run_probe_release(&s);
    bench_pool_free(s.pool);
    bench_derive_roofs(r);
    r->elapsed_s = bench_now_s() - t_start;
    return rc;
}
