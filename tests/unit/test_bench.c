/* The host benchmark's logic on tiny sizes: timer and statistics, the pool, every kernel of
 * every instruction set this CPU runs against naive references, the transformer against its
 * reference forward, the roofline fit on synthetic data, plateau detection, the JSON, points and
 * profile renderings read back, and the host predictions. No speed is asserted anywhere. */
#include "test.h"

#include "bench/bench.h"
#include "bench/fit.h"
#include "bench/harness.h"
#include "bench/kern.h"
#include "bench/linalg.h"
#include "bench/llc.h"
#include "bench/predict.h"
#include "bench/report.h"
#include "bench/tfm.h"
#include "core/roof.h"
#include "io/profiles.h"
#include "io/ytree.h"
#include "render/charts.h"
#include "util/array.h"

#include <stdint.h>
#include <stdlib.h>
#include <unistd.h>

/* ---- harness ---- */

TEST(bench_timer_calibration)
{
    struct bench_timer t;
    CHECK(bench_timer_calibrate(&t, 0) == 0);
    CHECK(t.resolution_s > 0 && t.resolution_s < 1e-2);
    CHECK(t.tick_s > 0 && t.tick_s < 1e-2);
    CHECK(t.call_s >= 0);
    double unit = t.resolution_s > t.tick_s ? t.resolution_s : t.tick_s;
    CHECK_NEAR(t.min_sample_s, BENCH_MIN_TICKS * unit, 1e-12);
    CHECK(bench_timer_calibrate(&t, 0.5) == 0);
    CHECK_NEAR(t.min_sample_s, 0.5, 0);
}

TEST(bench_stats_and_quantiles)
{
    double x[] = {3, 1, 2, 5, 4};
    struct bench_stats s;
    bench_stats_compute(x, 5, &s);
    CHECK(s.n == 5);
    CHECK_NEAR(s.min, 1, 0);
    CHECK_NEAR(s.median, 3, 0);
    CHECK_NEAR(s.max, 5, 0);
    CHECK_NEAR(s.mean, 3, 0);
    CHECK_NEAR(x[0], 3, 0); /* input untouched */
    bench_stats_compute(x, 4, &s);
    CHECK_NEAR(s.median, 2.5, 0);
    bench_stats_compute(x, 0, &s);
    CHECK(isnan(s.median));
    double y[10];
    for (int i = 0; i < 10; i++)
        y[i] = 10 - i;
    /* type 7: h = (n - 1) q = 8.1 -> 9 + 0.1 x (10 - 9) */
    CHECK_NEAR(bench_quantile(y, 10, 0.9), 9.1, 1e-12);
    CHECK_NEAR(bench_quantile(y, 10, 0.5), 5.5, 1e-12);
    CHECK_NEAR(bench_quantile(y, 10, 0), 1, 0);
    CHECK_NEAR(bench_quantile(y, 10, 1), 10, 0);
    CHECK(isnan(bench_quantile(y, 0, 0.5)));
}

struct spin_ctx {
    long calls, total_reps;
};

static void
spin_fn(void *ctx, long reps)
{
    struct spin_ctx *c = ctx;
    c->calls++;
    c->total_reps += reps;
    volatile double x = 0;
    for (long i = 0; i < reps * 2000; i++)
        x += 1e-9;
}

TEST(bench_measure_protocol)
{
    struct spin_ctx c = {0, 0};
    struct bench_plan plan = {5, 2e-3, 0};
    struct bench_measure m;
    CHECK(bench_measure_run(&plan, spin_fn, &c, &m) == 0);
    CHECK(m.n_samples == 5);
    CHECK(m.n_warmup >= 1);
    CHECK(m.reps >= 1);
    /* every call is a warm-up or a sample, and the samples run `reps` each */
    CHECK(c.calls == m.n_warmup + 5);
    for (int i = 0; i < 5; i++)
        CHECK(m.samples_s[i] > 0);
    CHECK(m.s.min <= m.s.median && m.s.median <= m.s.max);
    struct bench_plan capped = {3, 10.0, 4};
    c.calls = 0;
    CHECK(bench_measure_run(&capped, spin_fn, &c, &m) == 0);
    CHECK(m.reps <= 4);
    struct bench_plan bad = {0, 1e-3, 0};
    CHECK(bench_measure_run(&bad, spin_fn, &c, &m) != 0);
}

/* ---- round-robin rounds ---- */

TEST(bench_round_order_and_sample_split)
{
    /* 3 items over 3 rounds: 0 1 2, then 2 1 0, then 0 1 2 */
    int want[3][3] = {{0, 1, 2}, {2, 1, 0}, {0, 1, 2}};
    for (int r = 0; r < 3; r++)
        for (int i = 0; i < 3; i++)
            CHECK(bench_round_order(r, 3, i) == want[r][i]);
    /* 7 over 3: 3 2 2; 5 over 3: 2 2 1; 2 over 3: 1 1 0; 3 over 1: 3 */
    int split[3][3] = {{7, 3, 2}, {5, 2, 2}, {2, 1, 1}};
    int last[3] = {2, 1, 0};
    for (int k = 0; k < 3; k++) {
        CHECK(bench_round_samples(split[k][0], 3, 0) == split[k][1]);
        CHECK(bench_round_samples(split[k][0], 3, 1) == split[k][2]);
        CHECK(bench_round_samples(split[k][0], 3, 2) == last[k]);
    }
    CHECK(bench_round_samples(3, 1, 0) == 3);
    CHECK(bench_round_samples(3, 3, 3) == 0);
}

/* A fake case of the round-robin driver: it records its visits and their order, and its
 * kernel spins a few microseconds. */
struct rr_fake {
    int id;
    int *trace, *n_trace; /* 10 x round + id of each open, in order */
    int opens, closes, lasts, last_round, calls;
    bool fail_open;
};
static double rr_probe_value;

static double
rr_probe(void *ctx)
{
    (void)ctx;
    return rr_probe_value += 1;
}

static void
rr_fn(void *ctx, long reps)
{
    struct rr_fake *f = ctx;
    f->calls++;
    volatile double x = 0;
    for (long i = 0; i < reps * 200; i++)
        x += 1e-9;
}

static int
rr_open(void *ctx, int round)
{
    struct rr_fake *f = ctx;
    f->opens++;
    f->trace[(*f->n_trace)++] = 10 * round + f->id;
    return f->fail_open ? -1 : 0;
}

static int
rr_close(void *ctx, int round, bool last)
{
    struct rr_fake *f = ctx;
    f->closes++;
    if (last) {
        f->lasts++;
        f->last_round = round;
    }
    return 0;
}

TEST(bench_rounds_visit_order_samples_and_probes)
{
    int trace[16], n_trace = 0;
    struct bench_plan plans[3] = {{3, 1e-4, 0}, {7, 1e-4, 0}, {2, 1e-4, 0}};
    struct rr_fake f[3];
    struct bench_measure m[3];
    struct bench_rounds_log lg[3];
    struct bench_rr_item it[3];
    for (int i = 0; i < 3; i++) {
        f[i] = (struct rr_fake){.id = i, .trace = trace, .n_trace = &n_trace};
        it[i] = (struct bench_rr_item){&plans[i], rr_fn, &f[i], rr_open, rr_close, &m[i], &lg[i]};
    }
    rr_probe_value = 0;
    CHECK(bench_rounds_run(it, 3, 3, rr_probe, NULL) == 0);
    /* forward, backward, forward; item 2 (2 samples) has none due in round 3 */
    int want[] = {0, 1, 2, 12, 11, 10, 20, 21};
    CHECK(n_trace == 8);
    for (int i = 0; i < 8 && i < n_trace; i++)
        CHECK(trace[i] == want[i]);
    /* the probe beside each visit, numbered in visiting order */
    double probes[3][3] = {{1, 6, 7}, {2, 5, 8}, {3, 4, 0}};
    int rounds[3] = {3, 3, 2}, last_round[3] = {2, 2, 1};
    /* the samples' rounds: 1 1 1 | 0 0 0 1 1 2 2 | 0 1 */
    signed char sr[3][7] = {{0, 1, 2}, {0, 0, 0, 1, 1, 2, 2}, {0, 1}};
    for (int i = 0; i < 3; i++) {
        CHECK(m[i].n_samples == plans[i].samples);
        CHECK(lg[i].rounds == rounds[i]);
        CHECK(f[i].opens == rounds[i] && f[i].closes == rounds[i]);
        CHECK(f[i].lasts == 1 && f[i].last_round == last_round[i]);
        for (int q = 0; q < 3; q++)
            CHECK(lg[i].probe[q] == probes[i][q]);
        for (int q = 0; q < m[i].n_samples; q++)
            CHECK(lg[i].sample_round[q] == sr[i][q]);
        /* every kernel call is a warm-up or a sample; the statistics cover all rounds */
        CHECK(f[i].calls == m[i].n_warmup + m[i].n_samples);
        CHECK(m[i].reps >= 1 && m[i].s.n == m[i].n_samples);
        CHECK(m[i].s.min <= m[i].s.median && m[i].s.median <= m[i].s.max);
    }
    /* one round is the plain protocol: all samples in one visit */
    n_trace = 0;
    CHECK(bench_rounds_run(it, 2, 1, NULL, NULL) == 0);
    CHECK(n_trace == 2 && m[1].n_samples == 7 && lg[1].probe[0] == 0);
    /* a failed open stops the run; bad round counts and plans are refused */
    f[1].fail_open = true;
    CHECK(bench_rounds_run(it, 3, 3, rr_probe, NULL) != 0);
    f[1].fail_open = false;
    CHECK(bench_rounds_run(it, 3, 0, rr_probe, NULL) != 0);
    CHECK(bench_rounds_run(it, 3, BENCH_MAX_ROUNDS + 1, rr_probe, NULL) != 0);
    struct bench_plan bad = {0, 1e-4, 0};
    it[0].plan = &bad;
    CHECK(bench_rounds_run(it, 3, 3, rr_probe, NULL) != 0);
    /* more samples need a calibrated measurement and room */
    struct bench_measure empty = {0};
    CHECK(bench_measure_more(rr_fn, &f[0], 1, &empty) != 0);
    CHECK(bench_measure_more(rr_fn, &f[0], BENCH_MAX_SAMPLES, &m[1]) != 0);
}

/* The probe kept for a case is the one beside its median sample, the sample validate compares
 * with. Samples 3, 1, 2 ms from rounds 1, 2, 3 with probes 10, 20, 30 GB/s: the median, 2 ms,
 * came in round 3: 30. Four samples 1 2 3 4 from rounds 1 2 1 2 (probes 10, 20): the middle two
 * come from rounds 2 and 1: (20 + 10) / 2 = 15; from rounds 1 2 2 1: 20. */
