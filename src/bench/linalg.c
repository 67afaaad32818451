/* Packed fp32 GEMM / GEMV, the KV cache in panel layout and causal attention over it. The
 * loop order follows Goto's algorithm: K blocks, then M blocks, then panels, then micro-tiles. */
#define _DEFAULT_SOURCE /* madvise, MADV_HUGEPAGE */
#include "bench/linalg.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#define MAX_MR 16

void *
bench_alloc(size_t bytes)
{
    if (bytes == 0)
        bytes = 64;
    if (bytes > SIZE_MAX - 64)
        return NULL;
    if (bytes >= BENCH_HUGE_BYTES && bytes <= SIZE_MAX - BENCH_HUGE_BYTES) {
        /* whole 2 MiB pages where the kernel backs them (docs/bench.md#huge-pages): a stream
         * over 4 KiB pages runs at the rate of wherever they happen to lie, 11-16 GB/s per 25 MB
         * matrix on a Xeon VM, 15.2-16.1 GB/s on huge pages */
        size_t rounded = (bytes + BENCH_HUGE_BYTES - 1) / BENCH_HUGE_BYTES * BENCH_HUGE_BYTES;
        void *p = aligned_alloc(BENCH_HUGE_BYTES, rounded);
#ifdef MADV_HUGEPAGE
        if (p)
            madvise(p, rounded, MADV_HUGEPAGE); /* advice: where THP is off, 4 KiB pages stay */
#endif
        return p;
    }
    size_t rounded = (bytes + 63) / 64 * 64;
    return aligned_alloc(64, rounded);
}

long
bench_round_nr(long n)
{
    return (n + BENCH_NR - 1) / BENCH_NR * BENCH_NR;
}

int
bench_linear_init(struct bench_linear *l, long k, long n)
{
    memset(l, 0, sizeof *l);
    if (k < 1 || n < 1)
        return -1;
    l->k = k;
    l->n = n;
    l->panels = bench_round_nr(n) / BENCH_NR;
    size_t bytes = (size_t)l->panels * (size_t)k * BENCH_NR * sizeof(float);
    l->w = bench_alloc(bytes);
    if (!l->w)
        return -1;
    memset(l->w, 0, bytes);
    return 0;
}

void
bench_linear_release(struct bench_linear *l)
{
    free(l->w);
    l->w = NULL;
}

void
bench_linears_free(struct bench_linear *w, long n)
{
    if (w)
        for (long i = 0; i < n; i++)
            bench_linear_release(&w[i]);
    free(w);
}

float *
bench_linear_at(const struct bench_linear *l, long r, long c)
{
    return l->w + ((c / BENCH_NR) * l->k + r) * BENCH_NR + c % BENCH_NR;
}

double
bench_linear_col_error(const struct bench_linear *l, const float *x, long col, double got)
{
    double ref = 0, mag = 0;
    for (long j = 0; j < l->k; j++) {
        double t = (double)x[j] * (double)*bench_linear_at(l, j, col);
        ref += t;
        mag += fabs(t);
    }
    return fabs(got - ref) / (mag > 0 ? mag : 1);
}

double
bench_linear_bytes(const struct bench_linear *l)
{
    return (double)l->k * (double)l->n * sizeof(float);
}

void
bench_pack_a(float *dst, const float *a, long lda, long m, long k0, long kc, int mr)
{
    long tiles = (m + mr - 1) / mr;
    for (long t = 0; t < tiles; t++) {
        float *d = dst + t * mr * kc;
        for (long r = 0; r < mr; r++) {
            long row = t * mr + r;
            if (row < m) {
                const float *src = a + row * lda + k0;
                for (long k = 0; k < kc; k++)
                    d[k * mr + r] = src[k];
            } else {
                for (long k = 0; k < kc; k++)
                    d[k * mr + r] = 0;
            }
        }
    }
}

/* The micro-kernel for a block of m rows: the 4-row one for 4 rows or fewer (decode attention,
 * tiny GEMMs) wastes less work on padding rows than the ISA's full height. */
struct ukr {
    long mr;
    void (*fn)(long kc, const float *a, const float *b, float *c, long ldc, bool accumulate);
};

static struct ukr
ukr_for(const struct bench_kernels *kn, long m)
{
    struct ukr u = {kn->gemm_mr, kn->gemm_ukr};
    if (m <= 4 && kn->gemm_mr > 4) {
        u.mr = 4;
        u.fn = kn->gemm_ukr4;
    }
    return u;
}

