/* The benchmark transformer: Llama-style forward pass in fp32 over the packed GEMM and the panel
 * KV cache, plus a naive reference for tests. Operators as docs/physics.md#operators counts them;
 * the residual adds are fused into the o_proj and down GEMMs. */
#include "bench/tfm.h"

#include <gsl/gsl_rng.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#define RMS_EPS 1e-5f
#define ROPE_BASE 10000.0

int
bench_tfm_shape_of(const struct mdl_profile *m, struct bench_tfm_shape *out, const char **why)
{
    memset(out, 0, sizeof *out);
    *why = NULL;
    if (m->n_experts > 0)
        *why = "mixture of experts is not implemented by the benchmark model";
    else if (mdl_is_mla(m))
        *why = "multi-head latent attention is not implemented by the benchmark model";
    else if (m->sliding_window > 0)
        *why = "sliding-window attention is not implemented by the benchmark model";
    else if (m->qkv_bias || m->o_bias || m->mlp_bias)
        *why = "biases are not implemented by the benchmark model";
    else if (m->tie_word_embeddings)
        *why = "tied embeddings are not implemented by the benchmark model";
    else if (m->head_dim % BENCH_NR != 0)
        *why = "head_dim must be a multiple of 32";
    else if (m->num_kv_heads < 1 || m->num_heads % m->num_kv_heads != 0)
        *why = "attention heads must be a multiple of the KV heads";
    if (*why)
        return -1;
    out->layers = m->num_layers;
    out->hidden = m->hidden_size;
    out->heads = m->num_heads;
    out->kv_heads = m->num_kv_heads;
    out->head_dim = m->head_dim;
    out->intermediate = m->intermediate_size;
    out->vocab = m->vocab_size;
    return 0;
}

double
bench_tfm_params(const struct bench_tfm_shape *s)
{
    double h = (double)s->hidden, qd = (double)(s->heads * s->head_dim),
           kvd = (double)(s->kv_heads * s->head_dim), I = (double)s->intermediate,
           V = (double)s->vocab;
    double per_layer = h * qd + 2 * h * kvd + qd * h + 3 * h * I + 2 * h;
    return (double)s->layers * per_layer + 2 * V * h + h;
}

static void
fill_uniform(gsl_rng *r, float *p, long n, float lo, float hi)
{
    for (long i = 0; i < n; i++)
        p[i] = lo + (hi - lo) * (float)gsl_rng_uniform(r);
}

static void
fill_linear(gsl_rng *r, struct bench_linear *l)
{
    float a = 1.0f / sqrtf((float)l->k);
    for (long p = 0; p < l->panels; p++) {
        long cols = l->n - p * BENCH_NR < BENCH_NR ? l->n - p * BENCH_NR : BENCH_NR;
        float *w = l->w + p * l->k * BENCH_NR;
        for (long k = 0; k < l->k; k++)
            fill_uniform(r, w + k * BENCH_NR, cols, -a, a);
    }
}

static float *
alloc_floats(long n)
{
    float *p = bench_alloc((size_t)n * sizeof(float));
    if (p)
        memset(p, 0, (size_t)n * sizeof(float));
    return p;
}

void
bench_tfm_free(struct bench_tfm *m)
{
    if (!m)
        return;
    if (m->layer) {
        for (long l = 0; l < m->sh.layers; l++) {
            struct bench_tfm_layer *L = &m->layer[l];
            free(L->attn_norm);
            free(L->mlp_norm);
            bench_linear_release(&L->qkv);
            bench_linear_release(&L->o);
            bench_linear_release(&L->gate);
            bench_linear_release(&L->up);
            bench_linear_release(&L->down);
        }
        free(m->layer);
    }
    free(m->embed);
    free(m->final_norm);
    bench_linear_release(&m->lm_head);
    bench_kv_release(&m->kv);
    free(m->rope_cos);
    free(m->rope_sin);
    free(m->x);
    free(m->xn);
    free(m->qkv);
    free(m->attn);
    free(m->gate);
    free(m->up);
    free(m->logits);
    free(m->scratch);
    free(m->work);
    free(m);
}