TEST(bench_rounds_median_probe_pairs_sample_and_probe)
{
    struct bench_measure m = {0};
    struct bench_rounds_log lg = {0};
    double t3[3] = {3e-3, 1e-3, 2e-3};
    for (int i = 0; i < 3; i++) {
        m.samples_s[i] = t3[i];
        lg.sample_round[i] = (signed char)i;
        lg.probe[i] = 10e9 * (i + 1);
    }
    m.n_samples = 3;
    CHECK_NEAR(bench_rounds_median_probe(&m, &lg), 30e9, 1e-9);
    double t4[4] = {1e-3, 2e-3, 3e-3, 4e-3};
    signed char r4a[4] = {0, 1, 0, 1}, r4b[4] = {0, 1, 1, 0};
    for (int i = 0; i < 4; i++) {
        m.samples_s[i] = t4[i];
        lg.sample_round[i] = r4a[i];
    }
    m.n_samples = 4;
    CHECK_NEAR(bench_rounds_median_probe(&m, &lg), 15e9, 1e-9);
    for (int i = 0; i < 4; i++)
        lg.sample_round[i] = r4b[i];
    CHECK_NEAR(bench_rounds_median_probe(&m, &lg), 20e9, 1e-9);
    m.n_samples = 0;
    CHECK(bench_rounds_median_probe(&m, &lg) == 0);
}

struct mark_ctx {
    int seen[8];
    int nthreads[8];
};

static void
mark_task(void *ctx, int tid, int n)
{
    struct mark_ctx *c = ctx;
    c->seen[tid]++;
    c->nthreads[tid] = n;
}

TEST(bench_pool_runs_every_thread)
{
    struct bench_pool *p = bench_pool_new(3, false);
    CHECK(p != NULL);
    if (!p)
        return;
    CHECK(bench_pool_threads(p) == 3);
    CHECK(bench_pool_pinned(p) == 0);
    struct mark_ctx c;
    memset(&c, 0, sizeof c);
    for (int i = 0; i < 50; i++)
        bench_pool_run(p, 3, mark_task, &c);
    CHECK(c.seen[0] == 50 && c.seen[1] == 50 && c.seen[2] == 50);
    CHECK(c.nthreads[2] == 3);
    memset(&c, 0, sizeof c);
    bench_pool_run(p, 2, mark_task, &c);
    CHECK(c.seen[0] == 1 && c.seen[1] == 1 && c.seen[2] == 0);
    CHECK(c.nthreads[1] == 2);
    bench_pool_free(p);
    bench_pool_free(NULL);
    CHECK(bench_pool_new(0, false) == NULL);
    p = bench_pool_new(2, true);
    CHECK(p != NULL);
    bench_pool_free(p);
}

TEST(bench_split_covers_range)
{
    for (int n = 1; n <= 5; n++) {
        long next = 0;
        for (int t = 0; t < n; t++) {
            long lo, hi;
            bench_split(1000, t, n, 64, &lo, &hi);
            CHECK(lo == next);
            CHECK(hi >= lo);
            CHECK(lo % 64 == 0);
            next = hi;
        }
        CHECK(next == 1000);
    }
}

TEST(bench_alloc_alignment)
{
    /* below 2 MiB a cache line; from 2 MiB on whole 2 MiB pages (huge-page candidates), the
     * last byte writable */
    size_t sizes[] = {2, 100, BENCH_HUGE_BYTES - 1, BENCH_HUGE_BYTES, 3 * BENCH_HUGE_BYTES + 5};
    size_t align[] = {64, 64, 64, BENCH_HUGE_BYTES, BENCH_HUGE_BYTES};
    for (int i = 0; i < 5; i++) {
        unsigned char *p = bench_alloc(sizes[i]);
        CHECK(p != NULL);
        if (!p)
            continue;
        CHECK((uintptr_t)p % align[i] == 0);
        p[0] = 1;
        p[sizes[i] - 1] = 2;
        CHECK(p[0] + p[sizes[i] - 1] == 3);
        free(p);
    }
    CHECK(bench_alloc(SIZE_MAX - 10) == NULL);
}

/* ---- kernels against naive references, every ISA this CPU runs ---- */

static float
frand(unsigned *state)
{
    *state = *state * 1664525u + 1013904223u;
    return (float)(*state >> 8) / 16777216.0f - 0.5f;
}

static bool
fused(const struct bench_kernels *k)
{
    return k->isa != BENCH_ISA_GENERIC;
}

static void
check_kernels(const struct bench_kernels *k)
{
    enum { N = 203 }; /* not a multiple of any vector width: tails run */
    double a[N], b[N], c[N];
    for (int i = 0; i < N; i++) {
        a[i] = 1 + i;
        b[i] = 0.5 * i;
        c[i] = -i;
    }
    k->copy(c, a, N);
    k->scale(b, c, 3.0, N);
    k->add(c, a, b, N);
    k->triad(a, b, c, 3.0, N);
    double sum = 0;
    int bad = 0;
    for (int i = 0; i < N; i++) {
        double ea = 1 + i, ec = ea, eb = 3 * ec;
        ec = ea + eb;
        ea = eb + 3 * ec;
        bad += a[i] != ea || b[i] != eb || c[i] != ec;
        sum += a[i];
    }
    if (bad)
        FAIL_AT("%s: STREAM kernels wrong at %d elements", k->name, bad);
    CHECK_NEAR(k->read(a, N), sum, 1e-14);

    /* ERT kernel: fmas = 0 is one add; otherwise FMAs, fused on the FMA ISAs */
    double e[N], ref[N];
    for (int fm = 0; fm <= 5; fm += 5) {
        for (int i = 0; i < N; i++)
            e[i] = ref[i] = 0.1 * i;
        k->ert(e, N, fm, 0.75, 0.25);
        for (int i = 0; i < N; i++) {
            if (fm == 0)
                ref[i] += 0.25;
            for (int f = 0; f < fm; f++)
                ref[i] = fused(k) ? fma(ref[i], 0.75, 0.25) : ref[i] * 0.75 + 0.25;
        }
        bad = 0;
        for (int i = 0; i < N; i++)
            bad += e[i] != ref[i];
        if (bad)
            FAIL_AT("%s: ert(fmas %d) differs at %d elements", k->name, fm, bad);
    }

    /* peak kernels: each accumulator is an independent chain x = x m + c */
    {
        long iters = 37;
        double want = 0;
        int lanes = k->vector_bytes / 4;
        for (int j = 0; j < k->fma_acc; j++) {
            float x = 1e-3f * (float)(j + 1);
            for (long i = 0; i < iters; i++)
                x = fused(k) ? fmaf(x, 0.999f, 0.01f) : x * 0.999f + 0.01f;
            want += (double)x * lanes;
        }
        CHECK_NEAR(k->fma_f32(iters, 0.999f, 0.01f), want, 1e-5);
        double want64 = 0;
        lanes = k->vector_bytes / 8;
        for (int j = 0; j < k->fma_acc; j++) {
            double x = 1e-3 * (double)(j + 1);
            for (long i = 0; i < iters; i++)
                x = fused(k) ? fma(x, 0.999, 0.01) : x * 0.999 + 0.01;
            want64 += x * lanes;
        }
        CHECK_NEAR(k->fma_f64(iters, 0.999, 0.01), want64, 1e-12);
        if (k->dp_bf16 && bench_cpu_has_bf16())
            /* each round adds 2 x 1.0 x 2^-20 per fp32 lane to 24 accumulators */
            CHECK_NEAR(k->dp_bf16(iters), 24.0 * 16 * 2 * iters * pow(2, -20), 1e-9);
    }

    /* micro-kernel on a packed A, and the panel GEMV */
    unsigned st = 12345;
    int MR = k->gemm_mr;
    long kc = 45, lda = 50;
    float A[16 * 50], Ap[16 * 50], B[45 * BENCH_NR], C[16 * 40], C0[16 * 40];
    for (size_t i = 0; i < ARRAY_SIZE(A); i++)
        A[i] = frand(&st);
    for (size_t i = 0; i < ARRAY_SIZE(B); i++)
        B[i] = frand(&st);
    for (size_t i = 0; i < ARRAY_SIZE(C); i++)
        C[i] = C0[i] = frand(&st);
    bench_pack_a(Ap, A, lda, MR, 0, kc, MR);
    CHECK(Ap[3 * MR + 1] == A[1 * lda + 3]);
    for (int acc = 0; acc <= 1; acc++) {
        memcpy(C, C0, sizeof C);
        k->gemm_ukr(kc, Ap, B, C, 40, acc);
        double worst = 0;
        for (int r = 0; r < MR; r++)
            for (int j = 0; j < BENCH_NR; j++) {
                double s = acc ? C0[r * 40 + j] : 0;
                for (long q = 0; q < kc; q++)
                    s += (double)A[r * lda + q] * B[q * BENCH_NR + j];
                worst = fmax(worst, fabs(C[r * 40 + j] - s));
            }
        if (worst > 1e-5)
            FAIL_AT("%s: gemm_ukr (accumulate %d) off by %g", k->name, acc, worst);
        CHECK(C[MR * 40] == C0[MR * 40]); /* rows past MR untouched */
        float y[BENCH_NR], y0[BENCH_NR];
        for (int j = 0; j < BENCH_NR; j++)
            y[j] = y0[j] = frand(&st);
        k->gemv_panel(kc, A, B, y, acc);
        worst = 0;
        for (int j = 0; j < BENCH_NR; j++) {
            double s = acc ? y0[j] : 0;
            for (long q = 0; q < kc; q++)
                s += (double)A[q] * B[q * BENCH_NR + j];
            worst = fmax(worst, fabs(y[j] - s));
        }
        if (worst > 1e-5)
            FAIL_AT("%s: gemv_panel (accumulate %d) off by %g", k->name, acc, worst);
    }

    /* softmax and SiLU against libm */
    float s[77], g[77], u[77];
    for (int i = 0; i < 77; i++) {
        s[i] = 20 * frand(&st);
        g[i] = 30 * frand(&st);
        u[i] = frand(&st);
    }
    s[5] = -1e30f; /* far below: exp underflows to the clamp */
    double mx = -INFINITY, z = 0, ref_s[77];
    for (int i = 0; i < 77; i++)
        mx = fmax(mx, s[i] * 0.5);
    for (int i = 0; i < 77; i++)
        z += ref_s[i] = exp(s[i] * 0.5 - mx);
    k->softmax(s, 77, 0.5f);
    double worst = 0, total = 0;
    for (int i = 0; i < 77; i++) {
        worst = fmax(worst, fabs(s[i] - ref_s[i] / z) / (ref_s[i] / z + 1e-30));
        total += s[i];
    }
    if (worst > 1e-5 && fabs(s[5]) > 1e-30)
        FAIL_AT("%s: softmax relative error %g", k->name, worst);
    CHECK_NEAR(total, 1.0, 1e-5);
    float g0[77];
    memcpy(g0, g, sizeof g);
    k->silu_mul(g, u, 77);
    worst = 0;
    for (int i = 0; i < 77; i++) {
        double want = g0[i] / (1 + exp(-(double)g0[i])) * u[i];
        worst = fmax(worst, fabs(g[i] - want) / (fabs(want) + 1e-6));
    }
    if (worst > 1e-5)
        FAIL_AT("%s: silu_mul relative error %g", k->name, worst);
}

TEST(bench_kernels_match_references)
{
    int tested = 0;
    for (int isa = 0; isa < BENCH_ISA_COUNT; isa++) {
        const struct bench_kernels *k = bench_kernels_for((enum bench_isa)isa);
        if (!k || !bench_isa_supported((enum bench_isa)isa))
            continue;
        CHECK(k->isa == (enum bench_isa)isa);
        CHECK(k->gemm_mr >= 1 && k->gemm_mr <= 16);
        check_kernels(k);
        tested++;
    }
    CHECK(tested >= 1);
    CHECK(bench_isa_supported(BENCH_ISA_GENERIC));
    CHECK(bench_kernels_for(bench_isa_best()) != NULL);
}