/* One micro-tile with rows <= u.mr real rows: a short one goes through a temporary C tile. */
static void
tile(struct ukr u, long kc, const float *ap, const float *b, float *c, long ldc, long rows,
     bool acc)
{
    if (rows == u.mr) {
        u.fn(kc, ap, b, c, ldc, acc);
        return;
    }
    float cbuf[MAX_MR * BENCH_NR];
    if (acc)
        for (long r = 0; r < rows; r++)
            memcpy(cbuf + r * BENCH_NR, c + r * ldc, BENCH_NR * sizeof(float));
    u.fn(kc, ap, b, cbuf, BENCH_NR, acc);
    for (long r = 0; r < rows; r++)
        memcpy(c + r * ldc, cbuf + r * BENCH_NR, BENCH_NR * sizeof(float));
}

/* C[m x 32 panels] (+)= A[m x k] B for panels stored at b + p * pstride (each k x 32). */
struct panel_gemm {
    long k, m;
    const float *a;
    long lda;
    const float *b;
    long pstride;
    float *c;
    long ldc;
    bool accumulate; /* add to C instead of overwriting it */
};

/* Panels p0..p1 of `g`; `work` holds BENCH_GEMM_WORK_FLOATS. */
static void
gemm_panels(const struct bench_kernels *kn, const struct panel_gemm *g, long p0, long p1,
            float *work)
{
    long k = g->k, m = g->m, lda = g->lda, pstride = g->pstride, ldc = g->ldc;
    const float *a = g->a, *b = g->b;
    float *c = g->c;
    bool accumulate = g->accumulate;
    struct ukr u = ukr_for(kn, m);
    long MR = u.mr;
    long mpad = (m + MR - 1) / MR * MR;
    if (mpad * k <= BENCH_GEMM_WHOLE_FLOATS) {
        for (long pc = 0; pc < k; pc += BENCH_KC) {
            long kc = k - pc < BENCH_KC ? k - pc : BENCH_KC;
            bench_pack_a(work + mpad * pc, a, lda, m, pc, kc, (int)MR);
        }
        /* no software prefetch here: measured slower than the hardware's sequential stream */
        for (long p = p0; p < p1; p++)
            for (long pc = 0; pc < k; pc += BENCH_KC) {
                long kc = k - pc < BENCH_KC ? k - pc : BENCH_KC;
                const float *bp = b + p * pstride + pc * BENCH_NR;
                for (long ir = 0; ir < m; ir += MR)
                    tile(u, kc, work + mpad * pc + ir * kc, bp, c + ir * ldc + p * BENCH_NR, ldc,
                         m - ir < MR ? m - ir : MR, accumulate || pc > 0);
            }
        return;
    }
    for (long pc = 0; pc < k; pc += BENCH_KC) {
        long kc = k - pc < BENCH_KC ? k - pc : BENCH_KC;
        bool acc = accumulate || pc > 0;
        for (long ic = 0; ic < m; ic += BENCH_MC) {
            long mc = m - ic < BENCH_MC ? m - ic : BENCH_MC;
            bench_pack_a(work, a + ic * lda, lda, mc, pc, kc, (int)MR);
            long tiles = (mc + MR - 1) / MR, lines = kc * BENCH_NR * 4 / 64;
            long per_tile = (lines + tiles - 1) / tiles;
            for (long p = p0; p < p1; p++) {
                const float *bp = b + p * pstride + pc * BENCH_NR;
                /* the next panel's slice comes from DRAM or L3 while this one computes: spread
                 * its prefetches over the tiles (the micro-kernel alone runs at peak from L2;
                 * the first tile of a cold slice would otherwise wait on memory) */
                const char *next = (const char *)(bp + pstride);
                for (long ir = 0, t = 0; ir < mc; ir += MR, t++) {
                    if (p + 1 < p1)
                        for (long q = t * per_tile; q < (t + 1) * per_tile && q < lines; q++)
                            __builtin_prefetch(next + 64 * q, 0, 2);
                    tile(u, kc, work + ir * kc, bp, c + (ic + ir) * ldc + p * BENCH_NR, ldc,
                         mc - ir < MR ? mc - ir : MR, acc);
                }
            }
        }
    }
}

void
bench_linear_part(const struct bench_kernels *kn, const struct bench_linear *l, const float *x,
                  long ldx, long m, float *y, long ldy, bool accumulate, long p0, long p1,
                  float *work)
{
    if (m == 1) {
        for (long p = p0; p < p1; p++)
            kn->gemv_panel(l->k, x, l->w + p * l->k * BENCH_NR, y + p * BENCH_NR, accumulate);
        return;
    }
    struct panel_gemm g = {.k = l->k,
                           .m = m,
                           .a = x,
                           .lda = ldx,
                           .b = l->w,
                           .pstride = l->k * BENCH_NR,
                           .c = y,
                           .ldc = ldy,
                           .accumulate = accumulate};
    gemm_panels(kn, &g, p0, p1, work);
}