int
bench_tfm_new(const struct bench_tfm_shape *sh, long max_ctx, long max_tokens, int threads,
              unsigned long seed, struct bench_tfm **out)
{
    *out = NULL;
    if (sh->layers < 1 || sh->hidden < 1 || sh->heads < 1 || sh->kv_heads < 1 ||
        sh->heads % sh->kv_heads != 0 || sh->head_dim < BENCH_NR || sh->head_dim % BENCH_NR != 0 ||
        sh->intermediate < 1 || sh->vocab < 1 || max_ctx < 1 || max_tokens < 1 ||
        max_tokens > max_ctx || threads < 1)
        return -1;
    struct bench_tfm *m = calloc(1, sizeof *m);
    if (!m)
        return -1;
    m->sh = *sh;
    m->max_ctx = max_ctx;
    m->max_tokens = max_tokens;
    m->threads = threads;
    long h = sh->hidden, d = sh->head_dim, qd = sh->heads * d, kvd = sh->kv_heads * d;
    m->ld_h = bench_round_nr(h);
    m->ld_qkv = bench_round_nr(qd + 2 * kvd);
    m->ld_i = bench_round_nr(sh->intermediate);
    gsl_rng *r = gsl_rng_alloc(gsl_rng_taus2);
    m->layer = calloc((size_t)sh->layers, sizeof *m->layer);
    if (!r || !m->layer)
        goto fail;
    gsl_rng_set(r, seed);
    m->embed = alloc_floats(sh->vocab * h);
    if (!m->embed)
        goto fail;
    fill_uniform(r, m->embed, sh->vocab * h, -1.0f, 1.0f);
    for (long l = 0; l < sh->layers; l++) {
        struct bench_tfm_layer *L = &m->layer[l];
        L->attn_norm = alloc_floats(h);
        L->mlp_norm = alloc_floats(h);
        if (!L->attn_norm || !L->mlp_norm || bench_linear_init(&L->qkv, h, qd + 2 * kvd) != 0 ||
            bench_linear_init(&L->o, qd, h) != 0 ||
            bench_linear_init(&L->gate, h, sh->intermediate) != 0 ||
            bench_linear_init(&L->up, h, sh->intermediate) != 0 ||
            bench_linear_init(&L->down, sh->intermediate, h) != 0)
            goto fail;
        fill_uniform(r, L->attn_norm, h, 0.9f, 1.1f);
        fill_uniform(r, L->mlp_norm, h, 0.9f, 1.1f);
        fill_linear(r, &L->qkv);
        fill_linear(r, &L->o);
        fill_linear(r, &L->gate);
        fill_linear(r, &L->up);
        fill_linear(r, &L->down);
    }
    m->final_norm = alloc_floats(h);
    if (!m->final_norm || bench_linear_init(&m->lm_head, h, sh->vocab) != 0)
        goto fail;
    fill_uniform(r, m->final_norm, h, 0.9f, 1.1f);
    fill_linear(r, &m->lm_head);
    if (bench_kv_init(&m->kv, sh->layers, sh->kv_heads, d, max_ctx) != 0)
        goto fail;
    size_t kv_n = (size_t)sh->layers * (size_t)sh->kv_heads * (size_t)d * (size_t)m->kv.max_ctx;
    fill_uniform(r, m->kv.k, (long)kv_n, -1.0f, 1.0f);
    fill_uniform(r, m->kv.v, (long)kv_n, -1.0f, 1.0f);
    m->rope_cos = alloc_floats(max_ctx * d / 2);
    m->rope_sin = alloc_floats(max_ctx * d / 2);
    if (!m->rope_cos || !m->rope_sin)
        goto fail;
    for (long p = 0; p < max_ctx; p++)
        for (long i = 0; i < d / 2; i++) {
            double theta = (double)p * pow(ROPE_BASE, -2.0 * (double)i / (double)d);
            m->rope_cos[p * (d / 2) + i] = (float)cos(theta);
            m->rope_sin[p * (d / 2) + i] = (float)sin(theta);
        }
    m->x = alloc_floats(max_tokens * m->ld_h);
    m->xn = alloc_floats(max_tokens * m->ld_h);
    m->qkv = alloc_floats(max_tokens * m->ld_qkv);
    m->attn = alloc_floats(max_tokens * m->ld_h > max_tokens * qd ? max_tokens * m->ld_h
                                                                  : max_tokens * qd);
    m->gate = alloc_floats(max_tokens * m->ld_i);
    m->up = alloc_floats(max_tokens * m->ld_i);
    m->logits = alloc_floats(bench_round_nr(sh->vocab));
    m->scratch_per_thread = bench_attn_scratch_floats(&m->kv, sh->heads);
    m->scratch = alloc_floats(m->scratch_per_thread * threads);
    m->work = alloc_floats(BENCH_GEMM_WORK_FLOATS * threads);
    if (!m->x || !m->xn || !m->qkv || !m->attn || !m->gate || !m->up || !m->logits || !m->scratch ||
        !m->work)
        goto fail;
    gsl_rng_free(r);
    *out = m;
    return 0;
fail:
    gsl_rng_free(r);
    bench_tfm_free(m);
    return -1;
}