/* ---- GEMM driver and attention ---- */

static void
check_linear(const struct bench_kernels *k, struct bench_pool *pool, long m, long kk, long n)
{
    struct bench_linear l;
    CHECK(bench_linear_init(&l, kk, n) == 0);
    unsigned st = (unsigned)(m * 131 + kk * 7 + n);
    for (long r = 0; r < kk; r++)
        for (long c = 0; c < n; c++)
            *bench_linear_at(&l, r, c) = frand(&st);
    long ldy = bench_round_nr(n) + 3;
    float *x = calloc((size_t)(m * kk), sizeof *x), *y = calloc((size_t)(m * ldy), sizeof *y),
          *y0 = calloc((size_t)(m * ldy), sizeof *y0);
    for (long i = 0; i < m * kk; i++)
        x[i] = frand(&st);
    for (long i = 0; i < m * ldy; i++)
        y[i] = y0[i] = frand(&st);
    float *work = calloc((size_t)(2 * BENCH_GEMM_WORK_FLOATS), sizeof *work);
    for (int acc = 0; acc <= 1; acc++) {
        memcpy(y, y0, (size_t)(m * ldy) * sizeof *y);
        bench_linear_forward(pool, k, &l, x, kk, m, y, ldy, acc, work);
        double worst = 0;
        for (long r = 0; r < m; r++)
            for (long c = 0; c < n; c++) {
                double s = acc ? y0[r * ldy + c] : 0;
                for (long q = 0; q < kk; q++)
                    s += (double)x[r * kk + q] * *bench_linear_at(&l, q, c);
                worst = fmax(worst, fabs(y[r * ldy + c] - s));
            }
        if (worst > 1e-4)
            FAIL_AT("%s: linear %ldx%ldx%ld (accumulate %d) off by %g", k->name, m, kk, n, acc,
                    worst);
        /* columns past the padded width are not written */
        CHECK(y[ldy - 1] == y0[ldy - 1]);
    }
    free(x);
    free(y);
    free(y0);
    free(work);
    bench_linear_release(&l);
}

/* the kernels' result check by hand: x = (1, 2, 3), column 1 = (1, -1, 2): the products 1, -2,
 * 6 sum to 5 with magnitudes 9, so 5.9 is off by 0.9 / 9 = 0.1 and 5 by 0; an all-zero
 * column measures against 1 */
TEST(bench_linear_col_error_by_hand)
{
    struct bench_linear l;
    CHECK(bench_linear_init(&l, 3, 2) == 0);
    const float col[3] = {1, -1, 2}, x[3] = {1, 2, 3};
    for (long r = 0; r < 3; r++)
        *bench_linear_at(&l, r, 1) = col[r];
    CHECK_NEAR(bench_linear_col_error(&l, x, 1, 5.9), 0.1, 1e-12);
    CHECK_NEAR(bench_linear_col_error(&l, x, 1, 5.0), 0.0, 1e-12);
    CHECK_NEAR(bench_linear_col_error(&l, x, 0, 0.25), 0.25, 1e-12);
    bench_linear_release(&l);
}

static void
check_attention(const struct bench_kernels *k, struct bench_pool *pool, long n, long pos0)
{
    long H = 6, G = 2, d = 32, rep = H / G;
    struct bench_kv kv;
    CHECK(bench_kv_init(&kv, 2, G, d, 90) == 0);
    unsigned st = 777u + (unsigned)pos0;
    for (long g = 0; g < G; g++)
        for (long p = 0; p < kv.max_ctx; p++)
            for (long i = 0; i < d; i++) {
                *bench_kv_key(&kv, 1, g, p, i) = frand(&st);
                *bench_kv_value(&kv, 1, g, p, i) = frand(&st);
            }
    float *q = calloc((size_t)(n * H * d), sizeof *q), *o = calloc((size_t)(n * H * d), sizeof *o);
    float *scr = calloc((size_t)(bench_attn_scratch_floats(&kv, H) * 2), sizeof *scr);
    for (long i = 0; i < n * H * d; i++)
        q[i] = 2 * frand(&st);
    bench_attention(
        pool, k,
        &(struct bench_attn_args){.kv = &kv,
                                  .layer = 1,
                                  .heads = H,
                                  .q = q,
                                  .ldq = H * d,
                                  .n = n,
                                  .pos0 = pos0,
                                  .out = o,
                                  .ldo = H * d,
                                  .scratch = scr,
                                  .scratch_per_thread = bench_attn_scratch_floats(&kv, H)});
    double worst = 0;
    for (long t = 0; t < n; t++)
        for (long h = 0; h < H; h++) {
            long vis = pos0 + t + 1;
            double *sc = calloc((size_t)vis, sizeof *sc), mx = -INFINITY, z = 0;
            for (long j = 0; j < vis; j++) {
                double dot = 0;
                for (long i = 0; i < d; i++)
                    dot += (double)q[(t * H + h) * d + i] * *bench_kv_key(&kv, 1, h / rep, j, i);
                sc[j] = dot / sqrt((double)d);
                mx = fmax(mx, sc[j]);
            }
            for (long j = 0; j < vis; j++)
                z += sc[j] = exp(sc[j] - mx);
            for (long i = 0; i < d; i++) {
                double acc = 0;
                for (long j = 0; j < vis; j++)
                    acc += sc[j] * *bench_kv_value(&kv, 1, h / rep, j, i);
                worst = fmax(worst, fabs(o[(t * H + h) * d + i] - acc / z));
            }
            free(sc);
        }
    if (worst > 1e-4)
        FAIL_AT("%s: attention n %ld at %ld off by %g", k->name, n, pos0, worst);
    free(q);
    free(o);
    free(scr);
    bench_kv_release(&kv);
}

TEST(bench_gemm_and_attention_match_references)
{
    struct bench_pool *pool = bench_pool_new(2, false);
    CHECK(pool != NULL);
    if (!pool)
        return;
    for (int isa = 0; isa < BENCH_ISA_COUNT; isa++) {
        const struct bench_kernels *k = bench_kernels_for((enum bench_isa)isa);
        if (!k || !bench_isa_supported((enum bench_isa)isa))
            continue;
        check_linear(k, pool, 1, 300, 70);
        check_linear(k, pool, 5, 300, 70);
        check_linear(k, pool, 37, 64, 96);
        check_linear(k, pool, 300, 20, 33);  /* A packed whole */
        check_linear(k, pool, 300, 700, 40); /* blocked: several M and K blocks */
        check_linear(k, pool, 1030, 40, 70); /* split by rows across the threads */
        check_attention(k, pool, 37, 0);     /* prefill: several query blocks, causal */
        check_attention(k, pool, 1, 50);     /* decode after 50 cached positions */
        check_attention(k, pool, 3, 80);
    }
    bench_pool_free(pool);
}

/* ---- the transformer ---- */

TEST(bench_model_shape_and_parameters)
{
    struct mdl_profile *m = test_model("bench-small");
    struct bench_tfm_shape sh;
    const char *why;
    CHECK(bench_tfm_shape_of(m, &sh, &why) == 0);
    CHECK(sh.layers == 6 && sh.hidden == 1536 && sh.heads == 12 && sh.kv_heads == 4);
    CHECK(sh.head_dim == 128 && sh.intermediate == 4096 && sh.vocab == 32000);
    struct mdl_params p;
    mdl_param_count(m, &p);
    CHECK_NEAR(bench_tfm_params(&sh), 249318912.0, 0);
    CHECK_NEAR(p.total, 249318912.0, 0);
    CHECK_NEAR(m->published_params, 249318912.0, 0);
    CHECK_STR(m->torch_dtype, "float32");
    mdl_free(m);
    struct mdl_profile *moe = test_model("mixtral-8x7b");
    CHECK(bench_tfm_shape_of(moe, &sh, &why) != 0);
    CHECK_CONTAINS(why, "mixture of experts");
    mdl_free(moe);
}

static double
max_rel_diff(const float *a, const float *b, long n)
{
    double scale = 0, worst = 0;
    for (long i = 0; i < n; i++)
        scale = fmax(scale, fabs(b[i]));
    for (long i = 0; i < n; i++)
        worst = fmax(worst, fabs(a[i] - b[i]));
    return worst / (scale > 0 ? scale : 1);
}

TEST(bench_model_matches_reference)
{
    struct bench_tfm_shape sh = {2, 64, 4, 2, 32, 96, 100};
    struct bench_tfm *m = NULL;
    CHECK(bench_tfm_new(&sh, 64, 40, 2, 7, &m) == 0);
    if (!m)
        return;
    struct bench_pool *pool = bench_pool_new(2, false);
    int tokens[40];
    for (int i = 0; i < 40; i++)
        tokens[i] = (i * 37 + 11) % 100;
    float ref[100], ref2[100];
    for (int isa = 0; isa < BENCH_ISA_COUNT; isa++) {
        const struct bench_kernels *k = bench_kernels_for((enum bench_isa)isa);
        if (!k || !bench_isa_supported((enum bench_isa)isa))
            continue;
        /* prefill of 37 tokens */
        CHECK(bench_tfm_forward(m, k, pool, tokens, 37, 0) == 0);
        CHECK(bench_tfm_reference(m, tokens, 37, 0, ref) == 0);
        double e = max_rel_diff(m->logits, ref, 100);
        if (e > 1e-4)
            FAIL_AT("%s: prefill logits differ by %g (relative)", k->name, e);
        /* a decode step after it equals a 38-token prefill from scratch */
        CHECK(bench_tfm_forward(m, k, pool, tokens + 37, 1, 37) == 0);
        CHECK(bench_tfm_reference(m, tokens, 38, 0, ref2) == 0);
        e = max_rel_diff(m->logits, ref2, 100);
        if (e > 1e-4)
            FAIL_AT("%s: decode logits differ from the full prefill by %g", k->name, e);
        /* decode at a context whose cache holds the random fill */
        CHECK(bench_tfm_reference(m, tokens + 38, 1, 55, ref) == 0);
        CHECK(bench_tfm_forward(m, k, pool, tokens + 38, 1, 55) == 0);
        e = max_rel_diff(m->logits, ref, 100);
        if (e > 1e-4)
            FAIL_AT("%s: decode at context 55 differs by %g", k->name, e);
    }
    /* bounds */
    const struct bench_kernels *k = bench_kernels_for(BENCH_ISA_GENERIC);
    CHECK(bench_tfm_forward(m, k, pool, tokens, 41, 0) != 0);
    CHECK(bench_tfm_forward(m, k, pool, tokens, 1, 64) != 0);
    int bad_token = 100;
    CHECK(bench_tfm_forward(m, k, pool, &bad_token, 1, 0) != 0);
    bench_pool_free(pool);
    bench_tfm_free(m);
    struct bench_tfm_shape odd = {1, 64, 3, 2, 32, 96, 100};
    CHECK(bench_tfm_new(&odd, 64, 40, 1, 7, &m) != 0);
    bench_tfm_free(NULL);
}

/* ---- fit and plateaus ---- */