struct linear_task {
    const struct bench_kernels *kn;
    const struct bench_linear *l;
    const float *x;
    long ldx, m;
    float *y;
    long ldy;
    bool accumulate;
    float *work;
};

/* Rows per thread from which a GEMM is split by rows rather than by panels: each thread then
 * packs only its own rows of A (packing all of A in every thread costs ~5% at prefill sizes),
 * at the price of each thread streaming all of B, which large M amortises. */
#define ROW_SPLIT_ROWS (2 * BENCH_MC)

static void
linear_task_run(void *ctx, int tid, int n)
{
    const struct linear_task *t = ctx;
    long p0, p1;
    if (t->m >= ROW_SPLIT_ROWS * n) {
        long r0, r1;
        bench_split(t->m, tid, n, 64, &r0, &r1);
        if (r1 > r0)
            bench_linear_part(t->kn, t->l, t->x + r0 * t->ldx, t->ldx, r1 - r0, t->y + r0 * t->ldy,
                              t->ldy, t->accumulate, 0, t->l->panels,
                              t->work + (long)tid * BENCH_GEMM_WORK_FLOATS);
        return;
    }
    bench_split(t->l->panels, tid, n, 1, &p0, &p1);
    if (p1 > p0)
        bench_linear_part(t->kn, t->l, t->x, t->ldx, t->m, t->y, t->ldy, t->accumulate, p0, p1,
                          t->work + (long)tid * BENCH_GEMM_WORK_FLOATS);
}

void
bench_linear_forward(struct bench_pool *pool, const struct bench_kernels *kn,
                     const struct bench_linear *l, const float *x, long ldx, long m, float *y,
                     long ldy, bool accumulate, float *work)
{
    struct linear_task t = {kn, l, x, ldx, m, y, ldy, accumulate, work};
    bench_pool_run(pool, bench_pool_threads(pool), linear_task_run, &t);
}

/* ---- KV cache ---- */

int
bench_kv_init(struct bench_kv *kv, long layers, long kv_heads, long head_dim, long max_ctx)
{
    memset(kv, 0, sizeof *kv);
    if (layers < 1 || kv_heads < 1 || head_dim < BENCH_NR || head_dim % BENCH_NR != 0 ||
        max_ctx < 1)
        return -1;
    kv->layers = layers;
    kv->kv_heads = kv_heads;
    kv->head_dim = head_dim;
    kv->max_ctx = bench_round_nr(max_ctx);
    size_t n = (size_t)layers * (size_t)kv_heads * (size_t)head_dim * (size_t)kv->max_ctx;
    kv->k = bench_alloc(n * sizeof(float));
    kv->v = bench_alloc(n * sizeof(float));
    if (!kv->k || !kv->v) {
        bench_kv_release(kv);
        return -1;
    }
    memset(kv->k, 0, n * sizeof(float));
    memset(kv->v, 0, n * sizeof(float));
    return 0;
}

void
bench_kv_release(struct bench_kv *kv)
{
    free(kv->k);
    free(kv->v);
    kv->k = kv->v = NULL;
}

/* one (layer, head) slab holds head_dim x max_ctx floats for keys and for values */
static size_t
slab(const struct bench_kv *kv, long layer, long head)
{
    return ((size_t)layer * (size_t)kv->kv_heads + (size_t)head) * (size_t)kv->head_dim *
           (size_t)kv->max_ctx;
}

float *
bench_kv_key(const struct bench_kv *kv, long layer, long head, long pos, long dim)
{
    return kv->k + slab(kv, layer, head) +
           ((size_t)(pos / BENCH_NR) * (size_t)kv->head_dim + (size_t)dim) * BENCH_NR +
           (size_t)(pos % BENCH_NR);
}

float *
bench_kv_value(const struct bench_kv *kv, long layer, long head, long pos, long dim)
{
    return kv->v + slab(kv, layer, head) +
           ((size_t)(dim / BENCH_NR) * (size_t)kv->max_ctx + (size_t)pos) * BENCH_NR +
           (size_t)(dim % BENCH_NR);
}

double
bench_kv_bytes_per_token(const struct bench_kv *kv)
{
    return 2.0 * (double)kv->layers * (double)kv->kv_heads * (double)kv->head_dim * sizeof(float);
}

/* ---- attention ---- */

/* Query tokens per work item in prefill: rows = QB x (heads per KV head), a multiple of every
 * micro-kernel height we build (2, 3, 8) when the group size is 3 or even. */
#define QB 16

/* rows of a work item, padded to any micro-kernel height up to MAX_MR */
static long
rows_max(long rep)
{
    return QB * rep + MAX_MR;
}

long
bench_attn_scratch_floats(const struct bench_kv *kv, long heads)
{
    long rows = rows_max(heads / kv->kv_heads);
    /* packed queries, scores, gathered outputs, packing space for P V */
    return rows * kv->head_dim + rows * kv->max_ctx + rows * kv->head_dim + BENCH_GEMM_WORK_FLOATS;
}