void
bench_rmsnorm(float *y, const float *x, const float *g, long h)
{
    float ss = 0;
    for (long i = 0; i < h; i++)
        ss += x[i] * x[i];
    float inv = 1.0f / sqrtf(ss / (float)h + RMS_EPS);
    for (long i = 0; i < h; i++)
        y[i] = x[i] * inv * g[i];
}

static void
rope(float *v, const float *cs, const float *sn, long d)
{
    long half = d / 2;
    for (long i = 0; i < half; i++) {
        float a = v[i], b = v[i + half];
        v[i] = a * cs[i] - b * sn[i];
        v[i + half] = b * cs[i] + a * sn[i];
    }
}

enum ew_op { EW_NORM, EW_ROPE_STORE, EW_SILU };

struct ew_task {
    struct bench_tfm *m;
    const struct bench_kernels *kn;
    enum ew_op op;
    const float *gain;
    long n, pos0, layer;
};

static void
ew_rows(const struct ew_task *t, long lo, long hi)
{
    struct bench_tfm *m = t->m;
    const struct bench_tfm_shape *s = &m->sh;
    long d = s->head_dim;
    for (long ti = lo; ti < hi; ti++) {
        switch (t->op) {
        case EW_NORM:
            bench_rmsnorm(m->xn + ti * m->ld_h, m->x + ti * m->ld_h, t->gain, s->hidden);
            break;
        case EW_SILU:
            t->kn->silu_mul(m->gate + ti * m->ld_i, m->up + ti * m->ld_i, s->intermediate);
            break;
        case EW_ROPE_STORE: {
            long pos = t->pos0 + ti;
            const float *cs = m->rope_cos + pos * (d / 2), *sn = m->rope_sin + pos * (d / 2);
            float *row = m->qkv + ti * m->ld_qkv;
            for (long hh = 0; hh < s->heads + s->kv_heads; hh++)
                rope(row + hh * d, cs, sn, d);
            const float *k = row + s->heads * d, *v = k + s->kv_heads * d;
            for (long g = 0; g < s->kv_heads; g++)
                for (long i = 0; i < d; i++) {
                    *bench_kv_key(&m->kv, t->layer, g, pos, i) = k[g * d + i];
                    *bench_kv_value(&m->kv, t->layer, g, pos, i) = v[g * d + i];
                }
            break;
        }
        }
    }
}

static void
ew_task_run(void *ctx, int tid, int nthreads)
{
    const struct ew_task *t = ctx;
    long lo, hi;
    bench_split(t->n, tid, nthreads, 1, &lo, &hi);
    ew_rows(t, lo, hi);
}

/* Element-wise work over the tokens: on the pool for a prompt, inline for one token (a pool
 * round trip would cost more than the work). */
static void
elementwise(struct bench_pool *pool, struct ew_task *t)
{
    if (t->n == 1)
        ew_rows(t, 0, 1);
    else
        bench_pool_run(pool, bench_pool_threads(pool), ew_task_run, t);
}