TEST(bench_fit_recovers_synthetic_roofline)
{
    struct bench_roof_point pts[11];
    double I = 1.0 / 16;
    for (int i = 0; i < 11; i++, I *= 2) {
        pts[i].intensity_flop_per_byte = I;
        pts[i].flops_per_s = fmin(100e9, 10e9 * I);
    }
    struct bench_roof_fit f;
    CHECK(bench_fit_roofline(pts, 11, &f) == 0);
    CHECK_NEAR(f.peak_flops_per_s, 100e9, 1e-6);
    CHECK_NEAR(f.bandwidth_bytes_per_s, 10e9, 1e-6);
    CHECK_NEAR(f.ridge_flop_per_byte, 10, 1e-6);
    CHECK(f.n == 11);
    CHECK(f.rms_log_residual < 1e-9);
    CHECK(f.iterations <= BENCH_FIT_MAX_ITER);
    /* +-3% alternating noise: the fit stays within it, residuals report it */
    for (int i = 0; i < 11; i++)
        pts[i].flops_per_s *= i % 2 ? 1.03 : 0.97;
    CHECK(bench_fit_roofline(pts, 11, &f) == 0);
    CHECK_NEAR(f.peak_flops_per_s, 100e9, 0.03);
    CHECK_NEAR(f.bandwidth_bytes_per_s, 10e9, 0.03);
    CHECK(f.rms_log_residual > 0.01 && f.rms_log_residual < 0.05);
    CHECK(isfinite(f.peak_rel_sigma) && isfinite(f.bandwidth_rel_sigma));
    double sum = 0;
    for (int i = 0; i < 11; i++)
        sum += fabs(f.residual_log[i]);
    CHECK(sum > 0);
    pts[3].flops_per_s = -1;
    CHECK(bench_fit_roofline(pts, 11, &f) != 0);
    CHECK(bench_fit_roofline(pts, 1, &f) != 0);
}

TEST(bench_levels_from_synthetic_sweep)
{
    struct bench_sweep_point pts[20];
    memset(pts, 0, sizeof pts);
    int n = 0;
    for (double b = 16384; n < 20; b *= 2, n++) {
        double bw = b <= 32768            ? 400e9
                    : b <= 512 * 1024.0   ? 200e9
                    : b <= 16.0 * 1048576 ? 100e9
                                          : 30e9;
        if (b == 1048576.0)
            bw = 150e9; /* a transition point */
        pts[n].bytes_per_thread = b;
        pts[n].threads = 1;
        pts[n].bytes = b;
        pts[n].meas.n_samples = 1;
        pts[n].meas.s.median = pts[n].meas.s.min = b / bw;
    }
    double cache[3] = {48 * 1024.0, 1048576.0, 32 * 1048576.0};
    struct bench_level L[4];
    int k = bench_levels_from_sweep(pts, n, cache, L);
    CHECK(k == 4);
    CHECK_STR(L[0].name, "l1");
    CHECK_NEAR(L[0].bandwidth_bytes_per_s, 400e9, 1e-9);
    CHECK_STR(L[1].name, "l2");
    CHECK_NEAR(L[1].bandwidth_bytes_per_s, 200e9, 1e-9);
    CHECK_STR(L[2].name, "l3");
    CHECK_NEAR(L[2].bandwidth_bytes_per_s, 100e9, 1e-9);
    CHECK_STR(L[3].name, "dram");
    CHECK_NEAR(L[3].bandwidth_bytes_per_s, 30e9, 1e-9);
    CHECK(L[3].lo_bytes == 32 * 1048576.0);
    /* an L3 that the OS overstates (a VM reporting the whole socket) is cut at the DRAM
     * plateau */
    cache[2] = 512 * 1048576.0;
    k = bench_levels_from_sweep(pts, n, cache, L);
    CHECK(k == 4);
    CHECK_NEAR(L[2].bandwidth_bytes_per_s, 100e9, 1e-9);
}

/* ---- renderings read back ---- */

static void
fake_report(struct bench_report *r)
{
    memset(r, 0, sizeof *r);
    snprintf(r->date, sizeof r->date, "2026-01-02T03:04:05Z");
    snprintf(r->version, sizeof r->version, "test");
    snprintf(r->host.cpu_model, sizeof r->host.cpu_model, "Test \"CPU\" 9000");
    snprintf(r->host.vendor_id, sizeof r->host.vendor_id, "AuthenticAMD");
    snprintf(r->host.vendor, sizeof r->host.vendor, "%s", bench_vendor_of("AuthenticAMD"));
    snprintf(r->host.compiler, sizeof r->host.compiler, "gcc test");
    snprintf(r->host.cflags, sizeof r->host.cflags, "-O2");
    snprintf(r->host.cache_source, sizeof r->host.cache_source, "sysfs");
    snprintf(r->isa, sizeof r->isa, "avx512");
    r->host.online_cpus = r->host.allowed_cpus = 2;
    r->host.memory_bytes = 16.0 * 1073741824.0;
    r->threads = 2;
    r->array_bytes = 1 << 28;
    struct bench_stream *s = &r->stream[r->n_stream++];
    snprintf(s->kernel, sizeof s->kernel, "triad");
    s->threads = 2;
    s->bytes = 3.0e9;
    s->meas.n_samples = 3;
    s->meas.samples_s[0] = 0.11;
    s->meas.samples_s[1] = 0.10;
    s->meas.samples_s[2] = 0.12;
    bench_stats_compute(s->meas.samples_s, 3, &s->meas.s);
    struct bench_peak *p = &r->peaks[r->n_peaks++];
    p->dt = DT_FP32;
    p->threads = 2;
    p->flops = 4e11;
    p->meas = s->meas;
    p = &r->peaks[r->n_peaks++];
    p->dt = DT_FP64;
    p->threads = 2;
    p->flops = 2e11;
    p->meas = s->meas;
    r->levels[0] = (struct bench_level){"l1", 48 * 1024.0, 16384, 32768, 400e9, 2};
    r->levels[1] = (struct bench_level){"dram", 0, 1e8, 1e9, 30e9, 3};
    r->n_levels = 2;
    r->host.caches[0] = (struct bench_cache){1, "Data", 48 * 1024.0, 1};
    r->host.caches[1] = (struct bench_cache){2, "Unified", 1048576.0, 1};
    r->host.n_caches = 2;
    struct bench_case *c = &r->cases[r->n_cases++];
    snprintf(c->id, sizeof c->id, "gemv_1x4096x4096_x8");
    c->kind = BENCH_CASE_GEMV;
    c->phase = BENCH_PHASE_KERNEL;
    c->rows = 1;
    c->inner = c->cols = 4096;
    c->copies = 8;
    c->flops = 2.0 * 4096 * 4096 * 8;
    c->bytes = 8 * 4.0 * (4096.0 * 4096 + 2 * 4096);
    c->meas = s->meas;
    r->rounds = 2; /* its samples from rounds 1, 2, 2 beside probes of 20 and 25 GB/s */
    c->rr =
        (struct bench_rounds_log){.rounds = 2, .probe = {20e9, 25e9}, .sample_round = {0, 1, 1}};
    c = &r->cases[r->n_cases++];
    snprintf(c->id, sizeof c->id, "bench-small_decode_512");
    c->kind = BENCH_CASE_MODEL;
    c->phase = BENCH_PHASE_DECODE;
    c->context = 512;
    c->flops = 5e8;
    c->bytes = 1e9;
    c->meas = s->meas;
    bench_derive_roofs(r);
}

static char *
write_tmp(const char *text, const char *suffix)
{
    char *path = malloc(256);
    snprintf(path, 256, "/tmp/roofline-test-bench-%ld%s", (long)getpid(), suffix);
    FILE *f = fopen(path, "w");
    if (f) {
        fputs(text, f);
        fclose(f);
    }
    return path;
}

TEST(bench_dram_roof_is_the_read_kernel)
{
    /* a faster-looking add (STREAM byte count, write-backs not counted) must not set the roof
     * for reads; without a read kernel the best of the others does */
    struct bench_report *r = calloc(1, sizeof *r);
    fake_report(r);
    struct bench_stream *s = &r->stream[r->n_stream++];
    *s = r->stream[0];
    snprintf(s->kernel, sizeof s->kernel, "add");
    s->bytes = 6.0e9; /* 60 GB/s at the best sample of 0.10 s */
    bench_derive_roofs(r);
    CHECK_NEAR(r->roofs.dram_bandwidth_bytes_per_s, 6e10, 1e-12);
    CHECK_STR(r->roofs.dram_kernel, "add");
    s = &r->stream[r->n_stream++];
    *s = r->stream[0];
    snprintf(s->kernel, sizeof s->kernel, "read");
    s->bytes = 4.0e9; /* 40 GB/s */
    bench_derive_roofs(r);
    CHECK_NEAR(r->roofs.dram_bandwidth_bytes_per_s, 4e10, 1e-12);
    CHECK_STR(r->roofs.dram_kernel, "read");
    CHECK_NEAR(r->roofs.triad_bandwidth_bytes_per_s, 3e10, 1e-12);
    s->threads = 1; /* a single-thread read does not count */
    bench_derive_roofs(r);
    CHECK_NEAR(r->roofs.dram_bandwidth_bytes_per_s, 6e10, 1e-12);
    s->threads = r->threads;
    /* the weight stream (the decode's GEMV pattern) is the roof where measured, slower or
     * faster than the read kernel: 3.5e9 B / 0.10 s = 35 GB/s */
    s = &r->stream[r->n_stream++];
    *s = r->stream[0];
    snprintf(s->kernel, sizeof s->kernel, "weights");
    s->bytes = 3.5e9;
    bench_derive_roofs(r);
    CHECK_NEAR(r->roofs.dram_bandwidth_bytes_per_s, 3.5e10, 1e-12);
    CHECK_STR(r->roofs.dram_kernel, "weights");
    free(r);
}

/* The probes beside the cases: hand numbers 20, 25 and 30 GB/s give a drift of 30 / 20 - 1 =
 * 50% (> 10%: a warning); a case beside the 20 GB/s probe runs against 2/3 of a 45 GB/s roof =
 * 30 GB/s; a case without a probe against the roof itself. */
TEST(bench_probe_drift_and_case_bandwidth)
{
    struct bench_report *r = calloc(1, sizeof *r);
    fake_report(r);
    r->cases[0].rr = (struct bench_rounds_log){0};
    double probes[4] = {20e9, 30e9, 0, 25e9};
    struct bench_case *c = &r->cases[r->n_cases];
    for (int i = 0; i < 4; i++)
        r->cases[r->n_cases++].probe_bandwidth_bytes_per_s = probes[i];
    bench_derive_roofs(r);
    CHECK_NEAR(r->roofs.probe_max_bytes_per_s, 30e9, 1e-12);
    CHECK_NEAR(r->roofs.probe_min_bytes_per_s, 20e9, 1e-12);
    CHECK_NEAR(r->roofs.probe_drift, 0.5, 1e-12);
    CHECK_NEAR(bench_case_bandwidth(r, &c[0], 45e9), 30e9, 1e-12);
    CHECK_NEAR(bench_case_bandwidth(r, &c[1], 45e9), 45e9, 1e-12);
    CHECK_NEAR(bench_case_bandwidth(r, &c[2], 45e9), 45e9, 1e-12);
    char buf[400];
    CHECK(bench_drift_warning(r, buf, sizeof buf) != NULL);
    CHECK(strstr(buf, "moved by 50%") != NULL);
    /* 10.5 / 10 - 1 = 5%: no warning; one probe alone: no drift */
    c[0].probe_bandwidth_bytes_per_s = 28.6e9;
    c[3].probe_bandwidth_bytes_per_s = 29e9;
    bench_derive_probes(r);
    CHECK_NEAR(r->roofs.probe_drift, 30.0 / 28.6 - 1, 1e-12);
    CHECK(bench_drift_warning(r, buf, sizeof buf) == NULL);
    c[0].probe_bandwidth_bytes_per_s = c[3].probe_bandwidth_bytes_per_s = 0;
    bench_derive_probes(r);
    CHECK(r->roofs.probe_drift == 0);
    /* every round's probe counts: the 30 GB/s case measured in rounds beside 30, 24 and 40 GB/s
     * spans 24..40 (drift 40 / 24 - 1) and runs against 30 / 40 of a 45 GB/s roof */
    c[1].rr = (struct bench_rounds_log){.rounds = 3, .probe = {30e9, 24e9, 40e9}};
    bench_derive_probes(r);
    CHECK_NEAR(r->roofs.probe_max_bytes_per_s, 40e9, 1e-12);
    CHECK_NEAR(r->roofs.probe_min_bytes_per_s, 24e9, 1e-12);
    CHECK_NEAR(r->roofs.probe_drift, 40.0 / 24 - 1, 1e-12);
    CHECK_NEAR(bench_case_bandwidth(r, &c[1], 45e9), 33.75e9, 1e-9);
    free(r);
}

