/* A small decoder-only transformer (Llama architecture: RMSNorm, RoPE, grouped-query attention,
 * SwiGLU MLP, untied LM head) in fp32 with random weights, run for real on the host: prefill of
 * a prompt and decode steps against a KV cache. A naive reference forward checks it in tests. */
#ifndef ROOFLINE_BENCH_TFM_H
#define ROOFLINE_BENCH_TFM_H

#include "bench/linalg.h"
#include "core/model.h"

struct bench_tfm_shape {
    long layers, hidden, heads, kv_heads, head_dim, intermediate, vocab;
};

/* The shape of a model profile; -1 with a static reason in *why when the benchmark cannot run it
 * (mixture of experts, MLA, sliding windows, biases, tied embeddings, head_dim not a multiple of
 * 32, heads not a multiple of KV heads). */
int bench_tfm_shape_of(const struct mdl_profile *m, struct bench_tfm_shape *out, const char **why);
/* Parameters of the shape (embedding, attention, MLP, norms, LM head), as mdl_param_count. */
double bench_tfm_params(const struct bench_tfm_shape *s);

struct bench_tfm_layer {
    float *attn_norm, *mlp_norm;
    struct bench_linear qkv, o, gate, up, down;
};

struct bench_tfm {
    struct bench_tfm_shape sh;
    long max_ctx, max_tokens, ld_h, ld_qkv, ld_i; /* padded row lengths */
    float *embed;                                 /* vocab x hidden */
    struct bench_tfm_layer *layer;
    float *final_norm;
    struct bench_linear lm_head;
    struct bench_kv kv;
    float *rope_cos, *rope_sin; /* max_ctx x head_dim / 2 */
    /* activations for up to max_tokens tokens */
    float *x, *xn, *qkv, *attn, *gate, *up, *logits;
    float *scratch, *work; /* attention scratch and GEMM packing space, per thread */
    long scratch_per_thread;
    int threads;
};

/* Build a model with weights drawn from a GSL RNG (taus2, `seed`): embeddings U(-1, 1), matrices
 * U(-1/sqrt(k), 1/sqrt(k)) for k inputs, norm gains 1 + U(-0.1, 0.1); the KV cache is filled
 * with U(-1, 1) so decode steps at any context read real data. Room for contexts up to max_ctx
 * and passes of up to max_tokens tokens on `threads` threads. Returns 0 and *out (free with
 * bench_tfm_free), or -1 on a bad shape or out of memory. */
int bench_tfm_new(const struct bench_tfm_shape *sh, long max_ctx, long max_tokens, int threads,
                  unsigned long seed, struct bench_tfm **out);
void bench_tfm_free(struct bench_tfm *m);

/* One forward pass over `n` tokens at positions pos0..pos0+n-1 (prefill: pos0 = 0; a decode
 * step: n = 1, pos0 = context), writing their keys and values to the cache and the logits of
 * the last token to m->logits (vocab floats). Returns 0, or -1 when the pass does not fit
 * (n > max_tokens, pos0 + n > max_ctx, n < 1, a token outside the vocabulary). */
int bench_tfm_forward(struct bench_tfm *m, const struct bench_kernels *kn, struct bench_pool *pool,
                      const int *tokens, long n, long pos0);

/* Fork-joins of one bench_tfm_forward pass over n tokens on `threads` threads: per layer the
 * five weight GEMMs and attention (when it has more than one work item), plus the four
 * element-wise steps of a prompt (one token's run inline); the LM head once. 0 on one thread. */
double bench_tfm_launches(const struct bench_tfm_shape *sh, long n, int threads);

/* The naive reference: the same weights and cache contents for positions < pos0, triple loops,
 * expf, one thread; logits of the last of `n` tokens at pos0.. into `logits` (vocab floats).
 * Does not modify the model. Returns 0 or -1 (allocation, bounds). For tests: slow. */
int bench_tfm_reference(const struct bench_tfm *m, const int *tokens, long n, long pos0,
                        float *logits);

/* RMSNorm of one row of h floats: y = x / sqrt(mean(x^2) + 1e-5) x g (y may be x). */
void bench_rmsnorm(float *y, const float *x, const float *g, long h);

#endif