int
bench_tfm_forward(struct bench_tfm *m, const struct bench_kernels *kn, struct bench_pool *pool,
                  const int *tokens, long n, long pos0)
{
    const struct bench_tfm_shape *s = &m->sh;
    if (n < 1 || n > m->max_tokens || pos0 < 0 || pos0 + n > m->max_ctx ||
        bench_pool_threads(pool) > m->threads || kn->gemm_mr > 16)
        return -1;
    for (long i = 0; i < n; i++)
        if (tokens[i] < 0 || tokens[i] >= s->vocab)
            return -1;
    long h = s->hidden, d = s->head_dim;
    for (long i = 0; i < n; i++)
        memcpy(m->x + i * m->ld_h, m->embed + (long)tokens[i] * h, (size_t)h * sizeof(float));
    struct ew_task ew = {m, kn, EW_NORM, NULL, n, pos0, 0};
    for (long l = 0; l < s->layers; l++) {
        const struct bench_tfm_layer *L = &m->layer[l];
        ew.layer = l;
        ew.op = EW_NORM;
        ew.gain = L->attn_norm;
        elementwise(pool, &ew);
        bench_linear_forward(pool, kn, &L->qkv, m->xn, m->ld_h, n, m->qkv, m->ld_qkv, false,
                             m->work);
        ew.op = EW_ROPE_STORE;
        elementwise(pool, &ew);
        bench_attention(pool, kn,
                        &(struct bench_attn_args){.kv = &m->kv,
                                                  .layer = l,
                                                  .heads = s->heads,
                                                  .q = m->qkv,
                                                  .ldq = m->ld_qkv,
                                                  .n = n,
                                                  .pos0 = pos0,
                                                  .out = m->attn,
                                                  .ldo = s->heads * d,
                                                  .scratch = m->scratch,
                                                  .scratch_per_thread = m->scratch_per_thread});
        bench_linear_forward(pool, kn, &L->o, m->attn, s->heads * d, n, m->x, m->ld_h, true,
                             m->work);
        ew.op = EW_NORM;
        ew.gain = L->mlp_norm;
        elementwise(pool, &ew);
        bench_linear_forward(pool, kn, &L->gate, m->xn, m->ld_h, n, m->gate, m->ld_i, false,
                             m->work);
        bench_linear_forward(pool, kn, &L->up, m->xn, m->ld_h, n, m->up, m->ld_i, false, m->work);
        ew.op = EW_SILU;
        elementwise(pool, &ew);
        bench_linear_forward(pool, kn, &L->down, m->gate, m->ld_i, n, m->x, m->ld_h, true, m->work);
    }
    /* logits of the last position only (physics.md#operators) */
    float *last = m->xn + (n - 1) * m->ld_h;
    bench_rmsnorm(last, m->x + (n - 1) * m->ld_h, m->final_norm, h);
    bench_linear_forward(pool, kn, &m->lm_head, last, m->ld_h, 1, m->logits,
                         bench_round_nr(s->vocab), false, m->work);
    return 0;
}

double
bench_tfm_launches(const struct bench_tfm_shape *sh, long n, int threads)
{
    if (threads <= 1 || n < 1)
        return 0;
    double per_layer =
        5 + (bench_attention_threads(sh->kv_heads, n, threads) > 1 ? 1 : 0) + (n > 1 ? 4 : 0);
    return (double)sh->layers * per_layer + 1;
}

/* ---- naive reference ---- */

static void
ref_matvec(const struct bench_linear *l, const float *x, float *y)
{
    for (long c = 0; c < l->n; c++) {
        double acc = 0;
        for (long r = 0; r < l->k; r++)
            acc += (double)x[r] * (double)*bench_linear_at(l, r, c);
        y[c] = (float)acc;
    }
}