/* Two threads that reach no more than one thread's FMA peak share a core: the run says so.
 * Hand numbers: one thread 4e11 FLOP / 0.10 s = 4e12 FLOP/s, as the two-thread peak: scaling
 * 1.00 < 0.75 x 2; at 2e11 FLOP per sample one thread gives 2e12, scaling 2.00: no warning. */
TEST(bench_thread_scaling_warning)
{
    struct bench_report *r = calloc(1, sizeof *r);
    fake_report(r);
    char buf[400];
    CHECK(r->roofs.fp32_thread_scaling == 0); /* no one-thread peak: not measured */
    CHECK(bench_roofs_warning(r, buf, sizeof buf) == NULL);
    struct bench_peak *one = &r->peaks[r->n_peaks++];
    *one = r->peaks[0];
    one->threads = 1;
    bench_derive_roofs(r);
    CHECK_NEAR(r->roofs.fp32_thread_scaling, 1.0, 1e-12);
    const char *w = bench_roofs_warning(r, buf, sizeof buf);
    CHECK(w != NULL);
    if (w)
        CHECK(strstr(w, "2 threads reached only 1.00 times one thread's fp32 FMA peak") != NULL);
    one->flops = 2e11;
    bench_derive_roofs(r);
    CHECK_NEAR(r->roofs.fp32_thread_scaling, 2.0, 1e-12);
    CHECK(bench_roofs_warning(r, buf, sizeof buf) == NULL);
    struct strbuf t = {0};
    CHECK(bench_render_json(r, &t) == 0);
    CHECK_CONTAINS(t.buf, "\"fp32_thread_scaling\": 2");
    strbuf_release(&t);
    free(r);
}

TEST(bench_profile_written_and_reloaded)
{
    struct bench_report *r = calloc(1, sizeof *r);
    fake_report(r);
    CHECK_NEAR(r->roofs.dram_bandwidth_bytes_per_s, 3e10, 1e-12); /* best of the samples */
    CHECK_NEAR(r->roofs.peak_flops_per_s[DT_FP32], 4e12, 1e-12);
    struct hw_profile *hw = bench_profile_new(r);
    CHECK(hw != NULL);
    if (!hw) {
        free(r);
        return;
    }
    struct strbuf t = {0};
    CHECK(hw_profile_text(hw, &t) == 0);
    char *path = write_tmp(t.buf, ".yaml");
    struct err_list errs = {0};
    struct hw_profile *back = hw_load(path, &errs);
    if (!back) {
        char buf[512];
        for (size_t i = 0; i < errs.n; i++) {
            err_format(&errs.items[i], buf, sizeof buf);
            FAIL_AT("%s", buf);
        }
    } else {
        CHECK_STR(back->kind, "cpu");
        CHECK_STR(back->vendor, "amd");
        CHECK_CONTAINS(back->name, "Test \"CPU\" 9000");
        CHECK_NEAR(back->memory_bandwidth_bytes_per_s, 3e10, 1e-4);
        CHECK_NEAR(back->memory_capacity_bytes, 16.0 * 1073741824.0, 1e-9);
        CHECK_NEAR(back->peak_flops_per_s[DT_FP32], 4e12, 1e-4);
        CHECK_NEAR(back->peak_flops_per_s[DT_FP64], 2e12, 1e-4);
        CHECK_NEAR(back->cache_bytes[0], 48 * 1024.0, 0);
        CHECK_NEAR(back->cache_bytes[1], 1048576.0, 0);
        CHECK_NEAR(back->cache_bandwidth_bytes_per_s[0], 400e9, 1e-4);
        CHECK(back->n_provenance >= 8);
        bool measured = false;
        for (int i = 0; i < back->n_sources; i++)
            measured |=
                strstr(back->source_texts[i], "measured by roofline bench on 2026-01-02") != NULL;
        CHECK(measured);
    }
    err_list_release(&errs);
    hw_free(back);
    remove(path);
    free(path);
    strbuf_release(&t);
    hw_free(hw);
    /* without a DRAM bandwidth there is no profile */
    r->roofs.dram_bandwidth_bytes_per_s = 0;
    CHECK(bench_profile_new(r) == NULL);
    free(r);
    CHECK_STR(bench_vendor_of("GenuineIntel"), "intel");
    CHECK_STR(bench_vendor_of("CentaurHauls"), "other");
}

TEST(bench_json_and_points_read_back)
{
    struct bench_report *r = calloc(1, sizeof *r);
    fake_report(r);
    struct strbuf t = {0};
    CHECK(bench_render_json(r, &t) == 0);
    struct err_list errs = {0};
    struct ynode *root = ynode_parse("bench.json", t.buf, t.len, &errs);
    CHECK(root != NULL);
    if (root) {
        CHECK_STR(ynode_get(root, "tool")->value, "roofline");
        CHECK_STR(ynode_get(root, "command")->value, "bench");
        const struct ynode *cases = ynode_get(root, "cases");
        CHECK(cases && cases->kind == YNODE_SEQ && cases->n == 2);
        const struct ynode *ts = ynode_get(cases->items[0], "time_s");
        const struct ynode *samples = ts ? ynode_get(ts, "samples") : NULL;
        CHECK(samples && samples->n == 3);
        double v;
        CHECK(ynode_double(ynode_get(root, "rounds"), &v) == 0 && v == 2);
        CHECK(ynode_double(ynode_get(cases->items[0], "rounds"), &v) == 0 && v == 2);
        const struct ynode *rp = ynode_get(cases->items[0], "round_probes_bytes_per_s");
        CHECK(rp && rp->n == 2 && ynode_double(rp->items[1], &v) == 0 && v == 25e9);
        const struct ynode *sr = ynode_get(cases->items[0], "sample_rounds");
        CHECK(sr && sr->n == 3 && ynode_double(sr->items[0], &v) == 0 && v == 1 &&
              ynode_double(sr->items[2], &v) == 0 && v == 2);
        CHECK(ynode_get(cases->items[1], "rounds") == NULL);
        CHECK(ynode_double(ynode_get(ts, "median"), &v) == 0 && v == 0.11);
        const struct ynode *roofs = ynode_get(root, "roofs");
        CHECK(ynode_double(ynode_get(roofs, "dram_bandwidth_bytes_per_s"), &v) == 0);
        CHECK_NEAR(v, 3e10, 1e-9);
        CHECK_CONTAINS(ynode_get(ynode_get(root, "host"), "cpu")->value, "\"CPU\"");
        ynode_free(root);
    }
    err_list_release(&errs);
    strbuf_release(&t);
    /* points load with the chart's reader */
    CHECK(bench_render_points(r, &t) == 0);
    char *path = write_tmp(t.buf, ".json");
    struct chart_measured *pts = NULL;
    size_t n = 0;
    CHECK(points_load(path, &pts, &n, &errs) == 0);
    CHECK(n == 2);
    if (n == 2) {
        CHECK_STR(pts[0].label, "gemv_1x4096x4096_x8");
        CHECK_NEAR(pts[0].intensity_flop_per_byte, r->cases[0].flops / r->cases[0].bytes, 1e-8);
        CHECK_NEAR(pts[0].flops_per_s, r->cases[0].flops / 0.11, 1e-8);
    }
    points_free(pts, n);
    err_list_release(&errs);
    remove(path);
    free(path);
    strbuf_release(&t);
    free(r);
}

/* ---- predictions ---- */

/* The host profile of the prediction tests: 10 GB/s, 64 GB, 1 TFLOP/s fp32, nothing else */
static void
roof_10gbs_1tflops(struct hw_profile *hw)
{
    memset(hw, 0, sizeof *hw);
    hw->memory_bandwidth_bytes_per_s = 10e9;
    hw->memory_capacity_bytes = 64e9;
    hw->peak_flops_per_s[DT_FP32] = 1e12;
}

/* A bench GEMV (rows 1) or GEMM case over `copies` 4096 x 4096 fp32 matrices, its FLOPs and
 * bytes counted as the bench counts them (run_llm.c: 2 m k n, and the matrix, x and y read or
 * written once per copy) */
static void
lin_case(struct bench_case *c, long rows, long copies)
{
    c->kind = rows == 1 ? BENCH_CASE_GEMV : BENCH_CASE_GEMM;
    c->rows = rows;
    c->inner = c->cols = 4096;
    c->copies = copies;
    c->flops = 2.0 * (double)rows * 4096 * 4096 * (double)copies;
    c->bytes = (double)copies * 4.0 * (4096.0 * 4096 + 2.0 * (double)rows * 4096);
}

TEST(bench_predictions_follow_the_roofline)
{
    struct hw_profile hw;
    roof_10gbs_1tflops(&hw);
    struct bench_case c;
    memset(&c, 0, sizeof c);
    lin_case(&c, 1, 2);
    struct bench_prediction p;
    CHECK(bench_predict_case(&hw, NULL, &c, NULL, &p) == 0);
    CHECK(p.memory_bound);
    CHECK_NEAR(p.predicted_s, c.bytes / 10e9, 1e-12);
    CHECK_CONTAINS(p.reason, "memory-bound");
    lin_case(&c, 512, 1);
    CHECK(bench_predict_case(&hw, NULL, &c, NULL, &p) == 0);
    CHECK(!p.memory_bound);
    CHECK_NEAR(p.predicted_s, c.flops / 1e12, 1e-12);
    CHECK_CONTAINS(p.reason, "compute-bound");
    /* a model pass is the engine's roof_evaluate at fp32 */
    struct mdl_profile *m = test_model("bench-small");
    c.kind = BENCH_CASE_MODEL;
    c.phase = BENCH_PHASE_DECODE;
    c.context = 1024;
    CHECK(bench_predict_case(&hw, m, &c, NULL, &p) == 0);
    struct roof_config cfg;
    roof_config_init(&cfg, &hw, m, ROOF_DECODE);
    cfg.weights = cfg.act = cfg.kv = DT_FP32;
    cfg.context = 1024;
    struct roof_result rr;
    CHECK(roof_evaluate(&cfg, &rr) == 0);
    CHECK_NEAR(p.predicted_s, rr.time_s, 1e-12);
    CHECK(p.memory_bound);
    /* decode reads every weight once: at least the fp32 weights over the bandwidth */
    CHECK(p.predicted_s >= 249318912.0 * 4 / 10e9 * 0.8);
    CHECK(bench_predict_case(&hw, NULL, &c, NULL, &p) != 0);
    mdl_free(m);
    hw.peak_flops_per_s[DT_FP32] = 0;
    c.kind = BENCH_CASE_GEMV;
    CHECK(bench_predict_case(&hw, NULL, &c, NULL, &p) != 0);
}

