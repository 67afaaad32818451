/* The elementary measurements behind docs/bench.md#core-time-and-the-stream: the bench's own
 * kernels (bench_linear_forward, bench_attention, the pool) timed with their data in L2 and
 * streamed from DRAM, one thread, in interleaved rounds; best and median of the rounds.
 *
 *   make && cc -O2 -std=c17 -D_GNU_SOURCE -Isrc scripts/bench-overlap.c build/rel/libroofline.a \
 *       -lgsl -lgslcblas -lm -lpthread -o /tmp/bench-overlap && /tmp/bench-overlap [rounds]
 *
 * Prints per kernel: the in-L2 rate (the core's time per byte of weights or KV cache), the
 * rate over a stack of separately allocated copies of about 300 MB (DRAM), and what the
 * roofline (max of the two times) and the no-overlap sum (DRAM stream + core time) predict
 * from the weight stream and the in-L2 rates. Not part of the build or the tests. */
#include "bench/harness.h"
#include "bench/kern.h"
#include "bench/linalg.h"

#include <stdio.h>
#include <stdlib.h>

#define STACK 300e6

static int
cmpd(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

struct lin {
    struct bench_linear *w;
    long copies, k, n;
    float *x, *y, *work;
};

static int
lin_init(struct lin *l, long k, long n, double bytes)
{
    l->k = k;
    l->n = n;
    l->copies = (long)(bytes / (4.0 * k * n));
    if (l->copies < 1)
        l->copies = 1;
    l->w = calloc((size_t)l->copies, sizeof *l->w);
    l->x = bench_alloc((size_t)(256 * k) * 4);
    l->y = bench_alloc((size_t)(64 * bench_round_nr(n)) * 4);
    l->work = bench_alloc((size_t)BENCH_GEMM_WORK_FLOATS * 4);
    if (!l->w || !l->x || !l->y || !l->work)
        return -1;
    for (long i = 0; i < 64 * k; i++)
        l->x[i] = 0.001f * (float)(i % 17);
    for (long c = 0; c < l->copies; c++) {
        if (bench_linear_init(&l->w[c], k, n) != 0)
            return -1;
        for (long i = 0; i < l->w[c].panels * k * BENCH_NR; i++)
            l->w[c].w[i] = 0.01f * (float)(i % 13);
    }
    return 0;
}

/* seconds per matrix of m rows, over `reps` passes of the stack */
static double
lin_time(struct bench_pool *p, const struct bench_kernels *kn, struct lin *l, long m, long reps)
{
    double t0 = bench_now_s();
    for (long r = 0; r < reps; r++)
        for (long c = 0; c < l->copies; c++)
            bench_linear_forward(p, kn, &l->w[c], l->x, l->k, m, l->y, bench_round_nr(l->n), false,
                                 l->work);
    return (bench_now_s() - t0) / (double)(reps * l->copies);
}

struct attn {
    struct bench_kv kv;
    long ctx, per;
    float *q, *out, *scr;
};

static int
attn_init(struct attn *a, long ctx, double bytes)
{
    a->ctx = ctx;
    long copies = (long)(bytes / (2.0 * (double)(ctx + 1) * 4 * 128 * 4));
    if (copies < 1)
        copies = 1;
    if (bench_kv_init(&a->kv, copies, 4, 128, ctx + 1) != 0)
        return -1;
    size_t len = (size_t)copies * 4 * 128 * (size_t)a->kv.max_ctx;
    for (size_t j = 0; j < len; j++) {
        a->kv.k[j] = 0.001f * (float)(j % 97);
        a->kv.v[j] = 0.002f * (float)(j % 89);
    }
    a->per = bench_attn_scratch_floats(&a->kv, 12);
    a->q = bench_alloc(12 * 128 * 4);
    a->out = bench_alloc((size_t)(copies * 12 * 128) * 4);
    a->scr = bench_alloc((size_t)a->per * 4);
    if (!a->q || !a->out || !a->scr)
        return -1;
    for (long i = 0; i < 12 * 128; i++)
        a->q[i] = 0.01f * (float)(i % 13);
    return 0;
}

/* seconds per cache (one layer: 4 KV heads, 12 query heads, head_dim 128) */
static double
attn_time(struct bench_pool *p, const struct bench_kernels *kn, struct attn *a, long reps)
{
    double t0 = bench_now_s();
    for (long r = 0; r < reps; r++)
        for (long l = 0; l < a->kv.layers; l++)
            bench_attention(p, kn,
                            &(struct bench_attn_args){.kv = &a->kv,
                                                      .layer = l,
                                                      .heads = 12,
                                                      .q = a->q,
                                                      .ldq = 12 * 128,
                                                      .n = 1,
                                                      .pos0 = a->ctx,
                                                      .out = a->out + l * 12 * 128,
                                                      .ldo = 12 * 128,
                                                      .scratch = a->scr,
                                                      .scratch_per_thread = a->per});
    return (bench_now_s() - t0) / (double)(reps * a->kv.layers);
}

#define NM 5
static const long MS[NM] = {1, 4, 8, 16, 64};

int
main(int argc, char **argv)
{
    int rounds = argc > 1 ? atoi(argv[1]) : 5;
    if (rounds < 1 || rounds > 64)
        rounds = 5;
    struct bench_pool *p = bench_pool_new(1, true);
    const struct bench_kernels *kn = bench_kernels_for(bench_isa_best());
    /* in L2: K 4096 x 64 columns (1 MiB); DRAM: a stack of 4096 x 4096 matrices */
    struct lin lc, ld;
    struct attn ac, ad, ad2;
    if (!p || lin_init(&lc, 4096, 64, 1) || lin_init(&ld, 4096, 4096, STACK) ||
        attn_init(&ac, 256, 1) || attn_init(&ad, 256, STACK) || attn_init(&ad2, 2048, STACK)) {
        fprintf(stderr, "out of memory\n");
        return 1;
    }
    double tc[NM][64], td[NM][64], ac_t[64], ad_t[64], ad2_t[64];
    for (int r = 0; r < rounds; r++) {
        for (int i = 0; i < NM; i++) {
            lin_time(p, kn, &lc, MS[i], 20); /* brings the matrix back into L2 */
            tc[i][r] = lin_time(p, kn, &lc, MS[i], 10);
            td[i][r] = lin_time(p, kn, &ld, MS[i], 1);
        }
        ac_t[r] = attn_time(p, kn, &ac, 10);
        ad_t[r] = attn_time(p, kn, &ad, 1);
        ad2_t[r] = attn_time(p, kn, &ad2, 1);
    }
    for (int i = 0; i < NM; i++) {
        qsort(tc[i], (size_t)rounds, sizeof(double), cmpd);
        qsort(td[i], (size_t)rounds, sizeof(double), cmpd);
    }
    qsort(ac_t, (size_t)rounds, sizeof(double), cmpd);
    qsort(ad_t, (size_t)rounds, sizeof(double), cmpd);
    qsort(ad2_t, (size_t)rounds, sizeof(double), cmpd);
    int md = rounds / 2;
    double qc = 4.0 * 4096 * 64, qd = 4.0 * 4096 * 4096;
    /* the weight stream (M = 1 from DRAM) holds the GEMV's own core time; without it: */
    double b_ws = qd / td[0][0], b_core1 = qc / tc[0][0];
    double b_pure = 1.0 / (1.0 / b_ws - 1.0 / b_core1);
    printf("one thread, %d rounds; rates best (median) in GB/s of weights or KV cache\n", rounds);
    printf("weight stream (M = 1 from DRAM) %.1f (%.1f); GEMV core in L2 %.1f; DRAM without "
           "the GEMV's core time %.1f\n",
           b_ws / 1e9, qd / td[0][md] / 1e9, b_core1 / 1e9, b_pure / 1e9);
    printf("%-22s %12s %12s %10s %10s %9s\n", "kernel", "in L2", "DRAM", "GFLOP/s L2", "roofline",
           "no-overlap");
    for (int i = 0; i < NM; i++) {
        double core = qc / tc[i][0]; /* bytes of B per second of core time */
        double flops = 2.0 * MS[i] * 4096 * 64 / tc[i][0];
        /* roofline: the slower of the stream and the core; no overlap: both in turn */
        double roof = core < b_ws ? core : b_ws;
        double sum = 1.0 / (1.0 / b_pure + 1.0 / core);
        printf("gemm M=%-3ld 4096x4096    %5.1f (%5.1f) %5.1f (%5.1f) %10.1f %10.1f %9.1f\n", MS[i],
               core / 1e9, qc / tc[i][md] / 1e9, qd / td[i][0] / 1e9, qd / td[i][md] / 1e9,
               flops / 1e9, roof / 1e9, sum / 1e9);
    }
    double kv256 = 2.0 * 257 * 4 * 128 * 4, kv2048 = 2.0 * 2049 * 4 * 128 * 4;
    double core = kv256 / ac_t[0];
    printf("attention ctx 256      %5.1f (%5.1f) %5.1f (%5.1f) %10s %10.1f %9.1f\n", core / 1e9,
           kv256 / ac_t[md] / 1e9, kv256 / ad_t[0] / 1e9, kv256 / ad_t[md] / 1e9, "",
           (core < b_ws ? core : b_ws) / 1e9, 1.0 / (1.0 / b_pure + 1.0 / core) / 1e9);
    printf("attention ctx 2048     %13s %5.1f (%5.1f)\n", "", kv2048 / ad2_t[0] / 1e9,
           kv2048 / ad2_t[md] / 1e9);
    bench_pool_free(p);
    return 0;
}