int
bench_tfm_reference(const struct bench_tfm *m, const int *tokens, long n, long pos0, float *logits)
{
    const struct bench_tfm_shape *s = &m->sh;
    if (n < 1 || pos0 < 0 || pos0 + n > m->max_ctx)
        return -1;
    for (long i = 0; i < n; i++)
        if (tokens[i] < 0 || tokens[i] >= s->vocab)
            return -1;
    long h = s->hidden, d = s->head_dim, H = s->heads, G = s->kv_heads, I = s->intermediate;
    long rep = H / G, ctx = pos0 + n;
    float *x = calloc((size_t)(n * h), sizeof *x);
    float *xn = calloc((size_t)h, sizeof *xn);
    float *qkv = calloc((size_t)(n * (H + 2 * G) * d), sizeof *qkv);
    float *att = calloc((size_t)(H * d), sizeof *att);
    float *tmp = calloc((size_t)(h > I ? h : I), sizeof *tmp);
    float *gate = calloc((size_t)I, sizeof *gate);
    float *up = calloc((size_t)I, sizeof *up);
    float *sc = calloc((size_t)ctx, sizeof *sc);
    /* keys and values of all ctx positions of the current layer */
    float *K = calloc((size_t)(ctx * G * d), sizeof *K);
    float *V = calloc((size_t)(ctx * G * d), sizeof *V);
    int rc = -1;
    if (!x || !xn || !qkv || !att || !tmp || !gate || !up || !sc || !K || !V)
        goto out;
    for (long i = 0; i < n; i++)
        memcpy(x + i * h, m->embed + (long)tokens[i] * h, (size_t)h * sizeof(float));
    long qkvw = (H + 2 * G) * d;
    for (long l = 0; l < s->layers; l++) {
        const struct bench_tfm_layer *L = &m->layer[l];
        for (long p = 0; p < pos0; p++)
            for (long g = 0; g < G; g++)
                for (long i = 0; i < d; i++) {
                    K[(p * G + g) * d + i] = *bench_kv_key(&m->kv, l, g, p, i);
                    V[(p * G + g) * d + i] = *bench_kv_value(&m->kv, l, g, p, i);
                }
        for (long t = 0; t < n; t++) {
            long pos = pos0 + t;
            bench_rmsnorm(xn, x + t * h, L->attn_norm, h);
            float *row = qkv + t * qkvw;
            ref_matvec(&L->qkv, xn, row);
            for (long hh = 0; hh < H + G; hh++)
                for (long i = 0; i < d / 2; i++) {
                    double th = (double)pos * pow(ROPE_BASE, -2.0 * (double)i / (double)d);
                    float c = (float)cos(th), sn = (float)sin(th);
                    float a = row[hh * d + i], b = row[hh * d + i + d / 2];
                    row[hh * d + i] = a * c - b * sn;
                    row[hh * d + i + d / 2] = b * c + a * sn;
                }
            memcpy(K + pos * G * d, row + H * d, (size_t)(G * d) * sizeof(float));
            memcpy(V + pos * G * d, row + (H + G) * d, (size_t)(G * d) * sizeof(float));
        }
        for (long t = 0; t < n; t++) {
            long pos = pos0 + t;
            const float *row = qkv + t * qkvw;
            for (long hh = 0; hh < H; hh++) {
                long g = hh / rep;
                double mx = -INFINITY, sum = 0;
                for (long j = 0; j <= pos; j++) {
                    double dot = 0;
                    for (long i = 0; i < d; i++)
                        dot += (double)row[hh * d + i] * (double)K[(j * G + g) * d + i];
                    sc[j] = (float)(dot / sqrt((double)d));
                    mx = sc[j] > mx ? sc[j] : mx;
                }
                for (long j = 0; j <= pos; j++) {
                    sc[j] = expf((float)(sc[j] - mx));
                    sum += sc[j];
                }
                for (long i = 0; i < d; i++) {
                    double acc = 0;
                    for (long j = 0; j <= pos; j++)
                        acc += (double)sc[j] * (double)V[(j * G + g) * d + i];
                    att[hh * d + i] = (float)(acc / sum);
                }
            }
            ref_matvec(&L->o, att, tmp);
            for (long i = 0; i < h; i++)
                x[t * h + i] += tmp[i];
            bench_rmsnorm(xn, x + t * h, L->mlp_norm, h);
            ref_matvec(&L->gate, xn, gate);
            ref_matvec(&L->up, xn, up);
            for (long i = 0; i < I; i++)
                gate[i] = gate[i] / (1.0f + expf(-gate[i])) * up[i];
            ref_matvec(&L->down, gate, tmp);
            for (long i = 0; i < h; i++)
                x[t * h + i] += tmp[i];
        }
    }
    bench_rmsnorm(xn, x + (n - 1) * h, m->final_norm, h);
    ref_matvec(&m->lm_head, xn, logits);
    rc = 0;
out:
    free(x);
    free(xn);
    free(qkv);
    free(att);
    free(tmp);
    free(gate);
    free(up);
    free(sc);
    free(K);
    free(V);
    return rc;
}