/* Each fork-join of a case costs the measured round trip on top of its roofline: by hand, a
 * GEMV stack of 2 matrices (two fork-joins) at 10 GB/s and 2 us per round trip takes
 * bytes / 10e9 + 4 us; a bench-small decode step on two threads has 6 layers x (5 GEMMs and
 * attention) + the LM head = 37 fork-joins, a 16-token prefill 6 x 10 + 1 = 61. */
TEST(bench_predictions_charge_each_fork_join)
{
    struct hw_profile hw;
    roof_10gbs_1tflops(&hw);
    struct bench_case c;
    memset(&c, 0, sizeof c);
    lin_case(&c, 1, 2); /* 134,283,264 B: 13.4283264 ms */
    c.launches = 2;
    struct bench_prediction p;
    struct bench_host_terms fj = {2e-6, 1, 0};
    CHECK(bench_predict_case(&hw, NULL, &c, &fj, &p) == 0);
    CHECK(p.memory_bound);
    CHECK_NEAR(p.launch_s, 4e-6, 1e-15);
    CHECK_NEAR(p.predicted_s, 13.4283264e-3 + 4e-6, 1e-12);
    CHECK_CONTAINS(p.reason, "+ 2 fork-joins x 2");
    /* no round trip measured (one thread, an old report): the roofline alone */
    CHECK(bench_predict_case(&hw, NULL, &c, NULL, &p) == 0);
    CHECK_NEAR(p.predicted_s, 13.4283264e-3, 1e-12);
    CHECK(strstr(p.reason, "fork-join") == NULL);
    struct bench_tfm_shape sh = {6, 1536, 12, 4, 128, 4096, 32000};
    CHECK_NEAR(bench_tfm_launches(&sh, 1, 2), 37, 0);
    CHECK_NEAR(bench_tfm_launches(&sh, 16, 2), 61, 0);
    CHECK_NEAR(bench_tfm_launches(&sh, 1, 1), 0, 0);
    /* one KV head and one query block: attention runs on one thread, no fork-join */
    struct bench_tfm_shape one = {2, 64, 2, 1, 32, 96, 100};
    CHECK_NEAR(bench_tfm_launches(&one, 1, 2), 2 * 5 + 1, 0);
    CHECK_NEAR(bench_tfm_launches(&one, 17, 2), 2 * 10 + 1, 0);
    struct mdl_profile *m = test_model("bench-small");
    c.kind = BENCH_CASE_MODEL;
    c.phase = BENCH_PHASE_DECODE;
    c.context = 1024;
    c.launches = 37;
    struct bench_prediction p0;
    CHECK(bench_predict_case(&hw, m, &c, NULL, &p0) == 0);
    CHECK(bench_predict_case(&hw, m, &c, &fj, &p) == 0);
    CHECK_NEAR(p.predicted_s - p0.predicted_s, 74e-6, 1e-12);
    CHECK(p.memory_bound);
    mdl_free(m);
}

/* The overlap of core time and stream from two passes over one stack, by hand: core 1 ms per
 * row, stream 20 ms, half hidden: t1 = 20 + 0.5, t8 = 20 + 4 -> 1 - 3.5 / 7 = 0.5; an 8-row
 * pass that is core-bound (stream 5 ms): t1 = 5.5, t8 = 8 + 2.5 -> u^2 - 5.5 u + 2.5 = 0,
 * u = 0.5 */
TEST(bench_overlap_from_two_passes)
{
    CHECK_NEAR(bench_overlap_fraction(20.5e-3, 24e-3, 1e-3, 8e-3), 0.5, 1e-12);
    CHECK_NEAR(bench_overlap_fraction(10.5e-3, 10.5e-3, 1e-3, 8e-3), 1, 0); /* all hidden */
    CHECK_NEAR(bench_overlap_fraction(21e-3, 28e-3, 1e-3, 8e-3), 0, 1e-12); /* none */
    CHECK_NEAR(bench_overlap_fraction(21e-3, 40e-3, 1e-3, 8e-3), 0, 0);     /* clamped */
    CHECK_NEAR(bench_overlap_fraction(5.5e-3, 10.5e-3, 1e-3, 8e-3), 0.5, 1e-12);
    CHECK_NEAR(bench_overlap_fraction(0, 10e-3, 1e-3, 8e-3), 1, 0);
    CHECK_NEAR(bench_overlap_fraction(5e-3, NAN, 1e-3, 8e-3), 1, 0);
    /* from a report: the core times come from the profile's peak x gemm_efficiency */
    struct bench_report *r = calloc(1, sizeof *r);
    struct hw_profile hw;
    memset(&hw, 0, sizeof hw);
    hw.peak_flops_per_s[DT_FP32] = 2e12;
    hw.gemm_efficiency = 0.5;                       /* 1 TFLOP/s: 1e9 FLOPs per row take 1 ms */
    CHECK_NEAR(bench_report_overlap(r, &hw), 1, 0); /* not measured */
    r->overlap_rows = 8;
    r->overlap_flops_row = 1e9;
    r->overlap_gemv.n_samples = r->overlap_gemm.n_samples = 1;
    r->overlap_gemv.s.min = 20.5e-3;
    r->overlap_gemm.s.min = 24e-3;
    CHECK_NEAR(bench_report_overlap(r, &hw), 0.5, 1e-12);
    free(r);
}

/* With no overlap a kernel takes stream + core, the stream at the bandwidth that leaves the
 * roof's own GEMV its measured time. By hand, 10 GB/s and 1 TFLOP/s: 1 / b = 1 / 10e9 - 0.5 /
 * 1e12 = 0.995e-10 s/B. An 8 x 4096 x 4096 GEMM (67,371,008 B, 268,435,456 FLOPs) takes
 * 6.703415296 ms + 0.268435456 ms = 6.971850752 ms instead of the roofline's 6.7371008 ms, and
 * a GEMV stays at the roof (its bytes over 10 GB/s, but for the 2 x 4096 floats of x and y) */
TEST(bench_predictions_without_overlap)
{
    struct hw_profile hw;
    roof_10gbs_1tflops(&hw);
    struct bench_case c;
    memset(&c, 0, sizeof c);
    lin_case(&c, 8, 1);
    struct bench_host_terms none = {0, 0, 0}, all = {0, 1, 0};
    struct bench_prediction p;
    CHECK(bench_predict_case(&hw, NULL, &c, &none, &p) == 0);
    CHECK(p.memory_bound);
    CHECK_NEAR(p.predicted_s, 6.971850752e-3, 1e-14);
    CHECK_NEAR(p.overlap_s, 0.268435456e-3, 1e-15);
    CHECK_CONTAINS(p.reason, "of core time not hidden");
    CHECK(bench_predict_case(&hw, NULL, &c, &all, &p) == 0);
    CHECK_NEAR(p.predicted_s, 6.7371008e-3, 1e-14);
    CHECK(bench_predict_case(&hw, NULL, &c, NULL, &p) == 0);
    CHECK_NEAR(p.predicted_s, 6.7371008e-3, 1e-14);
    lin_case(&c, 1, 1);
    CHECK(bench_predict_case(&hw, NULL, &c, &none, &p) == 0);
    CHECK_NEAR(p.predicted_s, c.bytes / 10e9, 1e-5);
    /* a compute-bound GEMM pays its stream on top: 512 x 4096 x 4096, 17.18 GFLOP at 1 TFLOP/s
     * and 83.9 MB at 10.05 GB/s */
    lin_case(&c, 512, 1);
    CHECK(bench_predict_case(&hw, NULL, &c, &none, &p) == 0);
    CHECK(!p.memory_bound);
    CHECK_NEAR(p.predicted_s, c.flops / 1e12 + c.bytes * 0.995e-10, 1e-14);
    /* a decode step of bench-small: the stream hides the GEMVs' core time in the roof already,
     * so without overlap the step changes by the non-GEMV work only (under 1%) */
    struct mdl_profile *m = test_model("bench-small");
    c.kind = BENCH_CASE_MODEL;
    c.phase = BENCH_PHASE_DECODE;
    c.context = 1024;
    struct bench_prediction p1;
    CHECK(bench_predict_case(&hw, m, &c, &all, &p1) == 0);
    CHECK(bench_predict_case(&hw, m, &c, &none, &p) == 0);
    CHECK(p.overlap_s > 0);
    CHECK(fabs(p.predicted_s / p1.predicted_s - 1) < 0.01);
    /* a 16-token prefill at the ridge (100 GFLOP/s: about 8 GFLOP against 0.82 GB) pays most
     * of its core time on top */
    hw.peak_flops_per_s[DT_FP32] = 1e11;
    c.phase = BENCH_PHASE_PREFILL;
    c.context = 0;
    c.prompt = 16;
    CHECK(bench_predict_case(&hw, m, &c, &all, &p1) == 0);
    CHECK(bench_predict_case(&hw, m, &c, &none, &p) == 0);
    CHECK(p.predicted_s > 1.3 * p1.predicted_s);
    mdl_free(m);
}

/* Decode attention's core time at its measured L2 rate, by hand: 10 MB of KV cache at 5 GB/s
 * take 2 ms of core against 1 ms of stream at 10 GB/s, so 2 ms with full overlap and 2 +
 * 0.995 ms with none; in a bench-small decode step at context 1024 the 25,190,400 bytes of K
 * and V at 1 GB/s replace the attention's 2.5 ms of stream */
TEST(bench_predictions_attention_core_rate)
{
    struct hw_profile hw;
    roof_10gbs_1tflops(&hw);
    struct bench_case c;
    memset(&c, 0, sizeof c);
    c.kind = BENCH_CASE_ATTN;
    c.phase = BENCH_PHASE_DECODE;
    c.bytes = 1e7;
    c.flops = 1.5e7;
    struct bench_host_terms all = {0, 1, 5e9}, none = {0, 0, 5e9}, plain = {0, 1, 0};
    struct bench_prediction p;
    CHECK(bench_predict_case(&hw, NULL, &c, &all, &p) == 0);
    CHECK(!p.memory_bound);
    CHECK_NEAR(p.predicted_s, 2e-3, 1e-12);
    CHECK(bench_predict_case(&hw, NULL, &c, &none, &p) == 0);
    CHECK_NEAR(p.predicted_s, 2.995e-3, 1e-12);
    CHECK(bench_predict_case(&hw, NULL, &c, &plain, &p) == 0);
    CHECK(p.memory_bound);
    CHECK_NEAR(p.predicted_s, 1e-3, 1e-12);
    struct mdl_profile *m = test_model("bench-small");
    c.kind = BENCH_CASE_MODEL;
    c.context = 1024;
    c.bytes = c.flops = 0;
    struct bench_prediction p0;
    struct bench_host_terms slow = {0, 1, 1e9};
    CHECK(bench_predict_case(&hw, m, &c, &plain, &p0) == 0);
    CHECK(bench_predict_case(&hw, m, &c, &slow, &p) == 0);
    CHECK_NEAR(p.predicted_s - p0.predicted_s, 25.1904e-3 - 2.51904e-3, 0.01);
    /* prefill keeps the engine's attention (the rate is a one-token measurement) */
    c.phase = BENCH_PHASE_PREFILL;
    c.context = 0;
    c.prompt = 64;
    CHECK(bench_predict_case(&hw, m, &c, &plain, &p0) == 0);
    CHECK(bench_predict_case(&hw, m, &c, &slow, &p) == 0);
    CHECK_NEAR(p.predicted_s, p0.predicted_s, 1e-15);
    mdl_free(m);
}