struct attn_task {
    const struct bench_kernels *kn;
    const struct bench_kv *kv;
    long layer, heads, rep;
    const float *q;
    long ldq, n, pos0;
    float *out;
    long ldo;
    float *scratch;
    long per_thread;
    long n_blocks;
};

static void
attn_item(const struct attn_task *t, float *scr, long g, long blk)
{
    const struct bench_kv *kv = t->kv;
    const struct bench_kernels *kn = t->kn;
    long d = kv->head_dim, rep = t->rep;
    long rmax = rows_max(rep);
    float *qp = scr, *s = scr + rmax * d, *ob = s + rmax * kv->max_ctx, *work = ob + rmax * d;
    long t0 = blk * QB, nt = t->n - t0 < QB ? t->n - t0 : QB;
    long rows = nt * rep;
    struct ukr u = ukr_for(kn, rows);
    long MR = u.mr, rows_pad = (rows + MR - 1) / MR * MR;
    /* the group's query rows, token-major (row = token x rep + head in group), packed k-major
     * for the micro-kernel */
    for (long row = 0; row < rows_pad; row++) {
        long ti = row / rep, hr = row % rep, tile0 = row / MR * MR * d, r = row % MR;
        const float *src = t->q + (t0 + ti) * t->ldq + (g * rep + hr) * d;
        for (long i = 0; i < d; i++)
            qp[tile0 + i * MR + r] = row < rows ? src[i] : 0.0f;
    }
    /* keys visible to the block: up to its last token's position */
    long nk = t->pos0 + t0 + nt;
    long nk_pad = bench_round_nr(nk);
    const float *kslab = bench_kv_key(kv, t->layer, g, 0, 0);
    long ldS = kv->max_ctx;
    /* S = Q K^T: key block j is a d x 32 panel */
    for (long j = 0; j < nk_pad; j += BENCH_NR)
        for (long r = 0; r < rows_pad; r += MR)
            u.fn(d, qp + r * d, kslab + j * d, s + r * ldS + j, ldS, false);
    float scale = 1.0f / sqrtf((float)d);
    for (long r = 0; r < rows; r++) {
        long vis = t->pos0 + t0 + r / rep + 1;
        kn->softmax(s + r * ldS, vis, scale);
        if (nk > vis)
            memset(s + r * ldS + vis, 0, (size_t)(nk - vis) * sizeof(float));
    }
    /* O = P V over the nk visible keys; the value panels of a head are max_ctx x 32 apart */
    struct panel_gemm pv = {.k = nk,
                            .m = rows,
                            .a = s,
                            .lda = ldS,
                            .b = bench_kv_value(kv, t->layer, g, 0, 0),
                            .pstride = kv->max_ctx * BENCH_NR,
                            .c = ob,
                            .ldc = d};
    gemm_panels(kn, &pv, 0, d / BENCH_NR, work);
    for (long ti = 0; ti < nt; ti++)
        for (long hr = 0; hr < rep; hr++)
            memcpy(t->out + (t0 + ti) * t->ldo + (g * rep + hr) * d, ob + (ti * rep + hr) * d,
                   (size_t)d * sizeof(float));
}

static void
attn_task_run(void *ctx, int tid, int n)
{
    const struct attn_task *t = ctx;
    float *scr = t->scratch + (long)tid * t->per_thread;
    long items = t->kv->kv_heads * t->n_blocks;
    /* interleaved: causal blocks grow with position, so contiguous ranges would be unbalanced */
    for (long i = tid; i < items; i += n)
        attn_item(t, scr, i % t->kv->kv_heads, i / t->kv->kv_heads);
}

int
bench_attention_threads(long kv_heads, long n, int threads)
{
    long items = kv_heads * ((n + QB - 1) / QB);
    return items < threads ? (int)items : threads;
}

void
bench_attention(struct bench_pool *pool, const struct bench_kernels *kn,
                const struct bench_attn_args *a)
{
    const struct bench_kv *kv = a->kv;
    long n = a->n;
    struct attn_task t = {.kn = kn,
                          .kv = kv,
                          .layer = a->layer,
                          .heads = a->heads,
                          .rep = a->heads / kv->kv_heads,
                          .q = a->q,
                          .ldq = a->ldq,
                          .n = n,
                          .pos0 = a->pos0,
                          .out = a->out,
                          .ldo = a->ldo,
                          .scratch = a->scratch,
                          .per_thread = a->scratch_per_thread,
                          .n_blocks = (n + QB - 1) / QB};
    bench_pool_run(pool, bench_attention_threads(kv->kv_heads, n, bench_pool_threads(pool)),
                   attn_task_run, &t);
}