/* bench_tfm_launches counts the pool's real fork-joins: a forward pass of the test model on
 * two threads hands the workers exactly that many jobs, prefill and decode */
TEST(bench_model_launches_match_the_pool)
{
    struct bench_tfm_shape sh = {2, 64, 4, 2, 32, 96, 100};
    struct bench_tfm *m = NULL;
    CHECK(bench_tfm_new(&sh, 64, 40, 2, 7, &m) == 0);
    struct bench_pool *pool = bench_pool_new(2, false);
    CHECK(pool != NULL);
    if (!m || !pool) {
        bench_pool_free(pool);
        bench_tfm_free(m);
        return;
    }
    const struct bench_kernels *k = bench_kernels_for(BENCH_ISA_GENERIC);
    int tokens[40];
    for (int i = 0; i < 40; i++)
        tokens[i] = (i * 37 + 11) % 100;
    long ns[] = {37, 1, 16, 17};
    for (int i = 0; i < 4; i++) {
        unsigned long before = bench_pool_launches(pool);
        CHECK(bench_tfm_forward(m, k, pool, tokens, ns[i], ns[i] == 1 ? 40 : 0) == 0);
        CHECK_NEAR((double)(bench_pool_launches(pool) - before), bench_tfm_launches(&sh, ns[i], 2),
                   0);
    }
    /* attention of one KV head and one query block runs on the caller alone */
    CHECK(bench_attention_threads(1, 16, 2) == 1);
    CHECK(bench_attention_threads(1, 17, 2) == 2);
    CHECK(bench_attention_threads(4, 1, 2) == 2);
    CHECK(bench_attention_threads(4, 1, 8) == 4);
    /* one thread: plain calls, nothing counted */
    struct bench_pool *one = bench_pool_new(1, false);
    if (one) {
        CHECK(bench_tfm_forward(m, k, one, tokens, 5, 0) == 0);
        CHECK(bench_pool_launches(one) == 0);
        CHECK_NEAR(bench_tfm_launches(&sh, 5, 1), 0, 0);
    }
    bench_pool_free(one);
    bench_pool_free(pool);
    bench_tfm_free(m);
}

TEST(bench_error_summary)
{
    CHECK_NEAR(bench_error_pct(110, 100), 10, 1e-12);
    CHECK_NEAR(bench_error_pct(90, 100), -10, 1e-12);
    double e[] = {-10, 5, 20, -1};
    struct bench_error_summary s;
    bench_error_summarize(e, 4, &s);
    CHECK(s.n == 4);
    CHECK_NEAR(s.median_abs_pct, 7.5, 1e-12);
    /* |e| sorted 1 5 10 20: h = 2.7 -> 10 + 0.7 x 10 */
    CHECK_NEAR(s.p90_abs_pct, 17, 1e-12);
    CHECK_NEAR(s.mean_pct, 3.5, 1e-12);
    bench_error_summarize(e, 0, &s);
    CHECK(isnan(s.median_abs_pct));
}

/* The calibration GEMM sets gemm_efficiency = its median rate / the best fp32 peak; the
 * profile carries it (with its source) and the predictions run GEMMs at that fraction. Hand
 * numbers: peak 4e11 FLOP / 0.10 s = 4e12 FLOP/s; calibration 3e11 FLOP / 0.11 s (median) =
 * 2.727e12 FLOP/s; efficiency 0.681818. */
TEST(bench_gemm_efficiency_from_calibration)
{
    struct bench_report *r = calloc(1, sizeof *r);
    fake_report(r);
    CHECK(r->roofs.gemm_efficiency == 0); /* no calibration case: not measured */
    struct bench_case *c = &r->cases[r->n_cases++];
    snprintf(c->id, sizeof c->id, "gemm_calibration_384x3072x3072");
    c->kind = BENCH_CASE_GEMM;
    c->phase = BENCH_PHASE_KERNEL;
    c->rows = 384;
    c->inner = c->cols = 3072;
    c->copies = 1;
    c->flops = 3e11;
    c->bytes = 1e8;
    c->meas = r->stream[0].meas;
    c->calibration = true;
    bench_derive_roofs(r);
    CHECK_NEAR(r->roofs.gemm_efficiency, (3e11 / 0.11) / 4e12, 1e-12);
    /* measured again at the end of the run, slower (a neighbour held a core): the better
     * measurement still counts, and the profile cites it */
    struct bench_case *again = &r->cases[r->n_cases++];
    *again = *c;
    snprintf(again->id, sizeof again->id, "gemm_calibration_384x3072x3072_again");
    again->flops = 1.5e11;
    bench_derive_roofs(r);
    CHECK_NEAR(r->roofs.gemm_efficiency, (3e11 / 0.11) / 4e12, 1e-12);
    struct strbuf t = {0};
    CHECK(bench_render_json(r, &t) == 0);
    CHECK_CONTAINS(t.buf, "\"calibration\": true");
    CHECK_CONTAINS(t.buf, "\"gemm_efficiency\": 0.681818");
    strbuf_release(&t);
    struct hw_profile *hw = bench_profile_new(r);
    CHECK(hw != NULL);
    if (hw) {
        CHECK(hw_profile_text(hw, &t) == 0);
        CHECK_CONTAINS(t.buf, "gemm_efficiency: 0.6818\n");
        CHECK_CONTAINS(t.buf, "gemm_efficiency: \"measured by roofline bench on 2026-01-02: "
                              "gemm_calibration_384x3072x3072, median 2727 GFLOP/s");
        char *path = write_tmp(t.buf, ".yaml");
        struct err_list errs = {0};
        struct hw_profile *back = hw_load(path, &errs);
        CHECK(back != NULL);
        if (back) {
            CHECK_NEAR(back->gemm_efficiency, 0.6818, 1e-12);
            /* a compute-bound GEMM runs at peak x efficiency */
            struct bench_case g = {0};
            g.kind = BENCH_CASE_GEMM;
            g.rows = 512;
            g.inner = g.cols = 4096;
            g.copies = 1;
            g.flops = 2.0 * 512 * 4096 * 4096;
            g.bytes = 4.0 * (4096.0 * 4096 + 2 * 512 * 4096);
            struct bench_prediction p;
            CHECK(bench_predict_case(back, NULL, &g, NULL, &p) == 0);
            CHECK(!p.memory_bound);
            CHECK_NEAR(p.predicted_s, g.flops / (4e12 * 0.6818), 1e-9);
            /* and the engine takes it as the device's compute efficiency */
            struct roof_config cfg;
            roof_config_init(&cfg, back, NULL, ROOF_DECODE);
            CHECK_NEAR(cfg.tuning.compute_efficiency, 0.6818, 1e-12);
        }
        err_list_release(&errs);
        hw_free(back);
        remove(path);
        free(path);
        strbuf_release(&t);
        hw_free(hw);
    }
    free(r);
}

/* ---- the last-level cache of a cyclic stream (docs/bench.md#the-llc-scan) ---- */

/* By hand: h C = 50 MB at B_llc = 100 GB/s, B_dram = 20 GB/s: a pass over W = 200 MB takes
 * 150e6 / 20e9 + 50e6 / 100e9 = 7.5 + 0.5 = 8.0 ms (25 GB/s); 30 MB (all retained) 0.3 ms; a
 * roof of 25 GB/s measured over A = 200 MB is B_dram = 150e6 / (8 ms - 0.5 ms) = 20 GB/s.
 * Without retention every function gives the DRAM figures exactly. */
TEST(bench_llc_stream_time_by_hand)
{
    CHECK_NEAR(bench_llc_stream_s(200e6, 50e6, 100e9, 20e9), 8.0e-3, 1e-15);
    CHECK_NEAR(bench_llc_bandwidth(200e6, 50e6, 100e9, 20e9), 25e9, 1e-3);
    CHECK_NEAR(bench_llc_stream_s(30e6, 50e6, 100e9, 20e9), 0.3e-3, 1e-15);
    CHECK_NEAR(bench_llc_dram_bandwidth(25e9, 200e6, 50e6, 100e9), 20e9, 1e-3);
    CHECK(bench_llc_bandwidth(200e6, 0, 100e9, 20e9) == 20e9);
    CHECK(bench_llc_bandwidth(200e6, 50e6, 0, 20e9) == 20e9);
    CHECK(bench_llc_dram_bandwidth(25e9, 200e6, 0, 100e9) == 25e9);
    CHECK(bench_llc_dram_bandwidth(25e9, 40e6, 50e6, 100e9) == 25e9); /* A <= h C: cannot say */
}

/* A scan from the model: C = 100 MB at 100 GB/s, h C = 50 MB, B_dram = 20 GB/s. Rates 100 GB/s
 * up to 100 MB, 25 GB/s at 200 MB, 400 / 18 = 22.2 at 400 MB, 800 / 38 = 21.05 at 800 MB: the
 * cliff's threshold is 21.05 + (100 - 21.05) / 4 = 40.8 GB/s, first reached at 200 MB, so the
 * fit runs over 200, 400 and 800 MB, exactly on t = W / 20 GB/s - 2 ms: h C = 2 ms / (1 / 20 -
 * 1 / 100 GB/s) = 50 MB. */
static int
llc_scan(double *w, double *t, double retained)
{
    int n = 0;
    for (double b = 25e6; b <= 800e6; b *= 2, n++) {
        w[n] = b;
        t[n] = b <= 100e6 ? b / 100e9 : bench_llc_stream_s(b, retained, 100e9, 20e9);
    }
    return n;
}

TEST(bench_llc_fit_recovers_retention)
{
    double w[8], t[8];
    int n = llc_scan(w, t, 50e6);
    CHECK(n == 6);
    struct bench_llc_fit f;
    CHECK(bench_llc_fit(w, t, n, 0, 0, &f) == 0);
    CHECK_NEAR(f.size_bytes, 200e6, 0);
    CHECK(f.n_fit == 3);
    CHECK_NEAR(f.llc_bandwidth_bytes_per_s, 100e9, 1e-3);
    CHECK_NEAR(f.dram_bandwidth_bytes_per_s, 20e9, 1e-2);
    CHECK_NEAR(f.intercept_s, -2e-3, 1e-12);
    CHECK_NEAR(f.retained_bytes, 50e6, 1e-2);
    /* without noise the 2% rule sets the resolution: 0.02 x 8 ms / (1/20 - 1/100 GB/s) = 4 MB */
    CHECK_NEAR(f.resolution_bytes, 4e6, 1e-3);
    /* the OS's LLC bounds the cache: 150 MB stops it at 100 MB */
    CHECK(bench_llc_fit(w, t, n, 150e6, 0, &f) == 0);
    CHECK_NEAR(f.size_bytes, 100e6, 0);
    /* at 100% noise per time the 2 ms are within two standard errors: not counted */
    CHECK(bench_llc_fit(w, t, n, 0, 1.0, &f) == 0);
    CHECK(f.retained_bytes == 0);
    /* two points past the cliff cannot give the three the model needs */
    CHECK(bench_llc_fit(w, t, n - 1, 0, 0, &f) == 0);
    CHECK(f.n_fit == 2 && f.retained_bytes == 0);
    /* bad input */
    CHECK(bench_llc_fit(w, t, 1, 0, 0, &f) != 0);
    t[2] = -1;
    CHECK(bench_llc_fit(w, t, n, 0, 0, &f) != 0);
}

/* No retention (an LRU cache: t = W / B_dram past it): h C is exactly 0, and so is it where no
 * working set is 10% faster than the largest (the stream sees no cache). */
TEST(bench_llc_fit_without_retention)
{
    double w[8], t[8];
    int n = llc_scan(w, t, 0);
    struct bench_llc_fit f;
    CHECK(bench_llc_fit(w, t, n, 0, 0, &f) == 0);
    CHECK(f.retained_bytes == 0);
    CHECK_NEAR(f.size_bytes, 200e6, 0);
    CHECK_NEAR(f.dram_bandwidth_bytes_per_s, 20e9, 1e-2);
    for (int i = 0; i < n; i++)
        t[i] = w[i] / 20e9;
    CHECK(bench_llc_fit(w, t, n, 0, 0, &f) == 0);
    CHECK(f.size_bytes == 0 && f.retained_bytes == 0);
}

/* validate --host with the profile's llc_stream: a GEMV stack of 200 MB at 20 GB/s with 50 MB
 * retained at 100 GB/s takes 8.0 ms, not 10 (by hand above); the reason says so. With nothing
 * retained every case, kernels and model passes alike, gets exactly the old prediction. */
TEST(bench_predictions_from_the_llc)
{
    struct hw_profile hw;
    roof_10gbs_1tflops(&hw);
    hw.memory_bandwidth_bytes_per_s = 20e9;
    struct bench_case c;
    memset(&c, 0, sizeof c);
    c.kind = BENCH_CASE_GEMV;
    c.rows = 1;
    c.flops = 1e8;
    c.bytes = 200e6;
    struct bench_prediction p, q;
    struct hw_profile llc = hw;
    llc.llc_stream_bytes = 100e6;
    llc.llc_retained_bytes = 50e6;
    llc.llc_stream_bandwidth_bytes_per_s = 100e9;
    CHECK(bench_predict_case(&llc, NULL, &c, NULL, &p) == 0);
    CHECK(p.memory_bound);
    CHECK_NEAR(p.predicted_s, 8.0e-3, 1e-15);
    CHECK_NEAR(p.llc_bytes, 50e6, 0);
    CHECK_CONTAINS(p.reason, "50.0 MB of it from the LLC");
    CHECK(bench_predict_case(&hw, NULL, &c, NULL, &q) == 0);
    CHECK_NEAR(q.predicted_s, 10e-3, 1e-15);
    /* a model pass streams faster by the retained share of its bytes */
    struct mdl_profile *m = test_model("bench-small");
    struct bench_case d;
    memset(&d, 0, sizeof d);
    d.kind = BENCH_CASE_MODEL;
    d.phase = BENCH_PHASE_DECODE;
    d.context = 512;
    CHECK(bench_predict_case(&llc, m, &d, NULL, &p) == 0);
    CHECK(bench_predict_case(&hw, m, &d, NULL, &q) == 0);
    CHECK(p.memory_bound && q.memory_bound);
    /* decode is almost all stream: t(W) / (W / B_dram) = 1 - 50e6 (1/20 - 1/100) / W x 20 */
    double ratio = 1 - 50e6 * (1 / 20e9 - 1 / 100e9) * 20e9 / p.bytes;
    CHECK(fabs(p.predicted_s / q.predicted_s - ratio) < 0.01);
    /* nothing retained: bit-identical to a profile without the field, host terms or not */
    llc.llc_retained_bytes = 0;
    struct bench_host_terms ht = {2e-6, 0.3, 40e9};
    struct bench_case cases[4] = {c, d, d, c};
    cases[2].phase = BENCH_PHASE_PREFILL;
    cases[2].prompt = 16;
    cases[3].kind = BENCH_CASE_ATTN;
    cases[3].launches = 3;
    for (int i = 0; i < 4; i++)
        for (int k = 0; k < 2; k++) {
            const struct bench_host_terms *h = k ? &ht : NULL;
            CHECK(bench_predict_case(&llc, m, &cases[i], h, &p) == 0);
            CHECK(bench_predict_case(&hw, m, &cases[i], h, &q) == 0);
            CHECK(p.predicted_s == q.predicted_s);
            CHECK_STR(p.reason, q.reason);
        }
    mdl_free(m);
}

/* The report: the scan's fit in the roofs, the roof corrected to B_dram (a 25 GB/s weight
 * stream over 200 MB with 50 MB retained at 100 GB/s: 20 GB/s, by hand above), the JSON
 * fields, and the profile's llc_stream written and read back. */
TEST(bench_llc_in_report_json_and_profile)
{
    struct bench_report *r = calloc(1, sizeof *r);
    fake_report(r);
    struct bench_stream *s = &r->stream[r->n_stream++];
    *s = r->stream[0];
    snprintf(s->kernel, sizeof s->kernel, "weights");
    s->array_bytes = s->bytes = 200e6;
    for (int i = 0; i < 3; i++)
        s->meas.samples_s[i] = 8e-3 * (1 + 0.1 * i);
    bench_stats_compute(s->meas.samples_s, 3, &s->meas.s);
    double w[8], t[8];
    r->n_llc = llc_scan(w, t, 50e6);
    for (int i = 0; i < r->n_llc; i++) {
        r->llc[i].bytes = w[i];
        r->llc[i].matrices = i + 1;
        r->llc[i].meas.n_samples = 1;
        r->llc[i].meas.samples_s[0] = t[i];
        bench_stats_compute(r->llc[i].meas.samples_s, 1, &r->llc[i].meas.s);
    }
    bench_derive_roofs(r);
    const struct bench_roofs *R = &r->roofs;
    CHECK_STR(R->dram_kernel, "weights");
    CHECK_NEAR(R->dram_roof_bytes_per_s, 25e9, 1e-3);
    CHECK_NEAR(R->dram_roof_array_bytes, 200e6, 0);
    CHECK_NEAR(R->llc.retained_bytes, 50e6, 1e-2);
    CHECK_NEAR(R->llc.size_bytes, 200e6, 0);
    CHECK_NEAR(R->dram_bandwidth_bytes_per_s, 20e9, 1e-2);
    struct strbuf j = {0};
    CHECK(bench_render_json(r, &j) == 0);
    CHECK_CONTAINS(j.buf, "\"llc\": {");
    CHECK_CONTAINS(j.buf, "\"retained_bytes\": ");
    CHECK_CONTAINS(j.buf, "\"llc_retained_bytes\": ");
    CHECK_CONTAINS(j.buf, "\"llc_bandwidth_bytes_per_s\": ");
    CHECK_CONTAINS(j.buf, "\"dram_roof_bytes_per_s\": ");
    struct err_list errs = {0};
    struct ynode *root = ynode_parse("bench.json", j.buf, j.len, &errs);
    CHECK(root != NULL);
    if (root) {
        const struct ynode *pts = ynode_get(ynode_get(root, "llc"), "points");
        CHECK(pts && pts->kind == YNODE_SEQ && pts->n == 6);
        ynode_free(root);
    }
    err_list_release(&errs);
    strbuf_release(&j);
    struct hw_profile *hw = bench_profile_new(r);
    CHECK(hw != NULL);
    if (hw) {
        struct strbuf y = {0};
        CHECK(hw_profile_text(hw, &y) == 0);
        CHECK_CONTAINS(y.buf, "llc_stream:\n  size: 200 MB\n  retained: 5");
        char *path = write_tmp(y.buf, "-llc.yaml");
        struct hw_profile *back = hw_load(path, &errs);
        CHECK(back != NULL);
        if (back) {
            CHECK_NEAR(back->llc_stream_bytes, 200e6, 0);
            CHECK_NEAR(back->llc_retained_bytes, 50e6, 1e-6);
            CHECK_NEAR(back->llc_stream_bandwidth_bytes_per_s, 100e9, 1e-4);
            CHECK_NEAR(back->memory_bandwidth_bytes_per_s, 20e9, 1e-4);
        }
        hw_free(back);
        err_list_release(&errs);
        remove(path);
        free(path);
        strbuf_release(&y);
    }
    hw_free(hw);
    free(r);
}

/* The loader's checks of llc_stream, each at its position. */
TEST(bench_llc_stream_profile_errors)
{
    static const char *const BAD[][2] = {
        {"llc_stream: {size: 100 MB, retained: 200 MB, bandwidth: 100 GB/s}",
         "must be at most 'llc_stream.size'"},
        {"llc_stream: {retained: 0 B, bandwidth: 100 GB/s}", "size"},
        {"llc_stream: {size: 100 MB, retained: -1 MB, bandwidth: 100 GB/s}", "retained"},
        {"llc_stream: {size: 100 MB, retained: 10 MB, bandwidth: 10 GB/s}",
         "must exceed 'memory.bandwidth'"},
        {"llc_stream: {size: 100 MB, retained: 10 MB, bandwith: 100 GB/s}", "bandwith"},
    };
    for (size_t i = 0; i < ARRAY_SIZE(BAD); i++) {
        char text[1024];
        snprintf(text, sizeof text,
                 "name: t\nvendor: intel\nkind: cpu\nmemory: {capacity: 16 GB, bandwidth: 20 "
                 "GB/s}\ncompute: {fp32: 1 TFLOPS}\n%s\nsources: {memory: m, compute: c, "
                 "llc_stream: l}\n",
                 BAD[i][0]);
        char *path = write_tmp(text, "-bad.yaml");
        struct err_list errs = {0};
        struct hw_profile *hw = hw_load(path, &errs);
        CHECK(hw == NULL);
        bool found = false;
        char buf[512];
        for (size_t k = 0; k < errs.n; k++) {
            err_format(&errs.items[k], buf, sizeof buf);
            found |= strstr(buf, BAD[i][1]) != NULL && strstr(buf, ":6:") != NULL;
        }
        if (!found)
            FAIL_AT("case %zu: no error at line 6 mentioning '%s'", i, BAD[i][1]);
        hw_free(hw);
        err_list_release(&errs);
        remove(path);
        free(path);
    }
    /* a good one loads, with nothing retained */
    const char *good = "name: t\nvendor: intel\nkind: cpu\nmemory: {capacity: 16 GB, bandwidth: "
                       "20 GB/s}\ncompute: {fp32: 1 TFLOPS}\nllc_stream: {size: 100 MB, "
                       "retained: 0 B, bandwidth: 30 GB/s}\nsources: {memory: m, compute: c, "
                       "llc_stream: l}\n";
    char *path = write_tmp(good, "-good.yaml");
    struct err_list errs = {0};
    struct hw_profile *hw = hw_load(path, &errs);
    CHECK(hw != NULL);
    if (hw) {
        CHECK_NEAR(hw->llc_stream_bytes, 100e6, 0);
        CHECK(hw->llc_retained_bytes == 0);
    }
    hw_free(hw);
    err_list_release(&errs);
    remove(path);
    free(path);
}
